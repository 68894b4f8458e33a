"""The card recogniser: photo -> `Observation` (what `companion recognize` prints).

    rec = Recognizer("elfer-raus")
    obs = rec.read(image)                       # the whole table
    obs = rec.read(image, regions=[(x0, y0, x1, y1)])  # only where the stabiliser saw a change

Steps: `detect` finds card outlines and what part of each is in view; the classifier reads the
whole card (when its middle shows) and each visible corner index; the readings of one card are
combined (an index saying "no index here" is no evidence against the whole card), restricted to
the game's deck, and turned the right way up by a vote of the card's neighbours (a row lies
one way: an unmarked 6 next to a 7 is a 6); colour comes from the ink against the card stock.
In the games whose rows are one colour's consecutive numbers, a card's row says what it likely
is, and the places inside a row where the detector found no card are read (`vision.rows`);
an overlapping row's partly hidden cards are read again on places laid from its whole card
(at the spacing their readings or their strips' edges give) when the detector's outlines of
their strips read out of place; a loose heap (cards lying every way) has no rows, and is read
again on the picture turned 45 degrees (and 22.5, while a card is unsure).

Other readers (11! tiles, Numeri tokens and die) plug in through `register_reader(game, fn)`:
`fn(context) -> dict` with any of "cards", "tokens", "dice" (lists of readings) and
"replace_cards" (bool: drop the card reader's cards for this game). The context gives the
image, its pyramid, the classifier, the card detections (computed on first use) and timings.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import cv2
import numpy as np

from .classify import (
    CARD_CLASSES,
    CARD_REGION,
    CORNER_REGION,
    INDEX_REGION,
    NUMERAL_REGION,
    Classifier,
    Pyramid,
    regions_box,
    rotate_quad,
    warp_crops,
)
from .colour import SUITS, card_whites, hue_order_inks, measure_inks, name_inks, table_inks, table_white
from .detect import (
    ALL_INDEX_BOXES,
    INDEX_BOXES,
    INDEX_GRID,
    Detection,
    Detector,
    cut_by_border,
    decode_index_points,
    decode_indices,
)
from .errors import RecognitionError
from .profile import CORNER, INDEX, NUMERAL, WHOLE
from .rows import (
    CUT_SHARE,
    Outline,
    Row,
    assign_colours,
    edge_pitch,
    empty_places,
    find_rows,
    lattice_pitches,
    one_line,
    row_evidence,
    with_cut_index,
)
from .turn import TURN_MIN, detect_turned, table_turn
from .types import CardReading, DieReading, Observation, TokenReading, quad_of

log = logging.getLogger(__name__)

GAMES = ("start11", "elevens", "elfer-raus-junior", "elfer-raus", "11-nimmt", "numeri")
COLOUR_CROP = (40, 60)  # card warped to this size (width, height) to name its colour
_NONE, _BACK = CARD_CLASSES.index("none"), CARD_CLASSES.index("back")  # "no card here", a card's back
# Crop kinds: where each is cut from a card, and its kind for a deck profile's prototypes.
_REGIONS = {"card": CARD_REGION, "index": INDEX_REGION, "numeral": NUMERAL_REGION, "corner": CORNER_REGION}
_KIND_IDS = {"card": WHOLE, "index": INDEX, "numeral": NUMERAL, "corner": CORNER}
_INDEX_KINDS = ("index", "corner")  # crops of a corner index: they name the card, not its orientation
# A "corner" crop (`CORNER_REGION`) at each turn of the frame, and the outline's corner it reads.
_CORNER_AT = {0: 1, 2: 3}
_LINK = CARD_CLASSES.index("link")  # the card with no corner index
_JOKER = CARD_CLASSES.index("joker")


# Shifts (card widths across, card heights along) of a hidden card's outline tried when its
# index reads as no card there or as an unsure one; how sure the index at the best of them must
# be of a card; below what sureness of its reading a card is searched (train pool, 200 scenes:
# 92.6 % exact with the search for no-card outlines only, 93.3 % searching below 0.45 or 0.6,
# 92.6 % below 0.9; moves of 0.1 along as well 93.8 %, of 0.3 across 92.4 %: a neighbour's index).
OUTLINE_SHIFTS = tuple((du, dv) for du in (-0.1, 0.0, 0.1) for dv in (-0.1, -0.05, 0.0, 0.05, 0.1)
                       if (du, dv) != (0.0, 0.0)) + ((-0.2, 0.0), (0.2, 0.0))
OUTLINE_FOUND = 0.7
# How far (card widths) round the regions read again crops may reach: a card centred in a region
# reaches 0.9 of a width from its centre (turned 40° by the outline search), its moves 0.2 more,
# and the last pixels of a window's reduced levels sample its border (16 pixels).
REGION_CROP_PAD = 1.5
SEARCH_SURE = 0.5
UNINDEXED_SURE = 0.9  # how sure a hidden card's whole crop must read as a link card (`_unindexed`),
UNINDEXED_APART = 0.5  # and how far (card widths) from any card read already
INK_SURE = 0.5  # least sureness of a card whose ink helps name the table's inks (`_colours`)
# An outline the detector itself is unsure of (mean face probability of its pixels) is a card only
# when its crops read surely: on a cloth unlike any it learnt (checks the size of a card's
# numerals) the detector outlines dozens of cloth patches at 0.5-0.8, and some read as cards 0.5-0.8
# sure. Cards read right: 1 % of them under 0.88 (train 7000 / 8000), the indices' finder aside.
WEAK_FACE = 0.7
WEAK_FACE_SURE = 0.9
# A region re-read also reads, at its outline of the last picture, each card read there before
# that lies within this much of its width of a card found now, and keeps the surer reading: the
# detector, seeing only a window round the region, now and then outlines crosswise a card it
# outlined right on the whole picture. Train pool, 4 cards of each of 200 tables re-read one at
# a time (`vision_accuracy.py --regions 4`): 94.06 -> 95.78 % exact (seed 7000; 95.38 % in
# the full read) and 91.62 -> 92.16 % (seed 7500; 93.92 %; 92.43 % without `PRIOR_UNSURE`).
PRIOR_NEAR = 0.25
# A card the new outline reads this surely is the card there: one thrown crosswise onto another
# at round end is not to give way to the one below, whose corners the earlier outline still shows.
PRIOR_UNSURE = 0.9
PRIOR_TURN = 20.0  # degrees, and
PRIOR_SIZE = math.log(1.15)  # log width ratio: outlines differing less are alike (a card put down
# on a pile a little off the one below is the new card, not the old one's outline gone astray)
SEARCH_CORNER = 0.2  # share of a corner index in view for it to be read at the shifted outlines
# Turns (degrees) of an outline about its centre tried when the card reads as no card or as an
# unsure one: on a loose heap the detector's direction of a card lying every way is often 10-40°
# off, and then neither the whole card nor its index crop shows the card (train pool, 200
# scenes: 94.5 -> 95.6 % exact, a second seed 90.5 -> 91.4 %; held out, loose heaps 68 -> 71 %).
OUTLINE_TURNS = (-40.0, -30.0, -20.0, -12.0, -6.0, 6.0, 12.0, 20.0, 30.0, 40.0)
SHIFT_MOVES = tuple((du, dv, 0.0) for du, dv in OUTLINE_SHIFTS)
TURN_MOVES = tuple((0.0, 0.0, a) for a in OUTLINE_TURNS)
# How sure the whole-card crop of one outline must read as a card of the deck to vouch for a
# first pass that sees no card whole (at "any card at all" >= 0.9, a pass seeing cards twice
# their size was vouched for by crops holding two real cards; train pool 91.79 -> 92.09 %).
MIDDLE_IS_CARD = 0.9
# Share of its middle an outline must show for its crop to vouch so (under `centre_visible`: a heap
# at the border may show no card's middle more whole; train elevens 8000 #113 showed 0.78 at
# most, no pass vouched, and the bands round its indices were taken for the cards: none read).
VOUCH_CENTRE = 0.7
WIDTH_HOLDS = 1.25  # a remembered card width is kept while cards measure within this factor of it
# Share of the picture changed regions must cover for all to be measured anew: the stabiliser
# reported 62 % for a camera lowered from 64 to 246 px cards (a plain cloth shows no change).
WHOLE_VIEW_CHANGED = 0.5
# Two neighbours of a row whose numbers jump (a 9 beside a 12) have cards between them that the
# detector did not split: in a tight row two narrow strips can make one outline. The stretch
# between them is read at index crops every BETWEEN_STEP card widths, not nearer than
# BETWEEN_NEAR to either (their own index); a reading this sure (BETWEEN_SURE) is taken. Train
# pool (seeds 7000 / 7500): 97.01 / 94.65 -> 97.07 / 94.89 % exact, precision and swaps the same;
# at 0.9 sure two of the cards found were lost (a crop a pixel off reads much less sure), at 0.6
# a junior row's 10 was taken for the 9 it lacked. 0.8 -> 0.7 (stop 38, since the search also runs
# in rows with one partly hidden card): train 7500 +1 card (an 8 read 0.75 sure between its 7
# and 9, #197), the other seeds the same; held out 3000 / 3100 +3 / +5 cards, precision the same.
BETWEEN_STEP = 0.04
BETWEEN_NEAR = 0.08
BETWEEN_SURE = 0.7
BETWEEN_MOST = 8  # missed cards in a row looked for between two neighbours
LATTICE_SHIFTS = (-0.15, 0.0, 0.15)  # places: where each place of a row's lattice is read (`_row_lattice`)
# An outline past a row's lattice kept when it reads this surely (`_beyond_lattice`). Train pool:
# 8000 +2 cards (0.9 alike), 7000 / 7500 / 8500 the same; held out 3100 +1 card.
BEYOND_SURE = 0.8
LATTICE_GAIN = 1.0  # readings agreeing with their places the lattice must add to replace a row's outlines
# A loose heap (cards lying every way: the mean of their directions ×4 shorter than HEAP_AGREE,
# HEAP_CARDS cards at least) is read again with the picture turned 45° (and 22.5°), and each
# card kept at the surest of its readings. The detector learnt cards lying along the picture's
# sides: on 20 train-pool heaps (seed 7000) it read 46 % of the cards lying 30-45° off square,
# 73-79 % on the turned picture. Merged, the train pool's heaps (seeds 7000 / 7500, 40 each)
# read 85.3 / 82.1 % against 76.9 / 76.6 %. Rows and piles lie one way (train pool: the mean's
# length at least 0.73, heaps mostly under 0.5). Only the cards' box (and a card round it) is
# turned and searched: rows and piles pay nothing; 24 held-out heap photos take 79.8 ms median
# with both turned passes, 62.9 with the 45° one alone (`vision_speed_ab.py --game heaps`).
HEAP_AGREE = 0.7
HEAP_CARDS = 3
HEAP_SAME = 0.3  # card widths between the centres of two readings of one card
HEAP_AGAIN_SURE = 0.95  # a heap's region whose cards all read this sure is not read again (nor turned 22.5°)
HEAP_REGION_PAD = 0.5  # card widths round a region's cards searched again on the turned picture
HEAP_NEW = 0.6  # confidence a card found by the 45° pass alone needs (train pool: 0.6 to 0.8
# read the same cards as 0, one false card fewer)
# The turned passes: the picture turned this much more, and the confidence a card found by that
# pass alone needs (`merge_passes`). The pass at 22.5° puts cards lying 11-34° off square within
# 11° of it; it finds cards the other two miss, but more false ones, so its new cards must be
# surer. Train pool heaps (seeds 7000 / 7500 / 8000 / 8500, 1 345 cards): 88.25 -> 88.92 %
# exact, false cards 53 -> 50, 68 -> 70 tables of 170 exact (0.6 sure: 89.00 %, 62 false; 0.8:
# 56 false; at 67.5°: 89.07 %, 59; read only while a card reads under HEAP_AGAIN_SURE, as here,
# 2 false cards fewer than always; under 0.8, 88.77 %).
HEAP_PASSES = ((45.0, HEAP_NEW), (22.5, 0.9))
# Last, a heap's cards are looked for by their corner indices (`RecognizerConfig.index_finder`,
# `detect.decode_indices`): most cards a heap loses were outlined by no pass and show about a
# third of their face (`benchmarks/heap_misses.py`). A card read there this sure, away from the
# cards read and not one of them, is added; it replaces none (letting it replace a card read less
# surely lost cards: train heaps 7000 / 8000 90.88 / 87.96 -> 90.18 / 87.50 %; at 0.5 a false
# card more). Train heaps 7000 / 7500 / 8000 / 8500 90.88 / 89.93 / 87.96 / 88.79 -> 91.23 /
# 90.60 / 88.66 / 89.39 %, mixed 7000 85.81 -> 86.47 %; held out 87.23 / 77.81 -> 87.59 / 78.75 %.
INDEX_NEW = 0.7
# A card the finder found by the one corner index it shows is "a card already read" when that
# index lies where a card read has one (card widths), not when its centre lies near one: in a
# heap half the cards missed lie within 0.3 widths of a card read, almost squarely under it.
INDEX_OWN = 0.15
INDEX_TAKEN = 0.03  # card sides round a read card's index boxes whose pixels are its index's
INDEX_REST_PIXELS = 30  # face pixels (finder's grid) a card found by the votes left must have
INDEX_UNDER = 0.9  # how sure such a card must read when its centre lies within HEAP_SAME of a card read
# Off a loose heap (stacks of count cards lying one way, overlapping rows) the finder runs too; a
# number card it finds is added only this sure (0.9: train 7000 / 8000 +3 / +6 cards, 2 / 4 false
# cards more; 0.97: +2 / +5, 0 / 3; any card 0.7 sure: +4 / +8, 10 / 11: jokers and bulls).
INDEX_ELSEWHERE = 0.97
# The finder's input pixels per run (larger pictures run in tiles, the same maps): it runs on
# whole tables now, and at the detector's 900 000 its largest run raised the peak memory of
# `companion recognize` from 180 to 211 MB, the networks sharing one arena (`vision/runtime.py`);
# 190 MB at 400 000 (`benchmarks/vision_speed.py`).
INDEX_MAX_INPUT = 400_000
DECK_ASPECT = 1.5  # height / width of a card while the table has shown none whole clear of the border
UNIQUE_DECKS = ("elfer-raus", "elfer-raus-junior", "elevens", "11-nimmt")  # each number card once (RULES.md)
# Rows of consecutive numbers 1..N, the numbers the game is played with (RULES.md: the junior game
# uses the deck's 1-11). The classifier still reads a junior card as any of the printing's 1-20: a
# misread strip reading 17 weighs as "no card of this row" (read as 1-11 only, train junior 99.43
# -> 99.21 %, seed 7000); such a card is reported as the played number it most likely is, as sure
# as that (`_reading`).
ROW_VALUES = {"elfer-raus": 20, "elfer-raus-junior": 11, "elevens": 21}


def is_heap(dets: list[Detection]) -> bool:
    """Whether the cards found lie every way, as in a loose heap (`HEAP_AGREE`)."""
    angles = [d.angle for d in dets if d.inside]
    return len(angles) >= HEAP_CARDS and abs(np.exp(4j * np.radians(angles)).mean()) < HEAP_AGREE


def merge_passes(first: list[CardReading], second: list[CardReading], unique: bool,
                 new: float = HEAP_NEW) -> list[CardReading]:
    """The readings of two passes over one table, each card once: two readings whose centres lie
    within HEAP_SAME of a card's width are one card, kept at the surer; a card found by the
    first pass only is kept, one found by the second only when read `new` sure. In a deck of
    one copy of each card, a card read twice (outlined apart by the two passes) is kept where it
    was read surer."""
    out = list(first)
    centres = np.array([np.mean(r.corners, axis=0) for r in first]).reshape(-1, 2)
    paired: set[int] = set()
    for r in second:
        q = np.asarray(r.corners, np.float64)
        d = np.linalg.norm(centres - q.mean(axis=0), axis=1)
        j = int(d.argmin()) if len(d) else -1
        if j >= 0 and j not in paired and d[j] < HEAP_SAME * float(np.linalg.norm(q[1] - q[0])):
            paired.add(j)
            if r.confidence > out[j].confidence:
                out[j] = r
        elif r.confidence >= new:
            out.append(r)
    if not unique:
        return out
    surest: dict[tuple, CardReading] = {}
    for r in out:
        key = (r.kind, r.value, r.color)
        if r.value is not None and (key not in surest or r.confidence > surest[key].confidence):
            surest[key] = r
    return [r for r in out if r.value is None or surest[(r.kind, r.value, r.color)] is r]


def deck_of(game: str | None) -> tuple[set[str], bool]:
    """Card classes a game's deck holds, and whether its cards carry a suit colour."""
    nums = {str(n) for n in range(1, 101)}
    if game == "elfer-raus" or game == "elfer-raus-junior":
        return {str(n) for n in range(1, 21)}, True
    if game == "elevens":
        return {str(n) for n in range(1, 22)} | {"joker", "link", "bonus"}, True
    if game == "11-nimmt":
        return nums | {"bull"}, False
    # Loose cards of any game (and board games, where cards are not expected).
    return nums | {"joker", "link", "bonus", "bull"}, True


