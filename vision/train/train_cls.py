"""Train the crop classifier, calibrate its confidence, export ONNX + JSON to vision/models/.

    /work/trainvenv/bin/python -m vision.train.train_cls --data /work/data/crops_*.npz --epochs 14

The validation split holds out whole designs (synthetic) and whole scenes, so the temperature
found on it (confidence calibration by temperature scaling) is measured on unseen printings.
"""

from __future__ import annotations

import argparse
import glob
import json
import time
import zlib
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from vision.classify import (
    CARD_CLASSES,
    CARD_REGION,
    CORNER_REGION,
    CROP,
    INDEX_REGION,
    MODELS_DIR,
    NUMERAL_REGION,
    preprocess,
)
from vision.train.nets import CropNet, crop_net_from_onnx, export_onnx, freeze_norms

# The crop kinds of the data files (`crops.WHOLE`, `INDEX`, `NUMERAL`, `CORNER`), by their number:
# the export's sidecar names the regions of the kinds it was taught, which the reader then cuts.
KIND_NAMES = ("card", "index", "numeral", "corner")
REGIONS = {"card": CARD_REGION, "index": INDEX_REGION, "numeral": NUMERAL_REGION, "corner": CORNER_REGION}


def load(patterns: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    xs, ys, ks, gs = [], [], [], []
    for n, pat in enumerate(patterns):
        for f in sorted(glob.glob(pat)):
            d = np.load(f)
            xs.append(d["x"])
            ys.append(d["y"].astype(np.int64))
            ks.append(d["kind"])
            # Groups unique per file (zlib.crc32, not hash(): salted per run, the split must repeat).
            gs.append(d["group"].astype(np.int64) + 1_000_000 * (n + 1) + zlib.crc32(f.encode()) % 1000 * 10_000_000)
            print(f, len(d["y"]), flush=True)
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(ks), np.concatenate(gs)


def augment(x: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per batch: colour channels shuffled (ink colours must not name numbers), slight shifts, noise."""
    x = x.copy()
    perm = rng.random(len(x)) < 0.5
    for i in np.nonzero(perm)[0]:
        x[i] = x[i][..., rng.permutation(3)]
    gray = rng.random(len(x)) < 0.08
    if gray.any():
        g = x[gray].mean(axis=-1, keepdims=True).astype(np.uint8)
        x[gray] = np.repeat(g, 3, axis=-1)
    shift = rng.random(len(x)) < 0.5
    for i in np.nonzero(shift)[0]:
        dx, dy = rng.integers(-1, 2, 2)
        x[i] = np.roll(x[i], (int(dy), int(dx)), axis=(0, 1))
    return x


def evaluate(model, X, Y, bs=1024) -> tuple[np.ndarray, float]:
    model.eval()
    out = []
    with torch.no_grad():
        for i in range(0, len(X), bs):
            out.append(model(torch.from_numpy(preprocess(X[i:i + bs]))).numpy())
    logits = np.concatenate(out)
    return logits, float((logits.argmax(1) == Y).mean())


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    z = torch.from_numpy(logits)
    t = torch.from_numpy(y)
    best, best_t = 1e9, 1.0
    for temp in np.exp(np.linspace(np.log(0.3), np.log(5.0), 120)):
        nll = float(F.cross_entropy(z / float(temp), t))
        if nll < best:
            best, best_t = nll, float(temp)
    return best_t


def ece(probs: np.ndarray, y: np.ndarray, bins: int = 15) -> float:
    conf = probs.max(1)
    ok = probs.argmax(1) == y
    edges = np.linspace(0, 1, bins + 1)
    e = 0.0
    for a, b in zip(edges[:-1], edges[1:], strict=True):
        m = (conf > a) & (conf <= b)
        if m.any():
            e += m.mean() * abs(ok[m].mean() - conf[m].mean())
    return float(e)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", nargs="+", required=True)
    ap.add_argument("--epochs", type=int, default=14)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--val-share", type=float, default=0.08)
    ap.add_argument("--out", default=str(MODELS_DIR))
    ap.add_argument("--name", default="cards")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", default=None, help="start from this state dict or exported .onnx (fine-tuning)")
    ap.add_argument("--per-epoch", type=int, default=0, help="samples drawn per epoch (0: all)")
    ap.add_argument("--ckpt", default="/work/data/cards.pt")
    ap.add_argument("--seed", type=int, default=0,
                    help="order of the crops, augmentation and noise: another fine-tune of one start for a soup"
                         " (vision.train.soup); the validation split is the same for every seed")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(a.seed)
    rng = np.random.default_rng(0)
    X, Y, K, G = load(a.data)
    groups = np.unique(G)
    val_groups = set(rng.choice(groups, max(1, int(len(groups) * a.val_share)), replace=False).tolist())
    is_val = np.array([g in val_groups for g in G])
    Xtr, Ytr = X[~is_val], Y[~is_val]
    Xva, Yva, Kva = X[is_val], Y[is_val], K[is_val]
    if a.seed:
        rng = np.random.default_rng([a.seed, 1])
    print(f"train {len(Ytr)}  val {len(Yva)}  classes {len(CARD_CLASSES)}", flush=True)
    n_out = len(CARD_CLASSES) * 2
    model = CropNet(n_out)
    frozen = bool(a.init and a.init.endswith(".onnx"))  # an export: norms folded, kept frozen
    if frozen:
        model = crop_net_from_onnx(a.init, n_out)
    elif a.init:
        model.load_state_dict(torch.load(a.init))
    print("parameters", sum(p.numel() for p in model.parameters()), flush=True)
    model = model.to(memory_format=torch.channels_last)  # oneDNN convolutions run ~1.7x faster on CPU
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    per_epoch = min(len(Ytr), a.per_epoch) if a.per_epoch else len(Ytr)
    steps = a.epochs * (per_epoch // a.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=a.lr, total_steps=steps, pct_start=0.15)
    step = 0
    for ep in range(a.epochs):
        model.train()
        if frozen:
            freeze_norms(model)
        t0 = time.time()
        order = rng.permutation(len(Ytr))[:per_epoch]
        tot = 0.0
        for i in range(0, len(order) - a.batch + 1, a.batch):
            idx = np.sort(order[i:i + a.batch])
            xb = torch.from_numpy(preprocess(augment(Xtr[idx], rng)))
            xb += 0.05 * torch.randn_like(xb)
            xb = xb.contiguous(memory_format=torch.channels_last)
            yb = torch.from_numpy(Ytr[idx])
            loss = F.cross_entropy(model(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            tot += float(loss)
        logits, acc = evaluate(model, Xva, Yva)
        cls_acc = float((logits.argmax(1) // 2 == Yva // 2).mean())
        print(f"epoch {ep + 1}: loss {tot / max(1, len(order) // a.batch):.4f} val joint {acc:.4f} class {cls_acc:.4f}"
              f" ({time.time() - t0:.0f} s)", flush=True)
        torch.save(model.state_dict(), a.ckpt)
    logits, acc = evaluate(model, Xva, Yva)
    temp = fit_temperature(logits, Yva)
    p = torch.softmax(torch.from_numpy(logits) / temp, 1).numpy()
    pc = p.reshape(len(p), -1, 2).sum(-1)
    right = pc.argmax(1) == Yva // 2
    report = {"val_joint": acc, "val_class": float(right.mean()),
              **{f"val_class_{name}": float(right[Kva == k].mean()) for k, name in enumerate(KIND_NAMES)
                 if (Kva == k).any()},
              "ece_before": ece(torch.softmax(torch.from_numpy(logits), 1).numpy(), Yva), "ece_after": ece(p, Yva),
              "temperature": temp, "val_size": int(len(Yva)), "train_size": int(len(Ytr))}
    print(json.dumps(report), flush=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(model.state_dict(), a.ckpt)
    export_onnx(model, str(out / f"{a.name}.onnx"), (3, CROP, CROP), dynamic_hw=False)
    meta = {"classes": list(CARD_CLASSES), "crop": CROP, "temperature": temp, "orientations": 2,
            "regions": {name: REGIONS[name] for k, name in enumerate(KIND_NAMES) if (K == k).any()},
            "validation": report,
            "trained": time.strftime("%Y-%m-%d"), "data": [Path(d).name for d in a.data]}
    (out / f"{a.name}.json").write_text(json.dumps(meta, indent=1))
    print("saved", out / f"{a.name}.onnx", flush=True)


if __name__ == "__main__":
    main()
