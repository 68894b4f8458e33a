"""Golden playthroughs: a readable transcript of one seeded match per game.

`python -m companion.transcript --write tests/golden` regenerates the files; the tests
compare against them, so any change of behaviour shows up as a readable diff.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from random import Random

from . import games
from .games.base import CHANCE
from .match import Match
from .simulate import POLICIES

# One seeded setup per game: (game, variant, players, seed, policy).
GOLDEN = [
    ("start11", None, 3, 1, "greedy"),
    ("elevens", None, 3, 1, "greedy"),
    ("elfer-raus-junior", None, 3, 1, "greedy"),
    ("elfer-raus", None, 4, 1, "greedy"),
    ("11-nimmt", None, 3, 1, "greedy"),
    ("numeri", None, 3, 1, "greedy"),
]


def render(game_id: str, variant: str | None, players: int, seed: int, policy: str, rounds: int = 1) -> str:
    """Play `rounds` rounds and write every action with its sentence and the state that follows."""
    rng = Random(seed)
    choose = POLICIES[policy]
    match = Match(game_id, players, variant, rounds=rounds)
    lines = [f"# {game_id} variant={variant} players={players} seed={seed} policy={policy}"]
    for r in range(rounds):
        state = match.state
        lines.append(f"\n== round {r + 1}, start player {state.start_player + 1} ==")
        n = 0
        while not state.is_over:
            if state.current_player == CHANCE:
                action = state.sample_chance(rng)
                who = "chance"
            else:
                legal = state.legal_actions()
                action = choose(state, rng)
                who = f"p{state.current_player + 1} ({len(legal)} legal)"
            n += 1
            lines.append(f"{n:4d}. {who}: {state.describe(action, 'en')}")
            lines.append(f"      {json.dumps(action, sort_keys=True)}")
            match.apply(action)
            lines.append(f"      -> {summary(state)}")
        result = match.results[-1]
        lines.append(f"== scores {list(result.scores)}, winners {[w + 1 for w in result.winners]} ==")
        if not match.is_over:
            match.next_round()
    lines.append(f"\ntotals {match.totals()}")
    return "\n".join(lines) + "\n"


FIXED_BOARD_KEYS = ("layout", "track")


def summary(state: games.State) -> str:
    """A one-line public summary of a state (the table's view, without hidden cards)."""
    view = state.view(None)
    parts = [f"phase={view.get('phase')}", f"to_play={view.get('current_player')}"]
    if "hand_sizes" in view:
        parts.append(f"hands={view['hand_sizes']}")
    if "pile" in view:
        parts.append(f"pile={view['pile']}")
    board = view.get("board")
    if board is not None:
        # The printed board (layout, track values) never changes: leave it out of every line.
        moving = {k: v for k, v in board.items() if k not in FIXED_BOARD_KEYS}
        parts.append("board=" + json.dumps(moving, sort_keys=True, separators=(",", ":")))
    return " ".join(parts)


def golden_name(game_id: str) -> str:
    return f"{game_id}.txt"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", metavar="DIR", help="write the golden files into DIR")
    parser.add_argument("--game", help="only this game")
    args = parser.parse_args()
    for game_id, variant, players, seed, policy in GOLDEN:
        if args.game and game_id != args.game or game_id not in games.ids():
            continue
        text = render(game_id, variant, players, seed, policy)
        if args.write:
            Path(args.write, golden_name(game_id)).write_text(text, encoding="utf-8")
        else:
            print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
