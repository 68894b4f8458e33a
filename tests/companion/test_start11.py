"""11! (start11): the rule book's examples and rules (seed 000, RULES.md section 1).

The board is the placeholder of RULES.md 1.9 #1 (shipped data file): rows yellow, red, blue,
green top to bottom; bridges Y-R@13 (bonus), Y-R@18, R-B@4 (bonus), R-B@9, B-G@7 (bonus),
B-G@15, Y-R@3 (bonus); one symbol per row at both ends (yellow square, red triangle, blue
star, green circle).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from random import Random
from typing import Any

import pytest

from companion import games
from companion.games import CHANCE, TERMINAL, DataError, IllegalMove, MalformedAction
from companion.games.base import Hand
from companion.games.start11 import ROW, SQUARE_OF, load_data

from .conformance import playout, table_twin

GAME = games.get("start11")
SHIPPED = Path(__file__).parents[2] / "companion" / "games" / "data" / "start11_board.toml"
JOKERS = (3, 7, 13, 17)
LETTER = {"yellow": "Y", "red": "R", "blue": "B", "green": "G"}


def row(colour: str, lo: int, hi: int) -> dict[str, str]:
    """The tiles of one row from `lo` to `hi` (grey jokers on the joker squares)."""
    return {f"{colour}:{n}": (f"X{n}" if n in JOKERS else f"{LETTER[colour]}{n}") for n in range(lo, hi + 1)}


def arranged(hands: list[list[str]], board: dict[str, str] | None = None, player: int = 0, *,
             variant: str | None = None, options: dict[str, Any] | None = None, table_mode: bool = False,
             rest_to: int | None = None, opening: bool = False, data: Any = None) -> Any:
    """A round in the middle of play: chosen racks and board, every other tile in the bag
    (or, with `rest_to`, on that player's rack: the bag is then empty)."""
    s = GAME.new_state(len(hands), variant, options=options, table_mode=table_mode, data=data)
    racks = [list(h) for h in hands]
    board = board or {}
    bag = Counter(s.deck)
    for h in racks:
        bag.subtract(h)
    bag.subtract(board.values())
    assert all(n >= 0 for n in bag.values()), "a tile is used twice"
    bag = +bag
    if rest_to is not None:
        racks[rest_to] += sorted(bag.elements())
        bag = Counter()
    s.hands = [Hand(unknown=len(h)) if table_mode else Hand(h) for h in racks]
    s.pool = Counter(s.deck) - Counter(board.values()) if table_mode else bag
    s.pile = sum(bag.values())
    for name, tile in board.items():
        sq = SQUARE_OF[name]
        s.board[sq] = tile
        if 1 <= sq % ROW <= 20:
            s.col_count[sq % ROW] += 1
        s.used.update(s.data.bonus_of[sq])
    if opening:
        s.phase = "opening"
        s.player = s.current_player = player
    else:
        s._start_turn(player)
    assert not s.check_invariants(), s.check_invariants()
    return s


def place(s: Any, tile: str, square: str) -> None:
    s.apply({"type": "place", "tile": tile, "square": square})
    assert not s.check_invariants(), s.check_invariants()


def placeable(s: Any) -> set[tuple[str, str]]:
    return {(a["tile"], a["square"]) for a in s.legal_actions() if a["type"] == "place"}


def refused(s: Any, action: dict[str, Any], rule: str | None = None) -> IllegalMove:
    before = s.dumps()
    with pytest.raises(IllegalMove) as err:
        s.apply(action)
    assert s.dumps() == before, "a refused action changed the state"
    if rule is not None:
        assert err.value.rule == rule, (err.value.rule, err.value.en)
    return err.value


def deal_hands(players: int, wanted: list[list[str]], avoid: tuple[str, ...] = (), variant: str | None = None) -> list:
    """Full racks holding `wanted`, topped up from the other tiles (never those in `avoid`)."""
    s = GAME.new_state(players, variant)
    size = 20 if players < 4 else 15
    rest = Counter(s.deck)
    for w in wanted:
        rest.subtract(w)
    spare = [t for t in sorted(rest.elements()) if t not in avoid]
    hands = []
    for w in wanted:
        need = size - len(w)
        hands.append(list(w) + spare[:need])
        spare = spare[need:]
    return hands


ELEVENS = ("Y11", "R11", "B11", "G11")


# --- the rule book's examples ----------------------------------------------------------


def test_link_zone_yellow_1_then_blue_1_anywhere_in_column_1() -> None:
    # Frank places the yellow 1; he also holds the blue 1, which may now go on the blue 1
    # square although no tile touches it.
    s = arranged([["Y1", "B1", "G9"], ["R1", "R5"]], row("yellow", 2, 11))
    assert placeable(s) == {("Y1", "yellow:1")}
    err = refused(s, {"type": "place", "tile": "B1", "square": "blue:1"}, "not-connected")
    assert "1 bleu" in err.fr and "blue 1" in err.en
    place(s, "Y1", "yellow:1")
    assert ("B1", "blue:1") in placeable(s)
    place(s, "B1", "blue:1")
    # The green 9 does not fit: the turn is over. The link zone holds for every player.
    assert s.current_player == 1
    assert placeable(s) == {("R1", "red:1")}


def test_link_zone_20_works_the_same_way() -> None:
    s = arranged([["G20", "Y5"], ["R2"]], row("blue", 11, 20))
    assert placeable(s) == {("G20", "green:20")}


def test_bridge_yellow_18_lets_red_18_be_placed() -> None:
    # Luisa's turn: the yellow 18 is on the board, so she may place her red 18.
    board = {**row("yellow", 11, 17), **row("red", 11, 14)}
    s = arranged([["R18", "R16", "G2"], ["B2"]], board)
    # Neither fits yet: the red 17/19 are empty, and there is no bridge at 16 (the yellow 16
    # is on the board but rows touch only through bridges).
    assert placeable(s) == set()
    refused(s, {"type": "place", "tile": "R16", "square": "red:16"}, "not-connected")
    s = arranged([["R18", "R16", "G2"], ["B2"]], {**board, "yellow:18": "Y18"})
    assert placeable(s) == {("R18", "red:18")}


def test_bridge_bonus_example_grey_13_on_the_yellow_row() -> None:
    # Philipp places his grey 13 on the yellow row beside the bonus symbol: he draws a tile
    # (the red 16) and places it face up, ignoring rule 1. It does not count toward his
    # three tiles. Then André's 13 on the red side of that bridge gives no bonus.
    board = {**row("yellow", 11, 12), **row("red", 11, 12)}
    s = arranged([["X13", "Y14", "Y15", "Y16", "G5"], ["X13", "B2"]], board)
    bag = s.pile
    place(s, "X13", "yellow:13")
    assert s.current_player == CHANCE and s.phase == "bonus"
    assert {"type": "bonus", "tile": "R16"} in s.legal_actions()
    s.apply({"type": "bonus", "tile": "R16"})
    assert s.board[SQUARE_OF["red:16"]] == "R16"  # red 15 and 17 are empty: rule 1 ignored
    assert s.pile == bag - 1 and len(s.hands[0]) == 4
    assert s.current_player == 0 and s.view(0)["turn"]["placed"] == 1
    place(s, "Y14", "yellow:14")
    place(s, "Y15", "yellow:15")
    refused(s, {"type": "place", "tile": "Y16", "square": "yellow:16"}, "limit")
    s.apply({"type": "end_turn"})
    assert s.current_player == 1
    place(s, "X13", "red:13")  # across the bridge from the grey 13: legal, but no bonus
    assert s.phase == "play" and s.pile == bag - 1
    assert s.current_player == 0  # André's blue 2 does not fit: his turn is over


def test_the_bonus_tile_counts_for_give_a_tile() -> None:
    s = arranged([["X13", "G5", "G2"], ["B2"]], row("yellow", 11, 12))
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "Y14"})  # beside the grey 13 placed this turn
    assert s.earned
    assert s.view(None)["board"]["bonus_used"] == [["yellow:13", "red:13"]]
    assert {"type": "give", "tile": "G5"} in s.legal_actions()


