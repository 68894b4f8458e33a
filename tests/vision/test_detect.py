"""Card outlines: the geometry of the detector's decoding, windows, and an empty table.

The per-condition recall test is kept on the `wip-vision` branch: the shipped detector does not
pass it yet (the benchmark `benchmarks/vision_accuracy.py --conditions` prints where it stands).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detect import Detector, decode, full_to_out, out_to_full, shrink
from vision.render import render
from vision.train.evaluate import FULL, condition_scene, visible_truth


@pytest.fixture(scope="module")
def detector() -> Detector:
    return Detector()


def _match(truth_cards, dets, tol=0.33):
    found, corner_err = 0, []
    used = set()
    for t in truth_cards:
        q = np.asarray(t["corners"], float)
        c = q.mean(axis=0)
        w = np.linalg.norm(q[1] - q[0])
        best, bd = None, tol * w
        for j, d in enumerate(dets):
            dd = float(np.linalg.norm(np.asarray(d.centre) - c))
            if j not in used and dd < bd:
                best, bd = j, dd
        if best is None:
            continue
        used.add(best)
        found += 1
        dq = dets[best].quad
        err = min(np.linalg.norm(np.roll(dq, -k, axis=0) - q, axis=1).max() for k in (0, 2))
        if not t.get("occluded"):  # a hidden half is inferred from the card size; judge visible cards
            corner_err.append(err / w)
    return found, corner_err


_SHOTS: dict = {}


def _shot(game, condition, seed):
    key = (game, condition, seed)
    if key not in _SHOTS:
        _SHOTS[key] = render(condition_scene(game, condition, seed))
    return _SHOTS[key]


def test_empty_table_has_no_cards(detector):
    rng = np.random.default_rng(0)
    img = np.clip(rng.normal(110, 8, (616, 820, 3)), 0, 255).astype(np.uint8)
    dets, width = detector.detect(img)
    assert dets == [] and width is None


def test_a_changed_region_is_read_alone(detector):
    image, truth = _shot("elfer-raus", "plain", 4)
    dets, width = detector.detect(image)
    t = next(c for c in visible_truth(truth) if not c.get("occluded"))  # a card in full view
    q = np.asarray(t["corners"])
    x0, y0 = (q.min(axis=0) - 5).astype(int)
    x1, y1 = (q.max(axis=0) + 5).astype(int)
    sub, _ = detector.detect(image, width, window=(max(0, x0 - 120), max(0, y0 - 120), x1 + 120, y1 + 120))
    near = [d for d in sub if x0 <= d.centre[0] < x1 and y0 <= d.centre[1] < y1]
    assert len(near) == 1
    assert np.linalg.norm(np.asarray(near[0].centre) - q.mean(axis=0)) < 0.15 * np.linalg.norm(q[1] - q[0])


@pytest.mark.parametrize("size", [(1640, 1232), (1641, 1233), (700, 500)])
@pytest.mark.parametrize("s", [0.23, 0.31, 0.45, 0.7])
def test_the_reduction_keeps_shapes_where_they_are(size, s):
    """The detector's fast reduction (`shrink`) puts a shape where `full_to_out`'s pixel
    convention says it lies, and looks like OpenCV's area averaging (what the detector first
    learnt on), whatever the photo's size and the factor."""
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    x0, y0, x1, y1 = int(0.3 * w), int(0.4 * h), int(0.55 * w), int(0.7 * h)
    img[y0:y1, x0:x1] = 255
    W, H = round(w * s), round(h * s)
    small = shrink(img, W, H)
    assert small.shape == (H, W, 3)
    area = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
    assert np.abs(small.astype(float) - area).mean() < 1.0
    lum = small[..., 1].astype(float)
    ys, xs = np.mgrid[0:H, 0:W]
    centre = np.array([(xs * lum).sum(), (ys * lum).sum()]) / lum.sum()  # input pixels
    true = np.array([(x0 + x1 - 1) / 2, (y0 + y1 - 1) / 2])
    expected = (true + 0.5) * np.array([W / w, H / h]) - 0.5
    assert np.abs(centre - expected).max() < 0.25


def test_coordinate_conversions_round_trip():
    p = np.array([[0.0, 0.0], [100.5, 37.25], [1639.0, 1231.0]])
    for s in (0.2, 0.37, 1.0):
        assert np.allclose(out_to_full(full_to_out(p, s), s), p)


