"""Elfer raus! Junior: the rule book's examples (seed 002, RULES.md 3.2)."""

from __future__ import annotations

import pytest

from companion import games
from companion.games import CHANCE, TERMINAL, IllegalMove

from .conformance import playout

GAME = games.get("elfer-raus-junior")


def dealt(hands: list[list[str]], start: int = 0, table_mode: bool = False) -> games.State:
    state = GAME.new_state(len(hands), start_player=start, table_mode=table_mode)
    state.apply({"type": "deal", "hands": hands})
    return state


def test_the_yellow_4_does_not_go_beside_the_1() -> None:
    s = dealt([["Y4", "Y2", "R10", "R9", "B5"], ["G5", "G6", "G7", "G8", "B6"]])
    with pytest.raises(IllegalMove) as err:
        s.apply({"type": "play", "card": "Y4"})
    assert err.value.rule == "does-not-fit"
    assert "4 jaune" in err.value.fr and "yellow 4" in err.value.en
    s.apply({"type": "play", "card": "Y2"})  # a 1 is followed by a 2
    with pytest.raises(IllegalMove):
        s.apply({"type": "play", "card": "Y4"})  # still a gap at 3


def test_only_the_red_10_goes_beside_the_red_11() -> None:
    s = dealt([["R9", "R10", "Y9", "B5", "G7"], ["G5", "G6", "G8", "B6", "B7"]])
    legal = {a["card"] for a in s.legal_actions() if a["type"] == "play"}
    assert legal == {"R10"}  # not the red 9, not the yellow 9 beside the red 10
    s.apply({"type": "play", "card": "R10"})
    assert {a["card"] for a in s.legal_actions() if a["type"] == "play"} == {"R9"}
    with pytest.raises(IllegalMove):
        s.apply({"type": "play", "card": "Y9"})  # another colour never joins a row


def test_must_play_when_able_and_may_play_several() -> None:
    s = dealt([["Y2", "Y3", "Y4", "B9", "G5"], ["G6", "G7", "G8", "B6", "B7"]])
    with pytest.raises(IllegalMove) as err:
        s.apply({"type": "draw"})
    assert err.value.rule == "must-play"
    s.apply({"type": "play", "card": "Y2"})
    # More cards fit: the player may go on or stop.
    assert {a["type"] for a in s.legal_actions()} == {"play", "end_turn"}
    for card in ("Y3", "Y4"):
        s.apply({"type": "play", "card": card})
    # Nothing else in the hand fits (blue 9 and green 5 have no neighbour): the turn ends.
    assert s.current_player == 1


def test_a_drawn_card_that_fits_is_played_at_once_and_ends_the_turn() -> None:
    s = dealt([["Y5", "Y6", "Y7", "B5", "G5"], ["G6", "G7", "G8", "B6", "B7"]])
    s.apply({"type": "draw"})
    assert s.current_player == CHANCE
    s.apply({"type": "drawn", "card": "R10"})
    assert s.legal_actions() == [{"type": "play", "card": "R10"}]
    with pytest.raises(IllegalMove):
        s.apply({"type": "end_turn"})
    s.apply({"type": "play", "card": "R10"})
    assert s.current_player == 1  # the turn ends after the drawn card


def test_a_drawn_card_that_does_not_fit_ends_the_turn() -> None:
    s = dealt([["Y5", "Y6", "Y7", "B5", "G5"], ["G6", "G7", "G8", "B6", "B7"]])
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": "R5"})
    assert s.current_player == 1
    assert len(s.hands[0]) == 6


def test_scoring_example_16_8_12_0() -> None:
    # Tessa 9+5+2, Hannah 8, the third 4+5+3, Paul plays his last card and scores nothing.
    s = GAME.new_state(4)
    s.apply({"type": "deal", "hands": [
        ["Y9", "B5", "G2", "R6", "R7"],
        ["B8", "R8", "R9", "Y6", "Y7"],
        ["Y4", "G5", "R3", "B6", "B7"],
        ["Y10", "G10", "G9", "B10", "B9"],
    ]})
    s.hands[0].known.subtract({"R6": 1, "R7": 1})  # keep the example's hands small
    s.hands[1].known.subtract({"R8": 1, "R9": 1, "Y6": 1, "Y7": 1})
    s.hands[2].known.subtract({"B6": 1, "B7": 1})
    s.hands[3].known.subtract({"G10": 1, "G9": 1, "B10": 1, "B9": 1})
    for h in s.hands:
        h.known = +h.known
    s.pool.update(["R6", "R7", "R8", "R9", "Y6", "Y7", "B6", "B7", "G10", "G9", "B10", "B9"])
    s.pile += 12
    s.player = s.current_player = 3
    s.apply({"type": "play", "card": "Y10"})  # Paul's last card
    assert s.current_player == TERMINAL
    assert s.scores() == [16, 8, 12, 0]
    assert s.winners() == [3]


def test_table_mode_refutes_a_false_claim_at_the_reveal() -> None:
    s = GAME.new_state(2, table_mode=True)
    s.apply({"type": "deal", "hands": None})
    assert [len(h) for h in s.hands] == [5, 5]
    # Player 1 says they cannot play and draws, though (as the reveal shows) they held the red 10
    # and the green 10: one of them may be the drawn card, not both.
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": None})
    s.apply({"type": "end_turn"})
    # Player 2 plays all five of their cards.
    for card in ("Y2", "Y3", "Y4", "Y5", "Y6"):
        s.apply({"type": "play", "card": card})
    assert s.current_player == CHANCE and s.phase == "reveal"
    s.apply({"type": "reveal", "seat": 0, "cards": ["R10", "G10", "B5", "B6", "G5", "G6"]})
    assert s.is_over
    assert [c.status for c in s.claims] == ["refuted", "refuted"]
    assert s.scores() == [42, 0]


def test_table_mode_confirms_an_honest_claim() -> None:
    s = GAME.new_state(2, table_mode=True)
    s.apply({"type": "deal", "hands": None})
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": None})
    s.apply({"type": "end_turn"})
    for card in ("Y2", "Y3", "Y4", "Y5", "Y6"):
        s.apply({"type": "play", "card": card})
    s.apply({"type": "reveal", "seat": 0, "cards": ["R5", "B5", "B6", "G5", "G6", "G7"]})
    # Nothing the hand held since the first claim (the drawn card included) fitted: both true.
    assert [c.status for c in s.claims] == ["confirmed", "confirmed"]


def test_table_mode_rejects_a_card_seen_elsewhere() -> None:
    s = GAME.new_state(2, table_mode=True)
    s.apply({"type": "deal", "hands": None})
    s.apply({"type": "play", "card": "Y2"})
    s.apply({"type": "end_turn"})
    with pytest.raises(IllegalMove):
        s.apply({"type": "play", "card": "Y2"})  # there is only one yellow 2


def test_a_whole_round_ends_with_an_empty_hand() -> None:
    s = GAME.new_state(3)
    playout(s, seed=11)
    assert s.is_over and min(len(h) for h in s.hands) == 0
    assert s.scores()[s.winner] == 0
