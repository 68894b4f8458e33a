"""Coloured number cards and tiles shared by the Elfer raus! family.

A card is a short code: colour letter + value, e.g. ``"Y5"`` (yellow 5), ``"R11"``,
``"X13"`` (a grey joker tile of 11!). Small helpers only: each game keeps its own rules.
"""

from __future__ import annotations

from typing import Any

COLOURS = ("yellow", "red", "blue", "green")
LETTER = {"yellow": "Y", "red": "R", "blue": "B", "green": "G", "gray": "X"}
COLOUR_OF = {v: k for k, v in LETTER.items()}
COLOUR_NAME = {
    "yellow": ("jaune", "yellow"),
    "red": ("rouge", "red"),
    "blue": ("bleu", "blue"),
    "green": ("vert", "green"),
    "gray": ("gris", "grey"),
}


def code(colour: str, value: int) -> str:
    return f"{LETTER[colour]}{value}"


def parse(card: Any) -> tuple[str, int] | None:
    """``"Y5"`` -> ``("yellow", 5)``; None for anything that is not a coloured number card."""
    if not isinstance(card, str) or len(card) < 2 or card[0] not in COLOUR_OF:
        return None
    digits = card[1:]
    if not digits.isdigit() or digits.startswith("0"):
        return None
    return COLOUR_OF[card[0]], int(digits)


def name(card: str, lang: str = "en") -> str:
    """A card as a player says it: "le 5 jaune" style in French, "the yellow 5" in English."""
    parsed = parse(card)
    if parsed is None:
        return card
    colour, value = parsed
    fr, en = COLOUR_NAME[colour]
    return f"{value} {fr}" if lang == "fr" else f"{en} {value}"


def observation(card: str) -> dict[str, Any]:
    """The vision contract's description of a card: kind, value, color."""
    colour, value = parse(card) or ("", 0)
    return {"kind": "joker" if colour == "gray" else "number", "value": value, "color": colour}


def from_observation(obs: dict[str, Any]) -> str | None:
    colour, value = obs.get("color"), obs.get("value")
    if colour not in LETTER or not isinstance(value, int) or isinstance(value, bool) or value < 1:
        return None
    return code(colour, value)
