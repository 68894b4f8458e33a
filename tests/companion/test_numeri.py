"""Numeri: the rule book's examples (seed 004, RULES.md section 5) and the track data file."""

from __future__ import annotations

import json
from pathlib import Path
from random import Random
from typing import Any

import pytest

from companion import games
from companion.games import CHANCE, TERMINAL, DataError, IllegalMove, MalformedAction, StateError
from companion.games.numeri import TOKENS, load_data

from .conformance import check_roundtrip, playout

GAME = games.get("numeri")
# The shipped placeholder track (RULES.md 5.6 #1), index: value.
VALUES = [-3, -3, -3, -2, -2, -1, -1, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8, 9, 0, 10, 0, 12, 0, 15,
          0, 18, 0, 0, 20, 25, 30]


def new(players: int, **kwargs: Any) -> games.State:
    return GAME.new_state(players, **kwargs)


def placed(players: int, tokens: dict[str, int], player: int = 0, **kwargs: Any) -> games.State:
    """A position: `tokens` {"Y3": square} on the board, the others off it; `player` rolls next."""
    s = new(players, **kwargs)
    colours = "YRBG"
    for code, square in tokens.items():
        seat, n = colours.index(code[0]), int(code[1:])
        s.pos[seat][n - 1] = square
        s.occ[square] = seat * TOKENS + n - 1
    s.crossed = any(p > s.bar for seat in s.pos for p in seat)
    s.player = player
    assert not s.check_invariants(), s.check_invariants()
    return s


def roll(s: games.State, value: int | str) -> None:
    assert s.current_player == CHANCE
    s.apply({"type": "roll", "value": value})


def move(s: games.State, token: str) -> None:
    s.apply({"type": "move", "token": token})


def tokens(s: games.State) -> list[str]:
    return [a["token"] for a in s.legal_actions() if a["type"] == "move"]


def where(s: games.State, code: str) -> int:
    return s.pos["YRBG".index(code[0])][int(code[1:]) - 1]


def play(s: games.State, value: int | str, *moves: str) -> None:
    roll(s, value)
    for t in moves:
        move(s, t)
    assert not s.check_invariants(), s.check_invariants()


# --- movement --------------------------------------------------------------------------------


def test_movement_example_squares_a_b_c_d() -> None:
    # The seed's yellow, blue and green are seats 1-3 here (yellow, red, blue): the squares are the book's.
    s = new(3)
    play(s, 2, "Y2")
    assert where(s, "Y2") == 0  # A: the start square
    play(s, 4, "R4")
    assert where(s, "R4") == 1  # B: the next free square
    play(s, 1, "B1")
    assert where(s, "B1") == 2  # C
    play(s, 2, "Y2")
    assert where(s, "Y2") == 3  # D: skips B and C
    play(s, 3, "R3")
    assert where(s, "R3") == 0  # the start square is free again: the red 3 enters there


def test_movement_example_with_four_colours() -> None:
    # The same example with the book's colours: red (seat 2) plays in between, twice its 5.
    s = new(4)
    play(s, 2, "Y2")
    play(s, 5, "R5")
    play(s, 4, "B4")
    play(s, 1, "G1")
    assert [where(s, t) for t in ("Y2", "R5", "B4", "G1")] == [0, 1, 2, 3]
    play(s, 2, "Y2")
    assert where(s, "Y2") == 4  # skips the three occupied squares
    play(s, 5, "R5")
    assert where(s, "R5") == 5
    roll(s, 3)
    assert tokens(s) == ["B3"]
    move(s, "B3")
    assert where(s, "B3") == 0  # "il doit replacer le jeton sur la case Départ"


def test_the_roll_names_the_token_and_moving_is_compulsory() -> None:
    s = new(2)
    roll(s, 3)
    assert s.legal_actions() == [{"type": "move", "token": "Y3"}]
    with pytest.raises(IllegalMove) as err:
        move(s, "Y5")
    assert err.value.rule == "wrong-token"
    assert "5 jaune" not in err.value.fr and "3 jaune" in err.value.fr
    with pytest.raises(IllegalMove) as err:
        s.apply({"type": "pass"})
    assert err.value.rule == "must-move" and "yellow 3" in err.value.en


