"""How much wider and taller than the cards the detector's face map makes them: the figure the
decoder subtracts from rectangles fitted to a card's face pixels (`face_bleed` in the
detector's sidecar, `vision/models/cardnet.json`). Measure it again after training a detector.

Usage: python benchmarks/face_bleed.py [--scenes 100] [--seed 7000]

Measured on TRAIN-pool tables (a figure of the model, not tuned on the held-out pool): cards in
full view whose detection lies within 0.15 card widths of them; medians in output pixels.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

GAMES = ("elfer-raus", "elevens", "11-nimmt", "elfer-raus-junior")


def main(argv=None) -> None:
    import vision.detect as det
    from vision.pipeline import Recognizer
    from vision.render import random_scene, render
    from vision.train.evaluate import visible_truth

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=100)
    ap.add_argument("--seed", type=int, default=7000)
    a = ap.parse_args(argv)
    scales: list[float] = []
    real_decode = det.decode

    def decode(out, *args, **kw):  # the scale of the pass the outlines come from
        scales.append(out.scale)
        return real_decode(out, *args, **kw)

    det.decode = decode
    recs: dict[str, Recognizer] = {}
    excess = []
    for k in range(a.scenes):
        game = GAMES[k % len(GAMES)]
        img, truth = render(random_scene(game, np.random.default_rng([a.seed, k]), "train", hand=False))
        rec = recs.setdefault(game, Recognizer(game))
        rec.detector.face_bleed = (0.0, 0.0)  # the raw figure
        rec.forget()
        scales.clear()
        dets = rec.detect(img)
        if not dets:
            continue
        s = scales[-1]
        for t in visible_truth(truth):
            if t.get("occluded"):
                continue
            q = np.asarray(t["corners"], float)
            w, h = np.linalg.norm(q[1] - q[0]), np.linalg.norm(q[3] - q[0])
            dist = [np.linalg.norm(np.asarray(d.centre) - q.mean(axis=0)) for d in dets]
            d = dets[int(np.argmin(dist))]
            if min(dist) < 0.15 * w:
                excess.append(((d.size[0] - w) * s / 2.0, (d.size[1] - h) * s / 2.0, d.size[0] / w, d.size[1] / h))
    e = np.array(excess)
    out = {"cards": len(e), "face_bleed": [round(float(np.median(e[:, 0])), 2), round(float(np.median(e[:, 1])), 2)],
           "ratio_without": [round(float(np.median(e[:, 2])), 3), round(float(np.median(e[:, 3])), 3)]}
    print(f"{out['cards']} cards in full view: fitted rectangles {out['face_bleed'][0]} × {out['face_bleed'][1]} "
          f"output pixels too wide × tall (×{out['ratio_without'][0]} × ×{out['ratio_without'][1]} of the card)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
