"""Vector icons printed on cards, tiles and boards: bull heads, chain links, stars, jester hats,
the four 11! symbols. Each function returns coverage masks of a given pixel size, drawn from
shapes in a unit box, so every design can colour and place them its own way."""

from __future__ import annotations

import math

import numpy as np

from . import draw

SYMBOLS = ("square", "triangle", "star", "circle")


def _u(pts, w: float, h: float, dx: float = 0.0, dy: float = 0.0) -> np.ndarray:
    p = np.asarray(pts, np.float64)
    return np.stack([p[:, 0] * w + dx, p[:, 1] * h + dy], axis=1)


def _mirror(pts) -> list[tuple[float, float]]:
    return [(1.0 - x, y) for x, y in pts]


_HORN = [(0.33, 0.30), (0.20, 0.28), (0.09, 0.21), (0.03, 0.10), (0.05, 0.01), (0.09, 0.09), (0.16, 0.16),
         (0.26, 0.19), (0.36, 0.20)]
_HEAD = [(0.31, 0.20), (0.50, 0.17), (0.69, 0.20), (0.76, 0.33), (0.72, 0.48), (0.66, 0.64), (0.70, 0.78),
         (0.66, 0.92), (0.50, 0.98), (0.34, 0.92), (0.30, 0.78), (0.34, 0.64), (0.28, 0.48), (0.24, 0.33)]
_TUFT = [(0.40, 0.19), (0.44, 0.28), (0.47, 0.20), (0.50, 0.30), (0.53, 0.20), (0.56, 0.28), (0.60, 0.19),
         (0.50, 0.15)]


