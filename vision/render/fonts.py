"""Typefaces for printed numerals: TrueType fonts found on the machine, Hershey as fallback.

Fonts are discovered (never downloaded) under the usual font folders, or the folders in
`COMPANION_FONT_DIRS` (os.pathsep-separated; an empty value means "no TrueType fonts").
Each usable font is validated (all ten digits present and distinct), grouped by family,
and split into a "train" and a "holdout" pool by a hash of the family name, so accuracy
can be measured on typefaces never seen in training. Without Pillow or without fonts,
OpenCV's Hershey vector fonts stand in (a fresh Raspberry Pi has few fonts).
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

try:  # Pillow is optional: without it every typeface is a Hershey font.
    from PIL import Image, ImageDraw, ImageFont
except ImportError:  # pragma: no cover - exercised on machines without Pillow
    ImageFont = None  # type: ignore[assignment]

POOLS = ("train", "holdout")
DEFAULT_FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts")
HOLDOUT_PERCENT = 30

# Fonts whose digits are not plain numerals, or scripts we do not want.
_EXCLUDE = re.compile(
    r"math|symbol|dingbat|emoji|icon|awesome|d050000l|standardsymbols|cursor|braille|ocr|kanji|barcode|keyboard"
    r"|initials",
    re.IGNORECASE,
)
_NOTO_LATIN = re.compile(r"^Noto(Sans|Serif)(Display|Mono)?-", re.IGNORECASE)
_TOO_THIN = re.compile(r"thin|hairline|extralight|ultralight", re.IGNORECASE)
_BOLD = re.compile(r"bold|black|heavy|semibold|demi|medium", re.IGNORECASE)
_ITALIC = re.compile(r"italic|oblique|inclined", re.IGNORECASE)


@dataclass(frozen=True)
class Typeface:
    """One font file (or one Hershey font) usable for numerals."""

    name: str  # "Family Style", unique within the machine
    family: str
    path: str | None  # None for Hershey fonts
    bold: bool = False
    italic: bool = False
    hershey: int | None = None  # cv2.FONT_HERSHEY_* when path is None
    hershey_weight: float = 1.0  # stroke thickness factor for Hershey fonts

    @property
    def pool(self) -> str:
        # Split by the first word of the family so that "Clear Sans" and "Clear Sans Light",
        # or "Linux Libertine" and "Linux Biolinum", never straddle the two pools.
        words = self.family.split()
        return pool_of((words[0] if words else self.family).lower().removesuffix("alt"))


def pool_of(name: str) -> str:
    """Deterministic train/holdout split by a stable hash of a style family name."""
    digest = int(hashlib.sha1(name.strip().lower().encode()).hexdigest(), 16)
    return "holdout" if digest % 100 < HOLDOUT_PERCENT else "train"


def check_pool(pool: str) -> str:
    if pool not in POOLS:
        raise ValueError(f"pool must be one of {POOLS}, not {pool!r}")
    return pool


# Hershey fallback: fixed split so both pools are never empty.
_HERSHEY = (
    ("Hershey Simplex", cv2.FONT_HERSHEY_SIMPLEX, 1.0, "train"),
    ("Hershey Duplex", cv2.FONT_HERSHEY_DUPLEX, 1.0, "train"),
    ("Hershey Triplex", cv2.FONT_HERSHEY_TRIPLEX, 1.0, "train"),
    ("Hershey Simplex Bold", cv2.FONT_HERSHEY_SIMPLEX, 1.8, "train"),
    ("Hershey Complex", cv2.FONT_HERSHEY_COMPLEX, 1.0, "holdout"),
    ("Hershey Plain Bold", cv2.FONT_HERSHEY_PLAIN, 1.7, "holdout"),
)


def hershey_typefaces(pool: str) -> list[Typeface]:
    check_pool(pool)
    return [
        Typeface(name=n, family=n, path=None, bold=w > 1.2, hershey=f, hershey_weight=w)
        for n, f, w, p in _HERSHEY
        if p == pool
    ]


def font_dirs() -> tuple[str, ...]:
    env = os.environ.get("COMPANION_FONT_DIRS")
    if env is not None:
        return tuple(d for d in env.split(os.pathsep) if d)
    return DEFAULT_FONT_DIRS


def typefaces(pool: str = "train") -> list[Typeface]:
    """Usable typefaces of one pool (TrueType if any were found, else Hershey), sorted by name."""
    check_pool(pool)
    found = [t for t in _discover(font_dirs()) if t.pool == pool]
    return found if found else hershey_typefaces(pool)


def font_packages_hint() -> str:
    return "apt-get install fonts-dejavu-core fonts-liberation2 fonts-freefont-ttf fonts-urw-base35 ..."


@lru_cache(maxsize=8)
def _discover(dirs: tuple[str, ...]) -> tuple[Typeface, ...]:
    if ImageFont is None:
        return ()
    files: list[Path] = []
    for d in dirs:
        root = Path(d).expanduser()
        if root.is_dir():
            files.extend(p for p in root.rglob("*") if p.suffix.lower() in (".ttf", ".otf"))
    by_name: dict[str, Typeface] = {}
    for path in sorted(files):
        stem = path.stem
        if _EXCLUDE.search(str(path)) or _TOO_THIN.search(stem) or "[" in stem or "variable" in stem.lower():
            continue
        if stem.lower().startswith("noto") and not _NOTO_LATIN.match(stem):
            continue
        face = _validated(str(path))
        if face is not None and face.name not in by_name:
            by_name[face.name] = face
    return tuple(sorted(by_name.values(), key=lambda t: t.name))


def _validated(path: str) -> Typeface | None:
    """A Typeface when the font has ten distinct, inked digits; None otherwise."""
    try:
        font = ImageFont.truetype(path, 40)
        family, style = font.getname()
    except (OSError, ValueError):
        return None
    family, style = (family or Path(path).stem).strip(), (style or "Regular").strip()
    if _TOO_THIN.search(style) or _EXCLUDE.search(family):
        return None
    seen: set[bytes] = set()
    notdef = _pil_mask_bytes(font, "\uffff")
    for d in "0123456789":
        m = _pil_mask_bytes(font, d)
        if m is None or m == notdef or m in seen:
            return None
        seen.add(m)
    return Typeface(
        name=f"{family} {style}",
        family=family,
        path=path,
        bold=bool(_BOLD.search(style)),
        italic=bool(_ITALIC.search(style)),
    )


def _pil_mask_bytes(font, text: str) -> bytes | None:
    try:
        mask = font.getmask(text)
    except (OSError, ValueError):
        return None
    arr = np.asarray(mask, dtype=np.uint8)
    if arr.size == 0 or int(arr.max(initial=0)) < 128:
        return None
    return bytes(mask.size) + arr.tobytes()


# ----------------------------------------------------------------------------------------
# Rendering text to a coverage mask


def text_mask(text: str, face: Typeface, height_px: float, stroke: float = 0.0) -> np.ndarray:
    """Coverage mask (float32 0..1), tight around the ink, where digits are `height_px` tall.

    `stroke` widens the glyphs by that fraction of the digit height (outline layers).
    """
    h = max(2, int(round(height_px)))
    s = int(round(stroke * 100))
    return _text_mask_cached(text, face, h, s).copy()


@lru_cache(maxsize=4096)
def _text_mask_cached(text: str, face: Typeface, height_px: int, stroke_pct: int) -> np.ndarray:
    if face.path is not None and ImageFont is not None:
        return _pil_text(text, face.path, height_px, stroke_pct)
    return _hershey_text(text, face, height_px, stroke_pct)


@lru_cache(maxsize=512)
def _digit_ratio(path: str) -> float:
    font = ImageFont.truetype(path, 200)
    box = font.getbbox("0123456789", anchor="ls")
    return max(0.2, (box[3] - box[1]) / 200.0)


def _pil_text(text: str, path: str, height_px: int, stroke_pct: int) -> np.ndarray:
    size = max(4, int(round(height_px / _digit_ratio(path))))
    font = ImageFont.truetype(path, size)
    stroke = int(round(stroke_pct / 100.0 * height_px))
    box = font.getbbox(text, anchor="ls", stroke_width=stroke)
    w, h = box[2] - box[0] + 4, box[3] - box[1] + 4
    img = Image.new("L", (max(1, w), max(1, h)), 0)
    ImageDraw.Draw(img).text((2 - box[0], 2 - box[1]), text, fill=255, font=font, anchor="ls",
                             stroke_width=stroke, stroke_fill=255)
    return _crop(np.asarray(img, dtype=np.float32) / 255.0)


def _hershey_text(text: str, face: Typeface, height_px: int, stroke_pct: int) -> np.ndarray:
    font = face.hershey if face.hershey is not None else cv2.FONT_HERSHEY_SIMPLEX
    # Draw large, then shrink: Hershey strokes are thin lines, anti-aliased by the resize.
    ref = 96
    scale = cv2.getFontScaleFromHeight(font, ref)
    thick = max(1, int(round(ref * 0.11 * face.hershey_weight + ref * stroke_pct / 100.0 * 2)))
    (tw, th), base = cv2.getTextSize(text, font, scale, thick)
    pad = thick + 4
    img = np.zeros((th + base + 2 * pad, tw + 2 * pad), np.uint8)
    cv2.putText(img, text, (pad, pad + th), font, scale, 255, thick, cv2.LINE_AA)
    img = _crop(img.astype(np.float32) / 255.0)
    f = height_px / float(ref)
    out = cv2.resize(img, (max(1, int(round(img.shape[1] * f))), max(1, int(round(img.shape[0] * f)))),
                     interpolation=cv2.INTER_AREA)
    return _crop(out)


def _crop(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask > 0.02)
    if len(ys) == 0:
        return np.zeros((1, 1), np.float32)
    return np.ascontiguousarray(mask[ys.min(): ys.max() + 1, xs.min(): xs.max() + 1], dtype=np.float32)
