"""11 Elevens: the rule book's example and the rules of RULES.md section 2 (seed 001)."""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

import pytest

from companion import games
from companion.games import CHANCE, TERMINAL, IllegalMove, MalformedAction
from companion.games.elevens import DECK, NUMBERS, PARSED

from .conformance import key, playout, table_twin

GAME = games.get("elevens")
ORDER = ["yellow", "blue", "red", "green"]  # the column of the example: blue lies between yellow and red
# Cards far from the 11s first: padding a hand with them keeps it out of the play.
FAR = [f"{c}{v}" for v in (21, 1, 20, 2, 19, 3, 18, 4, 17, 5, 16, 6, 15, 7, 14, 8, 13, 9, 12, 10) for c in "YRBG"]


def dealt(hands: list[list[str]], rows: list[str] | None = None, start: int = 0, variant: str | None = None,
          options: dict[str, Any] | None = None, keep: tuple[str, ...] = ()) -> Any:
    """A round dealt with these hands, each padded to the deal table's size with far-away cards."""
    state = GAME.new_state(len(hands), variant, start_player=start, options=options)
    used = {c for h in hands for c in h} | set(keep)
    fillers = [c for c in FAR if c not in used]
    full = []
    for h in hands:
        h = list(h)
        while len(h) < state.hand_size:
            h.append(fillers.pop(0))
        full.append(h)
    state.apply({"type": "deal", "rows": rows or ORDER, "hands": full})
    assert not state.check_invariants()
    return state


def arranged(hands: list[list[str]], board: tuple[str, ...] = (), jokers: tuple[tuple[str, int], ...] = (),
             start: int = 0, variant: str | None = None, options: dict[str, Any] | None = None,
             pile_to: int | None = None, bonus: list[int] | None = None) -> Any:
    """A dealt round laid out by hand: exactly these hands, these cards (and jokers standing for
    (row, value)) on the board, the other cards in the pile -- or, with `pile_to`, in that seat's
    hand so that the pile is empty; `bonus`: the bonus cards already won."""
    state = GAME.new_state(len(hands), variant, start_player=start, options=options)
    state.apply(state.sample_chance(Random(0)))
    state.rows = list(ORDER)
    rest = Counter(state.deck)
    for hand, cards in zip(state.hands, hands, strict=True):
        hand.known, hand.unknown, hand.log = Counter(cards), 0, []
        rest -= Counter(cards)
    for card in board:
        colour, value = PARSED[card]
        state.board[colour][value] = 1
        rest[card] -= 1
    for colour, value in jokers:
        state.board[colour][value] = 2
        rest["J"] -= 1
    state._board_jokers = len(jokers)
    assert all(n >= 0 for n in rest.values()), "a card is used twice"
    rest = +rest
    if pile_to is not None:
        state.hands[pile_to].known.update(rest)
        rest = Counter()
    state.pool = rest
    state.pile = sum(rest.values())
    state.player = state.current_player = start
    if bonus is not None:
        state.bonus = list(bonus)
        state.bonus_supply -= sum(bonus)
    assert not state.check_invariants(), state.check_invariants()
    return state


def plays(state: Any) -> set[str]:
    return {a["card"] for a in state.legal_actions() if a["type"] == "play" and a["card"] != "J"}


def legal(state: Any, action: dict[str, Any]) -> bool:
    return key(action) in {key(a) for a in state.legal_actions()}


def refused(state: Any, action: dict[str, Any], rule: str | None = None) -> IllegalMove:
    """`action` is not listed, raises IllegalMove (with `rule`) and changes nothing."""
    before = state.to_json()
    assert not legal(state, action), f"{action} is listed as legal"
    with pytest.raises(IllegalMove) as err:
        state.apply(action)
    assert state.to_json() == before
    if rule is not None:
        assert err.value.rule == rule, (err.value.rule, err.value.en)
    return err.value


def row(state: Any, colour: str) -> dict[str, str]:
    return next(r["positions"] for r in state.view(None)["board"]["rows"] if r["colour"] == colour)


# --- the rule book's example: Tom and Véra ------------------------------------------------


def tom_and_vera() -> Any:
    # Seat 0 is Tom, seat 1 is Véra; the blue 10, the red 9 and the red 6 are still in the pile.
    s = dealt([["B9", "J", "R8", "G10"], ["Y10", "Y9", "R7", "R5", "G12"]], start=1, keep=("B10", "R9", "R6"))
    s.apply({"type": "play", "card": "Y10"})
    s.apply({"type": "play", "card": "Y9"})
    s.apply({"type": "end_turn"})
    assert s.current_player == 0
    return s


