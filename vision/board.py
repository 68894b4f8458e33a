"""Board games: crops of the squares, things lying on the table, and the 11! tiles on the board.

Where the board lies is found by `boardfind` (its geometry: `boardview`). The 11! reader
(`Start11Reader`) then decides per square "is a tile there?" and "which tile?" with one small
network (`board_tiles`) on a crop with context round the square (the tile's raised edge and
shadow, its stock, its border), restricted to the tile set, with its colour from the ink against
the tile stock (`colour.read_colour`). Loose tiles beside the board are found by the tile finder
(`vision.finder`) and compact blobs on the table, and read by the same network, squared to each
tile's own edges.
"""

from __future__ import annotations

import math
import time
import weakref
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from .boardfind import (
    BoardTracker,
    layout_points,
    load_calibration_view,
    nearest_squares,
    one_square_off,
    outline_contrast,
)
from .boardview import BoardView, board_crops, in_regions, square_quad, square_quads
from .classify import MODELS_DIR, ModelError, Pyramid, model_file, regions_box
from .detect import border_margins
from .errors import CalibrationError
from .finder import Finder, find_peaks, heat_at
from .layouts import JOKER_NUMBERS, SYMBOLS, TILE_COPIES, BoardLayout, load_layout
from .runtime import network
from .tileinks import board_inks, ink_likelihood, tile_inks
from .types import CardReading, quad_of

# The tile reader's classes: "none" (no tile: an empty square, the table) or one of the 24 tile
# faces (numbers 1..20, the four symbols) in one of four quarter turns in the crop.
TILE_FACES = tuple(str(n) for n in range(1, 21)) + SYMBOLS
TILE_CLASSES = ("none",) + tuple(f"{face}@{q}" for face in TILE_FACES for q in range(4))
TILE_CROP = 40  # network input, pixels
TILE_CROP_MM = 30.0  # board millimetres the crop covers: the tile (19-23 mm) and its edge, shadow, border
TILE_MODEL = "board_tiles"
# Tiles beside the board are read by a network of their own: the board's, fine-tuned on the crops
# the reader cuts there (`board_crops --at-proposals`: the finder's and the blobs' points, each
# squared to its own edges, with the tile there or "no tile"). On the board's squares that
# fine-tune read unseen printings worse (held out, board never seen empty: 98.62 -> 97.80 % of
# tiles), so the squares keep the board's network.
LOOSE_MODEL = "loose_tiles"


def tile_input(crops: np.ndarray) -> np.ndarray:
    """Network input from N×S×S×3 uint8 crops: each crop divided by its own brightest colour
    (the tile's stock where a tile lies), so the ink keeps its hue under any lamp."""
    x = np.asarray(crops, np.float32)
    if x.ndim == 3:
        x = x[None]
    s = x.shape[1]
    centre = x[:, s // 4: 3 * s // 4, s // 4: 3 * s // 4].reshape(len(x), -1, 3)
    white = np.maximum(np.percentile(centre, 90, axis=1), 16.0)
    x = np.clip(x / white[:, None, None, :], 0.0, 1.6) - 0.6
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def tile_class(kind: str, value: Any, quarter: int = 0) -> int:
    """Class index of a tile face turned `quarter` quarter turns (clockwise) in the crop."""
    face = str(value) if kind == "symbol" else str(int(value))
    return 1 + TILE_FACES.index(face) * 4 + quarter % 4


# ----------------------------------------------------------------------------------------
# Small crop classifiers (ONNX networks, `runtime`)


class CropModel:
    """A crop classifier shipped as `<name>.onnx` + `<name>.json` (classes, crop size, temperatures):
    `run(blob)` gives calibrated class probabilities and, when the model has one, colour ones."""

    BATCH = 32

    def __init__(self, name: str, models_dir: Path | None = None):
        base = (models_dir or MODELS_DIR) / name
        try:
            import json

            self.meta = json.loads(base.with_suffix(".json").read_text())
        except FileNotFoundError:
            raise ModelError(f"model description {base}.json is missing") from None
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot read model description {base}.json: {exc}") from None
        for key in ("classes", "crop", "temperature"):
            if key not in self.meta:
                raise ModelError(f"{base}.json: missing key {key!r}")
        path = model_file(name, models_dir)  # its 8-bit model where one ships and ONNX Runtime runs
        if not path.is_file():
            raise ModelError(f"model file {path} is missing")
        self.path = str(path)
        self.net = network(self.path)  # loaded now: a broken file is reported when the model is made
        self.classes: tuple[str, ...] = tuple(self.meta["classes"])
        self.colours: tuple[str, ...] = tuple(self.meta.get("colours", ()))
        self.crop = int(self.meta["crop"])
        self.temperature = float(self.meta["temperature"])
        self.colour_temperature = float(self.meta.get("colour_temperature", 1.0))

    def run(self, blob: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        if len(blob) == 0:
            return np.zeros((0, len(self.classes))), (np.zeros((0, len(self.colours))) if self.colours else None)
        ys, cs = [], []
        names = ["y", "c"] if self.colours else ["y"]
        for i in range(0, len(blob), self.BATCH):
            out = self.net.run(blob[i:i + self.BATCH], names)
            ys.append(out[0])
            if self.colours:
                cs.append(out[1])
        y = _softmax(np.concatenate(ys) / self.temperature)
        c = _softmax(np.concatenate(cs) / self.colour_temperature) if self.colours else None
        return y, c


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


@lru_cache(maxsize=8)
def crop_model(name: str) -> CropModel:
    return CropModel(name)


# ----------------------------------------------------------------------------------------
# Things lying on the table (loose tiles, tokens beside the track, the die)


def table_proposals(pyr: Pyramid, view: BoardView, diameter_mm: float, exclude: np.ndarray | None = None,
                    limit: int = 120, window=None) -> np.ndarray:
    """Centres (board mm) of compact things about `diameter_mm` across lying anywhere in view.

    A blob detector (difference of Gaussians on lightness and both colour axes, so a red token
    on red felt still shows as a lighter or darker blob in some channel), on the pyramid level
    where the thing is a few pixels across (sixteen times cheaper than full size); peaks are
    proposals for the crop classifiers, which decide what (if anything) is there.
    `exclude`: board-mm points (e.g. square centres already read) whose neighbourhood is skipped.
    `window` (x0, y0, x1, y1 picture pixels): only that part of the picture is searched (a
    region re-read), its noise floor measured there."""
    ppm = view.px_per_mm()
    s_full = ppm * diameter_mm / (2 * math.sqrt(2))  # LoG scale of a disc of that diameter
    level = max(0, min(4, int(math.floor(math.log2(max(s_full / 2.0, 1.0))))))
    f = 2.0**level
    img, corner = _window(pyr.level(level), f, window)
    if img is None:
        return np.zeros((0, 2))
    lab = cv2.cvtColor(img, cv2.COLOR_BGR2LAB).astype(np.float32)
    s = s_full / f

    def response(scale: float) -> np.ndarray:
        r = np.zeros(lab.shape[:2], np.float32)
        for ch, wgt in ((0, 1.0), (1, 1.6), (2, 1.6)):
            c = lab[:, :, ch]
            r += wgt * np.abs(cv2.GaussianBlur(c, (0, 0), scale) - cv2.GaussianBlur(c, (0, 0), 1.6 * scale))
        return r

    resp = response(s)
    peaks = (resp == cv2.dilate(resp, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(2 * s) | 1,) * 2)))
    floor = 3.0 * float(np.median(resp)) + 2.0
    ys, xs = np.nonzero(peaks & (resp > floor))
    if not len(xs):
        return np.zeros((0, 2))
    order = np.argsort(-resp[ys, xs])[: 4 * limit]
    px = (np.stack([xs[order], ys[order]], 1) + corner).astype(np.float64) * f + (f - 1) / 2.0
    mm = view.to_board(px)
    return away_from(mm, exclude, diameter_mm)[:limit]


