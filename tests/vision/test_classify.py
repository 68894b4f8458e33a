"""Crop geometry, the card classifier on faces of a HOLDOUT printing, and colour naming."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from vision.classify import (
    CARD_CLASSES,
    CARD_REGION,
    CROP,
    INDEX_REGION,
    Classifier,
    ModelError,
    Pyramid,
    preprocess,
    rotate_quad,
    top_k,
    unit_homographies,
    warp_crop,
    warp_crops,
)
from vision.colour import SUITS, hue_order_inks, read_colour, sector, table_inks
from vision.render import random_design, render_card
from vision.render.designs import suit_inks
from vision.render.optics import kelvin_rgb

CORNER_COLOURS = [(0, 0, 255), (0, 255, 0), (255, 0, 0), (0, 255, 255)]  # TL, TR, BR, BL


def _place(face_bgra: np.ndarray, size=(400, 400), angle=25.0, scale=1.0, bg=(90, 110, 80), persp=0.03, seed=0):
    """Warp a BGRA face into a photo; returns (image, quad TL,TR,BR,BL)."""
    rng = np.random.default_rng(seed)
    h, w = face_bgra.shape[:2]
    W, H = size
    c = np.array([W / 2, H / 2])
    a = math.radians(angle)
    R = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    loc = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]]) * scale
    quad = loc @ R.T + c + rng.normal(0, persp * w * scale, (4, 2))
    src = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    img = np.empty((H, W, 3), np.uint8)
    img[:] = bg
    face = cv2.warpPerspective(face_bgra[..., :3], m, (W, H)).astype(np.float32)
    alpha = cv2.warpPerspective(face_bgra[..., 3], m, (W, H)).astype(np.float32)[..., None] / 255
    out = img * (1 - alpha) + face * alpha
    return np.clip(out + rng.normal(0, 2, out.shape), 0, 255).astype(np.uint8), quad


def test_crops_follow_the_outline_and_its_reading_frame():
    face = np.zeros((150, 100, 4), np.uint8)
    face[..., 3] = 255
    face[..., :3] = 200
    for (y, x), col in zip([(0, 0), (0, 70), (120, 70), (120, 0)], CORNER_COLOURS, strict=True):
        face[y:y + 30, x:x + 30, :3] = col
    img, quad = _place(face, angle=33, persp=0.02)
    pyr = Pyramid(img)
    crop = warp_crop(pyr, quad, (0, 0, 1, 1), (40, 60)).astype(int)
    for (y, x), col in zip([(3, 3), (3, 36), (56, 36), (56, 3)], CORNER_COLOURS, strict=True):
        assert np.abs(crop[y, x] - col).max() < 60
    turned = warp_crop(pyr, rotate_quad(quad, 2), (0, 0, 1, 1), (40, 60)).astype(int)
    assert np.abs(turned[3, 3] - CORNER_COLOURS[2]).max() < 60  # BR is now top-left


def test_large_cards_are_reduced_through_the_pyramid_without_aliasing():
    stripes = np.zeros((900, 600, 4), np.uint8)
    stripes[..., 3] = 255
    stripes[:, ::2, :3] = 255  # 1-pixel stripes: aliasing would show as a pattern
    img, quad = _place(stripes, size=(1400, 1400), angle=0, persp=0.0)
    crop = warp_crop(Pyramid(img), quad, (0.1, 0.1, 0.9, 0.9), CROP).astype(float)
    assert crop.std() < 12 and abs(crop.mean() - 127) < 25


def test_crops_of_many_outlines_at_once_are_each_outline_s_own():
    """The batched geometry (closed-form homographies) gives OpenCV's maps, and each crop of a
    batch is the crop of its own outline at its own pyramid level, in a window too."""
    rng = np.random.default_rng(3)
    img = rng.integers(0, 256, (700, 900, 3), np.uint8)
    quads, regions = [], []
    for k in range(40):
        c, w, a = rng.uniform(250, 450, 2), rng.uniform(15, 300), rng.uniform(0, math.pi)
        u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        q = np.array([c - w / 2 * u - 0.7 * w * v, c + w / 2 * u - 0.7 * w * v, c + w / 2 * u + 0.7 * w * v,
                      c - w / 2 * u + 0.7 * w * v])
        quads.append(q + (rng.normal(0, 4, (4, 2)) if k % 2 else 0))  # half of them not parallelograms
        regions.append(CARD_REGION if k % 3 else INDEX_REGION)
    square = np.float32([[0, 0], [1, 0], [1, 1], [0, 1]])
    want = np.stack([cv2.getPerspectiveTransform(square, np.float32(q)) for q in quads])
    assert np.allclose(unit_homographies(np.stack(quads)), want / want[:, 2:, 2:], rtol=0, atol=1e-9)
    for window in (None, (100, 90, 620, 640)):
        pyr = Pyramid(img, window)
        batch = warp_crops(pyr, quads, regions)
        assert len(pyr.levels) > 2  # the large outlines were read from reduced levels
        x0, y0 = pyr.offset
        level0 = 0
        for q, r, crop in zip(quads, regions, batch, strict=True):
            assert np.array_equal(crop, warp_crop(Pyramid(img, window), q, r))
            (u0, v0, u1, v1), n = r, CROP
            a = np.array([[(u1 - u0) / n, 0, u0 + 0.5 * (u1 - u0) / n], [0, (v1 - v0) / n, v0 + 0.5 * (v1 - v0) / n],
                          [0, 0, 1]])
            m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]]) @ cv2.getPerspectiveTransform(square, np.float32(q)) @ a
            if np.linalg.norm(m[:2, 0] / m[2, 2]) < 1.5:  # sampled from the photo itself: OpenCV's own crop
                level0 += 1
                ref = cv2.warpPerspective(pyr.image, m, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                          borderMode=cv2.BORDER_REPLICATE)
                assert np.abs(crop.astype(int) - ref).max() <= 1
        assert level0 >= 5


def test_preprocess_removes_exposure_and_white_balance():
    rng = np.random.default_rng(1)
    crop = rng.integers(0, 255, (CROP, CROP, 3)).astype(np.uint8)
    dim = np.clip(crop * np.array([0.6, 0.7, 0.9]) + 12, 0, 255).astype(np.uint8)
    a, b = preprocess(crop[None]), preprocess(dim[None])
    assert a.shape == (1, 3, CROP, CROP)
    assert np.abs(a - b).mean() < 0.08


@pytest.fixture(scope="module")
def clf() -> Classifier:
    return Classifier()


def test_model_description_matches_the_code(clf):
    assert clf.classes == CARD_CLASSES and clf.info.crop == CROP and clf.info.orientations == 2
    assert 0.2 < clf.temperature < 10
    p = clf.probs(np.zeros((3, CROP, CROP, 3), np.uint8))
    assert p.shape == (3, len(CARD_CLASSES), 2) and np.allclose(p.sum(axis=(1, 2)), 1, atol=1e-4)


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(ModelError, match="missing"):
        Classifier("nope", models_dir=tmp_path)


def _faces(design, cards, height=180):
    return [render_card(c, design, height) for c in cards]


@pytest.mark.parametrize("seed", [3, 8])
def test_reads_number_cards_of_an_unseen_printing(clf, seed):
    """Holdout typeface and card template, tilted, in perspective: whole card and corner index."""
    rng = np.random.default_rng(seed)
    design = random_design(rng, "holdout")
    cards = [{"kind": "number", "value": v, "color": SUITS[v % 4]} for v in range(1, 22)]
    cards += [{"kind": "number", "value": int(v), "color": None} for v in rng.choice(np.arange(22, 101), 12)]
    whole_ok = index_ok = index_n = 0
    for k, (card, face) in enumerate(zip(cards, _faces(design, cards), strict=True)):
        img, quad = _place(face, angle=float(rng.uniform(0, 360)), scale=float(rng.uniform(0.6, 1.0)), seed=k)
        pyr = Pyramid(img)
        turn = int(rng.choice([0, 2]))  # the reading frame may be upside down
        q = rotate_quad(quad, turn)
        p = clf.probs(np.stack([warp_crop(pyr, q, CARD_REGION), warp_crop(pyr, q, INDEX_REGION)]))
        label = str(card["value"])
        best, orient = np.unravel_index(p[0].argmax(), p[0].shape)
        whole_ok += CARD_CLASSES[best] == label and orient == turn // 2
        if design.indices != "none":
            index_n += 1
            index_ok += top_k(p[1], CARD_CLASSES, 1)[0][0] == label
    assert whole_ok >= 0.9 * len(cards)
    if index_n:
        assert index_ok >= 0.85 * index_n


def test_special_cards_and_backs(clf):
    rng = np.random.default_rng(5)
    design = random_design(rng, "holdout")
    cards = [{"kind": k, "value": None, "color": None} for k in ("joker", "link", "bonus", "bull")]
    cards.append({"object": "back"})
    ok = 0
    for k, (card, face) in enumerate(zip(cards, _faces(design, cards), strict=True)):
        img, quad = _place(face, angle=10.0 * k, seed=k)
        p = clf.probs(warp_crop(Pyramid(img), quad, CARD_REGION)[None])[0]
        want = card.get("kind") or "back"
        ok += top_k(p, CARD_CLASSES, 1)[0][0] == want
    assert ok >= 4


def test_table_without_card_reads_none(clf):
    rng = np.random.default_rng(2)
    img = np.clip(rng.normal(120, 25, (300, 300, 3)), 0, 255).astype(np.uint8)
    img = cv2.GaussianBlur(img, (0, 0), 3)
    quad = np.array([[100, 80], [200, 80], [200, 230], [100, 230]], float)
    p = clf.probs(warp_crop(Pyramid(img), quad, CARD_REGION)[None])[0]
    assert top_k(p, CARD_CLASSES, 1)[0][0] in ("none", "back")


# ----------------------------------------------------------------------------------------
# Colour


def _card_pixels(ink, stock, cast, level, rng, ink_share=0.25, n=1200):
    """Pixels of a card: stock and ink, lit by a coloured light, with sensor noise (BGR 0..255)."""
    k = int(n * ink_share)
    pix = np.vstack([np.tile(np.asarray(stock, float), (n - k, 1)), np.tile(np.asarray(ink, float), (k, 1))])
    pix = pix * np.asarray(cast)[None] * level * 255.0
    return np.clip(pix + rng.normal(0, 3, pix.shape), 0, 255)


LIGHTS = {"daylight": (6500, 6000), "warm lamp": (2700, 4500), "halogen": (3000, 3600), "cool": (8500, 5500),
          "fluorescent": (4200, 4500)}


@pytest.mark.parametrize("light", sorted(LIGHTS))
def test_suit_colours_under_coloured_light_never_swap_yellow_green_or_blue_green(light):
    temp, wb = LIGHTS[light]
    cast = kelvin_rgb(temp) / kelvin_rgb(wb)
    cast = cast / cast[1]
    rng = np.random.default_rng(abs(hash(light)) % 1000)
    wrong = []
    for seed in range(60):
        r = np.random.default_rng(seed)
        inks = suit_inks(r, str(r.choice(["vivid", "muted", "deep"])))
        stock = (0.95, 0.96, 0.97) if seed % 3 else (0.80, 0.90, 0.95)  # white, cream
        for suit in SUITS:
            pix = _card_pixels(inks[suit], stock, cast, float(rng.uniform(0.5, 1.0)), rng)
            got = read_colour(pix).name
            if got != suit:
                wrong.append((seed, suit, got))
    swaps = [w for w in wrong if {w[1], w[2]} in ({"yellow", "green"}, {"blue", "green"})]
    assert not swaps
    assert len(wrong) <= 2  # of 240 cards


def _lab_ink(chroma: float, hue_deg: float, lightness: float = 62.0) -> tuple[float, float, float]:
    """A BGR ink (0..1) of the given CIELAB chroma and hue angle."""
    h = math.radians(hue_deg)
    lab = np.float32([[[lightness, chroma * math.cos(h), chroma * math.sin(h)]]])
    return tuple(float(x) for x in np.clip(cv2.cvtColor(lab, cv2.COLOR_Lab2BGR)[0, 0], 0, 1))


def test_a_table_names_its_cards_by_its_own_inks():
    """A printing whose green leans to yellow (hue 116°, pale) beside a strong yellow (100°):
    a green card printed a little yellower (106°) falls in the yellow sector, but it is far
    nearer this table's green than its yellow once chroma counts too."""
    rng = np.random.default_rng(5)
    stock = (0.95, 0.96, 0.97)
    deck = [("yellow", 48, 100 + d) for d in (-3, 0, 2, 4)] + [("green", 25, 116 + d) for d in (-2, 0, 3)]
    deck += [("red", 45, 30), ("red", 44, 33), ("blue", 30, 280), ("blue", 32, 285)]
    pix = [_card_pixels(_lab_ink(c, h), stock, (1, 1, 1), 0.95, rng) for _s, c, h in deck]
    odd = _card_pixels(_lab_ink(26, 106), stock, (1, 1, 1), 0.95, rng)
    assert read_colour(odd).name == "yellow"  # by the sectors alone
    inks = table_inks([read_colour(p) for p in pix + [odd]])
    assert set(inks) == set(SUITS)
    assert read_colour(odd, inks=inks).name == "green"
    assert [read_colour(p, inks=inks).name for p in pix] == [s for s, _c, _h in deck]
    assert table_inks([read_colour(p) for p in pix[:4]]) == {}  # too few cards to say