def test_star_moves_any_own_token_that_can_move_and_is_never_split() -> None:
    s = placed(2, {"Y1": 36, "Y2": 20, "R1": 30})
    roll(s, "star")
    assert tokens(s) == ["Y2", "Y3", "Y4", "Y5"]  # not the 1 on the last square
    move(s, "Y3")
    assert where(s, "Y3") == 0 and s.current_player == CHANCE and s.player == 1  # one token only


def test_a_move_skips_any_number_of_occupied_squares() -> None:
    s = placed(2, {"Y1": 3, **{f"R{n}": 3 + n for n in range(1, 6)}, "Y2": 9, "Y3": 10})
    play(s, 1, "Y1")
    assert where(s, "Y1") == 11


# --- splitting -------------------------------------------------------------------------------


def split_example(players: int = 2) -> games.State:
    """The seed's "initial situation": yellow 1, 3, 4 in a row, a free square, a red token."""
    s = placed(players, {"Y1": 12, "Y3": 13, "Y4": 14, "R2": 16, "R5": 20})
    assert s.crossed
    roll(s, 4)
    return s


def test_split_3_then_1_forms_a_row_of_three_again_and_rolls_again() -> None:
    s = split_example()
    assert tokens(s) == ["Y1", "Y3", "Y4"]  # 1 then 3, 3 then 1, or the whole 4 (never 2 + 2)
    move(s, "Y3")  # A
    assert where(s, "Y3") == 15
    assert s.legal_actions() == [{"type": "move", "token": "Y1"}]  # the other half, nothing else
    assert s.view(None)["board"]["partner"] == "Y1"
    with pytest.raises(IllegalMove) as err:
        s.apply({"type": "pass"})
    assert err.value.rule == "must-move"
    move(s, "Y1")  # B: yellow 1, 4, 3 on 13, 14, 15
    assert [where(s, t) for t in ("Y1", "Y4", "Y3")] == [13, 14, 15]
    assert s.current_player == CHANCE and s.player == 0  # yellow rolls again
    assert s.view(None)["turn"]["extra_rolls"] == 1
    assert not s.check_invariants()


def test_moving_the_4_one_square_gives_no_extra_roll() -> None:
    s = split_example()
    move(s, "Y4")  # C
    assert where(s, "Y4") == 15
    assert s.current_player == CHANCE and s.player == 1


def test_split_1_then_3_gives_no_extra_roll() -> None:
    s = split_example()
    move(s, "Y1")  # D: 1 to 15 (a row for a moment), then 3 jumps to 17
    move(s, "Y3")
    assert where(s, "Y1") == 15 and where(s, "Y3") == 17
    assert s.current_player == CHANCE and s.player == 1


def test_no_split_before_the_barrier_is_crossed() -> None:
    s = placed(2, {"Y1": 2, "Y3": 3, "R1": 8})  # barrier 8|9: nobody beyond it yet
    assert not s.crossed
    roll(s, 4)
    assert tokens(s) == ["Y4"]
    with pytest.raises(IllegalMove) as err:
        move(s, "Y1")
    assert err.value.rule == "split-barrier"
    assert "barrière" in err.value.fr and "barrier" in err.value.en


def test_crossing_the_barrier_allows_splitting_for_everybody_from_the_next_roll() -> None:
    s = placed(2, {"Y1": 8, "R1": 5, "R3": 6})
    roll(s, 1)
    move(s, "Y1")  # 8 -> 9: over the 2-player barrier
    assert s.crossed and s.view(None)["board"]["track"]["crossed"]
    roll(s, 3)  # red, the next roll
    assert tokens(s) == ["R1", "R2", "R3"]


def test_the_barrier_depends_on_the_number_of_players() -> None:
    for players, bar in ((2, 8), (3, 10), (4, 12)):
        s = placed(players, {"Y1": bar})
        assert not s.crossed
        assert s.view(None)["board"]["track"]["barrier"] == [bar, bar + 1]
        play(s, 1, "Y1")
        assert s.crossed