# --- turns: the limit, forced draws, giving ----------------------------------------------


def test_three_tile_limit_and_automatic_end_of_turn() -> None:
    board = {"yellow:11": "Y11", "red:11": "R11", "blue:11": "B11"}
    s = arranged([["Y10", "R10", "B10", "Y9", "G2"], ["G4"]], board)
    place(s, "Y10", "yellow:10")
    place(s, "R10", "red:10")
    assert s.current_player == 0
    place(s, "B10", "blue:10")
    # Three tiles in three rows (no pair to give for): the turn ends although the yellow 9 fits.
    assert s.current_player == 1 and s.turns == 2


def test_the_limit_refuses_a_fourth_tile() -> None:
    s = arranged([["Y10", "Y9", "Y8", "Y12", "G2"], ["G4"]], {"yellow:11": "Y11"})
    for n in (10, 9, 8):
        place(s, f"Y{n}", f"yellow:{n}")
    assert s.current_player == 0  # a pair was placed: the player may still give a tile
    assert not placeable(s)
    err = refused(s, {"type": "place", "tile": "Y12", "square": "yellow:12"}, "limit")
    assert "3 tuiles" in err.fr and "3 tiles" in err.en


def test_must_place_when_able() -> None:
    s = arranged([["Y10", "G2"], ["G4"]], {"yellow:11": "Y11"})
    refused(s, {"type": "draw"}, "must-place")
    refused(s, {"type": "end_turn"}, "must-place")
    assert s.legal_actions() == [{"type": "place", "tile": "Y10", "square": "yellow:10"}]


def test_forced_draw_placeable_tile_must_be_placed_then_two_more_and_no_more_draws() -> None:
    s = arranged([["Y5", "G5", "B9", "B8"], ["R2"]], {"blue:11": "B11"})
    assert s.legal_actions() == [{"type": "draw"}]
    s.apply({"type": "draw"})
    assert s.current_player == CHANCE
    s.apply({"type": "drawn", "tile": "B10"})
    assert s.legal_actions() == [{"type": "place", "tile": "B10", "square": "blue:10"}]
    refused(s, {"type": "end_turn"}, "place-drawn")
    refused(s, {"type": "draw"}, "place-drawn")
    place(s, "B10", "blue:10")
    assert s.counted == 1  # the drawn tile counts toward the limit
    refused(s, {"type": "draw"}, "no-draw")
    place(s, "B9", "blue:9")
    place(s, "B8", "blue:8")
    refused(s, {"type": "place", "tile": "Y5", "square": "yellow:5"})
    assert s.current_player == 0 and s.earned  # blue 10 and 9 placed this turn


