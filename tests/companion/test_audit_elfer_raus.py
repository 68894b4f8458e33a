"""Elfer raus! (classic game and its variants): an independent referee's audit.

Seed 002 (second part), RULES.md 3.3-3.5. An oracle written from the rule book alone keeps
its own rows (plain sets of values), hands and draw pile and plays whole rounds beside the
engine, checking every decision and every change of turn: who opens (red, yellow, green,
blue 11), the opener's turn being only that 11, must-play, drawing up to three cards with
the first fitting one played at once, passing on an empty pile, the end of the round and
the penalty points. Targeted positions probe the rule book's examples and the variants.
"""

from __future__ import annotations

from collections import Counter
from random import Random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion import games
from companion.games import CHANCE, IllegalMove

GAME = games.get("elfer-raus")
PRIORITY = ("red", "yellow", "green", "blue")
LETTER = {"yellow": "Y", "red": "R", "blue": "B", "green": "G"}
COLOUR = {v: k for k, v in LETTER.items()}


def card(colour: str, value: int) -> str:
    return f"{LETTER[colour]}{value}"


def parse(c: str) -> tuple[str, int]:
    return COLOUR[c[0]], int(c[1:])


class Oracle:
    """The classic game from the rule book: rows are the sets of values laid per colour."""

    def __init__(self, state: Any) -> None:
        self.variant = state.variant
        self.players = state.players
        self.colours = state.colours
        self.rows: dict[str, set[int]] = {c: ({1, 20} if self.variant == "extremes" else set()) for c in self.colours}
        self.hands = [Counter(h.known) for h in state.hands]
        self.pile = state.pile
        self.v0: int | None = None
        self.player = state.player
        self.phase = "play"
        self.played = self.draws = 0
        self.drawn: str | None = None
        self.passes = 0
        self.over = False

    def fit(self) -> set[str]:
        out = set()
        for c, row in self.rows.items():
            if self.variant == "extremes":
                up, down = 1, 20
                while up + 1 in row:
                    up += 1
                while down - 1 in row:
                    down -= 1
                out |= {card(c, v) for v in (up + 1, down - 1) if up < v < down}
            elif not row:
                if self.variant == "three-openings":
                    openers = {10, 11, 12}
                elif self.variant == "free-opening":
                    openers = {self.v0} if self.v0 else set(range(1, 21))
                else:
                    openers = {11}
                out |= {card(c, v) for v in openers}
            else:
                assert row == set(range(min(row), max(row) + 1)), "a row has a gap"
                out |= {card(c, v) for v in (min(row) - 1, max(row) + 1) if 1 <= v <= 20}
        return out

    def playable(self) -> set[str]:
        return {c for c in self.hands[self.player] if c in self.fit()}

    def legal(self) -> set[str]:
        """Plays as card codes, other actions by type."""
        if self.phase == "after_draw":
            return {self.drawn or ""}
        if self.phase == "redraw":
            return {"draw"}
        out = self.playable()
        if self.played:
            return out | {"end_turn"}
        if not out:
            out = {"draw" if self.pile else "pass"}
        return out

    def lay(self, c: str) -> None:
        colour, v = parse(c)
        if self.variant == "free-opening" and self.v0 is None:
            self.v0 = v
        self.rows[colour].add(v)
        self.hands[self.player][c] -= 1
        self.hands[self.player] = +self.hands[self.player]

    def open_with(self, seat: int, c: str) -> None:
        self.player = seat
        self.lay(c)
        self.next_turn()  # the opening 11 is the opener's whole turn

    def play(self, c: str) -> None:
        self.lay(c)
        self.played += 1
        self.passes = 0
        if not sum(self.hands[self.player].values()):
            self.over = True
        elif self.phase == "after_draw" or not self.playable():
            self.next_turn()

    def draw(self) -> None:
        self.draws += 1
        self.passes = 0

    def drawn_card(self, c: str) -> None:
        self.hands[self.player][c] += 1
        self.pile -= 1
        if c in self.fit():
            self.phase, self.drawn = "after_draw", c
        elif self.draws < 3 and self.pile:
            self.phase = "redraw"
        else:
            self.next_turn()

    def pass_turn(self) -> None:
        self.passes += 1
        if self.passes >= self.players:
            self.over = True
        else:
            self.next_turn()

    def next_turn(self) -> None:
        self.player = (self.player + 1) % self.players
        self.phase, self.played, self.draws, self.drawn = "play", 0, 0, None

    def score(self) -> list[int]:
        return [sum(parse(c)[1] * n for c, n in h.items()) for h in self.hands]


