"""Finding card outlines: "is a card face here?" before "what is it?".

A small fully convolutional network (`cardnet.onnx`, run by `runtime`) looks at the photo scaled
so that cards are about `TARGET_WIDTH` pixels wide and says, for every pixel of a half-size
grid: is a card face visible here, where is the centre of that card (even when the centre is
hidden under another card), which way its long side runs, and how large it is. The rest is
plain geometry: face pixels vote for their card's centre, peaks of the votes are cards, the
pixels that voted for a peak are the visible part of that card. A card seen whole is the
rectangle fitted to its pixels (less the face map's bleed over its edges, a figure of the model
kept in its sidecar `cardnet.json`); a partly hidden card is a rectangle of the table's card
size round its voted centre, lying along its free edges. This splits touching cards,
overlapping rows and fans, and piles (only the top card's face shows) the same way.

The scale is found by cheap first passes at a few fixed reductions (the size channel), unless
the caller knows it (a previous frame, a deck profile): the camera does not move between frames.
Cards much smaller than the network's preferred size are not seen at a strong reduction, so the
passes go from strong to mild reduction and stop at the first that sees cards at a size the
network reads well.

Coordinates: `full_to_out` / `out_to_full` convert between image pixels and the output grid
for a scale `s` (input = image × s, output = input / 2), pixel centres at integers.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from .classify import MODELS_DIR, ModelError
from .runtime import network

OFFSET_SCALE = 16.0  # offsets and sizes are predicted in units of 16 output pixels
TARGET_WIDTH = 36.0  # card width (pixels at the network input) the network reads best
PASS1_SCALES = (0.2, 0.4, 0.7)  # first passes when the card size is unknown (large cards first)
INDEX_SHARE = 0.5  # whole "cards" this much smaller than cards vouched for at a stronger pass: their indices
# A card whose outline reaches past the picture's border is not read: it is cut, so what shows
# may not say which card it is, and in the service it lies outside the play area (a player's
# own cards at the table's edge). The renderer's truth lists such cards apart. With 4 % of a
# card's width allowed, as before, readings of cut cards were half the false cards held out;
# at 0 the train pool lost one card in 3 500 and gained 2-3 whole tables of 200.
BORDER_SLACK = 0.0
WHOLE_SEEN = 0.9  # share of a card's middle and corners in view for it to count as seen whole
STRIDE = 16  # network input sides must be multiples of this
# The runtime keeps every layer's output (cv2.dnn about 100 bytes per input pixel): larger inputs run in
# tiles to bound memory (tiles cost time: their margins are computed twice; only photos of
# small cards, scaled up, need them). The margin is half the network's receptive field (about
# 300 pixels), which makes the tiled maps equal to one run's.
MAX_INPUT_PIXELS = 900_000
TILE_MARGIN = 160


def full_to_out(pts: np.ndarray, s: float) -> np.ndarray:
    p = np.asarray(pts, np.float64)
    return ((p + 0.5) * s - 1.0) / 2.0


def out_to_full(pts: np.ndarray, s: float) -> np.ndarray:
    p = np.asarray(pts, np.float64)
    return (2.0 * p + 1.0) / s - 0.5


def shrink(image: np.ndarray, W: int, H: int) -> np.ndarray:
    """`image` reduced to W×H the way the detector is trained to see it: halved by averaging
    2×2 pixels while it is at least twice as large, then resampled bilinearly. OpenCV's
    `INTER_AREA` gives about the same picture but takes 10-15 ms for a 1640×1232 photo at a
    factor that is not whole (its slow path); this takes 1-3 ms."""
    h, w = image.shape[:2]
    while w >= 2 * W and h >= 2 * H:  # an odd last row or column is dropped: under a pixel out
        w, h = w // 2, h // 2
        image = cv2.resize(image[: 2 * h, : 2 * w], (w, h), interpolation=cv2.INTER_AREA)
    if (w, h) == (W, H):
        return image
    return cv2.resize(image, (W, H), interpolation=cv2.INTER_LINEAR)


# Regions of a card (u0, v0, u1, v1), used to judge what part of a card is in view.
CENTRE_BOX = (0.2, 0.25, 0.8, 0.75)
INDEX_BOXES = {0: (0.04, 0.03, 0.28, 0.21), 2: (0.72, 0.79, 0.96, 0.97)}  # TL, BR of the reading frame
# The other two corners (TR, BL), where designs printing four indices print them too; numbered as
# the outline's corners (TL 0, TR 1, BR 2, BL 3), in view as 'index1' and 'index3'.
CORNER_BOXES = {1: (0.72, 0.03, 0.96, 0.21), 3: (0.04, 0.79, 0.28, 0.97)}
ALL_INDEX_BOXES = {**INDEX_BOXES, **CORNER_BOXES}  # by the outline's corner
GRID_U, GRID_V = 6, 9  # visibility cells across and down a card


@dataclass
class Detection:
    """One card outline (image pixels) and what part of it is visible."""

    quad: np.ndarray  # 4×2: TL, TR, BR, BL of a portrait reading frame (may be turned half a turn)
    centre: tuple[float, float]
    angle: float  # degrees, direction of the long side (v axis), in [0, 180)
    size: tuple[float, float]  # width, height in image pixels
    face: float  # mean face probability of its pixels
    pixels: int  # output-grid pixels that voted for it
    visible: dict[str, float] = field(default_factory=dict)  # share of 'centre', 'index0'..'index3' in view
    inside: bool = True  # outline lies within the image
    grid: np.ndarray | None = None  # GRID_V×GRID_U (found by an index: INDEX_GRID) share of each cell seen
    index_at: tuple[float, float] | None = None  # found by one corner index in view (`decode_indices`): where it lies


@dataclass
class NetOutput:
    maps: np.ndarray  # 7×h×w
    scale: float
    offset: tuple[int, int]  # (x0, y0) of the analysed window in image pixels


Confirm = Callable[[np.ndarray, list[Detection]], bool]


class Detector:
    def __init__(self, name: str = "cardnet", models_dir: Path | None = None, target_width: float | None = None,
                 face_threshold: float = 0.5, max_input: int = MAX_INPUT_PIXELS, corners: bool = True):
        path = (models_dir or MODELS_DIR) / f"{name}.onnx"
        if not path.is_file():
            raise ModelError(f"model file {path} is missing")
        self.net = network(path)
        info = _model_info(path.with_suffix(".json"))
        self.target_width = float(info["target_width"] if target_width is None else target_width)
        self.face_bleed: tuple[float, float] = info["face_bleed"]
        self.faces = str(info.get("faces", "card"))  # what its face map marks: cards, index pixels or index points
        self.face_threshold = float(face_threshold)
        self.max_input = int(max_input)
        self.corners = bool(corners)  # whether outlines measure their top-right and bottom-left corners

    # -- network ------------------------------------------------------------------------
    def run(self, image: np.ndarray, s: float, window: tuple[int, int, int, int] | None = None) -> NetOutput:
        """Network maps of `image` (or of the window x0, y0, x1, y1) scaled by `s`."""
        x0, y0 = 0, 0
        if window is not None:
            x0, y0, x1, y1 = window
            image = image[y0:y1, x0:x1]
        h, w = image.shape[:2]
        W, H = max(1, int(round(w * s))), max(1, int(round(h * s)))
        small = shrink(image, W, H)
        PW, PH = -(-W // STRIDE) * STRIDE, -(-H // STRIDE) * STRIDE
        if (PW, PH) != (W, H):
            small = cv2.copyMakeBorder(small, 0, PH - H, 0, PW - W, cv2.BORDER_REPLICATE)
        out = self._forward(small)[:, : -(-H // 2), : -(-W // 2)]
        # Effective scales along x and y differ by rounding; use their mean (sub-pixel effect).
        return NetOutput(out, 0.5 * (W / w + H / h), (x0, y0))

    def _forward(self, small: np.ndarray) -> np.ndarray:
        """Network maps (7 × H/2 × W/2) of a padded input; a large input runs in tiles, each with
        TILE_MARGIN pixels of context on every side, which gives the same maps as one run."""
        PH, PW = small.shape[:2]
        if PH * PW <= self.max_input:
            return self._net_maps(small)
        core = int(math.sqrt(self.max_input)) - 2 * TILE_MARGIN
        out = np.empty((7, PH // 2, PW // 2), np.float32)
        for y0, y1 in _spans(PH, core):
            for x0, x1 in _spans(PW, core):
                ya, yb = max(0, y0 - TILE_MARGIN), min(PH, y1 + TILE_MARGIN)
                xa, xb = max(0, x0 - TILE_MARGIN), min(PW, x1 + TILE_MARGIN)
                maps = self._net_maps(small[ya:yb, xa:xb])
                out[:, y0 // 2: y1 // 2, x0 // 2: x1 // 2] = maps[:, (y0 - ya) // 2: (y1 - ya) // 2,
                                                                  (x0 - xa) // 2: (x1 - xa) // 2]
        return out

    def _net_maps(self, small: np.ndarray) -> np.ndarray:
        blob = cv2.dnn.blobFromImage(small, scalefactor=1 / 255.0, mean=(127.5, 127.5, 127.5))
        return self.net.run(blob)[0][0]

    @staticmethod
    def card_width(out: NetOutput, face_threshold: float = 0.5) -> float | None:
        """Median card width (image pixels) over face pixels, from the size channel."""
        face = out.maps[0] > _logit(face_threshold)
        if face.sum() < 6:
            return None
        w_out = float(np.exp(np.median(out.maps[5][face]))) * OFFSET_SCALE
        return 2.0 * w_out / out.scale

    def find_scale(self, image: np.ndarray, window: tuple[int, int, int, int] | None = None,
                   confirm: Confirm | None = None) -> tuple[NetOutput | None, float | None, list[Detection] | None]:
        """First passes: the network output, card width and outlines of the first reduction that
        sees whole cards at a size it reads well (else the closest one, without outlines).

        `confirm(image, outlines) -> bool`: whether outlines whose middle shows read as cards.
        Large cards all overlapping one another: the pass that sees them at a size it reads
        well sees none whole, and a milder pass took the corner indices, printed in boxes, for
        small cards seen whole. Such a pass, vouched for by `confirm`, is taken unless a milder
        one sees whole cards at least `INDEX_SHARE` of its size."""
        best: tuple[float, NetOutput | None, float | None] = (math.inf, None, None)
        vouched: tuple[NetOutput, float, list[Detection]] | None = None
        for s in PASS1_SCALES:
            out = self.run(image, s, window)
            width = self.card_width(out, self.face_threshold)
            if width is None:
                continue
            miss = self._miss(width, out.scale)
            if miss < math.log(1.6):
                # Cards seen whole give the size: the size channel's median alone may be a
                # patterned table's (marble veins taken for cards too small to see at this pass).
                dets = self._decode(out, image)
                whole = [d.size[0] for d in dets if seen_whole(d)]
                if whole:
                    width = float(np.median(whole))
                    if self._miss(width, out.scale) < math.log(1.6):
                        if vouched is not None and width < INDEX_SHARE * vouched[1]:
                            return vouched
                        return out, width, dets
                elif vouched is None and dets and confirm is not None and confirm(image, dets):
                    vouched = (out, float(np.median([d.size[0] for d in dets])), dets)
            if miss < best[0]:
                best = (miss, out, width)
        return vouched if vouched is not None else (best[1], best[2], None)

    def _miss(self, width: float, scale: float) -> float:
        """How far (log ratio) a card width at a network scale is from the width it reads best."""
        return abs(math.log(width * scale / self.target_width))

    def _decode(self, out: NetOutput, image: np.ndarray,
                focus: tuple[float, float, float, float] | None = None) -> list[Detection]:
        return decode(out, image.shape[1], image.shape[0], self.face_threshold, self.face_bleed, focus, self.corners)

    def scale_for(self, card_width: float) -> float:
        return float(np.clip(self.target_width / max(card_width, 1.0), 0.05, 1.5))

    # -- whole image --------------------------------------------------------------------
    def detect(self, image: np.ndarray, card_width: float | None = None,
               window: tuple[int, int, int, int] | None = None,
               confirm: Confirm | None = None,
               focus: tuple[float, float, float, float] | None = None) -> tuple[list[Detection], float | None]:
        """Card outlines in `image` (or only those centred in `window`); also the card width used
        (`confirm`: see `find_scale`). With the card width known, `focus` (a box in the window):
        only the outlines centred in it, found at less cost (see `decode`)."""
        if card_width is None:
            first, card_width, dets = self.find_scale(image, window, confirm)
            if first is None or card_width is None:
                return [], None
            s = self.scale_for(card_width)
            if abs(s / first.scale - 1) >= 0.2:
                dets = self._decode(self.run(image, s, window), image)
            elif dets is None:
                dets = self._decode(first, image)
        else:
            dets = self._decode(self.run(image, self.scale_for(card_width), window), image, focus)
        if dets:
            card_width = float(np.median([d.size[0] for d in dets]))
        return dets, card_width


def seen_whole(d: Detection) -> bool:
    """The card's middle and both corner indices (top left, bottom right) are in view."""
    return min((d.visible.get(k, 0.0) for k in ("centre", "index0", "index2")), default=0.0) > WHOLE_SEEN


