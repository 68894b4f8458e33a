"""Why cards of loose heaps are missed: how much of each missed card shows, and whether any pass
of the detector outlined it.

Usage: python benchmarks/heap_misses.py [--pool train] [--seeds 7000,8000] [--scenes 200] [--list]

The heaps are the round-end "count" tables of `vision_accuracy.py` (the same scenes for the same
seeds). A missed card (as `score_scene` pairs readings) has its own outline when an outline of
any pass (the first, and a heap's turned ones) lies within 0.15 of its width of its centre,
within 10° of its direction and 15 % of its width; otherwise the outlines near it are other
cards'. The share of a card that shows is its pixels left uncovered by the items drawn after
it (the renderer's outlines in drawing order), over its area. Prints the counts and the
quartiles of the shown share; `--list` prints each missed card.

It also says where the index finder (`cardindex.onnx`, a heap's last pass, and run on tables
whose cards lie over one another) lost each missed card, at the first stage that fails: the
finder did not run (no card found lies over another); no pixel of its corner index boxes shows;
the finder's face map stays under 0.5 on them; no peak of `decode_indices` lies within
FINDER_NEAR of its width of its centre and nearer to it than to any other card's; a peak does,
but it was taken for a card read (`_read_already`) and not read; it was read, but no reading
near it names the card; one does, but it was not added (under `INDEX_NEW` / `INDEX_UNDER` /
`INDEX_ELSEWHERE`, or taken for a card read). `--list` also gives, for each, how far the
nearest card lies (its widths) and how much it is turned from it, and the share of the finder's
votes from its own index pixels that lie nearer to its centre than to any other card's.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this tree's vision, not the installed one

GAMES = ("elfer-raus", "elevens", "11-nimmt", "elfer-raus-junior")
OWN_NEAR, OWN_TURN, OWN_SIZE = 0.15, 10.0, 0.15
FINDER_NEAR = 0.25
STAGES = ("finder not run", "no index shows", "finder map silent", "no finder peak", "peak taken for a card read",
          "finder peak, misread", "read, not added")


def _angle(corners) -> float:
    """A card's direction (degrees, 0-180) from its outline, left side downwards."""
    v = np.asarray(corners[3], np.float64) - np.asarray(corners[0], np.float64)
    return float(np.degrees(np.arctan2(v[1], v[0])) % 180)


def _shown(scene, size: tuple[int, int]) -> list[tuple[np.ndarray, float]]:
    """(outline, share shown) of every card, from the items' outlines in drawing order."""
    from vision.train.scenes import item_outlines

    items = item_outlines(scene)
    owner = np.full((size[1], size[0]), -1, np.int32)
    for i, it in enumerate(items):
        cv2.fillPoly(owner, [np.int32(np.round(it["corners"]))], i)
    out = []
    for i, it in enumerate(items):
        if it["obj"] == "card":
            q = np.asarray(it["corners"], np.float64)
            out.append((q, float((owner == i).sum()) / max(cv2.contourArea(np.float32(q)), 1.0),
                        owner == i))
    return out


def _index_face(q: np.ndarray, own: np.ndarray, finder_out, centres: list[np.ndarray], k: int
                ) -> tuple[int, float, float | None]:
    """(pixels of the card's corner indices that show, the finder's largest face probability on
    them, the share of their votes lying nearer to the card's centre (`centres[k]`) than to any
    other card's; None when none votes)."""
    from vision.detect import INDEX_BOXES, _votes, full_to_out, out_to_full

    m = cv2.getPerspectiveTransform(np.float32([[0, 0], [1, 0], [1, 1], [0, 1]]), np.float32(q))
    prob = None if finder_out is None else 1.0 / (1.0 + np.exp(-finder_out.maps[0]))
    pixels, top, cells = 0, 0.0, set()
    for u0, v0, u1, v1 in INDEX_BOXES.values():
        box = cv2.perspectiveTransform(np.float32([[[u0, v0], [u1, v0], [u1, v1], [u0, v1]]]), m)[0]
        mask = np.zeros(own.shape, np.uint8)
        cv2.fillPoly(mask, [np.int32(np.round(box))], 1)
        ys, xs = np.nonzero((mask > 0) & own)
        pixels += len(xs)
        if len(xs) and prob is not None:
            o = full_to_out(np.stack([xs - finder_out.offset[0], ys - finder_out.offset[1]], 1), finder_out.scale)
            ox = np.clip(np.round(o[:, 0]).astype(int), 0, prob.shape[1] - 1)
            oy = np.clip(np.round(o[:, 1]).astype(int), 0, prob.shape[0] - 1)
            top = max(top, float(prob[oy, ox].max()))
            cells |= set(zip(ox.tolist(), oy.tolist(), strict=True))
    if not cells:
        return pixels, top, None
    _f, ys, xs, _p, vx, vy = _votes(finder_out.maps, 0.5)
    on = np.array([(x, y) in cells for x, y in zip(xs.tolist(), ys.tolist(), strict=True)], bool)
    if not on.any():
        return pixels, top, None
    votes = out_to_full(np.stack([vx[on], vy[on]], 1), finder_out.scale) + list(finder_out.offset)
    d = np.stack([np.linalg.norm(votes - c, axis=1) for c in centres])
    return pixels, top, float((d.argmin(axis=0) == k).mean())


