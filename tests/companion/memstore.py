"""An in-memory event store with the real store's interface, for referee unit tests."""

from __future__ import annotations

import itertools
from typing import Any


class MemStore:
    def __init__(self) -> None:
        self.matches: dict[str, dict[str, Any]] = {}
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self.current: str | None = None

    def create_match(self, game: str, variant: str | None, players: list[str], settings: dict[str, Any], *,
                     first: tuple[str, Any] | None = None, actor: str = "system") -> str:
        mid = f"m{next(self._ids)}"
        self.matches[mid] = {"id": mid, "game": game, "status": "running"}
        self.rows[mid] = []
        self.current = mid
        if first is not None:
            self.append(mid, first[0], first[1], actor)
        return mid

    def append(self, match_id: str, kind: str, payload: dict[str, Any], actor: str) -> int:
        rows = self.rows[match_id]
        seq = len(rows) + 1
        rows.append({"seq": seq, "kind": kind, "payload": payload, "actor": actor})
        return seq

    def events(self, match_id: str, after: int = 0) -> list[dict[str, Any]]:
        return [r for r in self.rows[match_id] if r["seq"] > after]

    def current_match(self) -> dict[str, Any] | None:
        return self.matches[self.current] if self.current else None

    def finish_match(self, match_id: str) -> None:
        self.matches[match_id]["status"] = "finished"
        if self.current == match_id:
            self.current = None

    def total_events(self) -> int:
        return sum(len(r) for r in self.rows.values())

    def list_matches(self) -> list[dict[str, Any]]:
        return list(self.matches.values())