def test_decode_splits_two_touching_cards():
    """Synthetic network output: two cards side by side, each pixel voting for its own centre."""
    from vision.detect import OFFSET_SCALE, NetOutput

    h, w = 40, 60
    maps = np.zeros((7, h, w), np.float32)
    maps[0] = -10
    centres = []
    for x0 in (11, 29):  # 18 pixels wide each, touching
        x1 = x0 + 18
        cx = (x0 + x1 - 1) / 2
        centres.append([cx, 19.0])
        ys, xs = np.mgrid[6:33, x0:x1]
        maps[0][ys, xs] = 10
        maps[1][ys, xs] = (cx - xs) / OFFSET_SCALE
        maps[2][ys, xs] = (19.0 - ys) / OFFSET_SCALE
        maps[3][ys, xs] = -1.0  # cos 2θ with θ = 90°: long side vertical
        maps[5][ys, xs] = np.log(18 / OFFSET_SCALE)
        maps[6][ys, xs] = np.log(27 / OFFSET_SCALE)
    dets = decode(NetOutput(maps, 0.5, (0, 0)), 240, 160)
    assert len(dets) == 2
    xs_full = sorted(d.centre[0] for d in dets)
    assert np.allclose(xs_full, sorted(out_to_full(np.array(centres), 0.5)[:, 0]), atol=1.0)
    for d in dets:
        assert abs(d.angle - 90) < 1 and d.visible["centre"] > 0.9


def test_decode_splits_the_narrow_strips_of_a_tight_overlapping_row():
    """Synthetic network output: five cards overlapping in a row, each showing a strip
    a sixth of a card wide and the last one whole; every visible pixel votes for its own card's
    centre. Vote peaks this close are five cards (at a peak span of 0.3 card widths two of them
    made one outline)."""
    from vision.detect import OFFSET_SCALE, NetOutput

    h, w, cw, ch, pitch = 60, 90, 24, 36, 4
    maps = np.zeros((7, h, w), np.float32)
    maps[0] = -10
    centres = []
    for k in range(5):
        x0 = 20 + k * pitch
        cx = x0 + (cw - 1) / 2
        centres.append([cx, 29.5])
        x1 = x0 + (pitch if k < 4 else cw)  # the next card covers the rest of this one
        ys, xs = np.mgrid[12:48, x0:x1]
        maps[0][ys, xs] = 10
        maps[1][ys, xs] = (cx - xs) / OFFSET_SCALE
        maps[2][ys, xs] = (29.5 - ys) / OFFSET_SCALE
        maps[3][ys, xs] = -1.0  # long side vertical
        maps[5][ys, xs] = np.log(cw / OFFSET_SCALE)
        maps[6][ys, xs] = np.log(ch / OFFSET_SCALE)
    dets = decode(NetOutput(maps, 0.5, (0, 0)), 4 * w, 4 * h)
    assert len(dets) == 5
    got = sorted(d.centre[0] for d in dets)
    assert np.allclose(got, out_to_full(np.array(centres), 0.5)[:, 0], atol=2.0)


def test_large_input_runs_in_tiles_with_the_same_maps(detector, monkeypatch):
    """Small cards need a strong enlargement; the network then runs in tiles (bounded memory)
    whose margins cover its receptive field, so the maps equal one run over the whole input."""
    image, _truth = render(condition_scene("elfer-raus", "plain", 11, size=FULL))
    whole = detector.run(image, 0.5).maps
    monkeypatch.setattr(detector, "max_input", 250_000)  # the input (820×616) needs several tiles
    calls = []
    real = detector._net_maps
    monkeypatch.setattr(detector, "_net_maps", lambda x: calls.append(x.shape) or real(x))
    tiled = detector.run(image, 0.5).maps
    assert len(calls) >= 4
    assert max(h * w for h, w, _ in calls) <= 250_000
    assert tiled.shape == whole.shape
    np.testing.assert_allclose(tiled, whole, atol=1e-3)


