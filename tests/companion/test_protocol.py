"""Conformance of every registered game, variant and player count (DESIGN section 3)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from companion import games
from companion.games import CHANCE

from .conformance import check_roundtrip, playout, table_twin

CASES = [
    (g.info.id, v, n)
    for g in games.all_games()
    for v in [None, *(x.id for x in g.info.variants)]
    for n in range(g.info.min_players, g.info.max_players + 1)
]


@pytest.mark.parametrize(("game_id", "variant", "players"), CASES)
def test_random_playouts(game_id: str, variant: str | None, players: int) -> None:
    game = games.get(game_id)
    for seed in range(2):
        state = game.new_state(players, variant, start_player=seed % players)
        playout(state, seed=seed * 7 + players, policy="random" if seed == 0 else "greedy")
        assert len(state.scores()) == players
        assert state.winners()


@pytest.mark.parametrize(("game_id", "variant", "players"), CASES)
def test_table_mode_agrees_with_simulation(game_id: str, variant: str | None, players: int) -> None:
    game = games.get(game_id)
    for seed in range(3):
        def make(table_mode: bool, seed: int = seed) -> games.State:
            return game.new_state(players, variant, start_player=seed % players, table_mode=table_mode)
        table_twin(make, seed=100 + seed, policy="random" if seed % 2 else "greedy")


@pytest.mark.parametrize("game_id", games.ids())
def test_metadata_is_complete(game_id: str) -> None:
    info = games.get(game_id).info
    assert info.name.fr and info.name.en
    assert info.winner in ("highest", "lowest")
    for opt in info.options:
        assert opt.description.fr and opt.description.en
        assert opt.default in opt.choices
    json.dumps(info.to_json())


@pytest.mark.parametrize("game_id", games.ids())
def test_broken_json_gives_a_clear_error(game_id: str) -> None:
    game = games.get(game_id)
    state = game.new_state(game.info.min_players)
    saved = state.to_json()
    for broken in ({}, {**saved, "game": "chess"}, {**saved, "state": {}}, {**saved, "players": "x"},
                   {**saved, "options": {"no-such-option": 1}}):
        with pytest.raises(games.StateError):
            type(state).from_json(broken)


@pytest.mark.parametrize("game_id", games.ids())
def test_describe_in_both_languages(game_id: str) -> None:
    game = games.get(game_id)
    state = game.new_state(game.info.min_players)
    from random import Random

    rng = Random(3)
    for _ in range(60):
        if state.is_over:
            break
        action = state.sample_chance(rng) if state.current_player == CHANCE else rng.choice(state.legal_actions())
        fr, en = state.describe(action, "fr"), state.describe(action, "en")
        assert fr and en and fr != json.dumps(action)
        state.apply(action)
    check_roundtrip(state)


def test_games_import_only_the_standard_library() -> None:
    import sys

    root = Path(games.__file__).parent
    stdlib = set(sys.stdlib_module_names)
    for path in root.glob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name.split(".")[0] in stdlib | {"__future__"}, f"{path.name} imports {name}"


def test_the_game_list_does_not_depend_on_import_order() -> None:
    import subprocess
    import sys

    code = "import companion.games.numeri, companion.games.elevens; from companion import games; print(games.ids())"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == str(games.ids())
    assert games.ids() == ["start11", "elevens", "elfer-raus-junior", "elfer-raus", "11-nimmt", "numeri"]
