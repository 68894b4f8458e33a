"""Finding the board: share found, corner error and time of `vision.board.locate` on rendered scenes.

Each scene is located from scratch (cold, no hint) on one core. A board is found when its four
corners lie within 1.5 % of the board's width of the truth, the right way round; a board found
turned half a turn is counted apart (the reader would name every square wrongly). Then the
warm paths are timed: `BoardTracker` keeping the view on the same picture, and `locate` from
the old view as a hint (the board nudged).

    .venv/bin/python benchmarks/board_locate.py                       # 40 holdout scenes per game
    .venv/bin/python benchmarks/board_locate.py --game numeri --scenes 100 --pool train --cache /tmp/locate_cache

Prints the figures, the failing scenes with their styles, and one JSON line per game.
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

from vision.boardfind import BoardTracker, locate, outline_contrast  # noqa: E402
from vision.classify import Pyramid  # noqa: E402
from vision.errors import CalibrationError  # noqa: E402
from vision.layouts import load_layout  # noqa: E402
from vision.render import random_scene, render  # noqa: E402

GAME_STREAM = {"start11": 1, "numeri": 2}
TOLERANCE = 0.015  # of the board's width


def scene(game: str, k: int, pool: str, seed: int):
    return random_scene(game, np.random.default_rng([seed, k, GAME_STREAM[game]]), pool, hand=False)


def rendered(game: str, k: int, pool: str, seed: int, cache: Path | None) -> tuple[np.ndarray, dict]:
    """The k-th scene's picture and truth, from `cache` when it was rendered before."""
    if cache is not None:
        stem = cache / f"{game}_{pool}_{seed}_{k:05d}"
        png, js = stem.with_suffix(".png"), stem.with_suffix(".json")
        if js.exists() and png.exists():
            return cv2.imread(str(png)), json.loads(js.read_text())
    image, truth = render(scene(game, k, pool, seed))
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(png), image)
        js.write_text(json.dumps(truth))
    return image, truth


