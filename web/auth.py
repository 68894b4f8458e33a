"""Who may do what: join tokens and codes per role and seat, sessions, CSRF, host check.

Each role has a grant: the host (full control), one player grant per seat, and a
spectator grant. A grant has a long random token (carried by the QR code's URL or sent as
`Authorization: Bearer <token>` by API clients) and a short code of 6 unambiguous
characters that can be typed on the join page. Redeeming either stores the grant's id in
Flask's signed session cookie (SameSite=Lax, HttpOnly, kept for 30 days), so a phone
that slept or reloaded keeps its seat. Grants, and the secret key that signs the
cookies, live in the data directory so they survive restarts. Rotating a grant gives it
a new token, code and id: phones that joined with the old one are out.

CSRF: a POST authenticated by the cookie must carry `X-CSRF-Token` equal to the token
kept in the session (pages embed it). Twenty lines of our own rather than Flask-WTF:
our POSTs are JSON from `fetch` (no forms to protect), the refusal must be our JSON
error in the user's language, and it saves a dependency on the Pi.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import os
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

ROLES = ("host", "player", "spectator")
CODE_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's: no I, L, O, U; typed I/L/O read as 1/1/0
CODE_LENGTH = 6
ACCESS_FILE = "web-access.json"
SECRET_FILE = "web-secret.key"
CSRF_HEADER = "X-CSRF-Token"


@dataclass
class Grant:
    id: str  # what a session cookie refers to; changes when the grant is rotated
    role: str
    seat: int | None
    token: str
    code: str

    @property
    def key(self) -> str:
        return f"player:{self.seat}" if self.role == "player" else self.role


@dataclass(frozen=True)
class Who:
    """The caller of one request, as far as the server can tell."""

    role: str  # host, player or spectator
    seat: int | None = None
    via: str = "none"  # bearer, cookie or none
    grant: Grant | None = None
    problem: str | None = None  # bad-token (unknown bearer token) or revoked (rotated away)


def new_code(rng: secrets.SystemRandom | None = None) -> str:
    pick = rng.choice if rng is not None else secrets.choice
    return "".join(pick(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def normalise_code(text: Any) -> str:
    """What the user typed, as a code: upper case, spaces and dashes removed, O read as 0, I and L as 1."""
    if not isinstance(text, str):
        return ""
    cleaned = "".join(ch for ch in text.upper() if ch.isalnum())
    return cleaned.translate(str.maketrans({"O": "0", "I": "1", "L": "1"}))[:32]


class Access:
    """The grants of one box, kept in `<data dir>/web-access.json` (or in memory)."""

    def __init__(self, path: Path | None, seats: int) -> None:
        self.path = path
        self.seats = seats
        self._lock = threading.Lock()
        self._grants: dict[str, Grant] = {}  # key -> grant
        loaded = self._load()
        for key, role, seat in self._wanted():
            if key not in loaded:
                loaded[key] = self._fresh(role, seat, loaded.values())
        self._grants = loaded
        self._save()

    def _wanted(self) -> list[tuple[str, str, int | None]]:
        return [("host", "host", None), ("spectator", "spectator", None),
                *((f"player:{s}", "player", s) for s in range(self.seats))]

    def _fresh(self, role: str, seat: int | None, taken: Iterable[Grant]) -> Grant:
        codes = {g.code for g in taken}
        code = new_code()
        while code in codes:
            code = new_code()
        return Grant(secrets.token_hex(8), role, seat, secrets.token_urlsafe(24), code)

    def _load(self) -> dict[str, Grant]:
        if self.path is None or not self.path.exists():
            return {}
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
            grants = {}
            for item in raw["grants"]:
                g = Grant(str(item["id"]), str(item["role"]), item["seat"], str(item["token"]), str(item["code"]))
                if g.role not in ROLES or len(g.token) < 16 or len(g.code) != CODE_LENGTH:
                    raise ValueError(f"bad grant {g.key}")
                grants[g.key] = g
            return grants
        except (OSError, ValueError, KeyError, TypeError) as exc:
            # Keep the unreadable file for inspection; new codes are better than no server.
            aside = self.path.with_name(f"{self.path.name}.bad-{int(time.time())}")
            log.warning("%s: unreadable join codes (%s); moved to %s, new codes made", self.path, exc, aside.name)
            try:
                self.path.replace(aside)
            except OSError:
                pass
            return {}

    def _save(self) -> None:
        if self.path is None:
            return
        data = {"grants": [asdict(g) for g in self._grants.values()]}
        write_private(self.path, json.dumps(data, indent=1))

    # -- lookups ----------------------------------------------------------------------------

    def grants(self) -> list[Grant]:
        with self._lock:
            return list(self._grants.values())

    def get(self, key: str) -> Grant | None:
        with self._lock:
            return self._grants.get(key)

    def by_id(self, grant_id: Any) -> Grant | None:
        if not isinstance(grant_id, str):
            return None
        return next((g for g in self.grants() if hmac.compare_digest(g.id, grant_id)), None)

    def by_token(self, token: Any) -> Grant | None:
        if not isinstance(token, str) or not token or len(token) > 200:
            return None
        found = None
        for g in self.grants():  # compare with every grant: no early exit to time
            if hmac.compare_digest(g.token.encode(), token.encode()):
                found = g
        return found

    def by_code(self, code: Any) -> Grant | None:
        wanted = normalise_code(code)
        if len(wanted) != CODE_LENGTH:
            return None
        found = None
        for g in self.grants():
            if hmac.compare_digest(g.code, wanted):
                found = g
        return found

    # -- changes ----------------------------------------------------------------------------

    def rotate(self, key: str) -> Grant:
        """New token, code and id for one grant: whoever joined with the old one is out."""
        with self._lock:
            old = self._grants.get(key)
            if old is None:
                raise KeyError(key)
            others = [g for k, g in self._grants.items() if k != key]
            fresh = self._fresh(old.role, old.seat, others)
            self._grants[key] = fresh
            self._save()
            return fresh


def write_private(path: Path, text: str) -> None:
    """Write a secret file readable by its owner only, atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def secret_key(data_dir: Path | None) -> bytes:
    """The cookie-signing key: kept in the data directory so sessions survive restarts."""
    if data_dir is None:
        return secrets.token_bytes(32)
    path = data_dir / SECRET_FILE
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
        if len(key) >= 32:
            return key
        log.warning("%s: key too short; making a new one (phones will join again)", path)
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as exc:
        log.warning("%s: unreadable (%s); making a new one (phones will join again)", path, exc)
    key = secrets.token_bytes(32)
    write_private(path, key.hex())
    return key


