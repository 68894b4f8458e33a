"""11! (start11): an independent referee's audit (seed 000, RULES.md section 1).

An oracle written from the rule book alone reads the board file with `tomllib`, keeps its
own board, racks, bag and turn counters, and plays whole rounds beside the engine: every
placement the engine lists must be legal by rules 1-3 and the special rules (link zones,
bridges, 11s anywhere, grey jokers on any square of their number, symbol tiles next to a
1 or a 20 with their free extra tile, the 3-tile limit), and every legal one must be
listed; bridge bonuses must be drawn exactly for the first tile on a bonus bridge while the
bag lasts; the give must be offered exactly after two neighbouring tiles of one row in the
turn; forced draws, passes, the end of turn and of the round must come exactly when the
rules say. Targeted positions then probe the corners random play rarely reaches.
"""

from __future__ import annotations

import tomllib
from collections import Counter
from pathlib import Path
from random import Random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import games
from companion.games import CHANCE, TERMINAL, IllegalMove
from companion.games.base import Hand
from companion.games.start11 import ROW, SQUARE_OF, parse_board

GAME = games.get("start11")
BOARD_FILE = Path(games.__file__).parent / "data" / "start11_board.toml"
BOARD = tomllib.loads(BOARD_FILE.read_text(encoding="utf-8"))
ROWS: list[str] = BOARD["rows"]["order"]
JOKERS = set(BOARD["columns"]["jokers"])
LINKS = set(BOARD["columns"]["links"])
SYMBOLS = ("square", "triangle", "star", "circle")
COLOUR = {"Y": "yellow", "R": "red", "B": "blue", "G": "green"}
SQUARES = [f"{r}:{p}" for r in ROWS for p in ["left", *range(1, 21), "right"]]


def bridges(board: dict[str, Any]) -> list[tuple[str, str, bool]]:
    """Each bridge as its two squares and its bonus flag."""
    return [(f"{b['rows'][0]}:{b['number']}", f"{b['rows'][1]}:{b['number']}", b["bonus"]) for b in board["bridge"]]


BRIDGES = bridges(BOARD)


def neighbours(sq: str) -> list[str]:
    row, pos = sq.split(":")
    if pos in ("left", "right"):
        return [f"{row}:{1 if pos == 'left' else 20}"]
    n = int(pos)
    out = [f"{row}:{m}" for m in (n - 1, n + 1) if 1 <= m <= 20]
    out += [b if a == sq else a for a, b, _ in BRIDGES if sq in (a, b)]
    return out


def homes(tile: str) -> list[str]:
    """Rules 2 and 3: the squares a tile may ever go on."""
    if tile in SYMBOLS:
        return [s["square"] for s in BOARD["symbol"] if s["symbol"] == tile]
    if tile[0] == "X":
        return [f"{r}:{tile[1:]}" for r in ROWS]
    return [f"{COLOUR[tile[0]]}:{tile[1:]}"]


def value(tile: str) -> int:
    return 11 if tile in SYMBOLS else int(tile[1:])


class Oracle:
    """The rule book's turn: board, tiles counted toward the limit, the free extra tile."""

    def __init__(self, players: int) -> None:
        self.players = players
        self.board: dict[str, str] = {}
        self.claimed: set[int] = set()  # bonus bridges whose first tile has been placed
        self.pending = 0  # bonus tiles to draw
        self.new_turn()

    def new_turn(self) -> None:
        self.counted = 0
        self.free = False
        self.squares_this_turn: set[str] = set()

    def legal(self, tile: str, sq: str) -> bool:
        if sq in self.board or sq not in homes(tile):
            return False
        if tile in SYMBOLS:  # next to a 1 or 20 already placed; counts toward the limit (GUESS 1.9 #3)
            return self.counted < 3 and neighbours(sq)[0] in self.board
        if self.free:  # the symbol's extra tile: rule 1 and the limit waived
            return True
        if self.counted >= 3:
            return False
        if tile in ("Y11", "R11", "B11", "G11"):
            return True
        if any(n in self.board for n in neighbours(sq)):
            return True
        n = int(sq.split(":")[1])
        return n in LINKS and any(f"{r}:{n}" in self.board for r in ROWS)

    def placements(self, tiles: set[str]) -> set[tuple[str, str]]:
        return {(t, sq) for t in tiles for sq in SQUARES if self.legal(t, sq)}

    def lay(self, tile: str, sq: str, rack: bool) -> None:
        self.board[sq] = tile
        if rack:
            if tile in SYMBOLS:
                self.counted += 1
                self.free = True
            elif self.free:
                self.free = False
            else:
                self.counted += 1
        elif tile in SYMBOLS:
            self.free = True  # GUESS 1.9 #5: a bonus symbol tile grants its extra tile too
        if sq.endswith(("left", "right")):
            return
        self.squares_this_turn.add(sq)
        for i, (a, b, bonus) in enumerate(BRIDGES):
            if bonus and sq in (a, b) and i not in self.claimed:
                self.claimed.add(i)
                self.pending += 1

    def earned(self) -> bool:
        for sq in self.squares_this_turn:
            row, n = sq.split(":")
            if f"{row}:{int(n) + 1}" in self.squares_this_turn:
                return True
        return False


