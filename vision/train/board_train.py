"""Train the board readers' crop classifiers (11! tiles, Numeri tokens, dice) and export ONNX.

Runs in a training environment with PyTorch (not a run-time dependency), e.g.::

    /work/trainvenv/bin/python -m vision.train.board_train --kind tiles \\
        --data /work/data/board_crops/s11/tiles.npz --out vision/models

Each model is a small CNN (four 3×3 conv layers, ~60k weights) with a class head and, for tiles
and tokens, a colour head. The input is made by the same function the reader uses
(`board.tile_input`, `tokens.token_input`, `classify.preprocess`). Crops are augmented with
light, colour, blur, noise and quarter turns (a tile turned a quarter turn changes class; a
token or a die does not). Scenes are split 90/10 for validation; the validation split also
fits a temperature per head so that the reported confidences are calibrated. Writes
``<name>.onnx`` and ``<name>.json`` (classes, crop size, temperatures, validation figures).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from vision.board import TILE_CLASSES, TILE_CROP, TILE_CROP_MM, TILE_MODEL, tile_input
from vision.classify import preprocess
from vision.dice import DIE_CLASSES, DIE_CROP, DIE_CROP_MM, DIE_MODEL
from vision.tokens import (
    POLAR_ANGLES,
    POLAR_RADII,
    POLAR_WRAP,
    TOKEN_CLASSES,
    TOKEN_COLOURS,
    TOKEN_CROP,
    TOKEN_CROP_MM,
    TOKEN_MODEL,
    token_input,
)

SUITS = ("yellow", "red", "blue", "green")
KINDS = {
    "tiles": {"name": TILE_MODEL, "classes": TILE_CLASSES, "colours": SUITS, "crop": TILE_CROP,
              "crop_mm": TILE_CROP_MM, "input": "tile"},
    "tokens": {"name": TOKEN_MODEL, "classes": TOKEN_CLASSES, "colours": TOKEN_COLOURS, "crop": TOKEN_CROP,
               "crop_mm": TOKEN_CROP_MM, "input": "token"},
    "dice": {"name": DIE_MODEL, "classes": DIE_CLASSES, "colours": (), "crop": DIE_CROP, "crop_mm": DIE_CROP_MM,
             "input": "standard"},
}


def block(i: int, o: int, stride: int = 1) -> nn.Module:
    return nn.Sequential(nn.Conv2d(i, o, 3, stride, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class Net(nn.Module):
    def __init__(self, n_classes: int, n_colours: int, ch=(16, 32, 48, 64), deep: bool = False):
        super().__init__()
        c1, c2, c3, c4 = ch
        if deep:  # two convolutions per scale: numerals at any angle need the depth
            self.features = nn.Sequential(block(3, c1), block(c1, c1), nn.MaxPool2d(2), block(c1, c2), block(c2, c2),
                                          nn.MaxPool2d(2), block(c2, c3), block(c3, c3), nn.MaxPool2d(2),
                                          block(c3, c4), block(c4, c4), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        else:
            self.features = nn.Sequential(block(3, c1), nn.MaxPool2d(2), block(c1, c2), nn.MaxPool2d(2),
                                          block(c2, c3), nn.MaxPool2d(2), block(c3, c4), nn.AdaptiveAvgPool2d(1),
                                          nn.Flatten())
        self.drop = nn.Dropout(0.1)
        self.head = nn.Linear(c4, n_classes)
        self.colour = nn.Linear(c4, n_colours) if n_colours else None

    def forward(self, x):
        f = self.drop(self.features(x))
        y = self.head(f)
        if self.colour is None:
            return y
        return y, self.colour(f)


# ----------------------------------------------------------------------------------------


def turn_label(kind: str, y: np.ndarray, k: int) -> np.ndarray:
    """Class after turning the crop k quarter turns clockwise."""
    if kind != "tiles":
        return y
    out = y.copy()
    on = y > 0
    face, q = (y[on] - 1) // 4, (y[on] - 1) % 4
    out[on] = 1 + face * 4 + (q + k) % 4
    return out


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Light, colour cast, blur and noise on a batch of uint8 crops."""
    x = x.astype(np.float32)
    n = len(x)
    gain = rng.uniform(0.65, 1.35, (n, 1, 1, 1)) * rng.uniform(0.9, 1.1, (n, 1, 1, 3))
    x = x * gain
    gamma = rng.uniform(0.8, 1.25, (n, 1, 1, 1))
    x = 255.0 * np.clip(x / 255.0, 0, 1) ** gamma
    for i in np.flatnonzero(rng.random(n) < 0.3):
        x[i] = cv2.GaussianBlur(x[i], (0, 0), float(rng.uniform(0.4, 1.1)))
    x += rng.normal(0, 1, x.shape).astype(np.float32) * rng.uniform(0, 6, (n, 1, 1, 1))
    # a lighting gradient across the crop (a lamp to one side)
    s = x.shape[1]
    ramp = np.linspace(-1, 1, s, dtype=np.float32)
    a = rng.uniform(0, 2 * math.pi, n)
    g = 1.0 + rng.uniform(0, 0.15, n)[:, None, None] * (np.cos(a)[:, None, None] * ramp[None, None, :] +
                                                         np.sin(a)[:, None, None] * ramp[None, :, None])
    x = x * g[..., None]
    return np.clip(x, 0, 255).astype(np.uint8)


