"""Rows of consecutive numbers: finding them among outlines, and what a row says of a card."""

from __future__ import annotations

import math

import numpy as np
import pytest

from vision.rows import (
    Outline,
    assign_colours,
    cut_readings,
    edge_pitch,
    empty_places,
    find_rows,
    lattice_pitches,
    one_line,
    row_evidence,
    with_cut_index,
)

W, H = 60.0, 90.0


def _row(xs, y=200.0, angle=90.0):
    """Outlines along a row: long sides upright (90°) means the row runs along x."""
    return [Outline((x, y), angle, W, H) for x in xs]


def test_a_row_is_found_in_order_with_the_places_between_its_cards():
    # An overlapping row at a pitch of 0.3 card widths, one card missing (two places).
    xs = [100, 118, 136, 172, 190]
    outlines = _row(xs[::-1])  # given in any order
    rows = find_rows(outlines)
    assert len(rows) == 1
    assert [outlines[i].centre[0] for i in rows[0].members] == xs
    assert rows[0].steps == pytest.approx((1, 1, 2, 1))


def test_two_parallel_rows_a_crosswise_card_and_a_lone_card_are_kept_apart():
    outlines = _row([100, 120, 140]) + _row([100, 120, 140], y=200 + 1.1 * H)
    outlines.append(Outline((160.0, 200 + 0.55 * H), 0.0, W, H))  # a link card lying across
    outlines.append(Outline((600.0, 600.0), 90.0, W, H))  # far away
    rows = find_rows(outlines)
    assert sorted(sorted(r.members) for r in rows) == [[0, 1, 2], [3, 4, 5]]


def test_a_turned_row_is_a_row():
    u = np.array([math.sin(math.radians(120.0)), -math.cos(math.radians(120.0))])
    pts = [np.array([300.0, 300.0]) + k * 0.4 * W * u for k in range(4)]
    rows = find_rows([Outline(tuple(p), 120.0 + (k - 1.5), W, H) for k, p in enumerate(pts)])
    assert len(rows) == 1 and rows[0].steps == pytest.approx((1, 1, 1), abs=0.05)


def _onehot(nv, v, p=0.98):
    e = np.full(nv, (1 - p) / (nv - 1))
    e[v - 1] = p
    return e


def _quad(x: float) -> np.ndarray:
    """The outline of an upright card of a row along y = 200, centred at x."""
    return np.array([[x - W / 2, 155], [x + W / 2, 155], [x + W / 2, 245], [x - W / 2, 245]], float)


def _strip(x: float, probs: dict[str, float], hidden: bool = True):
    """A red card of such a row as the recogniser holds it, reading `probs` (class: probability)."""
    from vision.classify import CARD_CLASSES
    from vision.detect import Detection
    from vision.pipeline import _Card

    det = Detection(quad=_quad(x), centre=(x, 200.0), angle=90.0, size=(W, H), face=1.0, pixels=100,
                    visible={"centre": 0.0 if hidden else 1.0, "index0": 1.0, "index2": 0.0})
    c = _Card(det)
    joint = np.full((len(CARD_CLASSES), 2), 1e-6)
    for label, p in probs.items():
        joint[CARD_CLASSES.index(label), 0] = p
    c.joint, c.card_prob, c.colour, c.colour_conf = joint / joint.sum(), 0.99, "red", 1.0
    return c


@pytest.mark.parametrize("order", [1, -1])
def test_a_card_between_a_15_and_a_17_is_likely_the_16_either_way_the_row_runs(order):
    nv = 20
    vals = [15, None, 17][::order]
    e = np.array([_onehot(nv, v) if v else np.full(nv, 1 / nv) for v in vals])
    m = row_evidence(e, (1, 1), brk=0.2)
    assert int(np.argmax(m[1])) + 1 == 16
    assert m[1, 15] > 0.5
    assert np.allclose(m.sum(axis=1), 1.0)