def test_the_card_size_the_detector_reads_best_comes_with_its_model(tmp_path):
    import shutil

    from vision.classify import MODELS_DIR, ModelError
    from vision.detect import TARGET_WIDTH

    shutil.copy(MODELS_DIR / "cardnet.onnx", tmp_path / "cardnet.onnx")
    assert Detector(models_dir=tmp_path).target_width == TARGET_WIDTH  # no sidecar: the default
    (tmp_path / "cardnet.json").write_text('{"target_width": 48}')
    assert Detector(models_dir=tmp_path).target_width == 48.0
    assert Detector(models_dir=tmp_path, target_width=40).target_width == 40.0
    (tmp_path / "cardnet.json").write_text('{"target_width": "wide"}')
    with pytest.raises(ModelError, match="cardnet.json"):
        Detector(models_dir=tmp_path)
    assert Detector().face_bleed[0] > 1.0  # the shipped model's face map runs over card edges
    (tmp_path / "cardnet.json").write_text('{"target_width": 48, "face_bleed": [2.5, 3.0]}')
    assert Detector(models_dir=tmp_path).face_bleed == (2.5, 3.0)
    (tmp_path / "cardnet.json").write_text('{"target_width": 48, "face_bleed": [2.5]}')
    with pytest.raises(ModelError, match="face_bleed"):
        Detector(models_dir=tmp_path)


def test_a_card_seen_whole_is_its_face_pixels_less_the_bleed_over_its_edges():
    """The face map of a card 18 × 27 output pixels wide, bleeding 2 pixels past its edges."""
    from vision.detect import OFFSET_SCALE, NetOutput

    maps = np.zeros((7, 50, 50), np.float32)
    maps[0] = -10
    ys, xs = np.mgrid[10:41, 15:37]  # 22 × 31 face pixels, centre (25.5, 25)
    maps[0][ys, xs] = 10
    maps[1][ys, xs] = (25.5 - xs) / OFFSET_SCALE
    maps[2][ys, xs] = (25.0 - ys) / OFFSET_SCALE
    maps[3][ys, xs] = -1.0
    maps[5][ys, xs] = np.log(18 / OFFSET_SCALE)
    maps[6][ys, xs] = np.log(27 / OFFSET_SCALE)
    out = NetOutput(maps, 0.5, (0, 0))
    (raw,) = decode(out, 200, 200)
    (card,) = decode(out, 200, 200, face_bleed=(4.0, 4.0))
    assert raw.size == pytest.approx((4 * 22, 4 * 31), abs=0.5)  # image pixels: 2 / scale 0.5 per output pixel
    assert card.size == pytest.approx((4 * 18, 4 * 27), abs=0.5)
    assert card.centre == pytest.approx(raw.centre)


def test_a_hidden_card_lies_like_its_whole_neighbour_in_a_row():
    """The network's direction on a narrow visible strip is rough; a whole card beside it lying
    nearly the same way gives the row's direction. Cards turned well apart keep their own."""
    import math

    from vision.detect import _aligned_with_neighbour

    whole = [(np.array([100.0, 50.0]), math.radians(95.0))]
    strip = _aligned_with_neighbour(np.array([108.0, 50.0]), math.radians(88.0), whole, 26.0)
    loose = _aligned_with_neighbour(np.array([95.0, 60.0]), math.radians(140.0), whole, 26.0)
    far = _aligned_with_neighbour(np.array([300.0, 50.0]), math.radians(90.0), whole, 26.0)
    assert math.degrees(strip) == pytest.approx(95.0)
    assert math.degrees(loose) == pytest.approx(140.0)
    assert math.degrees(far) == pytest.approx(90.0)
    assert _aligned_with_neighbour(np.array([108.0, 50.0]), math.radians(88.0), [], 26.0) == math.radians(88.0)


@pytest.mark.parametrize("deg", [30.0, 62.0, 118.0, 165.0])
def test_a_partly_hidden_card_lies_along_its_free_edges(deg):
    """A visible strip of a turned card: its edges against the table give its direction, even
    where the network's direction says only "more across than along" (its sin 2θ was dead)."""
    import math

    import cv2

    from vision.detect import _EdgeField

    logits = np.full((80, 80), -8.0, np.float32)
    th = math.radians(deg)
    v, u = np.array([math.cos(th), math.sin(th)]), np.array([math.sin(th), -math.cos(th)])
    c = np.array([40.0, 40.0])
    strip = np.array([c - 5 * u - 16 * v, c + 5 * u - 16 * v, c + 5 * u + 16 * v, c - 5 * u + 16 * v])
    mask = np.zeros((80 * 8, 80 * 8), np.uint8)
    cv2.fillConvexPoly(mask, np.round(strip * 8).astype(np.int32), 1)
    inside = cv2.resize(mask.astype(np.float32), (80, 80), interpolation=cv2.INTER_AREA)
    logits = np.where(inside > 0.5, 8.0, logits).astype(np.float32)
    ys, xs = np.nonzero(inside > 0.5)
    c2 = math.cos(2 * th)  # the network's cos 2θ is right, its sin 2θ says 0
    found = math.degrees(_EdgeField(logits).direction(xs, ys, c2, 0.0))
    assert abs((found - deg + 90) % 180 - 90) < 4.0