def _job(args) -> list[dict]:
    pool, seed, k = args
    from vision_accuracy import make_scene

    from vision import pipeline
    from vision.detect import Detector, decode_indices
    from vision.pipeline import Recognizer
    from vision.render import render
    from vision.train.evaluate import score_scene

    game = GAMES[k % len(GAMES)]
    scene = make_scene(game, seed, k, pool)
    if scene.meta.get("mode") != "count":
        return []
    image, truth = render(scene)
    outlines = []
    rec = Recognizer(game)
    read_cards = rec.read_cards
    finder: dict = {"dets": [], "read": [], "asked": []}

    def keep_outlines(ctx, dets, *a, **kw):  # every pass's outlines, the heap's turned ones too
        outlines.extend(dets)
        got = read_cards(ctx, dets, *a, **kw)
        if dets and any(dets[0] is d for d in finder["dets"]):
            finder["read"], finder["asked"] = got, list(dets)
        return got

    def keep_finder_dets(*a, **kw):
        finder["dets"] = decode_indices(*a, **kw)
        return finder["dets"]

    rec.read_cards = keep_outlines
    if rec.config.index_finder:
        rec._index_finder = Detector(rec.config.index_finder, face_threshold=rec.config.face_threshold,
                                     max_input=pipeline.INDEX_MAX_INPUT)
        finder_run = rec._index_finder.run

        def keep_finder_maps(*a, **kw):
            finder["out"] = finder_run(*a, **kw)
            return finder["out"]

        rec._index_finder.run = keep_finder_maps
    pipeline.decode_indices = keep_finder_dets
    try:
        score = score_scene(truth, [c.to_json() for c in rec.read(image).cards])
    finally:
        pipeline.decode_indices = decode_indices
    missed = {(m[1]["kind"], m[1]["value"], m[1]["color"]) for m in score.missed}
    shown = _shown(scene, (image.shape[1], image.shape[0]))
    rows = []
    for t in truth["cards"]:
        if (t["kind"], t["value"], t["color"]) not in missed:
            continue
        q = np.asarray(t["corners"], np.float64)
        centre, width = q.mean(axis=0), float(np.linalg.norm(q[1] - q[0]))
        angle = _angle(q)
        _q, share, own_pixels = min(shown, key=lambda s: float(np.abs(s[0] - q).sum()))
        own = any(np.linalg.norm(np.asarray(d.centre) - centre) < OWN_NEAR * width
                  and abs((d.angle - angle + 90.0) % 180.0 - 90.0) < OWN_TURN
                  and abs(d.size[0] / width - 1.0) < OWN_SIZE for d in outlines)
        centres = [np.mean(o["corners"], axis=0) for o in truth["cards"]]
        index_pixels, index_face, own_votes = _index_face(q, own_pixels, finder.get("out"), centres,
                                                          truth["cards"].index(t))
        # A peak is the card's when it lies within FINDER_NEAR of its centre and nearer to it than
        # to any other card's: the card over one lying almost squarely under it has its own peak.
        others = [np.mean(o["corners"], axis=0) for o in truth["cards"] if o is not t]
        near = [d for d in finder["dets"] if (dd := np.linalg.norm(np.asarray(d.centre) - centre)) < FINDER_NEAR * width
                and all(dd <= np.linalg.norm(np.asarray(d.centre) - o) for o in others)]
        asked = any(d is a for d in near for a in finder["asked"])
        named = any(np.linalg.norm(np.mean(r.corners, axis=0) - centre) < FINDER_NEAR * width
                    and (r.kind, r.value, r.color) == (t["kind"], t["value"], t["color"]) for r in finder["read"])
        stage = (STAGES[0] if finder.get("out") is None else STAGES[1] if not index_pixels
                 else STAGES[2] if index_face < 0.5 else STAGES[3] if not near else STAGES[4] if not asked
                 else STAGES[5] if not named else STAGES[6])
        # The card nearest it: how far (widths) and how much turned from it.
        gaps = [(float(np.linalg.norm(np.mean(o["corners"], axis=0) - centre)) / width,
                 abs((_angle(o["corners"]) - angle + 90.0) % 180.0 - 90.0)) for o in truth["cards"] if o is not t]
        rows.append({"table": f"{game}#{k}", "seed": seed, "card": (t["value"], t["color"]),
                     "shown": round(share, 2), "outlined": own, "finder": stage,
                     "nearest": min(gaps, default=(float("inf"), 0.0)), "own_votes": own_votes})
    return rows


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pool", default="train", choices=["train", "holdout"])
    ap.add_argument("--seeds", default="7000,8000")
    ap.add_argument("--scenes", type=int, default=200)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="print each missed card")
    a = ap.parse_args(argv)
    jobs = [(a.pool, int(s), k) for s in a.seeds.split(",") for k in range(a.scenes)]
    rows: list[dict] = []
    with mp.Pool(a.workers) as pool:
        for r in pool.imap_unordered(_job, jobs):
            rows += r
    if a.list:
        for r in sorted(rows, key=lambda r: (r["seed"], r["table"])):
            print(f"  {r['seed']} {r['table']:24s} {r['card']!s:16s} shown {r['shown']:.2f} "
                  f"{'outlined' if r['outlined'] else 'no outline of its own':22s} "
                  f"nearest card {r['nearest'][0]:.2f} widths, {r['nearest'][1]:3.0f}° off; "
                  f"own votes {'-' if r['own_votes'] is None else format(r['own_votes'], '.2f')}; "
                  f"finder: {r['finder']}")
    if not rows:
        print("no heap card missed")
        return
    own = sum(r["outlined"] for r in rows)
    shares = np.array([r["shown"] for r in rows])
    print(f"heap cards missed ({a.pool} pool, seeds {a.seeds}): {len(rows)}; with an outline of their own "
          f"{own}, without {len(rows) - own}")
    print("share of a missed card that shows, 10/25/50/75/90th percentiles:",
          " / ".join(f"{v:.2f}" for v in np.percentile(shares, [10, 25, 50, 75, 90])))
    print("where the index finder lost them:",
          "; ".join(f"{stage} {sum(r['finder'] == stage for r in rows)}" for stage in STAGES))


if __name__ == "__main__":
    main()
