"""The event store: append-only log, refusal of foreign files, crash safety."""

from __future__ import annotations

import json
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.store import (
    APPLICATION_ID,
    MatchClosed,
    MatchNotFound,
    StaleVersion,
    Store,
    StoreError,
)

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "data" / "companion.sqlite3"


def _new_match(store: Store) -> str:
    return store.create_match("elfer-raus", None, ["Alice", "Bob", "Chloé"], {"rounds": 3})


# --- the log --------------------------------------------------------------------------


def test_events_are_numbered_and_survive_reopening(db: Path) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
        assert [store.append(mid, "roll", {"value": v}, "player:1") for v in (3, 5, 6)] == [1, 2, 3]
        assert store.append_many(mid, [("draw", {"card": "R7"}), ("end_turn", None)], "host") == [4, 5]
    with Store.open(db) as store:
        info = store.current_match()
        assert info is not None and info.id == mid
        assert (info.game, info.players, info.settings, info.version) == (
            "elfer-raus", ("Alice", "Bob", "Chloé"), {"rounds": 3}, 5)
        events = store.events(mid)
        assert [e.seq for e in events] == [1, 2, 3, 4, 5]
        assert [(e.kind, e.payload, e.actor) for e in events[2:]] == [
            ("roll", {"value": 6}, "player:1"), ("draw", {"card": "R7"}, "host"), ("end_turn", None, "host")]
        assert [e.seq for e in store.events(mid, after=3)] == [4, 5]
        assert store.version(mid) == 5


def test_match_ids_are_short_distinct_and_stable(db: Path) -> None:
    with Store.open(db) as store:
        ids = [_new_match(store) for _ in range(20)]
    assert len(set(ids)) == 20
    assert all(len(i) == 8 and i.isalnum() and i == i.lower() for i in ids)
    with Store.open(db) as store:
        assert [m.id for m in store.list_matches()] == ids[::-1]


def test_a_new_match_abandons_the_active_one_but_keeps_its_log(db: Path) -> None:
    with Store.open(db) as store:
        first = _new_match(store)
        store.append(first, "roll", {"value": 2})
        second = _new_match(store)
        assert store.current_match().id == second
        assert store.match(first).status == "abandoned"
        assert [e.kind for e in store.events(first)] == ["roll"]
        with pytest.raises(MatchClosed):
            store.append(first, "roll", {"value": 4})


def test_a_match_and_its_first_event_are_written_together_or_not_at_all(db: Path) -> None:
    # A power cut between the two used to leave a match with no event: the box, restarted,
    # could not resume it and started the configured game instead of the rematch.
    with Store.open(db) as store:
        old = _new_match(store)
        mid = store.create_match("numeri", None, ["Ana", "Ben"], {}, first=("setup", {"game": "numeri"}),
                                 actor="host")
        assert [(e.seq, e.kind, e.actor, e.payload) for e in store.events(mid)] == [
            (1, "setup", "host", {"game": "numeri"})]
        assert store.current_match().id == mid and store.match(old).status == "abandoned"
        with pytest.raises(StoreError, match="payload"):
            store.create_match("numeri", None, ["Ana", "Ben"], {}, first=("setup", {"bad": {1, 2}}))
        assert [m.id for m in store.list_matches()] == [mid, old]  # nothing written: no match, none abandoned
        assert store.current_match().id == mid


def test_stale_version_is_refused_and_writes_nothing(db: Path) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
        store.append(mid, "roll", {"value": 1}, expected_version=0)
        with pytest.raises(StaleVersion) as err:
            store.append_many(mid, [("roll", {"value": 2}), ("end_turn", None)], expected_version=0)
        assert (err.value.expected, err.value.actual) == (0, 1)
        assert store.version(mid) == 1
        assert store.append(mid, "roll", {"value": 2}, expected_version=1) == 2


