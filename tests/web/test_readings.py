"""Camera readings on the phones: a proposal to confirm or correct, a problem shown with its rule."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from random import Random
from typing import Any

import pytest
from flask import Flask

from companion.referee import Actor, Referee
from companion.session import Session
from companion.store import Store

from .conftest import HOST, Phone, make_app

CAMERA = Actor("camera")


def scripted(session: Session, observation: Mapping[str, Any]) -> dict[str, Any]:
    """The test plays the recogniser: the observation carries the verdict to return."""
    return dict(observation["verdict"])


@pytest.fixture
def watched(store: Store) -> Referee:
    referee = Referee(store, rng=Random(1), perceive=scripted)
    assert referee.handle({"type": "new_match", "game": "elfer-raus-junior", "players": ["Ana", "Ben"]}, HOST).ok
    return referee


@pytest.fixture
def site(watched: Referee, tmp_path: Path) -> Flask:
    return make_app(watched, tmp_path)


def observe(referee: Referee, verdict: dict[str, Any]) -> None:
    assert referee.handle({"type": "observation", "observation": {"verdict": verdict}}, CAMERA).ok


def test_a_doubtful_reading_is_confirmed_with_the_right_choice(site: Flask, watched: Referee) -> None:
    observe(watched, {"kind": "proposal", "key": "a", "confidence": 0.55,
                      "seen": {"kind": "number", "value": 2, "color": "yellow"},
                      "options": [[{"type": "play", "card": "Y2"}], [{"type": "play", "card": "R2"}]]})
    ana, watcher = Phone(site).join("player:0"), Phone(site, lang="en")
    view = watcher.state()["proposal_view"]
    assert [o[0]["en"] for o in view["options"]] == ["Play the yellow 2", "Play the red 2"]
    assert view["seen"]["en"] == "yellow 2" and view["confidence"] == 0.55
    assert watcher.post({"type": "confirm", "id": view["id"], "choice": 1}).status_code == 401  # watchers watch
    resp = ana.post({"type": "confirm", "id": view["id"], "choice": 1})
    assert resp.status_code == 200, resp.json
    state = ana.state()
    assert state["proposal_view"] is None and state["table"]["board"]["rows"]["red"] == [1, 2, 11]
    assert ana.post({"type": "confirm", "id": view["id"], "choice": 0}).status_code == 409  # already settled


def test_a_problem_shows_expected_and_seen_and_the_rule_in_words(site: Flask, watched: Referee) -> None:
    observe(watched, {"kind": "problem", "key": "p", "rule": "does-not-fit",
                      "expected": [{"type": "play", "card": "Y2"}],
                      "seen": [{"kind": "number", "value": 5, "color": "yellow"}],
                      "fr": "Le 5 jaune ne va pas à côté du 1 : il faut le 2 jaune.",
                      "en": "The yellow 5 does not fit next to the 1: the yellow 2 is needed."})
    fr, en = Phone(site).state()["problem_view"], Phone(site, lang="en").state()["problem_view"]
    assert fr["message"]["fr"].startswith("Le 5 jaune ne va pas")
    assert en["expected"]["en"] == "Play the yellow 2" and en["seen"]["en"] == "yellow 5"
    ben = Phone(site).join("player:1")
    assert ben.post({"type": "reject", "id": fr["id"]}).status_code == 200  # dismissed from a phone
    assert ben.state()["problem_view"] is None


def test_the_player_at_a_chance_step_gets_the_tables_choices(app: Flask, host: Phone) -> None:
    host.post({"type": "new_match", "game": "elfer-raus", "players": ["Ana", "Ben"]})
    ana, ben = Phone(app).join("player:0"), Phone(app).join("player:1")
    mine = ana.state()
    assert mine["waiting_for"] == "open"
    labels = [m["label"]["fr"] for m in mine["me"]["moves"]]
    assert "Ana ouvre avec le 11 rouge" in labels and "Personne n'a de 11 : on redistribue" in labels
    assert ben.state()["me"]["moves"] == []
    choice = next(m["action"] for m in mine["me"]["moves"] if m["action"] == {"type": "open", "seat": 1,
                                                                              "card": "R11"})
    assert ana.post({"type": "action", "action": choice}).status_code == 200
    assert ana.state()["table"]["board"]["rows"]["red"]["span"] == [11, 11]


def test_the_journal_names_the_players(site: Flask, watched: Referee) -> None:
    ana = Phone(site).join("player:0")
    ana.post({"type": "action", "action": {"type": "play", "card": "Y2"}})
    texts = [e["text"]["fr"] for e in ana.state()["journal"]]
    assert texts[-1] == "Ana pose le 2 jaune"
    watched.handle({"type": "undo"}, HOST)
    assert ana.state()["journal"][-1]["text"]["en"] == "Move undone"


# --- with the real recogniser glue (companion.perception) ------------------------------------


def card(code: str, conf: float = 0.99) -> dict[str, Any]:
    colours = {"Y": "yellow", "R": "red", "B": "blue", "G": "green"}
    return {"kind": "number", "value": int(code[1:]), "color": colours[code[0]],
            "corners": [[0, 0], [10, 0], [10, 15], [0, 15]], "confidence": conf}


BASE = ["Y1", "Y11", "R1", "R11", "B1", "B11", "G1", "G11"]


@pytest.fixture
def perceived(store: Store, tmp_path: Path) -> tuple[Flask, Referee]:
    from companion.perception import Perceiver

    referee = Referee(store, rng=Random(1), perceive=Perceiver())
    assert referee.handle({"type": "new_match", "game": "elfer-raus-junior", "players": ["Ana", "Ben"]}, HOST).ok
    return make_app(referee, tmp_path), referee


def look(referee: Referee, codes: list[str], conf: float = 0.99) -> None:
    assert referee.handle({"type": "observation", "observation": {"cards": [card(c, conf) for c in codes]}},
                          CAMERA).ok


def test_an_illegal_card_on_the_table_is_explained_on_every_phone(perceived: tuple[Flask, Referee]) -> None:
    app, referee = perceived
    look(referee, BASE)
    look(referee, [*BASE, "Y4"])
    fr, en = Phone(app).state()["problem_view"], Phone(app, lang="en").state()["problem_view"]
    assert fr["rule"] == "does-not-fit"
    assert "4 jaune" in fr["message"]["fr"] and "yellow 4" in en["message"]["en"]
    assert en["seen"]["en"] == "yellow 4" and "yellow 2" in en["expected"]["en"]
    look(referee, BASE)  # the card is taken back
    assert Phone(app).state()["problem_view"] is None


def test_a_doubtful_card_is_confirmed_from_the_phone(perceived: tuple[Flask, Referee]) -> None:
    app, referee = perceived
    look(referee, BASE)
    look(referee, [*BASE, "Y2"], conf=0.5)
    ana = Phone(app).join("player:0")
    view = ana.state()["proposal_view"]
    assert view["why"]["fr"] == "Lecture peu sûre." and view["options"] == [[{"fr": "Poser le 2 jaune",
                                                                              "en": "Play the yellow 2"}]]
    assert ana.post({"type": "confirm", "id": view["id"], "choice": 0}).status_code == 200
    assert ana.state()["table"]["board"]["rows"]["yellow"] == [1, 2, 11]
