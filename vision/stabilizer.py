"""The stabiliser: decides when the table is still, with no hand over it, and what changed.

Pure logic over frames (no I/O). Feed every frame; `feed()` returns a `StableEvent` once the
table has settled after something moved: the full-resolution image, and the regions that
changed since the previous stable snapshot (the first snapshot reports the whole frame).

- Motion: absolute difference of the blurred lores image to the previous one, after scaling
  the previous one to the current mean brightness (lamp flicker and auto-exposure drift are
  gains, not changes); the frame moves when enough pixels differ.
- Hands: a region that differs from the last stable snapshot (in normalised brightness or in
  chroma, for a sleeve as bright as the table) and is either large and touching the image
  border (arms come in from the edge) or mostly skin-coloured (YCrCb range plus a minimum
  saturation) without being a filled rectangle (cream card stock under a warm lamp has skin's
  colour; cards are rectangles, hands are not). A region that has not
  moved at all for `hand_release_frames` is taken for an object, not a hand, so a box left
  at the very edge of the view cannot block the table forever.
- Stillness: `still_frames` consecutive still frames with no hand emit the event. At 15 fps
  the default 5 reports a placement 5 frames (0.33 s) after the first frame without the hand.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import cv2
import numpy as np

from vision.sources import lores_of


@dataclass(frozen=True)
class StabilizerConfig:
    """Thresholds. Fractions are of the lores frame's area; pixel sizes say at which resolution."""

    blur: int = 5  # odd Gaussian kernel on the lores image; hides sensor noise and 1-px jitter
    pixel_threshold: int = 18  # grey levels (after brightness normalisation) for a lores pixel to have changed
    motion_fraction: float = 0.002  # changed share of lores pixels above which a frame is moving
    hand_threshold: int = 10  # grey levels vs the last snapshot for a pixel to belong to a hand/arm region
    hand_chroma_threshold: int = 12  # |dCr| + |dCb| vs the last snapshot: a sleeve as bright as the table
    still_frames: int = 5  # consecutive still frames, no hand, before a snapshot
    hand_min_area: float = 0.02  # a changed region touching the border at least this big is an arm
    skin_min_area: float = 0.01  # a changed region with at least this much skin is a hand, anywhere
    skin_min_fraction: float = 0.35  # ... provided skin covers this share of the region
    card_fill: float = 0.85  # ... and it does not fill its minimum-area rectangle this well (a cream card)
    hand_release_frames: int | None = 90  # motionless this long (6 s at 15 fps): an object, not a hand; None: never
    region_width: int = 640  # working width for changed regions (finer than lores: a die face, a token)
    region_threshold: int = 24  # grey levels at region_width
    region_min_area: int = 6  # changed pixels at region_width for a region to count
    region_pad: int = 16  # full-resolution pixels added round each region
    region_merge_gap: int = 12  # full-resolution pixels: closer regions merge

    def __post_init__(self) -> None:
        def bad(name: str, rule: str) -> ValueError:
            return ValueError(f"stabilizer.{name}: must be {rule}, not {getattr(self, name)!r}")

        if not (isinstance(self.blur, int) and self.blur >= 1 and self.blur % 2 == 1):
            raise bad("blur", "an odd integer >= 1")
        for name, low, high in (("pixel_threshold", 1, 254), ("region_threshold", 1, 254), ("hand_threshold", 1, 254),
                                ("hand_chroma_threshold", 1, 510)):
            value = getattr(self, name)
            if not (isinstance(value, int) and low <= value <= high):
                raise bad(name, f"an integer {low}-{high}")
        for name in ("motion_fraction", "hand_min_area", "skin_min_area", "skin_min_fraction", "card_fill"):
            value = getattr(self, name)
            if not (isinstance(value, int | float) and 0 < value <= 1):
                raise bad(name, "a fraction in (0, 1]")
        for name in ("still_frames", "region_width", "region_min_area"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value >= 1):
                raise bad(name, "an integer >= 1")
        for name in ("region_pad", "region_merge_gap"):
            value = getattr(self, name)
            if not (isinstance(value, int) and value >= 0):
                raise bad(name, "an integer >= 0")
        release = self.hand_release_frames
        if release is not None and not (isinstance(release, int) and self.still_frames <= release <= 254):
            raise bad("hand_release_frames", f"None or an integer {self.still_frames}-254")

    @classmethod
    def from_mapping(cls, values: dict[str, Any], where: str = "vision.stabilizer") -> StabilizerConfig:
        """From a config section; unknown keys raise ValueError naming them."""
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        return cls(**values)


