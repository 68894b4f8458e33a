"""The match store: an append-only event log in one SQLite file.

A match is a row of `matches` plus its events `(match_id, seq)` with seq = 1, 2, 3 ... and
no gaps, so a match's version is its number of events. The game state is the replay of
the events: undo and corrections are events too, and triggers refuse any UPDATE or DELETE
of an event. `append` returns only after COMMIT in WAL mode with `synchronous=FULL`, i.e.
after the WAL is fsync'd: an acknowledged event survives a crash (and a power cut, as far
as the SD card honours flushes).

A file that is not ours is refused with `StoreError` and never written to: its header is
read before SQLite opens it (magic, `application_id`, size), then `quick_check` and the
schema version are checked on a read-only connection. A new database is built under a
temporary name and linked into place complete, so a crash while creating it never leaves
a half-made file behind under the real name.

One `Store` is safe to share between threads (a lock serialises its connection); several
`Store`s or processes on one file are safe too (`BEGIN IMMEDIATE` plus the seq primary key
and the ordering trigger).
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import logging
import os
import secrets
import sqlite3
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

log = logging.getLogger(__name__)

APPLICATION_ID = 0x54436D70  # "TCmp": marks the file as a Table Companion store
SCHEMA_VERSION = 1
DATABASE_NAME = "companion.sqlite3"
BUSY_TIMEOUT_MS = 5000
EXPORT_FORMAT = "table-companion-match"

_MAGIC = b"SQLite format 3\x00"
_ID_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: ids get read aloud and typed
_ID_LENGTH = 8
STATUSES = ("active", "finished", "abandoned")

_SCHEMA = f"""
CREATE TABLE matches (
    id            TEXT PRIMARY KEY,
    created       TEXT NOT NULL,
    game          TEXT NOT NULL,
    variant       TEXT,
    players_json  TEXT NOT NULL,
    settings_json TEXT NOT NULL,
    status        TEXT NOT NULL DEFAULT 'active' CHECK (status IN {STATUSES!r}),
    finished      TEXT,
    result_json   TEXT
);
CREATE TABLE events (
    match_id     TEXT NOT NULL REFERENCES matches(id),
    seq          INTEGER NOT NULL CHECK (typeof(seq) = 'integer' AND seq >= 1),
    ts           TEXT NOT NULL,
    actor        TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind <> ''),
    payload_json TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;
CREATE TABLE snapshots (
    match_id   TEXT NOT NULL REFERENCES matches(id),
    seq        INTEGER NOT NULL,
    state_json TEXT NOT NULL,
    PRIMARY KEY (match_id, seq)
) WITHOUT ROWID;

-- The log is append-only and gap-free, whoever writes to the file.
CREATE TRIGGER events_no_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_in_order BEFORE INSERT ON events
WHEN NEW.seq IS NOT (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE match_id = NEW.match_id)
BEGIN SELECT RAISE(ABORT, 'event seq must follow the last one'); END;
CREATE TRIGGER events_open_match BEFORE INSERT ON events
WHEN (SELECT status FROM matches WHERE id = NEW.match_id) IS NOT 'active'
BEGIN SELECT RAISE(ABORT, 'the match is closed'); END;
CREATE TRIGGER matches_no_delete BEFORE DELETE ON matches
BEGIN SELECT RAISE(ABORT, 'matches are kept'); END;

