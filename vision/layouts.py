"""Board layouts (where each square lies, in board millimetres), loaded from TOML and validated.

Two boards have layouts: the 11! board (`start11`) and the Numeri track (`numeri`). The files
live in `vision/data/`; the renderer draws boards from them and the recogniser maps image
positions to squares with them. Every error names the file and the entry at fault.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA_DIR = Path(__file__).resolve().parent / "data"
LAYOUT_FILES = {"start11": "start11_layout.toml", "numeri": "numeri_layout.toml"}
ROW_COLOURS = ("yellow", "red", "blue", "green")
SYMBOLS = ("square", "triangle", "star", "circle")
JOKER_NUMBERS = (3, 7, 13, 17)
# Copies of each 11! number tile (one per colour and number) and grey joker (one per row: four).
TILE_COPIES = {"number": 1, "joker": 4}
NUMERI_KINDS = ("start", "negative", "blank", "number", "end")


class LayoutError(ValueError):
    """A layout file is missing, unreadable or inconsistent; the message names file and entry."""


@dataclass(frozen=True)
class Square:
    id: str | int  # "yellow-7", "blue-left" (11!) or the track index (Numeri)
    x: float  # centre, board mm
    y: float
    kind: str  # 11!: number|joker|symbol; Numeri: start|negative|blank|number|end
    row: str | None = None  # 11! row colour
    number: int | None = None  # 11! printed number 1..20
    symbol: str | None = None  # 11! symbol square
    value: int | None = None  # Numeri printed value


@dataclass(frozen=True)
class Bridge:
    rows: tuple[str, str]
    number: int
    bonus: bool


@dataclass(frozen=True)
class BoardLayout:
    game: str
    name: str
    path: str
    width_mm: float
    height_mm: float
    square_mm: float
    squares: tuple[Square, ...]
    rows: tuple[str, ...] = ()
    link_columns: tuple[int, ...] = ()
    bridges: tuple[Bridge, ...] = ()
    barriers: dict[int, int] = field(default_factory=dict, hash=False, compare=False)

    def square(self, sid: str | int) -> Square:
        for s in self.squares:
            if s.id == sid:
                return s
        raise KeyError(f"{self.path}: no square {sid!r}")


def layout_path(game: str) -> Path:
    if game not in LAYOUT_FILES:
        raise LayoutError(f"no board layout for game {game!r}; boards exist for {sorted(LAYOUT_FILES)}")
    return DATA_DIR / LAYOUT_FILES[game]


_CACHE: dict[tuple[str, str, float], BoardLayout] = {}


def load_layout(game: str, path: str | Path | None = None) -> BoardLayout:
    """Load and validate the layout of `game` ("start11" or "numeri"), from `path` or the bundled file."""
    p = Path(path) if path is not None else layout_path(game)
    try:
        mtime = p.stat().st_mtime
    except OSError as exc:
        raise LayoutError(f"{p}: cannot read layout file ({exc.strerror})") from exc
    key = (game, str(p), mtime)
    if key not in _CACHE:
        try:
            data = tomllib.loads(p.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError) as exc:
            raise LayoutError(f"{p}: cannot read layout file ({exc})") from exc
        except tomllib.TOMLDecodeError as exc:
            raise LayoutError(f"{p}: not valid TOML ({exc})") from exc
        if game == "start11":
            _CACHE[key] = _start11(data, str(p))
        elif game == "numeri":
            _CACHE[key] = _numeri(data, str(p))
        else:
            raise LayoutError(f"no board layout for game {game!r}; boards exist for {sorted(LAYOUT_FILES)}")
    return _CACHE[key]


# ----------------------------------------------------------------------------------------


def _num(v: Any, where: str, path: str, positive: bool = False) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise LayoutError(f"{path}: {where} must be a number, not {v!r}")
    if positive and v <= 0:
        raise LayoutError(f"{path}: {where} must be positive, not {v!r}")
    return float(v)


def _int(v: Any, where: str, path: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise LayoutError(f"{path}: {where} must be an integer, not {v!r}")
    return v


def _table(data: dict, key: str, path: str) -> dict:
    v = data.get(key)
    if not isinstance(v, dict):
        raise LayoutError(f"{path}: missing table [{key}]")
    return v


def _board_header(data: dict, path: str) -> tuple[str, float, float, float, dict]:
    b = _table(data, "board", path)
    name = b.get("name", Path(path).stem)
    if not isinstance(name, str):
        raise LayoutError(f"{path}: board.name must be a string")
    w = _num(b.get("width_mm"), "board.width_mm", path, positive=True)
    h = _num(b.get("height_mm"), "board.height_mm", path, positive=True)
    sq = _num(b.get("square_mm"), "board.square_mm", path, positive=True)
    return name, w, h, sq, b


def _inside(x: float, y: float, w: float, h: float, sq: float, where: str, path: str) -> None:
    if not (sq / 2 <= x <= w - sq / 2 and sq / 2 <= y <= h - sq / 2):
        raise LayoutError(f"{path}: {where} at ({x}, {y}) lies outside the {w}×{h} mm board")


def _start11(data: dict, path: str) -> BoardLayout:
    name, w, h, sq, b = _board_header(data, path)
    rows = b.get("rows")
    if not isinstance(rows, list) or sorted(rows) != sorted(ROW_COLOURS):
        raise LayoutError(f"{path}: board.rows must list the four colours {list(ROW_COLOURS)} once each")
    links = b.get("link_columns", [1, 11, 20])
    if not isinstance(links, list) or not all(isinstance(n, int) and 1 <= n <= 20 for n in links):
        raise LayoutError(f"{path}: board.link_columns must be a list of numbers 1..20")
    symbols = data.get("symbols", {})
    if not isinstance(symbols, dict):
        raise LayoutError(f"{path}: [symbols] must be a table")
    raw = data.get("squares")
    if not isinstance(raw, list) or not raw:
        raise LayoutError(f"{path}: missing 'squares' list")
    squares: list[Square] = []
    seen: set[str] = set()
    for i, e in enumerate(raw):
        if not isinstance(e, dict):
            raise LayoutError(f"{path}: squares[{i}] must be a table")
        sid = e.get("id")
        where = f"squares[{i}] (id {sid!r})"
        if not isinstance(sid, str) or "-" not in sid:
            raise LayoutError(f"{path}: {where}: id must look like 'yellow-7' or 'red-left'")
        row, _, pos = sid.partition("-")
        if row not in ROW_COLOURS:
            raise LayoutError(f"{path}: {where}: unknown row colour {row!r}")
        if sid in seen:
            raise LayoutError(f"{path}: {where}: duplicate square id")
        seen.add(sid)
        x = _num(e.get("x"), f"{where}.x", path)
        y = _num(e.get("y"), f"{where}.y", path)
        _inside(x, y, w, h, sq, where, path)
        if pos in ("left", "right"):
            sym = e.get("symbol", symbols.get(sid))
            if sym not in SYMBOLS:
                raise LayoutError(f"{path}: {where}: symbol must be one of {list(SYMBOLS)}, not {sym!r}")
            squares.append(Square(sid, x, y, "symbol", row=row, symbol=str(sym)))
            continue
        try:
            n = int(pos)
        except ValueError:
            raise LayoutError(f"{path}: {where}: expected a number 1..20, 'left' or 'right' after the colour") from None
        if not 1 <= n <= 20:
            raise LayoutError(f"{path}: {where}: number must be 1..20")
        squares.append(Square(sid, x, y, "joker" if n in JOKER_NUMBERS else "number", row=row, number=n))
    missing = [f"{r}-{k}" for r in ROW_COLOURS for k in ["left", *range(1, 21), "right"] if f"{r}-{k}" not in seen]
    if missing:
        raise LayoutError(f"{path}: squares: missing {', '.join(missing[:6])}{' ...' if len(missing) > 6 else ''}")
    _no_overlap(squares, sq, path)
    bridges = []
    raw_b = data.get("bridges", [])
    if not isinstance(raw_b, list):
        raise LayoutError(f"{path}: bridges must be a list")
    for i, e in enumerate(raw_b):
        where = f"bridges[{i}]"
        if not isinstance(e, dict):
            raise LayoutError(f"{path}: {where} must be a table")
        pair = e.get("rows")
        if not isinstance(pair, list) or len(pair) != 2 or any(r not in ROW_COLOURS for r in pair):
            raise LayoutError(f"{path}: {where}.rows must name two row colours")
        if abs(rows.index(pair[0]) - rows.index(pair[1])) != 1:
            raise LayoutError(f"{path}: {where}: rows {pair} are not neighbours in board.rows")
        n = _int(e.get("number"), f"{where}.number", path)
        if not 1 <= n <= 20:
            raise LayoutError(f"{path}: {where}.number must be 1..20")
        bonus = e.get("bonus", False)
        if not isinstance(bonus, bool):
            raise LayoutError(f"{path}: {where}.bonus must be true or false")
        bridges.append(Bridge((str(pair[0]), str(pair[1])), n, bonus))
    return BoardLayout("start11", name, path, w, h, sq, tuple(squares), rows=tuple(rows),
                       link_columns=tuple(links), bridges=tuple(bridges))


def _numeri(data: dict, path: str) -> BoardLayout:
    name, w, h, sq, _ = _board_header(data, path)
    raw = data.get("squares")
    if not isinstance(raw, list) or len(raw) < 4:
        raise LayoutError(f"{path}: 'squares' must list the track squares")
    squares: list[Square] = []
    for i, e in enumerate(raw):
        where = f"squares[{i}]"
        if not isinstance(e, dict):
            raise LayoutError(f"{path}: {where} must be a table")
        idx = _int(e.get("index"), f"{where}.index", path)
        if idx != i:
            raise LayoutError(f"{path}: {where}: index {idx} out of order (expected {i})")
        x = _num(e.get("x"), f"{where}.x", path)
        y = _num(e.get("y"), f"{where}.y", path)
        _inside(x, y, w, h, sq, where, path)
        value = _int(e.get("value"), f"{where}.value", path)
        kind = e.get("kind")
        if kind not in NUMERI_KINDS:
            raise LayoutError(f"{path}: {where}.kind must be one of {list(NUMERI_KINDS)}, not {kind!r}")
        squares.append(Square(idx, x, y, str(kind), value=value))
    if squares[0].kind != "start":
        raise LayoutError(f"{path}: squares[0] must be the start square (kind = \"start\")")
    ends = [s.id for s in squares if s.kind == "end"]
    if ends != [len(squares) - 3, len(squares) - 2, len(squares) - 1]:
        raise LayoutError(f"{path}: the last three squares (and only they) must have kind = \"end\"")
    _no_overlap(squares, sq, path)
    barriers: dict[int, int] = {}
    raw_b = data.get("barriers", {})
    if not isinstance(raw_b, dict):
        raise LayoutError(f"{path}: [barriers] must be a table")
    for k, v in raw_b.items():
        where = f"barriers.{k}"
        try:
            players = int(k)
        except ValueError:
            raise LayoutError(f"{path}: {where}: key must be a player count") from None
        if not 2 <= players <= 4:
            raise LayoutError(f"{path}: {where}: player count must be 2..4")
        b = _int(v, where, path)
        if not 0 <= b < len(squares) - 1:
            raise LayoutError(f"{path}: {where}: barrier must lie between two squares (0..{len(squares) - 2})")
        barriers[players] = b
    return BoardLayout("numeri", name, path, w, h, sq, tuple(squares), barriers=barriers)


def _no_overlap(squares: list[Square], sq: float, path: str) -> None:
    for i, a in enumerate(squares):
        for b in squares[i + 1:]:
            if abs(a.x - b.x) < sq * 0.98 and abs(a.y - b.y) < sq * 0.98:
                raise LayoutError(f"{path}: squares {a.id!r} and {b.id!r} overlap")