def test_example_a_tom_links_the_yellow_9_to_the_blue_row_and_may_still_play_4_cards() -> None:
    s = tom_and_vera()
    assert "B9" not in plays(s)  # the blue 10 is missing: no direct way
    link = {"type": "link", "from": "yellow", "to": "blue", "value": 9}
    assert legal(s, link)
    s.apply(link)
    turn = s.view(0)["turn"]
    assert turn["played"] == 0 and turn["pending_link"] == {"row": "blue", "value": 9}
    assert s.view(None)["board"]["links_left"] == [3, 4]


def test_example_b_he_must_first_place_the_blue_9() -> None:
    s = tom_and_vera()
    s.apply({"type": "link", "from": "yellow", "to": "blue", "value": 9})
    assert s.legal_actions() == [{"type": "play", "card": "B9"},
                                 {"type": "play", "card": "J", "row": "blue", "value": 9}]
    refused(s, {"type": "play", "card": "G10"}, "complete-link")
    refused(s, {"type": "end_turn"}, "complete-link")
    refused(s, {"type": "link", "from": "yellow", "to": "blue", "value": 10}, "complete-link")
    s.apply({"type": "play", "card": "B9"})
    assert row(s, "blue") == {"9": "B9", "11": "B11"}  # the blue 10 is still missing
    assert s.view(0)["turn"]["played"] == 1


def test_example_c_a_second_link_to_a_joker_then_the_red_8_four_cards_in_all() -> None:
    s = tom_and_vera()
    s.apply({"type": "link", "from": "yellow", "to": "blue", "value": 9})
    s.apply({"type": "play", "card": "B9"})
    refused(s, {"type": "play", "card": "R8"}, "no-neighbour")  # not yet: the red 9 is missing
    s.apply({"type": "link", "from": "blue", "to": "red", "value": 9})
    s.apply({"type": "play", "card": "J", "row": "red", "value": 9})
    s.apply({"type": "play", "card": "R8"})
    assert s.current_player == 0 and s.view(0)["turn"]["played"] == 3
    s.apply({"type": "play", "card": "G10"})  # the fourth hand card: the links did not count
    assert s.current_player == 1  # four cards: the turn is over
    board = s.view(None)["board"]
    assert row(s, "red") == {"8": "R8", "9": "J", "11": "R11"}
    assert board["jokers"] == [{"row": "red", "value": 9, "stands_for": "R9"}]
    assert board["links"] == [{"from": "yellow", "to": "blue", "value": 9}, {"from": "blue", "to": "red", "value": 9}]
    assert board["links_left"] == [2, 4]


def example_after_tom() -> Any:
    s = tom_and_vera()
    for action in ({"type": "link", "from": "yellow", "to": "blue", "value": 9}, {"type": "play", "card": "B9"},
                   {"type": "link", "from": "blue", "to": "red", "value": 9},
                   {"type": "play", "card": "J", "row": "red", "value": 9}, {"type": "play", "card": "R8"},
                   {"type": "play", "card": "G10"}):
        s.apply(action)
    assert s.current_player == 1
    return s


def test_example_d_vera_places_the_red_7_beside_the_red_8() -> None:
    s = example_after_tom()
    assert "R7" in plays(s)
    s.apply({"type": "play", "card": "R7"})
    assert row(s, "red") == {"7": "R7", "8": "R8", "9": "J", "11": "R11"}


def test_example_e_vera_may_not_place_the_red_5_no_joker_and_a_link_never_fills_a_hole() -> None:
    s = example_after_tom()
    s.apply({"type": "play", "card": "R7"})
    assert s.current_player == 1  # her green 12 still fits
    assert plays(s) == {"G12"}
    err = refused(s, {"type": "play", "card": "R5"}, "no-neighbour")
    assert "6 rouge" in err.fr and "red 6" in err.en
    assert not any(a["type"] == "link" for a in s.legal_actions())  # no link to the red 5, no joker
    refused(s, {"type": "link", "from": "red", "to": "red", "value": 6}, "not-neighbours")
    refused(s, {"type": "link", "from": "blue", "to": "red", "value": 5}, "link-from-empty")
    refused(s, {"type": "link", "from": "green", "to": "red", "value": 6}, "link-from-empty")


# --- placement ---------------------------------------------------------------------------


def test_a_card_of_another_colour_never_goes_into_a_row() -> None:
    s = dealt([["Y10", "R10"], []])
    err = refused(s, {"type": "play", "card": "Y10", "row": "red", "value": 10}, "wrong-colour")
    assert "10 jaune" in err.fr and "rangée rouge" in err.fr and "red row" in err.en
    with pytest.raises(MalformedAction):
        s.apply({"type": "play", "card": "Y10", "row": "yellow", "value": 10})  # row/value only for a joker
    assert all("row" not in a for a in s.legal_actions() if a["type"] == "play" and a["card"] != "J")
    s.apply({"type": "play", "card": "Y10"})
    assert row(s, "yellow") == {"10": "Y10", "11": "Y11"}


