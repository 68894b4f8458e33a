"""Reading what a card (or a corner index, a tile, a token) shows: a small CNN (`runtime`).

Crops are cut from the photo by the outline found by the detector, in a canonical frame: `u`
runs along the top edge (TL → TR), `v` down the left edge (TL → BL), both 0..1 over the card.
Up to four crop kinds use the same network: the whole card (`CARD_REGION`, squeezed to a
square), the top-left corner index (`INDEX_REGION`) and, where the model was taught them (its
sidecar's `regions`), the central numeral nearer (`NUMERAL_REGION`) and the top-right corner
(`CORNER_REGION`, where four-index designs print an index too). The network answers jointly "which class" and
"is the crop upright or turned half a turn": an unmarked 6 turned over is a 9, and only the
joint answer keeps that coupling for the row-orientation vote (see pipeline).

The model file is a plain ONNX graph plus a JSON sidecar naming the classes, the crop size,
the temperature found on a validation split (confidence calibration) and the crop regions, so
other readers (11! tiles, Numeri tokens) can ship their own model and reuse this module.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .errors import ModelError, VisionError
from .runtime import Network, backend, network

MODELS_DIR = Path(__file__).resolve().parent / "models"

# Canonical regions, as (u0, v0, u1, v1) fractions of the card. A little outside the card on
# purpose: detector outlines are a few percent off, and the edge is a cue in itself.
CARD_REGION = (-0.03, -0.02, 1.03, 1.02)
INDEX_REGION = (-0.03, -0.02, 0.37, 0.26)
# The big central numeral, nearer (a third crop kind): squeezed whole, a card's numeral spans a
# few pixels of the crop's height, too few for an outlined or two-digit one.
NUMERAL_REGION = (0.1, 0.21, 0.9, 0.79)
# The top-right corner, where designs printing four indices print one upright (and, in the frame
# turned half a turn, the bottom-left one): the top-left index crop mirrored across the card, the
# print itself not mirrored. A fourth crop kind, read where the model was taught it (`regions`).
CORNER_REGION = (1.0 - INDEX_REGION[2], INDEX_REGION[1], 1.0 - INDEX_REGION[0], INDEX_REGION[3])
CROP = 32

# Classes of the card model; numbers are their own class (1..100): see vision/train/README-like
# notes in vision.train.crops for why whole numbers beat composing digits here.
NUMBER_MAX = 100
SPECIALS = ("joker", "link", "bonus", "bull", "back", "none")
CARD_CLASSES = tuple(str(n) for n in range(1, NUMBER_MAX + 1)) + SPECIALS


# ----------------------------------------------------------------------------------------
# Geometry of crops


def unit_homography(quad: np.ndarray) -> np.ndarray:
    """Homography from the unit square (u, v) to image pixels of `quad` (TL, TR, BR, BL)."""
    return unit_homographies(quad)[0]


class Pyramid:
    """An image and its pyrDown levels, built on demand: crops sample from the level where one
    crop pixel covers one to two source pixels (no aliasing from large reductions)."""

    def __init__(self, image: np.ndarray, window: tuple[int, int, int, int] | None = None, sparse: bool = False):
        """`window` (x0, y0, x1, y1): only that part is sampled (crops still take whole-image
        coordinates), which spares reducing the whole photo to re-read one changed region.
        `sparse`: crops reduce only the parts of it they sample (`part`), the same pixels as the
        whole window's levels there; for a region re-read, whose crops lie round the few cards
        of the region while the window reaches for their turned and shifted outlines."""
        self.sparse = sparse
        self._parts: dict[int, tuple[np.ndarray, int, int, tuple[int, int, int, int]]] = {}
        if image is None or image.ndim != 3 or image.shape[2] != 3:
            raise VisionError("expected a BGR colour image")
        self.offset = (0, 0)
        if window is not None:
            # On a multiple of 16: the window's reduced levels then sample as the whole photo's do.
            x0, y0 = max(0, int(window[0])) // 16 * 16, max(0, int(window[1])) // 16 * 16
            x1, y1 = min(image.shape[1], int(window[2])), min(image.shape[0], int(window[3]))
            if x1 - x0 >= 16 and y1 - y0 >= 16:
                image, self.offset = image[y0:y1, x0:x1], (x0, y0)
        self.levels = [image]
        self.memo: dict = {}  # things derived from the picture that several readers use (finder inputs)

    def level(self, k: int) -> np.ndarray:
        while len(self.levels) <= k:
            prev = self.levels[-1]
            if min(prev.shape[:2]) < 16:
                break
            self.levels.append(cv2.pyrDown(prev))
        return self.levels[min(k, len(self.levels) - 1)]

    @property
    def image(self) -> np.ndarray:
        return self.levels[0]

    def depth(self) -> int:
        """How many levels the pyramid has (or would have, built whole)."""
        h, w = self.levels[0].shape[:2]
        n = 1
        while min(w, h) >= 16:
            w, h, n = (w + 1) // 2, (h + 1) // 2, n + 1
        return n

    def part(self, k: int, box: tuple[int, int, int, int]) -> tuple[np.ndarray, int, int]:
        """Level k over at least `box` (x0, y0, x1, y1, level-k pixels), the same pixels there as
        `level(k)`, and the level-k pixel its first one is. A sparse pyramid reduces only what
        the box needs: level by level, twice the box and 4 pixels round it (pyrDown reads 2
        round each pixel), from a corner on a multiple of 2^k so that every level samples on
        the whole window's grid."""
        if k == 0 or not self.sparse:
            return self.level(k), 0, 0
        have = self._parts.get(k)
        if have is not None and _contains(have[3], box):
            return have[0], have[1], have[2]
        if have is not None:
            box = _union(have[3], box)
        sizes = [self.levels[0].shape[1::-1]]
        for _ in range(k):
            sizes.append(((sizes[-1][0] + 1) // 2, (sizes[-1][1] + 1) // 2))
        trusted = {k: _clip(box, sizes[k])}
        for j in range(k - 1, -1, -1):
            x0, y0, x1, y1 = trusted[j + 1]
            trusted[j] = _clip((2 * x0 - 4, 2 * y0 - 4, 2 * x1 + 4, 2 * y1 + 4), sizes[j])
        step = 2**k
        x0, y0, x1, y1 = trusted[0]
        x0, y0 = x0 // step * step, y0 // step * step
        img, ox, oy = self.levels[0][y0:y1, x0:x1], x0, y0
        for j in range(1, k + 1):
            img, ox, oy = cv2.pyrDown(img), ox // 2, oy // 2
            old = self._parts.get(j)
            if old is None or _contains(trusted[j], old[3]):
                self._parts[j] = (img, ox, oy, trusted[j])
        return img, ox, oy


def _contains(outer: tuple[int, int, int, int], inner: tuple[int, int, int, int]) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def _union(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _clip(box: tuple[int, int, int, int], size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The box within a level of `size` (w, h), never empty: a crop sampling past the level's
    edge takes that edge's pixels (BORDER_REPLICATE), so the box keeps them."""
    x0, y0 = min(max(0, box[0]), size[0] - 1), min(max(0, box[1]), size[1] - 1)
    return x0, y0, max(min(size[0], box[2]), x0 + 1), max(min(size[1], box[3]), y0 + 1)


def regions_box(regions, pad: float) -> tuple[float, float, float, float]:
    """The box (x0, y0, x1, y1) round all `regions`, widened by `pad` pixels on every side: the
    window a region re-read needs to see."""
    r = np.asarray(list(regions), np.float64).reshape(-1, 4)
    return r[:, 0].min() - pad, r[:, 1].min() - pad, r[:, 2].max() + pad, r[:, 3].max() + pad


def warp_crop(pyr: Pyramid, quad: np.ndarray, region: tuple[float, float, float, float],
              size: int | tuple[int, int] = CROP) -> np.ndarray:
    """The `region` of the card outlined by `quad`, resampled to `size` (uint8 BGR)."""
    return warp_crops(pyr, [quad], [region], size)[0]


def unit_homographies(quads: np.ndarray) -> np.ndarray:
    """Homographies from the unit square to each of N quads (N×3×3), in closed form (Heckbert's
    square to quadrilateral): a read builds a hundred crops or more, and one
    `cv2.getPerspectiveTransform` per crop cost more than the warps themselves."""
    # Corners rounded to float32 first, as cv2.getPerspectiveTransform takes them: its maps to 1e-13.
    q = np.asarray(quads, np.float32).astype(np.float64).reshape(-1, 4, 2)
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = (q[:, i].T for i in range(4))
    sx, sy = x0 - x1 + x2 - x3, y0 - y1 + y2 - y3
    dx1, dx2, dy1, dy2 = x1 - x2, x3 - x2, y1 - y2, y3 - y2
    den = dx1 * dy2 - dx2 * dy1
    den = np.where(np.abs(den) < 1e-12, 1e-12, den)  # a degenerate quad: a degenerate crop, not a crash
    g, h = (sx * dy2 - dx2 * sy) / den, (dx1 * sy - sx * dy1) / den
    H = np.empty((len(q), 3, 3))
    H[:, 0] = np.stack([x1 - x0 + g * x1, x3 - x0 + h * x3, x0], 1)
    H[:, 1] = np.stack([y1 - y0 + g * y1, y3 - y0 + h * y3, y0], 1)
    H[:, 2] = np.stack([g, h, np.ones_like(g)], 1)
    return H


def crop_matrices(quads: np.ndarray, regions, size: tuple[int, int]) -> np.ndarray:
    """N×3×3 maps from crop pixels (x, y) to image pixels for the `regions` (u0, v0, u1, v1) of
    the cards outlined by `quads`, crops of `size` (w, h)."""
    sw, sh = size
    r = np.asarray(regions, np.float64).reshape(-1, 4)
    du, dv = (r[:, 2] - r[:, 0]) / sw, (r[:, 3] - r[:, 1]) / sh
    a = np.zeros((len(r), 3, 3))
    a[:, 0, 0], a[:, 0, 2] = du, r[:, 0] + 0.5 * du
    a[:, 1, 1], a[:, 1, 2] = dv, r[:, 1] + 0.5 * dv
    a[:, 2, 2] = 1.0
    return unit_homographies(quads) @ a


def warp_crops(pyr: Pyramid, quads: list[np.ndarray], regions: list[tuple[float, float, float, float]],
               size: int | tuple[int, int] = CROP) -> list[np.ndarray]:
    """The `region` of each card outlined by `quads`, resampled to `size` (uint8 BGR): the crop
    maps (`crop_matrices`) of all at once, each sampled from the pyramid level where one crop
    pixel covers one to two source pixels."""
    if not quads:
        return []
    sw, sh = (size, size) if isinstance(size, int) else size
    m = crop_matrices(np.stack(quads), regions, (sw, sh))
    m[:, 0] -= m[:, 2] * pyr.offset[0]
    m[:, 1] -= m[:, 2] * pyr.offset[1]
    # Source pixels per crop pixel, from the crop's mapped edges.
    pts = m @ np.array([[0.0, sw, 0.0], [0.0, 0.0, sh], [1.0, 1.0, 1.0]])
    xy = pts[:, :2] / pts[:, 2:3]
    step = np.maximum(np.hypot(*(xy[:, :, 1] - xy[:, :, 0]).T) / sw, np.hypot(*(xy[:, :, 2] - xy[:, :, 0]).T) / sh)
    levels = np.where(step >= 2, np.floor(np.log2(np.maximum(step, 1.0))), 0).astype(int)
    levels = np.minimum(levels, pyr.depth() - 1)
    # Into each crop's level: x' = s x + (s - 1) / 2 with s = 2^-k (pixel centres).
    s = 0.5 ** levels.astype(np.float64)
    scale = np.zeros((len(m), 3, 3))
    scale[:, 0, 0], scale[:, 1, 1], scale[:, 2, 2] = s, s, 1.0
    scale[:, 0, 2] = scale[:, 1, 2] = 0.5 * s - 0.5
    m = np.where((levels > 0)[:, None, None], scale @ m, m)
    wanted = sorted(set(levels.tolist()), reverse=True)  # the deepest first: it builds those above
    if pyr.sparse:  # each level once, over what its crops sample (corner pixels mapped, 2 pixels round them)
        corners = m @ np.array([[0.0, sw - 1, 0.0, sw - 1], [0.0, 0.0, sh - 1, sh - 1], [1.0, 1.0, 1.0, 1.0]])
        xy = corners[:, :2] / corners[:, 2:3]
        lo, hi = np.floor(xy.min(axis=2)).astype(int) - 2, np.floor(xy.max(axis=2)).astype(int) + 3
        boxes = {k: (int(lo[levels == k, 0].min()), int(lo[levels == k, 1].min()), int(hi[levels == k, 0].max()),
                     int(hi[levels == k, 1].max())) for k in wanted}
        src = {k: pyr.part(k, boxes[k]) for k in wanted}
    else:
        src = {k: (pyr.level(k), 0, 0) for k in wanted}
    out = []
    for mk, k in zip(m, levels.tolist(), strict=True):
        img, ox, oy = src[k]
        if ox or oy:
            mk = mk.copy()
            mk[0] -= mk[2] * ox
            mk[1] -= mk[2] * oy
        out.append(cv2.warpPerspective(img, mk, (sw, sh), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                       borderMode=cv2.BORDER_REPLICATE))
    return out


def rotate_quad(quad: np.ndarray, quarter_turns: int) -> np.ndarray:
    """The same outline with its reading frame turned by quarter turns (2 = upside down)."""
    return np.asarray(quad, np.float64).reshape(4, 2)[_TURNED[quarter_turns % 4]]


_TURNED = [np.array([(i + t) % 4 for i in range(4)]) for t in range(4)]  # corner order after t quarter turns


def preprocess(crops: np.ndarray) -> np.ndarray:
    """N×S×S×3 uint8 crops -> N×3×S×S float32 blob, each channel standardised per crop.

    Per-crop standardisation removes exposure, white balance and contrast, which vary far more
    between tables and lamps than the printed shapes the network must read."""
    x = np.asarray(crops, np.float32)
    if x.ndim == 3:
        x = x[None]
    n, h, w, c = x.shape
    # Channels first, each channel's pixels in a row: the statistics reduce along the last,
    # contiguous axis (a dozen times faster than over axes 1 and 2 of the crops as given).
    x = np.ascontiguousarray(x.transpose(0, 3, 1, 2)).reshape(n, c, h * w)
    mean = x.mean(axis=2, keepdims=True)
    std = x.std(axis=2, keepdims=True)
    return ((x - mean) / (std + 8.0)).reshape(n, c, h, w)


# ----------------------------------------------------------------------------------------
# The network


@dataclass(frozen=True)
class ModelInfo:
    name: str
    classes: tuple[str, ...]
    crop: int
    temperature: float
    orientations: int  # 2: outputs are (class, upright|turned) pairs; 1: class only
    meta: dict


def load_info(name: str = "cards", models_dir: Path | None = None) -> ModelInfo:
    path = (models_dir or MODELS_DIR) / f"{name}.json"
    try:
        meta = json.loads(path.read_text())
    except FileNotFoundError:
        raise ModelError(f"model description {path} is missing") from None
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read model description {path}: {exc}") from None
    for key in ("classes", "crop", "temperature"):
        if key not in meta:
            raise ModelError(f"{path}: missing key {key!r}")
    return ModelInfo(name=name, classes=tuple(meta["classes"]), crop=int(meta["crop"]),
                     temperature=float(meta["temperature"]), orientations=int(meta.get("orientations", 1)), meta=meta)


def model_file(name: str, models_dir: Path | None = None) -> Path:
    """The network a classifier or finder runs: its 8-bit model (`NAME.int8.onnx`, made by
    `vision.train.quant_cls` for the cards, `quant_board` for the Numeri finders) where ONNX Runtime
    runs the networks and one ships, else the float one. ONNX Runtime runs the card classifier's
    8-bit model in about 0.7 of the float one's time (96 crops: 19 against 27 ms on one core), the
    finders' in about half; cv2.dnn (32-bit Raspberry Pi OS) keeps the float models."""
    folder = models_dir or MODELS_DIR
    eight = folder / f"{name}.int8.onnx"
    if eight.is_file() and backend() == "onnxruntime":
        return eight
    return folder / f"{name}.onnx"


class Classifier:
    """Class probabilities for crops. `probs(crops)` -> N×C×O (O = orientations)."""

    BATCH = 32  # one run per 32 crops: as fast per crop as any batch size, fewer calls

    def __init__(self, name: str = "cards", models_dir: Path | None = None, temperature: float | None = None):
        self.info = load_info(name, models_dir)
        onnx = model_file(name, models_dir)
        if not onnx.is_file():
            raise ModelError(f"model file {onnx} is missing")
        self.path = onnx
        self.net: Network = network(onnx)  # loaded once; a broken file raises ModelError
        # Which network made a deck profile's features: prototypes of another one mean nothing.
        self.fingerprint = hashlib.sha256(onnx.read_bytes()).hexdigest()[:16]
        self.temperature = float(temperature if temperature is not None else self.info.temperature)
        self.index = {c: i for i, c in enumerate(self.info.classes)}

    @property
    def classes(self) -> tuple[str, ...]:
        return self.info.classes

    def run(self, crops: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        """Raw logits (N×C·O) and, when the model exports them, pooled features (N×D)."""
        blob = preprocess(crops)
        want = ["y", "f"] if {"y", "f"} <= set(self.net.outputs) else None
        logits, feats = [], []
        for i in range(0, len(blob), self.BATCH):
            out = self.net.run(blob[i:i + self.BATCH], want)
            logits.append(out[0])
            if want:
                feats.append(out[1].reshape(len(out[0]), -1))
        if not logits:
            return np.zeros((0, len(self.classes) * self.info.orientations), np.float32), None
        return np.concatenate(logits, axis=0), (np.concatenate(feats, axis=0) if feats else None)

    def logits(self, crops: np.ndarray) -> np.ndarray:
        return self.run(crops)[0]

    def to_probs(self, logits: np.ndarray) -> np.ndarray:
        z = logits / self.temperature
        z = z - z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        return p.reshape(len(p), len(self.classes), self.info.orientations)

    def probs(self, crops: np.ndarray) -> np.ndarray:
        return self.to_probs(self.logits(crops))


def top_k(p: np.ndarray, classes: tuple[str, ...], k: int = 3) -> list[tuple[str, float]]:
    """The k most probable classes of one crop (orientation summed out)."""
    q = p.sum(axis=-1) if p.ndim == 2 else p
    order = np.argsort(-q)[:k]
    return [(classes[i], float(q[i])) for i in order]
