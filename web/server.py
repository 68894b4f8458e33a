"""Running the app with waitress: the settings SSE needs, a stoppable server thread, the banner.

Every open event stream (one per phone page) and camera preview holds a waitress worker
thread for as long as it is open, so the pool is much larger than waitress's default of
4; commands and state reads need a few threads besides (the app refuses new streams
beyond `SSE_MAX_STREAMS`, kept below the pool). `channel_request_lookahead` lets a stream
notice a phone that went away (`waitress.client_disconnected`); the streams send a
keep-alive comment every 15 s, well inside `channel_timeout`.
"""

from __future__ import annotations

import io
import logging
import threading
from typing import Any

import segno
from flask import Flask
from waitress import wasyncore
from waitress.server import create_server

from .auth import lan_addresses

log = logging.getLogger(__name__)

THREADS = 64
SETTINGS: dict[str, Any] = {
    "channel_timeout": 120,  # seconds without any byte before waitress drops a connection
    "connection_limit": 200,
    "cleanup_interval": 30,
    "channel_request_lookahead": 1,  # enables waitress.client_disconnected for streams
    "asyncore_use_poll": True,  # no 1024-descriptor limit of select()
    "ident": "table-companion",
    "clear_untrusted_proxy_headers": True,
}


def make_server(app: Flask, host: str = "0.0.0.0", port: int = 8080, *, threads: int = THREADS, **extra: Any) -> Any:
    """A waitress server for `app` (not yet running); `port=0` picks a free port."""
    streams = int(app.config.get("SSE_MAX_STREAMS", 56))
    if streams >= threads - 2:
        # Leave threads for commands and page loads even when every stream slot is taken.
        app.config["SSE_MAX_STREAMS"] = max(1, threads - 8)
        log.warning("SSE_MAX_STREAMS lowered to %d to fit %d server threads", threads - 8, threads)
    return create_server(app, host=host, port=port, threads=threads, **{**SETTINGS, **extra})


def serve(app: Flask, host: str = "0.0.0.0", port: int = 8080, *, threads: int = THREADS) -> None:
    """Serve until interrupted (the service stops it from its SIGTERM handler with `ServerThread`)."""
    make_server(app, host, port, threads=threads).run()


class ServerThread:
    """The app served by waitress in a background thread; `stop()` closes every connection.

    Used by `companion serve` (stopped on SIGTERM), the browser tests and the benchmarks.
    """

    def __init__(self, app: Flask, host: str = "127.0.0.1", port: int = 0, *, threads: int = THREADS,
                 **extra: Any) -> None:
        self.app = app
        self.server = make_server(app, host, port, threads=threads, **extra)
        self.port = int(self.server.effective_port)
        self.host = host
        self._stop = threading.Event()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, name="waitress", daemon=True)

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("0.0.0.0", "") else self.host
        return f"http://{host}:{self.port}"

    def start(self) -> ServerThread:
        self._thread.start()
        return self

    def _run(self) -> None:
        srv = self.server
        try:
            while not self._stop.is_set():
                wasyncore.loop(timeout=0.2, map=srv._map, use_poll=True, count=1)
        finally:
            # In the loop's own thread: no other thread touches the socket map meanwhile.
            wasyncore.close_all(srv._map)
            services = self.app.extensions.get("companion")
            if services is not None:
                services.presence.close_all()  # event streams return now instead of at their next wake-up
            srv.task_dispatcher.shutdown(timeout=5)
            self._done.set()

    def stop(self, timeout: float = 10.0) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._done.wait(timeout)
            self._thread.join(timeout)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def banner(app: Flask, port: int, public_url: str = "", host: str = "0.0.0.0") -> str:
    """What `companion serve` prints: the address for phones and the host's join QR code.

    The URL uses the LAN address (Android phones often cannot resolve `.local` names), or
    the one address the server listens on when it is bound to a single one.
    """
    base = public_url.rstrip("/") if public_url else ""
    if not base:
        addresses = lan_addresses()
        ip = addresses[0] if addresses else "127.0.0.1"
        if host not in ("0.0.0.0", "", "::"):
            ip = host
        base = f"http://{ip}" + ("" if port == 80 else f":{port}")
    host = app.extensions["companion"].access.get("host")
    join = f"{base}/join/{host.token}"
    out = io.StringIO()
    segno.make(join, error="m").terminal(out=out, compact=True)
    return (f"Table Companion: open {base}/ on the phones (same Wi-Fi).\n"
            f"Host: scan this code, or open {base}/join and type {host.code}.\n{out.getvalue()}"
            f"Host link (keep it private): {join}\n")


__all__ = ["SETTINGS", "THREADS", "ServerThread", "banner", "make_server", "serve"]
