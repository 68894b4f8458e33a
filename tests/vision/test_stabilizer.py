"""The stabiliser on cv2-drawn sequences: a textured table, white cards, an arm coming in from an edge.

Ground truth is known per frame (is an arm in view, where was the card put), so the tests check
the behaviour that matters: never a snapshot while an arm is over the table, a snapshot soon
after it leaves, changed regions covering the placed card, nothing for a change of light.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.sources import Frame, lores_of
from vision.stabilizer import Box, Stabilizer, StabilizerConfig, merge_boxes

W, H = 640, 480
LIGHT_SKIN = (140, 170, 222)  # BGR
DARK_SKIN = (55, 80, 125)
SLEEVE = (150, 70, 40)  # dark blue cloth


def table(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    noise = cv2.resize(rng.normal(0, 1, (H // 8, W // 8, 3)).astype(np.float32), (W, H), interpolation=cv2.INTER_CUBIC)
    grain = cv2.resize(rng.normal(0, 1, (H // 2, 4)).astype(np.float32), (W, H))
    img = np.array((60, 95, 135), np.float32) + 14 * noise + 8 * grain[:, :, None]
    return np.clip(img, 0, 255).astype(np.uint8)


def card_box(x: int, y: int, w: int = 44, h: int = 64) -> tuple[int, int, int, int]:
    return x, y, x + w, y + h


def draw_card(img: np.ndarray, box: tuple[int, int, int, int], stock=(212, 218, 220)) -> None:
    x0, y0, x1, y1 = box
    cv2.rectangle(img, (x0, y0), (x1 - 1, y1 - 1), stock, -1)
    cv2.putText(img, "7", (x0 + 10, y1 - 18), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (40, 40, 190), 2)


def draw_arm(img: np.ndarray, tip: tuple[float, float], skin: tuple[int, int, int], *, edge: str = "bottom",
             sleeve: bool | str = True, holding: tuple[int, int, int, int] | None = None,
             stock=(212, 218, 220)) -> None:
    """An arm from the picture's edge to `tip`: a sleeve near the edge, then skin; optionally a card in hand.

    sleeve="table": the sleeve has the table's colours, so only the skin shows, away from the edge.
    """
    tx, ty = tip
    if edge == "bottom":
        start = np.array([tx + 60, H + 40.0])
    else:  # from the right
        start = np.array([W + 40.0, ty + 50])
    end = np.array([tx, ty], float)
    axis = end - start
    normal = np.array([-axis[1], axis[0]]) / np.linalg.norm(axis)
    if holding is not None:
        draw_card(img, holding, stock)
    if sleeve == "table":
        start = start + 0.55 * axis
        sleeve = False
    forearm = np.array([start + 32 * normal, end + 24 * normal, end - 24 * normal, start - 32 * normal], np.int32)
    cv2.fillConvexPoly(img, forearm, skin)
    along = axis / np.linalg.norm(axis)
    cv2.circle(img, (int(tx), int(ty)), 30, skin, -1)  # the palm
    for k in range(4):  # fingers, spread a little
        base = end + 18 * along + (k - 1.5) * 14 * normal
        tip_k = base + 38 * (along + 0.12 * (k - 1.5) * normal)
        cv2.line(img, tuple(int(v) for v in base), tuple(int(v) for v in tip_k), skin, 11)
    thumb = end + 10 * along + 30 * normal
    cv2.line(img, tuple(int(v) for v in end + 22 * normal), tuple(int(v) for v in thumb + 22 * normal), skin, 12)
    if sleeve:
        cuff = start + 0.45 * axis
        cv2.fillConvexPoly(img, np.array([start + 36 * normal, cuff + 34 * normal, cuff - 34 * normal,
                                          start - 36 * normal], np.int32), SLEEVE)


class Camera:
    """Turns drawn scenes into Frames, with seeded sensor noise and an optional light gain."""

    def __init__(self, seed: int = 1) -> None:
        rng = np.random.default_rng(seed)
        # a few noise fields drawn once and cycled: real per-frame noise at a fraction of the cost
        self.noise = [rng.normal(0, 2.0, (H, W, 3)).astype(np.float32) for _ in range(5)]
        self.seq = 0

    def frame(self, scene: np.ndarray, gain: float = 1.0) -> Frame:
        self.seq += 1
        noise = self.noise[self.seq % len(self.noise)]
        img = cv2.scaleAdd(scene.astype(np.float32), gain, noise) if scene.shape == noise.shape else scene
        img = np.clip(img, 0, 255).astype(np.uint8)
        return Frame(image=img, lores=lores_of(img), seq=self.seq, time=self.seq / 15)


def run(stab: Stabilizer, cam: Camera, scenes: list[tuple[np.ndarray, bool]], gain: float = 1.0):
    """Feed scenes; returns [(seq, event, hand_in_view)] for every frame."""
    out = []
    for scene, hand in scenes:
        frame = cam.frame(scene, gain)
        out.append((frame.seq, stab.feed(frame), hand))
    return out


def settle(stab: Stabilizer, cam: Camera, scene: np.ndarray, n: int = 10):
    return run(stab, cam, [(scene, False)] * n)


def placement(base: np.ndarray, target: tuple[int, int, int, int], skin: tuple[int, int, int], *,
              edge: str = "bottom", hold: int = 10, sleeve: bool | str = True,
              stock=(212, 218, 220)) -> list[tuple[np.ndarray, bool]]:
    """Arm comes in holding a card, puts it at `target`, holds still, goes away."""
    x0, y0, x1, y1 = target
    goal = np.array([(x0 + x1) / 2, (y0 + y1) / 2 + 20])
    entry = np.array([goal[0] + 40, H + 60.0]) if edge == "bottom" else np.array([W + 60.0, goal[1] + 30])
    frames = []
    path = [entry + (goal - entry) * t for t in np.linspace(0.15, 1.0, 7)]
    for k, tip in enumerate(path):  # coming in, the card moves with the hand
        shift = (tip - goal).astype(int)
        img = base.copy()
        held = (x0 + shift[0], y0 + shift[1], x1 + shift[0], y1 + shift[1])
        draw_arm(img, tuple(tip), skin, edge=edge, sleeve=sleeve, holding=held if k < len(path) - 1 else target,
                 stock=stock)
        frames.append((img, True))
    for _ in range(hold):  # lays it down and keeps the hand there, perfectly still
        img = base.copy()
        draw_arm(img, tuple(goal), skin, edge=edge, sleeve=sleeve, holding=target, stock=stock)
        frames.append((img, True))
    after = base.copy()
    draw_card(after, target, stock)
    for tip in reversed(path[:-1]):  # going away; the card stays
        img = after.copy()
        draw_arm(img, tuple(tip), skin, edge=edge, sleeve=sleeve)
        frames.append((img, True))
    return frames + [(after, False)] * 12


def events_of(results):
    return [(seq, ev) for seq, ev, _ in results if ev is not None]


# --------------------------------------------------------------------------- tests


def test_first_still_view_is_a_whole_frame_snapshot():
    stab, cam = Stabilizer(), Camera()
    results = settle(stab, cam, table())
    events = events_of(results)
    assert len(events) == 1
    seq, event = events[0]
    assert event.first and event.regions == (Box(0, 0, W, H),)
    assert seq == 1 + stab.config.still_frames  # first frame has nothing to compare with
    assert event.image.shape == (H, W, 3)
    assert stab.state.still and not stab.state.hand_present and stab.state.events == 1


@pytest.mark.parametrize(("skin", "edge", "sleeve"), [
    (LIGHT_SKIN, "bottom", True),
    (DARK_SKIN, "bottom", True),
    (LIGHT_SKIN, "right", False),
    (DARK_SKIN, "right", False),
    (LIGHT_SKIN, "bottom", "table"),  # only the skin shows: the skin cue must hold the snapshot back
    (DARK_SKIN, "right", "table"),
])
def test_placement_is_reported_after_the_arm_leaves_and_never_during(skin, edge, sleeve):
    base = table(3)
    stab, cam = Stabilizer(), Camera(5)
    settle(stab, cam, base)
    target = card_box(260, 150)
    results = run(stab, cam, placement(base, target, skin, edge=edge, sleeve=sleeve))
    events = events_of(results)
    for seq, event, hand in results:
        assert not (event is not None and hand), f"snapshot at frame {seq} while the arm was in view"
    assert len(events) == 1, f"expected one snapshot after the placement, got {len(events)}"
    first_clear = next(seq for seq, _, hand in results if not hand)
    seq, event = events[0]
    assert seq <= first_clear + stab.config.still_frames
    assert not event.first
    card = Box(*target)
    assert any(region.contains(card) for region in event.regions), (event.regions, card)
    covered = sum(r.width * r.height for r in event.regions)
    assert covered < 0.25 * W * H  # the card, not the whole table


def test_cream_card_under_warm_light_is_not_taken_for_a_hand():
    """Card stock under a warm lamp has skin's colour; it must still be reported promptly."""
    base = table(11)
    stab, cam = Stabilizer(), Camera(8)
    settle(stab, cam, base)
    target = card_box(300, 120, 60, 88)
    results = run(stab, cam, placement(base, target, LIGHT_SKIN, stock=(120, 160, 196)))
    events = events_of(results)
    assert all(not (event is not None and hand) for _, event, hand in results)
    first_clear = next(seq for seq, _, hand in results if not hand)
    assert len(events) == 1 and events[0][0] <= first_clear + stab.config.still_frames
    assert any(r.contains(Box(*target)) for r in events[0][1].regions)


