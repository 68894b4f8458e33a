"""A trained CardNet grown wider without changing what it computes (training only).

    python -m vision.train.widen --init vision/models/cardnet.onnx --widths 8,16,48,96 --out DATA/wide.pt

Each convolution keeps its trained filters; the channels added to a layer get small random
filters of their own, and every filter that reads them starts with zero weights on them, so the
grown network's output is the trained one's to the bit (the check below) and fine-tuning starts
from there with more room (as LoRA's zero-initialised update, or Net2Net without its noise). The
export's batch norms are folded, loaded as identities and kept frozen (`nets.load_folded`), the
added channels' too. Train on with `train_det --init DATA/wide.pt --widths ...`.
"""

from __future__ import annotations

import argparse

import numpy as np
import torch
import torch.nn as nn

from vision.train.nets import CardNet, card_net_from_onnx

NEW_SCALE = 0.1  # added filters start at this share of a He initialisation: they learn before they act


def _blocks(net: CardNet) -> list[nn.Sequential]:
    return [m for m in net.modules() if isinstance(m, nn.Sequential) and len(m) == 3
            and isinstance(m[0], nn.Conv2d) and isinstance(m[1], nn.BatchNorm2d)]


def _input_map(net: CardNet, widths: tuple[int, ...]) -> list[list[int]]:
    """For each block of `net` (in `_blocks` order), the channel sizes its input is the
    concatenation of, so that an old input channel can be found in the grown input."""
    a, b, c, d = widths
    return [[3], [a], [b], [b], [c], [c], [c], [d], [d], [d, c], [c], [c, b], [b], [b, a], [b], [b]]


def _in_index(parts_old: list[int], parts_new: list[int]) -> np.ndarray:
    """Where each old input channel lies among the grown ones (concatenated parts grow apart)."""
    idx, base_new = [], 0
    for po, pn in zip(parts_old, parts_new, strict=True):
        idx.extend(range(base_new, base_new + po))
        base_new += pn
    return np.array(idx)


def widen(old: CardNet, old_widths: tuple[int, ...], widths: tuple[int, ...], seed: int = 0) -> CardNet:
    if any(n < o for n, o in zip(widths, old_widths, strict=True)) or widths[1] != old_widths[1]:
        raise ValueError("widths may only grow, and the second (the grouped convolution's) stays")
    new = CardNet(widths)
    g = torch.Generator().manual_seed(seed)
    ob, nb = _blocks(old), _blocks(new)
    maps_o, maps_n = _input_map(old, old_widths), _input_map(new, widths)
    with torch.no_grad():
        for bo, bn, mo, mn in zip(ob, nb, maps_o, maps_n, strict=True):
            co, cn = bo[0], bn[0]
            o_old = co.out_channels
            groups = cn.groups
            w = torch.zeros_like(cn.weight)
            fan_in = cn.in_channels // groups * cn.kernel_size[0] * cn.kernel_size[1]
            w[o_old:] = torch.randn(w[o_old:].shape, generator=g) * NEW_SCALE * (2.0 / fan_in) ** 0.5
            if groups == 1:
                ii = torch.from_numpy(_in_index(mo, mn))
                w[:o_old, ii] = co.weight
            else:  # depthwise: its width stays, so its filters are the old ones
                w[:o_old] = co.weight
            cn.weight.copy_(w)
            for attr in ("weight", "bias", "running_mean", "running_var"):
                t = getattr(bn[1], attr)
                fill = {"weight": 1.0, "bias": 0.0, "running_mean": 0.0, "running_var": 1.0 - bn[1].eps}[attr]
                t.fill_(fill)
                t[:o_old] = getattr(bo[1], attr)
        hw = torch.zeros_like(new.head.weight)
        hw[:, : old.head.in_channels] = old.head.weight
        new.head.weight.copy_(hw)
        new.head.bias.copy_(old.head.bias)
    return new


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--init", required=True, help="the exported CardNet (.onnx) to grow")
    ap.add_argument("--from-widths", default="8,16,32,64")
    ap.add_argument("--widths", required=True)
    ap.add_argument("--out", required=True, help="state dict of the grown network (.pt)")
    a = ap.parse_args(argv)
    ow = tuple(int(v) for v in a.from_widths.split(","))
    nw = tuple(int(v) for v in a.widths.split(","))
    old = card_net_from_onnx(a.init, ow).eval()
    new = widen(old, ow, nw).eval()
    x = torch.rand(2, 3, 160, 224) - 0.5
    with torch.no_grad():
        diff = float((old(x) - new(x)).abs().max())
    if diff > 1e-4:
        raise SystemExit(f"the grown network computes something else (max difference {diff:.2e})")
    torch.save(new.state_dict(), a.out)
    print(f"grown {sum(p.numel() for p in old.parameters())} -> {sum(p.numel() for p in new.parameters())} "
          f"parameters, same output (max difference {diff:.1e}); saved {a.out}")


if __name__ == "__main__":
    main()