def corner_errors(found: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Largest corner distance (px) as reported, and as if the board were turned half a turn."""
    straight = float(np.linalg.norm(found - truth, axis=1).max())
    turned = float(np.linalg.norm(np.roll(found, 2, axis=0) - truth, axis=1).max())
    return straight, turned


def board_width_px(truth: np.ndarray) -> float:
    return float((np.linalg.norm(truth[1] - truth[0]) + np.linalg.norm(truth[2] - truth[3])) / 2)


def run_scene(game: str, image: np.ndarray, truth: dict) -> dict:
    layout = load_layout(game)
    want = np.asarray(truth["board"]["corners"], float)
    limit = TOLERANCE * board_width_px(want)
    t, cpu = time.perf_counter(), time.process_time()
    try:
        loc = locate(image, layout)
        error = None
    except CalibrationError as exc:
        loc, error = None, str(exc)
    ms, cpu_ms = (time.perf_counter() - t) * 1000, (time.process_time() - cpu) * 1000
    row: dict = {"ms": ms, "cpu_ms": cpu_ms, "limit_px": limit, "styles": truth["styles"]}
    if loc is None:
        return {**row, "outcome": "not found", "error": error}
    straight, turned = corner_errors(loc.view.corners(), want)
    row["corner_px"] = straight
    row["outcome"] = "ok" if straight <= limit else ("turned" if turned <= limit else "wrong")
    row.update(warm_times(image, layout, loc.view))
    return row


def warm_times(image: np.ndarray, layout, view) -> dict:
    """The tracker's check on an unchanged picture, and a re-fit from the old view."""
    tracker = BoardTracker(layout, view=view, reference=outline_contrast(Pyramid(image), view, layout))
    t = time.perf_counter()
    tracker.view_for(image, Pyramid(image))
    check = (time.perf_counter() - t) * 1000
    t = time.perf_counter()
    try:
        locate(image, layout, hint=view)
    except CalibrationError:
        pass
    return {"warm_ms": check, "hint_ms": (time.perf_counter() - t) * 1000}


def _pct(values: list[float], q: float) -> float | None:
    return round(float(np.percentile(values, q)), 1) if values else None


def run_game(game: str, a) -> dict:
    cache = Path(a.cache) if a.cache else None
    rows = []
    for k in range(a.scenes):
        image, truth = rendered(game, k, a.pool, a.seed, cache)
        row = run_scene(game, image, truth)
        row["scene"] = k
        rows.append(row)
        if a.verbose:
            print(f"  {game} {k:3d} {row['outcome']:9s} {row.get('corner_px', float('nan')):7.1f} px "
                  f"{row['ms']:7.0f} ms  {truth['styles']['table']} / {truth['styles']['light']}", flush=True)
    n = len(rows)
    ok = [r for r in rows if r["outcome"] == "ok"]
    times = [r["ms"] for r in rows]
    rel = [r["corner_px"] / r["limit_px"] * TOLERANCE * 100 for r in ok]
    return {
        "game": game, "pool": a.pool, "seed": a.seed, "scenes": n,
        "found": round(len(ok) / max(n, 1), 4),
        "not_found": sum(r["outcome"] == "not found" for r in rows),
        "turned": sum(r["outcome"] == "turned" for r in rows),
        "wrong": sum(r["outcome"] == "wrong" for r in rows),
        "corner_px_median": _pct([r["corner_px"] for r in ok], 50),
        "corner_px_p90": _pct([r["corner_px"] for r in ok], 90),
        "corner_px_max": _pct([r["corner_px"] for r in ok], 100),
        "corner_pct_width_max": round(max(rel), 3) if rel else None,
        "ms_median": round(statistics.median(times), 1), "ms_p90": _pct(times, 90), "ms_max": _pct(times, 100),
        "cpu_ms_median": _pct([r["cpu_ms"] for r in rows], 50), "cpu_ms_p90": _pct([r["cpu_ms"] for r in rows], 90),
        "warm_ms_median": _pct([r["warm_ms"] for r in rows if "warm_ms" in r], 50),
        "hint_ms_median": _pct([r["hint_ms"] for r in rows if "hint_ms" in r], 50),
        "failures": [{"scene": r["scene"], "outcome": r["outcome"], "corner_px": round(r.get("corner_px", -1), 1),
                      "ms": round(r["ms"]), "table": r["styles"]["table"], "light": r["styles"]["light"],
                      "design": r["styles"].get("design"), "error": r.get("error")}
                     for r in rows if r["outcome"] != "ok"],
    }


def report(res: dict) -> None:
    print(f"{res['game']} ({res['pool']}, {res['scenes']} scenes): found {res['found']:.1%}  "
          f"(not found {res['not_found']}, turned {res['turned']}, wrong {res['wrong']})")
    print(f"  corner error px: median {res['corner_px_median']}  p90 {res['corner_px_p90']}  "
          f"max {res['corner_px_max']} ({res['corner_pct_width_max']} % of width)")
    print(f"  time ms (one core): median {res['ms_median']}  p90 {res['ms_p90']}  max {res['ms_max']}  "
          f"(CPU: median {res['cpu_ms_median']}  p90 {res['cpu_ms_p90']});  warm check {res['warm_ms_median']}  "
          f"from hint {res['hint_ms_median']}")
    for f in res["failures"]:
        print(f"  FAIL scene {f['scene']}: {f['outcome']} ({f['corner_px']} px, {f['ms']} ms) "
              f"table={f['table']} light={f['light']} {f['error'] or ''}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", choices=["start11", "numeri", "both"], default="both")
    ap.add_argument("--scenes", type=int, default=40, help="scenes per game")
    ap.add_argument("--pool", default="holdout", choices=["holdout", "train"])
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--cache", default="/tmp/locate_cache", help="directory keeping rendered scenes ('' = none)")
    ap.add_argument("--cores", default="0", help="CPU cores to run on ('' = all)")
    ap.add_argument("-v", "--verbose", action="store_true", help="one line per scene")
    a = ap.parse_args(argv)
    if a.cores and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {int(c) for c in a.cores.split(",")})
        cv2.setNumThreads(1)
    for game in (["start11", "numeri"] if a.game == "both" else [a.game]):
        res = run_game(game, a)
        report(res)
        print(json.dumps(res), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
