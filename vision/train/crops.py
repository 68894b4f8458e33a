"""Classifier crops: canonical faces "photographed" with heavy augmentation, plus crops cut from
rendered train-pool scenes by their true outlines.

Why whole numbers as classes (1..100) and not digits composed into numbers: the indices and
numerals are short (one to three glyphs), tightly kerned, often outlined or shadowed; splitting
them into digits is itself error-prone, while a 106-class softmax over the whole glyph group is
cheap (one crop, one pass), learns the 6/9 underline marks as part of the class, and gives one
calibrated probability per reading, which the game rules can weigh directly.

Labels are joint (class, orientation): orientation 0 means the crop shows the print upright,
1 turned half a turn. Index crops are always cut at the reading frame's top-left corner, which
lands on the printed top-left index (upright) or on the bottom-right one (printed turned, so
upright again in the turned frame); they are labelled upright. With `--corners`, crops of the
frame's top-right corner too (`CORNER_REGION`, a fourth kind): a four-index design's top-right
index, or its bottom-left one in the turned frame, both upright; a blank corner is "none".

    python -m vision.train.crops --out /work/data/crops_synth.npz --designs 600 --workers 2
    python -m vision.train.crops --from-scenes --scenes /work/data/scenes --out /work/data/crops_scenes.npz
    python -m vision.train.crops --from-scenes --at-detections --jitter 2 --scenes /work/data/scenes \
        --out /work/data/crops_det.npz     # at the recogniser's own outlines
"""

from __future__ import annotations

import argparse
import dataclasses
import glob
import json
import math
import multiprocessing as mp
import re
from pathlib import Path

import cv2
import numpy as np

from vision.classify import (
    CARD_CLASSES,
    CARD_REGION,
    CORNER_REGION,
    CROP,
    INDEX_REGION,
    NUMERAL_REGION,
    Pyramid,
    rotate_quad,
    unit_homography,
    warp_crop,
)
from vision.render import random_design, render_card
from vision.render.designs import CARD_ON_REQUEST, SUITS, card_family
from vision.render.faces import centre_region, default_heads, index_regions

CLS = {c: i for i, c in enumerate(CARD_CLASSES)}
NONE, BACK = CLS["none"], CLS["back"]
WHOLE, INDEX, NUMERAL, CORNER = 0, 1, 2, 3
FACE_H = 240  # canonical faces are drawn once at this height and resized per photo


def label(card: dict) -> int:
    kind = card.get("kind", "number")
    if card.get("object") == "back":
        return BACK
    if kind == "number":
        return CLS[str(int(card["value"]))]
    return CLS[kind]


def card_set(rng: np.random.Generator, n_colour: int = 26, n_nimmt: int = 40) -> list[dict]:
    """A design's worth of faces to photograph: coloured numbers, 11 nimmt! numbers, specials."""
    cards = [{"kind": "number", "value": int(v), "color": str(rng.choice(SUITS))}
             for v in rng.integers(1, 22, n_colour)]
    for v in rng.integers(1, 101, n_nimmt):
        cards.append({"kind": "number", "value": int(v), "color": None, "heads": default_heads(int(v))})
    for kind in ("joker", "link", "bonus", "bull"):
        cards.append({"kind": kind, "value": None, "color": None})
    cards.append({"object": "back"})
    return cards


# ----------------------------------------------------------------------------------------
# Photographing one face


class Backgrounds:
    """Random table patches cut from rendered scenes, away from any card (or plain noise)."""

    def __init__(self, scene_dir: str | None, rng: np.random.Generator, n: int = 60):
        self.patches: list[np.ndarray] = []
        files = sorted(glob.glob(str(Path(scene_dir) / "*.jpg"))) if scene_dir else []
        for f in rng.permutation(files)[:n]:
            img = cv2.imread(str(f))
            truth = json.loads(Path(str(f)[:-4] + ".json").read_text())
            mask = np.zeros(img.shape[:2], np.uint8)
            for it in truth["items"]:
                if it["obj"] in ("card", "back", "tile"):
                    cv2.fillConvexPoly(mask, np.round(np.asarray(it["corners"])).astype(np.int32), 1)
            self.patches.append((img, mask))

    def sample(self, rng: np.random.Generator, h: int, w: int, clean: bool = False) -> np.ndarray:
        for _ in range(20):
            if not self.patches:
                break
            img, mask = self.patches[int(rng.integers(len(self.patches)))]
            H, W = img.shape[:2]
            if H <= h or W <= w:
                break
            y, x = int(rng.integers(0, H - h)), int(rng.integers(0, W - w))
            if clean and mask[y:y + h, x:x + w].mean() > 0.02:
                continue
            return img[y:y + h, x:x + w].copy()
        base = rng.uniform(30, 220, 3)
        out = np.empty((h, w, 3), np.float32)
        out[:] = base
        out += rng.normal(0, rng.uniform(2, 20), (h, w, 1)).astype(np.float32)
        return np.clip(out, 0, 255).astype(np.uint8)


def _quad_px(w: float, h: float, cx: float, cy: float, angle: float) -> np.ndarray:
    a = math.radians(angle)
    ca, sa = math.cos(a), math.sin(a)
    loc = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return np.stack([cx + loc[:, 0] * ca - loc[:, 1] * sa, cy + loc[:, 0] * sa + loc[:, 1] * ca], 1)


