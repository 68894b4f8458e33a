"""Frame sequences: a hand comes, changes the table, leaves; per-frame truth follows."""

from __future__ import annotations

import numpy as np
import pytest

from vision.render import Change, Item, SequenceRenderer, random_scene

SIZE = (656, 492)


def _scene(game: str, seed: int, **kw):
    return random_scene(game, np.random.default_rng(seed), size=SIZE, hand=False, distractors=False, **kw)


def test_adding_a_card_shows_a_hand_then_the_new_card():
    scene = _scene("elfer-raus", 1, mode="side")
    sr = SequenceRenderer(scene, fps=15, settle_frames=3)
    item = Item("card", {"kind": "number", "value": 5, "color": "blue"}, 0.0, 0.0, 10.0, layer=999, seed=3)
    frames = list(sr.play([Change("add", item=item)]))
    before = len(scene.items)
    assert [f.index for f in frames] == list(range(len(frames)))
    assert frames[0].truth["settled"] and not frames[0].truth["hand"]
    assert frames[-1].truth["settled"] and not frames[-1].truth["hand"]
    with_hand = [f for f in frames if f.truth["hand"]]
    assert with_hand and all(not f.truth["settled"] and f.truth["hand_mask_area"] > 0 for f in with_hand)
    assert any(f.truth["held"] == item.card for f in with_hand)
    first, last = frames[0].truth, frames[-1].truth
    n0 = len(first["cards"]) + len(first["hidden"]) + len(first["outside"])
    n1 = len(last["cards"]) + len(last["hidden"]) + len(last["outside"])
    assert n1 == n0 + 1 and len(sr.scene.items) == before + 1
    assert {"kind": "number", "value": 5, "color": "blue"} in [
        {k: c[k] for k in ("kind", "value", "color")} for c in last["cards"]]
    for f in frames:
        assert f.image.shape == (SIZE[1], SIZE[0], 3) and f.image.dtype == np.uint8


def test_frames_are_reproducible_and_noise_changes_between_still_frames():
    scene = _scene("11-nimmt", 2)
    a = [f.image for f in SequenceRenderer(scene, settle_frames=2).idle()]
    b = [f.image for f in SequenceRenderer(scene, settle_frames=2).idle()]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], a[1])  # fresh sensor noise per frame
    assert np.abs(a[0].astype(int) - a[1].astype(int)).mean() < 8  # ... but the same table


def test_moving_a_token_and_rolling_the_die():
    scene = _scene("numeri", 3)
    tokens = [i for i, it in enumerate(scene.items) if it.obj == "token" and it.square is not None]
    assert tokens
    i = tokens[0]
    scene.items[i].tag = "mover"
    sr = SequenceRenderer(scene, fps=10, settle_frames=2)
    target = scene.items[i].square
    frames = list(sr.play([Change("move", tag="mover", x=scene.items[i].x + 30, y=scene.items[i].y + 10),
                           Change("roll", value="star")]))
    assert any(f.phase == "roll" and not f.truth["settled"] for f in frames)
    last = frames[-1].truth
    assert [d["value"] for d in last["dice"]] == ["star"]
    moved = [it for it in sr.scene.items if it.tag == "mover"]
    assert len(moved) == 1 and moved[0].square == target


def test_bad_changes_are_refused():
    sr = SequenceRenderer(_scene("elevens", 4), settle_frames=1)
    with pytest.raises(KeyError, match="nope"):
        list(sr.play([Change("move", tag="nope")], lead_in=False))
    with pytest.raises(ValueError, match="unknown change"):
        list(sr.play([Change("teleport", index=0)], lead_in=False))
