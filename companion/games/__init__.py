"""The rules engines: one module per game, all behind the protocol of `base`.

Only the standard library is imported here (a test checks it), so the engines run and
test anywhere.
"""

from __future__ import annotations

from .base import (
    CHANCE,
    TERMINAL,
    Action,
    DataError,
    GameDef,
    GameInfo,
    IllegalMove,
    MalformedAction,
    State,
    StateError,
)

_REGISTRY: dict[str, GameDef] = {}


def register(game: GameDef) -> GameDef:
    _REGISTRY[game.info.id] = game
    return game


def get(game_id: str) -> GameDef:
    """The game with this id; `KeyError` with the known ids otherwise."""
    _load_all()
    try:
        return _REGISTRY[game_id]
    except KeyError:
        raise KeyError(f"unknown game {game_id!r} (games: {', '.join(ids())})") from None


def ids() -> list[str]:
    """Game ids in the product's order (whatever order the modules were imported in)."""
    _load_all()
    return [gid for gid in _ORDER if gid in _REGISTRY]


def all_games() -> list[GameDef]:
    return [_REGISTRY[gid] for gid in ids()]


# The product's game list: module names and ids, in the order shown to players.
_MODULES = ("start11", "elevens", "elfer_raus_junior", "elfer_raus", "nimmt11", "numeri")
_ORDER = ("start11", "elevens", "elfer-raus-junior", "elfer-raus", "11-nimmt", "numeri")


def _load_all() -> None:
    if len(_REGISTRY) >= len(_MODULES):
        return
    import importlib

    for name in _MODULES:
        importlib.import_module(f"{__name__}.{name}")


__all__ = [
    "CHANCE",
    "TERMINAL",
    "Action",
    "DataError",
    "GameDef",
    "GameInfo",
    "IllegalMove",
    "MalformedAction",
    "State",
    "StateError",
    "all_games",
    "get",
    "ids",
    "register",
]