def _window(img: np.ndarray, f: float, window) -> tuple[np.ndarray | None, tuple[int, int]]:
    """The part of a pyramid level (reduced f times) inside `window` (picture pixels), and its
    top-left corner on that level; (None, ...) when the window is too small to search."""
    if window is None:
        return img, (0, 0)
    h, w = img.shape[:2]
    x0, y0 = (max(0, int(v / f)) for v in window[:2])
    x1, y1 = min(w, int(math.ceil(window[2] / f))), min(h, int(math.ceil(window[3] / f)))
    if x1 - x0 < 8 or y1 - y0 < 8:
        return None, (x0, y0)
    return img[y0:y1, x0:x1], (x0, y0)


def search_window(view: BoardView, regions, pad_mm: float) -> tuple[float, float, float, float] | None:
    """The picture window round all `regions` and `pad_mm` more (None: no regions, the whole picture)."""
    return None if regions is None else regions_box(regions, pad_mm * view.px_per_mm())


def away_from(mm: np.ndarray, exclude: np.ndarray | None, diameter_mm: float) -> np.ndarray:
    """The points (board mm) not within about half a thing's width of any `exclude` point."""
    if exclude is None or not len(exclude) or not len(mm):
        return mm
    d = np.linalg.norm(mm[:, None] - np.asarray(exclude)[None], axis=2).min(axis=1)
    return mm[d > 0.45 * diameter_mm]


def proposals(pyr: Pyramid, view: BoardView, diameter_mm: float, limit: int, regions=None,
              off_board: tuple[float, float, float] | None = None, exclude: np.ndarray | None = None) -> np.ndarray:
    """Up to `limit` of `table_proposals` (board mm, strongest first) for a reader: only beside
    the board when `off_board` = (width, height, margin in mm) is given, only in `regions` when given."""
    # A region re-read searches round its regions only (four things' widths: the blobs' blur).
    window = search_window(view, regions, 4.0 * diameter_mm)
    props = table_proposals(pyr, view, diameter_mm, exclude=exclude, limit=4 * limit, window=window)
    if off_board is not None:
        props = off_board_only(props, off_board)
    if regions is not None and len(props):
        props = props[in_regions(view.to_image(props), regions)]
    return props[:limit]


def beside_board(pyr: Pyramid, view: BoardView, shapes: np.ndarray, diameter_mm: float, limit: int, regions,
                 board: tuple[float, float, float], blobs: np.ndarray | None = None) -> np.ndarray:
    """Proposals beside the board (of (width, height, margin) mm) and in `regions` when given:
    the `shapes` found (the finder's peaks: each thing at its centre), then the `limit`
    strongest blobs away from them (a thing too slanted, blurred or hidden to show its shape;
    `blobs`: those `proposals` gave the caller)."""
    shapes = off_board_only(shapes, board)
    if regions is not None and len(shapes):
        shapes = shapes[in_regions(view.to_image(shapes), regions)]
    if blobs is None:
        blobs = proposals(pyr, view, diameter_mm, limit, regions, off_board=board)
    return np.concatenate([shapes, away_from(blobs, shapes, diameter_mm)])


