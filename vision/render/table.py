"""Procedural table surfaces: woods, felts, cloths, patterned tablecloths, laminates, stone.

Each preset is a named family with its own parameter ranges; presets are split into the
"train" and "holdout" pools. Textures are generated at the canvas scale (px per mm) so a
weave or grain has its physical size whatever the camera distance.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from . import draw
from .fonts import check_pool

# name -> (family, pool)
TABLES: dict[str, tuple[str, str]] = {
    "oak": ("wood", "train"),
    "walnut": ("wood", "train"),
    "pine-planks": ("wood", "train"),
    "green-felt": ("felt", "train"),
    "blue-felt": ("felt", "train"),
    "linen-cloth": ("weave", "train"),
    "gingham-red": ("gingham", "train"),
    "striped-cloth": ("stripes", "train"),
    "white-laminate": ("laminate", "train"),
    "beige-laminate": ("laminate", "train"),
    "grey-slate": ("stone", "train"),
    "floral-oilcloth": ("floral", "train"),
    "dark-matte": ("laminate", "train"),
    # Generic patterned surfaces (domain randomisation): the tables players really use are
    # endless, so the train pool holds families whose shapes, colours and sizes vary widely.
    "tartan": ("plaid", "train"),
    "ceramic-tiles": ("tiles", "train"),
    "terrazzo": ("terrazzo", "train"),
    "confetti-print": ("confetti", "train"),
    "camouflage": ("blobs", "train"),
    "cherry-wood": ("wood", "holdout"),
    "light-birch": ("wood", "holdout"),
    "burgundy-felt": ("felt", "holdout"),
    "gingham-blue": ("gingham", "holdout"),
    "polka-dots": ("dots", "holdout"),
    "marble": ("marble", "holdout"),
    "cork": ("cork", "holdout"),
    "white-cloth": ("weave", "holdout"),
    "charcoal-cloth": ("weave", "holdout"),
}


@dataclass(frozen=True)
class TableSpec:
    name: str
    family: str
    seed: int
    base: tuple[float, float, float]
    alt: tuple[float, float, float]
    scale_mm: float  # plank width, check size, stripe period...
    angle_deg: float  # grain / pattern direction
    gloss: float
    contrast: float = 1.0
    edge: tuple = field(default=())  # () or (side, distance_frac): table edge visible, floor beyond


def tables(pool: str) -> list[str]:
    check_pool(pool)
    return [n for n, (_, p) in TABLES.items() if p == pool]


def random_table(rng: np.random.Generator, pool: str = "train", name: str | None = None) -> TableSpec:
    names = tables(pool)
    name = name if name is not None else str(rng.choice(names))
    if name not in TABLES:
        raise ValueError(f"unknown table {name!r}; expected one of {sorted(TABLES)}")
    family = TABLES[name][0]
    u = rng.uniform
    presets = {
        "oak": (draw.hsv(u(28, 36), u(0.35, 0.5), u(0.62, 0.75)), draw.hsv(u(24, 32), u(0.45, 0.6), u(0.4, 0.52)),
                u(90, 180), u(0.15, 0.4)),
        "walnut": (draw.hsv(u(18, 28), u(0.45, 0.6), u(0.3, 0.4)), draw.hsv(u(15, 25), u(0.5, 0.7), u(0.16, 0.24)),
                   u(120, 220), u(0.25, 0.5)),
        "pine-planks": (draw.hsv(u(32, 40), u(0.3, 0.45), u(0.75, 0.86)), draw.hsv(u(28, 34), u(0.45, 0.6),
                                                                                 u(0.55, 0.66)), u(90, 140),
                        u(0.1, 0.3)),
        "cherry-wood": (draw.hsv(u(10, 20), u(0.5, 0.65), u(0.45, 0.58)), draw.hsv(u(8, 16), u(0.6, 0.75),
                                                                                 u(0.28, 0.36)), u(100, 200),
                        u(0.3, 0.55)),
        "light-birch": (draw.hsv(u(36, 44), u(0.1, 0.2), u(0.86, 0.93)), draw.hsv(u(34, 40), u(0.2, 0.3),
                                                                                 u(0.74, 0.82)), u(150, 300),
                        u(0.15, 0.35)),
        "green-felt": (draw.hsv(u(130, 160), u(0.5, 0.8), u(0.3, 0.5)), None, 1.0, 0.0),
        "blue-felt": (draw.hsv(u(205, 225), u(0.5, 0.8), u(0.3, 0.5)), None, 1.0, 0.0),
        "burgundy-felt": (draw.hsv(u(340, 355), u(0.55, 0.75), u(0.28, 0.42)), None, 1.0, 0.0),
        "linen-cloth": (draw.hsv(u(35, 45), u(0.1, 0.22), u(0.72, 0.86)), None, u(0.9, 1.4), 0.0),
        "white-cloth": (draw.hsv(u(30, 60), u(0.0, 0.05), u(0.88, 0.95)), None, u(0.8, 1.2), 0.02),
        "charcoal-cloth": (draw.hsv(u(200, 240), u(0.0, 0.12), u(0.18, 0.28)), None, u(0.9, 1.4), 0.0),
        "gingham-red": ((0.93, 0.94, 0.95), draw.hsv(u(350, 360), u(0.7, 0.85), u(0.7, 0.82)), u(10, 25), 0.05),
        "gingham-blue": ((0.93, 0.94, 0.95), draw.hsv(u(205, 225), u(0.6, 0.85), u(0.55, 0.75)), u(10, 25), 0.05),
        "striped-cloth": (draw.hsv(u(30, 50), u(0.05, 0.15), u(0.85, 0.93)),
                          draw.hsv(u(0, 360), u(0.3, 0.6), u(0.45, 0.7)), u(15, 40), 0.05),
        "polka-dots": (draw.hsv(u(0, 360), u(0.3, 0.6), u(0.45, 0.7)), (0.92, 0.93, 0.94), u(18, 35), 0.1),
        "floral-oilcloth": (draw.hsv(u(40, 60), u(0.05, 0.15), u(0.85, 0.94)),
                            draw.hsv(u(0, 360), u(0.4, 0.7), u(0.5, 0.8)), u(22, 45), u(0.4, 0.7)),
        "white-laminate": (draw.hsv(u(30, 60), u(0.0, 0.04), u(0.88, 0.95)), None, 1.0, u(0.3, 0.6)),
        "beige-laminate": (draw.hsv(u(30, 45), u(0.12, 0.25), u(0.72, 0.85)), None, 1.0, u(0.3, 0.6)),
        "dark-matte": (draw.hsv(u(0, 360), u(0.0, 0.15), u(0.1, 0.2)), None, 1.0, u(0.05, 0.2)),
        "grey-slate": (draw.hsv(u(190, 230), u(0.02, 0.12), u(0.28, 0.42)), None, u(30, 80), u(0.05, 0.2)),
        "marble": (draw.hsv(u(30, 50), u(0.0, 0.05), u(0.86, 0.94)), draw.hsv(u(0, 360), u(0.0, 0.08),
                                                                              u(0.45, 0.6)), u(80, 200),
                   u(0.4, 0.7)),
        "cork": (draw.hsv(u(25, 32), u(0.45, 0.6), u(0.55, 0.68)), draw.hsv(u(22, 28), u(0.55, 0.7),
                                                                            u(0.3, 0.4)), 2.0, 0.02),
    }
    base, alt, scale, gloss = presets[name] if name in presets else _patterned(name, u)
    edge: tuple = ()
    if rng.random() < 0.12:
        edge = (int(rng.integers(0, 4)), float(rng.uniform(0.03, 0.12)))
    return TableSpec(name=name, family=family, seed=int(rng.integers(0, 2**31)), base=base,
                     alt=alt if alt is not None else base, scale_mm=float(scale), angle_deg=float(rng.uniform(0, 180)),
                     gloss=float(gloss), contrast=float(rng.uniform(0.8, 1.2)), edge=edge)


def _patterned(name: str, u) -> tuple:
    """(base, alt, scale mm, gloss) of the generic patterned families. Drawn only when one is
    chosen, after the older presets' draws: adding them left every other table's draws (and so
    the held-out scenes, seed for seed) as they were."""
    return {
        "tartan": (draw.hsv(u(0, 360), u(0.3, 0.8), u(0.25, 0.7)), draw.hsv(u(0, 360), u(0.2, 0.8), u(0.3, 0.9)),
                   u(20, 90), 0.05),
        "ceramic-tiles": (draw.hsv(u(0, 360), u(0.0, 0.5), u(0.4, 0.95)), draw.hsv(u(0, 360), u(0.0, 0.2), u(0.2, 0.9)),
                          u(40, 160), u(0.3, 0.7)),
        "terrazzo": (draw.hsv(u(0, 360), u(0.0, 0.2), u(0.6, 0.92)), draw.hsv(u(0, 360), u(0.2, 0.8), u(0.2, 0.8)),
                     u(3, 18), u(0.2, 0.5)),
        "confetti-print": (draw.hsv(u(0, 360), u(0.0, 0.8), u(0.2, 0.95)), draw.hsv(u(0, 360), u(0.0, 0.8),
                                                                                   u(0.3, 0.98)), u(8, 60), 0.05),
        "camouflage": (draw.hsv(u(0, 360), u(0.1, 0.6), u(0.2, 0.7)), draw.hsv(u(0, 360), u(0.1, 0.6), u(0.3, 0.85)),
                       u(15, 80), 0.05),
    }[name]


# ----------------------------------------------------------------------------------------
# Noise helpers


def noise(rng: np.random.Generator, h: int, w: int, cell_px: float,
          stretch: tuple[float, float] = (1, 1)) -> np.ndarray:
    """Smooth value noise in -1..1 with features about `cell_px` wide (cubic upsampling)."""
    gh = max(2, int(h / max(cell_px * stretch[1], 1)) + 2)
    gw = max(2, int(w / max(cell_px * stretch[0], 1)) + 2)
    small = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)


def fbm(rng: np.random.Generator, h: int, w: int, cell_px: float, octaves: int = 4,
        stretch: tuple[float, float] = (1, 1)) -> np.ndarray:
    out = np.zeros((h, w), np.float32)
    amp, total = 1.0, 0.0
    for i in range(octaves):
        out += amp * noise(rng, h, w, cell_px / (2**i), stretch)
        total += amp
        amp *= 0.5
    return out / total


def _rotated_coords(h: int, w: int, angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    a = np.radians(angle_deg)
    ca, sa = float(np.cos(a)), float(np.sin(a))  # Python floats: keep float32 arrays float32
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float32), np.arange(h, dtype=np.float32))
    u = xs * ca + ys * sa
    v = -xs * sa + ys * ca
    return u, v


def _rotate_field(field_: np.ndarray, angle_deg: float) -> np.ndarray:
    """Rotate a square-ish texture about its centre (reflecting at the borders)."""
    h, w = field_.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), angle_deg, 1.0)
    return cv2.warpAffine(field_, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def _colour_field(t: np.ndarray, a, b) -> np.ndarray:
    """Per-pixel mix of colours a (t=0) and b (t=1): per-channel OpenCV ops (much faster than broadcasting)."""
    t = t.astype(np.float32, copy=False)
    chans = [cv2.addWeighted(t, float(b[c]) - float(a[c]), t, 0.0, float(a[c])) for c in range(3)]
    return cv2.merge(chans)


# ----------------------------------------------------------------------------------------
# Surfaces


_FINE_GRAIN = {"wood": 0.02, "felt": 0.05, "weave": 0.03, "gingham": 0.025, "stripes": 0.025, "dots": 0.025,
               "floral": 0.012, "laminate": 0.014, "stone": 0.04, "marble": 0.012, "cork": 0.06,
               "plaid": 0.025, "tiles": 0.01, "terrazzo": 0.015, "confetti": 0.02, "blobs": 0.03}


def table_texture(spec: TableSpec, h: int, w: int, px_per_mm: float) -> tuple[np.ndarray, float]:
    """(BGR float32 image, gloss) of the table surface for a canvas of h×w at px_per_mm.

    The pattern is computed at half resolution and enlarged (the camera's blur hides the
    difference); the finest grain is then added at full resolution."""
    rng = np.random.default_rng(spec.seed)
    img = _surface(rng, spec, max(8, h // 2), max(8, w // 2), px_per_mm * (max(8, w // 2) / w))
    img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    grain = rng.standard_normal((h, w), dtype=np.float32) * np.float32(_FINE_GRAIN.get(spec.family, 0.02))
    grain = cv2.GaussianBlur(grain, (0, 0), 0.7)
    img *= (1.0 + grain)[..., None]
    if spec.edge:
        img = _table_edge(rng, img, spec.edge, px_per_mm)
    return np.clip(img, 0, 1).astype(np.float32), spec.gloss


def _surface(rng, spec: TableSpec, h: int, w: int, s: float) -> np.ndarray:
    f = spec.family
    if f == "wood":
        img = _wood(rng, spec, h, w, s)
    elif f == "felt":
        img = _felt(rng, spec, h, w, s)
    elif f == "weave":
        img = _weave(rng, spec, h, w, s, spec.base, spec.base)
    elif f == "gingham":
        img = _gingham(rng, spec, h, w, s)
    elif f == "stripes":
        img = _stripes(rng, spec, h, w, s)
    elif f == "dots":
        img = _dots(rng, spec, h, w, s)
    elif f == "floral":
        img = _floral(rng, spec, h, w, s)
    elif f == "laminate":
        img = _laminate(rng, spec, h, w, s)
    elif f == "stone":
        img = _stone(rng, spec, h, w, s)
    elif f == "marble":
        img = _marble(rng, spec, h, w, s)
    elif f == "cork":
        img = _cork(rng, spec, h, w, s)
    elif f == "plaid":
        img = _plaid(rng, spec, h, w, s)
    elif f == "tiles":
        img = _tiles(rng, spec, h, w, s)
    elif f in ("terrazzo", "confetti"):
        img = _scatter(rng, spec, h, w, s)
    elif f == "blobs":
        img = _blobs(rng, spec, h, w, s)
    else:
        raise ValueError(f"unknown table family {f!r}")
    return img.astype(np.float32, copy=False)


def noise_uv(rng: np.random.Generator, u: np.ndarray, v: np.ndarray, cell_u: float, cell_v: float) -> np.ndarray:
    """Value noise (-1..1) sampled at arbitrary (u, v) coordinates: anisotropic, any orientation."""
    u0, v0 = float(u.min()), float(v.min())
    gw = int((float(u.max()) - u0) / cell_u) + 4
    gh = int((float(v.max()) - v0) / cell_v) + 4
    grid = rng.uniform(-1, 1, (gh, gw)).astype(np.float32)
    mx = ((u - u0) / cell_u + 1.0).astype(np.float32)
    my = ((v - v0) / cell_v + 1.0).astype(np.float32)
    return cv2.remap(grid, mx, my, cv2.INTER_CUBIC, borderMode=cv2.BORDER_REFLECT)


def _wood(rng, spec: TableSpec, h, w, s):
    """Flat-sawn planks: nested growth rings arching along the board, fine grain lines, seams."""
    u, v = _rotated_coords(h, w, spec.angle_deg)
    plank = spec.scale_mm * s
    idx = np.floor(v / plank)
    n_pl = int((float(v.max()) - float(v.min())) / plank) + 4
    k = np.clip((idx - np.floor(float(v.min()) / plank)).astype(np.int32), 0, n_pl - 1)
    centre = rng.uniform(0.2, 0.8, n_pl).astype(np.float32) * plank
    u_off = rng.uniform(-800, 800, n_pl).astype(np.float32) * s
    arch = rng.uniform(0.5, 2.0, n_pl).astype(np.float32) / (400 * s)
    spacing = rng.uniform(4.0, 11.0, n_pl).astype(np.float32) * s
    tint = rng.uniform(-0.07, 0.07, n_pl).astype(np.float32)
    v_local = v - idx * plank
    warp = noise_uv(rng, u, v, 120 * s, 25 * s) * 4.0 * s + noise_uv(rng, u, v, 30 * s, 6 * s) * 1.2 * s
    du = u - u_off[k]
    r = np.sqrt((v_local - centre[k]) ** 2 + (arch[k] * du * du * plank) ** 2 + 1.0) + warp
    t = (r / spacing[k]) % 1.0
    late = np.exp(-t * 5.0) + 0.35 * np.exp(-(1.0 - t) * 9.0)  # dark late-wood at each ring
    fine = noise_uv(rng, u, v, 40 * s, 0.7 * s)
    streak = noise_uv(rng, u, v, 200 * s, 4 * s)
    low = noise_uv(rng, u, v, 300 * s, 60 * s)
    mixv = np.clip(0.5 * late * spec.contrast + 0.1 * fine + 0.2 * streak + 0.12 * low + 0.2, 0, 1)
    img = _colour_field(mixv, spec.base, spec.alt)
    img *= (1.0 + tint[k])[..., None]
    seam = 1.0 - np.clip(np.abs(v_local - plank / 2.0) - plank / 2.0 + max(1.2, 0.6 * s), 0, 1)
    img *= (1.0 - 0.45 * (1.0 - seam))[..., None]
    return img


def _felt(rng, spec, h, w, s):
    img = np.empty((h, w, 3), np.float32)
    img[:] = spec.base
    mott = fbm(rng, h, w, 40 * s, 3) * 0.05
    fine = rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.045)
    fine = cv2.GaussianBlur(fine, (0, 0), 0.7)
    img *= (1.0 + mott + fine)[..., None]
    return img


def _weave(rng, spec, h, w, s, base, alt):
    """Woven cloth: threads when the camera resolves them, otherwise their grain as fine noise."""
    p = spec.scale_mm * s
    grain = rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.035)
    if p >= 3.0:
        u, v = _rotated_coords(h, w, spec.angle_deg)
        cross = np.sin(u / p * np.float32(np.pi * 2)) * np.sin(v / p * np.float32(np.pi * 2))
        grain += np.float32(0.05) * cross
    else:
        grain = cv2.GaussianBlur(grain, (0, 0), 0.6)
    slub = fbm(rng, h, w, 6 * s, 2, stretch=(3, 1)) * 0.025
    wrinkles = fbm(rng, h, w, 120 * s, 3) * 0.04
    img = np.empty((h, w, 3), np.float32)
    img[:] = base
    img *= (1.0 + grain + slub + wrinkles)[..., None]
    return img


def _gingham(rng, spec, h, w, s):
    u, v = _rotated_coords(h, w, spec.angle_deg)
    p = spec.scale_mm * s
    bu = ((u // p) % 2).astype(np.float32)
    bv = ((v // p) % 2).astype(np.float32)
    bu = cv2.GaussianBlur(bu, (0, 0), 0.6)
    bv = cv2.GaussianBlur(bv, (0, 0), 0.6)
    t = 0.5 * bu + 0.5 * bv  # 0 white, 0.5 mid, 1 full colour
    img = _colour_field(np.clip(t, 0, 1), spec.base, spec.alt)
    return img * _weave_gain(rng, spec, h, w, s)[..., None]


def _weave_gain(rng, spec, h, w, s):
    u, v = _rotated_coords(h, w, spec.angle_deg)
    p = max(2.2, 1.0 * s)
    cross = np.sin(u / p * np.pi * 2) * np.sin(v / p * np.pi * 2)
    return (0.96 + 0.05 * cross + rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.02)).astype(np.float32)


def _stripes(rng, spec, h, w, s):
    u, _ = _rotated_coords(h, w, spec.angle_deg)
    p = spec.scale_mm * s
    t = (np.sin(u / p * np.pi * 2) > 0.3).astype(np.float32)
    t = cv2.GaussianBlur(t, (0, 0), 0.8)
    img = _colour_field(t, spec.base, spec.alt)
    return img * _weave_gain(rng, spec, h, w, s)[..., None]


def _dots(rng, spec, h, w, s):
    u, v = _rotated_coords(h, w, spec.angle_deg)
    p = spec.scale_mm * s
    r = 0.22 * p
    d = np.sqrt(((u % p) - p / 2) ** 2 + ((v % p) - p / 2) ** 2)
    t = np.clip(0.5 - (d - r), 0, 1)
    img = _colour_field(t, spec.base, spec.alt)
    return img * _weave_gain(rng, spec, h, w, s)[..., None]


def _floral(rng, spec, h, w, s):
    img = np.empty((h, w, 3), np.float32)
    img[:] = spec.base
    p = spec.scale_mm * s
    n = int(h * w / (p * p) * rng.uniform(0.3, 0.9)) + 4
    leaf = draw.hsv(rng.uniform(90, 140), rng.uniform(0.4, 0.6), rng.uniform(0.45, 0.65))
    second = draw.hsv(rng.uniform(0, 360), rng.uniform(0.4, 0.7), rng.uniform(0.6, 0.85))
    for _ in range(n):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = p * rng.uniform(0.15, 0.3)
        x0, y0 = int(max(0, cx - 2 * r)), int(max(0, cy - 2 * r))
        x1, y1 = int(min(w, cx + 2 * r)), int(min(h, cy + 2 * r))
        if x1 <= x0 or y1 <= y0:
            continue
        sub = img[y0:y1, x0:x1]
        sh, sw = sub.shape[:2]
        for _ in range(2):
            a = rng.uniform(0, 2 * np.pi)
            lx, ly = cx - x0 + 1.3 * r * np.cos(a), cy - y0 + 1.3 * r * np.sin(a)
            draw.paint(sub, draw.ellipse(sh, sw, lx, ly, 0.7 * r, 0.3 * r, np.degrees(a)), leaf)
        col = spec.alt if rng.random() < 0.6 else second
        for k in range(5):
            a = k * 2 * np.pi / 5 + rng.uniform(0, 1)
            draw.paint(sub, draw.ellipse(sh, sw, cx - x0 + 0.55 * r * np.cos(a), cy - y0 + 0.55 * r * np.sin(a),
                                         0.5 * r, 0.5 * r), col)
        draw.paint(sub, draw.ellipse(sh, sw, cx - x0, cy - y0, 0.3 * r, 0.3 * r), draw.hsv(45, 0.7, 0.9))
    return img * (1.0 + fbm(rng, h, w, 50 * s, 2) * 0.03)[..., None]


def _laminate(rng, spec, h, w, s):
    img = np.empty((h, w, 3), np.float32)
    img[:] = spec.base
    speck = rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.018)
    speck = cv2.GaussianBlur(speck, (0, 0), 0.8)
    low = fbm(rng, h, w, 80 * s, 3) * 0.025
    img *= (1.0 + speck + low)[..., None]
    return img


def _stone(rng, spec, h, w, s):
    img = np.empty((h, w, 3), np.float32)
    img[:] = spec.base
    n = fbm(rng, h, w, spec.scale_mm * s, 5) * 0.12
    fine = cv2.GaussianBlur(rng.standard_normal((h, w), dtype=np.float32) * np.float32(0.05), (0, 0), 0.7)
    img *= (1.0 + n + fine)[..., None]
    return img


def _marble(rng, spec, h, w, s):
    u, v = _rotated_coords(h, w, spec.angle_deg)
    p = spec.scale_mm * s
    turb = fbm(rng, h, w, p, 5) * 5.0
    band = np.abs(np.sin(u / p * 2.0 + turb))
    veins = np.exp(-band / 0.05) * 0.8 + np.exp(-band / 0.3) * 0.25
    t = np.clip(veins * (0.5 + 0.5 * fbm(rng, h, w, p / 2, 3) + 0.3), 0, 1)
    img = _colour_field(t, spec.base, spec.alt)
    return img * (1.0 + fbm(rng, h, w, 20 * s, 3) * 0.03)[..., None]


def _cork(rng, spec, h, w, s):
    t = np.clip(fbm(rng, h, w, 1.5 * s, 3) * 1.6 + 0.5, 0, 1)
    img = _colour_field(t, spec.base, spec.alt)
    dark = (rng.random((h, w)) < 0.015).astype(np.float32)
    dark = cv2.GaussianBlur(dark, (0, 0), 0.9) * 2.0
    img *= (1.0 - 0.5 * np.clip(dark, 0, 1))[..., None]
    return img


def _plaid(rng, spec, h, w, s):
    """Tartan: bands of a few colours crossing at right angles, half-tones where they cross."""
    u, v = _rotated_coords(h, w, spec.angle_deg)
    p = spec.scale_mm * s
    cols = [spec.base, spec.alt, draw.hsv(rng.uniform(0, 360), rng.uniform(0.2, 0.8), rng.uniform(0.2, 0.95)),
            draw.hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.3), rng.uniform(0.6, 1.0))]
    cuts = np.sort(rng.uniform(0, 1, 5))
    lut = np.array([cols[int(rng.integers(len(cols)))] for _ in range(6)], np.float32)

    def bands(x):
        return np.searchsorted(cuts, (x / p) % 1.0)

    img = 0.5 * lut[bands(u)] + 0.5 * lut[bands(v)]
    img = cv2.GaussianBlur(img.astype(np.float32), (0, 0), 0.7)
    return img * _weave_gain(rng, spec, h, w, s)[..., None]


def _tiles(rng, spec, h, w, s):
    """Ceramic tiles: square tiles of slightly varying tint with grout lines between them."""
    u, v = _rotated_coords(h, w, spec.angle_deg)
    p = spec.scale_mm * s
    iu, iv = np.floor(u / p).astype(np.int32), np.floor(v / p).astype(np.int32)
    tint = rng.uniform(-0.06, 0.06, 4096).astype(np.float32)
    img = np.empty((h, w, 3), np.float32)
    img[:] = spec.base
    if rng.random() < 0.4:  # a chequerboard of two glazes
        odd = ((iu + iv) % 2).astype(np.float32)
        img = _colour_field(odd, spec.base, draw.mix(spec.base, spec.alt, 0.5))
    img *= (1.0 + tint[(iu * 31 + iv * 17) % 4096])[..., None]
    du, dv = np.abs((u % p) - p / 2), np.abs((v % p) - p / 2)
    half = max(0.6, rng.uniform(0.8, 2.5) * s)
    grout = np.clip(np.maximum(du, dv) - (p / 2 - half), 0, 1)
    img = img * (1 - grout[..., None]) + np.asarray(spec.alt, np.float32) * grout[..., None]
    return img * (1.0 + fbm(rng, h, w, 60 * s, 2) * 0.02)[..., None]


def _scatter(rng, spec, h, w, s):
    """Many shapes strewn at random: small stone chips (terrazzo) or a printed cloth of
    ellipses, rectangles and triangles of many colours (light ones included, like cards)."""
    img = np.empty((h, w, 3), np.float32)
    img[:] = spec.base
    p = spec.scale_mm * s
    chips = spec.family == "terrazzo"
    n = int(h * w / (p * p) * rng.uniform(0.3, 1.2)) + 8
    palette = [spec.alt] + [draw.hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.9), rng.uniform(0.15, 1.0))
                            for _ in range(int(rng.integers(1, 5)))]
    for _ in range(min(n, 20000)):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        r = p * rng.uniform(0.2, 0.6)
        col = tuple(float(c) for c in palette[int(rng.integers(len(palette)))])
        shape = "chip" if chips else str(rng.choice(["ellipse", "rect", "triangle"]))
        if shape == "ellipse":
            cv2.ellipse(img, ((cx, cy), (2 * r, 2 * r * rng.uniform(0.4, 1.0)), rng.uniform(0, 180)), col, -1)
            continue
        k = {"chip": int(rng.integers(4, 8)), "rect": 4, "triangle": 3}[shape]
        if shape == "rect":
            a, b, t = r, r * rng.uniform(0.3, 1.0), rng.uniform(0, np.pi)
            pts = [(cx + x * np.cos(t) - y * np.sin(t), cy + x * np.sin(t) + y * np.cos(t))
                   for x, y in ((-a, -b), (a, -b), (a, b), (-a, b))]
        else:
            ang = np.sort(rng.uniform(0, 2 * np.pi, k))
            rad = r * rng.uniform(0.5, 1.0, k)
            pts = list(zip(cx + rad * np.cos(ang), cy + rad * np.sin(ang), strict=True))
        cv2.fillPoly(img, [np.round(np.asarray(pts) * 4).astype(np.int32)], col, cv2.LINE_8, 2)
    return cv2.GaussianBlur(img, (0, 0), 0.5) * (1.0 + fbm(rng, h, w, 40 * s, 2) * 0.03)[..., None]


def _blobs(rng, spec, h, w, s):
    """Camouflage-like print: a smooth random field cut into three or four colour levels."""
    p = spec.scale_mm * s
    cols = np.array([spec.base, spec.alt] + [draw.hsv(rng.uniform(0, 360), rng.uniform(0.1, 0.7),
                                                        rng.uniform(0.2, 0.9)) for _ in range(2)], np.float32)
    levels = np.digitize(fbm(rng, h, w, p, 3), np.sort(rng.uniform(-0.4, 0.4, 3)))
    img = cv2.GaussianBlur(cols[levels], (0, 0), 0.7)
    return img * _weave_gain(rng, spec, h, w, s)[..., None]


def _table_edge(rng, img, edge, s):
    """Beyond one side the table ends: a lit edge, then the floor far below (dark, blurred)."""
    side, frac = edge
    h, w = img.shape[:2]
    floor = np.empty_like(img)
    floor[:] = draw.hsv(rng.uniform(20, 40), rng.uniform(0.1, 0.4), rng.uniform(0.08, 0.25))
    floor *= (1.0 + fbm(rng, h, w, 30 * s, 3) * 0.2)[..., None]
    ys, xs = np.meshgrid(np.arange(h, dtype=np.float32), np.arange(w, dtype=np.float32), indexing="ij")
    coord = {0: xs, 1: ys, 2: w - 1 - xs, 3: h - 1 - ys}[side]
    extent = (w if side in (0, 2) else h) * frac
    t = np.clip((extent - coord) + 0.5, 0, 1)  # 1 beyond the edge
    band = np.clip(1.0 - np.abs(coord - extent - 1.5 * s) / (1.5 * s), 0, 1)  # rounded edge catching light
    out = img * (1 - t[..., None]) + floor * t[..., None]
    out += (band * 0.12)[..., None]
    return out