def _paste(canvas: np.ndarray, cover: np.ndarray, face: np.ndarray, quad: np.ndarray, shadow: float,
           rng: np.random.Generator) -> np.ndarray:
    """Warp a BGRA face onto the canvas at `quad` (with a soft shadow); returns its coverage."""
    h, w = face.shape[:2]
    src = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]], np.float32)
    m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    H, W = canvas.shape[:2]
    a = cv2.warpPerspective(face[..., 3], m, (W, H), flags=cv2.INTER_AREA if False else cv2.INTER_LINEAR).astype(
        np.float32) / 255.0
    if shadow > 0:
        k = max(1.0, 0.02 * math.hypot(*(quad[1] - quad[0])))
        off = rng.normal(0, k, 2)
        sh = cv2.warpAffine(a, np.float32([[1, 0, off[0]], [0, 1, off[1]]]), (W, H))
        sh = cv2.GaussianBlur(sh, (0, 0), k)
        canvas *= (1.0 - shadow * sh)[..., None]
    c = cv2.warpPerspective(face[..., :3], m, (W, H), flags=cv2.INTER_LINEAR).astype(np.float32)
    canvas *= (1.0 - a)[..., None]
    canvas += c * a[..., None]
    np.maximum(cover, a, out=cover)
    return a


def _resized(face: np.ndarray, width: float) -> np.ndarray:
    h, w = face.shape[:2]
    s = width / w
    if s >= 1:
        return face
    return cv2.resize(face, (max(4, int(round(w * s))), max(4, int(round(h * s)))), interpolation=cv2.INTER_AREA)


WIDTHS = (45.0, 170.0)  # card widths (pixels) photographed, drawn log-uniformly


def photograph(rng: np.random.Generator, face: np.ndarray, others: list[np.ndarray], bg: Backgrounds,
               widths: tuple[float, float] = WIDTHS):
    """One synthetic photo around `face`: (image, true quad TL,TR,BR,BL, own visible mask)."""
    fh, fw = face.shape[:2]
    width = float(np.exp(rng.uniform(np.log(widths[0]), np.log(widths[1]))))
    height = width * fh / fw
    size = int(math.hypot(width, height) * rng.uniform(1.25, 1.7)) + 8
    canvas = bg.sample(rng, size, size).astype(np.float32)
    cx, cy = size / 2 + rng.normal(0, 0.04 * size, 2)
    angle = float(rng.uniform(0, 360))
    quad = _quad_px(width, height, cx, cy, angle) + rng.normal(0, 0.012 * width, (4, 2))  # perspective
    cover_dummy = np.zeros((size, size), np.float32)
    u = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
    np.array([-u[1], u[0]])
    mode = rng.choice(["alone", "under", "side", "over", "over2"], p=[0.3, 0.15, 0.15, 0.3, 0.1])
    if mode in ("under", "side") and others:  # neighbours that do not cover the card
        for sgn in (-1, 1):
            if rng.random() < 0.7:
                o = _resized(others[int(rng.integers(len(others)))], width)
                pitch = (rng.uniform(0.25, 0.55) if mode == "under" else rng.uniform(1.02, 1.12)) * width
                c2 = np.array([cx, cy]) + sgn * pitch * u + rng.normal(0, 0.02 * width, 2)
                q2 = _quad_px(width, height, *c2, angle + rng.normal(0, 2))
                _paste(canvas, cover_dummy, o, q2, rng.uniform(0, 0.3), rng)
    own = _paste(canvas, np.zeros((size, size), np.float32), _resized(face, width), quad, rng.uniform(0.1, 0.45),
                 rng)
    if mode in ("over", "over2") and others:  # cards on top, leaving a strip (rows, fans)
        sides = [rng.choice([-1, 1])] if mode == "over" else [-1, 1]
        for sgn in sides:
            o = _resized(others[int(rng.integers(len(others)))], width)
            if rng.random() < 0.8:
                pitch = rng.uniform(0.2, 0.6) * width
                c2 = np.array([cx, cy]) + sgn * pitch * u + rng.normal(0, 0.015 * width, 2)
                ang2 = angle + rng.normal(0, 2.5)
            else:  # a card dropped across at any angle
                c2 = np.array([cx, cy]) + rng.normal(0, 0.45, 2) * [width, height]
                ang2 = float(rng.uniform(0, 360))
            q2 = _quad_px(width, height, *c2, ang2)
            cov = np.zeros((size, size), np.float32)
            _paste(canvas, cov, o, q2, rng.uniform(0.1, 0.4), rng)
            own *= 1.0 - cov
    if rng.random() < 0.08:  # a pencil or a finger tip crossing
        p0 = rng.uniform(0, size, 2)
        p1 = rng.uniform(0, size, 2)
        m = np.zeros((size, size), np.float32)
        cv2.line(m, tuple(int(t) for t in p0), tuple(int(t) for t in p1), 1.0, int(rng.uniform(3, 0.12 * width + 4)))
        col = rng.uniform(20, 230, 3)
        canvas = canvas * (1 - m[..., None]) + col * m[..., None]
        own *= 1 - m
    canvas = _light_and_camera(rng, canvas, width)
    return canvas, quad, own