def sync_rack(s: Any, seat: int) -> set[str]:
    """The tiles on a rack (a simulation knows them all)."""
    return set(s.hands[seat].known)


def play_with_oracle(players: int, variant: str | None, seed: int) -> Any:
    rng = Random(seed)
    s = GAME.new_state(players, variant, start_player=seed % players)
    o = Oracle(players)
    s.apply(s.sample_chance(rng))
    assert [len(h) for h in s.hands] == [20 if players < 4 else 15] * players
    assert s.pile == (88 if variant else 80) - len(s.hands[0]) * players
    turn = None
    while not s.is_over:
        if s.current_player == CHANCE:
            action = s.sample_chance(rng)
            seat, phase, bag, draws = s.player, s.phase, s.pile, s.draws
            s.apply(action)
            if phase == "bonus":
                o.pending -= 1
                tile = action["tile"]
                empties = [sq for sq in homes(tile) if sq not in o.board]
                if s.phase == "place_bonus":
                    got = {a["square"] for a in s.legal_actions()}
                    assert got == set(empties) and len(empties) > 1
                    choice = rng.choice(s.legal_actions())
                    s.apply(choice)
                    o.lay(tile, choice["square"], rack=False)
                else:
                    assert len(empties) == 1, (tile, empties)
                    o.lay(tile, empties[0], rack=False)
                if not s.pile:
                    o.pending = 0  # bag empty: no more bonuses
                assert (s.phase == "bonus") == bool(o.pending) or not len(s.hands[seat])
            elif phase == "drawn":
                tile = action["tile"]
                if s.current_player == seat:
                    fits = o.placements({tile})
                    listed = {(a["tile"], a["square"]) for a in s.legal_actions() if a["type"] == "place"}
                    if fits:
                        assert listed == fits and len(s.legal_actions()) == len(fits)
                    else:
                        assert s.legal_actions() == [{"type": "draw"}]
                        assert s.draws < 3 and bag > 1
                else:  # nothing fitted: three draws made or the bag is empty now
                    assert not o.placements({tile}) and (draws == 3 or not s.pile)
            continue
        seat = s.current_player
        if s.phase == "opening":
            rack = sync_rack(s, seat)
            elevens = {t for t in rack if t[1:] == "11" and t[0] != "X"}
            listed = {(a["tile"], a["square"]) for a in s.legal_actions() if a["type"] == "place"}
            assert listed == {(t, homes(t)[0]) for t in elevens}
            assert ({"type": "no_eleven"} in s.legal_actions()) == (not elevens)
            action = rng.choice(s.legal_actions())
            s.apply(action)
            if action["type"] == "place":
                o.new_turn()
                o.lay(action["tile"], action["square"], rack=True)
                if s.current_player == seat:  # the opener goes on placing (else the turn is over)
                    turn = s.turns
            continue
        if s.turns != turn:
            turn = s.turns
            o.new_turn()
        if s.phase == "drawn_eleven":
            action = s.legal_actions()[0]
            assert s.legal_actions() == [action] and action["tile"][1:] == "11"
            s.apply(action)
            o.lay(action["tile"], action["square"], rack=True)
            continue
        legal = s.legal_actions()
        listed = {(a["tile"], a["square"]) for a in legal if a["type"] == "place"}
        others = {a["type"] for a in legal if a["type"] != "place"}
        rack = sync_rack(s, seat)
        if s.phase == "after_draw":  # a drawn tile that fits must be placed, else the next draw is due
            assert s.drawn is not None and listed == o.placements({s.drawn})
            assert others == (set() if listed else {"draw"})
        else:
            assert listed == o.placements(rack), (s.phase, o.counted, o.free)
            if s.laid == 0:
                assert others == ({"draw" if s.pile else "pass"} if not listed else set())
            else:
                assert others == ({"give", "end_turn"} if o.earned() else {"end_turn"})
                if o.earned():
                    gives = {a["tile"] for a in legal if a["type"] == "give"}
                    assert gives == rack
        action = rng.choice(legal)
        s.apply(action)
        kind = action["type"]
        if kind == "place":
            o.lay(action["tile"], action["square"], rack=True)
            if not len(s.hands[seat]):
                assert s.is_over and s.winner == seat
            elif o.pending and s.pile:
                assert s.current_player == CHANCE and s.phase == "bonus"
            else:
                o.pending = 0
                more = o.placements(sync_rack(s, seat))
                assert (s.current_player == seat) == bool(more or o.earned()), (more, o.earned())
        elif kind in ("give", "end_turn", "pass"):
            assert s.is_over or s.current_player in ((seat + 1) % players, CHANCE)
    # The round is over: the others score minus their tiles (symbol tiles -11).
    assert s.scores() == [-sum(value(t) * n for t, n in h.known.items()) for h in s.hands]
    # With the bag empty every hole next to a row's tiles has its tile on some rack: a round
    # of simulation never deadlocks (RULES.md 1.9 #9 only matters after a false claim).
    assert s.winner is not None and not len(s.hands[s.winner])
    return s


