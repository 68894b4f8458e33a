"""Card recognition speed of two source trees, photo by photo in turns, on one core.

Usage: python benchmarks/vision_speed_ab.py OLD_TREE NEW_TREE [--scenes 24] [--repeat 7] [--core 1]
       [--region] [--game heaps|numeri|start11] [--each] [--set KEY=VALUE ...]

    python benchmarks/vision_speed_ab.py . . --set index_elsewhere=0   # one tree, a setting changed

    git worktree add /tmp/old <commit>   # the code to compare against
    python benchmarks/vision_speed_ab.py /tmp/old .

On a shared virtual machine a run of `vision_speed.py` drifts by ±15 ms from one minute to the
next, more than most changes: two runs taken one after the other do not say which tree is
faster. Here each tree reads in its own process (its `vision` package first on the path),
both pinned to the same core, and they take turns photo by photo (the order swapped each time),
so that a slow minute slows both. Prints each tree's median over the photos of each photo's
median read time (CPU), and the paired difference per photo. `--region`: the re-read of one
changed region (one card plus a margin) instead of the full read. `--game`: a board game's
held-out scenes (`vision_boards.py`'s, seed 2024) read by its board reader instead of card tables
(a warm read: the board's view kept, as in the service), or `heaps`: held-out card tables laid out
to be counted (loose heaps, which are read twice). `--set`: a RecognizerConfig field of the NEW
tree's recogniser changed, as `vision_accuracy.py --set` takes it (the cost of a setting).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import numpy as np

# Each tree's reader: renders the photos `vision_speed.py` times (its helpers, run on the tree's
# own `vision`), reads each twice (the card size is then known, as for every picture after the
# first), then times one read per line it is sent.
CHILD = r"""
import json, os, sys, time
tree, core, n, region, bench, game = (sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1",
                                     sys.argv[5], sys.argv[6])
settings = json.loads(sys.argv[7])
sys.path[:0] = [tree, bench]  # the tree's vision package; vision_speed's photos
os.sched_setaffinity(0, {core})
import cv2
cv2.setNumThreads(1)
import vision
if not vision.__file__.startswith(tree):
    sys.exit(f"vision imported from {vision.__file__}, not from {tree}")
from vision.pipeline import Recognizer, RecognizerConfig
from vision_speed import one_card_region, speed_photos
if game == "cards":
    photos = speed_photos(n, 4000)
    def region_of(truth):
        return one_card_region(truth)
elif game == "heaps":  # held-out round-end counts: loose heaps, read twice
    import numpy as np
    from vision.render import random_scene, render
    games = ("elfer-raus", "elevens", "11-nimmt", "elfer-raus-junior")
    photos = [(games[k % 4], *render(random_scene(games[k % 4], np.random.default_rng([4000, k]), "holdout",
                                                  hand=False, mode="count"))) for k in range(n)]
    def region_of(truth):
        return one_card_region(truth)
else:
    import vision_boards
    photos = [(game, *vision_boards.rendered(game, k, "holdout", 2024, 0.3, None)) for k in range(n)]
    def region_of(truth):
        return vision_boards._region_of(truth, game, vision_boards._ppm(truth, 600.0))
shots = []
for game, image, truth in photos:
    rec = Recognizer(game, RecognizerConfig(**settings))
    rec.read(image)
    rec.read(image)
    regions = region_of(truth) if region else None
    if regions:
        rec.read(image, regions=regions)
    shots.append((rec, image, regions))
print("ready", flush=True)
for line in sys.stdin:
    rec, image, regions = shots[int(line)]
    t = time.process_time()
    rec.read(image, regions=regions)
    print((time.process_time() - t) * 1000, flush=True)
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--scenes", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--core", type=int, default=1)
    ap.add_argument("--region", action="store_true", help="re-read one changed region instead of the whole photo")
    ap.add_argument("--each", action="store_true", help="print each photo's two medians, fastest first")
    ap.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="change a RecognizerConfig field of the NEW tree's recogniser, e.g. index_elsewhere=0")
    ap.add_argument("--game", default="cards", choices=["cards", "heaps", "numeri", "start11"],
                    help="card tables (default), loose heaps of cards laid out to be counted, or a board game's "
                         "held-out scenes")
    a = ap.parse_args()
    trees = [str(Path(t).resolve()) for t in (a.old, a.new)]
    for t in trees:
        if not (Path(t) / "vision" / "pipeline.py").is_file():
            print(f"vision_speed_ab: {t} holds no vision package", file=sys.stderr)
            sys.exit(2)
    bench = str(Path(__file__).resolve().parent)
    from vision_accuracy import config_settings

    try:
        settings = config_settings(a.set)
    except ValueError as e:
        ap.error(str(e))
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, t, str(a.core), str(a.scenes), "1" if a.region else "0",
                               bench, a.game, json.dumps(settings if i == 1 else {})],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) for i, t in enumerate(trees)]
    for p in procs:
        if p.stdout.readline().strip() != "ready":
            sys.exit("vision_speed_ab: a reader failed to start")
    times = np.zeros((2, a.scenes, a.repeat))
    for rep in range(a.repeat):
        for k in range(a.scenes):
            for i in (0, 1) if (rep + k) % 2 == 0 else (1, 0):
                procs[i].stdin.write(f"{k}\n")
                procs[i].stdin.flush()
                times[i, k, rep] = float(procs[i].stdout.readline())
    for p in procs:
        p.stdin.close()
        p.wait()
    med = np.median(times, axis=2)
    what = ("region re-read" if a.region else "full read") + ("" if a.game == "cards" else f" ({a.game})")
    for t, m in zip(trees, med, strict=True):
        print(f"{t}: {what}, median over {a.scenes} photos of each photo's median {np.median(m):.1f} ms CPU "
              f"(90th percentile {np.percentile(m, 90):.1f} ms)")
    d = med[1] - med[0]
    if a.each:
        for k in np.argsort(med[0]):
            print(f"  photo {k:2d}: {med[0][k]:6.1f} -> {med[1][k]:6.1f} ms ({d[k]:+.1f})")
    print(f"new - old, per photo: median {np.median(d):+.1f} ms, mean {np.mean(d):+.1f} ms; "
          f"new faster on {int((d < 0).sum())} of {a.scenes} photos")


if __name__ == "__main__":
    main()