def _light_and_camera(rng: np.random.Generator, img: np.ndarray, width: float) -> np.ndarray:
    h, w = img.shape[:2]
    # Light: colour cast, level, smooth gradient, a glare blob, a shadow edge.
    cast = np.array([rng.uniform(0.6, 1.15), 1.0, rng.uniform(0.85, 1.3)])[::-1] if rng.random() < 0.5 else \
        rng.uniform(0.88, 1.12, 3)
    level = float(np.exp(rng.normal(0, 0.3)))
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    g = 1.0 + rng.uniform(-0.35, 0.35) * (xs / w - 0.5) + rng.uniform(-0.35, 0.35) * (ys / h - 0.5)
    img = img * (g * level)[..., None] * cast[None, None, :].astype(np.float32)
    if rng.random() < 0.3:
        gx, gy = rng.uniform(0, w), rng.uniform(0, h)
        r = rng.uniform(0.1, 0.6) * width
        img += (rng.uniform(60, 250) * np.exp(-((xs - gx) ** 2 + (ys - gy) ** 2) / (2 * r * r)))[..., None]
    if rng.random() < 0.15:  # a soft shadow edge (hand, lamp arm)
        a = rng.uniform(0, 2 * np.pi)
        d = (xs - w / 2) * math.cos(a) + (ys - h / 2) * math.sin(a) - rng.uniform(-0.3, 0.3) * w
        img *= (1 - rng.uniform(0.2, 0.6) / (1 + np.exp(np.clip(-d / rng.uniform(2, 10), -50, 50))))[..., None]
    img = np.clip(img, 0, 255)
    # Camera: defocus, motion, noise, gamma, JPEG.
    s = float(rng.choice([rng.uniform(0.2, 0.9), rng.uniform(0.9, 2.2)], p=[0.75, 0.25]))
    img = cv2.GaussianBlur(img, (0, 0), s)
    if rng.random() < 0.08:
        n = int(rng.integers(3, 7))
        k = np.zeros((n, n), np.float32)
        k[n // 2] = 1.0 / n
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), float(rng.uniform(0, 180)), 1.0)
        k = cv2.warpAffine(k, rot, (n, n))
        img = cv2.filter2D(img, -1, k / max(k.sum(), 1e-6))
    img = img + rng.normal(0, rng.uniform(1, 7), img.shape).astype(np.float32)
    if rng.random() < 0.4:
        gam = rng.uniform(0.8, 1.25)
        img = 255.0 * (np.clip(img, 0, 255) / 255.0) ** gam
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.7:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(45, 96))])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def jitter_quad(rng: np.random.Generator, quad: np.ndarray, amount: float = 1.0) -> np.ndarray:
    """The detector's outline is never exact: shift, scale, turn and corner noise."""
    q = np.asarray(quad, np.float64)
    w = np.linalg.norm(q[1] - q[0])
    c = q.mean(axis=0)
    s = np.exp(rng.normal(0, 0.025 * amount))
    a = math.radians(rng.normal(0, 1.5 * amount))
    r = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    q = (q - c) @ r.T * s + c + rng.normal(0, 0.025 * amount * w, 2)
    return q + rng.normal(0, 0.012 * amount * w, (4, 2))


def _image_points(quad: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """Image pixels of points given as (u, v) fractions of the card outlined by `quad`."""
    if not len(uv):
        return np.zeros((0, 2))
    return cv2.perspectiveTransform(np.asarray(uv, np.float64)[None], unit_homography(quad).astype(np.float64))[0]


def _region_poly(quad: np.ndarray, region: tuple[float, float, float, float]) -> np.ndarray:
    """Image outline of a card region (u0, v0, u1, v1)."""
    u0, v0, u1, v1 = region
    return _image_points(quad, np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]]))


def region_visible(own: np.ndarray, quad: np.ndarray, region: tuple[float, float, float, float]) -> float:
    """Share of a card region (u0, v0, u1, v1) where the card itself shows (own coverage > 0.5)."""
    q = _region_poly(quad, region)
    m = np.zeros(own.shape, np.uint8)
    cv2.fillConvexPoly(m, np.round(q * 4).astype(np.int32), 1, cv2.LINE_8, 2)
    n = int(m.sum())
    return float(((own > 0.5) & (m > 0)).sum()) / n if n else 0.0


# An index crop is labelled its card when this much of the index's ink is not covered (and, at
# a detected outline, lies inside the crop); under the low marks, "none"; in between it is left
# out (most of an index is neither). Stricter marks (0.95 inside, 0.97 seen) taught fewer misreads
# than 0.8 and 0.92 (stop 18, train pool).
IDX_IN, IDX_OUT = 0.95, 0.4
IDX_SEEN, IDX_HIDDEN = 0.97, 0.6
# A fragment: bands across the index's number (BANDS slices of its width) holding a fifth of its
# ink are hidden or cut off (under 0.2 of each shows) while another band shows (0.8 of it). The
# "1" of a "14" whose 4 is cut off reads as a 1: it is taught as "none" (stop 18's fine-tunes,
# which left such crops out, read them as the cards they resemble). Bands, not glyphs: kerned
# digits touch. A number cut at its top or bottom keeps every digit: not a fragment.
BANDS = 5


@dataclasses.dataclass(frozen=True)
class Ink:
    """The printed pixels of one corner index as (u, v) card fractions: all of it (`uv`) and its
    number alone (`digits`: not the badge or block of colour printed behind it; none for a card
    printing no index, a bull)."""

    uv: np.ndarray
    digits: np.ndarray

    def fragment(self, shows: np.ndarray) -> bool:
        """Whether, where `shows` (one bool per point of `digits`) holds, part of the number shows
        and a band across it does not: a digit lost, the rest reads as another number."""
        if len(self.digits) < BANDS:
            return False
        x = self.digits[:, 0]
        band = np.minimum(((x - x.min()) / max(float(x.max() - x.min()), 1e-9) * BANDS).astype(int), BANDS - 1)
        counts = np.bincount(band, minlength=BANDS)
        share = np.bincount(band, weights=shows.astype(float), minlength=BANDS) / np.maximum(counts, 1)
        return bool(counts[(counts > 0) & (share < 0.2)].sum() >= 0.2 * len(x) and share.max() >= 0.8)


