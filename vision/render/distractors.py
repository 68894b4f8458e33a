"""Things that lie on a games table but are not game pieces: pencil, phone, coins, the box lid,
a score pad, the cloth bag of 11!. They are drawn like pieces (with thickness and shadow) and
are never reported in the truth, only as occluders."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import draw
from .fonts import Typeface, text_mask

DISTRACTORS = ("pencil", "phone", "coin", "box_lid", "score_pad", "bag")
DECOYS = ("chip", "plaque")  # drawn only where asked for (the board readers' training scenes), never at random


@dataclass(frozen=True)
class Prop:
    bgr: np.ndarray
    alpha: np.ndarray
    w_mm: float
    h_mm: float
    thickness: float
    gloss: float
    side: tuple[float, float, float]


def prop(name: str, seed: int, s: float, face: Typeface, title: str = "") -> Prop:
    """A distractor drawn at s px per mm; the same seed gives the same object."""
    return _prop_cached(name, seed, round(s, 3), face, title)


@lru_cache(maxsize=32)
def _prop_cached(name: str, seed: int, s: float, face: Typeface, title: str) -> Prop:
    rng = np.random.default_rng(seed)
    fn = {"pencil": _pencil, "phone": _phone, "coin": _coin, "box_lid": _box_lid, "score_pad": _score_pad,
          "bag": _bag, "chip": _chip, "plaque": _plaque}.get(name)
    if fn is None:
        raise ValueError(f"unknown distractor {name!r}; expected one of {DISTRACTORS + DECOYS}")
    p = fn(rng, s, face, title)
    p.bgr.setflags(write=False)
    p.alpha.setflags(write=False)
    return p


def _pencil(rng, s, face, title) -> Prop:
    L, D = rng.uniform(120, 185), rng.uniform(6.5, 8.0)
    W, H = max(8, int(D * s)), max(20, int(L * s))
    body = draw.hsv(*(rng.choice([(48, 0.85, 0.95), (0, 0.8, 0.75), (130, 0.7, 0.5), (215, 0.7, 0.6), (0, 0.0, 0.15)])))
    img = draw.blank(H, W, body)
    xs = (np.arange(W, dtype=np.float32) + 0.5) / W
    facets = np.where(xs < 0.33, 0.82, np.where(xs < 0.67, 1.05, 0.9)).astype(np.float32)
    img *= facets[None, :, None]
    tip = int(0.12 * H)
    wood = draw.hsv(32, 0.4, 0.85)
    cone = draw.polygon(H, W, [(0, tip), (W, tip), (W * 0.5, 0)])
    img[:tip] = np.asarray(wood, np.float32)
    draw.paint(img, draw.polygon(H, W, [(W * 0.38, tip * 0.3), (W * 0.62, tip * 0.3), (W * 0.5, 0)]), (0.2, 0.2, 0.22))
    ferrule = int(0.06 * H)
    img[H - 2 * ferrule: H - ferrule] = np.asarray(draw.hsv(40, 0.2, 0.75), np.float32) * facets[None, :, None]
    img[H - ferrule:] = np.asarray(draw.hsv(350, 0.35, 0.85), np.float32)
    alpha = np.ones((H, W), np.float32)
    alpha[:tip] = cone[:tip]
    alpha[:, 0] *= 0.5
    alpha[:, -1] *= 0.5
    return Prop(img, alpha, D, L, D, 0.3, draw.scale_colour(body, 0.7))


def _phone(rng, s, face, title) -> Prop:
    w_mm, h_mm = rng.uniform(68, 78), rng.uniform(140, 162)
    W, H = int(w_mm * s), int(h_mm * s)
    r = 9 * s
    alpha = draw.rounded_rect(H, W, 0, 0, W, H, r)
    img = draw.blank(H, W, draw.hsv(rng.uniform(0, 360), rng.uniform(0, 0.2), rng.uniform(0.05, 0.12)))
    screen = draw.rounded_rect(H, W, 3 * s, 3 * s, W - 3 * s, H - 3 * s, r * 0.7)
    ys = np.linspace(0, 1, H, dtype=np.float32)[:, None]
    refl = (0.05 + 0.08 * np.clip(1 - np.abs(ys - rng.uniform(0.2, 0.8)) * 4, 0, 1)) * np.ones((1, W), np.float32)
    draw.paint(img, screen * refl / 0.13, (0.25, 0.24, 0.22), 0.5)
    return Prop(img, alpha, w_mm, h_mm, 8.0, 0.9, (0.1, 0.1, 0.1))


def _coin(rng, s, face, title) -> Prop:
    d = rng.uniform(18, 26)
    n = max(8, int(d * s))
    gold = rng.random() < 0.5
    base = draw.hsv(42, 0.55, 0.78) if gold else draw.hsv(40, 0.05, 0.72)
    img = draw.blank(n, n, base)
    alpha = draw.ellipse(n, n, n / 2, n / 2, n / 2, n / 2)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
    img *= (1.0 + 0.35 * (-xx - yy))[..., None]
    draw.paint(img, draw.ring(n, n, n / 2, n / 2, 0.42 * n, max(1, 0.04 * n)), draw.scale_colour(base, 0.7))
    m = text_mask(str(int(rng.choice([1, 2, 5, 10, 20, 50]))), face, 0.35 * n)
    draw.paint_at(img, m, draw.scale_colour(base, 0.75), n / 2 - m.shape[1] / 2, n / 2 - m.shape[0] / 2)
    np.clip(img, 0, 1, out=img)
    return Prop(img, alpha, d, d, 2.0, 0.8, draw.scale_colour(base, 0.6))


def _chip(rng, s, face, title) -> Prop:
    """A plain disc of a token's size and any colour, with no numeral (a button, a poker chip, a
    cloth's dot): what a token reader must not take for a token."""
    d = rng.uniform(14, 32)
    n = max(8, int(d * s))
    base = draw.hsv(rng.uniform(0, 360), rng.uniform(0, 0.9), rng.uniform(0.35, 0.97))
    img = draw.blank(n, n, base)
    alpha = draw.ellipse(n, n, n / 2, n / 2, n / 2, n / 2)
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
    img *= (1.0 + rng.uniform(0, 0.4) * (-xx - yy))[..., None]
    if rng.random() < 0.4:
        ring = draw.hsv(rng.uniform(0, 360), rng.uniform(0, 0.9), rng.uniform(0.2, 0.97))
        draw.paint(img, draw.ring(n, n, n / 2, n / 2, rng.uniform(0.3, 0.45) * n, max(1, 0.05 * n)), ring)
    np.clip(img, 0, 1, out=img)
    return Prop(img, alpha, d, d, float(rng.uniform(0.5, 4.0)), float(rng.uniform(0.05, 0.7)),
                draw.scale_colour(base, 0.6))


