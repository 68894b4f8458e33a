"""Finding the board (`vision.board.locate`) on rendered tables, one hard condition at a time.

A board counts as found when its four corners lie within 1.5 % of its width of the truth, the
right way round: a board reported turned half a turn would have every square named wrongly.
Scenes come from fixed seeds (styles of the "train" pool unless a condition needs a table of
the other), without hands; each is rendered once per test session.
"""

from __future__ import annotations

import math
from dataclasses import replace
from functools import cache

import numpy as np
import pytest

from vision.boardfind import BoardTracker, locate
from vision.boardview import BoardView
from vision.classify import Pyramid
from vision.errors import CalibrationError
from vision.layouts import load_layout
from vision.render import CameraSpec, random_light, random_scene, random_table, render
from vision.render.camera import Camera
from vision.render.scene import BOARD_THICK_MM, Item, board_to_table

TOLERANCE = 0.015  # of the board's width

# A camera straight above the table: the conditions below add one difficulty each.
STEADY = CameraSpec(height_mm=800.0, view_w_mm=900.0, k1=0.02, noise=0.006, jpeg_quality=90, vignette=0.1)


def _scene(game: str, seed: int, **overrides):
    rng = np.random.default_rng([seed, 31])
    overrides.setdefault("distractors", False)
    return random_scene(game, rng, "train", hand=False, **overrides)


def _table(name: str):
    return random_table(np.random.default_rng(5), name=name)


def _light(name: str, level: float | None = None):
    light = random_light(np.random.default_rng(5), name=name)
    return light if level is None else replace(light, level=level, glare=())


def _fill_every_square(scene) -> None:
    """11!: a tile on every square (the printed squares all hidden)."""
    layout = load_layout("start11")
    board = scene.board
    scene.items = [it for it in scene.items if it.group != "board"]
    rng = np.random.default_rng(9)
    for q in layout.squares:
        if q.kind == "symbol":
            card = {"kind": "symbol", "value": q.symbol, "color": None}
        elif q.kind == "joker":
            card = {"kind": "joker", "value": q.number, "color": "gray"}
        else:
            card = {"kind": "number", "value": q.number, "color": q.row}
        x, y = board_to_table(board, layout, np.array([[q.x, q.y]]))[0]
        scene.items.append(Item("tile", card, float(x + rng.normal(0, 0.8)), float(y + rng.normal(0, 0.8)),
                                board.angle + float(rng.normal(0, 2)), z=2.0, layer=1, seed=int(rng.integers(1 << 30)),
                                square=q.id, group="board"))


def _push_off_the_edge(scene, mm: float) -> None:
    """Move the board (and what lies on it) right until `mm` of it is beyond the picture's edge."""
    half_view = scene.camera.view_w_mm / 2
    layout = load_layout(scene.board.game)
    dx = half_view - layout.width_mm / 2 + mm - scene.board.x
    scene.board = replace(scene.board, x=scene.board.x + dx)
    for it in scene.items:
        if it.group == "board":
            it.x += dx


def _scene_for(condition: str):
    if condition == "plain":
        return _scene("start11", 1, table=_table("beige-laminate"), light=_light("overcast"), camera=STEADY, angle=0)
    if condition == "rotated":
        return _scene("start11", 2, table=_table("oak"), light=_light("overcast"), camera=STEADY, angle=35)
    if condition == "full":
        scene = _scene("start11", 3, table=_table("blue-felt"), light=_light("daylight-window"), camera=STEADY,
                       angle=4)
        _fill_every_square(scene)
        return scene
    if condition == "warm-dim":
        return _scene("start11", 4, table=_table("walnut"), light=_light("warm-lamp", level=0.45), camera=STEADY,
                      angle=-8)
    if condition == "gingham":
        return _scene("start11", 5, table=_table("gingham-red"), light=_light("led-panel"), camera=STEADY, angle=7)
    if condition == "marble":
        return _scene("start11", 6, table=_table("marble"), light=_light("overcast"), camera=STEADY, angle=93)
    if condition == "cut":
        scene = _scene("start11", 7, table=_table("grey-slate"), light=_light("overcast"),
                       camera=replace(STEADY, view_w_mm=720.0), view_w_mm=720.0, angle=0)
        _push_off_the_edge(scene, 70.0)
        return scene
    if condition == "numeri-tokens":
        return _scene("numeri", 8, table=_table("linen-cloth"), light=_light("evening-mixed"), camera=STEADY,
                      angle=150)
    if condition == "numeri-gingham":
        return _scene("numeri", 9, table=_table("gingham-red"), light=_light("ceiling-fluorescent"), camera=STEADY,
                      angle=-3)
    raise KeyError(condition)