def reshape_glyphs(x: np.ndarray, rng: np.random.Generator, share: float) -> np.ndarray:
    """Other typefaces of the same numerals, roughly: `share` of the crops sheared about their
    centre (an italic, or an upright face where the training one leans) and their strokes
    thickened or thinned by a pixel (a bold or a light weight). A held-out typeface whose 3 and 5
    the network takes for one another is most often a weight or a slant it never saw."""
    x = x.copy()
    s = x.shape[1]
    for i in np.flatnonzero(rng.random(len(x)) < share):
        k = float(rng.uniform(-0.25, 0.25))
        m = np.float32([[1, k, -k * s / 2], [0, 1, 0]])
        x[i] = cv2.warpAffine(x[i], m, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
        op = int(rng.integers(0, 3))
        if op:
            kern = np.ones((2, 2), np.uint8)
            x[i] = cv2.erode(x[i], kern) if op == 1 else cv2.dilate(x[i], kern)
    return x


def repaint(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Other paints of the same shapes: half the crops with their lightness inverted, half with
    their colour channels swapped. A die's pips may be lighter or darker than its body (a black
    die with white pips reads like a white one with black pips), and its body any colour."""
    x = x.copy()
    n = len(x)
    inv = rng.random(n) < 0.5
    x[inv] = 255 - x[inv]
    for i in np.flatnonzero(rng.random(n) < 0.5):
        x[i] = x[i][..., rng.permutation(3)]
    return x


def make_input(how: str, x: np.ndarray, white: np.ndarray | None) -> np.ndarray:
    """The reader's own input function, named by the model's "input" (tile, token, token_polar)."""
    if how == "tile":
        return tile_input(x)
    if how in ("token", "token_polar"):
        return token_input(x, white, how == "token_polar")
    return preprocess(x)


def input_shape(spec: dict) -> tuple[int, int, int]:
    if spec["input"] == "token_polar":
        return 3, POLAR_ANGLES + 2 * POLAR_WRAP, POLAR_RADII
    return 3, spec["crop"], spec["crop"]


def colour_targets(colour: np.ndarray, names: tuple[str, ...]) -> np.ndarray:
    idx = {n: i for i, n in enumerate(names)}
    return np.array([idx.get(str(c), -1) for c in colour], np.int64)


def batches(n: int, size: int, rng: np.random.Generator):
    order = rng.permutation(n)
    for i in range(0, n, size):
        yield order[i:i + size]


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    lg = torch.tensor(logits)
    yt = torch.tensor(y)
    t = torch.zeros(1, requires_grad=True)
    opt = torch.optim.LBFGS([t], lr=0.1, max_iter=100)

    def closure():
        opt.zero_grad()
        loss = F.cross_entropy(lg / torch.exp(t), yt)
        loss.backward()
        return loss

    opt.step(closure)
    return float(torch.exp(t).item())


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", required=True, choices=sorted(KINDS))
    ap.add_argument("--data", required=True, nargs="+", help=".npz files from board_crops")
    ap.add_argument("--out", required=True)
    ap.add_argument("--epochs", type=int, default=24)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--channels", default="16,32,48,64", help="widths of the four conv layers")
    ap.add_argument("--deep", action="store_true", help="two convolutions per scale")
    ap.add_argument("--polar", action="store_true", help="tokens: unrolled round their centre (turn-invariant)")
    ap.add_argument("--repaint", action="store_true",
                    help="dice: train on crops with inverted lightness and swapped channels too (`repaint`)")
    ap.add_argument("--glyphs", type=float, default=0.0,
                    help="share of crops sheared and made bolder or lighter (`reshape_glyphs`)")
    ap.add_argument("--share", type=float, default=1.0, help="train on this share of the training scenes")
    ap.add_argument("--init", type=Path, help="fine-tune this shipped model (.onnx) instead of starting afresh")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(a.seed)
    spec = KINDS[a.kind]
    if a.polar:
        spec = {**spec, "input": "token_polar"}
    parts = [np.load(p) for p in a.data]
    x = np.concatenate([p["x"] for p in parts])
    y = np.concatenate([p["y"] for p in parts]).astype(np.int64)
    colour = np.concatenate([p["colour"] for p in parts])
    scene = np.concatenate([p["scene"] + 100000 * i for i, p in enumerate(parts)])
    white = np.concatenate([p["white"] for p in parts]) if "white" in parts[0] else None
    cy = colour_targets(colour, spec["colours"]) if spec["colours"] else None
    val = (scene % 10) == 0
    tr = ~val & ((scene.astype(np.int64) * 2654435761 % 1000) < a.share * 1000)
    print(f"{a.kind}: {len(x)} crops ({tr.sum()} train, {val.sum()} val); classes {np.bincount(y)}", flush=True)
    net = Net(len(spec["classes"]), len(spec["colours"]), tuple(int(c) for c in a.channels.split(",")), a.deep)
    if a.init:
        load_shipped(net, a.init)
    opt = torch.optim.AdamW(net.parameters(), lr=a.lr, weight_decay=1e-4)
    steps = a.epochs * math.ceil(tr.sum() / a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps, pct_start=0.15)
    ti = np.flatnonzero(tr)
    t0 = time.time()
    for ep in range(a.epochs):
        net.train()
        if a.init:  # the shipped model's norms are folded into its convolutions: keep them as they are
            for mod in net.modules():
                if isinstance(mod, nn.BatchNorm2d):
                    mod.eval()
        tot = n = 0
        for b in batches(len(ti), a.batch, rng):
            idx = ti[b]
            xb = augment(x[idx], rng)
            if a.glyphs:
                xb = reshape_glyphs(xb, rng, a.glyphs)
            if a.repaint:
                xb = repaint(xb, rng)
            yb = y[idx]
            k = int(rng.integers(0, 4))
            if k:
                xb = np.ascontiguousarray(np.rot90(xb, k=-k, axes=(1, 2)))
                yb = turn_label(a.kind, yb, k)
            inp = torch.from_numpy(make_input(spec["input"], xb, None if white is None else white[idx]))
            out = net(inp)
            if cy is not None:
                logits, clog = out
                loss = F.cross_entropy(logits, torch.from_numpy(yb), label_smoothing=0.02)
                ct = torch.from_numpy(cy[idx])
                m = ct >= 0
                if m.any():
                    loss = loss + F.cross_entropy(clog[m], ct[m])
            else:
                loss = F.cross_entropy(out, torch.from_numpy(yb), label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss.detach()) * len(idx)
            n += len(idx)
        acc, cacc, _, _ = evaluate(net, spec["input"], x[val], y[val], None if white is None else white[val],
                                   None if cy is None else cy[val])
        print(f"epoch {ep + 1}: loss {tot / n:.4f}  val acc {acc:.4f}  colour {cacc:.4f}  ({time.time() - t0:.0f}s)",
              flush=True)
        if ep + 1 < a.epochs and (ep + 1) % 2 == 0:  # a usable model at any time while a long run goes on
            _finish(net, a, spec, x, y, white, cy, val, tr)
    _finish(net, a, spec, x, y, white, cy, val, tr)


def load_shipped(net: Net, path: Path) -> None:
    """Start from a shipped model. Its ONNX export folded each block's batch norm into the
    convolution before it (weight scaled, a bias added), so the convolution takes the folded
    weight and the norm passes through (mean 0, variance 1, scale 1, shift the folded bias)."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [n for n in graph.node if n.op_type == "Conv"]  # in the order the network runs them
    blocks = [m for m in net.features if isinstance(m, nn.Sequential)]
    if len(convs) != len(blocks):
        raise SystemExit(f"{path}: {len(convs)} convolutions, the network built has {len(blocks)}")
    with torch.no_grad():
        for node, blk in zip(convs, blocks, strict=True):
            conv, norm = blk[0], blk[1]
            conv.weight.copy_(torch.from_numpy(init[node.input[1]].copy()))
            norm.weight.fill_(1.0)
            norm.bias.copy_(torch.from_numpy(init[node.input[2]].copy()))
            norm.running_mean.zero_()
            norm.running_var.fill_(1.0 - norm.eps)
        for name in ("head", "colour"):
            layer = getattr(net, name)
            if layer is not None:
                layer.weight.copy_(torch.from_numpy(init[f"{name}.weight"].copy()))
                layer.bias.copy_(torch.from_numpy(init[f"{name}.bias"].copy()))


def _finish(net, a, spec, x, y, white, cy, val, tr) -> None:
    acc, cacc, logits, clogits = evaluate(net, spec["input"], x[val], y[val], None if white is None else white[val],
                                          None if cy is None else cy[val])
    temp = fit_temperature(logits, y[val])
    ctemp = 1.0
    if cy is not None:
        m = cy[val] >= 0
        if (clogits[m].argmax(axis=1) != cy[val][m]).any():
            ctemp = fit_temperature(clogits[m], cy[val][m])
        elif a.init:  # no colour misread: the fit would sharpen without end; the shipped model's is kept
            ctemp = float(json.loads(a.init.with_suffix(".json").read_text()).get("colour_temperature", 1.0))
    export(net, spec, Path(a.out), temp, ctemp, {"val_accuracy": round(acc, 5), "val_colour_accuracy": round(cacc, 5),
                                                 "train_crops": int(tr.sum()), "val_crops": int(val.sum())})


@torch.no_grad()
def evaluate(net, how, x, y, white, cy):
    net.eval()
    logits, clog = [], []
    for i in range(0, len(x), 512):
        out = net(torch.from_numpy(make_input(how, x[i:i + 512], None if white is None else white[i:i + 512])))
        if isinstance(out, tuple):
            logits.append(out[0].numpy())
            clog.append(out[1].numpy())
        else:
            logits.append(out.numpy())
    logits = np.concatenate(logits)
    acc = float((logits.argmax(1) == y).mean())
    cacc = float("nan")
    clogits = None
    if cy is not None:
        clogits = np.concatenate(clog)
        m = cy >= 0
        cacc = float((clogits[m].argmax(1) == cy[m]).mean())
    return acc, cacc, logits, clogits


def export(net: Net, spec: dict, out: Path, temp: float, ctemp: float, figures: dict) -> None:
    out.mkdir(parents=True, exist_ok=True)
    net.eval()
    s = spec["crop"]
    dummy = torch.zeros(1, *input_shape(spec))
    names = ["y", "c"] if spec["colours"] else ["y"]
    torch.onnx.export(net, dummy, str(out / f"{spec['name']}.onnx"), input_names=["x"], output_names=names,
                      dynamic_axes={"x": {0: "n"}, **{k: {0: "n"} for k in names}}, opset_version=13, dynamo=False)
    meta = {"classes": list(spec["classes"]), "colours": list(spec["colours"]), "crop": s, "crop_mm": spec["crop_mm"],
            "input": spec["input"], "temperature": round(temp, 4), "colour_temperature": round(ctemp, 4), **figures}
    (out / f"{spec['name']}.json").write_text(json.dumps(meta, indent=1) + "\n")
    print("wrote", out / f"{spec['name']}.onnx", meta, flush=True)


if __name__ == "__main__":
    main()
