"""What vision reports: frozen, JSON-friendly readings of one image.

The JSON form of an `Observation` is the `companion recognize` contract (DESIGN.md 4):
cards (and 11! tiles), tokens and dice, in pixels of the given image. Vision knows no
rules: these are proposals the referee checks against the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

COLOURS = ("yellow", "red", "blue", "green", "gray")
KINDS = ("number", "joker", "link", "bonus", "symbol", "bull")

Point = tuple[float, float]
Quad = tuple[Point, Point, Point, Point]


def quad_of(points: Any) -> Quad:
    """Four (x, y) corners as a tuple of float pairs, going round the outline."""
    arr = np.asarray(points, dtype=float).reshape(4, 2)
    return tuple((float(x), float(y)) for x, y in arr)  # type: ignore[return-value]


def _round_quad(q: Quad) -> list[list[float]]:
    return [[round(x, 1), round(y, 1)] for x, y in q]


@dataclass(frozen=True)
class CardReading:
    """A card or a tile: what it is and where its outline lies."""

    kind: str  # one of KINDS
    value: int | str | None  # the number; the symbol name for symbol tiles; None for link/bonus/bull
    color: str | None  # one of COLOURS, or None for games whose cards have no colour
    corners: Quad
    confidence: float
    # Extras beyond the contract (optional keys in JSON):
    square: str | None = None  # the board square it lies on (11! board), when known
    occluded: bool = False  # only its corner index is visible (overlapped in a row)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "value": self.value,
            "color": self.color,
            "corners": _round_quad(self.corners),
            "confidence": round(float(self.confidence), 4),
        }
        if self.square is not None:
            out["square"] = self.square
        if self.occluded:
            out["occluded"] = True
        return out


@dataclass(frozen=True)
class TokenReading:
    """A numbered token on a track square (Numeri)."""

    value: int
    color: str
    center: Point
    confidence: float
    square: int | None = None  # track index, when the board is calibrated
    # The reader's probabilities of the values 1-5 (not in the JSON): for the rules' check that
    # a colour's tokens are each read once (`tokens.one_of_each`).
    values: tuple[float, ...] | None = field(default=None, compare=False, repr=False)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "value": self.value,
            "color": self.color,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
            "confidence": round(float(self.confidence), 4),
        }
        if self.square is not None:
            out["square"] = self.square
        return out


@dataclass(frozen=True)
class DieReading:
    value: int | str  # 1..6 or "star"
    corners: Quad
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "corners": _round_quad(self.corners),
                "confidence": round(float(self.confidence), 4)}


@dataclass(frozen=True)
class Observation:
    """Everything read from one image."""

    cards: tuple[CardReading, ...] = ()
    tokens: tuple[TokenReading, ...] = ()
    dice: tuple[DieReading, ...] = ()
    ms: float = 0.0
    size: tuple[int, int] = (0, 0)  # width, height of the image read
    extra: dict[str, Any] = field(default_factory=dict)  # timings, calibration state, ...

    def to_json(self) -> dict[str, Any]:
        return {
            "ms": round(self.ms, 1),
            "cards": [c.to_json() for c in self.cards],
            "tokens": [t.to_json() for t in self.tokens],
            "dice": [d.to_json() for d in self.dice],
        }
