"""Milliseconds per appended event (WAL, synchronous=FULL: one fsync per commit), and the
time to read a match back for replay.

Usage: python benchmarks/store.py [--events N] [--dir DIR]
Run it on the storage that matters (the Pi's SD card, not a tmpfs): --dir defaults to a
temporary directory under the current one. A table game writes a few events a minute, so
anything below ~50 ms per event is invisible to the players.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from companion.store import Store


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--events", type=int, default=500)
    parser.add_argument("--dir", type=Path, default=Path.cwd(), help="where to make the temporary database")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="store-bench-", dir=args.dir) as tmp:
        path = Path(tmp) / "companion.sqlite3"
        with Store.open(path) as store:
            mid = store.create_match("elfer-raus", None, ["Léa", "Hugo", "Inès", "Noé"], {"rounds": 4})
            times = []
            for i in range(args.events):
                payload = {"type": "play", "player": i % 4, "card": f"R{i % 20 + 1}", "version": i}
                start = time.perf_counter()
                store.append(mid, "action", payload, f"player:{i % 4}", expected_version=i)
                times.append((time.perf_counter() - start) * 1000)
            batch_start = time.perf_counter()
            store.append_many(mid, [("action", {"n": n}) for n in range(10)])
            batch_ms = (time.perf_counter() - batch_start) * 1000
        start = time.perf_counter()
        with Store.open(path) as store:  # what a restart does: checks, then reads the log
            opened_ms = (time.perf_counter() - start) * 1000
            events = store.events(mid)
        replay_read_ms = (time.perf_counter() - start) * 1000
        size_kb = path.stat().st_size / 1024

    times.sort()
    print(json.dumps({
        "events": args.events,
        "append_ms_mean": round(statistics.fmean(times), 3),
        "append_ms_median": round(statistics.median(times), 3),
        "append_ms_p95": round(times[int(len(times) * 0.95) - 1], 3),
        "append_ms_max": round(times[-1], 3),
        "append_many_10_ms": round(batch_ms, 3),
        "open_ms": round(opened_ms, 3),
        "open_and_read_ms": round(replay_read_ms, 3),
        "events_read": len(events),
        "file_kb": round(size_kb, 1),
        "dir": str(args.dir),
    }))


if __name__ == "__main__":
    main()
