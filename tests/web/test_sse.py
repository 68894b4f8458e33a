"""Server-Sent Events: one event per committed change, id = version, catch-up, keep-alives, presence."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from flask import Flask

from companion.referee import Referee

from .conftest import HOST, Phone, make_app


def open_stream(phone: Phone, opened: list[Any], headers: dict[str, str] | None = None,
                query: str = "") -> Iterator[bytes]:
    resp = phone.client.get(f"/api/events{query}", headers={**phone.headers, **(headers or {})}, buffered=False)
    assert resp.status_code == 200
    assert resp.mimetype == "text/event-stream"
    assert resp.headers["Cache-Control"].startswith("no-cache")
    opened.append(resp)
    return iter(resp.response)


def parse(chunk: bytes) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    for line in chunk.decode().splitlines():
        if line.startswith(":"):
            fields.setdefault("comment", line[1:].strip())
        elif ":" in line:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    if "data" in fields:
        fields["data"] = json.loads(fields["data"])
    return fields


def next_event(it: Iterator[bytes], kind: str = "change", limit: int = 60) -> dict[str, Any]:
    """The next event of this kind, skipping keep-alives and other events (bounded: no hang)."""
    for _ in range(limit):
        ev = parse(next(it))
        if ev.get("event") == kind:
            return ev
    raise AssertionError(f"no {kind} event")


def test_first_chunk_is_a_comment_that_flushes_the_headers(spectator: Phone, stream_lines: list[Any]) -> None:
    it = open_stream(spectator, stream_lines)
    first = next(it)
    assert first.startswith(b": hello") and b"retry: " in first


def test_one_event_per_committed_change_with_the_version_as_id(spectator: Phone, host: Phone, junior: Referee,
                                                                stream_lines: list[Any]) -> None:
    it = open_stream(spectator, stream_lines)
    v = junior.version
    ana = Phone(host.app).join("player:0")
    ana.post({"type": "action", "action": {"type": "play", "card": "Y2"}})
    ana.post({"type": "action", "action": {"type": "play", "card": "Y3"}})
    first, second = next_event(it), next_event(it)
    assert [int(first["id"]), int(second["id"])] == [v + 1, v + 2]
    assert first["data"]["version"] == v + 1 and first["data"]["kind"] == "action"
    assert first["data"]["text"]["fr"] == "Joueur 1 pose le 2 jaune"
    assert spectator.state()["version"] == int(second["id"])


def test_keep_alive_comments_on_a_quiet_stream(spectator: Phone, stream_lines: list[Any]) -> None:
    it = open_stream(spectator, stream_lines)
    next(it)  # hello
    comments = [parse(next(it)).get("comment") for _ in range(3)]
    assert "keep-alive" in comments


def test_catch_up_from_last_event_id(app: Flask, junior: Referee, spectator: Phone, stream_lines: list[Any]) -> None:
    v = junior.version
    for card in ("Y2", "Y3", "Y4"):
        assert junior.handle({"type": "action", "action": {"type": "play", "card": card}}, HOST).ok
    it = open_stream(spectator, stream_lines, headers={"Last-Event-ID": str(v + 1)})
    ids = [int(next_event(it)["id"]) for _ in range(2)]
    assert ids == [v + 2, v + 3]


def test_catch_up_from_the_pages_query_parameter(junior: Referee, spectator: Phone, stream_lines: list[Any]) -> None:
    v = junior.version
    junior.handle({"type": "draw"}, HOST)
    it = open_stream(spectator, stream_lines, query=f"?last={v}")
    assert int(next_event(it)["id"]) == v + 1


def test_a_gap_the_hub_cannot_fill_asks_for_a_reload(referee: Referee, tmp_path: Any, stream_lines: list[Any]) -> None:
    # A restart: the store has 2 events, the new hub remembers none of them.
    referee.handle({"type": "new_match", "game": "elfer-raus-junior", "players": ["A", "B"]}, HOST)
    restarted = Referee(referee.store)  # same store, new referee and hub
    phone = Phone(make_app(restarted, tmp_path))
    it = open_stream(phone, stream_lines, headers={"Last-Event-ID": "0"})
    reset = next_event(it, "reset")
    assert int(reset["id"]) == restarted.version == 2
    # Nothing missed: no reset.
    it = open_stream(phone, stream_lines, headers={"Last-Event-ID": "2"})
    next(it)
    restarted.handle({"type": "draw"}, HOST)
    ev = parse(next(it))
    while ev.get("event") == "presence":
        ev = parse(next(it))
    assert ev["event"] == "change" and int(ev["id"]) == 3


def test_presence_lists_open_streams_by_role_and_seat(app: Flask, junior: Referee, stream_lines: list[Any]) -> None:
    ana = Phone(app).join("player:0")
    host = Phone(app).join("host")
    watcher = Phone(app)
    it = open_stream(watcher, stream_lines)
    next(it)
    open_stream(ana, stream_lines)
    open_stream(host, stream_lines)
    connected = watcher.state()["connected"]
    assert connected == [{"role": "host", "seat": None, "streams": 1, "name": None},
                         {"role": "player", "seat": 0, "streams": 1, "name": "Ana"},
                         {"role": "spectator", "seat": None, "streams": 1, "name": None}]
    # The pages hear about it without polling.
    seen = [next_event(it, "presence")["data"]["connected"] for _ in range(3)]
    assert len(seen[-1]) == 3
    stream_lines.pop().close()
    assert {c["role"] for c in watcher.state()["connected"]} == {"player", "spectator"}


def test_streams_beyond_the_limit_are_told_to_retry_later(referee: Referee, tmp_path: Any,
                                                          stream_lines: list[Any]) -> None:
    app = make_app(referee, tmp_path, SSE_MAX_STREAMS=1)
    first = open_stream(Phone(app), stream_lines)
    next(first)
    busy = open_stream(Phone(app), stream_lines)
    chunk = next(busy)
    assert b"retry: 15000" in chunk
    assert list(busy) == []


def test_without_hidden_hands_known_the_event_text_is_kept_and_with_them_dropped() -> None:
    from companion.hub import Message
    from web.stream import format_event

    msg = Message(5, "change", {"version": 5, "kind": "action", "text": {"fr": "x", "en": "x"}})
    assert '"text"' in format_event(msg, table_mode=True)
    assert '"text"' not in format_event(msg, table_mode=False)
    assert format_event(msg, True).startswith("id: 5\nevent: change\ndata: ")