def test_no_snapshot_while_a_hand_rests_still_on_the_table():
    base = table(4)
    stab, cam = Stabilizer(), Camera(2)
    settle(stab, cam, base)
    resting = base.copy()
    draw_arm(resting, (300, 200), LIGHT_SKIN)
    results = run(stab, cam, [(resting, True)] * 40)  # perfectly still: only the hand check can hold it back
    assert events_of(results) == []
    assert stab.state.hand_present
    assert stab.state.frames_still >= stab.config.still_frames
    assert not stab.state.still


def test_an_object_left_at_the_edge_is_reported_once_it_has_not_moved_for_long():
    """A big thing left touching the border looks like an arm at first, but must not block the table forever."""
    cfg = StabilizerConfig(hand_release_frames=30)
    base = table(6)
    stab, cam = Stabilizer(cfg), Camera(3)
    settle(stab, cam, base)
    box_lid = base.copy()
    cv2.rectangle(box_lid, (0, 300), (200, H - 1), (40, 40, 40), -1)  # the game box, pushed into view
    results = run(stab, cam, [(box_lid, False)] * 45)
    events = events_of(results)
    assert len(events) == 1
    seq, event = events[0]
    assert seq >= results[0][0] + cfg.hand_release_frames - 1  # held back while it might be an arm
    assert any(r.contains(Box(0, 300, 200, H)) for r in event.regions)


