"""Rendered scenes of every game: the truth matches what was drawn, pixel for pixel."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from vision.render import GAMES, CameraSpec, random_scene, render, render_static
from vision.train.evaluate import HIDDEN_SHOWN

SMALL = (820, 616)  # half the Pi camera's binned mode: same geometry, four times faster


def _scene(game: str, seed: int, **kw):
    return random_scene(game, np.random.default_rng([seed, GAMES.index(game)]), "train", size=SMALL, **kw)


def _poly_mask(corners, shape) -> np.ndarray:
    m = np.zeros(shape, np.uint8)
    cv2.fillConvexPoly(m, np.round(np.asarray(corners, np.float64) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
    return m.astype(bool)


@pytest.fixture(scope="module", params=GAMES)
def rendered(request):
    game = request.param
    scene = _scene(game, 11, hand=False, camera={"k1": 0.04, "tilt_x_deg": 3.0, "tilt_y_deg": -2.5})
    static = render_static(scene)
    return game, scene, static


def test_truth_is_json_with_the_recognize_fields(rendered):
    game, _scene_, static = rendered
    t = static.truth
    json.dumps(t)
    assert t["game"] == game and t["size"] == list(SMALL)
    for c in t["cards"]:
        assert set(c) - {"occluded", "square"} == {"kind", "value", "color", "corners", "confidence"}
        assert c["kind"] in ("number", "joker", "link", "bonus", "symbol", "bull")
        assert c["color"] in ("yellow", "red", "blue", "green", "gray", None)
        assert c["confidence"] == 1.0 and len(c["corners"]) == 4
    for tok in t["tokens"]:
        assert set(tok) - {"square"} == {"value", "color", "center", "confidence"}
    for d in t["dice"]:
        assert d["value"] in (1, 2, 3, 4, 5, 6, "star")


def test_corners_lie_inside_the_image(rendered):
    _game, _sc, static = rendered
    w, h = SMALL
    for key in ("cards", "dice"):
        for e in static.truth[key]:
            q = np.asarray(e["corners"])
            assert (q[:, 0] >= -0.5).all() and (q[:, 0] <= w - 0.5).all()
            assert (q[:, 1] >= -0.5).all() and (q[:, 1] <= h - 0.5).all()


def test_corners_go_round_the_drawn_outline(rendered):
    """The truth quad and the pixels where the object was actually drawn coincide (perspective,
    tilt and lens distortion included): full overlap for visible things, containment for covered ones."""
    _game, scene, static = rendered
    ids = static.id_image()
    checked = 0
    for i, (lst, k) in static.where.items():
        if lst not in ("cards", "dice"):
            continue
        e = static.truth[lst][k]
        drawn = ids == i + 1
        quad = _poly_mask(e["corners"], ids.shape)
        if drawn.sum() < 30:
            continue
        inside = (drawn & quad).sum() / drawn.sum()
        assert inside > 0.97, (scene.items[i], inside)
        if not e.get("occluded") and scene.items[i].obj in ("card", "tile", "die"):
            iou = (drawn & quad).sum() / (drawn | quad).sum()
            # Tiles and dice are small with round corners: their pixels fill less of the quad.
            assert iou > (0.88 if scene.items[i].obj == "card" else 0.7), (scene.items[i], iou)
        checked += 1
    assert checked > 0


def test_tokens_are_centred_on_their_drawn_disc(rendered):
    game, scene, static = rendered
    if game != "numeri":
        pytest.skip("tokens only in numeri")
    ids = static.id_image()
    for i, (lst, k) in static.where.items():
        if lst != "tokens":
            continue
        ys, xs = np.nonzero(ids == i + 1)
        if len(xs) < 30:
            continue
        cx, cy = static.truth["tokens"][k]["center"]
        assert abs(xs.mean() - cx) < 3.0 and abs(ys.mean() - cy) < 3.0


def test_board_truth_and_squares(rendered):
    game, scene, static = rendered
    if game not in ("start11", "numeri"):
        assert "board" not in static.truth
        return
    t = static.truth
    assert len(t["board"]["corners"]) == 4
    squares = t["layout"]["squares"]
    assert len(squares) == (88 if game == "start11" else 37)
    for i, (lst, k) in static.where.items():
        it = scene.items[i]
        if it.square is None or lst not in ("cards", "tokens"):
            continue
        entry = t[lst][k]
        assert entry["square"] == it.square
        sq = squares[str(it.square)]
        centre = np.mean(entry["corners"], axis=0) if lst == "cards" else np.asarray(entry["center"])
        assert np.hypot(*(centre - np.asarray(sq["center"]))) < 8.0
        assert sq["occupied"] == {"list": lst, "index": k}


def test_an_11_board_can_hold_misplaced_tiles_without_changing_the_usual_scenes():
    """`misplaced`: coloured tiles laid on their number's square of another row (an illegal move,
    for the board benchmark's --misplaced), each tile still once on the board (a tile laid on
    another row is not on its own square). Asked for none, the scene is the one the seed always
    gave (the draws are made only when asked)."""
    def tiles(scene):
        return [(it.card["kind"], it.card["value"], it.card["color"], it.square) for it in scene.items
                if it.obj == "tile" and it.square is not None]

    usual = tiles(_scene("start11", 5))
    assert tiles(_scene("start11", 5, misplaced=0.0)) == usual
    wrong = tiles(_scene("start11", 5, misplaced=1.0))
    coloured = [t for t in wrong if t[0] == "number"]
    assert coloured and all(not str(sq).startswith(f"{colour}-") for _k, _v, colour, sq in coloured)
    assert all(sq == f"{sq.split('-')[0]}-{v}" for _k, v, _c, sq in coloured)  # still their number's square
    assert all(c == "gray" for k, _v, c, _sq in wrong if k == "joker")
    for share in (0.1, 0.5, 1.0):
        for seed in range(5, 25):
            numbers = [(v, c) for k, v, c, _sq in tiles(_scene("start11", seed, misplaced=share)) if k == "number"]
            assert len(numbers) == len(set(numbers)), (share, seed)


def test_symbol_tiles_lie_beside_the_board_only_in_the_symbols_variant_one_per_square_left():
    """The variant's players hold symbol tiles, so some lie beside the board; each of the eight
    (one per symbol square) once at most, on the board or beside it. Drawn from a stream of
    their own: the board's tiles and the other loose tiles are the ones the seed always gave."""
    from vision.layouts import load_layout

    squares = sorted(q.symbol for q in load_layout("start11").squares if q.kind == "symbol")
    beside = 0
    for seed in range(40):
        scene = _scene("start11", seed)
        symbols = [it for it in scene.items if it.obj == "tile" and it.card["kind"] == "symbol"]
        loose = [it for it in symbols if it.square is None]
        if scene.meta.get("variant") != "symbols":
            assert symbols == []
            continue
        beside += len(loose)
        held = sorted(str(it.card["value"]) for it in symbols)
        assert all(held.count(s) <= squares.count(s) for s in set(held)), held
        assert all(it.group == "loose" for it in loose)
    assert beside > 0