def test_a_hidden_card_is_placed_half_a_card_in_from_its_free_edges():
    """A strip of a card 18 × 27 output pixels, the rest under a card on its right. Its free left
    edge and its top and bottom edges place it, the voted centre being a little off. With
    another card's strip beyond its left edge too, which side is its own edge is unknown: the
    vote stays across, the top and bottom still place it down the card."""
    import math

    from vision.detect import _placed_by_free_edges

    face = np.zeros((60, 50), bool)
    face[17:44, 11:17] = True  # the hidden card's strip: card pixels x 11..28, y 17..43 (centre 19.5, 30)
    face[17:44, 17:35] = True  # the card lying over it
    ys, xs = np.nonzero(face[:, :17])
    vote = (np.array([21.5, 28.0]), math.pi / 2, 18.0, 27.0, False)  # off by 0.11 widths, 0.07 heights
    placed = _placed_by_free_edges(vote, xs, ys, face, (0.0, 0.0))
    assert placed[0] == pytest.approx([19.5, 30.0], abs=0.01)
    assert placed[1:] == vote[1:]

    face[17:44, 3:11] = True  # a card under it on the left
    placed = _placed_by_free_edges(vote, xs, ys, face, (0.0, 0.0))
    assert placed[0] == pytest.approx([21.5, 30.0], abs=0.01)

    far = (np.array([25.0, 30.0]), math.pi / 2, 18.0, 27.0, False)  # 0.3 widths off: not trusted
    face[17:44, 3:11] = False
    assert _placed_by_free_edges(far, xs, ys, face, (0.0, 0.0))[0] == pytest.approx([25.0, 30.0])


@pytest.mark.parametrize("seed,view_mm", [(3, 1100), (4, 1100), (4, 1400)])
def test_the_card_size_is_not_taken_from_marble_veins(seed, view_mm):
    """Cards 65–90 pixels wide on marble: at the strongest first reduction the cards are too
    small to see, but the veins look like faces of cards two to four times larger. The size is
    taken from cards seen whole, and such a pass has none."""
    from vision.pipeline import Recognizer
    from vision.render.table import random_table

    marble = random_table(np.random.default_rng(seed), "holdout", "marble")
    image, truth = render(condition_scene("elevens", "plain", seed, size=FULL, table=marble, view_w_mm=view_mm))
    widths = [np.linalg.norm(np.subtract(t["corners"][1], t["corners"][0])) for t in visible_truth(truth)
              if not t.get("occluded")]
    rec = Recognizer("elevens")
    rec.detect(image)
    assert rec.card_width is not None
    assert abs(rec.card_width / float(np.median(widths)) - 1) < 0.25


# Train-pool tables (benchmark seeds 7500, 7000 and 8000) of large cards, 200-250 pixels wide, where
# every card overlaps another: no first pass sees a card whole, and a milder one took the corner
# indices, printed in boxes, for whole cards a quarter of their size. 8000 #113 is a heap at the
# picture's border whose most whole middle shows 0.78 (`VOUCH_CENTRE`): read at a third of its
# card size before stop 43, and none of its cards was read.
LARGE_OVERLAPPING = [(7500, 9, "elevens"), (7500, 24, "elfer-raus"), (7500, 70, "11-nimmt"),
                     (7000, 46, "11-nimmt"), (7000, 60, "elfer-raus"), (8000, 113, "elevens")]


