"""Fixtures for the web tests: a referee on an in-memory store, the app, and phones with roles."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from random import Random
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from companion.referee import Actor, Referee
from companion.store import Store
from web import create_app
from web.camera import FakeCamera

HOST = Actor("host")
CSRF_RE = re.compile(r'"csrf":\s*"([^"]+)"')


def make_referee(store: Store, seed: int = 7) -> Referee:
    return Referee(store, rng=Random(seed))


def make_app(referee: Referee, tmp: Path | None = None, **config: Any) -> Flask:
    camera = config.pop("camera", FakeCamera())
    cfg = {"TESTING": True, "DATA_DIR": tmp, "SSE_KEEPALIVE": 0.2, **config}
    return create_app(cfg, referee=referee, camera=camera)


class Phone:
    """One browser: a test client with a language and, after `join`, a role and a CSRF token."""

    def __init__(self, app: Flask, lang: str = "fr") -> None:
        self.app = app
        self.client: FlaskClient = app.test_client()
        self.lang = lang
        self.csrf = ""

    @property
    def headers(self) -> dict[str, str]:
        return {"Accept-Language": self.lang}

    def join(self, key: str) -> Phone:
        token = self.app.extensions["companion"].access.get(key).token
        resp = self.client.get(f"/join/{token}", headers=self.headers)
        assert resp.status_code == 303, resp.data
        return self.load_csrf()

    def load_csrf(self) -> Phone:
        page = self.client.get("/", headers=self.headers).get_data(as_text=True)
        self.csrf = CSRF_RE.search(page).group(1)  # type: ignore[union-attr]
        return self

    def state(self) -> dict[str, Any]:
        resp = self.client.get("/api/state", headers=self.headers)
        assert resp.status_code == 200, resp.data
        return resp.json  # type: ignore[return-value]

    def post(self, command: dict[str, Any], *, version: int | None = None, csrf: bool = True,
             headers: dict[str, str] | None = None) -> Any:
        body = dict(command)
        if "version" not in body:
            body["version"] = self.state()["version"] if version is None else version
        h = dict(self.headers)
        if csrf:
            h["X-CSRF-Token"] = self.csrf
        h.update(headers or {})
        return self.client.post("/api/actions", json=body, headers=h)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store.open(tmp_path / "companion.sqlite3") as opened:
        yield opened


@pytest.fixture
def referee(store: Store) -> Referee:
    return make_referee(store)


@pytest.fixture
def app(referee: Referee, tmp_path: Path) -> Flask:
    return make_app(referee, tmp_path)


@pytest.fixture
def host(app: Flask) -> Phone:
    return Phone(app).join("host")


@pytest.fixture
def junior(referee: Referee, host: Phone) -> Referee:
    """A 2-player Elfer raus! Junior match, dealt (hidden hands), Ana (seat 0) to play."""
    resp = host.post({"type": "new_match", "game": "elfer-raus-junior", "players": ["Ana", "Ben"]})
    assert resp.status_code == 200, resp.json
    return referee


@pytest.fixture
def ana(app: Flask, junior: Referee) -> Phone:
    return Phone(app).join("player:0")


@pytest.fixture
def ben(app: Flask, junior: Referee) -> Phone:
    return Phone(app, lang="en").join("player:1")


@pytest.fixture
def spectator(app: Flask) -> Phone:
    return Phone(app).load_csrf()


@pytest.fixture
def stream_lines() -> Iterator[Any]:
    """Open SSE responses, closed at the end of the test."""
    opened: list[Any] = []
    yield opened
    for resp in opened:
        resp.close()