def test_an_11_table_holds_each_coloured_tile_once_and_each_grey_joker_four_times_at_most():
    """Loose tiles are drawn from those not on the board (RULES.md: one of each coloured tile,
    four of each grey joker); with the board full, none lie beside it."""
    from collections import Counter

    loose = 0
    for seed in range(60):
        scene = _scene("start11", seed)
        tiles = Counter((it.card["kind"], it.card["value"], it.card["color"]) for it in scene.items
                        if it.obj == "tile" and it.card["kind"] in ("number", "joker"))
        assert all(n <= (4 if kind == "joker" else 1) for (kind, _v, _c), n in tiles.items()), tiles
        loose += sum(1 for it in scene.items if it.group == "loose" and it.card["kind"] != "symbol")
    assert loose > 60


def test_same_seed_same_image_and_other_seed_differs():
    a, ta = render(_scene("elfer-raus", 3))
    b, tb = render(_scene("elfer-raus", 3))
    c, _ = render(_scene("elfer-raus", 4))
    assert np.array_equal(a, b) and ta == tb
    assert a.shape == (SMALL[1], SMALL[0], 3) and a.dtype == np.uint8
    assert not np.array_equal(a, c)


def test_fanned_rows_flag_covered_cards_as_occluded():
    """In an overlapped row only the card on top shows its big numeral; the others show an index."""
    for seed in range(6):
        scene = _scene("elfer-raus", 100 + seed, mode="overlap", hand=False, distractors=False, variant="base")
        if scene.design.indices == "none":
            continue
        st = render_static(scene)
        for row in st.truth["layout"]["rows"]:
            refs = [r for r in row["cards"] if r is not None and r["list"] == "cards"]
            flags = [bool(st.truth["cards"][r["index"]].get("occluded")) for r in refs]
            if len(row["values"]) > 1 and len(refs) == len(row["values"]):
                assert flags.count(False) == 1, (row, flags)
        return
    pytest.fail("no design with corner indices in six seeds")


