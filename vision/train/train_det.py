"""Train the card-face detector (CardNet) on rendered train-pool scenes; export ONNX to vision/models/.

    /work/trainvenv/bin/python -m vision.train.train_det --scenes /work/data/scenes --steps 9000

Targets, per pixel of the output grid (half the network input): is a card face visible here;
where is that card's centre (offset, in output pixels / 16); which way does its long side run
(cos 2θ, sin 2θ: a card turned half a turn has the same outline); its width and height (log of
output pixels / 16). Cards are "face" wherever they show, even when too covered to be read:
the classifier, trained with the renderer's visibility rule, decides whether they count.

Crops are flipped and transposed; `--turn-share` also turns some by any angle, and
`--direction-loss mse` learns the direction by squared error. Together they make the network
learn sin 2θ (median direction error of turned cards 29° -> 4°; squared error alone did not, in
3 000 steps), but cost overlapping rows 6 points held-out (fine-tuned from the shipped model:
0.5 then 0.15 of the crops turned, 12 000 steps), so the shipped detector is trained without
them and the decoder finds directions from edges.

`--faces index` trains the finder of a loose heap's cards by their corner indices
(`cardindex.onnx`): a card's face is only the visible pixels of its two corner index boxes, its
offsets, direction and size still the card's; `--pos-weight` weighs face pixels in the face loss
(index pixels are few).
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

from vision.classify import MODELS_DIR
from vision.detect import INDEX_BOXES, OFFSET_SCALE, TARGET_WIDTH, full_to_out, shrink
from vision.train.nets import CardNet, card_net_from_onnx, export_onnx, freeze_norms

FACE_OBJS = ("card",)
TURN_SHARE = 0.0  # share of training crops turned by a random angle (see `_aug_turn`)
ANGLE_WEIGHT = 2.0  # weight of the direction loss when learnt by squared error


def _index_mask(q: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Output-grid pixels (×4 sub-pixel grid as `targets` draws) of a card's two corner index boxes."""
    m = np.zeros(shape, np.uint8)
    for u0, v0, u1, v1 in INDEX_BOXES.values():
        pts = [q[0] + u * (q[1] - q[0]) + v * (q[3] - q[0]) for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))]
        cv2.fillConvexPoly(m, np.round(np.array(pts) * 4).astype(np.int32), 1, cv2.LINE_8, 2)
    return m.astype(bool)


def targets(items: list[dict], hand: np.ndarray | None, s: float, out_hw: tuple[int, int],
            faces: str = "card") -> np.ndarray:
    """8×H×W float32: face, dx, dy, cos2θ, sin2θ, logw, logh, valid (all at output resolution).
    `faces` "index": a card's face is only its corner index boxes (a finder of heap cards by them)."""
    H, W = out_hw
    ids = np.zeros((H, W), np.int32)
    info = [None]
    quads = []
    for k, it in enumerate(items):
        q = full_to_out(np.asarray(it["corners"], np.float64), s)
        if it["obj"] == "prop" and it.get("name") == "coin":
            c = q.mean(axis=0)
            r = 0.5 * np.linalg.norm(q[1] - q[0])
            cv2.circle(ids, (int(round(c[0] * 4)), int(round(c[1] * 4))), int(round(r * 4)), k + 1, -1, cv2.LINE_8, 2)
        else:
            cv2.fillConvexPoly(ids, np.round(q * 4).astype(np.int32), k + 1, cv2.LINE_8, 2)
        quads.append(q if it["obj"] in FACE_OBJS else None)
        if it["obj"] in FACE_OBJS:
            c = q.mean(axis=0)
            v = q[3] - q[0]
            th = np.arctan2(v[1], v[0])
            w = np.linalg.norm(q[1] - q[0])
            h = np.linalg.norm(v)
            info.append((c[0], c[1], np.cos(2 * th), np.sin(2 * th), np.log(w / OFFSET_SCALE),
                         np.log(h / OFFSET_SCALE)))
        else:
            info.append(None)
    if hand is not None:
        hm = cv2.resize(hand, (W, H), interpolation=cv2.INTER_AREA) > 127
        ids[hm] = 0
    table = np.zeros((len(info), 7), np.float32)
    for k, t in enumerate(info):
        if t is not None:
            table[k] = (1.0, *t)
    per = table[ids]  # H×W×7
    ys, xs = np.mgrid[0:H, 0:W].astype(np.float32)
    out = np.zeros((8, H, W), np.float32)
    face = per[..., 0] > 0
    if faces == "index":
        index = np.zeros((H, W), bool)
        for k, q in enumerate(quads):
            if q is not None:
                index |= _index_mask(q, (H, W)) & (ids == k + 1)
        face &= index
    out[0] = face
    out[1] = np.where(face, (per[..., 1] - xs) / OFFSET_SCALE, 0)
    out[2] = np.where(face, (per[..., 2] - ys) / OFFSET_SCALE, 0)
    out[3:7] = np.moveaxis(per[..., 3:7], -1, 0) * face[None]
    out[7] = 1.0
    return out


