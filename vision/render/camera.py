"""Pinhole camera above the table: table millimetres (with height) to image pixels.

Table frame: X right, Y toward the bottom of the image, Z up, origin on the table under the
nominal optical axis. The camera hangs `height_mm` above, tilted by small angles. Drawing
happens on a "canvas" that is the table plane (Z=0) sampled at the camera's scale; objects
with height are drawn on the canvas where their raised faces appear (parallax), and the
canvas is then warped to the image by the Z=0 homography. Pixel centres are integers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np


@dataclass(frozen=True)
class CameraSpec:
    height_mm: float = 800.0  # optical centre above the table
    view_w_mm: float = 900.0  # table width seen across the image when untilted
    tilt_x_deg: float = 0.0  # pitch: camera not exactly overhead
    tilt_y_deg: float = 0.0  # roll about the image's vertical axis
    roll_deg: float = 0.0  # rotation about the optical axis
    k1: float = 0.0  # radial distortion (positive: barrel)
    focus_sigma: float = 0.6  # lens/defocus blur (px)
    motion_px: float = 0.0  # motion blur length (px)
    motion_deg: float = 0.0
    noise: float = 0.01  # read noise sigma (0..1 scale)
    shot: float = 0.01  # signal-dependent noise factor
    jpeg_quality: int | None = 90
    exposure_ev: float = 0.0
    wb_error: tuple[float, float, float] = (1.0, 1.0, 1.0)  # BGR gains left by imperfect white balance
    vignette: float = 0.15
    gamma: float = 1.0
    sharpen: float = 0.0  # ISP unsharp-mask amount
    chroma_px: float = 0.0  # lateral chromatic aberration at the corners (px)
    auto_exposure: float = 0.0  # 0..1: how far the camera pulls the mean brightness to mid-grey


class Camera:
    """Projection for one image size; `canvas_*` describe the table-plane drawing canvas."""

    def __init__(self, spec: CameraSpec, size: tuple[int, int]):
        self.spec = spec
        self.w, self.h = int(size[0]), int(size[1])
        self.D = float(spec.height_mm)
        self.f = self.w * self.D / float(spec.view_w_mm)
        self.cx, self.cy = (self.w - 1) / 2.0, (self.h - 1) / 2.0
        self.K = np.array([[self.f, 0, self.cx], [0, self.f, self.cy], [0, 0, 1.0]])
        ax, ay, az = (math.radians(spec.tilt_x_deg), math.radians(spec.tilt_y_deg), math.radians(spec.roll_deg))
        rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
        ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
        rz = np.array([[math.cos(az), -math.sin(az), 0], [math.sin(az), math.cos(az), 0], [0, 0, 1]])
        self.R = rz @ rx @ ry
        # Canvas: table plane at the nominal scale, large enough to cover the whole image.
        self.s = self.f / self.D  # canvas px per table mm
        corners = np.array([[0, 0], [self.w - 1, 0], [self.w - 1, self.h - 1], [0, self.h - 1]], float)
        table = self.image_to_table(corners, 0.0)
        margin = 6.0 / self.s
        x0, y0 = table.min(axis=0) - margin
        x1, y1 = table.max(axis=0) + margin
        self.ox, self.oy = -x0 * self.s, -y0 * self.s
        self.canvas_w = int(math.ceil((x1 - x0) * self.s)) + 1
        self.canvas_h = int(math.ceil((y1 - y0) * self.s)) + 1
        self.A = np.array([[self.s, 0, self.ox], [0, self.s, self.oy], [0, 0, 1.0]])
        self.H0 = self.plane_homography(0.0) @ np.linalg.inv(self.A)  # canvas -> image
        self.H0_inv = np.linalg.inv(self.H0)

    # -- projections ------------------------------------------------------------------
    def plane_homography(self, z: float) -> np.ndarray:
        """Homography from table (X, Y) mm on the plane Z=z to undistorted image pixels."""
        m = np.diag([1.0, 1.0, self.D - z])
        return self.K @ self.R @ m

    def project(self, pts_mm: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Undistorted image pixels of table points (N×2) lying at height z."""
        return _apply(self.plane_homography(z), pts_mm)

    def image_to_table(self, px: np.ndarray, z: float = 0.0) -> np.ndarray:
        return _apply(np.linalg.inv(self.plane_homography(z)), px)

    def to_canvas(self, pts_mm: np.ndarray, z: float = 0.0) -> np.ndarray:
        """Where points at height z must be drawn on the Z=0 canvas so they appear right after warping."""
        return _apply(self.H0_inv, self.project(pts_mm, z))

    def canvas_to_image(self, pts: np.ndarray) -> np.ndarray:
        return self.distort(_apply(self.H0, pts))

    def scale_at(self, z: float) -> float:
        """Image pixels per millimetre for something at height z (near the centre)."""
        return self.f / (self.D - z)

    # -- lens distortion --------------------------------------------------------------
    def _norm(self) -> float:
        return math.hypot(self.w, self.h) / 2.0

    def distort(self, pts: np.ndarray) -> np.ndarray:
        """Undistorted -> distorted image pixels (inverse of the remap used on the image)."""
        k = self.spec.k1
        pts = np.asarray(pts, float).reshape(-1, 2)
        if abs(k) < 1e-9:
            return pts.copy()
        c = np.array([self.cx, self.cy])
        d = pts - c
        q = d.copy()
        n = self._norm()
        for _ in range(12):
            r2 = (q**2).sum(axis=1, keepdims=True) / (n * n)
            q = d / (1.0 + k * r2)
        return q + c

    def canvas_maps(self) -> tuple[np.ndarray, np.ndarray] | None:
        """cv2.remap maps from the final (distorted) image straight to the canvas, or None without distortion.

        One remap replaces warpPerspective + undistortion: each output pixel is undistorted, then
        taken back through the inverse plane homography to the canvas."""
        k = self.spec.k1
        if abs(k) < 1e-9:
            return None
        return _canvas_maps(self.w, self.h, float(k), tuple(np.round(self.H0_inv, 12).ravel()))