def test_the_places_between_cards_count():
    nv = 20
    e = np.array([_onehot(nv, 12), np.full(nv, 1 / nv), _onehot(nv, 16)])
    m = row_evidence(e, (1, 3), brk=0.2)  # 12, ?, (two cards hidden), 16
    assert int(np.argmax(m[1])) + 1 == 13


def test_a_surely_read_misplaced_card_keeps_its_reading():
    """The row's evidence is soft: a card whose picture says 9 between a 15 and a 17 is still a 9
    (the referee must see the wrong card), while one torn between 6 and 16 becomes the 16."""
    nv = 20
    e = np.array([_onehot(nv, 15), _onehot(nv, 9), _onehot(nv, 17)])
    m = row_evidence(e, (1, 1), brk=0.2)
    assert int(np.argmax(m[1] * e[1])) + 1 == 9
    torn = np.full(nv, 0.01)
    torn[5], torn[15] = 0.6, 0.3  # reads 6 more than 16
    m = row_evidence(np.array([_onehot(nv, 15), torn, _onehot(nv, 17)]), (1, 1), brk=0.2)
    assert int(np.argmax(m[1] * torn)) + 1 == 16


def test_a_step_of_no_places_ties_nothing():
    nv = 11
    e = np.array([_onehot(nv, 4), np.full(nv, 1 / nv)])
    m = row_evidence(e, (0,), brk=0.2)
    assert np.allclose(m[1], 1 / nv)


def test_rows_in_the_recogniser_read_a_torn_card_as_its_place_calls_for():
    """In the recogniser: a strip read 6 (0.6) or 16 (0.4) between a sure 15 and a sure 17 of
    one colour reads 16; without rows (`row_break` 1) it stays a 6. The 11 nimmt! deck has no
    rows: there it stays a 6 too."""
    from vision.classify import CARD_CLASSES
    from vision.pipeline import Recognizer, RecognizerConfig

    def middle(game, brk):
        rec = Recognizer(game, RecognizerConfig(row_break=brk))
        cards = [_strip(100, {"15": 0.98}), _strip(120, {"6": 0.6, "16": 0.4}), _strip(140, {"17": 0.98})]
        rec._rows(None, cards)
        return CARD_CLASSES[int(cards[1].joint.sum(axis=1).argmax())]

    assert middle("elfer-raus", 0.2) == "16"
    assert middle("elfer-raus", 1.0) == "6"
    assert middle("11-nimmt", 0.2) == "6"


def test_what_shows_of_a_cut_two_digit_numeral():
    pairs = set(cut_readings(21))
    assert {(17, 7), (17, 1), (21, 2), (21, 1), (12, 1), (12, 2), (10, 1), (20, 2), (11, 1)} <= pairs
    assert not any(t < 10 or shown < 1 for t, shown in pairs)  # a one-digit number has no cut; "0" is no card
    assert max(t for t, _ in cut_readings(11)) == 11  # the junior deck ends at 11


def test_a_cut_index_weighs_the_numbers_it_may_be_without_dropping_its_own_digit():
    nv = 20
    q = with_cut_index(_onehot(nv, 7, p=0.99), share=0.3)
    assert q[6] == pytest.approx(0.99) and q[16] == pytest.approx(0.3 * 0.99)
    assert q[13] < 0.01  # a 14 shows no "7"
    assert int(np.argmax(q)) + 1 == 7  # alone, the strip stays what it shows


def test_a_row_of_cut_strips_above_a_whole_14_reads_its_tens():
    """A tightly overlapping row 14 15 16 17 18 whose strips show only their last digit, surely:
    with the cut taken into account the row says 16 17 18; a row 1 2 3 4 read on strips stays
    1 2 3 4 (the digit as read is likelier than its tens)."""
    nv = 20
    strips = [_onehot(nv, 14), _onehot(nv, 15)] + [with_cut_index(_onehot(nv, v, 0.99)) for v in (6, 7, 8)]
    e = np.array([x / x.sum() for x in strips])
    m = row_evidence(e, (1, 1, 1, 1), brk=0.2)
    assert [int(np.argmax(m[i] * e[i])) + 1 for i in range(2, 5)] == [16, 17, 18]
    low = np.array([(lambda x: x / x.sum())(with_cut_index(_onehot(nv, v, 0.99))) for v in (1, 2, 3, 4)])
    m = row_evidence(low, (1, 1, 1), brk=0.2)
    assert [int(np.argmax(m[i] * low[i])) + 1 for i in range(4)] == [1, 2, 3, 4]