def test_segments_grow_on_both_sides_of_a_linked_card() -> None:
    s = arranged([["B9", "B8", "B10", "J"], ["G21"]], board=("Y10", "Y9"))
    s.apply({"type": "link", "from": "yellow", "to": "blue", "value": 9})
    s.apply({"type": "play", "card": "B9"})
    assert plays(s) >= {"B8", "B10"}  # beside the blue 9, on either side
    s.apply({"type": "play", "card": "B8"})
    s.apply({"type": "play", "card": "B10"})
    assert row(s, "blue") == {"8": "B8", "9": "B9", "10": "B10", "11": "B11"}


def test_a_joker_goes_only_where_its_number_card_would_fit() -> None:
    s = arranged([["J", "J", "G21"], ["G20"]])
    assert legal(s, {"type": "play", "card": "J", "row": "red", "value": 12})
    refused(s, {"type": "play", "card": "J", "row": "red", "value": 9}, "no-neighbour")
    refused(s, {"type": "play", "card": "J", "row": "red", "value": 11}, "occupied")
    s.apply({"type": "play", "card": "J", "row": "red", "value": 12})
    assert "R13" in {f"R{a['value']}" for a in s.legal_actions() if a["type"] == "play" and a["card"] == "J"
                     and a["row"] == "red"}


def test_jokers_count_toward_the_four_cards() -> None:
    s = arranged([["J", "J", "Y10", "Y9", "Y8"], ["G21"]])
    for action in ({"type": "play", "card": "J", "row": "red", "value": 10},
                   {"type": "play", "card": "J", "row": "blue", "value": 10},
                   {"type": "play", "card": "Y10"}):
        s.apply(action)
        assert s.current_player == 0
    s.apply({"type": "play", "card": "Y9"})
    assert s.current_player == 1 and s.hands[0].cards() == ["Y8"]


def test_a_discarded_joker_counts_toward_the_four_cards() -> None:
    s = arranged([["J", "Y10", "Y9", "Y8", "Y7"], ["G21"]])
    s.apply({"type": "discard_joker"})
    for card in ("Y10", "Y9"):
        s.apply({"type": "play", "card": card})
    assert s.current_player == 0 and s.view(0)["turn"]["played"] == 3
    s.apply({"type": "play", "card": "Y8"})
    assert s.current_player == 1 and s.view(None)["board"]["box"] == 1


def test_at_least_one_card_and_the_turn_ends_when_nothing_more_fits() -> None:
    s = arranged([["Y10", "G21", "G20"], ["B21"]])
    refused(s, {"type": "end_turn"}, "must-play")
    s.apply({"type": "play", "card": "Y10"})
    assert s.current_player == 1  # the green 21 and 20 fit nowhere: the turn is over


# --- links ---------------------------------------------------------------------------------


def test_a_link_needs_its_completing_card_or_a_joker_in_hand() -> None:
    s = arranged([["Y9", "G21"], ["G20"]], board=("B10",))
    assert not any(a["type"] == "link" for a in s.legal_actions())  # neither the yellow 10 nor the red 10
    refused(s, {"type": "link", "from": "blue", "to": "yellow", "value": 10}, "link-incomplete")
    s3 = arranged([["Y9", "G21"], ["G20"]], board=("B9",))
    assert legal(s3, {"type": "link", "from": "blue", "to": "yellow", "value": 9})
    refused(s3, {"type": "link", "from": "blue", "to": "red", "value": 9}, "link-incomplete")


def test_a_link_joins_only_neighbouring_rows_and_needs_a_link_card() -> None:
    s = arranged([["R9", "G9", "J", "G21"], ["G20"]], board=("Y10", "Y9"))
    refused(s, {"type": "link", "from": "yellow", "to": "red", "value": 9}, "not-neighbours")
    refused(s, {"type": "link", "from": "yellow", "to": "green", "value": 9}, "not-neighbours")
    s.links_left[:] = [0, 8]  # seat 0 gave its link cards away (keeps the count right)
    assert not s.check_invariants()
    refused(s, {"type": "link", "from": "blue", "to": "red", "value": 10}, "no-link-card")


def test_a_link_cannot_be_laid_once_four_cards_are_played() -> None:
    s = arranged([["Y10", "Y9", "Y8", "R10", "B9", "J"], ["G20"]])
    for card in ("Y10", "Y9", "R10"):
        s.apply({"type": "play", "card": card})
    assert legal(s, {"type": "link", "from": "yellow", "to": "blue", "value": 9})
    s.apply({"type": "play", "card": "Y8"})
    assert s.current_player == 1  # four cards: no room for a link's card, the turn is over


