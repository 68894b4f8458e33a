"""Laying objects on the canvas: perspective warp of each face, side walls of thick pieces,
cast shadows and contact shadows, and bookkeeping of which canvas pixel shows which object
(for exact visibility and occlusion truth)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .camera import Camera
from .optics import LightSpec, shadow_vector

SRC_INSET = 0.5  # sprite outline runs from -0.5 to w-0.5 (pixel centres at integers)


@dataclass
class Placed:
    """Where one object ended up on the canvas."""

    index: int  # position in the scene's item list
    quad: np.ndarray  # 4×2 canvas corners of the top face (TL, TR, BR, BL of the face)
    M: np.ndarray  # 3×3 homography: sprite pixels -> canvas
    roi: tuple[int, int, int, int]  # x0, y0, x1, y1 on the canvas (exclusive ends)
    sprite_wh: tuple[int, int]
    area: int  # canvas pixels of its top face (alpha > 0.5)
    z_top: float


def rect_mm(w: float, h: float, x: float, y: float, angle_deg: float) -> np.ndarray:
    """Corners TL, TR, BR, BL (table mm) of a w×h rectangle centred at (x, y), turned clockwise by angle."""
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return np.stack([x + local[:, 0] * ca - local[:, 1] * sa, y + local[:, 0] * sa + local[:, 1] * ca], axis=1)


def sprite_homography(w: int, h: int, quad: np.ndarray) -> np.ndarray:
    src = np.array([[-SRC_INSET, -SRC_INSET], [w - SRC_INSET, -SRC_INSET], [w - SRC_INSET, h - SRC_INSET],
                    [-SRC_INSET, h - SRC_INSET]], np.float32)
    return cv2.getPerspectiveTransform(src, np.asarray(quad, np.float32))


def _roi(pts: np.ndarray, margin: float, W: int, H: int) -> tuple[int, int, int, int] | None:
    x0 = max(0, int(math.floor(pts[:, 0].min() - margin)))
    y0 = max(0, int(math.floor(pts[:, 1].min() - margin)))
    x1 = min(W, int(math.ceil(pts[:, 0].max() + margin)) + 1)
    y1 = min(H, int(math.ceil(pts[:, 1].max() + margin)) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _shift(M: np.ndarray, x0: int, y0: int) -> np.ndarray:
    T = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], np.float64)
    return T @ M


def warp(sprite: np.ndarray, M: np.ndarray, roi: tuple[int, int, int, int]) -> np.ndarray:
    x0, y0, x1, y1 = roi
    return cv2.warpPerspective(sprite, _shift(M, x0, y0), (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0)


class Canvas:
    """The table plane being drawn on, with its object-id and gloss buffers."""

    def __init__(self, base: np.ndarray, table_gloss: float, cam: Camera, light: LightSpec):
        self.img = base
        self.H, self.W = base.shape[:2]
        self.ids = np.zeros((self.H, self.W), np.int32)
        # Darkness of shadows on the current top surface: shadows combine by maximum (a stack of
        # cards casts one shadow, not one per card) and an object laid later is lit afresh.
        self.shade = np.zeros((self.H, self.W), np.float32)
        self.gloss = np.full((self.H, self.W), np.float32(table_gloss), np.float32)
        self.cam = cam
        self.light = light
        self.s = cam.s
        self.sv = shadow_vector(light.azimuth_deg, light.elevation_deg)
        self.sv2 = shadow_vector(light.second[0], light.second[1]) if light.second[2] > 0 else None

    # -- shadows ---------------------------------------------------------------------
    def shadow(self, alpha: np.ndarray, corners_mm: np.ndarray, z0: float, z1: float, strength: float = 1.0) -> None:
        """Cast shadow of an object spanning heights z0..z1, plus a soft contact shadow around its foot."""
        light = self.light
        direct = (1.0 - light.ambient) * 0.85 * strength
        h, w = alpha.shape
        parts = []
        lights = [(self.sv, 1.0 - light.second[2])]
        if self.sv2 is not None:
            lights.append((self.sv2, light.second[2]))
        # Thin things (cards) cast one shadow from their top; thick ones also from their foot.
        heights = (z1,) if z1 - z0 < 2.0 else (z0, z1)
        for sv, share in lights:
            for z in heights:
                q = self.cam.to_canvas(corners_mm + np.array(sv) * z, 0.0)
                parts.append((q, direct * share, (0.35 + light.softness * z1) * self.s))
        foot = self.cam.to_canvas(corners_mm, 0.0)
        parts.append((foot, 0.22 * strength * (0.6 + 0.4 * light.ambient), max(0.8, 1.1 * self.s)))
        for quad, st, sigma in parts:
            if st <= 0.01:
                continue
            roi = _roi(quad, 3 * sigma + 2, self.W, self.H)
            if roi is None:
                continue
            M = sprite_homography(w, h, quad)
            m = warp(alpha, M, roi)
            if sigma > 0.3:
                m = cv2.GaussianBlur(m, (0, 0), sigma)
            x0, y0, x1, y1 = roi
            np.maximum(self.shade[y0:y1, x0:x1], np.float32(st) * m, out=self.shade[y0:y1, x0:x1])

    # -- faces -----------------------------------------------------------------------
    def lay(self, index: int, bgr: np.ndarray, alpha: np.ndarray, corners_mm: np.ndarray, z_top: float,
            gloss: float, shade: tuple[float, float] = (0.0, 0.0), record: bool = True,
            tint: tuple[float, float, float] | None = None) -> Placed | None:
        """Warp a face onto the canvas where its corners (table mm, at height z_top) appear.

        `shade`: brightness slope across the face (a card is never flat); `tint`: per-channel gain
        (printing varies a little from sheet to sheet)."""
        h, w = alpha.shape
        quad = self.cam.to_canvas(corners_mm, z_top)
        roi = _roi(quad, 2, self.W, self.H)
        M = sprite_homography(w, h, quad)
        if roi is None:
            return Placed(index, quad, M, (0, 0, 0, 0), (w, h), 0, z_top)
        colour = bgr * alpha[..., None] if tint is None else bgr * (alpha[..., None] * np.asarray(tint, np.float32))
        pre = np.dstack([colour, alpha])  # premultiplied BGRA: one warp for colour and cover
        ca = warp(pre, M, roi)
        c, a = ca[..., :3], np.ascontiguousarray(ca[..., 3])
        x0, y0, x1, y1 = roi
        if shade != (0.0, 0.0):
            # A card is never perfectly flat: a faint brightness slope across it.
            yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
            cx, cy = quad[:, 0].mean(), quad[:, 1].mean()
            L = max(w, h)
            c *= (1.0 + (shade[0] * (xx - cx) + shade[1] * (yy - cy)) / L)[..., None]
        sub = self.img[y0:y1, x0:x1]
        sub *= 1.0 - a[..., None]
        sub += c
        self.shade[y0:y1, x0:x1] *= 1.0 - a
        g = self.gloss[y0:y1, x0:x1]
        g *= 1.0 - a
        g += np.float32(gloss) * a
        on = a > 0.5
        area = int(on.sum())
        if record:
            self.ids[y0:y1, x0:x1][on] = index + 1
        return Placed(index, quad, M, roi, (w, h), area, z_top)

    def sides(self, alpha: np.ndarray, corners_mm: np.ndarray, z0: float, z1: float, colour) -> None:
        """Side walls of a thick piece seen in perspective: stacked silhouettes from z0 to z1."""
        q0 = self.cam.to_canvas(corners_mm, z0)
        q1 = self.cam.to_canvas(corners_mm, z1)
        shift = float(np.abs(q1 - q0).max())
        if shift < 0.3:
            return
        n = 1 if shift < 2.5 else 2  # walls are only pixels wide: the foot (and a middle layer) suffice
        h, w = alpha.shape
        col = np.asarray(colour, np.float32)
        for k in range(n):
            t = k / n
            z = z0 + (z1 - z0) * t
            quad = self.cam.to_canvas(corners_mm, z)
            roi = _roi(quad, 2, self.W, self.H)
            if roi is None:
                continue
            a = warp(alpha, sprite_homography(w, h, quad), roi)
            x0, y0, x1, y1 = roi
            shade = np.float32(0.72 + 0.28 * t)
            sub = self.img[y0:y1, x0:x1]
            sub *= 1.0 - a[..., None]
            sub += (col * shade)[None, None, :] * a[..., None]
            self.shade[y0:y1, x0:x1] *= 1.0 - a

    # -- visibility ------------------------------------------------------------------
    def visible_fraction(self, p: Placed, region: tuple[float, float, float, float] | None = None) -> float:
        """Share of the face (or of a region given as fractions x0, y0, x1, y1) still showing."""
        if p.area == 0:
            return 0.0
        x0, y0, x1, y1 = p.roi
        own = self.ids[y0:y1, x0:x1] == p.index + 1
        if region is None:
            return float(own.sum()) / p.area
        w, h = p.sprite_wh
        rx0, ry0, rx1, ry1 = region
        pts = np.array([[rx0 * w, ry0 * h], [rx1 * w, ry0 * h], [rx1 * w, ry1 * h], [rx0 * w, ry1 * h]]) - SRC_INSET
        q = cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float64), p.M).reshape(-1, 2)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillConvexPoly(mask, np.round((q - [x0, y0]) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        total = int(mask.sum())
        if total == 0:
            return 0.0
        return float((own & (mask > 0)).sum()) / total
