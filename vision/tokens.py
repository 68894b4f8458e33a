"""Numeri: the numbered tokens on the track (mapped to track squares) and beside it, and the die.

The track board is found and kept by the board machinery (`vision.board`: lattice fit, lens
distortion, which way round). Each track square is then read in place: a crop with context
round the square goes through one small network (`token_numbers`) that says "no token" or
which number (1-5) the token shows, at any angle, and which of the four colours it is. The
colour is read from the crop divided by the picture's white, measured on the board's pale
squares (a red token keeps its hue under a warm lamp, and a yellow token on the yellow end
squares still differs from the square). Tokens waiting beside the board are found by the token
finder (`vision.finder`: a small network marking token centres) and as compact blobs of a
token's size on the table, and read by the same network (while a colour's set of five lacks
values, the weaker blobs next to its tokens too); the die by `vision.dice`.
"""

from __future__ import annotations

import time
import weakref
from dataclasses import dataclass, field, replace
from itertools import permutations
from pathlib import Path

import cv2
import numpy as np

from .board import (
    CropModel,
    away_from,
    beside_board,
    crop_model,
    in_regions,
    proposals,
    reader_of,
    suppress,
)
from .boardfind import BoardTracker, layout_points, load_calibration_view
from .boardview import BoardView, board_crops
from .classify import Pyramid
from .finder import Finder, find_centres, nearest_peaks
from .layouts import BoardLayout, load_layout
from .types import DieReading, TokenReading

TOKEN_CLASSES = ("none", "1", "2", "3", "4", "5")
TOKEN_COLOURS = ("yellow", "red", "blue", "green")
TOKEN_CROP = 48  # network input, pixels
TOKEN_CROP_MM = 40.0  # the track square (38 mm) and its border; a token is 20-28 mm across
TOKEN_MODEL = "token_numbers"
TOKEN_MM = 24.0  # typical token diameter, for finding tokens beside the board
MIN_TOKEN = 0.5
# Tokens beside the board are proposed by the token finder (TOKEN_FINDER, each token at its
# centre) and by the OFF_LIMIT strongest blobs away from its peaks. The finder replaced a circle
# search (OpenCV's gradient Hough, a quarter of a read's time): on 60 train-pool tables (seed
# 7000) tokens 96.0 -> 97.7 % exact, every token beside the board found, with or without the
# circles (then earlier, on 100 held-out scenes: blobs alone read 92.4 %, circles 95.8 %, both 96.2 %).
OFF_LIMIT = 15
# Tokens are looked for beside the board and over its rim, up to 12 mm in (half a token), off its
# track squares: a token pushed against the board lies half on it. From 3 mm outside (before) to
# 12 mm in, 40 train-pool tables: tokens 98.4 -> 98.9 %, none more reported where there is none.
BESIDE_MARGIN = -12.0
# A token beside the board touching others, or on a busy cloth, may be neither a finder peak nor
# among the OFF_LIMIT strongest blobs. Each colour has one token of each value 1-5: while a
# colour's set is incomplete, the next NEAR_LIMIT blobs lying a token's width or two (NEAR_MM)
# from its tokens beside the board are read too, for a value it lacks; what is found is looked
# round in turn.
NEAR_LIMIT = 45
NEAR_MM = (0.6 * TOKEN_MM, 2.5 * TOKEN_MM)
# The token finder (`train.finder_train --kind tokens`): where tokens lie, at 0.8 px/mm (a token
# about 19 pixels), one cell per 4 pixels. Peaks under 0.3 are not proposed: of 708 tokens read
# exactly beside the board on 200 train-pool tables (seeds 7000, 7500) one had a weaker peak,
# and a cloth's dots (the held-out polka dots, no train table has dots) have peaks of 0.1-0.27,
# which the token net, shown every one, read as a colour's five tokens at 0.05-0.6.
TOKEN_FINDER = Finder("token_centres", px_per_mm=0.8, stride=4, thing_mm=TOKEN_MM, least=0.3)
# A token on a track square is read twice: centred on the square, and centred on the token
# finder's peak when one lies within CENTRED_MM of the square's centre; the two readings'
# geometric mean is taken (`NumeriReader._centred`). Held out (40 tables, seed 2024), tokens
# 97.75 -> 99.31 %: the numerals of unseen typefaces (3 and 5 most) were misread when unrolled
# round a point off the token. The train pool reads the same (its typefaces were read right).
CENTRED_MM = 10.0
DICE = 1  # Numeri is played with one die (RULES.md): the surest die-like thing is it


