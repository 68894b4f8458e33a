"""The networks' runtime: ONNX Runtime and cv2.dnn give the same outputs for every shipped model,
the choice can be forced, and a broken model file is a clear error."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from vision import runtime
from vision.classify import (
    CARD_REGION,
    INDEX_REGION,
    MODELS_DIR,
    Classifier,
    ModelError,
    Pyramid,
    model_file,
    warp_crops,
)
from vision.render import random_scene, render

GAMES = ("elfer-raus", "elevens", "11-nimmt", "elfer-raus-junior")

pytest.importorskip("onnxruntime")

# Every network shipped in vision/models, with the size of input its sliding-window networks take.
SHIPPED = ["cards", "cardnet", "board_tiles", "loose_tiles", "token_numbers", "die_faces", "die_centres"]


def _input_shape(name: str) -> tuple[int, ...]:
    """A batch of 3 inputs of the model's own size (crop models fix it; 96 × 128 for the others)."""
    import onnxruntime

    dims = onnxruntime.InferenceSession(str(MODELS_DIR / f"{name}.onnx")).get_inputs()[0].shape
    return (3, 3, *(d if isinstance(d, int) else s for d, s in zip(dims[2:], (96, 128), strict=True)))


@pytest.mark.parametrize("name", SHIPPED)
def test_both_runtimes_give_the_same_outputs(monkeypatch, name):
    path = MODELS_DIR / f"{name}.onnx"
    x = np.random.default_rng(1).standard_normal(_input_shape(name)).astype(np.float32)
    outs = {}
    for which in runtime.BACKENDS:
        monkeypatch.setenv(runtime.ENV, which)
        net = runtime.network(path)
        assert runtime.backend() == which
        outs[which] = dict(zip(net.outputs, net.run(x), strict=True))
    a, b = outs.values()
    assert sorted(a) == sorted(b)
    for key, u in a.items():
        v = b[key]
        assert u.shape == v.shape and u.dtype == v.dtype == np.float32
        assert np.allclose(u, v, rtol=1e-3, atol=1e-3), (key, float(np.abs(u - v).max()))


def test_outputs_are_chosen_by_name(monkeypatch):
    x = np.random.default_rng(2).standard_normal((2, 3, 32, 32)).astype(np.float32)
    for which in runtime.BACKENDS:
        monkeypatch.setenv(runtime.ENV, which)
        net = runtime.network(MODELS_DIR / "cards.onnx")
        y, f = net.run(x, ["y", "f"])
        (f_only,) = net.run(x, ["f"])
        assert y.shape == (2, 212) and f.shape[0] == 2
        assert np.array_equal(f, f_only)


def _float_only(tmp_path) -> Path:
    """A models folder with the card classifier's float model alone (no 8-bit one)."""
    for f in ("cards.onnx", "cards.json"):
        shutil.copy(MODELS_DIR / f, tmp_path / f)
    return tmp_path


def test_the_float_classifier_reads_alike_on_either_runtime(monkeypatch, tmp_path):
    crops = (np.random.default_rng(3).random((40, 32, 32, 3)) * 255).astype(np.uint8)
    probs = {}
    for which in runtime.BACKENDS:
        monkeypatch.setenv(runtime.ENV, which)
        probs[which] = Classifier(models_dir=_float_only(tmp_path)).probs(crops)
    a, b = probs.values()
    assert np.abs(a - b).max() < 1e-3
    assert (a.reshape(40, -1).argmax(1) == b.reshape(40, -1).argmax(1)).all()


def _crops_of_tables(count: int) -> np.ndarray:
    """Whole-card and corner-index crops at the true outlines of rendered held-out tables."""
    crops = []
    for k in range(count):
        scene = random_scene(GAMES[k % len(GAMES)], np.random.default_rng([31, k]), "holdout", hand=False)
        image, truth = render(scene)
        quads = [np.asarray(c["corners"], np.float32) for c in truth["cards"]]
        pyr = Pyramid(image)
        crops.append(warp_crops(pyr, quads * 2, [CARD_REGION] * len(quads) + [INDEX_REGION] * len(quads)))
    return np.concatenate(crops)


def test_onnx_runtime_reads_cards_with_the_8bit_classifier_as_the_float_one_does(monkeypatch, tmp_path):
    """Where ONNX Runtime runs, the 8-bit card classifier is used: on crops of real tables its top
    class (number and way up) is the float model's nearly always, and as sure."""
    monkeypatch.setenv(runtime.ENV, "onnxruntime")
    eight, full = Classifier(), Classifier(models_dir=_float_only(tmp_path))
    assert eight.path.name == "cards.int8.onnx" and full.path.name == "cards.onnx"
    assert eight.fingerprint != full.fingerprint  # deck profiles taught with the other are set aside
    crops = _crops_of_tables(6)
    assert len(crops) >= 150
    a = eight.probs(crops).reshape(len(crops), -1)
    b = full.probs(crops).reshape(len(crops), -1)
    assert (a.argmax(1) == b.argmax(1)).mean() >= 0.98
    assert np.median(np.abs(a.max(1) - b.max(1))) < 0.02


def test_each_runtime_runs_its_card_classifier(monkeypatch):
    monkeypatch.setenv(runtime.ENV, "opencv")
    assert model_file("cards") == MODELS_DIR / "cards.onnx"
    monkeypatch.setenv(runtime.ENV, "onnxruntime")
    assert model_file("cards") == MODELS_DIR / "cards.int8.onnx"


def test_without_onnxruntime_the_networks_run_through_opencv(monkeypatch):
    """32-bit Raspberry Pi OS has no onnxruntime wheel: the recogniser still reads."""
    import sys

    monkeypatch.delenv(runtime.ENV, raising=False)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # `import onnxruntime` raises ImportError
    assert runtime.backend() == "opencv"
    crops = (np.random.default_rng(5).random((6, 32, 32, 3)) * 255).astype(np.uint8)
    assert Classifier().probs(crops).shape == (6, 106, 2)
    monkeypatch.setenv(runtime.ENV, "onnxruntime")
    with pytest.raises(ModelError, match="onnxruntime is not installed"):
        runtime.backend()


def test_an_unknown_runtime_is_named_in_the_error(monkeypatch):
    monkeypatch.setenv(runtime.ENV, "tensorflow")
    with pytest.raises(ModelError, match="TABLE_COMPANION_NN='tensorflow'"):
        runtime.backend()


def test_a_broken_model_file_is_a_model_error_on_either_runtime(monkeypatch, tmp_path):
    bad = tmp_path / "broken.onnx"
    bad.write_bytes(b"this is not a network")
    for which in runtime.BACKENDS:
        monkeypatch.setenv(runtime.ENV, which)
        with pytest.raises(ModelError, match="cannot load model .*broken.onnx"):
            runtime.network(bad)


def test_threads_may_run_one_network_at_once(monkeypatch):
    """The camera's reads and a phone's "teach this deck" may run the classifier together."""
    x = np.random.default_rng(4).standard_normal((8, 3, 32, 32)).astype(np.float32)
    for which in runtime.BACKENDS:
        monkeypatch.setenv(runtime.ENV, which)
        net = runtime.network(MODELS_DIR / "cards.onnx")
        want = net.run(x)[0]
        got, errors = [], []

        def work(net=net, got=got, errors=errors):
            try:
                for _ in range(5):
                    got.append(net.run(x)[0])
            except Exception as exc:  # reported below
                errors.append(exc)

        threads = [threading.Thread(target=work) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert not errors and len(got) == 15
        assert all(np.allclose(g, want, atol=1e-5) for g in got)