CUT_NEAR = 0.1  # card widths: a card this near the picture's border may run past it
# Share of its length (by its width and the deck's shape) below which such a card is cut. At 0.93
# (stop 32) a card cut by 5-7 % still read, a third of the false cards left on train tables; at
# 0.945 train 7000 / 7500 / 8000 / 8500 read the same cards, with 2 / 1 / 2 / 1 false cards
# fewer; at 0.96 cards lying wholly inside near the border were lost (5 on 8000 and 8500).
CUT_SHORT = 0.945
CUT_CLEAR = 0.15  # card widths: cards this far from the border give the deck's shape


def cut_by_border(dets: list[Detection], img_w: int, img_h: int,
                  aspect: float | None = None) -> tuple[list[Detection], float | None]:
    """The outlines, those of cards that run past the picture's border marked as not inside it;
    and the deck's shape (height / width) they were judged by.

    The face map stops at the border, so a card cut by it is outlined as a whole card a few
    pixels inside (the face's bleed taken off) but short across the border. A card seen whole
    near the border whose length that way falls below `CUT_SHORT` of what its other side and
    the deck's shape call for runs past it (train pool: such cards measure 0.82-1.04 of their
    length, cards lying wholly inside 0.946-1.13). The shape is the median of the cards seen
    whole away from the border, else `aspect` (the last picture's: the deck does not change)."""
    whole = [(d, border_margins(d.quad, img_w, img_h)) for d in dets if d.inside and seen_whole(d)]
    clear = [d for d, margins in whole if margins.min() > CUT_CLEAR * d.size[0]]
    if len(clear) >= 2:
        aspect = float(np.median([d.size[1] / d.size[0] for d in clear]))
    if aspect is None:
        return dets, None
    cut = set()
    for d, margins in whole:
        side = int(np.argmin(margins))
        if margins[side] < CUT_NEAR * d.size[0]:
            # The card's side that runs toward the border: the one more nearly along its normal.
            normal = np.array([1.0, 0.0]) if side in (0, 2) else np.array([0.0, 1.0])
            u, v = d.quad[1] - d.quad[0], d.quad[3] - d.quad[0]
            width, height = d.size
            across_u = abs(u @ normal) / np.linalg.norm(u) > abs(v @ normal) / np.linalg.norm(v)
            share = width * aspect / height if across_u else height / (width * aspect)
            if share < CUT_SHORT:
                cut.add(id(d))
    return [replace(d, inside=False) if id(d) in cut else d for d in dets], aspect


