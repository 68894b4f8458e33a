"""Train the die finder (`DieNet`: where on the table are dice?) on rendered board scenes.

    /work/trainvenv/bin/python -m vision.train.die_det --scenes /work/data/boards --out vision/models

Numeri scenes of `board_scenes` (dice on and beside the board, extra dice) give the die
centres; 11! scenes add tables without dice. Each picture is scaled to `PX_PER_MM` (from the
board's true outline) give or take a quarter, and the target is a small Gaussian at each die
centre on the output grid (stride 4). The die reader then reads a crop at each peak with the
die classifier, which decides whether there is a die and which face is up: this network only
has to find them (the blob proposals missed dice on light cloths and textured tables).
Writes ``die_centres.onnx`` and ``die_centres.json``.
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

from vision.dice import DIE_MM, FINDER_MODEL, FINDER_PX_PER_MM, FINDER_STRIDE
from vision.layouts import load_layout
from vision.train.board_train import repaint as _repaint
from vision.train.nets import DieNet, export_onnx
from vision.train.train_det import _aug_photo


def _board_ppm(truth: dict) -> float:
    layout = load_layout(truth["game"])
    q = np.asarray(truth["board"]["corners"], np.float64)
    w = 0.5 * (np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3]))
    h = 0.5 * (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1]))
    return float(0.5 * (w / layout.width_mm + h / layout.height_mm))


def target(centres: np.ndarray, die_px: float, out_hw: tuple[int, int]) -> np.ndarray:
    """Output-grid heat: a Gaussian (sigma a quarter of a die) at each die centre (input px)."""
    H, W = out_hw
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    t = np.zeros((H, W), np.float32)
    sig = max(0.6, 0.25 * die_px / FINDER_STRIDE)
    for cx, cy in centres:
        ox, oy = (cx + 0.5) / FINDER_STRIDE - 0.5, (cy + 0.5) / FINDER_STRIDE - 0.5
        t = np.maximum(t, np.exp(-((xs - ox) ** 2 + (ys - oy) ** 2) / (2 * sig * sig)))
        iy, ix = int(round(oy)), int(round(ox))
        if 0 <= iy < H and 0 <= ix < W:
            t[iy, ix] = 1.0  # the die's own cell is the positive
    return t


def _cache(args):
    path, seed = args
    rng = np.random.default_rng(seed)
    img = cv2.imread(path)
    truth = json.loads(Path(path[:-4] + ".json").read_text())
    s = FINDER_PX_PER_MM / _board_ppm(truth) * float(np.exp(rng.uniform(np.log(0.8), np.log(1.25))))
    W, H = int(round(img.shape[1] * s)) // FINDER_STRIDE * FINDER_STRIDE, \
        int(round(img.shape[0] * s)) // FINDER_STRIDE * FINDER_STRIDE
    small = cv2.resize(img, (W, H), interpolation=cv2.INTER_AREA)
    centres = [np.mean(d["corners"], axis=0) * (W / img.shape[1]) for d in truth.get("dice", [])]
    t = target(np.asarray(centres).reshape(-1, 2), DIE_MM * FINDER_PX_PER_MM, (H // FINDER_STRIDE, W // FINDER_STRIDE))
    return small, t.astype(np.float16)


def sample(cache, rng, bs: int, size: int, repaint: bool = False):
    xs, ts = [], []
    o = size // FINDER_STRIDE
    for _ in range(bs):
        img, t = cache[int(rng.integers(len(cache)))]
        oh, ow = t.shape
        # Half the crops round a die (they are rare), the rest anywhere.
        peaks = np.argwhere(t > 0.99)
        if len(peaks) and rng.random() < 0.5:
            cy, cx = peaks[int(rng.integers(len(peaks)))]
            y0 = int(np.clip(cy - rng.integers(2, o - 2), 0, max(0, oh - o)))
            x0 = int(np.clip(cx - rng.integers(2, o - 2), 0, max(0, ow - o)))
        else:
            y0, x0 = int(rng.integers(0, max(1, oh - o + 1))), int(rng.integers(0, max(1, ow - o + 1)))
        im = img[y0 * FINDER_STRIDE:(y0 + o) * FINDER_STRIDE, x0 * FINDER_STRIDE:(x0 + o) * FINDER_STRIDE]
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
        xs.append(_aug_photo(im, rng))
        ts.append(np.ascontiguousarray(tt))
    x = np.stack(xs).astype(np.float32).transpose(0, 3, 1, 2) / 255.0 - 0.5
    return torch.from_numpy(x), torch.from_numpy(np.stack(ts))[:, None]


def loss_fn(logit: torch.Tensor, t: torch.Tensor) -> torch.Tensor:
    """Focal-weighted BCE (CenterNet style): a few die cells against a whole table."""
    p = torch.sigmoid(logit)
    pos = (t > 0.99).float()
    bce = F.binary_cross_entropy_with_logits(logit, pos, reduction="none")
    w = pos * (1 - p) ** 2 + (1 - pos) * (1 - t) ** 4 * p**2
    return (bce * w).sum() / pos.sum().clamp(min=1)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", required=True)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--batch", type=int, default=24)
    ap.add_argument("--size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--ckpt", default="/work/data/die_centres.pt")
    ap.add_argument("--init", default=None, help="a checkpoint to continue from")
    ap.add_argument("--repaint", action="store_true", help="crops also with inverted lightness, swapped channels")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    files = sorted(glob.glob(str(Path(a.scenes) / "numeri_train_*.jpg")))
    files += sorted(glob.glob(str(Path(a.scenes) / "start11_train_*.jpg")))[: len(files) // 4]
    t0 = time.time()
    with mp.Pool(a.threads) as pool:
        cache = list(pool.imap(_cache, [(f, i) for i, f in enumerate(files)], chunksize=8))
    print(f"cached {len(cache)} scenes in {time.time() - t0:.0f} s", flush=True)
    model = DieNet()
    if a.init:
        model.load_state_dict(torch.load(a.init))
    model = model.to(memory_format=torch.channels_last)
    print("parameters", sum(p.numel() for p in model.parameters()), flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=a.steps, pct_start=0.1)
    model.train()
    run = 0.0
    for step in range(1, a.steps + 1):
        x, t = sample(cache, rng, a.batch, a.size, a.repaint)
        loss = loss_fn(model(x.contiguous(memory_format=torch.channels_last)), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        sched.step()
        run += float(loss.detach())
        if step % 200 == 0:
            print(f"step {step}: loss {run / 200:.4f} ({time.time() - t0:.0f} s)", flush=True)
            run = 0.0
            torch.save(model.state_dict(), a.ckpt)
    torch.save(model.state_dict(), a.ckpt)
    out = Path(a.out)
    export_onnx(model, str(out / f"{FINDER_MODEL}.onnx"), (3, 128, 128), dynamic_hw=True)
    (out / f"{FINDER_MODEL}.json").write_text(json.dumps(
        {"px_per_mm": FINDER_PX_PER_MM, "stride": FINDER_STRIDE, "steps": a.steps, "scenes": len(files)}) + "\n")
    print("saved", out / f"{FINDER_MODEL}.onnx", flush=True)


if __name__ == "__main__":
    main()
