"""11 nimmt!: an independent referee's audit (seed 003, RULES.md section 4).

An oracle written from the rules alone keeps its own piles, hands, bull cards and draw pile
and plays whole rounds beside the engine: at every decision the legal plays and takes must
be the same, and after every action the piles (contents and order), hands, bull cards and
the player to move must agree. Targeted positions then probe the corners: the ring from 100
to 1, stacking several cards by distance, the draw pile running out, the bull supply running
out, the end of a round and its score.
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
from companion.games.nimmt11 import distance, reach

GAME = games.get("11-nimmt")
PRIMES = {2, 5, 7, 11, 17, 19, 29, 31, 37, 41, 47, 59, 61, 67, 71, 79, 89, 97}


def heads(card: int) -> int:
    """RULES.md 4.1 table (the GUESS shipped in the data file)."""
    if card % 10 == 3:
        return 7 if card in (3, 33, 63, 93) else 5
    return 3 if card in PRIMES else 1


def fits(top: int, card: int) -> bool:
    """Seed: ascending order, 100 then 1, at most 10 above the top card."""
    return card != top and (card - top) % 100 <= 10


class Oracle:
    """11 nimmt! from the rules: piles by id (top last), hands, bull cards, draw pile size."""

    def __init__(self, state: Any) -> None:
        self.players = state.players
        self.threshold = state.options["bull_threshold"]
        self.steal = state.options["bull_steal"]
        self.hands = [Counter(int(c) for c in h.known) for h in state.hands]
        self.piles = {pid: [int(c) for c in cards] for pid, cards in state.piles.items()}
        self.next_id = max(self.piles) + 1
        self.draw = state.pile
        self.bulls = [0] * self.players
        self.supply = 10
        self.player = state.player
        self.start_tops: dict[int, int] = {}  # piles played on this turn -> top at the start of the turn
        self.played_on: dict[int, list[int]] = {}  # piles played on this turn -> the cards laid there
        self.played = 0
        self.over = False

    def piles_open(self) -> list[int]:
        k = max(1, self.bulls[self.player])
        if len(self.start_tops) >= k:
            return list(self.start_tops)
        return list(self.piles)

    def plays(self) -> set[tuple[str, int]]:
        if self.played and not self.bulls[self.player]:
            return set()
        out = set()
        for pid in self.piles_open():
            top = self.start_tops.get(pid, self.piles[pid][-1])
            out |= {(str(c), pid) for c in self.hands[self.player] if fits(top, c)}
        return out

    def takes(self) -> set[tuple[int, int | None]]:
        if self.played:
            return set()
        out: set[tuple[int, int | None]] = set()
        me = self.bulls[self.player]
        for pid, cards in self.piles.items():
            victims = []
            if len(cards) >= self.threshold and not self.supply and self.steal:
                most = max(self.bulls)
                victims = [v for v in range(self.players)
                           if v != self.player and self.bulls[v] and (me == most or self.bulls[v] == most)]
            out |= {(pid, v) for v in victims} if victims else {(pid, None)}
        return out

    def play(self, card: int, pid: int) -> None:
        top = self.start_tops.setdefault(pid, self.piles[pid][-1])
        self.hands[self.player][card] -= 1
        self.hands[self.player] = +self.hands[self.player]
        mine = self.played_on.setdefault(pid, [])
        mine.append(card)
        base = self.piles[pid][: len(self.piles[pid]) - (len(mine) - 1)]
        # Laid out for checking, then stacked in ascending order from the start top.
        self.piles[pid] = base + sorted(mine, key=lambda c: (c - top) % 100)
        self.played += 1
        if not sum(self.hands[self.player].values()):
            self.over = True
        elif not self.plays():
            self.next_turn()

    def take(self, pid: int, victim: int | None) -> None:
        cards = self.piles.pop(pid)
        self.hands[self.player].update(cards)
        if len(cards) >= self.threshold:
            if self.supply:
                self.supply -= 1
                self.bulls[self.player] += 1
            elif victim is not None:
                self.bulls[victim] -= 1
                self.bulls[self.player] += 1

    def new_piles(self, cards: list[int]) -> None:
        assert len(cards) == min(2, self.draw)
        for c in cards:
            self.piles[self.next_id] = [c]
            self.next_id += 1
        self.draw -= len(cards)
        self.next_turn()

    def next_turn(self) -> None:
        self.player = (self.player + 1) % self.players
        self.start_tops = {}
        self.played_on = {}
        self.played = 0

    def scores(self) -> list[int]:
        return [-sum(heads(c) * n for c, n in h.items()) for h in self.hands]


def play_with_oracle(players: int, seed: int, options: dict[str, Any] | None = None, greed: float = 0.8) -> Any:
    rng = Random(seed)
    s = GAME.new_state(players, start_player=seed % players, options=options)
    s.apply(s.sample_chance(rng))
    o = Oracle(s)
    while not s.is_over:
        if s.current_player == CHANCE:
            flip = s.sample_chance(rng)
            s.apply(flip)
            o.new_piles([int(c) for c in flip["cards"]])
        else:
            assert s.current_player == o.player
            legal = s.legal_actions()
            plays = {(a["card"], a["pile"]) for a in legal if a["type"] == "play"}
            takes = {(a["pile"], a.get("from")) for a in legal if a["type"] == "take"}
            assert plays == o.plays(), (o.piles, o.start_tops)
            assert takes == o.takes()
            assert ({"type": "end_turn"} in legal) == bool(o.played)
            choices = [a for a in legal if a["type"] != "take"]
            action = rng.choice(choices) if choices and rng.random() < greed else rng.choice(legal)
            s.apply(action)
            if action["type"] == "play":
                o.play(int(action["card"]), action["pile"])
            elif action["type"] == "take":
                o.take(action["pile"], action.get("from"))
                if not o.draw:
                    if o.piles:
                        o.next_turn()
                    else:
                        o.over = True
            else:
                o.next_turn()
        assert {pid: [int(c) for c in cards] for pid, cards in s.piles.items()} == o.piles
        assert [Counter(int(c) for c in h.known) for h in s.hands] == o.hands
        assert s.bulls == o.bulls and s.supply == o.supply and s.pile == o.draw
        assert s.is_over == o.over
        if not s.is_over and s.current_player != CHANCE:
            assert s.current_player == o.player
    assert s.scores() == o.scores()
    return s


@settings(max_examples=40, deadline=None, derandomize=True)
@given(players=st.integers(2, 7), seed=st.integers(0, 10**6), threshold=st.sampled_from([3, 4]),
       steal=st.booleans())
def test_whole_rounds_follow_the_rules(players: int, seed: int, threshold: int, steal: bool) -> None:
    play_with_oracle(players, seed, {"bull_threshold": threshold, "bull_steal": steal})


@settings(max_examples=10, deadline=None, derandomize=True)
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_rounds_of_mostly_takes_run_the_draw_pile_and_the_bull_supply_out(players: int, seed: int) -> None:
    s = play_with_oracle(players, seed, greed=0.3)
    assert s.end in ("out", "empty")


def test_rounds_reach_the_rare_endings() -> None:
    endings = Counter(play_with_oracle(2 + i % 3, i, greed=0.2).end for i in range(25))
    assert endings["empty"] and endings["out"]


def test_distance_and_reach_match_the_ring_for_every_pair() -> None:
    for top in range(1, 101):
        in_reach = {(top + i - 1) % 100 + 1 for i in range(1, 11)}
        low, high = reach(top)
        assert {low, high} <= in_reach and (high - low) % 100 == 9
        for card in range(1, 101):
            d = distance(top, card)
            assert (1 <= d <= 10) == fits(top, card) == (card in in_reach)
            assert d == (0 if card == top else (card - top) % 100)


# --- positions ---------------------------------------------------------------------------------


def nums(*values: int) -> list[str]:
    return [str(v) for v in values]


def dealt(hands: list[list[int]], flip: int, bulls: list[int] | None = None, **options: Any) -> Any:
    """Hands filled up to 10 cards with far-away cards; every other card in the draw pile."""
    taken = {c for h in hands for c in h} | {flip}
    spare = sorted((c for c in range(1, 101) if c not in taken),
                   key=lambda c: any(fits(t, c) or fits(c, t) for t in taken))  # far-away cards first
    full = []
    for h in hands:
        need = 10 - len(h)
        full.append(nums(*h, *spare[:need]))
        spare = spare[need:]
    s = GAME.new_state(len(hands), options=options or None)
    s.apply({"type": "deal", "hands": full, "flip": str(flip)})
    if bulls:
        s.supply -= sum(bulls)
        s.bulls = list(bulls)
    assert not s.check_invariants(), s.check_invariants()
    return s


def rig(s: Any, hands: list[list[int]]) -> None:
    """Exactly these hands; every card neither in a hand nor on a pile is in the draw pile."""
    on_piles = Counter(c for cards in s.piles.values() for c in cards)
    for hand, cards in zip(s.hands, hands, strict=True):
        hand.known = Counter(nums(*cards))
        hand.unknown = 0
    held = Counter(c for h in s.hands for c in h.known.elements())
    s.pool = Counter(str(c) for c in range(1, 101)) - on_piles - held
    s.pile = sum(s.pool.values())
    assert not s.check_invariants(), s.check_invariants()


def refused(s: Any, action: dict[str, Any], rule: str) -> IllegalMove:
    before = s.to_json()
    with pytest.raises(IllegalMove) as err:
        s.apply(action)
    assert err.value.rule == rule, err.value.en
    assert s.to_json() == before
    return err.value


def test_from_97_the_order_goes_98_99_100_1_2_3() -> None:
    s = dealt([[100, 1, 7, 8, 96], [50]], 97)
    plays = {a["card"] for a in s.legal_actions() if a["type"] == "play"}
    assert plays == {"100", "1", "7"}  # 98 .. 7 ; the 8 is 11 above the 97, the 96 is below it
    err = refused(s, {"type": "play", "card": "8", "pile": 0}, "too-far")
    assert "98 à 7" in err.fr and "98 to 7" in err.en


def test_on_77_the_cards_78_to_87_and_not_the_lower_ones() -> None:
    s = dealt([[78, 87, 88, 76], [50]], 77)
    plays = {a["card"] for a in s.legal_actions() if a["type"] == "play"}
    assert plays == {"78", "87"}  # "le chiffre ... doit être plus haut" and at most 10 above


def test_several_cards_with_a_bull_are_stacked_by_distance_and_the_farthest_is_on_top() -> None:
    # Top 95, one bull card: the player lays 3, 98 and 100 (in that order); they are all
    # within 10 of the 95 and are stacked 98, 100, 3: the 3 becomes the top.
    s = dealt([[3, 98, 100, 44], [50]], 95, bulls=[1, 0])
    for c in ("3", "98", "100"):
        s.apply({"type": "play", "card": c, "pile": 0})
    assert s.piles[0] == ["95", "98", "100", "3"]
    # The 44 does not fit anywhere: the turn ended by itself.
    assert s.current_player == 1


def test_the_range_stays_the_one_of_the_top_at_the_start_of_the_turn() -> None:
    # Top 50: with a bull card 51..60 may go on it, even after the 58 has been laid (the 62
    # would fit on the 58 but not on the 50).
    s = dealt([[58, 60, 62, 20], [90]], 50, bulls=[1, 0])
    s.apply({"type": "play", "card": "58", "pile": 0})
    plays = {a["card"] for a in s.legal_actions() if a["type"] == "play"}
    assert plays == {"60"}
    refused(s, {"type": "play", "card": "62", "pile": 0}, "too-far")


def test_without_a_bull_a_second_card_is_never_possible() -> None:
    s = dealt([[51, 52, 20], [90]], 50)
    s.apply({"type": "play", "card": "51", "pile": 0})
    assert s.current_player == 1 and s.piles[0] == ["50", "51"]


def test_a_player_with_bulls_may_stop_but_may_not_take_after_playing() -> None:
    s = dealt([[51, 52, 20], [90]], 50, bulls=[2, 0])
    s.apply({"type": "play", "card": "51", "pile": 0})
    refused(s, {"type": "take", "pile": 0}, "play-or-take")
    s.apply({"type": "end_turn"})
    assert s.current_player == 1


def test_taking_is_allowed_even_when_a_play_exists() -> None:
    s = dealt([[51, 20], [90]], 50)
    assert {"type": "take", "pile": 0} in s.legal_actions()
    s.apply({"type": "take", "pile": 0})
    assert s.hands[0].known["50"] == 1 and s.phase == "flip"


def test_the_last_card_of_the_draw_pile_makes_one_new_pile_and_then_none() -> None:
    s = dealt([[51, 20], [90, 30]], 50)
    # Take from the draw pile all but one card into seat 1's hand (as earlier takes would).
    rest = sorted(s.pool, key=int)
    keep = rest[0]
    for c in rest[1:]:
        s.pool[c] -= 1
        s.hands[1].add(c)
    s.pool = +s.pool
    s.pile = 1
    assert not s.check_invariants(), s.check_invariants()
    s.apply({"type": "take", "pile": 0})
    assert s.legal_actions() == [{"type": "flip", "cards": [keep]}]
    s.apply({"type": "flip", "cards": [keep]})
    assert list(s.piles) == [1] and s.pile == 0
    # Seat 1 takes the only pile: no draw pile, no pile -> the round ends and is scored.
    s.apply({"type": "take", "pile": 1})
    assert s.is_over and s.end == "empty"
    assert s.scores() == [-sum(heads(int(c)) * n for c, n in h.known.items()) for h in s.hands]


def test_a_pile_of_three_earns_a_bull_and_two_do_not() -> None:
    s = dealt([[51, 52, 20], [53, 90]], 50, bulls=[1, 0])
    s.apply({"type": "play", "card": "51", "pile": 0})
    s.apply({"type": "play", "card": "52", "pile": 0})
    assert s.current_player == 1 and len(s.piles[0]) == 3
    s.apply({"type": "take", "pile": 0})
    assert s.bulls == [1, 1] and s.supply == 8


def test_bull_supply_empty_the_taker_with_the_most_chooses_any_victim_with_a_bull() -> None:
    s = dealt([[51, 52, 20], [53, 90], [70]], 50, bulls=[6, 3, 1])
    rig(s, [[51, 52, 20], [53, 90], [70]])
    for c in ("51", "52"):
        s.apply({"type": "play", "card": c, "pile": 0})
    assert s.current_player == 1  # the 20 fits nowhere: seat 0's turn ended by itself
    # Seat 1 (3 bulls, not the most) takes the pile of 3: only seat 0, who has the most, can be robbed.
    takes = [a for a in s.legal_actions() if a["type"] == "take"]
    assert takes == [{"type": "take", "pile": 0, "from": 0}]
    refused(s, {"type": "take", "pile": 0, "from": 2}, "steal-not-allowed")
    refused(s, {"type": "take", "pile": 0}, "name-victim")
    s.apply({"type": "take", "pile": 0, "from": 0})
    assert s.bulls == [5, 4, 1] and s.supply == 0


def test_bull_cards_are_never_scored_and_the_winner_scores_zero() -> None:
    s = dealt([[51], [3, 13, 2, 4]], 50, bulls=[0, 3])
    rig(s, [[51], [3, 13, 2, 4]])
    s.apply({"type": "play", "card": "51", "pile": 0})
    assert s.is_over and s.winner == 0
    expected = -sum(heads(int(c)) for c in s.hands[1].known.elements())
    assert s.scores() == [0, expected] == [0, -(7 + 5 + 3 + 1)]
    assert s.winners() == [0]
