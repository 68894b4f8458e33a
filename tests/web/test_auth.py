"""Join tokens and codes, sessions that survive restarts, rotation, throttling, QR codes."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from flask import Flask

from companion.referee import Referee
from web.auth import CODE_ALPHABET, CODE_LENGTH, Access, normalise_code

from .conftest import Phone, make_app


def test_every_role_and_seat_has_its_own_unguessable_token_and_code(app: Flask) -> None:
    grants = app.extensions["companion"].access.grants()
    keys = {g.key for g in grants}
    assert keys == {"host", "spectator", *(f"player:{s}" for s in range(7))}  # 11 nimmt! seats 7
    assert len({g.token for g in grants}) == len(grants) and len({g.code for g in grants}) == len(grants)
    for g in grants:
        assert len(g.token) >= 32
        assert len(g.code) == CODE_LENGTH and set(g.code) <= set(CODE_ALPHABET)
    assert not set("ILOU") & set(CODE_ALPHABET)


def test_typed_codes_are_forgiving() -> None:
    assert normalise_code(" ab-c 1o2 ") == "ABC102"
    assert normalise_code("il0") == "110"
    assert normalise_code(None) == ""


def test_codes_and_cookie_key_survive_a_restart(referee: Referee, tmp_path: Path) -> None:
    first = make_app(referee, tmp_path)
    phone = Phone(first).join("player:1")
    again = make_app(referee, tmp_path)
    assert [g.token for g in again.extensions["companion"].access.grants()] == \
        [g.token for g in first.extensions["companion"].access.grants()]
    # The same phone (same cookie jar) talks to the restarted server and keeps its seat.
    phone.client.application = again  # type: ignore[misc]
    assert phone.state()["you"]["seat"] == 1
    for name in ("web-access.json", "web-secret.key"):
        mode = stat.S_IMODE(os.stat(tmp_path / name).st_mode)
        assert mode == 0o600, (name, oct(mode))


def test_an_unreadable_codes_file_is_kept_aside_and_replaced(tmp_path: Path) -> None:
    path = tmp_path / "web-access.json"
    path.write_text("{not json", encoding="utf-8")
    access = Access(path, 2)
    assert access.get("host") is not None
    assert json.loads(path.read_text(encoding="utf-8"))["grants"]
    assert len(list(tmp_path.glob("web-access.json.bad-*"))) == 1


def test_session_cookie_is_httponly_and_samesite_lax(app: Flask) -> None:
    token = app.extensions["companion"].access.get("player:0").token
    resp = app.test_client().get(f"/join/{token}")
    cookie = resp.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Expires=" in cookie


@pytest.mark.parametrize(("key", "landing"), [("host", "/setup"), ("player:2", "/player"), ("spectator", "/")])
def test_join_links_land_on_the_roles_page(app: Flask, key: str, landing: str) -> None:
    token = app.extensions["companion"].access.get(key).token
    resp = app.test_client().get(f"/join/{token}")
    assert resp.status_code == 303 and resp.headers["Location"] == landing


def test_join_by_typed_code(app: Flask) -> None:
    grant = app.extensions["companion"].access.get("player:1")
    phone = Phone(app).load_csrf()
    typed = f"{grant.code[:3].lower()} {grant.code[3:]}"
    resp = phone.client.post("/join", data={"code": typed, "csrf": phone.csrf})
    assert resp.status_code == 303 and resp.headers["Location"] == "/player"
    assert phone.state()["you"]["seat"] == 1


def test_join_form_needs_its_csrf_field(app: Flask) -> None:
    grant = app.extensions["companion"].access.get("host")
    phone = Phone(app).load_csrf()
    resp = phone.client.post("/join", data={"code": grant.code})
    assert resp.status_code == 403
    assert phone.state()["you"]["role"] == "spectator"


def test_wrong_codes_are_throttled(referee: Referee, tmp_path: Path) -> None:
    app = make_app(referee, tmp_path, JOIN_FAIL_LIMIT=3)
    phone = Phone(app).load_csrf()
    for _ in range(3):
        assert phone.client.post("/join", data={"code": "ZZZZZZ", "csrf": phone.csrf}).status_code == 400
    right = app.extensions["companion"].access.get("host").code
    assert phone.client.post("/join", data={"code": right, "csrf": phone.csrf}).status_code == 429
    assert phone.client.get("/join/not-a-token").status_code == 429


def test_a_bad_join_link_says_so(app: Flask) -> None:
    resp = app.test_client().get("/join/not-a-token", headers={"Accept-Language": "en"})
    assert resp.status_code == 404 and "not (or no longer) valid" in resp.get_data(as_text=True)


def test_rotating_a_seat_code_puts_the_old_phone_out(app: Flask, host: Phone, junior: Referee) -> None:
    ana = Phone(app).join("player:0")
    old = app.extensions["companion"].access.get("player:0")
    resp = host.client.post("/api/codes/rotate", json={"key": "player:0"}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 200
    new = app.extensions["companion"].access.get("player:0")
    assert new.token != old.token and new.code != old.code
    state = ana.state()
    assert state["you"]["role"] == "spectator" and state["you"]["problem"] == "revoked"
    body = ana.post({"type": "draw"}).get_json()
    assert ana.post({"type": "draw"}).status_code == 401 and "code" in body["error"]
    assert app.test_client().get(f"/join/{old.token}").status_code == 404
    assert Phone(app).join("player:0").post({"type": "draw"}).status_code == 200


def test_host_rotating_their_own_code_stays_host(app: Flask, host: Phone) -> None:
    resp = host.client.post("/api/codes/rotate", json={"key": "host"}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 200
    assert host.state()["you"]["role"] == "host"


def test_rotate_all_keeps_the_host_code(app: Flask, host: Phone) -> None:
    access = app.extensions["companion"].access
    before = {g.key: g.token for g in access.grants()}
    resp = host.client.post("/api/codes/rotate", json={"key": "all"}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 200
    after = {g.key: g.token for g in access.grants()}
    assert after["host"] == before["host"]
    assert all(after[k] != before[k] for k in before if k != "host")


@pytest.mark.parametrize("body", [{}, {"key": "player:99"}, {"key": 3}, []])
def test_rotate_refuses_unknown_keys(host: Phone, body: Any) -> None:
    resp = host.client.post("/api/codes/rotate", json=body, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 400


def test_only_the_host_sees_or_rotates_codes(app: Flask, junior: Referee) -> None:
    ana = Phone(app).join("player:0")
    assert ana.client.get("/api/codes").status_code == 403
    assert ana.client.post("/api/codes/rotate", json={"key": "all"},
                           headers={"X-CSRF-Token": ana.csrf}).status_code == 403
    assert app.test_client().get("/api/codes").status_code == 401
    assert app.test_client().get("/qr/player-0.svg").status_code == 401
    assert ana.client.get("/qr/host.svg").status_code == 403


def test_codes_carry_ip_address_join_urls(app: Flask, host: Phone, junior: Referee,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("web.common.lan_addresses", lambda: ["192.168.1.20"])
    data = host.client.get("/api/codes", headers={"Host": "localhost:8080"}).json
    seats = [c for c in data["codes"] if c["role"] == "player"]
    assert seats[0]["name"] == "Ana" and seats[1]["name"] == "Ben"
    url = seats[0]["url"]
    token = app.extensions["companion"].access.get("player:0").token
    assert url.endswith(f"/join/{token}")
    assert "localhost" not in url and ".local" not in url  # phones cannot use those
    assert url == f"http://192.168.1.20:8080/join/{token}"
    data = host.client.get("/api/codes", headers={"Host": "localhost"}).json  # port 80: none in the URL
    assert data["codes"][0]["url"].startswith("http://192.168.1.20/join/")


def test_public_url_setting_is_used_in_codes(referee: Referee, tmp_path: Path) -> None:
    app = make_app(referee, tmp_path, PUBLIC_URL="http://10.1.2.3:8080/")
    host = Phone(app).join("host")
    codes = host.client.get("/api/codes").json["codes"]
    assert all(c["url"].startswith("http://10.1.2.3:8080/join/") for c in codes)


def test_qr_codes_are_svg_served_by_the_app(app: Flask, host: Phone) -> None:
    resp = host.client.get("/qr/player-0.svg")
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    svg = resp.get_data(as_text=True)
    assert svg.startswith("<svg") and "<path" in svg and len(svg) < 10_000
    public = app.test_client().get("/qr/spectator.svg")  # the table screen shows it to latecomers
    assert public.status_code == 200
    assert app.test_client().get("/qr/nobody.svg").status_code == 404


def test_leave_forgets_the_seat(ana: Phone) -> None:
    assert ana.client.post("/api/leave", headers={"X-CSRF-Token": "nope"}).status_code == 403
    assert ana.client.post("/api/leave", headers={"X-CSRF-Token": ana.csrf}).status_code == 200
    assert ana.state()["you"]["role"] == "spectator"
