"""Frame sources: the Pi camera, a USB webcam, replays of files, and the simulated table.

One small interface, `FrameSource`: `read()` blocks until a NEW frame and returns a `Frame`
(full-resolution BGR image, a small grey `lores` image for motion checks, an increasing
`seq` and a time in seconds); `close()` is idempotent and a closed source can be opened
again (reconnecting is the service's job). `open_source(spec)` builds one from the camera
spec of `companion serve --camera` (`auto`, `picamera2`, `usb:N`, `file:PATH`, `sim`).

Frames are shared by the stabiliser, the preview and the recogniser, so their arrays are
read-only: copy before drawing on one.
"""

from __future__ import annotations

import contextlib
import importlib
import inspect
import logging
import os
import re
import sys
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.errors import SourceEnded, SourceError

log = logging.getLogger(__name__)

LORES_WIDTH = 320
# What a directory replay treats as frames, and the notes it may hold beside them (renderer truth, README).
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm", ".pnm"})
SIDECAR_SUFFIXES = frozenset({".json", ".txt", ".md", ".csv", ".toml", ".yaml", ".yml", ".log"})

PICAMERA2_INSTALL_HINT = (
    "picamera2 is not installed: on Raspberry Pi OS run `sudo apt install python3-picamera2` and create the "
    "venv with `python3 -m venv --system-site-packages` so it can see it"
)
PICAMERA2_CABLE_HINT = (
    "check the camera's ribbon cable (seated at both ends, contacts the right way round), then run "
    "`rpicam-hello --list-cameras` (`libcamera-hello` on older systems)"
)


# --------------------------------------------------------------------------- frames


@dataclass(frozen=True, eq=False)
class Frame:
    """One camera frame. `image` is BGR uint8 at full resolution; `lores` a grey ~320 px copy."""

    image: np.ndarray
    lores: np.ndarray
    seq: int
    time: float  # seconds: sensor timestamp (Pi camera) or time.monotonic()
    meta: Any = None  # optional per-frame extras (the simulated table's truth)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the full-resolution image."""
        return int(self.image.shape[1]), int(self.image.shape[0])


def lores_of(image: np.ndarray, width: int = LORES_WIDTH) -> np.ndarray:
    """Small grey copy of a BGR (or grey) image for motion checks, `width` px wide, same aspect.

    Bilinear to twice the size, then 2x2 averaging: about as smooth as OpenCV's area averaging
    at a fifth of its cost (USB and replay frames pay this on every frame; the Pi's ISP does it free).
    """
    h, w = image.shape[:2]
    small = image
    if w > width:
        size = (width, max(1, round(h * width / w)))
        if w > 2 * width:
            small = cv2.resize(small, (2 * size[0], 2 * size[1]), interpolation=cv2.INTER_LINEAR)
        small = cv2.resize(small, size, interpolation=cv2.INTER_AREA)
    if small.ndim == 3:
        small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    return np.ascontiguousarray(small)


def _as_bgr(image: Any, what: str) -> np.ndarray:
    arr = np.asarray(image)
    if arr.dtype != np.uint8:
        raise SourceError(f"{what}: frames must be uint8 images, not {arr.dtype}")
    if arr.ndim == 2:
        return cv2.cvtColor(arr, cv2.COLOR_GRAY2BGR)
    if arr.ndim == 3 and arr.shape[2] == 4:
        return cv2.cvtColor(arr, cv2.COLOR_BGRA2BGR)
    if arr.ndim == 3 and arr.shape[2] == 3:
        return np.ascontiguousarray(arr)
    raise SourceError(f"{what}: frames must be BGR images (h, w, 3), not shape {arr.shape}")


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr.setflags(write=False)
    return arr


class _Pacer:
    """Spaces reads `1/fps` apart (0 = no pacing); after a long stall it restarts the cadence instead of bursting."""

    def __init__(self, fps: float) -> None:
        self.period = 1.0 / fps if fps > 0 else 0.0
        self._next: float | None = None

    def wait(self) -> None:
        if self.period <= 0:
            return
        now = time.monotonic()
        if self._next is None or now >= self._next + self.period:
            base = now
        elif now < self._next:
            time.sleep(self._next - now)
            base = self._next
        else:
            base = self._next
        self._next = base + self.period


