"""The finders (`vision.finder`): heat maps of where small things lie, shared input, heat at a point."""

from __future__ import annotations

import numpy as np

from vision import tokens as tokens_mod
from vision.board import TILE_FINDER
from vision.boardview import BoardView
from vision.classify import Pyramid
from vision.dice import DIE_FINDER
from vision.finder import find_centres, find_peaks, heat_at
from vision.layouts import load_layout
from vision.render import random_scene, render


def test_heat_at_a_point_is_its_nearest_peaks_within_reach_else_nothing() -> None:
    peaks = np.array([[0.0, 0.0], [30.0, 0.0]])
    heat = np.array([0.9, 0.4])
    got = heat_at(np.array([[2.0, 1.0], [27.0, 0.0], [15.0, 0.0], [0.0, 50.0]]), peaks, heat, 8.0)
    assert got.tolist() == [0.9, 0.4, 0.0, 0.0]
    assert heat_at(np.zeros((0, 2)), peaks, heat, 8.0).shape == (0,)
    assert heat_at(np.array([[0.0, 0.0]]), np.zeros((0, 2)), np.zeros(0), 8.0).tolist() == [0.0]


def test_finders_at_one_scale_share_their_input_and_report_their_peaks_strongest_first() -> None:
    image, truth = render(random_scene("numeri", np.random.default_rng([4, 2]), "holdout", hand=False))
    layout = load_layout("numeri")
    view = BoardView.from_corners(truth["board"]["corners"], (layout.width_mm, layout.height_mm),
                                  (image.shape[1], image.shape[0]))
    pyr = Pyramid(image)
    for finder in (tokens_mod.TOKEN_FINDER, DIE_FINDER, TILE_FINDER):
        centres, heat = find_peaks(pyr, view, finder)
        assert len(centres) == len(heat) and np.all(np.diff(heat) <= 0) and np.all(heat > finder.least)
        assert np.array_equal(find_centres(pyr, view, finder), centres)
    assert len(pyr.memo) == 1, "the three finders read one scaled picture"
    tokens = [view.to_board(np.asarray(t["center"], np.float64).reshape(1, 2))[0] for t in truth["tokens"]]
    centres = find_centres(pyr, view, tokens_mod.TOKEN_FINDER)
    near = [np.linalg.norm(centres - t, axis=1).min() < 5.0 for t in tokens]
    assert np.mean(near) >= 0.9, f"{sum(near)} of {len(tokens)} tokens have a peak"