def test_large_cards_none_seen_whole_are_not_taken_for_their_indices(monkeypatch):
    """The strongest first pass sees these cards at a size it reads well, none of them whole;
    their middles read as cards, which vouches for that pass. Without that, some of these
    tables are read at the size of the indices: three of five with the detector of stop 19, one
    (7500 #9) with the one retrained at stop 22, which less often takes indices for whole cards at
    a mild pass, so the check asks for one."""
    import vision.pipeline as pipeline
    from vision.render import random_scene

    read, unvouched = [], []
    for seed, k, game in LARGE_OVERLAPPING:
        rng = np.random.default_rng([seed, k])
        loose = rng.random() < 0.2  # as benchmarks/vision_accuracy.py draws a loose spread
        scene = random_scene(game, rng, "train", hand=False, **({"mode": "count"} if loose else {}))
        image, truth = render(scene)
        width = float(np.median([np.linalg.norm(np.subtract(t["corners"][1], t["corners"][0]))
                                 for t in visible_truth(truth)]))
        rec = pipeline.Recognizer(game)
        rec.detect(image)
        read.append((rec.card_width or 0.0) / width)
        with monkeypatch.context() as m:
            m.setattr(pipeline, "MIDDLE_IS_CARD", 2.0)  # no pass vouched for by its middles
            rec.forget()
            rec.detect(image)
            unvouched.append((rec.card_width or 0.0) / width)
    assert all(abs(r - 1) < 0.25 for r in read), read
    assert sum(r < 0.5 for r in unvouched) >= 1, unvouched  # the indices' size, as before


def test_a_card_cut_by_the_pictures_border_is_not_read():
    """An outline reaching past the picture's border is not read (the card is cut; the renderer's
    truth lists it apart): a card 3 % of its width past the border is out, one just inside is in."""
    from vision.detect import within_picture

    q = np.array([[10.0, 100.0], [110.0, 100.0], [110.0, 250.0], [10.0, 250.0]])
    assert within_picture(q, 100.0, 640, 480)
    assert not within_picture(q - [13.0, 0.0], 100.0, 640, 480)
    assert not within_picture(q + [0.0, 233.0], 100.0, 640, 480)


def _whole(x: float, y: float, w: float, h: float, seen: float = 1.0):
    """A card seen whole (or, `seen` < 1, partly hidden) with its top-left corner at x, y."""
    from vision.detect import Detection

    q = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]])
    return Detection(quad=q, centre=(x + w / 2, y + h / 2), angle=90.0, size=(w, h), face=1.0, pixels=100,
                     visible={"centre": seen, "index0": 1.0, "index2": 1.0})


def test_a_card_seen_whole_but_short_across_the_border_runs_past_it():
    """The face map stops at the picture's border: a card cut by it is outlined a few pixels
    inside, shorter across the border than its width and the deck's shape (1.5) say. Such a card
    is not inside the picture; one of its full length as near the border is, as is one short
    along the border (it is not cut that way), and a partly hidden card is not judged."""
    from vision.detect import cut_by_border

    clear = [_whole(100, 100, 100, 150), _whole(250, 100, 100, 150)]
    cut = _whole(100, 475 - 135, 100, 135)  # 5 px above the bottom border (479), 10 % short
    full = _whole(250, 475 - 148, 100, 148)
    side = _whole(640 - 1 - 5 - 90, 200, 90, 150)  # at the right border, narrow: cut
    along = _whole(400, 475 - 150, 92, 150)  # at the bottom border, narrow along it: not cut
    hidden = _whole(520, 475 - 120, 100, 120, seen=0.3)
    dets, aspect = cut_by_border([*clear, cut, full, side, along, hidden], 640, 480)
    assert aspect == pytest.approx(1.5)
    assert [d.inside for d in dets] == [True, True, False, True, False, True, True]
    # 6 % short runs past it too (cards lying wholly inside measure at least 0.946); 4 % does not.
    dets, _aspect = cut_by_border([*clear, _whole(100, 475 - 141, 100, 141), _whole(250, 475 - 144, 100, 144)],
                                  640, 480)
    assert [d.inside for d in dets] == [True, True, False, True]
    # No card clear of the border to measure the deck by: the shape measured before is used.
    dets, kept = cut_by_border([cut, full], 640, 480, aspect=1.5)
    assert kept == 1.5 and [d.inside for d in dets] == [False, True]
    dets, none = cut_by_border([cut, full], 640, 480)
    assert none is None and all(d.inside for d in dets)


