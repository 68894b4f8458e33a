"""Finding the board in a photo, and keeping its view while it stays put.

Geometry first, appearance second (research/vision.md §2). A `BoardView` maps board
millimetres to image pixels: a homography for the board plane plus one radial lens-distortion
term about the image centre, so a whole board (and the table round it) lines up within a pixel
or two even through a cheap wide lens, where four outline corners alone are off by several
millimetres in the middle. Everything it is found by is an edge at a known place: the board's
own outline and every square's (a tile on a square has its edge there too). It is found in
three steps (`locate`):

1. hypotheses: in the picture's main edge directions, rectangles of the board's proportions
   between pairs of long straight edges, scored by how much of their outline and of the squares
   they imply lies on edges (a side cut by the picture's edge or hidden is not counted); when
   none convinces, square blobs vote for where the board lies;
2. the fit: each hypothesis is pulled onto the edges near it, coarse to fine (the outline first,
   then every square as a whole, then closely), homography and lens distortion by robust least
   squares; the view whose outlines best lie on edges wins, if enough of its squares do (and
   more so than just inside them: card rows or a checked cloth have edges everywhere);
3. which way round: the 11! lattice is symmetric, the bridges between its rows and its row
   colours are not; the Numeri track is not symmetric (and has red start, yellow end squares).

The view is kept while the board does not move (`BoardTracker`): a cheap check of the square
outlines at their expected places says whether it still fits; when it does not, the view is
fitted again from the old one, and only if that fails is the board searched for afresh.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from .boardview import BoardView
from .calibrate import Calibration
from .classify import Pyramid
from .errors import CalibrationError
from .layouts import BoardLayout

# ----------------------------------------------------------------------------------------
# Evidence: oriented edges. Every square's outline and the board's own edge are straight edges
# at known places; a view is judged and fitted by whether the picture has an edge there that
# runs the right way (a textured cloth has edges everywhere, but rarely along the outline).


class EdgeMaps:
    """Gradients of one picture in lightness and both colour axes (a yellow square on a white board
    has almost no lightness edge): at half resolution for probing views, at a quarter for the
    outline search. Built once per picture and shared by every hypothesis."""

    def __init__(self, image: np.ndarray):
        h, w = image.shape[:2]
        self.image_size = (w, h)
        small = cv2.resize(image, (w // 2, h // 2), interpolation=cv2.INTER_AREA)
        self.lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
        lab = cv2.GaussianBlur(self.lab, (3, 3), 0).astype(np.float32)
        self.gx = cv2.Sobel(lab, cv2.CV_32F, 1, 0, ksize=3)
        self.gy = cv2.Sobel(lab, cv2.CV_32F, 0, 1, ksize=3)
        # An edge must stand out of the sensor noise and of the texture round it (a gingham cloth
        # has strong edges everywhere; the board's faint ones still stand out of its plain face).
        self.floor = self._local_floor()
        quarter = cv2.resize(lab, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
        self.qgx = cv2.Sobel(quarter, cv2.CV_32F, 1, 0, ksize=3)
        self.qgy = cv2.Sobel(quarter, cv2.CV_32F, 0, 1, ksize=3)
        self.qfloor = cv2.resize(self.floor, (w // 4, h // 4), interpolation=cv2.INTER_LINEAR)

    def _local_floor(self, block: int = 16) -> np.ndarray:
        """Twice the median gradient round each place (at least 12): the median in blocks of the
        half-size picture, the least of it over a few blocks round (a board's rows of squares are
        dense with edges, the plain board between them is not; a cloth's pattern is everywhere)."""
        h, w = self.gx.shape[:2]
        mag = (np.abs(self.gx[::2, ::2]) + np.abs(self.gy[::2, ::2])).sum(axis=2)  # (every other pixel)
        block //= 2
        by, bx = mag.shape[0] // block, mag.shape[1] // block
        cells = mag[:by * block, :bx * block].reshape(by, block, bx, block).transpose(0, 2, 1, 3)
        med = np.median(cells.reshape(by, bx, -1), axis=2).astype(np.float32)
        med = cv2.blur(cv2.erode(med, np.ones((5, 5), np.uint8)), (3, 3))
        return np.maximum(12.0, 2.0 * cv2.resize(med, (w, h), interpolation=cv2.INTER_LINEAR))

    def response(self, px_half: np.ndarray, normal: np.ndarray, offsets=(0.0,)) -> np.ndarray:
        """Strength of an edge across `normal` at half-resolution points moved by each of `offsets`
        along it (N×K; 0 where the gradient points another way or is too weak to tell from texture)."""
        offs = np.asarray(offsets, np.float64)
        pts = (px_half[None, :, :] + offs[:, None, None] * normal[None, :, :]).reshape(-1, 2)
        gx = _sample(self.gx, pts).reshape(len(offs), -1, 3)
        gy = _sample(self.gy, pts).reshape(len(offs), -1, 3)
        floor = _sample(self.floor, pts, cv2.INTER_NEAREST).reshape(len(offs), -1)
        nx, ny = normal[None, :, :1], normal[None, :, 1:]
        across = np.abs(gx * nx + gy * ny).sum(axis=2)
        along = np.abs(gx * ny - gy * nx).sum(axis=2)
        ok = (across >= floor) & (across >= 1.5 * along)
        return np.where(ok, across, 0.0).T

    def in_view(self, px: np.ndarray, margin: float = 6.0) -> np.ndarray:
        w, h = self.image_size
        return (px[:, 0] > margin) & (px[:, 0] < w - 1 - margin) & (px[:, 1] > margin) & (px[:, 1] < h - 1 - margin)


def _sample(img: np.ndarray, pts: np.ndarray, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
    """Values of `img` at points (N×2): N×channels (remap, in rows: a map may not be 32k wide)."""
    n = len(pts)
    width = 4096
    pad = (-n) % width
    p = np.concatenate([pts, np.zeros((pad, 2))]).astype(np.float32).reshape(-1, width, 2)
    v = cv2.remap(img, p[:, :, 0], p[:, :, 1], interpolation, borderMode=cv2.BORDER_REPLICATE)
    return v.reshape(-1, *img.shape[2:])[:n]


def _half(px: np.ndarray) -> np.ndarray:
    """Full-resolution pixels -> half-resolution pixels."""
    return (px + 0.5) / 2.0 - 0.5


@dataclass(frozen=True)
class _Probes:
    """Points on the board's edge and on every square's outline (board mm), with unit normals."""

    pts: np.ndarray
    normals: np.ndarray
    rim: np.ndarray  # on the board's edge (else on a square's outline)
    square: np.ndarray  # index of the square (-1 on the rim)


@lru_cache(maxsize=4)
def _probes(layout: BoardLayout) -> _Probes:
    W, H = layout.width_mm, layout.height_mm
    inset = 0.6  # the cardboard edge is a dark band: its middle
    pts: list[tuple[float, float]] = []
    nrm: list[tuple[float, float]] = []
    owner: list[int] = []
    for u in np.arange(8.0, W - 7.0, 6.0):  # clear of the rounded corners
        pts += [(u, inset), (u, H - inset)]
        nrm += [(0, 1), (0, 1)]
        owner += [-1, -1]
    for u in np.arange(8.0, H - 7.0, 6.0):
        pts += [(inset, u), (W - inset, u)]
        nrm += [(1, 0), (1, 0)]
        owner += [-1, -1]
    for i, q in enumerate(layout.squares):
        p, n = _outline(q.x, q.y, layout.square_mm)
        pts += p
        nrm += n
        owner += [i] * len(p)
    sq = np.array(owner)
    return _Probes(np.array(pts, float), np.array(nrm, float), sq < 0, sq)


def _outline(x: float, y: float, side: float) -> tuple[list, list]:
    """Probe points and normals on a square's sides (without their rounded corners)."""
    h = side / 2
    pts, nrm = [], []
    for u in np.linspace(-0.6, 0.6, 4) * h:
        pts += [(x + u, y - h), (x + u, y + h), (x - h, y + u), (x + h, y + u)]
        nrm += [(0, 1), (0, 1), (1, 0), (1, 0)]
    return pts, nrm


@lru_cache(maxsize=4)
def _ghosts(layout: BoardLayout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Outline probes of squares one spacing beyond the ends of the rows (board x), where the board
    is plain: (points, normals, end: 0 left, 1 right). On a view that sits a square or more along
    its rows (the board's end hidden or cut), these lie on the real squares."""
    pitch = _layout_pitch(layout)
    sq = layout_points(layout)
    side = layout.square_mm
    pts, nrm, end = [], [], []
    for x, y in sq:
        for k, dx in enumerate((-pitch, pitch)):
            g = np.array([x + dx, y])
            if g[0] - side / 2 < 2 or g[0] + side / 2 > layout.width_mm - 2:
                continue
            if (np.abs(sq - g) < side + 1).all(axis=1).any():
                continue
            p, n = _outline(g[0], g[1], side)
            pts += p
            nrm += n
            end += [k] * len(p)
    return np.array(pts, float).reshape(-1, 2), np.array(nrm, float).reshape(-1, 2), np.array(end, int)


def _image_normals(view: BoardView, pts: np.ndarray, normals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Image pixels and unit image normals of board points with board normals."""
    p = view.to_image(pts)
    n = view.to_image(pts + 0.5 * normals) - p
    return p, n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-9)


@dataclass(frozen=True)
class ViewScore:
    """How well a view's outlines lie on edges of the picture: shares of the probes in view that do."""

    rim: float  # the board's edge
    squares: float  # the squares' outlines (or the tiles on them)
    rim_seen: int
    squares_seen: int
    matched: int  # squares with most of their outline on edges
    visible: int  # squares mostly in view
    rim_all: int  # probes in all, in view or not
    squares_all: int
    ghosts: tuple[float, float] = (0.0, 0.0)  # share on edges of the squares beyond either end of the rows

    @property
    def total(self) -> float:
        return 0.5 * self.rim + 0.5 * self.squares

    @property
    def rank(self) -> float:
        """The shares, and as much again the share of the whole board found: of two views that fit
        equally well, the one that explains more of the picture (not half a board off its edge)."""
        found = 0.5 * (self.rim * self.rim_seen / self.rim_all + self.squares * self.squares_seen / self.squares_all)
        return 0.5 * self.total + 0.5 * found


def _hits(maps: EdgeMaps, view: BoardView, pts: np.ndarray, normals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per probe: on an edge along it (within a pixel or two: lens, tilt), and in view."""
    p, n = _image_normals(view, pts, normals)
    hit = (maps.response(_half(p), n, (-1.0, 0.0, 1.0)) > 0).any(axis=1)
    return hit, maps.in_view(p)


def view_score(maps: EdgeMaps, view: BoardView, layout: BoardLayout) -> ViewScore:
    pr = _probes(layout)
    hit, seen = _hits(maps, view, pr.pts, pr.normals)
    rim, sq = seen & pr.rim, seen & ~pr.rim
    per_square = np.bincount(pr.square[sq], hit[sq], minlength=len(layout.squares))
    count = np.bincount(pr.square[sq], minlength=len(layout.squares))
    g_pts, g_nrm, g_end = _ghosts(layout)
    g_hit, g_seen = _hits(maps, view, g_pts, g_nrm)
    ghosts = tuple(float(g_hit[g_seen & (g_end == e)].mean()) if (g_seen & (g_end == e)).sum() >= 16 else 0.0
                   for e in (0, 1))
    return ViewScore(float(hit[rim].mean()) if rim.sum() >= 12 else 0.0,
                     float(hit[sq].mean()) if sq.sum() >= 24 else 0.0,
                     int(rim.sum()), int(sq.sum()), int(((count >= 8) & (per_square >= 0.6 * count)).sum()),
                     int((count >= 8).sum()), int(pr.rim.sum()), int((~pr.rim).sum()), ghosts)


def square_contrast(maps: EdgeMaps, view: BoardView, layout: BoardLayout, inset: float = 0.25) -> float:
    """Share of the squares' outline probes on edges minus the share of the same probes moved a
    quarter of a side into their squares: a printed square has its edge where the layout says,
    while card rows, text or a checked cloth have edges everywhere (both shares alike)."""
    pr = _probes(layout)
    sq = ~pr.rim
    pts, nrm = pr.pts[sq], pr.normals[sq]
    inward = np.sign(layout_points(layout)[pr.square[sq]] - pts) * np.abs(nrm)
    on, seen_on = _hits(maps, view, pts, nrm)
    inner, seen_in = _hits(maps, view, pts + inset * layout.square_mm * inward, nrm)
    seen = seen_on & seen_in
    return float(on[seen].mean() - inner[seen].mean()) if seen.sum() >= 24 else 0.0


def beside_share(maps: EdgeMaps, view: BoardView, layout: BoardLayout) -> float:
    """Share on edges of the squares' outlines copied a board's width or height off each side, on
    the table: a board is a thing of its own, while a checked cloth that matched its squares goes
    on round it just the same."""
    pr = _probes(layout)
    sq = ~pr.rim
    W, H = layout.width_mm, layout.height_mm
    pts = np.concatenate([pr.pts[sq] + d for d in ((W, 0), (-W, 0), (0, H), (0, -H))])
    hit, seen = _hits(maps, view, pts, np.tile(pr.normals[sq], (4, 1)))
    return float(hit[seen].mean()) if seen.sum() >= 48 else 0.0


# ----------------------------------------------------------------------------------------
# Fitting a view to the edges: each probe of the board's edge finds the strongest edge along its
# normal; each square finds where its whole outline lies on edges (a neighbour's side a gap away
# cannot pull one side alone). Homography (as its four corners) and k1 follow by robust least
# squares, coarse to fine.


def _corner_view(corners: np.ndarray, k1: float, like: BoardView) -> BoardView:
    """The view whose homography puts the board's corners at `corners` (undistorted px)."""
    W, H = like.size_mm
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    m = cv2.getPerspectiveTransform(src, np.asarray(corners, np.float32))
    return BoardView.from_homography(m, like.image_size, like.size_mm, k1)


def _undistorted_corners(view: BoardView) -> np.ndarray:
    W, H = view.size_mm
    pts = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float64)
    return cv2.perspectiveTransform(pts.reshape(-1, 1, 2), view.matrix).reshape(-1, 2)


def _corner_basis(view: BoardView, dof: int) -> np.ndarray:
    """Corner moves (8×dof) of an affine map of the board (6) or of a homography (8). An affine
    fit first: with one side out of view, a homography's keystone is not yet pinned down."""
    if dof == 8:
        return np.eye(8)
    W, H = view.size_mm
    r = np.array([[0, 0], [W, 0], [W, H], [0, H]], float)
    r = (r - r.mean(axis=0)) / max(W, H)
    z, o = np.zeros(4), np.ones(4)
    cols = [np.c_[r[:, 0], z], np.c_[r[:, 1], z], np.c_[z, r[:, 0]], np.c_[z, r[:, 1]], np.c_[o, z], np.c_[z, o]]
    return np.stack([c.ravel() for c in cols], axis=1)


def _sub_peak(resp: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Sub-sample position of each row's maximum at index k (parabola through three samples)."""
    rows = np.arange(len(resp))
    kk = np.clip(k, 1, resp.shape[1] - 2)
    a, b, c = resp[rows, kk - 1], resp[rows, kk], resp[rows, kk + 1]
    den = a - 2 * b + c
    safe = np.where(den < 0, den, -1.0)
    return k + np.where((k == kk) & (den < 0), np.clip(0.5 * (a - c) / safe, -0.5, 0.5), 0.0)


def _edge_offsets(maps: EdgeMaps, p: np.ndarray, n: np.ndarray, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Per probe: signed distance (full-res px, along n) to the strongest edge within ±radius (of
    two alike, the nearer: a cloth's stripe beside the board), and whether there is one."""
    r = max(1, math.ceil(radius / 2.0))
    offs = np.arange(-r, r + 1, dtype=np.float64)
    resp = maps.response(_half(p), n, offs)
    if r >= 4:  # a wide search
        resp = resp * (1.0 - 0.3 * (offs / r) ** 2)
    k = resp.argmax(axis=1)
    return (_sub_peak(resp, k) - r) * 2.0, resp[np.arange(len(p)), k] > 0


def _square_offsets(maps: EdgeMaps, p: np.ndarray, n: np.ndarray, group: np.ndarray,
                    radius: float) -> tuple[np.ndarray, np.ndarray]:
    """Per probe: the offset (full-res px, along its normal) that puts its square's two sides of
    that direction on edges together, and that match's share of probes on edges (0: none)."""
    r = max(1, math.ceil(radius / 2.0))
    offs = np.arange(-r, r + 1, dtype=np.float64)
    hits = (maps.response(_half(p), n, offs) > 0).astype(np.float32)
    ng = int(group.max()) + 1
    total = np.zeros((ng, len(offs)), np.float32)
    np.add.at(total, group, hits)
    count = np.maximum(np.bincount(group, minlength=ng), 1).astype(np.float32)
    # Of two equal matches the nearer wins (half a square hidden by a tile's shadow).
    k = (total * (1.0 - 0.15 * (offs / r) ** 2)).argmax(axis=1)
    share = total[np.arange(ng), k] / count
    return ((_sub_peak(total, k) - r) * 2.0)[group], np.where(share >= 0.5, share, 0.0)[group]


def fit_edges(maps: EdgeMaps, view: BoardView, layout: BoardLayout, radius: float,
              square_radius: float | None = None, rounds: int = 2, dof: int = 8, fit_k1: bool = True) -> BoardView:
    """The view moved onto the edges near it: the board's edge within ±radius px and (unless
    square_radius is None) each square's outline within ±square_radius px."""
    pr = _probes(layout)
    use = np.ones(len(pr.pts), bool) if square_radius else pr.rim
    pts, nrm, rim = pr.pts[use], pr.normals[use], pr.rim[use]
    group = pr.square[use] * 2 + (np.abs(nrm[:, 0]) > 0.5)  # a square's pair of parallel sides
    corners, k1 = _undistorted_corners(view), view.k1
    basis = _corner_basis(view, dof)
    m = basis.shape[1]
    for _ in range(rounds):
        current = _corner_view(corners, k1, view)
        p, n = _image_normals(current, pts, nrm)
        d = np.zeros(len(p))
        w0 = np.zeros(len(p))
        d[rim], found = _edge_offsets(maps, p[rim], n[rim], radius)
        w0[rim] = 3.0 * found  # a long edge of its own: worth more than a square's side
        if square_radius:
            d[~rim], w0[~rim] = _square_offsets(maps, p[~rim], n[~rim], group[~rim], square_radius)
        w0 *= maps.in_view(p)
        if (w0 > 0).sum() < 12:
            return current
        full = _jacobian(view, corners, k1, pts, p, n, fit_k1)
        J = np.c_[full[:, :8] @ basis, full[:, 8:]] if fit_k1 else full[:, :8] @ basis
        delta = _robust_step(J, d, w0, k1 if fit_k1 else None)
        corners = corners + (basis @ delta[:m]).reshape(4, 2)
        if fit_k1:
            k1 = float(np.clip(k1 + delta[m], -0.12, 0.12))
    return _corner_view(corners, k1, view)


def _jacobian(like: BoardView, corners: np.ndarray, k1: float, pts: np.ndarray, p: np.ndarray, n: np.ndarray,
              with_k1: bool) -> np.ndarray:
    """d(probe's image position along its normal) / d(corner coordinates, k1), numerically; the
    corners through the homography alone, then the lens's local stretch (few lens evaluations)."""
    view = _corner_view(corners, k1, like)
    u = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), view.matrix).reshape(-1, 2)
    lens_x = (view.distort(u + [0.5, 0.0]) - p) / 0.5
    lens_y = (view.distort(u + [0.0, 0.5]) - p) / 0.5
    nx = (lens_x * n).sum(axis=1)  # d(n·x)/du_x
    ny = (lens_y * n).sum(axis=1)
    J = np.zeros((len(p), 9))
    W, H = like.size_mm
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    for j in range(8):
        c = corners.ravel().copy()
        c[j] += 0.5
        m = cv2.getPerspectiveTransform(src, c.reshape(4, 2).astype(np.float32))
        du = (cv2.perspectiveTransform(pts.reshape(-1, 1, 2), m).reshape(-1, 2) - u) / 0.5
        J[:, j] = du[:, 0] * nx + du[:, 1] * ny
    if with_k1:
        J[:, 8] = ((replace(view, k1=k1 + 0.002).distort(u) - p) * n).sum(axis=1) / 0.002
    return J


def _robust_step(J: np.ndarray, d: np.ndarray, w0: np.ndarray, k1: float | None) -> np.ndarray:
    """Weighted least-squares step (iteratively reweighted: tiles, glare and hands pull some
    probes off). Damped, so directions the edges leave open (a side out of view) stay put; k1
    has a weak prior toward none (tiles standing above the board are not lens distortion)."""
    n_par = J.shape[1]
    R = np.eye(n_par)
    g = np.zeros(n_par)
    if k1 is not None:
        R[-1, -1] = 0.5 * w0.sum() / 0.03**2
        g[-1] = R[-1, -1] * k1
    w = w0
    delta = np.zeros(n_par)
    for _ in range(3):
        A = J * w[:, None]
        delta = np.linalg.solve(J.T @ A + R, A.T @ d - g)
        res = d - J @ delta
        scale = max(1.0, 1.4826 * float(np.median(np.abs(res[w0 > 0]))))
        w = w0 / np.maximum(1.0, np.abs(res) / (2.0 * scale))
    return delta


def fit_board(maps: EdgeMaps, view: BoardView, layout: BoardLayout, rim_radius: float = 24.0) -> BoardView:
    """Coarse to fine: the board's edge first (nothing like it nearby) with an affine map, then
    every square too, searching up to nearly half the squares' spacing, then closely. A stage
    that leaves fewer outlines on edges (pulled by a stripe beside the board) is undone."""
    best, rank = view, view_score(maps, view, layout).rank
    wide = 0.45 * _layout_pitch(layout) * view.px_per_mm()
    for radius, square_radius, dof, k1 in ((rim_radius, None, 6, False), (8.0, max(wide, 6.0), 8, True),
                                           (4.0, 4.0, 8, True)):
        moved = fit_edges(maps, best, layout, radius, square_radius, dof=dof, fit_k1=k1)
        moved_rank = view_score(maps, moved, layout).rank
        if moved_rank >= rank - 0.005:
            best, rank = moved, moved_rank
    return best


# ----------------------------------------------------------------------------------------
# Square blobs (for a board whose outline is out of view or hidden)


def square_candidates(image: np.ndarray, min_side: float, max_side: float, f: int = 2) -> np.ndarray:
    """Square blobs in the picture: rows (x, y, side, angle mod 90) in image pixels.

    Adaptive thresholds of lightness and both colour axes, both polarities (a filled square, a
    tinted one on a pale board, a tile, an outlined square's inside), at half resolution."""
    h, w = image.shape[:2]
    f = 2
    small = cv2.resize(image, (w // f, h // f), interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB)
    lo, hi = (min_side / f) ** 2 * 0.6, (max_side / f) ** 2 * 1.3
    block = int(max_side / f * 1.5) | 1
    masks = []
    for ch in range(3):
        c = lab[:, :, ch]
        for inv in (False, True):
            src = cv2.bitwise_not(c) if inv else c
            masks.append(cv2.adaptiveThreshold(src, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, block,
                                               -4 if ch == 0 else -3))
    # Regions enclosed by edges: touching tiles stay apart (each top face has its own outline).
    blur = cv2.GaussianBlur(lab, (3, 3), 0)
    edges = cv2.Canny(blur[:, :, 0], 25, 70) | cv2.Canny(blur[:, :, 1], 20, 50) | cv2.Canny(blur[:, :, 2], 20, 50)
    masks.append(cv2.bitwise_not(cv2.dilate(edges, np.ones((2, 2), np.uint8))))
    out = []
    for th in masks:
        contours, _ = cv2.findContours(th, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for cnt in contours:
            a = cv2.contourArea(cnt)
            if a < lo or a > hi:
                continue
            (cx, cy), (rw, rh), ang = cv2.minAreaRect(cnt)
            if min(rw, rh) < 0.75 * max(rw, rh) or a < 0.88 * rw * rh:  # squares, not discs
                continue
            out.append((cx * f + f / 2 - 0.5, cy * f + f / 2 - 0.5, (rw + rh) / 2 * f, ang % 90.0))
    return np.array(out, np.float64).reshape(-1, 4)


def layout_points(layout: BoardLayout) -> np.ndarray:
    return np.array([[q.x, q.y] for q in layout.squares], np.float64)


@lru_cache(maxsize=4)
def _layout_pitch(layout: BoardLayout) -> float:
    pts = layout_points(layout)
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1)))


def _merge(c: np.ndarray) -> np.ndarray:
    """One candidate per square (the thresholds of several channels find the same one)."""
    keep: list[np.ndarray] = []
    for row in c[np.argsort(-c[:, 2])]:
        if all(np.hypot(*(row[:2] - k[:2])) > 0.4 * k[2] for k in keep):
            keep.append(row)
    return np.array(keep).reshape(-1, 4)


def _translate(view: BoardView, dx: float, dy: float) -> BoardView:
    t = np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1.0]])
    return replace(view, H=tuple(tuple(float(v) for v in row) for row in view.matrix @ t))


def nearest_squares(view: BoardView, xy: np.ndarray, sq: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For picture points `xy`, the index of the square centre (`sq`, board mm) nearest each in
    `view`, and how far it lies (board mm)."""
    d = np.linalg.norm(view.to_board(xy)[:, None] - sq[None], axis=2)
    j = d.argmin(axis=1)
    return j, d[np.arange(len(j)), j]


def _pairs(view: BoardView, xy: np.ndarray, sq: np.ndarray, pitch: float, tol: float):
    j, dist = nearest_squares(view, xy, sq)
    ok = dist < tol * pitch
    return j[ok], xy[ok]


def _icp(view: BoardView, xy: np.ndarray, sq: np.ndarray, pitch: float,
         tols: tuple[float, ...] = (0.4, 0.3, 0.25)) -> BoardView:
    """Align the layout to the blobs: match each blob to its nearest square, fit, repeat."""
    for tol in tols:
        j, px = _pairs(view, xy, sq, pitch, tol)
        if len(j) < 6:
            return view
        if len(j) >= 12:
            m, _ = cv2.findHomography(sq[j], px, 0)
        else:
            a, _ = cv2.estimateAffinePartial2D(sq[j].astype(np.float32), px.astype(np.float32))
            m = None if a is None else np.vstack([a, [0, 0, 1]])
        if m is None:
            return view
        view = BoardView.from_homography(m, view.image_size, view.size_mm)
    return view


# ----------------------------------------------------------------------------------------
# Hypotheses. Outline: in a frame turned to one of the picture's main edge directions, rectangles
# of the board's proportions between pairs of strong parallel lines, scored by how much of their
# outline and of the squares they imply lies on edges (running sums make each one cheap). A side
# cut by the picture's edge or hidden is simply not counted. Lattice: square blobs vote for where
# the board lies (for a board whose outline is mostly out of view).


def dominant_angles(maps: EdgeMaps, count: int = 3) -> list[float]:
    """Directions (degrees, mod 90) shared by many straight edges, strongest first.

    Each patch of the picture votes with its own share of edges per direction, so a striped or
    checked cloth filling most of the view does not drown the board's direction."""
    # The structure tensor over a few pixels: a straight edge keeps one direction there, a wavy
    # stripe or a weave does not (its coherence drops).
    tensor = [cv2.GaussianBlur(np.einsum("ijk,ijk->ij", a, b), (7, 7), 2.0)[::2, ::2]
              for a, b in ((maps.gx, maps.gx), (maps.gy, maps.gy), (maps.gx, maps.gy))]
    floor = maps.floor[::2, ::2]  # (every other pixel is enough)
    h, w = floor.shape
    yy, xx = np.nonzero(tensor[0] + tensor[1] > floor**2 / 3)
    jx, jy, jxy = (t[yy, xx] for t in tensor)
    ang = np.degrees(0.5 * np.arctan2(2 * jxy, jx - jy)) % 90.0
    coherence = np.sqrt((jx - jy) ** 2 + 4 * jxy**2) / np.maximum(jx + jy, 1e-6)
    weight = coherence**4 * np.minimum(np.sqrt(jx + jy), 8 * floor[yy, xx])
    t = 48
    cols = (w + t - 1) // t
    patch = (yy // t) * cols + xx // t
    n_patch = ((h + t - 1) // t) * cols
    votes = np.bincount(patch * 90 + np.minimum(ang.astype(int), 89), weight, minlength=n_patch * 90)
    votes = votes.reshape(n_patch, 90)
    total = votes.sum(axis=1, keepdims=True)
    # (a patch with little more than one clear edge across it has its full vote)
    hist = (votes / np.maximum(total, 1e-9) * np.minimum(1.0, total / (t * 2 * 24.0))).sum(axis=0)
    hist = np.convolve(np.r_[hist[-1:], hist, hist[:1]], np.ones(3) / 3, mode="same")[1:-1]
    out: list[float] = []
    for i in np.argsort(-hist, kind="stable"):
        if len(out) >= count or hist[i] < 0.06 * hist.max():
            break
        a, b, c = hist[i - 1], hist[i], hist[(i + 1) % 90]
        if b < max(a, c):
            continue  # a shoulder of a peak
        den = a - 2 * b + c
        peak = float((i + 0.5 + (0.5 * (a - c) / den if den < 0 else 0.0)) % 90.0)
        if all(min(abs(peak - o), 90 - abs(peak - o)) > 3 for o in out):
            out.append(peak)
    return out


def _peaks(profile: np.ndarray, count: int, floor: float) -> np.ndarray:
    p = np.convolve(profile, np.ones(5) / 5, mode="same").astype(np.float32)
    top = cv2.dilate(p.reshape(1, -1), np.ones((1, 9), np.uint8)).ravel()
    idx = np.flatnonzero((p >= top) & (p >= floor))
    return idx[np.argsort(-p[idx])][:count]


@lru_cache(maxsize=4)
def _segments(layout: BoardLayout) -> tuple[np.ndarray, np.ndarray]:
    """The board's straight edges in unit board coordinates, (from, to, at, is_rim) per row: those
    along the board's x (at = y) and those along its y (at = x)."""
    W, H = layout.width_mm, layout.height_mm
    h = 0.7 * layout.square_mm / 2
    along_x = [(0.0, 1.0, 0.0, 1), (0.0, 1.0, 1.0, 1)]
    along_y = [(0.0, 1.0, 0.0, 1), (0.0, 1.0, 1.0, 1)]
    for q in layout.squares:
        for side in (-1, 1):
            e = layout.square_mm / 2 * side
            along_x.append(((q.x - h) / W, (q.x + h) / W, (q.y + e) / H, 0))
            along_y.append(((q.y - h) / H, (q.y + h) / H, (q.x + e) / W, 0))
    return np.array(along_x), np.array(along_y)


class _Frame:
    """The quarter-size picture's edges along and across `theta`, turned so they run along the
    frame's rows and columns, as running sums (the edge pixels on any run in one subtraction)."""

    def __init__(self, maps: EdgeMaps, theta: float):
        t = math.radians(theta)
        u, v = np.array([math.cos(t), math.sin(t)]), np.array([-math.sin(t), math.cos(t)])
        across_u = np.abs(maps.qgx * u[0] + maps.qgy * u[1]).sum(axis=2)
        across_v = np.abs(maps.qgx * v[0] + maps.qgy * v[1]).sum(axis=2)
        floor = 0.5 * maps.qfloor  # (the quarter-size picture is smoother)
        # Strictly along the direction: a cloth's pattern at another angle must not count.
        along_u = ((across_v >= floor) & (across_v >= 3.0 * across_u)).astype(np.float32)
        along_v = ((across_u >= floor) & (across_u >= 3.0 * across_v)).astype(np.float32)
        h4, w4 = along_u.shape
        c = np.array([(w4 - 1) / 2, (h4 - 1) / 2])
        box = np.array([[0, 0], [w4 - 1, 0], [w4 - 1, h4 - 1], [0, h4 - 1]], float) - c
        fx, fy = box @ u, box @ v
        self.w, self.h = math.ceil(np.ptp(fx)) + 3, math.ceil(np.ptp(fy)) + 3
        self.M = np.array([[u[0], u[1], 1 - fx.min() - u @ c], [v[0], v[1], 1 - fy.min() - v @ c]])

        def turn(img: np.ndarray) -> np.ndarray:
            return cv2.warpAffine(img, self.M, (self.w, self.h), flags=cv2.INTER_LINEAR, borderValue=0)

        # A little slack across: perspective and lens keep the sides from being exactly parallel.
        rows = cv2.dilate(turn(along_u), np.ones((5, 1), np.uint8))
        cols = cv2.dilate(turn(along_v), np.ones((1, 5), np.uint8))
        seen = (turn(np.ones((h4, w4), np.float32)) > 0.5).astype(np.float32)
        self.rows = np.pad(np.cumsum(rows, axis=1), ((0, 0), (1, 0)))  # [y, x]: along rows
        self.rows_seen = np.pad(np.cumsum(seen, axis=1), ((0, 0), (1, 0)))
        self.cols = np.pad(np.cumsum(cols, axis=0), ((1, 0), (0, 0))).T.copy()  # [x, y]: along columns
        self.cols_seen = np.pad(np.cumsum(seen, axis=0), ((1, 0), (0, 0))).T.copy()

    @staticmethod
    def _runs(cum: np.ndarray, seen: np.ndarray, line, a, b) -> tuple[np.ndarray, np.ndarray]:
        """Edge pixels and pixels in view on runs of line `line` from a to b (arrays of one shape)."""
        n_lines, n = cum.shape
        ok = (line >= 0) & (line < n_lines)
        li = np.clip(line, 0, n_lines - 1)
        a, b = np.clip(a, 0, n - 1), np.clip(b, 0, n - 1)
        return ok * (cum[li, b] - cum[li, a]), ok * (seen[li, b] - seen[li, a])

    def rim(self, r: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Edge pixels and pixels in view on the outlines of rectangles r (N×4: x0, y0, x1, y1)."""
        x0, y0, x1, y1 = (np.round(r[:, k]).astype(int) for k in range(4))
        sides = [self._runs(self.rows, self.rows_seen, line, x0, x1) for line in (y0, y1)]
        sides += [self._runs(self.cols, self.cols_seen, line, y0, y1) for line in (x0, x1)]
        return sum(e for e, _ in sides), sum(s for _, s in sides)

    def template(self, r: np.ndarray, layout: BoardLayout, portrait: bool, turned: bool) -> np.ndarray:
        """Score (half the rim's share on edges, half the squares') of the board filling each
        rectangle, landscape (its x along the frame's) or portrait (its x down the frame)."""
        sx, sy = _segments(layout)
        if turned:
            sx = np.c_[1 - sx[:, 1], 1 - sx[:, 0], 1 - sx[:, 2], sx[:, 3]]
            sy = np.c_[1 - sy[:, 1], 1 - sy[:, 0], 1 - sy[:, 2], sy[:, 3]]
        x0, y0, x1, y1 = (r[:, k:k + 1] for k in range(4))
        fw, fh = x1 - x0, y1 - y0
        hits, seen = np.zeros((2, len(r))), np.zeros((2, len(r)))
        for seg, board_x in ((sx, True), (sy, False)):
            if not portrait and board_x:  # frame row at y
                a, b, at, cum = x0 + seg[:, 0] * fw, x0 + seg[:, 1] * fw, y0 + seg[:, 2] * fh, self.rows
            elif not portrait:
                a, b, at, cum = y0 + seg[:, 0] * fh, y0 + seg[:, 1] * fh, x0 + seg[:, 2] * fw, self.cols
            elif board_x:  # portrait: the board's x runs down the frame, its y right to left
                a, b, at, cum = y0 + seg[:, 0] * fh, y0 + seg[:, 1] * fh, x1 - seg[:, 2] * fw, self.cols
            else:
                a, b, at, cum = x1 - seg[:, 1] * fw, x1 - seg[:, 0] * fw, y0 + seg[:, 2] * fh, self.rows
            cs = self.rows_seen if cum is self.rows else self.cols_seen
            e, s = self._runs(cum, cs, np.round(at).astype(int), np.round(a).astype(int), np.round(b).astype(int))
            is_rim = seg[:, 3] > 0
            hits += np.stack([e[:, is_rim].sum(1), e[:, ~is_rim].sum(1)])
            seen += np.stack([s[:, is_rim].sum(1), s[:, ~is_rim].sum(1)])
        share = hits / np.maximum(seen, 1)
        squares_seen = seen[1] >= 0.3 * seen[1].max()  # (a sliver of the board in view proves little)
        return 0.5 * share[0] + 0.5 * share[1] * squares_seen

    def rectangles(self, aspect: float, short_min: float, step: float = 3.0) -> np.ndarray:
        """Rectangles of the board's proportions, two opposite sides on a pair of strong lines (found
        strip by strip: a side is strong where it runs, a cloth's pattern may be stronger over a
        whole row), the other two anywhere along them (in view or not)."""
        out = []
        for along_rows in (True, False):
            cum = self.rows if along_rows else self.cols
            extent = self.w if along_rows else self.h
            strip = 40
            found = [_peaks(cum[:, min(s0 + strip, cum.shape[1] - 1)] - cum[:, s0], 6, 0.35 * strip)
                     for s0 in range(0, cum.shape[1] - 1, strip)]
            # (one line seen in several strips, a little tilted: pairs a pixel apart are one pair)
            pairs = {(int(i) // 2 * 2, int(j) // 2 * 2) for peaks in found for i in peaks for j in peaks
                     if j - i >= short_min}
            if not pairs:
                continue
            ij = np.array(sorted(pairs), float)
            ij = np.repeat(ij, 2, axis=0)
            span = (ij[:, 1] - ij[:, 0]) * np.tile([aspect, 1 / aspect], len(ij) // 2)
            t = np.arange(0.0, 1.0, step / (extent + span.max()))  # start from half a span before to the far end
            lo = -0.5 * span[:, None] + t[None, :] * (extent + 0.5 * span[:, None])
            i0, i1 = (np.broadcast_to(ij[:, k:k + 1], lo.shape) for k in (0, 1))
            hi = lo + span[:, None]
            cols = (lo, i0, hi, i1) if along_rows else (i0, lo, i1, hi)
            out.append(np.stack([c.ravel() for c in cols], axis=1))
        return np.round(np.concatenate(out)) if out else np.zeros((0, 4))

    def to_image(self, pts: np.ndarray) -> np.ndarray:
        """Frame points -> full-resolution pixels."""
        back = np.linalg.inv(np.vstack([self.M, [0, 0, 1]]))[:2]
        return (cv2.transform(pts.reshape(-1, 1, 2).astype(np.float64), back).reshape(-1, 2) + 0.5) * 4.0 - 0.5


def outline_candidates(maps: EdgeMaps, layout: BoardLayout, angles: list[float] | None = None,
                       count: int = 4) -> list[tuple[float, BoardView]]:
    """Board views from the outline search (in the picture's main edge directions, or `angles`),
    best first: (template score, view)."""
    W, H = layout.width_mm, layout.height_mm
    short_min = 0.12 * min(maps.qgx.shape[:2])
    found: list[tuple[float, np.ndarray]] = []
    for theta in dominant_angles(maps) if angles is None else angles:
        frame = _Frame(maps, theta)
        r = frame.rectangles(W / H, short_min)
        if not len(r):
            continue
        # The rim first (cheap): well-covered outlines, larger ones first, only those mostly in view.
        hits, seen = frame.rim(r)
        perimeter = 2 * ((r[:, 2] - r[:, 0]) + (r[:, 3] - r[:, 1]))
        share = hits / np.maximum(seen, 1)
        keep = np.argsort(-(hits * share**2))[:300]
        r = r[keep[seen[keep] >= 0.3 * perimeter[keep]]]
        landscape = (r[:, 2] - r[:, 0]) >= (r[:, 3] - r[:, 1])
        for portrait in (False, True):
            rr = r[landscape != portrait]
            if not len(rr):
                continue
            # An 11! board looks the same turned half a turn (its bridges tell, later); Numeri does not.
            for turned in (False,) if _symmetric(layout) else (False, True):
                score = frame.template(rr, layout, portrait, turned)
                for k in np.argsort(-score)[:count]:
                    x0, y0, x1, y1 = rr[k]
                    quad = frame.to_image(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float))
                    # board corners TL, TR, BR, BL: portrait boards start at the frame's top right
                    quad = np.roll(quad, (-1 if portrait else 0) + (2 if turned else 0), axis=0)
                    found.append((float(score[k]), quad))
    found.sort(key=lambda t: -t[0])
    out: list[tuple[float, BoardView]] = []
    src = np.array([[0, 0], [W, 0], [W, H], [0, H]], np.float32)
    for s, quad in found:
        if any(np.abs(quad - _undistorted_corners(v)).max() < 12 for _, v in out):
            continue
        m = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
        out.append((s, BoardView.from_homography(m, maps.image_size, (W, H))))
        if len(out) >= count:
            break
    return out


@lru_cache(maxsize=4)
def _symmetric(layout: BoardLayout) -> bool:
    """Whether the squares map onto squares under a half turn of the board."""
    pts = layout_points(layout)
    turned = np.array([layout.width_mm, layout.height_mm]) - pts
    return bool(np.linalg.norm(turned[:, None] - pts[None], axis=2).min(axis=1).max() < 1.0)


def lattice_candidates(maps: EdgeMaps, image: np.ndarray, layout: BoardLayout, count: int = 2) -> list[BoardView]:
    """Board views from square blobs: direction and scale from the blobs (commonest angle, spacing
    of neighbours), position from a vote of every blob for every square it could be; the few best
    positions of each direction (a lattice also fits a square along), best first by their outlines."""
    h, w = image.shape[:2]
    side = layout.square_mm
    scale_hi = max(w, h) / max(layout.width_mm, layout.height_mm) * 1.25  # the board fills the view at most
    cand = square_candidates(image, side * scale_hi / 4.5, side * scale_hi * 1.15)
    if len(cand) < 6:
        return []
    # Blobs of a few pixels come out axis-aligned whatever their true angle: they count less.
    weight = cand[:, 2] * np.where(np.abs((cand[:, 3] + 0.05) % 90 - 0.05) < 0.01, 0.15, 1.0)
    hist, bins = np.histogram(cand[:, 3], bins=30, range=(0, 90), weights=weight)
    hist = hist + np.roll(hist, 1) + np.roll(hist, -1)
    theta = (bins[int(np.argmax(hist))] + 1.5) % 90
    cand = _merge(cand[np.abs((cand[:, 3] - theta + 45) % 90 - 45) < 7])
    if len(cand) < 6:
        return []
    theta = float(np.median((cand[:, 3] - theta + 45) % 90 - 45) + theta)
    med = float(np.median(cand[:, 2]))
    cand = cand[(cand[:, 2] > 0.7 * med) & (cand[:, 2] < 1.4 * med)]
    if len(cand) < 6:
        return []
    s0 = float(np.median(cand[:, 2])) / side
    pitch = _layout_pitch(layout)
    xy = cand[:, :2]
    d = np.linalg.norm(xy[:, None] - xy[None], axis=2)
    np.fill_diagonal(d, np.inf)
    nn = d.min(axis=1) / s0
    near = nn[(nn > 0.75 * pitch) & (nn < 1.3 * pitch)]
    s = s0 * float(np.median(near)) / pitch if len(near) >= 4 else s0
    sq = layout_points(layout)
    views = []
    for quarter in range(4):
        phi = math.radians(theta + 90 * quarter)
        rot = np.array([[math.cos(phi), -math.sin(phi)], [math.sin(phi), math.cos(phi)]])
        for ds in (0.96, 1.0, 1.04):
            for shift in _lattice_votes(xy @ rot / (s * ds), sq, 0.25 * pitch):
                A = np.eye(3)
                A[:2, :2] = rot * s * ds
                A[:2, 2] = rot @ (shift * s * ds)
                v = BoardView.from_homography(A, (w, h), (layout.width_mm, layout.height_mm))
                views.append(_icp(v, xy, sq, pitch))
    ranked = sorted(views, key=lambda v: -view_score(maps, v, layout).rank)
    out: list[BoardView] = []
    for v in ranked:
        if all(np.abs(_undistorted_corners(v) - _undistorted_corners(o)).max() >= 12 for o in out):
            out.append(v)
        if len(out) >= count:
            break
    return out


def _lattice_votes(p: np.ndarray, sq: np.ndarray, b: float, count: int = 3) -> list[np.ndarray]:
    """Shifts (board mm) that put many blobs (board-aligned mm, up to a shift) on squares: every
    blob votes for every square it could be, in bins of b (a 2×2 box: offsets straddle bins)."""
    off = (p[:, None, :] - sq[None, :, :]).reshape(-1, 2)
    lo = off.min(axis=0)
    key = np.floor((off - lo) / b).astype(np.int64)
    nx, ny = key.max(axis=0) + 2
    grid = np.bincount(key[:, 0] * ny + key[:, 1], minlength=nx * ny).reshape(nx, ny)
    box = (grid[:-1, :-1] + grid[1:, :-1] + grid[:-1, 1:] + grid[1:, 1:]).astype(float)
    out = []
    for _ in range(count):
        ix, iy = np.unravel_index(int(np.argmax(box)), box.shape)
        if box[ix, iy] < 4:
            break
        box[max(0, ix - 2):ix + 3, max(0, iy - 2):iy + 3] = -1
        sel = (key[:, 0] >= ix) & (key[:, 0] <= ix + 1) & (key[:, 1] >= iy) & (key[:, 1] <= iy + 1)
        out.append(np.median(off[sel], axis=0))
    return out


def one_square_off(view: BoardView, layout: BoardLayout) -> list[BoardView]:
    """The view moved by one square's spacing along either axis."""
    p = _layout_pitch(layout)
    return [_translate(view, dx, dy) for dx, dy in ((p, 0), (-p, 0), (0, p), (0, -p))]


def _variants(view: BoardView, layout: BoardLayout) -> list[BoardView]:
    """The view moved by one square's spacing along either axis, or stretched by one at either
    end: a lattice of equal squares fits those nearly as well when the board's edge is hidden."""
    W, H = layout.width_mm, layout.height_mm
    p = _layout_pitch(layout)
    out = one_square_off(view, layout)
    for axis, size in ((0, W), (1, H)):
        for k in (p, -p):
            s = (size + k) / size
            for anchor in (0.0, size):
                m = np.eye(3)
                m[axis, axis] = s
                m[axis, 2] = anchor * (1 - s)
                out.append(replace(view, H=tuple(tuple(float(x) for x in row) for row in view.matrix @ m)))
    return out


# ----------------------------------------------------------------------------------------
# Which way round: the printed colours, and the bridges between the 11! rows

_NOMINAL_AB = {"yellow": (2.0, 70.0), "red": (55.0, 35.0), "blue": (5.0, -45.0), "green": (-45.0, 30.0)}


def _square_colours(lab_small: np.ndarray, f: int, view: BoardView, layout: BoardLayout) -> np.ndarray:
    """Median (a*, b*) of the most coloured pixels of each square (N×2; NaN when out of view)."""
    g = np.linspace(-0.35, 0.35, 5) * layout.square_mm
    offs = np.array([[x, y] for x in g for y in g])
    pts = np.concatenate([np.array([q.x, q.y]) + offs for q in layout.squares])
    p = (view.to_image(pts) + 0.5) / f - 0.5
    h, w = lab_small.shape[:2]
    inside = ((p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)).reshape(len(layout.squares),
                                                                                                  -1)
    v = cv2.remap(lab_small, p[:, 0].astype(np.float32).reshape(1, -1), p[:, 1].astype(np.float32).reshape(1, -1),
                  cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(len(layout.squares), -1, 3)
    ab = v[:, :, 1:].astype(np.float32) - 128.0
    out = np.full((len(layout.squares), 2), np.nan)
    for i in range(len(layout.squares)):
        if inside[i].mean() < 0.8:
            continue
        c = np.hypot(ab[i, :, 0], ab[i, :, 1])
        sel = c >= np.percentile(c, 60)
        out[i] = np.median(ab[i][sel], axis=0)
    return out


def orientation_score(lab_small: np.ndarray, f: int, view: BoardView, layout: BoardLayout) -> float:
    """Positive when the printed colours sit where the layout says (negative: turned half a turn).

    11!: the row colours (yellow above green, red above blue in the layout's order); Numeri:
    red start squares and yellow end squares against the pale ones. Differences of colours
    measured in the same picture, so a colour cast cancels."""
    ab = _square_colours(lab_small, f, view, layout)
    if layout.game == "start11":
        def row_mean(row):
            sel = [i for i, q in enumerate(layout.squares) if q.row == row and q.kind == "number"]
            vals = ab[sel]
            vals = vals[~np.isnan(vals[:, 0])]
            return np.median(vals, axis=0) if len(vals) >= 3 else None

        rows = list(layout.rows)
        score = 0.0
        for top, bottom in ((rows[0], rows[3]), (rows[1], rows[2])):
            a, b = row_mean(top), row_mean(bottom)
            if a is None or b is None:
                continue
            ref = np.subtract(_NOMINAL_AB[top], _NOMINAL_AB[bottom])
            score += float(np.dot(a - b, ref) / np.linalg.norm(ref))
        return score
    kinds = np.array([q.kind for q in layout.squares])
    ok = ~np.isnan(ab[:, 0])

    def mean(sel, k):
        sel = sel & ok
        return float(np.median(ab[sel, k])) if sel.sum() >= 2 else None

    pale = (kinds == "blank") | (kinds == "number")
    score = 0.0
    red = mean((kinds == "negative") | (kinds == "start"), 0)
    base_a = mean(pale, 0)
    if red is not None and base_a is not None:
        score += red - base_a
    yellow = mean(kinds == "end", 1)
    base_b = mean(pale, 1)
    if yellow is not None and base_b is not None:
        score += yellow - base_b
    return score


@lru_cache(maxsize=4)
def _bridge_places(layout: BoardLayout) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Between every two neighbouring rows at every number: sample points (K×P×2 board mm), whether
    a bridge is printed there, and whether one would be there if the board were turned half a turn."""
    rows = list(layout.rows)
    by = {(q.row, q.number): q for q in layout.squares if q.number is not None}
    printed = {(frozenset(b.rows), b.number) for b in layout.bridges}
    g = np.linspace(-0.25, 0.25, 4)
    pts, here = [], []
    for r0, r1 in zip(rows, rows[1:], strict=False):
        for n in range(1, 21):
            a, b = by.get((r0, n)), by.get((r1, n))
            if a is None or b is None:
                continue
            gap = abs(b.y - a.y) - layout.square_mm
            cx, cy = (a.x + b.x) / 2, (a.y + b.y) / 2
            pts.append([(cx + u * layout.square_mm, cy + v * gap) for u in g for v in g])
            here.append((frozenset((r0, r1)), n) in printed)
    pts_a = np.array(pts, float).reshape(-1, len(g) ** 2, 2)
    centres = pts_a.mean(axis=1)
    turned = np.array([layout.width_mm, layout.height_mm]) - centres
    j = np.linalg.norm(turned[:, None] - centres[None], axis=2).argmin(axis=1)
    if_turned = np.zeros(len(pts), bool)
    if_turned[j[np.array(here, bool)]] = True
    return pts_a, np.array(here, bool), if_turned


def bridge_score(lab_small: np.ndarray, f: int, view: BoardView, layout: BoardLayout) -> float:
    """How much more the places of the printed bridges between rows stand out from the board there
    than the places they would have on the board turned half a turn (positive: right way round).
    Tiles cover squares, not the bridges between them, so this holds on a full board too."""
    if not layout.bridges:
        return 0.0
    pts, here, if_turned = _bridge_places(layout)
    p = (view.to_image(pts.reshape(-1, 2)) + 0.5) / f - 0.5
    h, w = lab_small.shape[:2]
    v = cv2.remap(lab_small, p[:, 0].astype(np.float32).reshape(1, -1), p[:, 1].astype(np.float32).reshape(1, -1),
                  cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(len(pts), -1, 3).astype(np.float32)
    inside = ((p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)).reshape(len(pts), -1).all(1)
    colour = np.median(v, axis=1)
    plain = inside & ~here & ~if_turned
    if plain.sum() < 3 or (here & inside).sum() < 2 or (if_turned & inside).sum() < 2:
        return 0.0
    stand_out = np.linalg.norm(colour - np.median(colour[plain], axis=0), axis=1)
    return float(stand_out[here & inside].mean() - stand_out[if_turned & inside].mean())


def _right_way(maps: EdgeMaps, view: BoardView, layout: BoardLayout) -> BoardView:
    """The view or the view turned half a turn. A symmetric lattice (11!) cannot tell: the bridges
    between rows can when enough of them are in view, the row colours otherwise. Numeri's track
    is not symmetric: its squares tell, the red and yellow squares when they are unsure."""
    turned = view.turned()
    if not _symmetric(layout):
        a, b = view_score(maps, view, layout).squares, view_score(maps, turned, layout).squares
        if abs(a - b) > 0.05:
            return view if a >= b else turned
    else:
        bridges = bridge_score(maps.lab, 2, view, layout)
        if abs(bridges) >= 3.0:  # (Lab units: printed bridges stand out by 10-40)
            return view if bridges > 0 else turned
    a, b = orientation_score(maps.lab, 2, view, layout), orientation_score(maps.lab, 2, turned, layout)
    return view if a >= b else turned


# ----------------------------------------------------------------------------------------
# Locating a board: hypotheses from the outline (or the square blobs), each fitted to the edges
# and scored; the best, if convincing, the right way round.

# A board is taken when most of its squares' outlines lie on edges that are not simply everywhere.
# Measured on rendered "train" tables: boards found score at least 0.79 / 0.21 / 1.5 / 70 % matched,
# tables without a board (card rows included) at most 0.55 / 0.35 / 1.36 / 22 %.
MIN_SQUARES = 0.6  # share of the outline probes in view on edges
MIN_CONTRAST = 0.12  # that share minus the share a quarter side inside the squares
MIN_EVIDENCE = 1.3  # squares + contrast + half the rim
MIN_MATCHED = 0.4  # squares with most of their outline on edges, of those in view
MAX_GHOSTS = 0.65  # share on edges of squares beyond the rows' ends (a board: at most 0.45)
MAX_GHOSTS_RIM = 0.8  # the same when RIM_SURE of the board's edge lies on edges
RIM_SURE = 0.95
MIN_APART = 0.35  # squares' share above the share of their copies off the board (a board: at least 0.5)


@dataclass
class Located:
    """A board found: its view, and the evidence it was taken on."""

    view: BoardView
    score: ViewScore
    contrast: float = 0.0  # square_contrast of the view
    beside: float = 0.0  # beside_share of the view

    @property
    def evidence(self) -> float:
        return self.score.squares + self.contrast + 0.5 * self.score.rim

    @property
    def convincing(self) -> bool:
        return self.doubt() is None

    def doubt(self) -> str | None:
        """Why the view is not taken for the board, in words for the user (None: it is taken)."""
        s = self.score
        if s.squares < MIN_SQUARES or s.matched < MIN_MATCHED * s.visible:
            return "too few of its squares' outlines show"
        if self.contrast < MIN_CONTRAST or self.evidence < MIN_EVIDENCE:
            return "its squares hardly stand out from what is round them"
        # A board whose whole edge lies on edges is not a lattice slid along its rows, whatever
        # shows beyond the rows' ends (a pen lying there, a print continuing the squares).
        if max(s.ghosts) >= (MAX_GHOSTS_RIM if s.rim >= RIM_SURE else MAX_GHOSTS):
            return "squares like the board's continue beyond the ends of its rows"
        if s.squares - self.beside < MIN_APART:
            return "the table round it shows squares like the board's"
        if not plausible(self.view):
            return "its outline is not the board's shape"
        return None


def plausible(view: BoardView) -> bool:
    """A camera above the table sees the board nearly as a rectangle of its proportions: a fit that
    skews it (matched to something else) is not taken."""
    W, H = view.size_mm
    c = view.undistort(view.corners())
    sides = [np.linalg.norm(c[(i + 1) % 4] - c[i]) for i in range(4)]
    if min(sides) < 8:
        return False
    for i in range(4):
        a, b = c[(i + 1) % 4] - c[i], c[(i - 1) % 4] - c[i]
        if abs(float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))) > math.sin(math.radians(12)):
            return False
    ratio = (sides[0] + sides[2]) / (sides[1] + sides[3])
    return bool(abs(math.log(ratio / (W / H))) < 0.15 and 0.8 < sides[0] / sides[2] < 1.25
                and 0.8 < sides[1] / sides[3] < 1.25)


def _fitted(maps: EdgeMaps, start: BoardView, layout: BoardLayout, rim_radius: float = 24.0) -> Located:
    """A hypothesis fitted and scored; when it is not convincing or the board is cut by the
    picture's edge, also from its one-square variants."""
    view = fit_board(maps, start, layout, rim_radius)
    score = view_score(maps, view, layout)
    cut = score.rim_seen < 0.95 * int(_probes(layout).rim.sum())  # the far end may sit a square off
    if score.total < 0.9 or cut:
        alt = max(_variants(view, layout), key=lambda v: view_score(maps, v, layout).rank)
        if view_score(maps, alt, layout).rank > score.rank:
            moved = fit_board(maps, alt, layout, 8.0)
            moved_score = view_score(maps, moved, layout)
            if moved_score.rank > score.rank:
                view, score = moved, moved_score
    if not _symmetric(layout):  # Numeri: the way round decides which squares are where
        turned = view_score(maps, view.turned(), layout)
        if turned.rank > score.rank:
            view, score = view.turned(), turned
    return Located(view, score)


def _walk(maps: EdgeMaps, view: BoardView, score: ViewScore, layout: BoardLayout) -> tuple[BoardView, ViewScore]:
    """While squares show beyond one end of the rows, the board goes on that way (its edge there
    hidden or cut, the rows matched some squares off): walk the view along a square at a time,
    as long as they do, and keep the best view met."""
    pitch = _layout_pitch(layout)
    end = int(np.argmax(score.ghosts))
    best, best_score = view, score
    for _ in range(int(layout.width_mm // pitch)):
        if score.ghosts[end] < 0.6 or score.squares < 0.7:  # (off the lattice: nothing to walk along)
            break
        view = fit_board(maps, _translate(view, pitch if end else -pitch, 0.0), layout, 8.0)
        score = view_score(maps, view, layout)
        if score.rank > best_score.rank:
            best, best_score = view, score
    return best, best_score


def locate(image: np.ndarray, layout: BoardLayout, hint: BoardView | None = None,
           pyr: Pyramid | None = None) -> Located:
    """Find the board in a picture: from `hint` (a previous view or a stored calibration) when it
    still fits, else from the outline search, else from square blobs. `pyr` is not needed (kept for
    callers that pass one). Raises CalibrationError when no view is convincing."""
    maps = EdgeMaps(image)
    size = (image.shape[1], image.shape[0])
    if hint is not None and tuple(hint.image_size) == size:
        # The board nudged: the old view is within reach of the edges' pull (half a square's spacing).
        loc = _finish(maps, _fitted(maps, hint, layout, 0.45 * _layout_pitch(layout) * hint.px_per_mm()), layout)
        if loc.convincing:
            return loc
    angles = dominant_angles(maps)
    tried = _from_outline(maps, layout, angles)
    if not tried or max(t.score.rank for t in tried) < 0.9:
        tried += [_fitted(maps, v, layout) for v in lattice_candidates(maps, image, layout)]
    best = _choose(maps, tried, layout) if tried else None
    if best is None or not best.convincing:
        # The direction may be a little off (a table's grain along the board pulls it): look beside it.
        tried += _from_outline(maps, layout, [a + d for a in angles[:2] for d in (-2.0, 2.0)])
        if not tried:
            raise CalibrationError("board not found: no straight outline or squares in view; is the board on "
                                   "the table, in view and lit?")
        best = _choose(maps, tried, layout)
    why = best.doubt()
    if why is not None:
        raise CalibrationError(
            f"board not found: the best match has {best.score.matched} of {len(layout.squares)} squares "
            f"({best.score.squares:.0%} of their outlines, {best.score.rim:.0%} of the board's edge) but {why}; "
            "is all of the board in view, lit, and not covered?")
    return best


def _from_outline(maps: EdgeMaps, layout: BoardLayout, angles: list[float]) -> list[Located]:
    """Outline hypotheses fitted: two at least (the best outline is not always the board's) unless
    the first explains nearly all of a board, more while none is good."""
    tried: list[Located] = []
    for _score, view in outline_candidates(maps, layout, angles):
        tried.append(_fitted(maps, view, layout))
        best = max(t.score.rank for t in tried)
        if best >= 0.95 or (len(tried) >= 2 and best >= 0.8):
            break
    return tried


def _choose(maps: EdgeMaps, tried: list[Located], layout: BoardLayout) -> Located:
    """The best of the fitted hypotheses, walked along its rows if squares show beyond their ends."""
    best = max(tried, key=lambda t: t.score.rank)
    if max(best.score.ghosts) >= 0.6:
        best = Located(*_walk(maps, best.view, best.score, layout))
        tried.append(best)
    return _finish(maps, best, layout)


def _finish(maps: EdgeMaps, loc: Located, layout: BoardLayout) -> Located:
    """The way round, the contrast of the squares, and the fit's figures on the view."""
    view = _right_way(maps, loc.view, layout)
    score = view_score(maps, view, layout) if view is not loc.view else loc.score
    view = replace(view, inliers=score.matched, residual_px=_residual(maps, view, layout))
    return Located(view, score, square_contrast(maps, view, layout), beside_share(maps, view, layout))


def _residual(maps: EdgeMaps, view: BoardView, layout: BoardLayout) -> float:
    """Median distance (px) of the outlines from the edges found within a few pixels of them."""
    pr = _probes(layout)
    p, n = _image_normals(view, pr.pts, pr.normals)
    d, found = _edge_offsets(maps, p, n, 4.0)
    ok = found & maps.in_view(p)
    return float(np.median(np.abs(d[ok]))) if ok.any() else float("nan")


def _turn_right_way(image: np.ndarray, loc: Located, layout: BoardLayout) -> Located:
    """`loc` the right way round (see `_right_way`)."""
    return _finish(EdgeMaps(image), loc, layout)


# ----------------------------------------------------------------------------------------
# Keeping the view while the board stays put


def _outline_pairs(layout: BoardLayout) -> tuple[np.ndarray, np.ndarray]:
    """Board-mm points just inside and just outside every square's outline (pairs)."""
    inner, outer = [], []
    h = layout.square_mm / 2
    for q in layout.squares:
        for u in (-0.25, 0.0, 0.25):
            for sx, sy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                t = u * layout.square_mm
                p = np.array([q.x + sx * h + (t if sx == 0 else 0), q.y + sy * h + (t if sy == 0 else 0)])
                n = np.array([sx, sy], float)
                inner.append(p - 1.6 * n)
                outer.append(p + 1.6 * n)
    return np.array(inner), np.array(outer)


def outline_contrast(pyr: Pyramid, view: BoardView, layout: BoardLayout) -> float:
    """Mean brightness step across the squares' outlines where the view puts them: large while
    the view fits, small once the board has moved (the probes then straddle nothing)."""
    inner, outer = _outline_pairs(layout)
    img = pyr.level(1)
    pts = np.concatenate([view.to_image(inner), view.to_image(outer)])
    p = (pts + 0.5) / 2.0 - 0.5
    h, w = img.shape[:2]
    v = cv2.remap(img, p[:, 0].astype(np.float32).reshape(1, -1), p[:, 1].astype(np.float32).reshape(1, -1),
                  cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).reshape(2, -1, 3).astype(np.float32)
    inside = ((p[:, 0] >= 0) & (p[:, 0] <= w - 1) & (p[:, 1] >= 0) & (p[:, 1] <= h - 1)).reshape(2, -1).all(axis=0)
    if inside.sum() < 20:
        return 0.0
    return float(np.abs(v[0] - v[1]).sum(axis=1)[inside].mean())


@dataclass
class BoardTracker:
    """The board's view for a stream of pictures from one camera: found once, kept while the
    squares' outlines still lie where it says, fitted again from the old view when they do not."""

    layout: BoardLayout
    view: BoardView | None = None
    hint: BoardView | None = None  # a stored calibration to start from
    reference: float = 0.0  # outline contrast when the view was fitted
    relocations: int = 0
    moved_ratio: float = 0.55  # contrast below this share of the reference: the board moved
    same_place_mm: float = 2.5  # found again within this of the kept view: it has not moved

    def view_for(self, image: np.ndarray, pyr: Pyramid, timings: dict | None = None) -> BoardView:
        t = time.perf_counter()
        size = (image.shape[1], image.shape[0])
        if self.view is not None and tuple(self.view.image_size) == size:
            c = outline_contrast(pyr, self.view, self.layout)
            if c >= self.moved_ratio * self.reference:
                self.reference = max(0.9 * self.reference, c) if c < self.reference else 0.9 * self.reference + 0.1 * c
                if timings is not None:
                    timings["board_check_ms"] = (time.perf_counter() - t) * 1000
                return self.view
        hint = self.view if self.view is not None else self.hint
        view = locate(image, self.layout, hint=hint, pyr=pyr).view
        if self.view is not None and tuple(self.view.image_size) == size and \
                _shift_mm(self.view, view) <= self.same_place_mm:
            # Not moved: tiles over the squares' outlines lowered their contrast. The view that
            # was kept stays (a fit again is a few pixels off, and a learnt empty look with it).
            view = self.view
        self.view = view
        self.reference = outline_contrast(pyr, view, self.layout)
        self.relocations += 1
        if timings is not None:
            timings["board_locate_ms"] = (time.perf_counter() - t) * 1000
        return self.view


def _shift_mm(a: BoardView, b: BoardView) -> float:
    """How far apart (board mm, at the board's scale in the picture) two views put its corners,
    on average (a corner out of the picture is placed less surely than the others)."""
    d = np.linalg.norm(np.asarray(a.corners(), float) - np.asarray(b.corners(), float), axis=1).mean()
    return float(d) / a.px_per_mm()


def load_calibration_view(path: str | Path, layout: BoardLayout) -> BoardView:
    """A stored board calibration (`calibrate.Calibration` JSON) as a starting view."""
    cal = Calibration.load(path)
    if abs(cal.size_mm[0] / cal.size_mm[1] - layout.width_mm / layout.height_mm) > 0.05 * (
            layout.width_mm / layout.height_mm):
        cal = cal.rotated(1)
    view = BoardView.from_calibration(cal)
    k1 = cal.details.get("k1") if isinstance(cal.details, dict) else None
    return replace(view, k1=float(k1)) if isinstance(k1, int | float) else view