@dataclass(frozen=True)
class RecognizerConfig:
    face_threshold: float = 0.5  # detector: face probability of a pixel
    min_confidence: float = 0.35  # cards read with less confidence are not reported
    min_card_prob: float = 0.5  # probability that a detection is a card face at all
    centre_visible: float = 0.8  # share of the middle that must show to read the whole card
    index_visible: float = 0.6  # share of a corner index box that must show to read it (the
    # classifier says "no index" for one too covered: 0.6 read 1 % more cards than 0.75, train and held-out)
    indices: str = "always"  # always|auto: read corner indices of fully visible cards always / when unsure
    auto_threshold: float = 0.97  # "auto": whole-card probability below which indices are read too
    neighbour_radius: float = 2.6  # card heights: neighbours voting on a card's orientation
    alternatives: int = 3  # top-k alternatives in the JSON (0: none)
    region_margin: float = 0.7  # card heights added round a changed region before re-reading it
    row_break: float = 0.2  # rows of consecutive numbers: chance that two neighbours are not (1: rows unused)
    cut_share: float = CUT_SHARE  # a strip's index reading one digit of two: weight of the two-digit numbers (0: off)
    classifier: str = "cards"
    detector: str = "cardnet"
    index_finder: str = "cardindex"  # cards found by their corner indices where cards lie over one another ("": none)
    # ... off a loose heap too (overlapping rows, stacks lying one way): train 7000 / 7500 / 8000 /
    # 8500 +3 / +5 / +8 / +5 cards of about 3 500, for 33 ms median per photo of vision_speed's 24
    # (`vision_speed_ab.py . . --set index_elsewhere=0`): a slow machine may do without
    index_elsewhere: bool = True
    # The central numeral read nearer too (a third crop of a card whose middle shows), where the
    # classifier was taught that crop (its sidecar names a "numeral" region)
    numerals: bool = True
    # The top-right corner read too where it shows (a design printing four indices prints one there,
    # and one at the bottom left), where the classifier was taught that crop ("corner" region)
    corners: bool = True

    def __post_init__(self) -> None:
        if self.indices not in ("always", "auto"):
            raise ValueError(f"indices: must be 'always' or 'auto', not {self.indices!r}")
        for name in ("face_threshold", "min_confidence", "min_card_prob", "centre_visible", "index_visible",
                     "row_break", "cut_share"):
            v = getattr(self, name)
            if not 0.0 <= v <= 1.0:
                raise ValueError(f"{name}: must be between 0 and 1, not {v!r}")


@dataclass(frozen=True)
class ReadCard(CardReading):
    """A card reading with optional extras for the JSON (top-k alternatives)."""

    alternatives: tuple[dict, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = super().to_json()
        if self.alternatives:
            out["alternatives"] = list(self.alternatives)
        return out


# ----------------------------------------------------------------------------------------
# Reader registry (hook for tiles, tokens and dice)

Reader = Callable[["ReadContext"], dict]
_READERS: dict[str, list[Reader]] = {}
_NO_CARDS: set[str] = set()  # games whose readers replace the card reader entirely
# Modules that register readers for a game when imported (loaded by the first Recognizer of it).
PLUGINS: dict[str, tuple[str, ...]] = {"start11": ("vision.board",), "numeri": ("vision.tokens", "vision.dice")}


def register_reader(game: str, fn: Reader, replaces_cards: bool = False) -> None:
    """Add a reader run for `game` after the card reader (e.g. 11! tiles, Numeri tokens and die).

    `replaces_cards`: the card reader is not run at all for this game (saves its time)."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
    _READERS.setdefault(game, []).append(fn)
    if replaces_cards:
        _NO_CARDS.add(game)


def readers_for(game: str) -> list[Reader]:
    return list(_READERS.get(game, []))


def _load_plugins(game: str | None) -> None:
    import importlib

    for name in PLUGINS.get(game or "", ()):
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:  # the plugin exists but something it needs does not
                raise


@dataclass
class ReadContext:
    image: np.ndarray
    pyramid: Pyramid
    game: str
    recognizer: Recognizer
    regions: tuple[tuple[int, int, int, int], ...] | None
    timings: dict[str, float] = field(default_factory=dict)
    _detections: list[Detection] | None = None
    # The light and the inks the cards' colours were named with (`Recognizer._colours`): cards
    # found later in the read are named against the same.
    inks: tuple[np.ndarray | None, Any] | None = None
    rows: list[tuple[Row, list[_Card]]] = field(default_factory=list)  # the game's rows of the cards read (`_rows`)
    heap: bool = False  # a loose heap's cards, read again in passes: no rows, however few lie in a line

    @property
    def classifier(self) -> Classifier:
        return self.recognizer.classifier

    @property
    def detections(self) -> list[Detection]:
        if self._detections is None:
            self._detections = self.recognizer.detect(self.image, self.regions)
        return self._detections


# ----------------------------------------------------------------------------------------
# The recogniser


def _share_covered(regions, w: int, h: int) -> float:
    """Share of a w×h picture the boxes (x0, y0, x1, y1) cover together (on an 8-pixel grid)."""
    grid = np.zeros(((h + 7) // 8, (w + 7) // 8), bool)
    for x0, y0, x1, y1 in regions:
        grid[max(0, y0) // 8:max(0, y1 + 7) // 8, max(0, x0) // 8:max(0, x1 + 7) // 8] = True
    return float(grid.mean())


def _centred_in(card: CardReading, regions) -> bool:
    return _inside_regions((sum(p[0] for p in card.corners) / 4, sum(p[1] for p in card.corners) / 4), regions)


def _inside_regions(centre: tuple[float, float], regions) -> bool:
    cx, cy = centre
    return any(x0 <= cx < x1 and y0 <= cy < y1 for x0, y0, x1, y1 in regions)


# How sure a strip's reading must be, its index taken as possibly cut, to replace the digit it
# shows. Train pool (7000, 7500, 8000, 200 tables each): strips of rows running 14-20 over a
# whole 14 read 0.88-0.99 so; the readings it must not take (a heap's yellow 1 read as a 19, an
# overlapping row misread already) 0.24-0.48.
CUT_SURE = 0.8


def _cut_index(joint: np.ndarray, numbers: list[int], share: float) -> np.ndarray:
    """A C×2 joint reading with its numbers' part as `rows.with_cut_index` has it, renormalised."""
    j = joint.copy()
    j[numbers] = with_cut_index(joint[numbers].T, share).T
    return j / j.sum()


def _per_class(joint: np.ndarray) -> np.ndarray:
    """`joint.sum(axis=1)` of an N×2 (class, orientation) array, the same values: a numpy
    reduction along an axis of two costs four times the addition, and reads take this hundreds
    of times."""
    return joint[:, 0] + joint[:, 1]


def _shifted(quad: np.ndarray, du: float, dv: float) -> np.ndarray:
    """An outline moved by du of its width across and dv of its height along."""
    q = np.asarray(quad, np.float64)
    return q + du * (q[1] - q[0]) + dv * (q[3] - q[0])


def _moved(quad: np.ndarray, move: tuple[float, float, float]) -> np.ndarray:
    """An outline turned move[2] degrees about its centre, then shifted move[0] of its width
    across and move[1] of its height along."""
    du, dv, deg = move
    return _shifted(_turned(quad, deg), du, dv) if deg else _shifted(quad, du, dv)


def _turned(quad: np.ndarray, deg: float) -> np.ndarray:
    """An outline turned by deg degrees (clockwise on the picture) about its centre."""
    q = np.asarray(quad, np.float64)
    c = q.mean(axis=0)
    return (q - c) @ _rotation(deg).T + c


def _cards_overlap(dets: list[Detection], centre_visible: float) -> bool:
    """Whether any card found lies partly hidden or over another (two centres nearer than a
    card's width): where none does, no card can hide under one."""
    if any(d.visible.get("centre", 0.0) < centre_visible for d in dets):
        return True
    if len(dets) < 2:
        return False
    c = np.array([d.centre for d in dets])
    dist = np.linalg.norm(c[None] - c[:, None], axis=2) + np.eye(len(dets)) * 1e9
    return bool((dist < np.array([d.size[0] for d in dets])[:, None]).any())


def _read_already(c: np.ndarray, at: tuple[float, float] | None, width: float, centres: list[np.ndarray],
                  indices: list[np.ndarray]) -> bool:
    """Whether a card the index finder found (centre `c`, its lone index at `at`) is one of the
    cards read (their `centres`, their corner `indices`): a card lying almost squarely under
    another shows an index where that one's is not (`INDEX_OWN`); where the index lies is not
    known, its centre near a card read's is (`HEAP_SAME`)."""
    if at is None:
        return any(np.linalg.norm(c - x) < HEAP_SAME * width for x in centres)
    return any(np.linalg.norm(np.subtract(at, x)) < INDEX_OWN * width for x in indices)


CUT_INDEX_NEAR = 0.35  # card widths between the centres of a card and an outline cutting its index


def _off_cut_indices(cards: list[CardReading], kept: Iterable[CardReading] = ()) -> list[CardReading]:
    """The readings less those of partly hidden cards that are a neighbour's index cut short:
    an outline a fifth of a card off the neighbour's crops its "14" to "4" (or "17" to "1"),
    read surely. A hidden card read as a number whose digits begin or end another number card's
    of its colour, whose centre lies within `CUT_INDEX_NEAR` of that card's width, is that card."""
    if not any(r.occluded and r.kind == "number" for r in cards):
        return cards  # most reads (and every board game's tiles): no card to check
    every = list(kept) + list(cards)
    numbers = [(r, np.mean(np.asarray(r.corners, np.float64), axis=0),
                float(np.linalg.norm(np.subtract(r.corners[1], r.corners[0])))) for r in every
               if r.kind == "number" and r.value is not None]
    out = []
    for r in cards:
        if r.occluded and r.kind == "number" and r.value is not None:
            c = np.mean(np.asarray(r.corners, np.float64), axis=0)
            v = str(r.value)
            if any(n is not r and n.color == r.color and len(str(n.value)) > len(v)
                   and (str(n.value).endswith(v) or str(n.value).startswith(v))
                   and np.linalg.norm(c - cn) < CUT_INDEX_NEAR * w for n, cn, w in numbers):
                continue
        out.append(r)
    return out


# Card widths between the centres of two readings of one kind of special card (link, bonus,
# joker: a deck holds several of each) below which they are one card read at two outlines. Train
# 7000 (200 elevens tables): such pairs 0.14-0.22 apart named one card; two cards lying fanned
# or side by side 0.29 or more.
SPECIAL_SAME = 0.25
# Bulls (11 nimmt!) are fanned tighter: 0.09 of a card apart on train table 8000 #107; two
# outlines of one bull lay 0.03-0.06 apart (#29). Train 11 nimmt! 8000: precision 95.16 -> 95.50 %.
BULL_SAME = 0.08
# The kinds of which a deck holds several, each with the distance within which two are one card.
SPECIAL_SAME_OF = {"link": SPECIAL_SAME, "bonus": SPECIAL_SAME, "joker": SPECIAL_SAME, "bull": BULL_SAME}


def _specials_once(cards: list[CardReading], kept: Iterable[CardReading] = ()) -> list[CardReading]:
    """The readings less a special card read twice: of two readings of one kind whose centres lie
    within their kind's `SPECIAL_SAME_OF` of a card's width, the surer stays (or the one kept from
    an earlier read)."""
    if not any(r.kind in SPECIAL_SAME_OF for r in cards):
        return cards
    seen: list[tuple[str, np.ndarray, float]] = []
    drop = set()
    for r in [*kept, *sorted(cards, key=lambda r: -r.confidence)]:
        same = SPECIAL_SAME_OF.get(r.kind)
        if same is None:
            continue
        q = np.asarray(r.corners, np.float64)
        c = q.mean(axis=0)
        w = float(min(np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])))
        if any(k == r.kind and np.linalg.norm(c - c2) < same * min(w, w2) for k, c2, w2 in seen):
            drop.add(id(r))  # (a kept reading is never dropped: it comes first)
            continue
        seen.append((r.kind, c, w))
    return [r for r in cards if id(r) not in drop]


