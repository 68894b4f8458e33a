"""Camera readings to moves: commit, propose, or show expected vs seen."""

from __future__ import annotations

from pathlib import Path

from companion.perception import Perceiver
from companion.referee import Actor, Referee
from companion.store import Store

HOST = Actor("host")
CAMERA = Actor("camera")


def card(code: str, conf: float = 0.99) -> dict:
    colours = {"Y": "yellow", "R": "red", "B": "blue", "G": "green"}
    return {"kind": "number", "value": int(code[1:]), "color": colours[code[0]],
            "corners": [[0, 0], [10, 0], [10, 15], [0, 15]], "confidence": conf}


def start_junior(tmp_path: Path) -> Referee:
    ref = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    assert ref.handle({"type": "new_match", "game": "elfer-raus-junior", "players": ["A", "B"]}, HOST).ok
    return ref


BASE = ["Y1", "Y11", "R1", "R11", "B1", "B11", "G1", "G11"]


def look(ref: Referee, codes: list[str], conf: float = 0.99) -> dict:
    out = ref.handle({"type": "observation", "observation": {"cards": [card(c, conf) for c in codes]}}, CAMERA)
    assert out.ok, out.error
    return out.data


def test_a_legal_placement_is_committed(tmp_path: Path) -> None:
    ref = start_junior(tmp_path)
    assert look(ref, BASE)["verdict"] == "settled"
    v = ref.version
    assert look(ref, [*BASE, "Y2", "Y3"])["verdict"] == "commit"
    assert ref.snapshot()["table"]["board"]["rows"]["yellow"] == [1, 2, 3, 11]
    assert ref.version == v + 2


def test_an_illegal_placement_is_a_problem_with_the_rule(tmp_path: Path) -> None:
    ref = start_junior(tmp_path)
    assert look(ref, [*BASE, "Y4"])["verdict"] == "problem"
    problem = ref.snapshot()["problem"]
    assert problem["seen"]["en"] == ["yellow 4"]
    assert "yellow 2" in problem["expected"]["en"]
    assert problem["rule"]["rule"] == "does-not-fit"
    # The same wrong table seen again does not add another event.
    v = ref.version
    look(ref, [*BASE, "Y4"])
    assert ref.version == v
    # The player takes the card back: the problem is settled.
    assert look(ref, BASE)["verdict"] == "settled"
    assert ref.snapshot()["problem"] is None


def test_a_doubtful_reading_is_only_proposed(tmp_path: Path) -> None:
    ref = start_junior(tmp_path)
    assert look(ref, [*BASE, "Y2"], conf=0.5)["verdict"] == "proposal"
    proposal = ref.snapshot()["proposal"]
    assert proposal["why"] == "low-confidence"
    assert ref.handle({"type": "confirm", "id": proposal["id"]}, Actor("player", 0)).ok
    assert ref.snapshot()["table"]["board"]["rows"]["yellow"] == [1, 2, 11]


def test_more_cards_before_anyone_presses_next_belong_to_the_same_turn(tmp_path: Path) -> None:
    ref = start_junior(tmp_path)
    look(ref, [*BASE, "Y2"])
    look(ref, [*BASE, "Y2", "R2"])
    snap = ref.snapshot()
    assert snap["table"]["board"]["rows"]["red"] == [1, 2, 11]
    assert snap["table"]["current_player"] == 0 and snap["table"]["hand_sizes"] == [3, 5]
    # "Next" ends the turn; the next card seen is the other player's.
    assert ref.handle({"type": "next"}, Actor("button")).ok
    look(ref, [*BASE, "Y2", "R2", "B2"])
    assert ref.snapshot()["table"]["hand_sizes"] == [3, 4]


def test_numeri_roll_then_move_from_the_die_and_the_token(tmp_path: Path) -> None:
    ref = Referee(Store.open(tmp_path / "db.sqlite3"), perceive=Perceiver())
    assert ref.handle({"type": "new_match", "game": "numeri", "players": ["A", "B"]}, HOST).ok
    lying = {"value": 5, "corners": [[100, 100], [140, 100], [140, 140], [100, 140]], "confidence": 0.99}
    out = ref.handle({"type": "observation", "observation": {"dice": [lying]}}, CAMERA)
    assert out.data["verdict"] == "settled"  # where the die lies before anyone rolls is not a roll
    die = {"value": 2, "corners": [[500, 500], [540, 500], [540, 540], [500, 540]], "confidence": 0.99}
    obs = {"tokens": [{"value": 2, "color": "yellow", "center": [10, 10], "square": 0, "confidence": 0.99}],
           "dice": [die]}
    out = ref.handle({"type": "observation", "observation": obs}, CAMERA)
    assert out.data["verdict"] == "commit"
    assert ref.snapshot()["table"]["board"]["squares"] == {"0": "Y2"}
    # The die has not moved since: no new roll is invented for the next player.
    out = ref.handle({"type": "observation", "observation": obs}, CAMERA)
    assert out.data["verdict"] == "settled"
    assert ref.snapshot()["waiting_for"] == "roll"
