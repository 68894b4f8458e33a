"""The phone pages and the HTTP API, as a Flask application built around the referee.

`create_app(config, referee=..., camera=None)` returns the app; `web.server.serve` runs
it with waitress for `companion serve`. Configuration keys (all optional):

  DATA_DIR          where the cookie key and the join codes are kept (None: in memory)
  SECRET_KEY        signs the session cookies (default: kept in DATA_DIR)
  ALLOWED_HOSTS     extra Host names to accept besides localhost, 127.0.0.1, the LAN
                    addresses, <hostname> and <hostname>.local
  TRUSTED_HOSTS     the complete list instead (Flask's setting); None: computed as above
  PUBLIC_URL        the base URL put in QR codes (default: http://<LAN address>:<port>/)
  SSE_KEEPALIVE     seconds between keep-alive comments on quiet streams (15)
  SSE_MAX_STREAMS   open event streams at most (56; each holds a server thread)
  SUBMIT_TIMEOUT    seconds to wait for the referee's answer to a command (5)
  MJPEG_MAX_VIEWERS camera previews at once (2)
  JOIN_FAIL_LIMIT   wrong join codes per address and minute before refusing (10)
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, request
from werkzeug.exceptions import HTTPException, SecurityError

from . import api, i18n, pages, stream
from . import camera as camera_pages
from .auth import ACCESS_FILE, Access, Throttle, allowed_hosts, secret_key
from .common import Services
from .facade import Facade

log = logging.getLogger(__name__)

DEFAULTS: dict[str, Any] = {
    "DATA_DIR": None,
    "ALLOWED_HOSTS": (),
    "TRUSTED_HOSTS": None,
    "PUBLIC_URL": "",
    "SSE_KEEPALIVE": 15.0,
    "SSE_MAX_STREAMS": 56,
    "SUBMIT_TIMEOUT": 5.0,
    "MJPEG_MAX_VIEWERS": 2,
    "JOIN_FAIL_LIMIT": 10,
}
_POSITIVE = ("SSE_KEEPALIVE", "SSE_MAX_STREAMS", "SUBMIT_TIMEOUT", "MJPEG_MAX_VIEWERS", "JOIN_FAIL_LIMIT")

CSP = ("default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; "
       "frame-ancestors 'none'; base-uri 'none'; form-action 'self'")


class WebConfigError(ValueError):
    """A web setting that cannot be used; the message names the key."""


def create_app(config: Mapping[str, Any] | None = None, *, referee: Any, camera: Any = None) -> Flask:
    """The web application for `referee` (the facade) and an optional camera service."""
    app = Flask(__name__)
    app.config.update(
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_NAME="companion",
        PERMANENT_SESSION_LIFETIME=timedelta(days=30),
        SEND_FILE_MAX_AGE_DEFAULT=timedelta(days=7),  # static URLs carry a content hash
        MAX_CONTENT_LENGTH=64 * 1024,
    )
    app.config.update(DEFAULTS)
    app.config.update(dict(config or {}))
    _check(app.config)
    data_dir = Path(app.config["DATA_DIR"]) if app.config["DATA_DIR"] else None
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = secret_key(data_dir)
    auto_hosts = app.config["TRUSTED_HOSTS"] is None
    if auto_hosts:
        app.config["TRUSTED_HOSTS"] = allowed_hosts(app.config["ALLOWED_HOSTS"])

    facade = Facade(referee, submit_timeout=float(app.config["SUBMIT_TIMEOUT"]))
    app.extensions["companion"] = Services(
        facade=facade,
        access=Access(data_dir / ACCESS_FILE if data_dir else None, facade.max_seats()),
        camera=camera,
        presence=stream.Presence(),
        throttle=Throttle(int(app.config["JOIN_FAIL_LIMIT"])),
        static_versions=_static_versions(Path(app.static_folder or "")),
    )
    for bp in (pages.bp, api.bp, stream.bp, camera_pages.bp):
        app.register_blueprint(bp)
    _errors(app, auto_hosts)
    app.after_request(_headers)
    return app


def _check(cfg: Mapping[str, Any]) -> None:
    for key in _POSITIVE:
        value = cfg[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
            raise WebConfigError(f"web setting {key}: must be a positive number, not {value!r}")
    hosts = cfg["ALLOWED_HOSTS"]
    if isinstance(hosts, str) or not all(isinstance(h, str) for h in hosts):
        raise WebConfigError(f"web setting ALLOWED_HOSTS: must be a list of host names, not {hosts!r}")
    url = cfg["PUBLIC_URL"]
    if url and not (isinstance(url, str) and url.startswith(("http://", "https://"))):
        raise WebConfigError(f"web setting PUBLIC_URL: must start with http:// or https://, not {url!r}")


def _static_versions(folder: Path) -> dict[str, str]:
    out = {}
    for path in sorted(folder.glob("*")) if folder.is_dir() else []:
        if path.is_file():
            out[path.name] = hashlib.sha256(path.read_bytes()).hexdigest()[:10]
    return out


_MESSAGES = {400: "error.bad_request", 401: "error.no_token", 403: "error.forbidden", 404: "error.not_found",
             405: "error.method", 413: "error.too_large", 429: "error.too_many"}


def _errors(app: Flask, auto_hosts: bool) -> None:
    refreshed = [time.monotonic()]

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        lang = i18n.negotiate(request.cookies.get(i18n.COOKIE), request.accept_languages)
        code = exc.code or 400
        if isinstance(exc, SecurityError):
            # Not one of our names: a DNS-rebinding page, or the box got a new address.
            if auto_hosts and time.monotonic() - refreshed[0] > 10:
                refreshed[0] = time.monotonic()
                app.config["TRUSTED_HOSTS"] = allowed_hosts(app.config["ALLOWED_HOSTS"])
            resp = jsonify(error=i18n.text(lang, "error.bad_host"), rule="host")
            resp.status_code = 400
            return resp
        resp = jsonify(error=i18n.text(lang, _MESSAGES.get(code, "error.bad_request")), rule=f"http-{code}")
        resp.status_code = code
        return resp


def _headers(resp: Response) -> Response:
    h = resp.headers
    h.setdefault("X-Content-Type-Options", "nosniff")
    h.setdefault("Referrer-Policy", "no-referrer")  # join links carry tokens
    h.setdefault("X-Frame-Options", "DENY")
    h.setdefault("Content-Security-Policy", CSP)
    if resp.mimetype == "application/json":
        h.setdefault("Cache-Control", "no-store")
    return resp


__all__ = ["DEFAULTS", "WebConfigError", "create_app"]
