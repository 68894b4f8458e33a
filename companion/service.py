"""`companion serve`: the one place where camera, vision, referee, store, hardware and web meet.

Start order: store (refuses a foreign or damaged file), referee (resumes the match from
its log), buttons and LEDs, camera, web server; then systemd hears READY and, from then
on, a watchdog ping each time the service checks its own health. SIGTERM unwinds it all in
reverse order, so the pins, the camera and the database are closed cleanly.
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from . import sdnotify
from .config import Config
from .hardware import Panel
from .hub import Hub
from .perception import Perceiver
from .referee import Actor, Referee
from .store import Store

log = logging.getLogger(__name__)

HEALTH_EVERY = 5.0  # seconds between health checks (and watchdog pings)
BUTTON = Actor("button")
PANEL_COMMANDS = {
    "next": {"type": "next"},
    "roll": {"type": "roll"},
    "draw": {"type": "draw"},
    "undo": {"type": "undo"},
    "undo_turn": {"type": "undo", "turn": True},
}


def first_match(referee: Referee, config: Config) -> None:
    """A fresh box shows a game at once: start the configured match when there has never been one."""
    if referee.match_id is not None:
        return
    m = config.match
    out = referee.submit({"type": "new_match", "game": m.game, "variant": m.variant, "players": list(m.players),
                          "rounds": m.rounds}, Actor("system"))
    if not out.ok:
        log.warning("could not start the configured match: %s", out.message("en"))


def build_camera(referee: Referee, config: Config, spec: str) -> Any:
    """The camera service; `sim` (or `auto` without a camera) films automatic players."""
    from vision.sources import IterableSource

    from .camera import CameraService
    from .simcamera import SimCamera

    fps = float(config.camera.fps)

    def sim_source() -> IterableSource:
        sim = SimCamera(referee, fps=fps)
        return IterableSource(sim.images, fps=fps, name="sim")

    from vision.stabilizer import StabilizerConfig

    return CameraService(referee, spec, fps=fps, size=tuple(config.camera.resolution), data_dir=config.data.dir,
                         sim_factory=sim_source, stabilizer=StabilizerConfig(still_frames=config.vision.stable_frames),
                         read_boards=config.vision.boards)


def _signals(panel: Panel) -> Any:
    def signal_to_panel(what: str, arg: Any = None) -> None:
        try:
            if what == "ok":
                panel.signal_ok()
            elif what == "error":
                panel.signal_error()
            elif what == "turn":
                panel.show_turn(arg)
        except Exception:  # noqa: BLE001 - a LED must never stop the referee
            log.debug("panel signal failed", exc_info=True)

    return signal_to_panel


def run(config: Config, camera_spec: str | None = None, out: Any = None) -> int:
    """Run the service until SIGTERM/SIGINT; returns the exit status."""
    from web import create_app
    from web.server import ServerThread, banner

    out = out or sys.stdout
    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    spec = camera_spec or config.camera.spec
    with ExitStack() as stack:
        store = stack.enter_context(Store.open(config.database))
        panel = stack.enter_context(Panel(config.gpio))
        referee = Referee(store, Hub(), perceive=Perceiver(confident=config.vision.min_confidence),
                          signal=_signals(panel))
        referee.start()
        stack.callback(referee.stop)
        first_match(referee, config)
        camera = build_camera(referee, config, spec)
        camera.start()
        stack.callback(camera.stop)
        app = create_app({"DATA_DIR": str(config.data.dir), "PUBLIC_URL": config.server.public_url},
                         referee=referee, camera=camera)
        panel.on_command(lambda name: _button(referee, app, name))
        stack.callback(panel.on_command, None)
        server = ServerThread(app, config.server.host, config.server.port).start()
        stack.callback(server.stop)
        print(banner(app, server.port, config.server.public_url, config.server.host), file=out, flush=True)
        sdnotify.ready(f"serving on port {server.port}")
        while not stop.wait(HEALTH_EVERY):
            healthy = referee.alive() and camera.healthy() and server.alive
            if healthy:
                sdnotify.watchdog()
            else:
                log.error("unhealthy: referee %s, camera %s, web %s", referee.alive(), camera.healthy(),
                          server.alive)
            sdnotify.status(f"camera {camera.status()['state']}, match {referee.match_id or '-'}")
        sdnotify.stopping()
    return 0


def _button(referee: Referee, app: Any, name: str) -> None:
    """A press or hold on the panel (gpiozero's thread): queue it for the referee."""
    if name == "new_code":
        access = app.extensions["companion"].access
        access.rotate("host")
        log.info("host join code rotated from the panel")
        return
    command = PANEL_COMMANDS.get(name)
    if command is not None:
        referee.post(dict(command), BUTTON)


def data_dir_of(config: Config) -> Path:
    return Path(config.data.dir)
