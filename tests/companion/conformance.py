"""Checks every game must pass, shared by the per-game and the registry-wide tests."""

from __future__ import annotations

import copy
import json
from random import Random
from typing import Any

from companion.games import CHANCE, IllegalMove, State
from companion.games.base import Action, Hand
from companion.simulate import POLICIES


def key(action: Action) -> str:
    return json.dumps({k: v for k, v in action.items() if k != "player"}, sort_keys=True)


def mutants(action: Action, rng: Random, values: list[Any]) -> list[Action]:
    """Variations of a legal action that are usually illegal."""
    out: list[Action] = [{"type": action["type"] + "_nope"}, {"no": "type"}]
    for field_name, value in action.items():
        if field_name == "type":
            continue
        missing = dict(action)
        del missing[field_name]
        out.append(missing)
        for other in rng.sample(values, min(4, len(values))):
            if other != value:
                out.append({**action, field_name: other})
        out.append({**action, field_name: [value]})
    return out


def check_illegal_refused(state: State, legal: list[Action], rng: Random, values: list[Any]) -> None:
    """Anything not listed as legal raises IllegalMove and changes nothing."""
    legal_keys = {key(a) for a in legal}
    before = state.to_json()
    for base in rng.sample(legal, min(3, len(legal))):
        for bad in mutants(base, rng, values):
            if "type" in bad and isinstance(bad.get("type"), str) and key(bad) in legal_keys:
                continue
            trial = state.clone()
            try:
                trial.apply(bad)
            except IllegalMove:
                assert trial.to_json() == before, f"{bad} was refused but changed the state"
                continue
            raise AssertionError(f"{bad} is not listed as legal but was accepted")
    if state.current_player >= 0 and state.players > 1:
        other = (state.current_player + 1) % state.players
        trial = state.clone()
        try:
            trial.apply({**legal[0], "player": other})
        except IllegalMove as exc:
            assert exc.rule == "wrong-player"
            assert trial.to_json() == before
        else:
            raise AssertionError("an action by the wrong player was accepted")


def check_view_private(state: State, rng: Random) -> None:
    """A player's view does not change when other hands (or the unseen pool) change."""
    hands: list[Hand] | None = getattr(state, "hands", None)
    if not hands or not state.info.hidden_hands or state.is_over:
        return  # at the end of a round the hands are laid out for everyone
    for viewer in range(state.players):
        others = [i for i in range(state.players) if i != viewer and sum(hands[i].known.values())]
        if not others:
            continue
        twin = state.clone()
        a = rng.choice(others)
        ha = twin.hands[a]  # type: ignore[attr-defined]
        x = rng.choice(sorted(ha.known))
        candidates = [i for i in others if i != a]
        if candidates:
            hb = twin.hands[rng.choice(candidates)]  # type: ignore[attr-defined]
            ys = [c for c in sorted(hb.known) if c != x]
            if not ys:
                continue
            y = rng.choice(ys)
            ha.known[x] -= 1
            ha.known[y] += 1
            hb.known[y] -= 1
            hb.known[x] += 1
        else:
            pool = getattr(twin, "pool", None)
            if not pool:
                continue
            ys = [c for c in sorted(pool) if c != x]
            if not ys:
                continue
            y = rng.choice(ys)
            ha.known[x] -= 1
            ha.known[y] += 1
            pool[y] -= 1
            pool[x] += 1
        for h in (ha,):
            h.known = +h.known
        assert json.dumps(state.view(viewer), sort_keys=True) == json.dumps(twin.view(viewer), sort_keys=True), (
            f"player {viewer}'s view shows another player's hidden cards")
        view_self = state.view(viewer)
        assert view_self.get("hand") == hands[viewer].cards(), "a player's view must show their own hand"


def check_roundtrip(state: State) -> None:
    saved = state.to_json()
    text = json.dumps(saved)
    again = type(state).from_json(json.loads(text))
    assert again.to_json() == saved