def test_a_pale_cyan_blue_is_named_by_the_order_of_the_table_inks():
    """A printing whose blue reads pale and cyan under the lamp (hue 170°, chroma 16) lies in the
    green sector, beside the real green (118°, chroma 40): the four inks are four clusters, and
    going round the hue circle the one after green is the blue."""
    rng = np.random.default_rng(7)
    stock = (0.95, 0.96, 0.97)
    deck = [("red", 60, 35 + d) for d in (-2, 0, 3)] + [("yellow", 70, 85 + d) for d in (-3, 0, 2)]
    deck += [("green", 40, 118 + d) for d in (-2, 0, 3)] + [("blue", 16, 170 + d) for d in (-4, 0, 5)]
    pix = [_card_pixels(_lab_ink(c, h), stock, (1, 1, 1), 0.95, rng) for _s, c, h in deck]
    first = [read_colour(p) for p in pix]
    assert [r.name for r in first[-3:]] == ["green"] * 3  # by the sectors
    inks = hue_order_inks(first)
    assert set(inks) == set(SUITS)
    assert [read_colour(p, inks=inks).name for p in pix] == [s for s, _c, _h in deck]


def test_a_table_without_green_keeps_its_yellow_seen_at_two_strengths():
    """No green on the table, and the yellow shows pale on some cards and strong on others: two
    clusters of one hue. Ordered by hue, the paler would be taken for green; one suit differs
    from the next in hue, so no order is claimed and the sectors stand."""
    rng = np.random.default_rng(8)
    stock = (0.95, 0.96, 0.97)
    deck = [("red", 62, 25 + d) for d in (-1, 0, 2)] + [("blue", 40, 270 + d) for d in (-2, 0, 3)]
    deck += [("yellow", 48, 105 + d) for d in (-1, 0, 1)] + [("yellow", 64, 104 + d) for d in (-1, 0, 1)]
    pix = [_card_pixels(_lab_ink(c, h), stock, (1, 1, 1), 0.95, rng) for _s, c, h in deck]
    assert hue_order_inks([read_colour(p) for p in pix]) == {}


