"""Milliseconds per motion check, per stabiliser step and per calibration, on one core.

Usage: python benchmarks/motion.py [--frames N] [--size 1640x1232] [--rendered K]
Frames are drawn with OpenCV (a textured table, cards, an arm moving in from the edge) at the
Pi camera v2's 1640x1232; the lores image is 320x240 as the Pi camera's lores stream gives it.
Aim (brief): <= 3 ms per motion check at ~320x240 on the Pi; this prints what this machine does.

With --rendered K (slow: the renderer draws every frame), the stabiliser also watches K
rendered play sequences (vision.render.SequenceRenderer: hands laying 3 cards each) and the
board finder reads rendered 11! and Numeri boards; it prints snapshots taken while a hand was
in view (must be 0), placements missed, the delay after the hand left, and corner errors.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable

import cv2
import numpy as np

from vision.calibrate import check_camera, find_board, from_corners, from_markers, marker_image
from vision.errors import VisionError
from vision.sources import Frame, lores_of
from vision.stabilizer import Stabilizer, changed_mask, prepare


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median, 95th percentile) milliseconds of `fn` over `repeat` runs, after one warm-up run."""
    fn()
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - start) * 1000)
    runs.sort()
    return statistics.median(runs), runs[min(len(runs) - 1, int(0.95 * len(runs)))]


