"""Frame sources: replays of files, spec parsing, `auto`, and the cameras with fake devices.

No camera exists here: the USB camera gets a fake cv2.VideoCapture and a fake clock (to check
that buffered frames are drained), the Pi camera a fake `picamera2` module in sys.modules.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import sources
from vision.errors import SourceEnded, SourceError, VisionError
from vision.sources import (
    DirectorySource,
    Frame,
    ImageSource,
    IterableSource,
    Picamera2Source,
    USBSource,
    VideoSource,
    choose_sensor_mode,
    lores_of,
    main_size_for,
    open_source,
    register_sim_factory,
)


def solid(value: int, w: int = 64, h: int = 48) -> np.ndarray:
    img = np.full((h, w, 3), value, np.uint8)
    img[0, 0] = (value // 2, 0, 255 - value)  # not uniform, so colour order shows
    return img


def write_video(path: Path, values: list[int], size=(64, 48), fps: float = 15.0) -> None:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), fps, size)
    assert writer.isOpened()
    for v in values:
        writer.write(np.full((size[1], size[0], 3), v, np.uint8))
    writer.release()


@pytest.fixture(autouse=True)
def no_sim_factory():
    register_sim_factory(None)
    yield
    register_sim_factory(None)


# --------------------------------------------------------------------------- frames and replays


def test_lores_is_small_grey_same_aspect():
    lores = lores_of(np.zeros((1232, 1640, 3), np.uint8))
    assert lores.shape == (240, 320) and lores.dtype == np.uint8
    assert lores_of(np.zeros((100, 200, 3), np.uint8)).shape == (100, 200)  # never enlarged


def test_image_source_repeats_with_increasing_seq(tmp_path):
    path = tmp_path / "table.png"
    cv2.imwrite(str(path), solid(120, 640, 480))
    with ImageSource(path, fps=0) as source:
        frames = [source.read() for _ in range(3)]
    assert [f.seq for f in frames] == [1, 2, 3]
    assert all(np.array_equal(f.image, solid(120, 640, 480)) for f in frames)
    assert frames[0].lores.shape == (240, 320)
    assert frames[0].size == (640, 480)
    assert frames[1].time >= frames[0].time
    with pytest.raises(ValueError):  # shared frames are read-only
        frames[0].image[0, 0] = 0
    assert not source.is_open
    once = ImageSource(path, fps=0, loop=False)
    once.read()
    with pytest.raises(SourceEnded):
        once.read()


def test_image_source_errors_name_the_path(tmp_path):
    missing = tmp_path / "nope.png"
    with pytest.raises(SourceError, match="nope.png"):
        ImageSource(missing)
    fake = tmp_path / "notes.png"
    fake.write_text("not an image")
    source = ImageSource(fake, fps=0)
    with pytest.raises(SourceError, match="notes.png"):
        source.read()
    with pytest.raises(VisionError):  # the root of the hierarchy catches it too
        source.read()


def test_directory_source_natural_order_stop_and_loop(tmp_path):
    for name, value in (("f10.png", 30), ("f2.png", 20), ("f1.jpg", 10)):
        cv2.imwrite(str(tmp_path / name), solid(value))
    (tmp_path / "truth.json").write_text("{}")  # sidecars are skipped
    (tmp_path / ".hidden").write_text("x")
    source = DirectorySource(tmp_path, fps=0)
    values = [int(np.median(f.image)) for f in source]  # iteration ends at SourceEnded
    assert values[0] in range(8, 13) and values[1:] == [20, 30]
    assert [p.name for p in source.files] == ["f1.jpg", "f2.png", "f10.png"]
    source.close()
    looped = DirectorySource(tmp_path, fps=0, loop=True)
    seqs_values = [(f.seq, int(np.median(f.image))) for f in (looped.read() for _ in range(4))]
    assert [s for s, _ in seqs_values] == [1, 2, 3, 4]
    assert seqs_values[3][1] == seqs_values[0][1]
    assert looped.read().meta["path"].endswith("f2.png")


def test_directory_source_errors(tmp_path):
    with pytest.raises(SourceError, match="not found"):
        DirectorySource(tmp_path / "missing")
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(SourceError, match="no images"):
        DirectorySource(empty).read()
    odd = tmp_path / "odd"
    odd.mkdir()
    cv2.imwrite(str(odd / "a.png"), solid(10))
    (odd / "b.docx").write_text("x")
    with pytest.raises(SourceError, match=r"b\.docx is not an image"):
        DirectorySource(odd).read()
    broken = tmp_path / "broken"
    broken.mkdir()
    cv2.imwrite(str(broken / "a.png"), solid(10))
    (broken / "b.png").write_bytes(b"\x89PNG truncated")
    source = DirectorySource(broken, fps=0)
    source.read()
    with pytest.raises(SourceError, match=r"b\.png"):
        source.read()


def test_video_source_reads_every_frame_then_ends_or_loops(tmp_path):
    path = tmp_path / "clip.avi"
    values = [0, 40, 80, 120, 160, 200]
    write_video(path, values)
    got = [int(round(f.image.mean())) for f in VideoSource(path, fps=0)]
    assert len(got) == len(values)
    assert all(abs(g - v) <= 3 for g, v in zip(got, values, strict=True))
    looping = VideoSource(path, fps=0, loop=True)
    frames = [looping.read() for _ in range(8)]
    assert [f.seq for f in frames] == list(range(1, 9))
    assert abs(frames[6].image.mean() - values[0]) <= 3
    looping.close()
    looping.close()  # idempotent
    assert looping.read().seq == 9  # re-opened, seq keeps growing


def test_video_source_errors(tmp_path):
    with pytest.raises(SourceError, match="missing.avi"):
        VideoSource(tmp_path / "missing.avi")
    bad = tmp_path / "bad.avi"
    bad.write_text("hello")
    with pytest.raises(SourceError, match="bad.avi"):
        VideoSource(bad).read()


def test_pacing_spaces_reads_without_bursting(monkeypatch):
    clock = {"now": 100.0}
    sleeps = []

    def sleep(seconds):
        sleeps.append(round(seconds, 6))
        clock["now"] += seconds

    monkeypatch.setattr(sources.time, "monotonic", lambda: clock["now"])
    monkeypatch.setattr(sources.time, "sleep", sleep)
    pacer = sources._Pacer(10)
    pacer.wait()
    pacer.wait()
    clock["now"] += 0.05
    pacer.wait()
    assert sleeps == [0.1, 0.05]
    clock["now"] += 5.0  # a long stall: restart the cadence, no burst of catch-up reads
    pacer.wait()
    pacer.wait()
    assert sleeps == [0.1, 0.05, 0.1]


def test_iterable_source_for_the_simulated_table():
    images = [solid(v) for v in (10, 20, 30)]
    source = IterableSource(lambda: iter([(img, {"hand": i == 1}) for i, img in enumerate(images)]), fps=0)
    frames = list(source)
    assert [f.meta["hand"] for f in frames] == [False, True, False]
    source.close()
    assert source.read().seq == 4  # a callable restarts on re-open
    once = IterableSource([np.zeros((8, 8), np.uint8)], fps=0)
    assert once.read().image.shape == (8, 8, 3)  # grey frames become BGR
    once.close()
    with pytest.raises(SourceError, match="cannot be restarted"):
        once.read()


# --------------------------------------------------------------------------- open_source


def test_open_source_file_picks_image_directory_or_video(tmp_path):
    image = tmp_path / "one.png"
    cv2.imwrite(str(image), solid(50))
    video = tmp_path / "clip.avi"
    write_video(video, [10, 20])
    folder = tmp_path / "frames"
    folder.mkdir()
    cv2.imwrite(str(folder / "1.png"), solid(60))
    for spec, cls in ((f"file:{image}", ImageSource), (f"file:{folder}", DirectorySource),
                      (f"file:{video}", VideoSource)):
        source = open_source(spec, fps=0)
        assert isinstance(source, cls) and source.is_open
        assert source.read().seq == 1
        source.close()


@pytest.mark.parametrize(("spec", "message"), [
    ("", "empty camera spec"),
    ("webcam", "unknown camera spec"),
    ("usb:front", "device number"),
    ("picamera2:x", "camera number"),
    ("file:", "give the path"),
    ("file:/no/such/place.png", "/no/such/place.png"),
    ("sim", "no sim factory"),
])
def test_open_source_errors(spec, message):
    with pytest.raises(SourceError, match=message):
        open_source(spec)


def test_open_source_rejects_unknown_options(tmp_path):
    image = tmp_path / "one.png"
    cv2.imwrite(str(image), solid(50))
    with pytest.raises(SourceError, match="resolution"):
        open_source(f"file:{image}", resolution=(10, 10))


def test_sim_uses_the_registered_factory():
    made = []

    def factory(fps: float = 15.0) -> IterableSource:
        made.append(fps)
        return IterableSource(lambda: iter([solid(1)] * 3), fps=fps)

    register_sim_factory(factory)
    source = open_source("sim", fps=0)
    assert source.is_open and made == [0]
    assert source.read().image.shape == (48, 64, 3)


def test_auto_falls_back_to_sim_and_says_why(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)  # import fails
    monkeypatch.setattr(sources, "usb_candidates", list)
    with pytest.raises(SourceError, match="no camera found"):
        open_source("auto")
    register_sim_factory(lambda **_: IterableSource(lambda: iter([solid(5)] * 2), fps=0))
    source = open_source("auto", fps=0, size=(1640, 1232))
    assert source.name == "sim"
    assert "picamera2 not installed" in source.note and "chose sim" in source.note


def test_auto_prefers_a_pi_camera(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module())
    register_sim_factory(lambda **_: pytest.fail("sim must not be used when a camera exists"))
    source = open_source("auto")
    assert isinstance(source, Picamera2Source) and "chose picamera2" in source.note
    source.close()


def test_auto_tries_usb_when_no_pi_camera(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module(cameras=[]))
    monkeypatch.setattr(sources, "usb_candidates", lambda: [3])
    monkeypatch.setattr(sources, "_default_capture", lambda device: FakeCapture(device, opened=device == 3))
    source = open_source("auto")
    assert isinstance(source, USBSource) and source.name == "usb:3"
    assert "no camera listed" in source.note
    source.close()


# --------------------------------------------------------------------------- USB camera (fake device)


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeCapture:
    """A webcam with a queue of already captured frames; grabbing a queued frame takes no time,
    grabbing a fresh one waits a frame period (on the fake clock)."""

    def __init__(self, device, *, opened: bool = True, clock: FakeClock | None = None, queued: int = 0,
                 deliver: bool = True) -> None:
        self.device, self.opened, self.clock, self.deliver = device, opened, clock, deliver
        self.queue = list(range(queued))
        self.next_value = queued
        self.current = None
        self.props: dict[int, float] = {}
        self.released = False

    def isOpened(self) -> bool:  # noqa: N802 (OpenCV's name)
        return self.opened

    def set(self, prop, value) -> bool:
        self.props[prop] = value
        return True

    def get(self, prop) -> float:
        return 30.0 if prop == cv2.CAP_PROP_FPS else self.props.get(prop, 0.0)

    def grab(self) -> bool:
        if not self.deliver:
            return False
        if self.queue:
            self.current = self.queue.pop(0)
        else:
            if self.clock is not None:
                self.clock.now += 1 / 30
            self.current = self.next_value
            self.next_value += 1
        return True

    def retrieve(self):
        return True, solid(self.current % 256)

    def read(self):
        return (self.grab() and self.retrieve()) if self.deliver else (False, None)

    def release(self) -> None:
        self.released = True


def test_usb_source_drains_buffered_frames(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(sources.time, "monotonic", clock)
    cap = FakeCapture(0, clock=clock, queued=0)
    source = USBSource(0, capture_factory=lambda d: cap)
    source.open()
    assert cap.props[cv2.CAP_PROP_BUFFERSIZE] == 1
    assert cap.props[cv2.CAP_PROP_FRAME_WIDTH] == 1280
    cap.queue = [100, 101, 102]  # frames captured while we were busy
    cap.next_value = 103
    frame = source.read()
    assert int(np.median(frame.image)) == 103  # the queued ones were skipped
    source.close()
    assert cap.released
    source.close()


def test_usb_source_errors():
    with pytest.raises(SourceError, match=r"USB camera 2 did not open.*plugged in"):
        USBSource(2, capture_factory=lambda d: FakeCapture(d, opened=False)).open()
    with pytest.raises(SourceError, match="delivered no frame"):
        USBSource(0, capture_factory=lambda d: FakeCapture(d, deliver=False)).open()


# --------------------------------------------------------------------------- Pi camera (fake module)

IMX219_MODES = [
    {"size": (640, 480), "crop_limits": (1000, 752, 1280, 960), "bit_depth": 10},
    {"size": (1640, 1232), "crop_limits": (0, 0, 3280, 2464), "bit_depth": 10},
    {"size": (1920, 1080), "crop_limits": (680, 692, 1920, 1080), "bit_depth": 10},
    {"size": (3280, 2464), "crop_limits": (0, 0, 3280, 2464), "bit_depth": 10},
]
IMX708_MODES = [
    {"size": (1536, 864), "crop_limits": (768, 432, 3072, 1728), "bit_depth": 10},
    {"size": (2304, 1296), "crop_limits": (0, 0, 4608, 2592), "bit_depth": 10},
    {"size": (4608, 2592), "crop_limits": (0, 0, 4608, 2592), "bit_depth": 10},
]


def fake_picamera2_module(*, cameras=None, modes=IMX219_MODES, fail_open: str | None = None):
    log: dict = {"instances": []}

    class FakeRequest:
        def __init__(self, cam, stamp_ns):
            self.cam, self.stamp = cam, stamp_ns
            cam.outstanding += 1

        def get_metadata(self):
            return {"SensorTimestamp": self.stamp, "ExposureTime": 10000}

        def make_array(self, name):
            cfg = self.cam.config[name]
            w, h = cfg["size"]
            if name == "main":
                img = np.zeros((h, w, 3), np.uint8)
                img[..., 0] = 200  # blue first: RGB888 is B, G, R in memory
                return img
            yuv = np.full((h * 3 // 2, w + 32), 128, np.uint8)  # padded stride, U/V below the Y plane
            yuv[:h, :w] = np.arange(w, dtype=np.uint8)[None, :]
            return yuv

        def release(self):
            self.cam.outstanding -= 1

    class Picamera2:
        @staticmethod
        def global_camera_info():
            return [{"Model": "imx219", "Num": 0}] if cameras is None else cameras

        def __init__(self, camera_num=0):
            if fail_open:
                raise RuntimeError(fail_open)
            self.sensor_modes = modes
            self.config = None
            self.controls: dict = {}
            self.outstanding = 0
            self.started = self.closed = False
            self.flush_args = []
            self.clock = 1_000_000_000
            log["instances"].append(self)

        def create_video_configuration(self, main, lores, controls, buffer_count, sensor=None, raw=None):
            log["create"] = {"main": main, "lores": lores, "controls": controls, "sensor": sensor}
            return {"main": main, "lores": lores, "controls": controls}

        def configure(self, config):
            self.config = config

        def start(self):
            self.started = True

        def capture_request(self, flush=False):
            self.flush_args.append(flush)
            self.clock += 33_333_333
            return FakeRequest(self, self.clock)

        def capture_metadata(self):
            return {"ExposureTime": 12345, "AnalogueGain": 2.5, "ColourGains": (1.8, 1.6), "SensorTimestamp": 1}

        def set_controls(self, controls):
            self.controls.update(controls)

        def stop(self):
            self.started = False

        def close(self):
            self.closed = True

    module = types.ModuleType("picamera2")
    module.Picamera2 = Picamera2
    module.log = log
    return module


def test_picamera2_source_with_a_fake_module(monkeypatch):
    module = fake_picamera2_module()
    monkeypatch.setitem(sys.modules, "picamera2", module)
    source = Picamera2Source()
    assert module.log["instances"] == []  # nothing happens before open
    frame = source.read()
    cam = module.log["instances"][0]
    created = module.log["create"]
    assert created["main"] == {"size": (1640, 1232), "format": "RGB888"}
    assert created["lores"] == {"size": (320, 240), "format": "YUV420"}
    assert created["sensor"]["output_size"] == (1640, 1232)  # the full field of view mode
    assert isinstance(frame, Frame) and frame.image.shape == (1232, 1640, 3)
    assert frame.image[0, 0, 0] == 200  # BGR order kept
    assert frame.lores.shape == (240, 320)
    assert np.array_equal(frame.lores[0], np.arange(320, dtype=np.uint8))  # the Y plane, stride removed
    assert frame.time == pytest.approx(cam.clock / 1e9)
    assert cam.flush_args == [True]  # a frame exposed after the call, not a queued one
    assert cam.outstanding == 0  # every request released

    locked = source.lock_exposure()
    assert cam.controls["AeEnable"] is False and cam.controls["AwbEnable"] is False
    assert cam.controls["ColourGains"] == (1.8, 1.6) and cam.controls["ExposureTime"] == 12345
    assert source.exposure == locked

    source.close()
    assert cam.closed and not cam.started
    source.close()
    again = source.read()  # re-opening builds a new Picamera2 and restores the locked exposure
    assert again.seq == 2 and len(module.log["instances"]) == 2
    assert module.log["instances"][1].controls["ColourGains"] == (1.8, 1.6)
    source.unlock_exposure()
    assert module.log["instances"][1].controls["AeEnable"] is True and source.exposure is None
    source.close()


def test_picamera2_errors_say_what_to_check(monkeypatch):
    monkeypatch.setitem(sys.modules, "picamera2", None)
    with pytest.raises(SourceError, match="apt install python3-picamera2"):
        Picamera2Source().open()
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module(cameras=[]))
    with pytest.raises(SourceError, match=r"ribbon cable.*rpicam-hello"):
        Picamera2Source().open()
    busy = "Failed to acquire camera: Device or resource busy"
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module(fail_open=busy))
    with pytest.raises(SourceError, match="another process holds it"):
        Picamera2Source().open()
    monkeypatch.setitem(sys.modules, "picamera2", fake_picamera2_module(fail_open="Permission denied"))
    with pytest.raises(SourceError, match="group video"):
        Picamera2Source().open()


def test_sensor_mode_choice_keeps_the_whole_field_of_view():
    assert choose_sensor_mode(IMX219_MODES)["size"] == (1640, 1232)
    imx708 = choose_sensor_mode(IMX708_MODES)
    assert imx708["size"] == (2304, 1296)  # not the cropped 1536x864
    assert main_size_for(imx708, None) == (1640, 922)
    assert main_size_for(IMX219_MODES[1], None) == (1640, 1232)
    odd = main_size_for(imx708, (1281, 721))
    assert all(v % 2 == 0 and abs(v - w) <= 1 for v, w in zip(odd, (1281, 721), strict=True))  # even for the ISP
    assert choose_sensor_mode([]) is None
