"""The camera page's endpoints: live preview (MJPEG), snapshot, calibration, the empty 11! board,
"teach this deck".

The camera object is optional (`create_app(camera=None)`: the page says there is none).
Its interface is the small `Camera` protocol below; the service provides the real one,
`FakeCamera` stands in for tests and laptops. The preview runs only while a host page
shows it: the generator stops when the phone goes, and at most `MJPEG_MAX_VIEWERS`
previews run at once (each holds a server thread).
"""

from __future__ import annotations

import base64
import math
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from flask import Blueprint, Response, current_app, jsonify, request

from .api import read_json
from .common import check_write, error, lang, services, who
from .pages import render_page

bp = Blueprint("camera", __name__)


@runtime_checkable
class Camera(Protocol):
    """What the pages need from the camera service."""

    def mjpeg_frames(self) -> Iterator[bytes]:
        """JPEG frames of the preview, with what vision recognised drawn on them; ends when closed."""
        ...

    def snapshot_jpeg(self) -> bytes:
        """The current frame as one JPEG (calibration taps are in its pixel coordinates)."""
        ...

    def calibrate_corners(self, points: Sequence[tuple[float, float]]) -> Mapping[str, Any] | None:
        """The play area's four corners, tapped in snapshot pixels; raises ValueError if unusable."""
        ...

    def learn_empty_board(self) -> Mapping[str, Any]:
        """11!: the board in view is empty; keep its look. Returns `{"message": {"fr", "en"}}`;
        raises ValueError when it cannot (no 11! game, board not in view)."""
        ...

    def teach(self, game: str) -> Mapping[str, Any]:
        """Read the cards laid out for `game` once and learn how this deck looks.

        Returns at least `{"message": {"fr": ..., "en": ...}}`; may add `"cards"` (what was read).
        """
        ...

    def teach_confirm(self, game: str, labels: Sequence[Mapping[str, Any] | None]) -> Mapping[str, Any]:
        """The players' corrected list (one label per card read, None: not a card); learns the deck."""
        ...


# A 64x48 JPEG (a card on green cloth) so the fake camera needs no image library.
_FAKE_JPEG = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAA0JCgsKCA0LCgsODg0PEyAVExISEyccHhcgLikxMC4pLSwzOko+MzZGNywtQFdBRkxOUlNSMj5a"
    "YVpQYEpRUk//2wBDAQ4ODhMREyYVFSZPNS01T09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT0//wAAR"
    "CAAwAEADASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQIDAAQRBRIhMUEG"
    "E1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlqc3R1dnd4eXqDhIWG"
    "h4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3+Pn6/8QAHwEAAwEBAQEB"
    "AQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEIFEKRobHBCSMzUvAVYnLRChYk"
    "NOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImKkpOUlZaXmJmaoqOkpaanqKmqsrO0"
    "tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwDnaKKKzOIKK0NF0ifWbp7e2kjR0TeTISBj"
    "IHYH1ra/4QPU/wDn5s/++m/+JpXNY0ZySa/NHK0V1X/CB6n/AM/Nn/303/xNZWt6BdaIITdSwv527b5ZJxjHXIHrRcHQmlf9UZVFFFMyCiii"
    "gDqvh7/yGrj/AK9z/wChLXoVee/D3/kNXH/Xuf8A0Ja9CoR2x+CP9dWFcV8R/uaf9ZP/AGWu1riviP8Ac0/6yf8AstDH0fo/yOIooooOEKKK"
    "KANXw7rI0S9kuTAZt8ZTbv245BznB9K6L/hYC/8AQMP/AH//APsa4iikbRrNJK2x2/8AwsBf+gYf+/8A/wDY1ieJPEI11bcC1MHklv492c49"
    "h6Vh0UA67atZBRRRTMT/2Q=="
)


class FakeCamera:
    """A camera for tests and laptops: a still frame, and records of what it was asked."""

    width, height = 64, 48

    def __init__(self, fps: float = 5.0, frames: int | None = None) -> None:
        self.fps = fps
        self.frames = frames  # None: stream until the viewer leaves
        self.corners: list[tuple[float, float]] | None = None
        self.taught: list[str] = []
        self.empty_boards = 0
        self.streams_open = 0

    def mjpeg_frames(self) -> Iterator[bytes]:
        self.streams_open += 1
        try:
            n = 0
            while self.frames is None or n < self.frames:
                yield _FAKE_JPEG
                n += 1
                time.sleep(1 / self.fps)
        finally:
            self.streams_open -= 1

    def snapshot_jpeg(self) -> bytes:
        return _FAKE_JPEG

    def calibrate_corners(self, points: Sequence[tuple[float, float]]) -> Mapping[str, Any]:
        if any(not (0 <= x <= self.width and 0 <= y <= self.height) for x, y in points):
            raise ValueError("a corner lies outside the picture")
        self.corners = list(points)
        return {"corners": [list(p) for p in points]}

    def learn_empty_board(self) -> Mapping[str, Any]:
        self.empty_boards += 1
        return {"squares": 88, "message": {"fr": "Plateau vide appris (caméra de test).",
                                           "en": "Empty board learnt (test camera)."}}

    def teach(self, game: str) -> Mapping[str, Any]:
        self.taught.append(game)
        card = {"kind": "number", "value": 7, "color": "red", "confidence": 0.9,
                "corners": [[10, 10], [30, 10], [30, 40], [10, 40]]}
        return {"message": {"fr": "1 carte lue (caméra de test).", "en": "1 card read (test camera)."},
                "cards": [card]}

    def teach_confirm(self, game: str, labels: Sequence[Mapping[str, Any] | None]) -> Mapping[str, Any]:
        if len(labels) != 1:
            raise ValueError(f"1 card was read, {len(labels)} confirmed")
        self.confirmed = list(labels)
        return {"message": {"fr": "Jeu appris (caméra de test).", "en": "Deck learnt (test camera)."}}


