"""11 Elevens (Elfer raus! Master): an independent referee's audit (seed 001, RULES.md section 2).

An oracle written from the rule book alone (default GUESS options) keeps its own four rows,
hands, link cards, bonus cards and draw pile and plays whole rounds beside the engine: at
every decision the number cards, jokers, links, exchanges, discards, draws, passes and ends
of turn it allows must be exactly the engine's, and after every action the board, hands,
bonus cards and the player to move must agree. Targeted positions probe the rule book's
corners: a link completed by a joker, the 4-card limit with links outside it, bonuses while
the 7 cards last, the drawn card ending the turn, scoring.
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

GAME = games.get("elevens")
LETTER = {"yellow": "Y", "red": "R", "blue": "B", "green": "G"}
J = "J"


def code(colour: str, v: int) -> str:
    return f"{LETTER[colour]}{v}"


def val(card: str) -> int:
    return 11 if card == J else int(card[1:])


class Oracle:
    """The Master game from the rule book: rows as {value: "N" | "J"} (the 11s from the start)."""

    def __init__(self, state: Any) -> None:
        self.players = state.players
        self.rows: list[str] = list(state.rows)
        self.board: dict[str, dict[int, str]] = {c: {11: "N"} for c in self.rows}
        self.hands = [Counter(h.known) for h in state.hands]
        self.links_left = [{2: 4, 3: 4, 4: 3, 5: 3, 6: 2}[self.players]] * self.players
        self.bonus = [0] * self.players
        self.supply = 7
        self.pile = state.pile
        self.player = state.player
        self.passes = 0
        self.over = False
        self.new_turn()

    def new_turn(self) -> None:
        self.numbers = self.jokers = self.discards = self.exchanges = 0
        self.pending: tuple[str, int] | None = None

    # what the rules allow

    def played(self) -> int:
        return self.numbers + self.jokers + self.discards + self.exchanges  # GUESS 2.8 #2: exchanges count

    def others(self) -> int:
        return self.numbers + self.jokers + self.discards  # GUESS #3 and #4: any card, a discard too

    def frontier(self) -> list[tuple[str, int]]:
        return [(c, v) for c in self.rows for v in range(1, 22)
                if v not in self.board[c] and (v - 1 in self.board[c] or v + 1 in self.board[c])]

    def gaps(self) -> list[tuple[str, str, int]]:
        """A link from an occupied position to the same number, empty, in the row above or below."""
        out = []
        for i in range(3):
            for a, b in ((self.rows[i], self.rows[i + 1]), (self.rows[i + 1], self.rows[i])):
                out += [(a, b, v) for v in range(1, 22) if v in self.board[a] and v not in self.board[b]]
        return out

    def reachable(self, seat: int) -> set[str]:
        out = {code(c, v) for c, v in self.frontier()}
        if self.links_left[seat]:
            out |= {code(b, v) for _, b, v in self.gaps()}
        return out

    def moves(self) -> set[tuple[Any, ...]]:
        seat, hand = self.player, self.hands[self.player]
        if self.pending:
            c, v = self.pending
            return ({("play", code(c, v))} if hand[code(c, v)] else set()) | ({("joker", c, v)} if hand[J] else set())
        out: set[tuple[Any, ...]] = set()
        if self.played() < 4:
            for c, v in self.frontier():
                if hand[code(c, v)]:
                    out.add(("play", code(c, v)))
                if hand[J]:
                    out.add(("joker", c, v))
            if self.links_left[seat]:
                out |= {("link", a, b, v) for a, b, v in self.gaps() if hand[code(b, v)] or hand[J]}
            if hand[J]:
                out.add(("discard",))
        if self.played() <= 3 and (self.others() >= 1 or self.played() <= 2):
            out |= {("exchange", code(c, v)) for c in self.rows for v, what in self.board[c].items()
                    if what == "J" and hand[code(c, v)]}
        return out

    def legal(self) -> set[tuple[Any, ...]]:
        out = self.moves()
        fresh = not (self.played() or self.pending)
        if fresh:
            if self.pile:
                out.add(("draw",))
            elif not any(self.hands[self.player][c] for c in self.reachable(self.player)):
                out.add(("pass",))  # only a joker (or nothing) could be played: not obliged
        elif self.may_end():
            out.add(("end_turn",))
        return out

    def may_end(self) -> bool:
        return self.pending is None and self.others() >= 1

    # what happens

    def take(self, card: str) -> None:
        hand = self.hands[self.player]
        hand[card] -= 1
        self.hands[self.player] = +hand

    def lay(self, colour: str, v: int, what: str) -> None:
        self.board[colour][v] = what
        self.pending = None
        self.passes = 0
        half = range(1, 11) if v < 11 else range(12, 22)
        if self.supply and all(x in self.board[colour] for x in half):
            self.supply -= 1  # GUESS 2.8 #1: while the 7 cards last
            self.bonus[self.player] += 1
        self.after_card()

    def after_card(self) -> None:
        if not sum(self.hands[self.player].values()):
            self.over = True
        elif self.may_end() and not self.moves():
            self.next_turn()

    def next_turn(self) -> None:
        self.player = (self.player + 1) % self.players
        self.new_turn()

    def apply(self, action: dict[str, Any]) -> None:
        kind = action["type"]
        if kind == "play" and action["card"] == J:
            self.take(J)
            self.jokers += 1
            self.lay(action["row"], action["value"], "J")
        elif kind == "play":
            card = action["card"]
            self.take(card)
            self.numbers += 1
            self.lay({v: k for k, v in LETTER.items()}[card[0]], int(card[1:]), "N")
        elif kind == "link":
            self.links_left[self.player] -= 1
            self.pending = (action["to"], action["value"])
            self.passes = 0
        elif kind == "exchange":
            card = action["card"]
            self.take(card)
            self.hands[self.player][J] += 1
            self.board[{v: k for k, v in LETTER.items()}[card[0]]][int(card[1:])] = "N"
            self.exchanges += 1
            self.passes = 0
            self.after_card()
        elif kind == "discard_joker":
            self.take(J)
            self.discards += 1
            self.passes = 0
            self.after_card()
        elif kind == "pass":
            self.passes += 1
            if self.passes >= self.players:
                self.over = True
            else:
                self.next_turn()
        elif kind == "end_turn":
            self.next_turn()

    def scores(self) -> list[int]:
        return [11 * self.bonus[s] - sum(val(c) * n for c, n in h.items()) for s, h in enumerate(self.hands)]


def as_key(a: dict[str, Any]) -> tuple[Any, ...]:
    kind = a["type"]
    if kind == "play":
        return ("joker", a["row"], a["value"]) if a["card"] == J else ("play", a["card"])
    if kind == "link":
        return ("link", a["from"], a["to"], a["value"])
    if kind == "exchange":
        return ("exchange", a["card"])
    if kind == "discard_joker":
        return ("discard",)
    return (kind,)


def play_with_oracle(players: int, seed: int, draw_bias: float = 0.2) -> Any:
    rng = Random(seed)
    s = GAME.new_state(players, start_player=seed % players)
    s.apply(s.sample_chance(rng))
    o = Oracle(s)
    assert s.pile == 84 - players * {2: 20, 3: 20, 4: 15, 5: 12, 6: 12}[players]
    while not s.is_over:
        if s.current_player == CHANCE:
            action = s.sample_chance(rng)
            s.apply(action)
            o.hands[o.player][action["card"]] += 1
            o.pile -= 1
            o.next_turn()  # drawing is the whole turn
        else:
            assert s.current_player == o.player
            legal = s.legal_actions()
            assert {as_key(a) for a in legal} == o.legal(), (o.pending, o.played(), o.others())
            plays = [a for a in legal if a["type"] != "draw"]
            action = rng.choice(plays) if plays and rng.random() > draw_bias else rng.choice(legal)
            s.apply(action)
            o.apply(action)
        assert [Counter(h.known) for h in s.hands] == o.hands
        assert s.bonus == o.bonus and s.bonus_supply == o.supply and s.links_left == o.links_left
        for c in o.rows:
            got = {v: ("J" if s.board[c][v] == 2 else "N") for v in range(1, 22) if s.board[c][v]}
            assert got == o.board[c]
        assert s.is_over == o.over
    assert s.scores() == o.scores()
    return s


@settings(max_examples=30, deadline=None, derandomize=True)
@given(players=st.integers(2, 6), seed=st.integers(0, 10**6), draw_bias=st.sampled_from([0.05, 0.3, 0.6]))
def test_whole_rounds_follow_the_rule_book(players: int, seed: int, draw_bias: float) -> None:
    play_with_oracle(players, seed, draw_bias)


def test_the_oracle_sees_links_jokers_and_bonuses() -> None:
    links = bonus = 0
    for seed in range(10):
        s = play_with_oracle(2 + seed % 4, seed, 0.05)
        links += len(s.links)
        bonus += sum(s.bonus)
    assert links > 10 and bonus > 3


# --- positions ---------------------------------------------------------------------------


def rigged(hands: list[list[str]], board: dict[str, list[int]], rows: tuple[str, ...] = ("yellow", "blue", "red",
           "green"), jokers: dict[str, list[int]] | None = None, player: int = 0, bonus: list[int] | None = None,
           **options: Any) -> Any:
    """These hands (the rest of the cards in the draw pile), number cards on `board` {colour: values},
    jokers standing on `jokers` {colour: values}."""
    s = GAME.new_state(len(hands), options=options or None)
    s.rows = list(rows)
    on_board: Counter[str] = Counter()
    for colour, values in board.items():
        for v in values:
            s.board[colour][v] = 1
            on_board[code(colour, v)] += 1
    for colour, values in (jokers or {}).items():
        for v in values:
            s.board[colour][v] = 2
            s._board_jokers += 1
            on_board[J] += 1
    for hand, cards in zip(s.hands, hands, strict=True):
        hand.known = Counter(cards)
    s.pool = Counter(s.deck) - on_board - sum((Counter(h) for h in hands), Counter())
    s.pile = sum(s.pool.values())
    s.bonus = list(bonus or [0] * len(hands))
    s.bonus_supply = 7 - sum(s.bonus)
    s._start_turn(player)
    assert not s.check_invariants(), s.check_invariants()
    return s


def refused(s: Any, action: dict[str, Any], rule: str) -> IllegalMove:
    before = s.to_json()
    with pytest.raises(IllegalMove) as err:
        s.apply(action)
    assert err.value.rule == rule, err.value.en
    assert s.to_json() == before
    return err.value


def test_links_are_outside_the_four_cards_and_their_card_is_inside() -> None:
    # Yellow above blue above red: from the yellow 9 to the blue 9, from the blue 9 to a joker
    # on the red 9, then the red 8 and red 7: two links and four hand cards.
    s = rigged([["B9", J, "R8", "R7", "G5", "G4"], ["Y2"]], {"yellow": [9, 10]})
    s.apply({"type": "link", "from": "yellow", "to": "blue", "value": 9})
    refused(s, {"type": "end_turn"}, "complete-link")
    refused(s, {"type": "play", "card": "G5"}, "complete-link")  # first the blue 9 (or a joker)
    s.apply({"type": "play", "card": "B9"})
    s.apply({"type": "link", "from": "blue", "to": "red", "value": 9})
    s.apply({"type": "play", "card": J, "row": "red", "value": 9})
    s.apply({"type": "play", "card": "R8"})
    assert s.played == 3
    s.apply({"type": "play", "card": "R7"})
    assert s.current_player == 1  # four hand cards: the turn is over by itself
    assert len(s.links) == 2 and s.links_left[0] == 2


def test_a_link_cannot_fill_a_hole_inside_a_row() -> None:
    # Example e: red 7 and 8 are there, the red 6 is missing: the red 5 cannot go in.
    s = rigged([["R5", "Y2"], ["G2"]], {"red": [7, 8, 9, 10]})
    err = refused(s, {"type": "play", "card": "R5"}, "no-neighbour")
    assert "5 rouge" in err.fr and "6 rouge" in err.fr and "red 6" in err.en


def test_a_drawn_card_ends_the_turn_and_drawing_is_allowed_while_able_to_play() -> None:
    s = rigged([["Y10", "Y2"], ["G2"]], {})
    assert {"type": "draw"} in s.legal_actions()
    s.apply({"type": "draw"})
    s.apply({"type": "drawn", "card": sorted(s.pool)[0]})
    assert s.current_player == 1 and len(s.hands[0]) == 3


def test_the_eighth_half_gives_nothing_by_default() -> None:
    full_low, full_high = list(range(1, 11)), list(range(12, 22))
    board = {"yellow": full_low + full_high, "blue": full_low + full_high, "red": full_low + full_high,
             "green": full_low + list(range(13, 22))}
    s = rigged([["G12", J], [J]], board, bonus=[4, 3])
    assert s.bonus_supply == 0
    s.apply({"type": "play", "card": "G12"})  # completes the eighth half: no bonus card left
    assert s.bonus == [4, 3] and s.bonus_supply == 0


def test_final_scores_bonus_cards_number_cards_and_jokers() -> None:
    s = rigged([["Y10"], ["B19", J, "G2"]], {"red": list(range(1, 11))}, bonus=[1, 0])
    s.apply({"type": "play", "card": "Y10"})
    assert s.is_over and s.scores() == [11, -(19 + 11 + 2)]
