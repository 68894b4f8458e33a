"""Frames of a table while people play: a hand comes in from a table edge, places a card (or
moves a token, or rolls the die), and leaves; with per-frame truth.

The table is rendered once per state (before, while an item is lifted, after) and each frame
only composites the moving hand, its shadow and fresh sensor noise over that image, so the
simulated camera keeps up with live play. Frames are yielded lazily at `fps`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from . import faces, hands
from .arrange import random_hand_over
from .camera import Camera
from .optics import noise_bank, shadow_vector, tone_float
from .overlay import HandCompositor, add_hand_truth, finish
from .scene import Item, Scene, Static, _face_card, item_size, render_static


@dataclass
class Change:
    """One physical change of the table.

    kind "add": put `item` on the table (the hand brings it in).
    kind "move": take the item tagged `tag` (or at `index`) to (x, y[, angle, square, z]).
    kind "remove": take the item tagged `tag` (or at `index`) away.
    kind "roll": throw the die tagged `tag` (or the first die); it lands at (x, y) showing `value`.
    """

    kind: str
    item: Item | None = None
    tag: str | None = None
    index: int | None = None
    x: float | None = None
    y: float | None = None
    angle: float | None = None
    square: str | int | None = None
    z: float | None = None
    value: int | str | None = None


@dataclass
class Frame:
    index: int
    t: float  # seconds since the start
    image: np.ndarray
    truth: dict  # scene truth (what lies on the table now) + hand, settled, phase, held
    phase: str = "idle"


@dataclass
class _Plan:
    """Wrist positions (table mm) and heights, frame by frame, for one change."""

    path: list[tuple[float, float, float]] = field(default_factory=list)


class SequenceRenderer:
    """Render frames of `scene` while `changes` are played on it.

    `fps` frames per second; `hand_speed` in mm/s; `settle_frames` still frames after each
    change (and before the first); `compress` adds JPEG per frame (off for a live camera);
    `fast_noise` uses signal-independent noise (cheaper).
    """

    def __init__(self, scene: Scene, fps: float = 15.0, seed: int | None = None, hand_speed: float = 700.0,
                 settle_frames: int = 6, compress: bool = False, fast_noise: bool = True):
        self.scene = scene.copy()
        self.fps = float(fps)
        self.rng = np.random.default_rng(seed if seed is not None else scene.seed + 1)
        self.hand_speed = float(hand_speed)
        self.settle_frames = int(settle_frames)
        self.compress = compress
        self.fast_noise = fast_noise
        self._frame = 0
        self._static: Static | None = None
        self._comp: HandCompositor | None = None
        self._bank = noise_bank(*scene.size)
        self.hand = hands.random_hand(self.rng)

    # -- state -------------------------------------------------------------------------
    def _rebuild(self) -> None:
        self._static = render_static(self.scene)
        self._comp = HandCompositor(self._static, self.scene)

    @property
    def static(self) -> Static:
        if self._static is None:
            self._rebuild()
        assert self._static is not None
        return self._static

    def _find(self, ch: Change) -> int:
        if ch.tag is not None:
            for i, it in enumerate(self.scene.items):
                if it.tag == ch.tag:
                    return i
            raise KeyError(f"no item tagged {ch.tag!r} in the scene")
        if ch.index is not None:
            if not 0 <= ch.index < len(self.scene.items):
                raise IndexError(f"item index {ch.index} out of range")
            return ch.index
        if ch.kind == "roll":
            for i, it in enumerate(self.scene.items):
                if it.obj == "die":
                    return i
            raise KeyError("no die in the scene to roll")
        raise ValueError(f"change {ch.kind!r} needs a tag or an index")

    # -- frames ------------------------------------------------------------------------
    def _emit(self, phase: str, hand_spec: hands.HandSpec | None, held: dict | None, settled: bool,
              extra: list | None = None, motion_mm: tuple[float, float] = (0.0, 0.0)) -> Frame:
        st = self.static
        image = st.image
        layer = None
        if extra:
            for draw_fn in extra:
                image = draw_fn(image)
        if hand_spec is not None:
            assert self._comp is not None
            # Exposure ~ half the frame interval: the hand moves half its per-frame step while exposed.
            px = self.static.cam.scale_at(hand_spec.height) * 0.5
            layer = self._comp.layer(hand_spec, (motion_mm[0] * px, motion_mm[1] * px))
            if layer is not None:
                image = layer.composite(image)
        truth = add_hand_truth(st.truth, layer)
        # Settled: nothing over the table and nothing moving, whatever the phase of the change.
        truth["settled"] = bool(not truth["hand"] and not extra)
        truth["phase"] = phase
        truth["held"] = held
        truth["frame"] = self._frame
        rng = np.random.default_rng([self.scene.seed, 1000003, self._frame])
        out = finish(image, st.cam, rng, self._bank, fast=self.fast_noise, compress=self.compress)
        f = Frame(self._frame, self._frame / self.fps, out, truth, phase)
        self._frame += 1
        return f

    def idle(self, n: int | None = None) -> Iterator[Frame]:
        """Still frames of the current table (no hand)."""
        for k in range(self.settle_frames if n is None else n):
            yield self._emit("idle", None, None, settled=k >= 0)

    def play(self, changes: list[Change], lead_in: bool = True) -> Iterator[Frame]:
        """Frames for all changes, each followed by still frames."""
        if lead_in:
            yield from self.idle()
        for ch in changes:
            yield from self._change(ch)
            yield from self.idle()

    def _change(self, ch: Change) -> Iterator[Frame]:
        if ch.kind == "add":
            if ch.item is None:
                raise ValueError("an 'add' change needs an item")
            yield from self._carry_in(replace(ch.item, card=dict(ch.item.card)))
        elif ch.kind in ("move", "remove"):
            yield from self._move(ch)
        elif ch.kind == "roll":
            yield from self._roll(ch)
        else:
            raise ValueError(f"unknown change kind {ch.kind!r}; expected add, move, remove or roll")

    # -- hand paths --------------------------------------------------------------------
    def _view_box(self) -> tuple[np.ndarray, np.ndarray]:
        cam = Camera(self.scene.camera, self.scene.size)
        c = cam.image_to_table(np.array([[0, 0], [cam.w - 1, 0], [cam.w - 1, cam.h - 1], [0, cam.h - 1]], float))
        return c.min(axis=0), c.max(axis=0)

    def _spec_towards(self, target: tuple[float, float], holding: dict | None = None,
                      held_angle: float | None = None, item_angle: float | None = None) -> hands.HandSpec:
        base = random_hand_over(self.rng, self.scene, target=target)
        spec = replace(self.hand, angle=base.angle, arm_len=base.arm_len + 400.0, x=target[0], y=target[1],
                       holding=holding, pose="pinch" if holding is not None else str(
                           self.rng.choice(["flat", "relaxed", "pinch"])))
        if holding is not None and item_angle is not None:
            spec = replace(spec, holding_angle=float(item_angle - spec.angle))
        return spec

    def _wrist_for(self, spec: hands.HandSpec, item_xy: tuple[float, float], mm: tuple[float, float]):
        """Wrist position that puts the held item's centre at item_xy."""
        cu, cv_ = hands.held_centre(spec, mm)
        a = math.radians(spec.angle)
        dx = cu * math.cos(a) + cv_ * math.sin(a)
        dy = cu * math.sin(a) - cv_ * math.cos(a)
        return item_xy[0] - dx, item_xy[1] - dy

    def _entry(self, spec: hands.HandSpec) -> tuple[float, float]:
        """Wrist position, back along the arm, where the whole hand is just outside the view."""
        lo, hi = self._view_box()
        lo, hi = lo - 40.0, hi + 40.0
        a = math.radians(spec.angle)
        back = np.array([-math.sin(a), math.cos(a)])
        reach = 230.0 * spec.size + (120.0 if spec.holding is not None else 0.0)  # wrist to the farthest fingertip
        p = np.array([spec.x, spec.y], float)
        for _ in range(400):
            tip = p - back * reach
            if not (lo[0] <= tip[0] <= hi[0] and lo[1] <= tip[1] <= hi[1]) and not (
                    lo[0] <= p[0] <= hi[0] and lo[1] <= p[1] <= hi[1]):
                break
            p = p + back * 10.0
        return float(p[0]), float(p[1])

    def _travel(self, spec: hands.HandSpec, a: tuple[float, float, float], b: tuple[float, float, float],
                phase: str, held: dict | None) -> Iterator[Frame]:
        """Move the wrist from a to b (x, y, height) with ease-in-out at hand speed."""
        dist = math.hypot(b[0] - a[0], b[1] - a[1]) + abs(b[2] - a[2])
        n = max(2, int(math.ceil(dist / self.hand_speed * self.fps)))
        prev = a
        for k in range(1, n + 1):
            t = k / n
            e = t * t * (3 - 2 * t)
            x, y, h = (a[i] + (b[i] - a[i]) * e for i in range(3))
            yield self._emit(phase, replace(spec, x=x, y=y, height=h), held, settled=False,
                             motion_mm=(x - prev[0], y - prev[1]))
            prev = (x, y, h)

    def _carry_in(self, item: Item) -> Iterator[Frame]:
        holding = dict(item.card)
        holding["object"] = item.obj
        w, h, _ = item_size(item, self.scene.design)
        spec = self._spec_towards((item.x, item.y), holding, item_angle=item.angle)
        wx, wy = self._wrist_for(spec, (item.x, item.y), (w, h))
        spec = replace(spec, x=wx, y=wy)
        ex, ey = self._entry(spec)
        carry_h = float(self.rng.uniform(50, 110))
        low_h = max(8.0, item.z + 6.0)
        public = dict(item.card.items())
        yield from self._travel(spec, (ex, ey, carry_h), (wx, wy, carry_h), "enter", public)
        yield from self._travel(spec, (wx, wy, carry_h), (wx, wy, low_h), "place", public)
        # Release: the item is on the table from now on.
        self.scene.items.append(item)
        self._rebuild()
        empty = replace(spec, holding=None, pose="flat")
        yield from self._travel(empty, (wx, wy, low_h), (wx, wy, low_h + 25), "release", None)
        yield from self._travel(empty, (wx, wy, low_h + 25), (ex, ey, carry_h), "leave", None)

    def _move(self, ch: Change) -> Iterator[Frame]:
        i = self._find(ch)
        item = self.scene.items[i]
        w, h, _ = item_size(item, self.scene.design)
        # Reach the item with an open hand.
        spec = self._spec_towards((item.x, item.y))
        reach = replace(spec, pose="pinch")
        wx, wy = self._wrist_for(reach, (item.x, item.y), (w, h))
        ex, ey = self._entry(reach)
        carry_h = float(self.rng.uniform(50, 110))
        yield from self._travel(reach, (ex, ey, carry_h), (wx, wy, 15.0), "enter", None)
        # Pick it up.
        del self.scene.items[i]
        self._rebuild()
        holding = dict(item.card)
        holding["object"] = item.obj
        public = dict(item.card)
        if ch.kind == "remove":
            spec2 = replace(reach, holding=holding, holding_angle=float(item.angle - reach.angle))
            yield from self._travel(spec2, (wx, wy, 15.0), (ex, ey, carry_h), "leave", public)
            return
        tx = item.x if ch.x is None else float(ch.x)
        ty = item.y if ch.y is None else float(ch.y)
        ta = item.angle if ch.angle is None else float(ch.angle)
        moved = replace(item, x=tx, y=ty, angle=ta, square=ch.square if ch.square is not None else item.square,
                        z=item.z if ch.z is None else float(ch.z), card=dict(item.card))
        spec2 = replace(reach, holding=holding, holding_angle=float(ta - reach.angle))
        twx, twy = self._wrist_for(spec2, (tx, ty), (w, h))
        yield from self._travel(spec2, (wx, wy, 15.0), (twx, twy, carry_h * 0.6), "carry", public)
        yield from self._travel(spec2, (twx, twy, carry_h * 0.6), (twx, twy, max(8.0, moved.z + 6)), "place", public)
        self.scene.items.insert(i, moved)
        self._rebuild()
        empty = replace(spec2, holding=None, pose="flat", x=twx, y=twy)
        yield from self._travel(empty, (twx, twy, 14.0), (ex, ey, carry_h), "leave", None)

    def _roll(self, ch: Change) -> Iterator[Frame]:
        i = self._find(ch)
        die = self.scene.items[i]
        lo, hi = self._view_box()
        tx = float(ch.x) if ch.x is not None else float(self.rng.uniform(lo[0] * 0.7, hi[0] * 0.7))
        ty = float(ch.y) if ch.y is not None else float(self.rng.uniform(lo[1] * 0.7, hi[1] * 0.7))
        value = ch.value if ch.value is not None else [1, 2, 3, 4, 5, "star"][int(self.rng.integers(0, 6))]
        # The hand picks the die up, then throws it toward the landing point.
        yield from self._move(Change("remove", index=i))
        spec = self._spec_towards((tx, ty))
        throw_from = (tx + float(self.rng.normal(0, 60)), ty + float(self.rng.normal(0, 60)))
        spec = replace(spec, x=throw_from[0], y=throw_from[1], pose="relaxed")
        ex, ey = self._entry(spec)
        yield from self._travel(spec, (ex, ey, 90.0), (throw_from[0], throw_from[1], 70.0), "enter", None)
        faces_ = [1, 2, 3, 4, 5, "star"]
        n = max(6, int(0.6 * self.fps))
        for k in range(n):
            t = (k + 1) / n
            x = throw_from[0] + (tx - throw_from[0]) * t
            y = throw_from[1] + (ty - throw_from[1]) * t
            hgt = 40.0 * abs(math.sin(t * math.pi * 2.0)) * (1 - t)
            shown = faces_[int(self.rng.integers(0, 6))]
            fly = replace(die, x=x, y=y, z=hgt, angle=float(self.rng.uniform(0, 360)), card={"value": shown})
            out_t = t
            leave = replace(spec, x=throw_from[0] + (ex - throw_from[0]) * out_t * 0.5,
                            y=throw_from[1] + (ey - throw_from[1]) * out_t * 0.5, height=70.0 + 40 * out_t)
            yield self._emit("roll", leave, None, settled=False, extra=[self._flying(fly, blur=(1 - t) * 14)])
        landed = replace(die, x=tx, y=ty, z=0.0, angle=float(self.rng.uniform(0, 360)), card={"value": value})
        self.scene.items.append(landed)
        self._rebuild()
        yield from self._travel(replace(spec, height=110.0), (throw_from[0] + (ex - throw_from[0]) * 0.5,
                                                              throw_from[1] + (ey - throw_from[1]) * 0.5, 110.0),
                                (ex, ey, 120.0), "leave", None)

    def _flying(self, item: Item, blur: float):
        """A draw function compositing a moving piece (with motion blur and a shadow) over an image."""
        st = self.static
        cam = st.cam
        scene = self.scene

        def fn(image: np.ndarray) -> np.ndarray:
            w, h, thick = item_size(item, scene.design)
            k = cam.scale_at(item.z + thick)
            wp, hp = max(3, int(w * k)), max(3, int(h * k))
            bgr, alpha = faces.face(_face_card(item), scene.design, wp, hp)
            from .compose import rect_mm, sprite_homography

            corners = rect_mm(w, h, item.x, item.y, item.angle)
            quad = cam.distort(cam.project(corners, item.z + thick))
            M = sprite_homography(wp, hp, quad)
            out = image.copy()
            sv = shadow_vector(scene.light.azimuth_deg, scene.light.elevation_deg)
            sq = cam.distort(cam.project(corners + np.array(sv) * (item.z + thick), 0.0))
            Ms = sprite_homography(wp, hp, sq)
            sh = cv2.warpPerspective(alpha, Ms, (cam.w, cam.h))
            sh = cv2.GaussianBlur(sh, (0, 0), 2 + 0.2 * item.z)
            a = cv2.warpPerspective(alpha, M, (cam.w, cam.h))
            gain = st.illum[st.illum.shape[0] // 2, st.illum.shape[1] // 2] * st.illum_cast * np.float32(
                2.0 ** cam.spec.exposure_ev * st.exposure) * np.asarray(cam.spec.wb_error, np.float32)
            c = cv2.warpPerspective(np.ascontiguousarray(tone_float(bgr * gain, cam.spec) * alpha[..., None]), M,
                                    (cam.w, cam.h))
            if blur > 1:
                ker = np.ones((1, int(blur)), np.float32) / int(blur)
                a = cv2.filter2D(a, -1, ker)
                c = cv2.filter2D(c, -1, ker)
            f = out.astype(np.float32)
            f *= (1 - 0.5 * (1 - scene.light.ambient) * sh)[..., None]
            f = f * (1 - a[..., None]) + c
            return np.clip(f, 0, 255).astype(np.uint8)

        return fn


def place_card_changes(scene: Scene, cards: list[dict], rng: np.random.Generator) -> list[Change]:
    """Convenience: changes that lay `cards` loose at free spots of the view (for demos and tests)."""
    cam = Camera(scene.camera, scene.size)
    c = cam.image_to_table(np.array([[0, 0], [cam.w - 1, 0], [cam.w - 1, cam.h - 1], [0, cam.h - 1]], float))
    lo, hi = c.min(axis=0) * 0.7, c.max(axis=0) * 0.7
    out = []
    for card in cards:
        obj = card.get("object", "card")
        body = {k: v for k, v in card.items() if k != "object"}
        x, y = float(rng.uniform(lo[0], hi[0])), float(rng.uniform(lo[1], hi[1]))
        out.append(Change("add", item=Item(obj, body, x, y, float(rng.normal(0, 5)), layer=1000,
                                           seed=int(rng.integers(0, 2**31)))))
    return out
