"""Labels of the 11! tile net's training crops cut where the reader looks beside the board."""

from __future__ import annotations

import json

import cv2
import numpy as np

from vision.board import TILE_FACES, crop_model, tile_class, tile_input
from vision.classify import Pyramid
from vision.layouts import load_layout
from vision.render import render
from vision.tokens import _polar, board_white, token_input
from vision.train.board_crops import _loose_at_proposals, _tokens_at_proposals, start11_crops, true_view
from vision.train.board_scenes import _work, numeri_scene


def _scene(tmp_path, k: int) -> tuple[np.ndarray, dict]:
    name = _work((str(tmp_path), "start11", "train", 9700, k, None, True, None))
    return cv2.imread(str(tmp_path / f"{name}.jpg")), json.loads((tmp_path / f"{name}.json").read_text())


def test_the_readers_crops_beside_the_board_are_labelled_with_the_tile_there_in_its_quarter_turn(tmp_path):
    """Each crop the reader cuts at a proposal beside the board is taught as the loose tile lying
    there, in the quarter turn it shows in the crop's frame (the reader squares each crop to the
    tile's edges, not to its upright), or as "no tile" away from every tile. The quarter is
    checked against the shipped net, which reads the four quarters of a tile apart: a label turned
    the wrong way would disagree with it on nearly every crop."""
    layout = load_layout("start11")
    model = crop_model("board_tiles")
    faces, agree, tiles, nones = [], 0, 0, 0
    for k in range(4):
        image, truth = _scene(tmp_path, k)
        out: list = []
        _loose_at_proposals(Pyramid(image), true_view(truth, layout), layout, truth, np.random.default_rng(k), out)
        loose = {tile_class(c["kind"], c["value"], 0) for c in truth["cards"] if not c.get("square")}
        labels = np.array([y for _x, y, _c in out])
        assert {(y - 1) // 4 * 4 + 1 for y in labels if y > 0} <= loose  # only tiles lying beside the board
        probs, _ = model.run(tile_input(np.stack([x for x, _y, _c in out])))
        read = probs.argmax(axis=1)
        on_tile = labels > 0
        same_face = on_tile & (read > 0) & ((read - 1) // 4 == (labels - 1) // 4)
        agree += int((read[same_face] == labels[same_face]).sum())
        faces += list(same_face[on_tile])
        tiles += int(on_tile.sum())
        nones += int((~on_tile).sum())
    assert tiles >= 10 and nones >= 10  # the reader's proposals hit tiles and the table alike
    assert np.mean(faces) > 0.8
    assert agree >= 0.9 * sum(faces)
    assert len(TILE_FACES) * 4 + 1 == len(model.classes)


def test_a_share_of_the_board_squares_is_cropped_and_the_proposals_only_on_request(tmp_path):
    image, truth = _scene(tmp_path, 0)
    runs = {}
    for share, at in ((1.0, False), (0.25, False), (0.25, True)):
        out: list = []
        start11_crops(image, truth, np.random.default_rng(0), out, board_share=share, at_proposals=at)
        runs[(share, at)] = len(out)
    assert runs[(0.25, False)] < 0.6 * runs[(1.0, False)]
    assert runs[(0.25, True)] > runs[(0.25, False)]


def test_the_numeri_readers_crops_beside_the_board_are_labelled_with_the_token_there():
    """Each crop the Numeri reader cuts beside the track is taught as the token lying there (its
    value and colour) or as "no token" away from every token and die; the shipped net, which
    reads nearly all of them, agrees with the labels."""
    layout = load_layout("numeri")
    model = crop_model("token_numbers")
    agree = tokens = nones = 0
    for k in range(4):
        image, truth = render(numeri_scene(np.random.default_rng([9960, k]), "train", None, True))
        view = true_view(truth, layout)
        pyr = Pyramid(image)
        out: list = []
        _tokens_at_proposals(pyr, view, layout, truth, np.random.default_rng(k), out)
        beside = {(t["value"], t["color"]) for t in truth["tokens"] if t.get("square") is None}
        assert {(y, c) for _x, y, c in out if y > 0} <= beside
        probs, colours = model.run(token_input(np.stack([x for x, _y, _c in out]), board_white(pyr, view, layout),
                                               _polar(model)))
        labels = np.array([y for _x, y, _c in out])
        agree += int((probs.argmax(axis=1) == labels).sum())
        tokens += int((labels > 0).sum())
        nones += int((labels == 0).sum())
    assert tokens >= 10 and nones >= 10
    assert agree >= 0.95 * (tokens + nones)
