"""Train a finder (`DieNet`: where on the table are dice, 11! tiles, Numeri tokens?) on board scenes.

    /work/trainvenv/bin/python -m vision.train.finder_train --kind dice --scenes /work/data/boards --out vision/models
    /work/trainvenv/bin/python -m vision.train.finder_train --kind tiles --scenes /work/data/boards_tf \
        --out vision/models

Dice: Numeri scenes of `board_scenes` (dice on and beside the board, extra dice) give the die
centres; 11! scenes add tables without dice. Tiles (tokens): 11! (Numeri) scenes give every
tile's (token's) centre, on the board and lying beside it; half the training crops are cut round
one beside the board (the readers need the finder only there, where blob and shape searches miss
pale tiles on pale or veined tables, dark tokens on dark cloths, tiles on checked cloths). Each
picture is scaled to the finder's pixels per millimetre (from the board's true outline) give or
take a quarter, and the target is a small Gaussian at each centre on the output grid. The
readers then read a crop at each peak with their classifier, which decides whether the thing is
there and what it is: the finder only has to find them. Writes ``<finder.model>.onnx``, ``.json``.
"""

from __future__ import annotations

import argparse
import glob
import json
import multiprocessing as mp
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F

from vision.board import TILE_FINDER
from vision.dice import DIE_FINDER
from vision.finder import Finder
from vision.layouts import load_layout
from vision.tokens import TOKEN_FINDER
from vision.train.board_train import repaint as _repaint
from vision.train.nets import DieNet, export_onnx, freeze_norms, load_folded
from vision.train.train_det import _aug_hue, _aug_photo


def _board_ppm(truth: dict) -> float:
    layout = load_layout(truth["game"])
    q = np.asarray(truth["board"]["corners"], np.float64)
    w = 0.5 * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3]))
    h = 0.5 * (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1]))
    return float(0.5 * (w / layout.width_mm + h / layout.height_mm))


KINDS = {"dice": DIE_FINDER, "tiles": TILE_FINDER, "tokens": TOKEN_FINDER}


def target(centres: np.ndarray, thing_px: float, out_hw: tuple[int, int], stride: int) -> np.ndarray:
    """Output-grid heat: a Gaussian (sigma a quarter of a thing) at each centre (input px)."""
    H, W = out_hw
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    t = np.zeros((H, W), np.float32)
    sig = max(0.6, 0.25 * thing_px / stride)
    for cx, cy in centres:
        ox, oy = (cx + 0.5) / stride - 0.5, (cy + 0.5) / stride - 0.5
        t = np.maximum(t, np.exp(-((xs - ox) ** 2 + (ys - oy) ** 2) / (2 * sig * sig)))
        iy, ix = int(round(oy)), int(round(ox))
        if 0 <= iy < H and 0 <= ix < W:
            t[iy, ix] = 1.0  # the thing's own cell is the positive
    return t