def _check_rate(fps: float | None, what: str) -> None:
    if fps is not None and (not isinstance(fps, int | float) or fps < 0 or fps != fps):
        raise SourceError(f"{what}: fps must be a number >= 0 (0 = as fast as possible), not {fps!r}")


# --------------------------------------------------------------------------- interface


class FrameSource(ABC):
    """Something that delivers frames. Use as a context manager, or call `open()`/`close()`.

    `read()` opens the source if needed. `close()` may be called any number of times; `open()`
    after `close()` re-acquires the device and `seq` keeps increasing across re-opens.
    One thread reads; close it from that thread or after the reader has stopped.
    """

    name: str = "source"

    def __init__(self, *, fps: float = 0.0, lores_width: int = LORES_WIDTH) -> None:
        _check_rate(fps, self.name)
        if not isinstance(lores_width, int) or lores_width < 16:
            raise SourceError(f"{self.name}: lores_width must be an integer >= 16, not {lores_width!r}")
        self.lores_width = lores_width
        self.note = ""  # how it was chosen ("auto: ..."), for the logs and the status page
        self._pacer = _Pacer(fps or 0.0)
        self._seq = 0
        self._opened = False

    # -- lifecycle
    @property
    def is_open(self) -> bool:
        return self._opened

    def open(self) -> FrameSource:
        if not self._opened:
            self._open()
            self._opened = True
        return self

    def close(self) -> None:
        if self._opened:
            self._opened = False
            self._close()

    def __enter__(self) -> FrameSource:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame]:
        """Frames until a replay ends (`SourceEnded`); other errors propagate."""
        while True:
            try:
                yield self.read()
            except SourceEnded:
                return

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name} {'open' if self._opened else 'closed'}>"

    # -- reading
    def read(self) -> Frame:
        self.open()
        self._pacer.wait()
        image, lores, stamp, meta = self._grab()
        if lores is None:
            lores = lores_of(image, self.lores_width)
        self._seq += 1
        return Frame(
            image=_readonly(image),
            lores=_readonly(lores),
            seq=self._seq,
            time=time.monotonic() if stamp is None else stamp,
            meta=meta,
        )

    # -- for implementations
    @abstractmethod
    def _open(self) -> None: ...

    @abstractmethod
    def _grab(self) -> tuple[np.ndarray, np.ndarray | None, float | None, Any]:
        """Block for the next new frame: (BGR image, grey lores or None, time or None, meta)."""

    @abstractmethod
    def _close(self) -> None: ...


# --------------------------------------------------------------------------- replays


def _natural_key(path: Path) -> list[Any]:
    # frame2.png before frame10.png
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


def _imread(path: Path, what: str) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise SourceError(f"{what}: {path} is not an image OpenCV can read (or it cannot be opened: permissions?)")
    return image


class ImageSource(FrameSource):
    """One image file, delivered again and again (`seq` increments); `loop=False` delivers it once."""

    def __init__(self, path: str | os.PathLike[str], *, fps: float = 15.0, loop: bool = True,
                 lores_width: int = LORES_WIDTH) -> None:
        self.path = Path(path).expanduser()
        self.name = f"file:{self.path}"
        super().__init__(fps=fps, lores_width=lores_width)
        if not self.path.is_file():
            what = "is a directory, not an image" if self.path.is_dir() else "not found"
            raise SourceError(f"image replay: {self.path} {what}")
        self.loop = loop
        self._image: np.ndarray | None = None
        self._lores: np.ndarray | None = None
        self._delivered = False

    def _open(self) -> None:
        image = _imread(self.path, "image replay")
        self._image = _readonly(image)
        self._lores = _readonly(lores_of(image, self.lores_width))
        self._delivered = False

    def _grab(self) -> tuple[np.ndarray, np.ndarray | None, float | None, Any]:
        assert self._image is not None
        if self._delivered and not self.loop:
            raise SourceEnded(f"image replay: {self.path} was delivered once (loop=False)")
        self._delivered = True
        return self._image, self._lores, None, None

    def _close(self) -> None:
        self._image = self._lores = None