def dominant_angle(crop: np.ndarray) -> float:
    """Direction (degrees, mod 90) of the straight edges in a crop (a tile's or a die's outline)."""
    g = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(g, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(g, cv2.CV_32F, 0, 1, ksize=3)
    mag = np.hypot(gx, gy)
    ang = np.arctan2(gy, gx)
    s, c = float((mag * np.sin(4 * ang)).sum()), float((mag * np.cos(4 * ang)).sum())
    return math.degrees(math.atan2(s, c)) / 4.0


def suppress(centres: np.ndarray, scores: np.ndarray, radius: float) -> list[int]:
    """Indices kept by greedy non-maximum suppression (best first)."""
    keep: list[int] = []
    for i in np.argsort(-scores):
        if all(np.linalg.norm(centres[i] - centres[j]) >= radius for j in keep):
            keep.append(int(i))
    return keep


def off_board_only(mm: np.ndarray, board: tuple[float, float, float]) -> np.ndarray:
    """The points (board mm) beside the board of (width, height, margin) mm."""
    W, H, m = board
    return mm[~((mm[:, 0] > -m) & (mm[:, 0] < W + m) & (mm[:, 1] > -m) & (mm[:, 1] < H + m))]


# ----------------------------------------------------------------------------------------
# 11!: the tiles

QUARTER_PRIOR = np.array([0.94, 0.02, 0.02, 0.02])  # tiles on the board are laid the board's way up
# Probability that a tile on a square is the face the rules allow there: another face is read
# only when the net is over 1 100 times surer of it. At 0.8 (92 times) a condensed typeface's 16
# read 15 (0.989 against 0.009) and its 6 read 8 on their own squares. Train pool, seeds 5000 /
# 5400 / 5100 / 5200 with the board seen empty: tables 94 / 92 / 93.5 / 94.5 -> 94.5 / 92.5 / 94 /
# 95 % (0.95: the same but one tile); facsimile, varied and any-stock printings a little better.
SQUARE_PRIOR = 0.98
# Probability that a coloured tile on a number square is its row's colour. Stronger, the orange
# yellows of some printings would stop reading red, but a tile laid on another row's square
# would read as that row's: at 0.95, 40 train-pool tables with a tenth of their tiles misplaced
# (`vision_boards.py --empty-board --misplaced 0.1`) read 98.96 -> 99.07 % of tiles exact,
# misplaced ones 99.2 -> 98.5 %; held out 98.14 -> 98.01 % and 98.2 -> 96.5 %.
COLOUR_PRIOR = 0.8
LOOSE_TILE_MM = 21.0
# A loose tile is reported when read at least LOOSE_SURE sure where the tile finder points at it
# (its heat within LOOSE_NEAR of the tile's centre at least LOOSE_HEAT), else at least
# LOOSE_SURE_UNFOUND. A cloth's checks, square like tiles, read as faint grey jokers; a confetti
# print's shapes and a terrazzo's chips read as symbols and numbers at 0.6-0.95, but the finder's
# heat there is mostly under 0.3, and at every tile but 2 of 397 over it. On 200 train-pool tables
# (seeds 7000 and 7500, 408 loose tiles; finder peaks from 0.1, 48 blobs): 395 read exactly, 8
# things taken for tiles, 6 misread; 0.6 alone 395 / 39 / 6, 0.9 alone 384 / 5 / 1; without the
# finder (0.6) 352 / 8 / 2. At stop 47 the loose tiles got a network of their own (`LOOSE_MODEL`),
# less sure of them: at 0.4 it reads on train seeds 5000 / 5400 / 5100 / 5200 (200 tables each)
# 99.84 / 99.77 / 99.86 / 99.66 % of tiles, 94 / 92 / 93.5 / 94.5 % of tables exact; at 0.6
# 99.83 / 99.72 / 99.86 / 99.62 %, 94 / 91.5 / 93.5 / 93 %, as many false tiles.
LOOSE_SURE = 0.4
LOOSE_SURE_UNFOUND = 0.9
LOOSE_HEAT = 0.4
# Beside the board no square is printed, yet the tile net, taught that a square printed like a
# tile's face (flat, no shadow) is "no tile", calls some plain loose tiles so (a grey 7 0.94 "no
# tile", read 7 at 0.98 of its faces). Where the finder's heat is LOOSE_HOT or more a tile is
# taken to be there, as on a square that changed since the board was empty (EMPTY_CHANGED_P);
# what it is, and how sure, is still the net's. On 160 train-pool tables (369 loose tiles): 4
# more read, no false one more, for thresholds 0.6-0.85 alike (0.9: one fewer).
LOOSE_HOT = 0.7
# A loose symbol tile needs more: a green dot on the game's box, a terrazzo's chip, a cloth's
# flower read as circles and squares 0.6-0.955 sure, where the renderer's loose symbol tiles (the
# variant's players hold them) read 0.979 or more (train seeds 5000 and 5400, 400 tables: 94
# loose symbol tiles; 22 other things read as symbols, 9 of them reported at LOOSE_SURE), and a
# star on a striped cloth beside a board of another printing 0.962 (`--board varied`, #61).
LOOSE_SYMBOL_SURE = 0.96
LOOSE_NEAR = 8.0  # mm
MIN_TILE = 0.5  # probability that a tile is there, above which it is reported
# Likeness to its empty look above which a square holds no tile (the net is not asked). A tile
# on a square printed like it (`--board facsimile`: the same number, ink and white) compared at
# EMPTY_GRID is 0.87-0.96 like the empty square, though its typeface and edges differ: at 0.85
# such tiles were missed (train facsimile seeds 5000 / 5100, 100 tables each: 36 / 53 missed,
# 98.58-99.14 % of tiles); at 0.95 the net is asked and reads them (10 / 19 missed, 99.71 /
# 99.44 %, 7 / 7 false tiles against 5 / 4). The pools' own printings read the same (seeds 5000
# and 5400, 200 tables), varied printings and misplaced tiles a little better; 0.97: no better.
EMPTY_LIKENESS = 0.95
EMPTY_CENTRE = (0.2, 0.8)  # part of the crop compared: where a tile would lie
EMPTY_RIM = 0.12  # outer band of a crop taken as the board around the square
EMPTY_TINT = 0.12  # log-chromaticity shift of a square's middle above which something lies on it
# Log lightness shift of a square's middle above which the tile net is asked (the square is not
# taken as empty on its pattern and tint alone). On 160 train-pool tables with the board seen
# empty, the empty squares so judged moved at most 0.22 (a neighbour's shadow); a cream grey 7 on
# its square printed dark grey with a 7 moved 0.44 and was skipped though the net read it 1.00.
EMPTY_LIGHT = 0.3
# Likeness below which, or tint shift above which, a square surely holds something. On 120
# train-pool tables (60 of them with the facsimile printing, squares printed like tiles) 0.8
# finds 99.9 % and 98.3 % of the tiles and flags 0.2 % of the empty squares (0.6 found 98.8
# and 84.9 %); every empty square tinted over 0.13 had something else on it (tints of 0.13 to
# 0.2 flag the same squares there).
EMPTY_CHANGED = 0.8
EMPTY_CHANGED_TINT = 0.15
EMPTY_CHANGED_P = 0.9  # probability of a tile then given to the reading,
# unless the net is surer than this that the square holds none: a tile laid a little over its
# neighbour square, or its shadow, changes a square printed like a tile (filled with its ink,
# its number in white) past EMPTY_CHANGED, and its printed number was reported as a tile. Train
# pool (seeds 5000 / 5400 / 5100 / 5200, 200 tables each): tables exact 94.5 / 92.5 / 94 / 95 ->
# 96.5 / 93 / 95.5 / 95 %, printed squares reported 4 / 3 / 8 / 1 -> 0 / 2 / 1 / 1, one tile more
# missed; varied printings 94 / 88 -> 96 / 90 %, any-stock 87 -> 88 %, facsimile 93 / 81 -> 94 /
# 80 % (100 tables each); misplaced tiles the same (0.99: 2 printed squares fewer, 4 tiles more
# missed). Held out the same but one tile of the misplaced set as it was then drawn (a red 12 the
# net was 0.999 sure was no tile): that pool's printings left no printed square reported to gain on.
EMPTY_CHANGED_NONE = 0.997
LIGHT_SQUARES = 4  # squares looking empty by their pattern from which the board's light is measured
EMPTY_GRID = 12  # crops compared at this size (blurs away a pixel or two of misregistration)
EMPTY_DETAIL_PX = 2.0  # blur (pixels of that grid) taken off both middles before they are compared


def rim_white(crops: np.ndarray) -> np.ndarray:
    """The board's light (BGR): median colour of the squares' outer rims (board between squares)."""
    x = np.asarray(crops, np.float32)
    s = x.shape[1]
    k = max(1, int(round(s * EMPTY_RIM)))
    rim = np.concatenate([x[:, :k].reshape(-1, 3), x[:, -k:].reshape(-1, 3), x[:, k:-k, :k].reshape(-1, 3),
                          x[:, k:-k, -k:].reshape(-1, 3)])
    return np.maximum(np.median(rim, axis=0), 8.0)


def _deshaded(m: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """`m` (N×G×G×3) with the smooth change of light since `ref` taken out: each channel divided
    by a plane fitted to the log ratio of the two. A neighbouring tile's shadow darkens one side
    of an empty square; on a faintly printed square that ramp was most of the pattern (train
    pool: 23 empty squares of 160 boards seen changed, read as tiles), while a tile's own edges,
    numeral and offset are not a plane."""
    n, g = m.shape[0], m.shape[1]
    ratio = (np.log(m + 4.0) - np.log(ref + 4.0)).reshape(n, g * g, -1)
    plane = _plane_projector(g) @ ratio
    return m / np.exp(plane).reshape(m.shape)


@lru_cache(maxsize=2)
def _plane_projector(g: int) -> np.ndarray:
    """The (g²×g²) least-squares projection onto planes a + b·x + c·y over a g×g grid."""
    u = np.arange(g) / (g - 1) - 0.5
    design = np.stack([np.ones(g * g), np.repeat(u, g), np.tile(u, g)], axis=1)
    return design @ np.linalg.pinv(design)


def _fine(m: np.ndarray) -> np.ndarray:
    """The fine detail of N×G×G×3 middles: each less its blur (EMPTY_DETAIL_PX). What a plane
    leaves of a shadow's soft edge is coarse; a tile's edges and numeral are fine (train pool:
    empty squares taken as changed 8 -> 5 on 80 tables, the likeliest tile to its empty square
    0.79 -> 0.74)."""
    return np.stack([c - cv2.GaussianBlur(c, (0, 0), EMPTY_DETAIL_PX) for c in m])


def _middle(x: np.ndarray) -> np.ndarray:
    """The middles of square crops (where a tile would lie), reduced to EMPTY_GRID."""
    s = x.shape[1]
    a, b = int(round(s * EMPTY_CENTRE[0])), int(round(s * EMPTY_CENTRE[1]))
    return np.stack([cv2.resize(c[a:b, a:b], (EMPTY_GRID, EMPTY_GRID), interpolation=cv2.INTER_AREA)
                     for c in x]).astype(np.float32)


def empty_pattern(ma: np.ndarray, mb: np.ndarray) -> np.ndarray:
    """Correlation (-1..1) of each square's middle (`_middle`) with its middle on the empty
    board, each standardised per channel, so a dimmer or warmer lamp changes nothing."""
    def norm(m: np.ndarray) -> np.ndarray:
        return (m - m.mean(axis=(1, 2), keepdims=True)) / (m.std(axis=(1, 2), keepdims=True) + 6.0)

    a, b = norm(_fine(_deshaded(ma, mb))), norm(_fine(mb))
    num = (a * b).mean(axis=(1, 2, 3))
    den = np.sqrt((a * a).mean(axis=(1, 2, 3)) * (b * b).mean(axis=(1, 2, 3)))
    return num / np.maximum(den, 1e-6)


def board_light(crops: np.ndarray, empty: np.ndarray, alike: np.ndarray, empty_white: np.ndarray,
                fallback: np.ndarray) -> np.ndarray:
    """The board's light now (BGR): its light on the empty board times the median change of the
    rims of the squares that still look empty by their pattern (`alike`), each against its own
    rim then. The median rim of all squares (`fallback`, used when under LIGHT_SQUARES look
    empty) is a tile's colour on a board mostly covered: every empty square then seemed tinted
    (train 5000 11! #45: 44 empty squares of 88 read as their printed numbers)."""
    if int(np.count_nonzero(alike)) < LIGHT_SQUARES:
        return fallback
    now, then = _rims(crops[alike]), _rims(empty[alike])
    return empty_white * np.median(now / np.maximum(then, 8.0), axis=0)


def _rims(crops: np.ndarray) -> np.ndarray:
    """Each crop's outer band's median colour (N×3), on the crop reduced to EMPTY_GRID."""
    g = EMPTY_GRID
    x = np.stack([cv2.resize(c, (g, g), interpolation=cv2.INTER_AREA) for c in crops]).astype(np.float32)
    k = max(1, int(round(g * EMPTY_RIM)))
    band = np.ones((g, g), bool)
    band[k:-k, k:-k] = False
    return np.median(x[:, band], axis=1)


def empty_colour(ma: np.ndarray, mb: np.ndarray, white: np.ndarray, empty_white: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """(tint, light) of each square's middle (`_middle`) against its middle on the empty board
    (`mb`). tint: how far its colour has moved, in log-chromaticity under each picture's board
    light (`white`, `empty_white`; a cream tile on a square printed in the tile's own tint and
    number has the same pattern). light: how far its lightness has moved, in log under each
    picture's board light (a cream grey joker on a square printed dark grey with its number: the
    same pattern, no tint)."""
    def log_colour(m: np.ndarray, w: np.ndarray) -> np.ndarray:
        return np.log(np.maximum(m.mean(axis=(1, 2)), 4.0) / w)

    moved = log_colour(ma, white) - log_colour(mb, empty_white)
    light = moved.mean(axis=1)
    return np.linalg.norm(moved - light[:, None], axis=1), light


# A square whose middle only darkened since the board was empty (its 95th percentile of log
# lightness change under the board's light at most SHADOW_UP, its 5th at most -SHADOW_DOWN, its
# tint at most SHADOW_TINT) lies in a neighbouring tile's shadow: the shadow's edge crosses the
# printed number, which the plane of `_deshaded` and the detail of `_fine` do not take out, and
# such squares had been taken as changed (a tile forced there) and read as their printed number.
# A tile on a square lightens some of it (its stock, its edges; a tile much like its square
# changes less and is left to the net, which reads it). Train seeds 5000 / 5400 / 5100 / 5200, 200
# tables each: false tiles 18 / 24 / 27 / 23 -> 7 / 10 / 14 / 7, tables exact 89 / 84 / 88 / 84.5
# -> 92.5 / 88 / 91 / 90 %, no tile lost (chosen on the first two; 0.15 / 0.05 / 0.1 read the same).
SHADOW_UP, SHADOW_DOWN, SHADOW_TINT = 0.1, 0.1, 0.08


def shadowed(ma: np.ndarray, mb: np.ndarray, white: np.ndarray, empty_white: np.ndarray,
             tint: np.ndarray) -> np.ndarray:
    """Which squares' middles (`_middle`) only darkened since their middles on the empty board
    (`mb`), under each picture's board light (`white`, `empty_white`), with their tint (`empty_colour`)."""
    moved = (np.log(ma + 4.0) - np.log(mb + 4.0) - np.log(white / empty_white)).mean(axis=3)
    flat = moved.reshape(len(moved), -1)
    up, down = np.quantile(flat, [0.95, 0.05], axis=1)
    return (up <= SHADOW_UP) & (down <= -SHADOW_DOWN) & (tint <= SHADOW_TINT)


# The tile finder (`train.finder_train --kind tiles`): where tiles lie, at 0.8 px/mm (a tile about
# 17 pixels), one cell per 4 pixels. Beside the board it finds the tiles the blob search misses:
# pale tiles on pale veined tables, tiles on a checked cloth's checks. Its peaks from 0.3 are read
# (2 of 397 loose tiles read exactly on 200 train-pool tables were under), and the LOOSE_LIMIT
# strongest blobs away from them: with the finder, 16 blobs read on 120 train-pool tables (seeds
# 7000, 7500) what 48 did, about 15 ms sooner per read. A search for square outlines beside the
# board, from before the finder, was dropped at stop 40: 160 train-pool tables read the same
# without it, held out one loose tile more of 3 378 tiles was missed, and a read took 5 ms less (13 ms
# at the 90th percentile; a textured cloth's thousands of contours).
TILE_FINDER = Finder("tile_centres", px_per_mm=0.8, stride=4, thing_mm=LOOSE_TILE_MM, least=0.3)
LOOSE_LIMIT = 16


def square_name(sid: str) -> str:
    """Layout id ("yellow-7", "red-left") -> the rules engine's square ("yellow:7", "red:left")."""
    row, _, pos = str(sid).partition("-")
    return f"{row}:{pos}"


def _expected(square: Any, colours: tuple[str, ...] | list[str]) -> tuple[np.ndarray, np.ndarray | None]:
    """Prior over the tile faces (and suit colours) on a square: the rules allow one tile there
    (a coloured number on its own row's square, a grey joker on a joker square, a symbol on its
    symbol square); another is an illegal move, rare, reported only when the net is sure of it."""
    face = str(square.number) if square.kind in ("number", "joker") else str(square.symbol)
    faces = np.full(len(TILE_FACES), (1.0 - SQUARE_PRIOR) / (len(TILE_FACES) - 1))
    if face in TILE_FACES:
        faces[TILE_FACES.index(face)] = SQUARE_PRIOR
    else:
        faces[:] = 1.0
    col = None
    if square.kind == "number" and square.row in colours:
        col = np.full(len(colours), (1.0 - COLOUR_PRIOR) / max(len(colours) - 1, 1))
        col[list(colours).index(square.row)] = COLOUR_PRIOR
    return faces, col


# The tiles read decide which way round the board lies when its printing did not: the 11!
# lattice is the same turned half a turn, and a board whose bridges and row colours are unlike
# any the locator knows can be taken the wrong way round (or a square off), its tiles then read
# right but named by the squares of the other end (held out: "red 11" on blue:10). The view is
# turned when TURN_VOTES tiles more, and twice as many, read as the tile the rules put on the
# square under them that way.
TURN_VOTES = 3


def _at_home(view: BoardView, layout: BoardLayout, tiles: list[CardReading], px: np.ndarray) -> int:
    """How many of the `tiles` read (centred at `px`) lie, in `view`, on the square the rules
    give them (a coloured number on its row's square of its number, a grey joker on its joker
    square)."""
    near, far = nearest_squares(view, px, layout_points(layout))
    n = 0
    for r, k, dist in zip(tiles, near, far, strict=True):
        q = layout.squares[int(k)]
        if dist <= 0.5 * layout.square_mm and q.kind == r.kind and q.number == r.value and (
                r.kind == "joker" or q.row == r.color):
            n += 1
    return n


def _tile_reading(p: np.ndarray, colour: np.ndarray | None, model: CropModel, quarter_prior: np.ndarray,
                  present: bool = False, prior: tuple[np.ndarray, np.ndarray | None] | None = None
                  ) -> tuple[str, Any, str | None, float, int] | None:
    """(kind, value, colour, confidence, quarter) from one crop's probabilities, or None (no tile).
    `present`: something is known to lie there (the square no longer looks as on the empty board,
    or beside the board the tile finder is sure of a tile), so a faint tile the net calls empty
    is read all the same, unless the net is all but certain there is none (`EMPTY_CHANGED_NONE`).
    `prior`: over faces and colours (`_expected`), for a tile on a board square."""
    p_tile = 1.0 - float(p[0])
    if present and float(p[0]) < EMPTY_CHANGED_NONE:
        p_tile = max(p_tile, EMPTY_CHANGED_P)
    if p_tile < MIN_TILE:
        return None
    joint = p[1:].reshape(len(TILE_FACES), 4) * quarter_prior[None, :]
    if prior is not None:
        joint = joint * prior[0][:, None]
        if colour is not None and prior[1] is not None and len(prior[1]) == len(colour):
            colour = colour * prior[1]
    if colour is not None:  # (weighed by a prior or by the board's inks: `tileinks`)
        colour = colour / max(float(colour.sum()), 1e-12)
    face_p = joint.sum(axis=1)
    k = int(face_p.argmax())
    share = float(face_p[k] / max(face_p.sum(), 1e-12))
    quarter = int(joint[k].argmax())
    face = TILE_FACES[k]
    conf = p_tile * share
    if face in SYMBOLS:
        return "symbol", face, None, conf, quarter
    n = int(face)
    if n in JOKER_NUMBERS:
        return "joker", n, "gray", conf, quarter
    name = None
    if colour is not None and model.colours:
        j = int(colour.argmax())
        name = model.colours[j]
        conf *= float(colour[j])
    return "number", n, name, conf, quarter


@dataclass
class Start11Reader:
    """Reads the 11! board (and loose tiles beside it) from pictures of one camera."""

    layout: BoardLayout
    tracker: BoardTracker
    model_name: str = TILE_MODEL
    loose_model_name: str = LOOSE_MODEL
    board_tiles: dict = field(default_factory=dict)  # square id -> CardReading (last full or partial read)
    loose: list = field(default_factory=list)
    empty: dict | None = None  # square id -> crop of that square on the empty board (learn_empty)
    _empty_white: np.ndarray | None = None
    _empty_picture: np.ndarray | None = None  # the empty board's picture, while learnt from one
    tile_inks: dict = field(default_factory=dict)  # square id -> (a*, b*) of its tile's ink (`tileinks`)
    inks: dict = field(default_factory=dict)  # colour -> its ink on this board, from the tiles on their rows

    @classmethod
    def create(cls, calibration: str | Path | None = None, empty: str | Path | None = None) -> Start11Reader:
        """A reader starting from a stored board calibration and empty-board look, if given."""
        layout = load_layout("start11")
        hint = load_calibration_view(calibration, layout) if calibration else None
        reader = cls(layout, BoardTracker(layout, hint=hint))
        if empty:
            reader.load_empty(empty)
        return reader

    @property
    def model(self) -> CropModel:
        return crop_model(self.model_name)

    @property
    def loose_model(self) -> CropModel:
        return crop_model(self.loose_model_name)

    def read(self, image: np.ndarray, pyr: Pyramid, regions=None, timings: dict | None = None,
             _again: bool = False) -> list[CardReading]:
        """All tiles in view; with `regions`, only those in the regions (the caller keeps the rest).
        A full read whose tiles say the board lies the other way round (`TURN_VOTES`) is read
        again so."""
        timings = timings if timings is not None else {}
        view = self.tracker.view_for(image, pyr, timings)
        t = time.perf_counter()
        model = self.model
        sq = list(self.layout.squares)
        if regions is None:
            self.board_tiles = {}
        centres = layout_points(self.layout)
        img_c = view.to_image(centres)
        w, h = view.image_size
        visible = (img_c[:, 0] >= 0) & (img_c[:, 0] < w) & (img_c[:, 1] >= 0) & (img_c[:, 1] < h)
        todo = visible if regions is None else visible & in_regions(img_c, regions)
        idx = np.flatnonzero(todo)
        crops = self._square_crops(pyr, view, idx, model.crop)
        changed = np.zeros(len(idx), bool)  # clearly not as on the empty board: something lies there
        if self.empty is not None and len(idx):
            # Squares that still look as they did on the empty board hold no tile (whatever the
            # tile net thinks of an unfamiliar printing): only the others are read.
            same = np.array([sq[i].id in self.empty for i in idx], bool)
            if same.any():
                ref = np.stack([self.empty[sq[i].id] for i in idx[same]])
                has = np.flatnonzero(same)
                now = np.stack([crops[n] for n in has])
                ma, mb = _middle(now), _middle(ref)
                pattern = empty_pattern(ma, mb)
                white = board_light(now, ref, pattern >= EMPTY_LIKENESS, self.empty_white, rim_white(np.stack(crops)))
                tint, light = empty_colour(ma, mb, white, self.empty_white)
                changed[has] = (pattern < EMPTY_CHANGED) | (tint > EMPTY_CHANGED_TINT)
                same[has] = (pattern >= EMPTY_LIKENESS) & (tint <= EMPTY_TINT) & (np.abs(light) <= EMPTY_LIGHT)
                # Only darkened since then, as under a neighbouring tile's shadow: not known to
                # hold a tile, so the tile net decides, as on a square never seen empty.
                changed[has] &= ~shadowed(ma, mb, white, self.empty_white, tint)
            for i in idx[same]:
                self.board_tiles.pop(sq[i].id, None)
            keep = ~same
            idx, crops, changed = idx[keep], [c for c, k in zip(crops, keep, strict=True) if k], changed[keep]
        timings["tile_crops_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        probs, colours = model.run(tile_input(np.stack(crops)) if crops else np.zeros((0, 3, model.crop, model.crop)))
        timings["tile_classify_ms"] = (time.perf_counter() - t) * 1000
        ids = [sq[i].id for i in idx]
        priors = [_expected(sq[i], model.colours or ()) for i in idx]
        read = [_tile_reading(probs[n], None if colours is None else colours[n], model, QUARTER_PRIOR,
                              present=bool(changed[n]), prior=priors[n]) for n in range(len(idx))]
        if colours is not None:  # each coloured tile weighed against the board's inks as well
            coloured = [n for n, r in enumerate(read) if r is not None and r[0] == "number"]
            inks = tile_inks([crops[n] for n in coloured])
            self.tile_inks.update((ids[n], ink) for n, ink in zip(coloured, inks, strict=True))
            self.inks = self._board_inks({ids[n]: read[n][2] for n in coloured}, set(ids))
            weighed = {}
            for n, like in zip(coloured, ink_likelihood(inks, self.inks, model.colours), strict=True):
                weighed[n] = colours[n] * like
                if (like < 1).any():
                    read[n] = _tile_reading(probs[n], weighed[n], model, QUARTER_PRIOR,
                                            present=bool(changed[n]), prior=priors[n])
            for n, barred in self._tiles_read_elsewhere(read, ids, [sq[i] for i in idx], model.colours).items():
                read[n] = _tile_reading(probs[n], weighed[n] * ~barred, model, QUARTER_PRIOR,
                                        present=bool(changed[n]), prior=priors[n])
        found = [n for n, r in enumerate(read) if r is not None]
        for n, r in enumerate(read):
            if r is None:
                self.board_tiles.pop(ids[n], None)
        quads = square_quads(view, np.array([[sq[idx[n]].x, sq[idx[n]].y] for n in found]).reshape(-1, 2),
                             self.layout.square_mm, np.array([90.0 * read[n][4] for n in found]))
        for n, quad in zip(found, quads, strict=True):
            kind, value, name, conf, _quarter = read[n]
            self.board_tiles[ids[n]] = CardReading(kind=kind, value=value, color=name, corners=quad_of(quad),
                                                   confidence=conf, square=square_name(ids[n]))
        if regions is None and not _again:
            better = self._way_round(view)
            if better is not None:  # read again on the squares the tiles say
                self._rename_empty(view, better)
                self.tracker.view = better
                self.tracker.reference = outline_contrast(pyr, better, self.layout)
                return self.read(image, pyr, None, timings, _again=True)
        t = time.perf_counter()
        loose = self._loose(pyr, view, regions)
        timings["loose_tiles_ms"] = (time.perf_counter() - t) * 1000
        if regions is None:
            self.loose = loose = tiles_beside(list(self.board_tiles.values()), loose)
            return list(self.board_tiles.values()) + loose
        kept = [c for c in self.loose if not in_regions(np.mean(c.corners, axis=0), regions)[0]]
        loose = tiles_beside(list(self.board_tiles.values()) + kept, loose)
        self.loose = kept + loose
        on_board = [c for c in self.board_tiles.values() if in_regions(np.mean(c.corners, axis=0), regions)[0]]
        return on_board + loose

    def _tiles_read_elsewhere(self, read: list, ids: list[str], squares: list, colours: tuple[str, ...] | list[str]
                              ) -> dict[int, np.ndarray]:
        """The readings of a coloured number on another row's square whose colour names a tile read
        on its own square, each with the colours so taken (to be read again without them). Each
        coloured tile exists once (RULES.md): a faint yellow 12 on yellow-12 read as the green 12
        lying on green-12 is not that tile (train pool: 4 tiles on 3 of 200 tables), while a
        yellow 12 truly laid on red-12 stays, its own square being empty."""
        home = {(r[1], r[2]) for r, q in zip(read, squares, strict=True)
                if r is not None and r[0] == "number" and q.kind == "number" and q.row == r[2] and q.number == r[1]}
        now = set(ids)
        home |= {(c.value, c.color) for sid, c in self.board_tiles.items()
                 if sid not in now and c.kind == "number" and c.square == f"{c.color}:{c.value}"}
        out = {}
        for n, (r, q) in enumerate(zip(read, squares, strict=True)):
            if r is None or r[0] != "number" or (r[1], r[2]) not in home or (q.kind == "number" and q.row == r[2]):
                continue
            out[n] = np.array([(r[1], c) in home for c in colours], bool)
        return out

    def _board_inks(self, colours: dict[str, str | None], read: set[str]) -> dict[str, np.ndarray]:
        """Each colour's ink on the board, from the coloured tiles just read (square id -> colour)
        and those kept from earlier reads (the squares not `read` again)."""
        rows = {q.id: q.row for q in self.layout.squares}
        kept = {sid: r.color for sid, r in self.board_tiles.items() if sid not in read and r.kind == "number"}
        return board_inks([(rows[sid], c, self.tile_inks[sid]) for sid, c in {**kept, **colours}.items()
                           if sid in self.tile_inks])

    def _way_round(self, view: BoardView) -> BoardView | None:
        """The view turned half a turn (or a square off either way), if the tiles read say so."""
        tiles = [r for r in self.board_tiles.values() if r.kind in ("number", "joker")]
        if len(tiles) < TURN_VOTES:
            return None
        px = np.array([np.mean(r.corners, axis=0) for r in tiles], np.float64)
        now = _at_home(view, self.layout, tiles, px)
        if 2 * now >= len(tiles):
            return None  # no other way can hold twice as many (the usual case: nothing more to do)
        turned = view.turned()
        ways = [turned, *one_square_off(turned, self.layout), *one_square_off(view, self.layout)]
        votes = [_at_home(v, self.layout, tiles, px) for v in ways]
        k = int(np.argmax(votes))
        return ways[k] if votes[k] >= max(now + TURN_VOTES, 2 * now) else None

    def _rename_empty(self, old: BoardView, new: BoardView) -> None:
        """The empty board's squares, learnt under `old`, cut again under `new` (or, loaded from
        a file, named as `new` names the same places)."""
        if not self.empty:
            return
        if self._empty_picture is not None:
            self._cut_empty(Pyramid(self._empty_picture), new)
            return
        centres = layout_points(self.layout)
        near, far = nearest_squares(new, old.to_image(centres), centres)
        # A crop is cut the board's way up: turned half a turn with it.
        a, b = (v.to_image(np.array([[0.0, 0.0], [self.layout.square_mm, 0.0]])) for v in (old, new))
        half = float(np.dot(a[1] - a[0], b[1] - b[0])) < 0
        out = {}
        for sq, j, dist in zip(self.layout.squares, near, far, strict=True):
            if sq.id in self.empty and dist <= 0.5 * self.layout.square_mm:
                crop = self.empty[sq.id]
                out[self.layout.squares[int(j)].id] = np.ascontiguousarray(crop[::-1, ::-1]) if half else crop
        self.empty, self._empty_white = out, None

    def _square_crops(self, pyr: Pyramid, view: BoardView, idx: np.ndarray, out_px: int) -> list[np.ndarray]:
        centres = layout_points(self.layout)
        return board_crops(pyr, view, centres[idx], TILE_CROP_MM, out_px)

    def learn_empty(self, image: np.ndarray, pyr: Pyramid | None = None) -> int:
        """Keep the look of every square in view of the empty board (as it lies at the start of
        every 11! game); later reads call a square empty while it still looks so. Returns the
        number of squares kept."""
        pyr = pyr or Pyramid(image)
        view = self.tracker.view_for(image, pyr)
        # Kept (a copy: a camera may reuse its buffer) to cut again if the tiles later say the
        # view was wrong; one picture, 6 MB.
        self._empty_picture = image.copy()
        self._cut_empty(pyr, view)
        return len(self.empty)

    def _cut_empty(self, pyr: Pyramid, view: BoardView) -> None:
        centres = view.to_image(layout_points(self.layout))
        w, h = view.image_size
        idx = np.flatnonzero((centres[:, 0] >= 0) & (centres[:, 0] < w) & (centres[:, 1] >= 0) & (centres[:, 1] < h))
        crops = self._square_crops(pyr, view, idx, self.model.crop)
        self.empty = {self.layout.squares[i].id: c for i, c in zip(idx, crops, strict=True)}
        self._empty_white = None

    @property
    def empty_white(self) -> np.ndarray:
        """The empty board's light (see `rim_white`), computed once per empty board."""
        if self._empty_white is None:
            self._empty_white = rim_white(np.stack(list(self.empty.values())))
        return self._empty_white

    def save_empty(self, path: str | Path) -> None:
        """Store the empty board's squares (npz, one array per square id)."""
        if not self.empty:
            raise ValueError("no empty board learnt yet")
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **self.empty)

    def load_empty(self, path: str | Path) -> None:
        try:
            with np.load(path) as z:
                self.empty = {k: z[k] for k in z.files}
            self._empty_white, self._empty_picture = None, None
        except (OSError, ValueError) as exc:
            raise CalibrationError(f"{path}: not an empty-board file ({exc})") from None

    def _loose(self, pyr: Pyramid, view: BoardView, regions=None) -> list[CardReading]:
        """Tiles lying beside the board, at any angle."""
        model = self.loose_model
        props, at, angles = loose_points(pyr, view, self.layout, model.crop, regions)
        if not len(props):
            return []
        crops = board_crops(pyr, view, props, TILE_CROP_MM, model.crop, angles)
        probs, colours = model.run(tile_input(np.stack(crops)))
        if colours is not None and self.inks:  # weighed against the board's inks, as the board's tiles
            colours = colours * ink_likelihood(tile_inks(crops), self.inks, model.colours)
        # Each coloured tile exists once: a loose tile read as one read as surely on the board is
        # another colour of that number, the likeliest of those left (`tiles_beside` drops the rest).
        on_board = {(c.value, c.color): c.confidence for c in self.board_tiles.values() if c.kind == "number"}
        found = []
        for n in range(len(props)):
            col = None if colours is None else colours[n]
            r = _tile_reading(probs[n], col, model, np.full(4, 0.25), present=bool(at[n] >= LOOSE_HOT))
            if r is not None and r[0] == "number" and col is not None:
                barred = _taken_colours(on_board, r[1], r[3], model.colours)
                if barred.any() and not barred.all():
                    r = _tile_reading(probs[n], col * ~barred, model, np.full(4, 0.25),
                                      present=bool(at[n] >= LOOSE_HOT))
            bar = LOOSE_SURE if at[n] >= LOOSE_HEAT else LOOSE_SURE_UNFOUND
            if r is not None and r[3] >= (max(bar, LOOSE_SYMBOL_SURE) if r[0] == "symbol" else bar):
                found.append((n, r))
        if not found:
            return []
        keep = suppress(props[[n for n, _ in found]], np.array([r[3] for _, r in found]), 0.7 * LOOSE_TILE_MM)
        out = []
        for k in keep:
            n, (kind, value, colour, conf, quarter) = found[k]
            quad = square_quad(view, props[n], LOOSE_TILE_MM, angles[n] + 90.0 * quarter)
            if cut_by_picture(quad, view.image_size):
                continue
            out.append(CardReading(kind=kind, value=value, color=colour, corners=quad_of(quad), confidence=conf))
        return out


# A loose tile whose outline runs past the picture's border by more than this share of its side
# is not reported, as a card cut by the border is not (`detect.BORDER_SLACK`): what shows may not
# say which tile it is, and it lies at the edge of the view, outside the play. A train-pool symbols
# table's triangle tile a fifth out of the picture read 0.974 sure (seed 5000 #142).
LOOSE_CUT = 0.1


def cut_by_picture(quad: np.ndarray, size: tuple[int, int], slack: float | None = None) -> bool:
    """Whether an outline (4×2 image px) reaches past a picture of `size` (w, h) by more than
    `slack` of its side (default `LOOSE_CUT`)."""
    slack = LOOSE_CUT if slack is None else slack
    side = float(np.linalg.norm(quad[1] - quad[0]))
    # margins run to the border pixels' centres; the picture ends half a pixel further out
    return bool(border_margins(np.asarray(quad, np.float64), *size).min() + 0.5 < -slack * side)


def loose_points(pyr: Pyramid, view: BoardView, layout: BoardLayout, crop_px: int, regions=None
                 ) -> tuple[np.ndarray, np.ndarray, list[float]]:
    """Where the 11! reader looks for tiles beside the board (board mm: the tile finder's peaks,
    then the strongest blobs), the finder's heat there, and the direction (degrees) each is read
    at: squared to the edges seen in a first, closer crop of `crop_px`."""
    board = (layout.width_mm, layout.height_mm, 4.0)
    peaks, heat = find_peaks(pyr, view, TILE_FINDER, regions)
    props = beside_board(pyr, view, peaks, LOOSE_TILE_MM, LOOSE_LIMIT, regions, board)
    if not len(props):
        return props, np.zeros(0), []
    angles = [dominant_angle(c) for c in board_crops(pyr, view, props, TILE_CROP_MM * 0.8, crop_px)]
    return props, heat_at(props, peaks, heat, LOOSE_NEAR), angles


def _taken_colours(on_board: dict[tuple, float], value: Any, confidence: float, colours) -> np.ndarray:
    """Which `colours` of the number `value` lie read on the board (`on_board`: (value, colour)
    -> confidence) as surely as a loose reading `confidence` sure, or more. Train seeds 5000 /
    5400 / 5100 / 5200: a green 20 beside the board read yellow, 0.993 sure, was dropped as the
    yellow 20 on its square; read as the likeliest colour left, tiles missed 7 / 13 / 8 / 16 ->
    7 / 11 / 8 / 15, tables 97 / 93 / 95.5 / 95.5 -> 97 / 93.5 / 95.5 / 96 %; varied, facsimile
    and any-stock printings and held out the same."""
    return np.array([on_board.get((value, c), 0.0) >= confidence for c in colours], bool)


def tiles_beside(known: list[CardReading], loose: list[CardReading]) -> list[CardReading]:
    """The `loose` readings, less those of a tile that cannot be there: each coloured tile exists
    once and each grey joker four times (RULES.md), so a loose reading of a tile read as surely
    or more on the board (or in `known`), or by surer loose readings, is something else. Train
    seeds 5000 / 5400 / 5100 / 5200 (200 tables each, loose tiles drawn from those not on the
    board): false tiles 7 / 9 / 13 / 7 -> 4 / 6 / 10 / 3, tables 92.5 / 88.5 / 91 / 90 -> 94 /
    89.5 / 92 / 91.5 %, tiles read exactly the same (three misread loose tiles now missed)."""
    sure: dict[tuple, list[float]] = {}
    for c in known:
        sure.setdefault((c.kind, c.value, c.color), []).append(c.confidence)
    kept = set()
    for c in sorted(loose, key=lambda c: -c.confidence):
        key = (c.kind, c.value, c.color)
        if c.kind in TILE_COPIES and sum(s >= c.confidence for s in sure.get(key, [])) >= TILE_COPIES[c.kind]:
            continue
        sure.setdefault(key, []).append(c.confidence)
        kept.add(id(c))
    return [c for c in loose if id(c) in kept]


# ----------------------------------------------------------------------------------------
# The recogniser's hook: one reader per Recognizer (it keeps the board's view between pictures)

_STATE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def reader_of(ctx, state: weakref.WeakKeyDictionary, create: Any) -> Any:
    """The recogniser's own board reader, made on its first picture (from the stored board
    calibration when it has one) and kept: it holds the board's view between pictures."""
    rec = ctx.recognizer
    reader = state.get(rec)
    if reader is None:
        reader = state[rec] = create((getattr(rec, "options", None) or {}).get("board"))
    return reader


def _start11_reader(ctx) -> dict:
    empty = (getattr(ctx.recognizer, "options", None) or {}).get("empty_board")
    reader = reader_of(ctx, _STATE, lambda board: Start11Reader.create(board, empty))
    cards = reader.read(ctx.image, ctx.pyramid, ctx.regions, ctx.timings)
    return {"cards": cards, "replace_cards": True}


def register() -> None:
    """Add the 11! tile reader to the recogniser (idempotent)."""
    from .pipeline import readers_for, register_reader

    if _start11_reader not in readers_for("start11"):
        register_reader("start11", _start11_reader, replaces_cards=True)  # tiles, no cards


register()