@pytest.mark.parametrize("die", [1, 2])
def test_a_1_or_a_2_is_never_split(die: int) -> None:
    s = placed(2, {"R1": 20})
    roll(s, die)
    assert tokens(s) == [f"Y{die}"]
    if die == 2:
        with pytest.raises(IllegalMove) as err:
            move(s, "Y1")
        assert err.value.rule == "split-never"


def test_a_4_splits_into_1_and_3_never_2_and_2() -> None:
    s = placed(2, {"R1": 20})
    roll(s, 4)
    assert tokens(s) == ["Y1", "Y3", "Y4"]
    with pytest.raises(IllegalMove) as err:
        move(s, "Y2")
    assert err.value.rule == "split-pairs"


def test_a_5_splits_into_1_and_4_or_2_and_3_in_either_order() -> None:
    s = placed(2, {"R1": 20})
    roll(s, 5)
    assert tokens(s) == ["Y1", "Y2", "Y3", "Y4", "Y5"]
    move(s, "Y4")
    assert tokens(s) == ["Y1"]
    with pytest.raises(IllegalMove) as err:
        move(s, "Y2")
    assert err.value.rule == "split-partner"


def test_both_split_tokens_must_be_able_to_move() -> None:
    # The 1 stands on the last square: no 3 + 1 or 1 + 3, only the whole 4.
    s = placed(2, {"Y1": 36, "R1": 20})
    roll(s, 4)
    assert tokens(s) == ["Y4"]
    with pytest.raises(IllegalMove) as err:
        move(s, "Y3")
    assert err.value.rule == "split-both"
    with pytest.raises(IllegalMove) as err:
        move(s, "Y1")
    assert err.value.rule == "cannot-move"


def end_split_position(**kwargs: Any) -> games.State:
    """Only square 34 (yellow) is free beyond square 20; the yellow 1 on 20, the yellow 3 on 30."""
    squares = [q for q in range(21, 37) if q not in (30, 34)]
    fillers = ["Y2", "Y5", *(f"{c}{n}" for c in "RBG" for n in range(1, 6))]
    s = placed(4, {"Y1": 20, "Y3": 30, **dict(zip(fillers, squares, strict=False))}, **kwargs)
    roll(s, 4)
    return s


def test_the_order_of_a_split_decides_whether_both_tokens_can_move() -> None:
    s = end_split_position()
    # 1 first would take square 34 and leave the 3 stuck; 3 first frees square 30 for the 1.
    assert tokens(s) == ["Y3", "Y4"]
    with pytest.raises(IllegalMove) as err:
        move(s, "Y1")
    assert err.value.rule == "split-both"


def test_game_ends_in_the_middle_of_a_split_by_default() -> None:
    s = end_split_position()
    move(s, "Y3")  # fills the last yellow square
    assert s.current_player == TERMINAL
    assert where(s, "Y1") == 20  # GUESS 5.6 #3: the second half is not played
    assert not s.check_invariants()


def test_game_ends_after_the_whole_split_when_the_option_says_so() -> None:
    s = end_split_position(options={"end_mid_split": False})
    move(s, "Y3")
    assert s.current_player == 0 and tokens(s) == ["Y1"]
    assert not s.check_invariants()
    move(s, "Y1")
    assert where(s, "Y1") == 30
    assert s.current_player == TERMINAL


# --- pass, extra rolls, end ------------------------------------------------------------------


def test_pass_when_the_1_is_on_the_last_square_and_a_1_is_rolled() -> None:
    s = placed(2, {"Y1": 36, "R1": 20})
    roll(s, 1)
    assert s.legal_actions() == [{"type": "pass"}]
    with pytest.raises(IllegalMove) as err:
        move(s, "Y1")
    assert err.value.rule == "cannot-move" and "dernière case" in err.value.fr
    s.apply({"type": "pass"})
    assert s.current_player == CHANCE and s.player == 1
    assert not s.check_invariants()