class Box(NamedTuple):
    """A changed region in full-resolution pixels: x0, y0 inclusive, x1, y1 exclusive."""

    x0: int
    y0: int
    x1: int
    y1: int

    @property
    def width(self) -> int:
        return self.x1 - self.x0

    @property
    def height(self) -> int:
        return self.y1 - self.y0

    def crop(self, image: np.ndarray) -> np.ndarray:
        return image[self.y0 : self.y1, self.x0 : self.x1]

    def contains(self, other: Box) -> bool:
        return self.x0 <= other.x0 and self.y0 <= other.y0 and self.x1 >= other.x1 and self.y1 >= other.y1


@dataclass(frozen=True, eq=False)
class StableEvent:
    """The table settled: what it looks like now and where it changed since the last snapshot."""

    image: np.ndarray  # full resolution, BGR (the frame's read-only array)
    lores: np.ndarray
    seq: int
    time: float
    regions: tuple[Box, ...]
    first: bool  # first snapshot since start/reset: regions is the whole frame

    def to_json(self) -> dict[str, Any]:
        return {"seq": self.seq, "time": round(self.time, 3), "first": self.first,
                "regions": [list(r) for r in self.regions]}


@dataclass(frozen=True)
class StabilizerState:
    """What the pages show: is the table still, is a hand over it, since when."""

    still: bool
    hand_present: bool
    frames_still: int
    motion: float  # changed share of lores pixels in the last frame
    seq: int | None
    last_event_seq: int | None
    last_event_time: float | None
    events: int

    def to_json(self) -> dict[str, Any]:
        return {
            "still": self.still,
            "hand_present": self.hand_present,
            "frames_still": self.frames_still,
            "motion": round(self.motion, 4),
            "seq": self.seq,
            "last_event_seq": self.last_event_seq,
            "last_event_time": None if self.last_event_time is None else round(self.last_event_time, 3),
            "events": self.events,
        }


# --------------------------------------------------------------------------- pure helpers

# Skin in YCrCb (Y, Cr, Cb), wide enough for light to dark skin; with a minimum HSV saturation
# so that white card stock under a warm lamp is not skin.
SKIN_LOW = np.array([40, 135, 78], np.uint8)
SKIN_HIGH = np.array([240, 180, 132], np.uint8)
SKIN_MIN_SATURATION = 58


def prepare(lores: np.ndarray, blur: int) -> tuple[np.ndarray, float]:
    """Blurred grey image and its mean brightness: what motion checks compare."""
    grey = lores if lores.ndim == 2 else cv2.cvtColor(lores, cv2.COLOR_BGR2GRAY)
    if blur > 1:
        grey = cv2.GaussianBlur(grey, (blur, blur), 0)
    return grey, max(float(cv2.mean(grey)[0]), 1.0)


def changed_mask(before: np.ndarray, before_mean: float, after: np.ndarray, after_mean: float,
                 threshold: int) -> np.ndarray:
    """255 where `after` differs from `before` once `before` is scaled to the same mean brightness."""
    scaled = cv2.convertScaleAbs(before, alpha=after_mean / before_mean)
    diff = cv2.absdiff(after, scaled)
    return cv2.threshold(diff, threshold, 255, cv2.THRESH_BINARY)[1]


def thumbnail(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """A BGR image at `size` (w, h), nearest-neighbour: cheap, and noise does not matter for colour cues."""
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    return cv2.resize(image, size, interpolation=cv2.INTER_NEAREST) if image.shape[1::-1] != size else image


def skin_mask(small: np.ndarray, ycrcb: np.ndarray | None = None) -> np.ndarray:
    """255 on skin-coloured pixels of a (small) BGR image."""
    if ycrcb is None:
        ycrcb = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
    skin = cv2.inRange(ycrcb, SKIN_LOW, SKIN_HIGH)
    saturation = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)[:, :, 1]
    return cv2.bitwise_and(skin, cv2.inRange(saturation, SKIN_MIN_SATURATION, 255))


def chroma_changed(before: np.ndarray, after: np.ndarray, threshold: int) -> np.ndarray:
    """255 where |dCr| + |dCb| between two YCrCb images exceeds `threshold` (brightness left out)."""
    diff = cv2.absdiff(before, after)
    return cv2.inRange(cv2.add(diff[:, :, 1], diff[:, :, 2]), threshold + 1, 255)