def test_forced_draws_stop_after_three() -> None:
    s = arranged([["Y5", "G5"], ["R2"]], {"blue:11": "B11"})
    for i, tile in enumerate(("Y15", "G16", "R19")):
        assert s.legal_actions() == [{"type": "draw"}]
        s.apply({"type": "draw"})
        s.apply({"type": "drawn", "tile": tile})
        if i < 2:
            assert s.current_player == 0 and s.phase == "after_draw"
            refused(s, {"type": "end_turn"}, "draw-again")
    # Nothing fitted after three draws: the turn is over, the drawn tiles stay on the rack.
    assert s.current_player == 1
    assert s.hands[0].cards() == sorted(["Y5", "G5", "Y15", "G16", "R19"])


def test_bag_empty_means_pass() -> None:
    s = arranged([["Y5"], ["R2"]], {"blue:11": "B11"}, rest_to=1)
    assert s.pile == 0
    assert s.legal_actions() == [{"type": "pass"}]
    refused(s, {"type": "draw"}, "bag-empty")
    s.apply({"type": "pass"})
    assert s.current_player == 1


def test_a_draw_that_empties_the_bag_ends_the_turn() -> None:
    s = arranged([["Y5"], ["R2"]], {"blue:11": "B11"}, rest_to=1)
    s.hands[1].remove("G16", s.pool)  # put exactly one tile back in the bag
    s.pool["G16"] += 1
    s.pile = 1
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "tile": "G16"})
    assert s.current_player == 1


def test_give_a_tile_after_two_neighbouring_tiles() -> None:
    s = arranged([["Y10", "Y9", "G2", "X17"], ["B2"], ["B4"]], {"yellow:11": "Y11"})
    place(s, "Y10", "yellow:10")
    assert not s.earned
    place(s, "Y9", "yellow:9")
    gives = [a for a in s.legal_actions() if a["type"] == "give"]
    assert gives == [{"type": "give", "tile": "G2"}, {"type": "give", "tile": "X17"}]
    s.apply({"type": "give", "tile": "X17"})
    # The left neighbour (next in clockwise order) takes it; giving ends the turn, once.
    assert s.hands[1].cards() == ["B2", "X17"]
    assert s.current_player == 1 and not s.earned
    refused(s, {"type": "give", "tile": "B2"}, "no-give")


def test_no_give_without_a_pair_placed_this_turn() -> None:
    # The yellow 10 was on the board before: the yellow 9 alone makes no pair.
    s = arranged([["Y9", "R18", "Y8", "G2"], ["B2"]], {**row("yellow", 10, 18)})
    place(s, "Y9", "yellow:9")
    place(s, "R18", "red:18")  # yellow 18 / red 18 touch across a bridge, not in one row
    assert not s.earned and s.current_player == 0
    assert not [a for a in s.legal_actions() if a["type"] == "give"]
    refused(s, {"type": "give", "tile": "G2"}, "no-give")


def test_giving_the_last_tile_wins() -> None:
    s = arranged([["Y10", "Y9", "G2"], ["B2", "X13"]], {"yellow:11": "Y11"})
    place(s, "Y10", "yellow:10")
    place(s, "Y9", "yellow:9")
    s.apply({"type": "give", "tile": "G2"})
    assert s.is_over and s.winner == 0
    assert s.scores() == [0, -(2 + 13 + 2)]
    assert s.winners() == [0]


def test_elevens_are_always_placeable() -> None:
    s = arranged([["G11", "G5"], ["B2"]], row("yellow", 5, 15))
    assert placeable(s) == {("G11", "green:11")}  # nothing beside the green 11 square


def test_grey_joker_goes_on_any_empty_square_of_its_number_next_to_a_tile() -> None:
    s = arranged([["X7", "G2"], ["B2"]], {**row("yellow", 6, 11), **row("blue", 8, 11)})
    assert placeable(s) == {("X7", "blue:7")}  # yellow 7 is taken; red/green 7 have no neighbour
    err = refused(s, {"type": "place", "tile": "X7", "square": "yellow:8"}, "wrong-square")
    assert "7 gris" in err.fr and "grey 7" in err.en
    refused(s, {"type": "place", "tile": "X7", "square": "yellow:7"}, "occupied")


# --- the start of a round -----------------------------------------------------------------


def test_the_first_player_holding_an_11_opens() -> None:
    hands = deal_hands(3, [["Y5"], ["R11"], ["Y11", "R10"]], avoid=ELEVENS)
    s = GAME.new_state(3)
    s.apply({"type": "deal", "hands": hands})
    assert s.phase == "opening" and s.current_player == 0 and s.turns == 0
    assert s.legal_actions() == [{"type": "no_eleven"}]
    refused(s, {"type": "place", "tile": "Y5", "square": "yellow:5"}, "not-connected")
    s.apply({"type": "no_eleven"})
    assert s.current_player == 1
    assert s.legal_actions() == [{"type": "place", "tile": "R11", "square": "red:11"}]
    refused(s, {"type": "no_eleven"}, "must-open")
    place(s, "R11", "red:11")
    assert s.turns == 1 and s.counted == 1