# --- who is asking ---------------------------------------------------------------------


def identify(access: Access, headers: Mapping[str, str], session: Mapping[str, Any]) -> Who:
    """The caller: a bearer token wins over the cookie; nothing valid is a spectator."""
    auth = headers.get("Authorization")
    if auth is not None:
        scheme, _, token = auth.partition(" ")
        grant = access.by_token(token.strip()) if scheme.lower() == "bearer" else None
        if grant is None:
            return Who("spectator", via="bearer", problem="bad-token")
        return Who(grant.role, grant.seat, "bearer", grant)
    grant_id = session.get("g")
    if grant_id is None:
        return Who("spectator")
    grant = access.by_id(grant_id)
    if grant is None:
        return Who("spectator", via="cookie", problem="revoked")
    return Who(grant.role, grant.seat, "cookie", grant)


def csrf_ok(session: Mapping[str, Any], sent: str | None) -> bool:
    expected = session.get("c")
    return isinstance(expected, str) and isinstance(sent, str) and hmac.compare_digest(expected, sent)


def new_csrf() -> str:
    return secrets.token_urlsafe(24)


class Throttle:
    """At most `limit` failed join attempts per address and `window` seconds."""

    def __init__(self, limit: int = 10, window: float = 60.0) -> None:
        self.limit = limit
        self.window = window
        self._fails: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def blocked(self, addr: str) -> bool:
        with self._lock:
            q = self._fails.get(addr)
            if not q:
                return False
            now = time.monotonic()
            while q and now - q[0] > self.window:
                q.popleft()
            return len(q) >= self.limit

    def fail(self, addr: str) -> None:
        with self._lock:
            if len(self._fails) > 1000:  # forget old addresses rather than grow without bound
                self._fails.clear()
            self._fails.setdefault(addr, deque()).append(time.monotonic())


# --- host check (DNS rebinding) --------------------------------------------------------


def lan_addresses() -> list[str]:
    """This box's IPv4 addresses on the local network (no packet is sent)."""
    found: set[str] = set()
    for probe in ("192.0.2.1", "10.255.255.255"):
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
                s.connect((probe, 9))  # a UDP connect only picks the route's source address
                found.add(s.getsockname()[0])
        except OSError:
            pass
    try:
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            found.add(str(info[4][0]))
    except OSError:
        pass
    return sorted(a for a in found if not a.startswith("127.") and a != "0.0.0.0")


def allowed_hosts(extra: Iterable[str] = ()) -> list[str]:
    """localhost, 127.0.0.1, the LAN addresses, `<hostname>` and `<hostname>.local`, plus `extra`."""
    name = socket.gethostname().split(".")[0].lower()
    hosts = ["localhost", "127.0.0.1", *lan_addresses()]
    if name:
        hosts += [name, f"{name}.local"]
    hosts += [h.strip().lower() for h in extra if h and h.strip()]
    return list(dict.fromkeys(hosts))


def is_lan_ip(host: str) -> bool:
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False
    return ip.version == 4 and not ip.is_loopback and not ip.is_unspecified


__all__ = [
    "ACCESS_FILE",
    "CODE_ALPHABET",
    "CODE_LENGTH",
    "CSRF_HEADER",
    "ROLES",
    "SECRET_FILE",
    "Access",
    "Grant",
    "Throttle",
    "Who",
    "allowed_hosts",
    "csrf_ok",
    "identify",
    "is_lan_ip",
    "lan_addresses",
    "new_code",
    "new_csrf",
    "normalise_code",
    "secret_key",
]
