"""Scoring readings against the renderer's truth (used by tests, benchmarks and model selection).

Matching: every truth card visible in the photo (and not under a hand) is paired with the
nearest unpaired reading whose centre lies within `tol` card widths of its centre (greedy, by
distance); then identity is compared (kind, value, colour). A table is exactly right when every
visible card is paired and read exactly and nothing else is reported.

The truth requires a card when its middle or a corner index is all but wholly in view; a card
more covered is listed hidden. A reading left unpaired that names a hidden card lying within
`tol` of its width, with at least `HIDDEN_SHOWN` of it in view, is neither counted nor held
against the reader (`seen_hidden`), as readings under a hand are not: it is a card on the table
read right, not a false card (as detection benchmarks' "don't care" objects). Misnamed, or under
an 11 nimmt! pile's top (only the top is the game's), it is a false card.

Likewise a card cut by the picture's border is not required (the reader is not to report cards
running out of the picture), but one cut by a hair, at least `CUT_SHOWN` of it in the picture,
read right where it lies, is neither counted nor held against the reader (`seen_cut`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import cv2
import numpy as np

SWAPS = ({"yellow", "green"}, {"blue", "green"})
# Share of a hidden card in view from which reading it right is no false card: the stacks' and
# piles' inner cards mostly show under a tenth; a card half under another, its index cut, half.
HIDDEN_SHOWN = 0.25
# Share of a card cut by the picture's border in view from which reading it right is no false
# card: the truth's "cut" is all or nothing at the border's pixel, and an outline found at a
# card width of 36-48 pixels is a few pixels sure (3 % of a card's length is 6-10 pixels here).
CUT_SHOWN = 0.97
PAIRS = ({6, 9}, {1, 7}, {11, 17}, {12, 21}, {16, 91}, {18, 81}, {19, 61}, {66, 99}, {68, 89}, {86, 98})


@dataclass
class Score:
    truth: int = 0
    predicted: int = 0
    matched: int = 0
    exact: int = 0
    exact_by_place: int = 0  # exact when readings are paired with the nearest card only
    scenes: int = 0
    scenes_exact: int = 0
    colour_swaps: Counter = field(default_factory=Counter)  # "yellow/green", "blue/green"
    value_pairs: Counter = field(default_factory=Counter)  # "6/9", ...
    errors: list = field(default_factory=list)  # (scene id, truth, reading) of misreads
    missed: list = field(default_factory=list)
    extra: list = field(default_factory=list)
    confidences: list = field(default_factory=list)  # (confidence, correct) of matched readings
    seen_hidden: int = 0  # readings naming a hidden card in view where it lies: not counted
    seen_cut: int = 0  # readings naming a card cut by a hair by the border where it lies: not counted

    def add(self, other: Score) -> None:
        for k in ("truth", "predicted", "matched", "exact", "exact_by_place", "scenes", "scenes_exact",
                  "seen_hidden", "seen_cut"):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        self.colour_swaps.update(other.colour_swaps)
        self.value_pairs.update(other.value_pairs)
        self.errors += other.errors
        self.missed += other.missed
        self.extra += other.extra
        self.confidences += other.confidences

    def summary(self) -> dict:
        t, p = max(1, self.truth), max(1, self.predicted)
        return {"scenes": self.scenes, "cards": self.truth, "recall": self.matched / t, "precision": self.matched / p,
                "exact": self.exact / t, "exact_by_place": self.exact_by_place / t,
                "exact_of_matched": self.exact / max(1, self.matched),
                "scenes_exact": self.scenes_exact / max(1, self.scenes),
                "yellow_green_swaps": self.colour_swaps["yellow/green"],
                "blue_green_swaps": self.colour_swaps["blue/green"], "value_pairs": dict(self.value_pairs),
                "ece": ece(self.confidences), "seen_hidden": self.seen_hidden, "seen_cut": self.seen_cut,
                "precision_counting_hidden": self.matched / max(1, self.predicted + self.seen_hidden + self.seen_cut)}


def _names_hidden(r: dict, hidden: list[dict], tol: float) -> bool:
    """The reading names a hidden card in view (`HIDDEN_SHOWN`) whose centre lies within `tol`
    of its width."""
    c = _centre(r["corners"])
    for h in hidden:
        if (h.get("object", "card") != "card" or h.get("pile") or h.get("shown", 0.0) < HIDDEN_SHOWN
                or not same_card(h, r)):
            continue
        width = float(np.linalg.norm(np.subtract(h["corners"][1], h["corners"][0])))
        if np.linalg.norm(_centre(h["corners"]) - c) <= tol * width:
            return True
    return False


def _names_cut(r: dict, outside: list[dict], size: tuple[int, int] | None, tol: float) -> bool:
    """The reading names a card cut by the picture's border, at least `CUT_SHOWN` of it in the
    picture (`size`: its width and height), whose centre lies within `tol` of its width."""
    if size is None:
        return False
    w, h = size
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    c = _centre(r["corners"])
    for o in outside:
        if o.get("object", "card") != "card" or not same_card(o, r):
            continue
        q = np.asarray(o["corners"], np.float32)
        width = float(np.linalg.norm(q[1] - q[0]))
        if np.linalg.norm(_centre(o["corners"]) - c) > tol * width:
            continue
        shown, _ = cv2.intersectConvexConvex(q, frame)
        if shown >= CUT_SHOWN * cv2.contourArea(q):
            return True
    return False


def ece(pairs: list[tuple[float, bool]], bins: int = 10) -> float:
    if not pairs:
        return 0.0
    c = np.array([p[0] for p in pairs])
    ok = np.array([p[1] for p in pairs], float)
    e = 0.0
    for a, b in zip(np.linspace(0, 1, bins + 1)[:-1], np.linspace(0, 1, bins + 1)[1:], strict=True):
        m = (c > a) & (c <= b)
        if m.any():
            e += m.mean() * abs(ok[m].mean() - c[m].mean())
    return float(e)


def visible_truth(truth: dict) -> list[dict]:
    under = set(truth.get("under_hand", {}).get("cards", []))
    return [c for i, c in enumerate(truth["cards"]) if i not in under]


def _centre(corners) -> np.ndarray:
    return np.asarray(corners, np.float64).reshape(4, 2).mean(axis=0)


def same_card(t: dict, r: dict) -> bool:
    return t["kind"] == r["kind"] and t.get("value") == r.get("value") and t.get("color") == r.get("color")


def _greedy(pairs: list[tuple[float, int, int]]) -> list[tuple[int, int]]:
    """(truth, reading) pairs taken in the given order, each card and reading once."""
    used_t, used_r, out = set(), set(), []
    for _d, i, j in pairs:
        if i not in used_t and j not in used_r:
            used_t.add(i)
            used_r.add(j)
            out.append((i, j))
    return out


def confirm_from_truth(cards: list[dict], truth: dict, tol: float = 0.3) -> list[dict | None]:
    """What players do on the phone when teaching a deck (`profile.teach`): each drafted card
    named as the card lying there (its centre within `tol` of a card's width), None where none lies."""
    out: list[dict | None] = []
    for c in cards:
        centre = _centre(c["corners"])
        best = min(truth["cards"], key=lambda t: float(np.linalg.norm(_centre(t["corners"]) - centre)), default=None)
        if best is None:
            out.append(None)
            continue
        w = float(np.linalg.norm(np.subtract(best["corners"][1], best["corners"][0])))
        near = float(np.linalg.norm(_centre(best["corners"]) - centre)) < tol * w
        out.append({k: best[k] for k in ("kind", "value", "color")} if near else None)
    return out


def score_scene(truth: dict, readings: list[dict], scene_id: str = "", tol: float = 0.3,
                ignore_under_hand: bool = True) -> Score:
    """Score one photo: `readings` are `CardReading.to_json()` dicts."""
    ts = visible_truth(truth) if ignore_under_hand else list(truth["cards"])
    s = Score(truth=len(ts), predicted=len(readings), scenes=1)
    if ignore_under_hand:
        # Readings of cards under a hand neither count nor hurt.
        hidden = [c for i, c in enumerate(truth["cards"]) if i in set(truth.get("under_hand", {}).get("cards", []))]
        hc = [_centre(c["corners"]) for c in hidden]
        keep = []
        for r in readings:
            rc = _centre(r["corners"])
            if any(np.linalg.norm(rc - c) < 40 for c in hc):
                continue
            keep.append(r)
        readings = keep
        s.predicted = len(readings)
    tc = [_centre(c["corners"]) for c in ts]
    rc = [_centre(r["corners"]) for r in readings]
    widths = [float(np.linalg.norm(np.subtract(c["corners"][1], c["corners"][0]))) for c in ts]
    pairs = []
    for i, a in enumerate(tc):
        for j, b in enumerate(rc):
            d = float(np.linalg.norm(a - b))
            if d <= tol * widths[i]:
                pairs.append((d, i, j))
    # A reading is paired first with the card it names, if that lies within reach, then with
    # the nearest card left: in a heap, a card lying over another is read right even when its
    # centre is nearer the other's (as detection benchmarks pair by class before by place).
    # Paired by place alone (stop 35 and before), the same readings count `exact_by_place`.
    pairs.sort()
    s.exact_by_place = sum(same_card(ts[i], readings[j]) for i, j in _greedy(pairs))
    pairs.sort(key=lambda p: not same_card(ts[p[1]], readings[p[2]]))  # stable: nearest first within each
    used_t, used_r = set(), set()
    for i, j in _greedy(pairs):
        used_t.add(i)
        used_r.add(j)
        t, r = ts[i], readings[j]
        s.matched += 1
        ok = same_card(t, r)
        s.exact += ok
        s.confidences.append((float(r.get("confidence", 0.0)), bool(ok)))
        if not ok:
            s.errors.append((scene_id, {k: t.get(k) for k in ("kind", "value", "color", "occluded")},
                             {k: r.get(k) for k in ("kind", "value", "color", "confidence")}))
            cols = {t.get("color"), r.get("color")}
            for sw in SWAPS:
                if cols == sw:
                    s.colour_swaps["/".join(sorted(sw, key=lambda c: c != "yellow" and c != "blue"))] += 1
            vals = {t.get("value"), r.get("value")}
            for pr in PAIRS:
                if vals == pr:
                    s.value_pairs["/".join(str(v) for v in sorted(pr))] += 1
    s.missed = [(scene_id, {k: ts[i].get(k) for k in ("kind", "value", "color", "occluded")})
                for i in range(len(ts)) if i not in used_t]
    left = [j for j in range(len(readings)) if j not in used_r]
    seen = {j for j in left if _names_hidden(readings[j], truth.get("hidden", []), tol)}
    outside, size = truth.get("outside", []), truth.get("size")
    cut = {j for j in left if j not in seen and _names_cut(readings[j], outside, size, tol)}
    s.seen_hidden, s.seen_cut = len(seen), len(cut)
    seen |= cut
    s.predicted -= len(seen)
    s.extra = [(scene_id, {k: readings[j].get(k) for k in ("kind", "value", "color", "confidence")})
               for j in left if j not in seen]
    s.scenes_exact = int(s.exact == s.truth and s.predicted == s.truth)
    return s


# ----------------------------------------------------------------------------------------
# Seeded scenes, one photographic condition at a time (tests and benchmarks)

SMALL = (820, 616)  # half the Pi camera's binned mode: same geometry, four times faster to render
FULL = (1640, 1232)
CONDITIONS = ("plain", "rotation", "tilt", "glare", "dim", "warm", "blur", "overlap", "light-table", "count")


def condition_overrides(name: str, rng: np.random.Generator) -> dict:
    """`random_scene` overrides that put one condition in the photo (calm camera otherwise).

    Styles come from the HOLDOUT pool (never used in training)."""
    from dataclasses import replace

    from vision.render import random_light, random_table

    def light(lname, **kw):
        return replace(random_light(rng, "holdout", name=lname), **kw)

    calm = {"tilt_x_deg": 0.5, "tilt_y_deg": -0.5, "focus_sigma": 0.6, "motion_px": 0.0}
    table = {
        "plain": {"camera": calm},
        "rotation": {"camera": calm, "angle": 37.0},
        "tilt": {"camera": {**calm, "tilt_x_deg": 7.0, "tilt_y_deg": -6.0, "k1": 0.05}},
        "glare": {"camera": calm, "light": light("halogen-spot", glare=((0.45, 0.5, 0.22, 0.16, 20.0, 0.95),
                                                                        (0.7, 0.3, 0.1, 0.1, 0.0, 0.8)))},
        "dim": {"camera": {**calm, "noise": 0.02, "shot": 0.03}, "light": light("dim-kitchen", level=0.45)},
        "warm": {"camera": calm, "light": light("two-lamps", temp_k=2600.0, wb_k=4800.0)},
        "blur": {"camera": {**calm, "focus_sigma": 2.0, "motion_px": 3.0, "motion_deg": 30.0}},
        "overlap": {"camera": calm, "mode": "overlap"},
        "light-table": {"camera": calm, "table": random_table(rng, "holdout", name="white-cloth")},
        "count": {"camera": calm, "mode": "count"},
    }
    if name not in table:
        raise ValueError(f"unknown condition {name!r}; expected one of {CONDITIONS}")
    return table[name]


def condition_scene(game: str, condition: str, seed: int, size: tuple[int, int] = SMALL, **extra):
    """A seeded holdout scene of `game` under one `condition` (no hand, no props unless asked)."""
    import zlib

    from vision.render import random_scene

    rng = np.random.default_rng([seed, zlib.crc32(f"{game}/{condition}".encode()) % 100_000])
    kw = {"hand": False, "distractors": False, **condition_overrides(condition, rng), **extra}
    if game == "11-nimmt" and kw.get("mode") == "overlap":
        kw.pop("mode")  # piles are 11 nimmt!'s overlap
    return random_scene(game, rng, "holdout", size=size, **kw)