# --- jokers: exchange, discard -------------------------------------------------------------


def test_exchange_needs_another_card_this_turn() -> None:
    s = arranged([["Y10", "Y8", "G21"], ["G20"]], board=("Y9",), jokers=(("yellow", 10),))
    exchange = {"type": "exchange", "card": "Y10"}
    assert legal(s, exchange)
    s.apply(exchange)
    assert s.hands[0].cards() == ["G21", "J", "Y8"] and row(s, "yellow")["10"] == "Y10"
    refused(s, {"type": "end_turn"}, "exchange-needs-card")
    refused(s, {"type": "draw"}, "no-draw")
    s.apply({"type": "play", "card": "Y8"})
    assert legal(s, {"type": "end_turn"})


def test_the_recovered_joker_may_be_the_other_card_guess_3() -> None:
    s = arranged([["Y10", "G21"], ["G20"]], board=("Y9",), jokers=(("yellow", 10),))
    s.apply({"type": "exchange", "card": "Y10"})
    s.apply({"type": "play", "card": "J", "row": "yellow", "value": 8})
    assert s.current_player == 1  # nothing else fits: the turn is over


def test_with_guess_3_off_the_other_card_must_be_a_number_card() -> None:
    opts = {"exchange_other_any": False}
    s = arranged([["Y10", "G21"], ["G20"]], board=("Y9",), jokers=(("yellow", 10),), options=opts)
    refused(s, {"type": "exchange", "card": "Y10"}, "exchange-needs-card")  # nothing else could follow
    s = arranged([["Y10", "Y8", "G21"], ["G20"]], board=("Y9",), jokers=(("yellow", 10),), options=opts)
    s.apply({"type": "exchange", "card": "Y10"})
    s.apply({"type": "play", "card": "J", "row": "red", "value": 10})
    refused(s, {"type": "end_turn"}, "exchange-needs-card")  # the recovered joker does not count
    s.apply({"type": "play", "card": "Y8"})
    assert s.current_player == 1  # nothing else fits: the turn is over


def test_with_guess_3_off_the_room_for_the_number_card_is_kept() -> None:
    opts = {"exchange_other_any": False}
    hands = [["Y10", "Y8", "J", "J", "R9", "G21"], ["G20"]]
    s = arranged(hands, board=("Y9",), jokers=(("yellow", 10),), options=opts)
    s.apply({"type": "exchange", "card": "Y10"})
    s.apply({"type": "play", "card": "J", "row": "red", "value": 10})
    s.apply({"type": "play", "card": "J", "row": "red", "value": 9})  # the third card: one place left
    refused(s, {"type": "play", "card": "J", "row": "blue", "value": 10}, "exchange-needs-card")
    refused(s, {"type": "discard_joker"}, "exchange-needs-card")
    refused(s, {"type": "play", "card": "R9"}, "occupied")
    assert plays(s) == {"Y8"}
    s = arranged(hands, board=("Y9",), jokers=(("yellow", 10),), options=opts)
    s.apply({"type": "exchange", "card": "Y10"})
    refused(s, {"type": "play", "card": "J", "row": "yellow", "value": 8}, "exchange-needs-card")  # the 8's place
    s.apply({"type": "play", "card": "J", "row": "red", "value": 10})
    s.apply({"type": "play", "card": "Y8"})
    assert s.current_player == 0 and legal(s, {"type": "end_turn"})


def test_a_player_who_draws_cannot_exchange() -> None:
    s = arranged([["Y10", "Y8", "G21"], ["G20"]], board=("Y9",), jokers=(("yellow", 10),))
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": "B1"})
    assert s.current_player == 1  # drawing is the whole turn
    assert s.hands[0].cards() == ["B1", "G21", "Y10", "Y8"]


def test_the_exchanged_card_counts_toward_the_four_guess_2() -> None:
    hands = [["Y10", "R10", "R9", "R8", "R7", "G21"], ["G20"]]
    s = arranged(hands, board=("Y9",), jokers=(("yellow", 10),))
    for card in ("R10", "R9", "R8"):
        s.apply({"type": "play", "card": card})
    s.apply({"type": "exchange", "card": "Y10"})  # the fourth card
    assert s.current_player == 1
    s = arranged(hands, board=("Y9",), jokers=(("yellow", 10),), options={"exchange_counts": False})
    for card in ("R10", "R9", "R8", "R7"):
        s.apply({"type": "play", "card": card})
    assert s.current_player == 0 and s.legal_actions() == [{"type": "exchange", "card": "Y10"},
                                                            {"type": "end_turn"}]
    s.apply({"type": "exchange", "card": "Y10"})
    assert s.current_player == 1 and s.hands[0].cards() == ["G21", "J"]


