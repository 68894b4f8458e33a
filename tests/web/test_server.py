"""waitress runner: serves the app on a real socket, streams events, stops cleanly; the start-up banner."""

from __future__ import annotations

import http.client
import json
import socket

import pytest
from flask import Flask

from companion.referee import Referee
from web.server import SETTINGS, ServerThread, banner, make_server


def test_serves_state_and_events_over_http_and_stops(app: Flask, junior: Referee) -> None:
    with ServerThread(app) as srv:
        conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        conn.request("GET", "/api/state")
        state = json.loads(conn.getresponse().read())
        assert state["game"] == "elfer-raus-junior"
        stream = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=10)
        stream.request("GET", f"/api/events?last={state['version'] - 1}")
        resp = stream.getresponse()
        assert resp.status == 200 and resp.getheader("Content-Type").startswith("text/event-stream")
        assert resp.readline().startswith(b": hello")
        lines = [resp.readline() for _ in range(6)]
        assert f"id: {state['version']}\n".encode() in lines  # caught up over a real socket
        conn.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", srv.port), timeout=1).close()
    stream.close()


def test_sse_needs_threads_and_disconnect_detection(app: Flask) -> None:
    assert SETTINGS["channel_request_lookahead"] >= 1
    server = make_server(app, "127.0.0.1", 0, threads=16)
    try:
        assert app.config["SSE_MAX_STREAMS"] == 8  # lowered to leave threads for commands
        assert server.adj.threads == 16 and server.adj.channel_timeout > app.config["SSE_KEEPALIVE"]
    finally:
        server.close()


def test_banner_gives_an_address_and_the_host_code(app: Flask) -> None:
    text = banner(app, 8080, public_url="http://192.168.1.20:8080/")
    host = app.extensions["companion"].access.get("host")
    assert "http://192.168.1.20:8080/" in text and host.code in text
    assert "█" in text or "▀" in text  # the QR code drawn with block characters