def _points(mask: np.ndarray, x0: int, y0: int, w: int, h: int) -> np.ndarray:
    """Card fractions (u, v) of the pixels set in `mask`, a box at (x0, y0) of a w×h face."""
    ys, xs = np.nonzero(mask)
    return np.stack([(xs + x0 + 0.5) / w, (ys + y0 + 0.5) / h], axis=1)


def index_ink(card: dict, design, regions) -> list[Ink]:
    """The ink of each corner index: what must show for an index to be legible (its box is
    drawn for two digits, so the cover of the box says too little). It is the pixels of the box
    that change when the design prints no indices (a frame line through the box is not the index);
    its number alone is what changes when the indices are printed without their numbers."""
    def pixels(**change) -> np.ndarray:
        return render_card(card, dataclasses.replace(design, **change), FACE_H)[..., :3].astype(np.int16)

    face, bare, blank = pixels(), pixels(indices="none"), pixels(index_numbers=False)
    h, w = face.shape[:2]
    out = []
    for x0, y0, x1, y1 in regions:
        a, b = int(x0 * w), int(y0 * h)
        box = (slice(b, int(np.ceil(y1 * h))), slice(a, int(np.ceil(x1 * w))))
        ink = np.abs(face - bare)[box].max(axis=2, initial=0) > 40
        # Nothing printed there for this card (a bull's picture runs into the corner): the
        # corner itself is what must show.
        uv = _points(ink if ink.any() else np.ones_like(ink), a, b, w, h)
        digits = _points(np.abs(face - blank)[box].max(axis=2, initial=0) > 40, a, b, w, h)
        out.append(Ink(uv, digits))
    return out


def _seen(pts: np.ndarray, own: np.ndarray) -> np.ndarray:
    """Whether the card itself shows (its `own` coverage) at each image point of `pts`."""
    x = np.clip(np.round(pts[:, 0]).astype(int), 0, own.shape[1] - 1)
    y = np.clip(np.round(pts[:, 1]).astype(int), 0, own.shape[0] - 1)
    return own[y, x] > 0.5


def _inside(pts: np.ndarray, quad: np.ndarray, region: tuple[float, float, float, float]) -> np.ndarray:
    """Whether each image point of `pts` falls inside `region` of the frame `quad`."""
    if not len(pts):
        return np.zeros(0, bool)
    h = np.linalg.inv(unit_homography(quad).astype(np.float64))
    uv = cv2.perspectiveTransform(pts[None].astype(np.float64), h)[0]
    u0, v0, u1, v1 = region
    return (uv[:, 0] >= u0) & (uv[:, 0] <= u1) & (uv[:, 1] >= v0) & (uv[:, 1] <= v1)


def _share(mask: np.ndarray) -> float:
    return float(mask.mean()) if len(mask) else 0.0