def test_an_exchange_cannot_be_the_last_room_of_the_turn_without_another_card() -> None:
    s = arranged([["Y10", "J", "J", "J", "G21"], ["G20"]], board=("Y9",), jokers=(("yellow", 10),),
                 options={"discard_only_turn": True})
    for _ in range(3):
        s.apply({"type": "discard_joker"})
    assert legal(s, {"type": "exchange", "card": "Y10"})  # three cards already played: the exchange is the 4th
    s.apply({"type": "exchange", "card": "Y10"})
    assert s.current_player == 1


def test_discarding_a_joker_alone_is_a_turn_guess_4() -> None:
    s = arranged([["J", "G21"], ["G20"]])
    s.apply({"type": "discard_joker"})
    assert s.current_player == 1  # a whole turn: nothing more could be done
    s = arranged([["J", "J", "G21"], ["G20"]])
    s.apply({"type": "discard_joker"})
    assert s.current_player == 0 and legal(s, {"type": "end_turn"})
    s = arranged([["J", "G21"], ["G20"]], options={"discard_only_turn": False})
    refused(s, {"type": "discard_joker"}, "discard-only")  # nothing could be placed after it
    s = arranged([["J", "Y10", "G21"], ["G20"]], options={"discard_only_turn": False})
    s.apply({"type": "discard_joker"})
    refused(s, {"type": "end_turn"}, "must-play")
    s.apply({"type": "play", "card": "Y10"})
    assert s.current_player == 1  # nothing else fits: the turn is over


def test_discarding_the_last_card_ends_the_round_guess_5() -> None:
    s = arranged([["J"], ["G20", "J"]])
    s.apply({"type": "discard_joker"})
    assert s.current_player == TERMINAL and s.scores() == [0, -31]
    s = arranged([["J"], ["G20", "J"]], options={"discard_last_ends": False})
    refused(s, {"type": "discard_joker"}, "discard-last")
    s.apply({"type": "play", "card": "J", "row": "green", "value": 10})  # ending with a joker is allowed
    assert s.current_player == TERMINAL and s.winners() == [0]


# --- bonus cards ---------------------------------------------------------------------------


def test_bonus_for_completing_a_half_none_when_its_joker_is_replaced() -> None:
    half = tuple(f"Y{v}" for v in range(2, 11))
    s = arranged([["J", "G21", "G20"], ["Y1", "R10", "B21"]], board=half)
    s.apply({"type": "play", "card": "J", "row": "yellow", "value": 1})
    board = s.view(None)["board"]
    assert board["bonus"] == [1, 0] and board["bonus_supply"] == 6
    assert s.view(None)["bonus_points"] == [11, 0]
    assert s.current_player == 1
    s.apply({"type": "exchange", "card": "Y1"})
    s.apply({"type": "play", "card": "R10"})
    assert s.view(None)["board"]["bonus"] == [1, 0]  # replacing the joker gives no second bonus
    assert row(s, "yellow")["1"] == "Y1"


def test_no_bonus_for_a_half_that_is_not_complete() -> None:
    s = arranged([["Y10", "G21"], ["G20"]], board=tuple(f"Y{v}" for v in range(1, 9)))
    s.apply({"type": "play", "card": "Y10"})
    assert s.view(None)["board"]["bonus"] == [0, 0]  # the yellow 9 is still missing


def eight_halves(options: dict[str, Any] | None = None) -> Any:
    last = ["Y1", "Y21", "R1", "R21", "B1", "B21", "G1", "G21"]
    board = tuple(c for c in NUMBERS if c not in last)
    return arranged([last, ["J", "J"]], board=board, options=options)


@pytest.mark.parametrize(("bonus_cards", "expected"), [(7, 7), (8, 8)])
def test_only_seven_bonus_cards_guess_1(bonus_cards: int, expected: int) -> None:
    s = eight_halves({"bonus_cards": bonus_cards})
    for card in ("Y1", "Y21", "R1", "R21"):
        s.apply({"type": "play", "card": card})
    assert s.current_player == 1 and s.bonus == [4, 0]
    s.apply({"type": "discard_joker"})
    s.apply({"type": "end_turn"})
    for card in ("B1", "B21", "G1", "G21"):
        s.apply({"type": "play", "card": card})
    assert s.is_over
    assert s.bonus == [expected, 0] and s.bonus_supply == 0
    assert s.scores() == [11 * expected, -11]


# --- drawing, passing, end of the round ------------------------------------------------------