def test_a_table_without_green_keeps_its_blue_seen_at_two_hues():
    """No green on the table; a blue row reads at 225° and two loose blue cards at 252° (held-out
    table). Four clusters apart in hue, but ordered round the circle the row would be taken for
    green: a blue is never renamed green (a pale blue drifts toward cyan, not a green to blue)."""
    rng = np.random.default_rng(12)
    stock = (0.95, 0.96, 0.97)
    deck = [("red", 62, 24 + d) for d in (-1, 0, 1)] + [("yellow", 84, 104 + d) for d in (-1, 0, 1)]
    deck += [("blue", 31, 225 + d) for d in (-4, 0, 3)] + [("blue", 28, 252 + d) for d in (-2, 2)]
    pix = [_card_pixels(_lab_ink(c, h), stock, (1, 1, 1), 0.95, rng) for _s, c, h in deck]
    first = [read_colour(p) for p in pix]
    assert [r.name for r in first] == [s for s, _c, _h in deck]  # the sectors are right
    assert hue_order_inks(first) == {}


def test_a_dark_numeral_names_the_card_among_paler_blobs_of_more_chroma():
    """A children's deck prints pale coloured blobs round its numerals: a teal-blue numeral
    (chroma 28, dark) on a card whose yellow blobs show more chroma (45, pale). The numeral's ink
    is the one darker than the stock: the card is blue, under a warm lamp too."""
    rng = np.random.default_rng(11)
    for temp, wb in ((6500, 6500), (2800, 4500)):
        cast = kelvin_rgb(temp) / kelvin_rgb(wb)
        cast = cast / cast[1]
        stock = np.asarray((0.95, 0.96, 0.97))
        parts = [(stock, 1200), (np.asarray(_lab_ink(28, 235, 42)), 250), (np.asarray(_lab_ink(45, 95, 90)), 350)]
        pix = np.vstack([np.tile(c, (n, 1)) for c, n in parts]) * np.asarray(cast)[None] * 0.9 * 255.0
        pix = np.clip(pix + rng.normal(0, 3, pix.shape), 0, 255)
        assert read_colour(pix).name == "blue", (temp, wb)