def test_extra_rolls_repeat() -> None:
    s = placed(2, {"Y1": 0, "Y2": 1, "R1": 2})
    play(s, 3, "Y3")  # 0, 1, 3: no row
    assert s.player == 1
    s = placed(2, {"Y1": 0, "Y2": 1})
    turns = s.turns
    play(s, 3, "Y3")  # 0, 1, 2: a new row of three
    assert s.player == 0 and s.current_player == CHANCE
    play(s, 4, "Y4")  # 0..3: the row grows: again
    assert s.player == 0 and s.view(None)["turn"]["extra_rolls"] == 2
    play(s, 1, "Y1")  # the 1 jumps from 0 to 4: 1..4, rearranged: again
    play(s, 5, "Y5")  # the 5 enters on the free start square: 0..4: again
    play(s, "star", "Y2")  # the 2 jumps from 1 to 5: 2..5 with the 2 in it: again
    assert s.player == 0 and s.view(None)["turn"]["extra_rolls"] == 5 and s.turns == turns
    play(s, 1, "Y1")  # the 1 jumps from 4 to 6: 2-3 and 5-6, no row of three: red's turn
    assert [where(s, f"Y{n}") for n in range(1, 6)] == [6, 5, 2, 3, 0]
    assert s.player == 1 and s.turns == turns + 1 and s.view(None)["turn"]["extra_rolls"] == 0


def test_an_unchanged_chain_gives_no_extra_roll() -> None:
    # A chain of three stands; another token moves elsewhere.
    s = placed(2, {"Y1": 10, "Y2": 11, "Y3": 12, "R1": 20})
    play(s, 5, "Y5")
    assert s.player == 1
    # A token leaves a chain of four, leaving three unchanged ones: no extra roll (5.6 #4).
    s = placed(2, {"Y1": 10, "Y2": 11, "Y3": 12, "Y4": 13, "R1": 14})
    play(s, 1, "Y1")
    assert where(s, "Y1") == 15 and s.player == 1


def test_game_ends_when_the_three_yellow_squares_are_occupied() -> None:
    s = placed(2, {"Y1": 33, "R1": 34, "R2": 35})
    play(s, 1, "Y1")
    assert where(s, "Y1") == 36
    assert s.is_over and s.current_player == TERMINAL
    assert s.legal_actions() == []
    with pytest.raises(IllegalMove):
        s.apply({"type": "roll", "value": 1})
    view = s.view(0)
    assert view["is_over"] and view["winners"] == s.winners()
    # Two yellow squares occupied is not the end.
    s = placed(2, {"Y1": 33, "R1": 34, "R2": 36})
    play(s, 3, "Y3")
    assert not s.is_over


def test_scoring_example_totals_52() -> None:
    # Green: 2 on 25, 3 on 9, 5 on -1, 4 never placed, 1 on a blank square.
    s = placed(4, {"G2": 35, "G3": 23, "G5": 5, "G1": 7, "Y1": 33, "R1": 34})
    assert VALUES[35] == 25 and VALUES[23] == 9 and VALUES[5] == -1 and VALUES[7] == 0
    play(s, 1, "Y1")  # yellow fills square 36: the end
    assert s.is_over
    assert s.scores()[3] == 50 + 27 - 5 - 20 + 0 == 52
    # Yellow: 1 on 30, the 2..5 never placed; red: 1 on 20, the others never placed; blue: all off.
    assert s.scores() == [30 - 5 * 14, 20 - 5 * 14, -5 * 15, 52]
    assert s.winners() == [3]


def test_ties_are_shared() -> None:
    # Yellow: 1 on 20, 2 on 30 (after the star), 3 and 4 on blanks, 5 never placed = 55.
    # Red: 1 on 25, 2, 3, 4 on blanks, 5 on 6 = 55.
    s = placed(2, {"Y1": 34, "Y2": 33, "Y3": 13, "Y4": 15, "R1": 35, "R2": 7, "R3": 9, "R4": 11, "R5": 18})
    play(s, "star", "Y2")  # 33 -> 36: the end
    assert s.is_over and where(s, "Y2") == 36
    assert s.scores() == [20 + 60 + 0 + 0 - 25, 25 + 0 + 0 + 0 + 30] == [55, 55]
    assert s.winners() == [0, 1]  # GUESS 5.6 #7: a shared win
    assert s.view(None)["winners"] == [0, 1]


