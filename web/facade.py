"""The web's only door into the core: a thin wrapper around the referee facade.

Everything the pages and the API need from `companion` goes through `Facade`: the state
as one actor may see it (with the moves named in words), commands, game metadata for the
setup page, and the match history from the store. Nothing here changes the referee's
behaviour; it only reads its snapshots and submits commands.
"""

from __future__ import annotations

import logging
import queue
import re
import threading
from collections import deque
from collections.abc import Mapping
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Any

from companion import games
from companion.referee import Actor, Referee
from companion.session import Session

from . import moves

log = logging.getLogger(__name__)

# The commands a phone may send (DESIGN.md 4); camera readings and notes stay internal.
COMMANDS = frozenset({
    "new_match", "rematch", "action", "roll", "draw", "end_turn", "next", "undo", "confirm", "reject", "reveal",
    "round_scores", "next_round", "round_correction", "finish",
})
PLAYER_COMMANDS = frozenset({"action", "roll", "draw", "end_turn", "next", "undo", "confirm", "reject", "reveal"})
JOURNAL_LENGTH = 12
_SEAT_WORD = re.compile(r"\b(au joueur|à joueur|joueur|player) ([1-9])\b", re.IGNORECASE)


@dataclass
class Result:
    """What the API answers for one command (the referee's `Outcome`, made plain)."""

    ok: bool
    version: int
    status: int = 200
    error: dict[str, str] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)

    def message(self, lang: str) -> str:
        return self.error.get(lang) or self.error.get("en", "")


def refusal(status: int, fr: str, en: str, rule: str, version: int = 0) -> Result:
    return Result(False, version, status, {"fr": fr, "en": en, "rule": rule})


