"""Loading the games' data files (board layouts, track values, head tables).

Each file is TOML, shipped in `companion/games/data/` and replaceable by the user's own
file. Every problem becomes a `DataError` that names the file and the entry, so a typo in
a hand-edited board says where it is.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from .base import DataError


def read_toml(name: str, path: str | Path | None = None) -> tuple[dict[str, Any], str]:
    """Read the shipped file `name` (or the user's `path`); return (content, source name)."""
    try:
        if path is None:
            source = f"companion/games/data/{name}"
            text = resources.files("companion.games").joinpath("data", name).read_text("utf-8")
        else:
            source = str(path)
            text = Path(path).read_text("utf-8")
    except OSError as exc:
        raise DataError(f"{source}: cannot read the file ({exc.strerror or exc})") from exc
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: not a UTF-8 text file") from exc
    try:
        return tomllib.loads(text), source
    except tomllib.TOMLDecodeError as exc:
        raise DataError(f"{source}: not valid TOML ({exc})") from exc


class Reader:
    """Typed access to one table of a data file; errors name the file and the entry."""

    def __init__(self, table: Any, source: str, where: str) -> None:
        if not isinstance(table, dict):
            raise DataError(f"{source}: {where} must be a table")
        self.table = table
        self.source = source
        self.where = where

    def fail(self, key: str, why: str) -> DataError:
        entry = f"{self.where}.{key}" if self.where else key
        return DataError(f"{self.source}: {entry}: {why}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in self.table:
            if default is ...:
                raise self.fail(key, "missing")
            return default
        value = self.table[key]
        if isinstance(value, bool) and kind is not bool:
            raise self.fail(key, f"must be {_kind_name(kind)}, not {value!r}")
        if not isinstance(value, kind):
            raise self.fail(key, f"must be {_kind_name(kind)}, not {value!r}")
        return value

    def int_list(self, key: str) -> list[int]:
        values = self.get(key, list)
        for i, v in enumerate(values):
            if not isinstance(v, int) or isinstance(v, bool):
                raise self.fail(f"{key}[{i}]", f"must be a whole number, not {v!r}")
        return values

    def tables(self, key: str) -> list[Reader]:
        items = self.get(key, list, [])
        return [Reader(t, self.source, f"{key}[{i}]") for i, t in enumerate(items)]

    def sub(self, key: str) -> Reader:
        return Reader(self.get(key, dict), self.source, f"{self.where}.{key}" if self.where else key)

    def check_known(self, allowed: set[str]) -> None:
        """Unknown keys are errors: a misspelt key would otherwise be silently ignored."""
        for key in self.table:
            if key not in allowed:
                raise self.fail(key, f"unknown key (expected one of: {', '.join(sorted(allowed))})")


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {int: "a whole number", str: "a text", bool: "true or false", list: "a list",
             dict: "a table", float: "a number"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(k, k.__name__) for k in kinds)