def test_the_youngest_opens_when_holding_an_11() -> None:
    hands = deal_hands(3, [["Y11"], ["R11", "R10", "R9", "R12"], ["B5"]], avoid=ELEVENS)
    s = GAME.new_state(3, start_player=1)
    s.apply({"type": "deal", "hands": hands})
    assert s.current_player == 1
    place(s, "R11", "red:11")
    place(s, "R10", "red:10")  # the opener may place two more tiles
    place(s, "R9", "red:9")
    refused(s, {"type": "place", "tile": "R12", "square": "red:12"}, "limit")


def test_nobody_holds_an_11_everybody_draws_until_one_turns_up() -> None:
    hands = deal_hands(2, [["Y10"], ["B5"]], avoid=ELEVENS)
    s = GAME.new_state(2)
    s.apply({"type": "deal", "hands": hands})
    s.apply({"type": "no_eleven"})
    s.apply({"type": "no_eleven"})
    assert s.current_player == CHANCE and s.phase == "opening_draw" and s.player == 0
    others = [t for t in sorted(s.pool) if t not in ELEVENS]
    s.apply({"type": "drawn", "tile": others[0]})
    assert s.player == 1 and len(s.hands[0]) == 21  # a drawn tile other than an 11 stays on the rack
    s.apply({"type": "drawn", "tile": others[1]})
    assert s.player == 0 and s.current_player == CHANCE
    s.apply({"type": "drawn", "tile": "Y11"})
    assert s.current_player == 0 and s.turns == 1
    assert s.legal_actions() == [{"type": "place", "tile": "Y11", "square": "yellow:11"}]
    place(s, "Y11", "yellow:11")
    place(s, "Y10", "yellow:10")  # and may go on like any start player


def test_option_a_drawn_11_is_the_whole_turn() -> None:
    hands = deal_hands(2, [["Y10"], ["B5"]], avoid=ELEVENS)
    s = GAME.new_state(2, options={"drawn_eleven_full_turn": False})
    s.apply({"type": "deal", "hands": hands})
    s.apply({"type": "no_eleven"})
    s.apply({"type": "no_eleven"})
    s.apply({"type": "drawn", "tile": "Y11"})
    place(s, "Y11", "yellow:11")
    assert s.current_player == 1


# --- the symbols variant ------------------------------------------------------------------


def test_symbol_tile_only_beside_an_occupied_end_square() -> None:
    s = arranged([["star", "B1", "G2"], ["R2"]], row("blue", 2, 11), variant="symbols")
    assert placeable(s) == {("B1", "blue:1")}  # the star needs the blue 1 (or 20) first
    err = refused(s, {"type": "place", "tile": "star", "square": "blue:left"}, "symbol-not-connected")
    assert "étoile" in err.fr and "star" in err.en
    refused(s, {"type": "place", "tile": "star", "square": "yellow:left"}, "wrong-square")
    place(s, "B1", "blue:1")
    assert ("star", "blue:left") in placeable(s)
    assert ("star", "blue:right") not in placeable(s)  # the blue 20 is not on the board


def test_symbol_tile_grants_a_free_tile_ignoring_rule_1_and_the_limit() -> None:
    board = {**row("blue", 1, 11), "yellow:11": "Y11"}
    s = arranged([["Y10", "Y9", "star", "G5", "R2", "B12"], ["R5"]], board, variant="symbols")
    place(s, "Y10", "yellow:10")
    place(s, "Y9", "yellow:9")
    place(s, "star", "blue:left")  # the third tile (GUESS: the symbol tile counts)
    assert s.counted == 3 and s.free
    # One number or joker tile from the rack, anywhere on its square, outside the limit.
    assert {("G5", "green:5"), ("R2", "red:2"), ("B12", "blue:12")} <= placeable(s)
    place(s, "G5", "green:5")
    assert not s.free and s.counted == 3
    refused(s, {"type": "place", "tile": "R2", "square": "red:2"}, "limit")


def test_the_free_tile_must_come_at_once() -> None:
    board = {**row("blue", 1, 11), "yellow:11": "Y11"}
    s = arranged([["star", "G5", "Y10", "Y12", "R2"], ["R5"]], board, variant="symbols")
    place(s, "star", "blue:left")
    place(s, "Y10", "yellow:10")  # a connected tile: it is the free tile, not counted
    assert s.counted == 1 and not s.free
    refused(s, {"type": "place", "tile": "G5", "square": "green:5"}, "not-connected")


def test_option_symbol_tile_outside_the_limit() -> None:
    board = {**row("blue", 1, 11), "yellow:11": "Y11"}
    hands = [["Y10", "Y9", "Y8", "star", "G5"], ["R5"]]
    s = arranged(hands, board, variant="symbols")
    for n in (10, 9, 8):
        place(s, f"Y{n}", f"yellow:{n}")
    refused(s, {"type": "place", "tile": "star", "square": "blue:left"}, "limit")
    s = arranged(hands, board, variant="symbols", options={"symbol_counts": False})
    for n in (10, 9, 8):
        place(s, f"Y{n}", f"yellow:{n}")
    place(s, "star", "blue:left")
    place(s, "G5", "green:5")
    assert s.counted == 3


