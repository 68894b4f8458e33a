"""The soup's sidecar: one model's classes and regions, the members' mean temperature."""

import json

import pytest

from vision.classify import MODELS_DIR
from vision.train.soup import sidecar


def _member(temperature: float, data: list[str], val: float = 0.9) -> dict:
    side = json.loads((MODELS_DIR / "cards.json").read_text())
    return {**side, "temperature": temperature, "validation": {"val_class": val}, "data": data}


def test_sidecar_keeps_the_model_and_averages_the_calibration():
    a, b = _member(1.0, ["c_det.npz", "c_synth.npz"], 0.95), _member(1.4, ["b_det.npz", "c_synth.npz"], 0.93)
    side = sidecar([a, b])
    assert side["temperature"] == pytest.approx(1.2)
    assert side["classes"] == a["classes"] and side["regions"] == a["regions"] and side["crop"] == a["crop"]
    assert [m["val_class"] for m in side["validation"]["members"]] == [0.95, 0.93]
    assert side["data"] == ["b_det.npz", "c_det.npz", "c_synth.npz"]


def test_members_of_different_models_are_refused():
    a, b = _member(1.0, []), _member(1.1, [])
    b["regions"] = {**b["regions"], "numeral": [0.1, 0.21, 0.9, 0.79]}  # one reads a crop kind the other does not
    with pytest.raises(SystemExit, match="regions"):
        sidecar([a, b])
