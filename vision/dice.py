"""The die: Numeri's faces 1-5 and a star, or a plain die with pips 1-6.

A die is found anywhere on the table, on the board or beside it: compact blobs of a die's size
are proposals, and one small network (`die_faces`) reads each proposal's crop as "no die" or
the top face (1-6 or star), at any angle (the crops are turned freely in training). The crop
is cut in board millimetres through the board's view, so its scale does not depend on how far
the camera is. The outline reported is the top face's square, turned like its edges.
"""

from __future__ import annotations

import numpy as np

from .board import crop_model, dominant_angle, proposals, suppress
from .boardview import BoardView, crop_transform, sample_crop, square_quad
from .classify import Pyramid, preprocess
from .types import DieReading, quad_of

DIE_CLASSES = ("none", "1", "2", "3", "4", "5", "6", "star")
DIE_CROP = 40  # network input, pixels
DIE_CROP_MM = 26.0  # a die is 14-18 mm across
DIE_MODEL = "die_faces"
DIE_MM = 16.0
MIN_DIE = 0.5
DIE_LIMIT = 80  # proposals read per picture


def die_class(value) -> int:
    return DIE_CLASSES.index(str(value))


def read_dice(pyr: Pyramid, view: BoardView, regions=None, exclude: np.ndarray | None = None,
              model_name: str = DIE_MODEL, most: int | None = None) -> list[DieReading]:
    """Every die in view (in `regions` only, when given), at most `most` of them (the surest:
    a game with one die has one). `exclude`: board-mm points (squares holding a token) whose
    neighbourhood is not searched."""
    model = crop_model(model_name)
    props = proposals(pyr, view, DIE_MM, DIE_LIMIT, regions, exclude=exclude)
    if not len(props):
        return []
    crops = [sample_crop(pyr, crop_transform(view, c, DIE_CROP_MM, model.crop), model.crop) for c in props]
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
