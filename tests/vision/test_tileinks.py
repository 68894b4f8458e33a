"""The 11! board's own inks (`vision.tileinks`): pure arithmetic on crops and (a*, b*) points."""

from __future__ import annotations

import cv2
import numpy as np

from vision import tileinks

COLOURS = ("yellow", "red", "blue", "green")


def _tile(ink_bgr: tuple[int, int, int], stock=(225, 240, 245), side: int = 40) -> np.ndarray:
    """A cream tile face filling the crop, with a thick numeral-like bar of `ink_bgr`."""
    crop = np.full((side, side, 3), stock, np.uint8)
    cv2.rectangle(crop, (16, 11), (23, 29), ink_bgr, -1)
    return crop


def _hue(ab: np.ndarray) -> float:
    return float(np.degrees(np.arctan2(ab[1], ab[0])) % 360)


def test_a_tiles_ink_is_measured_against_its_own_stock_and_a_plain_face_has_none() -> None:
    orange, crimson = (40, 130, 235), (60, 30, 190)
    inks = tileinks.tile_inks([_tile(orange), _tile(crimson), _tile((180, 192, 196)),
                               np.full((40, 40, 3), 230, np.uint8)])
    assert 50 < _hue(inks[0]) < 75  # an orange-printed yellow's hue (colour.BORDERS)
    assert _hue(inks[1]) < 45 or _hue(inks[1]) > 340  # red
    assert np.isnan(inks[2:]).all()  # grey ink (the stock, darker), a blank face: no colour
    # Under a warm lamp the stock turns with the ink: the hue it is read at stays.
    lamp = np.array([0.75, 0.9, 1.0])
    warm = tileinks.tile_inks([(_tile(orange) * lamp).astype(np.uint8)])[0]
    assert abs(_hue(warm) - _hue(inks[0])) < 8


def test_the_boards_inks_come_from_tiles_read_as_their_rows_colour() -> None:
    y, r = np.array([14.0, 34.0]), np.array([34.0, 20.0])
    tiles = [("yellow", "yellow", y), ("yellow", "yellow", y + 1), ("yellow", "red", y),  # that one: not counted
             ("red", "red", r), ("red", "red", r - 1), ("blue", "blue", np.array([10.0, -30.0])),  # one: too few
             ("green", "green", np.array([np.nan, np.nan])), ("green", "green", np.array([-30.0, 30.0]))]
    inks = tileinks.board_inks(tiles)
    assert set(inks) == {"yellow", "red"}
    np.testing.assert_allclose(inks["yellow"], y + 0.5)
    np.testing.assert_allclose(inks["red"], r - 0.5)


def test_an_ink_far_from_a_colours_ink_on_the_board_makes_that_colour_unlikely() -> None:
    inks = {"yellow": np.array([14.0, 34.0]), "red": np.array([34.0, 20.0])}
    like = dict(zip(COLOURS, tileinks.ink_likelihood(np.array([15.0, 33.0]), inks, COLOURS)[0], strict=True))
    assert like["yellow"] > 0.9
    assert like["red"] < 0.02  # 23 a*b* away: some 60 times less likely
    # Blue and green are on no tile read on its row yet: their ink may lie anywhere, so they
    # are as likely as the likeliest placed colour (the ink never names a colour alone).
    assert like["blue"] == like["green"] == like["yellow"]
    # Half way between the two inks, neither is preferred.
    mid = tileinks.ink_likelihood(np.array([24.0, 27.0]), inks, COLOURS)[0]
    assert mid[0] == mid[1] > tileinks.INK_FLOOR


def test_the_ink_says_nothing_without_two_placed_colours_or_an_ink() -> None:
    one = {"yellow": np.array([14.0, 34.0])}
    assert (tileinks.ink_likelihood(np.array([34.0, 20.0]), one, COLOURS) == 1).all()
    two = {**one, "red": np.array([34.0, 20.0])}
    both = tileinks.ink_likelihood(np.array([[np.nan, np.nan], [34.0, 20.0]]), two, COLOURS)
    assert (both[0] == 1).all() and both[1].min() < 0.02  # one tile with no ink, one with red's
