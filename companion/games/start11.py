"""11! (`start11`): Reiner Knizia's tile-laying board game (DE "Elfer raus! Das Brettspiel", EN "Start 11!").

Rules: RULES.md section 1 (seed 000), variant `symbols` (section 1.8). Four coloured rows of
squares 1-20 (3, 7, 13, 17 are grey joker squares) with a symbol square at each end; the
board (row order, bridges, bonus bridges, symbols) is a data file (`data/start11_board.toml`,
RULES.md 1.9 #1). 2-3 players draw 20 tiles, 4 players 15. The first player in order
holding an 11 opens with it (nobody: everybody draws in turn until someone draws an 11).
On a turn a player who can place must place at least one tile and at most three; a tile
goes on its own square (a grey joker on any square of its number) next to a tile already
on the board (row neighbour or bridge); 11s go anywhere; once a square of the link columns
1 / 20 holds a tile, the other tiles of that number go anywhere in the column. The first
tile on either square of a bonus bridge draws a bonus tile from the bag, placed face up
ignoring rule 1 and outside the limit. Nothing placeable: draw up to 3 tiles, a placeable
drawn tile must be placed (then up to 2 more). Two neighbouring tiles of one row placed in
the same turn earn one tile given face down to the left neighbour. The round ends at once
when a rack is empty (placing or giving); the others score minus the sum of their tiles
(symbol tiles -11); the match total closest to zero wins.

Squares are "<row>:<n>" ("yellow:13") and "<row>:left" / "<row>:right" (symbol squares).
Tiles are "Y5" (coloured), "X13" (grey joker), "square" / "triangle" / "star" / "circle".

Actions:
  chance  {"type": "deal", "hands": [[tile, ...], ...] | null}
          {"type": "drawn", "tile": tile | null}   forced draw (hidden at the table), or a draw
                                                    of the opening search for an 11 (an 11 is shown)
          {"type": "bonus", "tile": tile}           bridge bonus: drawn and placed face up (public)
          {"type": "reveal", "seat": s, "cards": [tile, ...]}   (table mode, round end)
  player  {"type": "no_eleven"}                     opening: "I hold no 11" (a Claim at the table)
          {"type": "place", "tile": tile, "square": sq}
          {"type": "place_bonus", "square": sq}     where a drawn bonus joker / symbol tile goes
          {"type": "draw"}                          nothing placeable: forced draw (up to 3 a turn)
          {"type": "give", "tile": tile | null}     end of turn, when earned (null: face down)
          {"type": "end_turn"}, {"type": "pass"}    (pass: bag empty and nothing placeable)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from random import Random
from typing import Any

from . import cards, register
from .base import (
    CHANCE,
    TERMINAL,
    Action,
    Card,
    Claim,
    DataError,
    GameDef,
    GameInfo,
    Hand,
    IllegalMove,
    MalformedAction,
    Option,
    State,
    Text,
    Variant,
    need,
    verify_claim,
)
from .data import Reader, read_toml

DATA_FILE = "start11_board.toml"


def _opt(oid: str, default: Any, fr: str, en: str, guess: bool = True) -> Option:
    return Option(oid, default, Text(fr, en), guess=guess)


INFO = GameInfo(
    id="start11",
    name=Text("11! (Elfer raus! – le jeu de plateau)", "Start 11! (Elfer raus! board game)"),
    min_players=2,
    max_players=4,
    variants=(
        Variant(
            "symbols",
            Text("Tuiles Symbole", "Symbol tiles"),
            Text(
                "Les 8 tuiles Symbole vont dans le sac. Une tuile Symbole se pose sur une case de son symbole "
                "à côté d'un 1 ou d'un 20 déjà posé et permet de poser aussitôt une tuile Nombre ou Joker sans "
                "la règle 1, hors limite. Elle vaut -11 si elle reste sur la réglette.",
                "The 8 symbol tiles go into the bag. A symbol tile goes on a square of its symbol next to a 1 or "
                "a 20 already placed and lets the player place one number or joker tile at once, ignoring rule 1 "
                "and outside the limit. It scores -11 if left on the rack.",
            ),
        ),
    ),
    options=(
        _opt("symbol_counts", True,
             "Variante : la tuile Symbole compte dans la limite de 3 tuiles ; seule la tuile offerte est libre.",
             "Variant: the symbol tile counts toward the 3-tile limit; only the granted extra tile is free."),
        _opt("bonus_joker_choice", True,
             "Tuile bonus grise : le joueur choisit la case libre de ce nombre (sinon la plus haute rangée libre).",
             "Grey bonus tile: the player chooses the empty square of that number (otherwise the topmost one)."),
        _opt("bonus_symbol_extra", True,
             "Variante : une tuile Symbole tirée en bonus se pose sur une case libre de son symbole et offre "
             "aussi sa tuile supplémentaire.",
             "Variant: a symbol tile drawn as a bonus goes on an empty square of its symbol and also grants "
             "its extra tile."),
        _opt("bonus_chain", True,
             "Une tuile bonus posée la première sur une case de pont bonus donne elle aussi un bonus.",
             "A bonus tile that is the first tile on a bonus-bridge square triggers that bonus too."),
        _opt("drawn_eleven_full_turn", True,
             "Qui ouvre avec un 11 pioché peut encore poser jusqu'à 2 tuiles comme un premier joueur.",
             "Whoever opens with a drawn 11 may go on placing up to 2 tiles like any start player."),
        _opt("deadlock_scores", True,
             "Sac vide et personne ne peut poser (un tour de passes) : la manche s'arrête sans gagnant et chacun "
             "marque ses tuiles restantes (sinon la manche est annulée : 0 pour tous).",
             "Bag empty and nobody can place (a full circle of passes): the round ends without a winner and "
             "everybody scores their remaining tiles (otherwise the round is void: 0 for all)."),
    ),
    winner="highest",
    hidden_hands=True,
)

LIMIT = 3  # rack tiles per turn
MAX_DRAWS = 3  # forced draws per turn
HAND_SIZE = {2: 20, 3: 20, 4: 15}
SYMBOLS = ("square", "triangle", "star", "circle")
SYMBOL_WORDS = {"square": ("carré", "square"), "triangle": ("triangle", "triangle"),
                "star": ("étoile", "star"), "circle": ("rond", "circle")}
ROW_FEM = {"yellow": "jaune", "red": "rouge", "blue": "bleue", "green": "verte"}  # "la rangée bleue"
NUMBER, JOKER, SYMBOL = "number", "joker", "symbol"

# Squares: row r (index in cards.COLOURS) holds r*22 + 0 (left symbol square), + 1..20, + 21 (right).
ROW = 22
LEFT, RIGHT = 0, ROW - 1
N_SQUARES = 4 * ROW


def _square_name(sq: int) -> str:
    pos = sq % ROW
    return f"{cards.COLOURS[sq // ROW]}:{'left' if pos == LEFT else 'right' if pos == RIGHT else pos}"


SQUARE_NAMES = tuple(_square_name(i) for i in range(N_SQUARES))
SQUARE_OF = {name: i for i, name in enumerate(SQUARE_NAMES)}
SYMBOL_SQUARES = tuple(sq for sq in range(N_SQUARES) if sq % ROW in (LEFT, RIGHT))


def _sq(colour: str, n: int) -> int:
    return cards.COLOURS.index(colour) * ROW + n


# Claims (table mode): what a player says that the table cannot check until the reveal.
NO_ELEVEN = Text("Je n'ai pas de 11.", "I hold no 11.")
DRAWN_NOT_ELEVEN = Text("La tuile piochée n'est pas un 11.", "The drawn tile is not an 11.")
CANNOT_PLACE = Text("Je ne peux rien poser, je pioche.", "I cannot place anything, I draw.")
DRAWN_NO_FIT = Text("La tuile piochée ne se pose pas, je repioche.", "The drawn tile does not fit, I draw again.")
DRAWS_NO_FIT = Text("Aucune tuile piochée ne se pose.", "None of the drawn tiles fits.")
CANNOT_PASS = Text("Je ne peux rien poser et le sac est vide : je passe.",
                   "I cannot place anything and the bag is empty: I pass.")


# --- the board (data file) -----------------------------------------------------------


@dataclass(frozen=True)
class Bridge:
    upper: str  # the upper of the two neighbouring rows
    lower: str
    number: int
    bonus: bool
    guess: bool

    def squares(self) -> tuple[int, int]:
        return _sq(self.upper, self.number), _sq(self.lower, self.number)


class Board:
    """One copy of the board (the data file) and the geometry the rules need, precomputed."""

    def __init__(self, rows: tuple[str, ...], rows_guess: bool, jokers: tuple[int, ...], links: tuple[int, ...],
                 columns_guess: bool, bridges: tuple[Bridge, ...], symbols: Mapping[int, tuple[str, bool]]) -> None:
        self.rows = rows
        self.rows_guess = rows_guess
        self.jokers = jokers
        self.links = links
        self.columns_guess = columns_guess
        self.bridges = bridges
        self.symbols = dict(symbols)  # symbol square -> (symbol, guess)
        self._derive()

    def _derive(self) -> None:
        top_first = [cards.COLOURS.index(r) for r in self.rows]
        values = [v for v in range(1, 21) if v not in self.jokers]
        coloured = [cards.code(c, v) for c in cards.COLOURS for v in values]
        greys = [cards.code("gray", v) for v in sorted(self.jokers)]
        self.tiles: tuple[Card, ...] = (*coloured, *greys, *SYMBOLS)
        self.order = {t: i for i, t in enumerate(self.tiles)}
        self.kind: dict[Card, str] = {}
        self.value: dict[Card, int] = {}
        self.squares: dict[Card, tuple[int, ...]] = {}  # where each tile may go, top row first
        for t in coloured:
            colour, v = cards.parse(t) or ("", 0)
            self.kind[t], self.value[t], self.squares[t] = NUMBER, v, (_sq(colour, v),)
        for v in self.jokers:
            t = cards.code("gray", v)
            self.kind[t], self.value[t] = JOKER, v
            self.squares[t] = tuple(r * ROW + v for r in top_first)
        by_row = sorted(self.symbols, key=lambda sq: (top_first.index(sq // ROW), sq % ROW))
        for s in SYMBOLS:
            self.kind[s], self.value[s] = SYMBOL, 11
            self.squares[s] = tuple(sq for sq in by_row if self.symbols[sq][0] == s)
        self.elevens = frozenset(cards.code(c, 11) for c in cards.COLOURS)
        nbrs: list[list[int]] = [[] for _ in range(N_SQUARES)]
        bonus_of: list[list[int]] = [[] for _ in range(N_SQUARES)]
        for sq in range(N_SQUARES):
            pos = sq % ROW
            if pos == LEFT:
                nbrs[sq].append(sq + 1)
            elif pos == RIGHT:
                nbrs[sq].append(sq - 1)
            else:
                nbrs[sq].extend(n for n in (sq - 1, sq + 1) if 1 <= n % ROW <= 20)
        for i, b in enumerate(self.bridges):
            a, c = b.squares()
            nbrs[a].append(c)
            nbrs[c].append(a)
            if b.bonus:
                bonus_of[a].append(i)
                bonus_of[c].append(i)
        self.nbrs = tuple(tuple(n) for n in nbrs)
        self.bonus_of = tuple(tuple(b) for b in bonus_of)
        self.link = tuple(sq % ROW if 1 <= sq % ROW <= 20 and sq % ROW in self.links else 0
                          for sq in range(N_SQUARES))
        self.row_rank = {c: top_first.index(i) for i, c in enumerate(cards.COLOURS)}

    def __deepcopy__(self, memo: dict[int, Any]) -> Board:
        return self  # never changed after loading: states share it

    def deck(self, with_symbols: bool) -> Counter[Card]:
        """Every tile of the game: coloured tiles once, grey jokers 4 times, symbol tiles twice."""
        out: Counter[Card] = Counter()
        for t in self.tiles:
            kind = self.kind[t]
            if kind == NUMBER:
                out[t] = 1
            elif kind == JOKER:
                out[t] = 4
            elif with_symbols:
                out[t] = 2
        return out

    def guessed(self) -> bool:
        """Is any part of this layout a placeholder (RULES.md 1.9 #1)?"""
        return (self.rows_guess or self.columns_guess or any(b.guess for b in self.bridges)
                or any(g for _, g in self.symbols.values()))

    def to_json(self) -> dict[str, Any]:
        """The layout in the shape of the data file (what `parse_board` reads back)."""
        return {
            "rows": {"order": list(self.rows), "guess": self.rows_guess},
            "columns": {"jokers": list(self.jokers), "links": list(self.links), "guess": self.columns_guess},
            "bridge": [{"rows": [b.upper, b.lower], "number": b.number, "bonus": b.bonus, "guess": b.guess}
                       for b in self.bridges],
            "symbol": [{"square": SQUARE_NAMES[sq], "symbol": s, "guess": g}
                       for sq, (s, g) in sorted(self.symbols.items())],
        }

    def layout(self) -> dict[str, Any]:
        """What the pages need to draw the board."""
        return {
            "rows": list(self.rows),
            "jokers": list(self.jokers),
            "links": list(self.links),
            "bridges": [{"squares": [SQUARE_NAMES[s] for s in b.squares()], "bonus": b.bonus} for b in self.bridges],
            "symbols": {SQUARE_NAMES[sq]: s for sq, (s, _) in sorted(self.symbols.items())},
            "guess": self.guessed(),
        }


def _numbers(r: Reader, key: str, count: int | None) -> tuple[int, ...]:
    values = r.int_list(key)
    for i, v in enumerate(values):
        if not 1 <= v <= 20:
            raise r.fail(f"{key}[{i}]", "must be 1 to 20")
        if v in values[:i]:
            raise r.fail(f"{key}[{i}]", f"{v} is listed twice")
    if count is not None and len(values) != count:
        raise r.fail(key, f"must list {count} numbers, not {len(values)}")
    return tuple(values)


def _parse_rows(top: Reader) -> tuple[tuple[str, ...], bool]:
    rows = top.sub("rows")
    rows.check_known({"order", "guess"})
    order = rows.get("order", list)
    if sorted(map(str, order)) != sorted(cards.COLOURS) or not all(isinstance(o, str) for o in order):
        raise rows.fail("order", "must name yellow, red, blue and green once each, top to bottom")
    return tuple(order), rows.get("guess", bool)


def _parse_columns(top: Reader) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    cols = top.sub("columns")
    cols.check_known({"jokers", "links", "guess"})
    jokers = _numbers(cols, "jokers", 4)
    if 11 in jokers:
        raise cols.fail("jokers", "11 cannot be a joker column: the 11s open the game")
    links = _numbers(cols, "links", None)
    for i, v in enumerate(links):
        if v in jokers:
            raise cols.fail(f"links[{i}]", f"{v} is a joker column")
    return jokers, links, cols.get("guess", bool)


def _parse_bridges(top: Reader, order: tuple[str, ...]) -> tuple[Bridge, ...]:
    out: list[Bridge] = []
    seen: dict[tuple[str, str, int], int] = {}
    for i, b in enumerate(top.tables("bridge")):
        b.check_known({"rows", "number", "bonus", "guess"})
        pair = b.get("rows", list)
        if len(pair) != 2 or not all(isinstance(r, str) and r in cards.COLOURS for r in pair):
            raise b.fail("rows", "must name two rows (yellow, red, blue, green)")
        a, c = sorted(pair, key=order.index)
        if order.index(c) - order.index(a) != 1:
            raise b.fail("rows", f"{pair[0]} and {pair[1]} are not neighbouring rows (top to bottom: "
                                 f"{', '.join(order)})")
        number = b.get("number", int)
        if not 1 <= number <= 20:
            raise b.fail("number", "must be 1 to 20")
        if (a, c, number) in seen:
            raise b.fail("number", f"the same bridge as bridge[{seen[a, c, number]}]")
        seen[a, c, number] = i
        out.append(Bridge(a, c, number, b.get("bonus", bool), b.get("guess", bool)))
    bonus = sum(b.bonus for b in out)
    if bonus != 4:
        raise DataError(f"{top.source}: bridge: exactly four bridges carry the bonus symbol, not {bonus}")
    return tuple(out)


def _parse_symbols(top: Reader) -> dict[int, tuple[str, bool]]:
    out: dict[int, tuple[str, bool]] = {}
    for s in top.tables("symbol"):
        s.check_known({"square", "symbol", "guess"})
        name = s.get("square", str)
        sq = SQUARE_OF.get(name, -1)
        if sq not in SYMBOL_SQUARES:
            raise s.fail("square", f"{name!r} is not a symbol square (like \"yellow:left\" or \"green:right\")")
        if sq in out:
            raise s.fail("square", f"{name} is given twice")
        symbol = s.get("symbol", str)
        if symbol not in SYMBOLS:
            raise s.fail("symbol", f"must be one of {', '.join(SYMBOLS)}")
        out[sq] = (symbol, s.get("guess", bool))
    missing = [SQUARE_NAMES[sq] for sq in SYMBOL_SQUARES if sq not in out]
    if missing:
        raise DataError(f"{top.source}: symbol: no symbol given for {', '.join(missing)}")
    counts = Counter(s for s, _ in out.values())
    for symbol in SYMBOLS:
        if counts[symbol] != 2:
            raise DataError(f"{top.source}: symbol: {symbol} is printed {counts[symbol]} times, not twice")
    return out


def parse_board(content: Mapping[str, Any], source: str) -> Board:
    """Validate a board read from a data file (or a saved state); `DataError` names the entry."""
    top = Reader(dict(content), source, "")
    top.check_known({"rows", "columns", "bridge", "symbol"})
    rows, rows_guess = _parse_rows(top)
    jokers, links, columns_guess = _parse_columns(top)
    bridges = _parse_bridges(top, rows)
    symbols = _parse_symbols(top)
    return Board(rows, rows_guess, jokers, links, columns_guess, bridges, symbols)


_SHIPPED: Board | None = None


def load_data(path: str | Path | None = None) -> Board:
    """The shipped board, or the user's own file (which replaces it)."""
    global _SHIPPED
    if path is None:
        if _SHIPPED is None:
            _SHIPPED = parse_board(*read_toml(DATA_FILE))
        return _SHIPPED
    return parse_board(*read_toml(DATA_FILE, path))


# --- words ---------------------------------------------------------------------------


def tile_name(tile: Card, lang: str = "en") -> str:
    """"the yellow 5", "the grey 13", "the star tile" / "le 5 jaune", "la tuile « étoile »"."""
    if tile in SYMBOL_WORDS:
        fr, en = SYMBOL_WORDS[tile]
        return f"la tuile « {fr} »" if lang == "fr" else f"the {en} tile"
    return f"le {cards.name(tile, 'fr')}" if lang == "fr" else f"the {cards.name(tile)}"


def square_words(sq: int, lang: str = "en") -> str:
    """"the yellow 13 square" / "la case 13 de la rangée jaune"; symbol squares by their end."""
    colour, pos = cards.COLOURS[sq // ROW], sq % ROW
    if pos in (LEFT, RIGHT):
        end = 1 if pos == LEFT else 20
        if lang == "fr":
            return f"la case symbole à côté du {cards.name(cards.code(colour, end), 'fr')}"
        return f"the symbol square next to the {cards.name(cards.code(colour, end))}"
    return f"la case {pos} de la rangée {ROW_FEM[colour]}" if lang == "fr" else f"the {colour} {pos} square"


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


# --- the round -----------------------------------------------------------------------


class Start11State(State):
    info = INFO
    data: Board

    def __init__(self, players: int, variant: str | None = None, **kwargs: Any) -> None:
        super().__init__(players, variant, **kwargs)
        self.deck = self.data.deck(variant == "symbols")
        self.board: list[Card | None] = [None] * N_SQUARES
        self.col_count = [0] * 21  # tiles on the board per column number (link zones)
        self.hands = [Hand() for _ in range(players)]
        self.pool: Counter[Card] = Counter(self.deck)  # tiles whose place nobody has seen
        self.pile = sum(self.deck.values())  # tiles in the bag
        # deal, opening, opening_draw, drawn_eleven, play, drawn, after_draw, bonus, place_bonus, reveal, over
        self.phase = "deal"
        self.player = self.start_player  # whose turn (or who is asked / draws) it is
        self.asked = 0  # players who said they hold no 11
        self.counted = 0  # rack tiles placed this turn that count toward the limit
        self.laid = 0  # rack tiles placed this turn
        self.draws = 0  # forced draws this turn
        self.drawn: Card | None = None  # the drawn tile that must be placed if it fits (when known)
        self.free = False  # a symbol tile was just placed: the next number/joker tile is free
        self.earned = False  # two neighbouring tiles placed this turn: a tile may be given
        self.turn_squares: set[int] = set()  # number squares filled this turn (rack or bonus)
        self.used: set[int] = set()  # bonus bridges already claimed (indices into data.bridges)
        self.bonus_pending = 0  # bonus tiles still to draw
        self.bonus_tile: Card | None = None  # a drawn bonus tile waiting for its square
        self.passes = 0  # consecutive passes with an empty bag
        self.winner: int | None = None
        self.void = False  # a deadlocked round scored 0 for everybody
        self.revealed: list[bool] = [False] * players

    @classmethod
    def default_data(cls) -> Board:
        return load_data(None)

    @classmethod
    def data_from_json(cls, obj: Any) -> Board:
        if not isinstance(obj, Mapping):
            raise DataError("saved state: the board must be a table")
        return parse_board(obj, "saved state")

    # -- geometry -------------------------------------------------------------------------

    def _connected(self, sq: int) -> bool:
        """Rule 1: a neighbour (row or bridge) is occupied, or a link column already holds a tile."""
        board = self.board
        for n in self.data.nbrs[sq]:
            if board[n] is not None:
                return True
        col = self.data.link[sq]
        return col > 0 and self.col_count[col] > 0

    def _squares_for(self, tile: Card) -> list[int]:
        """The squares `tile` may go on now from the rack (limit, free extra tile, rule 1)."""
        g = self.data
        board = self.board
        if g.kind[tile] == SYMBOL:
            if self.counted >= LIMIT and self.options["symbol_counts"]:
                return []
            return [sq for sq in g.squares[tile] if board[sq] is None and board[g.nbrs[sq][0]] is not None]
        if self.free or tile in g.elevens:
            if not self.free and self.counted >= LIMIT:
                return []
            return [sq for sq in g.squares[tile] if board[sq] is None]
        if self.counted >= LIMIT:
            return []
        out = []
        nbrs, link, col_count = g.nbrs, g.link, self.col_count
        for sq in g.squares[tile]:  # rule 1 (`_connected`) inlined: the hot path of every simulation
            if board[sq] is not None:
                continue
            col = link[sq]
            if col and col_count[col]:
                out.append(sq)
                continue
            for n in nbrs[sq]:
                if board[n] is not None:
                    out.append(sq)
                    break
        return out

    def _holdable(self, seat: int) -> list[Card]:
        """Tile identities that may be on this rack: known ones, plus unseen ones if some are hidden."""
        hand = self.hands[seat]
        tiles = set(hand.known)
        if hand.unknown:
            tiles.update(self.pool)
        return sorted(tiles, key=self.data.order.__getitem__)

    def _placements(self, seat: int) -> list[Action]:
        return [{"type": "place", "tile": t, "square": SQUARE_NAMES[sq]}
                for t in self._holdable(seat) for sq in self._squares_for(t)]

    def _can_place(self, seat: int) -> bool:
        hand = self.hands[seat]
        if any(self._squares_for(t) for t in hand.known):
            return True
        return bool(hand.unknown) and any(self._squares_for(t) for t in self.pool)

    def _known_placeable(self, seat: int) -> list[Card]:
        return [t for t in sorted(self.hands[seat].known, key=self.data.order.__getitem__) if self._squares_for(t)]

    def placeable_tiles(self) -> list[Card]:
        """Every tile identity that could be placed from a rack now (what a "cannot place" claim denies)."""
        return [t for t in self.data.tiles if t in self.deck and self._squares_for(t)]

    def _empty_bonus_squares(self, tile: Card) -> list[int]:
        return [sq for sq in self.data.squares[tile] if self.board[sq] is None]

    # -- protocol -------------------------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        p = self.phase
        if p == "deal":
            return [{"type": "deal", "hands": None}] if self.table_mode else []
        if p in ("drawn", "opening_draw", "bonus"):
            return self._chance_outcomes()
        if p in ("reveal", "over"):
            return []
        seat = self.player
        if p == "opening":
            acts = [self._place_action(t) for t in sorted(self.data.elevens) if self.hands[seat].can_hold(t, self.pool)]
            if not self._known_elevens(seat):
                acts.append({"type": "no_eleven"})
            return acts
        if p == "place_bonus":
            assert self.bonus_tile is not None
            return [{"type": "place_bonus", "square": SQUARE_NAMES[sq]}
                    for sq in self._empty_bonus_squares(self.bonus_tile)]
        if p in ("after_draw", "drawn_eleven"):
            if self.drawn is not None:
                squares = self._squares_for(self.drawn)
                if squares:
                    return [{"type": "place", "tile": self.drawn, "square": SQUARE_NAMES[sq]} for sq in squares]
                return [{"type": "draw"}]  # the drawn tile does not fit: draw again
            acts = self._placements(seat)
            acts.append({"type": "draw"} if self.draws < MAX_DRAWS and self.pile else {"type": "end_turn"})
            return acts
        acts = self._placements(seat)
        if not self.laid:
            if not self._known_placeable(seat):
                acts.append({"type": "draw"} if self.pile else {"type": "pass"})
            return acts
        if self.earned:
            acts.extend(self._gives(seat))
        acts.append({"type": "end_turn"})
        return acts

    def _place_action(self, tile: Card) -> Action:
        return {"type": "place", "tile": tile, "square": SQUARE_NAMES[self.data.squares[tile][0]]}

    def _chance_outcomes(self) -> list[Action]:
        tiles = sorted(self.pool, key=self.data.order.__getitem__)
        if self.phase == "bonus":
            return [{"type": "bonus", "tile": t} for t in tiles]
        if not self.table_mode:
            return [{"type": "drawn", "tile": t} for t in tiles]
        acts: list[Action] = [{"type": "drawn", "tile": None}]
        if self.phase == "opening_draw":  # a drawn 11 is shown: it opens the game at once
            acts.extend({"type": "drawn", "tile": t} for t in tiles if t in self.data.elevens)
        return acts

    def _gives(self, seat: int) -> list[Action]:
        acts: list[Action] = [{"type": "give", "tile": t} for t in self._holdable(seat)]
        if self.table_mode:
            acts.append({"type": "give", "tile": None})  # passed face down, unseen
        return acts

    def _known_elevens(self, seat: int) -> list[Card]:
        known = self.hands[seat].known
        return [t for t in sorted(self.data.elevens) if known[t]]

    def _apply(self, action: Action) -> None:
        kind = action["type"]
        handler = {
            "deal": self._deal,
            "drawn": self._drawn,
            "bonus": self._bonus,
            "reveal": self._reveal,
            "no_eleven": self._no_eleven,
            "place": self._place,
            "place_bonus": self._place_bonus,
            "draw": self._draw,
            "give": self._give,
            "end_turn": self._end_turn,
            "pass": self._pass,
        }.get(kind)
        if handler is None:
            raise MalformedAction(f"Action « {kind} » inconnue.", f"Unknown action '{kind}'.")
        chance = kind in ("deal", "drawn", "bonus", "reveal")
        if chance != (self.current_player == CHANCE):
            raise IllegalMove("not-now", "Cette action n'est pas possible maintenant.",
                              "That action is not possible now.")
        handler(action)

    # -- reading actions ------------------------------------------------------------------

    def _tile(self, action: Action, key: str = "tile") -> Card:
        tile = need(action, key, str)
        if tile not in self.deck:
            raise MalformedAction(f"« {tile} » n'est pas une tuile de ce jeu.", f"'{tile}' is not a tile of this game.")
        return tile

    def _maybe_tile(self, action: Action) -> Card | None:
        need(action, "tile", (str, type(None)))
        if action["tile"] is None:
            if not self.table_mode:
                raise MalformedAction("Quelle tuile ?", "Which tile?")
            return None
        return self._tile(action)

    @staticmethod
    def _square(action: Action) -> int:
        name = need(action, "square", str)
        if name not in SQUARE_OF:
            raise MalformedAction(f"« {name} » n'est pas une case du plateau.",
                                  f"'{name}' is not a square of the board.")
        return SQUARE_OF[name]

    # -- chance events --------------------------------------------------------------------

    def _deal(self, action: Action) -> None:
        if self.phase != "deal":
            raise IllegalMove("not-now", "Les tuiles sont déjà distribuées.", "The tiles have been dealt.")
        size = HAND_SIZE[self.players]
        hands = action.get("hands")
        if hands is None:
            if not self.table_mode:
                raise MalformedAction("Il faut les réglettes distribuées.", "The dealt racks are needed.")
            for hand in self.hands:
                for _ in range(size):
                    hand.add(None)
        else:
            if not isinstance(hands, list) or len(hands) != self.players:
                raise MalformedAction("Une réglette par joueur.", "One rack per player.")
            wanted: Counter[Card] = Counter()
            for h in hands:
                if not isinstance(h, list) or len(h) != size:
                    raise MalformedAction(f"{size} tuiles par réglette.", f"{size} tiles per rack.")
                wanted.update(self._tile({"tile": t}) for t in h)
            if wanted - self.pool:
                raise MalformedAction("Une tuile est distribuée deux fois.", "A tile is dealt twice.")
            self.pool -= wanted
            for hand, h in zip(self.hands, hands, strict=True):
                for t in h:
                    hand.add(t)
        self.pile -= size * self.players
        self.phase = "opening"
        self.player = self.current_player = self.start_player

    def _take_from_bag(self, action: Action) -> Card | None:
        """Check a drawn tile (`None`: unseen, table only) against the bag; nothing changes."""
        tile = self._maybe_tile(action)
        if not self.pile:
            raise IllegalMove("bag-empty", "Le sac est vide.", "The bag is empty.")
        if tile is not None and not self.pool[tile]:
            raise IllegalMove("not-in-bag", f"{_cap(tile_name(tile, 'fr'))} n'est pas dans le sac.",
                              f"{_cap(tile_name(tile))} is not in the bag.")
        return tile

    def _drawn(self, action: Action) -> None:
        if self.phase not in ("drawn", "opening_draw"):
            raise IllegalMove("not-now", "Personne ne pioche.", "Nobody is drawing.")
        tile = self._take_from_bag(action)
        hand = self.hands[self.player]
        if tile is not None:
            self.pool[tile] -= 1
            if not self.pool[tile]:
                del self.pool[tile]
        hand.add(tile)
        self.pile -= 1
        if self.phase == "opening_draw":
            self._opening_drawn(tile)
            return
        self.drawn = tile
        self.phase = "after_draw"
        self.current_player = self.player
        if tile is not None and not self._squares_for(tile) and not (self.draws < MAX_DRAWS and self.pile):
            self._next_turn()  # three draws (or an empty bag) and nothing fits

    def _opening_drawn(self, tile: Card | None) -> None:
        if tile in self.data.elevens:
            self._start_turn(self.player)
            self.phase = "drawn_eleven"
            self.drawn = tile
            return
        if tile is None:
            self._claim(DRAWN_NOT_ELEVEN, self._elevens)
        if not self.pile:  # only after a false "no 11" at the table: nobody can open
            self._end_round(None)
            return
        self.player = (self.player + 1) % self.players

    def _bonus(self, action: Action) -> None:
        if self.phase != "bonus":
            raise IllegalMove("not-now", "Aucun bonus de pont en attente.", "No bridge bonus is due.")
        tile = self._tile(action)
        if not self.pool[tile] or not self.pile:
            raise IllegalMove("not-in-bag", f"{_cap(tile_name(tile, 'fr'))} n'est pas dans le sac.",
                              f"{_cap(tile_name(tile))} is not in the bag.")
        self.pool[tile] -= 1
        if not self.pool[tile]:
            del self.pool[tile]
        self.pile -= 1
        self.bonus_pending -= 1
        squares = self._empty_bonus_squares(tile)
        kind = self.data.kind[tile]
        if len(squares) > 1 and (kind == SYMBOL or self.options["bonus_joker_choice"]):
            self.bonus_tile = tile
            self.phase = "place_bonus"
            self.current_player = self.player
            return
        self._lay_bonus(tile, squares[0])

    def _lay_bonus(self, tile: Card, sq: int) -> None:
        self.bonus_tile = None
        self._put(tile, sq, from_bonus=True)
        if self.data.kind[tile] == SYMBOL and self.options["bonus_symbol_extra"]:
            self.free = True
        self._settle()

    def _reveal(self, action: Action) -> None:
        if self.phase != "reveal":
            raise IllegalMove("not-now", "Les réglettes ne se montrent qu'en fin de manche.",
                              "Racks are shown only at the end of the round.")
        seat = need(action, "seat", int)
        shown = need(action, "cards", list)
        if not 0 <= seat < self.players or self.revealed[seat]:
            raise MalformedAction("Ce joueur n'a rien à montrer.", "That player has nothing to show.")
        hand = self.hands[seat]
        shown_tiles = Counter(self._tile({"tile": t}) for t in shown)
        if sum(shown_tiles.values()) != len(hand):
            raise IllegalMove("reveal-count", f"Le joueur {seat + 1} devait avoir {len(hand)} tuiles.",
                              f"Player {seat + 1} should hold {len(hand)} tiles.")
        extra = shown_tiles - hand.known
        if extra - self.pool or hand.known - shown_tiles:
            raise IllegalMove("reveal-impossible", "Une de ces tuiles est déjà ailleurs sur la table.",
                              "One of these tiles is already elsewhere on the table.")
        self.pool -= extra
        hand.known = shown_tiles
        hand.unknown = 0
        self.revealed[seat] = True
        self._settle_claims(seat)
        self._next_reveal()

    # -- player actions -------------------------------------------------------------------

    def _no_eleven(self, action: Action) -> None:
        if self.phase != "opening":
            raise IllegalMove("not-now", "On ne demande les 11 qu'au début de la manche.",
                              "The 11s are asked for only at the start of the round.")
        held = self._known_elevens(self.player)
        if held:
            raise IllegalMove("must-open", f"Tu as {tile_name(held[0], 'fr')} : commence en le posant.",
                              f"You hold {tile_name(held[0])}: open with it.")
        self._claim(NO_ELEVEN, self._elevens)
        self.asked += 1
        self.player = (self.player + 1) % self.players
        if self.asked == self.players:  # nobody holds an 11: draw in turn until one turns up
            self.phase = "opening_draw"
            self.current_player = CHANCE
        else:
            self.current_player = self.player

    def _place(self, action: Action) -> None:
        tile = self._tile(action)
        sq = self._square(action)
        phase = self.phase
        if phase not in ("opening", "play", "after_draw", "drawn_eleven"):
            raise IllegalMove("not-now", "Pas de pose maintenant.", "No placing now.")
        seat = self.player
        hand = self.hands[seat]
        if self.drawn is not None and tile != self.drawn:
            raise IllegalMove("place-drawn", f"Il faut poser la tuile piochée ({tile_name(self.drawn, 'fr')}).",
                              f"The drawn tile ({tile_name(self.drawn)}) must be placed.")
        if not hand.can_hold(tile, self.pool):
            raise IllegalMove("not-in-rack", f"{_cap(tile_name(tile, 'fr'))} n'est pas sur cette réglette.",
                              f"{_cap(tile_name(tile))} is not on this rack.")
        self._check_square(tile, sq)
        # Valid: from here on the state changes.
        if phase == "opening":
            self._start_turn(seat)
        hand.remove(tile, self.pool)
        self.phase = "play"
        self.drawn = None
        self.passes = 0
        self.laid += 1
        if self.data.kind[tile] == SYMBOL:
            self.counted += self.options["symbol_counts"]
            self.free = True
        elif self.free:
            self.free = False  # the symbol's extra tile: outside the limit
        else:
            self.counted += 1
        if phase == "drawn_eleven" and not self.options["drawn_eleven_full_turn"]:
            self.counted = LIMIT
        self._put(tile, sq, from_bonus=False)
        self._settle()

    def _check_square(self, tile: Card, sq: int) -> None:
        """Raise the broken placement rule, if any (nothing changes)."""
        g = self.data
        kind = g.kind[tile]
        if sq not in g.squares[tile]:
            fr, en = tile_name(tile, "fr"), tile_name(tile)
            if kind == NUMBER:
                right_fr, right_en = square_words(g.squares[tile][0], "fr"), square_words(g.squares[tile][0])
            elif kind == JOKER:
                v = g.value[tile]
                right_fr, right_en = f"une case {v} (grise) d'une des rangées", f"a (grey) {v} square of any row"
            else:
                w_fr, w_en = SYMBOL_WORDS[tile]
                right_fr, right_en = f"une case {w_fr} au bout d'une rangée", f"a {w_en} square at the end of a row"
            raise IllegalMove("wrong-square", f"{_cap(fr)} se pose sur {right_fr}, pas sur {square_words(sq, 'fr')}.",
                              f"{_cap(en)} goes on {right_en}, not on {square_words(sq)}.")
        if self.board[sq] is not None:
            raise IllegalMove("occupied", f"{_cap(square_words(sq, 'fr'))} est déjà occupée.",
                              f"{_cap(square_words(sq))} is already taken.")
        if kind == SYMBOL:
            if self.counted >= LIMIT and self.options["symbol_counts"]:
                self._limit_error()
            end = g.nbrs[sq][0]
            if self.board[end] is None:
                fr, en = tile_name(tile, "fr"), tile_name(tile)
                raise IllegalMove(
                    "symbol-not-connected",
                    f"{_cap(fr)} ne se pose qu'à côté d'un 1 ou d'un 20 déjà posé : "
                    f"{square_words(end, 'fr')} est vide.",
                    f"{_cap(en)} goes only next to a 1 or a 20 already placed: {square_words(end)} is empty.")
            return
        if self.free:
            return  # the symbol's extra tile: rule 1 and the limit do not apply
        if self.counted >= LIMIT:
            self._limit_error()
        if tile not in g.elevens and not self._connected(sq):
            fr, en = tile_name(tile, "fr"), tile_name(tile)
            raise IllegalMove(
                "not-connected",
                f"{_cap(fr)} doit toucher une tuile déjà posée (voisine dans la rangée ou par un pont) ; seuls les "
                "11 se posent n'importe quand.",
                f"{_cap(en)} must touch a tile already on the board (beside it in the row or across a bridge); "
                "only the 11s may be placed at any time.")

    @staticmethod
    def _limit_error() -> None:
        raise IllegalMove("limit", "3 tuiles par tour au plus : tu en as déjà posé 3.",
                          "At most 3 tiles a turn: you have placed 3 already.")

    def _place_bonus(self, action: Action) -> None:
        sq = self._square(action)
        if self.phase != "place_bonus" or self.bonus_tile is None:
            raise IllegalMove("not-now", "Aucune tuile bonus à placer.", "No bonus tile to place.")
        tile = self.bonus_tile
        if sq not in self._empty_bonus_squares(tile):
            raise IllegalMove("bonus-square", f"{_cap(tile_name(tile, 'fr'))} ne va pas sur {square_words(sq, 'fr')}.",
                              f"{_cap(tile_name(tile))} cannot go on {square_words(sq)}.")
        self._lay_bonus(tile, sq)

    def _draw(self, action: Action) -> None:
        seat = self.player
        if self.phase == "play":
            if self.laid:
                raise IllegalMove("no-draw", "Tu as posé : on ne pioche que si l'on ne peut rien poser.",
                                  "You have placed: you draw only when you cannot place anything.")
            text = CANNOT_PLACE
        elif self.phase == "after_draw":
            if self.drawn is not None and self._squares_for(self.drawn):
                raise IllegalMove("place-drawn", f"La tuile piochée ({tile_name(self.drawn, 'fr')}) se pose : pose-la.",
                                  f"The drawn tile ({tile_name(self.drawn)}) fits: place it.")
            if self.draws >= MAX_DRAWS:
                raise IllegalMove("draw-limit", "Trois pioches au plus par tour.", "At most three draws a turn.")
            text = DRAWN_NO_FIT
        else:
            raise IllegalMove("not-now", "Pas de pioche maintenant.", "No drawing now.")
        if not self.pile:
            raise IllegalMove("bag-empty", "Le sac est vide.", "The bag is empty.")
        self._refuse_if_placeable(seat)
        self._claim(text, self.placeable_tiles)
        self.draws += 1
        self.drawn = None
        self.phase = "drawn"
        self.current_player = CHANCE

    def _pass(self, action: Action) -> None:
        if self.phase != "play" or self.laid:
            raise IllegalMove("no-pass", "Tu as posé : termine ton tour.", "You have placed: end your turn.")
        if self.pile:
            raise IllegalMove("must-draw", "Tu ne peux rien poser : pioche.", "You cannot place anything: draw.")
        self._refuse_if_placeable(self.player)
        self._claim(CANNOT_PASS, self.placeable_tiles)
        self.passes += 1
        if self.passes >= self.players:
            self.void = not self.options["deadlock_scores"]
            self._end_round(None)
        else:
            self._next_turn()

    def _give(self, action: Action) -> None:
        tile = self._maybe_tile(action)
        if self.phase != "play" or not self.earned:
            raise IllegalMove("no-give", "On ne donne une tuile qu'après avoir posé deux tuiles voisines d'une rangée "
                              "pendant le tour.", "You give a tile only after placing two neighbouring tiles of one "
                              "row this turn.")
        seat = self.player
        hand = self.hands[seat]
        receiver = self.hands[(seat + 1) % self.players]
        if tile is None:
            if hand.known:  # a tile known to the table may be the one passed: forget what it knew
                self.pool.update(hand.known)
                hand.unknown += sum(hand.known.values())
                hand.known = Counter()
            hand.remove_hidden()
        else:
            if not hand.can_hold(tile, self.pool):
                raise IllegalMove("not-in-rack", f"{_cap(tile_name(tile, 'fr'))} n'est pas sur cette réglette.",
                                  f"{_cap(tile_name(tile))} is not on this rack.")
            hand.remove(tile, self.pool)
        receiver.add(tile)
        if not len(hand):  # giving away the last tile wins too
            self._end_round(seat)
        else:
            self._next_turn()

    def _end_turn(self, action: Action) -> None:
        if self.phase == "after_draw":
            if self.drawn is not None and self._squares_for(self.drawn):
                raise IllegalMove("place-drawn", f"La tuile piochée ({tile_name(self.drawn, 'fr')}) se pose : pose-la.",
                                  f"The drawn tile ({tile_name(self.drawn)}) fits: place it.")
            if self.draws < MAX_DRAWS and self.pile:
                raise IllegalMove("draw-again", "Rien n'est posé : pioche encore (3 fois au plus).",
                                  "Nothing placed: draw again (up to 3 times).")
            self._claim(DRAWS_NO_FIT, self.placeable_tiles)
            self._next_turn()
            return
        if self.phase != "play" or not self.laid:
            raise IllegalMove("must-place", "Il faut d'abord poser au moins une tuile (ou piocher).",
                              "You must place at least one tile first (or draw).")
        self._next_turn()

    def _refuse_if_placeable(self, seat: int) -> None:
        known = self._known_placeable(seat)
        if known:
            names_fr = ", ".join(cards.name(t, "fr") if t not in SYMBOL_WORDS else SYMBOL_WORDS[t][0] for t in known)
            names_en = ", ".join(cards.name(t) if t not in SYMBOL_WORDS else SYMBOL_WORDS[t][1] for t in known)
            raise IllegalMove("must-place", f"Tu peux poser ({names_fr}) : il faut poser.",
                              f"You can place ({names_en}): you must place.")

    def _claim(self, text: Text, playable: Callable[[], list[Card]]) -> None:
        """Log what the player says (table mode only: a simulation knows the racks)."""
        if self.table_mode:
            hand = self.hands[self.player]
            self.claims.append(Claim(self.player, len(hand.log), playable(), text))

    def _elevens(self) -> list[Card]:
        return sorted(self.data.elevens)

    # -- board and turn flow --------------------------------------------------------------

    def _put(self, tile: Card, sq: int, from_bonus: bool) -> None:
        """Lay `tile` on `sq`: link columns, the give-a-tile pair, bridge bonuses."""
        self.board[sq] = tile
        pos = sq % ROW
        if pos in (LEFT, RIGHT):
            return  # symbol tiles count neither for pairs nor for bridges
        self.col_count[pos] += 1
        ts = self.turn_squares
        if (pos > 1 and sq - 1 in ts) or (pos < 20 and sq + 1 in ts):
            self.earned = True
        ts.add(sq)
        for b in self.data.bonus_of[sq]:
            if b not in self.used:
                self.used.add(b)  # the first tile on either square claims the bridge
                if not from_bonus or self.options["bonus_chain"]:
                    self.bonus_pending += 1

    def _settle(self) -> None:
        """After a tile is laid: end of the round, bonus draws, or the rest of the turn."""
        if not len(self.hands[self.player]):
            self._end_round(self.player)
            return
        if self.bonus_pending:
            if self.pile:
                self.phase = "bonus"
                self.current_player = CHANCE
                return
            self.bonus_pending = 0  # bag empty: no more bonuses
        self.phase = "play"
        self.current_player = self.player
        if not self.earned and not self._can_place(self.player):
            self._next_turn()

    def _start_turn(self, seat: int) -> None:
        self.player = self.current_player = seat
        self.phase = "play"
        self.counted = self.laid = self.draws = 0
        self.drawn = None
        self.free = self.earned = False
        self.turn_squares = set()
        self.turns += 1

    def _next_turn(self) -> None:
        self._start_turn((self.player + 1) % self.players)

    def _end_round(self, winner: int | None) -> None:
        self.winner = winner
        self.drawn = self.bonus_tile = None
        self.bonus_pending = 0
        self.free = False
        if self.table_mode and any(h.unknown for h in self.hands):
            self.phase = "reveal"
            self.current_player = CHANCE
            self.revealed = [not h.unknown for h in self.hands]
            for seat, done in enumerate(self.revealed):
                if done:
                    self._settle_claims(seat)
            self._next_reveal()
        else:
            self.phase = "over"
            self.current_player = TERMINAL
            for seat in range(self.players):
                self._settle_claims(seat)

    def _settle_claims(self, seat: int) -> None:
        hand = self.hands[seat]
        for claim in self.claims:
            if claim.player == seat and claim.status == "open":
                claim.status = verify_claim(claim, hand, hand.cards())

    def _next_reveal(self) -> None:
        if all(self.revealed):
            self.phase = "over"
            self.current_player = TERMINAL

    def sample_chance(self, rng: Random) -> Action:
        if self.phase == "deal":
            bag = sorted(self.pool.elements(), key=self.data.order.__getitem__)
            rng.shuffle(bag)
            size = HAND_SIZE[self.players]
            return {"type": "deal", "hands": [sorted(bag[i * size:(i + 1) * size], key=self.data.order.__getitem__)
                                              for i in range(self.players)]}
        if self.phase in ("drawn", "opening_draw", "bonus"):
            tile = rng.choice(sorted(self.pool.elements(), key=self.data.order.__getitem__))
            return {"type": "bonus" if self.phase == "bonus" else "drawn", "tile": tile}
        raise ValueError(f"no chance event to sample in phase {self.phase!r}")

    def redact(self, action: Action) -> Action:
        kind = action["type"]
        if kind == "deal":
            return {"type": "deal", "hands": None}
        if kind == "drawn":
            shown = self.phase == "opening_draw" and action.get("tile") in self.data.elevens
            return dict(action) if shown else {"type": "drawn", "tile": None}
        return action

    # -- scores, views, checks ------------------------------------------------------------

    def scores(self) -> list[int]:
        if self.void:
            return [0] * self.players
        value = self.data.value
        return [-sum(value[t] * n for t, n in h.known.items()) for h in self.hands]

    def view(self, player: int | None) -> dict[str, Any]:
        own = player is not None and player == self.player
        return {
            "game": INFO.id,
            "variant": self.variant,
            "players": self.players,
            "table_mode": self.table_mode,
            "phase": self.phase,
            "current_player": self.current_player if self.current_player >= 0 else None,
            "turn_player": self.player,
            "is_over": self.is_over,
            # Live scores would tell the sum of the other racks: shown once the round is over.
            "scores": self.scores() if self.is_over else None,
            "winners": self.winners() if self.is_over else [],
            "hand_sizes": [len(h) for h in self.hands],
            "hand": self.hands[player].cards() if player is not None else None,
            "pile": self.pile,
            "board": {
                "tiles": {SQUARE_NAMES[sq]: t for sq, t in enumerate(self.board) if t is not None},
                "bonus_used": [[SQUARE_NAMES[sq] for sq in self.data.bridges[b].squares()] for b in sorted(self.used)],
                "layout": self.data.layout(),
            },
            "turn": {
                "placed": self.counted,
                "laid": self.laid,
                "limit": LIMIT,
                "draws": self.draws,
                "free_tile": self.free,
                "may_give": self.earned,
                "bonus_tile": self.bonus_tile,
                "drawn": self.drawn if own else None,
                "asked": self.asked,
            },
            "claims": [c.to_json() for c in self.claims],
        }

    def _to_json(self) -> dict[str, Any]:
        return {
            "board": {SQUARE_NAMES[sq]: t for sq, t in enumerate(self.board) if t is not None},
            "hands": [h.to_json() for h in self.hands],
            "pool": sorted(self.pool.elements()),
            "pile": self.pile,
            "phase": self.phase,
            "player": self.player,
            "asked": self.asked,
            "counted": self.counted,
            "laid": self.laid,
            "draws": self.draws,
            "drawn": self.drawn,
            "free": self.free,
            "earned": self.earned,
            "turn_squares": sorted(SQUARE_NAMES[sq] for sq in self.turn_squares),
            "used": sorted(self.used),
            "bonus_pending": self.bonus_pending,
            "bonus_tile": self.bonus_tile,
            "passes": self.passes,
            "winner": self.winner,
            "void": self.void,
            "revealed": self.revealed,
        }

    def _load_json(self, obj: Mapping[str, Any]) -> None:
        self.board = [None] * N_SQUARES
        self.col_count = [0] * 21
        for name, tile in obj["board"].items():
            sq = SQUARE_OF[name]
            self.board[sq] = str(tile)
            if 1 <= sq % ROW <= 20:
                self.col_count[sq % ROW] += 1
        self.hands = [Hand.from_json(h) for h in obj["hands"]]
        if len(self.hands) != self.players:
            raise ValueError("one rack per player")
        self.pool = Counter(obj["pool"])
        self.pile = int(obj["pile"])
        self.phase = str(obj["phase"])
        self.player = int(obj["player"])
        self.asked = int(obj["asked"])
        self.counted = int(obj["counted"])
        self.laid = int(obj["laid"])
        self.draws = int(obj["draws"])
        self.drawn = obj["drawn"]
        self.free = bool(obj["free"])
        self.earned = bool(obj["earned"])
        self.turn_squares = {SQUARE_OF[n] for n in obj["turn_squares"]}
        self.used = {int(b) for b in obj["used"]}
        self.bonus_pending = int(obj["bonus_pending"])
        self.bonus_tile = obj["bonus_tile"]
        self.passes = int(obj["passes"])
        self.winner = obj["winner"]
        self.void = bool(obj["void"])
        self.revealed = [bool(r) for r in obj["revealed"]]

    def check_invariants(self) -> list[str]:
        errors: list[str] = []
        g = self.data
        placed = Counter(t for t in self.board if t is not None)
        if self.bonus_tile is not None:  # drawn from the bag, its square still to choose
            placed[self.bonus_tile] += 1
        held: Counter[Card] = Counter()
        for h in self.hands:
            held.update(h.known)
        everywhere = placed + held + self.pool
        if everywhere != self.deck:
            errors.append(f"tiles not in exactly one place: missing {sorted(self.deck - everywhere)}, "
                          f"extra {sorted(everywhere - self.deck)}")
        unknown = sum(h.unknown for h in self.hands)
        if sum(self.pool.values()) != self.pile + unknown:
            errors.append(f"pool {sum(self.pool.values())} != bag {self.pile} + unknown {unknown}")
        if not self.table_mode and unknown:
            errors.append("unknown tiles in a simulated game")
        total = sum(len(h) for h in self.hands) + self.pile + sum(placed.values())
        if self.phase != "deal" and total != sum(self.deck.values()):
            errors.append("racks, bag and board do not add up to the tiles of the game")
        for sq, t in enumerate(self.board):
            if t is not None and sq not in g.squares.get(t, ()):
                errors.append(f"{t} lies on {SQUARE_NAMES[sq]}, not one of its squares")
        for col in range(1, 21):
            on = sum(1 for r in range(4) if self.board[r * ROW + col] is not None)
            if on != self.col_count[col]:
                errors.append(f"column {col} count {self.col_count[col]} != {on} tiles")
        for i, b in enumerate(g.bridges):
            if b.bonus and (i in self.used) != any(self.board[s] is not None for s in b.squares()):
                errors.append(f"bonus bridge {i} claimed={i in self.used} does not match its squares")
        errors.extend(self._check_turn())
        if self.phase in ("opening", "opening_draw") and any(self.board):
            errors.append("tiles on the board before the opening 11")
        if self.is_over and self.winner is not None and self.scores()[self.winner] != 0:
            errors.append("the winner has tiles left")
        if self.is_over and self.winner is None and not self.void and self.passes < self.players and self.pile:
            errors.append("a round without a winner that did not end in a deadlock")
        return errors

    def _check_turn(self) -> list[str]:
        errors = []
        if self.counted > LIMIT:
            errors.append(f"{self.counted} tiles counted toward the limit of {LIMIT}")
        if self.counted > self.laid and not (self.laid == 1 and self.counted == LIMIT):
            errors.append(f"{self.counted} tiles counted but {self.laid} laid")
        if self.draws > MAX_DRAWS:
            errors.append(f"{self.draws} forced draws in one turn")
        if any(self.board[sq] is None for sq in self.turn_squares):
            errors.append("a square placed this turn is empty")
        pair = any(sq + 1 in self.turn_squares for sq in self.turn_squares if sq % ROW < 20)
        if pair != self.earned:
            errors.append(f"give-a-tile earned={self.earned} but neighbouring pair placed={pair}")
        if self.phase == "place_bonus" and self.bonus_tile is None:
            errors.append("a bonus square to choose without a bonus tile")
        return errors

    def describe(self, action: Action, lang: str = "en") -> str:
        fr = lang == "fr"
        kind = action.get("type")
        who = f"{'Joueur' if fr else 'Player'} {self.player + 1}"
        tile = action.get("tile")
        named = isinstance(tile, str) and tile in self.data.kind
        if kind == "deal":
            return "Distribution des tuiles" if fr else "The tiles are dealt"
        if kind == "drawn":
            what = tile_name(tile, lang) if named else ("une tuile" if fr else "a tile")
            if self.phase == "opening_draw":
                return (f"{who} pioche {what} (à la recherche d'un 11)" if fr
                        else f"{who} draws {what} (looking for an 11)")
            return f"{who} pioche {what}" if fr else f"{who} draws {what}"
        if kind == "bonus":
            what = tile_name(tile, lang) if named else "?"
            return (f"Bonus de pont : {what} sort du sac et se pose face visible" if fr
                    else f"Bridge bonus: {what} is drawn from the bag and placed face up")
        if kind == "reveal":
            seat = int(action.get("seat", 0)) + 1
            shown = ", ".join(tile_name(t, lang) for t in action.get("cards", []) if t in self.data.kind)
            return f"Joueur {seat} montre : {shown or 'rien'}" if fr else f"Player {seat} shows: {shown or 'nothing'}"
        if kind == "no_eleven":
            return f"{who} n'a pas de 11" if fr else f"{who} holds no 11"
        if kind == "place" and named:
            where = square_words(SQUARE_OF.get(str(action.get("square")), 0), lang)
            if self.data.kind[tile] == NUMBER:
                return f"{who} pose {tile_name(tile, 'fr')}" if fr else f"{who} places {tile_name(tile)}"
            return (f"{who} pose {tile_name(tile, 'fr')} sur {where}" if fr
                    else f"{who} places {tile_name(tile)} on {where}")
        if kind == "place_bonus":
            what = tile_name(self.bonus_tile, lang) if self.bonus_tile else "?"
            where = square_words(SQUARE_OF.get(str(action.get("square")), 0), lang)
            return (f"{who} met la tuile bonus ({what}) sur {where}" if fr
                    else f"{who} puts the bonus tile ({what}) on {where}")
        if kind == "draw" and self.phase == "after_draw":
            return (f"{who} ne peut toujours rien poser et repioche" if fr
                    else f"{who} still cannot place and draws again")
        if kind == "draw":
            return f"{who} ne peut rien poser et pioche" if fr else f"{who} cannot place anything and draws"
        if kind == "give":
            to = (self.player + 1) % self.players + 1
            what = tile_name(tile, lang) if named else ("une tuile" if fr else "a tile")
            return f"{who} donne {what} au joueur {to}" if fr else f"{who} gives {what} to player {to}"
        if kind == "pass":
            return f"{who} passe (sac vide)" if fr else f"{who} passes (bag empty)"
        if kind == "end_turn":
            return f"{who} termine son tour" if fr else f"{who} ends the turn"
        return str(action)

    def greedy_key(self, action: Action) -> float:
        kind = action["type"]
        if kind == "place":
            # Get rid of the costliest tiles, and take bridge bonuses and give-a-tile pairs.
            sq = SQUARE_OF[action["square"]]
            key = 20.0 + self.data.value[action["tile"]]
            if any(b not in self.used for b in self.data.bonus_of[sq]):
                key += 8
            if sq - 1 in self.turn_squares or sq + 1 in self.turn_squares:
                key += 4
            return key
        if kind == "give":  # pass on the costliest tile, but only once nothing more is placed
            tile = action.get("tile")
            return 3.0 + (self.data.value[tile] / 100 if tile else 0)
        if kind in ("end_turn", "place_bonus"):
            return 1.0
        return 0.0

    def observed_card(self, obs: Mapping[str, Any]) -> Card | None:
        kind, value, colour = obs.get("kind"), obs.get("value"), obs.get("color")
        if kind == "symbol":
            return value if isinstance(value, str) and value in self.deck else None
        if not isinstance(value, int) or isinstance(value, bool):
            return None
        if kind == "joker" or colour == "gray":
            tile = cards.code("gray", value)
        elif kind == "number" and colour in cards.COLOURS:
            tile = cards.code(str(colour), value)
        else:
            return None
        return tile if tile in self.deck else None


GAME = register(GameDef(INFO, Start11State, load_data))
