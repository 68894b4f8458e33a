"""The board readers' networks in 8 bits: ONNX Runtime's static quantisation, calibrated on the
inputs the readers give them while reading train-pool tables.

    .venv/bin/python -m vision.train.quant_board capture --base-seed 31000 --scenes 240 \
        --out /work/data/qboard
    /work/trainvenv/bin/python -m vision.train.quant_board quantise --data /work/data/qboard   # SHIPPED
    /work/trainvenv/bin/python -m vision.train.quant_board quantise --data /work/data/qboard \
        --models tile_centres board_tiles token_numbers --out /tmp/trial              # measured, not shipped

`capture` reads 11! and Numeri train-pool tables in turn with the recogniser (a cold read, then a
warm one) and keeps, for each network in `MODELS`, what it was given: a few crops of every batch
the tile and token classifiers read, every picture the finders read (one per table, up to `PICTURES`).
`quantise` writes `<model>.int8.onnx` beside each (QDQ, as `quant_cls`: weights in 8 bits per
output channel, activations per tensor, ranges measured with MinMax). Only convolutions are
quantised, and not the first (three input channels: no faster in 8 bits) nor a finder's last
(its one-channel heat, whose logits are compared with thresholds) nor a classifier's last two
(on 5 × 5 cells, a tenth of its time: in 8 bits they changed twice as many top classes); the
classifiers' small fully connected heads stay in float. `classify.model_file` runs the 8-bit
models where ONNX Runtime runs. The die-face classifier is left in float: it reads a handful of
crops per picture.

Shipped (`SHIPPED`): the Numeri finders (tokens, dice), about half the float networks' time, the
same readings on 200 held-out and train-pool Numeri tables. Measured and not shipped: the 11!
tile finder and tile classifier, and the token classifier. Each changed a few readings near
their thresholds, which were tuned on the float networks: the tile finder lost 1-2 tiles per
100 11! tables, the tile classifier half a point of the tiles on boards never seen empty, the
token classifier swapped two tokens of one colour on 40 held-out tables (see models/README.md).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np

from vision.classify import MODELS_DIR
from vision.train.quant_cls import checking_tables

FINDERS = ("tile_centres", "token_centres", "die_centres")
CLASSIFIERS = ("board_tiles", "token_numbers")
MODELS = FINDERS + CLASSIFIERS
SHIPPED = ("token_centres", "die_centres")
PICTURES = 96  # finder inputs kept per model (whole pictures)
PER_BATCH = 6  # classifier crops kept per batch read
CALIBRATION = 2048  # classifier crops that calibrate a model


# -- data ---------------------------------------------------------------------------------


def capture(base_seed: int, scenes: int, out: str) -> None:
    """The inputs of the board networks while the recogniser reads `scenes` train-pool tables
    (11! and Numeri in turn), saved per network with the table each came from."""
    from vision import runtime
    from vision import tokens as _tokens  # noqa: F401  (registers the Numeri reader)
    from vision.errors import CalibrationError
    from vision.pipeline import Recognizer
    from vision.render import random_scene, render

    rng = np.random.default_rng(base_seed)
    kept: dict[str, list[np.ndarray]] = {m: [] for m in MODELS}
    tables: dict[str, list[int]] = {m: [] for m in MODELS}
    table = [0]
    run = runtime._OrtNetwork.run

    def keep(self, x, names=None):
        name = Path(self.path).name.split(".")[0]
        if name in FINDERS and len(kept[name]) < PICTURES and table[0] not in tables[name][-1:]:
            kept[name].append(np.asarray(x, np.float16))
            tables[name].append(table[0])
        elif name in CLASSIFIERS and len(x):
            for i in rng.choice(len(x), min(PER_BATCH, len(x)), replace=False):
                kept[name].append(np.asarray(x[i], np.float16))
                tables[name].append(table[0])
        return run(self, x, names)

    runtime._OrtNetwork.run = keep
    t0 = time.time()
    try:
        for k in range(scenes):
            game = ("start11", "numeri")[k % 2]
            table[0] = base_seed * 10_000 + k
            srng = np.random.default_rng([base_seed, k])
            extra = {"variant": "d6"} if game == "numeri" and srng.random() < 0.3 else {}
            image, _ = render(random_scene(game, srng, "train", hand=False, **extra))
            rec = Recognizer(game)
            try:
                rec.read(image)
                rec.read(image)
            except CalibrationError as exc:  # a table whose board is not found gives no board inputs
                print(f"table {k}: {exc}", flush=True)
            if (k + 1) % 50 == 0:
                print(f"{k + 1} tables ({time.time() - t0:.0f} s)", flush=True)
    finally:
        runtime._OrtNetwork.run = run
    os.makedirs(out, exist_ok=True)
    for m in MODELS:
        if not kept[m]:
            continue
        arrays = {f"x{i}": x for i, x in enumerate(kept[m])} if m in FINDERS else {"x0": np.stack(kept[m])}
        np.savez(os.path.join(out, f"{m}.npz"), table=np.asarray(tables[m]), **arrays)
        print("saved", m, len(kept[m]), flush=True)


def load(folder: str, model: str) -> tuple[list[np.ndarray], np.ndarray]:
    """A network's captured inputs (finder pictures one by one, classifier crops one by one) and
    the table each came from."""
    d = np.load(os.path.join(folder, f"{model}.npz"))
    xs = [d[f"x{i}"] for i in range(len(d.files) - 1)] if model in FINDERS else list(d["x0"])
    return [x.astype(np.float32) for x in xs], d["table"]


# -- the 8-bit models ---------------------------------------------------------------------


def quantise(float_onnx: str, out: str, batches: list[np.ndarray], finder: bool) -> None:
    """The 8-bit QDQ model of `float_onnx`: its convolutions but the first and a finder's last (a
    classifier's last two)."""
    from vision.train.quant_cls import quantise_blobs

    quantise_blobs(float_onnx, out, batches, lambda convs: [convs[0]] + ([convs[-1]] if finder else convs[-2:]),
                   op_types=["Conv"])