def test_live_scores_are_public() -> None:
    s = placed(3, {"Y5": 36, "B1": 5})
    view = s.view(1)
    assert view["scores"] == s.scores() == [150 - 5 * 10, -5 * 15, -1 - 5 * 14]
    assert view["hand"] == ["R1", "R2", "R3", "R4", "R5"]
    assert view["hand_sizes"] == [4, 5, 4]
    assert view["board"]["squares"] == {"5": "B1", "36": "Y5"}
    assert view["board"]["off_board"][0] == ["Y1", "Y2", "Y3", "Y4"]
    assert view["board"]["track"]["values"] == VALUES
    assert view["board"]["track"]["yellow"] == [34, 35, 36]
    json.dumps(view)


# --- bad input, table mode, serialisation ----------------------------------------------------


def test_bad_input_is_refused_and_changes_nothing() -> None:
    s = new(3)
    roll(s, 4)
    before = s.to_json()
    bad: list[tuple[dict[str, Any], type[IllegalMove], str]] = [
        ({"type": "move", "token": "Y4", "player": 1}, IllegalMove, "wrong-player"),
        ({"type": "move", "token": "R4"}, IllegalMove, "not-yours"),
        ({"type": "move", "token": "G4"}, IllegalMove, "not-in-game"),
        ({"type": "move", "token": "Y6"}, MalformedAction, "malformed"),
        ({"type": "move", "token": "ZZ"}, MalformedAction, "malformed"),
        ({"type": "move", "token": 4}, MalformedAction, "malformed"),
        ({"type": "move"}, MalformedAction, "malformed"),
        ({"type": "jump", "token": "Y4"}, MalformedAction, "malformed"),
        ({"type": "roll", "value": 3}, IllegalMove, "not-now"),
        ({"type": "pass"}, IllegalMove, "must-move"),
    ]
    for action, kind, rule in bad:
        with pytest.raises(kind) as err:
            s.apply(action)
        assert err.value.rule == rule, action
        assert s.to_json() == before
    move(s, "Y4")
    for value in (0, 6, "6", "Star", None, True, 2.0):
        with pytest.raises(MalformedAction):
            s.apply({"type": "roll", "value": value})
    with pytest.raises(IllegalMove) as err:
        move(s, "R4")
    assert err.value.rule == "not-now"


def test_table_mode_is_simulation_with_the_die_read_at_the_table() -> None:
    sim, table = new(3), new(3, table_mode=True)
    rng = Random(5)
    while not sim.is_over:
        assert table.legal_actions() == sim.legal_actions()
        action = sim.sample_chance(rng) if sim.current_player == CHANCE else rng.choice(sim.legal_actions())
        sim.apply(action)
        table.apply(action)
    assert table.is_over and table.scores() == sim.scores() and table.claims == []
    assert new(2, table_mode=True).legal_actions() == [{"type": "roll", "value": v} for v in (1, 2, 3, 4, 5, "star")]


def test_observed_tokens() -> None:
    s = new(3)
    assert s.observed_card({"kind": "number", "value": 3, "color": "blue"}) == "B3"
    assert s.observed_card({"value": 5, "color": "yellow"}) == "Y5"
    assert s.observed_card({"value": 3, "color": "green"}) is None  # green is not in a 3-player game
    assert s.observed_card({"value": 6, "color": "red"}) is None
    assert s.observed_card({"kind": "bull", "value": 1, "color": None}) is None


def test_a_whole_game_round_trips_and_ends() -> None:
    for players in (2, 3, 4):
        s = new(players)
        playout(s, seed=players, policy="greedy")
        assert s.is_over and s.yellow_full()


