"""A player's responses never contain another player's hidden cards (state, events, journal)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Flask

from .conftest import Phone
from .test_sse import next_event, open_stream

HANDS = [["B7", "G9", "R5", "Y2", "Y3"], ["B4", "G6", "R2", "R3", "Y10"]]


def hands_in(obj: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every value stored under a key naming a hand, anywhere in a JSON document."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            if key in ("hand", "hands", "known") and value is not None:
                yield f"{path}.{key}", value
            yield from hands_in(value, f"{path}.{key}")
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from hands_in(value, f"{path}[{i}]")


def dealt_with_known_hands(app: Flask, host: Phone) -> None:
    """A match whose hands the referee knows (simulation mode), dealt by the host."""
    resp = host.post({"type": "new_match", "game": "elfer-raus-junior", "players": ["Ana", "Ben"],
                      "table_mode": False})
    assert resp.status_code == 200, resp.json
    resp = host.post({"type": "action", "action": {"type": "deal", "hands": HANDS}})
    assert resp.status_code == 200, resp.json


def test_each_player_sees_only_their_own_hand(app: Flask, host: Phone) -> None:
    dealt_with_known_hands(app, host)
    ana, ben, watcher = Phone(app).join("player:0"), Phone(app).join("player:1"), Phone(app)
    assert ana.state()["me"]["view"]["hand"] == HANDS[0]
    assert ben.state()["me"]["view"]["hand"] == HANDS[1]
    for phone, own in ((ana, HANDS[0]), (ben, HANDS[1]), (watcher, None)):
        state = phone.state()
        for where, value in hands_in(state):
            assert value == own, (where, value)
        text = json.dumps({k: v for k, v in state.items() if k != "deck"})
        other = HANDS[1] if own == HANDS[0] else HANDS[0]
        assert json.dumps(other) not in text
    assert ben.state()["me"]["legal"] == []  # Ana's playable cards would tell Ben what she holds


def test_a_drawn_card_stays_with_the_drawer(app: Flask, host: Phone, stream_lines: list[Any]) -> None:
    dealt_with_known_hands(app, host)
    ana, ben = Phone(app).join("player:0"), Phone(app).join("player:1")
    it = open_stream(ben, stream_lines)
    for phone, cards in ((ana, ["Y2", "Y3"]), (ben, ["R2", "R3", "Y10"])):
        for card in cards:
            assert phone.post({"type": "action", "action": {"type": "play", "card": card}}).status_code == 200
        if phone.state()["table"]["current_player"] == phone.state()["you"]["seat"]:
            assert phone.post({"type": "end_turn"}).status_code == 200  # (the turn ends itself if nothing fits)
    assert ana.post({"type": "draw"}).status_code == 200  # B7, G9, R5: nothing fits
    resp = host.post({"type": "action", "action": {"type": "drawn", "card": "G10"}})
    assert resp.status_code == 200, resp.json
    assert "G10" in ana.state()["me"]["view"]["hand"]
    state = ben.state()
    assert state["last"]["payload"]["action"] == {"type": "drawn", "card": None}
    for where, value in hands_in(state):
        assert value == ["B4", "G6"], (where, value)
    public = {k: v for k, v in state.items() if k not in ("deck", "table")}  # the board's "fitting" lists G10
    del public["me"]["view"]["board"]
    assert "G10" not in json.dumps(public) and "vert" not in json.dumps(public)
    # Nor in any event Ben's page received.
    events = [next_event(it)]
    while int(events[-1]["id"]) < state["version"]:
        events.append(next_event(it))
    assert len(events) >= 5
    assert all("G10" not in json.dumps(e) and "vert" not in json.dumps(e) for e in events)


def test_at_a_real_table_nobody_is_told_a_hand(app: Flask, host: Phone) -> None:
    host.post({"type": "new_match", "game": "elfer-raus-junior", "players": ["Ana", "Ben"]})
    ana = Phone(app).join("player:0")
    ana.post({"type": "action", "action": {"type": "play", "card": "Y2"}})
    for phone in (ana, Phone(app).join("player:1"), Phone(app), host):
        for where, value in hands_in(phone.state()):
            assert value in ([], None), (where, value)
