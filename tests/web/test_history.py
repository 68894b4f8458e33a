"""History: past matches with rounds and totals, statistics per player, JSON and CSV export."""

from __future__ import annotations

import csv
import io
import json

from flask import Flask

from companion.referee import Referee

from .conftest import HOST, Phone


def play_short_match(referee: Referee, players: list[str], scores: list[list[int]]) -> str:
    assert referee.handle({"type": "new_match", "game": "elfer-raus-junior", "players": players,
                           "rounds": len(scores)}, HOST).ok
    for i, round_scores in enumerate(scores):
        if i:
            assert referee.handle({"type": "next_round"}, HOST).ok
        assert referee.handle({"type": "round_scores", "scores": round_scores}, HOST).ok
    assert referee.handle({"type": "finish"}, HOST).ok
    assert referee.match_id is not None
    return referee.match_id


def test_history_lists_matches_with_rounds_totals_and_winners(app: Flask, referee: Referee) -> None:
    first = play_short_match(referee, ["Ana", "Ben"], [[0, 12], [7, 0]])
    second = play_short_match(referee, ["Ana", "Chloé"], [[3, 0]])
    data = Phone(app).client.get("/api/history").json
    by_id = {m["id"]: m for m in data["matches"]}
    assert [m["id"] for m in data["matches"]] == [second, first]  # newest first
    m = by_id[first]
    assert m["rounds"] == [[0, 12], [7, 0]] and m["totals"] == [7, 12] and m["winners"] == [0] and m["over"]
    assert m["status"] == "finished" and m["game_name"]["fr"] == "Elfer raus! Junior"
    stats = {s["name"]: s for s in data["statistics"]}
    assert stats["Ana"]["played"] == 2 and stats["Ana"]["won"] == 1
    assert stats["Chloé"]["won"] == 1 and stats["Ben"]["won"] == 0
    assert stats["Ana"]["games"]["elfer-raus-junior"] == {"played": 2, "won": 1, "points": 10}


def test_export_json_and_csv(app: Flask, referee: Referee) -> None:
    mid = play_short_match(referee, ["Ana", "=Ben"], [[0, 12], [7, 0]])
    client = Phone(app).client
    resp = client.get(f"/api/history/{mid}.json")
    assert resp.status_code == 200 and "attachment" in resp.headers["Content-Disposition"]
    doc = json.loads(resp.data)
    assert doc["match"]["id"] == mid and [e["kind"] for e in doc["events"]][0] == "setup"
    resp = client.get(f"/api/history/{mid}.csv")
    rows = list(csv.reader(io.StringIO(resp.get_data(as_text=True))))
    assert rows == [["round", "Ana", "'=Ben"], ["1", "0", "12"], ["2", "7", "0"], ["total", "7", "12"]]


def test_unknown_matches_are_404(app: Flask) -> None:
    client = Phone(app).client
    assert client.get("/api/history/nope.json").status_code == 404
    assert client.get("/api/history/nope.csv").status_code == 404


def test_history_page_renders(app: Flask, referee: Referee) -> None:
    play_short_match(referee, ["Ana", "Ben"], [[0, 12]])
    html = Phone(app, lang="en").client.get("/history", headers={"Accept-Language": "en"}).get_data(as_text=True)
    assert "Match history" in html and 'id="matches"' in html
