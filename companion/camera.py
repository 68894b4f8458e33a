"""The camera service: frames → stabiliser → recogniser → referee, on one thread.

It also serves the camera page (preview, snapshot, calibration, "teach this deck"). A lost
camera never stops the referee: the service says so, keeps trying with a growing pause,
and picks the camera up again; meanwhile play goes on with the buttons and phones.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import CalibrationError, SourceError, VisionError
from vision.pipeline import Recognizer
from vision.profile import ProfileError, draft, load_profile
from vision.profile import teach as teach_profile
from vision.sources import FrameSource, open_source
from vision.stabilizer import Stabilizer, StabilizerConfig

from .referee import Actor, Referee

log = logging.getLogger(__name__)

CAMERA = Actor("camera")
PREVIEW_FPS = 5.0
BOARD_GAMES = ("start11", "numeri")  # read on a printed board: calibrated by its own four corners
# At most this many tiles read on an 11! board at a round's start, through its stored empty look,
# and it is taken for empty (and learnt again, in today's light): the empty-board reader reports
# about one false tile in two pictures (benchmarks/vision_boards.py --empty-board).
STILL_EMPTY = 2


class CameraService:
    def __init__(
        self,
        referee: Referee,
        spec: str = "auto",
        *,
        fps: float = 10.0,
        size: tuple[int, int] | None = None,
        stabilizer: StabilizerConfig | None = None,
        data_dir: Path | None = None,
        sim_factory: Callable[[], FrameSource] | None = None,
        recognizer: Callable[[str], Recognizer] = Recognizer,
        read_boards: bool = True,
    ) -> None:
        self.referee = referee
        self.spec = spec
        self.fps = fps
        self.size = size
        self.stabilizer = Stabilizer(stabilizer)
        self.data_dir = data_dir
        self.sim_factory = sim_factory
        self.make_recognizer = recognizer
        self._recognizers: dict[str, Recognizer] = {}
        self.board_missing = False  # the board game's board was not found in the last snapshot
        self.read_boards = read_boards  # off: a board game's moves come from the phones and buttons only
        self._teaching: dict[str, tuple[Recognizer, np.ndarray, list[dict[str, Any]]]] = {}
        self._source: FrameSource | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._frame_cond = threading.Condition()
        self._frame: np.ndarray | None = None
        self._frame_seq = 0
        self._last_obs: dict[str, Any] | None = None
        self._round_seen: tuple[Any, Any] | None = None  # the 11! round whose start was last looked at
        self._learn_pending = False  # learn the empty 11! board from the next still picture
        self.state = "starting"  # starting, running, lost, stopped
        self.source_name = ""
        self.last_frame_at = 0.0
        self.last_read_ms = 0.0
        self.frames = 0
        self.failures = 0

    # -- life cycle -------------------------------------------------------------------------

    def start(self) -> CameraService:
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._close_source()
        self.state = "stopped"

    def healthy(self) -> bool:
        """Alive and either delivering frames or patiently retrying a lost camera."""
        if self._thread is None or not self._thread.is_alive():
            return False
        if self.state == "running":
            return time.monotonic() - self.last_frame_at < 30.0
        return True

    def status(self) -> dict[str, Any]:
        st = self.stabilizer.state
        return {"state": self.state, "source": self.source_name, "frames": self.frames,
                "still": st.still, "hand": st.hand_present, "read_ms": round(self.last_read_ms, 1)}

    # -- the loop ---------------------------------------------------------------------------

    def _open(self) -> FrameSource:
        spec = self.spec
        if spec in ("sim", "auto") and self.sim_factory is not None:
            from vision.sources import register_sim_factory

            factory = self.sim_factory
            register_sim_factory(lambda **_options: factory())
        options: dict[str, Any] = {"fps": self.fps}
        if self.size is not None and not spec.startswith(("file:", "sim")):
            options["size"] = self.size
        return open_source(spec, **options)

    def _run(self) -> None:
        pause = 1.0
        while not self._stop.is_set():
            if self._source is None:
                try:
                    self._source = self._open()
                    self.source_name = getattr(self._source, "name", self.spec)
                    if self.state == "lost":
                        self._note("camera back", "caméra retrouvée")
                    self.state = "running"
                    self.last_frame_at = time.monotonic()
                    self.stabilizer.reset()
                    pause = 1.0
                except (SourceError, VisionError, OSError) as exc:
                    self._lost(str(exc))
                    self._stop.wait(pause)
                    pause = min(pause * 2, 30.0)
                    continue
            try:
                frame = self._source.read()
            except (SourceError, VisionError, OSError) as exc:
                self._close_source()
                if self._stop.is_set():
                    break  # closed for shutdown: not a lost camera
                self._lost(str(exc))
                continue
            self._on_frame(frame)

    def _on_frame(self, frame: Any) -> None:
        self.frames += 1
        self.last_frame_at = time.monotonic()
        with self._frame_cond:
            self._frame = frame.image
            self._frame_seq += 1
            self._frame_cond.notify_all()
        snap = self.referee.snapshot()
        game = snap.get("game")
        if game == "start11" and self.read_boards:
            self._round_start(snap)
        event = self.stabilizer.feed(frame)
        if event is None:
            return
        if not game or (game in BOARD_GAMES and not self.read_boards):
            return
        try:
            if self._learn_pending:
                self._learn_at_start(snap, event.image)
            observation = self._read(game, event)
        except CalibrationError as exc:
            self._board_lost(str(exc))
            return
        except Exception:  # noqa: BLE001 - one unreadable frame must not stop the camera
            log.exception("reading the table failed")
            return
        if self.board_missing:
            self.board_missing = False
            self._note("board found", "plateau retrouvé")
        self.referee.post({"type": "observation", "observation": observation}, CAMERA)

    def _round_start(self, snap: Mapping[str, Any]) -> None:
        """A new 11! round on a board no tile has been placed on (by the rules: every round
        starts so): learn its empty look from the next still picture, without a button. The
        stabiliser starts afresh, so that picture is taken now, not at the first placement."""
        key = (snap.get("match_id"), (snap.get("rounds") or {}).get("current"))
        if key == self._round_seen:
            return
        self._round_seen = key
        if not _board_tiles(snap):
            self._learn_pending = True
            self.stabilizer.reset()

    def _learn_at_start(self, snap: Mapping[str, Any], image: np.ndarray) -> None:
        """Learn the empty board while the rules still say it is empty. If an empty look is
        already stored, the picture is read with it first: tiles left from the last game are
        not learnt as the board. A board not found raises CalibrationError, said as for a read;
        learning is tried again at the next still picture (after the corners are tapped)."""
        latest = self.referee.snapshot()
        if latest.get("match_id") != snap.get("match_id") or _board_tiles(latest):
            self._learn_pending = False  # a tile went down (from a phone) before the table was still
            return
        stored = self._empty_board_file("start11")
        if stored is not None and stored.is_file():
            seen = [c for c in self._recognizer("start11").read(image).to_json()["cards"] if c.get("square")]
            if len(seen) > STILL_EMPTY:
                self._learn_pending = False
                log.info("11! round starts with %d tiles seen on the board: empty look kept", len(seen))
                self._note(f"{len(seen)} tiles seen on the board: clear it for the new round",
                           f"{len(seen)} tuiles vues sur le plateau : videz-le pour la nouvelle manche")
                return
        squares = self._learn_empty(image)
        self._learn_pending = False
        log.info("empty 11! board learnt at the start of the round (%d squares)", squares)
        self._note(f"empty board learnt ({squares} squares)", f"plateau vide appris ({squares} cases)")

    def _board_lost(self, why: str) -> None:
        """Said once until the board is seen again; the players can calibrate it on the camera page."""
        if not self.board_missing:
            log.warning("board not found: %s", why)
            self._note("board not found: is it all in view? You can tap its corners on the camera page.",
                       "plateau introuvable : est-il entier dans l'image ? Vous pouvez toucher ses coins "
                       "sur la page caméra.")
        self.board_missing = True

    def _recognizer(self, game: str) -> Recognizer:
        recognizer = self._recognizers.get(game)
        if recognizer is None:
            recognizer = self._recognizers[game] = self._new_recognizer(game)
        return recognizer

    def _deck_dir(self, game: str) -> Path | None:
        return None if self.data_dir is None else Path(self.data_dir) / "decks" / game

    def _board_file(self, game: str) -> Path | None:
        return None if self.data_dir is None or game not in BOARD_GAMES else Path(self.data_dir) / f"board-{game}.json"

    def _empty_board_file(self, game: str) -> Path | None:
        return None if self.data_dir is None or game != "start11" else Path(self.data_dir) / f"board-{game}-empty.npz"

    def _new_recognizer(self, game: str) -> Recognizer:
        """The game's recogniser, with the deck profile taught at this table and the board's
        calibration (its corners tapped on the camera page) if there are."""
        if self.make_recognizer is not Recognizer:
            return self.make_recognizer(game)
        board, empty = self._board_file(game), self._empty_board_file(game)
        options = {}
        if board is not None and board.is_file():
            options["board"] = str(board)
        if empty is not None and empty.is_file():
            options["empty_board"] = str(empty)
        folder = self._deck_dir(game)
        if folder is not None and (folder / "profile.json").is_file():
            try:
                return Recognizer(game, profile=load_profile(folder), options=options or None)
            except ProfileError as exc:
                log.warning("deck profile ignored: %s", exc)
        return Recognizer(game, options=options or None)

    def _read(self, game: str, event: Any) -> dict[str, Any]:
        recognizer = self._recognizer(game)
        # The recogniser keeps its last reading: given the changed regions it re-reads only
        # those and returns the whole table.
        regions = None if event.first else [(int(b.x0), int(b.y0), int(b.x1), int(b.y1)) for b in event.regions]
        started = time.perf_counter()
        obs = recognizer.read(event.image, regions=regions).to_json()
        self.last_read_ms = (time.perf_counter() - started) * 1000
        self._last_obs = obs
        return obs

    def _lost(self, why: str) -> None:
        self.failures += 1
        if self.state != "lost":
            log.warning("camera lost: %s", why)
            self._note("camera lost: " + why[:120], "caméra perdue : " + why[:120])
        self.state = "lost"

    def _note(self, en: str, fr: str) -> None:
        if self.referee.session is not None:
            self.referee.post({"type": "note", "text": en, "text_fr": fr}, Actor("system"))

    def _close_source(self) -> None:
        source, self._source = self._source, None
        if source is not None:
            try:
                source.close()
            except Exception:  # noqa: BLE001 - closing a broken camera may fail too
                log.debug("closing the camera failed", exc_info=True)

    # -- the camera page --------------------------------------------------------------------

    def _latest(self, timeout: float = 2.0) -> np.ndarray:
        with self._frame_cond:
            if self._frame is None:
                self._frame_cond.wait(timeout)
            if self._frame is None:
                raise ValueError("no picture from the camera yet")
            return self._frame

    def snapshot_jpeg(self) -> bytes:
        return _jpeg(self._latest())

    def mjpeg_frames(self) -> Iterator[bytes]:
        """The preview with what vision read drawn on it; at most PREVIEW_FPS, only while watched."""
        seq = -1
        while not self._stop.is_set():
            with self._frame_cond:
                self._frame_cond.wait_for(lambda seen=seq: self._frame_seq != seen or self._stop.is_set(),
                                          timeout=2.0)
                if self._frame is None:
                    continue
                seq, image = self._frame_seq, self._frame
            yield _jpeg(_overlay(image, self._last_obs), width=960)
            time.sleep(1.0 / PREVIEW_FPS)

    def calibrate_corners(self, points: Sequence[tuple[float, float]]) -> Mapping[str, Any] | None:
        """The play area's corners, or for a board game the board's (the first tapped is the
        board's top-left): the board readers then start from them instead of searching."""
        from vision.calibrate import from_corners
        from vision.layouts import load_layout

        image = self._latest()
        if len(points) != 4:
            raise ValueError("four corners are needed")
        game = self.referee.snapshot().get("game")
        if game in BOARD_GAMES:
            layout = load_layout(game)
            size, path = (layout.width_mm, layout.height_mm), self._board_file(game)
        else:
            size = (1000.0, 1000.0 * image.shape[0] / image.shape[1])
            path = None if self.data_dir is None else Path(self.data_dir) / "calibration.json"
        try:
            calibration = from_corners(points, size, image)
            if path is not None:
                calibration.save(path)
        except (CalibrationError, OSError) as exc:
            raise ValueError(str(exc)) from None
        if game in BOARD_GAMES:
            self._recognizers.pop(game, None)  # the next reading starts from these corners
        self.stabilizer.reset()
        return calibration.to_json()

    def learn_empty_board(self) -> Mapping[str, Any]:
        """11!: the board in view is empty (as at the start of a game): keep each square's look.
        Afterwards a square that still looks so holds no tile, whatever the printing, and one
        that clearly does not holds one, however faint its tile."""
        if self.referee.snapshot().get("game") != "start11":
            raise ValueError("only the 11! board is learnt empty; start an 11! game first")
        try:
            squares = self._learn_empty(self._latest().copy())
        except (CalibrationError, OSError) as exc:
            raise ValueError(str(exc)) from None
        return {"squares": squares,
                "message": {"fr": f"Plateau vide appris ({squares} cases).",
                            "en": f"Empty board learnt ({squares} squares)."}}

    def _learn_empty(self, image: np.ndarray) -> int:
        """Keep each square's look on this picture of the empty 11! board (stored beside the
        board's calibration); the next reading uses it. Raises CalibrationError or OSError."""
        from vision.board import Start11Reader

        board, path = self._board_file("start11"), self._empty_board_file("start11")
        reader = Start11Reader.create(board if board is not None and board.is_file() else None)
        squares = reader.learn_empty(image)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            reader.save_empty(path)
        self._recognizers.pop("start11", None)
        return squares

    def teach(self, game: str) -> Mapping[str, Any]:
        """First step of "teach this deck": read the laid-out deck for the players to check."""
        image = self._latest().copy()
        # Its own recogniser: this runs on a web thread while the camera thread reads.
        recognizer = self.make_recognizer(game)
        cards = draft(recognizer, image)
        if not cards:
            raise ValueError("no card found: lay the cards out face up, side by side, under the camera")
        self._teaching[game] = (recognizer, image, cards)
        return {"message": {"fr": f"{len(cards)} cartes lues : corrige-les puis confirme.",
                            "en": f"{len(cards)} cards read: correct them, then confirm."},
                "cards": cards}

    def teach_confirm(self, game: str, labels: Sequence[Mapping[str, Any] | None]) -> Mapping[str, Any]:
        """Second step: learn this printing from the confirmed cards and use it from now on."""
        pending = self._teaching.get(game)
        if pending is None:
            raise ValueError("read the laid-out deck first")
        recognizer, image, cards = pending
        if len(labels) != len(cards):
            raise ValueError(f"{len(cards)} cards were read, {len(labels)} confirmed")
        try:
            profile = teach_profile(recognizer, [image], [cards], [list(labels)], name=f"{game} deck")
            folder = self._deck_dir(game)
            if folder is not None:
                profile.save(folder)
        except (ProfileError, OSError) as exc:
            raise ValueError(str(exc)) from None
        del self._teaching[game]
        self._recognizers.pop(game, None)  # the next reading uses the profile
        if self.make_recognizer is Recognizer:
            self._recognizers[game] = Recognizer(game, profile=profile)
        n = sum(label is not None for label in labels)
        return {"message": {"fr": f"Jeu appris : {n} cartes, {len(profile.classes)} valeurs.",
                            "en": f"Deck learnt: {n} cards, {len(profile.classes)} values."},
                "classes": list(profile.classes)}


def _board_tiles(snap: Mapping[str, Any]) -> Mapping[str, Any]:
    """The tiles the rules know on the 11! board (empty at the start of every round)."""
    return ((snap.get("table") or {}).get("board") or {}).get("tiles") or {}


def _jpeg(image: np.ndarray, width: int | None = None, quality: int = 80) -> bytes:
    if width is not None and image.shape[1] > width:
        scale = width / image.shape[1]
        image = cv2.resize(image, (width, int(round(image.shape[0] * scale))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("could not encode the picture")
    return buf.tobytes()


def _overlay(image: np.ndarray, obs: Mapping[str, Any] | None) -> np.ndarray:
    """Outline every reading with its name, so the host sees what vision understood."""
    if not obs:
        return image
    out = image.copy()
    for reading in obs.get("cards", []):
        pts = np.asarray(reading.get("corners", []), np.int32).reshape(-1, 1, 2)
        if len(pts) != 4:
            continue
        cv2.polylines(out, [pts], True, (0, 255, 0), 3)
        label = f"{reading.get('color') or ''} {reading.get('value') if reading.get('value') is not None else ''}"
        label = label.strip() or str(reading.get("kind"))
        x, y = int(pts[:, 0, 0].min()), int(pts[:, 0, 1].min()) - 6
        cv2.putText(out, label, (x, max(20, y)), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (0, 0, 0), 5, cv2.LINE_AA)
        cv2.putText(out, label, (x, max(20, y)), cv2.FONT_HERSHEY_SIMPLEX, 0.9, (255, 255, 255), 2, cv2.LINE_AA)
    for token in obs.get("tokens", []):
        cx, cy = (int(v) for v in token.get("center", (0, 0)))
        cv2.circle(out, (cx, cy), 22, (255, 0, 255), 3)
    for die in obs.get("dice", []):
        pts = np.asarray(die.get("corners", []), np.int32).reshape(-1, 1, 2)
        if len(pts) == 4:
            cv2.polylines(out, [pts], True, (0, 200, 255), 3)
    return out
