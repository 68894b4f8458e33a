"""Hands and arms seen from above: palm down, fingers, thumb, nails, knuckles, sleeve, and a
card held between thumb and index. A hand is drawn once as a sprite in its own millimetre
frame (wrist at the origin, fingers toward +v) and then placed in the image by a similarity
transform per frame, with a soft shadow on the table below it."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np

from . import draw
from .draw import Colour

POSES = ("flat", "pinch", "point", "relaxed")

# Skin tones from very light to very dark (sRGB), jittered per hand.
_SKIN_RGB = [(250, 222, 200), (241, 200, 170), (228, 180, 142), (210, 158, 118), (190, 136, 98), (165, 112, 78),
             (140, 92, 62), (112, 72, 48), (88, 56, 38), (66, 42, 30)]


@dataclass(frozen=True)
class HandSpec:
    skin: Colour
    side: str = "right"  # right|left
    size: float = 1.0  # 1 = adult
    pose: str = "flat"
    spread: float = 6.0  # degrees between fingers
    curl: float = 0.1
    sleeve: Colour | None = (0.3, 0.2, 0.15)
    sleeve_start: float = 60.0  # mm from the wrist toward the elbow
    sleeve_style: str = "plain"  # plain|striped|knit
    sleeve_alt: Colour = (0.9, 0.9, 0.9)
    nail: Colour | None = None  # nail polish, if any
    arm_len: float = 700.0  # mm of arm drawn behind the wrist (enough to leave the image)
    # Placement (table frame, mm): wrist position, direction of the fingers, height above the table.
    x: float = 0.0
    y: float = 0.0
    angle: float = 0.0  # 0 = fingers toward -Y (up in the image); clockwise degrees
    height: float = 60.0
    holding: dict | None = None  # a card/tile/token dict held in the fingers
    holding_angle: float = 0.0  # its rotation relative to the hand (clockwise degrees)
    seed: int = 0


def random_hand(rng: np.random.Generator, **kw) -> HandSpec:
    base = _SKIN_RGB[int(rng.integers(0, len(_SKIN_RGB)))]
    j = rng.normal(0, 6, 3)
    r, g, b = (np.clip(np.array(base) + j, 0, 255) / 255.0).tolist()
    sleeve = None if rng.random() < 0.15 else draw.hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.8),
                                                        rng.uniform(0.1, 0.9))
    spec = HandSpec(
        skin=(b, g, r),
        side=str(rng.choice(["right", "left"], p=[0.8, 0.2])),
        size=float(rng.uniform(0.78, 1.1)),
        pose=str(rng.choice(POSES, p=[0.35, 0.3, 0.15, 0.2])),
        spread=float(rng.uniform(2, 14)),
        curl=float(rng.uniform(0.0, 0.45)),
        sleeve=sleeve,
        sleeve_start=float(rng.uniform(25, 220)),
        sleeve_style=str(rng.choice(["plain", "striped", "knit"], p=[0.6, 0.2, 0.2])),
        sleeve_alt=draw.hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.6), rng.uniform(0.5, 0.95)),
        nail=draw.hsv(rng.uniform(330, 360), 0.7, 0.7) if rng.random() < 0.1 else None,
        seed=int(rng.integers(0, 2**31)),
    )
    return replace(spec, **kw)


@dataclass(frozen=True)
class HandSprite:
    bgr: np.ndarray  # float32, albedo (before light)
    alpha: np.ndarray  # float32
    k: float  # sprite px per mm
    u0: float  # mm coordinates of sprite pixel (0, 0): u = u0 + col / k, v = v0 - row / k
    v0: float


def _chaikin(pts: np.ndarray, iterations: int = 3, closed: bool = True) -> np.ndarray:
    """Smooth a polygon by corner cutting (organic outlines from a few control points)."""
    p = np.asarray(pts, float)
    for _ in range(iterations):
        q = np.roll(p, -1, axis=0) if closed else p[1:]
        a = p if closed else p[:-1]
        new = np.empty((2 * len(a), 2))
        new[0::2] = 0.75 * a + 0.25 * q
        new[1::2] = 0.25 * a + 0.75 * q
        p = new if closed else np.vstack([p[:1], new, p[-1:]])
    return p


def _capsule(u0, v0, u1, v1, w0, w1, n=10):
    """Outline of a finger from (u0, v0) to (u1, v1): tapering, slightly fuller at the joints, round tip."""
    d = np.array([u1 - u0, v1 - v0], float)
    L = float(np.hypot(*d)) or 1.0
    d /= L
    p = np.array([-d[1], d[0]])
    ts = np.linspace(0, 1, 14)
    width = (w0 + (w1 - w0) * ts) * (1 + 0.06 * np.exp(-((ts - 0.42) / 0.07) ** 2) + 0.05 * np.exp(
        -((ts - 0.77) / 0.06) ** 2))
    tip_r = width[-1] / 2
    axis = [np.array([u0, v0]) + d * (L - tip_r) * t for t in ts]
    left = [a + p * w / 2 for a, w in zip(axis, width, strict=True)]
    right = [a - p * w / 2 for a, w in zip(axis, width, strict=True)]
    a0 = math.atan2(p[1], p[0])
    cap = [axis[-1] + np.array([math.cos(a0 - math.pi * i / n), math.sin(a0 - math.pi * i / n)]) * tip_r
           for i in range(1, n)]
    base_r = width[0] / 2
    heel = [axis[0] + np.array([math.cos(a0 + math.pi * i / n), math.sin(a0 + math.pi * i / n)]) * base_r
            for i in range(1, n)]
    return np.array(left + cap + right[::-1] + heel[::-1])


def _fingers(spec: HandSpec):
    """(name, base, tip, w0, w1) for the four fingers and the thumb, in hand mm (right hand)."""
    s = spec.size
    curl = {"flat": [0.0] * 4, "pinch": [0.25, 0.45, 0.55, 0.6], "point": [0.0, 0.85, 0.85, 0.85],
            "relaxed": [0.25, 0.3, 0.35, 0.4]}[spec.pose]
    curl = [min(0.9, c + spec.curl * 0.6) for c in curl]
    base = [(-25, 88), (-7, 94), (11, 90), (28, 78)]
    length = [72, 80, 75, 58]
    width = [(18.5, 15.5), (19, 16), (17.5, 14.5), (15, 12.5)]
    ang = [-6 - spec.spread, 0 - 0.3 * spec.spread, 6 + 0.4 * spec.spread, 14 + spec.spread]
    if spec.pose == "pinch":
        ang[0] = -14
    out = []
    for i, name in enumerate(("index", "middle", "ring", "little")):
        a = math.radians(ang[i])
        L = length[i] * (1.0 - 0.5 * curl[i])
        bu, bv = base[i]
        out.append((name, (bu * s, bv * s), ((bu + L * math.sin(a)) * s, (bv + L * math.cos(a)) * s),
                    width[i][0] * s, width[i][1] * s))
    if spec.pose == "pinch":
        tip_i = out[0][2]
        tb = (-28 * s, 30 * s)
        tu, tv = tip_i[0] + 2 * s, tip_i[1] - 22 * s
        out.append(("thumb", tb, (tu, tv), 23 * s, 18 * s))
    else:
        ta = math.radians({"flat": -52, "point": -15, "relaxed": -35}[spec.pose])
        tl = {"flat": 64, "point": 52, "relaxed": 58}[spec.pose]
        tb = (-27 * s, 26 * s)
        tl += 8
        out.append(("thumb", tb, (tb[0] + tl * s * math.sin(ta), tb[1] + tl * s * math.cos(ta)), 25 * s, 19 * s))
    return out


def held_centre(spec: HandSpec, card_mm: tuple[float, float]) -> tuple[float, float]:
    """Centre of a held card in hand mm (u right, v toward the fingers), for this hand's side."""
    tip = _fingers(spec)[0][2]
    cw, ch = card_mm
    cu, cv_ = tip[0] - 0.15 * cw, tip[1] + 0.5 * min(ch, cw * 1.6) - 12
    return (cu, cv_) if spec.side == "right" else (-cu, cv_)