def expected_opener(hands: list[Counter[str]], colours: tuple[str, ...]) -> tuple[int, str] | None:
    for colour in PRIORITY:
        if colour in colours:
            for seat, h in enumerate(hands):
                if h[card(colour, 11)]:
                    return seat, card(colour, 11)
    return None


def play_with_oracle(players: int, variant: str | None, seed: int, **options: Any) -> Any:
    rng = Random(seed)
    s = GAME.new_state(players, variant, start_player=seed % players, options=options or None)
    o: Oracle | None = None
    while not s.is_over:
        if s.current_player == CHANCE:
            action = s.sample_chance(rng)
            if action["type"] == "deal":
                s.apply(action)
                o = Oracle(s)
                if variant is None:
                    found = expected_opener(o.hands, s.colours)
                    listed = s.legal_actions()
                    if found is None:
                        assert listed == [{"type": "redeal"}]
                    else:
                        assert listed == [{"type": "open", "seat": found[0], "card": found[1]}]
                continue
            s.apply(action)
            assert o is not None
            if action["type"] == "redeal":  # nobody held an 11: shuffle and deal again
                assert s.phase == "deal" and s.pile == len(s.deck)
                o = None
                continue
            if action["type"] == "open":
                o.open_with(action["seat"], action["card"])
            elif action["type"] == "choose_start":
                o.player = action["seat"]
            elif action["type"] == "drawn":
                o.drawn_card(action["card"])
        else:
            assert o is not None and s.current_player == o.player, (s.current_player, o.player)
            legal = s.legal_actions()
            got = {a["card"] if a["type"] == "play" else a["type"] for a in legal}
            assert got == o.legal(), (o.phase, o.rows)
            action = rng.choice(legal)
            s.apply(action)
            kind = action["type"]
            if kind == "play":
                o.play(action["card"])
            elif kind == "draw":
                o.draw()
            elif kind == "pass":
                o.pass_turn()
            else:
                o.next_turn()
        if o is not None:
            assert Counter(s.placed()) == Counter(card(c, v) for c, row in o.rows.items() for v in row)
            assert [Counter(h.known) for h in s.hands] == o.hands
            assert s.pile == o.pile
            assert s.is_over == o.over
    assert o is not None
    assert s.scores() == o.score()
    assert all(sum(h.values()) == 0 for h in o.hands if s.winner is not None and h is o.hands[s.winner])
    return s


VARIANTS = [None, "extremes", "three-openings", "free-opening"]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(players=st.integers(2, 6), variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6))
def test_whole_rounds_follow_the_rule_book(players: int, variant: str | None, seed: int) -> None:
    play_with_oracle(players, variant, seed)


@settings(max_examples=10, deadline=None, derandomize=True)
@given(variant=st.sampled_from(VARIANTS), seed=st.integers(0, 10**6))
def test_whole_rounds_of_the_60_card_two_player_game(variant: str | None, seed: int) -> None:
    s = play_with_oracle(2, variant, seed, two_player_colours=3)
    assert "blue" not in s.colours and len(s.deck) == 60


# --- positions ---------------------------------------------------------------------------


def rigged(hands: list[list[str]], rows: dict[str, tuple[int, int]], variant: str | None = None, player: int = 0,
           pile_cards: list[str] | None = None, **options: Any) -> Any:
    """A round in play: these hands, rows low..high (extremes: up-chain top, down-chain bottom), the
    draw pile holding `pile_cards` (default: every other card)."""
    s = GAME.new_state(len(hands), variant, options=options or None)
    for c in s.colours:
        lo, hi = rows.get(c, (1, 20) if variant == "extremes" else (0, 0))
        s.low[c], s.high[c] = lo, hi
        if variant != "extremes" and lo:
            s.start[c] = 11 if lo <= 11 <= hi else lo
            if variant == "free-opening":
                s.v0 = s.start[c]
    for hand, cards in zip(s.hands, hands, strict=True):
        hand.known = Counter(cards)
    rest = Counter(s.deck) - Counter(s.placed()) - sum((Counter(h) for h in hands), Counter())
    if pile_cards is not None:
        extra = rest - Counter(pile_cards)
        s.hands[-1].known.update(extra)  # park the others in the last hand
        rest = Counter(pile_cards)
    s.pool = rest
    s.pile = sum(rest.values())
    s._refresh()
    s._start_turn(player)
    assert not s.check_invariants(), s.check_invariants()
    return s