def oracle_moves(s: games.State) -> list[str]:
    """The legal moves, worked out naively from the rules (RULES.md 5.4) on plain sets."""
    seat, die, length = s.player, s.die, len(VALUES)
    occupied = {p for pos in s.pos for p in pos if p >= 0}

    def dest(p: int, occ: set[int]) -> int | None:
        return next((q for q in range(p + 1, length) if q not in occ), None)

    def at(n: int) -> int:
        return s.pos[seat][n - 1]

    if s.phase == "split":
        return [f"{'YRBG'[seat]}{s.partner}"]
    ok: set[int] = set()
    if die == "star":
        ok = {n for n in range(1, 6) if dest(at(n), occupied) is not None}
    else:
        if dest(at(die), occupied) is not None:
            ok.add(die)
        crossed = any(p > s.bar for pos in s.pos for p in pos)
        for a in range(1, 6):
            b = die - a
            if die in (3, 4, 5) and crossed and 1 <= b <= 5 and a != b:
                first = dest(at(a), occupied)
                if first is not None and dest(at(b), (occupied - {at(a)}) | {first}) is not None:
                    ok.add(a)
    return [f"{'YRBG'[seat]}{n}" for n in sorted(ok)]


def oracle_extra_roll(s: games.State, seat: int, moved: list[int]) -> bool:
    own = {p for p in s.pos[seat] if p >= 0}
    for n in moved:
        p = s.pos[seat][n - 1]
        lo, hi = p, p
        while lo - 1 in own:
            lo -= 1
        while hi + 1 in own:
            hi += 1
        if hi - lo + 1 >= 3:
            return True
    return False


@pytest.mark.parametrize("players", [2, 3, 4])
def test_legal_moves_and_extra_rolls_agree_with_a_naive_model(players: int) -> None:
    rng = Random(players)
    extra_rolls = 0
    for _ in range(15):
        s = new(players)
        moved: list[int] = []
        while not s.is_over:
            if s.current_player == CHANCE:
                s.apply(s.sample_chance(rng))
                moved = []
                continue
            expected = oracle_moves(s)
            assert tokens(s) == expected
            if not expected:
                assert s.legal_actions() == [{"type": "pass"}]
            seat = s.player
            action = rng.choice(s.legal_actions())
            if action["type"] == "move":
                moved.append(int(action["token"][1:]))
            s.apply(action)
            if s.current_player == CHANCE:  # the roll is over: the same seat again iff a chain was made
                again = oracle_extra_roll(s, seat, moved)
                assert (s.player == seat) == again
                extra_rolls += again
        assert s.yellow_full()
    assert extra_rolls > 10  # the check above was exercised both ways


# --- the track data file ---------------------------------------------------------------------

SMALL_TRACK = """
squares = [
  { value = -1 }, { value = 0 }, { value = 2 }, { value = 4 },
  { value = 0 }, { value = 7 }, { value = 10 }, { value = 20 }, { value = 40 },
]
[yellow]
squares = [6, 7, 8]
[barriers.2]
between = [1, 2]
[barriers.3]
between = [2, 3]
[barriers.4]
between = [3, 4]
"""


def test_the_shipped_track_marks_what_is_a_guess() -> None:
    track = load_data()
    assert list(track.values) == VALUES
    assert track.yellow == (34, 35, 36)
    assert [track.values[i] for i in track.yellow] == [20, 25, 30]
    assert not track.yellow_guess
    sourced = [i for i, g in enumerate(track.value_guess) if not g]
    assert sourced == [0, 1, 2, 34, 35, 36]  # the -3 start values and the yellow 20, 25, 30
    assert [(n, b) for n, b, _ in track.barriers] == [(2, 8), (3, 10), (4, 12)]
    assert all(g for _, _, g in track.barriers)
    assert GAME.load_data(None) == track


def test_a_users_track_file_replaces_the_shipped_one(tmp_path: Path) -> None:
    path = tmp_path / "my_board.toml"
    path.write_text(SMALL_TRACK, encoding="utf-8")
    track = GAME.load_data(str(path))
    assert track.values == (-1, 0, 2, 4, 0, 7, 10, 20, 40)
    assert track.source == str(path)
    s = GAME.new_state(3, data=track)
    assert s.view(None)["board"]["track"]["barrier"] == [2, 3]
    assert not s.view(None)["board"]["track"]["values_guessed"]
    play(s, 1, "Y1")
    play(s, 1, "R1")
    play(s, 1, "B1")
    play(s, 2, "Y2")
    assert s.view(None)["board"]["squares"] == {"0": "Y1", "1": "R1", "2": "B1", "3": "Y2"}
    assert s.crossed  # over 2|3 on this board
    check_roundtrip(s)
    again = type(s).from_json(json.loads(json.dumps(s.to_json())))
    assert again.data == track
    for players in (2, 3, 4):
        end = GAME.new_state(players, data=track)
        playout(end, seed=players)
        assert end.is_over and all(end.occ[q] >= 0 for q in (6, 7, 8))


