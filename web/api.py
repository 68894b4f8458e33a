"""The JSON API (DESIGN.md 4): health, state, commands, games, join codes, QR codes, history.

Every refusal is a 4xx with `{"error": "<message in the user's language>"}`: 401 without
a valid token, 403 when the role may not, 409 for a stale `version`, 400/422 for
malformed input. Commands go to the referee unchanged; its own checks (turn, rules) give
the 403/409/422 answers with the rule broken, in words.
"""

from __future__ import annotations

import io
import json
from typing import Any

import segno
from flask import Blueprint, Response, jsonify, request, session

from . import i18n
from .auth import CSRF_HEADER, csrf_ok
from .common import base_url, check_read, check_write, error, lang, services, tr, who
from .facade import PLAYER_COMMANDS

bp = Blueprint("api", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    facade = services().facade
    if not facade.ready():
        return error(503, "error.not_ready", "not-ready")  # the one 5xx: a dead referee thread
    return jsonify(ok=True, version=facade.version)


@bp.get("/api/state")
def state() -> Response:
    refused = check_read()
    if refused is not None:
        return refused
    return jsonify(state_payload())


def state_payload() -> dict[str, Any]:
    """The state for the caller, plus who they are and who is connected."""
    svc = services()
    w = who()
    seat = w.seat if w.role == "player" else None
    body = svc.facade.state_for(w.role, seat)
    players = list(body.get("players") or [])
    body["you"] = {
        "role": w.role,
        "seat": seat,
        "name": players[seat] if seat is not None and 0 <= seat < len(players) else None,
        "problem": w.problem,
    }
    body["connected"] = [{**c, "name": players[c["seat"]] if c["seat"] is not None and c["seat"] < len(players)
                          else None} for c in svc.presence.summary()]
    body["lang"] = lang()
    return body


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_json() -> Any:
    """The request body as JSON, or `None` for anything else (NaN, too deep, not UTF-8...)."""
    raw = request.get_data(cache=True)
    try:
        return json.loads(raw.decode("utf-8"), parse_constant=_reject_constant)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return None


@bp.post("/api/actions")
def actions() -> Response:
    refused = check_write()
    if refused is not None:
        return refused
    command = read_json()
    if not isinstance(command, dict):
        return error(400, "error.json_object", "malformed")
    kind = command.get("type")
    if not isinstance(kind, str) or not kind:
        return error(400, "error.no_type", "malformed")
    version = command.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        return error(400, "error.no_version", "malformed")
    w = who()
    if w.role == "player" and kind not in PLAYER_COMMANDS:
        return error(403, "error.host_only", "forbidden")
    result = services().facade.submit(command, w.role, w.seat if w.role == "player" else None)
    if not result.ok:
        resp = jsonify(error=result.message(lang()), rule=result.error.get("rule", "refused"), version=result.version)
        # A store failure (disk full...) is a 503 inside the referee; nothing was changed, so the
        # phone may retry: the contract keeps the API's refusals in the 4xx range.
        resp.status_code = result.status if 400 <= result.status < 500 else 409
        return resp
    return jsonify(ok=True, version=result.version, **{k: v for k, v in result.data.items() if k != "ok"})


@bp.get("/api/games")
def game_list() -> Response:
    return jsonify(games=services().facade.games())


# --- join codes ------------------------------------------------------------------------


def _join_url(token: str) -> str:
    return f"{base_url()}join/{token}"


@bp.get("/api/codes")
def codes() -> Response:
    refused = _host_read()
    if refused is not None:
        return refused
    return jsonify(codes_payload())


def _host_read() -> Response | None:
    w = who()
    if w.problem:
        return error(401, "error.bad_token" if w.problem == "bad-token" else "error.revoked", "unauthorised")
    if w.grant is None:
        return error(401, "error.no_token", "unauthorised")
    if w.role != "host":
        return error(403, "error.host_only", "forbidden")
    return None


def codes_payload() -> dict[str, Any]:
    svc = services()
    players = list(svc.facade.public().get("players") or [])
    out: list[dict[str, Any]] = []
    for g in svc.access.grants():
        name = players[g.seat] if g.seat is not None and g.seat < len(players) else None
        out.append({"key": g.key, "role": g.role, "seat": g.seat, "name": name, "code": g.code,
                    "url": _join_url(g.token), "qr": f"/qr/{g.key.replace(':', '-')}.svg"})
    order = {"host": 0, "player": 1, "spectator": 2}
    out.sort(key=lambda c: (order[c["role"]], c["seat"] if c["seat"] is not None else -1))
    return {"codes": out, "join_page": f"{base_url()}join", "base_url": base_url()}


@bp.post("/api/codes/rotate")
def rotate() -> Response:
    refused = check_write(host_only=True)
    if refused is not None:
        return refused
    body = read_json()
    key = body.get("key") if isinstance(body, dict) else None
    svc = services()
    known = {g.key for g in svc.access.grants()}
    keys = sorted(known - {"host"}) if key == "all" else [key]
    if not keys or any(k not in known for k in keys):
        return error(400, "error.bad_key", "malformed")
    w = who()
    for k in keys:
        fresh = svc.access.rotate(k)
        if w.grant is not None and w.grant.key == k and w.via == "cookie":
            session["g"] = fresh.id  # the host who rotated their own code stays in
    return jsonify(codes_payload())


@bp.get("/qr/<name>.svg")
def qr(name: str) -> Response:
    """The QR code of a join URL. The spectator's is public (the table screen shows it)."""
    key = name.replace("-", ":")
    svc = services()
    grant = svc.access.get(key)
    if grant is None:
        return error(404, "error.not_found", "not-found")
    if grant.role != "spectator":
        refused = _host_read()
        if refused is not None:
            return refused
    buf = io.BytesIO()
    segno.make(_join_url(grant.token), error="m").save(
        buf, kind="svg", scale=4, border=2, xmldecl=False, title=tr("qr.title"), dark="#000", light="#fff")
    resp = Response(buf.getvalue(), mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.post("/api/leave")
def leave() -> Response:
    w = who()
    if w.via == "cookie" and w.grant is not None:
        if not csrf_ok(session, request.headers.get(CSRF_HEADER)):
            return error(403, "error.csrf", "csrf")
    session.pop("g", None)
    return jsonify(ok=True)


# --- history -------------------------------------------------------------------------


@bp.get("/api/history")
def history() -> Response:
    refused = check_read()
    if refused is not None:
        return refused
    facade = services().facade
    matches = facade.history()
    return jsonify(matches=matches, statistics=facade.statistics(matches))


@bp.get("/api/history/<match_id>.<fmt>")
def export(match_id: str, fmt: str) -> Response:
    refused = check_read()
    if refused is not None:
        return refused
    facade = services().facade
    if fmt == "json":
        body, mimetype = facade.export_json(match_id), "application/json"
    elif fmt == "csv":
        body, mimetype = facade.export_csv(match_id), "text/csv"
    else:
        return error(404, "error.not_found", "not-found")
    if body is None:
        return error(404, "error.not_found", "not-found")
    resp = Response(body, mimetype=mimetype)
    resp.headers["Content-Disposition"] = f'attachment; filename="match-{_safe(match_id)}.{fmt}"'
    return resp


def _safe(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum() or ch in "-_")[:40] or "match"


@bp.post("/api/lang")
def set_lang() -> Response:
    body = read_json()
    chosen = body.get("lang") if isinstance(body, dict) else None
    if chosen not in i18n.LANGS:
        return error(400, "error.bad_lang", "malformed")
    resp = jsonify(ok=True, lang=chosen)
    resp.set_cookie(i18n.COOKIE, chosen, max_age=3600 * 24 * 365, samesite="Lax", httponly=False)
    return resp


__all__ = ["bp", "read_json", "state_payload"]
