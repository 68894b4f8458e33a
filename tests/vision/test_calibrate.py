"""Calibration on synthetic pictures with exact ground truth.

A board (coloured rows of squares, a printed frame just inside its edge) or four ArUco markers
is drawn flat at a known size in millimetres and seen through a tilted camera (a homography);
the true corners in the picture are known to the sub-pixel, so the tests measure the error.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.calibrate import (
    Calibration,
    board_transform,
    camera_moved,
    check_camera,
    find_board,
    from_corners,
    from_markers,
    marker_image,
    order_corners,
    warp_board,
)
from vision.errors import CalibrationError, VisionError

IMG_W, IMG_H = 1640, 1232
BOARD_MM = (500.0, 300.0)
PX_PER_MM = 2.0  # of the drawn board canvas


def table(rng: np.random.Generator, base=(70, 110, 150), texture: float = 12.0) -> np.ndarray:
    noise = cv2.resize(rng.normal(0, 1, (IMG_H // 10, IMG_W // 10, 3)).astype(np.float32), (IMG_W, IMG_H),
                       interpolation=cv2.INTER_CUBIC)
    grain = cv2.resize(rng.normal(0, 1, (IMG_H // 3, 5)).astype(np.float32), (IMG_W, IMG_H))
    img = np.array(base, np.float32) + texture * noise + 0.6 * texture * grain[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)


def board_canvas(size_mm=BOARD_MM) -> np.ndarray:
    w, h = int(size_mm[0] * PX_PER_MM), int(size_mm[1] * PX_PER_MM)
    canvas = np.full((h, w, 3), (212, 222, 228), np.uint8)
    colours = [(40, 200, 230), (50, 50, 200), (180, 90, 40), (60, 160, 60)]
    for row, colour in enumerate(colours):
        y0 = int(h * (0.1 + 0.2 * row))
        for k in range(20):
            x0 = int(w * (0.04 + 0.046 * k))
            cv2.rectangle(canvas, (x0, y0), (x0 + int(w * 0.04), y0 + int(h * 0.15)), colour, -1)
            cv2.putText(canvas, str(k + 1), (x0 + 2, y0 + int(h * 0.15) - 5), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                        (255, 255, 255), 1)
    cv2.rectangle(canvas, (6, 6), (w - 7, h - 7), (90, 90, 90), 3)  # a printed frame just inside the edge
    return canvas


def paste(img: np.ndarray, canvas: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Draw `canvas` into `img` so that its outer edges land on `corners` (TL, TR, BR, BL); returns the homography."""
    h, w = canvas.shape[:2]
    # pixel centres run 0..w-1, so the canvas's outer edges are at -0.5 and w-0.5
    edges = np.float32([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    matrix = cv2.getPerspectiveTransform(edges, corners.astype(np.float32))
    warped = cv2.warpPerspective(canvas, matrix, (IMG_W, IMG_H), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), matrix, (IMG_W, IMG_H))
    alpha = (mask.astype(np.float32) / 255)[:, :, None]
    img[:] = np.clip(img * (1 - alpha) + warped * alpha, 0, 255).astype(np.uint8)
    return matrix


def tilted_quad(rng: np.random.Generator, size_mm=BOARD_MM, scale: float = 2.0, turn: float = 0.0,
                tilt: float = 40.0) -> np.ndarray:
    """Where a board of size_mm lands: centred, turned by `turn` degrees, corners jittered by `tilt` px."""
    w, h = size_mm[0] * scale, size_mm[1] * scale
    angle = np.deg2rad(turn + rng.uniform(-6, 6))
    rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    quad = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) @ rot.T
    quad += [IMG_W / 2 + rng.uniform(-60, 60), IMG_H / 2 + rng.uniform(-50, 50)]
    return quad + rng.uniform(-tilt, tilt, (4, 2))