def _on_card(corners, points: list) -> np.ndarray:
    """`points` (N×2, or groups of them) given in card units (0..1 across and down) in image
    pixels, on the card outlined by `corners`."""
    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), np.float32(corners))
    pts = np.float32(points)
    return cv2.perspectiveTransform(pts.reshape(1, -1, 2), m).reshape(pts.shape).astype(np.float64)


def _index_centres(corners) -> list[np.ndarray]:
    """Where a card's two corner indices lie (image pixels), from its outline."""
    return list(_on_card(corners, [((u0 + u1) / 2, (v0 + v1) / 2) for u0, v0, u1, v1 in INDEX_BOXES.values()]))


def _index_quads(corners, slack: float) -> list[np.ndarray]:
    """The boxes round a card's two corner indices (image pixels), `slack` card sides wider."""
    return list(_on_card(corners, [[(u0 - slack, v0 - slack), (u1 + slack, v0 - slack), (u1 + slack, v1 + slack),
                                    (u0 - slack, v1 + slack)] for u0, v0, u1, v1 in INDEX_BOXES.values()]))


def _rotation(deg: float) -> np.ndarray:
    a = math.radians(deg)
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def _turned_grid(grid: np.ndarray, deg: float) -> np.ndarray:
    """What is seen of a card (its visibility cells) in its outline turned by deg degrees: a
    card's cells are about square (6 × 9 over a card of aspect 1.5), so a turn of the outline
    is the same turn of the cells."""
    gv, gu = grid.shape
    c = np.array([(gu - 1) / 2, (gv - 1) / 2])
    r = _rotation(deg)
    m = np.hstack([r, (c - r @ c)[:, None]]).astype(np.float32)
    return cv2.warpAffine(grid, m, (gu, gv), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=0.0)


def _outlines(cards: list[_Card]) -> list[Outline]:
    """Where the cards lie as the detector found them: an outline moved to read a cut index
    (`_search_outlines`) would break the row's even spacing."""
    return [Outline(c.found.centre, c.found.angle, c.found.size[0], c.found.size[1]) for c in cards]


def _edge_profile(image: np.ndarray, centre: np.ndarray, axis: np.ndarray, height: float, length: float) -> np.ndarray:
    """How strongly edges across `axis` show at each pixel along it from `centre`, over the
    middle of a card's length: the median over the band, so that a card's edge, which runs the
    whole way, counts and an index's strokes do not."""
    half = 0.35 * height
    perp = np.array([-axis[1], axis[0]])
    m = np.array([[axis[0], perp[0], centre[0] - half * perp[0]],
                  [axis[1], perp[1], centre[1] - half * perp[1]]], np.float64)
    band = cv2.warpAffine(image, m, (max(8, int(length)), max(4, int(2 * half))),
                          flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderMode=cv2.BORDER_REPLICATE)
    grey = cv2.cvtColor(band, cv2.COLOR_BGR2GRAY).astype(np.float32)
    return np.median(np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)), axis=0)


def _index_mid(quad: np.ndarray, turn: int) -> np.ndarray:
    """The middle of an outline's corner index box (`INDEX_BOXES`: 0 top left, 2 bottom right)."""
    u0, v0, u1, v1 = INDEX_BOXES[turn]
    return quad[0] + (u0 + u1) / 2 * (quad[1] - quad[0]) + (v0 + v1) / 2 * (quad[3] - quad[0])


def _place_at(det: Detection, quad: np.ndarray, regions) -> Detection | None:
    """An outline moved to `quad`, a place of a row read at its corner indices only (none of its
    pixels were found); None outside the regions read again (only cards there are new)."""
    mid = quad.mean(axis=0)
    centre = (float(mid[0]), float(mid[1]))
    if regions and not _inside_regions(centre, regions):
        return None
    return replace(det, quad=quad, centre=centre, pixels=0, grid=None,
                   visible={"centre": 0.0, "index0": 1.0, "index2": 1.0})


def _row_corners(members: list[_Card]) -> tuple[int, ...]:
    """The corners (0: top left, 2: bottom right of the reading frame) whose index shows on most
    of a row's partly hidden cards: a row overlaps one way. Both when it cannot be told."""
    hidden = [c.det.visible for c in members if c.det.pixels and c.det.visible.get("centre", 1.0) < 0.5]
    if hidden:
        shows = [t for t in (0, 2) if np.mean([v.get(f"index{t}", 0.0) for v in hidden]) >= 0.5]
        if len(shows) == 1:
            return tuple(shows)
    return (0, 2)


def _colour_votes(members: list[_Card]) -> dict[str, float]:
    """Each colour the cards are named, weighed by how surely each was named."""
    votes: dict[str, float] = {}
    for c in members:
        if c.colour is not None:
            votes[c.colour] = votes.get(c.colour, 0.0) + c.colour_conf
    return votes


def _row_colour(members: list[_Card]) -> tuple[str | None, float, float]:
    """A row's colour: its cards' colours weighed by how surely each was named; the share of
    the votes it has, and the votes' whole weight."""
    votes = _colour_votes(members)
    if not votes:
        return None, 0.05, 0.0
    name = max(votes, key=lambda k: votes[k])
    total = sum(votes.values())
    return name, votes[name] / max(1e-9, total), total


ROW_SAME = 0.6  # share of a row's colour votes its colour must have for it to be a game's row
ROW_COLOUR_SHARE = 0.8  # share of a row's other cards' colour votes that names the row's colour
ROW_COLOUR_VOTES = 1.5  # least weight of those votes (a row of two says little)
COLOUR_SURE = 0.95  # a card's own colour named this surely stands against its row's


TWO_COLOURS = 0.9  # share of a row's colour votes its two most voted colours must have
SPLIT_ROW_CARDS = 4  # least cards of such a row


def _split_row_colour(members: list[_Card], taken: set[str | None]) -> str | None:
    """The colour of a row whose cards' colours split between two, one of which another row
    has: the other (each colour lays one row). A lamp can make a "kids" card's dark teal
    numeral weigh less than its yellow blobs, and half a blue row reads yellow. None when the
    row's votes spread over more colours (a fanned hand) or neither or both colours are free."""
    if len(members) < SPLIT_ROW_CARDS:
        return None
    votes = _colour_votes(members)
    top = sorted(votes, key=lambda k: -votes[k])[:2]
    if len(top) < 2 or sum(votes[k] for k in top) < TWO_COLOURS * sum(votes.values()):
        return None
    free = [k for k in top if k not in taken]
    return free[0] if len(free) == 1 else None


FREE_SHARE = 0.4  # share of a row's colour votes the one colour no other row has must have
FREE_OVER = 2.0  # and how many times the next such colour's votes
RUN_STEPS = 0.6  # share of neighbours in such a row whose numbers read one apart


def _free_row_colour(members: list[_Card], taken: set[str | None], numbers: list[int | None]) -> str | None:
    """The colour of a row whose cards' colours spread (none has `ROW_SAME` of the votes) when
    one colour no other row has stands out among them: a "kids" card's blotches of every suit
    behind a narrow strip name it any colour, but its own ink still leads the free colours.
    None for a fanned hand (its colours spread evenly) or a row of too few cards."""
    if len(members) < SPLIT_ROW_CARDS:
        return None
    steps = [a is not None and b is not None and abs(a - b) == 1
             for a, b in zip(numbers[:-1], numbers[1:], strict=True)]
    if sum(steps) < RUN_STEPS * len(steps):
        return None  # not a run of numbers: a hand fanned out to be counted
    votes = _colour_votes(members)
    free = sorted((v, k) for k, v in votes.items() if k not in taken)
    if not free:
        return None
    best, name = free[-1]
    second = free[-2][0] if len(free) > 1 else 0.0
    return name if best >= FREE_SHARE * sum(votes.values()) and best >= FREE_OVER * second else None