def test_hidden_cards_far_from_a_focus_are_placed_only_if_they_may_cover_a_fragment(monkeypatch):
    """A region read again outlines only the cards centred in it: partly hidden cards whose
    voted centre lies beyond any move of their free edges from it are placed only when they
    might cover a fragment. The outlines are the same as when every card is placed."""
    import vision.detect as det
    from vision.pipeline import Recognizer
    from vision.render import random_scene

    scene = random_scene("elfer-raus", np.random.default_rng([7000, 8]), "holdout", mode="overlap", rows=3,
                         hand=False)
    image, truth = render(scene)
    rec = Recognizer("elfer-raus")
    rec.read(image)
    h, w = image.shape[:2]
    placed = []
    real = det._placed_by_free_edges
    monkeypatch.setattr(det, "_placed_by_free_edges", lambda *a: placed.append(1) or real(*a))

    def outlines(margin: float) -> tuple[list, int]:
        monkeypatch.setattr(det, "FAR_MARGIN", margin)
        placed.clear()
        got = []
        for t in truth["cards"][::2]:
            q = np.asarray(t["corners"])
            x0, y0 = (q.min(axis=0) - 10).astype(int)
            x1, y1 = (q.max(axis=0) + 10).astype(int)
            pad = int(1.2 * rec.card_width)
            win = (max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad))
            dets, _ = rec.detector.detect(image, rec.card_width, window=win, focus=(x0, y0, x1, y1))
            got.append([(np.round(d.quad, 9).tolist(), d.visible, d.grid.tolist()) for d in dets])
        return got, len(placed)

    lazy, n_lazy = outlines(det.FAR_MARGIN)
    every, n_every = outlines(1e9)
    assert sum(map(len, lazy)) >= 8
    assert lazy == every
    assert n_lazy < 0.7 * n_every


def test_fragments_sorted_out_among_the_wanted_cards_as_among_all():
    """A region read sorts out fragments only among the cards it outlines and those large
    enough to cover one of them: for those cards the verdict is the one made among all."""
    import math

    from vision.detect import _axes, _without_fragments

    rng = np.random.default_rng(11)
    for _ in range(40):
        frames, own = [], []
        for _k in range(int(rng.integers(4, 25))):
            w = float(rng.uniform(3, 30))
            c = rng.uniform(0, 60, 2)
            u, v = _axes(float(rng.uniform(0, math.pi)))
            frames.append((c, u, v, w, 1.4 * w))
            a = rng.uniform(-0.5, 0.5, (int(w * w * rng.uniform(0.2, 1.4)) + 1, 2))
            pts = c + a[:, :1] * w * u + a[:, 1:] * 1.4 * w * v
            own.append((pts[:, 0], pts[:, 1]))
        pixels = [len(x) for x, _y in own]
        every = _without_fragments(pixels, own, frames.__getitem__)
        outlined = {int(i) for i in rng.choice(len(pixels), int(rng.integers(1, len(pixels) + 1)), replace=False)}
        least = min(pixels[i] for i in outlined)
        wanted = outlined | {i for i, n in enumerate(pixels) if n >= 3 * least}
        some = _without_fragments(pixels, own, frames.__getitem__, wanted)
        assert some & outlined == every & outlined
        assert some <= wanted


