"""Where small things lie: a fully convolutional network's heat map of their centres.

A finder (`train.finder_train`, `nets.DieNet`) sees the picture scaled to a fixed size in
millimetres through the board's view and gives one logit per cell of a grid `stride` times
coarser, high at the centre of each thing it was trained on (dice, 11! tiles, Numeri tokens).
It only says where; the crop classifiers then say what. Its peaks are found where blob and shape
searches are blind: a pale tile on a pale veined table, a dark token on a dark cloth, a die on a
busy cloth. Finders at one scale share the scaled picture (`Pyramid.memo`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from .boardview import BoardView, in_regions
from .classify import ModelError, Pyramid, model_file, regions_box
from .runtime import network


@dataclass(frozen=True)
class Finder:
    """A trained finder: its model name, the input scale it was trained at, its grid's stride,
    the things' width (mm) and the weakest peak proposed."""

    model: str
    px_per_mm: float
    stride: int
    thing_mm: float
    least: float


def find_centres(pyr: Pyramid, view: BoardView, finder: Finder, regions=None) -> np.ndarray:
    """Board-mm centres of the likely things (strongest first); with `regions`
    (picture boxes), only those inside them, the picture searched only round them."""
    return find_peaks(pyr, view, finder, regions)[0]


def find_peaks(pyr: Pyramid, view: BoardView, finder: Finder, regions=None) -> tuple[np.ndarray, np.ndarray]:
    """(board-mm centres, the finder's heat 0-1 at each), strongest first (`find_centres`)."""
    path = model_file(finder.model)
    if not path.is_file():
        raise ModelError(f"model file {path} is missing")
    ppm = view.px_per_mm()
    s = finder.px_per_mm / ppm
    level = max(0, min(3, int(math.floor(math.log2(max(1.0 / s, 1.0))))))
    img = pyr.level(level)
    f = 2.0**level
    stride = finder.stride
    # The whole picture, or only round the changed regions (a thing's width and more of context).
    lx0, ly0, lx1, ly1 = 0, 0, img.shape[1], img.shape[0]
    if regions is not None:
        # The finder sees about five things' widths round a thing (its receptive field).
        x0, y0, x1, y1 = regions_box(regions, 5.0 * finder.thing_mm * ppm)
        lx0, ly0 = int(max(0.0, x0 / f)), int(max(0.0, y0 / f))
        lx1, ly1 = int(min(img.shape[1], x1 / f)), int(min(img.shape[0], y1 / f))
    W = int(round((lx1 - lx0) * f * s)) // stride * stride
    H = int(round((ly1 - ly0) * f * s)) // stride * stride
    if W < 2 * stride or H < 2 * stride:
        return np.zeros((0, 2)), np.zeros(0)
    key = ("finder", level, lx0, ly0, lx1, ly1, W, H)  # finders at one scale share their input
    blob = pyr.memo.get(key)
    if blob is None:
        small = cv2.resize(img[ly0:ly1, lx0:lx1], (W, H), interpolation=cv2.INTER_AREA)
        blob = pyr.memo[key] = cv2.dnn.blobFromImage(small, 1 / 255.0, mean=(127.5, 127.5, 127.5))
    heat = 1.0 / (1.0 + np.exp(-network(path).run(blob)[0][0, 0]))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > finder.least)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-heat[ys, xs])
    ys, xs = ys[order], xs[order]
    strength = heat[ys, xs].astype(np.float64)
    pts = []
    for y, x in zip(ys, xs, strict=True):  # the heat's centroid round each peak: a fraction of a cell
        y0, y1, x0, x1 = max(0, y - 1), min(heat.shape[0], y + 2), max(0, x - 1), min(heat.shape[1], x + 2)
        w = heat[y0:y1, x0:x1]
        gy, gx = np.mgrid[y0:y1, x0:x1]
        pts.append(((gx * w).sum() / w.sum(), (gy * w).sum() / w.sum()))
    if not pts:
        return np.zeros((0, 2)), np.zeros(0)
    g = np.asarray(pts, np.float64)
    # Cell centre -> picture pixel (pixel edges scale, pixel centres sit half a pixel in).
    px = [lx0 * f, ly0 * f] + (g + 0.5) * stride * [(lx1 - lx0) * f / W, (ly1 - ly0) * f / H] - 0.5
    if regions is not None:
        inside = in_regions(px, regions)
        px, strength = px[inside], strength[inside]
    return (view.to_board(px) if len(px) else np.zeros((0, 2))), strength


def nearest_peaks(points: np.ndarray, peaks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each point (board mm), the index of the nearest of `peaks` (non-empty) and its distance."""
    d = np.linalg.norm(np.asarray(points)[:, None, :2] - peaks[None], axis=2)
    k = d.argmin(axis=1)
    return k, d[np.arange(len(k)), k]


def heat_at(points: np.ndarray, peaks: np.ndarray, heat: np.ndarray, near_mm: float) -> np.ndarray:
    """The heat of the nearest of `peaks` within `near_mm` of each point (board mm), 0 where none is."""
    if not len(points) or not len(peaks):
        return np.zeros(len(points))
    k, dist = nearest_peaks(points, peaks)
    return np.where(dist <= near_mm, heat[k], 0.0)