def _overlap(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    """Whether two rows' number spans (least, greatest) share a number."""
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


def _vote_sureness(share: float, votes: float) -> float:
    """How surely a row's colour vote names a card: its share, discounted under three votes."""
    return share * min(1.0, votes / 3.0)


def _row_colours(members: list[_Card], elsewhere: set[str | None] = frozenset(), line: str | None = None) -> None:
    """A row is one colour: a card named another colour than its row's, not surely, is named
    the row's (a narrow strip of a card shows little stock and less ink). `line`: the colour
    the table's rows give this row's line (`assign_colours`), `elsewhere`: those of the other
    lines; a card named one of those is named `line` (each colour lays one row)."""
    for c in members:
        if c.colour is None or c.colour_conf >= COLOUR_SURE:
            continue
        others = [m for m in members if m is not c]
        if line is not None and c.colour in elsewhere and c.colour != line:
            votes = _colour_votes(others)
            share = votes.get(line, 0.0) / max(1e-9, sum(votes.values()))
            c.colour, c.colour_conf = line, max(0.05, _vote_sureness(share, sum(votes.values())))
            continue
        name, share, votes = _row_colour(others)
        if name is not None and name != c.colour and share >= ROW_COLOUR_SHARE and votes >= ROW_COLOUR_VOTES:
            c.colour, c.colour_conf = name, max(c.colour_conf, _vote_sureness(share, votes))


def _prior_pairs(cards: list[_Card], prior: list[Detection]) -> list[tuple[int, Detection]]:
    """(card, outline of the last picture) for each earlier outline that lies within `PRIOR_NEAR`
    of a card's width of a card found now (the nearest, each card once) and lies turned from it
    or of another size (`PRIOR_TURN`, `PRIOR_SIZE`): the new outline may be astray."""
    if not prior or not cards:
        return []
    centres = np.array([c.det.centre for c in cards], np.float64)
    out, used = [], set()
    for p in prior:
        d = np.linalg.norm(centres - np.asarray(p.centre, np.float64), axis=1)
        k = int(np.argmin(d))
        if k in used or d[k] > PRIOR_NEAR * p.size[0]:
            continue
        q = cards[k].det
        turn = abs((q.angle - p.angle + 90.0) % 180.0 - 90.0)
        if turn < PRIOR_TURN and abs(math.log(max(q.size[0], 1e-6) / max(p.size[0], 1e-6))) < PRIOR_SIZE:
            continue
        used.add(k)
        out.append((k, p))
    return out


def _slots(owners: list[int]) -> list[tuple[int, int]]:
    """(owner, n-th crop of that owner) for each crop in order."""
    seen: dict[int, int] = {}
    out = []
    for k in owners:
        out.append((k, seen.get(k, 0)))
        seen[k] = seen.get(k, 0) + 1
    return out


@dataclass
class _Card:
    det: Detection
    crops: list[tuple[str, int]] = field(default_factory=list)  # (kind, turn)
    joint: np.ndarray | None = None  # C×2 posterior (class, orientation of the reading frame)
    card_prob: float = 0.0
    evidence: float = 0.0  # log-odds that the frame is upright (own whole-card reading)
    colour: str | None = None
    colour_conf: float = 1.0
    found: Detection | None = None  # the outline as the detector found it, before any move

    def __post_init__(self) -> None:
        if self.found is None:
            self.found = self.det


class _Run(NamedTuple):
    """A run of a row's partly hidden cards under its whole card, as `_row_lattice` lays it out."""

    whole: _Card
    hidden: list[_Card]
    members: list[_Card]  # the row's cards
    vw: int  # the whole card's number
    up: float  # +1 / -1: the way the numbers run from it, as the hidden cards read; 0: unknown
    axis: np.ndarray  # unit vector from the whole card toward the run
    cw: np.ndarray  # the whole card's centre
    corners: tuple[int, ...]  # the corner index that shows on the strips
    width: float  # the whole card's width and length (pixels)
    length: float
    reach: float  # how far along `axis` the run's farthest card lies
    pitches: list[float]  # spacings of one place that the hidden cards' readings give


class Recognizer:
    """Reads cards from photos of one game's table (`game` as in DESIGN.md, or None for any deck)."""

    def __init__(self, game: str | None, config: RecognizerConfig | None = None, profile: Any = None,
                 options: dict | None = None):
        if game is not None and game not in GAMES:
            raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
        self.game = game
        _load_plugins(game)
        self.config = config or RecognizerConfig()
        self.profile = profile
        self.options = dict(options or {})  # passed to registered readers (e.g. "board": a calibration file)
        self.classifier = Classifier(self.config.classifier)
        # The crops of a card whose middle shows: the numeral too where the classifier was taught it.
        numerals = self.config.numerals and "numeral" in self.classifier.info.meta.get("regions", {})
        self._middle = (("card", 0), ("numeral", 0)) if numerals else (("card", 0),)
        self._corners = self.config.corners and "corner" in self.classifier.info.meta.get("regions", {})
        # The outlines measure what shows of the other two corners only where they are read.
        self.detector = Detector(self.config.detector, face_threshold=self.config.face_threshold, corners=self._corners)
        self._index_finder: Detector | None = None  # loaded at its first use (`index_finder`)
        classes, self.coloured = deck_of(game)
        self.allowed = np.array([c in classes for c in CARD_CLASSES], bool)
        self.card_classes = np.array([c not in ("none", "back") for c in CARD_CLASSES], bool)
        self._deck = self.allowed & self.card_classes  # the cards this game's deck holds
        self._deck_size = max(1, int(self._deck.sum()))
        self._not_deck = ~self._deck
        top = ROW_VALUES.get(game or "")  # the classes a row game is played with weigh 1, the rest 0
        self._played = None if top is None else np.array(
            [not (c.isdigit() and int(c) > top) for c in CARD_CLASSES], float)
        self.card_width: float | None = None  # card width seen last, pixels
        self.turn = 0.0  # degrees the table lies turned in the picture (read square-on when it is)
        self._last: Observation | None = None
        self.forget()
        # A profile taught with another classifier (an update shipped since) keeps its inks; its
        # prototypes, features of the old network, would pull readings astray.
        self.prototypes = profile is not None and getattr(profile, "features", "") == self.classifier.fingerprint
        if profile is not None and not self.prototypes:
            log.warning("deck profile %r was taught with another card classifier: its taught shapes are not "
                        "used (its inks are); teach the deck again", getattr(profile, "name", "?"))

    # -- detection --------------------------------------------------------------------------
    def forget(self) -> None:
        """A new table (another camera, another game's set-up): nothing carried from earlier pictures."""
        # The card size is searched for on the first picture even with a deck profile: the size it
        # was taught at holds only while the camera has not moved, and a detector run at a third
        # of the cards' size finds their numerals as cards and vouches for that size itself
        # (held-out printings, the camera's height changed: 96.43 % read exactly without a profile,
        # 93.11 % with the profile as it was, 96.79 % with it but for its size,
        # `benchmarks/vision_taught.py`).
        self.card_width = None
        self.turn = 0.0
        self.aspect: float | None = None  # the deck's cards' height / width, as last measured
        self._last = None
        self._heap = False  # whether the last whole read was of a loose heap (its regions are read twice too)
        # Kept readings as row anchors, by id (the reading held too, so the id stays its own):
        # a region re-read takes the same readings again, and making them anew cost 1-2 ms.
        self._anchors: dict[int, tuple[CardReading, Detection | None, np.ndarray | None]] = {}
        # The outline each reading of the last picture was read at, by id (the reading held too).
        self._outline_of: dict[int, tuple[CardReading, Detection]] = {}

    def _find(self, image: np.ndarray, card_width: float | None, window: tuple[int, int, int, int] | None = None,
              focus: tuple[int, int, int, int] | None = None) -> tuple[list[Detection], float | None]:
        if self.turn:
            return detect_turned(self.detector, image, self.turn, card_width, window)
        return self.detector.detect(image, card_width, window, confirm=self._middles_read_as_cards, focus=focus)

    def _middles_read_as_cards(self, image: np.ndarray, dets: list[Detection]) -> bool:
        """Whether one of the outlines whose middle shows reads surely as a card of the deck (its
        whole-card crop): it vouches for the card size they were found at (`Detector.find_scale`)."""
        seen = [d for d in dets if d.visible.get("centre", 0) >= min(VOUCH_CENTRE, self.config.centre_visible)
                and d.inside]
        if not seen:
            return False
        pyr = Pyramid(image)
        probs = self._classify(warp_crops(pyr, [d.quad for d in seen], [CARD_REGION] * len(seen)), ["card"] * len(seen))
        q = probs.sum(axis=2) * self.allowed * self.card_classes
        return bool(np.any(q.max(axis=1) >= MIDDLE_IS_CARD))

    def _detect_all(self, image: np.ndarray) -> list[Detection]:
        known = self.card_width
        if known is not None:
            # The camera does not move between pictures: the card size seen last time spares the
            # passes that look for it, if it still holds.
            dets, width = self._find(image, known)
            if dets and width is not None and abs(math.log(width / known)) < math.log(WIDTH_HOLDS):
                self.card_width = width
                return dets
        dets, width = self._find(image, None)
        if width is not None:
            self.card_width = width
        return dets

    def detect(self, image: np.ndarray, regions=None) -> list[Detection]:
        h, w = image.shape[:2]
        dets, self.aspect = cut_by_border(self._detect(image, regions), w, h, self.aspect)
        return dets

    def _detect(self, image: np.ndarray, regions=None) -> list[Detection]:
        if regions is None:
            dets = self._detect_all(image)
            # The table's lie, like the card size, holds while the camera does not move; a
            # change of it (or the first sight of a turned table) reads the picture again.
            turn = table_turn(dets)
            if turn is not None:
                want = turn if abs(turn) >= TURN_MIN else 0.0
                if abs((want - self.turn + 45.0) % 90.0 - 45.0) > TURN_MIN / 2:
                    self.turn = want
                    dets = self._detect_all(image)
            return dets
        out: list[Detection] = []
        h, w = image.shape[:2]
        cw = self.card_width or 100.0
        pad = int(self.config.region_margin * cw * 1.6)
        for x0, y0, x1, y1 in regions:
            win = (max(0, x0 - pad), max(0, y0 - pad), min(w, x1 + pad), min(h, y1 + pad))
            if win[2] - win[0] < 8 or win[3] - win[1] < 8:
                continue  # a region outside the picture (or a sliver of it): nothing to read
            dets, _ = self._find(image, cw, window=win, focus=(x0, y0, x1, y1))
            out.extend(d for d in dets if x0 <= d.centre[0] < x1 and y0 <= d.centre[1] < y1)
        return out

    # -- reading ----------------------------------------------------------------------------
    def read(self, image: np.ndarray, regions: Iterable[tuple[int, int, int, int]] | None = None) -> Observation:
        t0 = time.perf_counter()
        if not isinstance(image, np.ndarray) or image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
            raise RecognitionError("expected an 8-bit BGR colour image")
        h, w = image.shape[:2]
        if min(h, w) < 32:
            raise RecognitionError(f"image too small ({w}×{h})")
        regs = None
        if regions is not None:
            regs = tuple(tuple(int(v) for v in r) for r in regions)
            last = self._last
            if last is None or last.size != (w, h) or (self.card_width is None and self.game not in _NO_CARDS):
                regs = None  # nothing to update: read everything
            elif _share_covered(regs, w, h) >= WHOLE_VIEW_CHANGED:
                # The whole view changed: the camera was moved (or the table cleared and laid
                # anew). The card size and the table's lie measured before may no longer hold,
                # and one found at a third of the cards' size vouches for itself.
                self.forget()
                regs = None
        window = None
        if regs is not None and not readers_for(self.game or ""):
            # Only the cards in the regions are read: crops need no reduction of the whole photo.
            window = regions_box(regs, int(REGION_CROP_PAD * (self.card_width or 100.0)))
        # A region re-read's crops lie round the region's few cards: only those parts are reduced.
        pyramid = Pyramid(image, window, sparse=window is not None)
        ctx = ReadContext(image=image, pyramid=pyramid, game=self.game or "", recognizer=self, regions=regs)
        t = time.perf_counter()
        dets = ctx.detections if self.game not in _NO_CARDS else []
        ctx.timings["detect_ms"] = (time.perf_counter() - t) * 1000
        if window is None and dets and not readers_for(self.game or ""):
            # Crops are cut only round the cards found (moved outlines and row gaps included):
            # the reduced levels of the rest of the photo need not be made.
            corners = np.concatenate([d.quad for d in dets])
            box = (*corners.min(axis=0), *corners.max(axis=0))
            ctx.pyramid = Pyramid(image, regions_box([box], int(REGION_CROP_PAD * (self.card_width or 100.0))))
        kept: list[CardReading] = []
        prior: list[Detection] = []
        if regs is not None and self._last is not None:
            kept = [c for c in self._last.cards if not _centred_in(c, regs)]
            prior = [hit[1] for c in self._last.cards if _centred_in(c, regs)
                     and (hit := self._outline_of.get(id(c))) is not None and hit[0] is c]
        taken = [(c.kind, c.value, c.color) for c in kept]
        read_at: dict[int, tuple[CardReading, Detection]] = {}
        cards = self.read_cards(ctx, dets, taken, kept, prior, read_at) if self.game not in _NO_CARDS else []
        if regs is None:
            self._heap = bool(dets) and is_heap(dets)
        if cards and not readers_for(self.game or "") and self._heap and (
                not regs or self._heap_unsure(ctx, cards)):
            # A region of a heap is read again as the whole heap was (the turned passes find
            # cards lying 11-45 degrees off square that the first misses), unless its cards all
            # read surely at once.
            ctx.heap = True
            cards = self._read_heap_again(ctx, cards, read_at, taken)
        elif (cards and not readers_for(self.game or "") and not regs and self.config.index_finder
              and self.config.index_elsewhere and self.card_width
              and _cards_overlap([d for d in ctx.detections if d.inside], self.config.centre_visible)):
            # Not a loose heap: stacks lying one way and overlapping rows hide cards too.
            around = self._around_cards(ctx)
            if around is not None:
                t = time.perf_counter()
                window, pyramid = around
                cards = self._add_by_indices(ctx, cards, pyramid, window, taken, read_at, least=INDEX_ELSEWHERE)
                ctx.timings["index_ms"] = (time.perf_counter() - t) * 1000
        tokens: list[TokenReading] = []
        dice: list[DieReading] = []
        for fn in readers_for(self.game or ""):
            t = time.perf_counter()
            extra = fn(ctx) or {}
            if extra.get("replace_cards"):
                cards = []
            cards += list(extra.get("cards", []))
            tokens += list(extra.get("tokens", []))
            dice += list(extra.get("dice", []))
            ctx.timings[f"{getattr(fn, '__name__', 'reader')}_ms"] = (time.perf_counter() - t) * 1000
        if not self._heap:  # in a loose heap a 4 may truly lie on its colour's 14
            cards = _off_cut_indices(cards, kept)
        cards = _specials_once(cards, kept)
        if regs is not None and self._last is not None:
            cards = kept + cards
            if not tokens and not dice:
                tokens, dice = list(self._last.tokens), list(self._last.dice)
        ms = (time.perf_counter() - t0) * 1000
        extra = {"timings": {k: round(v, 2) for k, v in ctx.timings.items()}, "card_width": self.card_width,
                 "regions": [list(r) for r in regs] if regs else None}
        obs = Observation(cards=tuple(cards), tokens=tuple(tokens), dice=tuple(dice), ms=ms, size=(w, h), extra=extra)
        self._last = obs
        known = {**self._outline_of, **read_at} if regs is not None else read_at
        self._outline_of = {id(c): known[id(c)] for c in obs.cards if id(c) in known and known[id(c)][0] is c}
        return obs

    @staticmethod
    def _heap_unsure(ctx: ReadContext, cards: list[CardReading]) -> bool:
        """Whether a heap's passes so far may have left a card to find (in the regions read
        again, if any): no card was read, a card reads less than HEAP_AGAIN_SURE, or an outline
        found gave no card. A whole table's first turned pass is always read; a region's only
        when this holds (a card lying askew that the first detector does not outline at all,
        beside one read surely, is then missed: on train tables 8000 and 7500 no region re-read
        changed, and a heap's re-read takes 11 instead of 20 ms); a later pass, when it still
        holds."""
        mine = [c for c in cards if not ctx.regions or _centred_in(c, ctx.regions)]
        found = [d for d in ctx.detections if d.inside and (not ctx.regions or _inside_regions(d.centre, ctx.regions))]
        return not mine or len(found) > len(mine) or min(c.confidence for c in mine) < HEAP_AGAIN_SURE

    def _around_cards(self, ctx: ReadContext) -> tuple[tuple[int, int, int, int], Pyramid] | None:
        """The part of the picture round the cards found (a window, x0, y0, x1, y1) and its
        pyramid, where they are searched again; None when no outline was found."""
        h, w = ctx.image.shape[:2]
        found = [d.quad for d in ctx.detections if d.inside]
        if not found:
            return None
        corners = np.concatenate(found)
        pad = self.card_width or 100.0
        # A region's cards lie within their own outlines, whole: half a card round them will do.
        x0, y0, x1, y1 = regions_box([(*corners.min(axis=0), *corners.max(axis=0))],
                                     pad * (HEAP_REGION_PAD if ctx.regions else 1.0))
        window = (max(0, int(x0)), max(0, int(y0)), min(w, int(math.ceil(x1))), min(h, int(math.ceil(y1))))
        # Colours named against the light and inks the first pass measured on the same cards.
        return window, Pyramid(ctx.image, regions_box([window], int(REGION_CROP_PAD * pad)))

    def _read_heap_again(self, ctx: ReadContext, first: list[CardReading],
                         read_at: dict[int, tuple[CardReading, Detection]], taken: Iterable[tuple] = ()
                         ) -> list[CardReading]:
        """A loose heap read again on the picture turned more (`HEAP_PASSES`, `HEAP_AGREE`):
        each card at the surest of its readings."""
        t = time.perf_counter()
        around = self._around_cards(ctx)
        if around is None:
            return first  # a region's cards found on its row's places only: nothing to turn round
        window, pyramid = around
        h, w = ctx.image.shape[:2]
        cards = first
        for k, (turn, new) in enumerate(HEAP_PASSES):
            if k and not self._heap_unsure(ctx, cards):
                break  # every card read surely: no further pass
            dets, _width = detect_turned(self.detector, ctx.image, self.turn + turn, self.card_width, window)
            dets, _aspect = cut_by_border(dets, w, h, self.aspect)
            if ctx.regions:  # a region re-read: the cards round it were read before
                dets = [d for d in dets if _inside_regions(d.centre, ctx.regions)]
            again = ReadContext(image=ctx.image, pyramid=pyramid, game=ctx.game, recognizer=self,
                                regions=None, _detections=dets, inks=ctx.inks, heap=True)
            more = self.read_cards(again, dets, taken, read_at=read_at)
            if ctx.regions:  # only cards in the regions read again are new
                more = [r for r in more if _centred_in(r, ctx.regions)]
            cards = merge_passes(cards, more, self.game in UNIQUE_DECKS, new)
        if self.config.index_finder and self.card_width:
            cards = self._add_by_indices(ctx, cards, pyramid, window, taken, read_at)
        ctx.timings["heap_ms"] = (time.perf_counter() - t) * 1000
        return cards

    def _add_by_indices(self, ctx: ReadContext, cards: list[CardReading], pyramid: Pyramid,
                        window: tuple[int, int, int, int], taken: Iterable[tuple],
                        read_at: dict[int, tuple[CardReading, Detection]], least: float = 0.0
                        ) -> list[CardReading]:
        """Cards found by their corner indices (`INDEX_NEW`): each read `INDEX_NEW` sure, not
        already read (`INDEX_OWN`, `INDEX_UNDER`) and (in a one-copy deck) not a card read, is
        added; `least` (off a loose heap): only number cards read that sure."""
        if self._index_finder is None:
            self._index_finder = Detector(self.config.index_finder, face_threshold=self.config.face_threshold,
                                          max_input=INDEX_MAX_INPUT)
        finder = self._index_finder
        h, w = ctx.image.shape[:2]
        out = finder.run(ctx.image, finder.scale_for(self.card_width), window)
        centres = [np.mean(r.corners, axis=0) for r in cards]
        indices = [x for r in cards for x in _index_centres(r.corners)]

        def new(d: Detection) -> bool:  # outlines of cards already read are not read (most of them, off a heap)
            return (d.inside and (not ctx.regions or _inside_regions(d.centre, ctx.regions))
                    and not _read_already(np.array(d.centre), d.index_at, d.size[0], centres, indices))

        if finder.faces == "points":  # indices apart, however tight the fan: no votes left to look through
            dets = [d for d in decode_index_points(out, w, h, self.card_width, self.aspect or DECK_ASPECT) if new(d)]
            return self._add_found(ctx, pyramid, dets, cards, taken, read_at, least, centres, indices)
        dets = [d for d in decode_indices(out, w, h, self.card_width, self.aspect or DECK_ASPECT) if new(d)]
        out_cards = self._add_found(ctx, pyramid, dets, cards, taken, read_at, least, centres, indices)
        if out_cards:
            # The votes left once the indices of the cards read are taken out: an index shown just
            # beside a card's own (a card lying almost squarely under it) voted with it for its
            # centre. Few pixels left there are the fringe of a read card's own index.
            rest = decode_indices(out, w, h, self.card_width, self.aspect or DECK_ASPECT,
                                  explained=[q for r in out_cards for q in _index_quads(r.corners, INDEX_TAKEN)])
            rest = [d for d in rest if d.index_at is not None and d.pixels >= INDEX_REST_PIXELS and new(d)]
            out_cards = self._add_found(ctx, pyramid, rest, out_cards, taken, read_at, least, centres, indices,
                                        other_number=True)
        return out_cards

    def _add_found(self, ctx: ReadContext, pyramid: Pyramid, dets: list[Detection], cards: list[CardReading],
                   taken: Iterable[tuple], read_at: dict[int, tuple[CardReading, Detection]], least: float,
                   centres: list[np.ndarray], indices: list[np.ndarray], other_number: bool = False
                   ) -> list[CardReading]:
        """`cards` and those the finder's outlines `dets` read (`_add_by_indices`); `centres` and
        `indices` of the cards so far grow with them. `other_number`: a card whose centre lies
        within HEAP_SAME of a card of its number is that card's index read again."""
        if not dets:
            return cards
        again = ReadContext(image=ctx.image, pyramid=pyramid, game=ctx.game, recognizer=self,
                            regions=None, _detections=dets, inks=ctx.inks, heap=ctx.heap)
        found = self.read_cards(again, dets, taken, read_at=read_at)
        unique = self.game in UNIQUE_DECKS
        have = {(r.kind, r.value, r.color) for r in cards if r.value is not None}
        out_cards = list(cards)
        for r in sorted(found, key=lambda r: -r.confidence):
            q = np.asarray(r.corners, np.float64)
            c = q.mean(axis=0)
            width = float(np.linalg.norm(q[1] - q[0]))
            at = read_at[id(r)][1].index_at if id(r) in read_at else None
            under = at is not None and _read_already(c, None, width, centres, indices)  # by its centre
            key = (r.kind, r.value, r.color)
            if least and (r.kind != "number" or r.confidence < least):
                continue
            if (_read_already(c, at, width, centres, indices) or r.confidence < (INDEX_UNDER if under else INDEX_NEW)
                    or (unique and key in have)):
                continue
            if other_number and any(o.value == r.value and np.linalg.norm(np.mean(o.corners, axis=0) - c)
                                    < HEAP_SAME * width for o in out_cards):
                continue
            out_cards.append(r)
            have.add(key)
            centres.append(c)
            indices += _index_centres(q)
        return out_cards

    def read_cards(self, ctx: ReadContext, dets: list[Detection], taken: Iterable[tuple] = (),
                   kept: Iterable[CardReading] = (), prior: Iterable[Detection] = (),
                   read_at: dict[int, tuple[CardReading, Detection]] | None = None) -> list[CardReading]:
        """Readings of the detected cards; `taken`: (kind, value, colour) of cards read before
        and kept (outside the regions re-read), which no other card of a one-copy deck can be;
        `kept`: those readings, neighbours in rows of the cards read now; `prior`: the outlines
        the cards read before in the regions were read at (`PRIOR_NEAR`); `read_at`, filled
        with the outline each reading was read at, by the reading's id."""
        cfg = self.config
        t = time.perf_counter()
        cards = [_Card(d) for d in dets if d.inside]
        pairs = _prior_pairs(cards, list(prior))
        found = len(cards)
        cards += [_Card(p) for _k, p in pairs]  # read with the others, then only the surer kept
        quads, regions, owners = [], [], []
        for k, c in enumerate(cards):
            v = c.det.visible
            if v.get("centre", 0) >= cfg.centre_visible:
                c.crops.extend(self._middle)
            if v.get("centre", 0) < cfg.centre_visible or cfg.indices == "always":
                for turn in (0, 2):
                    if v.get(f"index{turn}", 0) >= cfg.index_visible:
                        c.crops.append(("index", turn))
                c.crops += self._corners_shown(c, cfg.index_visible)
            for kind, turn in c.crops:
                quads.append(rotate_quad(c.det.quad, turn))
                regions.append(_REGIONS[kind])
                owners.append(k)
        crops = warp_crops(ctx.pyramid, quads, regions)
        ctx.timings["crops_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        kinds = [cards[k].crops[i][0] for k, i in _slots(owners)]
        probs = self._classify(crops, kinds)
        if cfg.indices == "auto":
            probs, owners = self._auto_indices(ctx, cards, probs, owners)
        ctx.timings["classify_ms"] = (time.perf_counter() - t) * 1000
        t = time.perf_counter()
        per: dict[int, list[tuple[str, np.ndarray]]] = {}
        slot: dict[int, int] = {}
        for p, k in zip(probs, owners, strict=True):
            kind = cards[k].crops[slot.get(k, 0)][0]
            slot[k] = slot.get(k, 0) + 1
            per.setdefault(k, []).append((kind, p))
        for k, c in enumerate(cards):
            self._combine(c, per.get(k, []))
        for (k, _p), alt in zip(pairs, cards[found:], strict=True):
            now = self._sureness(cards[k])
            if now < PRIOR_UNSURE and alt.card_prob >= OUTLINE_FOUND and self._sureness(alt) > now:
                cards[k] = alt
        del cards[found:]
        self._search_outlines(ctx, cards)
        self._orient(cards)
        self._colours(ctx, cards)
        # A loose heap has no rows: cards lying in a line by chance voted their colour onto each
        # other. Nor have the few cards a heap's later pass finds, which may lie in a line.
        if ctx.regions or not (ctx.heap or is_heap(dets)):
            cards = self._row_lattice(ctx, cards, kept)
            self._rows(ctx, cards, kept)
        if self.game in UNIQUE_DECKS:
            self._once_each(ctx, cards, taken)
            cards += self._read_between(ctx, cards, taken)
        out = []
        for c in cards:
            r = self._reading(ctx, c)
            if r is not None:
                out.append(r)
                if read_at is not None:
                    read_at[id(r)] = (r, c.det)
        ctx.timings["decide_ms"] = (time.perf_counter() - t) * 1000
        return out

    def _auto_indices(self, ctx, cards, probs, owners):
        """Read the corner indices of fully visible cards only when the whole-card reading is unsure."""
        extra, extra_owner = [], []  # quads of the index crops to read, their cards
        done: set[int] = set()
        for p, k in zip(probs, owners, strict=True):
            c = cards[k]
            if c.crops and c.crops[0][0] == "card" and k not in done:  # its first crop: the whole card
                done.add(k)
                q = _per_class(p) * self.allowed
                top = q.max() / max(q.sum(), 1e-9)
                if top < self.config.auto_threshold:
                    for turn in (0, 2):
                        if c.det.visible.get(f"index{turn}", 0) >= self.config.index_visible:
                            c.crops.append(("index", turn))
                            extra.append(rotate_quad(c.det.quad, turn))
                            extra_owner.append(k)
        if not extra:
            return probs, owners
        more = self._classify(warp_crops(ctx.pyramid, extra, [INDEX_REGION] * len(extra)), ["index"] * len(extra))
        return np.concatenate([probs, more]), owners + extra_owner

    def _classify(self, crops: list[np.ndarray], kinds: list[str]) -> np.ndarray:
        """N×C×2 probabilities; a deck profile pulls them toward its taught prototypes."""
        if not crops:
            return np.zeros((0, len(CARD_CLASSES), 2))
        logits, feats = self.classifier.run(np.stack(crops))
        if self.prototypes:
            k = np.array([_KIND_IDS[x] for x in kinds], np.int8)
            logits = self.profile.adjust(logits, feats, k, self.classifier.temperature)
        return self.classifier.to_probs(logits)

    def _combine(self, c: _Card, readings: list[tuple[str, np.ndarray]]) -> None:
        """Joint posterior over (class, frame orientation) from the card's crops."""
        none_i, back_i, k_allowed = _NONE, _BACK, self._deck_size
        log = np.zeros((len(CARD_CLASSES), 2))
        # "Is it a card at all": the whole card's verdict and the indices that show one
        # (an index crop without an index is no evidence: a covered or blank corner).
        odds_nc = 1.0
        voters = 0
        has_whole = False
        for kind, p in readings:
            q = _per_class(p)
            # np.clip's value (in p's precision) without its wrappers, the most of this line's cost
            nc = float(np.minimum(np.maximum(q[none_i] + q[back_i], 1e-6), 1 - 1e-6))
            if kind == "card" or nc < 0.5:
                odds_nc *= nc / (1.0 - nc)
                voters += 1
            if kind not in _INDEX_KINDS:  # the whole card or its numeral: class and orientation
                has_whole = True
                log += np.log(p + 1e-9)
            else:
                # An index crop showing no index says nothing about which card it is.
                mix = q + (q[none_i] + q[back_i]) / k_allowed
                log += np.log(mix + 1e-9)[:, None]
        if not readings:
            c.joint, c.card_prob = None, 0.0
            return
        log[self._not_deck] = -np.inf
        log -= log.max()  # the deck's largest: the others are -inf
        joint = np.exp(log)
        joint /= joint.sum()
        c.joint = joint
        c.card_prob = float(1.0 / (1.0 + odds_nc)) if voters else 0.0
        if has_whole:
            up, down = joint[:, 0].sum(), joint[:, 1].sum()
            c.evidence = min(max(math.log((up + 1e-9) / (down + 1e-9)), -6.0), 6.0)

    def _search_outlines(self, ctx: ReadContext, cards: list[_Card]) -> None:
        """An outline may be a little off, and then the crops miss the card: a partly hidden
        card's outline placed from a narrow visible strip cuts its corner index, and on a loose
        heap the detector's direction of a card lying every way is often tens of degrees off.
        A card that reads as no card or reads unsure is read again at outlines turned about its
        centre (`OUTLINE_TURNS`); one still unsure whose middle is hidden, at outlines shifted
        along its sides (`OUTLINE_SHIFTS`). Each time the move whose reading is surest is kept
        (train pool: 95.6 % exact in this order, 95.1 % with the shifts first, 95.3 % with both
        kinds of move in one search)."""
        todo = [c for c in cards if self._unsure(c)]
        self._read_moved(ctx, todo, TURN_MOVES)
        self._read_moved(ctx, [c for c in todo if self._hidden(c) and self._unsure(c)], SHIFT_MOVES)
        lost = [c for c in todo if self._hidden(c) and c.card_prob < self.config.min_card_prob]
        self._other_corners(ctx, lost)
        self._unindexed(ctx, cards, [c for c in lost if c.card_prob < self.config.min_card_prob])

    def _other_corners(self, ctx: ReadContext, todo: list[_Card]) -> None:
        """Hidden cards read as no card at the corners judged in view, read at their other
        corner: a design's own blocks of ink (stripes ending at the card's edge) can draw the
        index finder's voters to a covered corner, and the corner in view was never read. A card
        that reads a card there (`OUTLINE_FOUND`) is that card, seen at that corner only. The
        top-right and bottom-left corners in view are read too (a design printing four indices may
        show only one of those; no voter is drawn there, and a covered one may show the index of
        the card lying over it, upright)."""
        plans = [(c, kind, t) for c in todo for kind, t in [("index", 0), ("index", 2)] + self._corners_shown(
            c, SEARCH_CORNER) if (kind, t) not in c.crops]
        if not plans:
            return
        crops = warp_crops(ctx.pyramid, [rotate_quad(c.det.quad, t) for c, _k, t in plans],
                           [_REGIONS[kind] for _c, kind, _t in plans])
        for (c, kind, t), p in zip(plans, self._classify(crops, [kind for _c, kind, _t in plans]), strict=True):
            trial = _Card(c.det)
            self._combine(trial, [(kind, p)])
            if trial.card_prob < OUTLINE_FOUND or self._sureness(trial) <= self._sureness(c):
                continue
            # Its colour is named from that corner, not from the cells the voters lay on.
            corner = t if kind == "index" else _CORNER_AT[t]
            gu, gv = INDEX_GRID
            u0, v0, u1, v1 = ALL_INDEX_BOXES[corner]
            grid = np.zeros((gv, gu), np.float32)
            grid[int(v0 * gv):int(np.ceil(v1 * gv)), int(u0 * gu):int(np.ceil(u1 * gu))] = 1.0
            seen = {f"index{k}": float(k == corner) for k in range(4)}
            c.det = replace(c.det, visible={**c.det.visible, **seen}, grid=grid)
            c.crops = [(kind, t)]
            c.joint, c.card_prob, c.evidence = trial.joint, trial.card_prob, trial.evidence

    def _unindexed(self, ctx: ReadContext, cards: list[_Card], todo: list[_Card]) -> None:
        """Hidden cards still read as no card, read whole, for a card with no corner index: a
        link card laid between two rows lies under both, and only its middle shows. Only that
        card is taken from the whole crop (a hidden number card's crop holds its neighbours'
        numerals), and only where no card is read yet (two outlines of one link)."""
        if not todo or not self._deck[_LINK]:
            return
        crops = warp_crops(ctx.pyramid, [c.det.quad for c in todo], [CARD_REGION] * len(todo))
        trials = []
        for c, p in zip(todo, self._classify(crops, ["card"] * len(todo)), strict=True):
            trial = _Card(c.det)
            self._combine(trial, [("card", p)])
            if (trial.card_prob >= OUTLINE_FOUND and trial.joint is not None
                    and _per_class(trial.joint)[_LINK] >= UNINDEXED_SURE):
                trials.append((c, trial))
        if not trials:
            return
        read = [c.det.quad.mean(axis=0) for c in cards if c.card_prob >= self.config.min_card_prob]
        for c, trial in sorted(trials, key=lambda ct: -ct[1].card_prob):
            centre = c.det.quad.mean(axis=0)
            width = min(np.linalg.norm(c.det.quad[1] - c.det.quad[0]), np.linalg.norm(c.det.quad[3] - c.det.quad[0]))
            if any(np.hypot(*(centre - r)) < UNINDEXED_APART * width for r in read):
                continue
            c.crops = [("card", 0)]
            c.joint, c.card_prob, c.evidence = trial.joint, trial.card_prob, trial.evidence
            read.append(centre)

    def _read_moved(self, ctx: ReadContext, todo: list[_Card], moves: tuple[tuple[float, float, float], ...],
                    barred: list[int] | None = None) -> None:
        """Each card read at the moves (du, dv, degrees) of its outline; it takes the surest move
        whose reading is a card (`OUTLINE_FOUND`) and surer than its own."""
        if not todo or not moves:
            return
        plans = []
        for c in todo:
            # The whole card if its middle shows; the corners that show (a small move does not
            # bring a covered corner into view).
            kinds = [] if self._hidden(c) else list(self._middle)
            kinds += [("index", t) for t in (0, 2) if c.det.visible.get(f"index{t}", 0) >= SEARCH_CORNER] or \
                [("index", 0), ("index", 2)]
            kinds += self._corners_shown(c, SEARCH_CORNER)
            plans.append(kinds)
        moved = [[_moved(c.det.quad, m) for m in moves] for c in todo]  # each once, whatever its crops
        todo_crops = [(rotate_quad(q, t), _REGIONS[kind])
                      for quads, kinds in zip(moved, plans, strict=True) for q in quads for kind, t in kinds]
        crops = warp_crops(ctx.pyramid, [q for q, _r in todo_crops], [r for _q, r in todo_crops])
        probs = iter(self._classify(crops, [kind for kinds in plans for _m in moves for kind, _t in kinds]))
        for c, kinds in zip(todo, plans, strict=True):
            best, best_m, best_card = self._sureness(c, barred), None, None
            for m in moves:
                trial = _Card(c.det)
                self._combine(trial, [(kind, next(probs)) for kind, _t in kinds])
                if trial.card_prob >= OUTLINE_FOUND and self._sureness(trial, barred) > best:
                    best, best_m, best_card = self._sureness(trial, barred), m, trial
            if best_card is None or best_m is None:
                continue
            du, dv, deg = best_m
            quad = _moved(c.det.quad, best_m)
            centre = quad.mean(axis=0)
            grid = c.det.grid
            if grid is not None:  # what is seen of the card, in the moved frame (colour reads from it)
                gv, gu = grid.shape
                m = np.float32([[1, 0, -du * gu], [0, 1, -dv * gv]])
                grid = cv2.warpAffine(_turned_grid(grid, deg), m, (gu, gv), flags=cv2.INTER_LINEAR, borderValue=0.0)
            c.det = replace(c.det, quad=quad, centre=(float(centre[0]), float(centre[1])),
                            angle=(c.det.angle + deg) % 180.0, grid=grid)
            c.crops = list(kinds)
            c.joint, c.card_prob, c.evidence = best_card.joint, best_card.card_prob, best_card.evidence

    def _unsure(self, c: _Card) -> bool:
        return c.card_prob < self.config.min_card_prob or self._sureness(c) < SEARCH_SURE

    def _hidden(self, c: _Card) -> bool:
        return c.det.visible.get("centre", 0) < self.config.centre_visible

    def _corners_shown(self, c: _Card, least: float) -> list[tuple[str, int]]:
        """The "corner" crops of a card's top-right and bottom-left corners in view (`least` of
        the box showing), where the classifier reads that crop."""
        if not self._corners:
            return []
        return [("corner", t) for t, corner in _CORNER_AT.items() if c.det.visible.get(f"index{corner}", 0) >= least]

    def _sureness(self, c: _Card, barred: list[int] | None = None) -> float:
        """Probability that the card is the one it reads as (colour aside); `barred`: classes
        it cannot be (taken by surer cards of a one-copy deck)."""
        if c.joint is None:
            return 0.0
        q = _per_class(c.joint) * self.card_classes
        if barred:
            q[barred] = 0.0
        return c.card_prob * float(q.max())

    def _rows(self, ctx: ReadContext | None, cards: list[_Card], kept: Iterable[CardReading] = ()) -> None:
        """Each card of a row of consecutive numbers takes what its row says of its value
        (`vision.rows`): a strip whose index is cut reads as the number its place calls for,
        unless its own picture says surely otherwise. A place inside a row where the detector
        found no card is read too (its corner indices), and a card read there whose number lies
        between its neighbours' joins the row (in the row's colour). `kept`: readings from an
        earlier picture (outside the regions read again), row neighbours as they were read."""
        nv = ROW_VALUES.get(self.game or "")
        if nv is None or self.config.row_break >= 1.0:
            return
        live = self._row_cards(cards)
        anchors = {id(a): a for a in self._as_cards(kept)}
        live += anchors.values()
        rows = self._game_rows(live)
        gaps = [(row, m) for row, m in rows if empty_places(row)]
        posteriors: dict[int, np.ndarray] = {}  # of rows whose members hold still
        if ctx is not None and gaps:
            posteriors = self._row_posteriors(gaps, nv)
            found = self._read_empty_places(ctx, gaps, posteriors)
            if found:
                cards += found
                rows = self._game_rows(live + found)
                posteriors = {}
        # A row of cards kept from an earlier picture only has nothing to say to those read now.
        rows = [(row, m) for row, m in rows if any(id(c) not in anchors for c in m)]
        posteriors.update(self._row_posteriors([(row, m) for row, m in rows
                                                if not all(id(c) in posteriors for c in m)], nv))
        for _row, members in rows:
            for c in members:
                c.joint = posteriors[id(c)]
        if self.coloured:
            line_of, colours = self._line_colours(rows)
            for k, (_row, members) in enumerate(rows):
                mine = colours[line_of[k]]
                _row_colours(members, {x for x in colours if x is not None and x != mine}, mine)
        if ctx is not None:
            ctx.rows = rows

    def _row_lattice(self, ctx: ReadContext, cards: list[_Card], kept: Iterable[CardReading] = ()) -> list[_Card]:
        """An overlapping row read again on a lattice laid from its card seen whole. The detector
        places a narrow strip's outline badly (its voted centre a strip or two off, turned a few
        degrees): the crops then read a neighbour's index, surely, and the card is reported a
        place away. In a row whose one end is a whole card, every partly hidden card lies as
        that card does, a whole number of places from it, its hidden part toward it. The pitch
        comes from where the hidden cards were read (`lattice_pitches`) and from the edges of
        their strips in the picture (`edge_pitch`, which misread strips cannot mislead); each
        place is read at its corner index (`LATTICE_SHIFTS` along the row, hand-laid spacing
        strays). The lattice replaces the row's hidden cards when more of its readings agree with
        their places (a card v places from the whole card reading its number plus or minus v) by
        `LATTICE_GAIN`. In a region read again, `kept` (the readings outside it) are row cards
        too, as `_rows` takes them: they place the lattice, and only its places in the regions
        are read."""
        nv = ROW_VALUES.get(self.game or "")
        if nv is None or self.config.row_break >= 1.0:
            return cards
        live = self._row_cards(cards)
        fixed = self._as_cards(kept) if ctx.regions else []
        anchored = {id(a) for a in fixed}
        live += fixed
        runs: list[_Run] = []
        for whole, hidden, members in self._hidden_runs(live):
            vw = self._number(whole.joint)
            if vw is None or self._sureness(whole) < SEARCH_SURE:
                continue
            q = whole.det.quad
            short, long_ = sorted((q[1] - q[0], q[3] - q[0]), key=lambda e: float(np.linalg.norm(e)))
            width = float(np.linalg.norm(short))
            axis = short / width
            cw = np.asarray(whole.det.centre, np.float64)
            if np.dot(np.asarray(hidden[-1].det.centre) - cw, axis) < 0:
                axis = -axis
            # The corner index that shows: the one on the far side of each card, in the strip.
            corners = tuple(t for t in INDEX_BOXES if np.dot(_index_mid(q, t) - cw, axis) > 0)
            if len(corners) != 1:
                continue
            read = [(np.asarray(c.det.centre), v) for c in hidden
                    if self._sureness(c) >= SEARCH_SURE and (v := self._number(c.joint)) is not None]
            ways = {float(np.sign(v - vw)) for _c, v in read} - {0.0}
            up = ways.pop() if len(ways) == 1 else 0.0
            reach = max(self._along(c, cw, axis) for c in hidden)
            pitches = lattice_pitches(vw, cw, axis, read, width)
            if pitches and up and self._at_places(hidden, vw, up, cw, axis, pitches[0]):
                continue
            runs.append(_Run(whole, hidden, members, vw, up, axis, cw, corners, width,
                             float(np.linalg.norm(long_)), reach, pitches))
        if not runs:
            return cards
        chosen: dict[int, tuple] = {}  # by whole card: the lattice that gains most
        self._lattice_gains(ctx, [plan for run in runs for p in run.pitches
                                  if (plan := self._lattice(ctx, run, p, nv)) is not None], chosen, anchored)
        # The pitch the edges of the hidden strips show, whatever they read as: only for the runs
        # the readings' pitches left as they were (a row's lattice is 20 to 60 crops).
        plans = []
        for run in runs:
            if id(run.whole) in chosen:
                continue
            profile = _edge_profile(ctx.image, run.cw, run.axis, run.length, run.reach + run.width)
            seen = edge_pitch(profile, run.width / 2, run.reach, run.width)
            if seen is not None and all(abs(seen / x - 1.0) > 0.03 for x in run.pitches):
                plan = self._lattice(ctx, run, seen, nv)
                if plan is not None:
                    plans.append(plan)
        self._lattice_gains(ctx, plans, chosen, anchored)
        drop: set[int] = set()
        add: list[_Card] = []
        for _gain, run, found, p, way in chosen.values():
            members, hidden = run.members, run.hidden
            beyond = self._beyond_lattice(run, found, p, way)
            drop |= {id(c) for c in hidden if id(c) not in anchored and id(c) not in beyond}
            colour, share, _votes = _row_colour(members)
            centres = np.array([c.det.centre for c in hidden])
            for c in found:
                # The colour named where the card was outlined before (a strip's own ink), else the row's.
                d = np.linalg.norm(centres - np.asarray(c.det.centre), axis=1)
                near = hidden[int(d.argmin())] if d.min() < 0.5 * p else None
                c.colour, c.colour_conf = (near.colour, near.colour_conf) if near is not None else (colour, share)
                add.append(c)
        return [c for c in cards if id(c) not in drop] + add

    def _beyond_lattice(self, run: _Run, found: list[_Card], p: float, way: float) -> set[int]:
        """The run's outlined cards that carry its numbers on past the farthest number the
        lattice read the run's way (by id): each lies half a place or more beyond that reading
        and reads surely (`BEYOND_SURE`) a number farther from the whole card's. A lattice reads no farther than
        the run's farthest outline, and a misread place (a joker among numbers, a pitch a little
        off) ends what it agrees on: the outlines beyond are not its to replace. Train elevens
        8000 #13: the lattice read 12..8 and the outlines' sure 6, 5, 4 were lost."""
        ahead = [(way * (v - run.vw), self._along(c, run.cw, run.axis))
                 for c in found if (v := self._number(c.joint)) is not None and way * (v - run.vw) > 0]
        if not ahead:
            return set()
        last = max(j for j, _x in ahead)
        reach = max(x for _j, x in ahead)
        out = set()
        for c in run.hidden:
            v = self._number(c.joint)
            if (v is not None and way * (v - run.vw) > last and self._sureness(c) >= BEYOND_SURE
                    and self._along(c, run.cw, run.axis) > reach + 0.5 * p):
                out.add(id(c))
        return out

    @staticmethod
    def _lattice(ctx: ReadContext, run: _Run, p: float, nv: int) -> tuple[_Run, float, list] | None:
        """A run's lattice at pitch `p`: its places (1, 2, .. from the whole card) as cards to read
        at their corner index, each at `LATTICE_SHIFTS`; None if no place lies in the regions."""
        q = run.whole.det.quad
        slots = []
        for j in range(1, min(int(round(run.reach / p)) + 1, nv) + 1):
            for f in LATTICE_SHIFTS:
                det = _place_at(run.whole.det, q + (j + f) * p * run.axis, ctx.regions)
                if det is not None:
                    slots.append((j, _Card(det, crops=[("index", t) for t in run.corners])))
        return (run, p, slots) if slots else None

    def _lattice_gains(self, ctx: ReadContext, plans: list[tuple[_Run, float, list]], chosen: dict[int, tuple],
                       anchored: set[int]) -> None:
        """Reads the places of `plans` (lattices of `_lattice`) and keeps in `chosen`, by whole
        card, the lattice whose readings agree with their places by most more than the run's
        outlines did (at least `LATTICE_GAIN`)."""
        if not plans:
            return
        quads = [rotate_quad(c.det.quad, t) for _run, _p, slots in plans for _j, c in slots for _k, t in c.crops]
        probs = iter(self._classify(warp_crops(ctx.pyramid, quads, [INDEX_REGION] * len(quads)),
                                    ["index"] * len(quads)))
        for run, p, slots in plans:
            best: dict[int, _Card] = {}
            for j, c in slots:
                self._combine(c, [(kind, next(probs)) for kind, _t in c.crops])
                if c.joint is not None and c.card_prob >= OUTLINE_FOUND and (
                        j not in best or self._sureness(c) > self._sureness(best[j])):
                    best[j] = c

            # The way the numbers run from the whole card: the hidden cards' readings' if they
            # agree on one, else both are tried (misread strips can outvote the right way).
            for way in (run.up,) if run.up else (1.0, -1.0):

                def agree(c: _Card, j: int, vw: int = run.vw, way: float = way) -> float:
                    return self._sureness(c) if self._number(c.joint) == vw + way * j else 0.0

                new = sum(agree(c, j) for j, c in best.items())
                old = sum(agree(c, self._place(c, run.cw, run.axis, p)) for c in run.hidden if id(c) not in anchored)
                key = id(run.whole)
                if new - old >= max(LATTICE_GAIN, chosen[key][0] if key in chosen else 0.0):
                    # The place past the farthest card outlined is a guess: kept only when it agrees.
                    last = int(round(run.reach / p))
                    found = [c for j, c in best.items() if j <= last or agree(c, j) > 0.0]
                    chosen[key] = (new - old, run, found, p, way)

    def _at_places(self, hidden: list[_Card], vw: int, up: float, cw: np.ndarray, axis: np.ndarray,
                   p: float) -> bool:
        """Whether a run of hidden cards already reads as its lattice would: each card surely the
        number of its place, the places 1, 2, .. without a gap (the lattice would only read them
        again)."""
        at = [self._place(c, cw, axis, p) for c in hidden]
        return sorted(at) == list(range(1, len(hidden) + 1)) and all(
            self._sureness(c) >= SEARCH_SURE and self._number(c.joint) == vw + up * j
            for c, j in zip(hidden, at, strict=True))

    @staticmethod
    def _place(c: _Card, cw: np.ndarray, axis: np.ndarray, p: float) -> int:
        """The place of a row's lattice (whole card at `cw`, places `p` apart along `axis`) a card
        was outlined at."""
        return int(round(Recognizer._along(c, cw, axis) / p))

    @staticmethod
    def _along(c: _Card, cw: np.ndarray, axis: np.ndarray) -> float:
        """How far along a row's `axis` from its whole card's centre `cw` a card was outlined."""
        return float(np.dot(np.asarray(c.det.centre) - cw, axis))

    def _hidden_runs(self, live: list[_Card]) -> list[tuple[_Card, list[_Card], list[_Card]]]:
        """The runs of partly hidden cards of the rows whose one end is a card seen whole: each
        run with the whole card it lies under (a junior row's two runs, 1.. and ..11, each
        end under their last card), nearest first, and the row's cards. A run is two cards or
        more, or one whose number lies two or more from the whole card's (`_skips`)."""
        out = []
        for _row, members in self._game_rows(live):
            ends = [not self._hidden(c) for c in (members[0], members[-1])]
            if ends[0] == ends[1]:
                continue  # laid side by side, or whole at both ends (stacked): no one way
            seq = members if ends[0] else members[::-1]  # from the whole end on
            run: list[_Card] = []
            for c in reversed(seq):  # from the far end: a run ends under the whole card after it
                if self._hidden(c):
                    run.append(c)
                    continue
                if len(run) >= 2 or (run and self._skips(c, run[0])):
                    out.append((c, run[::-1], members))
                run = []
        return out

    def _skips(self, whole: _Card, hidden: _Card) -> bool:
        """Whether a lone partly hidden card beside a whole one reads as a number two or more
        places from it: the strips between them were not outlined at all."""
        a, b = self._number(whole.joint), self._number(hidden.joint)
        return a is not None and b is not None and abs(a - b) >= 2

    def _as_cards(self, kept: Iterable[CardReading]) -> list[_Card]:
        """The readings kept from an earlier picture that lie in rows (number cards, jokers), as
        cards of this one (as sure as they were read)."""
        made, self._anchors = self._anchors, {}
        out = []
        for r in kept:
            hit = made.get(id(r))
            if hit is None or hit[0] is not r:
                hit = (r, *self._anchor(r))
            self._anchors[id(r)] = hit
            _r, det, joint = hit
            if det is not None and joint is not None:
                out.append(_Card(det, joint=joint.copy(), card_prob=1.0, colour=r.color, colour_conf=1.0))
        return out

    def _anchor(self, r: CardReading) -> tuple[Detection | None, np.ndarray | None]:
        """The outline and joint reading of a kept reading, if it is a card that lies in rows."""
        label = str(r.value) if r.kind == "number" else r.kind
        if label not in CARD_CLASSES:
            return None, None
        q = np.asarray(r.corners, np.float64)
        v = q[3] - q[0]
        det = Detection(quad=q, centre=(float(q[:, 0].mean()), float(q[:, 1].mean())),
                        angle=math.degrees(math.atan2(v[1], v[0])) % 180.0,
                        size=(float(np.linalg.norm(q[1] - q[0])), float(np.linalg.norm(v))), face=1.0, pixels=0,
                        visible={"centre": 0.0 if r.occluded else 1.0})
        joint = np.zeros((len(CARD_CLASSES), 2))
        joint[self._deck, 0] = (1.0 - r.confidence) / max(1, self._deck_size - 1)
        joint[CARD_CLASSES.index(label), 0] = r.confidence
        joint = joint / joint.sum()
        return (det, joint) if self._in_row(_Card(det, joint=joint)) else (None, None)

    def _game_rows(self, live: list[_Card]) -> list[tuple[Row, list[_Card]]]:
        """Rows of cards (`vision.rows.find_rows`) that are one colour's, as a game's rows are:
        a hand laid out in a fan to be counted lies like a row but holds any colours."""
        out, mixed, taken = [], [], set()
        named: list[tuple[str | None, list[_Card]]] = []  # each row's colour and cards
        for row in find_rows(_outlines(live)):
            members = [live[i] for i in row.members]
            colour, share, _votes = _row_colour(members) if self.coloured else (None, 1.0, 0.0)
            if share >= ROW_SAME:
                out.append((row, members))
                taken.add(colour)
                named.append((colour, members))
            else:
                mixed.append((row, members))
        mixed.sort(key=lambda rm: -sum(_colour_votes(rm[1]).values()))
        for row, members in mixed:
            colour = _split_row_colour(members, taken)
            if colour is None:
                # A colour is another row's only when that row's numbers overlap these: one
                # colour's row laid in two pieces (1..6 and 11..19) holds each number once.
                mine = self._span(members)
                other = {x for x, m in named if _overlap(self._span(m), mine)}
                colour = _free_row_colour(members, other, self._numbers(members))
            if colour is not None:
                for c in members:
                    c.colour = colour
                taken.add(colour)
                named.append((colour, members))
                out.append((row, members))
        return out

    def _line_colours(self, rows: list[tuple[Row, list[_Card]]]) -> tuple[list[int], list[str | None]]:
        """The line of each row (by index: rows along one line whose numbers do not meet are
        pieces of one row, 1..6 and 11..19) and each line's colour, one line a colour
        (`assign_colours`, on the colour votes of its cards)."""
        spans = [self._span(m) for _r, m in rows]
        outlines = [_outlines(m) for _r, m in rows]
        line_of = list(range(len(rows)))
        for k in range(len(rows)):
            for j in sorted(set(line_of[:k])):  # the lines so far, each by its first row
                if all(not _overlap(spans[i], spans[k]) and one_line(outlines[i], outlines[k])
                       for i in range(k) if line_of[i] == j):
                    line_of[k] = j
                    break
        lines = sorted(set(line_of))
        votes = [_colour_votes([c for k, (_r, m) in enumerate(rows) if line_of[k] == li for c in m]) for li in lines]
        named = dict(zip(lines, assign_colours(votes), strict=True))
        return [lines.index(li) for li in line_of], [named[li] for li in lines]

    def _numbers(self, members: list[_Card]) -> list[int | None]:
        """The number each card reads, None for another card or none read yet."""
        return [None if c.joint is None else self._number(c.joint) for c in members]

    def _span(self, members: list[_Card]) -> tuple[int, int] | None:
        """The least and greatest number a row's cards read, None if none reads a number."""
        vs = [v for v in self._numbers(members) if v is not None]
        return (min(vs), max(vs)) if vs else None

    def _row_posteriors(self, rows: list[tuple[Row, list[_Card]]], nv: int) -> dict[int, np.ndarray]:
        """The joint reading of every card of the rows (by id) once its row's evidence is taken in."""
        numbers = [CARD_CLASSES.index(str(v)) for v in range(1, nv + 1)]
        joker = CARD_CLASSES.index("joker") if self.allowed[CARD_CLASSES.index("joker")] else None
        def emission(joint: np.ndarray) -> np.ndarray:
            q = _per_class(joint)
            e = q[numbers] + (q[joker] / nv if joker is not None else 0.0)
            return e / max(float(e.sum()), 1e-12)

        def posterior(joint: np.ndarray, m: np.ndarray) -> np.ndarray:
            # Classes outside the run (a joker, say) take the weight of a row saying nothing.
            w = np.full(len(CARD_CLASSES), 1.0 / nv)
            w[numbers] = m
            j = joint * w[:, None]
            return j / j.sum()

        share = self.config.cut_share
        out = {}
        for row, members in rows:
            evidence = row_evidence(np.array([emission(c.joint) for c in members]), row.steps,
                                    self.config.row_break, row.slack)
            for c, m in zip(members, evidence, strict=True):
                out[id(c)] = posterior(c.joint, m)
            cut = [share > 0 and self._hidden(c) for c in members]
            if not any(cut):
                continue
            # Strips whose index may show one digit of two (`rows.with_cut_index`): the row says
            # again what each is, and a strip takes that reading where it names another card, surely.
            joints = [_cut_index(c.joint, numbers, share) if k else c.joint
                      for c, k in zip(members, cut, strict=True)]
            evidence = row_evidence(np.array([emission(j) for j in joints]), row.steps,
                                    self.config.row_break, row.slack)
            for c, k, j, m in zip(members, cut, joints, evidence, strict=True):
                p = posterior(j, m)
                q = _per_class(p)
                best = int(q.argmax())
                if k and best != int(_per_class(out[id(c)]).argmax()) and q[best] >= CUT_SURE:
                    out[id(c)] = p
        return out

    def _read_empty_places(self, ctx: ReadContext, rows: list[tuple[Row, list[_Card]]],
                           posteriors: dict[int, np.ndarray]) -> list[_Card]:
        """Cards read at the places inside rows where no outline was found: the outline of the
        card before the gap moved there, read at the corner indices that show on the row's
        partly hidden cards (which depends on which way the row overlaps). One is kept when it
        reads surely as a card whose number lies between those of its neighbours and is no other
        card's of the row."""
        def value(c: _Card) -> int | None:
            return self._number(posteriors.get(id(c), c.joint))

        todo: list[tuple[_Card, int | None, int | None, set[int | None], list[_Card]]] = []
        for row, members in rows:
            corners = _row_corners(members)
            values = [value(m) for m in members]
            for k, f in empty_places(row):
                a, b = members[k], members[k + 1]
                shift = f * (np.asarray(b.det.centre) - np.asarray(a.det.centre))
                det = _place_at(a.det, a.det.quad + shift, ctx.regions)
                if det is None:
                    continue
                todo.append((_Card(det, crops=[("index", t) for t in corners]), values[k], values[k + 1],
                             set(values), members))
        if not todo:
            return []
        quads = [rotate_quad(c.det.quad, t) for c, *_rest in todo for _k, t in c.crops]
        crops = warp_crops(ctx.pyramid, quads, [INDEX_REGION] * len(quads))
        probs = iter(self._classify(crops, ["index"] * len(crops)))
        found = []
        for c, va, vb, taken, members in todo:
            self._combine(c, [(kind, next(probs)) for kind, _t in c.crops])
            if c.card_prob < OUTLINE_FOUND or self._sureness(c) < SEARCH_SURE:
                continue
            v = value(c)
            if v is None or va is None or vb is None or not min(va, vb) < v < max(va, vb) or v in taken:
                continue
            c.colour, c.colour_conf, _votes = _row_colour(members)
            found.append(c)
        return found

    def _read_between(self, ctx: ReadContext, cards: list[_Card], taken: Iterable[tuple]) -> list[_Card]:
        """Cards between two neighbours of a row whose numbers jump by more than one, where the
        detector found none (`BETWEEN_STEP`); one is kept when it reads surely as a number
        between its neighbours' that no card of the table is read as, in its row's colour (its
        neighbours' too, and its own ink's), or as a joker where they skip one number (it stands
        in the row for that number)."""
        if ROW_VALUES.get(self.game or "") is None or self.config.row_break >= 1.0:
            return []

        def number(c: _Card) -> int | None:
            return self._number(c.joint)

        todo: list[tuple[_Card, int, int]] = []
        for row, members in ctx.rows:  # as `_rows` found them (numbers as read since)
            if not any(self._hidden(c) for c in members):
                # A row laid side by side: the detector splits cards seen whole. One hidden card is
                # enough (a whole card and the lone strip of its row: train 8500 #128's 11 and 13
                # hid the 12; two were asked for before: train 7500 / 8500 +1 / +3 cards).
                continue
            colour, share, votes = _row_colour(members)
            colour_conf = _vote_sureness(share, votes)
            corners = _row_corners(members)
            for k, r in enumerate(row.steps):
                a, b = members[k], members[k + 1]
                va, vb = number(a), number(b)
                if va is None or vb is None or abs(va - vb) < 2 or r > BETWEEN_MOST + 1:
                    continue  # consecutive, or a gap of the game (junior rows: 1.. and ..11)
                if self.coloured and not a.colour == b.colour == colour:
                    continue
                move = np.asarray(b.det.centre) - np.asarray(a.det.centre)
                d = float(np.linalg.norm(move)) / a.det.size[0]
                for f in np.arange(BETWEEN_NEAR, d - BETWEEN_NEAR + 1e-9, BETWEEN_STEP) / max(d, 1e-9):
                    det = _place_at(a.det, a.det.quad + f * move, ctx.regions)
                    if det is None:
                        continue
                    card = _Card(det, crops=[("index", t) for t in corners], colour=colour, colour_conf=colour_conf)
                    todo.append((card, min(va, vb), max(va, vb), id(a)))
        if not todo:
            return []
        quads = [rotate_quad(c.det.quad, t) for c, *_rest in todo for _k, t in c.crops]
        probs = iter(self._classify(warp_crops(ctx.pyramid, quads, [INDEX_REGION] * len(quads)),
                                    ["index"] * len(quads)))
        used = {(v, col) for kind, v, col in taken if kind == "number"}
        used |= {(number(c), c.colour if self.coloured else None) for c in cards
                 if c.joint is not None and c.card_prob >= self.config.min_card_prob}
        jokers = bool(self._deck[_JOKER])
        sure = []
        for c, lo, hi, gap in todo:
            self._combine(c, [(kind, next(probs)) for kind, _t in c.crops])
            if c.joint is None or c.card_prob < OUTLINE_FOUND or self._sureness(c) < BETWEEN_SURE:
                continue
            v = number(c)
            # A joker only where one number is skipped: a longer gap is more often two segments
            # of the row, with the link cards joining them lying near.
            if (v is not None and lo < v < hi) or (jokers and hi - lo == 2 and self._label(c.joint) == "joker"):
                sure.append((c.card_prob * self._sureness(c), c, v, gap))
        found, joker_gaps = [], set()
        sure.sort(key=lambda x: -x[0])
        for _s, c, v, gap in sure:  # the surest of nearby readings (a card read at two crops a step apart)
            if any(np.hypot(*np.subtract(c.det.centre, f.det.centre)) < 0.1 * c.det.size[0] for f in found):
                continue
            if v is None:  # a joker standing in the row for a missing number: one a gap
                if gap in joker_gaps:
                    continue
                joker_gaps.add(gap)
            else:
                key = (v, c.colour if self.coloured else None)
                if key in used:
                    continue
                used.add(key)
            found.append(c)
        numbered = [c for c in found if number(c) is not None]
        if numbered and self.coloured:
            # Its own ink must say its row's colour (a card of another row lying under this one is
            # not this row's missing card), named against the table's light and inks.
            own = [replace(c) for c in numbered]
            self._colours(ctx, own)
            wrong = {id(c) for c, o in zip(numbered, own, strict=True) if o.colour != c.colour}
            found = [c for c in found if id(c) not in wrong]
        return found

    def _label(self, joint: np.ndarray) -> str:
        """The card (class) a joint reading says most likely, "none" and "back" aside."""
        return CARD_CLASSES[int((_per_class(joint) * self.card_classes).argmax())]

    def _number(self, joint: np.ndarray) -> int | None:
        label = self._label(joint)
        return int(label) if label.isdigit() else None

    def _row_cards(self, cards: list[_Card]) -> list[_Card]:
        """The cards read as cards that take a place in a row (number cards, jokers)."""
        return [c for c in cards if c.joint is not None and c.card_prob >= self.config.min_card_prob
                and self._in_row(c)]

    def _in_row(self, c: _Card) -> bool:
        """A card that reads as a number card (or a joker, which takes a number's place)."""
        label = self._label(c.joint)
        return label.isdigit() or label == "joker"

    def _orient(self, cards: list[_Card]) -> None:
        """A card's neighbours lying the same way vote on which way up it is (rows lie one way)."""
        if len(cards) < 2:
            return
        cen = np.array([c.det.centre for c in cards])
        ang = np.radians([c.det.angle for c in cards])
        vdir = np.stack([np.cos(ang), np.sin(ang)], 1)
        hgt = np.array([c.det.size[1] for c in cards])
        ev = np.array([c.evidence for c in cards])
        dist = np.linalg.norm(cen[None] - cen[:, None], axis=2)  # row i: as norm(cen - cen[i], axis=1), at once
        for i, c in enumerate(cards):
            if c.joint is None:
                continue
            d = dist[i]
            dot = vdir @ vdir[i]
            near = (d < self.config.neighbour_radius * hgt[i]) & (np.abs(dot) > math.cos(math.radians(20)))
            near[i] = False
            if not near.any():
                continue
            prior = float(np.sum(np.sign(dot[near]) * ev[near] * np.exp(-d[near] / (2.0 * hgt[i]))))
            prior = min(max(prior, -8.0), 8.0)
            w = np.array([1.0 / (1.0 + math.exp(-prior)), 1.0 / (1.0 + math.exp(prior))])
            j = c.joint * w[None, :]
            c.joint = j / j.sum()

    def _once_each(self, ctx: ReadContext, cards: list[_Card], taken: Iterable[tuple]) -> None:
        """Every number card of these decks exists once: when two cards read as the same one,
        the surer keeps it. The other is read again at moved outlines (as `_search_outlines`),
        with the numbers taken barred (train pool: 91.44 -> 91.79 % and 95.57 -> 95.63 %
        exact); failing a surer reading there, it takes its next most likely number (a 1 read
        beside the real 11 of its colour is the 1 it looked like second)."""
        used = {(v, col) for kind, v, col in taken if kind == "number"}
        live = [c for c in cards if c.joint is not None and c.card_prob >= self.config.min_card_prob]
        live.sort(key=lambda c: -float(_per_class(c.joint).max()) * c.card_prob)
        for c in live:
            colour = c.colour if self.coloured else None
            label = CARD_CLASSES[int(_per_class(c.joint).argmax())]
            if label.isdigit() and (int(label), colour) in used:
                # Read as a card a surer one is: its outline may lie on that neighbour's index
                # (overlapping rows), so its own is looked for at moved outlines first.
                barred = [CARD_CLASSES.index(str(v)) for v, col in used if col == colour]
                self._read_moved(ctx, [c], TURN_MOVES + SHIFT_MOVES if self._hidden(c) else TURN_MOVES, barred)
            for _ in range(len(CARD_CLASSES)):
                q = _per_class(c.joint)
                label = CARD_CLASSES[int(q.argmax())]
                if not label.isdigit() or (int(label), colour) not in used:
                    break
                j = c.joint.copy()
                j[int(q.argmax())] = 0.0
                if j.sum() <= 0:
                    break
                c.joint = j / j.sum()
            q = _per_class(c.joint)
            label = CARD_CLASSES[int(q.argmax())]
            if label.isdigit():
                used.add((int(label), colour))

    def _reading(self, ctx: ReadContext, c: _Card) -> CardReading | None:
        if c.joint is None or c.card_prob < self.config.min_card_prob:
            return None
        q = _per_class(c.joint)
        if self._played is not None:  # the card the game is played with that it most likely is
            q = q * self._played
        best = int(q.argmax())
        label = CARD_CLASSES[best]
        if label in ("none", "back"):
            return None
        conf = float(q[best] * c.card_prob)
        turn = 0 if c.joint[best, 0] >= c.joint[best, 1] else 2
        quad = rotate_quad(c.det.quad, turn)
        kind = "number" if label.isdigit() else label
        value = int(label) if label.isdigit() else None
        colour = None
        if self.coloured and kind == "number":
            colour = c.colour
            conf *= c.colour_conf
        if conf < self.config.min_confidence:
            return None
        if c.det.index_at is None and c.det.face < WEAK_FACE and conf < WEAK_FACE_SURE:
            return None
        alts = []
        if self.config.alternatives:
            for i in np.argsort(-q)[: self.config.alternatives]:
                if q[i] < 0.001:
                    break
                lab = CARD_CLASSES[int(i)]
                alts.append({"kind": "number" if lab.isdigit() else lab, "value": int(lab) if lab.isdigit() else None,
                             "p": round(float(q[i] * c.card_prob), 4)})
        occluded = c.det.visible.get("centre", 0) < self.config.centre_visible
        return ReadCard(kind=kind, value=value, color=colour, corners=quad_of(quad), confidence=conf,
                        occluded=occluded, alternatives=tuple(alts))

    def _colours(self, ctx: ReadContext, cards: list[_Card]) -> None:
        """Suit colour of every coloured number card, from its visible face only, with the stock
        as white reference (the table's light for cards showing too little stock). The first
        call of a read measures the light and the inks of the table's cards (`ctx.inks`); later
        ones name their cards against those."""
        if not self.coloured:
            return
        numbered = [c for c in cards
                    if c.joint is not None and CARD_CLASSES[int(_per_class(c.joint).argmax())].isdigit()]
        if not numbered:
            return
        whole = warp_crops(ctx.pyramid, [c.det.quad for c in numbered], [(0.0, 0.0, 1.0, 1.0)] * len(numbered),
                           COLOUR_CROP)
        seen = np.ones((len(numbered), COLOUR_CROP[1], COLOUR_CROP[0]), bool)
        for k, c in enumerate(numbered):
            if c.det.grid is not None:
                seen[k] = cv2.resize(c.det.grid, COLOUR_CROP, interpolation=cv2.INTER_NEAREST) > 0.6
        seen[:, :2], seen[:, -2:], seen[:, :, :2], seen[:, :, -2:] = False, False, False, False
        counts = seen.sum(axis=(1, 2))
        seen[counts < 20, 2:-2, 2:-2] = True  # too little in view: the whole face
        counts = seen.sum(axis=(1, 2))
        # The pixels in view of all cards at once (one mask over the stacked crops), card by card.
        pixs = np.split(np.stack(whole)[seen], np.cumsum(counts)[:-1])
        stocks = card_whites(pixs)
        if ctx.inks is not None:
            light, inks = ctx.inks
            readings = name_inks(measure_inks(pixs, light, stocks=stocks), SUITS, inks=inks)
        else:
            light = table_white(stocks)
            measured = measure_inks(pixs, light, stocks=stocks)
            readings = name_inks(measured, SUITS)
            # This table's own inks, measured on a first reading by hue sectors, of cards read
            # surely only: patches of a red gingham that read as unsure cards made an ink
            # cluster of their own, and the suits were named one step round. They are seen in
            # this light; a deck profile's inks, seen in the light it was taught in, only stand
            # in for them on a table showing too few cards to measure (always used, they named
            # colours worse: train printings 97.63 -> 97.15 % read exactly, held out 96.43 ->
            # 96.25 %, `benchmarks/vision_taught.py --parts inks`).
            sure = [r for c, r in zip(numbered, readings, strict=True) if self._sureness(c) >= INK_SURE]
            inks = hue_order_inks(sure) or table_inks(sure) or None
            if not inks and self.profile is not None:
                inks = getattr(self.profile, "inks", None) or None
            if inks:  # named again against the same white
                readings = name_inks(measured, SUITS, inks=inks)
            ctx.inks = (light, inks)
        for c, r in zip(numbered, readings, strict=True):
            c.colour = r.name
            c.colour_conf = max(0.05, min(1.0, 0.5 + 0.5 * r.confidence)) if r.name else 0.05
