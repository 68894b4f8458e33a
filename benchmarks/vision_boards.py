"""Accuracy and speed of the board readers (11! tiles, Numeri tokens, the die) on rendered scenes.

Scenes come from the renderer's HOLDOUT pool (printings, typefaces, tables and lights never used
in training), without hands. Each scene is read by a fresh `Recognizer` (cold: the board is
found from scratch), then again by the same one (warm: the board's view is kept, as in the live
service), then once more for a single changed region (one square, or the die). Items are matched
to the truth by position; a reading is exact when kind, value, colour and square all agree.

    .venv/bin/python benchmarks/vision_boards.py --scenes 200            # both games, one core
    .venv/bin/python benchmarks/vision_boards.py --game numeri --scenes 50 --d6 0.5 --cache /tmp/scenes

Prints one JSON object per game and a summary line; `--failures` lists what went wrong. With
`--empty-board`, an 11! board the locator does not find in the empty board's picture is read as
without it and counted (`empty_board_not_found`).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision import tokens as tokens_mod  # noqa: E402,F401  (registers the Numeri reader)
from vision.errors import CalibrationError  # noqa: E402
from vision.pipeline import Recognizer  # noqa: E402
from vision.render import random_scene, render  # noqa: E402


def scene(game: str, k: int, pool: str, seed: int, d6: float, misplaced: float = 0.0, board: str | None = None,
          tiles: str | None = None):
    rng = np.random.default_rng([seed, k, 1 if game == "start11" else 2])
    extra = {"variant": "d6"} if game == "numeri" and rng.random() < d6 else {}
    if game == "start11" and misplaced:
        extra["misplaced"] = misplaced
    sc = random_scene(game, rng, pool, hand=False, **extra)
    if board is not None or tiles is not None:
        from vision.render import on_request  # here: vision_speed_ab runs older trees' code

        on_request(sc, rng, board, tiles)
    return sc


def rendered(game: str, k: int, pool: str, seed: int, d6: float, cache: Path | None, misplaced: float = 0.0,
             board: str | None = None, tiles: str | None = None):
    if cache is not None:
        # (d6 has a dot: no with_suffix)
        name = f"{game}_{pool}_{seed}_{d6}_{misplaced}_{board or ''}{tiles or ''}_{k:05d}"
        png, js = cache / f"{name}.png", cache / f"{name}.json"
        if js.exists():
            return cv2.imread(str(png)), json.loads(js.read_text())
    image, truth = render(scene(game, k, pool, seed, d6, misplaced, board, tiles))
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(png), image)
        js.write_text(json.dumps(truth))
    return image, truth


def _centre(e: dict) -> np.ndarray:
    return np.asarray(e["corners"], float).mean(axis=0) if "corners" in e else np.asarray(e["center"], float)


def _size(e: dict) -> float:
    q = np.asarray(e["corners"], float)
    return float(np.linalg.norm(q[1] - q[0]))


def match(truth: list[dict], neutral: list[dict], pred: list[dict], radius) -> tuple[list, list, list]:
    """Pairs (truth, prediction) by nearest centres; unmatched truth; unmatched predictions that
    are not near a hidden or cut-off thing (those are neither required nor wrong)."""
    pairs, used = [], set()
    pc = [_centre(p) for p in pred]
    for t in truth:
        tc = _centre(t)
        r = radius(t)
        best, bd = None, r
        for j, c in enumerate(pc):
            if j not in used and np.linalg.norm(c - tc) < bd:
                best, bd = j, float(np.linalg.norm(c - tc))
        if best is None:
            continue
        used.add(best)
        pairs.append((t, pred[best]))
    missed = [t for t in truth if all(t is not a for a, _ in pairs)]
    extra = []
    for j, p in enumerate(pred):
        if j in used:
            continue
        if any(np.linalg.norm(pc[j] - _centre(n)) < radius(n) for n in neutral):
            continue
        extra.append(p)
    return pairs, missed, extra


def square_id(s) -> str | None:
    return None if s is None else str(s).replace("-", ":")


def score_start11(truth: dict, obs: dict):
    ppm = _ppm(truth, 600.0)
    neutral = [c for c in truth.get("hidden", []) + truth.get("outside", []) if "corners" in c]
    pairs, missed, extra = match(truth["cards"], neutral, obs["cards"], lambda t: 0.55 * 21 * ppm)
    wrong = []
    for t, p in pairs:
        same = (t["kind"], t["value"], t["color"]) == (p["kind"], p["value"], p["color"]) and \
            square_id(t.get("square")) == p.get("square")
        if not same:
            wrong.append((t, p))
    printed = sum(1 for p in extra if p.get("square") is not None)
    return len(truth["cards"]), len(pairs) - len(wrong), wrong, missed, extra, printed


KIND_TALLY = {"tokens": [0, 0, 0], "dice": [0, 0, 0]}  # Numeri: (items, read exactly, extra) per kind


def score_numeri(truth: dict, obs: dict):
    ppm = _ppm(truth, 600.0)
    neutral = truth.get("hidden", []) + truth.get("outside", [])
    neutral = [n if ("corners" in n or "center" in n) else {**n, "center": [0, 0]} for n in neutral]
    tp, tm, te = match(truth["tokens"], [n for n in neutral if "center" in n or "corners" in n], obs["tokens"],
                       lambda t: 0.5 * 24 * ppm)
    dp, dm, de = match(truth["dice"], [n for n in neutral if n.get("object") == "die" or "corners" in n],
                       obs["dice"], lambda t: 0.6 * 16 * ppm)
    wrong = [(t, p) for t, p in tp if (t["value"], t["color"], t.get("square")) != (p["value"], p["color"],
                                                                                     p.get("square"))]
    wrong_dice = [(t, p) for t, p in dp if t["value"] != p["value"]]
    KIND_TALLY["tokens"][0] += len(truth["tokens"])
    KIND_TALLY["tokens"][1] += len(tp) - len(wrong)
    KIND_TALLY["dice"][0] += len(truth["dice"])
    KIND_TALLY["dice"][1] += len(dp) - len(wrong_dice)
    KIND_TALLY["tokens"][2] += len(te)
    KIND_TALLY["dice"][2] += len(de)
    wrong += wrong_dice
    items = len(truth["tokens"]) + len(truth["dice"])
    ok = len(tp) + len(dp) - len(wrong)
    printed = sum(1 for p in te if p.get("square") is not None)
    return items, ok, wrong, tm + dm, te + de, printed


def _ppm(truth: dict, width_mm: float) -> float:
    c = np.asarray(truth["board"]["corners"], float)
    return float(np.linalg.norm(c[1] - c[0]) / width_mm)


def _region_of(truth: dict, game: str, ppm: float):
    """One changed region: a tile's square, a token's square, or the die."""
    if game == "numeri" and truth["dice"]:
        c = _centre(truth["dice"][0])
    elif game == "numeri" and truth["tokens"]:
        c = _centre(truth["tokens"][0])
    elif truth["cards"]:
        c = _centre(truth["cards"][0])
    else:
        return None
    r = 20 * ppm
    return [(int(c[0] - r), int(c[1] - r), int(c[0] + r), int(c[1] + r))]


def run_game(game: str, a) -> dict:
    items = ok = scenes_exact = printed = 0
    missed_n = extra_n = 0
    unseen = 0  # 11! boards the locator did not find in the empty board's picture
    misplaced = [0, 0]  # 11!: tiles on another row's square, of them read as the tile they are
    cold, warm, region, cpu_warm = [], [], [], []
    failures = []
    cache = Path(a.cache) if a.cache else None
    for k in range(a.scenes):
        image, truth = rendered(game, k, a.pool, a.seed, a.d6, cache, a.misplaced, a.board, a.tiles)
        rec = Recognizer(game)
        if a.truth_board:
            _give_true_board(rec, game, truth, image)
        if a.empty_board and game == "start11":
            try:
                _show_empty_board(rec, scene(game, k, a.pool, a.seed, a.d6, a.misplaced, a.board, a.tiles))
            except CalibrationError:  # the board not found empty: read as without it, and counted
                unseen += 1
        t = time.perf_counter()
        try:
            obs = rec.read(image).to_json()
        except Exception as exc:  # noqa: BLE001 - a failed scene is counted, not fatal
            obs = {"cards": [], "tokens": [], "dice": [], "error": str(exc)}
        cold.append((time.perf_counter() - t) * 1000)
        t, c = time.perf_counter(), time.process_time()
        try:
            rec.read(image)
        except Exception:  # noqa: BLE001
            pass
        warm.append((time.perf_counter() - t) * 1000)
        cpu_warm.append((time.process_time() - c) * 1000)
        reg = _region_of(truth, game, _ppm(truth, 600.0))
        if reg is not None and "error" not in obs:
            t = time.perf_counter()
            rec.read(image, regions=reg)
            region.append((time.perf_counter() - t) * 1000)
        scorer = score_start11 if game == "start11" else score_numeri
        n, good, wrong, missed, extra, pr = scorer(truth, obs)
        if game == "start11":
            lost = [t for t, _p in wrong] + missed
            for t in truth["cards"]:
                if t["kind"] == "number" and t.get("square") and not str(t["square"]).startswith(f"{t['color']}-"):
                    misplaced[0] += 1
                    misplaced[1] += all(t is not x for x in lost)
        items += n
        ok += good
        missed_n += len(missed)
        extra_n += len(extra)
        printed += pr
        exact = good == n and not extra
        scenes_exact += exact
        if not exact and a.failures:
            failures.append({"scene": k, "styles": truth["styles"], "error": obs.get("error"),
                             "wrong": [(_short(t), _short(p)) for t, p in wrong], "missed": [_short(t) for t in missed],
                             "extra": [_short(p) for p in extra]})
    res = {
        "game": game, "pool": a.pool, "scenes": a.scenes, "items": items,
        "items_exact": round(ok / max(items, 1), 5), "scenes_exact": round(scenes_exact / max(a.scenes, 1), 4),
        "missed": missed_n, "extra": extra_n, "printed_numbers_reported": printed,
        "ms_cold_median": round(statistics.median(cold), 1), "ms_warm_median": round(statistics.median(warm), 1),
        "cpu_ms_warm_median": round(statistics.median(cpu_warm), 1),
        "cpu_ms_warm_p90": round(float(np.percentile(cpu_warm, 90)), 1),
        "ms_region_median": round(statistics.median(region), 1) if region else None,
    }
    if a.empty_board and game == "start11":
        res["empty_board_not_found"] = unseen
    if misplaced[0]:
        res["misplaced"] = misplaced[0]
        res["misplaced_exact"] = round(misplaced[1] / misplaced[0], 4)
    if game == "numeri":
        res["by_kind_exact"] = {k: round(ok_ / max(n_, 1), 4) for k, (n_, ok_, _x) in KIND_TALLY.items()}
        res["by_kind_items"] = {k: n_ for k, (n_, _ok, _x) in KIND_TALLY.items()}
        res["by_kind_extra"] = {k: x for k, (_n, _ok, x) in KIND_TALLY.items()}
    if a.failures:
        res["failures"] = failures
    return res


def _give_true_board(rec: Recognizer, game: str, truth: dict, image: np.ndarray) -> None:
    """Start the recogniser's board reader from the board's true position (a perfect calibration
    that is kept): measures the readers apart from the locator."""
    from vision import board as board_mod
    from vision.boardview import BoardView
    from vision.layouts import load_layout

    layout = load_layout(game)
    view = BoardView.from_corners(truth["board"]["corners"], (layout.width_mm, layout.height_mm),
                                  (image.shape[1], image.shape[0]))
    reader = (board_mod.Start11Reader if game == "start11" else tokens_mod.NumeriReader).create()
    reader.tracker.view = view
    reader.tracker.reference = 0.0  # never judged moved
    state = board_mod._STATE if game == "start11" else tokens_mod._STATE
    state[rec] = reader


def _show_empty_board(rec: Recognizer, sc) -> None:
    """Let the 11! reader learn the empty board: the same scene (table, lamp, camera, board)
    with no tile on it, as at the start of a game."""
    from vision import board as board_mod

    empty = sc.copy()
    empty.items = [it for it in empty.items if it.obj != "tile"]
    image, _truth = render(empty)
    state = board_mod._STATE
    if rec not in state:
        state[rec] = board_mod.Start11Reader.create()
    state[rec].learn_empty(image)


def _short(e: dict) -> dict:
    return {k: e[k] for k in ("kind", "value", "color", "square", "center") if k in e}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=["start11", "numeri", "both"], default="both")
    ap.add_argument("--scenes", type=int, default=100, help="scenes per game")
    ap.add_argument("--pool", default="holdout", choices=["holdout", "train"])
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--d6", type=float, default=0.3, help="share of Numeri scenes with a plain pip die")
    ap.add_argument("--cache", default=None, help="directory to keep rendered scenes in (faster re-runs)")
    ap.add_argument("--cores", default="0", help="CPU cores to run on ('' = all)")
    ap.add_argument("--truth-board", action="store_true",
                    help="give the readers the board's true position (measures reading apart from locating)")
    ap.add_argument("--empty-board", action="store_true",
                    help="11!: the reader first sees the same board empty (as at the start of a game)")
    ap.add_argument("--failures", action="store_true", help="list the scenes that were not read exactly")
    ap.add_argument("--misplaced", type=float, default=0.0,
                    help="11!: share of coloured tiles laid on their number's square of another row (an "
                         "illegal move); prints how many of them are read as the tile they are")
    ap.add_argument("--board", default=None,
                    help="every board in this printing, one drawn only on request (train pool: varied, facsimile)")
    ap.add_argument("--tiles", default=None, choices=["any-stock"],
                    help="11!: every tile of this family, drawn only on request (train pool)")
    a = ap.parse_args(argv)
    if a.cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {int(c) for c in a.cores.split(",")})
        cv2.setNumThreads(1)
    for game in (["start11", "numeri"] if a.game == "both" else [a.game]):
        print(json.dumps(run_game(game, a)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