PRAGMA application_id = {APPLICATION_ID};
PRAGMA user_version = {SCHEMA_VERSION};
"""


# --- errors ---------------------------------------------------------------------------


INSERT_EVENT = "INSERT INTO events (match_id, seq, ts, actor, kind, payload_json) VALUES (?, ?, ?, ?, ?, ?)"


def _event_rows(items: Iterable[tuple[str, Any]], actor: str) -> list[tuple[str, str]]:
    """(kind, payload JSON) of events to write, checked before anything is written."""
    if not isinstance(actor, str) or not actor:
        raise StoreError(f"actor must be a non-empty text, not {actor!r}")
    rows = []
    for kind, payload in items:
        if not isinstance(kind, str) or not kind:
            raise StoreError(f"event kind must be a non-empty text, not {kind!r}")
        rows.append((kind, _dumps(payload, f"payload of {kind!r}")))
    return rows


class StoreError(Exception):
    """The store cannot do what was asked; the message says why, in words for a user."""


class MatchNotFound(StoreError, LookupError):
    """No match with this id in the store."""


class MatchClosed(StoreError):
    """The match is finished or abandoned: nothing more can be appended."""


class StaleVersion(StoreError):
    """`expected_version` was given and the match has moved on since."""

    def __init__(self, match_id: str, expected: int, actual: int) -> None:
        super().__init__(f"match {match_id} is at version {actual}, not {expected}")
        self.expected = expected
        self.actual = actual


# --- records --------------------------------------------------------------------------


@dataclass(frozen=True)
class Event:
    match_id: str
    seq: int
    ts: str
    actor: str
    kind: str
    payload: Any

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "ts": self.ts, "actor": self.actor, "kind": self.kind, "payload": self.payload}


@dataclass(frozen=True)
class MatchInfo:
    id: str
    created: str
    game: str
    variant: str | None
    players: tuple[str, ...]
    settings: dict[str, Any]
    status: str
    finished: str | None
    result: Any
    version: int  # number of events

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id, "created": self.created, "game": self.game, "variant": self.variant,
            "players": list(self.players), "settings": self.settings, "status": self.status,
            "finished": self.finished, "result": self.result, "version": self.version,
        }


# --- the store ------------------------------------------------------------------------


class Store:
    """The event store of one data directory. Open with `Store.open(path)`."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._con = connection
        self._lock = threading.RLock()

    @classmethod
    def open(cls, path: str | os.PathLike[str]) -> Store:
        """Open the store at `path` (a file; created with its directory if missing)."""
        path = Path(path)
        if not path.exists():
            _create(path)
        else:
            _check_header(path)
            _check_readonly(path)
        try:
            con = sqlite3.connect(path, isolation_level=None, check_same_thread=False,
                                  timeout=BUSY_TIMEOUT_MS / 1000)
        except sqlite3.Error as exc:
            raise StoreError(f"{path}: cannot open the database ({exc})") from exc
        try:
            _configure(con, path)
        except BaseException:
            con.close()
            raise
        return cls(path, con)

    def close(self) -> None:
        with self._lock:
            self._con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing --------------------------------------------------------------------

    def create_match(
        self,
        game: str,
        variant: str | None,
        players: Sequence[str],
        settings: Mapping[str, Any] | None = None,
        *,
        first: tuple[str, Any] | None = None,
        actor: str = "system",
    ) -> str:
        """Start a match and return its id. A match still active becomes 'abandoned'.

        `first` (kind, payload) is the match's first event, written in the same transaction: a
        power cut never leaves a match with no event, which a restart could not resume (the box
        would then start the configured game instead)."""
        if not isinstance(game, str) or not game:
            raise StoreError(f"game must be a game id, not {game!r}")
        if variant is not None and not isinstance(variant, str):
            raise StoreError(f"variant must be a text or None, not {variant!r}")
        if isinstance(players, str) or not players or not all(isinstance(p, str) and p for p in players):
            raise StoreError(f"players must be a non-empty list of names, not {players!r}")
        if settings is not None and not isinstance(settings, Mapping):
            raise StoreError(f"settings must be a table, not {settings!r}")
        players_json = _dumps(list(players), "players")
        settings_json = _dumps(dict(settings or {}), "settings")
        event = _event_rows([first], actor)[0] if first is not None else None
        with self._write() as con:
            con.execute("UPDATE matches SET status = 'abandoned', finished = ? WHERE status = 'active'", (_now(),))
            while True:
                match_id = "".join(secrets.choice(_ID_ALPHABET) for _ in range(_ID_LENGTH))
                try:
                    con.execute(
                        "INSERT INTO matches (id, created, game, variant, players_json, settings_json)"
                        " VALUES (?, ?, ?, ?, ?, ?)",
                        (match_id, _now(), game, variant, players_json, settings_json),
                    )
                except sqlite3.IntegrityError:  # the id is taken: draw another one
                    continue
                if event is not None:
                    con.execute(INSERT_EVENT, (match_id, 1, _now(), actor, *event))
                return match_id

    def append(
        self,
        match_id: str,
        kind: str,
        payload: Any = None,
        actor: str = "system",
        *,
        expected_version: int | None = None,
    ) -> int:
        """Append one event; return its seq once the commit is durable."""
        return self.append_many(match_id, [(kind, payload)], actor, expected_version=expected_version)[-1]

    def append_many(
        self,
        match_id: str,
        items: Iterable[tuple[str, Any]],
        actor: str = "system",
        *,
        expected_version: int | None = None,
    ) -> list[int]:
        """Append several events (one command's worth) in one transaction: all or none.

        With `expected_version`, refuse (`StaleVersion`) unless the match is exactly at that
        version, so a command decided on an old state is never written.
        """
        rows = _event_rows(items, actor)
        if not rows:
            raise StoreError("nothing to append")
        ts = _now()
        with self._write() as con:
            self._require_open(con, match_id)
            version = self._version(con, match_id)
            if expected_version is not None and expected_version != version:
                raise StaleVersion(match_id, expected_version, version)
            seqs = list(range(version + 1, version + 1 + len(rows)))
            con.executemany(
                INSERT_EVENT,
                [(match_id, seq, ts, actor, kind, payload) for seq, (kind, payload) in zip(seqs, rows, strict=True)],
            )
        return seqs

    def finish_match(self, match_id: str, result: Any = None, *, status: str = "finished") -> None:
        """Close a match ('finished' or 'abandoned'); its log stays and refuses appends."""
        if status not in ("finished", "abandoned"):
            raise StoreError(f"status must be 'finished' or 'abandoned', not {status!r}")
        result_json = _dumps(result, "result")
        with self._write() as con:
            self._require_open(con, match_id)
            con.execute("UPDATE matches SET status = ?, finished = ?, result_json = ? WHERE id = ?",
                        (status, _now(), result_json, match_id))

    def save_snapshot(self, match_id: str, seq: int, state: Any) -> None:
        """Cache the replayed state after event `seq` (a cache: rebuilt from events if lost)."""
        state_json = _dumps(state, "snapshot")
        with self._write() as con:
            version = self._version(con, match_id)
            if not isinstance(seq, int) or not 0 <= seq <= version:
                raise StoreError(f"snapshot seq must be between 0 and {version}, not {seq!r}")
            con.execute("INSERT OR REPLACE INTO snapshots (match_id, seq, state_json) VALUES (?, ?, ?)",
                        (match_id, seq, state_json))

    # --- reading --------------------------------------------------------------------

    def events(self, match_id: str, after: int = 0) -> list[Event]:
        """The events of a match with seq > `after`, in order."""
        with self._read() as con:
            self._match_row(con, match_id)
            rows = con.execute(
                "SELECT seq, ts, actor, kind, payload_json FROM events WHERE match_id = ? AND seq > ? ORDER BY seq",
                (match_id, after),
            ).fetchall()
        return [Event(match_id, seq, ts, actor, kind, json.loads(p)) for seq, ts, actor, kind, p in rows]

    def version(self, match_id: str) -> int:
        with self._read() as con:
            self._match_row(con, match_id)
            return self._version(con, match_id)

    def match(self, match_id: str) -> MatchInfo:
        with self._read() as con:
            return _match_info(self._match_row(con, match_id), self._version(con, match_id))

    def current_match(self) -> MatchInfo | None:
        """The match being played (the last one created that is still active), if any."""
        found = self._matches("WHERE m.status = 'active'", limit=1)
        return found[0] if found else None

    def list_matches(self) -> list[MatchInfo]:
        """Every match, newest first."""
        return self._matches("")

    def latest_snapshot(self, match_id: str) -> tuple[int, Any] | None:
        with self._read() as con:
            row = con.execute("SELECT seq, state_json FROM snapshots WHERE match_id = ? ORDER BY seq DESC LIMIT 1",
                              (match_id,)).fetchone()
        return None if row is None else (row[0], json.loads(row[1]))

    # --- export ---------------------------------------------------------------------

    def export_json(self, match_id: str) -> str:
        """The whole match (metadata and every event) as a JSON document."""
        doc = {
            "format": EXPORT_FORMAT,
            "format_version": SCHEMA_VERSION,
            "match": self.match(match_id).to_json(),
            "events": [e.to_json() for e in self.events(match_id)],
        }
        return json.dumps(doc, ensure_ascii=False, indent=1)

    def export_csv(self, match_id: str, rounds: Sequence[Sequence[int]]) -> str:
        """Per-round scores per player, plus a total line, as CSV.

        The scores come from the caller's replay (e.g. `Match.results`): the store keeps the
        events but does not interpret them, so undone rounds cannot leak into the sheet.
        """
        info = self.match(match_id)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["round", *(_csv_text(p) for p in info.players)])
        totals = [0] * len(info.players)
        for n, scores in enumerate(rounds, 1):
            if len(scores) != len(info.players) or not all(isinstance(s, int) for s in scores):
                raise StoreError(f"round {n}: expected {len(info.players)} whole-number scores, not {scores!r}")
            totals = [t + s for t, s in zip(totals, scores, strict=True)]
            writer.writerow([n, *scores])
        writer.writerow(["total", *totals])
        return out.getvalue()

    def backup(self, target: str | os.PathLike[str]) -> None:
        """Copy the database, consistent even while it is being written, to `target`."""
        target = Path(target)
        if target.exists():
            raise StoreError(f"{target}: already exists; a backup never overwrites a file")
        dest = sqlite3.connect(target)
        try:
            with self._lock:
                self._con.backup(dest)
        finally:
            dest.close()

    # --- internals ------------------------------------------------------------------

    @contextlib.contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            con = self._con
            try:
                con.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot start writing ({exc})") from exc
            try:
                yield con
                con.execute("COMMIT")
            except BaseException as exc:
                if con.in_transaction:
                    con.execute("ROLLBACK")
                if isinstance(exc, sqlite3.Error):
                    raise StoreError(f"{self.path}: nothing was written ({exc})") from exc
                raise

    @contextlib.contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            try:
                yield self._con
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot read ({exc})") from exc

    def _matches(self, where: str, limit: int | None = None) -> list[MatchInfo]:
        sql = (
            "SELECT m.id, m.created, m.game, m.variant, m.players_json, m.settings_json, m.status, m.finished,"
            " m.result_json, (SELECT COALESCE(MAX(seq), 0) FROM events e WHERE e.match_id = m.id)"
            f" FROM matches m {where} ORDER BY m.rowid DESC"
        )
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        with self._read() as con:
            rows = con.execute(sql).fetchall()
        return [_match_info(row[:9], row[9]) for row in rows]

    @staticmethod
    def _match_row(con: sqlite3.Connection, match_id: str) -> tuple[Any, ...]:
        row = con.execute(
            "SELECT id, created, game, variant, players_json, settings_json, status, finished, result_json"
            " FROM matches WHERE id = ?",
            (match_id,),
        ).fetchone()
        if row is None:
            raise MatchNotFound(f"no match {match_id!r} in the store")
        return row

    def _require_open(self, con: sqlite3.Connection, match_id: str) -> None:
        status = self._match_row(con, match_id)[6]
        if status != "active":
            raise MatchClosed(f"match {match_id} is {status}: nothing more can be recorded")

    @staticmethod
    def _version(con: sqlite3.Connection, match_id: str) -> int:
        return con.execute("SELECT COALESCE(MAX(seq), 0) FROM events WHERE match_id = ?", (match_id,)).fetchone()[0]


