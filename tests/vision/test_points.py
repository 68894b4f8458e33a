"""The index point finder's targets (`vision.train.points`) and their decoding into card outlines
(`detect.decode_index_points`): what the network is taught, decoded, gives back the cards."""

from __future__ import annotations

import numpy as np
import pytest

from vision.detect import NetOutput, decode_index_points
from vision.train.points import SEEN, index_points, point_targets

TL_BR = [[0.04, 0.03, 0.28, 0.21], [0.72, 0.79, 0.96, 0.97]]  # a design's index boxes (face fractions)
W, H = 100.0, 150.0  # card size, image pixels


def card(cx: float, cy: float, deg: float, indices=TL_BR) -> dict:
    """A card item as `scenes.item_outlines` writes it: its face's corners TL, TR, BR, BL."""
    t = np.radians(deg)
    u, v = np.array([np.cos(t), np.sin(t)]), np.array([-np.sin(t), np.cos(t)])
    c = np.array([cx, cy])
    q = [c - W / 2 * u - H / 2 * v, c + W / 2 * u - H / 2 * v, c + W / 2 * u + H / 2 * v, c - W / 2 * u + H / 2 * v]
    return {"obj": "card", "corners": [list(map(float, p)) for p in q], "indices": indices}


def maps_of(items: list[dict], shape=(600, 800), s: float = 0.5) -> NetOutput:
    """The network's maps as the targets teach them (heat as a logit)."""
    t = point_targets(index_points(items, None, shape), s, (int(shape[0] * s) // 2, int(shape[1] * s) // 2))
    heat = np.clip(t[0], 1e-4, 1 - 1e-4)
    maps = np.concatenate([np.log(heat / (1 - heat))[None], t[1:7]]).astype(np.float32)
    return NetOutput(maps=maps, scale=s, offset=(0, 0))


def centre(q) -> np.ndarray:
    return np.mean(np.asarray(q, np.float64), axis=0)


def test_a_covered_index_is_not_in_view_and_the_turned_one_points_down():
    under, over = card(300, 300, 0), card(260, 250, 0)  # `over` covers the top left of `under`
    pts = index_points([under, over], None, (600, 800))
    seen = [p["seen"] for p in pts]
    assert seen[0] < 0.1 and seen[1] == pytest.approx(1.0) and seen[2:] == [pytest.approx(1.0)] * 2
    assert np.allclose(pts[0]["up"], [0, -1]) and np.allclose(pts[1]["up"], [0, 1])  # the bottom index is turned
    assert np.allclose(pts[1]["centre"], [300, 300])


def test_targets_peak_at_each_index_in_view_and_point_at_its_card():
    c = card(400, 300, 30)
    s = 0.5
    t = point_targets(index_points([c], None, (600, 800)), s, (150, 200))
    peaks = np.argwhere(t[0] >= 0.999)
    assert len(peaks) == 2
    for y, x in peaks:
        target = ((np.array([400.0, 300.0]) + 0.5) * s - 1) / 2  # the card's centre on the output grid
        assert np.allclose([x, y] + t[1:3, y, x] * 16, target, atol=1e-4)
        assert np.hypot(*t[3:5, y, x]) == pytest.approx(1.0)
    ups = [t[3:5, y, x] for y, x in peaks]
    assert ups[0] @ ups[1] == pytest.approx(-1.0, abs=1e-5)  # the two indices stand opposite


def test_a_partly_covered_index_is_taught_neither_way():
    under = card(300, 300, 0)
    over = card(300 + W * 0.88, 300, 0)  # covers half of the bottom right index
    pts = index_points([under, over], None, (600, 800))
    partial = [p for p in pts if 0.3 <= p["seen"] < SEEN]
    assert len(partial) == 1
    t = point_targets(pts, 0.5, (150, 200))
    px, py = np.round(((partial[0]["at"] + 0.5) * 0.5 - 1) / 2).astype(int)
    assert t[7, py, px] == 0.0  # no weight where it lies


@pytest.mark.parametrize("deg", [0.0, 37.0, 90.0, 200.0])
def test_decoded_targets_give_back_each_card(deg):
    items = [card(250, 250, deg), card(550, 330, deg + 60)]
    dets = decode_index_points(maps_of(items), 800, 600, W, H / W)
    assert len(dets) == 2
    for it in items:
        d = min(dets, key=lambda d: np.linalg.norm(centre(d.quad) - centre(it["corners"])))
        assert np.linalg.norm(centre(d.quad) - centre(it["corners"])) < 3
        # both indices in view: one outline, upright as the card or turned half a turn
        assert d.visible == {"centre": 0.0, "index0": 1.0, "index2": 1.0} and d.index_at is None
        q = np.asarray(it["corners"])
        assert min(np.abs(d.quad - q).max(), np.abs(d.quad - np.roll(q, 2, axis=0)).max()) < 4


def test_a_card_showing_only_its_bottom_index_is_read_turned():
    under, over = card(300, 300, 0), card(260, 250, 0)
    dets = decode_index_points(maps_of([under, over]), 800, 600, W, H / W)
    d = min(dets, key=lambda d: np.linalg.norm(centre(d.quad) - [300, 300]))
    assert np.linalg.norm(centre(d.quad) - [300, 300]) < 3
    assert d.visible["index0"] == 1.0 and d.visible["index2"] == 0.0
    q = np.asarray(under["corners"])
    assert np.abs(d.quad - np.roll(q, 2, axis=0)).max() < 4  # its top left is the card's bottom right
    assert np.linalg.norm(np.subtract(d.index_at, [300 + 0.34 * W, 300 + 0.38 * H])) < 4


def test_a_tight_fan_gives_every_card():
    # Each card a fifth of a width right of the one under it (a narrow index shows whole):
    # centres crowd, indices do not.
    narrow = [[0.02, 0.025, 0.175, 0.18], [0.825, 0.82, 0.98, 0.975]]
    items = [card(200 + 0.2 * W * k, 300, 0, narrow) for k in range(6)]
    dets = decode_index_points(maps_of(items), 800, 600, W, H / W)
    found = sorted(round(float(centre(d.quad)[0])) for d in dets)
    assert len(found) == 6
    assert np.allclose(found, [200 + 20 * k for k in range(6)], atol=3)


def test_indices_printed_at_the_top_right_alone_place_no_outline():
    tr = [[0.72, 0.03, 0.96, 0.21]]  # a design whose only index in view is the top right one
    dets = decode_index_points(maps_of([card(300, 300, 0, tr)]), 800, 600, W, H / W)
    assert dets == []


def test_what_a_finder_marks_comes_with_its_model(tmp_path):
    import shutil

    from vision.classify import MODELS_DIR
    from vision.detect import Detector

    shutil.copy(MODELS_DIR / "cardindex.onnx", tmp_path / "cardindex.onnx")
    assert Detector("cardindex", models_dir=tmp_path).faces == "card"  # no sidecar: a card detector
    assert Detector("cardindex").faces == "index"  # the shipped finder: index pixels voting for centres
    (tmp_path / "cardindex.json").write_text('{"target_width": 72, "faces": "points"}')
    assert Detector("cardindex", models_dir=tmp_path).faces == "points"  # decoded by `decode_index_points`