def token_class(value: int) -> int:
    return TOKEN_CLASSES.index(str(int(value)))


POLAR_ANGLES, POLAR_RADII, POLAR_WRAP = 64, 20, 12  # polar input: rows per turn, radii, rows repeated


def token_input(crops: np.ndarray, white, polar: bool = False) -> np.ndarray:
    """Network input: crops divided by the picture's white (the board's pale squares), so a
    token's colour keeps its hue under any lamp; `white` is one BGR triple or one per crop.

    `polar`: each crop unrolled round its centre (rows: angle, columns: radius), a turn of the
    token becomes a shift of rows, which the network's convolutions and pooling ignore — a
    numeral at any angle needs no learning of every angle. Rows wrap round (POLAR_WRAP repeated
    at each end) so that a numeral cut by the seam is whole on one side."""
    x = np.asarray(crops, np.float32)
    if x.ndim == 3:
        x = x[None]
    w = np.maximum(np.asarray(white, np.float32).reshape(-1, 3), 16.0)
    x = np.clip(x / w[:, None, None, :], 0.0, 1.6) - 0.6
    if polar:
        s = x.shape[1]
        c = (s - 1) / 2.0
        x = np.stack([cv2.warpPolar(im, (POLAR_RADII, POLAR_ANGLES), (c, c), 0.36 * s,
                                    cv2.WARP_POLAR_LINEAR | cv2.INTER_LINEAR) for im in x])
        x = np.concatenate([x[:, -POLAR_WRAP:], x, x[:, :POLAR_WRAP]], axis=1)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def _polar(model: CropModel) -> bool:
    return model.meta.get("input") == "token_polar"


