"""The camera page: optional camera, host only, MJPEG preview while open, calibration, the empty
11! board, teaching."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask import Flask

from companion.referee import Referee
from web.camera import Camera, FakeCamera

from .conftest import Phone, make_app


def test_the_fake_follows_the_protocol() -> None:
    assert isinstance(FakeCamera(), Camera)


def test_without_a_camera_the_page_says_so(referee: Referee, tmp_path: Path) -> None:
    app = make_app(referee, tmp_path, camera=None)
    host = Phone(app, lang="en").join("host")
    html = host.client.get("/camera", headers=host.headers).get_data(as_text=True)
    assert "No camera is connected" in html and 'id="preview"' not in html
    assert host.client.get("/camera/snapshot.jpg").status_code == 404
    resp = host.client.post("/api/camera/calibrate", json={"points": [[0, 0]] * 4},
                            headers={"X-CSRF-Token": host.csrf, **host.headers})
    assert resp.status_code == 404 and resp.json["error"] == "No camera."


def test_only_the_host_uses_the_camera(app: Flask, junior: Referee) -> None:
    ana = Phone(app).join("player:0")
    assert ana.client.get("/camera/snapshot.jpg").status_code == 403
    assert app.test_client().get("/camera/stream.mjpg").status_code == 401
    resp = ana.client.post("/api/camera/teach", json={"game": "numeri"}, headers={"X-CSRF-Token": ana.csrf})
    assert resp.status_code == 403


def test_snapshot_and_preview(app: Flask, host: Phone) -> None:
    with host.client.get("/camera/snapshot.jpg") as resp:
        assert resp.status_code == 200 and resp.mimetype == "image/jpeg" and resp.data[:2] == b"\xff\xd8"
    camera: FakeCamera = app.extensions["companion"].camera
    camera.frames, camera.fps = 2, 1000.0
    with host.client.get("/camera/stream.mjpg") as resp:
        assert resp.mimetype == "multipart/x-mixed-replace"
        body = resp.data
    assert body.count(b"--frame\r\nContent-Type: image/jpeg") == 2
    assert camera.streams_open == 0  # the frames generator was closed with the response


def test_previews_are_limited_and_stop_when_the_page_goes(app: Flask, host: Phone) -> None:
    camera: FakeCamera = app.extensions["companion"].camera
    camera.fps = 1000.0
    first = host.client.get("/camera/stream.mjpg", buffered=False)
    second = host.client.get("/camera/stream.mjpg", buffered=False)
    next(iter(first.response))
    next(iter(second.response))
    third = host.client.get("/camera/stream.mjpg")
    assert third.status_code == 429
    assert camera.streams_open == 2
    first.close()
    second.close()
    assert camera.streams_open == 0
    with host.client.get("/camera/stream.mjpg", buffered=False) as again:
        assert again.status_code == 200


def test_calibration_takes_four_tapped_corners(app: Flask, host: Phone) -> None:
    camera: FakeCamera = app.extensions["companion"].camera
    points = [[1, 2], [60.5, 2], [60, 45], [3, 44.25]]
    resp = host.client.post("/api/camera/calibrate", json={"points": points}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 200 and resp.json["ok"] is True
    assert camera.corners == [tuple(map(float, p)) for p in points]


@pytest.mark.parametrize("points", [None, [], [[0, 0]] * 3, [[0, 0]] * 5, [[0, "a"]] * 4, [[True, 0]] * 4,
                                    [[0, 0, 0]] * 4, "abcd"])
def test_calibration_refuses_malformed_corners(host: Phone, points: object) -> None:
    resp = host.client.post("/api/camera/calibrate", json={"points": points}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 400


def test_calibration_refused_by_the_camera_is_422(host: Phone) -> None:
    resp = host.client.post("/api/camera/calibrate", json={"points": [[0, 0], [999, 0], [999, 999], [0, 999]]},
                            headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 422 and "outside" in resp.json["detail"]


def test_teach_this_deck(app: Flask, host: Phone) -> None:
    resp = host.client.post("/api/camera/teach", json={"game": "elfer-raus"}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 200 and resp.json["result"]["message"]["fr"]
    assert app.extensions["companion"].camera.taught == ["elfer-raus"]
    assert resp.json["result"]["cards"][0]["value"] == 7
    resp = host.client.post("/api/camera/teach", json={"game": "chess"}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 400
    # Second step: the corrected list, one label per card read.
    label = {"kind": "number", "value": 8, "color": "red"}
    resp = host.client.post("/api/camera/teach", json={"game": "elfer-raus", "cards": [label]},
                            headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 200 and resp.json["result"]["message"]["en"]
    assert app.extensions["companion"].camera.confirmed == [label]


def test_the_host_has_the_empty_board_learnt(app: Flask, host: Phone, junior: Referee) -> None:
    camera: FakeCamera = app.extensions["companion"].camera
    html = host.client.get("/camera").get_data(as_text=True)
    assert 'id="empty-board"' in html
    resp = host.client.post("/api/camera/empty-board", json={}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 200 and resp.json["result"]["message"]["fr"] and camera.empty_boards == 1
    ana = Phone(app).join("player:0")
    resp = ana.client.post("/api/camera/empty-board", json={}, headers={"X-CSRF-Token": ana.csrf})
    assert resp.status_code == 403 and camera.empty_boards == 1
    assert host.client.post("/api/camera/empty-board", json={}).status_code == 403  # no CSRF token


def test_an_empty_board_the_camera_cannot_learn_is_422(app: Flask, host: Phone, monkeypatch) -> None:
    def refuse() -> None:
        raise ValueError("only the 11! board is learnt empty; start an 11! game first")

    monkeypatch.setattr(app.extensions["companion"].camera, "learn_empty_board", refuse)
    resp = host.client.post("/api/camera/empty-board", json={}, headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 422 and "11!" in resp.json["detail"] and resp.json["error"]


@pytest.mark.parametrize("cards", [[], "7", [{"kind": "number", "value": 0}], [{"kind": "dragon"}],
                                   [{"kind": "number", "value": 3, "color": "purple"}], [{"value": True}]])
def test_a_malformed_teaching_list_is_400(host: Phone, cards: object) -> None:
    resp = host.client.post("/api/camera/teach", json={"game": "elfer-raus", "cards": cards},
                            headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 400 and resp.json["error"]


def test_a_teaching_list_of_the_wrong_length_is_422(host: Phone) -> None:
    resp = host.client.post("/api/camera/teach", json={"game": "elfer-raus", "cards": [None, None]},
                            headers={"X-CSRF-Token": host.csrf})
    assert resp.status_code == 422 and "confirmed" in resp.json["detail"]


def test_camera_posts_need_csrf(host: Phone) -> None:
    resp = host.client.post("/api/camera/teach", json={"game": "numeri"})
    assert resp.status_code == 403