def test_stacked_rows_show_only_the_outermost_cards():
    scene = _scene("elfer-raus", 7, mode="stacked", hand=False, distractors=False, variant="base", rows=4)
    st = render_static(scene)
    shown = {(c["color"], c["value"]) for c in st.truth["cards"]}
    hidden = {(c["color"], c["value"]) for c in st.truth["hidden"]}
    for row in scene.meta["rows"]:
        vals = row["values"]
        assert (row["color"], 11) in shown
        assert (row["color"], min(vals)) in shown and (row["color"], max(vals)) in shown
        for v in vals:
            if v not in (min(vals), max(vals), 11):
                assert (row["color"], v) in hidden and (row["color"], v) not in shown
    # Under the outer cards they barely show: a reading of one would be a false card.
    assert all(0.0 <= c["shown"] < HIDDEN_SHOWN for c in st.truth["hidden"])


def test_pile_tops_are_reported_and_the_rest_hidden():
    for seed in range(3):
        scene = _scene("11-nimmt", 20 + seed, hand=False, distractors=False)
        st = render_static(scene)
        shown = [c["value"] for c in st.truth["cards"] if c["kind"] == "number"]
        hidden = {c["value"] for c in st.truth["hidden"]}
        for pile in st.truth["layout"]["piles"]:
            top = pile["values"][-1]
            assert top in shown and pile["top"]["list"] == "cards"
            for v in pile["values"][:-1]:
                assert v not in shown and v in hidden
        assert all(c.get("pile") for c in st.truth["hidden"] if c["kind"] == "number")  # 11 nimmt! piles only
        assert all(c["color"] is None for c in st.truth["cards"])


@pytest.mark.parametrize("game", ["elevens", "elfer-raus", "elfer-raus-junior", "11-nimmt"])
def test_cards_laid_out_to_be_counted_come_from_one_deck(game):
    """Each number card is in the deck once (RULES.md): a round-end spread never shows one twice,
    and 11 Elevens has four jokers. (Drawn with repeats, 1 table in 10 held two yellow 3s.)"""
    for seed in range(60):
        scene = random_scene(game, np.random.default_rng([seed, 5]), "train", mode="count", hand=False)
        cards = [i.card for i in scene.items if i.obj == "card"]
        numbers = [(c["value"], c["color"]) for c in cards if c["kind"] == "number"]
        assert len(numbers) == len(set(numbers)), (seed, numbers)
        assert sum(c["kind"] == "joker" for c in cards) <= 4

def test_hand_is_flagged_with_its_area():
    with_hand, t1 = render(_scene("elevens", 5, hand=True))
    without, t0 = render(_scene("elevens", 5, hand=False))
    assert t1["hand"] is True and 0.002 < t1["hand_mask_area"] < 0.9
    assert t0["hand"] is False and t0["hand_mask_area"] == 0.0
    assert set(t1["under_hand"]) == {"cards", "tokens", "dice"}
    # Same table under the hand: only the hand's region differs much.
    diff = np.abs(with_hand.astype(int) - without.astype(int)).max(axis=2) > 40
    assert 0.0 < diff.mean() < 0.9


def test_a_camera_override_is_used():
    scene = _scene("numeri", 2, camera=CameraSpec(height_mm=700, view_w_mm=900, jpeg_quality=None, noise=0.0,
                                                  shot=0.0, focus_sigma=0.0), hand=False)
    a, _ = render(scene)
    b, _ = render(scene)
    assert np.array_equal(a, b)
    assert scene.camera.view_w_mm == 900
