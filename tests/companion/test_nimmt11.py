"""11 nimmt!: the rule summary's examples and RULES.md section 4 (seed 003)."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random

import pytest

from companion import games
from companion.games import CHANCE, TERMINAL, DataError, IllegalMove
from companion.games.nimmt11 import HeadTable, distance, load_data, reach
from companion.match import Match

from .conformance import playout

GAME = games.get("11-nimmt")
SHIPPED = Path(games.__file__).parent / "data" / "11-nimmt_heads.toml"


def nums(*values: int | range) -> list[str]:
    out: list[str] = []
    for v in values:
        out.extend(str(x) for x in (v if isinstance(v, range) else [v]))
    return out


def dealt(hands: list[list[str]], flip: str, start: int = 0, bulls: list[int] | None = None,
          **kwargs: object) -> games.State:
    state = GAME.new_state(len(hands), start_player=start, **kwargs)
    state.apply({"type": "deal", "hands": hands, "flip": flip})
    if bulls:
        give_bulls(state, bulls)
    return state


def give_bulls(state: games.State, bulls: list[int]) -> None:
    """Hand out bull cards from the supply (as earlier takes would have)."""
    state.supply -= sum(bulls)  # type: ignore[attr-defined]
    state.bulls = list(bulls)  # type: ignore[attr-defined]
    assert not state.check_invariants()


def plays(state: games.State) -> set[tuple[str, int]]:
    return {(a["card"], a["pile"]) for a in state.legal_actions() if a["type"] == "play"}


def refused(state: games.State, action: dict, rule: str | None = None) -> IllegalMove:
    before = state.to_json()
    with pytest.raises(IllegalMove) as err:
        state.apply(action)
    assert state.to_json() == before, "a refused action changed the state"
    if rule is not None:
        assert err.value.rule == rule, err.value.en
    return err.value


def top(state: games.State, pid: int) -> str:
    return state.piles[pid][-1]  # type: ignore[attr-defined]


# --- distance on the ring 1..100 ---------------------------------------------------------------


def test_distance_examples_of_the_rules() -> None:
    assert [c for c in range(1, 101) if 1 <= distance(77, c) <= 10] == list(range(78, 88))  # seed: 77 -> 78..87
    assert [c for c in range(1, 101) if 1 <= distance(54, c) <= 10] == list(range(55, 65))
    assert sorted(c for c in range(1, 101) if 1 <= distance(96, c) <= 10) == [1, 2, 3, 4, 5, 6, 97, 98, 99, 100]
    assert distance(98, 5) == 7
    assert [c for c in range(1, 101) if 1 <= distance(100, c) <= 10] == list(range(1, 11))
    assert distance(77, 76) == 99 and distance(77, 88) == 11
    assert reach(77) == (78, 87) and reach(96) == (97, 6) and reach(100) == (1, 10)


def test_on_77_only_78_to_87_may_be_played() -> None:
    s = dealt([nums(76, 78, 87, 88, range(1, 7)), nums(range(20, 30))], flip="77")
    assert plays(s) == {("78", 0), ("87", 0)}
    err = refused(s, {"type": "play", "card": "88", "pile": 0}, "too-far")
    assert "88" in err.en and "77" in err.en and "78 to 87" in err.en
    assert "88" in err.fr and "78 à 87" in err.fr
    refused(s, {"type": "play", "card": "76", "pile": 0}, "too-far")  # lower is never allowed
    s.apply({"type": "play", "card": "87", "pile": 0})
    assert top(s, 0) == "87"


def test_on_96_the_row_goes_on_from_100_to_1() -> None:
    s = dealt([nums(97, 100, 1, 6, 7, 95, range(40, 44)), nums(range(20, 30))], flip="96")
    assert plays(s) == {("97", 0), ("100", 0), ("1", 0), ("6", 0)}
    err = refused(s, {"type": "play", "card": "7", "pile": 0}, "too-far")
    assert "97 to 6 (1 follows 100)" in err.en and "après 100 vient 1" in err.fr
    refused(s, {"type": "play", "card": "95", "pile": 0}, "too-far")


def test_top_98_takes_the_5_and_top_100_takes_1_to_10() -> None:
    s = dealt([nums(5, range(40, 49)), nums(range(20, 30))], flip="98")
    assert plays(s) == {("5", 0)}  # distance 7
    s = dealt([nums(range(1, 11)), nums(range(20, 30))], flip="100")
    assert plays(s) == {(str(c), 0) for c in range(1, 11)}


# --- bull cards ----------------------------------------------------------------------------------


def test_without_a_bull_card_one_card_ends_the_turn() -> None:
    s = dealt([nums(range(36, 46)), nums(range(60, 70))], flip="35")
    s.apply({"type": "play", "card": "36", "pile": 0})
    assert s.current_player == 1
    assert len(s.hands[0]) == 9 and s.piles[0] == ["35", "36"]


def test_a_bull_card_allows_several_cards_each_within_10_of_the_start_top() -> None:
    s = dealt([nums(36, 37, 40, 45, 46, range(60, 65)), nums(range(70, 80))], flip="35", bulls=[1, 0])
    s.apply({"type": "play", "card": "40", "pile": 0})
    assert s.current_player == 0  # more cards fit: the turn goes on
    # 46 would be within 10 of the 40, but the 35 was the top when the turn began.
    assert plays(s) == {("36", 0), ("37", 0), ("45", 0)}
    err = refused(s, {"type": "play", "card": "46", "pile": 0}, "too-far")
    assert "35" in err.en and "36 to 45" in err.en
    refused(s, {"type": "take", "pile": 0}, "play-or-take")  # no playing and taking in one turn
    for card in ("45", "37"):
        s.apply({"type": "play", "card": card, "pile": 0})
    assert top(s, 0) == "45"  # the farthest card is on top
    view = s.view(None)["board"]["piles"][0]
    assert view == {"id": 0, "top": "45", "size": 4, "playable": ["36", "45"]}
    s.apply({"type": "play", "card": "36", "pile": 0})
    # Laid out, then stacked by ascending distance from the 35.
    assert s.piles[0] == ["35", "36", "37", "40", "45"]
    assert s.current_player == 1  # nothing else fits: the turn ended by itself
    assert plays(s) == set()  # 70..79 do not go on the 45 either


def test_with_a_bull_card_the_player_may_stop_after_one_card() -> None:
    s = dealt([nums(36, 37, 40, 45, 46, range(60, 65)), nums(range(70, 80))], flip="35", bulls=[1, 0])
    refused(s, {"type": "end_turn"}, "must-act")
    s.apply({"type": "play", "card": "40", "pile": 0})
    assert {"type": "end_turn"} in s.legal_actions()
    s.apply({"type": "end_turn"})
    assert s.current_player == 1 and s.piles[0] == ["35", "40"]


def test_stacking_by_distance_across_100() -> None:
    s = dealt([nums(2, 99, 100, range(40, 47)), nums(range(70, 80))], flip="96", bulls=[1, 0])
    for card in ("2", "100", "99"):
        s.apply({"type": "play", "card": card, "pile": 0})
    assert s.piles[0] == ["96", "99", "100", "2"]
    assert top(s, 0) == "2"


def three_piles(bulls: int) -> games.State:
    """Player 1 takes the 50, player 2 the 20: piles 70 (id 2), 40 (id 3), 90 (id 4)."""
    s = dealt([nums(71, 75, 45, 95, range(2, 8)), nums(range(11, 20), 21)], flip="50", bulls=[bulls, 0])
    s.apply({"type": "take", "pile": 0})
    s.apply({"type": "flip", "cards": ["20", "70"]})
    assert list(s.piles) == [1, 2]  # the new piles get new ids
    s.apply({"type": "take", "pile": 1})
    s.apply({"type": "flip", "cards": ["40", "90"]})
    assert list(s.piles) == [2, 3, 4]  # ids are never reused
    assert s.current_player == 0
    return s


def test_k_bull_cards_allow_k_piles_in_one_turn() -> None:
    s = three_piles(bulls=2)
    assert plays(s) == {("71", 2), ("75", 2), ("45", 3), ("50", 3), ("95", 4)}
    s.apply({"type": "play", "card": "75", "pile": 2})
    s.apply({"type": "play", "card": "45", "pile": 3})
    assert plays(s) == {("71", 2), ("50", 3)}  # two piles used: the 90 is closed this turn
    err = refused(s, {"type": "play", "card": "95", "pile": 4}, "pile-limit")
    assert "2 bull card" in err.en
    s.apply({"type": "play", "card": "71", "pile": 2})
    s.apply({"type": "play", "card": "50", "pile": 3})
    assert s.piles[2] == ["70", "71", "75"] and s.piles[3] == ["40", "45", "50"]
    assert s.current_player == 1


def test_one_bull_card_allows_one_pile() -> None:
    s = three_piles(bulls=1)
    s.apply({"type": "play", "card": "75", "pile": 2})
    refused(s, {"type": "play", "card": "45", "pile": 3}, "pile-limit")
    assert plays(s) == {("71", 2)}


# --- taking a pile -------------------------------------------------------------------------------


def test_a_take_turns_up_two_new_piles_and_no_bull_for_two_cards() -> None:
    s = dealt([nums(11, range(30, 39)), nums(12, range(40, 49))], flip="10")
    s.apply({"type": "play", "card": "11", "pile": 0})
    # Taking is allowed even when a card would fit (tactical).
    assert {"type": "play", "card": "12", "pile": 0} in s.legal_actions()
    s.apply({"type": "take", "pile": 0})
    assert s.current_player == CHANCE and s.phase == "flip"
    assert s.bulls == [0, 0] and s.supply == 10  # only 2 cards
    assert s.hands[1].cards() == nums(10, 11, 12, range(40, 49))
    refused(s, {"type": "flip", "cards": ["60"]}, "flip-count")
    refused(s, {"type": "flip", "cards": ["60", "11"]}, "not-in-pile")
    refused(s, {"type": "flip", "cards": ["60", "60"]}, "not-in-pile")
    s.apply({"type": "flip", "cards": ["60", "5"]})
    assert [(p["id"], p["top"], p["size"]) for p in s.view(None)["board"]["piles"]] == [(1, "60", 1), (2, "5", 1)]
    assert s.pile == 100 - 20 - 1 - 2
    assert s.current_player == 0


def bull_setup(**options: object) -> games.State:
    s = dealt([nums(11, 13, range(30, 38)), nums(12, 14, range(40, 48))], flip="10", options=options)
    s.apply({"type": "play", "card": "11", "pile": 0})
    s.apply({"type": "play", "card": "12", "pile": 0})
    assert s.piles[0] == ["10", "11", "12"]
    return s


def test_a_pile_of_three_cards_earns_a_bull_card() -> None:
    s = bull_setup()
    s.apply({"type": "take", "pile": 0})
    assert s.bulls == [1, 0] and s.supply == 9
    assert s.view(1)["board"]["bulls"] == [1, 0]


@pytest.mark.parametrize(("threshold", "bull_for_three"), [(3, True), (4, False)])
def test_bull_threshold_option(threshold: int, bull_for_three: bool) -> None:
    s = bull_setup(bull_threshold=threshold)
    three = s.clone()
    three.apply({"type": "take", "pile": 0})
    assert three.bulls == ([1, 0] if bull_for_three else [0, 0])
    s.apply({"type": "play", "card": "13", "pile": 0})
    s.apply({"type": "take", "pile": 0})  # four cards: a bull card either way
    assert s.bulls == [0, 1] and s.supply == 9


def steal_setup(**options: object) -> games.State:
    """Three players holding 3, 5 and 2 bull cards; the supply is empty; the 10 pile grows."""
    s = dealt([nums(11, 12, range(30, 38)), nums(13, range(40, 49)), nums(range(60, 70))], flip="10",
              bulls=[3, 5, 2], options=options)
    s.apply({"type": "play", "card": "11", "pile": 0})
    s.apply({"type": "play", "card": "12", "pile": 0})  # then nothing else fits: the turn ends
    assert s.current_player == 1
    return s


def test_empty_supply_steal_from_a_player_when_one_of_the_two_holds_the_most() -> None:
    s = steal_setup()
    takes = [a for a in s.legal_actions() if a["type"] == "take"]
    # Player 2 holds the most: may take from anyone who has a bull card.
    assert takes == [{"type": "take", "pile": 0, "from": 0}, {"type": "take", "pile": 0, "from": 2}]
    s.apply({"type": "play", "card": "13", "pile": 0})
    assert s.current_player == 2  # nothing else of player 2's fits: the turn ended
    # Player 3 (2 cards) may take only from player 2, who holds the most.
    assert [a for a in s.legal_actions() if a["type"] == "take"] == [{"type": "take", "pile": 0, "from": 1}]
    refused(s, {"type": "take", "pile": 0}, "name-victim")
    err = refused(s, {"type": "take", "pile": 0, "from": 0}, "steal-not-allowed")
    assert "player 2" in err.en
    refused(s, {"type": "take", "pile": 0, "from": 2}, "steal-not-allowed")
    refused(s, {"type": "take", "pile": 0, "from": "1"}, "malformed")
    s.apply({"type": "take", "pile": 0, "from": 1})
    assert s.bulls == [3, 4, 3] and s.supply == 0


def test_empty_supply_without_the_steal_rule_gives_no_bull_card() -> None:
    s = steal_setup(bull_steal=False)
    s.apply({"type": "play", "card": "13", "pile": 0})
    assert s.current_player == 2
    assert [a for a in s.legal_actions() if a["type"] == "take"] == [{"type": "take", "pile": 0}]
    refused(s, {"type": "take", "pile": 0, "from": 1}, "no-steal")
    s.apply({"type": "take", "pile": 0})
    assert s.bulls == [3, 5, 2] and s.supply == 0
    assert s.hands[2].cards() == nums(range(10, 14), range(60, 70))


def test_no_steal_while_the_supply_has_bull_cards() -> None:
    s = bull_setup()
    refused(s, {"type": "take", "pile": 0, "from": 1}, "no-steal")


# --- table mode: hidden hands, known taken cards ---------------------------------------------------


def table_round() -> games.State:
    """At the table: player 1 takes back the 10 pile (10, 11, 12), player 2 (2 bulls) goes out."""
    s = GAME.new_state(2, table_mode=True)
    assert {"type": "deal", "hands": None, "flip": "10"} in s.legal_actions()
    s.apply({"type": "deal", "hands": None, "flip": "10"})
    give_bulls(s, [0, 2])
    assert [len(h) for h in s.hands] == [10, 10] and s.pile == 79
    s.apply({"type": "play", "card": "11", "pile": 0})
    s.apply({"type": "play", "card": "12", "pile": 0})
    assert s.current_player == 1  # the table cannot know whether more of player 2's cards fit
    s.apply({"type": "end_turn"})
    s.apply({"type": "take", "pile": 0})
    s.apply({"type": "flip", "cards": ["1", "50"]})
    return s


def test_taken_cards_are_known_in_the_takers_hand_at_the_table() -> None:
    s = table_round()
    hand = s.hands[0]
    assert hand.cards() == ["10", "11", "12"] and hand.unknown == 9
    assert s.view(0)["hand"] == ["10", "11", "12"]
    assert s.view(1)["hand"] == [] and "10" not in json.dumps(s.view(1)["hand"])
    assert s.bulls == [1, 2]  # the pile had 3 cards
    # Player 2's hidden cards cannot be the 11: it is in player 1's hand.
    assert [(p["id"], p["top"]) for p in s.view(None)["board"]["piles"]] == [(1, "1"), (2, "50")]
    refused(s, {"type": "play", "card": "11", "pile": 1}, "not-in-hand")
    refused(s, {"type": "play", "card": "1", "pile": 2}, "not-in-hand")  # nor a pile's card
    assert ("2", 1) in plays(s) and ("11", 1) not in plays(s) and ("10", 1) not in plays(s)


def test_table_round_end_reveal_and_scores() -> None:
    s = table_round()
    for card in nums(range(2, 10)):
        s.apply({"type": "play", "card": card, "pile": 1})
    s.apply({"type": "play", "card": "51", "pile": 2})  # the second pile: 2 bull cards
    assert len(s.hands[1]) == 0
    assert s.current_player == CHANCE and s.phase == "reveal"
    assert s.revealed == [False, True]
    shown = nums(10, 11, 12, 13, 33, 53, 63, 93, 97, 14, 20, 30)
    bad = [c if c != "12" else "15" for c in shown]
    refused(s, {"type": "reveal", "seat": 0, "cards": bad}, "reveal-missing")  # the 12 was taken back
    refused(s, {"type": "reveal", "seat": 0, "cards": shown[:-1]}, "reveal-count")
    refused(s, {"type": "reveal", "seat": 0, "cards": [*shown[:-1], "5"]}, "reveal-impossible")  # on a pile
    s.apply({"type": "reveal", "seat": 0, "cards": shown})
    assert s.is_over and s.claims == []  # taking is always allowed: nothing to claim
    # 1+3+1 (10, 11, 12) + 5+7+5+7+7 (13, 33, 53, 63, 93) + 3 (97) + 1+1+1
    assert s.scores() == [-42, 0]
    assert s.winners() == [1]


# --- end of the round and scores -------------------------------------------------------------------


def going_out(data: HeadTable | None = None) -> games.State:
    s = dealt([nums(range(2, 12)), nums(13, 33, 53, 63, 93, 97, 12, 14, 20, 50)], flip="1", bulls=[1, 0],
              data=data)
    for card in nums(11, 5, 2, 9, 3, 4, 10, 6, 8, 7):
        assert s.current_player == 0
        s.apply({"type": "play", "card": card, "pile": 0})
    return s


def test_the_round_ends_when_a_hand_is_empty_and_heads_are_counted() -> None:
    s = going_out()
    assert s.current_player == TERMINAL and s.winner == 0
    assert s.piles[0] == nums(range(1, 12))
    # 13 -> 5, 33 -> 7, 53 -> 5, 63 -> 7, 93 -> 7, 97 -> 3, the rest 1 each (shipped table)
    assert s.scores() == [0, -38]
    assert s.winners() == [0]
    view = s.view(1)
    assert view["scores"] == [0, -38] and view["winners"] == [0] and view["heads_guess"] is True


def take_until_empty(players: int, **options: object) -> games.State:
    """Everybody takes a pile each turn until neither piles nor draw pile are left."""
    s = GAME.new_state(players, options=options)
    rng = Random(5)
    s.apply(s.sample_chance(rng))
    draw = 99 - 10 * players  # RULES.md 4.2: 2 players -> 79, 7 players -> 29
    assert s.pile == draw
    single_flips = most_piles = 0
    while not s.is_over:
        most_piles = max(most_piles, len(s.piles))
        if s.current_player == CHANCE:
            if s.pile == 1:
                single_flips += 1
                assert s.legal_actions() == [{"type": "flip", "cards": [c]} for c in sorted(s.pool, key=int)]
            s.apply(s.sample_chance(rng))
        else:
            s.apply(next(a for a in s.legal_actions() if a["type"] == "take"))
            if not s.pile and not s.is_over:
                assert s.phase == "play"  # nothing left to turn up
    assert single_flips == draw % 2
    assert most_piles == 1 + draw // 2  # RULES.md 4.3: the most piles there can be at once
    return s


def test_no_pile_and_no_draw_pile_ends_the_round_and_it_is_scored() -> None:
    s = take_until_empty(7)
    assert s.end == "empty" and not s.piles and s.pile == 0
    assert sum(s.scores()) == -184  # every card is in a hand
    assert s.scores() == [-s.hand_heads(i) for i in range(7)]


def test_no_pile_end_without_scoring_option() -> None:
    s = take_until_empty(7, empty_table_scored=False)
    assert s.end == "empty" and s.scores() == [0] * 7
    assert s.winners() == list(range(7))  # GUESS 4.6 #9: ties are shared


def test_bull_cards_go_back_to_the_supply_each_round() -> None:
    match = Match("11-nimmt", 2, rounds=2)
    rng = Random(2)
    while not match.state.is_over:
        st = match.state
        match.apply(st.sample_chance(rng) if st.is_chance else rng.choice(st.legal_actions()))
    match.next_round()
    assert match.state.supply == 10 and match.state.bulls == [0, 0]
    with pytest.raises(ValueError):
        GAME.info.resolve_options({"bulls_back_each_round": False})


# --- the head table data file --------------------------------------------------------------------


def test_shipped_head_table() -> None:
    table = load_data(None)
    assert table.guess is True
    assert sum(table.heads.values()) == 184
    assert [table.heads[c] for c in ("3", "33", "53", "13", "2", "97", "4", "100")] == [7, 7, 5, 5, 3, 3, 1, 1]
    assert GAME.load_data(None).heads == table.heads


def test_a_users_head_file_replaces_the_shipped_one(tmp_path: Path) -> None:
    lines = ["guess = false", "[heads]", *(f"{c} = {7 if c == 13 else 1}" for c in range(1, 101))]
    path = tmp_path / "my_heads.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    table = GAME.load_data(str(path))
    s = going_out(data=table)
    assert s.scores() == [0, -16]  # 13 -> 7, nine other cards -> 1
    assert s.view(0)["heads_guess"] is False
    again = type(s).from_json(json.loads(json.dumps(s.to_json())))
    assert again.scores() == [0, -16]
    match = Match("11-nimmt", 2, data=table)
    assert match.state.data.heads["13"] == 7


def broken(tmp_path: Path, old: str, new: str) -> str:
    text = SHIPPED.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "heads.toml"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(("old", "new", "message"), [
    ("53 = 5\n", "53 = 9\n", "heads.53: must be 1 to 7"),
    ("53 = 5\n", "53 = 0\n", "heads.53: must be 1 to 7"),
    ("53 = 5\n", '53 = "five"\n', "heads.53: must be a whole number"),
    ("17 = 3\n", "", "heads.17: missing"),
    ("100 = 1\n", "100 = 1\n101 = 1\n", "heads.101: not a card"),
    ("100 = 1\n", '100 = 1\n"01" = 1\n', "heads.01: card 1 is listed twice"),
    ("total = 184", "total = 190", "total: is 190 but the heads listed add up to 184"),
    ("guess = true", "guess = true\ncolour = 1", "colour: unknown key"),
    ("guess = true", 'guess = "yes"', "guess: must be true or false"),
    ("[heads]", "[head]", "head: unknown key"),
    ("53 = 5\n", "53 = 5\n53 = 4\n", "not valid TOML"),
    ("53 = 5\n", "53 = \n", "not valid TOML"),
])
def test_a_broken_head_file_names_the_file_and_the_entry(tmp_path: Path, old: str, new: str, message: str) -> None:
    path = broken(tmp_path, old, new)
    with pytest.raises(DataError) as err:
        GAME.load_data(path)
    assert str(err.value).startswith(f"{path}: "), str(err.value)
    assert message in str(err.value), str(err.value)


def test_missing_heads_table_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text("guess = true\n", encoding="utf-8")
    with pytest.raises(DataError, match="empty.toml: heads: missing"):
        GAME.load_data(str(path))
    with pytest.raises(DataError, match="cannot read the file"):
        GAME.load_data(str(tmp_path / "nowhere.toml"))


# --- bad input -------------------------------------------------------------------------------------


def test_wrong_player_and_malformed_actions_change_nothing() -> None:
    s = dealt([nums(11, range(30, 39)), nums(12, range(40, 49))], flip="10")
    refused(s, {"type": "play", "card": "11", "pile": 0, "player": 1}, "wrong-player")
    for bad in ({"type": "jump"}, {"type": "play", "pile": 0}, {"type": "play", "card": "101", "pile": 0},
                {"type": "play", "card": 11, "pile": 0}, {"type": "play", "card": "11", "pile": "0"},
                {"type": "play", "card": "11", "pile": True}, {"type": "play", "card": "11"},
                {"type": "take"}, {"type": "take", "pile": None}, {"type": "play", "card": "011", "pile": 0}):
        refused(s, bad, "malformed")
    refused(s, {"type": "play", "card": "11", "pile": 7}, "no-pile")
    refused(s, {"type": "take", "pile": 1}, "no-pile")
    refused(s, {"type": "play", "card": "12", "pile": 0}, "not-in-hand")
    refused(s, {"type": "flip", "cards": ["60", "61"]}, "not-now")
    refused(s, {"type": "deal", "hands": None, "flip": "60"}, "not-now")
    refused(s, {"type": "end_turn"}, "must-act")
    refused(s, {"type": "reveal", "seat": 0, "cards": []}, "not-now")


def test_a_deal_must_be_consistent() -> None:
    s = GAME.new_state(2)
    hands = [nums(range(1, 11)), nums(range(11, 21))]
    refused(s, {"type": "deal", "hands": hands, "flip": "5"}, "malformed")  # the 5 is in a hand
    refused(s, {"type": "deal", "hands": hands}, "malformed")
    refused(s, {"type": "deal", "hands": None, "flip": "50"}, "malformed")  # simulation needs the hands
    refused(s, {"type": "deal", "hands": [hands[0][:9], hands[1]], "flip": "50"}, "malformed")
    refused(s, {"type": "deal", "hands": [hands[0], hands[0]], "flip": "50"}, "malformed")
    refused(s, {"type": "deal", "hands": [*hands, hands[0]], "flip": "50"}, "malformed")
    refused(s, {"type": "play", "card": "1", "pile": 0}, "not-now")
    s.apply({"type": "deal", "hands": hands, "flip": "50"})
    assert s.pile == 79 and list(s.piles) == [0] and top(s, 0) == "50"


# --- views, vision, words ----------------------------------------------------------------------------


def test_the_view_shows_tops_and_sizes_but_not_pile_contents() -> None:
    s = bull_setup()
    view = s.view(0)
    assert view["board"]["piles"] == [{"id": 0, "top": "12", "size": 3, "playable": ["13", "22"]}]
    assert "11" not in json.dumps(view["board"])  # under the top: nobody may look
    assert view["hand"] == nums(13, range(30, 38))
    assert view["scores"] is None and view["hand_sizes"] == [9, 9]
    assert view["board"]["bull_supply"] == 10 and view["turn"]["pile_limit"] == 1


def test_observed_cards_and_sentences() -> None:
    s = bull_setup()
    assert s.observed_card({"kind": "number", "value": 45, "color": None}) == "45"
    assert s.observed_card({"kind": "number", "value": 101, "color": None}) is None
    assert s.observed_card({"kind": "bull", "value": None, "color": None}) is None
    assert s.describe({"type": "take", "pile": 0}, "en") == "Player 1 takes the 12 pile (3 cards) and a bull card"
    assert s.describe({"type": "take", "pile": 0}, "fr") == (
        "Joueur 1 prend la pile du 12 (3 cartes) et une carte Buffle")
    assert s.describe({"type": "play", "card": "13", "pile": 0}, "fr") == "Joueur 1 pose le 13 sur la pile du 12"


def test_a_turn_in_progress_survives_json() -> None:
    s = dealt([nums(36, 37, 40, 45, 46, range(60, 65)), nums(range(70, 80))], flip="35", bulls=[1, 0])
    s.apply({"type": "play", "card": "40", "pile": 0})
    again = type(s).from_json(json.loads(json.dumps(s.to_json())))
    assert again.to_json() == s.to_json()
    refused(again, {"type": "play", "card": "46", "pile": 0}, "too-far")  # still measured from the 35
    again.apply({"type": "play", "card": "45", "pile": 0})
    assert again.piles[0] == ["35", "40", "45"]


@pytest.mark.parametrize("players", [2, 4, 7])
def test_whole_rounds_play_out(players: int) -> None:
    for seed in range(2):
        s = GAME.new_state(players, start_player=seed % players)
        playout(s, seed=seed, policy="greedy" if seed else "random", deep=False)
        assert s.is_over and s.end in ("out", "empty")
        if s.end == "out":
            assert s.scores()[s.winner] == 0
