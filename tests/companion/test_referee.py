"""The referee: commands in, durable events out, state = replay of the events."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.referee import Actor, Referee
from companion.session import Session
from companion.store import Store

HOST = Actor("host")
P0 = Actor("player", 0)
P1 = Actor("player", 1)
SPECTATOR = Actor("spectator")


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "companion.sqlite3"


def kinds(store: Store, ref: Referee) -> list[str]:
    assert ref.match_id is not None
    return [e.kind for e in store.events(ref.match_id)]


def junior(db: Path) -> tuple[Referee, Store]:
    store = Store.open(db)
    ref = Referee(store)
    out = ref.handle({"type": "new_match", "game": "elfer-raus-junior", "players": ["Ana", "Ben"]}, HOST)
    assert out.ok, out.error
    return ref, store


def test_new_match_deals_hidden_hands_automatically(db: Path) -> None:
    ref, store = junior(db)
    snap = ref.snapshot()
    assert snap["game"] == "elfer-raus-junior"
    assert snap["players"] == ["Ana", "Ben"]
    assert snap["table"]["hand_sizes"] == [5, 5]
    assert snap["version"] == 2  # setup + the hidden deal
    assert kinds(store, ref) == ["setup", "action"]


def test_a_legal_move_is_stored_then_visible_and_an_illegal_one_changes_nothing(db: Path) -> None:
    ref, store = junior(db)
    v = ref.version
    bad = ref.handle({"type": "action", "action": {"type": "play", "card": "Y5"}, "version": v}, P0)
    assert not bad.ok and bad.status == 422 and "5 jaune" in bad.message("fr")
    assert ref.version == v and len(kinds(store, ref)) == 2
    good = ref.handle({"type": "action", "action": {"type": "play", "card": "Y2"}, "version": v}, P0)
    assert good.ok and ref.version == v + 1
    assert ref.snapshot()["table"]["board"]["rows"]["yellow"] == [1, 2, 11]


def test_roles_and_stale_versions(db: Path) -> None:
    ref, _ = junior(db)
    v = ref.version
    assert ref.handle({"type": "draw", "version": v}, SPECTATOR).status == 403
    assert ref.handle({"type": "draw", "version": v}, P1).status == 403  # not their turn
    assert ref.handle({"type": "draw", "version": v - 1}, P0).status == 409
    assert ref.handle({"type": "round_correction", "round": 0, "scores": [1, 2]}, P0).status == 403
    assert ref.handle({"type": "nonsense"}, P0).status == 400
    assert ref.handle({"type": "draw", "version": v}, P0).ok


def test_two_phones_pressing_at_once_act_once(db: Path) -> None:
    ref, _ = junior(db)
    v = ref.version
    first = ref.handle({"type": "draw", "version": v}, P0)
    second = ref.handle({"type": "draw", "version": v}, P0)
    assert first.ok and second.status == 409


def test_undo_replays_and_keeps_history(db: Path) -> None:
    ref, store = junior(db)
    ref.handle({"type": "action", "action": {"type": "play", "card": "Y2"}}, P0)
    ref.handle({"type": "action", "action": {"type": "play", "card": "Y3"}}, P0)
    assert ref.snapshot()["table"]["board"]["rows"]["yellow"] == [1, 2, 3, 11]
    assert ref.handle({"type": "undo"}, P0).ok
    assert ref.snapshot()["table"]["board"]["rows"]["yellow"] == [1, 2, 11]
    assert ref.handle({"type": "undo", "turn": True}, P0).ok
    assert ref.snapshot()["table"]["board"]["rows"]["yellow"] == [1, 11]
    assert ref.handle({"type": "undo"}, P0).status == 422  # the deal is not undone
    assert kinds(store, ref) == ["setup", "action", "action", "action", "undo", "undo"]


def test_restart_resumes_exactly(db: Path) -> None:
    ref, store = junior(db)
    ref.handle({"type": "action", "action": {"type": "play", "card": "Y2"}}, P0)
    ref.handle({"type": "end_turn"}, P0)
    before = ref.snapshot()
    store.close()
    again = Referee(Store.open(db))
    assert again.snapshot() == before
    assert again.session is not None
    assert again.session.match.state.to_json() == ref.session.match.state.to_json()  # type: ignore[union-attr]


def test_draw_button_records_a_hidden_draw_and_a_claim(db: Path) -> None:
    ref, _ = junior(db)
    assert ref.handle({"type": "draw"}, Actor("button")).ok
    snap = ref.snapshot()
    assert snap["table"]["hand_sizes"] == [6, 5]
    assert snap["table"]["claims"][0]["status"] == "open"
    # The drawn card may fit: the player plays it or says it does not fit with "next".
    assert ref.handle({"type": "next"}, Actor("button")).ok
    assert ref.snapshot()["table"]["current_player"] == 1


def test_typed_round_scores_and_corrections(db: Path) -> None:
    ref, _ = junior(db)
    assert ref.handle({"type": "round_scores", "scores": [0, 12]}, HOST).ok
    snap = ref.snapshot()
    assert snap["round_over"] and snap["scores"] == [0, 12]
    assert ref.handle({"type": "next_round"}, HOST).ok
    assert ref.handle({"type": "round_correction", "round": 0, "scores": [0, 10], "reason": "miscount"}, HOST).ok
    snap = ref.snapshot()
    assert snap["scores"] == [0, 10] and snap["rounds"]["corrected"] == [0]
    assert snap["rounds"]["current"] == 2


def test_session_replay_equals_live(db: Path) -> None:
    ref, store = junior(db)
    for card in ("Y2", "Y3"):
        ref.handle({"type": "action", "action": {"type": "play", "card": card}}, P0)
    ref.handle({"type": "undo"}, P0)
    rows = store.events(ref.match_id)  # type: ignore[arg-type]
    replayed = Session.replay([(r.seq, r.kind, r.payload) for r in rows])
    assert replayed.match.state.to_json() == ref.session.match.state.to_json()  # type: ignore[union-attr]