@pytest.mark.parametrize("cut_share", [0.3, 0.0])
def test_in_the_recogniser_strips_showing_one_digit_take_their_rows_tens(cut_share):
    """Elfer raus!: a whole 14, then strips read surely 15, 6, 7, 8, 9, 20 (the tens of four under
    the next card): they are the 16, 17, 18, 19; with the cut left out (`cut_share` 0) they stay
    6, 7, 8, 9. A card seen whole is not changed: the picture shows all of its index."""
    from vision.classify import CARD_CLASSES
    from vision.pipeline import Recognizer, RecognizerConfig

    rec = Recognizer("elfer-raus", RecognizerConfig(cut_share=cut_share))
    cards = [_strip(100, {"14": 0.99}, hidden=False), _strip(118, {"15": 0.99})]
    cards += [_strip(118 + 18 * k, {str(v): 0.999}) for k, v in enumerate((6, 7, 8, 9, 20), start=1)]
    rec._rows(None, cards)
    read = [CARD_CLASSES[int(c.joint.sum(axis=1).argmax())] for c in cards]
    assert read == (["14", "15", "16", "17", "18", "19", "20"] if cut_share else
                    ["14", "15", "6", "7", "8", "9", "20"])
    whole = [_strip(100, {"14": 0.99}, hidden=False), _strip(118, {"15": 0.99}),
             _strip(136, {"6": 0.999}, hidden=False)]
    Recognizer("elfer-raus")._rows(None, whole)
    assert CARD_CLASSES[int(whole[2].joint.sum(axis=1).argmax())] == "6"


def test_cards_kept_from_an_earlier_picture_are_row_neighbours():
    """A region read again (the service reads only where the table changed): the torn card's
    row neighbours are readings kept from the picture before, and still say it is the 16."""
    from vision.classify import CARD_CLASSES
    from vision.pipeline import Recognizer
    from vision.types import CardReading

    torn = _strip(120, {"6": 0.6, "16": 0.4})
    kept = [CardReading("number", v, "red", tuple(map(tuple, _quad(x))), 0.97, occluded=True)
            for v, x in ((15, 100), (17, 140))]
    rec = Recognizer("elfer-raus")
    cards = [torn]
    rec._rows(None, cards, kept)
    assert len(cards) == 1 and CARD_CLASSES[int(torn.joint.sum(axis=1).argmax())] == "16"
    alone = _strip(120, {"6": 0.6, "16": 0.4})
    rec._rows(None, [alone])
    assert CARD_CLASSES[int(alone.joint.sum(axis=1).argmax())] == "6"


def _true_outlines(truth):
    """Detections at the truth's outlines (what is seen: its occluded flag, both indices)."""
    from vision.detect import Detection

    dets = []
    for t in truth["cards"]:
        q = np.asarray(t["corners"], np.float64)
        v = q[3] - q[0]
        seen = 0.0 if t.get("occluded") else 1.0
        dets.append(Detection(quad=q, centre=tuple(q.mean(axis=0)), angle=math.degrees(math.atan2(v[1], v[0])) % 180,
                              size=(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(v))), face=1.0,
                              pixels=100, visible={"centre": seen, "index0": 1.0, "index2": 1.0}))
    return dets


