"""`companion serve` end to end: start, answer, stop on SIGTERM, survive kill -9."""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from companion.session import Session
from companion.store import Store

ROOT = Path(__file__).resolve().parents[2]
KILLS = int(os.environ.get("COMPANION_TEST_KILLS", "100"))
pytestmark = pytest.mark.xdist_group("service")  # one server at a time: they compete for two cores


RUNNING: list[subprocess.Popen[str]] = []


@pytest.fixture(autouse=True)
def no_stray_servers():
    """A failed test must not leave a service running."""
    yield
    while RUNNING:
        proc = RUNNING.pop()
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)


class Server:
    """One `companion serve` child process and an HTTP client for it."""

    def __init__(self, data: Path, camera: str) -> None:
        env = {**os.environ, "COMPANION_GPIO": "false", "PYTHONUNBUFFERED": "1"}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "companion", "serve", "--camera", camera, "--data", str(data), "--port", "0",
             "--host", "127.0.0.1"],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        RUNNING.append(self.proc)
        self.base, self.token = self._banner()

    def _banner(self) -> tuple[str, str]:
        """The address and the host's join token, from what the service prints at start."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 60
        lines = []
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            found = re.search(r"Host link \(keep it private\): (http://[^/\s]+)/join/(\S+)", line)
            if found:
                return found.group(1), found.group(2)
        raise AssertionError("no banner:\n" + "".join(lines))

    def get(self, path: str) -> tuple[int, Any]:
        req = urllib.request.Request(self.base + path, headers={"Authorization": f"Bearer {self.token}"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def post(self, body: dict[str, Any]) -> tuple[int, Any]:
        data = json.dumps(body).encode()
        req = urllib.request.Request(self.base + "/api/actions", data=data, method="POST", headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"null")

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if self.get("/healthz")[0] == 200:
                    return
            except (urllib.error.URLError, ConnectionError, OSError):
                pass
            time.sleep(0.1)
        raise AssertionError("the service did not become healthy")

    def stop(self, sig: int = signal.SIGTERM) -> int:
        self.proc.send_signal(sig)
        try:
            return self.proc.wait(30)
        finally:
            if self.proc.stdout is not None:
                self.proc.stdout.close()


def blank_table(path: Path) -> Path:
    """A plain wooden-brown table with nothing on it: the camera sees no move."""
    image = np.full((480, 640, 3), (60, 90, 130), np.uint8)
    cv2.imwrite(str(path), image)
    return path


@pytest.fixture
def table_image(tmp_path: Path) -> Path:
    return blank_table(tmp_path / "table.png")


def test_serve_answers_then_stops_cleanly_on_sigterm(tmp_path: Path, table_image: Path) -> None:
    server = Server(tmp_path / "data", f"file:{table_image}")
    server.wait_healthy()
    status, state = server.get("/api/state")
    assert status == 200
    assert {"match_id", "version", "game", "players", "scores"} <= set(state)
    assert state["game"] == "elfer-raus" and state["version"] >= 1  # the configured first match
    status, out = server.post({"type": "new_match", "game": "numeri", "players": ["Ana", "Ben"],
                               "version": state["version"]})
    assert status == 200, out
    assert server.stop() == 0
    # Restarted, it resumes the same match.
    again = Server(tmp_path / "data", f"file:{table_image}")
    again.wait_healthy()
    status, resumed = again.get("/api/state")
    assert resumed["game"] == "numeri" and resumed["version"] == out["version"]
    assert again.stop() == 0


def test_a_foreign_database_is_refused_and_left_untouched(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    db = data / "companion.sqlite3"
    db.write_bytes(b"not a database at all" * 10)
    before = db.read_bytes()
    proc = subprocess.run([sys.executable, "-m", "companion", "serve", "--data", str(data), "--port", "0",
                           "--camera", "sim"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**os.environ, "COMPANION_GPIO": "false"})
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "companion.sqlite3" in proc.stderr
    assert db.read_bytes() == before


def _play(server: Server, acked: list[int], stop: threading.Event, rng: random.Random) -> None:
    """A host pressing buttons as fast as the box answers; every OK answer is remembered."""
    while not stop.is_set():
        try:
            status, state = server.get("/api/state")
            if status != 200:
                continue
            version = state["version"]
            if state.get("round_over"):
                body: dict[str, Any] = {"type": "next_round" if not state.get("match_over") else "rematch"}
            elif state.get("waiting_for") == "roll":
                body = {"type": "roll"}
            else:
                legal = (state.get("me") or {}).get("legal") or []
                if not legal:
                    continue
                body = {"type": "action", "action": rng.choice(legal)}
            status, out = server.post({**body, "version": version})
            if status == 200:
                acked.append(int(out["version"]))
        except (urllib.error.URLError, http.client.HTTPException, OSError, json.JSONDecodeError):
            return  # the box was killed mid-answer: that command was never acknowledged


def test_kill_9_at_random_moments_loses_no_acknowledged_event(tmp_path: Path, table_image: Path) -> None:
    rng = random.Random(2024)
    data = tmp_path / "data"
    acked: list[int] = []
    server = Server(data, f"file:{table_image}")
    server.wait_healthy()
    _, state = server.get("/api/state")
    status, _ = server.post({"type": "new_match", "game": "numeri", "players": ["Ana", "Ben", "Chloé"],
                             "version": state["version"]})
    assert status == 200
    for _ in range(KILLS):
        stop = threading.Event()
        player = threading.Thread(target=_play, args=(server, acked, stop, rng))
        player.start()
        time.sleep(rng.uniform(0.0, 0.6))
        server.proc.kill()  # kill -9: no clean-up of any kind
        server.proc.wait(30)
        stop.set()
        player.join(15)
        if server.proc.stdout is not None:
            server.proc.stdout.close()
        server = Server(data, f"file:{table_image}")
        server.wait_healthy()
        _, state = server.get("/api/state")
        assert acked and state["version"] >= max(acked), "an acknowledged event was lost"
    # The camera's first look after a restart may still add an event: compare once the box is quiet.
    _, final = server.get("/api/state")
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        time.sleep(2.0)
        _, again = server.get("/api/state")
        if again["version"] == final["version"]:
            break
        final = again
    assert server.stop() == 0
    # Every acknowledged event is on disk, the log has no gap, and replaying it gives the state shown.
    with Store.open(data / "companion.sqlite3") as store:
        matches = store.list_matches()
        total = sum(m.version for m in matches)
        assert total == final["version"] and max(acked) <= total
        current = store.match(final["match_id"])
        events = store.events(current.id)
        assert [e.seq for e in events] == list(range(1, len(events) + 1))
        session = Session.replay([(e.seq, e.kind, e.payload) for e in events])
    assert session.totals() == final["scores"]
    assert session.match.state.view(None)["board"]["squares"] == final["table"]["board"]["squares"]
    assert len(acked) > KILLS  # the players really played between the kills
