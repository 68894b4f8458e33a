"""Rows of number cards read as rows: what a card's neighbours say it is.

In Elfer raus!, its junior game and 11 Elevens every row is one colour's run of consecutive
numbers (RULES.md), laid at one pitch, so a card two places to the right of a 14 is a 16 or a
12. A human reads a half-hidden strip that way: its corner index cut to a "6" beside a 15 and
a 17 is the 16. This module finds such rows among the card outlines and, for each card, the
evidence its row gives about its value: an exact forward-backward pass over the row's chain
of values, in both directions, where each step between neighbours is "k places further" with
probability 1 - `brk` and anything at all (a misplaced card, another layout) with `brk`.

The evidence is soft: a surely read card is not overruled (a wrongly placed card still reads
as what it is, for the referee to refuse), only a card the picture leaves in doubt takes the
value its row makes likely. Pure logic: outlines in, per-card evidence out.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

ROW_ANGLE = 10.0  # degrees: cards of one row lie this much alike
ROW_OFFSET = 0.25  # card heights: largest sideways distance of a card from its row's line
ROW_REACH = 2.6  # card widths: largest gap between neighbours in a row (a hidden card between)
PLACE_JITTER = 0.15  # places: how far a hand-laid card's spacing strays from a whole number of pitches
ODD_GAP = 4.0  # cost of a spacing no pitch explains (a moved outline), in squared jitters
MISSED_COST = 1.0  # cost of each place a pitch calls missed between two neighbours
MISSED_COST_MOST = 2  # places a gap can cost at most (a wider gap is the game's: junior rows)
MIN_SPACING = 0.12  # card widths: closer outlines are no two places of a row (a split card)
EDGE_SLACK = 0.03  # card widths: how far a strip's edge may lie from its place (`edge_pitch`)
EDGE_CONTRAST = 2.0  # how much stronger a row's strip edges are than the half places between them
EDGE_NEAR_BEST = 0.8  # share of the best comb score within which the smallest pitches are taken
PLACE_SLACK = 0.06  # card widths: how far off an outline's centre may be along its row
MOST_MISSED = 2  # cards in a row the detector misses one after another (a wider gap is empty table)
# A strip of a tightly overlapping row may show only one digit of its corner index, the other under
# the next card: a 17 shows "7", a 21 "2", and the network reads that digit, surely. Its row may
# then say which number the strip is (`with_cut_index`); the share keeps the digit as read where
# the row cannot tell (a row 1 2 3 read on strips is not taken for 11 12 13).
CUT_SHARE = 0.3


@dataclass(frozen=True)
class Outline:
    """Where a card lies: centre (pixels), direction of its long side (degrees), size (pixels)."""

    centre: tuple[float, float]
    angle: float
    width: float
    height: float


@dataclass(frozen=True)
class Row:
    """Cards of one row in order along it; the places (pitches, not rounded) between neighbours
    and how far off each of those may be. A step of 0 ties nothing (two outlines too close to be
    two places)."""

    members: tuple[int, ...]
    steps: tuple[float, ...]
    slack: float = 0.1


def find_rows(outlines: list[Outline]) -> list[Row]:
    """Rows of two or more cards: cards lying alike, side by side along their short sides."""
    n = len(outlines)
    if n < 2:
        return []
    parent = list(range(n))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in zip(*np.nonzero(_neighbours(outlines)), strict=True):
        parent[root(int(i))] = root(int(j))
    groups: dict[int, list[int]] = {}
    for i in range(n):
        groups.setdefault(root(i), []).append(i)
    return [_ordered(outlines, g) for g in groups.values() if len(g) >= 2]


LINE_OFFSET = 0.5  # card heights: largest sideways distance between two pieces of one line of cards


def one_line(a: list[Outline], b: list[Outline]) -> bool:
    """Whether two rows lie along one line (two pieces of one row, with a gap between): alike
    in direction, each one's middle on the other's line."""
    (ta, ca, ha), (tb, cb, hb) = ((_mean_angle(r), np.mean([o.centre for o in r], axis=0),
                                   float(np.median([o.height for o in r]))) for r in (a, b))
    if abs((ta - tb + 90.0) % 180.0 - 90.0) > ROW_ANGLE:
        return False
    return all(abs(float(np.dot(cb - ca, _axes(t)[1]))) < LINE_OFFSET * 0.5 * (ha + hb) for t in (ta, tb))


def _mean_angle(outlines: list[Outline]) -> float:
    """The mean direction (degrees, modulo 180) of outlines' long sides."""
    z = np.exp(2j * np.radians([o.angle for o in outlines])).mean()
    return math.degrees(float(np.angle(z))) / 2.0


def _axes(angle_deg: float) -> tuple[np.ndarray, np.ndarray]:
    """Across the card (along its row) and along its long side."""
    a = math.radians(angle_deg)
    return np.array([math.sin(a), -math.cos(a)]), np.array([math.cos(a), math.sin(a)])