class Facade:
    """Read and command access to one referee, safe to call from many request threads."""

    def __init__(self, referee: Referee, *, submit_timeout: float = 5.0) -> None:
        self.referee = referee
        self.submit_timeout = submit_timeout
        self._history_cache: dict[tuple[str, int], dict[str, Any]] = {}
        self._cache_lock = threading.Lock()
        # Recent changes in words, read from the hub without a thread of our own: the
        # subscription is drained whenever a page asks for the journal.
        self._journal: deque[dict[str, Any]] = deque(maxlen=JOURNAL_LENGTH)
        self._journal_sub: Any = referee.hub.subscribe()
        self._journal_lock = threading.Lock()

    # -- state --------------------------------------------------------------------------

    @property
    def version(self) -> int:
        return int(self.referee.snapshot().get("version", 0))

    @property
    def hub(self) -> Any:
        return self.referee.hub

    def ready(self) -> bool:
        """The referee answers: its thread runs, or it runs commands inline (tests)."""
        started = getattr(self.referee, "_thread", None) is not None
        return self.referee.alive() if started else True

    def public(self) -> dict[str, Any]:
        """What a spectator sees."""
        return _redact(dict(self.referee.snapshot()))

    def state_for(self, role: str, seat: int | None) -> dict[str, Any]:
        """The state as this role/seat may see it, plus the moves it may make, named in words.

        `Referee.state_for` reads the live session while the referee thread may be
        applying an event; reading again when the version moved (or the read failed
        half-way) gives a consistent answer without touching the referee.
        """
        actor = _actor(role, seat)
        state: dict[str, Any] | None = None
        for _ in range(5):
            before = self.referee.version
            try:
                state = dict(self.referee.state_for(actor))
            except Exception:  # noqa: BLE001 - a torn read while the referee applies an event
                log.debug("state_for raced with the referee; reading again", exc_info=True)
                continue
            if self.referee.version == before and state.get("version") == before:
                break
        if state is None:
            state = dict(self.referee.snapshot())
        state = _redact(state)
        me = dict(state.get("me") or {})
        legal = list(me.get("legal") or [])
        table = state.get("table") or {}
        if role == "player" and seat is not None and not legal and self._chance_turn(state, seat):
            # At a real table the player whose turn it is tells what the table shows (the
            # 11 they open with, the flipped card...). These outcomes are public.
            legal = list((self.referee.state_for(Actor("host")).get("me") or {}).get("legal") or [])
        if "me" in state or legal:
            players = list(state.get("players") or [])
            me["moves"] = [moves.describe(a, players, table) for a in legal if a.get("type") != "roll"]
            me["legal"] = legal
            state["me"] = me
        players = list(state.get("players") or [])
        state["proposal_view"] = moves.proposal_view(state.get("proposal"), players, table)
        state["problem_view"] = moves.problem_view(state.get("problem"), players, table)
        state["journal"] = self.journal(players, bool(table.get("table_mode", True)))
        game = state.get("game")
        state["deck"] = moves.deck(game, state.get("variant")) if game else []
        return state

    def journal(self, players: list[str], table_mode: bool) -> list[dict[str, Any]]:
        """The last changes, oldest first, each {version, kind, text: {fr, en}}, with names."""
        with self._journal_lock:
            sub = self._journal_sub
            if sub is None or sub.dropped:
                self._journal_sub = sub = self.hub.subscribe()
            while True:
                try:
                    msg = sub.queue.get_nowait()
                except queue.Empty:
                    break
                if msg is None or msg.id < 0:
                    continue
                data = msg.data or {}
                text = data.get("text") or moves.event_text(str(data.get("kind")))
                self._journal.append({"version": msg.id, "kind": data.get("kind"), "text": dict(text),
                                      "match_id": data.get("match_id")})
            entries = list(self._journal)
        out = []
        current = self.referee.snapshot().get("match_id")
        for e in entries:
            if e["match_id"] != current:
                continue
            if not table_mode and e["kind"] == "action":
                continue  # with hands known, a sentence could name a drawn card
            text = {lang: _with_names(str(v), players) for lang, v in e["text"].items()}
            out.append({"version": e["version"], "kind": e["kind"], "text": text})
        return out

    @staticmethod
    def _chance_turn(state: Mapping[str, Any], seat: int) -> bool:
        table = state.get("table") or {}
        return (not state.get("round_over") and table.get("current_player") is None
                and not table.get("is_over") and table.get("turn_player") == seat)

    # -- commands -----------------------------------------------------------------------

    def submit(self, command: dict[str, Any], role: str, seat: int | None) -> Result:
        kind = command.get("type")
        version = self.version
        if kind not in COMMANDS:
            return refusal(400, f"Commande « {str(kind)[:40]} » inconnue.", f"Unknown command '{str(kind)[:40]}'.",
                           "malformed", version)
        try:
            out = self.referee.submit(command, _actor(role, seat), timeout=self.submit_timeout)
        except FutureTimeout:
            return refusal(409, "L'arbitre est occupé : réessaie.", "The referee is busy: try again.", "busy", version)
        except Exception:  # noqa: BLE001 - a bug in an engine must not take the page down
            log.exception("command %r failed inside the referee", kind)
            return refusal(422, "Commande refusée (erreur interne, notée dans le journal).",
                           "Command refused (internal error, written to the log).", "internal", version)
        return Result(out.ok, out.version, out.status, dict(out.error), dict(out.data))

    # -- games --------------------------------------------------------------------------

    @staticmethod
    def games() -> list[dict[str, Any]]:
        """Every game's metadata for the setup page (variants, options with GUESS marks)."""
        out = []
        for g in games.all_games():
            info = g.info.to_json()
            info["rounds_default"] = {n: g.info.default_rounds(n)
                                      for n in range(g.info.min_players, g.info.max_players + 1)}
            out.append(info)
        return out

    @staticmethod
    def max_seats() -> int:
        """The largest player count of any game: one player join code per seat."""
        return max((g.info.max_players for g in games.all_games()), default=7)

    @staticmethod
    def game_ids() -> list[str]:
        return games.ids()

    @staticmethod
    def game_name(game_id: str) -> dict[str, str]:
        try:
            return games.get(game_id).info.name.to_json()
        except KeyError:
            return {"fr": game_id, "en": game_id}

    # -- history ------------------------------------------------------------------------

    @property
    def store(self) -> Any:
        return self.referee.store

    def history(self) -> list[dict[str, Any]]:
        """Past and current matches, newest first, each with its rounds and totals."""
        lister = getattr(self.store, "list_matches", None)
        if not callable(lister):
            return []
        out = []
        for m in lister():
            row = _row(m)
            try:
                out.append(self._summary(row))
            except Exception:  # noqa: BLE001 - one unreadable match must not hide the others
                log.exception("cannot replay match %s for the history", row.get("id"))
                out.append({**row, "rounds": [], "totals": [], "winners": [], "error": True})
        return out

    def match(self, match_id: str) -> dict[str, Any] | None:
        for m in self.history():
            if m["id"] == match_id:
                return m
        return None

    def _summary(self, row: dict[str, Any]) -> dict[str, Any]:
        mid = str(row["id"])
        events = [_event(e) for e in self.store.events(mid)]
        key = (mid, len(events))
        with self._cache_lock:
            cached = self._history_cache.get(key)
        if cached is not None:
            return {**row, **cached}
        session = Session.replay([(e["seq"], e["kind"], e["payload"]) for e in events]) if events else None
        if session is None:
            summary: dict[str, Any] = {"rounds": [], "totals": [], "winners": [], "over": False}
        else:
            rounds = session.round_scores()
            summary = {
                "players": list(session.setup.get("players", row.get("players", []))),
                "rounds": rounds,
                "rounds_of": session.match.rounds,
                "totals": session.totals(),
                "winners": session.winners() if rounds else [],
                "winner_rule": session.match.info.winner,
                "over": bool(session.match.is_over and session.round_done) or session.finished,
                "corrected": sorted(session.corrections),
            }
        summary["version"] = len(events)
        summary["game_name"] = self.game_name(str(row.get("game", "")))
        with self._cache_lock:
            self._history_cache[key] = summary
        return {**row, **summary}

    def statistics(self, history: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
        """Per player name: matches played and won (finished matches), per game."""
        stats: dict[str, dict[str, Any]] = {}
        for m in history if history is not None else self.history():
            if not m.get("rounds"):
                continue
            winners = set(m.get("winners") or []) if m.get("over") else set()
            for seat, name in enumerate(m.get("players") or []):
                s = stats.setdefault(name, {"name": name, "played": 0, "won": 0, "rounds": 0, "games": {}})
                s["played"] += 1
                s["rounds"] += len(m["rounds"])
                won = seat in winners
                s["won"] += int(won)
                g = s["games"].setdefault(m["game"], {"played": 0, "won": 0, "points": 0})
                g["played"] += 1
                g["won"] += int(won)
                totals = m.get("totals") or []
                g["points"] += totals[seat] if seat < len(totals) else 0
        return sorted(stats.values(), key=lambda s: (-s["won"], -s["played"], s["name"]))

    def export_json(self, match_id: str) -> str | None:
        exporter = getattr(self.store, "export_json", None)
        if not callable(exporter) or self.match(match_id) is None:
            return None
        return str(exporter(match_id))

    def export_csv(self, match_id: str) -> str | None:
        exporter = getattr(self.store, "export_csv", None)
        found = self.match(match_id)
        if not callable(exporter) or found is None:
            return None
        return str(exporter(match_id, found.get("rounds") or []))


def _actor(role: str, seat: int | None) -> Actor:
    return Actor(role, seat if role == "player" else None)


def _with_names(text: str, players: list[str]) -> str:
    """"Joueur 2 pose le 5 jaune" -> "Ben pose le 5 jaune" (the engines count seats from 1)."""
    def name(m: re.Match[str]) -> str:
        n = int(m.group(2)) - 1
        if not 0 <= n < len(players):
            return m.group(0)
        return f"à {players[n]}" if m.group(1).lower() in ("au joueur", "à joueur") else players[n]

    return _SEAT_WORD.sub(name, text)


def _row(m: Any) -> dict[str, Any]:
    if isinstance(m, Mapping):
        d = dict(m)
    elif hasattr(m, "to_json"):
        d = dict(m.to_json())
    else:
        d = {k: getattr(m, k, None) for k in ("id", "created", "game", "variant", "players", "status", "finished")}
    d.setdefault("players", [])
    d["players"] = list(d.get("players") or [])
    return d


def _event(e: Any) -> dict[str, Any]:
    if isinstance(e, Mapping):
        return {"seq": int(e["seq"]), "kind": str(e["kind"]), "payload": dict(e["payload"])}
    return {"seq": int(e.seq), "kind": str(e.kind), "payload": dict(e.payload)}


def _redact(state: dict[str, Any]) -> dict[str, Any]:
    """Hide hidden cards in `last` (the last event), whoever reads the state.

    At a real table the referee never knows a hidden card; with hands known (simulation)
    the last deal or draw would otherwise show every phone what was dealt or drawn.
    """
    last = state.get("last")
    if not isinstance(last, Mapping) or last.get("kind") != "action":
        return state
    payload = dict(last.get("payload") or {})
    action = dict(payload.get("action") or {})
    kind = action.get("type")
    table_mode = bool((state.get("table") or {}).get("table_mode", True))
    changed = False
    if kind == "deal" and action.get("hands") is not None:
        action["hands"] = None
        changed = True
    if kind == "drawn" and not table_mode:
        for key in ("card", "tile"):
            if action.get(key) is not None:
                action[key] = None
                changed = True
    if changed:
        payload["action"] = action
        state["last"] = {**last, "payload": payload}
    return state


__all__ = ["COMMANDS", "PLAYER_COMMANDS", "Facade", "Result", "refusal"]
