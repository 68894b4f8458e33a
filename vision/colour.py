"""Naming the suit colour of a card from its ink, with the card stock as white reference.

The camera's white balance and the lamp change every colour on the table, but they change the
card stock too. So: find the stock (bright, nearly neutral pixels of the card itself), divide
every pixel by it (stock-white normalisation, a per-card grey world), convert to CIELAB and
look at the hue of the most saturated pixels, the darker ones weighing more: they are the ink
of the numeral, index, frame or background print, not a pale tint or illustration. Hue
angles (a*, b*) are split into four sectors whose borders sit in the gaps between the suits'
inks (orange-printed "yellow" included), far from where yellow meets green or blue meets green.
Only the part of the card that is in view is used (a neighbour lying over a corner would lend
it its colour).

When a card shows too little stock (a strip of a printed band, a card covered in pale
illustrations), the table's white is used instead: the colour of the light is the same for
every card, only its brightness varies. A deck profile may bring the measured ink of each
colour of its printing; then the nearest measured ink wins.

Gray (the grey jokers of 11!) is ink that is clearly darker than the stock but has no chroma.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

SUITS = ("yellow", "red", "blue", "green")
# Sector borders in CIELAB hue degrees (a* = 0°, b* = 90°), placed in the gaps between the inks
# measured on rendered train-pool decks: red 5–45°, orange-yellow 55–70°, yellow 70–105°,
# green 115–165°, blue 235–300°.
BORDERS = (("red", 340.0, 48.0), ("yellow", 48.0, 111.0), ("green", 111.0, 200.0), ("blue", 200.0, 340.0))
MIN_CHROMA = 6.0  # Lab chroma below which a card shows no colour at all
# The ink: pixels at least this share of the card's top chroma. Each weighs its chroma squared
# times its darkness against the stock ((100 - L*) / 50, from DARK_MIN to 2): a numeral's ink
# is darker than the pale tints and illustrations some decks print round it (a blue "kids" card
# with yellow blobs of higher chroma than its teal numeral read yellow; the lower share lets in
# such a numeral's ink, under half the blobs' chroma at 0.6).
INK_SHARE = 0.45
DARK_MIN = 0.2


@dataclass(frozen=True)
class ColourReading:
    name: str | None
    confidence: float
    hue: float  # weighted mean hue of the ink (degrees), NaN when achromatic
    chroma: float
    white: tuple[float, float, float]  # the stock colour used (BGR 0..255)
    ink: tuple[float, float] = (0.0, 0.0)  # (a*, b*) of the ink: chroma-weighted mean of its pixels


def card_white(pix: np.ndarray) -> tuple[np.ndarray, float]:
    """Stock colour (BGR float) from a card's N×3 pixels, and how much stock backs it (0..1).

    The stock is the largest bright, least saturated part of the card; "least" is relative to
    the card itself, so a cream stock or a lamp's cast still qualifies, while a strip that
    shows only a printed band gives a low share (then the table's light is better)."""
    return card_whites([pix])[0]


def card_whites(pixs: list[np.ndarray]) -> list[tuple[np.ndarray, float]]:
    """`card_white` of each card: the per-pixel arithmetic of all of them in one pass (a read
    names the colour of 20 to 60 cards; per card, numpy's call overhead cost more than the
    arithmetic), the order statistics card by card."""
    p, spans = _stacked(pixs)
    mx, mn = _channel_max(p), _channel_min(p)
    sat = (mx - mn) / np.maximum(mx, 1.0)
    lum = p @ np.array([0.114, 0.587, 0.299], np.float32)
    out = []
    for sp in spans:
        sat_k = sat[sp]
        bright = lum[sp] >= _percentile(lum[sp], 50)
        s_lo = float(_percentile(sat_k[bright], 10))
        cand = bright & (sat_k <= s_lo + 0.08)
        white = _median_bgr(p[sp][cand])
        share = float(cand.mean()) if s_lo < 0.3 else 0.0
        out.append((np.maximum(white, 1.0), float(min(1.0, share / 0.15))))
    return out


def _median_bgr(p: np.ndarray) -> np.ndarray:
    """`np.median(p, axis=0)` of N×3 float32 pixels (the same value to the bit), a few times
    faster: each channel partitioned in a row of its own."""
    t = np.ascontiguousarray(p.T)
    k = t.shape[1] // 2
    if t.shape[1] % 2:
        return np.partition(t, k, axis=1)[:, k]
    s = np.partition(t, (k - 1, k), axis=1)
    return (s[:, k - 1] + s[:, k]) / 2


def _stacked(pixs: list[np.ndarray]) -> tuple[np.ndarray, list[slice]]:
    """Cards' N×3 pixels one after another (float32), and each card's span in them."""
    parts = [np.asarray(x, np.float32).reshape(-1, 3) for x in pixs]
    ends = np.cumsum([len(x) for x in parts]).tolist()
    spans = [slice(a, b) for a, b in zip([0, *ends][:-1], ends, strict=True)]
    return (np.concatenate(parts) if parts else np.zeros((0, 3), np.float32)), spans


def _percentile(x: np.ndarray, q: float):
    """`np.percentile(x, q)` (linear, the same value to the bit), a few times faster on the
    small arrays of one card: one partition, none of the general machinery."""
    x = np.asarray(x).ravel()
    idx = q / 100.0 * (x.size - 1)
    lo = int(math.floor(idx))
    hi = min(lo + 1, x.size - 1)
    t = idx - lo
    part = np.partition(x, (lo, hi) if hi != lo else lo)
    a, b = part[lo], part[hi]
    d = b - a
    return b - d * (1 - t) if t >= 0.5 else a + d * t  # numpy's lerp, stable at both ends


def _channel_max(p: np.ndarray) -> np.ndarray:
    """`p.max(axis=1)` of N×3 pixels (a reduction along a short axis is slow in numpy)."""
    return np.maximum(np.maximum(p[:, 0], p[:, 1]), p[:, 2])


def _channel_min(p: np.ndarray) -> np.ndarray:
    return np.minimum(np.minimum(p[:, 0], p[:, 1]), p[:, 2])


def table_white(whites: list[tuple[np.ndarray, float]]) -> np.ndarray | None:
    """Colour of the light (unit-brightness BGR) from the cards that show enough stock."""
    good = [w / w.max() for w, s in whites if s >= 0.99]
    if len(good) < 2:
        return None
    return np.median(np.stack(good), axis=0)


def sector(hue: np.ndarray | float) -> np.ndarray:
    """Suit index (into SUITS) of each hue angle."""
    h = np.asarray(hue, np.float64) % 360.0
    out = np.zeros(h.shape, np.int64)
    for name, a, b in BORDERS:
        m = ((h >= a) & (h < b)) if a < b else ((h >= a) | (h < b))
        out[m] = SUITS.index(name)
    return out


def _border_margin(hue: float) -> float:
    edges = [a for _n, a, _b in BORDERS]
    return min(min(abs(hue - e), 360 - abs(hue - e)) for e in edges)


@dataclass(frozen=True)
class Ink:
    """What a card's visible face shows of its ink against one white: measured once, then named
    against the hue sectors or against a table's or profile's inks (`name_ink`)."""

    white: np.ndarray  # the stock colour used (BGR float32)
    L: np.ndarray  # CIELAB of every pixel
    a: np.ndarray
    b: np.ndarray
    top: float  # the card's top chroma (97th percentile)
    sel: np.ndarray  # the ink: pixels of at least INK_SHARE of the top chroma
    weights: np.ndarray  # of the ink pixels: chroma squared × darkness (× caller's weights)
    hue: np.ndarray  # of the ink pixels, degrees


def measure_ink(pix: np.ndarray, white: np.ndarray | None = None, light: np.ndarray | None = None,
                weights: np.ndarray | None = None, stock: tuple[np.ndarray, float] | None = None) -> Ink | None:
    """The ink of a card's N×3 BGR face pixels (arguments as `read_colour`); None under 6 pixels."""
    return measure_inks([pix], light, [white], [weights], [stock])[0]


def measure_inks(pixs: list[np.ndarray], light: np.ndarray | None = None,
                 whites: list[np.ndarray | None] | None = None, weights: list[np.ndarray | None] | None = None,
                 stocks: list[tuple[np.ndarray, float] | None] | None = None) -> list[Ink | None]:
    """`measure_ink` of each card (`whites`, `weights`, `stocks`: per card, None for none), the
    per-pixel arithmetic of all of them in one pass."""
    n = len(pixs)
    whites, weights, stocks = whites or [None] * n, weights or [None] * n, stocks or [None] * n
    pixs = [np.asarray(x).reshape(-1, 3) for x in pixs]
    todo = [k for k in range(n) if len(pixs[k]) >= 6]
    out: list[Ink | None] = [None] * n
    if not todo:
        return out
    found = iter(card_whites([pixs[k] for k in todo if whites[k] is None and stocks[k] is None]))
    ws = []
    for k in todo:
        white = whites[k]
        if white is None:
            white, share = stocks[k] if stocks[k] is not None else next(found)
            if share < 0.99 and light is not None:
                # Little stock in view: the light's colour at this card's brightness.
                level = float(_percentile(_channel_max(np.asarray(pixs[k], np.float32)), 95))
                white = np.asarray(light, np.float32) * max(level, 1.0) / float(np.max(light))
        ws.append(np.asarray(white, np.float32))
    p, spans = _stacked([pixs[k] for k in todo])
    counts = [sp.stop - sp.start for sp in spans]
    # Not clipped at 1: ink brighter than the stock in one channel (yellow on cream) keeps its hue.
    x = np.clip(p / np.repeat(np.stack(ws), counts, axis=0), 0, 2)
    # One row of all pixels: OpenCV converts a row at a time, and N rows of one pixel cost 5 times more.
    lab = cv2.cvtColor(x.reshape(1, -1, 3), cv2.COLOR_BGR2Lab).reshape(-1, 3)
    L, a, b = lab[:, 0], lab[:, 1], lab[:, 2]
    c = np.hypot(a, b)
    tops = [float(_percentile(c[sp], 97)) for sp in spans]
    # The ink: the most saturated pixels of the card; pale tints and illustrations weigh less.
    # (Each card's bar in float32, as a Python float compared with float32 chroma is.)
    bar = np.repeat(np.array([max(MIN_CHROMA * 0.5, INK_SHARE * t) for t in tops], np.float32), counts)
    sel = c >= bar
    wpix = np.concatenate([np.ones(m, np.float32) if weights[k] is None else
                           np.asarray(weights[k], np.float32).reshape(-1) for k, m in zip(todo, counts, strict=True)])
    wsel = c[sel] ** 2 * wpix[sel] * np.clip((100.0 - L[sel]) / 50.0, DARK_MIN, 2.0)
    hue = (np.degrees(np.arctan2(b[sel], a[sel])) + 360.0) % 360.0
    ends = np.cumsum(sel)[[sp.stop - 1 for sp in spans]].tolist()  # ink pixels up to each card's end
    for k, sp, w, top, i, j in zip(todo, spans, ws, tops, [0, *ends][:-1], ends, strict=True):
        out[k] = Ink(w, L[sp], a[sp], b[sp], top, sel[sp], wsel[i:j], hue[i:j])
    return out


_NO_INK = ColourReading(None, 0.0, float("nan"), 0.0, (0.0, 0.0, 0.0))  # too few pixels to measure


def name_ink(ink: Ink | None, allowed: tuple[str, ...] = SUITS,
             inks: dict[str, tuple[float, float]] | None = None) -> ColourReading:
    """The suit colour of a measured ink: by hue sectors, or the nearest of `inks` (measured
    (a*, b*) of each colour of this deck or table) when given."""
    return name_inks([ink], allowed, inks)[0]


def name_inks(measured: list[Ink | None], allowed: tuple[str, ...] = SUITS,
              inks: dict[str, tuple[float, float]] | None = None) -> list[ColourReading]:
    """`name_ink` of each card, the per-pixel arithmetic of all of them in one pass."""
    chromatic = [n for n in allowed if n in SUITS]
    out = [_NO_INK] * len(measured)
    todo = []
    for k, ink in enumerate(measured):
        if ink is None:
            continue
        wtuple = (float(ink.white[0]), float(ink.white[1]), float(ink.white[2]))
        if "gray" in allowed and (ink.top < 2.5 * MIN_CHROMA or not chromatic):
            dark = ink.L < _percentile(ink.L, 95) - 25
            out[k] = ColourReading("gray", 0.9 if dark.mean() > 0.02 else 0.5, float("nan"), ink.top, wtuple)
        elif not chromatic:
            out[k] = ColourReading(None, 0.0, float("nan"), ink.top, wtuple)
        else:
            todo.append((k, ink, wtuple))
    if not todo:
        return out
    counts = [len(ink.hue) for _k, ink, _w in todo]
    ends = np.cumsum(counts).tolist()
    spans = [slice(i, j) for i, j in zip([0, *ends][:-1], ends, strict=True)]
    weights = np.concatenate([ink.weights for _k, ink, _w in todo])
    hue = np.concatenate([ink.hue for _k, ink, _w in todo])
    a = np.concatenate([ink.a[ink.sel] for _k, ink, _w in todo])
    b = np.concatenate([ink.b[ink.sel] for _k, ink, _w in todo])
    refs = {n: v for n, v in (inks or {}).items() if n in chromatic}
    by_sector = np.zeros((len(todo), len(SUITS)))
    if not inks or len(refs) < len(chromatic):  # the hue sectors have a say
        card = np.repeat(np.arange(len(todo)), counts)
        by_sector = np.bincount(card * len(SUITS) + sector(hue), weights=weights,
                                minlength=len(todo) * len(SUITS)).reshape(-1, len(SUITS))
    if inks:
        ref = np.asarray(list(refs.values()), np.float64).reshape(-1, 2)
        # Each ink pixel counts for the measured inks near it (a Gaussian of 25 a*b* units).
        near = np.exp(-((a[:, None] - ref[None, :, 0]) ** 2 + (b[:, None] - ref[None, :, 1]) ** 2) / 625.0)
    r = np.radians(hue)
    # The weighted sums of each card in one call: a row's sum over a span is that span's own sum
    # (the same pairwise summation), and five calls per card cost more than the arithmetic.
    weighted = np.stack([np.sin(r) * weights, np.cos(r) * weights, weights, a * weights, b * weights])
    for (k, ink, wtuple), sp, sectors in zip(todo, spans, by_sector, strict=True):
        w = weights[sp]
        if inks:
            scores = dict(zip(refs, (w @ near[sp]).tolist(), strict=True))
            for n in chromatic:  # colours the profile did not see: fall back to the hue sectors for them
                if n not in refs:
                    scores[n] = 0.5 * float(sectors[SUITS.index(n)])
        else:
            scores = {n: float(sectors[SUITS.index(n)]) for n in chromatic}
        total = float(sum(scores.values())) or 1.0
        name = max(scores, key=lambda n: scores[n])
        share = scores[name] / total
        sin_sum, cos_sum, wsum, a_sum, b_sum = weighted[:, sp].sum(axis=1).tolist()
        mh = float((math.degrees(math.atan2(sin_sum, cos_sum)) + 360) % 360)  # mean hue
        conf = share * (1.0 - math.exp(-_border_margin(mh) / 6.0)) if not inks else share
        conf *= min(1.0, ink.top / (2 * MIN_CHROMA))
        wsum = wsum or 1.0
        mean_ink = (a_sum / wsum, b_sum / wsum)
        out[k] = ColourReading(name, float(conf), mh, ink.top, wtuple, mean_ink)
    return out


def read_colour(pix: np.ndarray, allowed: tuple[str, ...] = SUITS, inks: dict[str, tuple[float, float]] | None = None,
                white: np.ndarray | None = None, light: np.ndarray | None = None,
                weights: np.ndarray | None = None, stock: tuple[np.ndarray, float] | None = None) -> ColourReading:
    """Suit colour of a card from the N×3 BGR pixels of its visible face (no table).

    `white`: the stock colour to normalise by (default: found on the card itself, or from
    `light`, the table's light colour, when the card shows too little stock).
    `inks`: optional measured (a*, b*) of each colour of this deck (from a profile).
    `weights`: optional per-pixel weights (where the numeral and indices are printed).
    `stock`: `card_white(pix)` when the caller has measured it already."""
    return name_ink(measure_ink(pix, white, light, weights, stock), allowed, inks)


TABLE_CARDS = 6  # coloured cards needed before a table's own inks are trusted
SUIT_CARDS = 2  # cards of a colour needed to place its ink
INK_SPREAD = 10.0  # largest median distance (a*, b*) of a colour's cards from their median ink


# Typical ink hue of each suit (degrees); going round the hue circle the suits always come in
# this order, whatever the printing and the lamp.
SUIT_HUES = {"red": 35.0, "yellow": 85.0, "green": 140.0, "blue": 265.0}
HUE_ORDER_SEPARATION = 1.5  # centres apart by this many times the two clusters' radii (and 12 a*b*)
HUE_ORDER_FAR = 100.0  # largest distance (degrees) of a cluster from its suit's typical hue
HUE_ORDER_GAP = 25.0  # least hue between clusters: two suits differ in hue, one ink in chroma


def _kmeans(pts: np.ndarray, k: int, rounds: int = 20) -> np.ndarray:
    """Cluster labels of 2-D points; deterministic (farthest-point start from the most chromatic)."""
    centres = [pts[int(np.argmax(np.linalg.norm(pts, axis=1)))]]
    while len(centres) < k:
        d = np.min(np.linalg.norm(pts[:, None] - np.array(centres)[None], axis=2), axis=1)
        centres.append(pts[int(np.argmax(d))])
    c = np.array(centres)
    labels = np.zeros(len(pts), np.int64)
    for _ in range(rounds):
        labels = np.argmin(np.linalg.norm(pts[:, None] - c[None], axis=2), axis=1)
        new = np.array([pts[labels == j].mean(axis=0) if (labels == j).any() else c[j] for j in range(k)])
        if np.allclose(new, c):
            break
        c = new
    return labels


def _inked(readings: list[ColourReading]) -> list[ColourReading]:
    """The readings that say something about the table's inks: named a suit, clearly coloured."""
    return [r for r in readings if r.name in SUITS and r.chroma >= 2 * MIN_CHROMA]


def hue_order_inks(readings: list[ColourReading], suits: tuple[str, ...] = SUITS) -> dict[str, tuple[float, float]]:
    """The inks of a table that shows every suit as its own cluster of (a*, b*), named by their
    order round the hue circle. A printing's blue may be so pale and cyan under a lamp that its
    hue falls in the green sector (hue 170°, chroma 15, while the green sits at 116°, chroma 42):
    by the sectors both are green, but they are two clusters, and the one further round is the
    blue. Taken only when the clusters are clearly apart, in hue as well (a table without one of
    the suits may show another at two strengths), each has two cards or more, each is
    within HUE_ORDER_FAR of its suit's typical hue, and at most one cluster is renamed from what
    the sectors called most of its cards, never from blue to green. Else empty (the sectors
    stand)."""
    named = _inked(readings)
    k = len(suits)
    if len(named) < TABLE_CARDS or k < 2:
        return {}
    pts = np.array([r.ink for r in named], np.float64)
    labels = _kmeans(pts, k)
    centres, radii, sector_names = [], [], []
    for j in range(k):
        member = pts[labels == j]
        if len(member) < SUIT_CARDS:
            return {}
        m = np.median(member, axis=0)
        centres.append(m)
        # Not the farthest member: one card misread (a yellow partly hidden under a neighbour)
        # would make its cluster look too wide to be told from the next one.
        radii.append(float(np.percentile(np.linalg.norm(member - m, axis=1), 80)))
        names = [named[i].name for i in np.nonzero(labels == j)[0]]
        sector_names.append(max(sorted(set(names)), key=names.count))  # sorted: ties break alike every run
    for i in range(k):
        for j in range(i + 1, k):
            gap = float(np.linalg.norm(centres[i] - centres[j]))
            if gap < max(12.0, HUE_ORDER_SEPARATION * (radii[i] + radii[j])):
                return {}
    hues = [math.degrees(math.atan2(c[1], c[0])) % 360.0 for c in centres]
    order = sorted(range(k), key=lambda j: hues[j])
    steps = [(hues[order[(i + 1) % k]] - hues[order[i]]) % 360.0 for i in range(k)]
    if min(steps) < HUE_ORDER_GAP:  # one ink seen at two strengths (a suit missing from the table)
        return {}
    ref = sorted(suits, key=lambda n: SUIT_HUES[n])
    best: tuple[float, list[str]] | None = None
    for turn in range(k):  # the cluster of lowest hue may be any suit: try each rotation
        names = [ref[(i + turn) % k] for i in range(k)]
        far = [abs((hues[j] - SUIT_HUES[n] + 180.0) % 360.0 - 180.0) for j, n in zip(order, names, strict=True)]
        if max(far) <= HUE_ORDER_FAR and (best is None or sum(far) < best[0]):
            best = (sum(far), names)
    if best is None:
        return {}
    out = {n: (float(centres[j][0]), float(centres[j][1])) for j, n in zip(order, best[1], strict=True)}
    renamed = [(sector_names[j], n) for j, n in zip(order, best[1], strict=True) if sector_names[j] != n]
    # A pale blue drifts toward cyan, into the green sector; no green ink lies past it (train
    # pool: greens up to 163°). Two clusters in the blue sector are one blue at two strengths
    # on a table without green (held out: a row at 225°, two loose cards at 252°).
    if ("blue", "green") in renamed:
        return {}
    return out if len(renamed) <= 1 else {}


def table_inks(readings: list[ColourReading]) -> dict[str, tuple[float, float]]:
    """The inks of the deck on this table, from a first reading of its cards by hue sectors:
    the median (a*, b*) of each colour's cards. One printing's green may sit near the sector
    border with yellow while its yellow sits well inside: named again by the nearest of the
    table's own inks, a card of either is told apart by chroma as well as hue. Empty when the
    table shows too few cards to say (the sectors stand)."""
    named = [(r.name, np.asarray(r.ink)) for r in _inked(readings)]
    if len(named) < TABLE_CARDS:
        return {}
    out = {}
    for suit in SUITS:
        ab = [v for n, v in named if n == suit]
        if len(ab) >= SUIT_CARDS:
            pts = np.stack(ab)
            m = np.median(pts, axis=0)
            # A colour whose cards scatter is two inks under one name (a first reading gone
            # wrong under a strong lamp): no reference rather than a false one.
            if float(np.median(np.linalg.norm(pts - m, axis=1))) <= INK_SPREAD:
                out[suit] = (float(m[0]), float(m[1]))
    return out if len(out) >= 2 else {}