def _inside_rows(truth, dets, most: int = 4):
    """(index, truth) of up to `most` partly hidden cards with partly hidden cards on both sides
    (inside a row), and whether a reading names that card where it lies."""
    picked = []
    for i, t in enumerate(truth["cards"]):
        c, w = dets[i].centre, dets[i].size[0]
        beside = [d for d in dets if d.visible["centre"] == 0.0 and 0.15 * w < np.hypot(*np.subtract(d.centre, c)) < w]
        if t.get("occluded") and len(beside) >= 2 and len(picked) < most:
            picked.append((i, t))

    def named(read, i: int, t: dict) -> bool:
        c, w = dets[i].centre, dets[i].size[0]
        return any(r.value == t["value"] and r.color == t["color"]
                   and np.hypot(*np.subtract(np.asarray(r.corners, float).mean(axis=0), c)) < 0.3 * w for r in read)

    return picked, named


def test_a_card_the_detector_missed_inside_a_row_is_read_at_its_place():
    """A rendered overlapping row read at its true outlines, less one partly hidden card's (as
    when the detector merges it with a neighbour): the gap of two places is read, and the card
    is found there; without rows it is not."""
    from vision.classify import Pyramid
    from vision.pipeline import ReadContext, Recognizer, RecognizerConfig
    from vision.render import render
    from vision.train.evaluate import FULL, condition_scene

    image, truth = render(condition_scene("elfer-raus", "overlap", 1, size=FULL))
    dets = _true_outlines(truth)
    picked, named = _inside_rows(truth, dets)
    found = {0.2: 0, 1.0: 0}
    for i, t in picked:
        for brk in found:
            rec = Recognizer("elfer-raus", RecognizerConfig(row_break=brk))
            ctx = ReadContext(image=image, pyramid=Pyramid(image), game="elfer-raus", recognizer=rec, regions=None)
            found[brk] += named(rec.read_cards(ctx, dets[:i] + dets[i + 1:]), i, t)
    assert len(picked) == 4
    assert found[0.2] >= 3 and found[1.0] == 0, found


def test_a_card_between_two_whose_numbers_jump_is_looked_for_between_them(monkeypatch):
    """A rendered overlapping row at its true outlines, less one partly hidden card's, and the
    gap of two places not read as such (as when the detector's outlines of a tight row come out
    evenly spaced round a card it merged): its neighbours' numbers jump by two, the stretch
    between them is read, and the card is found there; without that it is not. With every
    outline given, nothing is added."""
    import vision.pipeline as pipeline
    from vision.classify import Pyramid
    from vision.pipeline import ReadContext, Recognizer
    from vision.render import render
    from vision.train.evaluate import FULL, condition_scene

    image, truth = render(condition_scene("elfer-raus", "overlap", 1, size=FULL))
    dets = _true_outlines(truth)
    monkeypatch.setattr(pipeline, "empty_places", lambda row: [])
    monkeypatch.setattr(pipeline, "LATTICE_GAIN", math.inf)  # the row's lattice would find it too
    on, off = pipeline.BETWEEN_SURE, 2.0

    def read(given, sure: float):
        monkeypatch.setattr(pipeline, "BETWEEN_SURE", sure)
        rec = Recognizer("elfer-raus")
        ctx = ReadContext(image=image, pyramid=Pyramid(image), game="elfer-raus", recognizer=rec, regions=None)
        return rec.read_cards(ctx, given)

    assert len(read(dets, on)) == len(read(dets, off)), "nothing added to a whole row"
    picked, named = _inside_rows(truth, dets)
    found = {on: 0, off: 0}
    for i, t in picked:
        for sure in found:
            found[sure] += named(read(dets[:i] + dets[i + 1:], sure), i, t)
    assert len(picked) == 4
    assert found[on] >= 3 and found[off] == 0, found