def compare(a: str, b: str, xs: list[np.ndarray], finder: bool) -> str:
    """How far the 8-bit model's outputs are from the float one's on inputs of other tables:
    top class agreement (classifiers), or the heat's largest difference and cells over 0.3 that
    disagree (finders)."""
    import onnxruntime as ort

    sa = ort.InferenceSession(a, providers=["CPUExecutionProvider"])
    sb = ort.InferenceSession(b, providers=["CPUExecutionProvider"])
    if not finder:
        x = np.stack(xs)
        ya = np.concatenate([sa.run(["y"], {"x": x[i:i + 256]})[0] for i in range(0, len(x), 256)])
        yb = np.concatenate([sb.run(["y"], {"x": x[i:i + 256]})[0] for i in range(0, len(x), 256)])
        return f"top class as the float model's on {(ya.argmax(1) == yb.argmax(1)).mean():.4f} of {len(x)} crops"
    worst, flips, cells = 0.0, 0, 0
    for x in xs:
        ha = 1 / (1 + np.exp(-sa.run(None, {"x": x})[0]))
        hb = 1 / (1 + np.exp(-sb.run(None, {"x": x})[0]))
        worst = max(worst, float(np.abs(ha - hb).max()))
        flips += int(((ha > 0.3) != (hb > 0.3)).sum())
        cells += int((ha > 0.3).sum())
    return f"heat differs by at most {worst:.3f}; {flips} cells cross 0.3 (of {cells} over it) on {len(xs)} pictures"


def make(folder: str, model: str, out_dir: Path) -> None:
    """Calibrated on the inputs of nine tables in ten, compared on the tenth's."""
    xs, tables = load(folder, model)
    finder = model in FINDERS
    rng = np.random.default_rng(0)
    checking = checking_tables(tables, rng)
    fit = [x for x, c in zip(xs, checking, strict=True) if not c]
    if finder:
        batches = list(fit)
    else:
        pick = np.stack(fit)[rng.permutation(len(fit))[:CALIBRATION]]
        batches = [pick[i:i + 64] for i in range(0, len(pick), 64)]
    src, out = str(MODELS_DIR / f"{model}.onnx"), str(out_dir / f"{model}.int8.onnx")
    t0 = time.time()
    quantise(src, out, batches, finder)
    check = [x for x, c in zip(xs, checking, strict=True) if c]
    print(f"saved {out} ({os.path.getsize(out)} bytes, {time.time() - t0:.0f} s): {compare(src, out, check, finder)}",
          flush=True)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("capture")
    c.add_argument("--base-seed", type=int, required=True)
    c.add_argument("--scenes", type=int, default=300)
    c.add_argument("--out", required=True)
    q = sub.add_parser("quantise")
    q.add_argument("--data", required=True, help="the folder `capture` wrote")
    q.add_argument("--models", nargs="+", default=list(SHIPPED), choices=MODELS)
    q.add_argument("--out", default=str(MODELS_DIR))
    a = ap.parse_args(argv)
    if a.cmd == "capture":
        capture(a.base_seed, a.scenes, a.out)
    else:
        for m in a.models:
            make(a.data, m, Path(a.out))


if __name__ == "__main__":
    main()
