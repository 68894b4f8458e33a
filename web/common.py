"""What every blueprint needs for one request: the services, the caller, the language, errors."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import current_app, g, jsonify, request, session
from flask.wrappers import Response

from . import i18n
from .auth import CSRF_HEADER, Access, Throttle, Who, csrf_ok, identify, is_lan_ip, lan_addresses, new_csrf
from .facade import Facade


@dataclass
class Services:
    """Hung on `app.extensions["companion"]`: what the views reach through `current_app`."""

    facade: Facade
    access: Access
    camera: Any
    presence: Any
    throttle: Throttle
    static_versions: dict[str, str] = field(default_factory=dict)


def services() -> Services:
    return current_app.extensions["companion"]  # type: ignore[no-any-return]


def who() -> Who:
    if "who" not in g:
        g.who = identify(services().access, request.headers, session)
    return g.who  # type: ignore[no-any-return]


def lang() -> str:
    if "lang" not in g:
        g.lang = i18n.negotiate(request.cookies.get(i18n.COOKIE), request.accept_languages)
    return g.lang  # type: ignore[no-any-return]


def tr(key: str, **values: Any) -> str:
    return i18n.text(lang(), key, **values)


def error(status: int, key: str, rule: str, **extra: Any) -> Response:
    """A refusal: `{"error": "<message in the user's language>", "rule": ...}` with a 4xx."""
    body = {"error": tr(key), "rule": rule, **extra}
    resp = jsonify(body)
    resp.status_code = status
    return resp


def csrf_token() -> str:
    """The session's CSRF token (made on first use; pages embed it)."""
    token = session.get("c")
    if not isinstance(token, str):
        token = session["c"] = new_csrf()
    return token


def check_write(host_only: bool = False) -> Response | None:
    """Refuse a state-changing request that lacks a valid token, CSRF header or role."""
    w = who()
    if w.problem == "bad-token":
        return error(401, "error.bad_token", "unauthorised")
    if w.problem == "revoked":
        return error(401, "error.revoked", "unauthorised")
    if w.grant is None:
        return error(401, "error.no_token", "unauthorised")
    if w.via == "cookie" and not csrf_ok(session, request.headers.get(CSRF_HEADER)):
        return error(403, "error.csrf", "csrf")
    if w.role == "spectator":
        return error(403, "error.spectator", "forbidden")
    if host_only and w.role != "host":
        return error(403, "error.host_only", "forbidden")
    return None


def check_read() -> Response | None:
    """Reads are open to everyone (spectators), but an unknown bearer token is an error."""
    if who().problem == "bad-token":
        return error(401, "error.bad_token", "unauthorised")
    return None


def base_url() -> str:
    """The address phones should use: the configured public URL, else a LAN IP with our port.

    Android phones often cannot resolve `.local` names, and `localhost` means the phone
    itself, so a QR code made from such a request carries the box's LAN address instead.
    """
    public = str(current_app.config.get("PUBLIC_URL") or "")
    if public:
        return public.rstrip("/") + "/"
    host = request.host
    name, _, port = host.partition(":")
    if is_lan_ip(name):
        return f"http://{host}/"
    addresses = lan_addresses()
    if addresses:
        port = port or str(request.environ.get("SERVER_PORT") or "")
        suffix = f":{port}" if port and port != "80" else ""
        return f"http://{addresses[0]}{suffix}/"
    return request.host_url


def static_url(name: str) -> str:
    version = services().static_versions.get(name, "")
    return f"/static/{name}?v={version}" if version else f"/static/{name}"


__all__ = ["Services", "base_url", "check_read", "check_write", "csrf_token", "error", "lang", "services",
           "static_url", "tr", "who"]
