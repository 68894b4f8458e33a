"""Canonical upright faces of every component, drawn procedurally from a `Design`.

`face(obj, design, w, h)` returns (bgr, alpha) float32 images: cards of every game, card
backs, 11! tiles (top face), Numeri tokens (top face) and die top faces. `render_card`
wraps it as a BGRA uint8 image for classifier crops.
"""

from __future__ import annotations

import zlib
from functools import lru_cache

import cv2
import numpy as np

from . import draw, icons
from .designs import SUITS, Design
from .draw import Colour
from .fonts import text_mask

WHITE: Colour = (0.97, 0.97, 0.97)
_ROT180 = {"0": "0", "1": "1", "6": "9", "8": "8", "9": "6"}

# Head counts of 11 nimmt! (RULES.md 4.1, GUESS until read off a real deck).
_HEADS_7 = {3, 33, 63, 93}
_HEADS_5 = {13, 23, 43, 53, 73, 83}
_HEADS_3 = {2, 5, 7, 11, 17, 19, 29, 31, 37, 41, 47, 59, 61, 67, 71, 79, 89, 97}


def default_heads(value: int) -> int:
    """Bull heads on 11 nimmt! card `value` (the RULES.md 4.1 table)."""
    if value in _HEADS_7:
        return 7
    if value in _HEADS_5:
        return 5
    if value in _HEADS_3:
        return 3
    return 1


def is_ambiguous(value: int, max_value: int) -> bool:
    """True when the number turned upside down reads as another number of the deck (6/9, 16/91, ...)."""
    s = str(value)
    if any(c not in _ROT180 for c in s):
        return False
    r = "".join(_ROT180[c] for c in reversed(s))
    return not r.startswith("0") and r != s and 1 <= int(r) <= max_value


def object_of(card: dict) -> str:
    """Which physical object a card dict describes: card, tile, token, die or back."""
    obj = card.get("object")
    if obj is not None:
        if obj not in ("card", "tile", "token", "die", "back"):
            raise ValueError(f"unknown object {obj!r} in {card!r}")
        return str(obj)
    if card.get("kind") == "symbol":
        return "tile"
    return "card"


def object_size_mm(card: dict, design: Design) -> tuple[float, float]:
    """Physical (width, height) of the object's top face in millimetres."""
    obj = object_of(card)
    if obj == "tile":
        return design.tile_mm, design.tile_mm
    if obj == "token":
        return design.token_mm, design.token_mm
    if obj == "die":
        return design.die_mm, design.die_mm
    return design.card_w, design.card_h


def render_card(card: dict, design: Design, size_px: int) -> np.ndarray:
    """One canonical upright card/tile/token/die face as BGRA uint8; `size_px` is its height."""
    wmm, hmm = object_size_mm(card, design)
    h = int(size_px)
    w = max(4, int(round(h * wmm / hmm)))
    bgr, alpha = face(card, design, w, h)
    out = np.empty((h, w, 4), np.uint8)
    out[..., :3] = np.clip(bgr * 255.0 + 0.5, 0, 255).astype(np.uint8)
    out[..., 3] = np.clip(alpha * 255.0 + 0.5, 0, 255).astype(np.uint8)
    return out