def add_glare(img: np.ndarray, at: np.ndarray, axes=(90, 50)) -> np.ndarray:
    glare = np.zeros(img.shape[:2], np.float32)
    cv2.ellipse(glare, (int(at[0]), int(at[1])), axes, 30, 0, 360, 1.0, -1)
    glare = cv2.GaussianBlur(glare, (0, 0), 12)
    return np.clip(img + glare[:, :, None] * 200, 0, 255).astype(np.uint8)


def add_cards(img: np.ndarray, quad: np.ndarray, rng: np.random.Generator, n: int) -> None:
    for _ in range(n):
        u, v = rng.uniform(0.2, 0.8, 2)
        p = quad[0] + u * (quad[1] - quad[0]) + v * (quad[3] - quad[0])
        box = cv2.boxPoints(((float(p[0]), float(p[1])), (60, 90), float(rng.uniform(0, 90)))).astype(np.int32)
        cv2.fillConvexPoly(img, box, (235, 240, 240))


def board_scene(seed: int, *, turn: float = 0.0, glare: bool = False, cards: int = 0, size_mm=BOARD_MM,
                base=(70, 110, 150), across_edge: bool = False):
    rng = np.random.default_rng(seed)
    img = table(rng, base)
    quad = tilted_quad(rng, size_mm, turn=turn)
    assert np.all(quad > 20) and np.all(quad < [IMG_W - 20, IMG_H - 20])
    paste(img, board_canvas(size_mm), quad)
    if glare:
        img = add_glare(img, (quad[1] + quad[2]) / 2)
    add_cards(img, quad, rng, cards)
    if across_edge:  # cards lying half on the board, half on the table, on two sides
        for p in (0.3 * quad[0] + 0.7 * quad[1], 0.6 * quad[3] + 0.4 * quad[0]):
            box = cv2.boxPoints(((float(p[0]), float(p[1])), (60, 90), 20.0)).astype(np.int32)
            cv2.fillConvexPoly(img, box, (235, 240, 240))
    noise = rng.normal(0, 2.5, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8), quad


def corner_error(found, truth) -> float:
    return float(np.max(np.linalg.norm(order_corners(found) - order_corners(truth), axis=1)))


# --------------------------------------------------------------------------- find_board


@pytest.mark.parametrize(("seed", "turn", "glare", "cards", "base", "across"), [
    (1, 0.0, False, 0, (70, 110, 150), False),  # wood-like table
    (2, 0.0, True, 3, (70, 110, 150), False),  # glare over one edge, cards on the board
    (3, 90.0, False, 2, (40, 40, 45), False),  # dark cloth, board turned a quarter
    (4, 180.0, True, 0, (180, 190, 196), False),  # light table, low contrast, glare
    (5, 12.0, False, 4, (95, 140, 60), False),  # green felt
    (14, -5.0, False, 1, (70, 110, 150), True),  # cards lying across the board's edge
])
def test_find_board_corners_within_two_pixels(seed, turn, glare, cards, base, across):
    image, truth = board_scene(seed, turn=turn, glare=glare, cards=cards, base=base, across_edge=across)
    cal = find_board(image, BOARD_MM)
    assert corner_error(cal.corners, truth) < 2.0
    corners = np.array(cal.corners)
    # the board's width (500 mm) runs along the first side, whatever the turn
    assert np.linalg.norm(corners[1] - corners[0]) > np.linalg.norm(corners[3] - corners[0])
    mapped = cal.image_to_table(corners)
    assert np.allclose(mapped, [[0, 0], [500, 0], [500, 300], [0, 300]], atol=1e-6)
    assert cal.method == "board" and cal.image_size == (IMG_W, IMG_H) and cal.size_mm == BOARD_MM