class DirectorySource(FrameSource):
    """The images of a directory in natural sorted order (frame2 before frame10), then stop or loop.

    Hidden files and sidecar notes (.json, .txt, ...) are skipped; any other file must be an image.
    """

    def __init__(self, path: str | os.PathLike[str], *, fps: float = 15.0, loop: bool = False,
                 lores_width: int = LORES_WIDTH) -> None:
        self.path = Path(path).expanduser()
        self.name = f"file:{self.path}"
        super().__init__(fps=fps, lores_width=lores_width)
        if not self.path.is_dir():
            what = "is a file, not a directory" if self.path.exists() else "not found"
            raise SourceError(f"directory replay: {self.path} {what}")
        self.loop = loop
        self.files: list[Path] = []
        self._index = 0

    def _open(self) -> None:
        try:
            entries = sorted(self.path.iterdir(), key=_natural_key)
        except OSError as exc:
            raise SourceError(f"directory replay: cannot list {self.path}: {exc.strerror or exc}") from exc
        files = []
        for entry in entries:
            suffix = entry.suffix.lower()
            if entry.name.startswith(".") or not entry.is_file() or suffix in SIDECAR_SUFFIXES:
                continue
            if suffix not in IMAGE_SUFFIXES:
                expected = ", ".join(sorted(IMAGE_SUFFIXES))
                raise SourceError(f"directory replay: {entry} is not an image (expected {expected})")
            files.append(entry)
        if not files:
            raise SourceError(f"directory replay: no images in {self.path}")
        self.files = files
        self._index = 0

    def _grab(self) -> tuple[np.ndarray, np.ndarray | None, float | None, Any]:
        if self._index >= len(self.files):
            if not self.loop:
                raise SourceEnded(f"directory replay: all {len(self.files)} images of {self.path} were read")
            self._index = 0
        path = self.files[self._index]
        self._index += 1
        return _imread(path, "directory replay"), None, None, {"path": str(path)}

    def _close(self) -> None:
        self._index = 0


class VideoSource(FrameSource):
    """A video file through cv2.VideoCapture; `fps=None` plays at the file's own rate, 0 as fast as possible."""

    def __init__(self, path: str | os.PathLike[str], *, fps: float | None = None, loop: bool = False,
                 lores_width: int = LORES_WIDTH) -> None:
        self.path = Path(path).expanduser()
        self.name = f"file:{self.path}"
        _check_rate(fps, self.name)
        super().__init__(fps=fps or 0.0, lores_width=lores_width)
        if not self.path.is_file():
            what = "is a directory" if self.path.is_dir() else "not found"
            raise SourceError(f"video replay: {self.path} {what}")
        self.fps = fps
        self.loop = loop
        self._cap: Any = None
        self._frames_read = 0

    def _open(self) -> None:
        cap = cv2.VideoCapture(str(self.path))
        if not cap.isOpened():
            cap.release()
            raise SourceError(f"video replay: cannot open {self.path}: not a video OpenCV can decode")
        if self.fps is None:
            file_fps = cap.get(cv2.CAP_PROP_FPS)
            self._pacer = _Pacer(file_fps if 0 < file_fps <= 240 else 15.0)
        self._cap = cap
        self._frames_read = 0

    def _grab(self) -> tuple[np.ndarray, np.ndarray | None, float | None, Any]:
        ok, image = self._cap.read()
        if not ok and self._frames_read and self.loop:
            self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, image = self._cap.read()
        if not ok:
            if not self._frames_read:
                raise SourceError(f"video replay: no frame could be decoded from {self.path}")
            raise SourceEnded(f"video replay: end of {self.path} after {self._frames_read} frames")
        self._frames_read += 1
        return _as_bgr(image, self.name), None, None, None

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