def face(card: dict, design: Design, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    """(bgr, alpha) float32 of the top face at w×h pixels. Cached: treat the result as read-only."""
    key = tuple(sorted((k, v if not isinstance(v, list) else tuple(v)) for k, v in card.items()))
    return _face_cached(key, design, int(w), int(h))


@lru_cache(maxsize=256)  # ~60 MB at scene sizes: enough for every face of a scene
def _face_cached(key: tuple, design: Design, w: int, h: int) -> tuple[np.ndarray, np.ndarray]:
    card = dict(key)
    obj = object_of(card)
    # Small faces are drawn at twice the size and reduced: thin lines and glyphs stay smooth.
    ss = 2 if max(w, h) < 90 else 1
    W, H = w * ss, h * ss
    if obj == "tile":
        img, alpha = _tile(card, design, W, H)
    elif obj == "token":
        img, alpha = _token(card, design, W, H)
    elif obj == "die":
        img, alpha = _die(card, design, W, H)
    elif obj == "back":
        img, alpha = _back(design, W, H)
    else:
        img, alpha = _card(card, design, W, H)
    if ss != 1:
        import cv2

        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
        alpha = cv2.resize(alpha, (w, h), interpolation=cv2.INTER_AREA)
    img.setflags(write=False)
    alpha.setflags(write=False)
    return img, alpha


# ----------------------------------------------------------------------------------------
# Helpers


def _rng(design: Design, *salt) -> np.random.Generator:
    # crc32, not hash(): str hashes are salted per process, which made the same seeded scene
    # render differently from one run to the next.
    return np.random.default_rng([design.seed, *[zlib.crc32(s.encode()) for s in map(str, salt)]])


def _glyph(text: str, design: Design, height: float, max_w: float, stroke: float = 0.0, index: bool = False):
    face = design.index_typeface if index else design.typeface
    m = text_mask(text, face, height, stroke)
    if m.shape[1] > max_w:
        m = draw.fit_mask(m, max_w, m.shape[0])
    return m


def _centre_paint(img: np.ndarray, mask: np.ndarray, colour: Colour, cx: float, cy: float,
                  rotate180: bool = False, opacity: float = 1.0) -> None:
    if rotate180:
        mask = mask[::-1, ::-1]
    hh, ww = mask.shape
    draw.paint_at(img, mask, colour, cx - ww / 2.0, cy - hh / 2.0, opacity)


def _dark(c: Colour, f: float = 0.45) -> Colour:
    return draw.scale_colour(c, f)


def _light(c: Colour, stock: Colour, t: float) -> Colour:
    return draw.mix(stock, c, t)


def _mark(img, glyph_shape, cx, cy, colour, style, rotate180=False):
    """Underline or dot telling 6 from 9: drawn below the glyph (above it when turned)."""
    gh, gw = glyph_shape
    H, W = img.shape[:2]
    sgn = -1 if rotate180 else 1
    if style == "underline":
        bar_h = max(1.5, 0.075 * gh)
        y = cy + sgn * (gh / 2.0 + 0.1 * gh + bar_h / 2.0)
        m = draw.rounded_rect(H, W, cx - 0.36 * gw, y - bar_h / 2, cx + 0.36 * gw, y + bar_h / 2, bar_h / 2.5)
    else:
        r = max(1.2, 0.07 * gh)
        x = cx + sgn * (gw / 2.0 + 1.6 * r)
        y = cy + sgn * (gh / 2.0 - r)
        m = draw.ellipse(H, W, x, y, r, r)
    draw.paint(img, m, colour)


def _styled_numeral(img: np.ndarray, text: str, d: Design, cx: float, cy: float, height: float, max_w: float,
                    ink: Colour, style: str, stock: Colour, ambiguous: bool, on_colour: bool = False) -> None:
    """The big central numeral in one of the printing styles."""
    plain = _glyph(text, d, height, 10**6)
    s = min(1.0, max_w / max(plain.shape[1], 1))

    def layer(stroke: float) -> np.ndarray:
        m = _glyph(text, d, height, 10**6, stroke=stroke) if stroke > 0 else plain
        return draw.resize_mask(m, s) if s < 0.999 else m

    fill = layer(0.0)
    gh, gw = fill.shape
    wgt = d.numeral_weight
    dark = _dark(ink, 0.4) if draw.luminance(ink) > 0.25 else (0.05, 0.05, 0.05)
    main: Colour | None = ink
    if style == "outline_dark":
        _centre_paint(img, layer(wgt), dark, cx, cy)
    elif style == "outline_white":
        _centre_paint(img, layer(wgt * 1.8), dark, cx, cy)
        _centre_paint(img, layer(wgt), WHITE if on_colour else stock, cx, cy)
    elif style == "shadow":
        off = 0.045 * gh
        _centre_paint(img, fill, _dark(ink, 0.35), cx + off, cy + off, opacity=0.85)
    elif style == "hollow":
        _centre_paint(img, layer(wgt * 0.6), ink, cx, cy)
        _centre_paint(img, fill, _light(ink, stock, 0.1), cx, cy)
        main = None
    elif style == "badge":
        H, W = img.shape[:2]
        r = 0.62 * max(gh, gw * 0.9)
        draw.paint(img, draw.ellipse(H, W, cx, cy, r, r), stock)
        draw.paint(img, draw.ring(H, W, cx, cy, r, max(2.0, 0.07 * r)), ink)
    elif style == "inverse":
        _centre_paint(img, layer(wgt), dark if on_colour else ink, cx, cy)
        main = WHITE
    if main is not None:
        _centre_paint(img, fill, main, cx, cy)
    if ambiguous and d.ambiguity_mark != "none":
        colour = ink if main is None or style == "inverse" else main
        if style == "inverse":
            colour = dark
        _mark(img, (gh, gw), cx, cy, colour, d.ambiguity_mark)


def _indices(img, text, d: Design, W, H, inner, ink, ambiguous, on_colour_ink=None, glyph=None):
    """Corner indices: TL and BR (turned), or all four, in the design's style."""
    if d.indices == "none":
        return
    ih = d.index_scale * H
    m = glyph if glyph is not None else _glyph(text, d, ih, 0.24 * W, index=True)
    paint = m if d.index_numbers else np.zeros_like(m)
    gh, gw = m.shape
    x0 = inner + max(0.085 * W, gw / 2.0 + 0.045 * W)
    y0 = inner + 0.045 * H + gh / 2.0 + (0.012 * H if d.index_style != "plain" else 0)
    spots = [(x0, y0, False), (W - x0, H - y0, True)]
    if d.indices == "four":
        spots += [(W - x0, y0, False), (x0, H - y0, True)]
    elif d.indices == "tl_tr":
        spots = [(x0, y0, False), (W - x0, y0, False)]
    colour = ink
    if d.index_on_colour and on_colour_ink is not None:
        colour = on_colour_ink
    for cx, cy, rot in spots:
        if d.index_style in ("circle", "box"):
            r = 0.62 * max(gh, gw)
            if d.index_style == "circle":
                badge = draw.ellipse(H, W, cx, cy, r, r)
            else:
                badge = draw.rounded_rect(H, W, cx - r, cy - r, cx + r, cy + r, 0.2 * r)
            draw.paint(img, badge, ink)
            _centre_paint(img, paint, WHITE, cx, cy, rot)
            mark_col = WHITE
        else:
            if colour is not ink:
                # White index on the suit colour: a block of ink behind it, so it always has its
                # colour under it (the band, stripe or frame of the design continues into it).
                px_, py_ = 0.35 * gh, 0.28 * gh
                extra = 0.22 * gh if ambiguous and d.ambiguity_mark != "none" else 0.0
                top = cy - gh / 2 - py_ - (extra if rot else 0)
                bottom = cy + gh / 2 + py_ + (0 if rot else extra)
                draw.paint(img, draw.rounded_rect(H, W, cx - gw / 2 - px_, top, cx + gw / 2 + px_, bottom,
                                                  0.25 * gh), ink)
            _centre_paint(img, paint, colour, cx, cy, rot)
            mark_col = colour
        if ambiguous and d.ambiguity_mark != "none":
            _mark(img, (gh, gw), cx, cy, mark_col, d.ambiguity_mark, rotate180=rot)


# ----------------------------------------------------------------------------------------
# Cards


def _card(card: dict, d: Design, W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    r = d.corner_mm / d.card_w * W
    alpha = draw.rounded_rect(H, W, 0, 0, W, H, r)
    img = draw.blank(H, W, d.stock)
    kind = card.get("kind", "number")
    if kind == "number" and card.get("color") is None:
        _nimmt(img, card, d, W, H)
    elif kind == "number":
        _number(img, card, d, W, H)
    elif kind == "joker":
        _joker(img, card, d, W, H)
    elif kind == "link":
        _link(img, d, W, H)
    elif kind == "bonus":
        _bonus(img, d, W, H)
    elif kind == "bull":
        _bull_card(img, d, W, H)
    else:
        raise ValueError(f"cannot draw a card of kind {kind!r}")
    # The cut edge of the card stock: a faint darker rim, as seen on real cards.
    rim = np.clip(draw.rounded_rect(H, W, 0, 0, W, H, r) - draw.rounded_rect(H, W, 1.3, 1.3, W - 1.3, H - 1.3,
                                                                           max(0.5, r - 1.3)), 0, 1)
    draw.paint(img, rim, _dark(d.stock, 0.7), d.edge_shade * 2.2)
    return img, alpha


def _inner(d: Design, W: int) -> float:
    return d.print_margin * W


def _background(img: np.ndarray, d: Design, W: int, H: int, ink: Colour, card_key: str) -> Colour | None:
    """Paint the card background; return the colour indices should use when printed on colour."""
    m = _inner(d, W)
    r_in = max(1.0, d.corner_mm / d.card_w * W - m)
    area = draw.rounded_rect(H, W, m, m, W - m, H - m, r_in)
    s = d.bg_strength
    bg = d.background
    on_colour = None
    if bg == "tint":
        draw.paint(img, area, _light(ink, d.stock, s))
    elif bg == "solid":
        draw.paint(img, area, ink)
        rng = _rng(d, "oval")
        ang = float(rng.uniform(-35, -20)) if rng.random() < 0.7 else 0.0
        draw.paint(img, draw.ellipse(H, W, W / 2, H / 2, 0.46 * W, 0.3 * H, 90 + ang), d.stock)
        on_colour = WHITE
    elif bg == "gradient":
        xs, ys = np.meshgrid(np.linspace(-1, 1, W, dtype=np.float32), np.linspace(-1, 1, H, dtype=np.float32))
        t = np.clip(np.sqrt(xs**2 + ys**2) / 1.3, 0, 1) ** 1.5 * s * 1.8
        col = np.asarray(_light(ink, d.stock, 1.0), np.float32)
        img[:] = img * (1 - t[..., None]) + col * t[..., None]
    elif bg == "pattern":
        _pattern(img, area, d, W, H, _light(ink, d.stock, s))
    elif bg == "blobs":
        _blobs(img, area, d, W, H, card_key)
    elif bg == "bands":
        band = s * H
        draw.paint(img, area * draw.rounded_rect(H, W, -10, -10, W + 10, band, 0.5), ink)
        draw.paint(img, area * draw.rounded_rect(H, W, -10, H - band, W + 10, H + 10, 0.5), ink)
        on_colour = WHITE
    elif bg == "diagonal":
        tri = draw.polygon(H, W, [(W, H * 0.25), (W, H), (0, H), (0, H * 0.75)])
        draw.paint(img, area * tri, _light(ink, d.stock, s + 0.3))
        on_colour = None
    elif bg == "corner_blocks":
        rr = 0.34 * W
        for cx, cy in ((0, 0), (W, H), (W, 0), (0, H)):
            draw.paint(img, area * draw.ellipse(H, W, cx, cy, rr, rr), ink)
        on_colour = WHITE
    elif bg == "collage":
        on_colour = _collage(img, area, d, W, H, ink)
    elif bg == "edge_stripe":
        sw = s * W
        draw.paint(img, area * draw.rounded_rect(H, W, -10, -10, m + sw, H + 10, 0.5), ink)
        draw.paint(img, area * draw.rounded_rect(H, W, W - m - sw, -10, W + 10, H + 10, 0.5), ink)
        on_colour = WHITE
    _frame(img, d, W, H, ink)
    if d.frame == "thick":
        on_colour = WHITE
    return on_colour


def _collage(img, area, d: Design, W, H, ink) -> Colour | None:
    """Decorative ink shapes drawn at random per design: bands along edges, corner shapes, rules
    beside the index, a split field. Not modelled on any printing: it teaches the reader that ink
    beside or under an index is not a digit. Returns WHITE when the index lands on solid ink."""
    rng = _rng(d, "collage")
    solid = rng.random() < 0.6
    col = ink if solid else _light(ink, d.stock, float(rng.uniform(0.25, 0.6)))
    m = np.zeros((H, W), np.float32)
    for kind in rng.choice(["bands", "corners", "rules", "split"], size=int(rng.integers(1, 3)), replace=False):
        if kind == "bands":
            bw = float(rng.uniform(0.05, 0.28))
            if rng.random() < 0.6:  # along the long edges
                shapes = [draw.rounded_rect(H, W, -10, -10, bw * W, H + 10, 0.5),
                          draw.rounded_rect(H, W, W - bw * W, -10, W + 10, H + 10, 0.5)]
            else:
                shapes = [draw.rounded_rect(H, W, -10, -10, W + 10, bw * H, 0.5),
                          draw.rounded_rect(H, W, -10, H - bw * H, W + 10, H + 10, 0.5)]
        elif kind == "corners":
            r = float(rng.uniform(0.18, 0.45)) * W
            shape = str(rng.choice(["round", "square", "triangle"]))
            shapes = []
            for cx, cy in ((0, 0), (W, H)) if rng.random() < 0.6 else ((0, 0), (W, H), (W, 0), (0, H)):
                if shape == "round":
                    shapes.append(draw.ellipse(H, W, cx, cy, r, r))
                elif shape == "square":
                    shapes.append(draw.rounded_rect(H, W, cx - r, cy - r, cx + r, cy + r, 0.15 * r))
                else:
                    shapes.append(draw.polygon(H, W, [(cx, cy), (abs(cx - 1.4 * r), cy), (cx, abs(cy - 1.4 * r))]))
        elif kind == "rules":  # thin lines a little way in from the edges, beside the index
            t = float(rng.uniform(0.01, 0.03)) * W
            o = float(rng.uniform(0.2, 0.32)) * W
            shapes = [draw.rounded_rect(H, W, o, -10, o + t, H + 10, 0.5),
                      draw.rounded_rect(H, W, W - o - t, -10, W - o, H + 10, 0.5)]
            if rng.random() < 0.5:
                shapes += [draw.rounded_rect(H, W, -10, o, W + 10, o + t, 0.5),
                           draw.rounded_rect(H, W, -10, H - o - t, W + 10, H - o, 0.5)]
        else:  # one half of the card (diagonally or across) in a pale tint, under the numeral
            if rng.random() < 0.5:
                half = draw.polygon(H, W, [(0, 0), (W, 0), (0, H)])
            else:
                half = draw.rounded_rect(H, W, -10, -10, W + 10, float(rng.uniform(0.3, 0.5)) * H, 0.5)
            draw.paint(img, area * half, _light(ink, d.stock, float(rng.uniform(0.15, 0.35))))
            shapes = []
        for s in shapes:
            np.maximum(m, s, out=m)
    # The index must stay legible: white on solid ink it covers, ink where it is clear; a shape
    # that only clips the index is printed as a pale tint instead.
    under_index = float(m[int(0.03 * H):int(0.17 * H), int(0.05 * W):int(0.25 * W)].mean())
    if solid and not (under_index > 0.9 or under_index < 0.05):
        solid, col = False, _light(ink, d.stock, float(rng.uniform(0.25, 0.5)))
    draw.paint(img, area * m, col)
    return WHITE if solid and under_index > 0.9 else None


def _frame(img, d: Design, W, H, ink):
    if d.frame == "none":
        return
    col = ink if d.frame_ink == "suit" else d.ink(d.frame_ink if d.frame_ink != "gray" else "gray")
    m = _inner(d, W)
    r = d.corner_mm / d.card_w * W
    if d.frame == "thick":
        fw = d.frame_width * W
        outer = draw.rounded_rect(H, W, m, m, W - m, H - m, max(1.0, r - m))
        inner = draw.rounded_rect(H, W, m + fw, m + fw, W - m - fw, H - m - fw, max(1.0, 0.6 * r))
        draw.paint(img, np.clip(outer - inner, 0, 1), col)
        return
    t = max(1.2, 0.011 * W)
    ins = m + 0.045 * W
    for k in range(2 if d.frame == "double" else 1):
        o = ins + k * 2.8 * t
        outer = draw.rounded_rect(H, W, o, o, W - o, H - o, max(1.0, r * 0.8 - k * t))
        inner = draw.rounded_rect(H, W, o + t, o + t, W - o - t, H - o - t, max(0.5, r * 0.8 - t - k * t))
        draw.paint(img, np.clip(outer - inner, 0, 1), col)


def _pattern(img, area, d: Design, W, H, col):
    xs, ys = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    p = 0.09 * W
    if d.pattern == "dots":
        u, v = (xs % p) - p / 2, (ys % p) - p / 2
        m = np.clip(0.5 - (np.sqrt(u * u + v * v) - 0.22 * p), 0, 1)
    elif d.pattern == "stripes":
        m = np.clip((np.abs(((xs + ys) % p) - p / 2) - p / 4) * 0.7 + 0.5, 0, 1)
    elif d.pattern == "diamonds":
        u, v = np.abs((xs % p) - p / 2), np.abs((ys % (p * 1.4)) - p * 0.7) / 1.4
        m = np.clip((0.3 * p - (u + v)) + 0.5, 0, 1)
    elif d.pattern == "waves":
        m = np.clip(1.2 - np.abs(((ys + 0.18 * p * np.sin(xs / p * 2.2)) % p) - p / 2) / (0.12 * p), 0, 1)
    else:  # grid
        m = np.clip(1.2 - np.minimum(np.abs((xs % p) - p / 2), np.abs((ys % p) - p / 2)) / (0.06 * p), 0, 1)
    draw.paint(img, area * m.astype(np.float32), col)


def _blobs(img, area, d: Design, W, H, card_key: str):
    """Illustration-like shapes around the edges: coloured blobs, stars, confetti."""
    rng = _rng(d, "blobs", card_key)
    cols = [d.ink(s) for s in SUITS]
    for _ in range(int(rng.integers(4, 8))):
        # Keep the middle mostly clear, like illustrations framing the numeral.
        side = rng.integers(0, 4)
        edge_x = float(rng.choice([rng.uniform(-0.1, 0.2), rng.uniform(0.8, 1.1)]) * W)
        edge_y = float(rng.choice([rng.uniform(-0.1, 0.22), rng.uniform(0.78, 1.1)]) * H)
        cx = float(rng.uniform(0, W)) if side < 2 else edge_x
        cy = edge_y if side < 2 else float(rng.uniform(0, H))
        r = float(rng.uniform(0.12, 0.3) * W)
        col = _light(cols[int(rng.integers(0, 4))], d.stock, float(rng.uniform(0.3, 0.75) * d.bg_strength * 1.4))
        pts = draw.blob_points(rng, cx, cy, r, wobble=0.35)
        draw.paint(img, area * draw.polygon(H, W, pts), col)
        if rng.random() < 0.5:
            draw.paint(img, area * draw.polyline(H, W, pts, max(1.0, 0.008 * W), closed=True), _dark(col, 0.55), 0.7)
    for _ in range(int(rng.integers(2, 6))):
        cx, cy = float(rng.uniform(0.05, 0.95) * W), float(rng.uniform(0.05, 0.95) * H)
        if abs(cx - W / 2) < 0.3 * W and abs(cy - H / 2) < 0.25 * H:
            continue
        rr = float(rng.uniform(0.03, 0.06) * W)
        pts = draw.star_points(cx, cy, rr, rr * 0.45, 5, float(rng.uniform(0, 72)))
        draw.paint(img, area * draw.polygon(H, W, pts), cols[int(rng.integers(0, 4))], 0.8)


def _number(img: np.ndarray, card: dict, d: Design, W: int, H: int) -> None:
    value = int(card["value"])
    suit = card.get("color")
    ink = d.ink(suit)
    text = str(value)
    amb = is_ambiguous(value, 21)
    on_colour = _background(img, d, W, H, ink, f"{suit}{value}")
    inner = _inner(d, W)
    frame_pad = d.frame_width * W if d.frame == "thick" else (0.06 * W if d.frame != "none" else 0.0)
    max_w = W - 2 * inner - 2 * frame_pad - 0.22 * W
    _styled_numeral(img, text, d, W / 2, H / 2, d.numeral_scale * H, max_w, ink, d.numeral_style, d.stock, amb,
                    on_colour=d.background in ("solid",))
    _indices(img, text, d, W, H, inner, ink, amb, on_colour_ink=on_colour)


_HEAD_HUES = {1: None, 3: 45.0, 5: 8.0, 7: 285.0}


def _heads_ink(d: Design, heads: int, strong: bool) -> Colour:
    hue = _HEAD_HUES.get(heads)
    if hue is None:
        hue = 220.0 if strong else 260.0
        return draw.hsv(hue, 0.55, 0.45) if strong else draw.hsv(hue, 0.12, 0.95)
    rng = _rng(d, "heads", heads)
    if strong:
        return draw.hsv(hue + rng.uniform(-5, 5), rng.uniform(0.7, 0.9), rng.uniform(0.55, 0.8))
    return draw.hsv(hue + rng.uniform(-5, 5), rng.uniform(0.25, 0.45), rng.uniform(0.9, 0.98))


def _nimmt(img: np.ndarray, card: dict, d: Design, W: int, H: int) -> None:
    value = int(card["value"])
    heads = int(card.get("heads") or default_heads(value))
    text = str(value)
    amb = is_ambiguous(value, 100)
    inner = _inner(d, W)
    r_in = max(1.0, d.corner_mm / d.card_w * W - inner)
    area = draw.rounded_rect(H, W, inner, inner, W - inner, H - inner, r_in)
    if d.nimmt_bg_by_heads:
        draw.paint(img, area, _heads_ink(d, heads, strong=False))
        draw.paint(img, draw.rounded_rect(H, W, 0.1 * W, 0.2 * H, 0.9 * W, 0.8 * H, 0.08 * W), d.stock, 0.85)
    if d.nimmt_number_ink == "heads":
        ink = _heads_ink(d, heads, strong=True)
    elif d.nimmt_number_ink == "dark":
        ink = draw.hsv(_rng(d, "dark").uniform(200, 260), 0.6, 0.3)
    else:
        ink = d.ink("black")
    _frame(img, d, W, H, d.ink("black"))
    # Big bull head watermark behind the number.
    if d.nimmt_watermark > 0.01:
        size = int(0.72 * W)
        parts = icons.bull_head(size, d.bull_variant)
        sil = np.maximum(parts["head"], parts["horns"])
        big = np.zeros((H, W), np.float32)
        draw.paste_mask(big, sil, W / 2, H / 2)
        draw.paint(img, big, _heads_ink(d, heads, strong=True), d.nimmt_watermark)
    # Head icons: a row at the top, and the same row turned at the bottom.
    hs = 0.085 * H
    icon = icons.bull_silhouette(int(max(6, hs)), d.bull_variant)
    if d.nimmt_head_icon == "outline":
        icon = np.clip(icon - _erode(icon, max(1, int(hs * 0.12))), 0, 1)
    per_row = min(heads, 4)
    rows = [heads] if heads <= 4 else [per_row, heads - per_row]
    head_col = _heads_ink(d, heads, strong=True) if heads > 1 else d.ink("red")
    gap = hs * 1.02
    y = inner + 0.05 * H + hs / 2 + (0.02 * H if d.indices != "none" else 0)
    for ri, n in enumerate(rows):
        yy = y + ri * hs * 0.95
        for k in range(n):
            x = W / 2 + (k - (n - 1) / 2.0) * gap
            _centre_paint(img, icon, head_col, x, yy)
            _centre_paint(img, icon, head_col, W - x, H - yy, rotate180=True)
    numeral_h = d.numeral_scale * H * (0.85 if value >= 10 else 1.0)
    _styled_numeral(img, text, d, W / 2, H / 2, numeral_h, 0.72 * W, ink,
                    d.numeral_style if d.numeral_style in ("fill", "outline_dark", "shadow", "outline_white")
                    else "fill", d.stock, amb)
    if d.indices != "none":
        _indices(img, text, d, W, H, inner, ink, amb, glyph=_glyph(text, d, d.index_scale * H * 0.85, 0.2 * W,
                                                                  index=True))


def _erode(mask: np.ndarray, px: int) -> np.ndarray:
    import cv2

    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * px + 1, 2 * px + 1))
    return cv2.erode(mask, k)