def border_margins(quad: np.ndarray, img_w: int, img_h: int) -> np.ndarray:
    """Pixels between an outline and the picture's left, top, right and bottom borders."""
    return np.array([quad[:, 0].min(), quad[:, 1].min(), img_w - 1 - quad[:, 0].max(), img_h - 1 - quad[:, 1].max()])


def within_picture(quad: np.ndarray, width: float, img_w: int, img_h: int) -> bool:
    """An outline lies within the picture (up to `BORDER_SLACK` of the card's width past its border)."""
    return bool(border_margins(quad, img_w, img_h).min() > -BORDER_SLACK * width)


def _model_info(path: Path) -> dict:
    """The detector's sidecar: the card width it was trained to read best and its face map's
    bleed past card edges; a missing file gives the defaults."""
    if path.is_file():
        try:
            info = json.loads(path.read_text())
            target_width = float(info.get("target_width", TARGET_WIDTH))
            bleed = tuple(float(v) for v in info.get("face_bleed", (0.0, 0.0)))
            if len(bleed) != 2:
                raise ValueError("face_bleed: two numbers (output pixels across, along)")
        except (ValueError, TypeError, AttributeError) as exc:
            raise ModelError(f"cannot read {path}: {exc}") from None
        return {**info, "target_width": target_width, "face_bleed": bleed}
    return {"target_width": TARGET_WIDTH, "face_bleed": (0.0, 0.0)}