def scene_views(img: np.ndarray, items: list[dict], rng: np.random.Generator, target_width: float,
                make_targets) -> list[tuple[np.ndarray, np.ndarray]]:
    """A scene's two training views, each (picture, its targets as float16): one near the card
    width the network reads best, one at any size (the first passes). `make_targets(s, (oh,
    ow))` draws the targets of the picture scaled by s on its output grid."""
    cards = [np.asarray(it["corners"]) for it in items if it["obj"] == "card"]
    cw = float(np.median([np.linalg.norm(q[1] - q[0]) for q in cards])) if cards else 100.0
    out = []
    k = target_width / TARGET_WIDTH
    any_size = min(72.0, k * float(np.exp(rng.uniform(np.log(11), np.log(64)))))  # capped: memory
    for target in (k * rng.uniform(28, 46), any_size):
        s = min(1.0, target / cw)
        W, H = int(round(img.shape[1] * s)), int(round(img.shape[0] * s))
        small = shrink(img, W, H)  # as the recogniser reduces photos
        oh, ow = H // 2, W // 2
        t = make_targets(s * (W / (img.shape[1] * s)), (oh, ow))
        out.append((small[: oh * 2, : ow * 2], t.astype(np.float16)))
    return out


def read_scene(path: str) -> tuple[np.ndarray, dict, np.ndarray | None]:
    """A rendered training scene (`scenes.py`): the photo, its truth and the hand's coverage."""
    truth = json.loads(Path(path[:-4] + ".json").read_text())
    hp = Path(path[:-4] + "_hand.png")
    return cv2.imread(path), truth, cv2.imread(str(hp), cv2.IMREAD_GRAYSCALE) if hp.exists() else None


def _cache_scene(args):
    path, seed, target_width, faces = args
    img, truth, hand = read_scene(path)
    return scene_views(img, truth["items"], np.random.default_rng(seed), target_width,
                       lambda s, hw: targets(truth["items"], hand, s, hw, faces))


def _aug_geom(img: np.ndarray, t: np.ndarray, rng: np.random.Generator, full_angle: bool = False):
    """Flips and transposition, with the offsets and orientation targets turned to match.
    `full_angle`: channels 3, 4 are (cos θ, sin θ) of a direction, not of twice an axis's angle."""
    t = t.copy()
    if rng.random() < 0.5:  # mirror left-right: θ -> π - θ
        img, t = img[:, ::-1], t[:, :, ::-1]
        t[1] = -t[1]
        t[3 if full_angle else 4] *= -1
    if rng.random() < 0.5:  # mirror top-bottom: θ -> -θ
        img, t = img[::-1], t[:, ::-1]
        t[2] = -t[2]
        t[4] = -t[4]
    if rng.random() < 0.5:  # transpose: θ -> π/2 - θ
        img, t = img.transpose(1, 0, 2), t.transpose(0, 2, 1)
        t[[1, 2]] = t[[2, 1]]
        if full_angle:
            t[[3, 4]] = t[[4, 3]]
        else:
            t[3] = -t[3]
    return np.ascontiguousarray(img), np.ascontiguousarray(t)


