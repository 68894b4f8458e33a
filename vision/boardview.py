"""Board geometry: a `BoardView` maps board millimetres to image pixels.

A homography for the board plane plus one radial lens-distortion term about the image centre,
so a whole board (and the table round it) lines up within a pixel or two even through a cheap
wide lens, where four outline corners alone are off by several millimetres in the middle.
Crops of squares are sampled through it; `fit_view` fits one to measured square centres.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from .calibrate import Calibration
from .classify import Pyramid

# ----------------------------------------------------------------------------------------
# Geometry: board millimetres <-> image pixels


@dataclass(frozen=True)
class BoardView:
    """Board mm -> image px: `H` maps board mm to undistorted pixels; `k1` is the radial distortion.

    Distorted pixel q and undistorted pixel u relate as u = c + (q - c)(1 + k1 |q - c|² / n²),
    c the image centre and n half the image diagonal (one term is enough for camera-module
    lenses over a board; it also holds for the table round the board, so things lying beside
    it are mapped too)."""

    H: tuple[tuple[float, ...], ...]
    k1: float
    image_size: tuple[int, int]
    size_mm: tuple[float, float]
    residual_px: float = float("nan")  # median fit error of the square outlines
    inliers: int = 0  # squares that agreed with the fit
    details: dict = field(default_factory=dict, compare=False, hash=False)

    @property
    def matrix(self) -> np.ndarray:
        return np.array(self.H, np.float64)

    @property
    def centre(self) -> np.ndarray:
        w, h = self.image_size
        return np.array([(w - 1) / 2.0, (h - 1) / 2.0])

    @property
    def norm(self) -> float:
        w, h = self.image_size
        return math.hypot(w, h) / 2.0

    @classmethod
    def from_homography(cls, H: np.ndarray, image_size, size_mm, k1: float = 0.0, **kw) -> BoardView:
        H = np.asarray(H, np.float64)
        H = H / H[2, 2]
        return cls(tuple(tuple(float(v) for v in row) for row in H), float(k1), (int(image_size[0]),
                   int(image_size[1])), (float(size_mm[0]), float(size_mm[1])), **kw)

    @classmethod
    def from_calibration(cls, cal: Calibration) -> BoardView:
        return cls.from_homography(np.linalg.inv(cal.matrix), cal.image_size, cal.size_mm)

    @classmethod
    def from_corners(cls, corners_px: Any, size_mm, image_size) -> BoardView:
        """The view whose board corners (TL, TR, BR, BL of the layout) lie at these pixels."""
        w, h = float(size_mm[0]), float(size_mm[1])
        src = np.float32([[0, 0], [w, 0], [w, h], [0, h]])
        return cls.from_homography(cv2.getPerspectiveTransform(src, np.float32(corners_px)), image_size, (w, h))

    def undistort(self, px: Any) -> np.ndarray:
        q = np.asarray(px, np.float64).reshape(-1, 2)
        if self.k1 == 0.0:
            return q.copy()
        d = q - self.centre
        return self.centre + d * (1.0 + self.k1 * (d * d).sum(axis=1, keepdims=True) / self.norm**2)

    def distort(self, px: Any) -> np.ndarray:
        u = np.asarray(px, np.float64).reshape(-1, 2)
        if self.k1 == 0.0:
            return u.copy()
        # The distorted radius s solves s (1 + k1 s² / n²) = |u - c|: a few Newton steps.
        d = u - self.centre
        r = np.sqrt((d * d).sum(axis=1))
        k = self.k1 / self.norm**2
        s = r.copy()
        for _ in range(4):
            s -= (s + k * s**3 - r) / np.maximum(1.0 + 3.0 * k * s * s, 0.2)
        return self.centre + d * (s / np.maximum(r, 1e-12))[:, None]

    def to_image(self, pts_mm: Any) -> np.ndarray:
        """Board mm (N×2) -> image pixels (N×2)."""
        p = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        u = cv2.perspectiveTransform(p.reshape(-1, 1, 2), self.matrix).reshape(-1, 2)
        return self.distort(u)

    def to_board(self, px: Any) -> np.ndarray:
        """Image pixels (N×2) -> board mm (N×2) (also for points on the table round the board)."""
        u = self.undistort(px)
        return cv2.perspectiveTransform(u.reshape(-1, 1, 2), np.linalg.inv(self.matrix)).reshape(-1, 2)

    def px_per_mm(self, pt_mm: Any = None) -> float:
        """Image pixels per board millimetre near `pt_mm` (default: the board's centre)."""
        c = np.asarray(pt_mm if pt_mm is not None else (self.size_mm[0] / 2, self.size_mm[1] / 2), np.float64)
        p = self.to_image(np.array([c, c + [5.0, 0.0], c + [0.0, 5.0]]))
        return float((np.linalg.norm(p[1] - p[0]) + np.linalg.norm(p[2] - p[0])) / 10.0)

    def corners(self) -> np.ndarray:
        w, h = self.size_mm
        return self.to_image(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))

    def turned(self) -> BoardView:
        """The same board seen the other way round (a half turn of the board frame)."""
        w, h = self.size_mm
        flip = np.array([[-1.0, 0, w], [0, -1.0, h], [0, 0, 1.0]])
        return replace(self, H=tuple(tuple(float(v) for v in row) for row in self.matrix @ flip))

    def to_calibration(self) -> Calibration:
        """The outline as a `Calibration` (the distortion is not part of that format)."""
        return Calibration.from_quad(self.corners(), self.size_mm, self.image_size, "board",
                                     details={"k1": self.k1, "residual_px": self.residual_px})


