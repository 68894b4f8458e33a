"""Automatic players and the `simulate` command: whole matches through the full rules.

Every step is checked: the player to move has a legal action, every chosen action
applies, the game's own invariants hold, JSON round-trips, and match totals add up.
Each failed check counts as one error.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from random import Random
from typing import Any

from .games.base import Action, IllegalMove, State
from .match import Match

Policy = Callable[[State, Random], Action]


def random_policy(state: State, rng: Random) -> Action:
    """Any legal action, uniformly."""
    return rng.choice(state.legal_actions())


def greedy_policy(state: State, rng: Random) -> Action:
    """The action the game rates best right now (ties broken at random)."""
    actions = state.legal_actions()
    keys = [state.greedy_key(a) for a in actions]
    best = max(keys)
    return rng.choice([a for a, k in zip(actions, keys, strict=True) if k == best])


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy}


@dataclass
class Checker:
    """Collects consistency errors while a game is played."""

    roundtrip_every: int = 25
    errors: list[str] = field(default_factory=list)
    steps: int = 0

    def before(self, state: State, legal: list[Action]) -> None:
        if not state.is_chance and not state.is_over and not legal:
            self.errors.append(f"{state.info.id}: player {state.current_player} has no legal action")

    def after(self, state: State) -> None:
        self.steps += 1
        self.errors.extend(f"{state.info.id}: {e}" for e in state.check_invariants())
        if self.steps % self.roundtrip_every == 0 or state.is_over:
            again = type(state).from_json(state.to_json())
            if again.to_json() != state.to_json():
                self.errors.append(f"{state.info.id}: the JSON round-trip changes the state")


def play_match(match: Match, policies: list[Policy], rng: Random, checker: Checker | None = None,
               max_steps: int = 100_000) -> int:
    """Play `match` to its end; return the number of actions applied."""
    steps = 0
    while True:
        state = match.state
        while not state.is_over:
            if state.is_chance:
                action = state.sample_chance(rng)
                legal = state.legal_actions()
                if checker and legal and action not in legal:
                    checker.errors.append(f"{state.info.id}: sampled chance {action} is not listed as legal")
            else:
                legal = state.legal_actions()
                if checker:
                    checker.before(state, legal)
                if not legal:
                    return steps
                action = policies[state.current_player](state, rng)
            try:
                match.apply(action)
            except IllegalMove as exc:
                if checker is None:
                    raise
                checker.errors.append(f"{state.info.id}: legal action {action} refused: {exc.en}")
                return steps
            steps += 1
            if checker:
                checker.after(state)
            if steps >= max_steps:
                if checker:
                    checker.errors.append(f"{state.info.id}: no end after {max_steps} actions")
                return steps
        if match.is_over:
            break
        match.next_round()
    if checker:
        totals = [sum(r.scores[i] for r in match.results) for i in range(match.players)]
        if totals != match.totals() or len(match.results) != match.rounds:
            checker.errors.append(f"{match.info.id}: match totals do not add up")
    return steps


def simulate(game: str, players: int, games: int, seed: int, variant: str | None = None,
             policy: str = "random", options: dict[str, Any] | None = None) -> dict[str, Any]:
    """The `companion simulate` report (DESIGN section 4)."""
    rng = Random(seed)
    checker = Checker()
    turns = 0
    totals = [0.0] * players
    started = time.perf_counter()
    for g in range(games):
        match = Match(game, players, variant, options=options, first_player=g % players)
        seat_policies = [POLICIES[policy]] * players
        play_match(match, seat_policies, rng, checker)
        turns += sum(r.turns for r in match.results) + (0 if match.is_over else match.state.turns)
        totals = [t + s for t, s in zip(totals, match.totals(), strict=True)]
    elapsed = time.perf_counter() - started
    return {
        "game": game,
        "variant": variant,
        "players": players,
        "games": games,
        "seed": seed,
        "turns_mean": round(turns / games, 2) if games else 0.0,
        "scores_mean": [round(t / games, 2) if games else 0.0 for t in totals],
        "errors": len(checker.errors),
        "games_per_s": round(games / elapsed, 2) if elapsed > 0 else 0.0,
        "policy": policy,
        "error_messages": checker.errors[:20],
    }
