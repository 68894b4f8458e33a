"""Train the finder of cards by their corner index *points* (`cardpoints.onnx`) on rendered scenes.

    /work/trainvenv/bin/python -m vision.train.train_points --scenes /work/data/s60 --steps 8000 \\
        --init vision/models/cardindex.onnx

`cardindex.onnx` marks the pixels of the cards' corner indices and lets each vote for its card's
centre; in a tight fan the votes of neighbouring cards run together into one ridge and its cards
are lost (`benchmarks/heap_misses.py`: most missed heap cards have no peak of their own), and an
index under a card lying across it votes for that card. This network answers, per pixel of the
same output grid, what can be told from the index alone: a heat map peaking at the middle of
every corner index in view (CenterNet's Gaussian targets and focal loss, Zhou et al. 2019), the
index's upright direction (cos θ, sin θ: a whole turn, as the digits show it), the offset to its
card's centre and the card's size. Index middles lie apart even where centres crowd, and the
direction is read from the glyph, not guessed from far away (`detect.decode_index_points`).

Targets (`points.py`) need the renderer's truth with each card's index boxes
(`scenes.item_outlines`'s `indices`, written since stop 60).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from vision.classify import MODELS_DIR
from vision.train.nets import export_onnx
from vision.train.points import NEAR, index_points, point_targets
from vision.train.train_det import cache_scenes, fit, read_scene, sample_batch, scene_views, start_model

ANGLE_WEIGHT = 1.0


def _cache_scene(args):
    path, seed, target_width = args
    img, truth, hand = read_scene(path)
    if any(it["obj"] == "card" and "indices" not in it for it in truth["items"]):
        raise ValueError(f"{path}: its cards carry no index boxes (scenes rendered before stop 60: render them again)")
    points = index_points(truth["items"], hand, img.shape[:2])
    # The card detector's two views (`train_det.scene_views`)
    return scene_views(img, truth["items"], np.random.default_rng(seed), target_width,
                       lambda s, hw: point_targets(points, s, hw))


def loss_fn(pred: torch.Tensor, t: torch.Tensor) -> tuple[torch.Tensor, dict]:
    """Focal loss on the heat (CenterNet's: α 2, β 4, positives at the targets' local peaks),
    regression near the peaks."""
    w = t[:, 7]
    y = t[:, 0]
    peak = ((y >= F.max_pool2d(y[:, None], 3, 1, 1)[:, 0]) & (y > 0.5)).float() * w
    logp, log1p = F.logsigmoid(pred[:, 0]), F.logsigmoid(-pred[:, 0])
    p = torch.sigmoid(pred[:, 0])
    pos = -(logp * (1 - p) ** 2 * peak).sum()
    neg = -(log1p * p ** 2 * (1 - y) ** 4 * (1 - peak) * w).sum()
    n = peak.sum().clamp(min=1)
    l_heat = (pos + neg) / n
    m = (y >= NEAR).float() * w
    nm = m.sum().clamp(min=1)
    off = F.smooth_l1_loss(pred[:, 1:3], t[:, 1:3], reduction="none", beta=0.05).sum(1)
    ang = ((pred[:, 3:5] - t[:, 3:5]) ** 2).sum(1)
    size = F.smooth_l1_loss(pred[:, 5:7], t[:, 5:7], reduction="none", beta=0.05).sum(1)
    l_off = (off * m).sum() / nm
    l_ang = ANGLE_WEIGHT * (ang * m).sum() / nm
    l_size = 0.5 * (size * m).sum() / nm
    return l_heat + 2.0 * l_off + l_ang + l_size, {"heat": float(l_heat.detach()), "off": float(l_off.detach()),
                                                   "ang": float(l_ang.detach()), "size": float(l_size.detach())}


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", required=True)
    ap.add_argument("--steps", type=int, default=8000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=192)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(MODELS_DIR))
    ap.add_argument("--name", default="cardpoints")
    ap.add_argument("--ckpt", default="/work/data/cardpoints.pt")
    ap.add_argument("--init", default=None, help="start from this state dict or an exported CardNet .onnx")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--target-width", type=float, default=48.0)
    ap.add_argument("--turn-share", type=float, default=0.5, help="share of crops turned by a random angle")
    ap.add_argument("--hue-share", type=float, default=0.3, help="share of crops with their hues turned")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    cache = cache_scenes(a.scenes, a.limit, a.threads, _cache_scene, a.target_width)
    model, frozen = start_model(a.init)
    model = fit(model, frozen, lambda: sample_batch(cache, rng, a.batch, a.size, a.turn_share, a.hue_share,
                                                    full_angle=True), loss_fn, a.steps, a.lr, a.ckpt)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    export_onnx(model, str(Path(a.out) / f"{a.name}.onnx"), (3, 256, 256), dynamic_hw=True)
    info = {"target_width": a.target_width, "widths": "8,16,32,64", "face_bleed": [0.0, 0.0], "faces": "points"}
    (Path(a.out) / f"{a.name}.json").write_text(json.dumps(info) + "\n")
    print("saved", Path(a.out) / f"{a.name}.onnx", flush=True)


if __name__ == "__main__":
    main()