def plays(s: Any) -> set[str]:
    return {a["card"] for a in s.legal_actions() if a["type"] == "play"}


def refused(s: Any, action: dict[str, Any], rule: str | None = None) -> IllegalMove:
    before = s.to_json()
    with pytest.raises(IllegalMove) as err:
        s.apply(action)
    assert s.to_json() == before
    if rule:
        assert err.value.rule == rule, err.value.en
    return err.value


def test_only_the_red_10_and_12_go_next_to_the_red_11() -> None:
    s = rigged([["R10", "R12", "R13", "Y10", "R9"], ["G5"]], {"red": (11, 11), "yellow": (11, 11)})
    assert plays(s) == {"R10", "R12", "Y10"}
    err = refused(s, {"type": "play", "card": "R13"}, "no-skip")
    assert "13 rouge" in err.fr and "12 rouge" in err.fr and "red 12" in err.en


def test_the_yellow_9_never_goes_next_to_the_red_10() -> None:
    s = rigged([["Y9", "B3"], ["G5"]], {"red": (10, 11), "yellow": (11, 12)})
    err = refused(s, {"type": "play", "card": "Y9"})
    assert "9 jaune" in err.fr and "yellow 9" in err.en


def test_red_15_cannot_follow_red_12() -> None:
    s = rigged([["R15", "B3"], ["G5"]], {"red": (11, 12)})
    err = refused(s, {"type": "play", "card": "R15"}, "no-skip")
    assert "15 rouge" in err.fr and "13 rouge" in err.fr
    assert "red 15" in err.en and "red 13" in err.en


def test_a_new_row_opens_only_with_an_11() -> None:
    s = rigged([["B10", "B11", "G3"], ["G5"]], {"red": (11, 11)})
    assert plays(s) == {"B11"}
    err = refused(s, {"type": "play", "card": "B10"})
    assert "ne s'ouvre qu'avec un 11" in err.fr and "opens only with an 11" in err.en


def test_the_first_fitting_drawn_card_is_played_and_ends_the_turn_even_if_more_would_fit() -> None:
    # The drawn red 10 fits; after it the red 9 in hand would fit too, but the turn is over.
    s = rigged([["R9", "B3"], ["G5"]], {"red": (11, 11)}, pile_cards=["Y2", "R10", "G19"])
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": "R10"})
    assert s.legal_actions() == [{"type": "play", "card": "R10"}]
    refused(s, {"type": "play", "card": "R9"}, "play-drawn")
    refused(s, {"type": "end_turn"}, "play-drawn")
    s.apply({"type": "play", "card": "R10"})
    assert s.current_player == 1 and s.hands[0].known["R9"] == 1


def test_at_most_three_cards_are_drawn_then_the_turn_ends() -> None:
    s = rigged([["B3"], ["G5"]], {"red": (11, 11)}, pile_cards=["Y2", "G19", "Y18", "R10"])
    for i, c in enumerate(("Y2", "G19", "Y18")):
        assert s.legal_actions() == [{"type": "draw"}]
        s.apply({"type": "draw"})
        s.apply({"type": "drawn", "card": c})
        if i < 2:
            assert s.current_player == 0 and s.phase == "redraw"
            refused(s, {"type": "end_turn"})
    assert s.current_player == 1 and len(s.hands[0]) == 4 and s.pile == 1


def test_the_draw_pile_running_out_ends_the_drawing_and_then_means_pass() -> None:
    s = rigged([["B3"], ["G5"], []], {"red": (11, 11)}, pile_cards=["Y2"])  # the rest: seat 2
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": "Y2"})
    assert s.current_player == 1 and s.pile == 0
    assert s.legal_actions() == [{"type": "pass"}]
    refused(s, {"type": "draw"})
    s.apply({"type": "pass"})
    assert s.current_player == 2


