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

import numpy as np

from .board import away_from, crop_model, dominant_angle, proposals, suppress
from .boardview import BoardView, board_crops, square_quad
from .classify import Pyramid, preprocess
from .finder import Finder, find_peaks, heat_at
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
# The die finder (`train.finder_train --kind dice`): where dice are, before what they show. Its
# input is the picture at 0.8 px/mm (a 16 mm die about 13 pixels), its grid 4 pixels; weaker peaks
# than 0.08 are not proposed.
DIE_FINDER = Finder("die_centres", px_per_mm=0.8, stride=4, thing_mm=DIE_MM, least=0.08)
FINDER_LIMIT = 16
# A die is read where the finder's heat is DIE_HEAT or more, elsewhere only when the die net is
# DIE_SURE of it: the finder marks a real die at 0.4 and more (141 of 147 readings round the
# dice of 120 train-pool tables), and a cloth's stripe or a terrazzo's chip read as a star lies
# where it is weak. On 240 train-pool Numeri tables (seeds 5000-5500): false dice 7 -> 4, the
# same 228 of 230 dice read.
DIE_HEAT = 0.3
DIE_SURE = 0.95


def die_class(value) -> int:
    return DIE_CLASSES.index(str(value))


def read_dice(pyr: Pyramid, view: BoardView, regions=None, exclude: np.ndarray | None = None,
              model_name: str = DIE_MODEL, most: int | None = None) -> list[DieReading]:
    """Every die in view (in `regions` only, when given), at most `most` of them (the surest:
    a game with one die has one). `exclude`: board-mm points (squares holding a token) whose
    neighbourhood is not searched."""
    model = crop_model(model_name)
    found, peaks, heat = _finder_dice(pyr, view, regions, exclude)
    props = proposals(pyr, view, DIE_MM, DIE_LIMIT, regions, exclude=exclude)
    props = np.concatenate([found, props]) if len(props) else found
    if not len(props):
        return []
    crops = board_crops(pyr, view, props, DIE_CROP_MM, model.crop)
    probs, _ = model.run(preprocess(np.stack(crops)))
    p_die = 1.0 - probs[:, 0]
    warm = heat_at(props, peaks, heat, 0.5 * DIE_MM) >= DIE_HEAT
    hit = np.flatnonzero((p_die >= MIN_DIE) & (warm | (p_die >= DIE_SURE)))
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
              finder: Finder = DIE_FINDER) -> np.ndarray:
    """Board-mm centres of up to FINDER_LIMIT likely dice (strongest first), from the die finder."""
    return _finder_dice(pyr, view, regions, exclude, finder)[0]


def _finder_dice(pyr: Pyramid, view: BoardView, regions=None, exclude: np.ndarray | None = None,
                 finder: Finder = DIE_FINDER) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """`find_dice`, with all the finder's peaks and their heat (board mm, 0-1)."""
    peaks, heat = find_peaks(pyr, view, finder, regions)
    return away_from(peaks, exclude, DIE_MM)[:FINDER_LIMIT], peaks, heat
