"""The 11! board's own inks: a tile's colour told by the tiles beside it as well as by the net.

The tile net names a tile's colour from its crop alone, and an orange-printed yellow looks red
to it when no true red is in the crop to compare (train pool: the yellow 8 and 10 of a board
read red at 0.97, while that board's red numerals were crimson and its yellow ones all the same
orange). The board shows the comparison: most tiles lie on their own row, so the tiles read as
their row's colour place each colour's ink on this board, in this light. A tile's ink far from
a colour's ink on the board makes that colour unlikely. The ink only weighs with the net; it
never names a colour alone (the ink of a single tile can be off: glare, a thin numeral), and a
tile on another row's square (an illegal move) is read by its own ink as well.
"""

from __future__ import annotations

import cv2
import numpy as np

from .colour import DARK_MIN, INK_SHARE, MIN_CHROMA

INK_SIGMA = 8.0  # a*b* units: spread of one colour's tiles round its ink on one board (train: 90 % within 5)
INK_FLOOR = 0.01  # least likelihood: the ink can make a colour at most 100 times less likely
ROW_TILES = 2  # tiles read as their row's colour needed to place that colour's ink
# Side of the crop's middle measured (12 of its 30 mm): the tile's face, not its square round it,
# though the tile lie 3 mm off the square and turned (train 5000 #18: with the middle half, a
# yellow 6 turned 10 degrees showed its square's yellow print, of higher chroma than its ink).
INK_MIDDLE = 0.4


def tile_inks(crops: list[np.ndarray]) -> np.ndarray:
    """(a*, b*) of the ink of each tile crop, NaN where it shows none. The ink is measured as
    `colour.measure_ink` measures a card's (its most saturated pixels, the darker weighing more),
    on the crop's middle (INK_MIDDLE), against the face's own stock (each channel's 90th
    percentile, as the tile net's input is scaled); all crops in one pass."""
    if not crops:
        return np.zeros((0, 2))
    s = crops[0].shape[0]
    lo = round(s * (1 - INK_MIDDLE) / 2)
    hi = s - lo
    x = np.stack([c[lo:hi, lo:hi] for c in crops]).reshape(len(crops), -1, 3).astype(np.float32)
    m = x.shape[1]
    white = np.maximum(np.partition(x, int(0.9 * (m - 1)), axis=1)[:, int(0.9 * (m - 1))], 16.0)
    x = np.clip(x / white[:, None, :], 0.0, 2.0)
    lab = cv2.cvtColor(x.reshape(1, -1, 3), cv2.COLOR_BGR2Lab).reshape(len(crops), m, 3)
    L, a, b = lab[..., 0], lab[..., 1], lab[..., 2]
    c = np.hypot(a, b)
    top = np.partition(c, int(0.97 * (m - 1)), axis=1)[:, int(0.97 * (m - 1))]
    sel = c >= np.maximum(0.5 * MIN_CHROMA, INK_SHARE * top)[:, None]
    w = np.where(sel, c**2 * np.clip((100.0 - L) / 50.0, DARK_MIN, 2.0), 0.0)
    total = w.sum(axis=1)
    ink = np.stack([(w * a).sum(axis=1), (w * b).sum(axis=1)], axis=1) / np.maximum(total, 1e-9)[:, None]
    ink[(top < MIN_CHROMA) | (total <= 0)] = np.nan
    return ink.astype(np.float64)


def board_inks(tiles: list[tuple[str, str | None, np.ndarray]]) -> dict[str, np.ndarray]:
    """Each colour's ink on this board: the median ink of the tiles read as their row's colour
    (`tiles`: (row, colour read, ink)), for colours with ROW_TILES such tiles or more."""
    by: dict[str, list[np.ndarray]] = {}
    for row, colour, ink in tiles:
        if colour == row and np.isfinite(ink).all():
            by.setdefault(row, []).append(ink)
    return {c: np.median(np.stack(v), axis=0) for c, v in by.items() if len(v) >= ROW_TILES}


def ink_likelihood(inks_ab: np.ndarray, inks: dict[str, np.ndarray], colours: tuple[str, ...]) -> np.ndarray:
    """Likelihood of each of `colours` (N×C) for tiles of these inks (N×2), given the board's
    `inks`: a Gaussian of INK_SIGMA round each placed ink, at least INK_FLOOR; a colour not
    placed on the board is as likely as the likeliest placed one (its ink may lie anywhere).
    All ones for a tile that shows no ink, and for all when the board places fewer than two
    colours."""
    ab = np.asarray(inks_ab, np.float64).reshape(-1, 2)
    out = np.ones((len(ab), len(colours)))
    placed = np.array([c in inks for c in colours])
    if len(inks) < 2 or not placed.any():
        return out
    ref = np.stack([inks[c] for c, on in zip(colours, placed, strict=True) if on])
    d2 = ((ab[:, None, :] - ref[None]) ** 2).sum(axis=2)
    like = np.maximum(np.exp(-d2 / (2 * INK_SIGMA**2)), INK_FLOOR)
    out[:, placed] = like
    out[:, ~placed] = like.max(axis=1, keepdims=True)
    out[~np.isfinite(ab).all(axis=1)] = 1.0
    return out