def table(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    noise = cv2.resize(rng.normal(0, 1, (h // 10, w // 10, 3)).astype(np.float32), (w, h))
    img = np.array((70, 110, 150), np.float32) + 12 * noise
    return np.clip(img, 0, 255).astype(np.uint8)


def scene_frames(w: int, h: int, n: int) -> list[np.ndarray]:
    """A table with cards, then an arm sweeping in from the bottom edge and out again."""
    rng = np.random.default_rng(1)
    base = table(rng, w, h)
    for k in range(6):
        x, y = int(w * (0.15 + 0.12 * k)), int(h * 0.3)
        cv2.rectangle(base, (x, y), (x + w // 14, y + h // 7), (212, 220, 224), -1)
    frames = []
    for i in range(n):
        img = base.copy()
        phase = (i % 40) / 40
        if 0.25 < phase < 0.75:  # the arm is in view half the time
            reach = 1 - abs(phase - 0.5) * 4
            tip = (int(w * 0.5), int(h * (1 - 0.6 * reach)))
            cv2.line(img, (int(w * 0.55), h + 50), tip, (140, 170, 222), w // 18)
            cv2.circle(img, tip, w // 28, (140, 170, 222), -1)
        noise = rng.normal(0, 2, img.shape).astype(np.float32)
        frames.append(np.clip(img + noise, 0, 255).astype(np.uint8))
    return frames


def board_image(w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(2)
    img = table(rng, w, h)
    quad = np.float32([[0.2 * w, 0.26 * h], [0.8 * w, 0.25 * h], [0.81 * w, 0.74 * h], [0.19 * w, 0.75 * h]])
    board = np.full((600, 1000, 3), (212, 222, 228), np.uint8)
    for r, colour in enumerate([(40, 200, 230), (50, 50, 200), (180, 90, 40), (60, 160, 60)]):
        for k in range(20):
            x0, y0 = 40 + 46 * k, 60 + 120 * r
            cv2.rectangle(board, (x0, y0), (x0 + 40, y0 + 90), colour, -1)
    matrix = cv2.getPerspectiveTransform(np.float32([[0, 0], [1000, 0], [1000, 600], [0, 600]]), quad)
    warped = cv2.warpPerspective(board, matrix, (w, h))
    mask = cv2.warpPerspective(np.full((600, 1000), 255, np.uint8), matrix, (w, h)) > 127
    img[mask] = warped[mask]
    return img, quad


def markers_image(w: int, h: int) -> np.ndarray:
    img = table(np.random.default_rng(3), w, h)
    for marker_id, (x, y) in enumerate([(0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9)]):
        printed = cv2.cvtColor(marker_image(marker_id, 80), cv2.COLOR_GRAY2BGR)
        x0, y0 = int(x * w) - printed.shape[1] // 2, int(y * h) - printed.shape[0] // 2
        img[y0:y0 + printed.shape[0], x0:x0 + printed.shape[1]] = printed
    return img


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--size", default="1640x1232")
    parser.add_argument("--rendered", type=int, default=0, help="rendered sequences and boards to check (slow)")
    args = parser.parse_args()
    w, h = (int(v) for v in args.size.lower().split("x"))
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    cv2.setNumThreads(1)

    images = scene_frames(w, h, args.frames)
    lores = [lores_of(img) for img in images]
    frames = [Frame(image=img, lores=lo, seq=i + 1, time=i / 15)
              for i, (img, lo) in enumerate(zip(images, lores, strict=True))]
    lw, lh = lores[0].shape[1], lores[0].shape[0]
    print(f"frames {w}x{h}, lores {lw}x{lh}, {args.frames} frames, one core, OpenCV {cv2.__version__}")
    print(f"{'step':<44}{'median ms':>10}{'p95 ms':>9}")

    def row(name: str, fn: Callable[[], object], repeat: int) -> None:
        median, p95 = timed(fn, repeat)
        print(f"{name:<44}{median:>10.3f}{p95:>9.3f}")

    row("lores from full frame (USB/replay only)", lambda: lores_of(images[0]), 50)

    a, b = prepare(lores[0], 5), prepare(lores[30], 5)
    pairs = iter(range(10**9))

    def motion_check() -> float:
        k = next(pairs) % (len(lores) - 1)
        prev, cur = prepare(lores[k], 5), prepare(lores[k + 1], 5)
        mask = changed_mask(prev[0], prev[1], cur[0], cur[1], 18)
        return cv2.countNonZero(mask) / mask.size

    row("motion check (blur + normalised diff), lores", motion_check, 500)
    row("  of which the diff only", lambda: cv2.countNonZero(changed_mask(a[0], a[1], b[0], b[1], 18)), 500)

    stab = Stabilizer()
    index = iter(range(10**9))
    events = []

    def step() -> None:
        event = stab.feed(frames[next(index) % len(frames)])
        if event is not None:
            events.append(event)

    row("stabiliser step (feed), arm in view half the time", step, args.frames * 2)

    quiet = Stabilizer()
    still = [Frame(image=images[0], lores=lores[0], seq=i + 1, time=i / 15) for i in range(2)]
    quiet.feed(still[0])
    row("stabiliser step, still table", lambda: quiet.feed(still[1]), 300)

    snap = Stabilizer()
    snap.feed(frames[0])
    row("snapshot with changed regions (per event)", lambda: snap.snapshot_now(frames[25]), 50)
    print(f"(events during the arm sequence: {len(events)})")

    board, quad = board_image(w, h)
    row("find_board (calibration, rare)", lambda: find_board(board, (500, 300)), 10)
    markers = markers_image(w, h)
    row("from_markers (calibration, rare)", lambda: from_markers(markers, marker_mm=40), 10)
    cal = from_corners(quad, (500, 300), board)
    row("camera_moved check (ORB, per stable event)", lambda: check_camera(cal, board), 20)
    if args.rendered:
        rendered_checks(args.rendered, (w, h))


def rendered_checks(count: int, size: tuple[int, int]) -> None:
    """Behaviour on the synthetic renderer's play sequences and boards (see the module docstring)."""
    from vision.calibrate import order_corners
    from vision.layouts import load_layout
    from vision.render import SequenceRenderer, random_scene, render
    from vision.render.sequence import place_card_changes

    games = ["elfer-raus", "11-nimmt", "numeri", "start11", "elevens", "elfer-raus-junior"]
    with_hand = placements = reported = 0
    delays: list[int] = []
    for seed in range(count):
        game = games[seed % len(games)]
        rng = np.random.default_rng(seed)
        scene = random_scene(game, rng, size=size, hand=False, distractors=False)
        colour = None if game == "11-nimmt" else "red"
        cards = [{"kind": "number", "value": int(v), "color": colour} for v in rng.integers(1, 20, 3)]
        stab = Stabilizer()
        hand_before, clear_at = False, None
        for f in SequenceRenderer(scene, fps=15, settle_frames=10, seed=seed).play(
                place_card_changes(scene, cards, rng)):
            seq = f.index + 1
            event = stab.feed(Frame(image=f.image, lores=lores_of(f.image), seq=seq, time=f.t))
            hand = bool(f.truth["hand"])
            if hand_before and not hand:
                clear_at = seq
                placements += 1
            hand_before = hand
            if event is not None and not event.first:
                with_hand += hand
                reported += 1
                if clear_at is not None:
                    delays.append(seq - clear_at)
    print(f"rendered sequences: {count}, placements {placements}, reported {reported}, "
          f"snapshots with a hand in view {with_hand}")
    if delays:
        print(f"  frames from the first hand-free frame to the snapshot: median {statistics.median(delays)}, "
              f"max {max(delays)} (15 fps)")
    errors, refused = [], 0
    for seed in range(count):
        game = ("start11", "numeri")[seed % 2]
        img, truth = render(random_scene(game, np.random.default_rng(seed), size=size, hand=False))
        try:
            found = find_board(img, load_layout(game))
        except VisionError:  # not found, or cut off at the picture's edge (some scenes frame it so)
            refused += 1
            continue
        true = order_corners(truth["board"]["corners"])
        errors.append(float(np.max(np.linalg.norm(order_corners(found.corners) - true, axis=1))))
    if errors:
        errors.sort()
        print(f"rendered boards: {count}, refused (not found or cut off) {refused}, corner error px: "
              f"median {statistics.median(errors):.2f}, max {errors[-1]:.2f}, "
              f"within 4 px {sum(e <= 4 for e in errors)}/{len(errors)}")


if __name__ == "__main__":
    main()