def test_symbol_tiles_do_not_count_for_give_a_tile_but_may_be_given() -> None:
    s = arranged([["B1", "star", "G2", "square"], ["R5"]], row("blue", 2, 11), variant="symbols")
    place(s, "B1", "blue:1")
    place(s, "star", "blue:left")  # beside the blue 1 placed this turn: no pair
    assert not s.earned
    s2 = arranged([["B2", "X3", "square", "G2"], ["R5"]], row("blue", 4, 11), variant="symbols")
    place(s2, "X3", "blue:3")
    place(s2, "B2", "blue:2")
    assert s2.earned
    s2.apply({"type": "give", "tile": "square"})
    assert "square" in s2.hands[1].cards()


def test_symbol_tiles_score_minus_11() -> None:
    s = arranged([["Y10"], ["star", "circle", "X3"]], {"yellow:11": "Y11"}, variant="symbols")
    place(s, "Y10", "yellow:10")
    assert s.is_over
    assert s.scores() == [0, -25]


def test_bonus_symbol_tile_placed_ignoring_rule_1_and_granting_its_extra_tile() -> None:
    board = row("yellow", 11, 12)
    s = arranged([["X13", "G5", "Y14"], ["R5"]], board, variant="symbols")
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "star"})
    # Neither blue end is on the board and both star squares are empty: the player chooses.
    assert s.legal_actions() == [{"type": "place_bonus", "square": "blue:left"},
                                 {"type": "place_bonus", "square": "blue:right"}]
    s.apply({"type": "place_bonus", "square": "blue:right"})
    assert s.board[SQUARE_OF["blue:right"]] == "star" and s.free
    place(s, "G5", "green:5")
    assert s.counted == 1
    s = arranged([["X13", "G5", "Y14"], ["R5"]], board, variant="symbols", options={"bonus_symbol_extra": False})
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "star"})
    s.apply({"type": "place_bonus", "square": "blue:left"})
    assert not s.free
    refused(s, {"type": "place", "tile": "G5", "square": "green:5"}, "not-connected")


# --- bridge bonus details (GUESS options) -------------------------------------------------


def test_bonus_joker_square_chosen_by_the_player_or_topmost() -> None:
    board = row("yellow", 11, 12)
    s = arranged([["X13", "G5"], ["R5"]], board)
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "X7"})
    assert s.current_player == 0 and s.phase == "place_bonus"
    assert [a["square"] for a in s.legal_actions()] == ["yellow:7", "red:7", "blue:7", "green:7"]
    refused(s, {"type": "place_bonus", "square": "yellow:8"}, "bonus-square")
    s.apply({"type": "place_bonus", "square": "green:7"})  # ignoring rule 1; a bonus bridge square too
    assert s.board[SQUARE_OF["green:7"]] == "X7"
    assert s.phase == "bonus"  # the bonus chain (GUESS): green 7 is a bonus-bridge square
    s = arranged([["X13", "G5"], ["R5"]], board, options={"bonus_joker_choice": False})
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "X7"})
    assert s.board[SQUARE_OF["yellow:7"]] == "X7"


def test_bonus_chain_switch() -> None:
    board = row("yellow", 11, 12)
    s = arranged([["X13", "G5", "Y14"], ["R5"]], board)
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "R4"})  # red 4: a square of the red-blue bonus bridge
    assert s.phase == "bonus"
    s.apply({"type": "bonus", "tile": "G20"})
    assert s.phase == "play" and s.current_player == 0
    s = arranged([["X13", "G5"], ["R5"]], board, options={"bonus_chain": False})
    place(s, "X13", "yellow:13")
    s.apply({"type": "bonus", "tile": "R4"})
    assert s.phase == "play" and 2 in s.used  # the red-blue bridge is claimed, without a bonus


def test_no_bonus_when_the_bag_is_empty() -> None:
    s = arranged([["X13", "G5"], ["R5"]], row("yellow", 11, 12), rest_to=1)
    place(s, "X13", "yellow:13")
    assert s.phase == "play" and s.pile == 0
    assert 0 in s.used  # the bridge is claimed all the same


# --- end of the round, scoring ------------------------------------------------------------


def test_round_ends_at_once_with_the_last_tile_and_others_score_minus_their_tiles() -> None:
    s = arranged([["Y10"], ["X13", "Y20", "G1"], ["B19", "R2"]], {"yellow:11": "Y11"})
    place(s, "Y10", "yellow:10")
    assert s.current_player == TERMINAL
    assert s.scores() == [0, -34, -21]
    assert s.winners() == [0]
    assert GAME.info.winner == "highest" and GAME.info.default_rounds(3) == 3
    view = s.view(None)
    assert view["scores"] == [0, -34, -21] and view["winners"] == [0]