def test_one_stray_card_does_not_hide_the_order_of_the_table_inks():
    """As above, a pale cyan blue beside the green; one yellow card, mostly hidden, reads pale
    and orange. It joins the yellow cluster but must not make that cluster look too wide to
    be told from the others."""
    rng = np.random.default_rng(9)
    stock = (0.95, 0.96, 0.97)
    deck = [("red", 60, 35 + d) for d in (-2, 0, 3)] + [("yellow", 70, 85 + d) for d in (-3, 0, 2, 1, -1)]
    deck += [("green", 40, 118 + d) for d in (-2, 0, 3)] + [("blue", 16, 170 + d) for d in (-4, 0, 5, 2)]
    pix = [_card_pixels(_lab_ink(c, h), stock, (1, 1, 1), 0.95, rng) for _s, c, h in deck]
    stray = _card_pixels(_lab_ink(40, 72), stock, (1, 1, 1), 0.95, rng)
    inks = hue_order_inks([read_colour(p) for p in pix + [stray]])
    assert set(inks) == set(SUITS)
    assert [read_colour(p, inks=inks).name for p in pix] == [s for s, _c, _h in deck]


def test_the_fast_percentile_of_a_card_is_numpys_to_the_bit():
    """Colour naming takes percentiles of each card's few thousand pixels; its own partition
    gives exactly numpy's linear percentile, so the readings do not move by a pixel."""
    from vision.colour import _percentile

    rng = np.random.default_rng(12)
    for n in (1, 2, 3, 7, 100, 2301):
        for x in ((rng.random(n) * 255).astype(np.float32), rng.integers(0, 255, n).astype(np.float32)):
            for q in (0, 10, 50, 80, 95, 97, 100):
                got, want = _percentile(x, q), np.percentile(x, q)
                assert got == want and np.asarray(got).dtype == np.asarray(want).dtype, (n, q, got, want)


