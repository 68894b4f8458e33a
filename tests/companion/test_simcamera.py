"""The simulated camera: rendered frames of a world played live keep the referee in step."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from companion.perception import Perceiver
from companion.referee import Actor, Referee
from companion.simcamera import SimCamera
from companion.store import Store


def truth_observation(truth: dict) -> dict:
    """What a flawless recogniser would report for a rendered frame."""
    return {"cards": truth["cards"], "tokens": truth["tokens"], "dice": truth["dice"]}


@pytest.mark.parametrize("game", ["elevens", "elfer-raus-junior", "11-nimmt", "start11", "numeri"])
def test_rendered_moves_read_back_keep_the_referee_in_step(tmp_path: Path, game: str) -> None:
    referee = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    out = referee.handle({"type": "new_match", "game": game, "players": ["A", "B"]}, Actor("host"))
    assert out.ok, out.error
    camera = SimCamera(referee, fps=10, seed=3, settle_frames=4, patience_frames=30)
    settled_before = False
    for frame in itertools.islice(camera.frames(), 500):
        truth = frame.truth
        # Every settled frame shows exactly the world's visible table.
        if truth["settled"] and not settled_before:
            out = referee.handle({"type": "observation", "observation": truth_observation(truth)},
                                 Actor("camera"))
            assert out.ok, out.error
        settled_before = truth["settled"]
        if camera.stats["steps"] >= 8:
            break
    assert camera.stats["steps"] >= 6, camera.stats
    assert camera.stats["corrections"] == 0, "flawless readings of rendered frames need no correction"
    assert referee.session is not None and len(referee.session.steps) >= 6


def test_the_simulated_table_looks_the_same_in_every_process() -> None:
    """Item seeds come from their tags by crc32: str hash() is salted per process."""
    import subprocess
    import sys

    code = "from companion.simcamera import _seed; print(_seed('R7'), _seed('b3'), _seed(12))"
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                           env={"PYTHONHASHSEED": salt, "PATH": ""}, cwd=Path(__file__).parents[2]).stdout
            for salt in ("1", "2")}
    assert len(seen) == 1, seen