def crop_transform(view: BoardView, centre_mm: Any, size_mm: float, out_px: int, angle_deg: float = 0.0,
                   scale: float = 1.0) -> np.ndarray:
    """3×3 map from crop pixels to image pixels: a `size_mm` square of the board plane round
    `centre_mm`, turned by `angle_deg` (clockwise on the board), sampled at `out_px` pixels."""
    return crop_transforms(view, [centre_mm], size_mm, out_px, [angle_deg], scale)[0]


def crop_transforms(view: BoardView, centres_mm: Any, size_mm: float, out_px: int,
                    angles_deg: Any = None, scale: float = 1.0) -> list[np.ndarray]:
    """`crop_transform` of each centre (and angle, default 0): the corners of all crops go
    through the view in one call (its lens model is numpy arithmetic, whose per-call cost was
    most of a board read's crop time), each crop's arithmetic as it was alone."""
    centres = np.asarray(centres_mm, np.float64).reshape(-1, 2)
    if not len(centres):
        return []
    angles = [0.0] * len(centres) if angles_deg is None else [float(a) for a in angles_deg]
    h = size_mm * scale / 2.0
    local = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    turned: dict[float, np.ndarray] = {}
    for a_deg in set(angles):
        a = math.radians(a_deg)
        ca, sa = math.cos(a), math.sin(a)
        turned[a_deg] = local @ np.array([[ca, -sa], [sa, ca]]).T
    mm = np.concatenate([c + turned[a] for c, a in zip(centres, angles, strict=True)])
    px = view.to_image(mm).astype(np.float32)
    src = np.array([[-0.5, -0.5], [out_px - 0.5, -0.5], [out_px - 0.5, out_px - 0.5], [-0.5, out_px - 0.5]],
                   np.float32)
    return [cv2.getPerspectiveTransform(src, px[4 * k: 4 * k + 4]) for k in range(len(centres))]


def board_crops(pyr: Pyramid, view: BoardView, centres_mm: Any, size_mm: float, out_px: int,
                angles_deg: Any = None) -> list[np.ndarray]:
    """`sample_crop` through `crop_transforms` of each centre: the crops a reader classifies."""
    return [sample_crop(pyr, m, out_px) for m in crop_transforms(view, centres_mm, size_mm, out_px, angles_deg)]


