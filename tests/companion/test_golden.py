"""Golden playthroughs: one seeded match per game, compared line by line."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion import games
from companion.transcript import GOLDEN, golden_name, render

GOLDEN_DIR = Path(__file__).parent.parent / "golden"


@pytest.mark.parametrize(("game_id", "variant", "players", "seed", "policy"), GOLDEN)
def test_playthrough_matches_golden(game_id: str, variant: str | None, players: int, seed: int, policy: str) -> None:
    if game_id not in games.ids():
        pytest.fail(f"{game_id} is not registered")
    expected = (GOLDEN_DIR / golden_name(game_id)).read_text(encoding="utf-8")
    actual = render(game_id, variant, players, seed, policy)
    assert actual == expected, f"playthrough of {game_id} changed; review and run `make golden`"