def board_white(pyr: Pyramid, view: BoardView, layout: BoardLayout) -> np.ndarray:
    """The colour of the board's pale (blank and numbered) squares in this picture, BGR: the
    brighter half of them (a token on a square darkens it)."""
    pts, owner = [], []
    g = np.linspace(-0.25, 0.25, 5) * layout.square_mm
    for i, q in enumerate(layout.squares):
        if q.kind in ("blank", "number"):
            for dx in g:
                for dy in g:
                    pts.append((q.x + dx, q.y + dy))
                    owner.append(i)
    p = view.to_image(np.array(pts))
    img = pyr.image
    h, w = img.shape[:2]
    v = cv2.remap(img, p[:, 0].astype(np.float32).reshape(1, -1), p[:, 1].astype(np.float32).reshape(1, -1),
                  cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(-1, 3).astype(np.float32)
    inside = (p[:, 0] >= 0) & (p[:, 0] < w) & (p[:, 1] >= 0) & (p[:, 1] < h)
    owner_a = np.array(owner)
    per = [np.median(v[(owner_a == i) & inside], axis=0) for i in np.unique(owner_a[inside])]
    if not per:
        return np.array([200.0, 200.0, 200.0])
    arr = np.array(per)
    bright = arr.sum(axis=1)
    return np.median(arr[bright >= np.median(bright)], axis=0)


def _token_there(probs: np.ndarray) -> np.ndarray:
    """Whether the network's probabilities (…×6, "no token" first) say a token is there."""
    return 1.0 - np.asarray(probs)[..., 0] >= MIN_TOKEN


def _token(p: np.ndarray, colour: np.ndarray | None, model: CropModel
           ) -> tuple[int, str, float, tuple[float, ...]] | None:
    """(value, colour, confidence, probabilities of the values 1-5) of one crop, or None."""
    if not _token_there(p):
        return None
    p_tok = 1.0 - float(p[0])
    k = int(p[1:].argmax()) + 1
    conf = p_tok * float(p[k] / max(p[1:].sum(), 1e-12))
    name = TOKEN_COLOURS[0]
    if colour is not None:
        j = int(colour.argmax())
        name = model.colours[j]
        conf *= float(colour[j])
    share = {int(model.classes[i]): float(p[i]) / max(float(p[1:].sum()), 1e-12) for i in range(1, len(p))}
    return int(model.classes[k]), name, conf, tuple(share.get(v, 0.0) for v in range(1, 6))


def _geometric_mean(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Two readings' class probabilities combined (rows: crops), renormalised."""
    g = np.sqrt(np.maximum(p, 1e-12) * np.maximum(q, 1e-12))
    return g / g.sum(axis=1, keepdims=True)


def _surplus(tokens: list[TokenReading], idx: list[int]) -> set[int]:
    """Of a colour's readings `idx` (indices into `tokens`), those to drop when there are more
    than five: readings beside the board that repeat the value of one on the track or of one at
    least as sure, least sure first, until five are left."""
    drop: set[int] = set()
    for i in sorted((i for i in idx if tokens[i].square is None), key=lambda i: tokens[i].confidence):
        if len(idx) - len(drop) <= 5:
            break
        if any(j != i and j not in drop and tokens[j].value == tokens[i].value
               and (tokens[j].square is not None or tokens[j].confidence >= tokens[i].confidence) for j in idx):
            drop.add(i)
    return drop


def one_of_each(tokens: list[TokenReading]) -> list[TokenReading]:
    """Each colour has one token of each value 1-5 (RULES.md §5.1). More than five of a colour
    read: something else was taken for one of them (most often a coin with a number lying beside
    the board), and the less sure readings beside the board of values read twice are dropped
    (`_surplus`). Where a colour's tokens in view are read with a value twice, they are given the
    most probable distinct values (the numerals 3 and 5, 1 and 4 look alike in a small photo).
    More than five of a colour still (a token's colour misread) are left as read."""
    by_colour: dict[str, list[int]] = {}
    for i, t in enumerate(tokens):
        by_colour.setdefault(t.color, []).append(i)
    drop = set().union(*(_surplus(tokens, idx) for idx in by_colour.values() if len(idx) > 5))
    if drop:
        return one_of_each([t for i, t in enumerate(tokens) if i not in drop])
    out = list(tokens)
    for idx in by_colour.values():
        values = [tokens[i].values for i in idx]
        if len({tokens[i].value for i in idx}) == len(idx) or len(idx) > 5 or any(v is None for v in values):
            continue
        logp = np.log(np.maximum(np.asarray(values, np.float64), 1e-9))
        best = max(permutations(range(5), len(idx)), key=lambda perm: sum(logp[k, v] for k, v in enumerate(perm)))
        for k, i in enumerate(idx):
            t, v = tokens[i], best[k] + 1
            if v != t.value:
                p = t.values or ()
                out[i] = replace(t, value=v, confidence=t.confidence * p[v - 1] / max(p[t.value - 1], 1e-9))
    return out


@dataclass
class NumeriReader:
    """Reads the Numeri track, the tokens beside it and the die from pictures of one camera."""

    layout: BoardLayout
    tracker: BoardTracker
    model_name: str = TOKEN_MODEL
    on_board: dict = field(default_factory=dict)  # track index -> TokenReading
    off_board: list = field(default_factory=list)
    dice: list = field(default_factory=list)
    _spare: np.ndarray = field(default_factory=lambda: np.zeros((0, 2)))  # blobs beside the board not yet read

    @classmethod
    def create(cls, calibration: str | Path | None = None) -> NumeriReader:
        layout = load_layout("numeri")
        hint = load_calibration_view(calibration, layout) if calibration else None
        return cls(layout, BoardTracker(layout, hint=hint))

    @property
    def model(self) -> CropModel:
        return crop_model(self.model_name)

    def read(self, image: np.ndarray, pyr: Pyramid, regions=None, timings: dict | None = None
             ) -> tuple[list[TokenReading], list[DieReading]]:
        """All tokens and dice in view (with `regions`: read again only there, the rest kept)."""
        from .dice import read_dice

        timings = timings if timings is not None else {}
        view = self.tracker.view_for(image, pyr, timings)
        t = time.perf_counter()
        model = self.model
        white = board_white(pyr, view, self.layout)
        centres = layout_points(self.layout)
        img_c = view.to_image(centres)
        w, h = view.image_size
        visible = (img_c[:, 0] >= 0) & (img_c[:, 0] < w) & (img_c[:, 1] >= 0) & (img_c[:, 1] < h)
        todo = visible if regions is None else visible & in_regions(img_c, regions)
        idx = np.flatnonzero(todo)
        peaks = find_centres(pyr, view, TOKEN_FINDER, regions)
        crops = board_crops(pyr, view, centres[idx], TOKEN_CROP_MM, model.crop)
        probs, colours = model.run(token_input(np.stack(crops), white, _polar(model)) if crops else
                                   np.zeros((0, 3, model.crop, model.crop), np.float32))
        self._centred(pyr, view, white, centres[idx], peaks, probs, colours)
        if regions is None:
            self.on_board = {}
        for n, i in enumerate(idx):
            r = _token(probs[n], None if colours is None else colours[n], model)
            sid = self.layout.squares[i].id
            if r is None:
                self.on_board.pop(sid, None)
                continue
            value, colour, conf, values = r
            c = img_c[i]
            self.on_board[sid] = TokenReading(value=value, color=colour, center=(float(c[0]), float(c[1])),
                                              confidence=conf, square=int(sid), values=values)
        timings["token_board_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        off = self._beside(pyr, view, white, peaks, regions)
        timings["token_beside_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        taken = [self.layout.square(s) for s in self.on_board]
        exclude = np.array([[q.x, q.y] for q in taken]).reshape(-1, 2)
        dice = read_dice(pyr, view, regions, exclude=exclude, most=DICE)
        timings["dice_ms"] = (time.perf_counter() - t) * 1000
        if regions is None:
            self.off_board, self.dice = off, dice
        else:
            def outside(items, centre):
                return [x for x in items if not in_regions(centre(x), regions)[0]]

            self.off_board = outside(self.off_board, lambda x: x.center) + off
            kept = outside(self.dice, lambda d: np.mean(d.corners, axis=0)) + dice
            self.dice = sorted(kept, key=lambda d: -d.confidence)[:DICE]
        t = time.perf_counter()
        self.off_board += self._neighbours(pyr, view, white)
        timings["token_neighbours_ms"] = (time.perf_counter() - t) * 1000
        # A die found where a token was read beside the board: keep the more confident reading.
        tokens = self.off_board
        for d in self.dice:
            dc = np.mean(d.corners, axis=0)
            tokens = [x for x in tokens if np.hypot(*(np.asarray(x.center) - dc)) > 0.5 * TOKEN_MM * view.px_per_mm()
                      or x.confidence > d.confidence]
        return one_of_each(sorted(self.on_board.values(), key=lambda x: x.square or 0) + tokens), list(self.dice)

    def _centred(self, pyr: Pyramid, view: BoardView, white: np.ndarray, squares: np.ndarray, peaks: np.ndarray,
                 probs: np.ndarray, colours: np.ndarray | None) -> None:
        """Read again, centred on the token finder's peak, each square where a token was read with
        a peak within CENTRED_MM of its centre, and take the two readings' geometric mean (in place).

        The square's crop is unrolled round the square's centre: a token lying off it is unrolled
        warped, which the network learned for its training typefaces but not for others."""
        if not len(squares) or not len(peaks):
            return
        near, dist = nearest_peaks(squares, peaks)
        redo = np.flatnonzero((dist <= CENTRED_MM) & _token_there(probs))
        if not len(redo):
            return
        model = self.model
        crops = board_crops(pyr, view, peaks[near[redo]], TOKEN_CROP_MM, model.crop)
        p2, c2 = model.run(token_input(np.stack(crops), white, _polar(model)))
        probs[redo] = _geometric_mean(probs[redo], p2)
        if colours is not None and c2 is not None:
            colours[redo] = _geometric_mean(colours[redo], c2)

    def _beside(self, pyr: Pyramid, view: BoardView, white: np.ndarray, peaks: np.ndarray, regions=None
                ) -> list[TokenReading]:
        """Tokens beside the board: at the token finder's `peaks` and the strongest blobs."""
        model = self.model
        props, self._spare = beside_points(pyr, view, self.layout, peaks, regions)
        if not len(props):
            return []
        crops = board_crops(pyr, view, props, TOKEN_CROP_MM, model.crop)
        probs, colours = model.run(token_input(np.stack(crops), white, _polar(model)))
        found = []
        for n in range(len(props)):
            r = _token(probs[n], None if colours is None else colours[n], model)
            if r is not None:
                found.append((n, r))
        if not found:
            return []
        keep = suppress(props[[n for n, _ in found]], np.array([r[2] for _, r in found]), 0.7 * TOKEN_MM)
        out = []
        for k in keep:
            n, (value, colour, conf, values) = found[k]
            c = view.to_image(props[n:n + 1])[0]
            out.append(TokenReading(value=value, color=colour, center=(float(c[0]), float(c[1])), confidence=conf,
                                    values=values))
        return out

    def _neighbours(self, pyr: Pyramid, view: BoardView, white: np.ndarray) -> list[TokenReading]:
        """Tokens among the spare blobs (`NEAR_LIMIT`) next to tokens found beside the board, of
        values their colour lacks."""
        model = self.model
        spare, self._spare = self._spare, np.zeros((0, 2))
        known = list(self.on_board.values()) + list(self.off_board)
        seeds, new = list(self.off_board), []
        while len(spare):
            lacks = {c: set(range(1, 6)) - {x.value for x in known if x.color == c} for c in {x.color for x in known}}
            seeds = [x for x in seeds if lacks.get(x.color)]
            if not seeds:
                break
            at = view.to_board(np.array([x.center for x in seeds]))
            d = np.linalg.norm(spare[:, None] - at[None], axis=2).min(axis=1)
            near = (d >= NEAR_MM[0]) & (d <= NEAR_MM[1])
            pts, spare = spare[near], spare[~near]
            pts = away_from(pts, view.to_board(np.array([x.center for x in known])), TOKEN_MM)
            if not len(pts):
                break
            crops = board_crops(pyr, view, pts, TOKEN_CROP_MM, model.crop)
            probs, colours = model.run(token_input(np.stack(crops), white, _polar(model)))
            found = []
            for n in range(len(pts)):
                r = _token(probs[n], None if colours is None else colours[n], model)
                if r is not None and r[0] in lacks.get(r[1], ()):
                    found.append((n, r))
            if not found:
                break
            keep = suppress(pts[[n for n, _ in found]], np.array([r[2] for _, r in found]), 0.7 * TOKEN_MM)
            seeds = []
            for k in keep:
                n, (value, colour, conf, values) = found[k]
                if any(x.color == colour and x.value == value for x in seeds):
                    continue  # one token of each value: the surest reading of it (kept first)
                c = view.to_image(pts[n:n + 1])[0]
                seeds.append(TokenReading(value=value, color=colour, center=(float(c[0]), float(c[1])),
                                          confidence=conf, values=values))
            new += seeds
            known += seeds
        return new


def beside_points(pyr: Pyramid, view: BoardView, layout: BoardLayout, peaks: np.ndarray, regions=None
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Where the Numeri reader looks for tokens beside the board (board mm: the token finder's
    `peaks`, then the strongest blobs), and the blobs left for `_neighbours`; both off the track's
    squares (the track reader reads those): over half a square from their centres."""
    board = (layout.width_mm, layout.height_mm, BESIDE_MARGIN)
    blobs = proposals(pyr, view, TOKEN_MM, OFF_LIMIT + NEAR_LIMIT, regions, off_board=board)
    props = beside_board(pyr, view, peaks, TOKEN_MM, OFF_LIMIT, regions, board, blobs=blobs[:OFF_LIMIT])
    squares, span = layout_points(layout), layout.square_mm / 0.9
    spare = away_from(away_from(blobs[OFF_LIMIT:], props, TOKEN_MM), squares, diameter_mm=span)
    return away_from(props, squares, diameter_mm=span), spare


_STATE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _numeri_reader(ctx) -> dict:
    reader = reader_of(ctx, _STATE, NumeriReader.create)
    tokens, dice = reader.read(ctx.image, ctx.pyramid, ctx.regions, ctx.timings)
    return {"tokens": tokens, "dice": dice, "replace_cards": True}


def register() -> None:
    """Add the Numeri token and die reader to the recogniser (idempotent)."""
    from .pipeline import readers_for, register_reader

    if _numeri_reader not in readers_for("numeri"):
        register_reader("numeri", _numeri_reader, replaces_cards=True)  # no cards in Numeri


register()