@cache
def rendered(condition: str) -> tuple[np.ndarray, dict, str]:
    image, truth = render(scenes(condition))
    return image, truth, scenes(condition).game


@cache
def scenes(condition: str):
    return _scene_for(condition)


@cache
def located(condition: str):
    image, _, game = rendered(condition)
    return locate(image, load_layout(game))


def true_view(scene) -> BoardView:
    """The board's view as the renderer's camera sees it (board mm -> table mm -> picture)."""
    layout = load_layout(scene.board.game)
    b, cam = scene.board, Camera(scene.camera, scene.size)
    a = math.radians(b.angle)
    ca, sa = math.cos(a), math.sin(a)
    w, h = layout.width_mm / 2, layout.height_mm / 2
    to_table = np.array([[ca, -sa, b.x - (w * ca - h * sa)], [sa, ca, b.y - (w * sa + h * ca)], [0, 0, 1]])
    return BoardView.from_homography(cam.plane_homography(BOARD_THICK_MM) @ to_table, scene.size,
                                     (layout.width_mm, layout.height_mm), scene.camera.k1)


def corner_errors(found: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Largest corner distance as reported, and as if turned half a turn."""
    return (float(np.linalg.norm(found - truth, axis=1).max()),
            float(np.linalg.norm(np.roll(found, 2, axis=0) - truth, axis=1).max()))


def board_width(truth: np.ndarray) -> float:
    return float((np.linalg.norm(truth[1] - truth[0]) + np.linalg.norm(truth[2] - truth[3])) / 2)


CONDITIONS = ["plain", "rotated", "full", "warm-dim", "gingham", "marble", "cut", "numeri-tokens", "numeri-gingham"]


@pytest.mark.parametrize("condition", CONDITIONS)
def test_board_found_right_way_round(condition):
    _, truth, _ = rendered(condition)
    want = np.asarray(truth["board"]["corners"], float)
    straight, turned = corner_errors(located(condition).view.corners(), want)
    limit = TOLERANCE * board_width(want)
    assert straight < limit, (f"{condition}: corners {straight:.1f} px off (limit {limit:.1f})"
                              + (" - found turned half a turn" if turned < limit else ""))


@pytest.mark.parametrize("condition", CONDITIONS)
def test_squares_where_the_camera_put_them(condition):
    """Not just the outline: every square in view within a millimetre or two (the tile reader's
    crops are centred on them), the lens distortion fitted too."""
    layout = load_layout(scenes(condition).game)
    view, want = located(condition).view, true_view(scenes(condition))
    centres = np.array([[q.x, q.y] for q in layout.squares])
    p = want.to_image(centres)
    w, h = want.image_size
    seen = (p[:, 0] > 0) & (p[:, 0] < w) & (p[:, 1] > 0) & (p[:, 1] < h)
    mm = np.linalg.norm(view.to_image(centres) - p, axis=1)[seen] / want.px_per_mm()
    assert np.median(mm) < 1.5 and mm.max() < 3.0, f"{condition}: median {np.median(mm):.2f} mm, max {mm.max():.2f} mm"


def test_cut_board_is_cut():
    """The "cut" scene really has part of the board beyond the picture's edge."""
    image, truth, _ = rendered("cut")
    want = np.asarray(truth["board"]["corners"], float)
    assert want[:, 0].max() > image.shape[1] + 20


def test_full_board_hides_every_square():
    _, truth, _ = rendered("full")
    assert len([c for c in truth["cards"] if c.get("square")]) == len(load_layout("start11").squares)


def test_empty_table_raises_with_a_clear_message():
    scene = _scene("start11", 10, table=_table("oak"), light=_light("overcast"), camera=STEADY, distractors=True)
    scene.board = None
    scene.items = [it for it in scene.items if it.group not in ("board", "loose")]
    image, _ = render(scene)
    with pytest.raises(CalibrationError, match="board not found"):
        locate(image, load_layout("start11"))


def test_tracker_keeps_the_view_while_the_board_stays():
    image, truth, game = rendered("plain")
    tracker = BoardTracker(load_layout(game))
    first = tracker.view_for(image, Pyramid(image))
    timings: dict = {}
    again = tracker.view_for(image, Pyramid(image), timings)
    assert again is first and tracker.relocations == 1 and "board_check_ms" in timings


def test_tracker_keeps_its_view_when_tiles_cover_the_squares_but_follows_a_moved_board():
    """Tiles over the squares' outlines lower their contrast: the tracker locates the board again,
    finds it where it was (a few pixels off), and keeps the view it had, with which a learnt
    empty look is registered. A board that really moved is followed."""
    # A thin-lined printing whose outlines the tiles hide well (contrast under 0.55 of the empty board's).
    scene = random_scene("start11", np.random.default_rng([2024, 0, 1]), "holdout", hand=False)
    full, truth = render(scene)
    bare = scene.copy()
    bare.items = [it for it in bare.items if it.obj != "tile"]
    empty, _ = render(bare)
    tracker = BoardTracker(load_layout("start11"))
    first = tracker.view_for(empty, Pyramid(empty))
    assert tracker.view_for(full, Pyramid(full)) is first and tracker.relocations == 2
    moved = np.roll(full, (24, -32), axis=(0, 1))  # 16 mm
    after = tracker.view_for(moved, Pyramid(moved))
    assert after is not first and tracker.relocations == 3
    want = np.asarray(truth["board"]["corners"], float) + [-32, 24]
    assert corner_errors(after.corners(), want)[0] < TOLERANCE * board_width(want)


def test_hint_follows_a_nudged_board():
    """From the old view the board is found again after it moved a little (a few millimetres)."""
    image, truth, game = rendered("rotated")
    layout = load_layout(game)
    view = locate(image, layout).view
    moved = np.roll(image, (6, -9), axis=(0, 1))
    loc = locate(moved, layout, hint=view)
    want = np.asarray(truth["board"]["corners"], float) + [-9, 6]
    assert corner_errors(loc.view.corners(), want)[0] < TOLERANCE * board_width(want)


def _judged(rim: float, ghosts: tuple[float, float]):
    """A board found whole and square, its squares' outlines all on edges, with squares showing
    beyond its rows' ends (`ghosts`) and `rim` of its edge on edges."""
    from vision.boardfind import Located, ViewScore

    layout = load_layout("start11")
    w, h = 1.2 * layout.width_mm, 1.2 * layout.height_mm  # 1.2 px/mm, the board's own shape
    view = BoardView.from_corners([[200, 100], [200 + w, 100], [200 + w, 100 + h], [200, 100 + h]],
                                  (layout.width_mm, layout.height_mm), (1640, 1232))
    score = ViewScore(rim=rim, squares=0.99, rim_seen=400, squares_seen=3000, matched=88, visible=88, rim_all=400,
                      squares_all=3000, ghosts=ghosts)
    return Located(view, score, contrast=0.4, beside=0.05)


def test_squares_beyond_the_rows_are_forgiven_when_the_whole_edge_is_seen():
    """A lattice slid a square along its rows shows squares beyond their ends, but its edge then
    lies off the board's: with all of the edge on edges, a pen or a busy print beyond the rows'
    ends (0.67-0.69 of the probes there on edges, in two train-pool scenes) does not reject it."""
    assert _judged(rim=1.0, ghosts=(0.69, 0.28)).doubt() is None
    assert "continue beyond the ends of its rows" in _judged(rim=0.8, ghosts=(0.69, 0.28)).doubt()
    assert _judged(rim=1.0, ghosts=(0.85, 0.2)).convincing is False
    assert _judged(rim=0.8, ghosts=(0.3, 0.2)).convincing


def test_a_board_with_a_pencil_across_its_rows_end_is_found():
    """Train-pool scene (seed 31000/168): a pencil lies over the ends of two rows; the board was
    refused for the squares it seemed to continue."""
    scene = random_scene("start11", np.random.default_rng([31000, 168]), "train", hand=False)
    image, truth = render(scene)
    want = np.asarray(truth["board"]["corners"], float)
    found = locate(image, load_layout("start11"))
    assert corner_errors(found.view.corners(), want)[0] < TOLERANCE * board_width(want)


def test_a_board_not_found_is_told_why():
    """The error names the check the best match failed, not only its figures."""
    scene = _scene("start11", 10, table=_table("oak"), light=_light("overcast"), camera=STEADY, distractors=True)
    scene.board = None
    scene.items = [it for it in scene.items if it.group not in ("board", "loose")]
    image, _ = render(scene)
    with pytest.raises(CalibrationError, match=r"board not found: the best match .* but too few of its squares"):
        locate(image, load_layout("start11"))