def test_a_run_of_cards_the_detector_missed_is_looked_for_between_its_neighbours(monkeypatch):
    """Held-out rows of a design whose strips show little but a small index lost four to seven
    cards in a run (an elevens row read 17 then 12). The stretch between two neighbours is read
    for up to `BETWEEN_MOST` missed cards: with four outlines of a rendered overlapping row
    taken away, most of them are found again; looked for only across two (as before), none."""
    import vision.pipeline as pipeline
    from vision.classify import Pyramid
    from vision.pipeline import ReadContext, Recognizer
    from vision.render import render
    from vision.train.evaluate import FULL, condition_scene

    shipped = pipeline.BETWEEN_MOST
    monkeypatch.setattr(pipeline, "LATTICE_GAIN", math.inf)  # the row's lattice would find them too
    image, truth = render(condition_scene("elfer-raus", "overlap", 1, size=FULL))
    dets = _true_outlines(truth)
    row = next(r for r in truth["layout"]["rows"] if len(r["cards"]) >= 8)
    members = [c["index"] for c in row["cards"] if c["list"] == "cards"]
    gone = members[2:6]  # four neighbours inside the row, all partly hidden
    assert all(truth["cards"][i].get("occluded") for i in gone)
    given = [d for i, d in enumerate(dets) if i not in gone]

    def found(most: int) -> int:
        monkeypatch.setattr(pipeline, "BETWEEN_MOST", most)
        rec = Recognizer("elfer-raus")
        ctx = ReadContext(image=image, pyramid=Pyramid(image), game="elfer-raus", recognizer=rec, regions=None)
        read = rec.read_cards(ctx, given)
        _picked, named = _inside_rows(truth, dets)
        return sum(named(read, i, truth["cards"][i]) for i in gone)

    assert found(2) == 0
    assert found(shipped) >= 3


def test_one_outline_off_its_place_does_not_shrink_the_pitch():
    """Ten cards 18 px apart, one found 8 px off its place (gaps of 10 and 26): the pitch is
    still 18, so no gap holds a missing card. The smallest gap taken for the pitch made the
    others two places each, and the row's reading looked for cards that are not there."""
    xs = [100.0 + 18.0 * k for k in range(10)]
    xs[5] -= 8.0
    rows = find_rows(_row(xs))
    assert len(rows) == 1
    steps = rows[0].steps
    assert steps[4] == pytest.approx(1.0) and steps[5] == pytest.approx(26 / 18, abs=0.05)
    assert all(s == pytest.approx(1.0, abs=0.05) for k, s in enumerate(steps) if k not in (4, 5))
    assert empty_places(rows[0]) == []


def test_a_row_with_a_gap_of_the_game_keeps_its_pitch():
    # A junior row laid 1, 2, 3 and 10, 11: the wide gap is six places, the others one.
    xs = [100.0, 118.0, 136.0, 262.0, 280.0]
    rows = find_rows(_row(xs))
    assert rows[0].steps == pytest.approx((1, 1, 7, 1), abs=0.05)


def test_lattice_pitch_is_taken_from_the_farthest_card_and_the_median():
    """A row of 20 down to 10 at 57 px a place, read from its whole 20 along -y: two strips inside
    the row were outlined a strip off and read their neighbour's number (12 where 11 lies, 14
    where 13 does). The farthest card gives the pitch; the median is the second guess."""
    whole, axis = np.array([400.0, 900.0]), np.array([0.0, -1.0])
    read = [(whole + axis * 57.0 * 10, 10), (whole + axis * 57.0 * 9, 12), (whole + axis * 57.0 * 7, 14)]
    assert lattice_pitches(20, whole, axis, read, width=154.0) == pytest.approx([57.0, 57.0 * 9 / 8])
    read[1] = (whole + axis * 57.0 * 8, 12)  # read at its place: the median agrees, one guess
    assert lattice_pitches(20, whole, axis, read, width=154.0) == pytest.approx([57.0])


def test_lattice_pitch_needs_a_card_two_places_away_and_an_overlapping_spacing():
    whole, axis = np.array([0.0, 0.0]), np.array([1.0, 0.0])
    assert lattice_pitches(5, whole, axis, [(np.array([50.0, 0.0]), 4)], width=150.0) == []  # one place only
    assert lattice_pitches(5, whole, axis, [(np.array([-120.0, 0.0]), 3)], width=150.0) == []  # behind the whole card
    # 160 px a place: cards laid side by side, not an overlapping row
    assert lattice_pitches(5, whole, axis, [(np.array([320.0, 0.0]), 3)], width=150.0) == []