def _spans(n: int, core: int) -> list[tuple[int, int]]:
    """Split 0..n (a multiple of STRIDE) into equal-ish spans of at most `core`, on STRIDE steps."""
    parts = -(-n // max(core, STRIDE))
    step = -(-n // (parts * STRIDE)) * STRIDE
    return [(a, min(n, a + step)) for a in range(0, n, step)]


def _logit(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


# Peaks of the centre votes are cards when no higher vote lies within PEAK_SPAN / 2 card widths,
# and a face pixel is a card's when its vote falls within VOTE_REACH of that card's peak. The
# strips of a tight overlapping row are a few tenths of a card apart and their vote clouds run
# together: at 0.3 / 0.3 the detector merged neighbouring strips (a row read 5, 7, 9) and a
# card's instance took in stray votes. Train pool, 200 tables each, seeds 7000 / 7500 / 8000 /
# 8500: exact 97.67 / 95.16 / 95.53 / 96.23 -> 97.73 / 95.78 / 95.64 / 96.43 %; a span of 0.15 or
# a reach of 0.2 took fragments for cards. The cost: some of the partly hidden cards now found
# are read in the wrong colour (README, card recogniser row).
PEAK_SPAN = 0.2
VOTE_REACH = 0.25


def _votes(maps: np.ndarray, face_threshold: float) -> tuple[np.ndarray, ...]:
    """The face mask, its pixels (ys, xs), their face probability and the centres they vote for
    (vx, vy), on the output grid."""
    face = maps[0] > _logit(face_threshold)
    ys, xs = np.nonzero(face)
    prob = 1.0 / (1.0 + np.exp(-maps[0][ys, xs]))
    return face, ys, xs, prob, xs + maps[1][ys, xs] * OFFSET_SCALE, ys + maps[2][ys, xs] * OFFSET_SCALE


def decode(out: NetOutput, img_w: int, img_h: int, face_threshold: float = 0.5,
           face_bleed: tuple[float, float] = (0.0, 0.0),
           focus: tuple[float, float, float, float] | None = None, corners: bool = True) -> list[Detection]:
    """Votes -> peaks -> instances -> outlines (image pixels). `face_bleed`: how much wider and
    taller than the card (output pixels) a rectangle fitted to its face pixels comes out: the
    network's face map runs over the card's edges (a figure of the model, in its sidecar).
    `focus` (x0, y0, x1, y1, image pixels): only the outlines centred in it are wanted (a changed
    region read again); cards further than a card's size from it are not outlined. `corners`:
    what is seen of the top-right and bottom-left corners too (`index1`, `index3`)."""
    maps = out.maps
    _, h, w = maps.shape
    face, ys, xs, prob, vx, vy = _votes(maps, face_threshold)
    if len(xs) < 6:
        return []
    lw, lh = maps[5][ys, xs], maps[6][ys, xs]
    cw = float(np.exp(_median(lw))) * OFFSET_SCALE  # typical card size on the output grid
    ch = float(np.exp(_median(lh))) * OFFSET_SCALE

    # Vote image with a margin (centres of cards cut by the border lie outside the view).
    m = int(math.ceil(0.6 * max(cw, ch))) + 2
    gw, gh = w + 2 * m, h + 2 * m
    ix = np.clip(np.round(vx).astype(np.int64) + m, 0, gw - 1)
    iy = np.clip(np.round(vy).astype(np.int64) + m, 0, gh - 1)
    acc = np.bincount(iy * gw + ix, weights=prob, minlength=gw * gh).reshape(gh, gw).astype(np.float32)
    sigma = max(0.7, 0.04 * cw)
    acc = cv2.GaussianBlur(acc, (0, 0), sigma)
    k = max(3, int(round(PEAK_SPAN * cw)) | 1)
    peaks = (acc >= cv2.dilate(acc, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) & (
        acc > max(0.5, 0.02 * cw * ch / (2 * math.pi * sigma * sigma)))
    py, px = np.nonzero(peaks)
    if len(px) == 0:
        return []
    order = np.argsort(-acc[py, px])
    px, py = px[order].astype(np.float64) - m, py[order].astype(np.float64) - m

    # Assign each face pixel to the peak nearest to its vote (within VOTE_REACH): a
    # nearest-peak label map over the vote grid makes this one lookup per pixel.
    seeds = np.full((gh, gw), 255, np.uint8)
    seeds[(py + m).astype(np.int64), (px + m).astype(np.int64)] = 0
    dist, lab = cv2.distanceTransformWithLabels(seeds, cv2.DIST_L2, 5, labelType=cv2.DIST_LABEL_PIXEL)
    peak_of_label = np.full(int(lab.max()) + 1, -1, np.int64)
    peak_of_label[lab[(py + m).astype(np.int64), (px + m).astype(np.int64)]] = np.arange(len(px))
    best = peak_of_label[lab[iy, ix]]
    ok = (best >= 0) & (dist[iy, ix] <= VOTE_REACH * cw)
    # Instances: the pixels that voted for each peak (indices in order, grouped by peak at
    # once); a rectangle fitted to each.
    voters = np.flatnonzero(ok)
    voters = voters[np.argsort(best[voters], kind="stable")]
    bounds = np.searchsorted(best[voters], np.arange(len(px) + 1))
    # The rectangle is fitted to the convex hull of an instance's pixels, which is that of the
    # first and last pixel of each of its rows (its pixels come row by row): minAreaRect gives
    # the same rectangle for them at a fraction of the cost.
    vrow, vpeak = ys[voters], best[voters]
    first = np.ones(len(voters), bool)
    first[1:] = (vrow[1:] != vrow[:-1]) | (vpeak[1:] != vpeak[:-1])
    rim = first | np.append(first[1:], True)
    rim_pts = np.stack([xs[voters[rim]], vrow[rim]], 1).astype(np.float32)
    rim_bounds = np.append(0, np.cumsum(rim))[bounds]
    inst = []
    for j in range(len(px)):
        sel = voters[bounds[j]:bounds[j + 1]]
        n = len(sel)
        if n < max(4, 0.03 * cw * ch):
            continue
        (rx, ry), (r1, r2), _a = cv2.minAreaRect(rim_pts[rim_bounds[j]:rim_bounds[j + 1]])
        box = cv2.boxPoints(((rx, ry), (r1, r2), _a))
        e1, e2 = box[1] - box[0], box[2] - box[1]
        long_edge = e1 if np.linalg.norm(e1) >= np.linalg.norm(e2) else e2
        rw, rh = sorted((r1 + 1.0, r2 + 1.0))  # pixel centres -> pixel extents
        rw, rh = rw - face_bleed[0], rh - face_bleed[1]
        inst.append((sel, n, (rx, ry), (rw, rh), long_edge))

    # The card size of this table, measured on cards seen whole: their pixels fill a
    # rectangle of a card's aspect (the network's size channel is the fallback).
    whole = [(rw, rh) for _sel, n, _c, (rw, rh), _e in inst
             if 1.3 < rh / max(rw, 1e-6) < 1.75 and n > 0.85 * rw * rh and abs(rw / cw - 1) < 0.35]
    if len(whole) >= 1:
        cw, ch = (float(np.median([w_ for w_, _h in whole])), float(np.median([h_ for _w, h_ in whole])))

    seen = [abs(rw / cw - 1) < 0.12 and abs(rh / ch - 1) < 0.12 and n > 0.8 * rw * rh
            for _sel, n, _c, (rw, rh), _e in inst]
    if focus is not None:
        # Far from the focus only cards seen whole count (a hidden card's neighbours take their
        # direction; a small instance inside one is a fragment); the rest are not outlined.
        near = _near(focus, out, max(cw, ch), [c for _s, _n, c, _r, _e in inst])
        if not any(near):
            return []
        keep = [k for k in range(len(inst)) if near[k] or seen[k]]
        inst, seen = [inst[k] for k in keep], [seen[k] for k in keep]
    edges = _EdgeField(maps[0])  # computed on first use
    s = out.scale
    x0, y0 = out.offset
    # Partly hidden cards whose centre lies outside the focus whatever their free edges move it
    # (by under FREE_SHIFT of a card along each side) give no outline: their pose is settled
    # only if they might cover a fragment (`_without_fragments`).
    reach = FREE_SHIFT * math.hypot(cw, ch) * 2.0 / s + FAR_MARGIN  # image pixels
    poses: dict[int, tuple] = {}  # (centre, direction, width, height, seen whole) once settled, output grid
    voted: dict[int, np.ndarray] = {}  # voted centres of the partly hidden cards
    far: set[int] = set()  # partly hidden cards that give no outline (centred outside the focus)
    for k, ((sel, _n, (rx, ry), (rw, rh), long_edge), is_whole) in enumerate(zip(inst, seen, strict=True)):
        if is_whole:
            # Seen whole: the fitted rectangle is the outline.
            poses[k] = (np.array([rx, ry]), math.atan2(long_edge[1], long_edge[0]) % math.pi, rw, rh, True)
            continue
        voted[k] = c = np.array([_median(vx[sel]), _median(vy[sel])])
        if focus is not None:
            cx, cy = out_to_full(c[None], s)[0] + [x0, y0]
            if max(focus[0] - cx, cx - focus[2], focus[1] - cy, cy - focus[3]) > reach:
                far.add(k)
    whole = [(c, th) for c, th, _w, _h, _s in poses.values()]
    own = [(xs[sel].astype(np.float64), ys[sel].astype(np.float64)) for sel, *_rest in inst]
    cos2, sin2 = maps[3][ys, xs], maps[4][ys, xs]  # the network's direction at every face pixel

    def pose_of(k: int) -> tuple:
        """A partly hidden card's pose: the voted centre, the direction of its free edges (the
        network's direction picks which of the two square directions is the long side), the
        table's card size; lined up with a whole neighbour, placed by its free edges."""
        if k not in poses:
            sel, c = inst[k][0], voted[k]
            c2, s2 = float(np.mean(cos2[sel])), float(np.mean(sin2[sel]))
            th = _aligned_with_neighbour(c, edges.direction(xs[sel], ys[sel], c2, s2), whole, ch)
            poses[k] = _placed_by_free_edges((c, th, cw, ch, False), *own[k], face, face_bleed)
        return poses[k]

    frames: dict[int, tuple] = {}

    def frame_of(k: int) -> tuple:
        """(centre, u, v, width, height) of an instance, output grid."""
        if k not in frames:
            c, th, wj, hj, _whole = pose_of(k)
            frames[k] = (c, *_axes(th or math.pi), wj, hj)
        return frames[k]

    placed: list[tuple[int, np.ndarray, float, np.ndarray]] = []  # (instance, centre, direction, outline)
    for k in range(len(inst)):
        if k in far:
            continue
        c, u, v, wj, hj = frame_of(k)
        centre = out_to_full(c[None], s)[0] + [x0, y0]
        if focus is not None and not (focus[0] <= centre[0] < focus[2] and focus[1] <= centre[1] < focus[3]):
            continue
        q = np.array([c - wj / 2 * u - hj / 2 * v, c + wj / 2 * u - hj / 2 * v, c + wj / 2 * u + hj / 2 * v,
                      c - wj / 2 * u + hj / 2 * v])
        placed.append((k, centre, pose_of(k)[1] or math.pi, q))
    # What part of each card is seen: its own pixels against all pixel centres of the card.
    seen_of = _visibility([own[k] for k, *_r in placed], [frame_of(k) for k, *_r in placed],
                          [q for *_r, q in placed], VIEW_BOXES if corners else VIEW_BOXES[:3])
    dets: list[Detection | None] = [None] * len(inst)  # None: outside the focus, only a possible coverer
    for (k, centre, th, q), (vis, grid) in zip(placed, seen_of, strict=True):
        sel, n = inst[k][0], inst[k][1]
        wj, hj = frame_of(k)[3:]
        quad = out_to_full(q, s) + [x0, y0]
        sw = 2.0 / s
        inside = within_picture(quad, wj * sw, img_w, img_h)
        dets[k] = Detection(quad=quad, centre=(float(centre[0]), float(centre[1])), angle=math.degrees(th) % 180.0,
                            size=(wj * sw, hj * sw), face=float(prob[sel].mean()), pixels=n, visible=vis,
                            inside=inside, grid=grid)
    pixels = [len(sel) for sel, *_rest in inst]
    outlined = [i for i, d in enumerate(dets) if d is not None]
    if not outlined:
        return []
    # Only the outlined cards and those large enough to cover one of them need be sorted out
    # (a card's coverers are three times its size, and theirs larger still).
    least = min(pixels[i] for i in outlined)
    wanted = set(outlined) | {i for i, n in enumerate(pixels) if n >= 3 * least}
    kept = _without_fragments(pixels, own, frame_of, wanted)
    return [dets[i] for i in outlined if i in kept]


EDGE_SIGMA = 1.5  # output pixels
EDGE_SURE = 0.35  # agreement of a card's edge directions (0..1) needed to prefer them to the network's


class _EdgeField:
    """Where a card's face meets the table, the face map falls off across the card's edges: the
    directions of those fall-offs around a card's own pixels give its outline's two directions
    (modulo a quarter turn), more exactly than the network's direction channels, which see
    little of a narrow strip and are biased toward the picture's axes."""

    def __init__(self, face_logits: np.ndarray):
        self.logits = face_logits
        self._grad: tuple[np.ndarray, np.ndarray] | None = None

    def gradient(self) -> tuple[np.ndarray, np.ndarray]:
        if self._grad is None:
            prob = (1.0 / (1.0 + np.exp(-np.clip(self.logits, -20, 20)))).astype(np.float32)
            # Smoothed first: on the coarse grid a turned edge is a staircase, whose raw gradients
            # point along the axes and the diagonals (which cancel in the quarter-turn average).
            prob = cv2.GaussianBlur(prob, (0, 0), EDGE_SIGMA)
            self._grad = cv2.Sobel(prob, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(prob, cv2.CV_32F, 0, 1, ksize=3)
        return self._grad

    def direction(self, xs: np.ndarray, ys: np.ndarray, c2: float, s2: float) -> float:
        """Long-side direction (radians, [0, π)) of the card owning pixels xs, ys; c2, s2: the
        network's cos 2θ, sin 2θ there."""
        net = (0.5 * math.atan2(s2, c2)) % math.pi
        gx_all, gy_all = self.gradient()
        h, w = gx_all.shape
        x0, y0 = max(0, int(xs.min()) - 2), max(0, int(ys.min()) - 2)
        x1, y1 = min(w, int(xs.max()) + 3), min(h, int(ys.max()) + 3)
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        mask[ys - y0, xs - x0] = 1
        near = cv2.dilate(mask, np.ones((3, 3), np.uint8), iterations=2) > 0  # its pixels and 2 round them
        gx, gy = gx_all[y0:y1, x0:x1][near], gy_all[y0:y1, x0:x1][near]
        m2 = gx * gx + gy * gy
        total = float(m2.sum())
        if total < 1e-6:
            return net
        phi = np.arctan2(gy, gx)
        z = complex(float((m2 * np.cos(4 * phi)).sum()), float((m2 * np.sin(4 * phi)).sum()))
        if abs(z) < EDGE_SURE * total:
            return net
        alpha = math.atan2(z.imag, z.real) / 4.0
        # The two directions a quarter turn apart: the long side is the one nearer the network's.
        if math.cos(2 * alpha) * c2 + math.sin(2 * alpha) * s2 < 0:
            alpha += math.pi / 2
        return alpha % math.pi


def _median(x: np.ndarray):
    """`np.median` of a 1-D array without NaNs (the same value to the bit: the middle one, or the
    mean of the middle two), without numpy's general machinery, which cost more than the
    partition on one card's pixels."""
    k = len(x) // 2
    if len(x) % 2:
        return np.partition(x, k)[k]
    part = np.partition(x, (k - 1, k))
    return (part[k - 1] + part[k]) / 2


def _axes(th: float) -> tuple[np.ndarray, np.ndarray]:
    """A card's frame for a long-side direction th: u across the card, v along it."""
    return np.array([math.sin(th), -math.cos(th)]), np.array([math.cos(th), math.sin(th)])


FREE_FACE = 0.5  # share of face pixels just past a side above which that side is covered, not free
FREE_SHIFT = 0.15  # largest move of a voted centre (card sizes) that the free edges may make
FAR_MARGIN = 1.0  # image pixels past a centre's reach from the focus at which its card is certainly outside it


def _placed_by_free_edges(pose: tuple, xs: np.ndarray, ys: np.ndarray, face: np.ndarray,
                          bleed: tuple[float, float]) -> tuple:
    """A partly hidden card's centre from where its face meets the table. Along each of the
    card's axes, its own pixels end either at a free edge (the table lies beyond) or where
    another card covers it (face continues beyond). One free side and one covered side: the
    centre is half a card in from the free one. Both sides free and the extent a card's: the
    middle. On a narrow strip the voted centre is typically a few hundredths of a card off
    (measured: median 0.04 widths, 0.013 heights), enough to cut the corner index; the free
    edges are where the map is sharpest. Only small moves are made: larger ones were wrong more
    often than right on held-out tables (+0.6 points exact at 0.15, less beyond)."""
    c, th, wj, hj, whole = pose
    u, v = _axes(th)
    rel = np.stack([xs - c[0], ys - c[1]], 1).astype(np.float64)
    h, w = face.shape
    shift = np.zeros(2)
    for k, (axis, size, b) in enumerate(((u, wj, bleed[0]), (v, hj, bleed[1]))):
        t = rel @ axis
        lo, hi = float(t.min()) - 0.5 + b / 2, float(t.max()) + 0.5 - b / 2  # the card's extent seen
        free = []
        for side, end in ((-1, lo), (1, hi)):
            edge = np.abs(t - end) < 1.5 + b / 2  # own pixels along this side
            px = c[None] + rel[edge] + side * (2.0 + b / 2) * axis[None]  # just past it
            ix, iy = np.round(px[:, 0]).astype(int), np.round(px[:, 1]).astype(int)
            inb = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
            # Shares as counts over lengths (np.mean's value; its call overhead was a fifth of this).
            n_in = np.count_nonzero(inb)
            if n_in / len(inb) < 0.7:
                free.append(None)  # past the picture's border: unknown
                continue
            free.append(bool(np.count_nonzero(face[iy[inb], ix[inb]]) / n_in < FREE_FACE))
        if free == [True, False]:
            mid = lo + size / 2
        elif free == [False, True]:
            mid = hi - size / 2
        elif free == [True, True] and abs((hi - lo) / size - 1) < 0.15:
            mid = (lo + hi) / 2
        else:
            continue
        if abs(mid) < FREE_SHIFT * size:  # larger moves were wrong more often than right
            shift[k] = mid
    return (c + shift[0] * u + shift[1] * v, th, wj, hj, whole)


ROW_ANGLE_DEG = 12.0  # a hidden card within this of a whole neighbour's direction lies as it does


def _aligned_with_neighbour(c: np.ndarray, th: float, whole: list[tuple[np.ndarray, float]], ch: float) -> float:
    """A partly hidden card's direction from its nearest card seen whole lying (nearly) the same
    way within two card heights: rows and piles lie one way, and the outline of a whole card
    gives its direction more exactly than the network's estimate on a narrow visible strip.
    `whole`: (centre, direction) of the cards seen whole."""
    best = 2.0 * ch
    for cw_, thw in whole:
        d = math.hypot(cw_[0] - c[0], cw_[1] - c[1])
        turn = abs((thw - th + math.pi / 2) % math.pi - math.pi / 2)
        if d < best and turn < math.radians(ROW_ANGLE_DEG):
            best, th = d, thw
    return th


FRAGMENT_SHARE = 0.7  # an instance this much inside cards three times its size is pieces of them


def _without_fragments(pixels: list[int], own: list[tuple[np.ndarray, np.ndarray]],
                       frame_of: Callable[[int], tuple], wanted: set[int] | None = None) -> set[int]:
    """The instances that are not small ones lying inside larger cards' outlines: votes split
    between two peaks (the pixels along the seam of two touching cards, say) leave a fragment
    that is no card. `pixels`: each instance's count of own pixels; `own`: those pixels;
    `frame_of`: an instance's frame (asked only of those that may cover a fragment); `wanted`:
    the instances to sort out (with every one three times the size of one of them), else all."""
    order = sorted(range(len(pixels)), key=lambda i: -pixels[i])
    kept: list[int] = []
    for i in order:
        if wanted is not None and i not in wanted:
            continue
        x, y = own[i]
        covered = np.zeros(len(x), bool)
        for j in kept:
            if pixels[j] >= 3 * pixels[i]:
                uu, vv = _card_uv(x, y, frame_of(j))
                covered |= (uu >= 0) & (uu <= 1) & (vv >= 0) & (vv <= 1)
        if covered.mean() < FRAGMENT_SHARE:
            kept.append(i)
    return set(kept)


def _near(focus: tuple[float, float, float, float], out: NetOutput, card: float,
          centres: list[tuple[float, float]]) -> list[bool]:
    """Which rough instance centres (output grid) lie within a card's size (`card`, output
    pixels) of the focus box (image pixels): a hidden card's outline centre may lie half a card
    from its visible part's."""
    (fx0, fy0), (fx1, fy1) = full_to_out(np.array([focus[:2], focus[2:]], np.float64) - out.offset, out.scale)
    return [fx0 - card <= cx <= fx1 + card and fy0 - card <= cy <= fy1 + card for cx, cy in centres]


def _card_uv(x: np.ndarray, y: np.ndarray, frame) -> tuple[np.ndarray, np.ndarray]:
    """Card coordinates (0..1 across, 0..1 down) of points, for a frame (centre, u, v, width, height)."""
    c, u, v, w, h = frame
    rx, ry = x - c[0], y - c[1]
    return (rx * u[0] + ry * u[1]) / w + 0.5, (rx * v[0] + ry * v[1]) / h + 0.5


VIEW_BOXES = (("centre", CENTRE_BOX), ("index0", INDEX_BOXES[0]), ("index2", INDEX_BOXES[2]),
              ("index1", CORNER_BOXES[1]), ("index3", CORNER_BOXES[3]))


def _visibility(own: list[tuple[np.ndarray, np.ndarray]], frames: list[tuple], quads: list[np.ndarray],
                boxes: tuple = VIEW_BOXES) -> list[tuple[dict[str, float], np.ndarray]]:
    """What part of each card is seen: the share of each of its `boxes` (`VIEW_BOXES`) and of each
    visibility cell (GRID_V × GRID_U) whose pixel centres are the card's `own` pixels, against
    all pixel centres of its outline (`quads`, in the same lattice, so a region fully in view
    counts 1.0 whatever its size). All cards at once: per card, numpy's call overhead cost
    more than the arithmetic."""
    n = len(frames)
    if n == 0:
        return []
    # Each field of every card's frame in a row of its own: (cx, cy, ux, uy, vx, vy, w, h).
    f = np.array([(c[0], c[1], u[0], u[1], v[0], v[1], w, h) for c, u, v, w, h in frames], np.float64).T.copy()
    sizes = [len(x) for x, _y in own]
    card = np.repeat(np.arange(n), sizes)
    g = np.repeat(f, sizes, axis=1)  # spread over the points, a field's values side by side
    u, v = _card_uv(np.concatenate([x for x, _y in own]), np.concatenate([y for _x, y in own]),
                    ((g[0], g[1]), (g[2], g[3]), (g[4], g[5]), g[6], g[7]))
    q = np.stack(quads)
    lo, hi = np.floor(q.min(axis=1)).astype(np.int64), np.ceil(q.max(axis=1)).astype(np.int64)
    nx, ny = hi[:, 0] - lo[:, 0] + 1, hi[:, 1] - lo[:, 1] + 1
    # A card's box is a lattice of columns x by rows y: `_card_uv`'s terms rx * u_x (one per
    # column) and ry * u_y (one per row) are made once each, then added for every point (the
    # same arithmetic, hence the same values, as point by point).
    colcard, rowcard = np.repeat(np.arange(n), nx), np.repeat(np.arange(n), ny)
    rx = (lo[colcard, 0] + _ranks(nx)).astype(np.float64) - f[0, colcard]
    ry = (lo[rowcard, 1] + _ranks(ny)).astype(np.float64) - f[1, rowcard]
    xu, xv, yu, yv = rx * f[2, colcard], rx * f[4, colcard], ry * f[3, rowcard], ry * f[5, rowcard]
    # The points row by row: each row's columns are its card's, the first at its card's first.
    rowlen = nx[rowcard]
    first = np.cumsum(rowlen) - rowlen  # each row's first point
    row = np.repeat(np.arange(len(rowcard)), rowlen)
    col = np.arange(int(rowlen.sum())) - np.repeat(first - (np.cumsum(nx) - nx)[rowcard], rowlen)
    lcard = np.repeat(np.arange(n), nx * ny)
    lu = (xu[col] + yu[row]) / np.repeat(f[6], nx * ny) + 0.5
    lv = (xv[col] + yv[row]) / np.repeat(f[7], nx * ny) + 0.5

    def count_in(uu, vv, which, box):
        u0, v0, u1, v1 = box
        return np.bincount(which[(uu >= u0) & (uu <= u1) & (vv >= v0) & (vv <= v1)], minlength=n)

    shares = {}
    for name, box in boxes:
        mine, total = count_in(u, v, card, box), count_in(lu, lv, lcard, box)
        shares[name] = np.where(total > 0, np.minimum(1.0, mine / np.maximum(total, 1)), 0.0)
    grid = _cells(u, v, card, n) / np.maximum(_cells(lu, lv, lcard, n), 1.0)
    grid = np.clip(grid, 0, 1).astype(np.float32)
    return [({name: float(shares[name][k]) for name, _b in boxes}, grid[k]) for k in range(n)]


def _ranks(counts: np.ndarray) -> np.ndarray:
    """0, 1, .., counts[0] - 1, 0, 1, .., counts[1] - 1, ...: each item's place in its run."""
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def _cells(u: np.ndarray, v: np.ndarray, card: np.ndarray, n: int) -> np.ndarray:
    """n × GRID_V × GRID_U: how many of each card's points (card coordinates u, v) fall in each cell."""
    inb = (u >= 0) & (u < 1) & (v >= 0) & (v < 1)
    gu = (u[inb] * GRID_U).astype(np.int64)
    gv = (v[inb] * GRID_V).astype(np.int64)
    cell = (card[inb] * GRID_V + gv) * GRID_U + gu
    return np.bincount(cell, minlength=n * GRID_U * GRID_V).reshape(n, GRID_V, GRID_U).astype(np.float32)


INDEX_FACE_REACH = 0.2  # card widths: index pixels whose votes lie this near a peak are its card's
INDEX_PEAK_SPAN = 0.25  # card widths: the least distance between two cards' voted centres
INDEX_BOX_SLACK = 0.1  # card sides: how far past its index box a voter may lie and still be that index's
INDEX_VOTERS = 0.2  # share of a card's voters that must lie on an index for it to be in view
INDEX_GRID = (12, 18)  # cells across and down a card found by its index: what of it is seen


def decode_indices(out: NetOutput, img_w: int, img_h: int, card_w: float, aspect: float,
                   face_threshold: float = 0.5, explained: Sequence[np.ndarray] = ()) -> list[Detection]:
    """Outlines from a network whose face map is the cards' corner indices (`cardindex.onnx`,
    `train_det --faces index`): in a loose heap a card may show little more than an index. The
    index pixels vote for their card's centre; each peak is a card of the table's size (`card_w`
    image pixels, `aspect` height / width) lying along the mean direction of its voters. The
    indices in view are those its voters lie on (`_indices_voting`); its colour is named from
    their cells (`grid`), and where a lone index lies is kept (`index_at`). `explained`: convex
    quads (image pixels) round indices already read; the pixels within them do not vote, so an
    index shown beside a card's own votes alone for its card."""
    maps = out.maps
    _face, ys, xs, prob, vx, vy = _votes(maps, face_threshold)
    if len(explained) and len(xs):
        free = _outside(maps.shape[1:], explained, out)[ys, xs]
        ys, xs, prob, vx, vy = ys[free], xs[free], prob[free], vx[free], vy[free]
    if len(xs) < 4:
        return []
    s = out.scale
    cw = card_w * s / 2.0  # the card on the output grid
    ch = cw * aspect
    _, h, w = maps.shape
    m = int(math.ceil(0.6 * ch)) + 2  # centres of cards whose index shows may lie past the border
    gw, gh = w + 2 * m, h + 2 * m
    ix = np.clip(np.round(vx).astype(np.int64) + m, 0, gw - 1)
    iy = np.clip(np.round(vy).astype(np.int64) + m, 0, gh - 1)
    acc = np.bincount(iy * gw + ix, weights=prob, minlength=gw * gh).reshape(gh, gw).astype(np.float32)
    acc = cv2.GaussianBlur(acc, (0, 0), max(0.7, 0.04 * cw))
    k = max(3, int(round(INDEX_PEAK_SPAN * cw)) | 1)
    peaks = (acc >= cv2.dilate(acc, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))) & (acc > 0.5)
    dets = []
    for py, px in zip(*np.nonzero(peaks), strict=True):
        sel = np.hypot(vx - (px - m), vy - (py - m)) < INDEX_FACE_REACH * cw
        if sel.sum() < 4:
            continue
        c = np.array([np.median(vx[sel]), np.median(vy[sel])])
        th = 0.5 * math.atan2(float(maps[4][ys[sel], xs[sel]].mean()), float(maps[3][ys[sel], xs[sel]].mean()))
        u, v = _axes(th)
        q = np.array([c - cw / 2 * u - ch / 2 * v, c + cw / 2 * u - ch / 2 * v, c + cw / 2 * u + ch / 2 * v,
                      c - cw / 2 * u + ch / 2 * v])
        quad = out_to_full(q, s) + list(out.offset)
        centre = quad.mean(axis=0)
        shown, on = _indices_voting(xs[sel], ys[sel], c, u, v, cw, ch)
        px, py = (xs[sel], ys[sel]) if on is None else (xs[sel][on], ys[sel][on])
        at = None if on is None else out_to_full(np.array([px.mean(), py.mean()]), s) + list(out.offset)
        dets.append(Detection(quad=quad, centre=(float(centre[0]), float(centre[1])), angle=math.degrees(th) % 180.0,
                              size=(card_w, card_w * aspect), face=float(prob[sel].mean()), pixels=int(sel.sum()),
                              visible={"centre": 0.0, **shown}, inside=within_picture(quad, card_w, img_w, img_h),
                              grid=_index_grid(out, px, py, quad),
                              index_at=None if at is None else (float(at[0]), float(at[1]))))
    return dets


# Cards found by their corner index points (a finder trained by `train/train_points.py`; none ships): the
# network's heat peaks at the middle of every corner index in view, where it also says which
# way the index stands (a whole turn) and where its card's centre lies.
POINT_HEAT = 0.3  # least heat of an index's peak
POINT_SAME = 0.2  # card widths between the centres two indices give for one card
POINT_PARALLEL = math.cos(math.radians(25))  # two indices of one card stand alike or opposite
POINT_TWICE = 0.08  # card widths between two peaks of one index


def decode_index_points(out: NetOutput, img_w: int, img_h: int, card_w: float, aspect: float,
                        threshold: float = POINT_HEAT) -> list[Detection]:
    """Outlines of the cards whose corner indices show, from an index point finder's maps (heat,
    offset to the card's centre, cos θ and sin θ of the index's upright direction): each peak of
    the heat is an index; the card is the table's size (`card_w` image pixels, `aspect` height /
    width), upright as its index, centred where the index says. An index printed at the top
    left of its card, upright, or at the bottom right, turned (every design prints one of
    these), is read as the outline's `index0`; the indices of one card found twice make one
    outline with `index2` in view too. An index printed at the other corners (designs with four,
    or two at the top) alone places no outline: the crop that reads an index is the top left."""
    maps = out.maps
    heat = 1.0 / (1.0 + np.exp(-maps[0]))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= threshold)
    s = out.scale
    cw = card_w * s / 2.0  # the card on the output grid
    ch = cw * aspect
    _, h, w = maps.shape
    found = []  # (heat, index point, centre, upright direction, top left) on the output grid
    for py, px in zip(*np.nonzero(peaks), strict=True):
        y0, y1, x0, x1 = max(py - 1, 0), min(py + 2, h), max(px - 1, 0), min(px + 2, w)
        wt = heat[y0:y1, x0:x1]
        wt = wt / wt.sum()
        up = np.array([(maps[3][y0:y1, x0:x1] * wt).sum(), (maps[4][y0:y1, x0:x1] * wt).sum()])
        if np.linalg.norm(up) < 0.5:  # the network cannot tell which way it stands
            continue
        up /= np.linalg.norm(up)
        p = np.array([px, py], np.float64)
        c = p + OFFSET_SCALE * np.array([(maps[1][y0:y1, x0:x1] * wt).sum(), (maps[2][y0:y1, x0:x1] * wt).sum()])
        v = -up
        u = np.array([v[1], -v[0]])
        du, dv = float((c - p) @ u) / cw, float((c - p) @ v) / ch
        if not (0.15 < abs(du) < 0.6 and 0.15 < dv < 0.6):  # not where a corner index lies on its card
            continue
        found.append((float(heat[py, px]), p, c, up, du > 0))
    found.sort(key=lambda f: -f[0])
    # Indices of one card: their centres agree and they stand alike or opposite; a card has one
    # index at each printed corner, so an index standing as one it already has, elsewhere, is
    # another card's (a fan's cards lie a fifth of a width apart: their centres as near).
    cards: list[tuple[float, np.ndarray, list, dict]] = []  # heat, frame's up, centres, corner -> index point
    for hv, p, c, up, top_left in found:
        best, near = None, POINT_SAME * cw
        for card in cards:
            cos = float(up @ card[1])
            corner = (top_left, cos > 0)
            gap = float(np.linalg.norm(np.mean(card[2], axis=0) - c))
            if (abs(cos) >= POINT_PARALLEL and gap < near
                    and (corner not in card[3] or np.linalg.norm(card[3][corner] - p) < POINT_TWICE * cw)):
                best, near = (card, corner), gap
        if best is None:
            cards.append((hv, up, [c], {(top_left, True): p}))
        else:
            best[0][2].append(c)
            best[0][3].setdefault(best[1], p)
    dets = []
    for hv, up, centres, corners in cards:
        first, second = corners.get((True, True)), corners.get((True, False))
        if first is None and second is not None:  # only the other index reads: the frame turned half a turn
            up, first, second = -up, second, None
        if first is None:
            continue
        c = np.mean(centres, axis=0)
        v = -up
        u = np.array([v[1], -v[0]])
        q = np.array([c - cw / 2 * u - ch / 2 * v, c + cw / 2 * u - ch / 2 * v, c + cw / 2 * u + ch / 2 * v,
                      c - cw / 2 * u + ch / 2 * v])
        quad = out_to_full(q, s) + list(out.offset)
        centre = quad.mean(axis=0)
        at = None if second is not None else out_to_full(first, s) + list(out.offset)
        grid = np.zeros(INDEX_GRID[::-1], np.float32)
        for turn in ((0,) if second is None else (0, 2)):
            u0, v0, u1, v1 = INDEX_BOXES[turn]
            grid[int(v0 * INDEX_GRID[1]):int(math.ceil(v1 * INDEX_GRID[1])),
                 int(u0 * INDEX_GRID[0]):int(math.ceil(u1 * INDEX_GRID[0]))] = 1.0
        angle = math.degrees(math.atan2(v[1], v[0])) % 180.0
        dets.append(Detection(quad=quad, centre=(float(centre[0]), float(centre[1])), angle=angle,
                              size=(card_w, card_w * aspect), face=hv, pixels=len(centres),
                              visible={"centre": 0.0, "index0": 1.0, "index2": 0.0 if second is None else 1.0},
                              inside=within_picture(quad, card_w, img_w, img_h), grid=grid,
                              index_at=None if at is None else (float(at[0]), float(at[1]))))
    return dets


def _outside(shape: tuple[int, int], quads: Sequence[np.ndarray], out: NetOutput) -> np.ndarray:
    """Which cells of the network's output grid lie outside all the convex `quads` (image
    pixels): filled as polygons on the grid, which costs little however many cards there are."""
    inside = np.zeros(shape, np.uint8)
    for q in quads:
        cell = full_to_out(np.asarray(q, np.float64) - list(out.offset), out.scale)
        cv2.fillConvexPoly(inside, np.round(cell * 16).astype(np.int32), 1, lineType=cv2.LINE_8, shift=4)
    return inside == 0


def _indices_voting(xs: np.ndarray, ys: np.ndarray, c: np.ndarray, u: np.ndarray, v: np.ndarray,
                    cw: float, ch: float) -> tuple[dict[str, float], np.ndarray | None]:
    """Which of a card's corner indices its voters (output grid) lie on, as its 'index0' to
    'index3' in view (1 or 0): the crop of an index that no voter lies on would read whatever
    card lies over it. Also which voters lie on the index when one alone of the top-left and
    bottom-right ones is in view (the finder is taught those two: `train_det._index_mask`)."""
    d = np.stack([xs - c[0], ys - c[1]], 1).astype(np.float64)
    fu, fv = d @ u / cw + 0.5, d @ v / ch + 0.5
    shown, ons = {}, []
    for corner, (u0, v0, u1, v1) in ALL_INDEX_BOXES.items():
        on = ((fu > u0 - INDEX_BOX_SLACK) & (fu < u1 + INDEX_BOX_SLACK)
              & (fv > v0 - INDEX_BOX_SLACK) & (fv < v1 + INDEX_BOX_SLACK))
        seen = bool(on.mean() >= INDEX_VOTERS)
        shown[f"index{corner}"] = 1.0 if seen else 0.0
        if seen and corner in INDEX_BOXES:
            ons.append(on)
    return shown, (ons[0] if len(ons) == 1 else None)


def _index_grid(out: NetOutput, px: np.ndarray, py: np.ndarray, quad: np.ndarray) -> np.ndarray:
    """The cells of the card outlined by `quad` (image pixels) that the voters at (`px`, `py`,
    the finder's output grid) cover, `INDEX_GRID` of them: the colour of a card found by its
    index is named from its index, not from the cards lying over the rest of its outline. The
    voters' mask is drawn only round them (zero beyond, as the sampling's border)."""
    x0, y0 = int(px.min()) - 1, int(py.min()) - 1
    mask = np.zeros((int(py.max()) - y0 + 2, int(px.max()) - x0 + 2), np.float32)
    mask[py - y0, px - x0] = 1.0
    q = full_to_out(np.asarray(quad, np.float64) - list(out.offset), out.scale)
    gu, gv = INDEX_GRID
    m = cv2.getAffineTransform(np.float32([[0, 0], [gu, 0], [gu, gv]]), np.float32(q[:3]))
    m[:, 2] -= (x0, y0)  # the same cells, sampled from the mask's corner
    return cv2.warpAffine(mask, m, (gu, gv), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0.0)
