"""Server-Sent Events: one event per committed change, with catch-up, and who is connected.

`GET /api/events` subscribes to the referee's hub. The event `id` is the version, so a
phone that slept reconnects with `Last-Event-ID` (or `?last=N` on the first connection)
and gets what it missed from the hub's recent messages; if those are gone (a restart, a
long sleep) it gets one `reset` event and reloads the state. A first comment flushes the
headers through any buffering; a comment every `SSE_KEEPALIVE` seconds keeps waitress's
`channel_timeout` and home routers from closing a quiet stream.

Each open stream is one connection of the presence registry (role, seat): the pages show
who is connected, and get a `presence` event (without an id) when that changes.
"""

from __future__ import annotations

import itertools
import json
import queue
import threading
import time
from collections.abc import Iterator
from typing import Any

from flask import Blueprint, Response, current_app, request

from companion.hub import Message

from .common import check_read, services, who

bp = Blueprint("stream", __name__)

PRESENCE = -1  # the id of presence messages in a stream's queue (not a version)


class Presence:
    """The open event streams, by role and seat."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._ids = itertools.count(1)
        self._conns: dict[int, tuple[str, int | None, Any, float]] = {}
        self.closing = False  # the server is stopping: every stream ends at its next wake-up

    def add(self, role: str, seat: int | None, sub: Any) -> int:
        with self._lock:
            cid = next(self._ids)
            self._conns[cid] = (role, seat, sub, time.time())
        self._notify()
        return cid

    def remove(self, cid: int) -> None:
        with self._lock:
            gone = self._conns.pop(cid, None)
        if gone is not None:
            self._notify()

    def count(self) -> int:
        with self._lock:
            return len(self._conns)

    def summary(self) -> list[dict[str, Any]]:
        """[{role, seat, streams}] sorted host, seats, spectators (names are added by the page)."""
        with self._lock:
            conns = list(self._conns.values())
        counts: dict[tuple[str, int | None], int] = {}
        for role, seat, _sub, _since in conns:
            counts[(role, seat)] = counts.get((role, seat), 0) + 1
        order = {"host": 0, "player": 1, "spectator": 2}
        keys = sorted(counts, key=lambda k: (order.get(k[0], 3), k[1] if k[1] is not None else -1))
        return [{"role": r, "seat": s, "streams": counts[(r, s)]} for r, s in keys]

    def close_all(self) -> None:
        """End every open stream now (server shutdown): wake their threads so they return."""
        self.closing = True
        with self._lock:
            subs = [c[2] for c in self._conns.values()]
        for sub in subs:
            try:
                sub.queue.put_nowait(None)
            except queue.Full:
                pass

    def _notify(self) -> None:
        msg = Message(PRESENCE, "presence", {"connected": self.summary()})
        with self._lock:
            subs = [c[2] for c in self._conns.values()]
        for sub in subs:
            try:
                sub.queue.put_nowait(msg)
            except queue.Full:
                pass  # that page is not reading; the hub drops it and it reconnects


def format_event(msg: Message, table_mode: bool) -> str:
    data = dict(msg.data)
    if not table_mode:
        data.pop("text", None)  # with hands known, a sentence could name a drawn card
    lines = [] if msg.id == PRESENCE else [f"id: {msg.id}"]
    lines += [f"event: {msg.event}", "data: " + json.dumps(data, ensure_ascii=False, separators=(",", ":"))]
    return "\n".join(lines) + "\n\n"


def _last_id() -> int | None:
    raw = request.headers.get("Last-Event-ID") or request.args.get("last")
    if raw is None:
        return None
    try:
        value = int(str(raw).strip())
    except ValueError:
        return None
    return value if value >= 0 else None


@bp.get("/api/events")
def events() -> Response:
    refused = check_read()
    if refused is not None:
        return refused
    svc = services()
    cfg = current_app.config
    keepalive = float(cfg["SSE_KEEPALIVE"])
    if svc.presence.count() >= int(cfg["SSE_MAX_STREAMS"]):
        # Full: answer 200 so EventSource retries later instead of giving up.
        return _sse(iter([": busy\nretry: 15000\n\n"]))
    facade = svc.facade
    last = _last_id()
    caller = who()
    seat = caller.seat if caller.role == "player" else None
    disconnected = request.environ.get("waitress.client_disconnected")
    wake = min(keepalive, 2.0)

    def generate() -> Iterator[str]:
        # Subscribing here, not before, so that a response never iterated leaves nothing behind.
        hub = facade.hub
        sub = hub.subscribe(last)
        cid = svc.presence.add(caller.role, seat, sub)
        try:
            version = facade.version
            oldest = hub.oldest()
            yield ": hello\nretry: 3000\n\n"
            # The hub cannot fill the gap (restarted, or too long ago): the page reloads the state.
            if last is not None and (last > version or (last < version and (oldest is None or oldest > last + 1))):
                yield _reset(version)
            quiet_since = time.monotonic()
            while True:
                if svc.presence.closing or (callable(disconnected) and disconnected()):
                    return
                msg = sub.get(timeout=wake)
                if msg is None:
                    if sub.dropped:  # the queue overflowed: start afresh from the state
                        yield _reset(facade.version)
                        return
                    if time.monotonic() - quiet_since >= keepalive:
                        quiet_since = time.monotonic()
                        yield ": keep-alive\n\n"
                    continue
                table_mode = bool((facade.referee.snapshot().get("table") or {}).get("table_mode", True))
                quiet_since = time.monotonic()
                yield format_event(msg, table_mode)
        finally:
            sub.close()
            svc.presence.remove(cid)

    return _sse(generate())


def _reset(version: int) -> str:
    return f"id: {version}\nevent: reset\ndata: {{\"version\":{version}}}\n\n"


def _sse(body: Iterator[str]) -> Response:
    resp = Response(body, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache, no-transform"
    resp.headers["X-Accel-Buffering"] = "no"  # no buffering by a proxy in front, if any
    return resp


__all__ = ["PRESENCE", "Presence", "bp", "format_event"]