def test_find_board_maps_board_points_to_millimetres():
    image, truth = board_scene(6)
    cal = find_board(image, {"size_mm": BOARD_MM})  # a layout-like mapping works too
    # a point 100 mm right and 50 mm down from a board corner, by the true geometry
    h, w = board_canvas().shape[:2]
    edges = np.float32([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    true_h = cv2.getPerspectiveTransform(edges, truth.astype(np.float32))
    inside = cv2.perspectiveTransform(np.float32([[[100 * PX_PER_MM - 0.5, 50 * PX_PER_MM - 0.5]]]), true_h)[0]
    mm = cal.image_to_table(inside)[0]
    candidates = [(100, 50), (400, 250)]  # the outline cannot tell which end is which
    assert min(np.hypot(*(mm - c)) for c in candidates) < 1.5
    assert np.allclose(cal.table_to_image(cal.image_to_table(inside)), inside, atol=1e-6)


def test_find_board_failures_say_what_to_do():
    rng = np.random.default_rng(7)
    with pytest.raises(CalibrationError, match="board not found: is all of it in view"):
        find_board(table(rng), BOARD_MM)
    image, _ = board_scene(8, size_mm=(400.0, 400.0))  # a square board, but we expect 500 x 300
    with pytest.raises(CalibrationError, match=r"largest rectangle seen is 1\.0\d:1, the board is 1\.67:1"):
        find_board(image, BOARD_MM)
    img = table(np.random.default_rng(9))
    paste(img, board_canvas(), np.array([[-200, 300], [1000, 250], [1030, 1000], [-170, 1050]], float))
    with pytest.raises(CalibrationError, match="cut off at the edge"):
        find_board(img, BOARD_MM)
    with pytest.raises(CalibrationError, match="board size"):
        find_board(img, "big")


# --------------------------------------------------------------------------- markers


def marker_scene(seed: int, area_mm=(700.0, 450.0), marker_mm: float = 40.0, ids=(0, 1, 2, 3),
                 cover: int | None = None):
    """Markers centred on the corners of a play area, on a table, seen tilted. Returns image, true centres."""
    rng = np.random.default_rng(seed)
    margin = 50.0
    canvas_w, canvas_h = int((area_mm[0] + 2 * margin) * PX_PER_MM), int((area_mm[1] + 2 * margin) * PX_PER_MM)
    noise = cv2.resize(rng.normal(0, 1, (60, 80)).astype(np.float32), (canvas_w, canvas_h))
    canvas = np.clip(np.array((150, 170, 160), np.float32) + 12 * noise[:, :, None], 0, 255).astype(np.uint8)
    centres_mm = np.array([[0, 0], [area_mm[0], 0], [area_mm[0], area_mm[1]], [0, area_mm[1]]]) + margin
    side = int(round(marker_mm * PX_PER_MM))
    for marker_id, (cx, cy) in zip(ids, centres_mm, strict=True):
        printed = marker_image(marker_id, side)  # the marker is `side` px, plus a white margin
        x0 = int(round(cx * PX_PER_MM - printed.shape[1] / 2))
        y0 = int(round(cy * PX_PER_MM - printed.shape[0] / 2))
        canvas[y0:y0 + printed.shape[0], x0:x0 + printed.shape[1]] = printed[:, :, None]
    corners = np.float32([[70, 60], [1580, 45], [1555, 1185], [95, 1165]]) + rng.uniform(-15, 15, (4, 2))
    edges = np.float32([[-0.5, -0.5], [canvas_w - 0.5, -0.5], [canvas_w - 0.5, canvas_h - 0.5], [-0.5, canvas_h - 0.5]])
    matrix = cv2.getPerspectiveTransform(edges, corners.astype(np.float32))
    image = cv2.warpPerspective(canvas, matrix, (IMG_W, IMG_H), borderValue=(90, 90, 90))
    truth = cv2.perspectiveTransform((centres_mm * PX_PER_MM - 0.5).reshape(-1, 1, 2).astype(np.float32),
                                     matrix).reshape(4, 2)
    if cover is not None:
        x, y = truth[cover].astype(int)
        cv2.circle(image, (int(x), int(y)), 60, (120, 160, 215), -1)  # a hand over one marker
    return image, truth


def test_from_markers_corners_and_size():
    image, truth = marker_scene(1)
    cal = from_markers(image, marker_mm=40.0)
    assert np.max(np.linalg.norm(np.array(cal.corners) - truth, axis=1)) < 0.5
    assert cal.size_mm[0] == pytest.approx(700.0, rel=0.01)
    assert cal.size_mm[1] == pytest.approx(450.0, rel=0.01)
    assert cal.method == "markers" and cal.details["size_estimated"]
    given = from_markers(image, size_mm=(700, 450))
    assert given.size_mm == (700.0, 450.0) and not given.details["size_estimated"]


def test_from_markers_failures():
    covered, _ = marker_scene(2, cover=2)
    with pytest.raises(CalibrationError, match=r"corner markers 2 not found \(seen: 0, 1, 3\)"):
        from_markers(covered)
    swapped, _ = marker_scene(3, ids=(0, 3, 2, 1))  # laid mirrored
    with pytest.raises(CalibrationError, match="not in order"):
        from_markers(swapped)
    with pytest.raises(CalibrationError, match="four different marker ids"):
        from_markers(swapped, ids=(0, 0, 1, 2))
    with pytest.raises(CalibrationError, match="unknown ArUco dictionary"):
        from_markers(swapped, dictionary="DICT_NOPE")


# --------------------------------------------------------------------------- tapped corners


def test_from_corners_orders_taps_and_keeps_the_first_as_top_left():
    image, truth = board_scene(10)
    tl, tr, br, bl = order_corners(truth)
    cal = from_corners([tr, bl, br, tl], BOARD_MM, image)  # tapped starting top-right, in a zigzag
    assert np.allclose(cal.corners, [tr, br, bl, tl])
    assert np.allclose(cal.image_to_table([tr])[0], [0, 0], atol=1e-6)
    plain = from_corners([tl, tr, br, bl], BOARD_MM, image_size=(IMG_W, IMG_H))
    assert plain.reference is None and np.allclose(plain.corners, [tl, tr, br, bl])


@pytest.mark.parametrize(("points", "message"), [
    ([[10, 10], [100, 10], [100, 100]], "four corners"),
    ([[10, 10], [900, 10], [900, 700], [10, 2000]], "corner 4 .* outside"),
    ([[10, 10], [12, 12], [900, 700], [10, 700]], "proper quadrilateral"),
    ([[10, 10], [40, 10], [40, 40], [10, 40]], "too small"),
])
def test_from_corners_failures(points, message):
    with pytest.raises(CalibrationError, match=message):
        from_corners(points, BOARD_MM, image_size=(IMG_W, IMG_H))


# --------------------------------------------------------------------------- JSON


def test_json_round_trip_and_file(tmp_path):
    image, _ = board_scene(11)
    cal = find_board(image, BOARD_MM)
    again = Calibration.from_json(json.loads(json.dumps(cal.to_json())))
    assert again == cal  # homography, sizes, corners, method
    assert np.array_equal(again.reference.descriptors, cal.reference.descriptors)
    assert np.allclose(again.reference.points, cal.reference.points, atol=0.01)
    path = tmp_path / "sub" / "calibration.json"
    cal.save(path)
    loaded = Calibration.load(path)
    assert loaded == cal and not camera_moved(loaded, image)
    assert [p.name for p in path.parent.iterdir()] == ["calibration.json"]  # no temporary left behind


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda d: d.pop("homography"), "key 'homography' missing"),
    (lambda d: d.update(corners=[[0, 0]]), "'corners' must be 4 x 2 numbers"),
    (lambda d: d.update(method="guess"), "'method' must be one of"),
    (lambda d: d.update(version=99), "unsupported version"),
    (lambda d: d.update(size_mm=[0, 10]), "must be positive"),
    (lambda d: d.update(reference={"scale": 1, "points": [[1, 2]], "descriptors": "!!"}), "'reference' is damaged"),
])
def test_damaged_calibration_json_is_refused(mutate, message):
    data = from_corners([[10, 10], [900, 10], [900, 700], [10, 700]], BOARD_MM, image_size=(IMG_W, IMG_H)).to_json()
    mutate(data)
    with pytest.raises(CalibrationError, match=message):
        Calibration.from_json(data)