def _strip_edges(width: float, pitch: float, places: int, rng: np.random.Generator, stray: float = 0.0) -> np.ndarray:
    """An edge profile along a row from the whole card's centre: its far edge at width/2, then
    each hidden card's free edge a place further (`stray`: hand-laid, places off by up to that
    many pixels), on a noisy floor with a few strokes of ink (an index's digits) between them."""
    n = int(width / 2 + pitch * places + width)
    profile = rng.uniform(0.0, 4.0, n)
    for j in range(places + 1):
        at = int(round(width / 2 + j * pitch + (rng.uniform(-stray, stray) if j else 0.0)))
        profile[at - 1:at + 2] += (20.0, 40.0, 20.0)
        ink = at - int(pitch * rng.uniform(0.3, 0.7))
        if ink > 0:
            profile[ink] += 15.0
    return profile


@pytest.mark.parametrize("pitch, places", [(77.0, 4), (21.0, 9), (40.5, 6), (95.0, 3)])
def test_edge_pitch_finds_the_spacing_of_a_rows_strip_edges(pitch, places):
    """The comb picks the pitch whose places fall on the strips' edges, not twice it (its half
    places fall on edges) nor half of it (its places fall between them)."""
    rng = np.random.default_rng(int(pitch * 10))
    width = 150.0
    for stray in (0.0, 2.0):
        profile = _strip_edges(width, pitch, places, rng, stray)
        got = edge_pitch(profile, width / 2, reach=pitch * places, width=width)
        assert got == pytest.approx(pitch, abs=1.0)


def test_edge_pitch_gives_none_without_edges_or_room_for_two_places():
    rng = np.random.default_rng(3)
    width = 150.0
    assert edge_pitch(np.full(600, 3.0), width / 2, reach=300.0, width=width) is None  # no edges at all
    assert edge_pitch(rng.uniform(0.0, 4.0, 600), width / 2, reach=300.0, width=width) is None  # noise only
    profile = _strip_edges(width, 20.0, 1, rng)
    assert edge_pitch(profile, width / 2, reach=20.0, width=width) is None  # no two places of any row's pitch


def test_two_pieces_of_a_row_lie_along_one_line_and_parallel_rows_do_not():
    left, right = _row([100, 160, 220]), _row([700, 760], y=200 + 0.2 * H)
    assert one_line(left, right) and one_line(right, left)
    assert not one_line(left, _row([700, 760], y=200 + 1.1 * H))  # the next row down
    assert not one_line(left, _row([700, 760], angle=60.0))  # lying another way
    turned = [Outline((100 + 60 * k * math.cos(math.radians(30)), 200 + 60 * k * math.sin(math.radians(30))),
                      120.0, W, H) for k in (0, 1, 2, 8, 9)]
    assert one_line(turned[:3], turned[3:])


def test_each_line_of_rows_takes_one_colour_the_one_that_weighs_most_overall():
    # A green line whose strips read yellow more than green, beside the yellow line: 2.8 to 2.0.
    assert assign_colours([{"yellow": 2.0, "green": 1.4}, {"yellow": 1.4}]) == ["green", "yellow"]
    assert assign_colours([{"red": 3.0}, {"red": 1.0}]) == ["red", None]  # nothing left for the second
    four = [{"red": 2.0, "blue": 0.5}, {"blue": 2.0}, {"green": 1.0, "yellow": 0.9}, {"yellow": 1.0}]
    assert assign_colours(four) == ["red", "blue", "green", "yellow"]
    assert assign_colours([]) == [] and assign_colours([{}]) == [None]
    many = [{"red": 0.1 * (k + 1), "blue": 0.05} for k in range(20)]  # the surest of many lines
    assert assign_colours(many)[19] == "red" and assign_colours(many)[18] == "blue"