class Viewers:
    """How many previews run now (kept on the app: `app.extensions["companion.mjpeg"]`)."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()


def _camera() -> Any:
    return services().camera


def _host_only() -> Response | None:
    w = who()
    if w.problem or w.grant is None:
        return error(401, "error.no_token" if not w.problem else "error.revoked", "unauthorised")
    if w.role != "host":
        return error(403, "error.host_only", "forbidden")
    if _camera() is None:
        return error(404, "error.no_camera", "no-camera")
    return None


@bp.get("/camera")
def page() -> Response:
    if who().role != "host":
        return render_page("join.html", "join", 403, need="host")
    current = lang()
    teach_games = [(g["id"], g["name"][current]) for g in services().facade.games()]
    return render_page("camera.html", "camera", has_camera=_camera() is not None, teach_games=teach_games)


@bp.get("/camera/stream.mjpg")
def stream() -> Response:
    refused = _host_only()
    if refused is not None:
        return refused
    viewers = current_app.extensions.setdefault("companion.mjpeg", Viewers())
    with viewers.lock:
        if viewers.count >= int(current_app.config["MJPEG_MAX_VIEWERS"]):
            return error(429, "error.preview_busy", "busy")
        viewers.count += 1
    camera = _camera()
    disconnected = request.environ.get("waitress.client_disconnected")

    def generate() -> Iterator[bytes]:
        frames = camera.mjpeg_frames()
        try:
            for jpeg in frames:
                if callable(disconnected) and disconnected():
                    return
                yield b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: " + str(len(jpeg)).encode() + \
                    b"\r\n\r\n" + jpeg + b"\r\n"
        finally:
            close = getattr(frames, "close", None)
            if callable(close):
                close()
            with viewers.lock:
                viewers.count -= 1

    resp = Response(generate(), mimetype="multipart/x-mixed-replace; boundary=frame")
    resp.headers["Cache-Control"] = "no-cache, no-store"
    return resp


@bp.get("/camera/snapshot.jpg")
def snapshot() -> Response:
    refused = _host_only()
    if refused is not None:
        return refused
    resp = Response(_camera().snapshot_jpeg(), mimetype="image/jpeg")
    resp.headers["Cache-Control"] = "no-store"
    return resp


def _points(value: Any) -> list[tuple[float, float]] | None:
    if not isinstance(value, list) or len(value) != 4:
        return None
    out = []
    for p in value:
        if not isinstance(p, list) or len(p) != 2:
            return None
        x, y = p
        if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in (x, y)):
            return None
        out.append((float(x), float(y)))
    return out


@bp.post("/api/camera/calibrate")
def calibrate() -> Response:
    refused = check_write(host_only=True) or _host_only()
    if refused is not None:
        return refused
    body = read_json()
    points = _points(body.get("points") if isinstance(body, dict) else None)
    if points is None:
        return error(400, "error.corners", "malformed")
    try:
        result = _camera().calibrate_corners(points)
    except ValueError as exc:
        return error(422, "error.calibration", "calibration", detail=str(exc))
    return jsonify(ok=True, result=dict(result or {}))


@bp.post("/api/camera/empty-board")
def empty_board() -> Response:
    refused = check_write(host_only=True) or _host_only()
    if refused is not None:
        return refused
    try:
        result = dict(_camera().learn_empty_board())
    except ValueError as exc:
        return error(422, "error.empty_board", "empty-board", detail=str(exc))
    return jsonify(ok=True, result=result)


@bp.post("/api/camera/teach")
def teach() -> Response:
    refused = check_write(host_only=True) or _host_only()
    if refused is not None:
        return refused
    body = read_json()
    game = body.get("game") if isinstance(body, dict) else None
    if game not in services().facade.game_ids():
        return error(400, "error.bad_game", "malformed")
    if "cards" in body:  # second step: the players' corrected list
        labels = _labels(body["cards"])
        if labels is None:
            return error(400, "error.teach_labels", "malformed")
        try:
            result = dict(_camera().teach_confirm(game, labels))
        except ValueError as exc:
            return error(422, "error.teach", "teach", detail=str(exc))
        return jsonify(ok=True, result=result)
    try:
        result = dict(_camera().teach(game))
    except ValueError as exc:
        return error(422, "error.teach", "teach", detail=str(exc))
    return jsonify(ok=True, result=result)


TEACH_KINDS = ("number", "joker", "link", "bonus", "bull")
TEACH_COLOURS = ("yellow", "red", "blue", "green", "gray", None)


def _labels(raw: Any) -> list[dict[str, Any] | None] | None:
    """The confirmed cards: each null (not a card) or {kind, value, color}; None when malformed."""
    if not isinstance(raw, list) or not 0 < len(raw) <= 200:
        return None
    out: list[dict[str, Any] | None] = []
    for item in raw:
        if item is None:
            out.append(None)
            continue
        if not isinstance(item, dict) or item.get("kind", "number") not in TEACH_KINDS:
            return None
        kind, value, colour = item.get("kind", "number"), item.get("value"), item.get("color")
        if kind == "number" and (isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 100):
            return None
        if colour not in TEACH_COLOURS:
            return None
        out.append({"kind": kind, "value": value if kind == "number" else None, "color": colour})
    return out


__all__ = ["Camera", "FakeCamera", "bp"]