def things(truth: dict, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """Picture centres of (every thing, the things the crops are cut round): dice; or tiles or
    tokens, cut round those beside the board (off its squares), where the readers use the finder."""
    def centre(e: dict) -> np.ndarray:
        return np.mean(e["corners"], axis=0) if "corners" in e else np.asarray(e["center"], np.float64)

    def centres(items: list) -> np.ndarray:
        return np.asarray([centre(e) for e in items], np.float64).reshape(-1, 2)

    every = truth.get({"dice": "dice", "tiles": "cards", "tokens": "tokens"}[kind], [])
    if kind == "dice":
        return centres(every), centres(every)
    return centres(every), centres([e for e in every if e.get("square") is None])


def _cache(args):
    path, seed, kind = args
    finder: Finder = KINDS[kind]
    stride = finder.stride
    rng = np.random.default_rng(seed)
    img = cv2.imread(path)
    truth = json.loads(Path(path[:-4] + ".json").read_text())
    s = finder.px_per_mm / _board_ppm(truth) * float(np.exp(rng.uniform(np.log(0.8), np.log(1.25))))
    W, H = int(round(img.shape[1] * s)) // stride * stride, int(round(img.shape[0] * s)) // stride * stride
    small = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
    every, focus = (c * (W / img.shape[1]) for c in things(truth, kind))
    t = target(every, finder.thing_mm * finder.px_per_mm, (H // stride, W // stride), stride)
    at = np.round((focus + 0.5) / stride - 0.5).astype(np.int32)[:, ::-1]  # (row, column) cells
    at = at[(at[:, 0] >= 0) & (at[:, 0] < H // stride) & (at[:, 1] >= 0) & (at[:, 1] < W // stride)]
    return small, t.astype(np.float16), at


def sample(cache, rng, bs: int, size: int, stride: int, repaint: bool = False, hue_share: float = 0.0):
    xs, ts = [], []
    o = size // stride
    for _ in range(bs):
        img, t, peaks = cache[int(rng.integers(len(cache)))]
        oh, ow = t.shape
        # Half the crops round a thing to find (they are rare), the rest anywhere.
        if len(peaks) and rng.random() < 0.5:
            cy, cx = peaks[int(rng.integers(len(peaks)))]
            y0 = int(np.clip(cy - rng.integers(2, o - 2), 0, max(0, oh - o)))
            x0 = int(np.clip(cx - rng.integers(2, o - 2), 0, max(0, ow - o)))
        else:
            y0, x0 = int(rng.integers(0, max(1, oh - o + 1))), int(rng.integers(0, max(1, ow - o + 1)))
        im = img[y0 * stride:(y0 + o) * stride, x0 * stride:(x0 + o) * stride]
        tt = t[y0:y0 + o, x0:x0 + o].astype(np.float32)
        if im.shape[:2] != (size, size):
            pad = np.zeros((size, size, 3), np.uint8)
            pad[: im.shape[0], : im.shape[1]] = im
            tp = np.zeros((o, o), np.float32)
            tp[: tt.shape[0], : tt.shape[1]] = tt
            im, tt = pad, tp
        k = int(rng.integers(4))
        im, tt = np.rot90(im, k), np.rot90(tt, k)
        if rng.random() < 0.5:
            im, tt = im[:, ::-1], tt[:, ::-1]
        im = np.ascontiguousarray(im)
        if repaint:  # dice of any paint: lighter or darker pips than body (board_train.repaint)
            im = _repaint(im[None], rng)[0]
        if rng.random() < hue_share:
            im = _aug_hue(im, rng)
        xs.append(_aug_photo(im, rng))
        ts.append(np.ascontiguousarray(tt))
    x = np.stack(xs).astype(np.float32).transpose(0, 3, 1, 2) / 255.0 - 0.5
    return torch.from_numpy(x), torch.from_numpy(np.stack(ts))[:, None]


def loss_fn(logit: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """Focal-weighted BCE (CenterNet style): a few positive cells against a whole table."""
    p = torch.sigmoid(logit)
    pos = (t > 0.99).float()
    bce = F.binary_cross_entropy_with_logits(logit, pos, reduction="none")
    w = pos * (1 - p) ** 2 + (1 - pos) * (1 - t) ** 4 * p**2
    return (bce * w).sum() / pos.sum().clamp(min=1)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=sorted(KINDS), default="dice")
    ap.add_argument("--scenes", required=True)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ckpt", default=None, help="checkpoint path (default /work/data/<model>.pt)")
    ap.add_argument("--init", default=None, help="a checkpoint (.pt) or a shipped finder (.onnx) to continue from")
    ap.add_argument("--repaint", action="store_true", help="crops also with inverted lightness, swapped channels")
    ap.add_argument("--widths", default="16,24", help="DieNet channel widths")
    ap.add_argument("--dilations", default="2,4", help="DieNet's dilated layers (more: more context)")
    ap.add_argument("--hue-share", type=float, default=0.0, help="share of crops with their hues turned")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    finder = KINDS[a.kind]
    ckpt = a.ckpt or f"/work/data/{finder.model}.pt"
    if a.kind == "dice":
        files = sorted(glob.glob(str(Path(a.scenes) / "numeri_train_*.jpg")))
        files += sorted(glob.glob(str(Path(a.scenes) / "start11_train_*.jpg")))[: len(files) // 4]
    else:
        game = "start11" if a.kind == "tiles" else "numeri"
        files = sorted(glob.glob(str(Path(a.scenes) / f"{game}_train_*.jpg")))
    t0 = time.time()
    with mp.Pool(a.threads) as pool:
        cache = list(pool.imap(_cache, [(f, i, a.kind) for i, f in enumerate(files)], chunksize=8))
    print(f"cached {len(cache)} scenes in {time.time() - t0:.0f} s", flush=True)
    model = DieNet(tuple(int(v) for v in a.widths.split(",")), tuple(int(v) for v in a.dilations.split(",")))
    folded = bool(a.init and a.init.endswith(".onnx"))  # an export: its norms folded, kept frozen (load_folded)
    if folded:
        model = load_folded(model, a.init, "head")
    elif a.init:
        model.load_state_dict(torch.load(a.init))
    model = model.to(memory_format=torch.channels_last)
    print("parameters", sum(p.numel() for p in model.parameters()), flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=a.steps, pct_start=0.1)
    model.train()
    if folded:
        freeze_norms(model)
    run = 0.0
    for step in range(1, a.steps + 1):
        x, t = sample(cache, rng, a.batch, a.size, finder.stride, a.repaint, a.hue_share)
        loss = loss_fn(model(x.contiguous(memory_format=torch.channels_last)), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run += float(loss.detach())
        if step % 200 == 0:
            print(f"step {step}: loss {run / 200:.4f} ({time.time() - t0:.0f} s)", flush=True)
            run = 0.0
            torch.save(model.state_dict(), ckpt)
    torch.save(model.state_dict(), ckpt)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    export_onnx(model, str(out / f"{finder.model}.onnx"), (3, 128, 128), dynamic_hw=True)
    (out / f"{finder.model}.json").write_text(json.dumps(
        {"px_per_mm": finder.px_per_mm, "stride": finder.stride, "steps": a.steps, "scenes": len(files),
         "widths": a.widths, "dilations": a.dilations, "hue_share": a.hue_share}) + "\n")
    print("saved", out / f"{finder.model}.onnx", flush=True)


if __name__ == "__main__":
    main()
