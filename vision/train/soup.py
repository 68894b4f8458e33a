"""A "model soup": the weights of several fine-tunes of one network averaged into one network.

Fine-tunes that start from the same export stay in one basin of the loss, so the mean of their
weights is itself a good network, and often better than each (Wortsman et al., 2022, "Model
soups"); it costs nothing at run time. Stop 33: two fine-tunes of the shipped classifier on new
crops, one with `crops --turned-none`, one without. Each read about as well as the export on the
train pool; their mean read better (see models/README.md).

The exports must share one graph (same network, norms folded the same way): only the floating
point initialisers are averaged; any other initialiser must be equal in all of them. Where each
member has its sidecar beside it, the soup's is written beside the soup (`sidecar`).

    /work/trainvenv/bin/python -m vision.train.soup --out vision/models/cards.onnx A.onnx B.onnx
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def soup(paths: list[str], out: str) -> None:
    import onnx
    from onnx import numpy_helper

    models = [onnx.load(p) for p in paths]
    weights = [{i.name: numpy_helper.to_array(i) for i in m.graph.initializer} for m in models]
    base = models[0]
    for i, init in enumerate(base.graph.initializer):
        arrays = [w.get(init.name) for w in weights]
        if any(a is None or a.shape != arrays[0].shape for a in arrays):
            raise SystemExit(f"{init.name}: not in every network with one shape; not one graph")
        if arrays[0].dtype.kind == "f":
            mean = np.mean(arrays, axis=0).astype(arrays[0].dtype)
            base.graph.initializer[i].CopyFrom(numpy_helper.from_array(mean, init.name))
        elif not all(np.array_equal(a, arrays[0]) for a in arrays):
            raise SystemExit(f"{init.name}: differs between the networks and cannot be averaged")
    onnx.save(base, out)


def sidecar(sides: list[dict]) -> dict:
    """The soup's sidecar from its members' (`cards.json`): their classes, crop and regions, which
    must agree; the mean of their fitted temperatures (each fine-tune's own calibration, so the
    soup's is between them, as at stop 33); each member's validation figures kept apart."""
    first = sides[0]
    for key in ("classes", "crop", "orientations", "regions"):
        if any(s.get(key) != first.get(key) for s in sides):
            raise SystemExit(f"sidecar key {key!r} differs between the networks: not one model")
    out = {k: v for k, v in first.items() if k not in ("temperature", "validation", "data")}
    out["temperature"] = round(float(np.mean([s["temperature"] for s in sides])), 3)
    out["validation"] = {"soup_of": len(sides), "temperature_note": "mean of the members' fitted temperatures",
                         "members": [s.get("validation", {}) for s in sides]}
    out["data"] = sorted({d for s in sides for d in s.get("data", [])})
    return out


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("models", nargs="+", help="exported .onnx networks of one graph")
    a = ap.parse_args(argv)
    # The sidecar is made first: members that are not one model are refused before anything is
    # written, so a soup written over the shipped model never sits beside the old model's sidecar.
    paths = [Path(m).with_suffix(".json") for m in a.models]  # train_cls writes NAME.json beside NAME.onnx
    side = sidecar([json.loads(p.read_text()) for p in paths]) if all(p.exists() for p in paths) else None
    soup(a.models, a.out)
    print("saved", a.out, "the mean of", len(a.models), "networks", flush=True)
    out_side = Path(a.out).with_suffix(".json")
    if side is not None:
        out_side.write_text(json.dumps(side, indent=1) + "\n")
        print("saved", out_side, "temperature", side["temperature"], flush=True)
    else:
        print(f"not every member has its sidecar beside it: {out_side} not written", flush=True)


if __name__ == "__main__":
    main()