def _plaque(rng, s, face, title) -> Prop:
    """A plain square of a tile's size and any colour, with no numeral (a cloth's check, a
    sticker, a paper square): what a tile reader must not take for a tile."""
    d = rng.uniform(14, 30)
    n = max(8, int(d * s))
    base = draw.hsv(rng.uniform(0, 360), rng.uniform(0, 0.8), rng.uniform(0.3, 0.97))
    img = draw.blank(n, n, base)
    alpha = draw.rounded_rect(n, n, 0, 0, n, n, rng.uniform(0, 0.15) * n)
    if rng.random() < 0.3:
        edge = draw.hsv(rng.uniform(0, 360), rng.uniform(0, 0.8), rng.uniform(0.2, 0.97))
        k = max(1.0, rng.uniform(0.04, 0.12) * n)
        draw.paint(img, np.clip(alpha - draw.rounded_rect(n, n, k, k, n - k, n - k, 0.05 * n), 0, 1), edge)
    np.clip(img, 0, 1, out=img)
    return Prop(img, alpha, d, d, float(rng.uniform(0.1, 3.0)), float(rng.uniform(0.05, 0.5)),
                draw.scale_colour(base, 0.6))


def _box_lid(rng, s, face, title) -> Prop:
    w_mm, h_mm = rng.uniform(180, 300), rng.uniform(130, 220)
    W, H = int(w_mm * s), int(h_mm * s)
    alpha = draw.rounded_rect(H, W, 0, 0, W, H, 2 * s)
    bg = draw.hsv(rng.uniform(0, 360), rng.uniform(0.5, 0.9), rng.uniform(0.5, 0.9))
    img = draw.blank(H, W, bg)
    for _ in range(int(rng.integers(5, 12))):
        pts = draw.blob_points(rng, rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0.08, 0.25) * W, 0.4)
        draw.paint_polygon(img, pts, draw.hsv(rng.uniform(0, 360), rng.uniform(0.4, 0.9), rng.uniform(0.4, 0.95)))
    label = title or str(rng.choice(["Elfer raus!", "11 nimmt!", "Numeri", "11!"]))
    m = text_mask(label, face, 0.16 * H)
    m = draw.fit_mask(m, 0.85 * W, 0.3 * H)
    outline = text_mask(label, face, 0.16 * H, stroke=0.12)
    outline = draw.fit_mask(outline, 0.85 * W * (1 + 0.1), 0.36 * H)
    draw.paint_at(img, outline, (0.97, 0.97, 0.97), W / 2 - outline.shape[1] / 2, 0.3 * H - outline.shape[0] / 2)
    draw.paint_at(img, m, draw.hsv(rng.uniform(0, 360), 0.8, 0.4), W / 2 - m.shape[1] / 2, 0.3 * H - m.shape[0] / 2)
    return Prop(img, alpha, w_mm, h_mm, rng.uniform(35, 60), 0.35, draw.scale_colour(bg, 0.7))