def test_load_errors_name_the_file(tmp_path):
    bad = tmp_path / "cal.json"
    bad.write_text("{not json")
    with pytest.raises(CalibrationError, match="cal.json: not a calibration file"):
        Calibration.load(bad)
    with pytest.raises(VisionError, match="missing.json"):
        Calibration.load(tmp_path / "missing.json")


# --------------------------------------------------------------------------- camera moved


def shifted(image: np.ndarray, dx: float, dy: float, angle: float = 0.0) -> np.ndarray:
    matrix = cv2.getRotationMatrix2D((IMG_W / 2, IMG_H / 2), angle, 1.0)
    matrix[:, 2] += (dx, dy)
    return cv2.warpAffine(image, matrix, (IMG_W, IMG_H), borderMode=cv2.BORDER_REFLECT)


def test_camera_moved_detects_a_shift_but_not_cards_or_hands():
    image, quad = board_scene(12)
    cal = find_board(image, BOARD_MM)
    steady = check_camera(cal, image)
    assert not steady.moved and steady.shift_px < 1.0 and steady.inliers > 50
    for moved_view in (shifted(image, 14, -6), shifted(image, 0, 0, angle=1.2)):
        result = check_camera(cal, moved_view)
        assert result.moved and result.shift_px > 8, result
        assert camera_moved(cal, moved_view)
    busy = image.copy()
    add_cards(busy, quad, np.random.default_rng(1), 8)
    cv2.fillPoly(busy, [np.int32([[700, 1232], [760, 800], [900, 760], [960, 1232]])], (120, 160, 215))  # an arm
    result = check_camera(cal, busy)
    assert not result.moved and result.shift_px < 2.0, result
    covered = np.full_like(image, 128)
    assert check_camera(cal, covered).moved  # nothing matches any more: treat as moved
    assert check_camera(cal, cv2.resize(image, (820, 616))).moved


