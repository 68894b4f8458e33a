"""Contact sheets of rendered table scenes (look at them: they must read as photographs), and
the renderer's speed.

    .venv/bin/python benchmarks/render_samples.py                      # sheets in artifacts/render/
    .venv/bin/python benchmarks/render_samples.py --pool holdout --seed 3
    .venv/bin/python benchmarks/render_samples.py --truth              # outlines of the truth drawn on top
    .venv/bin/python benchmarks/render_samples.py --faces              # card/tile/token/die faces per design
    .venv/bin/python benchmarks/render_samples.py --bench              # ms per scene and per sequence frame

Speed is measured on one core (OpenCV threads off) at the default 1640×1232.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.render import (  # noqa: E402
    GAMES,
    Change,
    Item,
    SequenceRenderer,
    random_design,
    random_scene,
    render,
    render_card,
)

CONDITIONS = [
    ("plain", {}),
    ("hand", {"hand": True}),
    ("props", {"distractors": True}),
    ("count", {"mode": "count"}),
]


def _label(img: np.ndarray, text: str) -> np.ndarray:
    """The image with a caption strip above it (never over it)."""
    strip = np.zeros((22, img.shape[1], 3), np.uint8)
    cv2.putText(strip, text, (4, 16), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1, cv2.LINE_AA)
    return np.vstack([strip, img])


def _draw_truth(img: np.ndarray, truth: dict) -> np.ndarray:
    out = img.copy()
    for c in truth["cards"]:
        col = (0, 0, 255) if c.get("occluded") else (0, 255, 0)
        cv2.polylines(out, [np.round(np.array(c["corners"])).astype(np.int32)], True, col, 2)
        x, y = c["corners"][0]
        cv2.putText(out, f"{c['value'] if c['value'] is not None else c['kind']}", (int(x), int(y) - 4),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.6, col, 2)
    for t in truth["tokens"]:
        cv2.circle(out, (int(t["center"][0]), int(t["center"][1])), 6, (255, 0, 255), 2)
    for d in truth["dice"]:
        cv2.polylines(out, [np.round(np.array(d["corners"])).astype(np.int32)], True, (255, 255, 0), 2)
    if "board" in truth:
        cv2.polylines(out, [np.round(np.array(truth["board"]["corners"])).astype(np.int32)], True, (255, 128, 0), 2)
    return out


def sheets(out_dir: Path, pool: str, seed: int, truth: bool, cols: int = 4, thumb_w: int = 560) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for game in GAMES:
        tiles = []
        for k in range(8):
            name, over = CONDITIONS[k % len(CONDITIONS)]
            if name == "count" and game in ("start11", "numeri"):
                name, over = "plain", {}
            rng = np.random.default_rng([seed, GAMES.index(game), k])
            scene = random_scene(game, rng, pool, **over)
            img, t = render(scene)
            if truth:
                img = _draw_truth(img, t)
            th = cv2.resize(img, (thumb_w, int(thumb_w * img.shape[0] / img.shape[1])), interpolation=cv2.INTER_AREA)
            tiles.append(_label(th, f"{game} {name} | {scene.table.name} | {scene.light.name} | "
                                    f"{scene.design.template}"))
        rows = [np.hstack(tiles[i:i + cols]) for i in range(0, len(tiles), cols)]
        path = out_dir / f"sheet_{game}_{pool}_{seed}.png"
        cv2.imwrite(str(path), np.vstack(rows))
        written.append(path)
        print(path)
    return written


def face_sheet(out_dir: Path, pool: str, seed: int) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(8):
        d = random_design(rng, pool)
        cards = [{"kind": "number", "value": int(rng.integers(1, 22)), "color": c}
                 for c in ("yellow", "red", "blue", "green")]
        cards += [{"kind": "number", "value": 6, "color": "red"}, {"kind": "number", "value": int(rng.integers(1, 101)),
                                                                   "color": None},
                  {"kind": "bull", "value": None, "color": None}, {"kind": "joker", "value": None, "color": None},
                  {"kind": "link", "value": None, "color": None}, {"kind": "bonus", "value": None, "color": None}]
        ims = []
        for c in cards:
            im = render_card(c, d, 200)
            bg = np.full((210, 150, 3), 70, np.uint8)
            a = im[..., 3:4].astype(np.float32) / 255
            h, w = im.shape[:2]
            bg[5:5 + h, 5:5 + w] = (im[..., :3] * a + bg[5:5 + h, 5:5 + w] * (1 - a)).astype(np.uint8)
            ims.append(bg)
        small = []
        for c in ({"object": "tile", "kind": "number", "value": 9, "color": "blue"},
                  {"object": "tile", "kind": "joker", "value": 13, "color": "gray"},
                  {"object": "token", "value": 4, "color": "green"}, {"object": "die", "value": "star"}):
            im = render_card(c, d, 48)
            bg = np.full((52, 75, 3), 70, np.uint8)
            a = im[..., 3:4].astype(np.float32) / 255
            h, w = im.shape[:2]
            bg[2:2 + h, 2:2 + w] = (im[..., :3] * a + bg[2:2 + h, 2:2 + w] * (1 - a)).astype(np.uint8)
            small.append(bg)
        col = np.vstack(small + [np.full((210 - 4 * 52, 75, 3), 70, np.uint8)])
        rows.append(_label(np.hstack(ims + [col]), d.name))
    path = out_dir / f"faces_{pool}_{seed}.png"
    cv2.imwrite(str(path), np.vstack(rows))
    print(path)
    return path


def bench(n: int = 12) -> None:
    """Wall-clock and CPU time (the CPU figure is what one free core would take on a busy machine)."""
    cv2.setNumThreads(1)
    warm = random_scene("elfer-raus", np.random.default_rng(0))
    render(warm)
    times, cpu = {}, {}
    for game in GAMES:
        ts, cs = [], []
        for k in range(max(1, n // len(GAMES))):
            scene = random_scene(game, np.random.default_rng([99, k]))
            t, c = time.perf_counter(), time.process_time()
            render(scene)
            ts.append((time.perf_counter() - t) * 1000)
            cs.append((time.process_time() - c) * 1000)
        times[game], cpu[game] = ts, cs
        again = time.process_time()
        render(scene)
        cpu[game + " (same scene again)"] = [(time.process_time() - again) * 1000]
    allt = [x for k, v in times.items() for x in v]
    allc = [x for k, v in cpu.items() if "again" not in k for x in v]
    print("scene render (new random scene each time, 1640x1232, 1 core): "
          f"wall median {statistics.median(allt):.0f} ms, "
          f"CPU median {statistics.median(allc):.0f} ms, CPU max {max(allc):.0f} ms")
    for g, cs in cpu.items():
        print(f"  {g:36s} CPU median {statistics.median(cs):.0f} ms")
    scene = random_scene("elfer-raus", np.random.default_rng(5), hand=False, mode="side")
    sr = SequenceRenderer(scene, fps=15)
    item = Item("card", {"kind": "number", "value": 7, "color": "red"}, 0.0, 0.0, 0.0, layer=999, seed=1)
    frame_ms, frame_cpu = [], []
    t, c = time.perf_counter(), time.process_time()
    for _f in sr.play([Change("add", item=item), Change("move", index=0, x=60.0, y=40.0)]):
        frame_ms.append((time.perf_counter() - t) * 1000)
        frame_cpu.append((time.process_time() - c) * 1000)
        t, c = time.perf_counter(), time.process_time()
    steady = sorted(frame_cpu)[: int(len(frame_cpu) * 0.9)]
    print(f"sequence frames (1640x1232, 15 fps, no JPEG): {len(frame_cpu)} frames, CPU median "
          f"{statistics.median(frame_cpu):.1f} ms, CPU mean {statistics.mean(frame_cpu):.1f} ms (including the "
          f"table re-render at each pick-up/placement), 90% of frames <= {max(steady):.1f} ms, "
          f"max {max(frame_cpu):.0f} ms; wall median {statistics.median(frame_ms):.1f} ms")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=Path("artifacts/render"))
    ap.add_argument("--pool", default="train", choices=["train", "holdout"])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--truth", action="store_true", help="draw the truth outlines on the images")
    ap.add_argument("--faces", action="store_true", help="only the sheet of card faces")
    ap.add_argument("--bench", action="store_true", help="only print timings")
    a = ap.parse_args(argv)
    if a.bench:
        bench()
        return 0
    if a.faces:
        face_sheet(a.out, a.pool, a.seed)
        return 0
    sheets(a.out, a.pool, a.seed, a.truth)
    face_sheet(a.out, a.pool, a.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
