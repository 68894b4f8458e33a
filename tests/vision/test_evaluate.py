"""The benchmark's scoring of one photo (`vision.train.evaluate.score_scene`)."""

from __future__ import annotations

from vision.train.evaluate import confirm_from_truth, score_scene


def _card(value: int, color: str, x: float, y: float, w: float = 100.0) -> dict:
    h = 1.5 * w
    return {"kind": "number", "value": value, "color": color,
            "corners": [[x - w / 2, y - h / 2], [x + w / 2, y - h / 2], [x + w / 2, y + h / 2], [x - w / 2, y + h / 2]]}


def _reading(value: int, color: str, x: float, y: float) -> dict:
    return {**_card(value, color, x, y), "confidence": 0.9}


def test_a_reading_is_paired_with_the_card_it_names_before_a_nearer_one():
    """Two cards of a heap lie 15 pixels apart; the reading of the red 20 lies nearer the blue
    7's centre. Paired by place alone it would be a misread 7 and a missed 20."""
    truth = {"cards": [_card(20, "red", 500, 500), _card(7, "blue", 515, 500)]}
    s = score_scene(truth, [_reading(20, "red", 512, 500)])
    assert (s.matched, s.exact) == (1, 1)
    assert s.exact_by_place == 0  # paired by place alone: a misread 7 and a missed 20
    assert [m[1]["value"] for m in s.missed] == [7]
    assert s.errors == [] and s.extra == []


def test_a_wrong_reading_is_still_a_misread_of_the_nearest_card_and_far_ones_are_not_paired():
    truth = {"cards": [_card(20, "red", 500, 500), _card(7, "blue", 900, 500)]}
    s = score_scene(truth, [_reading(12, "red", 505, 500), _reading(7, "blue", 900 + 31, 500)])
    assert (s.matched, s.exact) == (1, 0)
    assert s.errors[0][1]["value"] == 20 and s.errors[0][2]["value"] == 12
    assert [m[1]["value"] for m in s.missed] == [7]  # 31 px off a 100 px card: beyond 0.3 of a width
    assert [e[1]["value"] for e in s.extra] == [7]
    assert s.scenes_exact == 0


def test_a_hidden_card_in_view_read_right_neither_counts_nor_hurts_but_misnamed_is_a_false_card():
    """A card under another, half of it in view but neither its middle nor an index wholly
    (the truth lists it hidden): read right where it lies it is no false card; read as another
    card, or read where a card barely shows, it is one."""
    half, sliver = {**_card(3, "red", 300, 500), "shown": 0.5}, {**_card(9, "green", 700, 500), "shown": 0.1}
    truth = {"cards": [_card(20, "red", 500, 500)], "hidden": [half, sliver]}
    s = score_scene(truth, [_reading(20, "red", 500, 500), _reading(3, "red", 305, 500)])
    assert (s.predicted, s.matched, s.exact, s.seen_hidden, s.extra) == (1, 1, 1, 1, [])
    assert s.scenes_exact == 1
    assert s.summary()["precision"] == 1.0 and s.summary()["precision_counting_hidden"] == 0.5
    s = score_scene(truth, [_reading(20, "red", 500, 500), _reading(8, "red", 305, 500),
                            _reading(9, "green", 700, 500)])
    assert (s.predicted, s.seen_hidden, s.scenes_exact) == (3, 0, 0)
    assert sorted(e[1]["value"] for e in s.extra) == [8, 9]
    s = score_scene(truth, [_reading(20, "red", 500, 500), _reading(3, "red", 345, 500)])  # 45 px off: not there
    assert (s.seen_hidden, [e[1]["value"] for e in s.extra]) == (0, [3])
    half["pile"] = True  # under an 11 nimmt! pile's top: not the game's
    s = score_scene(truth, [_reading(20, "red", 500, 500), _reading(3, "red", 305, 500)])
    assert (s.seen_hidden, [e[1]["value"] for e in s.extra]) == (0, [3])


def test_a_card_cut_by_a_hair_read_right_neither_counts_nor_hurts_but_one_cut_more_is_a_false_card():
    """Cards cut by the picture's border are not required; one with 97 % or more of it in the
    picture, read right where it lies, is no false card either. Cut more, or misnamed, it is."""
    # 100 × 150 cards whose bottom edge runs past a 1000 × 1000 picture by 3 px (2 %) and by 15 px (10 %)
    hair, more = _card(4, "blue", 200, 1000 - 75 + 3), _card(6, "green", 600, 1000 - 75 + 15)
    truth = {"cards": [_card(20, "red", 500, 500)], "outside": [hair, more], "size": [1000, 1000]}
    read_hair, read_more = _reading(4, "blue", 200, 1000 - 75 - 2), _reading(6, "green", 600, 1000 - 75 - 2)
    s = score_scene(truth, [_reading(20, "red", 500, 500), read_hair])
    assert (s.predicted, s.matched, s.exact, s.seen_cut, s.seen_hidden, s.extra) == (1, 1, 1, 1, 0, [])
    assert s.scenes_exact == 1 and s.summary()["precision_counting_hidden"] == 0.5
    s = score_scene(truth, [_reading(20, "red", 500, 500), read_more, _reading(5, "blue", 200, 1000 - 75 - 2)])
    assert (s.predicted, s.seen_cut, s.scenes_exact) == (3, 0, 0)
    assert sorted(e[1]["value"] for e in s.extra) == [5, 6]
    assert score_scene({**truth, "size": None}, [read_hair]).seen_cut == 0  # no picture size: nothing spared


def test_confirming_a_draft_names_the_card_lying_there():
    truth = {"cards": [{"kind": "number", "value": 7, "color": "red",
                        "corners": [[0, 0], [100, 0], [100, 150], [0, 150]]}]}
    near = {"corners": [[20, 0], [120, 0], [120, 150], [20, 150]]}  # 0.2 of a width off
    far = {"corners": [[40, 0], [140, 0], [140, 150], [40, 150]]}  # 0.4 off: another card, or none
    assert confirm_from_truth([near, far], truth) == [{"kind": "number", "value": 7, "color": "red"}, None]
    assert confirm_from_truth([near], {"cards": []}) == [None]
