"""A match: several rounds of one game, with start-player rotation and running totals.

Pure logic on top of the engines (standard library only), shared by `simulate`, the
referee and the pages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from . import games
from .games.base import Action, State, StateError


@dataclass(frozen=True)
class RoundResult:
    start_player: int
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    turns: int

    def to_json(self) -> dict[str, Any]:
        return {"start_player": self.start_player, "scores": list(self.scores),
                "winners": list(self.winners), "turns": self.turns}

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> RoundResult:
        return cls(int(obj["start_player"]), tuple(obj["scores"]), tuple(obj["winners"]), int(obj["turns"]))


class Match:
    """Rounds of one game. `apply` plays into the current round; `next_round` starts the next."""

    def __init__(
        self,
        game_id: str,
        players: int,
        variant: str | None = None,
        *,
        rounds: int | None = None,
        options: Mapping[str, Any] | None = None,
        table_mode: bool = False,
        first_player: int = 0,
        data: Any = None,
    ) -> None:
        self.game = games.get(game_id)
        info = self.game.info
        self.rounds = rounds if rounds is not None else info.default_rounds(players)
        if self.rounds < 1:
            raise ValueError("a match has at least one round")
        self.players = players
        self.variant = variant
        self.options = dict(options or {})
        self.table_mode = table_mode
        self.first_player = first_player
        self.data = data
        self.results: list[RoundResult] = []
        self.actions: list[Action] = []
        self.state: State = self._new_round()

    @property
    def info(self) -> games.GameInfo:
        return self.game.info

    def round_start_player(self, index: int) -> int:
        # GUESS (every rule book is silent): the start player rotates clockwise.
        return (self.first_player + index) % self.players

    def _new_round(self, start_player: int | None = None) -> State:
        if start_player is None:
            start_player = self.round_start_player(len(self.results))
        return self.game.new_state(
            self.players,
            self.variant,
            options=self.options,
            start_player=start_player,
            table_mode=self.table_mode,
            data=self.data,
        )

    @property
    def round_index(self) -> int:
        return len(self.results)

    @property
    def round_over(self) -> bool:
        return self.state.is_over

    @property
    def is_over(self) -> bool:
        return len(self.results) >= self.rounds

    def apply(self, action: Action) -> None:
        if self.is_over:
            raise games.IllegalMove("match-over", "La partie est terminée.", "The match is over.")
        self.state.apply(action)
        self.actions.append(dict(action))
        if self.state.is_over:
            s = self.state
            self.results.append(RoundResult(s.start_player, tuple(s.scores()), tuple(s.winners()), s.turns))

    def next_round(self) -> None:
        if not self.state.is_over or self.is_over:
            raise games.IllegalMove("round-running", "La manche n'est pas finie.", "The round is not over.")
        self.state = self._new_round()
        self.actions = []

    def totals(self) -> list[int]:
        """Running match totals, the current unfinished round not included."""
        totals = [0] * self.players
        for r in self.results:
            totals = [t + s for t, s in zip(totals, r.scores, strict=True)]
        return totals

    def winners(self) -> list[int]:
        totals = self.totals()
        best = max(totals) if self.info.winner == "highest" else min(totals)
        return [i for i, t in enumerate(totals) if t == best]

    def to_json(self) -> dict[str, Any]:
        return {
            "game": self.info.id,
            "variant": self.variant,
            "players": self.players,
            "rounds": self.rounds,
            "options": self.options,
            "table_mode": self.table_mode,
            "first_player": self.first_player,
            "results": [r.to_json() for r in self.results],
            "actions": self.actions,
            "state": self.state.to_json(),
        }

    @classmethod
    def from_json(cls, obj: Mapping[str, Any]) -> Match:
        try:
            match = cls(obj["game"], int(obj["players"]), obj["variant"], rounds=int(obj["rounds"]),
                        options=obj["options"], table_mode=bool(obj["table_mode"]),
                        first_player=int(obj["first_player"]))
            match.results = [RoundResult.from_json(r) for r in obj["results"]]
            match.actions = [dict(a) for a in obj["actions"]]
            match.state = match.game.from_json(obj["state"])
            match.data = match.state.data
        except StateError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise StateError(f"not a saved match: {exc}") from exc
        return match