def _aug_turn(img: np.ndarray, t: np.ndarray, rng: np.random.Generator, full_angle: bool = False):
    """Turned by a random angle about the crop's centre, with the targets turned to match
    (offsets are vectors, directions turn twice as fast in cos 2θ, sin 2θ, as fast with
    `full_angle`; what the turn
    brings in from outside the crop is marked invalid). Rows mostly lie square to the camera
    in rendered scenes: without turns the network never learnt sin 2θ (it answered 0)."""
    phi = float(rng.uniform(0.0, 2.0 * np.pi))
    h, w = img.shape[:2]
    m = cv2.getRotationMatrix2D(((w - 1) / 2.0, (h - 1) / 2.0), -np.degrees(phi), 1.0)  # turns by +phi in image axes
    img = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    th, tw = t.shape[1:]
    centre = np.array([(tw - 1) / 2.0, (th - 1) / 2.0])
    mo = cv2.getRotationMatrix2D(tuple(centre), -np.degrees(phi), 1.0)
    ys, xs = np.mgrid[0:th, 0:tw].astype(np.float32)
    chans = [*t, xs, ys]  # the source pixel each target pixel takes its values from
    out = np.stack([cv2.warpAffine(np.ascontiguousarray(ch), mo, (tw, th), flags=cv2.INTER_NEAREST,
                                   borderMode=cv2.BORDER_CONSTANT, borderValue=0.0) for ch in chans])
    c, s = np.cos(phi), np.sin(phi)
    # Offsets exactly: the source pixel's card centre, turned, less this pixel (nearest-pixel
    # sampling alone would shift them by up to half a pixel).
    cx = out[8] + out[1] * OFFSET_SCALE - centre[0]
    cy = out[9] + out[2] * OFFSET_SCALE - centre[1]
    has = out[0] > 0  # where the offsets are defined (a face, or near an index point: `train_points`)
    out[1] = (c * cx - s * cy + centre[0] - xs) / OFFSET_SCALE * has
    out[2] = (s * cx + c * cy + centre[1] - ys) / OFFSET_SCALE * has
    out = out[:8]
    turn = phi if full_angle else 2 * phi
    c2, s2 = np.cos(turn), np.sin(turn)
    a, b = out[3].copy(), out[4].copy()
    out[3], out[4] = c2 * a - s2 * b, s2 * a + c2 * b
    return img, out


