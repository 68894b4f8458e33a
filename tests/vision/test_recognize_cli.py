"""`companion recognize`: the exact JSON-lines contract (DESIGN.md 4), errors, exit status."""

from __future__ import annotations

import json
import subprocess
import sys

import cv2
import pytest

from companion.cli import main
from vision.render import render
from vision.train.evaluate import condition_scene

KEYS = ["image", "ms", "cards", "tokens", "dice"]
CARD_KEYS = {"kind", "value", "color", "corners", "confidence"}
OPTIONAL = {"occluded", "alternatives", "square"}


@pytest.fixture(scope="module")
def photos(tmp_path_factory):
    d = tmp_path_factory.mktemp("photos")
    out = []
    for k, (game, cond) in enumerate((("elfer-raus", "plain"), ("11-nimmt", "plain"))):
        image, truth = render(condition_scene(game, cond, 30 + k, **({"mode": "side"} if game != "11-nimmt" else {})))
        p = d / f"table{k}.jpg"
        cv2.imwrite(str(p), image)
        out.append((str(p), image.shape, truth))
    text = d / "notes.txt"
    text.write_text("not an image")
    empty = d / "empty.png"
    empty.write_bytes(b"")
    return out, str(text), str(empty), str(d / "missing.jpg")


def _lines(capsys) -> list[dict]:
    out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_one_line_per_image_in_order_with_the_exact_keys(photos, capsys):
    shots, *_ = photos
    path, shape, truth = shots[0]
    assert main(["recognize", "--game", "elfer-raus", path, path]) == 0
    lines = _lines(capsys)
    assert [line["image"] for line in lines] == [path, path]
    for line in lines:
        assert list(line) == KEYS
        assert isinstance(line["ms"], float) and line["ms"] > 0
        assert line["tokens"] == [] and line["dice"] == []
        assert len(line["cards"]) >= len(truth["cards"]) - 1
        h, w = shape[:2]
        for c in line["cards"]:
            assert CARD_KEYS <= set(c) <= CARD_KEYS | OPTIONAL
            assert c["kind"] in ("number", "joker", "link", "bonus", "symbol", "bull")
            assert c["color"] in ("yellow", "red", "blue", "green", "gray", None)
            assert isinstance(c["value"], int) or c["value"] is None
            assert 0.0 <= c["confidence"] <= 1.0
            assert len(c["corners"]) == 4
            for x, y in c["corners"]:
                assert -0.05 * w < x < 1.05 * w and -0.05 * h < y < 1.05 * h


def test_11_nimmt_cards_have_no_colour(photos, capsys):
    shots, *_ = photos
    path, _shape, _truth = shots[1]
    assert main(["recognize", "--game", "11-nimmt", path]) == 0
    (line,) = _lines(capsys)
    assert line["cards"] and all(c["color"] is None for c in line["cards"])
    assert all(c["kind"] in ("number", "bull") for c in line["cards"])


def test_unreadable_files_give_error_lines_and_status_1(photos, capsys):
    shots, text, empty, missing = photos
    good = shots[0][0]
    status = main(["recognize", "--game", "elfer-raus", text, good, missing, empty])
    assert status == 1
    lines = _lines(capsys)
    assert [line["image"] for line in lines] == [text, good, missing, empty]
    for i in (0, 2, 3):
        assert set(lines[i]) == {"image", "error"} and isinstance(lines[i]["error"], str) and lines[i]["error"]
    assert list(lines[1]) == KEYS and lines[1]["cards"]
    assert "no such file" in lines[2]["error"]


def test_no_traceback_from_the_console(photos):
    _shots, text, _empty, missing = photos
    proc = subprocess.run([sys.executable, "-m", "companion", "recognize", "--game", "elevens", text, missing],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout
    assert [json.loads(x)["image"] for x in proc.stdout.splitlines()] == [text, missing]


def test_unknown_game_is_a_usage_error(photos, capsys):
    shots, *_ = photos
    assert main(["recognize", "--game", "chess", shots[0][0]]) == 2
    assert "chess" in capsys.readouterr().err


def test_missing_profile_is_reported_per_image(photos, capsys, tmp_path):
    shots, *_ = photos
    assert main(["recognize", "--game", "elfer-raus", "--profile", str(tmp_path / "nope"), shots[0][0]]) == 1
    (line,) = _lines(capsys)
    assert "profile" in line["error"]