def playout(state: State, seed: int, policy: str = "random", deep: bool = True, max_steps: int = 20000) -> list[Action]:
    """Play a round to its end with every check; return the actions."""
    rng = Random(seed)
    choose = POLICIES[policy]
    actions: list[Action] = []
    values: list[Any] = ["ZZ", -1, 999, None, "", True]
    for step in range(max_steps):
        if state.is_over:
            break
        legal = state.legal_actions()
        for a in legal:
            for k, v in a.items():
                if k != "type" and isinstance(v, (str, int)) and v not in values:
                    values.append(v)
        if state.current_player == CHANCE:
            action = state.sample_chance(rng)
            if legal:
                assert key(action) in {key(a) for a in legal}, f"sampled {action} not in {legal}"
                if deep and step % 3 == 0:
                    for a in rng.sample(legal, min(8, len(legal))):  # every listed outcome can happen
                        trial = state.clone()
                        trial.apply(copy.deepcopy(a))
                        assert not trial.check_invariants(), trial.check_invariants()
        else:
            assert legal, f"no legal action for player {state.current_player}"
            assert len({key(a) for a in legal}) == len(legal), "legal actions are listed twice"
            if deep and step % 3 == 0:
                for a in rng.sample(legal, min(8, len(legal))):
                    trial = state.clone()
                    trial.apply(a)
                    assert not trial.check_invariants(), trial.check_invariants()
                check_illegal_refused(state, legal, rng, values)
            action = choose(state, rng)
        state.apply(copy.deepcopy(action))
        actions.append(action)
        problems = state.check_invariants()
        assert not problems, f"after {action}: {problems}"
        if deep and step % 5 == 0:
            check_roundtrip(state)
            check_view_private(state, rng)
    assert state.is_over, "the round did not end"
    check_roundtrip(state)
    return actions


def table_twin(make: Any, seed: int, policy: str = "random") -> tuple[State, State]:
    """Play a simulated round and feed the same game, hands hidden, to a table-mode state.

    Returns (simulated, table) states at the end; asserts the table state accepted every
    move, kept the same hand sizes, and scored the same once hands were laid out.
    """
    rng = Random(seed)
    sim: State = make(table_mode=False)
    table: State = make(table_mode=True)
    choose = POLICIES[policy]
    for _ in range(20000):
        if sim.is_over:
            break
        if sim.current_player == CHANCE:
            action = sim.sample_chance(rng)
            assert table.current_player == CHANCE, "table mode expects a player action, not chance"
            seen = sim.redact(action)
        else:
            action = choose(sim, rng)
            seen = action
            assert table.current_player == sim.current_player, "table and simulation disagree on who plays"
            table_legal = {key(a) for a in table.legal_actions()}
            assert key(seen) in table_legal, f"{seen} legal in simulation but not listed at the table"
        sim.apply(copy.deepcopy(action))
        table.apply(copy.deepcopy(seen))
        # The table may still wait for something the simulation decided on its own (an
        # automatic end of turn it cannot be sure of): the player presses "end turn".
        while not sim.is_over and table.current_player != CHANCE and table.current_player != sim.current_player:
            table.apply({"type": "end_turn"})
        assert not table.check_invariants(), table.check_invariants()
        sim_sizes = [len(h) for h in getattr(sim, "hands", [])]
        table_sizes = [len(h) for h in getattr(table, "hands", [])]
        assert sim_sizes == table_sizes, f"hand sizes differ: {sim_sizes} vs {table_sizes}"
    assert sim.is_over
    # Round end: the players lay out their hands.
    while not table.is_over:
        pending = [s for s in range(table.players) if not table.revealed[s]]  # type: ignore[attr-defined]
        seat = pending[0]
        table.apply({"type": "reveal", "seat": seat, "cards": sim.hands[seat].cards()})  # type: ignore[attr-defined]
    assert table.scores() == sim.scores(), f"table scores {table.scores()} != simulated {sim.scores()}"
    refuted = [c for c in table.claims if c.status == "refuted"]
    assert not refuted, f"an honest player's claim was refuted: {refuted[0].to_json()}"
    assert all(c.status != "open" for c in table.claims), "claims left open after the reveal"
    return sim, table