def test_finished_match_refuses_events(db: Path) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
        store.append(mid, "round_end", {"scores": [1, 2, 3]})
        store.finish_match(mid, {"winners": [2]})
        info = store.match(mid)
        assert (info.status, info.result, info.version) == ("finished", {"winners": [2]}, 1)
        assert info.finished is not None
        assert store.current_match() is None
        with pytest.raises(MatchClosed):
            store.append(mid, "roll", {"value": 1})
        with pytest.raises(MatchClosed):
            store.finish_match(mid)
        assert store.version(mid) == 1


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s, m: s.append(m, "roll", {"value": object()}), "plain JSON"),
        (lambda s, m: s.append(m, "roll", {"value": float("nan")}), "plain JSON"),
        (lambda s, m: s.append(m, "", {}), "kind"),
        (lambda s, m: s.append(m, "roll", {}, actor=""), "actor"),
        (lambda s, m: s.append_many(m, [("roll", 1), ("roll", {1, 2})]), "plain JSON"),
        (lambda s, m: s.append_many(m, []), "nothing"),
        (lambda s, m: s.create_match("", None, ["A"]), "game"),
        (lambda s, m: s.create_match("numeri", None, "AB"), "players"),
        (lambda s, m: s.create_match("numeri", None, []), "players"),
        (lambda s, m: s.save_snapshot(m, 5, {}), "between 0 and 1"),
        (lambda s, m: s.export_csv(m, [[1, 2]]), "round 1"),
    ],
)
def test_bad_input_is_refused_and_loses_nothing(db: Path, call, message: str) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
        store.append(mid, "roll", {"value": 3})
        with pytest.raises(StoreError, match=message):
            call(store, mid)
        assert [e.payload for e in store.events(mid)] == [{"value": 3}]
        assert store.current_match().id == mid


def test_unknown_match(db: Path) -> None:
    with Store.open(db) as store:
        for call in (lambda: store.append("nope", "roll"), lambda: store.events("nope"), lambda: store.match("nope")):
            with pytest.raises(MatchNotFound, match="nope"):
                call()


def test_the_log_cannot_be_rewritten_even_with_raw_sql(db: Path) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
        store.append(mid, "roll", {"value": 3})
    con = sqlite3.connect(db)
    try:
        for sql, args in [
            ("UPDATE events SET payload_json = '{}'", ()),
            ("DELETE FROM events", ()),
            ("DELETE FROM matches", ()),
            ("INSERT INTO events VALUES (?, 3, 't', 'a', 'k', '{}')", (mid,)),  # gap: 2 is missing
            ("INSERT INTO events VALUES (?, 1, 't', 'a', 'k', '{}')", (mid,)),  # seq taken
            ("INSERT INTO events VALUES ('ghost', 1, 't', 'a', 'k', '{}')", ()),  # no such match
        ]:
            with pytest.raises(sqlite3.DatabaseError):
                con.execute(sql, args)
    finally:
        con.close()
    with Store.open(db) as store:
        assert [(e.seq, e.payload) for e in store.events(mid)] == [(1, {"value": 3})]


