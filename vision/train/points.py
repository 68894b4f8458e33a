"""Targets of the index point finder (`train_points`), without PyTorch: where every printed corner
index of every card lies, how much of it is in view, and the network's per-pixel targets.

An index is "in view" when 0.9 of its box shows (the truth counts a card by an index 0.92 in
view); one 0.3-0.9 in view is neither taught as present nor as absent.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.detect import OFFSET_SCALE, full_to_out

SEEN, UNSURE = 0.9, 0.3  # share of an index box in view: taught as present / not taught either way
SIGMA = 0.05  # the heat's spread, card widths (a tight fan lays indices about 0.2 widths apart)
MIN_SIGMA = 0.8  # output pixels
NEAR = 0.3  # heat at which a pixel's regression targets are taught


def _on_face(q: np.ndarray, u: float, v: float) -> np.ndarray:
    """Image point at face fractions (u, v) of outline q (TL, TR, BR, BL)."""
    return q[0] + u * (q[1] - q[0]) + v * (q[3] - q[0])


def index_points(items: list[dict], hand: np.ndarray | None, shape: tuple[int, int]) -> list[dict]:
    """Every printed corner index of every card, with how much of it is in view: dicts with the
    index box's middle (image pixels), its upright direction (a unit vector: towards the top of
    the digits), the card's centre, width and height, and `seen` (0-1). Items are in drawing
    order (later ones cover earlier ones); `hand` (0/255, image size) covers all."""
    h, w = shape
    owner = np.full((h, w), -1, np.int32)
    for k, it in enumerate(items):
        cv2.fillPoly(owner, [np.round(np.asarray(it["corners"], np.float64) * 4).astype(np.int32)], k,
                     cv2.LINE_8, 2)
    if hand is not None:
        owner[hand > 127] = -1
    out = []
    for k, it in enumerate(items):
        if it["obj"] != "card" or not it.get("indices"):
            continue
        q = np.asarray(it["corners"], np.float64)
        down = q[3] - q[0]
        cw, ch = float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(down))
        for u0, v0, u1, v1 in it["indices"]:
            box = np.array([_on_face(q, u, v) for u, v in ((u0, v0), (u1, v0), (u1, v1), (u0, v1))])
            x0, y0 = np.floor(box.min(axis=0)).astype(int)
            x1, y1 = np.ceil(box.max(axis=0)).astype(int) + 1
            xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
            seen = 0.0
            if xb > xa and yb > ya:
                m = np.zeros((y1 - y0, x1 - x0), np.uint8)
                cv2.fillPoly(m, [np.round((box - (x0, y0)) * 4).astype(np.int32)], 1, cv2.LINE_8, 2)
                area = max(int(m.sum()), 1)
                mine = owner[ya:yb, xa:xb] == k
                seen = float((m[ya - y0:yb - y0, xa - x0:xb - x0].astype(bool) & mine).sum()) / area
            up = -down / ch if v0 < 0.5 else down / ch  # the lower indices are printed turned
            out.append({"at": box.mean(axis=0), "up": up, "centre": q.mean(axis=0), "w": cw, "h": ch, "seen": seen})
    return out


def point_targets(points: list[dict], s: float, out_hw: tuple[int, int]) -> np.ndarray:
    """8×H×W float32 on the output grid of a picture scaled by `s`: heat (a Gaussian of 1 at the
    grid cell nearest each index in view), offset to its card's centre (/16), cos θ, sin θ of its
    upright direction, log card width and height (/16), and the weight of each cell (0 round an
    index partly in view, unless one in view is nearer)."""
    H, W = out_hw
    out = np.zeros((8, H, W), np.float32)
    out[7] = 1.0
    owner = np.zeros((H, W), np.float32)  # heat of the index whose targets a cell holds
    for p in sorted(points, key=lambda p: p["seen"]):  # those in view last: they win the weights
        c = full_to_out(p["at"], s)
        cw = p["w"] * s / 2.0
        sig = max(MIN_SIGMA, SIGMA * cw)
        r = int(np.ceil(3 * sig))
        cx, cy = int(round(c[0])), int(round(c[1]))
        xa, xb, ya, yb = max(cx - r, 0), min(cx + r + 1, W), max(cy - r, 0), min(cy + r + 1, H)
        if xa >= xb or ya >= yb:
            continue
        ys, xs = np.mgrid[ya:yb, xa:xb].astype(np.float32)
        g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sig * sig))
        g[g < 0.01] = 0.0
        win = (slice(ya, yb), slice(xa, xb))
        if p["seen"] < UNSURE:
            continue
        if p["seen"] < SEEN:
            out[7][win][g > 0] = 0.0
            continue
        out[7][win][g >= NEAR] = 1.0
        take = g > owner[win]
        owner[win] = np.maximum(owner[win], g)
        out[0][win] = np.maximum(out[0][win], g)
        centre = full_to_out(p["centre"], s)
        vals = ((centre[0] - xs) / OFFSET_SCALE, (centre[1] - ys) / OFFSET_SCALE, p["up"][0], p["up"][1],
                np.log(cw / OFFSET_SCALE), np.log(p["h"] * s / 2.0 / OFFSET_SCALE))
        for ch, v in enumerate(vals, start=1):
            out[ch][win] = np.where(take, v, out[ch][win])
    return out