def test_what_is_seen_of_cards_measured_together_is_what_each_shows_alone():
    """`_visibility` measures all outlined cards of a read in one pass: each card's box shares
    and visibility cells are those it gets alone (cards of any size, turn and cover), and a card
    fully in view shows 1.0 everywhere, one whose left half is covered shows none of its left
    index and all of its right."""
    from vision.detect import GRID_U, _axes, _card_uv, _visibility

    rng = np.random.default_rng(4)
    own, frames, quads = [], [], []
    for k in range(7):
        c = rng.uniform(20, 200, 2)
        th, w = rng.uniform(0, np.pi), rng.uniform(8, 30)
        u, v = _axes(th)
        frame = (c, u, v, w, 1.5 * w)
        q = np.array([c - w / 2 * u - 0.75 * w * v, c + w / 2 * u - 0.75 * w * v, c + w / 2 * u + 0.75 * w * v,
                      c - w / 2 * u + 0.75 * w * v])
        ly, lx = np.mgrid[int(q[:, 1].min()) - 1:int(q[:, 1].max()) + 2, int(q[:, 0].min()) - 1:int(q[:, 0].max()) + 2]
        x, y = lx.ravel().astype(np.float64), ly.ravel().astype(np.float64)
        uu, vv = _card_uv(x, y, frame)
        keep = (uu >= 0) & (uu <= 1) & (vv >= 0) & (vv <= 1)
        if k == 0:
            keep &= uu >= 0.5  # the left half covered by a neighbour
        elif k > 1:
            keep &= rng.random(len(x)) < 0.7
        own.append((x[keep], y[keep]))
        frames.append(frame)
        quads.append(q)
    together = _visibility(own, frames, quads)
    for k in range(7):
        (vis, grid), = _visibility([own[k]], [frames[k]], [quads[k]])
        assert vis == together[k][0] and (grid == together[k][1]).all()
    vis0, grid0 = together[0]
    assert vis0["index0"] == 0.0 and vis0["index2"] == 1.0
    assert vis0["index3"] == 0.0 and vis0["index1"] == 1.0  # the other two corners: bottom left, top right
    assert (grid0[:, : GRID_U // 2] == 0).all() and (grid0[:, GRID_U // 2:] == 1).all()
    assert together[1][0] == {"centre": 1.0, "index0": 1.0, "index1": 1.0, "index2": 1.0, "index3": 1.0}
    assert (together[1][1] == 1).all()
    assert _visibility([], [], []) == []


def test_the_fast_median_of_a_card_is_numpys_to_the_bit():
    """Voted centres and card sizes are medians of a card's pixels; the decoder's own partition
    gives exactly numpy's median (dtype too), so outlines do not move by a bit."""
    from vision.detect import _median

    rng = np.random.default_rng(8)
    for n in (1, 2, 3, 4, 17, 500, 501):
        for dt in (np.float32, np.float64):
            for x in ((rng.random(n) * 80).astype(dt), rng.integers(0, 9, n).astype(dt)):
                got, want = _median(x), np.median(x)
                assert got == want and np.asarray(got).dtype == np.asarray(want).dtype, (n, dt, got, want)


def test_a_card_found_by_one_index_reads_that_index_and_names_its_colour_there():
    """The index finder's votes (`decode_indices`) for a card that shows only its top-left index:
    the card is read at that index alone (the other corner's crop would read whatever card lies
    over it), the index's place is kept (`index_at`: "already read" is decided there), and its
    colour is named from the index's cells, not from the cards over the rest of its outline."""
    from vision.detect import INDEX_BOXES, OFFSET_SCALE, NetOutput, decode_indices

    s, card_w, aspect = 0.5, 96.0, 1.5
    cw, ch = card_w * s / 2.0, card_w * s / 2.0 * aspect  # the card on the output grid
    c = np.array([40.0, 40.0])
    maps = np.zeros((7, 80, 80), np.float32)
    maps[0] = -6.0
    maps[3] = -1.0  # cos 2θ, sin 2θ of a card standing upright (θ = 90°)
    u0, v0, u1, v1 = INDEX_BOXES[0]
    ys, xs = np.mgrid[0:80, 0:80]
    fu, fv = (xs - c[0]) / cw + 0.5, (ys - c[1]) / ch + 0.5
    box = (fu >= u0) & (fu <= u1) & (fv >= v0) & (fv <= v1)
    maps[0][box] = 6.0
    maps[1][box] = (c[0] - xs[box]) / OFFSET_SCALE
    maps[2][box] = (c[1] - ys[box]) / OFFSET_SCALE
    dets = decode_indices(NetOutput(maps, s, (0, 0)), 320, 320, card_w, aspect)

    assert len(dets) == 1
    d = dets[0]
    assert d.visible["index0"] == 1.0 and d.visible["index2"] == 0.0
    assert np.allclose(d.centre, out_to_full(c, s), atol=2.0)
    at = out_to_full(np.array([xs[box].mean(), ys[box].mean()]), s)
    assert d.index_at is not None and np.allclose(d.index_at, at, atol=1.0)
    gv, gu = d.grid.shape
    seen_v, seen_u = np.nonzero(d.grid > 0.6)
    assert len(seen_u) and seen_u.max() < 0.35 * gu and seen_v.max() < 0.3 * gv  # the top-left index's cells only


def _index_votes(maps: np.ndarray, c: np.ndarray, cw: float, ch: float, s: float) -> list[np.ndarray]:
    """Paints the two corner indices of an upright card centred at `c` (output grid) into the
    index finder's `maps`, each pixel voting for `c`; returns the boxes (image pixels)."""
    from vision.detect import INDEX_BOXES, OFFSET_SCALE

    ys, xs = np.mgrid[0:maps.shape[1], 0:maps.shape[2]]
    fu, fv = (xs - c[0]) / cw + 0.5, (ys - c[1]) / ch + 0.5
    quads = []
    for u0, v0, u1, v1 in INDEX_BOXES.values():
        box = (fu >= u0) & (fu <= u1) & (fv >= v0) & (fv <= v1)
        maps[0][box] = 6.0
        maps[1][box] = (c[0] - xs[box]) / OFFSET_SCALE
        maps[2][box] = (c[1] - ys[box]) / OFFSET_SCALE
        corners = [(c[0] + (u - 0.5) * cw, c[1] + (v - 0.5) * ch) for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))]
        quads.append(out_to_full(np.array(corners), s))
    return quads