def _neighbours(outlines: list[Outline]) -> np.ndarray:
    """n×n, upper triangle: which pairs lie alike and side by side, near enough to be one row."""
    c = np.array([o.centre for o in outlines], np.float64)
    ang = np.array([o.angle for o in outlines], np.float64)
    w = np.array([o.width for o in outlines], np.float64)
    h = np.array([o.height for o in outlines], np.float64)
    a = np.radians(ang)
    u = np.stack([np.sin(a), -np.cos(a)], 1)
    v = np.stack([np.cos(a), np.sin(a)], 1)
    d = c[None, :, :] - c[:, None, :]  # d[i, j]: centre j less centre i
    along = np.abs(np.einsum("ijk,ik->ij", d, u))
    side = np.abs(np.einsum("ijk,ik->ij", d, v))
    turn = np.abs((ang[:, None] - ang[None, :] + 90.0) % 180.0 - 90.0)
    size_w, size_h = 0.5 * (w[:, None] + w[None, :]), 0.5 * (h[:, None] + h[None, :])
    ok = (turn <= ROW_ANGLE) & (side < ROW_OFFSET * size_h) & (along < ROW_REACH * size_w)
    return np.triu(ok, 1)


def _ordered(outlines: list[Outline], group: list[int]) -> Row:
    """A group's cards in order along its mean direction, and the places between neighbours."""
    u, _v = _axes(_mean_angle([outlines[i] for i in group]))
    t = np.array([np.dot(outlines[i].centre, u) for i in group])
    order = np.argsort(t)
    members = tuple(group[k] for k in order)
    gaps = np.diff(t[order])
    width = float(np.median([outlines[i].width for i in group]))
    real = gaps[gaps > MIN_SPACING * width]
    if len(real) == 0:
        return Row(members, tuple(0.0 for _ in gaps))
    pitch = _pitch(real)
    steps = tuple(max(1.0, float(g / pitch)) if g > MIN_SPACING * width else 0.0 for g in gaps)
    # Centres of partly hidden cards are a few hundredths of a card off: in a tight row that is
    # a good part of a place, and a gap of 1.5 places may be one or two.
    return Row(members, steps, max(0.1, PLACE_SLACK * width / pitch))


def _pitch(gaps: np.ndarray) -> float:
    """The spacing of one place: the one that explains the gaps as whole numbers of places at
    the least cost, each gap paying for its stray from a whole number (`PLACE_JITTER`, at most
    `ODD_GAP`) and for the places it leaves empty. Not the smallest gap: one outline found a
    third of a place off would make every other gap two or three places, and the row's reading
    would look for cards that are not there. Candidates: each gap, a half and a third of it (in
    a row of uneven spacing with a missed card, a wide gap's third can fit best)."""
    cands = np.concatenate([gaps, gaps / 2.0, gaps / 3.0])
    r = gaps[None, :] / cands[:, None]  # every candidate at once: one row each
    n = np.maximum(1.0, np.round(r))
    cost = np.minimum(((r - n) / PLACE_JITTER) ** 2, ODD_GAP).sum(axis=1)
    cost += MISSED_COST * np.minimum(n - 1.0, MISSED_COST_MOST).sum(axis=1)
    least = cost <= cost.min() + 1e-9
    best = float(cands[least].min())  # of equally good pitches, the smallest
    n = np.maximum(1.0, np.round(gaps / best))
    fits = np.abs(gaps / best - n) <= 2.0 * PLACE_JITTER
    return float(np.median(gaps[fits] / n[fits])) if fits.any() else best


