"""The crop classifier in 8 bits: ONNX Runtime's static quantisation, calibrated on the crops the
recogniser cuts.

    /work/trainvenv/bin/python -m vision.train.quant_cls capture --base-seed 27000 --scenes 1200 \
        --out /work/data/qcrops_27000.npz
    /work/trainvenv/bin/python -m vision.train.quant_cls quantise --data /work/data/qcrops_27000.npz

`capture` reads train-pool tables (the four card games in turn) with the recogniser and keeps every
crop it classifies: whole cards, corner indices and moved outlines, as they come. `quantise`
writes `cards.int8.onnx` (QDQ: weights in 8 bits per output channel, activations per tensor)
with `onnxruntime.quantization.quantize_static`, the activations' ranges measured (MinMax) on
`CALIBRATION` of those crops. The first convolution (three input channels: slower in 8 bits than
in float) and the head stay in float. `classify.model_file` runs it where ONNX Runtime runs.

Stop 23 calibrated on 5 259 crops of 40 tables and lost a third of a point on the train pool
with twice the yellow/green swaps; calibrated on crops of 1 200 tables it reads as the float model
does to a tenth of a point (see models/README.md). Fine-tuning with the 8-bit rounding simulated
(distilled from the float model) was tried and read worse.
"""

from __future__ import annotations

import argparse
import glob
import os
import tempfile
import time

import numpy as np

from vision.classify import MODELS_DIR, preprocess

FLOAT_CONVS = (0, 7)  # indices among the exported convolutions kept in float: the first and the head
CALIBRATION = 2048  # crops whose activation ranges calibrate the 8-bit model


# -- data ---------------------------------------------------------------------------------


def capture(base_seed: int, scenes: int, out: str) -> None:
    """The crops the recogniser classifies while it reads `scenes` train-pool tables (the four
    card games in turn), saved with the table each came from."""
    import vision.classify as classify
    from vision.pipeline import Recognizer
    from vision.render import random_scene, render

    xs: list[np.ndarray] = []
    tables: list[np.ndarray] = []
    table = [0]
    run = classify.Classifier.run

    def keep(self, crops):  # the crops of every classifier call, as the recogniser cuts them
        if self.info.name == "cards" and len(crops):
            xs.append(np.asarray(crops, np.uint8))
            tables.append(np.full(len(crops), table[0], np.int32))
        return run(self, crops)

    classify.Classifier.run = keep
    games = ("elfer-raus", "elevens", "11-nimmt", "elfer-raus-junior")
    t0 = time.time()
    try:
        for k in range(scenes):
            game = games[k % len(games)]
            table[0] = k
            image, _ = render(random_scene(game, np.random.default_rng([base_seed, k]), "train", hand=False))
            Recognizer(game).read(image)
            if (k + 1) % 100 == 0:
                print(f"{k + 1} tables, {sum(map(len, xs))} crops ({time.time() - t0:.0f} s)", flush=True)
    finally:
        classify.Classifier.run = run
    np.savez(out, x=np.concatenate(xs), table=np.concatenate(tables) + base_seed * 10_000)
    print("saved", out, sum(map(len, xs)), flush=True)


def load(patterns: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """The captured crops and the table each came from."""
    xs, tables = [], []
    for pat in patterns:
        for f in sorted(glob.glob(pat)):
            d = np.load(f)
            xs.append(d["x"])
            tables.append(d["table"].astype(np.int64))
            print(f, len(xs[-1]), flush=True)
    if not xs:
        raise SystemExit(f"no crops in {patterns}")
    return np.concatenate(xs), np.concatenate(tables)


# -- the 8-bit model ------------------------------------------------------------------


def batches(x: np.ndarray, size: int):
    for i in range(0, len(x), size):
        yield preprocess(x[i:i + size])


def quantise(float_onnx: str, out: str, calib: np.ndarray) -> None:
    """The 8-bit QDQ model of `float_onnx` (ONNX Runtime), calibrated with MinMax on `calib`."""
    quantise_blobs(float_onnx, out, list(batches(calib, 64)), lambda convs: [convs[i] for i in FLOAT_CONVS])


def quantise_blobs(float_onnx: str, out: str, blobs: list[np.ndarray], keep_float, op_types=None) -> None:
    """`float_onnx` in 8 bits (QDQ: weights per output channel, activations per tensor), the
    activations' ranges measured with MinMax on the network inputs `blobs`; `keep_float(convs)`
    names the convolutions (in graph order) left in float; `op_types`: the only kinds of node
    quantised (None: all ONNX Runtime quantises)."""
    import onnx
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self.it = iter([{"x": b} for b in blobs])

        def get_next(self):
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        pre = os.path.join(tmp, "pre.onnx")
        quant_pre_process(float_onnx, pre, skip_symbolic_shape=True)
        convs = [n.name for n in onnx.load(pre).graph.node if n.op_type == "Conv"]
        quantize_static(pre, out, Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                        activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, op_types_to_quantize=op_types,
                        nodes_to_exclude=keep_float(convs), calibrate_method=CalibrationMethod.MinMax)


def agreement(a: str, b: str, x: np.ndarray) -> float:
    """Share of crops whose top class (number and way up) two ONNX models agree on."""
    import onnxruntime as ort

    def top(path: str) -> np.ndarray:
        s = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
        return np.concatenate([s.run(["y"], {"x": b})[0].argmax(1) for b in batches(x, 256)])

    return float((top(a) == top(b)).mean())


def checking_tables(tables: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Which samples belong to the tenth of the tables kept back to check an 8-bit model (the
    rest calibrate it): samples of one table are alike, so they are split by table."""
    ids = np.unique(tables)
    return np.isin(tables, rng.choice(ids, max(1, len(ids) // 10), replace=False))


def make(data: list[str], source: str, out: str) -> None:
    """Calibrated on crops of nine tables in ten, checked on the tenth's."""
    x, tables = load(data)
    rng = np.random.default_rng(0)
    checking = checking_tables(tables, rng)
    fitting = x[~checking]
    t0 = time.time()
    quantise(source, out, fitting[rng.permutation(len(fitting))[:CALIBRATION]])
    agree = agreement(source, out, x[checking])
    print(f"saved {out} ({os.path.getsize(out)} bytes, {time.time() - t0:.0f} s); top class as the float"
          f" model's on {agree:.4f} of {checking.sum()} crops of other tables", flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("--base-seed", type=int, required=True)
    c.add_argument("--scenes", type=int, default=1000)
    c.add_argument("--out", required=True)
    q = sub.add_parser("quantise")
    q.add_argument("--data", nargs="+", required=True)
    q.add_argument("--source", default=str(MODELS_DIR / "cards.onnx"))
    q.add_argument("--out", default=str(MODELS_DIR / "cards.int8.onnx"))
    a = ap.parse_args(argv)
    if a.cmd == "capture":
        capture(a.base_seed, a.scenes, a.out)
    else:
        make(a.data, a.source, a.out)


if __name__ == "__main__":
    main()
