"""The systemd unit (checked by systemd-analyze) and the sd_notify helper."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion import sdnotify

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "companion.service"
INSTALLED_EXEC = "/opt/table-companion/venv/bin/companion"


def _directives(text: str) -> dict[str, list[str]]:
    """'Section.Key' -> values, in order (keys may repeat)."""
    found: dict[str, list[str]] = {}
    section = ""
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        found.setdefault(f"{section}.{key.strip()}", []).append(value.strip())
    return found


@pytest.fixture(scope="module")
def unit() -> dict[str, list[str]]:
    return _directives(UNIT.read_text())


def _one(unit: dict[str, list[str]], key: str) -> str:
    assert key in unit, f"{key} missing from {UNIT.name}"
    return unit[key][-1]


def test_service_shape(unit: dict[str, list[str]]) -> None:
    assert _one(unit, "Service.Type") == "notify"
    assert float(_one(unit, "Service.WatchdogSec")) > 0
    assert _one(unit, "Service.Restart") == "on-failure"
    assert _one(unit, "Service.RestartSec")
    assert _one(unit, "Unit.StartLimitIntervalSec") and _one(unit, "Unit.StartLimitBurst")
    assert _one(unit, "Service.TimeoutStopSec")
    assert _one(unit, "Service.User") not in ("root", "pi")
    assert set(_one(unit, "Service.SupplementaryGroups").split()) >= {"video", "gpio"}
    state = _one(unit, "Service.StateDirectory")
    assert f"COMPANION_DATA=%S/{state}" in unit["Service.Environment"]
    runtime = _one(unit, "Service.RuntimeDirectory")
    assert _one(unit, "Service.WorkingDirectory") == f"%t/{runtime}"  # writable, for lgpio's pipes
    assert _one(unit, "Install.WantedBy") == "multi-user.target"


def test_hardening_without_hiding_the_devices(unit: dict[str, list[str]]) -> None:
    for key, value in [("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
                       ("NoNewPrivileges", "yes"), ("ProtectKernelTunables", "yes"),
                       ("ProtectControlGroups", "yes")]:
        assert _one(unit, f"Service.{key}") == value
    assert "AF_INET" in _one(unit, "Service.RestrictAddressFamilies").split()
    # The camera (/dev/video*, /dev/media*, /dev/dma_heap) and /dev/gpiochip* must stay visible.
    assert unit.get("Service.PrivateDevices", ["no"])[-1] in ("no", "false")
    assert "Service.ProcSubset" not in unit
    assert "Service.PrivateUsers" not in unit


def test_exec_start_runs_the_console_script_with_the_system_config(unit: dict[str, list[str]]) -> None:
    argv = shlex.split(_one(unit, "Service.ExecStart"))
    assert argv == [INSTALLED_EXEC, "serve", "--config", "/etc/table-companion/config.toml"]
    from companion.cli import build_parser

    parser = build_parser()
    commands = next(a for a in parser._actions if a.dest == "command").choices
    if "serve" not in commands:
        pytest.skip("`companion serve` is not written yet")
    assert parser.parse_args(argv[1:]).command == "serve"


def _analyze() -> str:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed (Debian package: systemd)")
    probe = subprocess.run([tool, "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"systemd-analyze cannot run here: {probe.stderr.strip()}")
    return tool


@pytest.fixture
def runnable_unit(tmp_path: Path) -> Iterator[Path]:
    """The unit with ExecStart pointed at an executable that exists here (verify checks it)."""
    exe = ROOT / ".venv" / "bin" / "companion"
    text = UNIT.read_text().replace(INSTALLED_EXEC, str(exe if exe.exists() else Path(sys.executable)))
    assert text != UNIT.read_text()
    path = tmp_path / UNIT.name
    path.write_text(text)
    yield path


def _verify(path: Path) -> tuple[int, list[str]]:
    done = subprocess.run([_analyze(), "verify", str(path)], capture_output=True, text=True, cwd=path.parent)
    # Warnings ("Unknown key", "Failed to parse ...") do not change the exit status: read them.
    about_us = [line for line in (done.stdout + done.stderr).splitlines() if path.name in line]
    return done.returncode, about_us


def test_systemd_analyze_verify_accepts_the_unit(runnable_unit: Path) -> None:
    code, complaints = _verify(runnable_unit)
    assert complaints == []
    assert code == 0


def test_systemd_analyze_verify_would_catch_a_mistake(runnable_unit: Path) -> None:
    broken = runnable_unit.read_text().replace("Restart=on-failure", "Restart=sometimes")
    broken = broken.replace("ProtectHome=yes", "ProtectHome=yes # comments must be on their own line")
    runnable_unit.write_text(broken)
    _, complaints = _verify(runnable_unit)
    assert any("restart" in line.lower() for line in complaints)
    assert any("protect home" in line.lower() for line in complaints)


def test_security_exposure_stays_low(runnable_unit: Path) -> None:
    done = subprocess.run([_analyze(), "security", "--offline=yes", str(runnable_unit)], capture_output=True,
                          text=True, cwd=runnable_unit.parent)
    match = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", done.stdout)
    if match is None:
        pytest.skip(f"this systemd-analyze has no offline security review: {done.stderr.strip()[:200]}")
    assert float(match.group(1)) <= 2.5


# --- sd_notify --------------------------------------------------------------------------


@pytest.fixture(params=["path", "abstract"])
def notify_socket(request: pytest.FixtureRequest, tmp_path: Path,
                  monkeypatch: pytest.MonkeyPatch) -> Iterator[socket.socket]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if request.param == "path":
        address = str(tmp_path / "notify")
        sock.bind(address)
    else:
        address = f"@companion-test-{os.getpid()}-{id(sock)}"
        sock.bind("\0" + address[1:])
    sock.settimeout(5)
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    try:
        yield sock
    finally:
        sock.close()


def test_notifications_reach_the_socket(notify_socket: socket.socket) -> None:
    assert sdnotify.ready()
    assert sdnotify.status("camera: 9.8 fps\nreferee: waiting")
    assert sdnotify.watchdog()
    assert sdnotify.ready("serving on http://192.168.1.20:8080/")
    assert sdnotify.stopping()
    received = [notify_socket.recv(4096).decode() for _ in range(5)]
    assert received == [
        "READY=1",
        "STATUS=camera: 9.8 fps referee: waiting",
        "WATCHDOG=1",
        "READY=1\nSTATUS=serving on http://192.168.1.20:8080/",
        "STOPPING=1",
    ]


def test_without_systemd_nothing_is_sent(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    assert sdnotify.ready() is False
    assert sdnotify.watchdog() is False
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "gone"))  # systemd went away: no crash
    assert sdnotify.status("still here") is False


def test_watchdog_interval() -> None:
    me = str(os.getpid())
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 15.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": me}) == 15.0
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "1"}) is None
    assert sdnotify.watchdog_interval({}) is None
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "soon"}) is None
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": "0"}) is None


def test_unit_watchdog_gives_time_for_pings(unit: dict[str, list[str]]) -> None:
    # The service pings every WATCHDOG_USEC/2; systemd passes WatchdogSec as WATCHDOG_USEC.
    seconds = float(_one(unit, "Service.WatchdogSec"))
    assert sdnotify.watchdog_interval({"WATCHDOG_USEC": str(int(seconds * 1e6))}) == seconds / 2


def test_sysusers_file_creates_the_user_and_groups(tmp_path: Path) -> None:
    tool = shutil.which("systemd-sysusers")
    if tool is None:
        pytest.skip("systemd-sysusers is not installed (Debian package: systemd)")
    (tmp_path / "etc").mkdir()
    for name in ("passwd", "group", "shadow", "gshadow"):
        (tmp_path / "etc" / name).write_text("")
    done = subprocess.run([tool, f"--root={tmp_path}", "--dry-run", str(ROOT / "systemd" / "companion.sysusers")],
                          capture_output=True, text=True)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    user = _one(_directives(UNIT.read_text()), "Service.User")
    assert f"Creating user '{user}'" in output
    for group in ("video", "gpio"):  # created when the system lacks them
        assert f"Creating group '{group}'" in output
    assert (tmp_path / "etc" / "passwd").read_text() == ""  # a dry run