def test_cards_named_together_are_named_as_one_by_one():
    """A read names all its cards' colours in one pass (`card_whites`, `measure_inks`,
    `name_inks`): each card's result is the one it gets alone, to the bit, whatever its
    neighbours in the batch (sizes, a card showing no stock read by the table's light, one of
    too few pixels, weights, inks given or not)."""
    from vision.colour import _median_bgr, card_white, card_whites, measure_ink, measure_inks, name_ink, name_inks

    rng = np.random.default_rng(21)
    cast = kelvin_rgb(3200) / kelvin_rgb(5000)
    cast = cast / cast[1]
    inks = suit_inks(rng, "vivid")
    pixs = [_card_pixels(inks[SUITS[k % 4]], (0.95, 0.96, 0.97), cast, float(rng.uniform(0.5, 1.0)), rng,
                         ink_share=float(rng.uniform(0.1, 0.5)))[: int(rng.integers(30, 900))] for k in range(9)]
    pixs[3] = _card_pixels(inks["yellow"], inks["yellow"], cast, 0.9, rng, ink_share=0.5)  # no stock in view
    pixs[5] = pixs[5][:4]  # too few pixels to say
    light = np.asarray(cast) / np.max(cast)
    stocks = card_whites(pixs[:5] + pixs[6:])
    assert [tuple(w) + (s,) for w, s in stocks] == [tuple(w) + (s,) for w, s in map(card_white, pixs[:5] + pixs[6:])]
    stocks.insert(5, None)
    weights = [None if k % 2 else rng.random(len(p)) for k, p in enumerate(pixs)]
    together = measure_inks(pixs, light, weights=weights, stocks=stocks)
    alone = [measure_ink(p, light=light, weights=w, stock=s) for p, w, s in zip(pixs, weights, stocks, strict=True)]
    assert together[5] is None and alone[5] is None
    for a, b in zip(together, alone, strict=True):
        if a is not None:
            assert a.top == b.top and (a.white == b.white).all() and (a.sel == b.sel).all()
            assert (a.weights == b.weights).all() and (a.hue == b.hue).all() and (a.L == b.L).all()
    table = {"red": (50.0, 30.0), "yellow": (5.0, 60.0), "green": (-40.0, 20.0)}  # no blue: sectors for it
    for given in (None, table):
        # repr: exact for floats, and NaN (no hue) equals NaN
        assert repr(name_inks(together, SUITS, given)) == repr([name_ink(m, SUITS, given) for m in alone])
    assert any(r.name is not None for r in name_inks(together, SUITS))
    for n in (1, 2, 3, 40, 41):
        p = (rng.random((n, 3)) * 255).astype(np.float32)
        assert (_median_bgr(p) == np.median(p, axis=0)).all()