@settings(max_examples=30, deadline=None, derandomize=True)
@given(players=st.integers(2, 4), variant=st.sampled_from([None, "symbols"]), seed=st.integers(0, 10**6))
def test_whole_rounds_follow_the_rule_book(players: int, variant: str | None, seed: int) -> None:
    play_with_oracle(players, variant, seed)


def test_the_oracle_reaches_bonuses_gives_and_draws() -> None:
    seen: Counter[str] = Counter()
    for seed in range(8):
        s = play_with_oracle(2 + seed % 3, "symbols" if seed % 2 else None, seed)
        seen.update({"bonus": len(s.used), "over": s.is_over})
    assert seen["bonus"] > 8 and seen["over"] == 8


# --- positions ---------------------------------------------------------------------------


def row(colour: str, lo: int, hi: int) -> dict[str, str]:
    letter = {"yellow": "Y", "red": "R", "blue": "B", "green": "G"}[colour]
    return {f"{colour}:{n}": (f"X{n}" if n in JOKERS else f"{letter}{n}") for n in range(lo, hi + 1)}


def arranged(racks: list[list[str]], board: dict[str, str], *, bag: list[str] | None = None, player: int = 0,
             variant: str | None = None, data: Any = None, **options: Any) -> Any:
    """A round in play: these racks and board, the bag holding `bag` (every other tile then
    goes to the last rack), else every other tile."""
    s = GAME.new_state(len(racks), variant, options=options or None, data=data)
    racks = [list(r) for r in racks]
    rest = Counter(s.deck) - Counter(board.values()) - sum((Counter(r) for r in racks), Counter())
    if bag is not None:
        racks[-1] += sorted((rest - Counter(bag)).elements())
        rest = Counter(bag)
    s.hands = [Hand(r) for r in racks]
    s.pool = rest
    s.pile = sum(rest.values())
    for name, tile in board.items():
        sq = SQUARE_OF[name]
        s.board[sq] = tile
        if 1 <= sq % ROW <= 20:
            s.col_count[sq % ROW] += 1
        s.used.update(s.data.bonus_of[sq])
    s._start_turn(player)
    assert not s.check_invariants(), s.check_invariants()
    return s


def place(s: Any, tile: str, square: str) -> None:
    s.apply({"type": "place", "tile": tile, "square": square})
    assert not s.check_invariants(), s.check_invariants()


def refused(s: Any, action: dict[str, Any], rule: str) -> IllegalMove:
    before = s.dumps()
    with pytest.raises(IllegalMove) as err:
        s.apply(action)
    assert err.value.rule == rule, err.value.en
    assert s.dumps() == before
    return err.value


