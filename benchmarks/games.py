"""Complete rounds per second per game, one core, random legal policy, no checks.

Usage: python benchmarks/games.py [--seconds S] [--players N]
The issue's aims: >= 200 rounds/s for elfer-raus-junior, elfer-raus, numeri and an 11-nimmt
round; >= 50 rounds/s for elevens and start11 with 4 players.
"""

from __future__ import annotations

import argparse
import os
import time
from random import Random

from companion import games
from companion.games import CHANCE

AIMS = {"elfer-raus-junior": 200, "elfer-raus": 200, "numeri": 200, "11-nimmt": 200, "elevens": 50, "start11": 50}


def rounds_per_second(game_id: str, players: int, seconds: float, variant: str | None = None) -> tuple[float, int]:
    game = games.get(game_id)
    rng = Random(1)
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_state(players, variant, start_player=done % players)
        while not state.is_over:
            if state.current_player == CHANCE:
                state.apply(state.sample_chance(rng))
            else:
                state.apply(rng.choice(state.legal_actions()))
        done += 1
    return done / (time.perf_counter() - start), done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    print(f"{'game':<20}{'variant':<16}{'players':>8}{'rounds/s':>11}{'aim':>6}  ok")
    for game in games.all_games():
        info = game.info
        players = min(max(args.players, info.min_players), info.max_players)
        for variant in [None, *(v.id for v in info.variants)]:
            rate, _ = rounds_per_second(info.id, players, args.seconds, variant)
            aim = AIMS.get(info.id, 0)
            ok = "yes" if rate >= aim else "NO"
            print(f"{info.id:<20}{variant or '-':<16}{players:>8}{rate:>11.1f}{aim:>6}  {ok}")


if __name__ == "__main__":
    main()