def test_drawing_is_allowed_while_the_pile_lasts_even_when_able_to_play() -> None:
    s = dealt([["Y10"], []])
    assert "Y10" in plays(s) and legal(s, {"type": "draw"})
    refused(s, {"type": "pass"}, "must-draw")
    s.apply({"type": "draw"})
    assert s.current_player == CHANCE
    s.apply({"type": "drawn", "card": "Y12"})
    assert s.current_player == 1 and len(s.hands[0]) == 21 and s.pile == 43


def test_must_play_when_the_pile_is_empty() -> None:
    s = arranged([["Y10", "G21"], []], pile_to=1)
    assert s.pile == 0 and not legal(s, {"type": "draw"})
    err = refused(s, {"type": "pass"}, "must-play")
    assert "10 jaune" in err.fr
    refused(s, {"type": "draw"}, "pile-empty")
    s.apply({"type": "play", "card": "Y10"})


def test_a_card_playable_through_a_link_must_be_played_too() -> None:
    s = arranged([["B9", "G21"], []], board=("Y10", "Y9"), pile_to=1)
    err = refused(s, {"type": "pass"}, "must-play")
    assert "9 bleu" in err.fr and "blue 9" in err.en
    s.links_left[:] = [0, 8]  # without a link card of its own the blue 9 does not fit
    assert not s.check_invariants()
    s.apply({"type": "pass"})
    assert s.current_player == 1


def test_a_player_who_can_play_only_a_joker_may_pass() -> None:
    s = arranged([["J", "G21"], []], pile_to=1)
    assert legal(s, {"type": "pass"})
    assert legal(s, {"type": "play", "card": "J", "row": "red", "value": 10})
    s.apply({"type": "pass"})
    assert s.current_player == 1


def test_a_full_circle_of_passes_ends_the_round_guess_6() -> None:
    def blocked(options: dict[str, Any] | None = None) -> Any:
        # Every gap beside the board is filled by a joker whose number card waits in a hand.
        board = tuple(c for c in NUMBERS if c not in ("Y10", "Y1", "R21"))
        s = arranged([["Y10", "Y1"], ["R21", "J"]], board=board,
                     jokers=(("yellow", 10), ("yellow", 1), ("red", 21)), options=options, bonus=[4, 3])
        return s  # the eight halves are complete

    s = blocked()
    assert not s.check_invariants()
    s.apply({"type": "pass"})
    s.apply({"type": "pass"})
    assert s.is_over and s.scores() == [44 - 11, 33 - 32]
    s = blocked({"deadlock_scores": False})
    s.apply({"type": "pass"})
    s.apply({"type": "pass"})
    assert s.is_over and s.scores() == [0, 0]  # a void round
    s = blocked()
    s.apply({"type": "exchange", "card": "Y10"})  # a way out: exchange and throw the joker away
    s.apply({"type": "discard_joker"})
    assert s.current_player == 0 and s.hands[0].cards() == ["Y1"]
    s.apply({"type": "end_turn"})
    s.apply({"type": "pass"})
    assert s.current_player == 0  # the circle of passes starts again


def test_the_round_ends_at_once_when_a_hand_is_empty_even_with_a_joker() -> None:
    s = arranged([["Y10", "J"], ["Y9", "G21"]])
    s.apply({"type": "play", "card": "Y10"})
    s.apply({"type": "play", "card": "J", "row": "yellow", "value": 9})
    assert s.is_over and s.winner == 0 and s.legal_actions() == []
    with pytest.raises(IllegalMove):
        s.apply({"type": "end_turn"})


def test_scoring_bonus_cards_number_cards_and_jokers() -> None:
    half = tuple(f"R{v}" for v in range(12, 21))
    s = arranged([["R21"], ["Y5", "J", "G21"], ["B3", "B1"]], board=half)
    s.apply({"type": "play", "card": "R21"})
    assert s.is_over
    assert s.scores() == [11, -37, -4]  # +11 per bonus; -5 -11 -21; -3 -1
    assert s.winners() == [0]
    assert GAME.info.winner == "highest" and GAME.info.default_rounds(5) == 5


# --- the beginner variant -------------------------------------------------------------------


def test_beginner_variant_has_no_links_jokers_nor_bonuses() -> None:
    s = GAME.new_state(2, "beginner")
    with pytest.raises(IllegalMove) as err:
        s.apply({"type": "deal", "rows": ORDER, "hands": [["J"] + FAR[:19], FAR[19:39]]})
    assert err.value.rule == "beginner"
    s = dealt([["B9", "Y9"], ["Y10"]], variant="beginner", start=1)
    assert s.pile == 40 and s.view(None)["board"]["links_left"] == [0, 0]
    assert s.view(None)["board"]["bonus_supply"] == 0
    s.apply({"type": "play", "card": "Y10"})
    assert s.current_player == 0  # nothing else of seat 2 fits
    refused(s, {"type": "link", "from": "yellow", "to": "blue", "value": 10}, "beginner")
    refused(s, {"type": "discard_joker"}, "beginner")
    refused(s, {"type": "play", "card": "J", "row": "blue", "value": 10}, "beginner")