# --- opening, checking and creating files ---------------------------------------------


def _check_header(path: Path) -> None:
    """Refuse anything that is not our SQLite file before SQLite gets to touch it."""
    refuse = f"{path}: refusing to open it as the Table Companion store, and leaving it untouched:"
    try:
        with open(path, "rb") as f:
            header = f.read(100)
            size = os.fstat(f.fileno()).st_size
    except IsADirectoryError:
        raise StoreError(f"{path}: is a directory, not a database file") from None
    except OSError as exc:
        raise StoreError(f"{path}: cannot read the file ({exc.strerror or exc})") from exc
    if size == 0:
        raise StoreError(f"{refuse} the file is empty")
    if len(header) < 100 or not header.startswith(_MAGIC):
        raise StoreError(f"{refuse} it is not an SQLite database")
    app_id = int.from_bytes(header[68:72], "big")
    if app_id != APPLICATION_ID:
        raise StoreError(f"{refuse} it is the SQLite database of another application (application_id {app_id:#x})")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The page count is valid when its "version-valid-for" matches the change counter. A
    # non-empty WAL may legitimately hold pages a crashed checkpoint had not yet written.
    if header[24:28] == header[92:96] and size < pages * page_size and not _wal_has_frames(path):
        raise StoreError(f"{refuse} it is truncated ({size} of {pages * page_size} bytes)")


