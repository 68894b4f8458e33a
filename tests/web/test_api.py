"""The JSON API contract (DESIGN.md 4) for every role: host, players, spectators, strangers."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from flask import Flask

from companion.referee import Referee

from .conftest import Phone, make_app, make_referee


def is_error(resp: Any, status: int, rule: str | None = None) -> dict[str, Any]:
    assert resp.status_code == status, (resp.status_code, resp.data)
    body = resp.get_json()
    assert isinstance(body, dict) and isinstance(body.get("error"), str) and body["error"], body
    if rule is not None:
        assert body.get("rule") == rule, body
    return body


# --- reading ------------------------------------------------------------------------------


def test_healthz_answers_when_ready(app: Flask) -> None:
    resp = app.test_client().get("/healthz")
    assert resp.status_code == 200 and resp.json["ok"] is True


def test_healthz_is_503_once_the_referee_thread_has_died(store: Any, tmp_path: Any) -> None:
    referee = make_referee(store)
    referee.start()
    referee.stop()
    resp = make_app(referee, tmp_path).test_client().get("/healthz")
    assert resp.status_code == 503


def test_state_without_a_token_is_the_spectator_view(spectator: Phone, junior: Referee) -> None:
    state = spectator.state()
    for key in ("match_id", "version", "game", "players", "scores"):
        assert key in state
    assert state["game"] == "elfer-raus-junior"
    assert state["players"] == ["Ana", "Ben"]
    assert state["scores"] == [0, 0]
    assert state["version"] == junior.version
    assert state["match_id"] == junior.match_id
    assert state["you"] == {"role": "spectator", "seat": None, "name": None, "problem": None}
    assert "me" not in state


def test_state_before_any_match(spectator: Phone) -> None:
    state = spectator.state()
    assert state["game"] is None and state["players"] == [] and state["version"] == 0


def test_a_player_sees_their_seat_and_moves_named_in_their_language(ana: Phone, ben: Phone) -> None:
    mine = ana.state()
    assert mine["you"]["seat"] == 0 and mine["you"]["name"] == "Ana"
    labels = [m["label"]["fr"] for m in mine["me"]["moves"]]
    assert "Poser le 2 jaune" in labels and "Je ne peux pas jouer : je pioche" in labels
    assert {m["group"]["key"] for m in mine["me"]["moves"]} >= {"colour:yellow", "turn"}
    other = ben.state()
    assert other["you"]["seat"] == 1
    assert other["me"]["moves"] == [] and other["me"]["legal"] == []  # not Ben's turn


def test_unknown_bearer_token_is_401_even_for_reads(app: Flask) -> None:
    resp = app.test_client().get("/api/state", headers={"Authorization": "Bearer nope"})
    is_error(resp, 401, "unauthorised")


def test_games_list_marks_guess_defaults(app: Flask) -> None:
    games = app.test_client().get("/api/games").json["games"]
    ids = [g["id"] for g in games]
    assert "elfer-raus-junior" in ids and "numeri" in ids
    junior = next(g for g in games if g["id"] == "elfer-raus-junior")
    assert junior["options"][0]["guess"] is True
    assert junior["rounds_default"]["2"] == 2 or junior["rounds_default"][2] == 2


# --- commands: who may ----------------------------------------------------------------------


@pytest.mark.parametrize(("lang", "word"), [("fr", "Rejoins"), ("en", "Join")])
def test_post_without_a_token_is_401_in_the_users_language(app: Flask, lang: str, word: str) -> None:
    resp = app.test_client().post("/api/actions", json={"type": "draw", "version": 0},
                                  headers={"Accept-Language": lang})
    assert word in is_error(resp, 401, "unauthorised")["error"]


def test_post_with_a_bad_bearer_token_is_401(app: Flask) -> None:
    resp = app.test_client().post("/api/actions", json={"type": "draw", "version": 0},
                                  headers={"Authorization": "Bearer not-a-token"})
    is_error(resp, 401, "unauthorised")


def test_spectators_may_not_act(app: Flask, junior: Referee) -> None:
    watcher = Phone(app).join("spectator")
    is_error(watcher.post({"type": "draw"}), 403, "forbidden")
    token = app.extensions["companion"].access.get("spectator").token
    resp = app.test_client().post("/api/actions", json={"type": "draw", "version": junior.version},
                                  headers={"Authorization": f"Bearer {token}"})
    is_error(resp, 403, "forbidden")


def test_cookie_posts_need_the_csrf_header(ana: Phone, junior: Referee) -> None:
    v = junior.version
    is_error(ana.post({"type": "draw"}, csrf=False), 403, "csrf")
    is_error(ana.post({"type": "draw"}, headers={"X-CSRF-Token": "forged"}), 403, "csrf")
    assert junior.version == v
    assert ana.post({"type": "draw"}).status_code == 200


def test_bearer_clients_need_no_csrf(app: Flask, junior: Referee) -> None:
    token = app.extensions["companion"].access.get("player:0").token
    resp = app.test_client().post("/api/actions", json={"type": "draw", "version": junior.version},
                                  headers={"Authorization": f"Bearer {token}"})
    assert resp.status_code == 200 and resp.json["ok"] is True


def test_player_of_the_right_seat_plays_and_the_state_moves_on(ana: Phone, junior: Referee) -> None:
    v = junior.version
    resp = ana.post({"type": "action", "action": {"type": "play", "card": "Y2"}})
    assert resp.status_code == 200 and resp.json == {"ok": True, "version": v + 1}
    state = ana.state()
    assert state["version"] == v + 1
    assert state["table"]["board"]["rows"]["yellow"] == [1, 2, 11]


@pytest.mark.parametrize(("lang", "text"), [("fr", "pas ton tour"), ("en", "not your turn")])
def test_player_of_the_wrong_seat_is_refused_in_their_language(app: Flask, junior: Referee, lang: str,
                                                               text: str) -> None:
    ben = Phone(app, lang=lang).join("player:1")
    v = junior.version
    body = is_error(ben.post({"type": "action", "action": {"type": "play", "card": "Y2"}}), 403, "forbidden")
    assert text in body["error"]
    assert junior.version == v


@pytest.mark.parametrize("command", [
    {"type": "new_match", "game": "numeri", "players": ["A", "B"]},
    {"type": "rematch"},
    {"type": "round_scores", "scores": [1, 2]},
    {"type": "next_round"},
    {"type": "round_correction", "round": 0, "scores": [1, 2]},
    {"type": "finish"},
])
def test_players_may_not_use_host_commands(ana: Phone, command: dict[str, Any]) -> None:
    is_error(ana.post(command), 403, "forbidden")


def test_a_player_forcing_an_undo_is_refused(ana: Phone) -> None:
    ana.post({"type": "action", "action": {"type": "play", "card": "Y2"}})
    is_error(ana.post({"type": "undo", "force": True}), 403, "forbidden")
    assert ana.post({"type": "undo"}).status_code == 200


def test_a_player_shows_only_their_own_hand(ben: Phone) -> None:
    is_error(ben.post({"type": "reveal", "seat": 0, "cards": []}), 403, "forbidden")


def test_stale_version_is_409(ana: Phone, junior: Referee) -> None:
    v = junior.version
    assert ana.post({"type": "draw"}, version=v).status_code == 200
    body = is_error(ana.post({"type": "next"}, version=v), 409, "stale")
    assert "recharge" in body["error"]


@pytest.mark.parametrize("lang", ["fr", "en"])
def test_illegal_move_is_422_with_the_rule_in_words(app: Flask, junior: Referee, lang: str) -> None:
    phone = Phone(app, lang=lang).join("player:0")
    body = is_error(phone.post({"type": "action", "action": {"type": "play", "card": "Y5"}}), 422)
    assert ("5 jaune" if lang == "fr" else "yellow 5") in body["error"]


@pytest.mark.parametrize(("body", "rule"), [
    (b"not json", "malformed"),
    (b"[1, 2]", "malformed"),
    (b'{"version": 3}', "malformed"),
    (b'{"type": "draw"}', "malformed"),
    (b'{"type": "draw", "version": true}', "malformed"),
    (b'{"type": "draw", "version": NaN}', "malformed"),
    (b'{"type": "draw", "version": "3"}', "malformed"),
    (b'{"type": 5, "version": 3}', "malformed"),
    (b'{"type": "observation", "version": 3}', "malformed"),
    (b'{"type": "nonsense", "version": 3}', "malformed"),
    (b"\xff\xfe", "malformed"),
    (b"[" * 5000 + b"]" * 5000, "malformed"),
])
def test_malformed_input_is_400(host: Phone, junior: Referee, body: bytes, rule: str) -> None:
    resp = host.client.post("/api/actions", data=body, content_type="application/json",
                            headers={"X-CSRF-Token": host.csrf})
    is_error(resp, 400, rule)


def test_an_action_without_its_action_is_400(host: Phone, junior: Referee) -> None:
    is_error(host.post({"type": "action"}), 400)


def test_huge_bodies_are_refused_with_413(host: Phone) -> None:
    resp = host.client.post("/api/actions", data=b"{" + b" " * 100_000 + b"}", content_type="application/json",
                            headers={"X-CSRF-Token": host.csrf})
    is_error(resp, 413)


def test_no_match_yet_is_409(host: Phone) -> None:
    is_error(host.post({"type": "draw"}), 409, "no-match")


def test_host_runs_a_match_with_typed_scores(host: Phone, junior: Referee) -> None:
    assert host.post({"type": "round_scores", "scores": [0, 12]}).status_code == 200
    state = host.state()
    assert state["round_over"] and state["scores"] == [0, 12]
    assert host.post({"type": "next_round"}).status_code == 200
    assert host.post({"type": "round_scores", "scores": [9, 0]}).status_code == 200
    fix = {"type": "round_correction", "round": 0, "scores": [0, 10], "reason": "miscount"}
    assert host.post(fix).status_code == 200
    state = host.state()
    assert state["match_over"] and state["scores"] == [9, 10] and state["winners"] == [0]
    assert state["rounds"]["scores"] == [[0, 10], [9, 0]] and state["rounds"]["corrected"] == [0]
    assert host.post({"type": "finish"}).status_code == 200
    assert host.state()["finished"] is True


def test_rematch_keeps_the_players(host: Phone, junior: Referee) -> None:
    first = junior.match_id
    resp = host.post({"type": "rematch"})
    assert resp.status_code == 200 and resp.json["match_id"] != first
    state = host.state()
    assert state["players"] == ["Ana", "Ben"] and state["match_id"] != first


def test_refusals_from_the_setup_are_4xx(host: Phone) -> None:
    is_error(host.post({"type": "new_match", "game": "chess", "players": ["A", "B"]}), 422)
    is_error(host.post({"type": "new_match", "game": "numeri", "players": ["A"] * 9}), 422)
    is_error(host.post({"type": "new_match", "game": "numeri", "players": "A"}), 400)
    is_error(host.post({"type": "new_match", "game": "numeri", "players": ["A", "B"], "rounds": 99}), 400)
    is_error(host.post({"type": "new_match", "game": "numeri", "players": ["A", "B"], "options": {"x": 1}}), 422)


def test_an_engine_crash_is_a_4xx_not_a_5xx(host: Phone, junior: Referee, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("bug")

    monkeypatch.setattr(junior, "handle", boom)
    body = is_error(host.post({"type": "draw"}), 422, "internal")
    assert "interne" in body["error"]


# --- host check (DNS rebinding) ---------------------------------------------------------------


@pytest.mark.parametrize("host_header", ["evil.example", "attacker.com:8080", "192.0.2.99"])
def test_unknown_host_names_get_a_400_json(app: Flask, host_header: str) -> None:
    client = app.test_client()
    for path in ("/api/state", "/", "/healthz"):
        resp = client.get(path, headers={"Host": host_header})
        body = is_error(resp, 400, "host")
        assert "adresse" in body["error"].lower()
    resp = client.post("/api/actions", json={"type": "draw", "version": 0}, headers={"Host": host_header})
    is_error(resp, 400, "host")


def test_allowed_host_names(app: Flask) -> None:
    name = socket.gethostname().split(".")[0].lower()
    client = app.test_client()
    for host_header in ("localhost", "127.0.0.1:8080", f"{name}.local", f"{name}.local:8080"):
        assert client.get("/api/state", headers={"Host": host_header}).status_code == 200, host_header


def test_configured_extra_hosts(referee: Referee, tmp_path: Any) -> None:
    app = make_app(referee, tmp_path, ALLOWED_HOSTS=["tables.club.example"])
    assert app.test_client().get("/api/state", headers={"Host": "tables.club.example"}).status_code == 200
    assert app.test_client().get("/api/state", headers={"Host": "other.example"}).status_code == 400


def test_bad_web_settings_name_the_key(referee: Referee) -> None:
    from web import WebConfigError

    with pytest.raises(WebConfigError, match="SSE_KEEPALIVE"):
        make_app(referee, None, SSE_KEEPALIVE=0)
    with pytest.raises(WebConfigError, match="ALLOWED_HOSTS"):
        make_app(referee, None, ALLOWED_HOSTS="x.example")
    with pytest.raises(WebConfigError, match="PUBLIC_URL"):
        make_app(referee, None, PUBLIC_URL="box.local")


def test_other_http_errors_are_json_in_the_users_language(app: Flask) -> None:
    client = app.test_client()
    body = is_error(client.get("/api/nothing-here", headers={"Accept-Language": "en"}), 404)
    assert body["error"] == "Not found."
    is_error(client.get("/api/actions"), 405)
    is_error(client.get("/api/history/x.xml"), 404)


def test_security_headers(app: Flask) -> None:
    resp = app.test_client().get("/")
    assert resp.headers["Referrer-Policy"] == "no-referrer"
    assert "default-src 'self'" in resp.headers["Content-Security-Policy"]
    assert resp.headers["X-Content-Type-Options"] == "nosniff"
