"""The phone pages: table, player, setup, history, rules help, joining and the language switch.

Each page is a small template around one state object embedded as JSON (the same one
`/api/state` answers for this caller), so the first render needs no second request; the
page script then follows the SSE stream. Views stay short and never contain rules.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from flask import Blueprint, Response, make_response, redirect, render_template, request, session
from jinja2 import TemplateNotFound

from . import i18n
from .api import state_payload
from .auth import csrf_ok
from .common import csrf_token, lang, services, static_url, tr, who

bp = Blueprint("pages", __name__)

NAV = (  # (endpoint path, label key, roles that see it)
    ("/", "nav.table", ("host", "player", "spectator")),
    ("/player", "nav.player", ("host", "player", "spectator")),
    ("/setup", "nav.setup", ("host",)),
    ("/camera", "nav.camera", ("host",)),
    ("/history", "nav.history", ("host", "player", "spectator")),
    ("/rules", "nav.rules", ("host", "player", "spectator")),
)


def render_page(template: str, page: str, status: int = 200, *, boot_extra: dict[str, Any] | None = None,
                **extra: Any) -> Response:
    """A page with its boot data: language, strings for the script, CSRF token, state."""
    w = who()
    current = lang()
    boot = {"page": page, "lang": current, "csrf": csrf_token(), "strings": i18n.client_strings(current),
            "state": state_payload(), **(boot_extra or {})}
    nav = [(path, tr(key)) for path, key, roles in NAV if w.role in roles]
    html = render_template(template, boot=boot, page=page, lang=current, t=tr, who=w, nav=nav,
                           static_url=static_url, path=request.path, **extra)
    resp = make_response(html, status)
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/")
def table() -> Response:
    return render_page("table.html", "table")


@bp.get("/player")
def player() -> Response:
    return render_page("player.html", "player")


@bp.get("/setup")
def setup() -> Response:
    w = who()
    if w.role != "host":
        return render_page("join.html", "join", 403, need="host")
    return render_page("setup.html", "setup", boot_extra={"games": services().facade.games()})


@bp.get("/history")
def history() -> Response:
    return render_page("history.html", "history")


@bp.get("/rules")
def rules_index() -> Response:
    return render_page("rules.html", "rules", game=None, games=services().facade.games())


@bp.get("/rules/<game>")
def rules(game: str) -> Response:
    games = services().facade.games()
    if game not in {g["id"] for g in games}:
        return render_page("rules.html", "rules", 404, game=None, games=games)
    try:
        return render_page("rules.html", "rules", game=game, games=games, body=f"rules_{game}.html")
    except TemplateNotFound:
        return render_page("rules.html", "rules", 404, game=None, games=games)


# --- joining -----------------------------------------------------------------------------


def _landing(role: str) -> str:
    return {"host": "/setup", "player": "/player"}.get(role, "/")


def _redeem(grant: Any) -> None:
    session.clear()
    session.permanent = True  # a phone that sleeps or reloads keeps its seat (30 days)
    session["g"] = grant.id
    csrf_token()


@bp.get("/join")
def join_form() -> Response:
    return render_page("join.html", "join", need=None, code=request.args.get("code", "")[:16])


@bp.get("/join/<token>")
def join_token(token: str) -> Response:
    svc = services()
    addr = request.remote_addr or "?"
    if svc.throttle.blocked(addr):
        return render_page("join.html", "join", 429, need=None, failed="join.too_many")
    grant = svc.access.by_token(token)
    if grant is None:
        svc.throttle.fail(addr)
        return render_page("join.html", "join", 404, need=None, failed="join.bad_link")
    _redeem(grant)
    return redirect(_landing(grant.role), 303)  # type: ignore[return-value]


@bp.post("/join")
def join_code() -> Response:
    svc = services()
    addr = request.remote_addr or "?"
    if svc.throttle.blocked(addr):
        return render_page("join.html", "join", 429, need=None, failed="join.too_many")
    if not csrf_ok(session, request.form.get("csrf")):
        return render_page("join.html", "join", 403, need=None, failed="join.expired")
    grant = svc.access.by_code(request.form.get("code"))
    if grant is None:
        svc.throttle.fail(addr)
        return render_page("join.html", "join", 400, need=None, failed="join.bad_code",
                           code=str(request.form.get("code", ""))[:16])
    _redeem(grant)
    return redirect(_landing(grant.role), 303)  # type: ignore[return-value]


@bp.get("/lang/<code>")
def switch_language(code: str) -> Response:
    target = request.args.get("next", "/")
    parts = urlsplit(target)
    if parts.scheme or parts.netloc or not target.startswith("/") or target.startswith("//"):
        target = "/"  # only our own pages: never an open redirect
    resp = redirect(target, 303)
    if code in i18n.LANGS:
        resp.set_cookie(i18n.COOKIE, code, max_age=3600 * 24 * 365, samesite="Lax")
    return resp  # type: ignore[return-value]


__all__ = ["bp", "render_page"]
