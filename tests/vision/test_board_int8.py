"""The Numeri finders in 8 bits (`vision.train.quant_board`): run where ONNX Runtime runs, and
finding what the float networks find on the pictures the reader gives them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision import runtime
from vision import tokens as _tokens  # noqa: F401  (registers the Numeri reader)
from vision.board import CropModel
from vision.classify import MODELS_DIR, model_file
from vision.pipeline import Recognizer
from vision.render import random_scene, render

SHIPPED = ("token_centres", "die_centres")  # vision.train.quant_board.SHIPPED
FLOAT = ("tile_centres", "board_tiles", "loose_tiles", "token_numbers", "die_faces")  # 8 bits changed readings


def test_onnx_runtime_runs_the_8bit_numeri_finders_and_opencv_the_float_ones(monkeypatch):
    for which, suffix in (("onnxruntime", ".int8.onnx"), ("opencv", ".onnx")):
        monkeypatch.setenv(runtime.ENV, which)
        for name in SHIPPED:
            path = model_file(name)
            assert path.name == name + suffix and path.is_file()
        for name in FLOAT:
            assert model_file(name).name == name + ".onnx"
        assert Path(CropModel("board_tiles").path).name == "board_tiles.onnx"


def _inputs(monkeypatch) -> dict[str, list[np.ndarray]]:
    """What each network is given while held-out Numeri tables are read."""
    seen: dict[str, list[np.ndarray]] = {}
    run = runtime._OrtNetwork.run

    def keep(self, x, names=None):
        seen.setdefault(Path(self.path).name.split(".")[0], []).append(np.array(x, np.float32))
        return run(self, x, names)

    monkeypatch.setattr(runtime._OrtNetwork, "run", keep)
    for k in range(3):
        image, _ = render(random_scene("numeri", np.random.default_rng([47, k]), "holdout", hand=False))
        Recognizer("numeri").read(image)
    monkeypatch.setattr(runtime._OrtNetwork, "run", run)
    return seen


def _heat(net: runtime.Network, x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-net.run(x)[0][0, 0]))


def test_the_8bit_numeri_finders_find_what_the_float_ones_find(monkeypatch):
    """On the pictures the Numeri reader gives them: every strong peak of the float heat is a
    peak of the 8-bit heat too, and the heats hardly differ elsewhere."""
    monkeypatch.setenv(runtime.ENV, "onnxruntime")
    seen = _inputs(monkeypatch)
    assert set(SHIPPED) <= set(seen)
    for name in SHIPPED:
        full, eight = runtime.network(MODELS_DIR / f"{name}.onnx"), runtime.network(model_file(name))
        strong = 0
        for x in seen[name]:
            a, b = _heat(full, x), _heat(eight, x)
            assert np.median(np.abs(a - b)) < 0.01, name
            peaks = (a >= cv2.dilate(a, np.ones((3, 3), np.uint8))) & (a > 0.6)
            near = cv2.dilate(((b >= cv2.dilate(b, np.ones((3, 3), np.uint8))) & (b > 0.45)).astype(np.uint8),
                              np.ones((3, 3), np.uint8))
            assert near[peaks].all(), name  # within a cell of each strong float peak
            strong += int(peaks.sum())
        assert strong >= 3, name