def test_the_votes_of_indices_read_are_taken_out_and_a_card_almost_under_another_is_found():
    """A card lying almost squarely under another (its centre an eighth of a card away) shows its
    indices just beside the top card's: with all the votes, their peaks merge and one card is
    found; with the top card's index boxes `explained`, the votes left find the card under it."""
    from vision.detect import NetOutput, decode_indices

    s, card_w, aspect = 0.5, 96.0, 1.5
    cw, ch = card_w * s / 2.0, card_w * s / 2.0 * aspect
    maps = np.zeros((7, 100, 100), np.float32)
    maps[0] = -6.0
    maps[3] = -1.0  # upright cards
    under, top = np.array([53.0, 50.0]), np.array([56.0, 50.0])
    _index_votes(maps, under, cw, ch, s)
    top_boxes = _index_votes(maps, top, cw, ch, s)  # painted last: the top card's index covers the other's
    out = NetOutput(maps, s, (0, 0))

    every = decode_indices(out, 400, 400, card_w, aspect)
    assert len(every) == 1 and np.allclose(every[0].centre, out_to_full(top, s), atol=3.0)
    rest = decode_indices(out, 400, 400, card_w, aspect, explained=top_boxes)
    assert len(rest) == 1 and np.allclose(rest[0].centre, out_to_full(under, s), atol=3.0)


def test_the_grid_cells_outside_quads_of_either_winding_on_a_tiled_output():
    """`_outside`: which cells of an output grid (a tile at an offset, at scale 0.5) lie outside
    quads given in image pixels, as the cells' centres carried to the image say."""
    from vision.detect import NetOutput, _outside

    out = NetOutput(np.zeros((7, 40, 60), np.float32), 0.5, (100, 40))
    square = np.array([[140, 80], [220, 80], [220, 160], [140, 160]], np.float64)
    diamond = np.array([[300, 100], [260, 140], [300, 180], [340, 140]], np.float64)  # the other winding
    free = _outside((40, 60), [square, diamond], out)
    ys, xs = np.mgrid[0:40, 0:60]
    px, py = out_to_full(xs, 0.5) + 100, out_to_full(ys, 0.5) + 40
    in_square = (px > 144) & (px < 216) & (py > 84) & (py < 156)
    in_diamond = np.abs(px - 300) + np.abs(py - 140) < 36
    far = ((px < 136) | (px > 224) | (py < 76) | (py > 164)) & (np.abs(px - 300) + np.abs(py - 140) > 44)
    assert not free[in_square].any() and not free[in_diamond].any()
    assert free[far].all()
    assert _outside((40, 60), [], out).all()


def test_voters_on_a_top_right_corner_put_that_corner_in_view():
    """A card of a four-index design may show only its top-right index: the index finder's voters
    there say 'index1' is in view, not the top-left or bottom-right."""
    from vision.detect import CORNER_BOXES, INDEX_BOXES, _indices_voting

    cw, ch = 20.0, 30.0
    c, u, v = np.array([50.0, 50.0]), np.array([1.0, 0.0]), np.array([0.0, 1.0])

    def voters(box):
        u0, v0, u1, v1 = box
        fu, fv = np.meshgrid(np.linspace(u0, u1, 5), np.linspace(v0, v1, 4))
        return c[0] + (fu.ravel() - 0.5) * cw, c[1] + (fv.ravel() - 0.5) * ch

    xs, ys = voters(CORNER_BOXES[1])
    shown, on = _indices_voting(xs, ys, c, u, v, cw, ch)
    assert shown == {"index0": 0.0, "index2": 0.0, "index1": 1.0, "index3": 0.0}
    assert on is None  # where a lone index lies is told of the two the finder is taught only
    # Both diagonal indices and a corner in view: the voters of no single index are told.
    x2, y2 = voters(INDEX_BOXES[0])
    shown, on = _indices_voting(np.r_[xs, x2], np.r_[ys, y2], c, u, v, cw, ch)
    assert shown["index0"] == 1.0 and shown["index1"] == 1.0
    assert on is not None and on.sum() == len(x2)  # the top-left one's, as before the corners
