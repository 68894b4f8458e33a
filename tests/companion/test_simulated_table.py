"""Whole matches refereed from a simulated table with a flawless camera, buttons and phones."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.perception import Perceiver
from companion.referee import Actor, Referee
from companion.simdriver import SimDriver
from companion.simworld import SimWorld
from companion.store import Store

from .perfect_camera import observe, perfect_camera

GAMES = [("elevens", None, 3), ("elevens", "beginner", 2),
         ("elfer-raus-junior", None, 3), ("elfer-raus", None, 3), ("elfer-raus", "extremes", 2),
         ("11-nimmt", None, 3), ("start11", None, 2), ("numeri", None, 3)]


@pytest.mark.parametrize(("game", "variant", "players"), GAMES)
def test_a_match_refereed_to_its_final_scores(tmp_path: Path, game: str, variant: str | None, players: int) -> None:
    store = Store.open(tmp_path / "db.sqlite3")
    referee = Referee(store, perceive=Perceiver())
    names = [f"P{i + 1}" for i in range(players)]
    out = referee.handle({"type": "new_match", "game": game, "variant": variant, "players": names, "rounds": 2},
                         Actor("host"))
    assert out.ok, out.error
    world = SimWorld(referee.session.setup, seed=7)  # type: ignore[union-attr]
    camera = perfect_camera(referee)
    driver = SimDriver(referee, world, camera)
    referee.submit({"type": "observation", "observation": observe(world)}, Actor("camera"))  # the table at the start
    driver.play_match()
    snap = referee.snapshot()
    assert snap["match_over"]
    assert snap["scores"] == world.match.totals()
    assert list(snap["rounds"]["scores"]) == [list(r.scores) for r in world.match.results]
    assert driver.corrections == 0, "a flawless camera should never need a correction"
    # The log on disk replays to the same state.
    store.close()
    again = Referee(Store.open(tmp_path / "db.sqlite3"))
    assert again.snapshot()["scores"] == snap["scores"]