def _wal_has_frames(path: Path) -> bool:
    try:
        return os.path.getsize(f"{path}-wal") > 32
    except OSError:
        return False


def _check_readonly(path: Path) -> None:
    """Schema version and `quick_check` through a read-only connection (no checkpoint on close)."""
    # No -wal file: nobody has it open and nothing to recover, so `immutable` reads it with
    # no lock and no -wal or -shm created. Else (in use, or a crash) `mode=ro` reads through
    # the WAL; at most it adds the shared-memory index beside it.
    mode = "immutable=1" if not Path(f"{path}-wal").exists() else "mode=ro"
    try:
        con = sqlite3.connect(f"file:{quote(str(path.absolute()))}?{mode}", uri=True)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the database ({exc})") from exc
    try:
        version = con.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise StoreError(f"{path}: written by a newer Table Companion (schema {version}, this one knows "
                             f"{SCHEMA_VERSION}); upgrade the program, the file is left untouched")
        problems = [row[0] for row in con.execute("PRAGMA quick_check(5)")]
        if problems != ["ok"]:
            raise StoreError(f"{path}: the database is damaged ({'; '.join(problems)}); it is left untouched")
        tables = {row[0] for row in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not {"matches", "events", "snapshots"} <= tables or version < 1:
            raise StoreError(f"{path}: the database lacks the store's tables; it is left untouched")
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: the database is damaged ({exc}); it is left untouched") from exc
    finally:
        con.close()


def _create(path: Path) -> None:
    """Build a fresh store under a temporary name, then link it into place complete."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".new", dir=path.parent)
        os.close(fd)
    except OSError as exc:
        raise StoreError(f"{path}: cannot create the database ({exc.strerror or exc})") from exc
    tmp = Path(tmp_name)
    try:
        con = sqlite3.connect(tmp, isolation_level=None)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(f"BEGIN IMMEDIATE; {_SCHEMA} COMMIT;")
        finally:
            con.close()  # checkpoints: the WAL content lands in the main file
        _fsync(tmp)
        try:
            os.link(tmp, path)
        except FileExistsError:
            log.info("%s was created by another process meanwhile; using it", path)
        except OSError:  # a file system without hard links
            if not path.exists():
                os.rename(tmp, path)
        _fsync(path.parent)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"{path}: cannot create the database ({exc})") from exc
    finally:
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            with contextlib.suppress(FileNotFoundError):
                leftover.unlink()


def _configure(con: sqlite3.Connection, path: Path) -> None:
    try:
        mode = con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        if mode.lower() != "wal":
            raise StoreError(f"{path}: cannot use WAL mode here (got {mode!r}); is the directory on a network share?")
        con.execute("PRAGMA synchronous=FULL")
        con.execute("PRAGMA foreign_keys=ON")
        con.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: cannot open the database ({exc})") from exc


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


# --- small helpers --------------------------------------------------------------------


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def _dumps(value: Any, what: str) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as exc:
        raise StoreError(f"{what} must be plain JSON data ({exc})") from exc


def _match_info(row: Sequence[Any], version: int) -> MatchInfo:
    mid, created, game, variant, players, settings, status, finished, result = row
    return MatchInfo(mid, created, game, variant, tuple(json.loads(players)), json.loads(settings), status,
                     finished, None if result is None else json.loads(result), version)


def _csv_text(text: str) -> str:
    # Spreadsheets run cells starting with = + - @ as formulas; player names are user input.
    return f"'{text}" if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


__all__ = [
    "APPLICATION_ID",
    "DATABASE_NAME",
    "SCHEMA_VERSION",
    "Event",
    "MatchClosed",
    "MatchInfo",
    "MatchNotFound",
    "StaleVersion",
    "Store",
    "StoreError",
]