def test_must_play_when_able_and_may_hold_cards_back() -> None:
    s = rigged([["R10", "R9", "B3"], ["G5"]], {"red": (11, 11)})
    err = refused(s, {"type": "draw"}, "must-play")
    assert "10 rouge" in err.fr and "red 10" in err.en
    s.apply({"type": "play", "card": "R10"})
    assert s.current_player == 0
    s.apply({"type": "end_turn"})  # the red 9 is held back on purpose
    assert s.current_player == 1


def test_penalty_example_19_and_2_make_21() -> None:
    s = rigged([["R10"], ["Y19", "B2"]], {"red": (11, 11)})
    s.apply({"type": "play", "card": "R10"})
    assert s.is_over and s.scores() == [0, 21] and s.winners() == [0]


@pytest.mark.parametrize(("held", "opener"), [
    ({0: ["Y11", "G11"], 1: ["R11"]}, (1, "R11")),
    ({0: ["B11"], 1: ["Y11"]}, (1, "Y11")),
    ({0: ["G11"], 1: ["B11"]}, (0, "G11")),
])
def test_who_opens_red_then_yellow_then_green_then_blue(held: dict[int, list[str]], opener: tuple[int, str]) -> None:
    s = GAME.new_state(2)
    elevens = {"R11", "Y11", "G11", "B11"}
    spare = [c for c in sorted(s.pool) if c not in elevens]
    hands = []
    for seat in range(2):
        h = list(held.get(seat, []))
        while len(h) < 20:
            h.append(spare.pop(0))
        hands.append(h)
    s.apply({"type": "deal", "hands": hands})
    assert s.legal_actions() == [{"type": "open", "seat": opener[0], "card": opener[1]}]
    s.apply({"type": "open", "seat": opener[0], "card": opener[1]})
    assert s.current_player == (opener[0] + 1) % 2  # the 11 was the opener's whole turn


def test_nobody_holds_an_11_deal_again() -> None:
    s = GAME.new_state(2)
    spare = [c for c in sorted(s.pool) if not c.endswith("11")]
    s.apply({"type": "deal", "hands": [spare[:20], spare[20:40]]})
    assert s.legal_actions() == [{"type": "redeal"}]
    s.apply({"type": "redeal"})
    assert s.phase == "deal" and s.pile == 80 and not any(len(h) for h in s.hands)


def test_extremes_11_is_an_ordinary_card_and_rows_grow_inward() -> None:
    s = rigged([["Y11", "Y2", "Y19", "Y3", "R10"], ["G5"]], {"yellow": (1, 20), "red": (9, 12)}, variant="extremes")
    assert plays(s) == {"Y2", "Y19", "R10"}
    refused(s, {"type": "play", "card": "Y11"})
    # Red: up to 9, down to 12: the 10 and the 11 are still missing.
    s.apply({"type": "play", "card": "R10"})
    assert "R11" in s.fitting() and "R10" not in s.fitting()


def test_extremes_deal_the_usual_table_from_72_cards() -> None:
    s = GAME.new_state(4, "extremes")
    s.apply(s.sample_chance(Random(3)))
    assert [len(h) for h in s.hands] == [15] * 4 and s.pile == 72 - 60
    assert Counter(s.placed()) == Counter(card(c, v) for c in s.colours for v in (1, 20))


def test_three_openings_rows_may_open_with_different_values() -> None:
    s = rigged([["B12", "G10", "Y13", "B3"], ["G5"]], {"red": (10, 10)}, variant="three-openings")
    assert plays(s) == {"B12", "G10"}
    refused(s, {"type": "play", "card": "Y13"}, "open-row")
    s.apply({"type": "play", "card": "B12"})
    s.apply({"type": "play", "card": "G10"})
    assert s.start["blue"] == 12 and s.start["green"] == 10 and s.start["red"] == 10


def test_free_opening_every_row_opens_with_the_first_value_and_11_is_ordinary() -> None:
    s = rigged([["Y7", "B11", "G7", "R6"], ["G5"]], {"red": (7, 7)}, variant="free-opening")
    assert s.v0 == 7
    assert plays(s) == {"Y7", "G7", "R6"}
    err = refused(s, {"type": "play", "card": "B11"}, "open-row")
    assert "7" in err.fr and "7" in err.en


def test_free_opening_with_11_as_starting_value() -> None:
    s = rigged([["B11", "R5"], ["G5"]], {"red": (11, 11)}, variant="free-opening")
    assert s.v0 == 11 and plays(s) == {"B11"}
