"""The two small networks (PyTorch, training only; run time uses their ONNX export via `vision.runtime`).

`CropNet`: ~0.2 M parameters, 32×32 crops -> joint (class, orientation) logits.
`CardNet`: a small encoder-decoder (~0.14 M parameters) -> per pixel at half the input
resolution: face logit, centre offset (2), orientation as (cos 2θ, sin 2θ), log width,
log height. Only operations cv2.dnn runs well: conv, batch norm (folded), ReLU, nearest
upsampling, concatenation, global average pooling, a final 1×1 convolution.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def cbr(i: int, o: int, k: int = 3, s: int = 1, d: int = 1, g: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(i, o, k, s, padding=d * (k // 2), dilation=d, groups=g, bias=False),
                         nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class CropNet(nn.Module):
    def __init__(self, n_out: int, widths: tuple[int, int, int, int] = (16, 32, 64, 96), dropout: float = 0.2):
        super().__init__()
        a, b, c, d = widths
        self.features = nn.Sequential(
            cbr(3, a), cbr(a, b, s=2), cbr(b, b), cbr(b, c, s=2), cbr(c, c), cbr(c, d, s=2), cbr(d, d),
            nn.AdaptiveAvgPool2d(1))
        self.drop = nn.Dropout(dropout)
        self.head = nn.Conv2d(d, n_out, 1)  # 1×1 conv rather than Linear: exports as a plain Conv

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.drop(self.features(x))).flatten(1)

    def forward_both(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        f = self.features(x)
        return self.head(f).flatten(1), f.flatten(1)


def crop_net_from_onnx(path: str, n_out: int) -> CropNet:
    """A CropNet holding the weights of an exported one (see `load_folded`)."""
    return load_folded(CropNet(n_out), path, "net.head")


def card_net_from_onnx(path: str, widths: tuple[int, int, int, int] = (8, 16, 32, 64)) -> CardNet:
    """A CardNet holding the weights of an exported one (see `load_folded`)."""
    return load_folded(CardNet(widths), path, "head")


def load_folded(net: nn.Module, path: str, head: str) -> nn.Module:
    """`net` given the weights of its ONNX export. The export folded each batch norm into its
    convolution, so the norms come back as identities (mean 0, variance 1 - eps, scale 1):
    fine-tune such a net with its norms frozen (`freeze_norms`), or its batch statistics would
    replace the folded ones. `head`: the initialiser prefix of the final (unnormed) convolution."""
    import onnx
    from onnx import numpy_helper

    init = {t.name: numpy_helper.to_array(t) for t in onnx.load(path).graph.initializer}
    convs = [(init[k], init[k2]) for k, k2 in _folded_pairs(init, head)]
    blocks = [m for m in net.modules() if isinstance(m, nn.Sequential) and len(m) == 3
              and isinstance(m[0], nn.Conv2d) and isinstance(m[1], nn.BatchNorm2d)]
    if len(blocks) != len(convs):
        raise ValueError(f"{path}: {len(convs)} convolutions, {type(net).__name__} has {len(blocks)}")
    with torch.no_grad():
        for (w, b), block in zip(convs, blocks, strict=True):
            conv, bn = block[0], block[1]
            if tuple(conv.weight.shape) != w.shape:
                raise ValueError(f"{path}: convolution {tuple(w.shape)} where {type(net).__name__} has "
                                 f"{tuple(conv.weight.shape)}")
            conv.weight.copy_(torch.from_numpy(np.array(w)))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(np.array(b)))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        net.head.weight.copy_(torch.from_numpy(np.array(init[f"{head}.weight"])))
        net.head.bias.copy_(torch.from_numpy(np.array(init[f"{head}.bias"])))
    return net


def _folded_pairs(init: dict, head: str) -> list[tuple[str, str]]:
    """(weight, bias) names of the folded convolutions, in graph order (4-d weight, then its bias)."""
    names = [k for k in init if not k.startswith(head)]
    return [(a, b) for a, b in zip(names, names[1:], strict=False) if init[a].ndim == 4 and init[b].ndim == 1]


def freeze_norms(model: nn.Module) -> None:
    """Batch norms to eval mode (running statistics), the rest left as it is."""
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.eval()


class _Both(nn.Module):
    """Export wrapper: logits and the pooled features (embeddings for deck profiles)."""

    def __init__(self, net: CropNet):
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor):
        return self.net.forward_both(x)


class CardNet(nn.Module):
    OUT = 7  # face, dx, dy, cos2θ, sin2θ, log w, log h

    def __init__(self, widths: tuple[int, int, int, int] = (8, 16, 32, 64)):
        super().__init__()
        a, b, c, d = widths
        self.stem = cbr(3, a, s=2)
        self.e1 = nn.Sequential(cbr(a, b, s=2), cbr(b, b))
        self.e2 = nn.Sequential(cbr(b, c, s=2), cbr(c, c), cbr(c, c, d=2))
        self.e3 = nn.Sequential(cbr(c, d, s=2), cbr(d, d, d=2), cbr(d, d, d=4))
        self.u2 = nn.Sequential(cbr(d + c, c, k=1), cbr(c, c))
        self.u1 = nn.Sequential(cbr(c + b, b, k=1), cbr(b, b))
        self.u0 = nn.Sequential(cbr(b + a, b, k=1), cbr(b, b, g=b), cbr(b, b, k=1))
        self.head = nn.Conv2d(b, self.OUT, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x0 = self.stem(x)
        x1 = self.e1(x0)
        x2 = self.e2(x1)
        x3 = self.e3(x2)

        def up(t):
            return F.interpolate(t, scale_factor=2, mode="nearest")

        y = self.u2(torch.cat([up(x3), x2], 1))
        y = self.u1(torch.cat([up(y), x1], 1))
        y = self.u0(torch.cat([up(y), x0], 1))
        return self.head(y)


def export_onnx(model: nn.Module, path: str, shape: tuple[int, ...], dynamic_hw: bool) -> None:
    model.eval()
    names = ["y"]
    if isinstance(model, CropNet):
        model, names = _Both(model).eval(), ["y", "f"]
    axes = {"x": {0: "n", 2: "h", 3: "w"}} if dynamic_hw else {"x": {0: "n"}}
    torch.onnx.export(model, torch.zeros(1, *shape), path, input_names=["x"], output_names=names, opset_version=13,
                      dynamo=False, dynamic_axes=axes, do_constant_folding=True)


class DieNet(nn.Module):
    """Where are dice? One logit per cell of a grid four times coarser than the input (the
    picture scaled to `die_centres.json`'s pixels per millimetre, a die about 13 pixels wide):
    high at die centres. ~25 k parameters; dilated layers see a die and its surroundings."""

    def __init__(self, widths: tuple[int, int] = (16, 24), dilations: tuple[int, ...] = (2, 4)):
        super().__init__()
        a, b = widths
        self.body = nn.Sequential(cbr(3, a, s=2), cbr(a, a), cbr(a, b, s=2), *(cbr(b, b, d=d) for d in dilations),
                                  cbr(b, b))
        self.head = nn.Conv2d(b, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))