def _score_pad(rng, s, face, title) -> Prop:
    w_mm, h_mm = rng.uniform(90, 110), rng.uniform(130, 160)
    W, H = int(w_mm * s), int(h_mm * s)
    alpha = draw.rounded_rect(H, W, 0, 0, W, H, 1.0)
    img = draw.blank(H, W, draw.hsv(45, rng.uniform(0.02, 0.1), 0.96))
    line = draw.hsv(210, 0.3, 0.75)
    step = 8 * s
    for y in np.arange(18 * s, H - 4 * s, step):
        draw.paint_rrect(img, 4 * s, y, W - 4 * s, y + max(1.0, 0.3 * s), 0.1, line)
    for x in np.linspace(W * 0.35, W - 4 * s, 3):
        draw.paint_rrect(img, x, 12 * s, x + max(1.0, 0.3 * s), H - 4 * s, 0.1, line)
    pen = draw.hsv(rng.uniform(200, 240), 0.6, rng.uniform(0.25, 0.45))
    for row, y in enumerate(np.arange(18 * s, H - 12 * s, step)[: int(rng.integers(2, 10))]):
        txt = str(int(rng.integers(-30, 60)))
        m = text_mask(txt, face, 0.55 * step)
        draw.paint_at(img, m, pen, W * 0.4 + rng.uniform(0, 5) * s, y + 0.2 * step + row * 0)
    return Prop(img, alpha, w_mm, h_mm, 3.0, 0.1, (0.8, 0.8, 0.8))


def _bag(rng, s, face, title) -> Prop:
    r_mm = rng.uniform(55, 80)
    n = int(2.6 * r_mm * s)
    pts = draw.blob_points(rng, n / 2, n / 2, r_mm * s, 0.22, 64)
    alpha = draw.polygon(n, n, pts)
    col = draw.hsv(rng.uniform(0, 360), rng.uniform(0.3, 0.7), rng.uniform(0.2, 0.5))
    img = draw.blank(n, n, col)
    from .table import fbm

    folds = fbm(rng, n, n, 18 * s, 3)
    img *= (1.0 + 0.35 * folds)[..., None]
    yy, xx = np.mgrid[0:n, 0:n].astype(np.float32) / n - 0.5
    img *= (1.0 - 0.9 * (xx * xx + yy * yy))[..., None]
    np.clip(img, 0, 1, out=img)
    return Prop(img, alpha, n / s, n / s, 25.0, 0.05, draw.scale_colour(col, 0.6))