def test_beginner_variant_half_rows_give_no_bonus_and_scores() -> None:
    half = tuple(f"Y{v}" for v in range(2, 11))
    s = arranged([["Y1"], ["G21", "G3"]], board=half, variant="beginner")
    s.apply({"type": "play", "card": "Y1"})
    assert s.is_over and s.bonus == [0, 0]
    assert s.scores() == [0, -24] and s.winners() == [0]
    s = arranged([["Y1"], ["G21", "G3"]], board=half, variant="beginner", options={"beginner_scores": False})
    s.apply({"type": "play", "card": "Y1"})
    assert s.scores() == [1, 0] and s.winners() == [0]


def test_deal_table() -> None:
    for players, (links, size, pile) in {2: (4, 20, 44), 3: (4, 20, 24), 4: (3, 15, 24), 5: (3, 12, 24),
                                         6: (2, 12, 12)}.items():
        s = GAME.new_state(players)
        s.apply(s.sample_chance(Random(players)))
        view = s.view(None)
        assert view["hand_sizes"] == [size] * players and view["pile"] == pile
        assert view["board"]["links_left"] == [links] * players and view["board"]["bonus_supply"] == 7
        assert len(DECK) == 84 and sorted(r["colour"] for r in view["board"]["rows"]) == sorted(ORDER)


# --- table mode ------------------------------------------------------------------------------


def table_round_with_empty_pile() -> Any:
    s = GAME.new_state(2, table_mode=True)
    s.apply({"type": "deal", "rows": ORDER, "hands": None})
    while s.pile:
        s.apply({"type": "draw"})
        s.apply({"type": "drawn", "card": None})
    return s


def test_table_mode_refutes_a_false_pass_and_confirms_an_honest_one() -> None:
    s = table_round_with_empty_pile()
    assert s.current_player == 0 and [len(h) for h in s.hands] == [42, 42]
    s.apply({"type": "pass"})  # seat 0 says nothing fits ...
    s.apply({"type": "pass"})
    assert s.phase == "reveal"
    # ... but held every card beside the 11s.
    frontier = ["Y10", "Y12", "R10", "R12", "B10", "B12", "G10", "G12"]
    rest = list((Counter(DECK) - Counter(frontier)).elements())
    first = frontier + rest[:34]
    s.apply({"type": "reveal", "seat": 0, "cards": first})
    s.apply({"type": "reveal", "seat": 1, "cards": rest[34:]})
    assert s.is_over
    assert [c.status for c in s.claims] == ["refuted", "confirmed"]
    assert s.scores()[0] == -sum(int(c[1:]) if c != "J" else 11 for c in first)


def test_table_mode_a_card_seen_elsewhere_cannot_come_from_a_hidden_hand() -> None:
    s = GAME.new_state(2, table_mode=True)
    s.apply({"type": "deal", "rows": ORDER, "hands": None})
    s.apply({"type": "play", "card": "Y10"})
    s.apply({"type": "end_turn"})
    refused(s, {"type": "play", "card": "Y10"}, "not-in-hand")
    s.apply({"type": "play", "card": "Y9"})
    s.apply({"type": "play", "card": "J", "row": "yellow", "value": 8})
    s.apply({"type": "play", "card": "J", "row": "yellow", "value": 7})
    s.apply({"type": "play", "card": "J", "row": "yellow", "value": 6})
    s.apply({"type": "play", "card": "J", "row": "yellow", "value": 5})
    assert s.current_player == 0
    refused(s, {"type": "play", "card": "J", "row": "yellow", "value": 4}, "not-in-hand")  # all four are out
    refused(s, {"type": "exchange", "card": "Y9"}, "no-joker-there")


def test_table_mode_lists_every_column_order_for_the_deal() -> None:
    s = GAME.new_state(3, table_mode=True)
    deals = s.legal_actions()
    assert len(deals) == 24 and all(d["hands"] is None for d in deals)
    s.apply(deals[5])
    assert s.view(None)["board"]["rows"][0]["colour"] == deals[5]["rows"][0]


# --- bad input, views, descriptions ---------------------------------------------------------


