"""The benchmark's scoring of one photo (`vision.train.evaluate.score_scene`)."""

from __future__ import annotations

from vision.train.evaluate import score_scene


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
