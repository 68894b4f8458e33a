"""Elfer raus! (classic 80-card game): the rule book's examples and the variants (seed 002, RULES.md 3.3-3.5)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from random import Random
from typing import Any

import pytest

from companion import games
from companion.games import CHANCE, TERMINAL, IllegalMove, MalformedAction
from companion.games.elfer_raus import CODE

from .conformance import playout, table_twin

GAME = games.get("elfer-raus")

# Filler cards for the dealt hands, least likely to matter first.
FAR = (1, 20, 2, 19, 3, 18, 4, 17, 5, 16, 6, 15, 7, 14, 8, 13, 9, 12, 10)  # base game: far from the 11s
MIDDLE = (9, 12, 8, 13, 7, 14, 6, 15, 10, 11, 5, 16, 4, 17, 3, 18)  # extremes: far from the 1s and 20s


def new(players: int = 2, variant: str | None = None, *, start: int = 0, table_mode: bool = False,
        **options: Any) -> Any:
    return GAME.new_state(players, variant, options=options, start_player=start, table_mode=table_mode)


def deal(state: Any, hands: Sequence[Iterable[str]], order: Sequence[int] = FAR) -> Any:
    """Deal `hands` to the first seats, filled up (and the other seats dealt) with filler cards
    of the values in `order`; every card not named stays in the draw pile."""
    wanted = [list(h) for h in hands] + [[] for _ in range(state.players - len(hands))]
    taken = {c for h in wanted for c in h} | set(state.laid)
    filler = [CODE[c][v] for v in order for c in state.colours if CODE[c][v] not in taken]
    for h in wanted:
        while len(h) < state.hand_size:
            h.append(filler.pop(0))
    state.apply({"type": "deal", "hands": wanted})
    return state


def opened(hands: Sequence[Iterable[str]], players: int = 2, **options: Any) -> Any:
    """A base game dealt with `hands` and opened by the holder of the highest 11."""
    s = deal(new(players, **options), hands)
    assert s.current_player == CHANCE and s.phase == "open"
    s.apply(s.sample_chance(Random(0)))
    return s


def rig(state: Any, hands: Sequence[Iterable[str]]) -> None:
    """Give each seat exactly these cards; every other card off the table is in the draw pile."""
    held: Counter[str] = Counter()
    for hand, cards in zip(state.hands, hands, strict=True):
        hand.known = Counter(cards)
        hand.unknown = 0
        held.update(cards)
    state.pool = Counter(state.deck) - Counter(state.placed()) - held
    state.pile = sum(state.pool.values())
    assert not state.check_invariants()


def plays(state: Any) -> set[str]:
    return {a["card"] for a in state.legal_actions() if a["type"] == "play"}


def refused(state: Any, action: dict[str, Any], rule: str | None = None) -> IllegalMove:
    before = state.to_json()
    with pytest.raises(IllegalMove) as err:
        state.apply(action)
    assert state.to_json() == before, "a refused action changed the state"
    if rule is not None:
        assert err.value.rule == rule, err.value.en
    return err.value


# --- deal and start ------------------------------------------------------------------------


@pytest.mark.parametrize(("players", "each", "pile"), [(2, 20, 40), (3, 20, 20), (4, 15, 20), (5, 12, 20),
                                                       (6, 10, 20)])
def test_deal_table(players: int, each: int, pile: int) -> None:
    s = new(players)
    s.apply(s.sample_chance(Random(1)))
    assert [len(h) for h in s.hands] == [each] * players
    assert s.pile == pile
    assert not s.check_invariants()


def test_red_11_opens_and_that_is_the_starters_whole_turn() -> None:
    s = deal(new(3), [["Y11", "G11"], ["R11", "R12", "R10"], ["B11"]])
    assert s.legal_actions() == [{"type": "open", "seat": 1, "card": "R11"}]
    refused(s, {"type": "open", "seat": 0, "card": "Y11"}, "open-priority")
    refused(s, {"type": "open", "seat": 0, "card": "R11"}, "not-in-hand")
    refused(s, {"type": "play", "card": "R11"}, "not-now")  # the table opens, not a player action
    s.apply({"type": "open", "seat": 1, "card": "R11"})
    # Player 2 also holds the red 10 and 12, but their turn was only the 11.
    assert s.current_player == 2 and s.phase == "play"
    assert s.hands[1].known["R12"] == 1 and not s.hands[1].known["R11"]
    assert s.board_view()["rows"]["red"] == {"span": [11, 11], "next": [10, 12], "opened_with": 11}


@pytest.mark.parametrize(("hands", "expected"), [
    ([["G11"], ["Y11"], []], {"type": "open", "seat": 1, "card": "Y11"}),  # no red 11 dealt: yellow
    ([["B11"], [], ["G11"]], {"type": "open", "seat": 2, "card": "G11"}),  # then green
    ([[], ["B11"], []], {"type": "open", "seat": 1, "card": "B11"}),  # then blue
])
def test_without_the_red_11_yellow_green_blue_open(hands: list[list[str]], expected: dict[str, Any]) -> None:
    s = deal(new(3), hands)
    assert s.legal_actions() == [expected]
    s.apply(expected)
    assert s.current_player == (expected["seat"] + 1) % 3


def test_no_11_dealt_means_a_new_deal() -> None:
    s = deal(new(3), [[], [], []])  # the filler never deals an 11: all four are in the pile
    assert s.legal_actions() == [{"type": "redeal"}]
    s.apply({"type": "redeal"})
    assert s.phase == "deal" and s.current_player == CHANCE
    assert s.pile == 80 and all(len(h) == 0 for h in s.hands)
    assert not s.check_invariants()
    s.apply(s.sample_chance(Random(5)))
    assert s.phase == "open"


def test_redeal_refused_when_an_11_was_dealt() -> None:
    s = deal(new(2), [["B11"]])
    refused(s, {"type": "redeal"}, "redeal-has-11")


# --- placement (rule book examples) --------------------------------------------------------


def test_only_the_red_10_and_red_12_go_beside_the_red_11() -> None:
    s = opened([["R10", "R12", "R9", "R13", "Y10", "Y12"], ["R11"]])
    assert s.current_player == 0
    assert plays(s) == {"R10", "R12"}
    err = refused(s, {"type": "play", "card": "R13"}, "no-skip")
    assert "13 rouge" in err.fr and "red 12" in err.en


def test_the_yellow_9_cannot_go_beside_the_red_10() -> None:
    s = opened([["R10", "Y9", "R12", "R13"], ["R11"]])
    s.apply({"type": "play", "card": "R10"})
    err = refused(s, {"type": "play", "card": "Y9"}, "one-colour")
    assert "9 jaune" in err.fr and "10 rouge" in err.fr
    assert err.en.startswith("The yellow 9 cannot go beside the red 10: a row holds one colour only.")


def test_the_red_15_cannot_follow_the_red_12() -> None:
    s = opened([["R12", "R15", "R13"], ["R11"]])
    s.apply({"type": "play", "card": "R12"})
    err = refused(s, {"type": "play", "card": "R15"}, "no-skip")
    assert err.fr == "Le 15 rouge ne va pas après le 12 rouge : il faut d'abord le 13 rouge."
    assert err.en == "The red 15 cannot follow the red 12: the red 13 comes first."


def test_a_new_row_opens_only_with_an_11() -> None:
    s = opened([["Y10", "Y12", "Y13", "B11"], ["R11"]])
    assert plays(s) == {"B11"}
    err = refused(s, {"type": "play", "card": "Y13"}, "open-row")
    assert err.en == "The yellow 13 cannot open the yellow row: a new row opens only with an 11."
    assert err.fr == "Le 13 jaune ne peut pas ouvrir la rangée jaune : une nouvelle rangée ne s'ouvre qu'avec un 11."
    err = refused(s, {"type": "play", "card": "Y12"}, "one-colour")  # beside the red 11, yet yellow
    assert "only with an 11" in err.en
    s.apply({"type": "play", "card": "B11"})
    assert s.board_view()["rows"]["blue"]["span"] == [11, 11]


def test_rows_run_down_to_1_and_up_to_20() -> None:
    reds = [f"R{v}" for v in range(1, 21) if v != 11]
    s = opened([reds, ["R11"]])
    for v in (*range(12, 21), *range(10, 0, -1)):
        s.apply({"type": "play", "card": f"R{v}"})
    assert s.board_view()["rows"]["red"] == {"span": [1, 20], "next": [], "opened_with": 11}
    assert s.current_player == 1  # nothing else of the hand fits: the turn ended by itself


# --- turn structure ------------------------------------------------------------------------


def test_must_play_when_able_and_may_hold_back_others() -> None:
    s = opened([["R10", "R12", "R13"], ["R11"]])
    err = refused(s, {"type": "draw"}, "must-play")
    assert "10 rouge" in err.fr and "red 12" in err.en
    refused(s, {"type": "end_turn"}, "must-play")
    s.apply({"type": "play", "card": "R12"})
    assert {a["type"] for a in s.legal_actions()} == {"play", "end_turn"}
    s.apply({"type": "end_turn"})  # holds back the red 10 and red 13
    assert s.current_player == 1
    assert s.hands[0].known["R10"] == 1 and s.hands[0].known["R13"] == 1


def test_up_to_three_draws_then_the_turn_ends() -> None:
    s = opened([[], ["R11"]])
    assert s.legal_actions() == [{"type": "draw"}]
    pile = s.pile
    s.apply({"type": "draw"})
    for n, card in enumerate(("Y8", "B14", "G9")):
        assert s.current_player == CHANCE
        s.apply({"type": "drawn", "card": card})
        if n < 2:
            assert s.phase == "redraw" and s.legal_actions() == [{"type": "draw"}]
            refused(s, {"type": "end_turn"}, "draw-again")
            refused(s, {"type": "play", "card": card}, "draw-again")
            s.apply({"type": "draw"})
    assert s.current_player == 1 and s.phase == "play"
    assert len(s.hands[0]) == 23 and s.pile == pile - 3


def test_a_fitting_drawn_card_is_played_at_once_and_ends_the_turn() -> None:
    s = opened([["R13"], ["R11"]])
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": "Y8"})
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": "R12"})
    assert s.legal_actions() == [{"type": "play", "card": "R12"}]
    refused(s, {"type": "end_turn"}, "play-drawn")
    refused(s, {"type": "draw"}, "play-drawn")
    s.apply({"type": "play", "card": "R12"})
    # The red 13 now fits too, but the turn ended with the drawn card.
    assert s.current_player == 1 and s.hands[0].known["R13"] == 1


def test_pile_empty_and_nothing_playable_passes() -> None:
    s = opened([[], ["R11"]])
    rig(s, [s.hands[0].cards(), sorted(s.hands[1].known.elements()) + sorted(s.pool.elements())])
    assert s.pile == 0
    assert s.legal_actions() == [{"type": "pass"}]
    refused(s, {"type": "draw"}, "pile-empty")
    s.apply({"type": "pass"})
    assert s.current_player == 1 and not s.is_over


def test_the_penalty_example_19_plus_2_is_21() -> None:
    s = opened([[], ["R11"]])
    rig(s, [["R12"], ["Y19", "B2"]])
    s.apply({"type": "play", "card": "R12"})  # the last card: the round is over at once
    assert s.current_player == TERMINAL
    assert s.scores() == [0, 21]
    assert s.winners() == [0]
    assert GAME.info.winner == "lowest" and GAME.info.start_rule == "cards"


def test_a_whole_round_ends_with_an_empty_hand() -> None:
    s = new(4)
    playout(s, seed=3)
    assert s.is_over and len(s.hands[s.winner]) == 0 and s.scores()[s.winner] == 0
    assert sorted(s.scores())[1] > 0


# --- variants ------------------------------------------------------------------------------


def test_extremes_layout_and_deal() -> None:
    s = deal(new(2, "extremes"), [], MIDDLE)
    assert s.pile == 72 - 40
    rows = s.board_view()["rows"]
    assert rows["red"] == {"up": [1, 1], "down": [20, 20], "next": [2, 19]}
    assert s.current_player == 0  # the start player (the youngest) begins
    s4 = new(4, "extremes", start=2)
    s4.apply(s4.sample_chance(Random(2)))
    assert s4.pile == 72 - 60 and s4.current_player == 2


def test_extremes_the_11_needs_the_10_or_the_12() -> None:
    low = [f"R{v}" for v in range(2, 11)]
    s = deal(new(2, "extremes"), [[*low, "R11", "R19"]], MIDDLE)
    assert plays(s) == {"R2", "R19"}
    err = refused(s, {"type": "play", "card": "R11"}, "no-skip")
    assert "2 rouge" in err.fr and "red 19" in err.en
    for card in low:
        s.apply({"type": "play", "card": card})
    assert "R11" in plays(s)
    s.apply({"type": "play", "card": "R11"})
    assert s.board_view()["rows"]["red"]["up"] == [1, 11]


def test_extremes_the_11_after_the_12_and_a_complete_row() -> None:
    high = [f"R{v}" for v in range(19, 11, -1)]
    low = [f"R{v}" for v in range(2, 11)]
    s = deal(new(2, "extremes"), [[*high, *low, "R11"]], MIDDLE)
    for card in high:
        s.apply({"type": "play", "card": card})
    assert "R11" in plays(s)
    s.apply({"type": "play", "card": "R11"})
    for card in low:
        s.apply({"type": "play", "card": card})
    assert s.board_view()["rows"]["red"] == {"up": [1, 10], "down": [11, 20], "next": []}
    assert not any(c.startswith("R") for c in s.fitting())


def test_extremes_deal_option_keeps_the_base_pile() -> None:
    s = new(4, "extremes", extremes_deal="pile")
    s.apply(s.sample_chance(Random(1)))
    assert [len(h) for h in s.hands] == [13] * 4 and s.pile == 20
    s2 = new(2, "extremes", extremes_deal="pile")
    s2.apply(s2.sample_chance(Random(1)))
    assert [len(h) for h in s2.hands] == [16, 16] and s2.pile == 40
    s3 = new(2, "extremes", two_player_colours=3)
    s3.apply(s3.sample_chance(Random(1)))
    assert [len(h) for h in s3.hands] == [20, 20] and s3.pile == 54 - 40
    s4 = new(2, "extremes", two_player_colours=3, extremes_deal="pile")
    s4.apply(s4.sample_chance(Random(1)))
    assert [len(h) for h in s4.hands] == [17, 17] and s4.pile == 20


def test_three_openings_rows_open_with_different_values() -> None:
    s = deal(new(2, "three-openings"), [["B10", "Y12", "R11", "G13", "B9", "Y13", "Y11"]])
    assert s.current_player == 0 and s.phase == "play"  # the start player opens, no table event
    assert plays(s) == {"B10", "Y12", "Y11", "R11"}
    err = refused(s, {"type": "play", "card": "G13"}, "open-row")
    assert "10, 11 or 12" in err.en and "10, un 11 ou un 12" in err.fr
    s.apply({"type": "play", "card": "B10"})  # the opening card is a normal play (GUESS default)
    assert s.current_player == 0
    s.apply({"type": "play", "card": "Y12"})  # another value opens another row
    s.apply({"type": "play", "card": "R11"})
    s.apply({"type": "play", "card": "B9"})
    s.apply({"type": "play", "card": "Y11"})  # the yellow 11 is now an ordinary card beside the 12
    rows = s.board_view()["rows"]
    assert rows["blue"]["span"] == [9, 10] and rows["blue"]["opened_with"] == 10
    assert rows["yellow"]["span"] == [11, 12] and rows["yellow"]["opened_with"] == 12
    assert rows["red"]["opened_with"] == 11


def test_three_openings_opening_turn_only_option() -> None:
    s = deal(new(2, "three-openings", opening_card_only=True), [["B10", "Y12", "B9"]])
    s.apply({"type": "play", "card": "B10"})
    assert s.current_player == 1  # the first turn was only the opening card
    assert s.hands[0].known["B9"] == 1


def test_three_openings_start_player_without_an_opener_draws() -> None:
    s = deal(new(2, "three-openings", start=1), [[], []])  # the filler holds no 10, 11 or 12
    assert s.current_player == 1 and s.legal_actions() == [{"type": "draw"}]
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": "G12"})
    assert s.legal_actions() == [{"type": "play", "card": "G12"}]
    s.apply({"type": "play", "card": "G12"})
    assert s.current_player == 0 and s.board_view()["rows"]["green"]["span"] == [12, 12]


def test_free_opening_every_row_opens_with_the_starting_value() -> None:
    s = deal(new(2, "free-opening"), [["R7", "Y7", "G11", "Y8", "R6"], ["B7", "B13"]])
    assert s.phase == "choose_start" and s.current_player == CHANCE
    assert s.legal_actions() == [{"type": "choose_start", "seat": i} for i in range(2)]
    s.apply({"type": "choose_start", "seat": 0})
    assert {"R7", "Y7", "G11", "Y8", "R6"} <= plays(s)  # any card may open the game
    s.apply({"type": "play", "card": "R7"})
    assert s.v0 == 7 and s.board_view()["v0"] == 7
    assert plays(s) == {"Y7", "R6"}  # the green 11 is an ordinary card now
    err = refused(s, {"type": "play", "card": "G11"}, "open-row")
    assert "7" in err.en and "7" in err.fr
    refused(s, {"type": "play", "card": "Y8"}, "one-colour")  # beside the red 7, but yellow
    s.apply({"type": "play", "card": "Y7"})
    s.apply({"type": "play", "card": "Y8"})
    s.apply({"type": "end_turn"})
    s.apply({"type": "play", "card": "B7"})
    assert {c: r["opened_with"] for c, r in s.board_view()["rows"].items()} == {
        "yellow": 7, "red": 7, "blue": 7, "green": None}


def test_free_opening_with_11_keeps_the_11_as_opener() -> None:
    s = deal(new(2, "free-opening", opening_card_only=True), [["G11", "Y11"]])
    s.apply({"type": "choose_start", "seat": 0})
    s.apply({"type": "play", "card": "G11"})
    assert s.current_player == 1  # option: the first turn is only the opening card
    assert s.board_view()["opening"] == [11]
    assert {"Y11", "R11", "B11"} & set(s.fitting()) == {"Y11", "R11", "B11"}


def test_free_opening_start_player_is_drawn_in_simulation() -> None:
    starts = set()
    for seed in range(20):
        s = new(3, "free-opening")
        s.apply(s.sample_chance(Random(seed)))
        s.apply(s.sample_chance(Random(seed)))
        starts.add(s.current_player)
    assert starts == {0, 1, 2}


# --- the two-player 60-card game -----------------------------------------------------------


def test_two_player_60_card_game() -> None:
    s = new(2, two_player_colours=3)
    assert len(s.deck) == 60 and not any(c.startswith("B") for c in s.deck)  # GUESS: blue goes back in the box
    deal(s, [[], ["Y11"]])
    assert s.pile == 20  # GUESS: 20 cards each
    assert s.legal_actions() == [{"type": "open", "seat": 1, "card": "Y11"}]
    s.apply({"type": "open", "seat": 1, "card": "Y11"})
    with pytest.raises(MalformedAction):
        s.apply({"type": "play", "card": "B11"})
    with pytest.raises(ValueError):
        new(3, two_player_colours=3)


def test_two_player_60_card_options() -> None:
    s = new(2, two_player_colours=3, removed_colour="red", short_deck_hand=15)
    assert "B11" in s.deck and "R11" not in s.deck
    deal(s, [["G11"], ["Y11"]])
    assert s.pile == 30
    assert s.legal_actions() == [{"type": "open", "seat": 1, "card": "Y11"}]  # no red: yellow first
    assert s.observed_card({"kind": "number", "value": 5, "color": "red"}) is None


# --- table mode ----------------------------------------------------------------------------


def table_open(seat: int, card: str) -> Any:
    s = new(2, table_mode=True)
    s.apply({"type": "deal", "hands": None})
    assert [len(h) for h in s.hands] == [20, 20]
    assert {"type": "open", "seat": seat, "card": card} in s.legal_actions()
    assert {"type": "redeal"} in s.legal_actions()
    s.apply({"type": "open", "seat": seat, "card": card})
    return s


def draw_three_and_stop(s: Any) -> None:
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": None})
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": None})
    refused(s, {"type": "end_turn"}, "draw-again")
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": None})
    assert {"type": "draw"} not in s.legal_actions()
    s.apply({"type": "end_turn"})


def empty_reds(s: Any) -> None:
    for v in (*range(12, 21), *range(10, 0, -1)):
        s.apply({"type": "play", "card": f"R{v}"})


OTHERS = [CODE[c][v] for c in ("yellow", "blue", "green") for v in range(1, 21) if v != 11]


@pytest.mark.parametrize(("shown", "earlier", "last"), [
    # The yellow 11 may have been one of the three hidden draws, until the last claim.
    (["Y11", *OTHERS[:22]], "unverifiable", "refuted"),
    # Nothing playable among all the cards the hand held since: every claim was true.
    (OTHERS[:23], "confirmed", "confirmed"),
])
def test_table_mode_draw_claims_are_checked_at_the_reveal(shown: list[str], earlier: str, last: str) -> None:
    s = table_open(0, "R11")
    assert plays(s) == {"R10", "R12", "Y11", "B11", "G11"}  # any card the hidden hand could hold
    draw_three_and_stop(s)
    empty_reds(s)  # player 1 plays their 19 hidden cards: all the other reds
    assert s.phase == "reveal" and s.current_player == CHANCE and s.revealed == [True, False]
    s.apply({"type": "reveal", "seat": 1, "cards": shown})
    assert s.is_over
    assert [c.status for c in s.claims] == [earlier] * 3 + [last]
    assert s.scores()[0] == 0 and s.scores()[1] == sum(int(c[1:]) for c in shown)


def test_table_mode_a_false_opening_claim_is_refuted() -> None:
    s = table_open(1, "Y11")  # the yellow 11 opens: nobody says they hold the red 11
    assert len(s.claims) == 2 and all(c.playable == ["R11"] for c in s.claims)
    for v in (*range(12, 21), *range(10, 0, -1)):
        s.apply({"type": "play", "card": f"Y{v}"})
    s.apply({"type": "play", "card": "R11"})  # ... yet player 1 held it all along
    assert s.phase == "reveal"
    s.apply({"type": "reveal", "seat": 1, "cards": OTHERS[20:39]})
    assert [c.status for c in s.claims] == ["refuted", "confirmed"]


def test_table_mode_a_card_seen_elsewhere_cannot_be_played() -> None:
    s = table_open(1, "R11")
    s.apply({"type": "play", "card": "R12"})
    s.apply({"type": "end_turn"})
    refused(s, {"type": "play", "card": "R12"}, "not-in-hand")  # there is only one red 12
    s.apply({"type": "play", "card": "R13"})


@pytest.mark.parametrize("deadlock_end", [True, False])
def test_deadlock_option_ends_the_round_after_a_circle_of_passes(deadlock_end: bool) -> None:
    s = GAME.new_state(2, table_mode=True, options={"deadlock_end": deadlock_end})
    s.apply({"type": "deal", "hands": None})
    s.apply({"type": "open", "seat": 0, "card": "R11"})
    while s.pile:
        s.apply({"type": "draw"})
        s.apply({"type": "drawn", "card": None})
        while s.pile and {"type": "draw"} in s.legal_actions():
            s.apply({"type": "draw"})
            s.apply({"type": "drawn", "card": None})
        if s.current_player >= 0 and s.phase == "after_draw":
            s.apply({"type": "end_turn"})
    if s.phase == "after_draw":
        s.apply({"type": "end_turn"})
    assert {"type": "pass"} in s.legal_actions()
    s.apply({"type": "pass"})
    s.apply({"type": "pass"})
    if deadlock_end:
        assert s.phase == "reveal"
    else:
        assert s.phase == "play" and {"type": "pass"} in s.legal_actions()


@pytest.mark.parametrize("variant", [None, "extremes", "three-openings", "free-opening"])
def test_table_twin_with_the_60_card_game(variant: str | None) -> None:
    def make(table_mode: bool) -> Any:
        return GAME.new_state(2, variant, options={"two_player_colours": 3, "opening_card_only": True},
                              table_mode=table_mode)
    table_twin(make, seed=7)


# --- input checks, views, invariants --------------------------------------------------------


def test_bad_input_is_refused_and_changes_nothing() -> None:
    s = opened([["R12"], ["R11"]])
    err = refused(s, {"type": "play", "card": "R12", "player": 1}, "wrong-player")
    assert "2" in err.en
    for bad in ({"type": "play"}, {"type": "play", "card": "R21"}, {"type": "play", "card": "Z5"},
                {"type": "play", "card": 12}, {"type": "play", "card": "R012"}, {"type": "fly"},
                {"type": "play", "card": True}, {"card": "R12"}):
        before = s.to_json()
        with pytest.raises(MalformedAction):
            s.apply(bad)
        assert s.to_json() == before
    refused(s, {"type": "drawn", "card": "R5"}, "not-now")
    refused(s, {"type": "play", "card": "R14"}, "not-in-hand")
    refused(s, {"type": "pass"}, "must-draw")


def test_bad_deals_are_refused() -> None:
    s = new(2)
    with pytest.raises(MalformedAction):
        s.apply({"type": "deal", "hands": None})  # simulation needs the cards
    with pytest.raises(MalformedAction):
        s.apply({"type": "deal", "hands": [["R1"] * 20, ["R2"] * 20]})
    with pytest.raises(MalformedAction):
        s.apply({"type": "deal", "hands": [["R1"]]})
    assert s.phase == "deal" and s.pile == 80


def test_view_hides_other_hands_and_shows_the_board() -> None:
    s = opened([["R12"], ["R11"]])
    view = s.view(0)
    assert view["hand"] == s.hands[0].cards() and s.view(None)["hand"] is None
    assert view["scores"] is None and view["pile"] == 40 and view["hand_sizes"] == [20, 19]
    assert view["board"]["rows"]["red"]["span"] == [11, 11]
    assert view["board"]["rows"]["yellow"] == {"span": None, "next": [11], "opened_with": None}
    assert "R12" not in str(s.view(1)["hand"])


def test_invariants_catch_a_card_in_two_places() -> None:
    s = opened([["R12"], ["R11"]])
    s.hands[1].known["R12"] += 1
    assert any("exactly one place" in e for e in s.check_invariants())
    s2 = opened([["R12"], ["R11"]])
    s2.low["red"] = 13
    assert any("row red" in e for e in s2.check_invariants())


def test_describe_and_observed_card() -> None:
    s = deal(new(2), [[], ["R11"]])
    assert s.describe({"type": "open", "seat": 1, "card": "R11"}, "en") == "Player 2 opens the game with the red 11"
    assert s.describe({"type": "open", "seat": 1, "card": "R11"}, "fr") == "Joueur 2 ouvre la partie avec le 11 rouge"
    assert "redistribue" in s.describe({"type": "redeal"}, "fr")
    assert s.observed_card({"kind": "number", "value": 20, "color": "red"}) == "R20"
    assert s.observed_card({"kind": "number", "value": 21, "color": "red"}) is None