@lru_cache(maxsize=4)
def _canvas_maps(w: int, h: int, k: float, hinv: tuple) -> tuple[np.ndarray, np.ndarray]:
    # The mapping is smooth: compute it exactly on a coarse grid, then enlarge it bilinearly
    # (cv2.resize). The grid is placed where resize expects its samples, over an image padded
    # by 8 px so no pixel needs extrapolation. Error well under 0.01 px, ~20× faster.
    pad = 8
    gxs, fx = _grid_axis(w, pad)
    gys, fy = _grid_axis(h, pad)
    xs, ys = np.meshgrid(gxs, gys)
    cx, cy = (w - 1) / 2.0, (h - 1) / 2.0
    dx, dy = xs - cx, ys - cy
    n = math.hypot(w, h) / 2.0
    f = 1.0 + k * (dx * dx + dy * dy) / (n * n)
    ux, uy = cx + dx * f, cy + dy * f
    H = np.asarray(hinv, np.float64).reshape(3, 3)
    zz = H[2, 0] * ux + H[2, 1] * uy + H[2, 2]
    small_x = ((H[0, 0] * ux + H[0, 1] * uy + H[0, 2]) / zz).astype(np.float32)
    small_y = ((H[1, 0] * ux + H[1, 1] * uy + H[1, 2]) / zz).astype(np.float32)
    size = (w + 2 * pad, h + 2 * pad)
    mx = cv2.resize(small_x, size, interpolation=cv2.INTER_LINEAR)[pad:pad + h, pad:pad + w]
    my = cv2.resize(small_y, size, interpolation=cv2.INTER_LINEAR)[pad:pad + h, pad:pad + w]
    return np.ascontiguousarray(mx), np.ascontiguousarray(my)


def _grid_axis(n_px: int, pad: int, step: int = 8) -> tuple[np.ndarray, float]:
    """Sample positions (image px) that cv2.resize treats as its source pixel centres."""
    total = n_px + 2 * pad
    n = int(math.ceil(total / step))
    f = total / n
    return (np.arange(n) + 0.5) * f - 0.5 - pad, f


def _apply(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, float).reshape(-1, 2)
    q = np.hstack([p, np.ones((len(p), 1))]) @ H.T
    return q[:, :2] / q[:, 2:3]


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    return _apply(H, pts)
