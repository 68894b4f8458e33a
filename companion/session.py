"""A refereed match as pure data: the replay of its event log.

The referee appends events to the store and folds them into a `Session` with `apply`.
Rebuilding a session after a restart is the same fold over the stored events, so the
state after a power cut is exactly the state before it.

Event kinds (payloads are JSON objects):
  setup           {game, variant, players: [names], rounds, first_player, options, table_mode}
  action          {action: {...engine action...}, source: camera|web|button|sim|auto}
  undo            {count: n}            the last n actions of the round, as one step
  proposal        {id, actions, seen, why, confidence}   a reading that needs a yes/no
  problem         {id, expected, seen, rule, fr, en}     what the table shows is not allowed
  resolved        {id, outcome}         a proposal or problem closed (accepted/rejected/fixed)
  round_scores    {scores: [...]}       scores typed in instead of laying out the hands
  next_round      {}
  round_correction {round, scores, reason}   an earlier round's scores corrected by the host
  finish          {}
  note            {text}                camera lost/back and other facts worth keeping
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .games.base import CHANCE, Action, IllegalMove
from .match import Match, RoundResult


class SessionError(ValueError):
    """An event that cannot be applied to this session (refused before it is stored)."""

    def __init__(self, fr: str, en: str, rule: str = "refused") -> None:
        super().__init__(en)
        self.fr = fr
        self.en = en
        self.rule = rule

    def message(self, lang: str = "fr") -> str:
        return self.fr if lang == "fr" else self.en


def is_revealing(action: Action) -> bool:
    """A chance outcome that showed something to the table (a die face, a flipped card)."""
    return any(v is not None for k, v in action.items() if k not in ("type",))


@dataclass
class Step:
    seq: int
    action: Action
    chance: bool
    source: str


@dataclass
class Session:
    setup: dict[str, Any]
    match: Match
    version: int = 0
    round_no: int = 0  # index of the current round
    steps: list[Step] = field(default_factory=list)  # the current round's actions, in order
    proposal: dict[str, Any] | None = None
    problem: dict[str, Any] | None = None
    corrections: dict[int, list[int]] = field(default_factory=dict)  # round index -> scores
    typed: dict[int, list[int]] = field(default_factory=dict)  # round index -> typed scores
    finished: bool = False
    notes: list[dict[str, Any]] = field(default_factory=list)
    last: dict[str, Any] | None = None  # the last committed event, for the pages

    # -- building ---------------------------------------------------------------------------

    @classmethod
    def start(cls, setup: Mapping[str, Any]) -> Session:
        s = dict(setup)
        players = s.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise SessionError("Il faut la liste des joueurs.", "The list of players is needed.")
        try:
            match = Match(
                str(s["game"]),
                len(players),
                s.get("variant"),
                rounds=s.get("rounds"),
                options=s.get("options") or {},
                table_mode=bool(s.get("table_mode", True)),
                first_player=int(s.get("first_player", 0)),
            )
        except (KeyError, ValueError, TypeError) as exc:
            raise SessionError(f"Partie impossible : {exc}", f"Cannot set up this match: {exc}") from exc
        return cls(setup=s, match=match, version=1)

    @classmethod
    def replay(cls, events: list[tuple[int, str, dict[str, Any]]]) -> Session:
        """Rebuild from stored events (seq, kind, payload); the first must be `setup`."""
        if not events or events[0][1] != "setup":
            raise SessionError("Journal sans mise en place.", "Event log without a setup event.")
        session = cls.start(events[0][2])
        for seq, kind, payload in events[1:]:
            session.apply(seq, kind, payload)
        return session

    # -- folding events ---------------------------------------------------------------------

    def check(self, kind: str, payload: Mapping[str, Any]) -> None:
        """Raise `SessionError`/`IllegalMove` if the event would be refused (before storing)."""
        if kind == "action":
            if self.round_done:
                raise SessionError("La manche est finie.", "The round is over.")
            action = payload.get("action")
            if not isinstance(action, Mapping):
                raise SessionError("Action manquante.", "The action is missing.", "malformed")
            self.match.state.clone().apply(dict(action))
        elif kind == "undo":
            self._undo_plan(int(payload.get("count", 1)), bool(payload.get("force", False)))
        elif kind == "next_round":
            if not self.round_done:
                raise SessionError("La manche n'est pas finie.", "The round is not over.")
            if self.match.is_over:
                raise SessionError("La partie est terminée.", "The match is over.")
        elif kind == "round_scores":
            self._check_scores(payload.get("scores"))
            if self.round_done:
                raise SessionError("La manche est déjà comptée.", "The round has been scored already.")
        elif kind == "round_correction":
            r = payload.get("round")
            if not isinstance(r, int) or not 0 <= r < len(self.match.results):
                raise SessionError("Cette manche n'existe pas.", "There is no such round.")
            self._check_scores(payload.get("scores"))

    def _check_scores(self, scores: Any) -> list[int]:
        n = self.match.players
        if (not isinstance(scores, list) or len(scores) != n
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in scores)):
            raise SessionError(f"Il faut {n} scores entiers.", f"{n} whole-number scores are needed.", "malformed")
        return scores

    def apply(self, seq: int, kind: str, payload: Mapping[str, Any]) -> None:
        """Fold one stored event into the session."""
        handler = getattr(self, f"_on_{kind}", None)
        if handler is None:
            raise SessionError(f"Événement inconnu « {kind} ».", f"Unknown event '{kind}'.")
        handler(seq, payload)
        self.version = seq
        self.last = {"seq": seq, "kind": kind, "payload": dict(payload)}

    def _on_action(self, seq: int, payload: Mapping[str, Any]) -> None:
        action = dict(payload["action"])
        chance = self.match.state.current_player == CHANCE
        self.match.apply(action)
        self.steps.append(Step(seq, action, chance, str(payload.get("source", "web"))))
        # A committed move settles whatever was pending about the table.
        self.proposal = None
        self.problem = None

    def _undo_plan(self, count: int, force: bool) -> int:
        """How many trailing actions `count` undo steps remove; refuse what reveals."""
        if self.round_done and not force:
            raise SessionError("La manche est finie : corrige le score à la place.",
                               "The round is over: correct its score instead.")
        n = 0
        steps = self.steps
        for _ in range(count):
            i = len(steps) - n
            # Trailing hidden chance events (a hidden draw) go with the action before them.
            while i > 0 and steps[i - 1].chance and not is_revealing(steps[i - 1].action):
                i -= 1
            if i == 0:
                break
            last = steps[i - 1]
            if last.chance and (is_revealing(last.action) or last.action.get("type") == "deal") and not force:
                raise SessionError(
                    "Impossible d'annuler : le dé ou les cartes ont déjà été montrés.",
                    "Cannot undo: the die or the cards have already been shown.",
                    "undo-revealed",
                )
            n = len(steps) - (i - 1)
        if n == 0:
            raise SessionError("Rien à annuler.", "Nothing to undo.", "undo-nothing")
        return n

    def _on_undo(self, seq: int, payload: Mapping[str, Any]) -> None:
        n = self._undo_plan(int(payload.get("count", 1)), bool(payload.get("force", False)))
        if self.round_done:
            self.match.results.pop()
            self.typed.pop(self.round_no, None)
        keep = self.steps[:-n]
        self._replay_round(keep)
        self.proposal = None
        self.problem = None

    def _replay_round(self, steps: list[Step]) -> None:
        m = self.match
        m.state = m._new_round(m.state.start_player)
        m.actions = []
        self.steps = []
        for step in steps:
            m.apply(dict(step.action))
            self.steps.append(step)

    def turn_start_count(self) -> int:
        """How many actions undoing "the whole turn" removes (back to the turn's start)."""
        state = self.match.state
        if not self.steps:
            return 0
        player = state.current_player if state.current_player >= 0 else getattr(state, "player", None)
        n = 0
        trial = self.match._new_round(state.start_player)
        owners = []
        for step in self.steps:
            owners.append(trial.current_player if not step.chance else None)
            trial.apply(dict(step.action))
        for owner, step in zip(reversed(owners), reversed(self.steps), strict=True):
            if owner is not None and owner != player:
                break
            if step.chance and is_revealing(step.action):
                break
            n += 1
        return n

    def _on_proposal(self, seq: int, payload: Mapping[str, Any]) -> None:
        self.proposal = {**payload, "seq": seq}

    def _on_problem(self, seq: int, payload: Mapping[str, Any]) -> None:
        self.problem = {**payload, "seq": seq}

    def _on_resolved(self, seq: int, payload: Mapping[str, Any]) -> None:
        pid = payload.get("id")
        if self.proposal and self.proposal.get("id") == pid:
            self.proposal = None
        if self.problem and self.problem.get("id") == pid:
            self.problem = None

    def _on_round_scores(self, seq: int, payload: Mapping[str, Any]) -> None:
        scores = self._check_scores(payload.get("scores"))
        m = self.match
        s = m.state
        winners = self._winners(scores)
        m.results.append(RoundResult(s.start_player, tuple(scores), tuple(winners), s.turns))
        self.typed[self.round_no] = list(scores)

    def _winners(self, scores: list[int]) -> list[int]:
        best = max(scores) if self.match.info.winner == "highest" else min(scores)
        return [i for i, v in enumerate(scores) if v == best]

    def _on_next_round(self, seq: int, payload: Mapping[str, Any]) -> None:
        m = self.match
        if not self.round_done or m.is_over:
            raise SessionError("La manche n'est pas finie.", "The round is not over.")
        self.round_no += 1
        m.state = m._new_round()
        m.actions = []
        self.steps = []
        self.proposal = None
        self.problem = None

    def _on_round_correction(self, seq: int, payload: Mapping[str, Any]) -> None:
        r = int(payload["round"])
        self.corrections[r] = self._check_scores(payload.get("scores"))

    def _on_finish(self, seq: int, payload: Mapping[str, Any]) -> None:
        self.finished = True

    def _on_note(self, seq: int, payload: Mapping[str, Any]) -> None:
        self.notes.append({**payload, "seq": seq})
        del self.notes[:-20]

    # -- reading ----------------------------------------------------------------------------

    def round_scores(self) -> list[list[int]]:
        """Each finished round's scores, corrections applied."""
        return [self.corrections.get(i, list(r.scores)) for i, r in enumerate(self.match.results)]

    def totals(self) -> list[int]:
        totals = [0] * self.match.players
        for scores in self.round_scores():
            totals = [t + s for t, s in zip(totals, scores, strict=True)]
        return totals

    def winners(self) -> list[int]:
        return self._winners(self.totals())

    @property
    def round_done(self) -> bool:
        """The current round has its scores (played out or typed in)."""
        return len(self.match.results) > self.round_no

    def legal(self) -> list[Action]:
        if self.round_done:
            return []
        return self.match.state.legal_actions()


def refuse(exc: IllegalMove | SessionError, lang: str) -> dict[str, str]:
    """An error body for the pages and the API: the message in the user's language."""
    return {"error": exc.message(lang), "rule": getattr(exc, "rule", "refused")}