class IterableSource(FrameSource):
    """Frames from Python: an iterable of images or of (image, meta) pairs, or a callable returning one.

    This is the hook for the simulated table: the service wraps the renderer's frame generator in
    it and registers a factory with `register_sim_factory`. With a callable, re-opening restarts it.
    """

    def __init__(self, frames: Iterable[Any] | Callable[[], Iterable[Any]], *, fps: float = 15.0,
                 name: str = "sim", lores_width: int = LORES_WIDTH,
                 on_close: Callable[[], None] | None = None) -> None:
        self.name = name
        super().__init__(fps=fps, lores_width=lores_width)
        self._frames = frames
        self._on_close = on_close
        self._iter: Iterator[Any] | None = None
        self._used = False

    def _open(self) -> None:
        if callable(self._frames):
            self._iter = iter(self._frames())
        elif self._used:
            raise SourceError(f"{self.name}: this iterable cannot be restarted (pass a callable to allow re-opening)")
        else:
            self._iter = iter(self._frames)
        self._used = True

    def _grab(self) -> tuple[np.ndarray, np.ndarray | None, float | None, Any]:
        assert self._iter is not None
        try:
            item = next(self._iter)
        except StopIteration:
            raise SourceEnded(f"{self.name}: no more frames") from None
        meta = None
        if isinstance(item, tuple):
            item, meta = item[0], (item[1] if len(item) == 2 else item[1:])
        return _as_bgr(item, self.name), None, None, meta

    def _close(self) -> None:
        self._iter = None
        if self._on_close is not None:
            self._on_close()


# --------------------------------------------------------------------------- USB webcam


def _default_capture(device: int | str) -> Any:
    if sys.platform.startswith("linux"):
        return cv2.VideoCapture(device, cv2.CAP_V4L2)
    return cv2.VideoCapture(device)


class USBSource(FrameSource):
    """A USB (UVC) webcam through cv2.VideoCapture, returning the newest frame, never a buffered one.

    OpenCV's V4L2 backend queues several buffers; we ask for one and then grab until a grab
    actually waits for the sensor (a grab answered at once came out of the queue).
    """

    def __init__(self, device: int | str = 0, *, size: tuple[int, int] | None = (1280, 720), fps: float = 30.0,
                 lores_width: int = LORES_WIDTH, max_drain: int = 6,
                 capture_factory: Callable[[int | str], Any] | None = None) -> None:
        self.device = device
        self.name = f"usb:{device}"
        _check_rate(fps, self.name)
        super().__init__(fps=0.0, lores_width=lores_width)  # the camera paces itself
        self.size = size
        self.fps = fps
        self.max_drain = max(1, int(max_drain))
        self._factory = capture_factory or _default_capture
        self._cap: Any = None
        self._period = 1.0 / fps if fps else 1 / 30

    def _open(self) -> None:
        hint = "is it plugged in (`ls /dev/video*`), is another program using it, is the user in group video?"
        try:
            cap = self._factory(self.device)
        except Exception as exc:  # OpenCV raises cv2.error for some bad device strings
            raise SourceError(f"USB camera {self.device} did not open ({exc}): {hint}") from exc
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            raise SourceError(f"USB camera {self.device} did not open: {hint}")
        if self.size is not None:
            width, height = self.size
            if width > 640:  # most webcams only reach HD rates in MJPEG
                cap.set(cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*"MJPG"))
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        if self.fps:
            cap.set(cv2.CAP_PROP_FPS, self.fps)
        cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)
        ok, image = cap.read()
        if not ok or image is None:
            cap.release()
            raise SourceError(f"USB camera {self.device} opened but delivered no frame: {hint}")
        actual = cap.get(cv2.CAP_PROP_FPS)
        self._period = 1.0 / actual if 0 < actual <= 240 else self._period
        got = (image.shape[1], image.shape[0])
        if self.size is not None and got != tuple(self.size):
            log.info("USB camera %s delivers %dx%d (asked for %dx%d)", self.device, *got, *self.size)
        self._cap = cap

    def _grab(self) -> tuple[np.ndarray, np.ndarray | None, float | None, Any]:
        cap = self._cap
        for _ in range(self.max_drain):
            start = time.monotonic()
            if not cap.grab():
                raise SourceError(f"USB camera {self.device} stopped delivering frames (unplugged?)")
            if time.monotonic() - start >= 0.5 * self._period:
                break  # this grab waited for the sensor: the frame is fresh
        ok, image = cap.retrieve()
        if not ok or image is None:
            raise SourceError(f"USB camera {self.device} stopped delivering frames (unplugged?)")
        return _as_bgr(image, self.name), None, None, None

    def _close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None