@pytest.mark.parametrize("gains", [
    [1.0 + 0.012 * k for k in range(11)] + [1.12] * 10,  # auto-exposure drift
    [1.0, 1.15] * 12,  # lamp flicker
    [1.0] * 5 + [0.85] * 15,  # a cloud, a lamp switched off
    [1.0] * 5 + [1.15] * 15,  # a lamp switched on
])
def test_brightness_changes_alone_give_no_snapshot(gains):
    base = table(7)
    draw_card(base, card_box(100, 100))
    stab, cam = Stabilizer(), Camera(9)
    settle(stab, cam, base)
    events = [stab.feed(cam.frame(base, g)) for g in gains]
    assert [e for e in events if e is not None] == []
    assert stab.state.motion < stab.config.motion_fraction
    assert not stab.state.hand_present  # nor does the new light look like an arm


def test_hand_passing_over_without_changing_anything_gives_no_snapshot():
    base = table(8)
    stab, cam = Stabilizer(), Camera(4)
    settle(stab, cam, base)
    frames = []
    for tip in np.linspace([500, 500], [320, 220], 6).tolist() + np.linspace([320, 220], [500, 500], 6).tolist():
        img = base.copy()
        draw_arm(img, tuple(tip), LIGHT_SKIN)
        frames.append((img, True))
    results = run(stab, cam, frames + [(base, False)] * 12)
    assert events_of(results) == []


def test_second_placement_reports_only_the_new_card():
    base = table(9)
    stab, cam = Stabilizer(), Camera(6)
    settle(stab, cam, base)
    first, second = card_box(120, 120), card_box(420, 260)
    run(stab, cam, placement(base, first, LIGHT_SKIN))
    with_first = base.copy()
    draw_card(with_first, first)
    results = run(stab, cam, placement(with_first, second, DARK_SKIN, edge="right"))
    events = events_of(results)
    assert len(events) == 1
    regions = events[0][1].regions
    assert any(r.contains(Box(*second)) for r in regions)
    assert not any(r.contains(Box(*first)) for r in regions)


def test_snapshot_now_reset_and_state():
    base = table(10)
    stab, cam = Stabilizer(), Camera(7)
    frame = cam.frame(base)
    assert stab.feed(frame) is None
    forced = stab.snapshot_now(frame)
    assert forced.first and stab.state.last_event_seq == frame.seq
    assert events_of(settle(stab, cam, base)) == []  # nothing moved since the forced snapshot
    stab.reset()
    assert stab.state.events == 0 and stab.state.last_event_time is None
    events = events_of(settle(stab, cam, base))
    assert len(events) == 1 and events[0][1].first
    assert stab.state.to_json()["events"] == 1


def test_lores_size_change_restarts_cleanly():
    stab = Stabilizer()
    cam = Camera()
    settle(stab, cam, table())
    big = cv2.resize(table(), (800, 600))
    frames = [Frame(image=big, lores=lores_of(big, 400), seq=100 + k, time=k) for k in range(8)]
    events = [e for e in (stab.feed(f) for f in frames) if e is not None]
    assert len(events) == 1 and events[0].first and events[0].regions == (Box(0, 0, 800, 600),)


def test_config_errors_name_the_key():
    with pytest.raises(ValueError, match=r"stabilizer\.blur"):
        StabilizerConfig(blur=4)
    with pytest.raises(ValueError, match=r"stabilizer\.motion_fraction"):
        StabilizerConfig(motion_fraction=0)
    with pytest.raises(ValueError, match=r"hand_release_frames"):
        StabilizerConfig(hand_release_frames=2)
    with pytest.raises(ValueError, match=r"unknown key\(s\) stil_frames"):
        StabilizerConfig.from_mapping({"stil_frames": 3})
    assert StabilizerConfig.from_mapping({"still_frames": 3}).still_frames == 3


def test_default_latency_fits_half_a_second_at_15_fps():
    # reported at the still_frames-th frame after the first frame without the hand
    assert StabilizerConfig().still_frames / 15 <= 0.5


def test_merge_boxes():
    boxes = [Box(0, 0, 10, 10), Box(15, 0, 25, 10), Box(100, 100, 110, 110)]
    assert merge_boxes(boxes, gap=6) == [Box(0, 0, 25, 10), Box(100, 100, 110, 110)]
    assert merge_boxes(boxes, gap=2) == sorted(boxes)
