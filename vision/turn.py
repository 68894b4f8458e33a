"""A table lying turned in the picture is read square-on.

The card detector learnt rows that lie along the picture's sides. On a table turned 37° it
splits cards and places hidden ones badly: its direction channel cannot tell a card turned
+30° from one turned −30° (see `vision/models/README.md`). When the cards seen whole agree
that the table lies turned, the picture is turned back before detection, and the outlines
found are turned again into the picture. A loose heap, whose cards lie every way, is read as
it is.
"""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np

from .detect import Detection, Detector, seen_whole, within_picture

TURN_MIN = 20.0  # degrees: a table turned less than this is read as it lies (the detector copes)
TURN_AGREE = 0.8  # length of the mean of the whole cards' directions (×4) needed to call a turn
TURN_CARDS = 2  # cards seen whole needed to call a turn


def table_turn(dets: list[Detection]) -> float | None:
    """How far (degrees, −45..45) the cards seen whole lie turned from the picture's sides, or
    None when too few are seen whole or they disagree. A card's direction and the same turned
    a quarter or a half turn are the same lie of the table: the mean is taken of 4 × angle."""
    whole = [d for d in dets if d.inside and seen_whole(d)]
    if len(whole) < TURN_CARDS:
        return None
    z = np.exp(4j * np.radians([d.angle for d in whole])).mean()
    if abs(z) < TURN_AGREE:
        return None
    return math.degrees(float(np.angle(z))) / 4.0


def turned(image: np.ndarray, turn: float) -> tuple[np.ndarray, np.ndarray]:
    """The picture turned by −`turn` degrees on a canvas large enough to hold all of it (the
    corners filled with the picture's median colour), and the 2×3 map from picture to canvas."""
    h, w = image.shape[:2]
    m = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), turn, 1.0)
    c, s = abs(m[0, 0]), abs(m[0, 1])
    cw, ch = int(math.ceil(w * c + h * s)), int(math.ceil(w * s + h * c))
    m[0, 2] += cw / 2.0 - w / 2.0
    m[1, 2] += ch / 2.0 - h / 2.0
    fill = tuple(float(v) for v in np.median(image[::8, ::8].reshape(-1, 3), axis=0))
    canvas = cv2.warpAffine(image, m, (cw, ch), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                            borderValue=fill)
    return canvas, m


def turned_back(dets: list[Detection], m: np.ndarray, turn: float, shape: tuple[int, ...],
                offset: tuple[int, int] = (0, 0)) -> list[Detection]:
    """Outlines found on the turned canvas of a part of the picture placed at `offset`, in the
    coordinates of the whole picture (of `shape`); a card not within it is marked as such."""
    back = cv2.invertAffineTransform(m)
    h, w = shape[:2]
    out = []
    for d in dets:
        quad = np.asarray(d.quad, np.float64) @ back[:, :2].T + back[:, 2] + offset
        centre = quad.mean(axis=0)
        out.append(replace(d, quad=quad, centre=(float(centre[0]), float(centre[1])), angle=(d.angle + turn) % 180.0,
                           inside=within_picture(quad, d.size[0], w, h)))
    return out


def detect_turned(detector: Detector, image: np.ndarray, turn: float, card_width: float | None = None,
                  window: tuple[int, int, int, int] | None = None) -> tuple[list[Detection], float | None]:
    """`Detector.detect` on the picture (or the window x0, y0, x1, y1 of it) turned back by
    `turn` degrees; the outlines are in the picture's coordinates."""
    x0, y0, x1, y1 = window if window is not None else (0, 0, image.shape[1], image.shape[0])
    canvas, m = turned(image[y0:y1, x0:x1], turn)
    dets, width = detector.detect(canvas, card_width)
    return turned_back(dets, m, turn, image.shape, (x0, y0)), width