def hand_sprite(spec: HandSpec, k: float, card_face: tuple[np.ndarray, np.ndarray] | None = None,
                card_mm: tuple[float, float] = (0.0, 0.0)) -> HandSprite:
    """Draw the hand (and the held card) at k px per mm. Cached on the spec's looks, not its placement."""
    looks = replace(spec, x=0.0, y=0.0, angle=0.0, height=0.0, holding=None)
    key_face = None if card_face is None else (id(card_face[0]), card_face[0].shape)
    return _sprite_cached(looks, round(k, 3), key_face, card_face, card_mm)


_SPRITES: dict = {}


def _sprite_cached(spec, k, key_face, card_face, card_mm) -> HandSprite:
    key = (spec, k, key_face, card_mm)
    if key not in _SPRITES:
        if len(_SPRITES) > 6:
            _SPRITES.clear()
        _SPRITES[key] = _draw_hand(spec, k, card_face, card_mm)
    return _SPRITES[key]


class _Painter:
    """Paints shapes into a large sprite, touching only each shape's bounding box."""

    def __init__(self, H: int, W: int):
        self.img = np.zeros((H, W, 3), np.float32)
        self.alpha = np.zeros((H, W), np.float32)
        self.H, self.W = H, W

    def box(self, pts: np.ndarray, pad: float = 3.0):
        x0 = max(0, int(pts[:, 0].min() - pad))
        y0 = max(0, int(pts[:, 1].min() - pad))
        x1 = min(self.W, int(pts[:, 0].max() + pad) + 1)
        y1 = min(self.H, int(pts[:, 1].max() + pad) + 1)
        return (x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None

    def poly(self, pts: np.ndarray):
        b = self.box(pts)
        if b is None:
            return None, None
        x0, y0, x1, y1 = b
        return draw.polygon(y1 - y0, x1 - x0, pts - [x0, y0]), b

    def ellipse(self, cx, cy, rx, ry, ang=0.0):
        r = max(rx, ry)
        b = self.box(np.array([[cx - r, cy - r], [cx + r, cy + r]]))
        if b is None:
            return None, None
        x0, y0, x1, y1 = b
        return draw.ellipse(y1 - y0, x1 - x0, cx - x0, cy - y0, rx, ry, ang), b

    def lay(self, mask, b, colour, width_px: float, shade: bool = True, opacity: float = 1.0, clip=None):
        if mask is None:
            return
        x0, y0, x1, y1 = b
        if clip is not None:
            mask = mask * clip[y0:y1, x0:x1]
        col = np.asarray(colour, np.float32)
        if shade:
            d = cv2.distanceTransform((mask > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
            t = np.clip(d / max(1.0, 0.5 * width_px), 0, 1)
            layer = col[None, None, :] * (0.74 + 0.26 * np.sqrt(t))[..., None]
        else:
            layer = col[None, None, :]
        m = mask[..., None] * np.float32(opacity)
        sub = self.img[y0:y1, x0:x1]
        sub *= 1 - m
        sub += layer * m
        if opacity >= 0.999:
            np.maximum(self.alpha[y0:y1, x0:x1], mask, out=self.alpha[y0:y1, x0:x1])


def _draw_hand(spec: HandSpec, k: float, card_face, card_mm) -> HandSprite:
    rng = np.random.default_rng(spec.seed)
    s = spec.size
    fingers = _fingers(spec)
    umin, umax = -75 * s, 70 * s
    vmax, vmin = 200 * s, -spec.arm_len
    if card_face is not None:
        umin, umax, vmax = min(umin, -110.0), max(umax, 80.0), max(vmax, 150 * s + card_mm[1])
    W = int((umax - umin) * k) + 2
    H = int((vmax - vmin) * k) + 2

    def px(pts):
        p = np.asarray(pts, float).reshape(-1, 2)
        return np.stack([(p[:, 0] - umin) * k, (vmax - p[:, 1]) * k], axis=1)

    P = _Painter(H, W)
    blush = draw.mix(spec.skin, draw.hsv(355, 0.5, 0.7), 0.18)

    # Held card: under the fingers, between thumb and index.
    if card_face is not None:
        cb, ca = card_face
        if spec.side == "left":  # the whole sprite is mirrored at the end: pre-mirror the card
            cb, ca = cb[:, ::-1], ca[:, ::-1]
        cw, ch = card_mm
        cu, cv_ = held_centre(spec, card_mm)
        centre = (cu if spec.side == "right" else -cu, cv_)
        ang = math.radians(-spec.holding_angle if spec.side == "right" else spec.holding_angle)
        local = np.array([[-cw / 2, ch / 2], [cw / 2, ch / 2], [cw / 2, -ch / 2], [-cw / 2, -ch / 2]])
        rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
        quad = px(local @ rot.T + centre)
        b = P.box(quad)
        if b is not None:
            x0, y0, x1, y1 = b
            h, w = ca.shape
            src = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]], np.float32)
            M = cv2.getPerspectiveTransform(src, (quad - [x0, y0]).astype(np.float32))
            a = cv2.warpPerspective(ca, M, (x1 - x0, y1 - y0))
            c = cv2.warpPerspective(np.ascontiguousarray(cb * ca[..., None]), M, (x1 - x0, y1 - y0))
            sub = P.img[y0:y1, x0:x1]
            sub *= 1 - a[..., None]
            sub += c
            np.maximum(P.alpha[y0:y1, x0:x1], a, out=P.alpha[y0:y1, x0:x1])

    # All skin parts first, as one shape: shading from the distance to its outline rounds the
    # arm, palm and each finger without seams where they join.
    aw = 30 * s
    skin_mask = np.zeros((H, W), np.float32)

    def add(pts):
        m, b = P.poly(px(pts))
        if m is not None:
            x0, y0, x1, y1 = b
            np.maximum(skin_mask[y0:y1, x0:x1], m, out=skin_mask[y0:y1, x0:x1])

    add(np.array([(-aw, 10 * s), (aw, 10 * s), (aw * 1.3, -230 * s), (aw * 1.45, vmin), (-aw * 1.45, vmin),
                  (-aw * 1.3, -230 * s)]))
    add(_chaikin(np.array([(-29, -6), (0, -8), (29, -6), (37, 30), (39, 62), (34, 82), (14, 95), (-6, 99),
                           (-26, 95), (-37, 80), (-42, 52), (-36, 18)]) * s))
    for _name, (bu, bv), (tu, tv), w0, w1 in fingers:
        add(_capsule(bu, bv, tu, tv, w0, w1))
    ys, xs = np.nonzero(skin_mask > 0.02)
    if len(ys):
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        m = skin_mask[y0:y1, x0:x1]
        d = cv2.distanceTransform((m > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
        t = np.clip(d / max(1.0, 9.0 * s * k), 0, 1)
        shade = 0.7 + 0.3 * np.sqrt(t)
        # Light from one side across the whole hand, and a little sheen along the knuckles.
        col = np.asarray(spec.skin, np.float32)[None, None, :] * shade[..., None]
        sub = P.img[y0:y1, x0:x1]
        sub *= 1 - m[..., None]
        sub += col * m[..., None]
        np.maximum(P.alpha[y0:y1, x0:x1], m, out=P.alpha[y0:y1, x0:x1])
    if spec.sleeve is not None:
        _sleeve(P, spec, rng, px, k, aw, vmin, vmax)
    # Back of the hand: a touch of colour, faint knuckle shading.
    palm = px(_chaikin(np.array([(-24, 4), (24, 4), (33, 40), (30, 80), (-30, 82), (-36, 40)]) * s))
    m, b = P.poly(palm)
    P.lay(m, b, blush, 0, shade=False, opacity=0.06)
    for _, (bu, bv), _, w0, _ in fingers[:4]:
        c = px([(bu, bv - 2 * s)])[0]
        mm, bb = P.ellipse(c[0], c[1], 0.4 * w0 * k, 0.3 * w0 * k)
        if mm is not None:
            mm = cv2.GaussianBlur(mm, (0, 0), max(0.5, 0.15 * w0 * k))
        P.lay(mm, bb, draw.scale_colour(spec.skin, 1.1), 0, shade=False, opacity=0.35)

    nail_col = spec.nail if spec.nail is not None else draw.mix(spec.skin, (0.85, 0.82, 0.95), 0.45)
    crease_col = draw.scale_colour(spec.skin, 0.72)
    for name, (bu, bv), (tu, tv), w0, w1 in [fingers[4]] + fingers[:4]:
        fm, fb = P.poly(px(_capsule(bu, bv, tu, tv, w0, w1)))
        if fm is None:
            continue
        if name in ("index", "little") or (name == "thumb" and spec.pose != "pinch"):  # faint edge over others
            edge = np.clip(fm - cv2.erode(fm, np.ones((3, 3), np.uint8)), 0, 1)
            P.lay(edge, fb, crease_col, 0, shade=False, opacity=0.25)
        L = math.hypot(tu - bu, tv - bv)
        du, dv = (tu - bu) / max(L, 1e-6), (tv - bv) / max(L, 1e-6)
        ang = math.degrees(math.atan2(-dv, du))
        for f in ((0.45, 0.78) if name != "thumb" else (0.55,)):
            c = px([(bu + du * L * f, bv + dv * L * f)])[0]
            perp = np.array([math.cos(math.radians(ang + 90)), math.sin(math.radians(ang + 90))])
            for off in (-0.6, 0.6):
                pts = np.array([c - perp * w1 * 0.28 * k + np.array([du, -dv]) * off * k, c + np.array([du, -dv]) *
                                (off + 0.5) * k, c + perp * w1 * 0.28 * k + np.array([du, -dv]) * off * k])
                bb = P.box(pts)
                if bb is not None:
                    x0, y0, x1, y1 = bb
                    line = draw.polyline(y1 - y0, x1 - x0, pts - [x0, y0], max(1.0, 0.5 * k))
                    P.lay(line, bb, crease_col, 0, shade=False, opacity=0.22)
        nl = (0.17 * L if name != "thumb" else 0.3 * L) * (1.0 - 0.4 * spec.curl)
        nw = w1 * 0.62
        dvec, pvec = np.array([du, dv]), np.array([-dv, du])
        tipc = np.array([tu, tv]) - dvec * (w1 / 2)
        nail = np.array([tipc + dvec * (w1 * 0.42) + pvec * nw / 2 * 0.9, tipc + dvec * (w1 * 0.42),
                         tipc + dvec * (w1 * 0.42) - pvec * nw / 2 * 0.9, tipc - dvec * nl - pvec * nw / 2,
                         tipc - dvec * nl + pvec * nw / 2])
        mm, bb = P.poly(px(_chaikin(nail, 2)))
        P.lay(mm, bb, nail_col, 0, shade=False, opacity=0.65)
        c = px([(tu - du * 6 * s, tv - dv * 6 * s)])[0]
        mm, bb = P.ellipse(c[0], c[1], w1 * 0.6 * k, w1 * 0.6 * k)
        if mm is not None:
            mm = cv2.GaussianBlur(mm, (0, 0), max(0.5, 0.2 * w1 * k)) * fm[bb[1] - fb[1]: bb[3] - fb[1],
                                                                             bb[0] - fb[0]: bb[2] - fb[0]] \
                if _inside_box(bb, fb) else mm
        P.lay(mm, bb, blush, 0, shade=False, opacity=0.2)
    img, alpha = P.img, P.alpha
    # Skin texture (only where there is hand).
    ys, xs = np.nonzero(alpha > 0)
    if len(ys):
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        grain = cv2.GaussianBlur(rng.normal(0, 0.025, (y1 - y0, x1 - x0)).astype(np.float32), (0, 0), 0.8)
        img[y0:y1, x0:x1] *= (1.0 + grain)[..., None]
    np.clip(img, 0, 1, out=img)
    if spec.side == "left":
        img = img[:, ::-1].copy()
        alpha = alpha[:, ::-1].copy()
        umin, umax = -umax, -umin
    img.setflags(write=False)
    alpha.setflags(write=False)
    return HandSprite(img, alpha, k, umin, vmax)


def _inside_box(inner, outer) -> bool:
    return inner[0] >= outer[0] and inner[1] >= outer[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def _sleeve(P: _Painter, spec: HandSpec, rng, px, k: float, aw: float, vmin: float, vmax: float) -> None:
    st = -spec.sleeve_start
    sw = aw * 1.25 + rng.uniform(4, 12)
    outline = []
    for v in np.linspace(st, vmin, 24):
        outline.append((sw + (st - v) * 0.05 + rng.uniform(-2.5, 2.5), v))
    outline += [(-x + rng.uniform(-2, 2), v) for x, v in reversed(outline)]
    m, b = P.poly(px(outline))
    if m is None:
        return
    x0, y0, x1, y1 = b
    col = np.asarray(spec.sleeve, np.float32)
    d = cv2.distanceTransform((m > 0.5).astype(np.uint8), cv2.DIST_L2, 3)
    f = 0.62 + 0.38 * np.sqrt(np.clip(d / max(1.0, sw * k), 0, 1))
    rows = np.arange(y0, y1, dtype=np.float32)[:, None]
    fold = 1.0 + 0.09 * np.sin(rows / (k * rng.uniform(9, 16)) + rng.uniform(0, 6)) * np.sin(
        rows / (k * rng.uniform(30, 60)))
    shade = (f * fold)[..., None]
    layer = col[None, None, :] * shade
    if spec.sleeve_style == "striped":
        stripe = (np.sin(rows / (k * rng.uniform(4, 9))) > 0.2).astype(np.float32)[..., None]
        layer = layer * (1 - stripe) + np.asarray(spec.sleeve_alt, np.float32) * shade * stripe
    elif spec.sleeve_style == "knit":
        cols = np.arange(x0, x1, dtype=np.float32)[None, :]
        layer = layer * (1.0 + 0.06 * np.sin(cols / (1.2 * k)) * np.sin(rows / (1.0 * k)))[..., None]
    cuff = np.clip(1.0 - np.abs(rows - (vmax - st) * k - 6 * k) / (6 * k), 0, 1)
    layer = layer * (1.0 - 0.12 * cuff)[..., None]
    sub = P.img[y0:y1, x0:x1]
    sub *= 1 - m[..., None]
    sub += layer * m[..., None]
    np.maximum(P.alpha[y0:y1, x0:x1], m, out=P.alpha[y0:y1, x0:x1])


def sprite_to_image(hs: HandSprite, cam, spec: HandSpec) -> np.ndarray:
    """2×3 affine: sprite pixels -> undistorted image pixels, for the hand placed as in `spec`."""
    # Three reference points in hand mm -> table mm -> image.
    a = math.radians(spec.angle)
    ca, sa = math.cos(a), math.sin(a)

    def table(u, v):  # fingers (+v) toward -Y when angle = 0, turned clockwise by angle
        x = u * ca + v * sa
        y = u * sa - v * ca
        return (spec.x + x, spec.y + y)

    ref_mm = [(0.0, 0.0), (100.0, 0.0), (0.0, 100.0)]
    src = np.array([((u - hs.u0) * hs.k, (hs.v0 - v) * hs.k) for u, v in ref_mm], np.float32)
    dst = cam.project(np.array([table(u, v) for u, v in ref_mm]), spec.height).astype(np.float32)
    return cv2.getAffineTransform(src, dst)