# --------------------------------------------------------------------------- Pi camera

DEFAULT_PI_SIZE = (1640, 1232)  # Camera Module v2 full field of view, 2x2 binned


def _even(value: float) -> int:
    return max(2, int(round(value / 2)) * 2)


def choose_sensor_mode(modes: list[dict[str, Any]], want: tuple[int, int] = DEFAULT_PI_SIZE) -> dict[str, Any] | None:
    """The sensor mode to use: full field of view, the smallest at least `want` wide (else the largest).

    Cropped modes (the IMX219's 1920x1080, some firmwares' IMX708 1536x864) would cut the table.
    """
    usable = [m for m in modes if m.get("size")]
    if not usable:
        return None

    def crop_area(mode: dict[str, Any]) -> float:
        crop = mode.get("crop_limits")
        return float(crop[2] * crop[3]) if crop and len(crop) == 4 else 0.0

    widest = max(crop_area(m) for m in usable)
    full = [m for m in usable if crop_area(m) >= 0.98 * widest] if widest else usable
    full.sort(key=lambda m: (m["size"][0] * m["size"][1], -m.get("bit_depth", 0)))
    for mode in full:
        if mode["size"][0] >= want[0]:
            return mode
    return full[-1]


def main_size_for(mode: dict[str, Any] | None, want: tuple[int, int] | None) -> tuple[int, int]:
    """Main stream size: as asked, or the mode's aspect at most 1640 px wide (the ISP scales for free)."""
    if want is not None:
        return _even(want[0]), _even(want[1])
    if mode is None:
        return DEFAULT_PI_SIZE
    width, height = mode["size"]
    if width <= DEFAULT_PI_SIZE[0]:
        return _even(width), _even(height)
    return DEFAULT_PI_SIZE[0], _even(height * DEFAULT_PI_SIZE[0] / width)


def _explain_picamera_error(exc: BaseException) -> str:
    text = str(exc)
    low = text.lower()
    if "in use" in low or "busy" in low or "did not complete" in low or "acquire" in low:
        return (f"the Pi camera is busy ({text}): another process holds it (another companion service, "
                "rpicam-hello/libcamera-hello, motion, a browser preview); stop it and retry")
    if "permission" in low or "denied" in low:
        return (f"no permission to use the Pi camera ({text}): add the service user to group video "
                "(`sudo usermod -aG video USER`) and restart the service")
    return f"the Pi camera failed ({text}): {PICAMERA2_CABLE_HINT}"


