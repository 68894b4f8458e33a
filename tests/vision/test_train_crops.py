"""Labels of the classifier's training crops: a corner index is named by whether its ink shows.

The index box is drawn for two digits; a one-digit index covered only where its box is blank is
still legible, and must not be taught as "no card"."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.classify import Pyramid
from vision.render import random_design
from vision.train.crops import (
    CLS,
    CORNER,
    INDEX,
    NONE,
    _idx_regions_canonical,
    _load_scene,
    _named_cards,
    crops_for,
    index_ink,
)
from vision.train.scenes import _work, scene_for


@pytest.fixture(scope="module")
def one():
    design = random_design(np.random.default_rng(3), "train", template="classic")
    card = {"kind": "number", "value": 1, "color": "red"}
    regions = _idx_regions_canonical(card, design)
    return card, regions, index_ink(card, design, regions)


def _index_labels(card, inks, cover_from_u: float | None) -> list[int]:
    """Labels of the two index crops of an upright card 200×300 px whose top-left corner is
    covered from `cover_from_u` (card width fraction) rightwards, down to a third of its height."""
    x0, y0, w, h = 100, 100, 200, 300
    quad = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float64)
    own = np.zeros((600, 500), np.float32)
    cv2.fillConvexPoly(own, quad.astype(np.int32), 1.0)
    if cover_from_u is not None:
        own[y0:y0 + h // 3, int(x0 + cover_from_u * w):x0 + w] = 0.0
    pyr = Pyramid(np.full((600, 500, 3), 128, np.uint8))
    out = crops_for(np.random.default_rng(0), pyr, quad, own, card, inks, centre_ok=1.0)
    return [y for _x, y, kind in out if kind == INDEX]


def test_a_one_digit_index_covered_only_where_its_box_is_blank_is_taught_as_its_card(one):
    card, regions, inks = one
    tl_box, tl_ink = regions[0], inks[0]
    assert len(tl_ink.uv) > 20, "the index prints ink"
    ink_right = float(tl_ink.uv[:, 0].max())
    assert ink_right < tl_box[2] - 0.03, "a '1' fills only part of its two-digit box"
    # Covered just right of the ink: more than 8 % of the box is hidden (the old rule said
    # "none"), none of the ink is.
    cover = ink_right + 0.015
    assert (tl_box[2] - cover) / (tl_box[2] - tl_box[0]) > 0.08
    labels = _index_labels(card, inks, cover)
    assert labels[0] == CLS["1"] * 2  # the top-left index: still a 1
    assert labels[1] == CLS["1"] * 2  # the bottom-right one is not covered at all


def test_an_index_whose_ink_is_covered_is_taught_as_no_card(one):
    card, _regions, inks = one
    labels = _index_labels(card, inks, 0.0)
    assert labels[0] == NONE * 2
    assert labels[1] == CLS["1"] * 2


@pytest.fixture(scope="module")
def twenty():
    design = random_design(np.random.default_rng(3), "train", template="classic")
    card = {"kind": "number", "value": 20, "color": "blue"}
    regions = _idx_regions_canonical(card, design)
    return card, index_ink(card, design, regions)


def test_a_fragment_of_an_index_is_taught_as_no_card(twenty):
    """A "20" whose 0 is hidden shows a "2": taught as "none", not as 20 (nor left out, as when
    only the share of its ink that shows counted: the 2 is more than 60 % of it)."""
    card, inks = twenty
    u = inks[0].uv[:, 0]
    labels = _index_labels(card, inks, float(u.min() + 0.6 * (u.max() - u.min())))  # most of the 0 covered
    assert labels[0] == NONE * 2
    assert labels[1] == CLS["20"] * 2
    # Covered only right of the 0: still a 20.
    labels = _index_labels(card, inks, float(u.max()) + 0.015)
    assert labels[0] == CLS["20"] * 2


def test_every_card_face_of_a_rendered_scene_gets_its_crops(tmp_path):
    """The scene's cards are matched to the items drawn (whose outlines the truth rounds to
    0.01 px, the cards' to 0.1 px): none may be lost, or its corners are never taught. A scene of
    a card family drawn on request is drawn again in that family, whose design the crops use."""
    total = 0
    for k in range(4):
        family = "mixed" if k == 2 else None
        game = "11-nimmt" if k == 3 else None  # a scene of one game asked for is drawn again as it
        name = _work((str(tmp_path), "train", 17000, k, True, 0.5, 0.2, family, game))
        sc = _load_scene(str(tmp_path / f"{name}.jpg"), 98)
        assert (sc.design.template == "mixed") == (family == "mixed")
        if game:
            assert sc.truth["game"] == game
            again = scene_for("train", [17000, k], game, overlap=0.5, count_share=0.2)
            assert again.design == sc.design
        faces = [c for i, c in enumerate(sc.truth["cards"])
                 if c.get("kind") in ("number", "joker", "link", "bonus", "bull") and i not in sc.under]
        named = list(_named_cards(sc))
        assert len(named) == len(faces)
        total += len(faces)
        # Each is matched to its own item: the item's pixels lie inside its outline.
        for q, own, _card, _item in named:
            assert own.sum() > 0
            ys, xs = np.nonzero(own)
            inside = cv2.pointPolygonTest(q.astype(np.float32), (float(xs.mean()), float(ys.mean())), False)
            assert inside >= 0
    assert total > 10


def test_only_a_well_placed_outline_teaches_its_card():
    """At the recogniser's outlines a crop is taught as its card only when the outline lies
    close to the card's: one step of the outline search away (a tenth of a card across, six
    degrees turned) it is left out, or the surest reading would not mark the best outline."""
    from vision.pipeline import SHIFT_MOVES, TURN_MOVES, _moved
    from vision.train.crops import _placed

    card = np.array([[300, 200], [400, 210], [385, 360], [285, 350]], float)
    assert _placed(card, card)
    assert _placed(_moved(card, (0.03, 0.02, 0.0)), card)  # the detector's usual error
    assert _placed(_moved(card, (0.0, 0.0, 3.0)), card)
    far = [m for m in SHIFT_MOVES + TURN_MOVES if abs(m[0]) >= 0.1 or abs(m[2]) >= 6.0]
    assert far and not any(_placed(_moved(card, m), card) for m in far)


def test_an_index_is_turned_in_a_frame_by_the_angle_between_their_uprights():
    """A covered corner showing the index of the card over it is taught "none" only when that
    index stands turned in the crop's frame (`TURNED_INDEX`): the top-left index is upright in
    its card's frame, the bottom-right one in the frame turned half; a nearly upright one looks
    like that card's own crop and is left out."""
    from vision.pipeline import _moved
    from vision.train.crops import TURNED_INDEX, _index_turn

    card = np.array([[300, 200], [400, 210], [385, 360], [285, 350]], float)
    assert _index_turn(card, 0, card) < 1e-6
    assert abs(_index_turn(card, 1, card) - 180.0) < 1e-6
    assert abs(_index_turn(card, 1, np.roll(card, 2, axis=0))) < 1e-6  # the frame turned half
    assert abs(_index_turn(card, 0, _moved(card, (0.0, 0.0, 30.0))) - 30.0) < 1e-6
    assert _index_turn(card, 0, _moved(card, (0.0, 0.0, 12.0))) < TURNED_INDEX <= \
        _index_turn(card, 0, _moved(card, (0.0, 0.0, -30.0)))
    assert _index_turn(card, 2, _moved(card, (0.0, 0.0, 90.0))) == 0.0  # a third index: not known


