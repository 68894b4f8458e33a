"""Running the shipped ONNX networks: ONNX Runtime when it is installed, else OpenCV's dnn module.

On one core of the development machine ONNX Runtime runs the card classifier and detector 2.0
to 2.3 times as fast as cv2.dnn (the board models 1.7 to 2.4 times), with the same outputs to
2e-4 (`benchmarks/nn_runtime.py`). It is a declared dependency where PyPI has wheels for it (x86-64,
64-bit ARM: a Raspberry Pi 4 or 5 on a 64-bit OS); elsewhere (32-bit Raspberry Pi OS) the
networks run through cv2.dnn, which is always there. `TABLE_COMPANION_NN=opencv` (or
`onnxruntime`) chooses one by hand.

ONNX Runtime uses as many threads as OpenCV is allowed (`cv2.getNumThreads()` when the network
is loaded: the benchmarks pin both to one core), and does not spin between runs (an idle
service stays idle).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from functools import lru_cache

import cv2
import numpy as np

from .errors import ModelError

BACKENDS = ("onnxruntime", "opencv")
ENV = "TABLE_COMPANION_NN"


def backend() -> str:
    """The runtime networks are loaded with now (see the module's notes)."""
    want = os.environ.get(ENV, "").strip().lower()
    if want and want not in BACKENDS:
        raise ModelError(f"{ENV}={want!r}: expected one of {', '.join(BACKENDS)}")
    if want == "opencv":
        return "opencv"
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        if want == "onnxruntime":
            raise ModelError(f"{ENV}=onnxruntime but onnxruntime is not installed") from None
        return "opencv"
    return "onnxruntime"


class Network:
    """One ONNX network. `run(x, names)`: its outputs `names` for the input batch `x`, as float32
    arrays the caller owns. Without names, all of them in the order of `outputs`, which is the
    runtime's own (cv2.dnn does not keep the graph's): a caller of a network with several
    outputs names the ones it wants."""

    outputs: tuple[str, ...]

    def run(self, x: np.ndarray, names: Sequence[str] | None = None) -> list[np.ndarray]:
        raise NotImplementedError


_ARENA_LOCK = threading.Lock()
_arena_made = False


def _shared_arena(ort) -> None:
    """The process's CPU memory arena, made once and used by every session: each session's own
    arena grows to its network's largest run and keeps it, and a table read runs the detector and
    the index finder one after the other (`companion recognize`: 273 MB peak with an arena each,
    211 MB sharing one; `benchmarks/vision_speed.py`)."""
    global _arena_made
    with _ARENA_LOCK:
        if not _arena_made:
            info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
            ort.create_and_register_allocator(info, None)
            _arena_made = True


class _OrtNetwork(Network):
    def __init__(self, path: str):
        import onnxruntime as ort

        self.path = path
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = max(1, cv2.getNumThreads())
        opts.inter_op_num_threads = 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        # Memory patterns are planned per input shape and kept: the detector and the finders see
        # pictures of many sizes (a region's window, a turned heap), and the plans cost memory
        # without speed (`companion recognize` on a loose heap: 211 -> 190 MB peak, same time).
        opts.enable_mem_pattern = False
        # One memory arena for all the networks of the process (`_shared_arena`).
        _shared_arena(ort)
        opts.add_session_config_entry("session.use_env_allocators", "1")
        opts.log_severity_level = 3  # errors only: its warnings are about graph rewrites
        try:
            self.session = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])
        except Exception as exc:  # onnxruntime raises its own exception types (bad graph, bad protobuf)
            raise ModelError(f"cannot load model {path}: {exc}") from None
        self.input = self.session.get_inputs()[0].name
        self.outputs = tuple(o.name for o in self.session.get_outputs())

    def run(self, x: np.ndarray, names: Sequence[str] | None = None) -> list[np.ndarray]:
        out = self.session.run(list(names) if names else None, {self.input: np.ascontiguousarray(x, np.float32)})
        return [np.asarray(o, np.float32) for o in out]


class _CvNetwork(Network):
    """cv2.dnn holds a net's input and buffers: each thread (the camera's reads, a phone's
    "teach this deck") gets its own copy of the net."""

    def __init__(self, path: str):
        self.path = path
        self.outputs = tuple(_cv_net(path, threading.get_ident()).getUnconnectedOutLayersNames())

    def run(self, x: np.ndarray, names: Sequence[str] | None = None) -> list[np.ndarray]:
        net = _cv_net(self.path, threading.get_ident())
        net.setInput(np.ascontiguousarray(x, np.float32))
        out = net.forward(list(names or self.outputs))
        return [np.array(o, np.float32, copy=True) for o in out]


@lru_cache(maxsize=16)
def _cv_net(path: str, _thread: int) -> cv2.dnn.Net:
    try:
        net = cv2.dnn.readNetFromONNX(path)
    except cv2.error as exc:
        raise ModelError(f"cannot load model {path}: {exc}") from None
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    return net


def network(path: str | os.PathLike) -> Network:
    """The network in the ONNX file `path`, loaded once (per runtime)."""
    return _network(str(path), backend())


@lru_cache(maxsize=16)
def _network(path: str, which: str) -> Network:
    return _OrtNetwork(path) if which == "onnxruntime" else _CvNetwork(path)
