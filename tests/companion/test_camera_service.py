"""The camera service end to end: simulated table -> stabiliser -> recogniser -> referee.

The frames are the simulated table's (automatic players, hands passing over the cards). The
recogniser here reads each frame's ground truth, so what is tested is the plumbing around it:
snapshots only when the table is still and free of hands, each placement reaching the referee
as a camera observation, and the match advancing with no correction typed in.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from companion.camera import CameraService
from companion.perception import Perceiver
from companion.referee import Actor, Referee
from companion.simcamera import SimCamera
from companion.store import Store
from vision.sources import Frame, lores_of
from vision.stabilizer import StabilizerConfig
from vision.train.evaluate import confirm_from_truth


class TruthReading:
    def __init__(self, truth: dict[str, Any]) -> None:
        self.truth = truth

    def to_json(self) -> dict[str, Any]:
        return {"image": None, "ms": 0.0, "cards": self.truth["cards"], "tokens": self.truth["tokens"],
                "dice": self.truth["dice"]}


class TruthRecognizer:
    """Reads a frame as its ground truth (looked up by the picture's identity)."""

    def __init__(self, frames: dict[int, dict[str, Any]], reads: list[dict[str, Any]]) -> None:
        self.frames = frames
        self.reads = reads

    def read(self, image: Any, regions: Any = None) -> TruthReading:
        truth = self.frames[id(image)]
        self.reads.append(truth)
        return TruthReading(truth)


@pytest.mark.parametrize("game", ["elfer-raus-junior", "11-nimmt"])
def test_placements_reach_the_referee_only_once_the_hands_are_gone(tmp_path: Path, game: str) -> None:
    referee = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    out = referee.handle({"type": "new_match", "game": game, "players": ["A", "B"]}, Actor("host"))
    assert out.ok, out.error
    fps = 15.0
    sim = SimCamera(referee, fps=fps, seed=5, settle_frames=10, patience_frames=45)
    frames: dict[int, dict[str, Any]] = {}
    reads: list[dict[str, Any]] = []
    service = CameraService(referee, "sim", fps=fps, stabilizer=StabilizerConfig(still_frames=4),
                            recognizer=lambda _game: TruthRecognizer(frames, reads))
    hand_frames = 0
    for seq, frame in enumerate(itertools.islice(sim.frames(), 1500)):
        frames.clear()  # only the newest picture is ever read
        frames[id(frame.image)] = frame.truth
        hand_frames += bool(frame.truth["hand"])
        service._on_frame(Frame(frame.image, lores_of(frame.image), seq, seq / fps, meta=frame.truth))
        if sim.stats["steps"] >= 16:
            break
    assert hand_frames > 20, "the sequence must have hands passing over the table"
    assert reads, "the camera never read the table"
    assert all(not truth["hand"] for truth in reads), "a snapshot was taken with a hand over the table"
    session = referee.session
    assert session is not None
    placed = [s for s in session.steps if s.action.get("type") == "play"]
    assert sim.stats["steps"] >= 12
    assert len(placed) >= 4
    # Seen by the camera; a reading the rules leave open (which 11 nimmt! pile to take) is the
    # player's confirmation of the camera's proposal, never a move typed in.
    assert all(s.source in ("camera", "player") for s in placed), [(s.action, s.source) for s in placed]
    assert sum(s.source == "player" for s in placed) <= sim.stats["confirmations"]
    assert sim.stats["corrections"] == 0, "every placement was seen by the camera"


def test_teach_this_deck_stores_a_profile_the_readings_then_use(tmp_path: Path) -> None:
    import numpy as np

    from vision.render import random_scene, render

    referee = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    service = CameraService(referee, "sim", data_dir=tmp_path)
    scene = random_scene("elfer-raus-junior", np.random.default_rng(4), "holdout", mode="side", rows=4, hand=False,
                         distractors=False, angle=0.0, camera={"tilt_x_deg": 0.0, "tilt_y_deg": 0.0})
    image, truth = render(scene)
    service._frame = image
    with pytest.raises(ValueError, match="first"):
        service.teach_confirm("elfer-raus-junior", [None])
    drafted = service.teach("elfer-raus-junior")["cards"]
    assert len(drafted) >= 10

    with pytest.raises(ValueError, match="confirmed"):
        service.teach_confirm("elfer-raus-junior", [None])
    out = service.teach_confirm("elfer-raus-junior", confirm_from_truth(drafted, truth))
    assert out["message"]["fr"] and len(out["classes"]) >= 5
    assert (tmp_path / "decks" / "elfer-raus-junior" / "profile.json").is_file()
    assert service._recognizer("elfer-raus-junior").profile is not None
    # After a restart the taught deck is used again.
    again = CameraService(referee, "sim", data_dir=tmp_path)
    assert again._recognizer("elfer-raus-junior").profile is not None


def test_a_lost_camera_is_reported_and_picked_up_again(tmp_path: Path) -> None:
    import time

    import numpy as np

    from vision.errors import SourceError
    from vision.sources import IterableSource

    referee = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    referee.handle({"type": "new_match", "game": "elfer-raus", "players": ["A", "B"]}, Actor("host"))
    referee.start()
    opened = []

    def frames() -> Any:
        opened.append(time.monotonic())
        if len(opened) == 2:
            raise SourceError("camera unplugged")  # the first re-open fails too
        for _ in range(5):  # then each connection dies after a few frames
            yield np.full((120, 160, 3), 90, np.uint8)

    def source() -> IterableSource:
        return IterableSource(frames, fps=50.0, name="flaky")

    service = CameraService(referee, "sim", fps=50.0, sim_factory=source).start()
    try:
        deadline = time.monotonic() + 20
        while len(opened) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(opened) >= 4, "the service must keep trying to re-open the camera"
        assert service.healthy() and service.failures >= 2
        time.sleep(0.3)
    finally:
        service.stop()
        referee.stop()
    notes = [e.payload for e in referee.store.events(referee.match_id) if e.kind == "note"]
    texts = [n.get("text", "") for n in notes]
    assert any(t.startswith("camera lost") for t in texts) and "camera back" in texts
    assert any(n.get("text_fr", "").startswith("caméra perdue") for n in notes)


def test_a_missing_board_is_said_once_and_its_tapped_corners_calibrate_it(tmp_path: Path) -> None:
    import numpy as np

    from vision.render import random_scene, render

    referee = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    referee.handle({"type": "new_match", "game": "start11", "players": ["A", "B"]}, Actor("host"))
    empty = np.full((480, 640, 3), (60, 90, 140), np.uint8)  # a bare table: no board anywhere
    # With board reading switched off (the default setting) the camera leaves board games alone.
    off = CameraService(referee, "sim", fps=15.0, data_dir=tmp_path, stabilizer=StabilizerConfig(still_frames=2),
                        read_boards=False)
    for seq in range(8):
        off._on_frame(Frame(empty, lores_of(empty), seq, seq / 15.0))
    assert not off._recognizers and not off.board_missing
    service = CameraService(referee, "sim", fps=15.0, data_dir=tmp_path,
                            stabilizer=StabilizerConfig(still_frames=2))
    for seq in range(8):
        service._on_frame(Frame(empty, lores_of(empty), seq, seq / 15.0))
    grey = np.full((480, 640, 3), (70, 100, 150), np.uint8)  # the light changes: another snapshot
    for seq in range(8, 16):
        service._on_frame(Frame(grey, lores_of(grey), seq, seq / 15.0))
    notes = [e.payload for e in referee.store.events(referee.match_id) if e.kind == "note"]
    assert [n["text"].split(":")[0] for n in notes] == ["board not found"], notes
    assert notes[0]["text_fr"].startswith("plateau introuvable")
    assert service.board_missing

    # The host taps the board's corners (a few pixels off, as fingers are) on the camera page.
    scene = random_scene("start11", np.random.default_rng([2024, 3, 1]), "holdout", hand=False)
    image, truth = render(scene)
    service._frame = image
    taps = np.asarray(truth["board"]["corners"]) + np.random.default_rng(1).normal(0, 3, (4, 2))
    taps = np.clip(taps, 0, [image.shape[1] - 1, image.shape[0] - 1])
    service.calibrate_corners([tuple(p) for p in taps])
    assert (tmp_path / "board-start11.json").is_file()
    recognizer = service._recognizer("start11")
    assert recognizer.options["board"] == str(tmp_path / "board-start11.json")
    got = {c["square"]: (c["value"], c["color"]) for c in recognizer.read(image).to_json()["cards"] if c.get("square")}
    want = {c["square"].replace("-", ":"): (c["value"], c["color"]) for c in truth["cards"] if c.get("square")}
    assert np.mean([got.get(s) == v for s, v in want.items()]) >= 0.8
    with pytest.raises(ValueError, match="corner"):
        service.calibrate_corners([(0, 0), (5, 0), (9999, 9999), (0, 5)])


def test_the_empty_11_board_is_learnt_kept_and_used(tmp_path: Path) -> None:
    """The host has the empty board learnt (camera page): it is stored beside the board's
    calibration, and the recogniser made afterwards no longer takes printed squares for tiles."""
    import numpy as np

    from vision.render import random_scene, render

    referee = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    service = CameraService(referee, "sim", fps=15.0, data_dir=tmp_path, stabilizer=StabilizerConfig(still_frames=2))
    referee.handle({"type": "new_match", "game": "elfer-raus", "players": ["A", "B"]}, Actor("host"))
    service._frame = np.zeros((48, 64, 3), np.uint8)
    with pytest.raises(ValueError, match="11!"):
        service.learn_empty_board()
    referee.handle({"type": "new_match", "game": "start11", "players": ["A", "B"]}, Actor("host"))
    # A printing whose empty squares the tile net takes for tiles (see test_board_read.py).
    scene = random_scene("start11", np.random.default_rng([3, 1]), "holdout", hand=False)
    image, truth = render(scene)
    bare = scene.copy()
    bare.items = [it for it in bare.items if it.obj != "tile"]
    service._frame, _ = render(bare)
    result = service.learn_empty_board()
    assert result["squares"] > 0 and result["message"]["fr"].startswith("Plateau vide appris")
    assert (tmp_path / "board-start11-empty.npz").is_file()
    recognizer = service._recognizer("start11")
    assert recognizer.options["empty_board"] == str(tmp_path / "board-start11-empty.npz")
    got = {c["square"] for c in recognizer.read(image).to_json()["cards"] if c.get("square")}
    want = {c["square"].replace("-", ":") for c in truth["cards"] if c.get("square")}
    assert want <= got and len(got - want) <= 1, sorted(got - want)


def test_the_empty_11_board_is_learnt_by_itself_when_a_round_starts(tmp_path: Path) -> None:
    """Every 11! round starts on the empty board: its first still picture is learnt as the empty
    look with no button pressed, so the printed squares are not taken for tiles. A new game whose
    board still holds the last game's tiles does not overwrite that look."""
    import numpy as np

    from vision.render import random_scene, render

    def show(service: CameraService, image: np.ndarray, frames: int = 6) -> None:
        for _ in range(frames):
            service.frames += 1
            seq = service.frames
            service._on_frame(Frame(image, lores_of(image), seq, seq / 15.0))

    def notes(referee: Referee) -> list[str]:
        return [e.payload["text"] for e in referee.store.events(referee.match_id) if e.kind == "note"]

    # The printing whose empty squares the tile net takes for tiles (as in the test above).
    scene = random_scene("start11", np.random.default_rng([3, 1]), "holdout", hand=False)
    image, truth = render(scene)
    bare = scene.copy()
    bare.items = [it for it in bare.items if it.obj != "tile"]
    empty, _ = render(bare)
    stored = tmp_path / "board-start11-empty.npz"

    referee = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    off = CameraService(referee, "sim", fps=15.0, data_dir=tmp_path, stabilizer=StabilizerConfig(still_frames=2),
                        read_boards=False)
    referee.handle({"type": "new_match", "game": "start11", "players": ["A", "B"]}, Actor("host"))
    show(off, empty)
    assert not stored.exists()  # board reading off: the camera leaves the board alone

    service = CameraService(referee, "sim", fps=15.0, data_dir=tmp_path, stabilizer=StabilizerConfig(still_frames=2))
    show(service, empty)
    assert stored.is_file()
    assert [n for n in notes(referee) if n.startswith("empty board learnt")], notes(referee)
    got = {c["square"] for c in service._recognizer("start11").read(image).to_json()["cards"] if c.get("square")}
    want = {c["square"].replace("-", ":") for c in truth["cards"] if c.get("square")}
    assert want <= got and len(got - want) <= 1, sorted(got - want)

    # The next game is started before the board is cleared: the tiles are not learnt as the board.
    learnt = stored.read_bytes()
    referee.handle({"type": "new_match", "game": "start11", "players": ["A", "B"]}, Actor("host"))
    show(service, image)
    assert stored.read_bytes() == learnt
    assert [n for n in notes(referee) if "tiles seen on the board" in n], notes(referee)