def test_a_bonus_does_not_delay_the_end() -> None:
    s = arranged([["X13"], ["B5"]], row("yellow", 11, 12))
    place(s, "X13", "yellow:13")
    assert s.is_over and s.winner == 0


def test_deadlock_option_scores_or_voids_the_round() -> None:
    # At the table nothing can be checked: with the bag empty every player passes (player 2
    # wrongly: the reveal shows placeable tiles), and the round ends without a winner.
    for scores_on, expected in ((True, [-5, -(840 - 11 - 5)]), (False, [0, 0])):
        s = arranged([["Y5"], []], {"blue:11": "B11"}, table_mode=True, rest_to=1,
                     options={"deadlock_scores": scores_on})
        assert s.pile == 0
        rest = sorted((Counter(s.deck) - Counter(["Y5", "B11"])).elements())
        s.apply({"type": "pass"})
        s.apply({"type": "pass"})
        assert s.phase == "reveal"
        s.apply({"type": "reveal", "seat": 0, "cards": ["Y5"]})
        s.apply({"type": "reveal", "seat": 1, "cards": rest})
        assert s.is_over and s.winner is None
        assert s.scores() == expected
        assert [c.status for c in s.claims] == ["confirmed", "refuted"]


# --- table mode -------------------------------------------------------------------------


def test_table_claims_at_the_reveal() -> None:
    board = {"yellow:11": "Y11", "red:11": "R11"}
    s = arranged([["Y10", "G5"], ["R10", "R9"]], board, table_mode=True)
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "tile": None})
    # The drawn tile fits (it is the red 12, say) -- at the table it is simply placed.
    place(s, "R12", "red:12")
    s.apply({"type": "end_turn"})
    place(s, "R10", "red:10")
    place(s, "R9", "red:9")
    assert s.phase == "reveal" and s.current_player == CHANCE
    assert s.revealed == [False, True]
    s.apply({"type": "reveal", "seat": 0, "cards": ["Y10", "G5"]})
    assert s.is_over and s.scores() == [-15, 0]
    assert [c.status for c in s.claims] == ["refuted"]  # the yellow 10 fitted before the draw

    s = arranged([["Y5", "G5"], ["R10", "R9"]], board, table_mode=True)
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "tile": None})
    place(s, "R12", "red:12")
    s.apply({"type": "end_turn"})
    place(s, "R10", "red:10")
    place(s, "R9", "red:9")
    s.apply({"type": "reveal", "seat": 0, "cards": ["Y5", "G5"]})
    assert [c.status for c in s.claims] == ["unverifiable"]  # one hidden tile came in since
    assert s.scores() == [-10, 0]


def test_table_no_eleven_claim_checked_at_the_reveal() -> None:
    s = arranged([["Y11", "Y5"], ["R11", "R10"]], {}, table_mode=True, opening=True)
    assert {"type": "no_eleven"} in s.legal_actions()
    s.apply({"type": "no_eleven"})  # false: the reveal shows the yellow 11
    place(s, "R11", "red:11")
    place(s, "R10", "red:10")
    s.apply({"type": "reveal", "seat": 0, "cards": ["Y11", "Y5"]})
    assert [c.status for c in s.claims] == ["refuted"]
    s = arranged([["Y4", "Y5"], ["R11", "R10"]], {}, table_mode=True, opening=True)
    s.apply({"type": "no_eleven"})
    place(s, "R11", "red:11")
    place(s, "R10", "red:10")
    s.apply({"type": "reveal", "seat": 0, "cards": ["Y4", "Y5"]})
    assert [c.status for c in s.claims] == ["confirmed"]


def test_table_opening_draw_shows_the_11() -> None:
    s = GAME.new_state(2, table_mode=True)
    s.apply({"type": "deal", "hands": None})
    s.apply({"type": "no_eleven"})
    s.apply({"type": "no_eleven"})
    legal = s.legal_actions()
    assert {"type": "drawn", "tile": None} in legal and {"type": "drawn", "tile": "G11"} in legal
    s.apply({"type": "drawn", "tile": None})  # not an 11 (a claim, checked at the end)
    s.apply({"type": "drawn", "tile": "G11"})
    assert s.current_player == 1
    assert s.legal_actions() == [{"type": "place", "tile": "G11", "square": "green:11"}]
    assert [c.text.en for c in s.claims] == ["I hold no 11.", "I hold no 11.", "The drawn tile is not an 11."]
    sim = GAME.new_state(2)
    assert sim.redact({"type": "drawn", "tile": "G5"}) == {"type": "drawn", "tile": None}


def test_table_tile_seen_elsewhere_cannot_come_from_a_hidden_rack() -> None:
    s = arranged([["Y10", "G5"], ["R10", "R9"]], {"yellow:11": "Y11"}, table_mode=True)
    place(s, "Y10", "yellow:10")
    s.apply({"type": "end_turn"})
    refused(s, {"type": "place", "tile": "Y10", "square": "yellow:10"})  # there is one yellow 10
    assert ("Y9", "yellow:9") in placeable(s)  # unseen: possibly on this rack


