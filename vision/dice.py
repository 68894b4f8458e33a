"""The die: Numeri's faces 1-5 and a star, or a plain die with pips 1-6.

A die is found anywhere on the table, on the board or beside it: a small fully convolutional
network (`die_centres`, the die finder) marks where dice lie on a coarse grid of the picture
scaled to a fixed size in millimetres, and the strongest few compact blobs of a die's size add
proposals; one small network (`die_faces`) reads each proposal's crop as "no die" or the top
face (1-6 or star), at any angle (the crops are turned freely in training). The crop is cut in
board millimetres through the board's view, so its scale does not depend on how far the camera
is. The outline reported is the top face's square, turned like its edges.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from .board import away_from, crop_model, dominant_angle, in_regions, proposals, suppress
from .boardview import BoardView, board_crops, square_quad
from .classify import MODELS_DIR, ModelError, Pyramid, preprocess
from .runtime import network
from .types import DieReading, quad_of

DIE_CLASSES = ("none", "1", "2", "3", "4", "5", "6", "star")
DIE_CROP = 40  # network input, pixels
DIE_CROP_MM = 26.0  # a die is 14-18 mm across
DIE_MODEL = "die_faces"
DIE_MM = 16.0
MIN_DIE = 0.5
# Blob proposals read per picture besides the finder's. The finder points at nearly every die the
# blobs find: on 140 held-out scenes 8 blobs read as many dice as 80, in 98 ms instead of 130.
DIE_LIMIT = 8
FINDER_MODEL = "die_centres"  # the die finder (`train.die_det`): where dice are, before what they show
FINDER_PX_PER_MM = 0.8  # its input scale: a 16 mm die is about 13 pixels
FINDER_STRIDE = 4
FINDER_MIN = 0.08  # finder peaks weaker than this are not proposed
FINDER_LIMIT = 16


def die_class(value) -> int:
    return DIE_CLASSES.index(str(value))


def read_dice(pyr: Pyramid, view: BoardView, regions=None, exclude: np.ndarray | None = None,
              model_name: str = DIE_MODEL, most: int | None = None) -> list[DieReading]:
    """Every die in view (in `regions` only, when given), at most `most` of them (the surest:
    a game with one die has one). `exclude`: board-mm points (squares holding a token) whose
    neighbourhood is not searched."""
    model = crop_model(model_name)
    found = find_dice(pyr, view, regions, exclude)
    props = proposals(pyr, view, DIE_MM, DIE_LIMIT, regions, exclude=exclude)
    props = np.concatenate([found, props]) if len(props) else found
    if not len(props):
        return []
    crops = board_crops(pyr, view, props, DIE_CROP_MM, model.crop)
    probs, _ = model.run(preprocess(np.stack(crops)))
    p_die = 1.0 - probs[:, 0]
    hit = np.flatnonzero(p_die >= MIN_DIE)
    if not len(hit):
        return []
    conf = np.array([p_die[i] * probs[i, 1:].max() / max(probs[i, 1:].sum(), 1e-12) for i in hit])
    out = []
    for k in suppress(props[hit], conf, 0.8 * DIE_MM)[:most]:
        i = hit[k]
        label = model.classes[int(probs[i, 1:].argmax()) + 1]
        value: int | str = "star" if label == "star" else int(label)
        angle = dominant_angle(crops[i])
        quad = square_quad(view, props[i], DIE_MM, angle)
        out.append(DieReading(value=value, corners=quad_of(quad), confidence=float(conf[k])))
    return out


def find_dice(pyr: Pyramid, view: BoardView, regions=None, exclude: np.ndarray | None = None,
              model_name: str = FINDER_MODEL) -> np.ndarray:
    """Board-mm centres of up to FINDER_LIMIT likely dice (strongest first), from the die finder."""
    path = MODELS_DIR / f"{model_name}.onnx"
    if not path.is_file():
        raise ModelError(f"model file {path} is missing")
    ppm = view.px_per_mm()
    s = FINDER_PX_PER_MM / ppm
    level = max(0, min(3, int(math.floor(math.log2(max(1.0 / s, 1.0))))))
    img = pyr.level(level)
    f = 2.0**level
    # The whole picture, or only round the changed regions (a die's width and more of context).
    lx0, ly0, lx1, ly1 = 0, 0, img.shape[1], img.shape[0]
    if regions is not None:
        r = np.asarray(list(regions), np.float64).reshape(-1, 4)
        pad = 5.0 * DIE_MM * ppm  # the finder sees about this far round a die (its receptive field)
        lx0, ly0 = (int(max(0.0, v / f)) for v in (r[:, 0].min() - pad, r[:, 1].min() - pad))
        lx1, ly1 = int(min(img.shape[1], (r[:, 2].max() + pad) / f)), int(min(img.shape[0], (r[:, 3].max() + pad) / f))
    W = int(round((lx1 - lx0) * f * s)) // FINDER_STRIDE * FINDER_STRIDE
    H = int(round((ly1 - ly0) * f * s)) // FINDER_STRIDE * FINDER_STRIDE
    if W < 2 * FINDER_STRIDE or H < 2 * FINDER_STRIDE:
        return np.zeros((0, 2))
    small = cv2.resize(img[ly0:ly1, lx0:lx1], (W, H), interpolation=cv2.INTER_AREA)
    net = network(path)
    heat = 1.0 / (1.0 + np.exp(-net.run(cv2.dnn.blobFromImage(small, 1 / 255.0, mean=(127.5, 127.5, 127.5)))[0][0, 0]))
    peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat > FINDER_MIN)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-heat[ys, xs])
    ys, xs = ys[order], xs[order]
    pts = []
    for y, x in zip(ys, xs, strict=True):  # the heat's centroid round each peak: a fraction of a cell
        y0, y1, x0, x1 = max(0, y - 1), min(heat.shape[0], y + 2), max(0, x - 1), min(heat.shape[1], x + 2)
        w = heat[y0:y1, x0:x1]
        gy, gx = np.mgrid[y0:y1, x0:x1]
        pts.append(((gx * w).sum() / w.sum(), (gy * w).sum() / w.sum()))
    if not pts:
        return np.zeros((0, 2))
    g = np.asarray(pts, np.float64)
    # Cell centre -> picture pixel (pixel edges scale, pixel centres sit half a pixel in).
    px = [lx0 * f, ly0 * f] + (g + 0.5) * FINDER_STRIDE * [(lx1 - lx0) * f / W, (ly1 - ly0) * f / H] - 0.5
    if regions is not None:
        px = px[in_regions(px, regions)]
        if not len(px):
            return np.zeros((0, 2))
    return away_from(view.to_board(px), exclude, DIE_MM)[:FINDER_LIMIT]
