"""Fan-out of committed changes to the pages (Server-Sent Events).

The referee publishes one message per committed event, after it is on disk. Each page's
stream has its own bounded queue; a slow or vanished phone loses its queue, never blocks
the referee. Recent messages are kept so a phone that slept catches up by `Last-Event-ID`.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Message:
    id: int  # the version (number of committed events)
    event: str  # SSE event name
    data: dict[str, Any]


class Subscription:
    def __init__(self, hub: Hub, maxsize: int) -> None:
        self._hub = hub
        self.queue: queue.Queue[Message | None] = queue.Queue(maxsize)
        self.dropped = False

    def get(self, timeout: float) -> Message | None:
        """The next message, or None after `timeout` seconds (send a keep-alive then)."""
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None

    def close(self) -> None:
        self._hub.unsubscribe(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class Hub:
    def __init__(self, keep: int = 500, queue_size: int = 200) -> None:
        self._lock = threading.Lock()
        self._subs: set[Subscription] = set()
        self._recent: deque[Message] = deque(maxlen=keep)
        self._queue_size = queue_size

    def subscribe(self, last_id: int | None = None) -> Subscription:
        """A new stream; with `last_id`, the messages after it are queued first."""
        sub = Subscription(self, self._queue_size)
        with self._lock:
            if last_id is not None:
                for msg in self._recent:
                    if msg.id > last_id:
                        self._offer(sub, msg)
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def publish(self, msg: Message) -> None:
        with self._lock:
            self._recent.append(msg)
            for sub in list(self._subs):
                self._offer(sub, msg)

    def oldest(self) -> int | None:
        with self._lock:
            return self._recent[0].id if self._recent else None

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    def _offer(self, sub: Subscription, msg: Message) -> None:
        try:
            sub.queue.put_nowait(msg)
        except queue.Full:
            # The page stopped reading: drop it; it reconnects and catches up from the state.
            sub.dropped = True
            self._subs.discard(sub)