def sample_crop(pyr: Pyramid, m: np.ndarray, out_px: int) -> np.ndarray:
    """Crop (uint8 BGR, out_px²) through `m` (crop px -> image px), from the pyramid level whose
    pixels are about the crop's size (no aliasing when the crop is much coarser than the image)."""
    pts = cv2.perspectiveTransform(np.array([[[0, 0], [out_px, 0], [0, out_px]]], np.float64), m)[0]
    step = max(np.hypot(*(pts[1] - pts[0])), np.hypot(*(pts[2] - pts[0]))) / out_px
    k = int(math.floor(math.log2(step))) if step >= 2 else 0
    img = pyr.level(k)
    k = min(k, len(pyr.levels) - 1)
    if k:
        s = 0.5**k
        m = np.array([[s, 0, 0.5 * s - 0.5], [0, s, 0.5 * s - 0.5], [0, 0, 1]]) @ m
    return cv2.warpPerspective(img, m, (out_px, out_px), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


def square_quad(view: BoardView, centre_mm: Any, side_mm: float, angle_deg: float = 0.0) -> np.ndarray:
    """Image outline (TL, TR, BR, BL in the board's reading frame) of a square on the board."""
    return square_quads(view, np.asarray(centre_mm, np.float64).reshape(1, 2), side_mm, np.array([angle_deg]))[0]


def square_quads(view: BoardView, centres_mm: np.ndarray, side_mm: float, angles_deg: np.ndarray) -> np.ndarray:
    """`square_quad` of N squares (N×4×2), mapped to the image in one pass."""
    h = side_mm / 2.0
    a = np.radians(np.asarray(angles_deg, np.float64))
    cos, sin = np.cos(a)[:, None], np.sin(a)[:, None]
    corner = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    local = np.stack([corner[:, 0] * cos - corner[:, 1] * sin, corner[:, 0] * sin + corner[:, 1] * cos], axis=2)
    pts = np.asarray(centres_mm, np.float64).reshape(-1, 1, 2) + local
    return view.to_image(pts.reshape(-1, 2)).reshape(-1, 4, 2) if len(pts) else np.zeros((0, 4, 2))


# ----------------------------------------------------------------------------------------
# Fitting a view to measured square centres


def _undistort_k(q: np.ndarray, k1: float, centre: np.ndarray, norm: float) -> np.ndarray:
    d = q - centre
    return centre + d * (1.0 + k1 * (d * d).sum(axis=1, keepdims=True) / norm**2)


def fit_view(mm: np.ndarray, px: np.ndarray, weights: np.ndarray, image_size, size_mm,
             k_range: float = 0.1) -> tuple[BoardView, np.ndarray]:
    """Homography + k1 through (board mm, image px) pairs, robustly (iteratively reweighted).

    For a given k1 the homography is linear (weighted DLT on undistorted points); k1 is found
    by a golden-section search on the weighted error. Returns the view and per-point errors (px)."""
    w_img, h_img = image_size
    centre = np.array([(w_img - 1) / 2.0, (h_img - 1) / 2.0])
    norm = math.hypot(w_img, h_img) / 2.0
    mm = np.asarray(mm, np.float64)
    px = np.asarray(px, np.float64)
    wts = np.asarray(weights, np.float64).copy()

    def solve(k1: float, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        u = _undistort_k(px, k1, centre, norm)
        H = _weighted_dlt(mm, u, w)
        pred = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), H).reshape(-1, 2)
        return H, np.linalg.norm(pred - u, axis=1)

    def cost(k1: float, w: np.ndarray) -> float:
        # A weak prior toward no distortion: camera-module lenses stay within a few percent,
        # and tiles standing above the board must not be explained away as lens distortion.
        _, e = solve(k1, w)
        return float((w * np.minimum(e, 6.0) ** 2).sum() + 0.5 * w.sum() * (k1 / 0.03) ** 2)

    enough = len(mm) >= 12 and _spread(mm, size_mm)
    k1 = 0.0
    for _ in range(3):
        if enough:
            a, b = -k_range, k_range
            g = (math.sqrt(5) - 1) / 2
            c, d = b - g * (b - a), a + g * (b - a)
            fc, fd = cost(c, wts), cost(d, wts)
            for _ in range(28):
                if fc < fd:
                    b, d, fd = d, c, fc
                    c = b - g * (b - a)
                    fc = cost(c, wts)
                else:
                    a, c, fc = c, d, fd
                    d = a + g * (b - a)
                    fd = cost(d, wts)
            k1 = (a + b) / 2
        H, err = solve(k1, wts)
        scale = max(1.0, 1.4826 * float(np.median(err[wts > 0])) if (wts > 0).any() else 1.0)
        wts = weights * (1.0 / np.maximum(1.0, err / (2.5 * scale)) ** 2)  # Huber-like down-weighting
    H, err = solve(k1, wts)
    view = BoardView.from_homography(H, image_size, size_mm, k1)
    err = np.linalg.norm(view.to_image(mm) - px, axis=1)
    return view, err


def _spread(mm: np.ndarray, size_mm) -> bool:
    """Points spread over the board enough to fit the lens distortion."""
    return bool(np.ptp(mm[:, 0]) > 0.4 * size_mm[0] and np.ptp(mm[:, 1]) > 0.3 * size_mm[1])


def _weighted_dlt(src: np.ndarray, dst: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Homography src -> dst minimising the weighted algebraic error (points normalised first)."""
    def normaliser(p):
        m = p.mean(axis=0)
        s = math.sqrt(2) / max(np.mean(np.linalg.norm(p - m, axis=1)), 1e-9)
        return np.array([[s, 0, -s * m[0]], [0, s, -s * m[1]], [0, 0, 1]])

    ts, td = normaliser(src), normaliser(dst)
    a = np.c_[src, np.ones(len(src))] @ ts.T
    b = np.c_[dst, np.ones(len(dst))] @ td.T
    x, y, u, v = a[:, 0], a[:, 1], b[:, 0], b[:, 1]
    z, o = np.zeros_like(x), np.ones_like(x)
    r1 = np.stack([-x, -y, -o, z, z, z, u * x, u * y, u], 1)
    r2 = np.stack([z, z, z, -x, -y, -o, v * x, v * y, v], 1)
    sw = np.sqrt(np.maximum(w, 0))[:, None]
    # thin SVD: the full one builds a 2N×2N matrix (and crawls when BLAS threads compete)
    _, _, vt = np.linalg.svd(np.vstack([r1 * sw, r2 * sw]), full_matrices=False)
    hn = vt[-1].reshape(3, 3)
    H = np.linalg.inv(td) @ hn @ ts
    return H / H[2, 2]


def in_regions(px: np.ndarray, regions) -> np.ndarray:
    """Which image points lie in any of the regions (x0, y0, x1, y1)."""
    px = np.asarray(px, np.float64).reshape(-1, 2)
    hit = np.zeros(len(px), bool)
    for x0, y0, x1, y1 in regions:
        hit |= (px[:, 0] >= x0) & (px[:, 0] < x1) & (px[:, 1] >= y0) & (px[:, 1] < y1)
    return hit
