"""A pretend table: automatic players really playing, for the simulated camera.

The world plays the full game with every hand known (simulation mode). Each of its
actions is classified by how it would reach a referee at a real table: a visible change
of the table (the camera must read it), a button press (draw, next), a phone entry (a
hand laid out, a seat named), a die roll (the camera reads the face), or nothing (a
hidden deal or draw). `seen` is the action as the table sees it (hidden cards removed),
which is exactly what the referee's event log should end up holding.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from typing import Any

from .games.base import CHANCE, Action, State
from .match import Match
from .perception import ADAPTERS
from .session import is_revealing
from .simulate import POLICIES

BUTTONS = {"draw": "draw", "end_turn": "next", "pass": "next", "no_eleven": "next"}


@dataclass(frozen=True)
class Step:
    action: Action  # what happened in the world
    seen: Action  # the same as the table sees it
    player: int | None  # who acted; None for chance
    channel: str  # table | button | phone | roll | hidden
    button: str | None = None  # for channel "button": which button


class SimWorld:
    """The world's match; `advance()` plays one action and says how the table learns of it."""

    def __init__(self, setup: Mapping[str, Any], seed: int = 0, policy: str = "greedy") -> None:
        self.setup = dict(setup)
        self.rng = Random(seed)
        self.policy = POLICIES[policy]
        self.match = Match(
            str(setup["game"]),
            len(setup["players"]),
            setup.get("variant"),
            rounds=setup.get("rounds"),
            options=setup.get("options") or {},
            table_mode=False,
            first_player=int(setup.get("first_player", 0)),
        )
        factory = ADAPTERS.get(self.match.info.id)
        self.adapter = factory() if factory else None

    @property
    def state(self) -> State:
        return self.match.state

    def advance(self) -> Step | None:
        """Play the next action of the world (None when the round or the match is over)."""
        state = self.state
        if state.is_over:
            return None
        before = self._visible(state)
        if state.current_player == CHANCE:
            action = state.sample_chance(self.rng)
            player = None
        else:
            action = self.policy(state, self.rng)
            player = state.current_player
        seen = state.redact(action)
        self.match.apply(action)
        changed = self._visible(self.state) != before
        return Step(action, seen, player, *self._channel(seen, player, changed))

    def _visible(self, state: State) -> Any:
        return self.adapter.expected(state) if self.adapter is not None else None

    def _channel(self, seen: Action, player: int | None, changed: bool) -> tuple[str, str | None]:
        kind = seen.get("type")
        if changed:
            return "table", None
        if kind == "roll":
            return "roll", None
        if player is not None and kind in BUTTONS:
            return "button", BUTTONS[kind]
        if player is None and not is_revealing(seen):
            return "hidden", None
        return "phone", None

    def hands(self) -> list[list[str]]:
        """What each player would lay out if the round ended now."""
        return [h.cards() for h in getattr(self.state, "hands", [])]

    def next_round(self) -> bool:
        if self.match.is_over:
            return False
        self.match.next_round()
        return True