def test_two_writers_get_contiguous_distinct_seqs(db: Path) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
    got: dict[str, list[int]] = {}

    def writer(name: str) -> None:
        with Store.open(db) as own:  # its own connection, like a second process
            got[name] = [own.append(mid, "tick", {"by": name, "i": i}, name) for i in range(40)]

    threads = [threading.Thread(target=writer, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got["a"] + got["b"]) == list(range(1, 81))
    with Store.open(db) as store:
        events = store.events(mid)
        assert [e.seq for e in events] == list(range(1, 81))
        for name, seqs in got.items():
            assert [e.payload["i"] for e in events if e.seq in seqs] == list(range(40))
            assert {e.actor for e in events if e.seq in seqs} == {name}


def test_pragmas(db: Path) -> None:
    with Store.open(db) as store:
        con = store._con
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert con.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert con.execute("PRAGMA foreign_keys").fetchone()[0] == 1
        assert con.execute("PRAGMA busy_timeout").fetchone()[0] > 0
        assert con.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert con.execute("PRAGMA user_version").fetchone()[0] == 1
    assert sorted(p.name for p in db.parent.iterdir()) == ["companion.sqlite3"]  # no temp files left


def test_snapshots(db: Path) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
        assert store.latest_snapshot(mid) is None
        store.append_many(mid, [("roll", {"value": v}) for v in range(1, 5)])
        store.save_snapshot(mid, 2, {"state": "two"})
        store.save_snapshot(mid, 4, {"state": "four"})
        assert store.latest_snapshot(mid) == (4, {"state": "four"})


# --- export ---------------------------------------------------------------------------


def test_export_json_holds_the_whole_log(db: Path) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
        store.append(mid, "roll", {"value": 6}, "player:0")
        store.append(mid, "undo", {"to": 0}, "host")
        doc = json.loads(store.export_json(mid))
    assert doc["format"] == "table-companion-match"
    assert doc["match"]["id"] == mid and doc["match"]["players"] == ["Alice", "Bob", "Chloé"]
    assert doc["match"]["version"] == 2
    assert [(e["seq"], e["kind"], e["payload"], e["actor"]) for e in doc["events"]] == [
        (1, "roll", {"value": 6}, "player:0"), (2, "undo", {"to": 0}, "host")]


def test_export_csv_per_round_and_totals(db: Path) -> None:
    with Store.open(db) as store:
        mid = store.create_match("11-nimmt", None, ["Zoé", "=HYPERLINK(1)"], {})
        text = store.export_csv(mid, [[-3, 0], [-1, -7]])
    assert text.splitlines() == ["round,Zoé,'=HYPERLINK(1)", "1,-3,0", "2,-1,-7", "total,-4,-7"]


def test_backup_is_a_usable_store_and_never_overwrites(db: Path, tmp_path: Path) -> None:
    with Store.open(db) as store:
        mid = _new_match(store)
        store.append(mid, "roll", {"value": 4})
        store.backup(tmp_path / "copy.sqlite3")
        with pytest.raises(StoreError, match="never overwrites"):
            store.backup(tmp_path / "copy.sqlite3")
    with Store.open(tmp_path / "copy.sqlite3") as copy:
        assert [e.payload for e in copy.events(mid)] == [{"value": 4}]


# --- foreign and damaged files ----------------------------------------------------------


def _random_bytes(path: Path) -> None:
    path.write_bytes(random.Random(7).randbytes(8192))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _other_app(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT)")
    con.execute("INSERT INTO notes(text) VALUES ('shopping list')")
    con.commit()
    con.close()


def _other_app_with_events_table(path: Path) -> None:
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE events(match_id, seq, ts, actor, kind, payload_json)")
    con.execute("PRAGMA application_id = 1234")
    con.commit()
    con.close()


def _filled_store(path: Path) -> None:
    with Store.open(path) as store:
        mid = _new_match(store)
        store.append_many(mid, [("tick", {"i": i, "pad": "x" * 300}) for i in range(300)])


def _truncated(path: Path) -> None:
    _filled_store(path)
    data = path.read_bytes()
    assert len(data) > 8 * 4096
    path.write_bytes(data[: len(data) // 2])


def _damaged_pages(path: Path) -> None:
    _filled_store(path)
    data = bytearray(path.read_bytes())
    rng = random.Random(11)
    for page in range(2, len(data) // 4096, 2):  # every other page after the header page
        data[page * 4096:(page + 1) * 4096] = rng.randbytes(4096)
    path.write_bytes(bytes(data))


def _newer_schema(path: Path) -> None:
    _filled_store(path)
    con = sqlite3.connect(path)
    con.execute("PRAGMA user_version = 99")
    con.close()


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (_random_bytes, "not an SQLite database"),
        (_empty, "empty"),
        (_other_app, "another application"),
        (_other_app_with_events_table, "another application"),
        (_truncated, "truncated"),
        (_damaged_pages, "damaged"),
        (_newer_schema, "newer"),
    ],
)
def test_foreign_or_damaged_files_are_refused_and_left_untouched(tmp_path: Path, make, message: str) -> None:
    path = tmp_path / "companion.sqlite3"
    make(path)
    before = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    for _ in range(2):  # a second attempt (a restart) is refused the same way
        with pytest.raises(StoreError, match=message) as err:
            Store.open(path)
        assert str(path) in str(err.value)
    after = {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    assert after == before


def test_a_directory_in_the_way_is_refused(tmp_path: Path) -> None:
    (tmp_path / "companion.sqlite3").mkdir()
    with pytest.raises(StoreError, match="directory"):
        Store.open(tmp_path / "companion.sqlite3")


# --- crash safety ---------------------------------------------------------------------

_CHILD = """
import sys
from companion.store import Store

store = Store.open(sys.argv[1])
current = store.current_match()
mid = current.id if current else store.create_match("elfer-raus", None, ["A", "B"], {})
n = store.version(mid)
while True:
    n = store.append(mid, "tick", {"n": n + 1, "pad": "x" * 500}, "child")
    print(n, flush=True)
"""


def _run_and_kill(db: Path, rng: random.Random) -> set[int]:
    """Start a writer, SIGKILL it at a random moment; return the seqs it acknowledged."""
    seen = ""
    with subprocess.Popen([sys.executable, "-c", _CHILD, str(db)], cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True) as proc:
        try:
            if rng.random() < 0.3:
                time.sleep(rng.uniform(0.0, 0.25))  # anywhere from start-up to the first appends
            else:
                for _ in range(rng.randint(1, 60)):  # mid-stream, most likely inside a transaction
                    line = proc.stdout.readline()
                    if not line:
                        break
                    seen += line
        finally:
            proc.send_signal(signal.SIGKILL)
            seen += proc.stdout.read()  # lines printed before the kill were acknowledged
    return {int(line) for line in seen.split("\n")[:-1]}  # a last line without its newline proves nothing


def test_acknowledged_events_survive_sigkill(db: Path) -> None:
    rng = random.Random(20240611)
    acknowledged: set[int] = set()
    for _ in range(12):
        acked = _run_and_kill(db, rng)
        if not db.exists():
            assert not acked
            continue
        with Store.open(db) as store:
            info = store.current_match()
            if info is None:  # killed between creating the file and the match
                continue
            events = store.events(info.id)
        seqs = [e.seq for e in events]
        assert seqs == list(range(1, len(seqs) + 1))
        assert all(e.payload["n"] == e.seq for e in events)
        acknowledged |= acked
        assert acknowledged <= set(seqs), f"lost acknowledged events: {sorted(acknowledged - set(seqs))}"
    assert len(acknowledged) > 0
    leftovers = [p.name for p in db.parent.iterdir() if p.name.endswith(".new")]
    assert all(name.startswith(".companion.sqlite3.") for name in leftovers)


_CREATOR = """
import sys
from pathlib import Path
from companion.store import Store

i = 0
while True:
    Store.open(Path(sys.argv[1]) / f"{i}.sqlite3").close()
    print(i, flush=True)
    i += 1
"""


def test_a_crash_while_creating_never_leaves_a_half_made_store(tmp_path: Path) -> None:
    rng = random.Random(5)
    for run in range(3):
        where = tmp_path / str(run)
        where.mkdir()
        with subprocess.Popen([sys.executable, "-c", _CREATOR, str(where)], cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True) as proc:
            try:
                for _ in range(rng.randint(5, 40)):
                    if not proc.stdout.readline():
                        break
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.stdout.read()
        made = sorted(where.glob("*.sqlite3"), key=lambda p: int(p.stem))
        assert len(made) >= 5
        for path in made:  # every file under a real name opens, the one being made included
            Store.open(path).close()
        others = [p.name for p in where.iterdir() if not p.name.endswith(".sqlite3")]
        assert all(".sqlite3." in name or name.endswith(("-wal", "-shm")) for name in others), others