def test_table_give_face_down() -> None:
    s = arranged([["Y10", "Y9", "G5"], ["R10", "R9"]], {"yellow:11": "Y11"}, table_mode=True)
    place(s, "Y10", "yellow:10")
    place(s, "Y9", "yellow:9")
    assert {"type": "give", "tile": None} in s.legal_actions()
    s.apply({"type": "give", "tile": None})
    assert [len(h) for h in s.hands] == [0, 3]
    assert s.phase == "reveal" and s.winner == 0  # the last tile was given away
    s.apply({"type": "reveal", "seat": 1, "cards": ["R10", "R9", "G5"]})
    assert s.scores() == [0, -24]


def test_table_twin_with_an_opening_draw_and_with_symbols() -> None:
    seed = next(sd for sd in range(500) if not any(
        t in ELEVENS for h in GAME.new_state(2).sample_chance(Random(sd))["hands"] for t in h))
    for variant, players, sd in ((None, 2, seed), ("symbols", 4, 5), ("symbols", 3, 6)):
        def make(table_mode: bool, variant: str | None = variant, players: int = players) -> Any:
            return GAME.new_state(players, variant, table_mode=table_mode)
        sim, table = table_twin(make, seed=sd, policy="greedy" if sd % 2 else "random")
        if sd == seed:
            assert [c.text.en for c in table.claims[:2]] == ["I hold no 11.", "I hold no 11."]


# --- bad input --------------------------------------------------------------------------


def test_bad_input_is_refused_and_changes_nothing() -> None:
    s = arranged([["Y10", "G5"], ["R10"]], {"yellow:11": "Y11"})
    refused(s, {"type": "place", "tile": "Y10", "square": "yellow:10", "player": 1}, "wrong-player")
    for bad in ({"type": "place", "tile": "Y3", "square": "yellow:3"},  # no yellow 3: a grey square
                {"type": "place", "tile": "ZZ", "square": "yellow:10"},
                {"type": "place", "tile": "Y10", "square": "yellow:21"},
                {"type": "place", "tile": "Y10"},
                {"type": "place", "tile": 10, "square": "yellow:10"},
                {"type": "place", "tile": "star", "square": "yellow:left"},  # no symbols without the variant
                {"type": "fly"}, {"type": "give", "tile": None}, {"type": "give"}):
        with pytest.raises(IllegalMove):
            s.apply(bad)
    with pytest.raises(MalformedAction):
        s.apply({"type": "place", "tile": "ZZ", "square": "yellow:10"})
    refused(s, {"type": "place", "tile": "Y10", "square": "red:10"}, "wrong-square")
    refused(s, {"type": "place", "tile": "R10", "square": "red:10"}, "not-in-rack")
    refused(s, {"type": "drawn", "tile": "Y5"}, "not-now")
    refused(s, {"type": "bonus", "tile": "Y5"}, "not-now")
    refused(s, {"type": "no_eleven"}, "not-now")
    refused(s, {"type": "place_bonus", "square": "yellow:7"}, "not-now")


def test_chance_input_is_checked() -> None:
    s = GAME.new_state(2)
    with pytest.raises(MalformedAction):
        s.apply({"type": "deal", "hands": None})  # a simulated deal names the tiles
    hands = deal_hands(2, [[], []])
    with pytest.raises(MalformedAction):
        s.apply({"type": "deal", "hands": [hands[0], hands[0]]})  # the same tiles twice
    s = arranged([["X13", "G5"], ["R5"]], row("yellow", 11, 12))
    place(s, "X13", "yellow:13")
    refused(s, {"type": "bonus", "tile": "Y12"}, "not-in-bag")  # on the board already
    refused(s, {"type": "bonus", "tile": "R5"}, "not-in-bag")  # on a rack


# --- the data file ---------------------------------------------------------------------


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "board.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_shipped_board_is_the_placeholder() -> None:
    board = load_data(None)
    assert board.rows == ("yellow", "red", "blue", "green")
    assert [(b.upper, b.lower, b.number, b.bonus, b.guess) for b in board.bridges] == [
        ("yellow", "red", 13, True, False), ("yellow", "red", 18, False, False), ("red", "blue", 4, True, True),
        ("red", "blue", 9, False, True), ("blue", "green", 7, True, True), ("blue", "green", 15, False, True),
        ("yellow", "red", 3, True, True)]
    assert board.guessed()
    assert Counter(s for s, _ in board.symbols.values()) == Counter(
        dict.fromkeys(("square", "triangle", "star", "circle"), 2))
    assert json.loads(json.dumps(board.to_json())) == board.to_json()


