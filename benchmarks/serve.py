"""Figures of the live referee (`companion serve`).

1. Latency from "table still" (the stabiliser's snapshot) to the committed event and to its
   Server-Sent Events message, on rendered play sequences read by the real recogniser
   (aim: <= 300 ms on the development machine).
2. CPU use of the whole service with an idle table at 10 fps (aim: <= 25 % of one core).
3. Resident memory of the whole service with the simulated table running (aim: <= 250 MB).

Usage: python benchmarks/serve.py [--moves 12] [--idle-seconds 30] [--sim-seconds 60]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.camera import CameraService  # noqa: E402
from companion.hub import Hub  # noqa: E402
from companion.perception import Perceiver  # noqa: E402
from companion.referee import Actor, Referee  # noqa: E402
from companion.simcamera import SimCamera  # noqa: E402
from companion.store import Store  # noqa: E402
from vision.sources import IterableSource  # noqa: E402


def latency(moves: int) -> None:
    """Stable snapshot -> stored event -> SSE message, through the real pipeline."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "db.sqlite3")
        hub = Hub()
        referee = Referee(store, hub, perceive=Perceiver())
        referee.start()
        referee.submit({"type": "new_match", "game": "elfer-raus-junior", "players": ["A", "B"]}, Actor("host"))
        sim = SimCamera(referee, fps=15, seed=5)
        stable_at: list[float] = []
        arrivals: list[float] = []
        sub = hub.subscribe()

        def listen() -> None:
            while True:
                msg = sub.get(timeout=60)
                if msg is None:
                    return
                if msg.data.get("kind") == "action":
                    arrivals.append(time.perf_counter())

        threading.Thread(target=listen, daemon=True).start()
        camera = CameraService(referee, "sim", fps=0, sim_factory=lambda: IterableSource(sim.images, fps=0))
        original = camera.stabilizer.feed

        def feed(frame):  # noqa: ANN001, ANN202 - wraps the stabiliser to time its snapshots
            event = original(frame)
            if event is not None:
                stable_at.append(time.perf_counter())
            return event

        camera.stabilizer.feed = feed  # type: ignore[method-assign]
        camera.start()
        deadline = time.monotonic() + 600
        while sim.stats["steps"] < moves and time.monotonic() < deadline:
            time.sleep(0.2)
        camera.stop()
        referee.stop()
        # Pair each snapshot with the first message after it (snapshots with no new move send none).
        delays = []
        for t in stable_at:
            later = [a - t for a in arrivals if a >= t]
            if later and later[0] < 5:
                delays.append(later[0] * 1000)
        if delays:
            q = statistics.quantiles(delays, n=20) if len(delays) > 1 else delays
            print(f"table still -> event on disk -> SSE message: median {statistics.median(delays):.0f} ms, "
                  f"p95 {q[-1]:.0f} ms over {len(delays)} snapshots that carried a move "
                  f"(recogniser {camera.last_read_ms:.0f} ms on the last one)")
        print(f"simulated moves {sim.stats['steps']}, corrections needed {sim.stats['corrections']}, "
              f"confirmations {sim.stats['confirmations']}")


def _service(camera: str, data: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "COMPANION_GPIO": "false"}
    proc = subprocess.Popen([sys.executable, "-m", "companion", "serve", "--camera", camera, "--data", str(data),
                             "--port", "0", "--host", "127.0.0.1"], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("Host link"):
            break
    return proc


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> tuple[float, float]:
    status = Path(f"/proc/{pid}/status").read_text()
    rss = int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    peak = int(re.search(r"VmHWM:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]
    return rss, peak


def idle_cpu(seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        image = Path(tmp) / "table.png"
        cv2.imwrite(str(image), np.full((1232, 1640, 3), (60, 90, 130), np.uint8))
        proc = _service(f"file:{image}", Path(tmp) / "data")
        time.sleep(5)  # warm up: first snapshot read
        c0, t0 = _cpu_seconds(proc.pid), time.monotonic()
        time.sleep(seconds)
        share = (_cpu_seconds(proc.pid) - c0) / (time.monotonic() - t0)
        rss, peak = _rss_mb(proc.pid)
        proc.terminate()
        proc.wait(30)
        print(f"idle table at 10 fps (1640x1232 frames): CPU {share * 100:.1f} % of one core, "
              f"RSS {rss:.0f} MB (peak {peak:.0f} MB)")


def sim_memory(seconds: float) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc = _service("sim", Path(tmp) / "data")
        time.sleep(seconds)
        rss, peak = _rss_mb(proc.pid)
        proc.terminate()
        proc.wait(30)
        print(f"whole service with the simulated table playing for {seconds:.0f} s: RSS {rss:.0f} MB, "
              f"peak {peak:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--moves", type=int, default=12)
    parser.add_argument("--idle-seconds", type=float, default=30.0)
    parser.add_argument("--sim-seconds", type=float, default=60.0)
    args = parser.parse_args()
    latency(args.moves)
    idle_cpu(args.idle_seconds)
    sim_memory(args.sim_seconds)


if __name__ == "__main__":
    main()