def _corner_pair(W: int, H: int, inner: float, fx: float, fy: float):
    """Top-left and (turned) bottom-right positions of a corner mark."""
    return ((inner + fx * W, inner + fy * H, False), (W - inner - fx * W, H - inner - fy * H, True))


def _joker(img: np.ndarray, card: dict, d: Design, W: int, H: int) -> None:
    cols = [d.ink(s) for s in SUITS]
    inner = _inner(d, W)
    # Four pale colour quarters behind the motif: a joker belongs to no single suit.
    for i, c in enumerate(cols):
        x0, y0 = (i % 2) * W / 2, (i // 2) * H / 2
        draw.paint(img, draw.rounded_rect(H, W, x0, y0, x0 + W / 2, y0 + H / 2, 0.5), _light(c, d.stock, 0.18))
    _frame(img, d, W, H, d.ink("black"))
    if d.joker_style == "jester":
        size = int(0.7 * W)
        hat = icons.jester_hat(size)
        big = np.zeros((H, W), np.float32)
        for i, k in enumerate(("p0", "p1", "p2")):
            big[:] = 0
            draw.paste_mask(big, hat[k], W / 2, H / 2)
            draw.paint(img, big, cols[i])
        for k, c in (("band", cols[3]), ("bells", d.ink("yellow"))):
            big[:] = 0
            draw.paste_mask(big, hat[k], W / 2, H / 2)
            draw.paint(img, big, c)
        label = "J"
    elif d.joker_style == "letter":
        g = _glyph("J", d, 0.5 * H, 0.6 * W)
        full = np.zeros((H, W), np.float32)
        draw.paste_mask(full, g, W / 2, H / 2)
        outer = np.zeros((H, W), np.float32)
        draw.paste_mask(outer, _glyph("J", d, 0.5 * H, 10**6, stroke=0.06), W / 2, H / 2)
        draw.paint(img, outer, (0.08, 0.08, 0.08))
        for i, c in enumerate(cols):
            band = np.zeros((H, W), np.float32)
            band[int(i * H / 4): int((i + 1) * H / 4)] = 1
            draw.paint(img, full * band, c)
        label = "J"
    else:
        pts = draw.star_points(W / 2, H / 2 - 0.04 * H, 0.36 * W, 0.16 * W, 5)
        star = draw.polygon(H, W, pts)
        xs, ys = np.meshgrid(np.arange(W), np.arange(H))
        ang = (np.degrees(np.arctan2(ys - H / 2, xs - W / 2)) + 360) % 360
        for i, c in enumerate(cols):
            sector = ((ang >= i * 90) & (ang < (i + 1) * 90)).astype(np.float32)
            draw.paint(img, star * sector, c)
        word = _glyph("JOKER", d, 0.07 * H, 0.7 * W)
        _centre_paint(img, word, d.ink("black"), W / 2, H * 0.78)
        label = "J"
    if d.indices != "none":
        m = _glyph(label, d, d.index_scale * H, 0.2 * W, index=True)
        for cx, cy, rot in _corner_pair(W, H, inner, 0.12, 0.1):
            _centre_paint(img, m, d.ink("black"), cx, cy, rot)


def _link(img: np.ndarray, d: Design, W: int, H: int) -> None:
    inner = _inner(d, W)
    if d.background in ("pattern", "tint", "gradient"):
        area = draw.rounded_rect(H, W, inner, inner, W - inner, H - inner, 2)
        draw.paint(img, area, _light(d.ink("gray"), d.stock, 0.15))
    _frame(img, d, W, H, d.ink("gray"))
    size = int(0.78 * W)
    chain = icons.chain_link(size, size, thickness=0.1)
    big = np.zeros((H, W), np.float32)
    draw.paste_mask(big, chain, W / 2, H / 2)
    if d.link_ink == "multi":
        xs = np.arange(W, dtype=np.float32)[None, :] / W
        left = (xs < 0.5).astype(np.float32)
        draw.paint(img, big * left, d.ink("blue"))
        draw.paint(img, big * (1 - left), d.ink("red"))
    else:
        draw.paint(img, big, d.ink("black" if d.link_ink == "black" else "gray"))
    if d.indices != "none":
        small = icons.chain_link(int(0.16 * W), int(0.16 * W), thickness=0.12)
        for cx, cy, rot in _corner_pair(W, H, inner, 0.13, 0.1):
            _centre_paint(img, small, d.ink("black"), cx, cy, rot)


def _bonus(img: np.ndarray, d: Design, W: int, H: int) -> None:
    inner = _inner(d, W)
    gold = draw.hsv(_rng(d, "gold").uniform(38, 48), 0.75, 0.9)
    _frame(img, d, W, H, gold)
    big = np.zeros((H, W), np.float32)
    if d.bonus_style == "burst":
        draw.paste_mask(big, icons.burst(int(0.86 * W), int(0.86 * W), 16, 0.8), W / 2, H / 2)
        draw.paint(img, big, gold)
    elif d.bonus_style == "star":
        draw.paste_mask(big, icons.star(int(0.9 * W), int(0.9 * W)), W / 2, H / 2)
        draw.paint(img, big, _light(gold, d.stock, 0.7))
    g = _glyph("+11", d, 0.2 * H, 0.66 * W)
    outline = _glyph("+11", d, 0.2 * H, 10**6, stroke=0.08)
    outline = draw.resize_mask(outline, g.shape[1] / max(_glyph("+11", d, 0.2 * H, 10**6).shape[1], 1))
    _centre_paint(img, outline, (0.97, 0.97, 0.97), W / 2, H / 2)
    _centre_paint(img, g, d.ink("red") if d.bonus_style != "plain" else d.ink("black"), W / 2, H / 2)
    if d.indices != "none":
        m = _glyph("+11", d, d.index_scale * H * 0.7, 0.25 * W, index=True)
        for cx, cy, rot in _corner_pair(W, H, inner, 0.16, 0.08):
            _centre_paint(img, m, d.ink("black"), cx, cy, rot)


def _bull_card(img: np.ndarray, d: Design, W: int, H: int) -> None:
    rng = _rng(d, "bullcard")
    inner = _inner(d, W)
    bg = draw.hsv(rng.uniform(10, 40), rng.uniform(0.55, 0.85), rng.uniform(0.75, 0.92))
    area = draw.rounded_rect(H, W, inner, inner, W - inner, H - inner, max(1.0, d.corner_mm / d.card_w * W - inner))
    draw.paint(img, area, bg)
    _frame(img, d, W, H, d.ink("black"))
    size = int(0.85 * W)
    parts = icons.bull_head(size, d.bull_variant)
    layers = (("horns", draw.hsv(40, 0.15, 0.93)), ("head", draw.hsv(rng.uniform(15, 30), 0.6, 0.35)),
              ("muzzle", draw.hsv(350, 0.3, 0.85)), ("dark", (0.05, 0.05, 0.05)))
    big = np.zeros((H, W), np.float32)
    for k, col in layers:
        big[:] = 0
        draw.paste_mask(big, parts[k], W / 2, H / 2)
        draw.paint(img, big, col)


def _back(d: Design, W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    r = d.corner_mm / d.card_w * W
    alpha = draw.rounded_rect(H, W, 0, 0, W, H, r)
    img = draw.blank(H, W, (0.96, 0.96, 0.96))
    m = 0.05 * W
    area = draw.rounded_rect(H, W, m, m, W - m, H - m, max(1.0, r - m))
    draw.paint(img, area, d.back_colour)
    light = draw.mix(d.back_colour, (1.0, 1.0, 1.0), 0.35)
    xs, ys = np.meshgrid(np.arange(W, dtype=np.float32), np.arange(H, dtype=np.float32))
    p = 0.11 * W
    if d.back_pattern == "diamonds":
        u, v = np.abs((xs % p) - p / 2), np.abs((ys % p) - p / 2)
        pat = np.clip(1.0 - np.abs(u + v - p / 2) / 1.2, 0, 1)
    elif d.back_pattern == "stripes":
        pat = np.clip(1.0 - np.abs(((xs - ys) % p) - p / 2) / 1.5, 0, 1)
    elif d.back_pattern == "dots":
        pat = np.clip(0.5 - (np.sqrt(((xs % p) - p / 2) ** 2 + ((ys % p) - p / 2) ** 2) - 0.18 * p), 0, 1)
    else:
        pat = np.zeros_like(xs)
    draw.paint(img, area * pat.astype(np.float32), light, 0.6)
    if d.back_pattern == "logo":
        draw.paint(img, draw.ellipse(H, W, W / 2, H / 2, 0.36 * W, 0.22 * H), (0.95, 0.95, 0.95))
        g = _glyph("11", d, 0.16 * H, 0.5 * W)
        _centre_paint(img, g, d.back_colour, W / 2, H / 2)
    return img, alpha


# ----------------------------------------------------------------------------------------
# Tiles, tokens, dice


def _tile(card: dict, d: Design, W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    r = d.tile_corner * W
    alpha = draw.rounded_rect(H, W, 0, 0, W, H, r)
    img = draw.blank(H, W, d.tile_colour)
    # Bevel: a lit upper-left rim and a shaded lower-right rim (moulded or cut tiles).
    sdf = draw.rounded_rect_sdf(H, W, 0, 0, W, H, r)
    bevel = np.clip(1.0 + sdf / max(1.5, 0.07 * W), 0, 1)
    xs, ys = np.meshgrid(np.linspace(-1, 1, W, dtype=np.float32), np.linspace(-1, 1, H, dtype=np.float32))
    side = (xs + ys) * 0.5
    shade = 1.0 + bevel * (0.10 * side - 0.04)
    img *= shade[..., None]
    if d.tile_texture == "grain":
        rng = _rng(d, "tilegrain", card.get("value"), card.get("color"))
        grain = np.sin(ys * rng.uniform(20, 40) + 2.0 * np.sin(xs * 3 + rng.uniform(0, 6))) * 0.025
        img *= (1.0 + grain)[..., None]
    elif d.tile_texture == "mottle":  # stone or recycled stock: soft blotches
        rng = _rng(d, "tilemottle", card.get("value"), card.get("color"))
        blot = cv2.GaussianBlur(rng.normal(0, 1, (H, W)).astype(np.float32), (0, 0), max(1.0, 0.06 * W))
        img *= (1.0 + 0.04 * blot / max(float(blot.std()), 1e-6))[..., None]
    kind = card.get("kind", "number")
    if kind == "symbol":
        name = str(card.get("value"))
        ink = d.ink(card.get("color")) if card.get("color") in SUITS else d.ink("black")
        m = icons.symbol(name, int(0.7 * W), filled=d.tile_symbol_filled)
        _centre_paint(img, m, ink, W / 2, H / 2)
        return img, alpha
    value = int(card["value"])
    ink = d.ink(card.get("color") or "gray")
    text = str(value)
    g = _glyph(text, d, d.tile_number_scale * H, 0.8 * W)
    _centre_paint(img, g, ink, W / 2, H / 2 - 0.02 * H)
    if is_ambiguous(value, 20) and d.ambiguity_mark != "none":
        _mark(img, g.shape, W / 2, H / 2 - 0.02 * H, ink, d.ambiguity_mark)
    return img, alpha


def _token(card: dict, d: Design, W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    R = min(W, H) / 2.0
    cx, cy = W / 2.0, H / 2.0
    alpha = draw.ellipse(H, W, cx, cy, R, R)
    suit = card.get("color") or "red"
    ink = d.ink(suit)
    if d.token_face == "white":
        body = d.stock
        img = draw.blank(H, W, body)
        draw.paint(img, draw.ring(H, W, cx, cy, R * 0.8, R * 0.28), ink)
    else:
        body = ink
        img = draw.blank(H, W, body)
    if d.token_template == "wood-disc":
        rng = _rng(d, "tokgrain", suit, card.get("value"))
        xs, ys = np.meshgrid(np.linspace(-1, 1, W, dtype=np.float32), np.linspace(-1, 1, H, dtype=np.float32))
        a = rng.uniform(0, np.pi)
        u = xs * np.cos(a) + ys * np.sin(a)
        grain = np.sin(u * rng.uniform(18, 30) + 1.5 * np.sin(u * 4 + rng.uniform(0, 6))) * 0.04
        img *= (1.0 + grain)[..., None]
    # Rounded rim: darker near the edge, a soft highlight toward the upper left.
    xs, ys = np.meshgrid(np.arange(W, dtype=np.float32) + 0.5 - cx, np.arange(H, dtype=np.float32) + 0.5 - cy)
    rr = np.sqrt(xs**2 + ys**2) / R
    rim = np.clip((rr - 0.82) / 0.18, 0, 1)
    img *= (1.0 - 0.28 * rim**1.5)[..., None]
    if d.token_template == "glossy-dome":
        hl = np.exp(-(((xs + 0.35 * R) ** 2 + (ys + 0.35 * R) ** 2) / (0.18 * R * R)))
        img += (hl * 0.35)[..., None]
    value = int(card["value"])
    if d.token_number_ink == "white":
        num_col = (0.96, 0.96, 0.96)
    elif d.token_number_ink == "black":
        num_col = (0.08, 0.08, 0.08)
    else:
        num_col = ink
    g = _glyph(str(value), d, 0.5 * H, 0.6 * W)
    _centre_paint(img, g, num_col, cx, cy)
    np.clip(img, 0, 1, out=img)
    return img, alpha


def _die(card: dict, d: Design, W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    r = d.die_corner * W
    alpha = draw.rounded_rect(H, W, 0, 0, W, H, r)
    img = draw.blank(H, W, d.die_body)
    sdf = draw.rounded_rect_sdf(H, W, 0, 0, W, H, r)
    edge = np.clip(1.0 + sdf / max(1.5, 0.16 * W), 0, 1)
    img *= (1.0 - 0.22 * edge**2)[..., None]
    value = card.get("value")
    if value == "star":
        if d.die_star_pip == "star":
            m = icons.star(int(0.72 * W), int(0.72 * H))
        else:
            m = icons.burst(int(0.7 * W), int(0.7 * H), 12, 0.55)
        _centre_paint(img, m, d.die_pip, W / 2, H / 2)
        return img, alpha
    pr = 0.085 * W
    for u, v in icons.pip_positions(int(value)):
        x, y = u * W, v * H
        draw.paint(img, draw.ellipse(H, W, x, y, pr * 1.12, pr * 1.12), _dark(d.die_body, 0.75), 0.6)
        draw.paint(img, draw.ellipse(H, W, x, y, pr, pr), d.die_pip)
    return img, alpha


def card_gloss(card: dict, d: Design) -> float:
    obj = object_of(card)
    return {"tile": d.tile_gloss, "token": d.token_gloss, "die": 0.4}.get(obj, d.gloss)


def index_regions(card: dict, d: Design) -> list[tuple[float, float, float, float]]:
    """Where the corner indices lie on the face, as (x0, y0, x1, y1) fractions of width and height.

    Empty when the design prints no index (then an overlapped card cannot be read)."""
    if object_of(card) != "card" or d.indices == "none" or card.get("kind") in (None,):
        return []
    iw = 0.085 + 0.5 * d.index_scale * (d.card_h / d.card_w)
    x0 = d.print_margin + 0.02
    y0 = d.print_margin + 0.025
    ih = d.index_scale * 1.35 + 0.03
    tl = (x0, y0, x0 + iw, y0 + ih)
    br = (1 - tl[2], 1 - tl[3], 1 - tl[0], 1 - tl[1])
    tr = (1 - tl[2], tl[1], 1 - tl[0], tl[3])
    bl = (tl[0], 1 - tl[3], tl[2], 1 - tl[1])
    if d.indices == "four":
        return [tl, br, tr, bl]
    if d.indices == "tl_tr":
        return [tl, tr]
    return [tl, br]


def centre_region(card: dict, d: Design) -> tuple[float, float, float, float]:
    """The central motif region (big numeral), as fractions of the face."""
    if object_of(card) != "card":
        return (0.2, 0.2, 0.8, 0.8)
    hh = d.numeral_scale * 0.5 + 0.02
    return (0.18, 0.5 - hh, 0.82, 0.5 + hh)

