"""systemd notifications (sd_notify) without a dependency.

Under `Type=notify` systemd passes a datagram socket in `$NOTIFY_SOCKET` (a leading "@"
means the abstract namespace). Without it (a terminal, the tests) every call does nothing
and returns False. Ping `watchdog()` from the service's health check, not from a timer:
a hung camera or referee must stop the pings so that systemd restarts the service.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping


def notify(message: str, env: Mapping[str, str] | None = None) -> bool:
    """Send `message` (e.g. "READY=1") to systemd; True if it was sent."""
    address = (os.environ if env is None else env).get("NOTIFY_SOCKET", "")
    if not address:
        return False
    if address[0] == "@":
        address = "\0" + address[1:]
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
            sock.sendto(message.encode("utf-8"), address)
    except OSError:
        return False  # systemd gone or socket unusable: the service keeps running
    return True


def ready(status: str | None = None) -> bool:
    return notify("READY=1" if status is None else f"READY=1\nSTATUS={_line(status)}")


def status(text: str) -> bool:
    return notify(f"STATUS={_line(text)}")


def watchdog() -> bool:
    return notify("WATCHDOG=1")


def stopping() -> bool:
    return notify("STOPPING=1")


def watchdog_interval(env: Mapping[str, str] | None = None) -> float | None:
    """Seconds between pings (half systemd's timeout), or None without a watchdog."""
    env = os.environ if env is None else env
    try:
        usec = int(env.get("WATCHDOG_USEC", ""))
        pid = int(env.get("WATCHDOG_PID", os.getpid()))
    except ValueError:
        return None
    if usec <= 0 or pid != os.getpid():  # the watchdog is meant for another process
        return None
    return usec / 2_000_000


def _line(text: str) -> str:
    return " ".join(text.split())  # one line: a newline would start a new assignment


__all__ = ["notify", "ready", "status", "stopping", "watchdog", "watchdog_interval"]