@pytest.mark.parametrize("action", [
    {"type": "fly"},
    {"type": "play"},
    {"type": "play", "card": "Y22"},
    {"type": "play", "card": "Y11"},
    {"type": "play", "card": 10},
    {"type": "play", "card": "J"},
    {"type": "play", "card": "J", "row": "purple", "value": 10},
    {"type": "play", "card": "J", "row": "red", "value": 0},
    {"type": "play", "card": "J", "row": "red", "value": True},
    {"type": "play", "card": "Y10", "extra": 1},
    {"type": "link", "from": "yellow", "to": "blue"},
    {"type": "exchange"},
    {"type": "draw", "card": "Y10"},
])
def test_malformed_actions_are_refused_without_change(action: dict[str, Any]) -> None:
    s = arranged([["Y10", "J"], ["G21"]])
    before = s.to_json()
    with pytest.raises(MalformedAction):
        s.apply(action)
    assert s.to_json() == before


def test_wrong_player_and_cards_not_in_hand() -> None:
    s = arranged([["Y10", "G21"], ["R10"]])
    before = s.to_json()
    with pytest.raises(IllegalMove) as err:
        s.apply({"type": "play", "card": "Y10", "player": 1})
    assert err.value.rule == "wrong-player" and "joueur 2" in err.value.fr and s.to_json() == before
    refused(s, {"type": "play", "card": "R10"}, "not-in-hand")
    refused(s, {"type": "play", "card": "J", "row": "red", "value": 10}, "not-in-hand")
    refused(s, {"type": "exchange", "card": "R10"}, "no-joker-there")
    refused(s, {"type": "drawn", "card": "R10"}, "not-now")
    s.apply({"type": "play", "card": "Y10", "player": 0})


def test_views_hide_other_hands_and_show_the_board() -> None:
    s = tom_and_vera()
    v = s.view(0)
    assert v["hand"] == s.hands[0].cards() and s.view(None)["hand"] is None
    assert v["scores"] is None and v["winners"] == []
    assert [r["colour"] for r in v["board"]["rows"]] == ORDER
    assert row(s, "yellow") == {"9": "Y9", "10": "Y10", "11": "Y11"}
    assert "Y10" not in str(s.view(1)["hand"]) and "R5" not in str(v)


def test_descriptions_in_both_languages() -> None:
    s = tom_and_vera()
    link = {"type": "link", "from": "yellow", "to": "blue", "value": 9}
    assert s.describe(link, "fr") == "Joueur 1 pose une carte Liaison du 9 jaune vers la rangée bleue"
    assert s.describe(link, "en") == "Player 1 lays a link from the yellow 9 to the blue row"
    joker = {"type": "play", "card": "J", "row": "red", "value": 9}
    assert s.describe(joker, "fr") == "Joueur 1 pose un Joker à la place du 9 rouge"
    assert s.describe(joker, "en") == "Player 1 plays a joker as the red 9"
    assert "Joker" in s.describe({"type": "exchange", "card": "B9"}, "fr")


def test_observed_cards() -> None:
    s = GAME.new_state(2)
    assert s.observed_card({"kind": "number", "value": 21, "color": "green"}) == "G21"
    assert s.observed_card({"kind": "number", "value": 11, "color": "red"}) == "R11"
    assert s.observed_card({"kind": "number", "value": 22, "color": "red"}) is None
    assert s.observed_card({"kind": "joker", "value": None, "color": None}) == "J"
    assert s.observed_card({"kind": "link", "value": None, "color": None}) == "LINK"
    assert GAME.new_state(2, "beginner").observed_card({"kind": "joker", "value": None, "color": None}) is None


def test_invariants_catch_a_broken_state() -> None:
    s = tom_and_vera()
    s.bonus[0] = 1
    assert any("bonus" in e for e in s.check_invariants())
    s = tom_and_vera()
    s.board["red"][5] = 1
    assert s.check_invariants()
    s = tom_and_vera()
    s.links.append(("yellow", "red", 9))
    assert s.check_invariants()


@pytest.mark.parametrize("options", [
    {"exchange_counts": False, "exchange_other_any": False},
    {"discard_only_turn": False, "discard_last_ends": False},
    {"deadlock_scores": False, "bonus_cards": 8},
])
@pytest.mark.parametrize("players", [2, 4, 6])
def test_whole_rounds_with_other_options(options: dict[str, Any], players: int) -> None:
    for seed, policy in ((players, "random"), (players + 10, "greedy")):
        s = GAME.new_state(players, options=options, start_player=seed % players)
        playout(s, seed=seed, policy=policy)
        assert s.is_over

        def make(table_mode: bool, seed: int = seed) -> Any:
            return GAME.new_state(players, options=options, start_player=seed % players, table_mode=table_mode)

        table_twin(make, seed=seed + 100, policy=policy)
