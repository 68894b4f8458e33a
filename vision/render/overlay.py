"""What is added over a developed table image: hands (with their soft shadow), things in
flight (a tumbling die), the sensor's noise and compression, and the hand's share in the
truth. Hands are composited in image space so repeated frames only redo this part."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from . import faces, hands
from .camera import Camera
from .optics import NoiseBank, add_noise, add_noise_fast, jpeg, motion_kernel, noise_bank, shadow_vector, tone_float
from .scene import Item, Scene, Static, _face_card, item_size

SPRITE_HEIGHT_MM = 100.0  # hands are drawn once at the scale of this height and resized per frame


@dataclass
class HandLayer:
    """One hand placed in one frame: colour and coverage in `box`, shadow in `shadow_box`."""

    colour: np.ndarray  # premultiplied, toned (float32 0..255)
    alpha: np.ndarray
    box: tuple[int, int, int, int]
    shadow: np.ndarray  # darkening 0..1
    shadow_box: tuple[int, int, int, int]
    size: tuple[int, int]  # image width, height

    def composite(self, image: np.ndarray) -> np.ndarray:
        out = image.copy()
        if self.shadow.size > 1:
            x0, y0, x1, y1 = self.shadow_box
            sub = out[y0:y1, x0:x1].astype(np.float32)
            sub *= (1.0 - self.shadow)[..., None]
            out[y0:y1, x0:x1] = sub.astype(np.uint8)
        x0, y0, x1, y1 = self.box
        sub = out[y0:y1, x0:x1].astype(np.float32)
        sub *= (1.0 - self.alpha)[..., None]
        sub += self.colour
        np.clip(sub, 0, 255, out=sub)
        out[y0:y1, x0:x1] = sub.astype(np.uint8)
        return out

    def mask(self) -> np.ndarray:
        w, h = self.size
        m = np.zeros((h, w), np.float32)
        x0, y0, x1, y1 = self.box
        m[y0:y1, x0:x1] = self.alpha
        return m


class HandCompositor:
    """Places hands over one static image; sprites are drawn, lit and blurred once and reused."""

    def __init__(self, static: Static, scene: Scene):
        self.static = static
        self.scene = scene
        self.cam: Camera = static.cam
        self.k = self.cam.scale_at(SPRITE_HEIGHT_MM)
        self._sprites: dict = {}

    def _held_face(self, spec: hands.HandSpec):
        if spec.holding is None:
            return None, (0.0, 0.0)
        obj = spec.holding.get("object", "card")
        held = Item(obj=obj, card={k: v for k, v in spec.holding.items() if k != "object"}, x=0, y=0)
        w_mm, h_mm, _ = item_size(held, self.scene.design)
        card = _face_card(held)
        if obj == "card" and card.get("kind") == "number" and card.get("color") is None:
            heads = (self.scene.heads or {}).get(int(card["value"]))
            card["heads"] = int(heads or faces.default_heads(int(card["value"])))
        k = self.k * 1.15  # held things are nearer the camera than the hand's reference height
        return faces.face(card, self.scene.design, max(3, int(w_mm * k)), max(3, int(h_mm * k))), (w_mm, h_mm)

    def _sprite(self, spec: hands.HandSpec):
        looks = replace(spec, x=0.0, y=0.0, angle=0.0, height=0.0, holding=None)
        hkey = None if spec.holding is None else tuple(sorted(spec.holding.items()))
        key = (looks, hkey)
        if key not in self._sprites:
            face, card_mm = self._held_face(spec)
            hs = hands.hand_sprite(spec, self.k, face, card_mm)
            # Light the sprite once where the hand first appears: table light × camera gains, tone curve.
            gain = self._gain_at(spec)
            colour = hs.bgr
            if self.cam.spec.focus_sigma > 0.3:
                colour = cv2.GaussianBlur(colour, (0, 0), self.cam.spec.focus_sigma)
            toned = tone_float(colour * gain[None, None, :], self.cam.spec)
            alpha = hs.alpha
            if self.cam.spec.focus_sigma > 0.3:
                alpha = cv2.GaussianBlur(alpha, (0, 0), self.cam.spec.focus_sigma * 0.8)
            pre = np.ascontiguousarray(toned * alpha[..., None], dtype=np.float32)
            blurred = cv2.GaussianBlur(cv2.resize(hs.alpha, None, fx=0.25, fy=0.25, interpolation=cv2.INTER_AREA),
                                       (0, 0), self._shadow_sigma(spec) / 4.0 / self._scale_ratio(spec))
            self._sprites[key] = (hs, pre, alpha, blurred)
        return self._sprites[key]

    def _scale_ratio(self, spec) -> float:
        return self.cam.scale_at(spec.height) / self.k

    def _shadow_sigma(self, spec) -> float:
        return max(2.0, (self.scene.light.softness * spec.height * 0.6 + 4.0) * self.cam.scale_at(0))

    def _gain_at(self, spec) -> np.ndarray:
        cam, illum = self.cam, self.static.illum
        p = cam.project(np.array([[spec.x, spec.y]]), spec.height)[0]
        c = cam.H0_inv @ np.array([p[0], p[1], 1.0])
        cx = int(np.clip(c[0] / c[2], 0, illum.shape[1] - 1))
        cy = int(np.clip(c[1] / c[2], 0, illum.shape[0] - 1))
        g = illum[cy, cx] * self.static.illum_cast * np.float32(2.0 ** cam.spec.exposure_ev * self.static.exposure) \
            * np.asarray(cam.spec.wb_error, np.float32)
        return g.astype(np.float32)

    def layer(self, spec: hands.HandSpec, motion_px: tuple[float, float] = (0.0, 0.0)) -> HandLayer | None:
        """The hand placed as in `spec`; `motion_px` is its image motion during the exposure (blur)."""
        hs, pre, alpha, blurred = self._sprite(spec)
        cam = self.cam
        A = hands.sprite_to_image(hs, cam, spec)
        H, W = hs.alpha.shape
        corners = cv2.transform(np.array([[[0, 0]], [[W, 0]], [[W, H]], [[0, H]]], np.float32), A).reshape(-1, 2)
        box = _clip_box(corners, cam.w, cam.h, 2)
        if box is None:
            return None
        x0, y0, x1, y1 = box
        T = A.copy()
        T[:, 2] -= [x0, y0]
        size = (x1 - x0, y1 - y0)
        a = cv2.warpAffine(alpha, T, size, flags=cv2.INTER_LINEAR)
        c = cv2.warpAffine(pre, T, size, flags=cv2.INTER_LINEAR)
        length = math.hypot(*motion_px)
        if length > 2.5:  # a moving hand smears along its path during the exposure
            ker = motion_kernel(min(length, 40.0), math.degrees(math.atan2(motion_px[1], motion_px[0])))
            a = cv2.filter2D(a, -1, ker)
            c = cv2.filter2D(c, -1, ker)
        # Shadow: the outline moved along the light onto the table and shrunk to table scale.
        light = self.scene.light
        sv = shadow_vector(light.azimuth_deg, light.elevation_deg)
        ground = cam.project(np.array([[spec.x, spec.y], [spec.x + sv[0] * spec.height,
                                                          spec.y + sv[1] * spec.height]]), 0.0)
        S = A.copy()
        S[:, :2] *= (cam.D - spec.height) / cam.D
        wrist = np.array([(0 - hs.u0) * hs.k, (hs.v0 - 0) * hs.k])
        S[:, 2] = ground[1] - S[:, :2] @ wrist
        sc = cv2.transform(np.array([[[0, 0]], [[W, 0]], [[W, H]], [[0, H]]], np.float32), S).reshape(-1, 2)
        sigma = self._shadow_sigma(spec)
        sbox = _clip_box(sc, cam.w, cam.h, int(3 * sigma) + 2)
        if sbox is None:
            shadow, sbox = np.zeros((1, 1), np.float32), (0, 0, 1, 1)
        else:
            sx0, sy0, sx1, sy1 = sbox
            S4 = S.copy()
            S4[:, 2] -= [sx0, sy0]
            S4 = S4 / 4.0
            S4[:, :2] *= 4.0  # the blurred alpha is a quarter-size sprite
            small = cv2.warpAffine(blurred, S4, (max(1, (sx1 - sx0) // 4 + 1), max(1, (sy1 - sy0) // 4 + 1)),
                                   flags=cv2.INTER_LINEAR)
            m = cv2.resize(small, (sx1 - sx0, sy1 - sy0), interpolation=cv2.INTER_LINEAR)
            shadow = (np.float32((1.0 - light.ambient) * 0.75 + 0.08) * m).astype(np.float32)
        return HandLayer(c, a, box, shadow, sbox, (cam.w, cam.h))


def _clip_box(pts: np.ndarray, w: int, h: int, margin: int) -> tuple[int, int, int, int] | None:
    x0 = max(0, int(math.floor(pts[:, 0].min())) - margin)
    y0 = max(0, int(math.floor(pts[:, 1].min())) - margin)
    x1 = min(w, int(math.ceil(pts[:, 0].max())) + margin)
    y1 = min(h, int(math.ceil(pts[:, 1].max())) + margin)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def add_hand_truth(truth: dict, layer: HandLayer | None) -> dict:
    """Hand flag, covered share of the image, and which reported things the hand covers."""
    t = dict(truth)
    under: dict[str, list[int]] = {"cards": [], "tokens": [], "dice": []}
    if layer is None:
        t.update(hand=False, hand_mask_area=0.0, under_hand=under)
        return t
    w, h = layer.size
    x0, y0, x1, y1 = layer.box
    on = layer.alpha > 0.5
    area = float(on.sum()) / float(w * h)
    t["hand"] = area > 0.0005
    t["hand_mask_area"] = round(area, 5)
    for key in ("cards", "dice"):
        for i, e in enumerate(truth[key]):
            q = np.asarray(e["corners"], np.float64)
            bx0, by0 = max(x0, int(q[:, 0].min())), max(y0, int(q[:, 1].min()))
            bx1, by1 = min(x1, int(q[:, 0].max()) + 1), min(y1, int(q[:, 1].max()) + 1)
            if bx1 <= bx0 or by1 <= by0:
                continue
            poly = np.zeros((int(q[:, 1].max()) + 2 - int(q[:, 1].min()), int(q[:, 0].max()) + 2 - int(q[:, 0].min())),
                           np.uint8)
            ox, oy = int(q[:, 0].min()), int(q[:, 1].min())
            cv2.fillConvexPoly(poly, np.round((q - [ox, oy]) * 4).astype(np.int32), 1, cv2.LINE_8, 2)
            n = int(poly.sum())
            part = poly[by0 - oy: by1 - oy, bx0 - ox: bx1 - ox]
            covered = int((part & on[by0 - y0: by1 - y0, bx0 - x0: bx1 - x0]).sum())
            if n and covered / n > 0.15:
                under[key].append(i)
    for i, e in enumerate(truth["tokens"]):
        x, y = int(round(e["center"][0])), int(round(e["center"][1]))
        if x0 <= x < x1 and y0 <= y < y1 and on[y - y0, x - x0]:
            under["tokens"].append(i)
    t["under_hand"] = under
    return t


def finish(image: np.ndarray, cam: Camera, rng: np.random.Generator, bank: NoiseBank | None = None,
           fast: bool = False, compress: bool = True) -> np.ndarray:
    """Sensor noise and (optionally) JPEG compression."""
    if fast:
        out = add_noise_fast(image, cam.spec, rng, bank or noise_bank(cam.w, cam.h))
    else:
        out = add_noise(image, cam.spec, rng, bank)
    return jpeg(out, cam.spec.jpeg_quality) if compress else out
