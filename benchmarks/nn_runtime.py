"""The shipped networks on ONE core through each runtime (ONNX Runtime, cv2.dnn): time per run
and the largest difference between their outputs.

Usage: python benchmarks/nn_runtime.py [--repeat 15] [--core 0]

Inputs are what a full read of a 1640×1232 photo gives them: 96 crops of 32×32 for the card
classifier (batches of `Classifier.BATCH`; its 8-bit model `cards.int8`, which a read runs where
ONNX Runtime runs, on the same crops), one 576×432 picture for the card detector (cards
scaled to 48 pixels), and a batch of 32 crops for each board model. Both the best and the
median of the repeats are printed: on a shared machine the best is what the code costs.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--core", type=int, default=0)
    a = ap.parse_args()
    os.sched_setaffinity(0, {a.core})
    import cv2

    cv2.setNumThreads(1)
    from vision import runtime
    from vision.classify import MODELS_DIR, Classifier

    rng = np.random.default_rng(0)
    crops = [rng.standard_normal((n, 3, 32, 32)).astype(np.float32)
             for n in [Classifier.BATCH] * (96 // Classifier.BATCH) + [96 % Classifier.BATCH] if n]
    cases = {  # name: (input batches of one read)
        "cards": crops,
        "cards.int8": crops,
        "cardnet": [0.2 * rng.standard_normal((1, 3, 432, 576)).astype(np.float32)],
        "board_tiles": [rng.standard_normal((32, 3, 40, 40)).astype(np.float32)],
        "token_numbers": [rng.standard_normal((32, 3, 88, 20)).astype(np.float32)],
        "die_faces": [rng.standard_normal((32, 3, 40, 40)).astype(np.float32)],
    }
    out: dict[str, dict] = {}
    for name, batches in cases.items():
        got, row = {}, {}
        for which in runtime.BACKENDS:
            os.environ[runtime.ENV] = which
            net = runtime.network(MODELS_DIR / f"{name}.onnx")
            got[which] = [dict(zip(net.outputs, net.run(b), strict=True)) for b in batches]
            times = []
            for _ in range(a.repeat):
                t = time.process_time()
                for b in batches:
                    net.run(b)
                times.append((time.process_time() - t) * 1000)
            row[which] = {"best_ms": round(min(times), 2), "median_ms": round(statistics.median(times), 2)}
        diff = max(float(np.abs(x[k] - y[k]).max()) for x, y in zip(*got.values(), strict=True) for k in x)
        row["speed_up_best"] = round(row["opencv"]["best_ms"] / row["onnxruntime"]["best_ms"], 2)
        row["max_output_difference"] = diff
        out[name] = row
        print(f"{name:14s} onnxruntime {row['onnxruntime']['best_ms']:7.2f} ms (median "
              f"{row['onnxruntime']['median_ms']:.2f})   cv2.dnn {row['opencv']['best_ms']:7.2f} ms (median "
              f"{row['opencv']['median_ms']:.2f})   x{row['speed_up_best']:.2f}   outputs differ by {diff:.1e}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