def test_colour_uses_the_table_light_when_a_card_shows_no_stock():
    rng = np.random.default_rng(0)
    cast = kelvin_rgb(2800) / kelvin_rgb(5000)
    cast = cast / cast[1]
    ink = (0.15, 0.75, 0.95)  # yellow, BGR
    pix = _card_pixels(ink, ink, cast, 0.9, rng, ink_share=0.5)  # a strip of a printed band: no white
    light = np.asarray(cast) / np.max(cast)
    assert read_colour(pix, light=light).name == "yellow"


def test_colour_sectors_and_gray():
    assert [SUITS[i] for i in sector(np.array([30.0, 90.0, 140.0, 270.0]))] == ["red", "yellow", "green", "blue"]
    rng = np.random.default_rng(3)
    pix = _card_pixels((0.45, 0.45, 0.45), (0.95, 0.95, 0.95), (1, 1, 1), 1.0, rng)
    assert read_colour(pix, allowed=("yellow", "red", "blue", "green", "gray")).name == "gray"


@pytest.mark.parametrize("scale", [1.0, 3.0, 9.0])
def test_a_pyramid_of_a_window_crops_as_the_whole_photos_does(scale):
    """Re-reading one region builds the reduced levels of that part of the photo only; a crop
    inside it comes out the same as from the whole photo's levels (the window is put on a
    multiple of 16 pixels, so the levels sample alike)."""
    rng = np.random.default_rng(4)
    image = cv2.GaussianBlur(rng.integers(0, 255, (900, 1200, 3), dtype=np.uint8), (0, 0), 2.0)
    q = np.array([[500.0, 300.0], [500.0 + 40 * scale, 310.0], [490.0 + 40 * scale, 310.0 + 60 * scale],
                  [490.0, 300.0 + 60 * scale]])
    whole = warp_crop(Pyramid(image), q, INDEX_REGION, CROP)
    part = Pyramid(image, (437, 251, 1100, 880))
    assert part.offset == (432, 240)
    assert np.array_equal(warp_crop(part, q, INDEX_REGION, CROP), whole)


def test_a_sparse_pyramid_crops_as_the_whole_window_does():
    """A region re-read reduces only the parts of its window its crops sample: crops of outlines
    anywhere (in the window, across its border or the photo's, at any size, so at any level),
    asked for in turn, come out the same to the pixel as from the window's whole levels."""
    rng = np.random.default_rng(6)
    image = cv2.GaussianBlur(rng.integers(0, 255, (700, 900, 3), dtype=np.uint8), (0, 0), 2.0)
    for _ in range(40):
        c, w, a = rng.uniform(-50, 950, 2), rng.uniform(10, 300), rng.uniform(0, np.pi)
        u, v = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
        q = np.array([c - w / 2 * u - 0.75 * w * v, c + w / 2 * u - 0.75 * w * v, c + w / 2 * u + 0.75 * w * v,
                      c - w / 2 * u + 0.75 * w * v])
        pad = rng.uniform(0.5, 2.0) * w
        window = (int(c[0] - pad), int(c[1] - pad), int(c[0] + pad), int(c[1] + pad))
        whole, sparse = Pyramid(image, window), Pyramid(image, window, sparse=True)
        for _call in range(3):  # later crops reaching further than the parts already reduced
            quads = [q + rng.normal(0, 0.2 * w, 2) for _ in range(3)]
            regions = [CARD_REGION, INDEX_REGION, (0.0, 0.0, 1.0, 1.0)]
            for size in (CROP, (40, 60)):
                for a_, b_ in zip(warp_crops(whole, quads, regions, size), warp_crops(sparse, quads, regions, size),
                                  strict=True):
                    assert np.array_equal(a_, b_)
    assert len(sparse.levels) == 1  # nothing reduced whole