def bull_head(size: int, variant: int = 0) -> dict[str, np.ndarray]:
    """Front-view bull head in a size×size box: masks 'head', 'horns', 'muzzle', 'dark' (eyes, nostrils).

    `variant` changes proportions a little (horn curl, head width), like different illustrators.
    """
    s = float(size)
    w_f = 1.0 + 0.08 * ((variant % 3) - 1)
    horn_lift = 0.04 * ((variant // 3) % 3 - 1)

    def t(pts):
        return _u([((x - 0.5) * w_f + 0.5, y + (horn_lift * (0.35 - y) if y < 0.35 else 0)) for x, y in pts], s, s)

    horns = np.maximum(draw.polygon(size, size, t(_HORN)), draw.polygon(size, size, t(_mirror(_HORN))))
    head = draw.polygon(size, size, t(_HEAD))
    ears = np.maximum(draw.ellipse(size, size, s * (0.5 - 0.31 * w_f), s * 0.38, s * 0.13, s * 0.055, -25),
                      draw.ellipse(size, size, s * (0.5 + 0.31 * w_f), s * 0.38, s * 0.13, s * 0.055, 25))
    head = np.maximum(head, ears)
    head = np.maximum(head, draw.polygon(size, size, t(_TUFT)))
    muzzle = draw.ellipse(size, size, s * 0.5, s * 0.84, s * 0.19 * w_f, s * 0.125)
    dark = np.maximum.reduce([
        draw.ellipse(size, size, s * (0.5 - 0.12 * w_f), s * 0.46, s * 0.045, s * 0.05),
        draw.ellipse(size, size, s * (0.5 + 0.12 * w_f), s * 0.46, s * 0.045, s * 0.05),
        draw.ellipse(size, size, s * (0.5 - 0.075 * w_f), s * 0.855, s * 0.035, s * 0.05, 15),
        draw.ellipse(size, size, s * (0.5 + 0.075 * w_f), s * 0.855, s * 0.035, s * 0.05, -15),
    ])
    return {"head": head, "horns": horns, "muzzle": muzzle, "dark": dark}


def bull_silhouette(size: int, variant: int = 0) -> np.ndarray:
    """One-colour bull head (small head-count icons): head+horns with eyes and nostrils cut out."""
    parts = bull_head(size, variant)
    return np.clip(np.maximum(parts["head"], parts["horns"]) - 0.9 * parts["dark"], 0, 1)


def chain_link(w: int, h: int, thickness: float = 0.11) -> np.ndarray:
    """Two interlocked chain links across a w×h box (the elevens link card)."""
    m = np.zeros((h, w), np.float32)
    s = min(w, h)
    lw, lh = 0.62 * s, 0.30 * s
    for cx, cy in ((0.36, 0.36), (0.64, 0.64)):
        ox, oy = cx * w, cy * h
        outer = _rot_rect(w, h, ox, oy, lw, lh, 45.0, lh / 2.0)
        inner = _rot_rect(w, h, ox, oy, lw - 2 * thickness * s, lh - 2 * thickness * s, 45.0,
                          max(1.0, lh / 2.0 - thickness * s))
        ringm = np.clip(outer - inner, 0, 1)
        m = np.maximum(m, ringm)
    return m


def _rot_rect(w: int, h: int, cx: float, cy: float, rw: float, rh: float, angle: float, r: float) -> np.ndarray:
    xs = np.arange(w, dtype=np.float32)[None, :] + 0.5 - cx
    ys = np.arange(h, dtype=np.float32)[:, None] + 0.5 - cy
    a = math.radians(angle)
    u = xs * math.cos(a) + ys * math.sin(a)
    v = -xs * math.sin(a) + ys * math.cos(a)
    hx, hy = rw / 2.0 - r, rh / 2.0 - r
    qx, qy = np.abs(u) - hx, np.abs(v) - hy
    sdf = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2) + np.minimum(np.maximum(qx, qy), 0) - r
    return np.clip(0.5 - sdf, 0, 1).astype(np.float32)


def star(w: int, h: int, points: int = 5, inner: float = 0.45) -> np.ndarray:
    s = min(w, h) / 2.0
    return draw.polygon(h, w, draw.star_points(w / 2.0, h / 2.0 + 0.05 * s, s * 0.98, s * 0.98 * inner, points))


def burst(w: int, h: int, points: int = 14, inner: float = 0.78) -> np.ndarray:
    s = min(w, h) / 2.0
    return draw.polygon(h, w, draw.star_points(w / 2.0, h / 2.0, s, s * inner, points, rot_deg=0.0))


def symbol(name: str, size: int, filled: bool = True, line: float = 0.14) -> np.ndarray:
    """The four 11! symbols (square, triangle, star, circle), filled or as outlines."""
    s = float(size)
    if name == "square":
        outer = draw.rounded_rect(size, size, 0.12 * s, 0.12 * s, 0.88 * s, 0.88 * s, 0.06 * s)
        inner = draw.rounded_rect(size, size, (0.12 + line) * s, (0.12 + line) * s, (0.88 - line) * s,
                                  (0.88 - line) * s, 0.02 * s)
    elif name == "triangle":
        tri = [(0.5, 0.08), (0.95, 0.88), (0.05, 0.88)]
        outer = draw.polygon(size, size, _u(tri, s, s))
        k = line * 1.7
        inner = draw.polygon(size, size, _u([(0.5, 0.08 + k * 1.2), (0.95 - k * 1.1, 0.88 - k * 0.55),
                                             (0.05 + k * 1.1, 0.88 - k * 0.55)], s, s))
    elif name == "star":
        outer = draw.polygon(size, size, draw.star_points(s / 2, s * 0.53, s * 0.48, s * 0.2))
        inner = draw.polygon(size, size, draw.star_points(s / 2, s * 0.53, s * (0.48 - line * 1.2),
                                                          s * max(0.05, 0.2 - line * 0.6)))
    elif name == "circle":
        outer = draw.ellipse(size, size, s / 2, s / 2, 0.4 * s, 0.4 * s)
        inner = draw.ellipse(size, size, s / 2, s / 2, (0.4 - line) * s, (0.4 - line) * s)
    else:
        raise ValueError(f"unknown symbol {name!r}; expected one of {SYMBOLS}")
    return outer if filled else np.clip(outer - inner, 0, 1)


def jester_hat(size: int) -> dict[str, np.ndarray]:
    """A three-pointed jester hat (joker cards): masks 'band', 'p0', 'p1', 'p2', 'bells'."""
    s = float(size)
    out: dict[str, np.ndarray] = {}
    band = draw.rounded_rect(size, size, 0.2 * s, 0.72 * s, 0.8 * s, 0.86 * s, 0.04 * s)
    out["band"] = band
    tips = [(0.08, 0.22), (0.5, 0.06), (0.92, 0.22)]
    bases = [((0.2, 0.74), (0.42, 0.74)), ((0.36, 0.74), (0.64, 0.74)), ((0.58, 0.74), (0.8, 0.74))]
    for i, (tip, (a, b)) in enumerate(zip(tips, bases, strict=True)):
        mid = ((a[0] + tip[0]) / 2 + (0.06 if i == 0 else -0.06 if i == 2 else 0), (a[1] + tip[1]) / 2)
        out[f"p{i}"] = draw.polygon(size, size, _u([a, mid, tip, (b[0], (b[1] + tip[1]) / 2), b], s, s))
    out["bells"] = np.maximum.reduce([draw.ellipse(size, size, x * s, y * s, 0.055 * s, 0.055 * s)
                                      for x, y in tips])
    return out


def pip_positions(value: int) -> list[tuple[float, float]]:
    """Pip centres of a die face in unit coordinates (0..1)."""
    c, lo, hi = 0.5, 0.24, 0.76
    table = {
        1: [(c, c)],
        2: [(lo, lo), (hi, hi)],
        3: [(lo, lo), (c, c), (hi, hi)],
        4: [(lo, lo), (hi, lo), (lo, hi), (hi, hi)],
        5: [(lo, lo), (hi, lo), (c, c), (lo, hi), (hi, hi)],
        6: [(lo, lo), (hi, lo), (lo, c), (hi, c), (lo, hi), (hi, hi)],
    }
    if value not in table:
        raise ValueError(f"die value must be 1..6, not {value!r}")
    return table[value]