@pytest.mark.parametrize(("old", "new", "entry"), [
    ("number = 18", "number = 21", "bridge[1].number: must be 1 to 20"),
    ("number = 18", "", "bridge[1].number: missing"),
    ('rows = ["red", "blue"]\nnumber = 4', 'rows = ["yellow", "blue"]\nnumber = 4', "bridge[2].rows: yellow and blue"),
    ("number = 9", "number = 4", "bridge[3].number: the same bridge as bridge[2]"),
    ("number = 18\nbonus = false", "number = 18\nbonus = true", "bridge: exactly four"),
    ('square = "green:right"\nsymbol = "circle"', 'square = "green:right"\nsymbol = "star"',
     "symbol: star is printed 3"),
    ('square = "green:right"', 'square = "green:20"', "symbol[7].square"),
    ('order = ["yellow", "red", "blue", "green"]', 'order = ["yellow", "red", "red", "green"]', "rows.order"),
    ("jokers = [3, 7, 13, 17]", "jokers = [3, 7, 11, 17]", "columns.jokers: 11 cannot"),
    ("jokers = [3, 7, 13, 17]", "jokers = [3, 7, 13, 27]", "columns.jokers[3]: must be 1 to 20"),
    ("guess = false  # rule book: the yellow 18", "guess = 'no'  # rule book: the yellow 18", "bridge[1].guess"),
    ("[columns]", "colour = 1\n[columns]", "rows.colour: unknown key"),
    ("[columns]", "[colums]", "colums: unknown key"),
    ("[rows]", "[rows", "not valid TOML"),
])
def test_broken_board_file_names_the_file_and_the_entry(tmp_path: Path, old: str, new: str, entry: str) -> None:
    text = SHIPPED.read_text(encoding="utf-8")
    assert old in text
    path = write(tmp_path, text.replace(old, new, 1))
    with pytest.raises(DataError) as err:
        load_data(path)
    assert str(path) in str(err.value) and entry in str(err.value), str(err.value)


def test_missing_board_file(tmp_path: Path) -> None:
    with pytest.raises(DataError) as err:
        load_data(tmp_path / "nope.toml")
    assert "nope.toml" in str(err.value)


def test_the_users_board_replaces_the_shipped_one(tmp_path: Path) -> None:
    text = SHIPPED.read_text(encoding="utf-8").replace("number = 18", "number = 16", 1)
    data = load_data(write(tmp_path, text))
    board = {**row("yellow", 11, 17), **row("red", 11, 14)}
    s = arranged([["R18", "R16", "G2"], ["B2"]], board, data=data)
    assert placeable(s) == {("R16", "red:16")}  # the user's board has its bridge at 16, not 18
    again = type(s).from_json(json.loads(json.dumps(s.to_json())))
    assert again.data.to_json() == data.to_json() and placeable(again) == placeable(s)
    s = GAME.new_state(2, data=data)
    playout(s, seed=4)


def test_saved_state_with_a_broken_board_is_refused() -> None:
    s = GAME.new_state(2)
    saved = s.to_json()
    saved["data"]["bridge"] = saved["data"]["bridge"][:2]
    with pytest.raises(games.StateError):
        type(s).from_json(saved)


# --- odds and ends ----------------------------------------------------------------------


def test_every_guess_is_an_option_or_a_data_entry() -> None:
    options = {o.id: o for o in GAME.info.options}
    for oid in ("symbol_counts", "bonus_joker_choice", "bonus_symbol_extra", "bonus_chain", "deadlock_scores",
                "drawn_eleven_full_turn"):
        assert options[oid].guess and options[oid].default is True and options[oid].choices == (True, False)
    assert [v.id for v in GAME.info.variants] == ["symbols"]


def test_observed_tiles() -> None:
    s = GAME.new_state(2, "symbols")
    assert s.observed_card({"kind": "number", "value": 5, "color": "yellow"}) == "Y5"
    assert s.observed_card({"kind": "joker", "value": 13, "color": "gray"}) == "X13"
    assert s.observed_card({"kind": "symbol", "value": "star", "color": None}) == "star"
    assert s.observed_card({"kind": "number", "value": 13, "color": "yellow"}) is None  # no yellow 13 tile
    assert s.observed_card({"kind": "bull", "value": 3, "color": None}) is None
    assert GAME.new_state(2).observed_card({"kind": "symbol", "value": "star", "color": None}) is None


def test_sentences() -> None:
    s = arranged([["X13", "G5"], ["R5"]], row("yellow", 11, 12))
    act = {"type": "place", "tile": "X13", "square": "yellow:13"}
    assert s.describe(act, "en") == "Player 1 places the grey 13 on the yellow 13 square"
    assert s.describe(act, "fr") == "Joueur 1 pose le 13 gris sur la case 13 de la rangée jaune"
    s.apply(act)
    assert s.describe({"type": "bonus", "tile": "R16"}, "fr") == (
        "Bonus de pont : le 16 rouge sort du sac et se pose face visible")


def test_view_hides_other_racks_and_shows_the_board() -> None:
    s = arranged([["Y10", "G5"], ["R10"]], {"yellow:11": "Y11"})
    v = s.view(1)
    assert v["hand"] == ["R10"] and v["hand_sizes"] == [2, 1] and v["scores"] is None
    assert v["board"]["tiles"] == {"yellow:11": "Y11"}
    assert v["board"]["layout"]["links"] == [1, 11, 20]
    assert {"squares": ["yellow:13", "red:13"], "bonus": True} in v["board"]["layout"]["bridges"]
    assert "G5" not in json.dumps(v)


@pytest.mark.parametrize("variant", [None, "symbols"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_whole_rounds(variant: str | None, players: int) -> None:
    for seed in range(3):
        s = GAME.new_state(players, variant, start_player=seed % players)
        playout(s, seed=seed + 10 * players, policy="random" if seed % 2 else "greedy")
        assert s.winner is None or s.scores()[s.winner] == 0
        assert all(x <= 0 for x in s.scores())
