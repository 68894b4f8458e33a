"""A perfect camera for referee tests: the world's visible table as flawless readings."""

from __future__ import annotations

import itertools
from typing import Any

from companion.referee import Actor, Referee
from companion.simworld import SimWorld, Step

COLOUR = {"Y": "yellow", "R": "red", "B": "blue", "G": "green", "X": "gray"}
_rolls = itertools.count()


def quad(i: int) -> list[list[float]]:
    x = 20.0 * (i % 40)
    return [[x, 0.0], [x + 10, 0.0], [x + 10, 15.0], [x, 15.0]]


def card_reading(code: str, i: int, square: str | None = None) -> dict[str, Any]:
    if code.isdigit():
        out: dict[str, Any] = {"kind": "number", "value": int(code), "color": None}
    elif code[0] in COLOUR and code[1:].isdigit():
        colour = COLOUR[code[0]]
        out = {"kind": "joker" if colour == "gray" else "number", "value": int(code[1:]), "color": colour}
    else:
        out = {"kind": "symbol", "value": code, "color": None}
    out.update({"corners": quad(i), "confidence": 0.99})
    if square is not None:
        out["square"] = square
    return out


def elevens_reading(item: tuple[Any, ...], state: Any) -> dict[str, Any]:
    """Cards where they lie: rows in the column's order, 60 px per value, 130 px between rows."""
    order = [r["colour"] for r in state.view(None)["board"]["rows"]]

    def box(x: float, y: float) -> list[list[float]]:
        return [[x - 25, y - 40], [x + 25, y - 40], [x + 25, y + 40], [x - 25, y + 40]]

    if item[0] == "J":
        colour, value = item[1], item[2]
        corners = box(60.0 * value, 130.0 * order.index(colour))
        return {"kind": "joker", "value": None, "color": None, "corners": corners, "confidence": 0.99}
    if item[0] == "L":
        a, b, value = item[1], item[2], item[3]
        y = 65.0 * (order.index(a) + order.index(b))
        return {"kind": "link", "value": None, "color": None, "corners": box(60.0 * value, y), "confidence": 0.99}
    code = item[0]
    colour, value = COLOUR[code[0]], int(code[1:])
    return {"kind": "number", "value": value, "color": colour,
            "corners": box(60.0 * value, 130.0 * order.index(colour)), "confidence": 0.99}


def observe(world: SimWorld) -> dict[str, Any]:
    """What a flawless recogniser would report for the world's table now."""
    state = world.state
    items = world.adapter.expected(state)  # type: ignore[union-attr]
    game = state.info.id
    cards, tokens, dice = [], [], []
    for i, item in enumerate(sorted(items.elements(), key=repr)):
        if game in ("elfer-raus", "elfer-raus-junior"):
            cards.append(card_reading(item[0], i))
        elif game == "elevens":
            cards.append(elevens_reading(item, state))
        elif game == "11-nimmt":
            cards.append(card_reading(item[1], i))
        elif game == "start11":
            cards.append(card_reading(item[1], i, square=item[0]))
        elif game == "numeri":
            square, code = item
            tokens.append({"value": int(code[1:]), "color": COLOUR[code[0]], "center": [float(i), 0.0],
                           "square": square, "confidence": 0.99})
    die = state.view(None)["board"].get("die") if game == "numeri" else None
    if game == "numeri" and die is None:  # before the first roll the die lies where it was left
        dice.append({"value": 1, "corners": [[0, 600], [40, 600], [40, 640], [0, 640]], "confidence": 0.99})
    if die is not None:
        k = next(_rolls) % 7
        dice.append({"value": die, "corners": [[500 + 40 * k, 500], [540 + 40 * k, 500], [540 + 40 * k, 540],
                                               [500 + 40 * k, 540]], "confidence": 0.99})
    return {"cards": cards, "tokens": tokens, "dice": dice}


def perfect_camera(referee: Referee):
    def show(world: SimWorld, step: Step) -> None:
        out = referee.submit({"type": "observation", "observation": observe(world)}, Actor("camera"))
        assert out.ok, out.error

    return show