def _aug_photo(img: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    x = img.astype(np.float32)
    if rng.random() < 0.3:
        x = x[..., rng.permutation(3)]
    x *= rng.uniform(0.75, 1.25, 3) * np.exp(rng.normal(0, 0.25))
    if rng.random() < 0.3:
        m = x.mean()
        x = (x - m) * rng.uniform(0.6, 1.3) + m
    if rng.random() < 0.3:
        x = cv2.GaussianBlur(x, (0, 0), rng.uniform(0.3, 1.2))
    x += rng.normal(0, rng.uniform(0, 5), x.shape)
    return np.clip(x, 0, 255).astype(np.uint8)


def _aug_hue(im: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The whole crop's hues turned by any angle and its saturation scaled: a finder only has to
    find things, whatever the colour of the table they lie on (held out, the 11! tile finder was
    silent at tiles on tables whose colours the train pool has not)."""
    hsv = cv2.cvtColor(im, cv2.COLOR_BGR2HSV).astype(np.int32)
    hsv[..., 0] = (hsv[..., 0] + int(rng.integers(0, 180))) % 180
    hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.3, 1.4), 0, 255)
    return cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)


def sample_batch(cache, rng, bs: int, size: int, turn_share: float = TURN_SHARE, hue_share: float = 0.0,
                 full_angle: bool = False):
    xs, ts = [], []
    for _ in range(bs):
        img, t = cache[int(rng.integers(len(cache)))]
        t = t.astype(np.float32)
        H, W = img.shape[:2]
        ph = max(size, H + (H % 2))
        pw = max(size, W + (W % 2))
        if ph > H or pw > W:  # pad (invalid area) so that every crop is full size
            pad = np.zeros((ph, pw, 3), np.uint8)
            pad[:] = rng.integers(0, 255, 3)
            pad[:H, :W] = img
            tp = np.zeros((8, ph // 2, pw // 2), np.float32)
            tp[:, : t.shape[1], : t.shape[2]] = t
            img, t = pad, tp
            H, W = ph, pw
        y0 = int(rng.integers(0, (H - size) // 2 + 1)) * 2
        x0 = int(rng.integers(0, (W - size) // 2 + 1)) * 2
        im = img[y0:y0 + size, x0:x0 + size]
        tt = t[:, y0 // 2: (y0 + size) // 2, x0 // 2: (x0 + size) // 2]
        im, tt = _aug_geom(im, tt, rng, full_angle)
        if rng.random() < turn_share:
            im, tt = _aug_turn(im, tt, rng, full_angle)
        if rng.random() < hue_share:  # a card's face is a card's whatever the colours of table and print
            im = _aug_hue(im, rng)
        xs.append(_aug_photo(im, rng))
        ts.append(tt)
    x = np.stack(xs).astype(np.float32).transpose(0, 3, 1, 2) / 255.0 - 0.5
    return torch.from_numpy(x), torch.from_numpy(np.stack(ts))


def loss_fn(pred: torch.Tensor, t: torch.Tensor, direction: str = "l1",
            pos_weight: torch.Tensor | None = None) -> tuple[torch.Tensor, dict]:
    valid = t[:, 7]
    face = t[:, 0]
    bce = F.binary_cross_entropy_with_logits(pred[:, 0], face, reduction="none", pos_weight=pos_weight)
    l_face = (bce * valid).sum() / valid.sum().clamp(min=1)
    m = face * valid
    n = m.sum().clamp(min=1)
    reg = F.smooth_l1_loss(pred[:, 1:7], t[:, 1:7], reduction="none", beta=0.05)
    mse = direction == "mse"
    w = torch.tensor([2.0, 2.0, 0.0 if mse else 0.5, 0.0 if mse else 0.5, 0.5, 0.5]).view(1, 6, 1, 1)
    l_reg = (reg * w * m[:, None]).sum() / n
    # "mse": the direction by squared error (an L1 loss is minimised by the median, and the
    # median of sin 2θ over mostly square-on rows is 0: the shipped detector answers 0 there).
    l_dir = ANGLE_WEIGHT * (((pred[:, 3:5] - t[:, 3:5]) ** 2).sum(1) * m).sum() / n if mse else pred.new_zeros(())
    return l_face + l_reg + l_dir, {"face": float(l_face.detach()), "reg": float(l_reg.detach()),
                                    "dir": float(l_dir.detach())}


def cache_scenes(folder: str, limit: int, threads: int, cache_scene, *extra) -> list:
    """The training views of the scenes in `folder` (`cache_scene((path, index, *extra))` gives a
    scene's list of views), made in `threads` processes."""
    files = sorted(glob.glob(str(Path(folder) / "train_*.jpg")))
    if limit:
        files = files[:limit]
    t0 = time.time()
    with mp.Pool(threads) as pool:
        cache = [c for lst in pool.imap(cache_scene, [(f, i, *extra) for i, f in enumerate(files)], chunksize=8)
                 for c in lst]
    print(f"cached {len(cache)} views of {len(files)} scenes in {time.time() - t0:.0f} s", flush=True)
    return cache


def start_model(init: str | None, widths: tuple[int, ...] = (8, 16, 32, 64), freeze: bool = False
                ) -> tuple[CardNet, bool]:
    """A CardNet to train: new, a state dict, or an export (its norms folded); and whether its batch
    norms stay frozen (an export, or `freeze`: a network grown from one by `widen`)."""
    frozen = bool(init and (init.endswith(".onnx") or freeze))
    if init and init.endswith(".onnx"):
        model = card_net_from_onnx(init, widths)
    else:
        model = CardNet(widths)
        if init:
            model.load_state_dict(torch.load(init))
    print("parameters", sum(p.numel() for p in model.parameters()), flush=True)
    return model.to(memory_format=torch.channels_last), frozen  # oneDNN convolutions run ~1.8x faster on CPU


def fit(model: CardNet, frozen: bool, batch, loss, steps: int, lr: float, ckpt: str) -> CardNet:
    """`steps` of AdamW with a one-cycle rate on `batch()` (inputs, targets) and `loss(pred, t)`
    (total, {part: value}); the parts' means printed and the state dict saved every 200 steps."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps, pct_start=0.1)
    model.train()
    if frozen:
        freeze_norms(model)
    t0 = time.time()
    acc: dict[str, float] = {}
    for step in range(1, steps + 1):
        x, t = batch()
        total, parts = loss(model(x.contiguous(memory_format=torch.channels_last)), t)
        opt.zero_grad()
        total.backward()
        opt.step()
        sched.step()
        for k, v in parts.items():
            acc[k] = acc.get(k, 0.0) + v
        if step % 200 == 0:
            print(f"step {step}: " + " ".join(f"{k} {v / 200:.4f}" for k, v in acc.items())
                  + f" ({time.time() - t0:.0f} s)", flush=True)
            acc = {}
            torch.save(model.state_dict(), ckpt)
    torch.save(model.state_dict(), ckpt)
    return model


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", required=True)
    ap.add_argument("--steps", type=int, default=9000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--size", type=int, default=192)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--out", default=str(MODELS_DIR))
    ap.add_argument("--ckpt", default="/work/data/cardnet.pt")
    ap.add_argument("--init", default=None, help="start from this state dict or exported .onnx (fine-tuning)")
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--target-width", type=float, default=TARGET_WIDTH,
                    help="card width (network input pixels) the detector is trained to read best")
    ap.add_argument("--widths", default="8,16,32,64", help="CardNet channel widths")
    ap.add_argument("--freeze-norms", action="store_true",
                    help="keep the batch norms of an --init state dict frozen (a network grown by `widen`)")
    ap.add_argument("--turn-share", type=float, default=TURN_SHARE, help="share of crops turned by a random angle")
    ap.add_argument("--hue-share", type=float, default=0.0, help="share of crops with their hues turned")
    ap.add_argument("--pos-weight", type=float, default=1.0, help="weight of face pixels in the face loss")
    ap.add_argument("--faces", default="card", choices=["card", "index"],
                    help="what is face: whole cards (cardnet) or their corner indices (cardindex)")
    ap.add_argument("--direction-loss", default="l1", choices=["l1", "mse"],
                    help="loss of the direction channels (see loss_fn; the shipped detector: l1)")
    a = ap.parse_args(argv)
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    cache = cache_scenes(a.scenes, a.limit, a.threads, _cache_scene, a.target_width, a.faces)
    model, frozen = start_model(a.init, tuple(int(v) for v in a.widths.split(",")), a.freeze_norms)
    pos_weight = torch.tensor(a.pos_weight)
    model = fit(model, frozen, lambda: sample_batch(cache, rng, a.batch, a.size, a.turn_share, a.hue_share),
                lambda pred, t: loss_fn(pred, t, a.direction_loss, pos_weight), a.steps, a.lr, a.ckpt)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    name = "cardnet" if a.faces == "card" else "cardindex"
    export_onnx(model, str(Path(a.out) / f"{name}.onnx"), (3, 256, 256), dynamic_hw=True)
    info = {"target_width": a.target_width, "widths": a.widths}
    if a.faces == "index":  # decoded apart (`detect.decode_indices`): no rectangle fitted to its faces
        info.update(face_bleed=[0.0, 0.0], faces="index")
    (Path(a.out) / f"{name}.json").write_text(json.dumps(info) + "\n")
    print("saved", Path(a.out) / f"{name}.onnx", flush=True)
    if a.faces == "card":
        print("now measure its face_bleed for cardnet.json: benchmarks/face_bleed.py", flush=True)


if __name__ == "__main__":
    main()