def test_a_broken_saved_track_is_a_state_error() -> None:
    saved = new(2).to_json()
    saved["data"]["yellow"]["squares"] = [1, 2, 3]
    with pytest.raises(StateError):
        type(new(2)).from_json(saved)


def replace(text: str, old: str, new_text: str) -> str:
    assert old in text
    return text.replace(old, new_text, 1)


BROKEN = [
    ("squares = [ { value = 1 }", "not valid TOML"),
    (replace(SMALL_TRACK, "{ value = 2 }", '{ value = "2" }'), "squares[2].value: must be a whole number"),
    (replace(SMALL_TRACK, "{ value = 2 }", "{ value = 2.5 }"), "squares[2].value: must be a whole number"),
    (replace(SMALL_TRACK, "{ value = 2 }", "{ value = true }"), "squares[2].value: must be a whole number"),
    (replace(SMALL_TRACK, "{ value = 2 }", "{ valeur = 2 }"), "squares[2].valeur: unknown key"),
    (replace(SMALL_TRACK, "{ value = 2 }", "{ }"), "squares[2].value: missing"),
    (replace(SMALL_TRACK, "{ value = 2 }", '{ value = 2, guess = "yes" }'), "squares[2].guess: must be true or false"),
    (replace(SMALL_TRACK, "{ value = 2 }", "7"), "squares[2] must be a table"),
    (SMALL_TRACK.split("[yellow]")[0].replace("squares", "cases") + "[yellow]" + SMALL_TRACK.split("[yellow]")[1],
     "cases: unknown key"),
    ("squares = [{ value = 0 }, { value = 20 }, { value = 25 }]\n[yellow]\nsquares = [0, 1, 2]\n",
     "squares: a track needs at least 4 squares"),
    (replace(SMALL_TRACK, "squares = [6, 7, 8]", "squares = [5, 7, 8]"),
     "yellow.squares: the yellow squares are the last three"),
    (replace(SMALL_TRACK, "squares = [6, 7, 8]", "squares = [6, 7]"), "yellow.squares"),
    (replace(SMALL_TRACK, "[yellow]\nsquares = [6, 7, 8]", ""), "yellow: missing"),
    (replace(SMALL_TRACK, "[barriers.3]\nbetween = [2, 3]", ""), "barriers.3: missing"),
    (replace(SMALL_TRACK, "[barriers.4]\nbetween = [3, 4]", "[barriers.4]\nbetween = [8, 9]"),
     "barriers.4.between: the barrier must lie inside the track"),
    (replace(SMALL_TRACK, "[barriers.4]\nbetween = [3, 4]", "[barriers.4]\nbetween = [-1, 0]"),
     "barriers.4.between: the barrier must lie inside the track"),
    (replace(SMALL_TRACK, "[barriers.2]\nbetween = [1, 2]", "[barriers.2]\nbetween = [1, 3]"),
     "barriers.2.between: two neighbouring squares"),
    (replace(SMALL_TRACK, "[barriers.2]\nbetween = [1, 2]", "[barriers.2]\nbetween = 1"),
     "barriers.2.between: must be a list"),
    (SMALL_TRACK + "[barriers.5]\nbetween = [3, 4]\n", "barriers.5: unknown key"),
    (SMALL_TRACK + "[board]\nname = 'x'\n", "board: unknown key"),
]


@pytest.mark.parametrize(("text", "message"), BROKEN)
def test_a_broken_track_file_names_the_file_and_the_entry(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "track.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_data(str(path))
    assert str(path) in str(err.value)
    assert message in str(err.value), str(err.value)


def test_a_missing_track_file_is_a_data_error(tmp_path: Path) -> None:
    with pytest.raises(DataError) as err:
        load_data(str(tmp_path / "nope.toml"))
    assert "nope.toml" in str(err.value) and "cannot read" in str(err.value)
