"""Plays a `SimWorld` against the referee the way people at a real table would.

Visible moves reach the referee through the camera (the simulated camera renders them,
or, in tests, a perfect reading is handed over directly); draws and ends of turn through
the buttons; what only a phone can say (a hand laid out, who opened) through the
players' phones. After each step the driver checks that the referee's log holds what
the world did; when it does not (a misread, a doubtful reading), the player confirms the
referee's proposal or corrects it from the phone, as a person would. Corrections are
counted: they measure how often the camera needed help.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from .games.base import CHANCE, Action
from .referee import Actor, Referee
from .simworld import SimWorld, Step

log = logging.getLogger(__name__)

HOST = Actor("host", name="sim")
BUTTON = Actor("button")


class SimDriver:
    def __init__(self, referee: Referee, world: SimWorld,
                 camera: Callable[[SimWorld, Step], None] | None = None) -> None:
        self.referee = referee
        self.world = world
        self.camera = camera or (lambda world, step: None)
        self.corrections = 0
        self.confirmations = 0
        self.steps = 0
        self._seen: list[Action] = []  # this round's world actions as the table sees them

    # -- one world action ---------------------------------------------------------------

    def play_step(self) -> Step | None:
        """Advance the world by one action and let the table know; None at a round's end."""
        step = self.world.advance()
        if step is None:
            return None
        self.steps += 1
        if step.channel in ("table", "roll"):
            self.camera(self.world, step)
        elif step.channel == "button":
            self._send({"type": step.button}, BUTTON)
        elif step.channel == "phone":
            self._phone(step)
        return step

    def _phone(self, step: Step) -> None:
        seen = step.seen
        if seen.get("type") == "reveal":
            self._send({"type": "reveal", "seat": seen["seat"], "cards": seen["cards"]},
                       Actor("player", int(seen["seat"])))
        else:
            actor = Actor("player", step.player) if step.player is not None else HOST
            self._send({"type": "action", "action": seen}, actor)

    def _send(self, command: dict[str, Any], actor: Actor) -> bool:
        out = self.referee.submit(command, actor)
        if not out.ok:
            log.info("sim: %s refused: %s", command, out.message("en"))
        return out.ok

    # -- keeping the referee in step with the world ------------------------------------------

    def missing(self) -> list[Action] | None:
        """World actions (as the table sees them) the referee has not committed; None if it diverged."""
        session = self.referee.session
        if session is None:
            return None
        committed = [_plain(s.action) for s in session.steps]
        world = self._seen
        if committed[: len(world)] != world[: len(committed)]:
            return None
        return world[len(committed):]

    def sync(self) -> bool:
        """Make the referee hold what the world did; True if nobody had to correct anything."""
        before = self.corrections
        for _ in range(40):
            if self.try_sync(correct=True):
                return self.corrections == before
        raise RuntimeError("could not bring the referee in step with the world")

    def try_sync(self, correct: bool) -> bool:
        """One move towards agreement; True once the referee holds everything the world did.

        Proposals that match the world are confirmed at once (a player's yes); missing
        moves are typed in from a phone only when `correct` (the camera had its chance).
        """
        missing = self.missing()
        if missing is None:
            raise RuntimeError("the referee's log and the world diverged")
        if not missing:
            return not self._press_next_if_turn_ended()
        if self._confirm_proposal(missing):
            return False
        if not correct:
            return False
        action = missing[0]
        actor = self._actor_for(action)
        if action.get("type") == "reveal":
            command = {"type": "reveal", "seat": action["seat"], "cards": action["cards"]}
        else:
            command = {"type": "action", "action": action}
        out = self.referee.submit(command, actor)
        if not out.ok:
            raise RuntimeError(f"correction {action} refused: {out.message('en')}")
        self.corrections += 1
        return False

    def _press_next_if_turn_ended(self) -> bool:
        """The world's turn ended by itself (nothing left to play): the player presses "next".

        Only the player knows their hand, so the table learns of the end of a turn from the
        button, as at a real table.
        """
        session = self.referee.session
        if session is None or session.round_done:
            return False
        state = session.match.state
        world = self.world.state
        if world.is_over or world.current_player < 0 or state.current_player < 0:
            return False  # the world is still settling a chance event (a draw): wait for it
        if world.current_player == state.current_player:
            return False
        if not any(a.get("type") == "end_turn" for a in state.legal_actions()):
            return False
        self._seen.append({"type": "end_turn"})
        self._send({"type": "next"}, BUTTON)
        return True

    def _confirm_proposal(self, missing: list[Action]) -> bool:
        session = self.referee.session
        proposal = session.proposal if session else None
        if not proposal:
            return False
        for i, option in enumerate(proposal.get("options") or [proposal.get("actions", [])]):
            if [_plain(a) for a in option] == missing[: len(option)]:
                actor = self._actor_for(missing[0])
                out = self.referee.submit({"type": "confirm", "id": proposal["id"], "choice": i}, actor)
                if out.ok:
                    self.confirmations += 1
                    return True
        return False

    def _actor_for(self, action: Action) -> Actor:
        state = self.referee.session.match.state if self.referee.session else None
        if state is not None and state.current_player >= 0:
            return Actor("player", state.current_player)
        if action.get("type") == "reveal":
            return Actor("player", int(action["seat"]))
        return HOST

    # -- whole rounds and matches ---------------------------------------------------------

    def play_round(self, after_step: Callable[[Step], None] | None = None) -> None:
        """Play the world's round to its end, keeping the referee in step; then score it."""
        self._seen = []
        while True:
            step = self.play_step()
            if step is None:
                break
            self._seen.append(_plain(step.seen))
            if after_step is not None:
                after_step(step)
            self.sync()
        self._lay_out_hands()
        self.sync()

    def _lay_out_hands(self) -> None:
        """Round end at the table: hands the referee has not seen are laid out (phones)."""
        state = self.referee.session.match.state if self.referee.session else None
        if state is None or state.current_player != CHANCE:
            return
        hands = self.world.hands()
        revealed = getattr(state, "revealed", None)
        if revealed is None:
            return
        for seat, done in enumerate(revealed):
            if not done:
                action = {"type": "reveal", "seat": seat, "cards": hands[seat]}
                self._seen.append(action)
                self._send({"type": "reveal", "seat": seat, "cards": hands[seat]}, Actor("player", seat))

    def play_match(self, after_step: Callable[[Step], None] | None = None) -> None:
        while True:
            self.play_round(after_step)
            if not self.world.next_round():
                break
            out = self.referee.submit({"type": "next_round"}, HOST)
            if not out.ok:
                raise RuntimeError(f"next round refused: {out.message('en')}")


def _plain(action: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in action.items() if k != "player"}
