"""Moves named in words for the buttons, in both languages, for every game; the card picker decks."""

from __future__ import annotations

from collections import Counter
from random import Random

import pytest

from companion import games
from companion.games import elevens, elfer_raus_junior, nimmt11
from companion.match import Match
from web import moves


@pytest.mark.parametrize(("action", "fr", "en"), [
    ({"type": "play", "card": "Y5"}, "Poser le 5 jaune", "Play the yellow 5"),
    ({"type": "play", "card": "45", "pile": 2}, "Jouer le 45 sur la pile 2", "Play 45 on pile 2"),
    ({"type": "play", "card": "J", "row": "red", "value": 6}, "Poser un joker à la place du 6 rouge",
     "Play a joker as the red 6"),
    ({"type": "place", "tile": "B4", "square": "blue:4"}, "Poser le 4 bleu", "Place the blue 4"),
    ({"type": "place", "tile": "X13", "square": "green:13"}, "Poser le 13 gris (joker) : case 13 de la rangée verte",
     "Place the grey 13 (joker): green row, square 13"),
    ({"type": "place", "tile": "star", "square": "blue:right"},
     "Poser la tuile étoile : case symbole droite de la rangée bleue",
     "Place the star tile: blue row, right symbol"),
    ({"type": "draw"}, "Je ne peux pas jouer : je pioche", "I cannot play: I draw"),
    ({"type": "end_turn"}, "Finir mon tour", "End my turn"),
    ({"type": "link", "from": "yellow", "to": "blue", "value": 9}, "Lien : 9 jaune → 9 bleu",
     "Link: yellow 9 → blue 9"),
    ({"type": "open", "seat": 1, "card": "R11"}, "Ben ouvre avec le 11 rouge", "Ben opens with the red 11"),
    ({"type": "roll", "value": "star"}, "Dé : étoile", "Die: star"),
    ({"type": "drawn", "card": None}, "Carte piochée (cachée)", "Card drawn (hidden)"),
    ({"type": "give", "tile": None}, "Donner une tuile face cachée au voisin de gauche",
     "Give a tile face down to the left neighbour"),
])
def test_labels(action: dict[str, object], fr: str, en: str) -> None:
    out = moves.describe(action, ["Ana", "Ben"], {})
    assert out["label"] == {"fr": fr, "en": en}
    assert out["action"] == action


def test_numeri_moves_say_where_the_token_lands() -> None:
    table = {"board": {"squares": {"0": "Y1", "1": "R1"}, "track": {"values": [-3, -3, -2, 0, 1]}}}
    out = moves.describe({"type": "move", "token": "Y1"}, ["Ana", "Ben"], table)
    assert out["label"]["fr"] == "Avancer le pion 1 jaune → case 2 (valeur -2)"
    out = moves.describe({"type": "move", "token": "Y2"}, ["Ana", "Ben"], table)
    assert out["label"]["en"] == "Bring in the yellow 2 token → square 2 (value -2)"


def test_play_moves_are_grouped_by_row_colour() -> None:
    out = moves.describe({"type": "play", "card": "G7"}, [], {})
    assert out["group"]["key"] == "colour:green" and out["group"]["fr"] == "Rangée verte"


@pytest.mark.parametrize("game", games.ids())
def test_every_legal_action_of_every_game_gets_a_label_in_both_languages(game: str) -> None:
    """Random playouts (hands known) through every round: no action is left unnamed."""
    info = games.get(game).info
    rng = Random(11)
    for players in sorted({info.min_players, info.max_players}):
        m = Match(game, players, rounds=1)
        for _ in range(400):
            state = m.state
            if state.is_over:
                break
            legal = state.legal_actions()
            view = state.view(None)
            for action in legal[:60]:
                out = moves.describe(action, [f"P{i}" for i in range(players)], view)
                for lang in ("fr", "en"):
                    text = out["label"][lang]
                    assert text and "{" not in text and "None" not in text, (game, action, text)
                    assert not text.startswith(action["type"] + " ") or action["type"] in ("deal",), (game, text)
            action = state.sample_chance(rng) if state.is_chance else rng.choice(legal)
            m.apply(action)


def test_card_picker_decks_match_the_engines() -> None:
    assert Counter(dict(moves.deck("elfer-raus-junior"))) == Counter(elfer_raus_junior.DECK)
    assert Counter(dict(moves.deck("elevens"))) == Counter(elevens.DECK)
    assert [c for c, _ in moves.deck("11-nimmt")] == list(nimmt11.CARDS)
    assert moves.deck("numeri") == []
    start = dict(moves.deck("start11"))
    assert sum(start.values()) == 80 and start["X13"] == 4 and "Y3" not in start
    assert sum(n for _c, n in moves.deck("start11", "symbols")) == 88
    assert sum(n for _c, n in moves.deck("elfer-raus")) == 80


def test_problems_and_proposals_in_words() -> None:
    view = moves.problem_view({"id": "p1", "expected": [{"type": "play", "card": "Y5"}],
                               "seen": {"kind": "number", "value": 7, "color": "yellow"},
                               "rule": "does-not-fit", "fr": "Le 7 jaune ne va pas là.",
                               "en": "The yellow 7 does not fit there."}, ["Ana"], {})
    assert view["expected"]["fr"] == "Poser le 5 jaune"
    assert view["seen"] == {"fr": "7 jaune", "en": "yellow 7"}
    assert view["message"]["en"] == "The yellow 7 does not fit there."
    prop = moves.proposal_view({"id": "q", "options": [[{"type": "play", "card": "R6"}], [{"type": "play",
                                "card": "R9"}]], "confidence": 0.7}, [], {})
    assert [o[0]["en"] for o in prop["options"]] == ["Play the red 6", "Play the red 9"]
    assert moves.proposal_view(None, [], {}) is None
