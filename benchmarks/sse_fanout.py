"""SSE fan-out: N phones follow the event stream while the host plays; does everyone get everything, in time?

Usage: python benchmarks/sse_fanout.py [--clients 50] [--events 40] [--gap 0.05]

The app runs as `companion serve` runs it (waitress, referee thread, SQLite store with
fsync), on loopback. Each client is a thread with its own HTTP connection to
/api/events; the host posts commands over HTTP (bearer token). For every event we take
the spread of its arrival times across the clients (last - first) and the latency from
the POST to each arrival. The aim (web brief): every client receives every event, p95
spread <= 100 ms.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from random import Random
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion.referee import Referee  # noqa: E402
from companion.store import Store  # noqa: E402
from web import create_app  # noqa: E402
from web.server import ServerThread  # noqa: E402


class Listener(threading.Thread):
    """One phone: reads the event stream and notes when each event id arrives."""

    def __init__(self, port: int, ready: threading.Barrier) -> None:
        super().__init__(daemon=True)
        self.port = port
        self.ready = ready
        self.arrivals: dict[int, float] = {}
        self.stop = threading.Event()

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        conn.request("GET", "/api/events", headers={"Accept": "text/event-stream"})
        resp = conn.getresponse()
        assert resp.status == 200, resp.status
        resp.readline()  # ": hello" flushed first: the stream is open
        self.ready.wait()
        while not self.stop.is_set():
            line = resp.readline()
            if not line:
                break
            if line.startswith(b"id: "):
                self.arrivals[int(line[4:])] = time.perf_counter()
        conn.close()


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def post(port: int, token: str, body: dict[str, Any]) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/api/actions", json.dumps(body), {"Content-Type": "application/json",
                                                             "Authorization": f"Bearer {token}"})
    data = json.loads(conn.getresponse().read())
    conn.close()
    return data


def get_state(port: int, token: str) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/api/state", headers={"Authorization": f"Bearer {token}"})
    data = json.loads(conn.getresponse().read())
    conn.close()
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--events", type=int, default=40)
    parser.add_argument("--gap", type=float, default=0.05, help="seconds between two commands")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="sse-bench-"))
    store = Store.open(tmp / "companion.sqlite3")
    referee = Referee(store, rng=Random(1))
    referee.start()
    app = create_app({"DATA_DIR": tmp, "SSE_MAX_STREAMS": args.clients + 8}, referee=referee)
    server = ServerThread(app, threads=args.clients + 16).start()
    host = app.extensions["companion"].access.get("host").token
    out = post(server.port, host, {"type": "new_match", "game": "numeri", "players": ["A", "B", "C", "D"],
                                   "version": 0})
    assert out.get("ok"), out

    ready = threading.Barrier(args.clients + 1)
    listeners = [Listener(server.port, ready) for _ in range(args.clients)]
    for listener in listeners:
        listener.start()
    ready.wait(timeout=60)
    while app.extensions["companion"].presence.count() < args.clients:
        time.sleep(0.01)

    sent: dict[int, float] = {}
    rng = Random(2)
    while len(sent) < args.events:
        state = get_state(server.port, host)
        if state["match_over"] or state["round_over"]:
            post(server.port, host, {"type": "rematch", "version": state["version"]})
            continue
        legal = state.get("me", {}).get("legal") or []
        if not legal:
            break
        action = rng.choice(legal)
        body = {"type": "roll", "value": action["value"]} if action["type"] == "roll" else \
            {"type": "action", "action": action}
        t0 = time.perf_counter()
        out = post(server.port, host, {**body, "version": state["version"]})
        if not out.get("ok"):
            continue
        for v in range(state["version"] + 1, out["version"] + 1):  # auto-advanced events count too
            sent[v] = t0
        time.sleep(args.gap)

    deadline = time.perf_counter() + 10
    while time.perf_counter() < deadline and not all(set(sent) <= set(x.arrivals) for x in listeners):
        time.sleep(0.05)
    for listener in listeners:
        listener.stop.set()
    complete = sum(1 for x in listeners if set(sent) <= set(x.arrivals))
    spreads, latencies = [], []
    for v, t0 in sent.items():
        times = [x.arrivals[v] for x in listeners if v in x.arrivals]
        if len(times) == len(listeners):
            spreads.append((max(times) - min(times)) * 1000)
        latencies += [(t - t0) * 1000 for t in times]
    server.stop()
    referee.stop()
    store.close()

    print(f"SSE fan-out on loopback: {args.clients} clients, {len(sent)} events "
          f"({args.gap * 1000:.0f} ms apart), waitress threads {args.clients + 16}")
    print(f"  clients that received every event: {complete}/{args.clients}")
    if spreads:
        print(f"  arrival spread across clients (ms): p50 {statistics.median(spreads):.1f}  "
              f"p95 {percentile(spreads, 95):.1f}  max {max(spreads):.1f}   (aim: p95 <= 100)")
        print(f"  POST-to-arrival latency (ms): p50 {statistics.median(latencies):.1f}  "
              f"p95 {percentile(latencies, 95):.1f}  max {max(latencies):.1f}")
    ok = complete == args.clients and spreads and percentile(spreads, 95) <= 100
    print("  result:", "OK" if ok else "NOT MET")


if __name__ == "__main__":
    main()