def test_a_link_zone_tile_counts_for_every_player_and_every_later_turn() -> None:
    s = arranged([["Y20", "G2"], ["B20", "R20", "G4"]], row("yellow", 11, 19))
    place(s, "Y20", "yellow:20")
    assert s.current_player == 1
    place(s, "B20", "blue:20")  # nothing touches it: the column of 20s is open
    place(s, "R20", "red:20")


def test_a_square_on_two_bonus_bridges_draws_two_bonus_tiles_and_stops_when_the_bag_is_empty() -> None:
    content = tomllib.loads(BOARD_FILE.read_text(encoding="utf-8"))
    for b in content["bridge"]:
        if b["number"] == 4:
            b["bonus"] = False
    content["bridge"].append({"rows": ["red", "blue"], "number": 13, "bonus": True, "guess": True})
    board = parse_board(content, "audit board")
    s = arranged([["X13", "G5", "G2"], ["B2"]], row("red", 11, 12), data=board, bag=["Y5"])
    place(s, "X13", "red:13")  # the first tile on two bonus bridges (yellow-red and red-blue at 13)
    assert s.phase == "bonus" and s.bonus_pending == 2
    s.apply({"type": "bonus", "tile": "Y5"})
    # The bag is empty: the second bonus is lost, both bridges stay claimed.
    assert s.bonus_pending == 0 and s.phase != "bonus"
    assert s.view(None)["board"]["bonus_used"] == [["yellow:13", "red:13"], ["red:13", "blue:13"]]


def test_a_bonus_grey_joker_goes_on_any_empty_square_of_its_number_even_far_from_every_tile() -> None:
    s = arranged([["X13", "G5", "G2"], ["B2"]], {**row("yellow", 11, 12), "blue:13": "X13"}, bag=["X3", "X3"])
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "X3"})
    assert s.phase == "place_bonus" and s.current_player == 0
    assert {a["square"] for a in s.legal_actions()} == {f"{r}:3" for r in ROWS}
    s.apply({"type": "place_bonus", "square": "green:3"})
    assert s.board[SQUARE_OF["green:3"]] == "X3"


def test_the_top_row_square_is_used_when_the_bonus_joker_choice_option_is_off() -> None:
    s = arranged([["X13", "G5", "G2"], ["B2"]], {**row("yellow", 11, 12), "yellow:3": "X3"}, bag=["X3", "X7"],
                 bonus_joker_choice=False)
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "X3"})
    assert s.board[SQUARE_OF[f"{ROWS[1]}:3"]] == "X3"  # the first empty 3 square from the top


def test_the_fourth_rack_tile_is_refused_but_a_bonus_tile_is_outside_the_limit() -> None:
    s = arranged([["Y10", "Y9", "X13", "Y14", "G2"], ["B2"]], row("yellow", 11, 12), bag=["R5", "R6"])
    place(s, "Y10", "yellow:10")
    place(s, "Y9", "yellow:9")
    place(s, "X13", "yellow:13")  # third tile, first on the yellow-red 13 bridge
    s.apply({"type": "bonus", "tile": "R5"})
    assert s.counted == 3 and s.current_player == 0  # a pair was placed: the give is pending
    err = refused(s, {"type": "place", "tile": "Y14", "square": "yellow:14"}, "limit")
    assert "3" in err.fr and "3" in err.en


def test_the_forced_draw_stops_when_the_bag_runs_out_before_three_draws() -> None:
    s = arranged([["Y5", "G5"], ["R2"], ["B4"]], {"blue:11": "B11"}, bag=["G16", "Y19"])
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "tile": "G16"})
    assert s.legal_actions() == [{"type": "draw"}]
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "tile": "Y19"})
    assert s.current_player == 1 and s.pile == 0
    assert s.legal_actions() == [{"type": "pass"}]


def test_a_drawn_tile_that_fits_is_placed_and_then_two_more_even_newly_connected_ones() -> None:
    # Nothing fits at first; the drawn blue 10 does, then the blue 9 and 8 touch it.
    s = arranged([["B9", "B8", "B6", "G2"], ["R2"]], {"blue:11": "B11"}, bag=["B10", "Y5"])
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "tile": "B10"})
    place(s, "B10", "blue:10")
    refused(s, {"type": "draw"}, "no-draw")
    place(s, "B9", "blue:9")
    place(s, "B8", "blue:8")
    assert s.counted == 3 and s.current_player == 0 and s.earned  # the limit is reached; a give is due
    refused(s, {"type": "place", "tile": "B6", "square": "blue:6"}, "limit")