def test_camera_check_without_reference_cannot_tell():
    cal = from_corners([[10, 10], [900, 10], [900, 700], [10, 700]], BOARD_MM, image_size=(IMG_W, IMG_H))
    result = check_camera(cal, np.zeros((IMG_H, IMG_W, 3), np.uint8))
    assert not result.moved and "cannot check" in result.reason


# --------------------------------------------------------------------------- top-down views


def test_warp_board_gives_the_canonical_view():
    image, _ = board_scene(13)
    cal = find_board(image, BOARD_MM)
    top = warp_board(image, cal, px_per_mm=PX_PER_MM)
    assert top.shape == (600, 1000, 3)
    canvas = board_canvas()
    flipped = canvas[::-1, ::-1]  # the outline cannot tell the board from its half-turn
    error = min(np.mean(np.abs(top.astype(int) - c.astype(int))) for c in (canvas, flipped))
    assert error < 12  # same picture, up to resampling and noise
    matrix, size = board_transform(cal, px_per_mm=1.0, margin_mm=10)
    assert size == (520, 320)
    corner = cv2.perspectiveTransform(np.array([[cal.corners[0]]], np.float64), matrix)[0, 0]
    assert np.allclose(corner, [10, 10], atol=1e-6)


def test_rotated_turns_the_corner_order():
    cal = from_corners([[10, 10], [900, 10], [900, 700], [10, 700]], BOARD_MM, image_size=(IMG_W, IMG_H))
    quarter = cal.rotated(1)
    assert quarter.corners[0] == cal.corners[1] and quarter.size_mm == (300.0, 500.0)
    assert cal.rotated(4) == cal
    assert np.allclose(cal.rotated(2).image_to_table([cal.corners[2]])[0], [0, 0], atol=1e-6)