def merge_boxes(boxes: list[Box], gap: int) -> list[Box]:
    """Union boxes that overlap or lie within `gap` pixels of each other, until none do."""
    out = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a.x0 - gap <= b.x1 and b.x0 - gap <= a.x1 and a.y0 - gap <= b.y1 and b.y0 - gap <= a.y1:
                    out[i] = Box(min(a.x0, b.x0), min(a.y0, b.y0), max(a.x1, b.x1), max(a.y1, b.y1))
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return sorted(out)


# --------------------------------------------------------------------------- the stabiliser


class Stabilizer:
    """Feed frames (anything with image, lores, seq, time); get a StableEvent when the table settles."""

    def __init__(self, config: StabilizerConfig | None = None) -> None:
        self.config = config or StabilizerConfig()
        self.reset()

    def reset(self) -> None:
        """Forget everything: the next settled view is a first snapshot (after recalibration, a new camera)."""
        self._prev: np.ndarray | None = None
        self._prev_mean = 1.0
        self._age: np.ndarray | None = None  # frames since each lores pixel last moved (saturates at 255)
        self._ref: np.ndarray | None = None  # blurred lores of the last stable snapshot
        self._ref_mean = 1.0
        self._ref_ycc: np.ndarray | None = None  # YCrCb thumbnail of the last stable snapshot
        self._ycc: np.ndarray | None = None  # ... of the current frame
        self._ref_region: np.ndarray | None = None  # region_width grey of the last stable snapshot
        self._ref_region_mean = 1.0
        self._armed = True  # something moved since the last snapshot
        self._frames_still = 0
        self._hand = False
        self._motion = 0.0
        self._seq: int | None = None
        self.last_event: StableEvent | None = None
        self._events = 0

    @property
    def state(self) -> StabilizerState:
        last = self.last_event
        return StabilizerState(
            still=self._frames_still >= self.config.still_frames and not self._hand,
            hand_present=self._hand,
            frames_still=self._frames_still,
            motion=self._motion,
            seq=self._seq,
            last_event_seq=None if last is None else last.seq,
            last_event_time=None if last is None else last.time,
            events=self._events,
        )

    # -- per frame
    def feed(self, frame: Any) -> StableEvent | None:
        cfg = self.config
        current, mean = prepare(frame.lores, cfg.blur)
        self._seq = frame.seq
        if self._prev is None or self._prev.shape != current.shape:
            if self._prev is not None:
                self.reset()
                self._seq = frame.seq
            self._prev, self._prev_mean = current, mean
            self._age = np.full(current.shape, 255, np.uint8)
            self._frames_still = 0
            self._motion = 0.0
            self._hand = False
            return None

        moved = self.motion_check(current, mean)
        self._motion = cv2.countNonZero(moved) / moved.size
        if self._motion > cfg.motion_fraction:
            self._frames_still = 0
            self._armed = True
        else:
            self._frames_still += 1
        assert self._age is not None
        self._age = cv2.bitwise_and(cv2.add(self._age, 1), cv2.bitwise_not(moved))
        self._hand = self._hand_present(frame.image, current, mean)
        self._prev, self._prev_mean = current, mean

        if self._frames_still < cfg.still_frames or self._hand or not self._armed:
            return None
        self._armed = False
        return self._snapshot(frame, current, mean, require_change=True)

    def motion_check(self, current: np.ndarray, mean: float) -> np.ndarray:
        """Mask of lores pixels that changed since the previous frame (brightness-normalised)."""
        assert self._prev is not None
        return changed_mask(self._prev, self._prev_mean, current, mean, self.config.pixel_threshold)

    def snapshot_now(self, frame: Any) -> StableEvent:
        """Take a snapshot of this frame whatever the motion (the "the table is right" button)."""
        current, mean = prepare(frame.lores, self.config.blur)
        event = self._snapshot(frame, current, mean, require_change=False)
        assert event is not None
        self._armed = False
        return event

    # -- internals
    def _hand_present(self, image: np.ndarray, current: np.ndarray, mean: float) -> bool:
        cfg = self.config
        assert self._age is not None
        height, width = current.shape
        small = thumbnail(image, (width, height))
        self._ycc = cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)
        if self._ref is not None and self._ref.shape == current.shape and self._ref_ycc is not None:
            foreground = cv2.bitwise_or(
                changed_mask(self._ref, self._ref_mean, current, mean, cfg.hand_threshold),
                chroma_changed(self._ref_ycc, self._ycc, cfg.hand_chroma_threshold))
        else:  # no snapshot yet: whatever moved lately
            window = cfg.hand_release_frames or 254
            foreground = cv2.inRange(self._age, 0, window - 1)
        foreground = cv2.morphologyEx(foreground, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        area = float(height * width)
        smallest = min(cfg.hand_min_area, cfg.skin_min_area) * area
        if cv2.countNonZero(foreground) < smallest:
            return False  # the usual case: nothing big differs from the last snapshot
        # outer contours, not connected components: several times cheaper, and areas need not be exact
        contours, _ = cv2.findContours(foreground, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        skin = None
        for contour in contours:
            size = cv2.contourArea(contour)
            if size < smallest:
                continue
            x, y, w, h = cv2.boundingRect(contour)
            region = np.zeros_like(foreground)
            cv2.drawContours(region, [contour], -1, 255, cv2.FILLED)
            region = cv2.bitwise_and(region, foreground)  # holes stay out
            touches_border = x <= 1 or y <= 1 or x + w >= width - 1 or y + h >= height - 1
            arm = touches_border and size >= cfg.hand_min_area * area
            if skin is None:
                skin = skin_mask(small, self._ycc)
            skin_px = cv2.countNonZero(cv2.bitwise_and(skin, region))
            skinny = skin_px >= cfg.skin_min_area * area and skin_px >= cfg.skin_min_fraction * size
            if skinny and not arm:
                # Cream card stock under a warm lamp is skin-coloured too; a card is a filled rectangle,
                # a hand (fingers, thumb, wrist) is not.
                _, (rect_w, rect_h), _ = cv2.minAreaRect(contour)
                skinny = size < cfg.card_fill * rect_w * rect_h
            if not (arm or skinny):
                continue
            if cfg.hand_release_frames is not None:
                still_for = cv2.minMaxLoc(self._age, mask=region)[0]
                if still_for >= cfg.hand_release_frames:
                    continue  # has not moved for ages: an object at the edge, not an arm
            return True
        return False

    def _region_grey(self, image: np.ndarray) -> tuple[np.ndarray, float]:
        return prepare(lores_of(image, self.config.region_width), 3)

    def _snapshot(self, frame: Any, current: np.ndarray, mean: float, *, require_change: bool) -> StableEvent | None:
        image = frame.image
        full_h, full_w = image.shape[:2]
        grey, grey_mean = self._region_grey(image)
        first = self._ref_region is None or self._ref_region.shape != grey.shape
        if first:
            regions: tuple[Box, ...] = (Box(0, 0, full_w, full_h),)
        else:
            regions = self._changed_regions(grey, grey_mean, (full_w, full_h))
            if not regions and require_change:
                return None  # something passed over the table and left it as it was
        self._ref, self._ref_mean = current, mean
        self._ref_ycc = cv2.cvtColor(thumbnail(image, current.shape[::-1]), cv2.COLOR_BGR2YCrCb)
        self._ref_region, self._ref_region_mean = grey, grey_mean
        event = StableEvent(image=image, lores=frame.lores, seq=frame.seq, time=frame.time,
                            regions=regions, first=first)
        self.last_event = event
        self._events += 1
        return event

    def _changed_regions(self, grey: np.ndarray, mean: float, full: tuple[int, int]) -> tuple[Box, ...]:
        cfg = self.config
        assert self._ref_region is not None
        mask = changed_mask(self._ref_region, self._ref_region_mean, grey, mean, cfg.region_threshold)
        # outer contours: far cheaper than connected components on this machine and on the Pi
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        scale_x = full[0] / grey.shape[1]
        scale_y = full[1] / grey.shape[0]
        pad = cfg.region_pad
        boxes = []
        for contour in contours:
            x, y, w, h = cv2.boundingRect(contour)
            if cv2.countNonZero(mask[y : y + h, x : x + w]) < cfg.region_min_area:
                continue
            boxes.append(Box(
                max(0, int(x * scale_x) - pad),
                max(0, int(y * scale_y) - pad),
                min(full[0], int(np.ceil((x + w) * scale_x)) + pad),
                min(full[1], int(np.ceil((y + h) * scale_y)) + pad),
            ))
        return tuple(merge_boxes(boxes, cfg.region_merge_gap))