def test_giving_needs_two_neighbours_in_one_row_placed_this_turn_symbol_tiles_do_not_count() -> None:
    s = arranged([["square", "Y2", "Y4", "X3", "G2"], ["B2"]], row("yellow", 1, 1), variant="symbols")
    place(s, "square", "yellow:left")
    assert s.free and not s.earned and s.counted == 1  # the symbol counts (GUESS 1.9 #3)
    place(s, "Y2", "yellow:2")  # the free extra tile, beside the yellow 1 placed earlier
    assert not s.earned  # the symbol tile and the yellow 1 do not make a pair with it
    assert s.counted == 1 and s.current_player == 0  # the extra tile is outside the limit
    refused(s, {"type": "place", "tile": "Y4", "square": "yellow:4"}, "not-connected")
    place(s, "X3", "yellow:3")
    assert s.earned and s.counted == 2  # yellow 2 and the grey 3: a pair placed this turn


def test_the_symbol_extra_tile_ignores_rule_1_but_not_its_square() -> None:
    s = arranged([["square", "G5", "Y2", "G2"], ["B2"]], row("yellow", 1, 1), variant="symbols")
    place(s, "square", "yellow:left")
    refused(s, {"type": "place", "tile": "G5", "square": "green:6"}, "wrong-square")
    place(s, "G5", "green:5")  # nothing beside it: the extra tile may go anywhere on its own square
    refused(s, {"type": "place", "tile": "G2", "square": "green:2"}, "not-connected")


def test_a_symbol_tile_needs_the_1_or_20_of_its_row() -> None:
    s = arranged([["square", "G5"], ["B2"]], row("yellow", 2, 19), variant="symbols")
    assert not [a for a in s.legal_actions() if a.get("tile") == "square"]
    err = refused(s, {"type": "place", "tile": "square", "square": "yellow:left"}, "symbol-not-connected")
    assert "case 1 de la rangée jaune" in err.fr and "yellow 1" in err.en


def test_end_of_round_scores_symbol_tiles_minus_11() -> None:
    s = arranged([["Y10"], ["square", "X17", "B2"]], {"yellow:11": "Y11"}, variant="symbols")
    place(s, "Y10", "yellow:10")
    assert s.is_over and s.current_player == TERMINAL
    assert s.scores() == [0, -(11 + 17 + 2)]


def hidden_opening(racks: list[int]) -> Any:
    """A table-mode round at its opening: racks of these sizes, hidden; the rest in the bag."""
    s = GAME.new_state(len(racks), table_mode=True)
    s.hands = [Hand(unknown=n) for n in racks]
    s.pile = sum(s.pool.values()) - sum(racks)
    s.phase = "opening"
    s.player = s.current_player = 0
    assert not s.check_invariants(), s.check_invariants()
    return s


@pytest.mark.parametrize(("shown", "status"), [(["R11", "G5"], "refuted"), (["G5", "Y4"], "confirmed")])
def test_table_mode_the_no_11_claim_is_checked_at_the_reveal(shown: list[str], status: str) -> None:
    s = hidden_opening([2, 1])
    s.apply({"type": "no_eleven"})
    assert s.current_player == 1
    place(s, "Y11", "yellow:11")  # seat 1 opens with its only tile: the round is over at once
    assert s.phase == "reveal" and s.winner == 1
    s.apply({"type": "reveal", "seat": 0, "cards": shown})
    assert s.is_over and [c.status for c in s.claims] == [status]
    assert s.scores() == [-sum(value(t) for t in shown), 0]


def test_table_mode_a_tile_on_the_board_cannot_come_from_a_hidden_rack() -> None:
    s = hidden_opening([3, 3])
    place(s, "Y11", "yellow:11")
    with pytest.raises(IllegalMove) as err:
        s.apply({"type": "place", "tile": "Y11", "square": "yellow:11"})
    assert err.value.rule in ("not-in-rack", "occupied")
    s.apply({"type": "end_turn"})
    refused(s, {"type": "place", "tile": "Y11", "square": "yellow:11"}, "not-in-rack")
