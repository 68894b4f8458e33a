"""Anti-aliased drawing primitives on float images (BGR in 0..1) and coverage masks.

Shapes are coverage masks (float32 0..1); `paint` lays a colour through a mask. Rounded
rectangles and circles come from signed distances (exact, sub-pixel); polygons from
OpenCV's anti-aliased fill with fixed-point vertices.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

Colour = tuple[float, float, float]  # BGR, 0..1
_SHIFT = 4  # fixed-point bits for cv2 polygon vertices (1/16 px)


def blank(h: int, w: int, colour: Colour = (1.0, 1.0, 1.0)) -> np.ndarray:
    img = np.empty((h, w, 3), np.float32)
    img[:] = colour
    return img


def paint(img: np.ndarray, mask: np.ndarray, colour: Colour | np.ndarray, opacity: float = 1.0) -> None:
    """img = img·(1−m) + colour·m, in place; `colour` may be an image of the same size."""
    m = mask[..., None] * np.float32(opacity) if mask.ndim == 2 else mask * np.float32(opacity)
    col = np.asarray(colour, np.float32)
    img *= 1.0 - m
    img += col * m


def paint_at(img: np.ndarray, mask: np.ndarray, colour: Colour, x: float, y: float, opacity: float = 1.0) -> None:
    """Paint a small mask whose top-left corner goes to (x, y) (rounded), clipped to the image."""
    h, w = mask.shape
    x0, y0 = int(round(x)), int(round(y))
    ix0, iy0, ix1, iy1 = max(0, x0), max(0, y0), min(img.shape[1], x0 + w), min(img.shape[0], y0 + h)
    if ix1 <= ix0 or iy1 <= iy0:
        return
    sub = mask[iy0 - y0: iy1 - y0, ix0 - x0: ix1 - x0]
    paint(img[iy0:iy1, ix0:ix1], sub, colour, opacity)


def paste_mask(dst: np.ndarray, mask: np.ndarray, cx: float, cy: float, rotate180: bool = False) -> None:
    """Max-combine a small mask centred at (cx, cy) into a larger mask, in place."""
    if rotate180:
        mask = mask[::-1, ::-1]
    h, w = mask.shape
    x0, y0 = int(round(cx - w / 2.0)), int(round(cy - h / 2.0))
    ix0, iy0, ix1, iy1 = max(0, x0), max(0, y0), min(dst.shape[1], x0 + w), min(dst.shape[0], y0 + h)
    if ix1 <= ix0 or iy1 <= iy0:
        return
    np.maximum(dst[iy0:iy1, ix0:ix1], mask[iy0 - y0: iy1 - y0, ix0 - x0: ix1 - x0], out=dst[iy0:iy1, ix0:ix1])


def _grid(h: int, w: int) -> tuple[np.ndarray, np.ndarray]:
    ys = np.arange(h, dtype=np.float32)[:, None] + 0.5
    xs = np.arange(w, dtype=np.float32)[None, :] + 0.5
    return xs, ys


def rounded_rect(h: int, w: int, x0: float, y0: float, x1: float, y1: float, r: float) -> np.ndarray:
    """Coverage of the rounded rectangle [x0, x1]×[y0, y1] with corner radius r (pixel units)."""
    xs, ys = _grid(h, w)
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    hx, hy = (x1 - x0) / 2.0 - r, (y1 - y0) / 2.0 - r
    qx = np.abs(xs - cx) - hx
    qy = np.abs(ys - cy) - hy
    outside = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2)
    inside = np.minimum(np.maximum(qx, qy), 0)
    sdf = outside + inside - r
    return np.clip(0.5 - sdf, 0.0, 1.0).astype(np.float32)


def rounded_rect_sdf(h: int, w: int, x0: float, y0: float, x1: float, y1: float, r: float) -> np.ndarray:
    xs, ys = _grid(h, w)
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    hx, hy = (x1 - x0) / 2.0 - r, (y1 - y0) / 2.0 - r
    qx = np.abs(xs - cx) - hx
    qy = np.abs(ys - cy) - hy
    outside = np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2)
    return (outside + np.minimum(np.maximum(qx, qy), 0) - r).astype(np.float32)


def ellipse(h: int, w: int, cx: float, cy: float, rx: float, ry: float, angle_deg: float = 0.0) -> np.ndarray:
    xs, ys = _grid(h, w)
    a = math.radians(angle_deg)
    dx, dy = xs - cx, ys - cy
    u = (dx * math.cos(a) + dy * math.sin(a)) / max(rx, 1e-3)
    v = (-dx * math.sin(a) + dy * math.cos(a)) / max(ry, 1e-3)
    r = np.sqrt(u * u + v * v)
    # Approximate distance in pixels: scale the normalised radius by the local semi-axis.
    sdf = (r - 1.0) * min(rx, ry)
    return np.clip(0.5 - sdf, 0.0, 1.0).astype(np.float32)


def ring(h: int, w: int, cx: float, cy: float, r: float, width: float) -> np.ndarray:
    xs, ys = _grid(h, w)
    d = np.abs(np.sqrt((xs - cx) ** 2 + (ys - cy) ** 2) - r) - width / 2.0
    return np.clip(0.5 - d, 0.0, 1.0).astype(np.float32)


def polygon(h: int, w: int, pts: Sequence[Sequence[float]] | np.ndarray) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    p = np.round((np.asarray(pts, np.float64) - 0.5) * (1 << _SHIFT)).astype(np.int32)
    cv2.fillPoly(m, [p], 255, cv2.LINE_AA, _SHIFT)
    return m.astype(np.float32) / 255.0


def polyline(h: int, w: int, pts, thickness: float, closed: bool = False) -> np.ndarray:
    m = np.zeros((h, w), np.uint8)
    p = np.round((np.asarray(pts, np.float64) - 0.5) * (1 << _SHIFT)).astype(np.int32)
    cv2.polylines(m, [p], closed, 255, max(1, int(round(thickness))), cv2.LINE_AA, _SHIFT)
    return m.astype(np.float32) / 255.0


def star_points(cx: float, cy: float, r_out: float, r_in: float, n: int = 5, rot_deg: float = -90.0) -> np.ndarray:
    pts = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = math.radians(rot_deg + i * 180.0 / n)
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.asarray(pts)


def blob_points(rng: np.random.Generator, cx: float, cy: float, r: float, wobble: float = 0.25, n: int = 48):
    """An organic closed outline: a circle whose radius wobbles with a few random harmonics."""
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    rad = np.ones_like(t)
    for k in range(2, 6):
        rad += wobble / k * rng.uniform(-1, 1) * np.cos(k * t + rng.uniform(0, 2 * np.pi))
    return np.stack([cx + r * rad * np.cos(t), cy + r * rad * np.sin(t)], axis=1)


def resize_mask(mask: np.ndarray, scale: float) -> np.ndarray:
    h, w = mask.shape
    nw, nh = max(1, int(round(w * scale))), max(1, int(round(h * scale)))
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.resize(mask, (nw, nh), interpolation=interp)


def fit_mask(mask: np.ndarray, max_w: float, max_h: float) -> np.ndarray:
    """Scale a mask to fit inside max_w × max_h, keeping its aspect ratio."""
    h, w = mask.shape
    s = min(max_w / max(w, 1), max_h / max(h, 1))
    return resize_mask(mask, s) if abs(s - 1.0) > 1e-3 else mask


def dilate(mask: np.ndarray, px: float) -> np.ndarray:
    """Grow a coverage mask by about `px` pixels (outlines around glyphs and icons)."""
    if px <= 0:
        return mask
    k = int(math.ceil(px)) * 2 + 1
    ker = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    pad = int(math.ceil(px)) + 1
    big = cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)
    return cv2.dilate(big, ker)


def pad_mask(mask: np.ndarray, pad: int) -> np.ndarray:
    return cv2.copyMakeBorder(mask, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=0)


def hsv(h_deg: float, s: float, v: float) -> Colour:
    """BGR (0..1) from hue in degrees, saturation and value in 0..1."""
    import colorsys

    r, g, b = colorsys.hsv_to_rgb((h_deg % 360.0) / 360.0, min(max(s, 0.0), 1.0), min(max(v, 0.0), 1.0))
    return (b, g, r)


def mix(a: Colour, b: Colour, t: float) -> Colour:
    return tuple(float(x * (1 - t) + y * t) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]


def scale_colour(c: Colour, f: float) -> Colour:
    return tuple(float(min(1.0, max(0.0, x * f))) for x in c)  # type: ignore[return-value]


def luminance(c: Colour) -> float:
    b, g, r = c
    return 0.114 * b + 0.587 * g + 0.299 * r


def paint_rrect(img: np.ndarray, x0: float, y0: float, x1: float, y1: float, r: float, colour: Colour,
                opacity: float = 1.0) -> None:
    """Paint a rounded rectangle, computing coverage only over its bounding box (large images)."""
    H, W = img.shape[:2]
    ix0, iy0 = max(0, int(math.floor(x0)) - 1), max(0, int(math.floor(y0)) - 1)
    ix1, iy1 = min(W, int(math.ceil(x1)) + 1), min(H, int(math.ceil(y1)) + 1)
    if ix1 <= ix0 or iy1 <= iy0:
        return
    m = rounded_rect(iy1 - iy0, ix1 - ix0, x0 - ix0, y0 - iy0, x1 - ix0, y1 - iy0, max(0.01, r))
    paint(img[iy0:iy1, ix0:ix1], m, colour, opacity)


def paint_ellipse(img: np.ndarray, cx: float, cy: float, rx: float, ry: float, colour: Colour,
                  opacity: float = 1.0, angle_deg: float = 0.0) -> None:
    H, W = img.shape[:2]
    r = max(rx, ry) + 2
    ix0, iy0 = max(0, int(cx - r)), max(0, int(cy - r))
    ix1, iy1 = min(W, int(cx + r) + 1), min(H, int(cy + r) + 1)
    if ix1 <= ix0 or iy1 <= iy0:
        return
    m = ellipse(iy1 - iy0, ix1 - ix0, cx - ix0, cy - iy0, rx, ry, angle_deg)
    paint(img[iy0:iy1, ix0:ix1], m, colour, opacity)


def paint_polygon(img: np.ndarray, pts, colour: Colour, opacity: float = 1.0) -> None:
    p = np.asarray(pts, np.float64)
    H, W = img.shape[:2]
    ix0, iy0 = max(0, int(p[:, 0].min()) - 2), max(0, int(p[:, 1].min()) - 2)
    ix1, iy1 = min(W, int(p[:, 0].max()) + 3), min(H, int(p[:, 1].max()) + 3)
    if ix1 <= ix0 or iy1 <= iy0:
        return
    m = polygon(iy1 - iy0, ix1 - ix0, p - [ix0, iy0])
    paint(img[iy0:iy1, ix0:ix1], m, colour, opacity)