class Picamera2Source(FrameSource):
    """The Raspberry Pi camera through picamera2 (imported only when opened).

    One Picamera2 in video configuration: a main RGB888 stream (BGR in memory, as OpenCV wants)
    at 1640x1232 or the nearest full-field-of-view mode, plus a small YUV420 lores stream whose
    Y plane is the grey motion image. Each read waits for a frame exposed after the call
    (`capture_request(flush=True)`; older picamera2: frames stamped before the call are
    dropped), copies both streams and releases the request at once.
    """

    def __init__(self, camera_num: int = 0, *, size: tuple[int, int] | None = None, fps: float = 30.0,
                 lores_width: int = LORES_WIDTH, exposure: dict[str, Any] | None = None,
                 buffer_count: int = 4) -> None:
        self.camera_num = camera_num
        self.name = "picamera2" if camera_num == 0 else f"picamera2:{camera_num}"
        _check_rate(fps, self.name)
        super().__init__(fps=0.0, lores_width=lores_width)  # the sensor paces itself
        self.size = size
        self.fps = fps
        self.buffer_count = buffer_count
        self._exposure = dict(exposure) if exposure else None
        self._cam: Any = None
        self._lores_size = (lores_width, lores_width * 3 // 4)
        self._flush_ok = True
        self.main_size: tuple[int, int] | None = None
        self.sensor_mode: dict[str, Any] | None = None
        self.last_metadata: dict[str, Any] = {}

    @property
    def exposure(self) -> dict[str, Any] | None:
        """The controls set by `lock_exposure()` (store them with the calibration; pass back as `exposure=`)."""
        return dict(self._exposure) if self._exposure else None

    def _open(self) -> None:
        try:
            module = importlib.import_module("picamera2")
        except ImportError as exc:
            raise SourceError(PICAMERA2_INSTALL_HINT) from exc
        Picamera2 = module.Picamera2  # noqa: N806 (the library's class name)
        try:
            cameras = Picamera2.global_camera_info()
        except Exception:  # older releases; the constructor will say
            cameras = None
        if cameras is not None and len(cameras) <= self.camera_num:
            raise SourceError(f"no Pi camera number {self.camera_num} detected: {PICAMERA2_CABLE_HINT}")
        try:
            cam = Picamera2(self.camera_num)
        except Exception as exc:
            raise SourceError(_explain_picamera_error(exc)) from exc
        try:
            self._configure(cam)
        except Exception as exc:
            with contextlib.suppress(Exception):
                cam.close()
            raise SourceError(_explain_picamera_error(exc)) from exc
        self._cam = cam

    def _configure(self, cam: Any) -> None:
        mode = choose_sensor_mode(list(getattr(cam, "sensor_modes", []) or []), self.size or DEFAULT_PI_SIZE)
        main = main_size_for(mode, self.size)
        lores = (_even(min(self.lores_width, main[0])), _even(min(self.lores_width, main[0]) * main[1] / main[0]))
        kwargs: dict[str, Any] = {
            "main": {"size": main, "format": "RGB888"},
            "lores": {"size": lores, "format": "YUV420"},
            "controls": {"FrameRate": float(self.fps)} if self.fps else {},
            "buffer_count": self.buffer_count,
        }
        if mode is not None:
            try:  # picamera2 >= 0.3.13 picks the sensor mode from `sensor`
                config = cam.create_video_configuration(
                    **kwargs, sensor={"output_size": tuple(mode["size"]), "bit_depth": mode.get("bit_depth", 10)})
            except TypeError:
                config = cam.create_video_configuration(**kwargs, raw={"size": tuple(mode["size"])})
        else:
            config = cam.create_video_configuration(**kwargs)
        cam.configure(config)
        cam.start()
        if self._exposure:
            cam.set_controls(dict(self._exposure))
        self.main_size, self._lores_size, self.sensor_mode = main, lores, mode

    def _grab(self) -> tuple[np.ndarray, np.ndarray | None, float | None, Any]:
        cam = self._cam
        called = time.monotonic_ns()
        for attempt in range(4):
            try:
                request = cam.capture_request(flush=True) if self._flush_ok else cam.capture_request()
            except TypeError:
                self._flush_ok = False  # picamera2 without `flush`: check timestamps instead
                continue
            except Exception as exc:
                raise SourceError(f"the Pi camera stopped delivering frames ({exc}): {PICAMERA2_CABLE_HINT}") from exc
            try:
                metadata = request.get_metadata()
                stamp = metadata.get("SensorTimestamp")
                started = stamp - 1000 * metadata.get("ExposureTime", 0) if stamp else None
                if not self._flush_ok and started is not None and started < called and attempt < 3:
                    continue  # queued before read() was called: stale
                image = request.make_array("main")
                yuv = request.make_array("lores")
            finally:
                request.release()
            width, height = self._lores_size
            lores = np.ascontiguousarray(yuv[:height, :width])
            self.last_metadata = metadata
            image = _as_bgr(image[:, :, :3] if image.ndim == 3 else image, self.name)
            return image, lores, (stamp / 1e9 if stamp else None), None
        raise SourceError(f"the Pi camera keeps delivering stale frames: {PICAMERA2_CABLE_HINT}")

    def lock_exposure(self) -> dict[str, Any]:
        """Freeze exposure, gain and white balance at their current automatic values.

        Reads them from the newest frame's metadata and sets them explicitly (AeEnable and
        AwbEnable off, ColourGains set: only explicit gains really lock white balance), so
        colours stay as they were at calibration. Allow a few frames before they apply.
        """
        cam = self._require_open()
        metadata = cam.capture_metadata()
        try:
            controls = {
                "AeEnable": False,
                "AwbEnable": False,
                "ExposureTime": int(metadata["ExposureTime"]),
                "AnalogueGain": float(metadata["AnalogueGain"]),
                "ColourGains": tuple(float(g) for g in metadata["ColourGains"]),
            }
        except (KeyError, TypeError, ValueError) as exc:
            raise SourceError(f"the Pi camera did not report its exposure ({exc}); cannot lock it") from exc
        cam.set_controls(controls)
        self._exposure = controls
        return dict(controls)

    def unlock_exposure(self) -> None:
        """Back to automatic exposure and white balance."""
        self._require_open().set_controls({"AeEnable": True, "AwbEnable": True})
        self._exposure = None

    def _require_open(self) -> Any:
        self.open()
        return self._cam

    def _close(self) -> None:
        cam, self._cam = self._cam, None
        if cam is None:
            return
        try:
            cam.stop()
        except Exception:  # already stopped or the device went away; close anyway
            log.debug("picamera2 stop failed", exc_info=True)
        finally:
            cam.close()


# --------------------------------------------------------------------------- choosing a source

_sim_factory: Callable[..., FrameSource] | None = None


def register_sim_factory(factory: Callable[..., FrameSource] | None) -> None:
    """Set what `sim` (and `auto` without a camera) builds: a callable taking the options, returning a
    FrameSource (typically an IterableSource over the renderer's frames). None unregisters it."""
    global _sim_factory
    _sim_factory = factory


def _accepted(target: Callable[..., Any], options: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Split options into those `target` accepts and those it does not."""
    try:
        params = inspect.signature(target).parameters
    except (TypeError, ValueError):
        return dict(options), []
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return dict(options), []
    names = {n for n, p in params.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return {k: v for k, v in options.items() if k in names}, sorted(set(options) - names)


def _build(spec: str, target: Callable[..., FrameSource], args: tuple[Any, ...],
           options: dict[str, Any]) -> FrameSource:
    kept, unknown = _accepted(target, options)
    if unknown:
        raise SourceError(f"camera {spec!r}: option(s) {', '.join(unknown)} not accepted here")
    source = target(*args, **kept)
    if not isinstance(source, FrameSource):
        raise SourceError(f"camera {spec!r}: the factory returned {type(source).__name__}, not a FrameSource")
    return source.open()


def replay_source(path: str | os.PathLike[str], **options: Any) -> FrameSource:
    """An image, directory or video replay, by what `path` is (not opened)."""
    p = Path(path).expanduser()
    if not p.exists():
        raise SourceError(f"replay: {p} not found")
    if p.is_dir():
        cls: type[FrameSource] = DirectorySource
    elif p.suffix.lower() in IMAGE_SUFFIXES:
        cls = ImageSource
    else:
        cls = VideoSource
    kept, unknown = _accepted(cls, options)
    if unknown:
        raise SourceError(f"replay of {p}: option(s) {', '.join(unknown)} not accepted by {cls.__name__}")
    return cls(p, **kept)


def open_source(spec: str, **options: Any) -> FrameSource:
    """Build and open the source named by a camera spec (`companion serve --camera SPEC`).

    `picamera2[:N]`, `usb[:N]` (or `usb:/dev/videoN`), `file:PATH` (image, directory or video by
    what PATH is), `sim` (the factory registered with `register_sim_factory`), or `auto`: the Pi
    camera if picamera2 imports and lists a camera, else a USB camera that opens and delivers a
    frame, else sim. Only `auto` falls back; its choice is logged and kept in `source.note`.
    Options (fps, size, lores_width, loop, ...) go to the source; unknown ones raise SourceError.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SourceError("empty camera spec: use auto, picamera2, usb:N, file:PATH or sim")
    kind, sep, arg = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "auto" and not sep:
        return _auto(options)
    if kind == "picamera2":
        if arg and not arg.isdigit():
            raise SourceError(f"camera {spec!r}: picamera2 takes a camera number (picamera2:0)")
        return _build(spec, Picamera2Source, (int(arg or 0),), options)
    if kind == "usb":
        if not arg:
            device: int | str = 0
        elif arg.isdigit():
            device = int(arg)
        elif arg.startswith("/dev/"):
            device = arg
        else:
            raise SourceError(f"camera {spec!r}: usb takes a device number (usb:0) or a path (usb:/dev/video0)")
        return _build(spec, USBSource, (device,), options)
    if kind == "file":
        if not arg:
            raise SourceError(f"camera {spec!r}: give the path to replay (file:PATH)")
        return _build(spec, replay_source, (arg,), options)
    if kind == "sim" and not sep:
        if _sim_factory is None:
            raise SourceError("camera 'sim': the simulated table is not available (no sim factory registered)")
        return _build(spec, _sim_factory, (), options)
    raise SourceError(f"unknown camera spec {spec!r}: use auto, picamera2, usb:N, file:PATH or sim")


def _picamera2_cameras() -> tuple[bool, str]:
    """(a Pi camera is listed, why not)."""
    try:
        module = importlib.import_module("picamera2")
    except ImportError:
        return False, "picamera2 not installed"
    except Exception as exc:  # libcamera present but broken
        return False, f"picamera2 import failed ({exc})"
    try:
        cameras = module.Picamera2.global_camera_info()
    except Exception as exc:
        return False, f"cannot list cameras ({exc})"
    return (True, "") if cameras else (False, "no camera listed")


def usb_candidates() -> list[int]:
    """Capture nodes of USB cameras. On Linux, from sysfs: skips the Pi's codec/ISP nodes and the
    metadata node every UVC camera also exposes; elsewhere, device 0 only."""
    root = Path("/sys/class/video4linux")
    if not sys.platform.startswith("linux"):
        return [0]
    if not root.is_dir():
        return []
    found = []
    for node in root.glob("video*"):
        number = node.name[5:]
        if not number.isdigit():
            continue
        try:
            is_usb = "/usb" in os.path.realpath(node)
            index = (node / "index").read_text().strip() if (node / "index").exists() else "0"
        except OSError:
            continue
        if is_usb and index == "0":
            found.append(int(number))
    return sorted(found)[:4]


def _auto(options: dict[str, Any]) -> FrameSource:
    tried: list[str] = []
    listed, why = _picamera2_cameras()
    if listed:
        try:
            source: FrameSource = Picamera2Source(**_accepted(Picamera2Source, options)[0]).open()
            return _chosen(source, tried)
        except SourceError as exc:
            tried.append(f"picamera2: {exc}")
    else:
        tried.append(f"picamera2: {why}")
    devices = usb_candidates()
    for device in devices:
        try:
            source = USBSource(device, **_accepted(USBSource, options)[0]).open()
            return _chosen(source, tried)
        except SourceError as exc:
            tried.append(f"usb:{device}: {exc}")
    if not devices:
        tried.append("usb: no USB camera found")
    if _sim_factory is None:
        raise SourceError("no camera found and no simulated table available: " + "; ".join(tried))
    source = _sim_factory(**_accepted(_sim_factory, options)[0])
    return _chosen(source.open(), tried)


def _chosen(source: FrameSource, tried: list[str]) -> FrameSource:
    source.note = "auto: " + "; ".join([*tried, f"chose {source.name}"])
    log.info("camera %s", source.note)
    return source