def crops_for(rng, pyr: Pyramid, quad: np.ndarray, own: np.ndarray, card: dict, inks: list[Ink],
              centre_ok: float, n_jitter: int = 1, numerals: bool = False, corners: bool = False):
    """Whole and index crops of one card with their joint labels (`numerals`: central numeral
    crops too; `corners`: top-right corner crops too, `CORNER_REGION`); `inks`: its indices'
    ink (`index_ink`: TL, BR, then TR, BL where the design prints four), or none when it prints
    no index."""
    out = []
    lab = label(card)
    for _ in range(n_jitter):
        for turn in (0, 2):
            q = rotate_quad(quad, turn)
            if centre_ok >= 0.9:
                out.append((warp_crop(pyr, jitter_quad(rng, q), CARD_REGION, CROP), lab * 2 + turn // 2, WHOLE))
                if numerals:
                    out.append((warp_crop(pyr, jitter_quad(rng, q), NUMERAL_REGION, CROP), lab * 2 + turn // 2,
                                NUMERAL))
            # Index crop at the frame's top-left: the printed TL index (turn 0) or BR index (turn 2).
            ink = inks[0 if turn == 0 else 1] if len(inks) >= 2 else None
            if lab == BACK:
                y = BACK * 2
            elif ink is None and lab == CLS["bull"]:
                # No index: its corner is a bull card's only where that corner shows (covered,
                # it shows the card lying over it, which is not a bull).
                if region_visible(own, q, (0.0, 0.0, INDEX_REGION[2], INDEX_REGION[3])) < 0.9:
                    continue
                y = CLS["bull"] * 2
            elif ink is None:
                y = NONE * 2
            else:
                y = _ink_label(quad, own, lab, ink)
                if y is None:
                    continue
            if lab == CLS["bull"] and y != NONE * 2:
                y = CLS["bull"] * 2
            out.append((warp_crop(pyr, jitter_quad(rng, q), INDEX_REGION, CROP), y, INDEX))
            if corners and lab not in (BACK, CLS["bull"]):
                y = _corner_label(quad, q, own, lab, inks[2 if turn == 0 else 3] if len(inks) >= 4 else None)
                if y is not None:
                    out.append((warp_crop(pyr, jitter_quad(rng, q), CORNER_REGION, CROP), y, CORNER))
    return out


def _corner_label(quad: np.ndarray, q: np.ndarray, own: np.ndarray, lab: int, ink: Ink | None) -> int | None:
    """The label of the top-right corner crop of the frame `q` (the card's outline `quad` as it
    lies, or turned half): the card where the design prints an index there (upright in `q`: a
    four-index design's top right, or its bottom left turned) and it shows; "none" where it is
    hidden, a fragment, or where no index is printed and the corner itself shows; else left out
    (a covered blank corner shows what lies over it)."""
    if ink is None:
        return NONE * 2 if region_visible(own, q, (CORNER_REGION[0], 0.0, 1.0, CORNER_REGION[3])) >= 0.9 else None
    return _ink_label(quad, own, lab, ink)


def _ink_label(quad: np.ndarray, own: np.ndarray, lab: int, ink: Ink) -> int | None:
    """The label of a crop of a printed corner index whose ink is `ink`, on the card outlined by
    `quad` (its `own` coverage): the card where the ink shows, "none" where it is hidden or only a
    fragment of its number shows, else left out (None)."""
    seen = _share(_seen(_image_points(quad, ink.uv), own))
    if seen >= IDX_SEEN:
        return lab * 2
    if seen < IDX_HIDDEN or ink.fragment(_seen(_image_points(quad, ink.digits), own)):
        return NONE * 2
    return None


def _idx_regions_canonical(card: dict, design) -> list:
    """Index regions of the printed TL and BR corners (then TR and BL where the design prints
    four) in canonical (unturned) card fractions."""
    regs = index_regions(card, design)
    if len(regs) < 2:
        return []
    return regs[:4] if design.indices == "four" else [regs[0], regs[1]]


def synth_design(args) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    seed, scene_dir, per_face, template, widths, family, corners = args
    rng = np.random.default_rng([seed, 17])
    design = random_design(rng, "train", template=template)
    if family is not None:
        design = card_family(design, rng, family)
    bg = Backgrounds(scene_dir, rng, n=6)
    cards = card_set(rng)
    faces = [render_card(c, design, FACE_H) for c in cards]
    X, Y, K = [], [], []
    for card, face in zip(cards, faces, strict=True):
        inks = [] if card.get("object") == "back" else index_ink(card, design, _idx_regions_canonical(card, design))
        for _ in range(per_face):
            img, quad, own = photograph(rng, face, faces, bg, widths)
            centre = region_visible(own, quad, (0.2, 0.25, 0.8, 0.75))
            for x, y, k in crops_for(rng, Pyramid(img), quad, own, card, inks, centre, corners=corners):
                X.append(x)
                Y.append(y)
                K.append(k)
        # Negatives: table patches with a card-shaped outline somewhere.
    for _ in range(per_face * 4):
        w = float(np.exp(rng.uniform(np.log(widths[0]), np.log(widths[1]))))
        size = int(w * 2.2)
        img = bg.sample(rng, size, size, clean=rng.random() < 0.8)
        img = _light_and_camera(rng, img.astype(np.float32), w)
        q = _quad_px(w, w * 1.5, size / 2, size / 2, float(rng.uniform(0, 360)))
        pyr = Pyramid(img)
        X.append(warp_crop(pyr, q, CARD_REGION, CROP))
        Y.append(NONE * 2)
        K.append(WHOLE)
        X.append(warp_crop(pyr, q, INDEX_REGION, CROP))
        Y.append(NONE * 2)
        K.append(INDEX)
        if corners:
            X.append(warp_crop(pyr, q, CORNER_REGION, CROP))
            Y.append(NONE * 2)
            K.append(CORNER)
    return np.array(X, np.uint8), np.array(Y, np.int16), np.array(K, np.int8)


# ----------------------------------------------------------------------------------------
# Crops from rendered scenes


def _instance_ids(items: list[dict], shape: tuple[int, int], hand: np.ndarray | None) -> np.ndarray:
    ids = np.zeros(shape, np.int32)
    for k, it in enumerate(items):
        q = np.asarray(it["corners"], np.float64)
        if it["obj"] == "prop" and it.get("name") == "coin":
            c = q.mean(axis=0)
            r = 0.5 * np.linalg.norm(q[1] - q[0])
            cv2.circle(ids, (int(round(c[0])), int(round(c[1]))), int(round(r)), k + 1, -1)
        else:
            cv2.fillConvexPoly(ids, np.round(q * 4).astype(np.int32), k + 1, cv2.LINE_8, 2)
    if hand is not None:
        ids[hand > 127] = -1
    return ids


@dataclasses.dataclass
class _Scene:
    truth: dict
    design: object
    rng: np.random.Generator
    image: np.ndarray
    ids: np.ndarray  # item number + 1 at each pixel (0 table, -1 hand)
    outlines: np.ndarray  # items × 4 × 2: each item's outline
    under: set  # cards under the hand


def _load_scene(path: str, salt: int) -> _Scene:
    """A rendered train scene with its truth, its card design (the scene drawn again) and the
    item under each pixel."""
    from vision.train.scenes import COUNT_SHARE, scene_for

    pool, base, k = re.match(r"(\w+?)_(\d+)_(\d+)$", Path(path).stem).groups()
    truth = json.loads(Path(path[:-4] + ".json").read_text())
    design = scene_for(pool, [int(base), int(k)], truth.get("game_asked"), overlap=truth.get("overlap", 0.0),
                       count_share=truth.get("count_share", COUNT_SHARE), cards=truth.get("cards_family")).design
    img = cv2.imread(path)
    hp = Path(path[:-4] + "_hand.png")
    hand = cv2.imread(str(hp), cv2.IMREAD_GRAYSCALE) if hp.exists() else None
    return _Scene(truth, design, np.random.default_rng([int(base), int(k), salt]), img,
                  _instance_ids(truth["items"], img.shape[:2], hand),
                  np.array([it["corners"] for it in truth["items"]], np.float64).reshape(-1, 4, 2),
                  set(truth.get("under_hand", {}).get("cards", [])))


def _named_cards(sc: _Scene):
    """The scene's card faces not under the hand, as (outline, own coverage, card, item id)."""
    for ci, c in enumerate(sc.truth["cards"]):
        if ci in sc.under or c.get("kind") not in ("number", "joker", "link", "bonus", "bull"):
            continue
        q = np.asarray(c["corners"], np.float64)
        # The item drawn at this outline (the truth rounds cards' corners to 0.1 px, items' to 0.01).
        err = np.abs(sc.outlines - q).max(axis=(1, 2)) if len(sc.outlines) else np.zeros(0)
        if not len(err) or err.min() > 0.1:
            continue
        n = int(err.argmin())
        card = {"kind": c["kind"], "value": c["value"], "color": c["color"]}
        yield q, (sc.ids == n + 1).astype(np.float32), card, n + 1


def scene_crops(args) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    path, n_jitter, numerals, corners = args
    sc = _load_scene(path, 99)
    truth, design, rng, img, ids = sc.truth, sc.design, sc.rng, sc.image, sc.ids
    pyr = Pyramid(img)
    X, Y, K = [], [], []
    board_game = truth.get("game") in ("start11", "numeri")  # tiles are not cards for this model
    for q, own, card, _id in [] if board_game else _named_cards(sc):
        inks = index_ink(card, design, _idx_regions_canonical(card, design))
        centre = region_visible(own, q, (0.2, 0.25, 0.8, 0.75))
        for x, y, kk in crops_for(rng, pyr, q, own, card, inks, centre, n_jitter, numerals, corners):
            X.append(x)
            Y.append(y)
            K.append(kk)
    for b in truth.get("backs", []):
        q = np.asarray(b["corners"], np.float64)
        for region, kind in ((CARD_REGION, WHOLE), (NUMERAL_REGION, NUMERAL))[:2 if numerals else 1]:
            X.append(warp_crop(pyr, jitter_quad(rng, q), region, CROP))
            Y.append(BACK * 2)
            K.append(kind)
    # Table negatives: card-sized outlines where no card face shows at the centre.
    cards = [np.asarray(c["corners"]) for c in truth["cards"]]
    if cards:
        w = float(np.median([np.linalg.norm(q[1] - q[0]) for q in cards]))
        h, wi = img.shape[:2]
        for _ in range(12):
            cx, cy = rng.uniform(0.1 * wi, 0.9 * wi), rng.uniform(0.1 * h, 0.9 * h)
            i = ids[int(cy), int(cx)]
            if i > 0 and truth["items"][i - 1]["obj"] in ("card", "back", "tile"):
                continue
            q = _quad_px(w, w * 1.5, cx, cy, float(rng.uniform(0, 360)))
            regions = (CARD_REGION, INDEX_REGION) + ((NUMERAL_REGION,) if numerals else ()) + \
                ((CORNER_REGION,) if corners else ())
            X.append(warp_crop(pyr, q, regions[int(rng.integers(len(regions)))], CROP))
            Y.append(NONE * 2)
            K.append(WHOLE)
    return np.array(X, np.uint8).reshape(-1, CROP, CROP, 3), np.array(Y, np.int16), np.array(K, np.int8)


# ----------------------------------------------------------------------------------------
# Crops at the recogniser's own outlines (hard examples)


# A crop is taught as its card only from an outline this close to the card's (its centre, card
# widths; its direction, degrees): half the outline search's steps. Further off it is left out,
# so that the surest reading still marks the best-placed outline (the search keeps that one).
PLACED_OFF, PLACED_DEG = 0.05, 5.0
# On a loose heap a card's covered corner often shows the index of the card lying over it, at
# another angle. An index crop whose own index is not there and whose only legible index stands
# this far turned (degrees) in its frame is taught "none" (`--turned-none`); one showing an index
# nearly upright is left out (it looks like that card's own crop).
TURNED_INDEX = 25.0


def _index_turn(card_quad: np.ndarray, index: int, frame: np.ndarray) -> float:
    """Degrees between the upright of a card's index (0: top-left, upright in the card's frame;
    1: bottom-right, upright turned half) and the upright of the frame `frame`; 0 for other
    indices (a design printing four: their upright is not known here)."""
    if index > 1:
        return 0.0
    a = card_quad[3] - card_quad[0]
    if index == 1:
        a = -a
    b = frame[3] - frame[0]
    return abs(math.degrees(math.atan2(a[0] * b[1] - a[1] * b[0], float(a @ b))))


def _placed(q: np.ndarray, t: np.ndarray) -> bool:
    """Whether the frame `q` lies within PLACED_OFF, PLACED_DEG of the card's frame `t`."""
    off = np.linalg.norm(q.mean(axis=0) - t.mean(axis=0)) / max(float(np.linalg.norm(t[1] - t[0])), 1e-9)
    a, b = q[3] - q[0], t[3] - t[0]
    deg = abs(math.degrees(math.atan2(a[0] * b[1] - a[1] * b[0], float(a @ b))))
    return bool(off <= PLACED_OFF and deg <= PLACED_DEG)


NUMERAL_GRID = np.stack(np.meshgrid(np.linspace(0, 1, 9), np.linspace(0, 1, 9)), axis=-1).reshape(-1, 2)


@dataclasses.dataclass
class _SeenCard:
    """A named card of a scene as the crops at detections need it. Indices TL, BR, then any
    more (a design printing four); image points of each index's ink and of its number, with
    whether each shows; the visible points of a grid over its big numeral."""

    quad: np.ndarray
    card: dict
    item: int
    inks: list[Ink]
    pts: list[np.ndarray]
    seen: list[np.ndarray]
    digits: list[np.ndarray]
    digits_seen: list[np.ndarray]
    numeral: np.ndarray
    middle_shows: bool

    @classmethod
    def of(cls, q: np.ndarray, own: np.ndarray, card: dict, item: int, design) -> _SeenCard:
        inks = index_ink(card, design, index_regions(card, design))
        pts = [_image_points(q, ink.uv) for ink in inks]
        digits = [_image_points(q, ink.digits) for ink in inks]
        u0, v0, u1, v1 = centre_region(card, design)
        numeral = _image_points(q, np.array([u0, v0]) + NUMERAL_GRID * [u1 - u0, v1 - v0])
        return cls(q, card, item, inks, pts, [_seen(p, own) for p in pts], digits, [_seen(p, own) for p in digits],
                   numeral[_seen(numeral, own)], region_visible(own, q, (0.2, 0.25, 0.8, 0.75)) >= 0.9)


def _overlap_share(a: np.ndarray, b: np.ndarray) -> float:
    """Share of convex polygon `a`'s area that lies inside convex polygon `b`."""
    area = cv2.contourArea(a.astype(np.float32))
    if area <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter) / area


def _others_share(ids: np.ndarray, poly: np.ndarray, own_id: int) -> float:
    """Share of the pixels inside `poly` that belong to another item than `own_id` or to a hand."""
    x, y, w, h = cv2.boundingRect(np.round(poly).astype(np.int32))
    x0, y0 = max(0, x), max(0, y)
    x1, y1 = min(ids.shape[1], x + w), min(ids.shape[0], y + h)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(m, np.round(poly - (x0, y0)).astype(np.int32), 1)
    sub = ids[y0:y1, x0:x1][m > 0]
    return float(((sub != 0) & (sub != own_id)).mean()) if sub.size else 0.0


def detection_crops(args) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crops cut where the recogniser itself cuts them: at the detector's outlines, and at the
    moves of its outline search, labelled by the truth they land on.

    Crops at jittered true outlines (`scene_crops`) miss how the detector errs: the outline of a
    narrow strip of an overlapped card is placed from the strip, and its corner index is often
    cut or shifted. A crop is labelled by what it shows: an index crop holding most of a true,
    uncovered corner index, cut at an outline close to the card's (`_placed`), reads as that
    card; one holding little of it, or a fragment of its number, "none"; one showing another
    card's index, or in between, is left out (with `turned_none`, one whose own index is not
    there and whose other indices all stand turned in its frame is "none": `TURNED_INDEX`)."""
    path, n_moves, turned_none, numerals = args
    from vision.pipeline import SHIFT_MOVES, TURN_MOVES, Recognizer, RecognizerConfig, _moved

    sc = _load_scene(path, 98)
    truth, design, rng, img, ids = sc.truth, sc.design, sc.rng, sc.image, sc.ids
    if truth.get("game") in ("start11", "numeri"):
        return np.zeros((0, CROP, CROP, 3), np.uint8), np.zeros(0, np.int16), np.zeros(0, np.int8)
    cards = [_SeenCard.of(q, own, card, item, design) for q, own, card, item in _named_cards(sc)]
    # Every legible corner index of the table: a crop showing one is not "none"; nor is a fragment
    # of its own index one showing part of another card's big numeral.
    def shows_numeral(quad: np.ndarray, region, but: int) -> bool:
        return any(n != but and _inside(c.numeral, quad, region).sum() >= 0.1 * len(NUMERAL_GRID)
                   for n, c in enumerate(cards))

    shown = [((n, i), p) for n, c in enumerate(cards)
             for i, (p, s) in enumerate(zip(c.pts, c.seen, strict=True)) if _share(s) >= IDX_HIDDEN]

    def in_crop(quad: np.ndarray, region, but: tuple[int, int]) -> list[tuple[int, int]]:
        """The legible indices (card, index) the crop shows, other than `but`."""
        return [n for n, p in shown if n != but and _share(_inside(p, quad, region)) >= IDX_OUT]

    def shows_index(quad: np.ndarray, region, but: tuple[int, int] = (-1, -1)) -> bool:
        """Whether the crop shows a legible index (other than `but`: card, index)."""
        return bool(in_crop(quad, region, but))

    def all_turned(found: list[tuple[int, int]], quad: np.ndarray) -> bool:
        """Whether every one of these legible indices stands turned in the crop's frame."""
        return all(_index_turn(cards[n].quad, i, quad) >= TURNED_INDEX for n, i in found)

    rec = Recognizer(truth["game"], RecognizerConfig(indices="always"))
    pyr = Pyramid(img)
    centres = np.array([c.quad.mean(axis=0) for c in cards]) if cards else np.zeros((0, 2))
    X, Y, K = [], [], []
    moves = TURN_MOVES + SHIFT_MOVES
    for d in rec.detect(img):
        if not d.inside:
            continue
        det_quads = [d.quad] + [_moved(d.quad, moves[int(i)]) for i in rng.choice(len(moves), n_moves, replace=False)]
        dist = np.linalg.norm(centres - np.asarray(d.centre), axis=1) if len(centres) else np.zeros(0)
        j = int(np.argmin(dist)) if len(dist) else -1
        if j < 0 or dist[j] > 0.3 * np.linalg.norm(cards[j].quad[1] - cards[j].quad[0]):
            # Not on a card we can name: on the table it is "none"; on a card, a merged or
            # moved outline, left out (it may still show a readable corner).
            cx, cy = int(np.clip(d.centre[0], 0, img.shape[1] - 1)), int(np.clip(d.centre[1], 0, img.shape[0] - 1))
            if ids[cy, cx] == 0:
                for q in det_quads[:1]:
                    for region, kind in ((CARD_REGION, WHOLE), (INDEX_REGION, INDEX),
                                         (NUMERAL_REGION, NUMERAL))[:3 if numerals else 2]:
                        if shows_index(q, region):
                            continue
                        X.append(warp_crop(pyr, q, region, CROP))
                        Y.append(NONE * 2)
                        K.append(kind)
            continue
        cj = cards[j]
        tq, inks, lab = cj.quad, cj.inks, label(cj.card)
        for dq in det_quads:
            for turn in (0, 2):
                q = rotate_quad(dq, turn)
                # How the frame lies on the printed card: upright (0) or turned half (2).
                err = [np.linalg.norm(q - rotate_quad(tq, r), axis=1).sum() for r in range(4)]
                r = int(np.argmin(err))
                if r % 2:
                    continue  # long side taken across: no class for a quarter turn
                placed = _placed(q, rotate_quad(tq, r))
                if turn == 0 and placed and d.visible.get("centre", 0) >= 0.8 and cj.middle_shows and \
                        _overlap_share(tq, _region_poly(q, CARD_REGION)) >= 0.9:
                    X.append(warp_crop(pyr, q, CARD_REGION, CROP))
                    Y.append(lab * 2 + r // 2)
                    K.append(WHOLE)
                    if numerals:
                        X.append(warp_crop(pyr, q, NUMERAL_REGION, CROP))
                        Y.append(lab * 2 + r // 2)
                        K.append(NUMERAL)
                if len(inks) < 2:
                    continue
                c = 0 if r == 0 else 1
                seen_at, in_at = cj.seen[c], _inside(cj.pts[c], q, INDEX_REGION)
                inside, seen = _share(in_at), _share(seen_at)
                if inside >= IDX_IN and seen >= IDX_SEEN:
                    if not placed:
                        continue
                    y = lab * 2
                elif others := in_crop(q, INDEX_REGION, (j, c)):
                    if not (turned_none and (inside < IDX_OUT or seen < IDX_HIDDEN) and all_turned(others, q)):
                        continue
                    y = NONE * 2  # a covered corner showing another card's index askew (heaps)
                elif inks[c].fragment(_inside(cj.digits[c], q, INDEX_REGION) & cj.digits_seen[c]) and \
                        not shows_numeral(q, INDEX_REGION, j):
                    y = NONE * 2  # a fragment of the index: part of its number, cut or covered
                elif (inside < IDX_OUT or seen < IDX_HIDDEN) and \
                        _others_share(ids, _region_poly(q, INDEX_REGION), cj.item) < 0.25:
                    # Its own card's blank corner or the table; a crop on another card is left out.
                    y = NONE * 2
                else:
                    continue
                X.append(warp_crop(pyr, q, INDEX_REGION, CROP))
                Y.append(y)
                K.append(INDEX)
    return np.array(X, np.uint8).reshape(-1, CROP, CROP, 3), np.array(Y, np.int16), np.array(K, np.int8)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--designs", type=int, default=0, help="synthetic: number of train designs")
    ap.add_argument("--seed0", type=int, default=0)
    ap.add_argument("--per-face", type=int, default=3)
    ap.add_argument("--scenes", default=None, help="scene folder (backgrounds, or crops with --from-scenes)")
    ap.add_argument("--from-scenes", action="store_true")
    ap.add_argument("--at-detections", action="store_true",
                    help="with --from-scenes: crops at the recogniser's own outlines (hard examples)")
    ap.add_argument("--jitter", type=int, default=1, help="crops per card (with --at-detections: moved outlines)")
    ap.add_argument("--turned-none", action="store_true",
                    help="with --at-detections: a covered corner showing another card's index askew is 'none'")
    ap.add_argument("--numerals", action="store_true",
                    help="with --from-scenes: central numeral crops too (NUMERAL_REGION)")
    ap.add_argument("--corners", action="store_true",
                    help="top-right corner crops too (CORNER_REGION: a four-index design's other corners)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--template", default=None, help="synthetic: only this (train) card template")
    ap.add_argument("--cards", choices=CARD_ON_REQUEST, default=None,
                    help="synthetic: designs of a card family drawn only on request (designs.CARD_ON_REQUEST)")
    ap.add_argument("--widths", type=float, nargs=2, default=WIDTHS, help="synthetic: card widths in pixels (min max)")
    a = ap.parse_args(argv)
    if a.from_scenes:
        paths = sorted(glob.glob(str(Path(a.scenes) / "train_*.jpg")))
        if a.at_detections:
            jobs, fn = [(p, a.jitter, a.turned_none, a.numerals) for p in paths], detection_crops
        else:
            jobs, fn = [(p, a.jitter, a.numerals, a.corners) for p in paths], scene_crops
        groups = list(range(len(jobs)))
    else:
        jobs = [(a.seed0 + i, a.scenes, a.per_face, a.template, tuple(a.widths), a.cards, a.corners)
                for i in range(a.designs)]
        fn = synth_design
        groups = [a.seed0 + i for i in range(a.designs)]
    X, Y, K, G = [], [], [], []
    with mp.Pool(a.workers) as pool:
        for n, (x, y, k) in enumerate(pool.imap(fn, jobs)):
            X.append(x)
            Y.append(y)
            K.append(k)
            G.append(np.full(len(y), groups[n], np.int32))
            if (n + 1) % 20 == 0:
                print(n + 1, sum(len(t) for t in Y), flush=True)
    np.savez(a.out, x=np.concatenate(X), y=np.concatenate(Y), kind=np.concatenate(K), group=np.concatenate(G))


if __name__ == "__main__":
    main()