def test_numeral_crops_are_taught_with_the_whole_card_and_its_orientation(tmp_path):
    """With `numerals`, each card whose middle shows gives a central numeral crop per frame turn,
    labelled as its whole-card crop (class and upright / turned), and no other."""
    from vision.train.crops import NUMERAL, WHOLE, scene_crops

    name = _work((str(tmp_path), "train", 17100, 0, False, 0.0, 0.0, None, "11-nimmt"))
    path = str(tmp_path / f"{name}.jpg")
    _x, y0, k0 = scene_crops((path, 1, False, False))
    x, y, k = scene_crops((path, 1, True, False))
    assert NUMERAL not in k0
    assert (k == NUMERAL).sum() >= 4
    # Per card: whole (turn 0), numeral (turn 0), ..., so each numeral follows its whole crop.
    for i in np.nonzero(k == NUMERAL)[0]:
        assert k[i - 1] == WHOLE and y[i - 1] == y[i]
    ups = y[k == NUMERAL]
    assert set(ups % 2) == {0, 1}
    assert x.shape[1:] == (32, 32, 3)


def _corner_labels(design, cover: tuple[float, float, float, float] | None = None) -> list[int]:
    """Labels of the corner crops (frame upright, then turned half) of an upright 7 of `design`
    200×300 px, with the box `cover` (card fractions u0, v0, u1, v1) hidden."""
    card = {"kind": "number", "value": 7, "color": "blue"}
    inks = index_ink(card, design, _idx_regions_canonical(card, design))
    x0, y0, w, h = 100, 100, 200, 300
    quad = np.array([[x0, y0], [x0 + w, y0], [x0 + w, y0 + h], [x0, y0 + h]], np.float64)
    own = np.zeros((600, 500), np.float32)
    cv2.fillConvexPoly(own, quad.astype(np.int32), 1.0)
    if cover is not None:
        u0, v0, u1, v1 = cover
        own[int(y0 + v0 * h):int(y0 + v1 * h), int(x0 + u0 * w):int(x0 + u1 * w)] = 0.0
    pyr = Pyramid(np.full((600, 500, 3), 128, np.uint8))
    out = crops_for(np.random.default_rng(0), pyr, quad, own, card, inks, centre_ok=1.0, corners=True)
    return [y for _x, y, kind in out if kind == CORNER]


def test_a_four_index_design_teaches_its_top_right_and_bottom_left_corners_as_the_card():
    from dataclasses import replace

    design = replace(random_design(np.random.default_rng(3), "train", template="classic"), indices="four")
    assert len(_idx_regions_canonical({"kind": "number", "value": 7, "color": "blue"}, design)) == 4
    assert _corner_labels(design) == [CLS["7"] * 2, CLS["7"] * 2]
    # The top-right index covered: that corner is "none", the bottom-left one still the card.
    assert _corner_labels(design, (0.55, 0.0, 1.0, 0.35)) == [NONE * 2, CLS["7"] * 2]


def test_a_two_index_design_teaches_its_blank_corners_as_no_card_and_leaves_covered_ones_out():
    from dataclasses import replace

    design = replace(random_design(np.random.default_rng(3), "train", template="classic"), indices="tl_br")
    assert _corner_labels(design) == [NONE * 2, NONE * 2]
    # Covered, the corner shows whatever lies over it: not taught.
    assert _corner_labels(design, (0.55, 0.0, 1.0, 0.35)) == [NONE * 2]