@lru_cache(maxsize=8)
def cut_readings(nv: int) -> tuple[tuple[int, int], ...]:
    """(number, what shows of it) for each number 1..nv whose numeral, one digit hidden, reads as
    a smaller number: (17, 7), (17, 1), (21, 2), (10, 1); not (20, 0), 0 being no card. (A 20
    read 10, its tens hidden, is left to its row alone: taking 10 and 20 for one another too
    leaves a row's sure end card in doubt, and its strips with it.)"""
    out = []
    for t in range(10, nv + 1):
        for shown in sorted({t // 10, t % 10}):
            if shown >= 1:
                out.append((t, shown))
    return tuple(out)


def with_cut_index(p: np.ndarray, share: float = CUT_SHARE) -> np.ndarray:
    """Per-value probabilities (columns 1..nv, any leading axes in rows) of a strip whose index
    may be cut: each number takes at least `share` of the probability of each digit that is all
    that may show of it (`cut_readings`); the rest as it was. Not renormalised."""
    p = np.asarray(p, np.float64)
    q = p.copy()
    for t, shown in cut_readings(q.shape[-1]):
        q[..., t - 1] = np.maximum(q[..., t - 1], share * p[..., shown - 1])
    return q


def empty_places(row: Row) -> list[tuple[int, float]]:
    """Places inside a row where no outline was found: (index in the row of the card before the
    gap, fraction of the way to the next card) for every whole place a gap holds beyond one, in
    gaps of at most `MOST_MISSED` places (a wider one is a gap of the game: junior rows are laid
    1.. and ..11 with room between)."""
    out = []
    for k, r in enumerate(row.steps):
        n = int(round(r))
        if r > 0 and 2 <= n <= MOST_MISSED + 1:
            out += [(k, j / r) for j in range(1, n)]
    return out


def row_evidence(emissions: np.ndarray, steps: tuple[float, ...], brk: float, slack: float = 0.1) -> np.ndarray:
    """For each card of a row, the likelihood of each value (columns 1..V) given the other cards'
    readings: `emissions[i, v-1]` is how well card i's own picture fits value v. The row runs up
    or down (both weighed by how well they explain the readings); between neighbours about `r`
    places apart (give or take `slack`) the value moves by a whole k near r with probability
    1 - `brk`, else to any value. Rows normalised to sum to 1."""
    e = np.asarray(emissions, np.float64)
    n, nv = e.shape
    if n < 2:
        return np.ones_like(e) / nv
    total = np.zeros_like(e)
    logz = []
    parts = []
    for sign in (1, -1):
        mats = [_transition(nv, sign, r, brk, slack) for r in steps]
        fwd, logf = _forward(e, mats)
        bwd = _backward(e, mats)
        msg = np.empty_like(e)  # what the rest of the row says, without the card's own picture
        for i in range(n):
            incoming = fwd[i - 1] @ mats[i - 1] if i else np.full(nv, 1.0 / nv)
            m = incoming * bwd[i]
            msg[i] = m / max(m.sum(), 1e-300)
        parts.append(msg)
        logz.append(logf)
    w = np.exp(np.array(logz) - max(logz))
    w /= w.sum()
    for wk, msg in zip(w, parts, strict=True):
        total += wk * msg
    return total / total.sum(axis=1, keepdims=True)


def _transition(nv: int, sign: int, r: float, brk: float, slack: float) -> np.ndarray:
    """P(next value | value) for a move of about `r` places up (sign 1) or down (-1); a step of
    0 ties nothing."""
    return _transition_of(nv, sign, round(r, 2), round(brk, 4), round(slack, 2))


@lru_cache(maxsize=4096)
def _transition_of(nv: int, sign: int, r: float, brk: float, slack: float) -> np.ndarray:
    """The cached matrix, read-only (it is shared by every row that asks for it)."""
    t = _transition_matrix(nv, sign, r, brk, slack)
    t.setflags(write=False)
    return t


def _transition_matrix(nv: int, sign: int, r: float, brk: float, slack: float) -> np.ndarray:
    if r <= 0:
        return np.full((nv, nv), 1.0 / nv)
    ks = np.arange(max(1, math.floor(r) - 1), math.ceil(r) + 2)
    w = np.exp(-0.5 * ((ks - r) / slack) ** 2)
    w /= w.sum()
    t = np.full((nv, nv), brk / nv)
    for k, wk in zip(ks, w, strict=True):
        t += (1.0 - brk) * wk * np.eye(nv, k=int(sign * k))
    return t


def _forward(e: np.ndarray, mats: list[np.ndarray]) -> tuple[np.ndarray, float]:
    """Scaled forward messages (each row sums to 1) and the log-likelihood of the readings."""
    n, nv = e.shape
    fwd = np.empty_like(e)
    a = e[0] / nv
    logz = 0.0
    for i in range(n):
        if i:
            a = (fwd[i - 1] @ mats[i - 1]) * e[i]
        s = max(float(a.sum()), 1e-300)
        logz += math.log(s)
        fwd[i] = a / s
    return fwd, logz


def _backward(e: np.ndarray, mats: list[np.ndarray]) -> np.ndarray:
    """Scaled backward messages: how well each value explains the cards after it."""
    n, nv = e.shape
    bwd = np.ones_like(e)
    for i in range(n - 2, -1, -1):
        b = mats[i] @ (e[i + 1] * bwd[i + 1])
        bwd[i] = b / max(float(b.sum()), 1e-300)
    return bwd


def lattice_pitches(whole_value: int, whole_centre: np.ndarray, axis: np.ndarray,
                    read: list[tuple[np.ndarray, int]], width: float) -> list[float]:
    """Spacings of one place an overlapping row may have, from where its partly hidden cards were
    read: a card read as v lies |whole - v| places from the row's whole card (a row holds
    consecutive numbers, an empty place keeps its room). Two guesses: the farthest card's (its
    outline is placed by its free edge, on the table, and is the least off), and the median over
    the cards at least two places away (outlines of narrow strips inside a row are often a strip
    off, and read their neighbour's index). Only pitches a row can have (`MIN_SPACING` to 0.7
    card widths: wider, the cards are laid side by side)."""
    ratios = []
    for centre, value in read:
        n = abs(whole_value - value)
        t = float(np.dot(np.asarray(centre, np.float64) - whole_centre, axis))
        if n >= 2 and t > 0:
            ratios.append((t, t / n))
    if not ratios:
        return []
    out: list[float] = []
    for p in (max(ratios)[1], float(np.median([r for _t, r in ratios]))):
        if MIN_SPACING * width <= p <= 0.7 * width and all(abs(p / q - 1.0) > 0.03 for q in out):
            out.append(p)
    return out


def edge_pitch(profile: np.ndarray, start: float, reach: float, width: float) -> float | None:
    """The spacing of one place of an overlapping row, from the picture alone: `profile` is the
    strength of edges across the row (one value per pixel along it, from the whole card's
    centre), `start` where the whole card's far edge lies in it, `reach` how far the row's last
    card's centre lies. Each partly hidden card's free edge lies a whole number of places past
    the whole card's. A pitch is scored as a comb: how much stronger the profile is at most of
    its places than half way between them (half the pitch puts every other place between edges).
    Any multiple of the pitch scores as well, so of the pitches scoring nearly the best
    (`EDGE_NEAR_BEST`) the best of the smallest span is taken. Only pitches a row can have
    (`MIN_SPACING` to 0.7 card widths) whose places are `EDGE_CONTRAST` times as strong as the
    half places; else None."""
    n = len(profile)
    tol = max(1, int(round(EDGE_SLACK * width)))  # hand-laid cards stray from their places
    pad = np.pad(np.asarray(profile, np.float64), tol, mode="edge")
    near = np.lib.stride_tricks.sliding_window_view(pad, 2 * tol + 1).max(axis=1)  # strongest edge near each pixel
    pitches = np.arange(MIN_SPACING * width, 0.7 * width, 0.5)
    teeth = np.floor(reach / pitches + 0.5)
    j = np.arange(1, int(teeth.max(initial=0)) + 1)
    if len(j) < 2:
        return None
    at = start + pitches[:, None] * j[None, :]
    use = (j[None, :] <= teeth[:, None]) & (np.round(at) < n)
    use[:, 0] = True  # every pitch has a first place (nan-free rows)

    def at_teeth(pos: np.ndarray) -> np.ndarray:
        return np.where(use, near[np.clip(np.round(pos).astype(int), 0, n - 1)], np.nan)

    # Most places must fall on an edge (a low quantile, not the mean: half the pitch puts every
    # other place on one, and an index's ink can lie between them).
    edges = np.nanpercentile(at_teeth(at), 25, axis=1)
    gaps = np.nanmean(at_teeth(at - pitches[:, None] / 2), axis=1)
    score = np.where((use.sum(axis=1) >= 2) & (edges >= EDGE_CONTRAST * gaps), edges - gaps, 0.0)
    if score.max() <= 0:
        return None
    good = score >= EDGE_NEAR_BEST * score.max()
    first = int(np.flatnonzero(good)[0])
    end = first + int(np.argmin(good[first:])) if not good[first:].all() else len(good)
    return float(pitches[first + int(score[first:end].argmax())])  # the top of the first good span


ASSIGN_LINES = 8


def assign_colours(votes: list[dict[str, float]]) -> list[str | None]:
    """One colour for each line of rows, no colour for two lines (each colour lays one row):
    the assignment whose lines' votes for their colours weigh most (a line without a vote for
    any colour left gets None). A line named yellow by 2.0 of its votes and green by 1.4 is
    green when the only other line is yellow's by 1.4 alone: 2.8 against 2.0."""
    colours = sorted({k for v in votes for k, w in v.items() if w > 0})
    # Each colour to one line or none (-1): (lines + 1) ** colours choices, four colours at
    # most; of a table of many rows (fanned hands), the ASSIGN_LINES that weigh most.
    ranked = sorted(range(len(votes)), key=lambda j: -sum(votes[j].values()))[:ASSIGN_LINES]
    best: tuple[float, tuple[int, ...]] = (0.0, ())
    for pick in itertools.product([-1, *ranked], repeat=len(colours)):
        lines = [j for j in pick if j >= 0]
        if len(set(lines)) < len(lines):
            continue
        total = sum(votes[j].get(c, 0.0) for c, j in zip(colours, pick, strict=True) if j >= 0)
        if total > best[0] + 1e-12:
            best = (total, pick)
    out: list[str | None] = [None] * len(votes)
    for c, j in zip(colours, best[1], strict=True):
        if j >= 0 and votes[j].get(c, 0.0) > 0:
            out[j] = c
    return out
