"""Printed boards drawn from their layout files: the 11! board and the Numeri track.

A `BoardStyle` is one printing (colours, square style, typeface); styles come from named
templates split into the train and holdout pools like card designs. `board_image` returns
the board's top face at a given scale, in board-millimetre coordinates (x right, y down).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..layouts import BoardLayout, load_layout
from . import draw, icons
from .designs import suit_inks
from .draw import Colour
from .fonts import Typeface, check_pool, text_mask, typefaces

BOARD_TEMPLATES: dict[str, tuple[str, str]] = {  # name -> (game, pool)
    "sky": ("start11", "train"),
    "cream": ("start11", "train"),
    "dark": ("start11", "train"),
    "pastel": ("start11", "holdout"),
    "outline": ("start11", "holdout"),
    "meadow": ("numeri", "train"),
    "sand": ("numeri", "train"),
    "night": ("numeri", "holdout"),
    "paper": ("numeri", "holdout"),
}
# Drawn only when asked for (board_scenes --board), so the pools' random draws stay as they are.
# "facsimile": each square printed like a tile's face (its stock, ink and typeface), flat: only a
# real tile's edge and shadow tell it from the printing. "varied": any board colour, any square
# style (filled, tinted, outlined) with any numeral ink, tint and frame: printings as a family, so
# that a tile net does not learn the three train printings' looks by heart.
ON_REQUEST: dict[str, tuple[str, str]] = {"facsimile": ("start11", "train"), "varied": ("start11", "train")}


DARK_INK = (0.15, 0.15, 0.15)


@dataclass(frozen=True)
class BoardStyle:
    name: str
    game: str
    template: str
    seed: int
    typeface: Typeface
    background: Colour
    accent: Colour
    inks: tuple[tuple[str, Colour], ...]
    square_style: str  # filled|outlined|tinted
    number_ink: str  # white|row|dark
    corner: float  # square corner radius, fraction of side
    gloss: float
    edge: Colour
    folds: int  # creases across the board (panels - 1)
    stock: Colour | None = None  # facsimile: the printed tile faces' stock
    frame: str = "none"  # facsimile: none|ink|dark line round each square
    bevel: float = 0.0  # facsimile: printed rim shading, like a tile's bevel
    inner: Colour = (0.97, 0.97, 0.96)  # outlined: the square's inside
    line: float = 0.1  # outlined: the frame's width, a share of the square's side
    tint: float = 0.45  # tinted: the row ink's share in the square's fill

    def ink(self, name: str) -> Colour:
        return dict(self.inks)[name]


def board_templates(game: str, pool: str) -> list[str]:
    check_pool(pool)
    return [n for n, (g, p) in BOARD_TEMPLATES.items() if g == game and p == pool]


def random_board_style(rng: np.random.Generator, game: str, pool: str = "train",
                       template: str | None = None) -> BoardStyle:
    names = board_templates(game, pool)
    tpl = template if template is not None else str(rng.choice(names))
    known = BOARD_TEMPLATES | ON_REQUEST
    if tpl not in known or known[tpl] != (game, pool):
        raise ValueError(f"no board template {tpl!r} for {game!r} in the {pool} pool")
    faces = typefaces(pool)
    bold = [f for f in faces if f.bold and not f.italic] or faces
    face = bold[int(rng.integers(0, len(bold)))]
    u = rng.uniform
    inks = suit_inks(rng, str(rng.choice(["vivid", "muted", "deep"])))
    table = {
        "sky": (draw.hsv(u(195, 215), u(0.25, 0.45), u(0.85, 0.95)), draw.hsv(u(200, 220), u(0.5, 0.7),
                                                                               u(0.5, 0.7)), "filled", "white"),
        "cream": (draw.hsv(u(38, 48), u(0.1, 0.2), u(0.9, 0.96)), draw.hsv(u(20, 35), u(0.4, 0.6), u(0.5, 0.7)),
                  str(rng.choice(["filled", "tinted"])), str(rng.choice(["white", "row"]))),
        "dark": (draw.hsv(u(200, 240), u(0.3, 0.5), u(0.18, 0.3)), draw.hsv(u(40, 50), u(0.6, 0.8), u(0.8, 0.9)),
                 "filled", "white"),
        "pastel": (draw.hsv(u(0, 360), u(0.08, 0.18), u(0.9, 0.97)), draw.hsv(u(0, 360), u(0.3, 0.5),
                                                                              u(0.6, 0.8)), "tinted", "row"),
        "outline": (draw.hsv(u(30, 50), u(0.0, 0.06), u(0.93, 0.98)), draw.hsv(u(0, 360), u(0.1, 0.3),
                                                                                u(0.3, 0.5)), "outlined", "row"),
        "meadow": (draw.hsv(u(90, 130), u(0.35, 0.55), u(0.55, 0.72)), draw.hsv(u(35, 45), u(0.3, 0.5),
                                                                                u(0.75, 0.9)), "filled", "dark"),
        "sand": (draw.hsv(u(35, 45), u(0.25, 0.4), u(0.8, 0.9)), draw.hsv(u(20, 30), u(0.5, 0.7), u(0.45, 0.6)),
                 "filled", "dark"),
        "night": (draw.hsv(u(220, 260), u(0.4, 0.6), u(0.2, 0.32)), draw.hsv(u(180, 200), u(0.3, 0.5),
                                                                               u(0.6, 0.75)), "filled", "dark"),
        "paper": (draw.hsv(u(40, 50), u(0.05, 0.12), u(0.9, 0.96)), draw.hsv(u(0, 20), u(0.3, 0.5), u(0.4, 0.6)),
                  "outlined", "dark"),
    }
    looks = {"facsimile": _facsimile_look, "varied": _varied_look}
    bg, accent, sq_style, num_ink = table[tpl] if tpl in table else looks[tpl](rng)
    extra = {"facsimile": _facsimile, "varied": _varied}.get(tpl, lambda _: {})(rng)
    seed = int(rng.integers(0, 2**31))
    return BoardStyle(name=f"{tpl}/{face.name}#{seed % 100000}", game=game, template=tpl, seed=seed, typeface=face,
                      background=bg, accent=accent, inks=tuple(inks.items()), square_style=sq_style,
                      number_ink=num_ink, corner=float(u(0.05, 0.2)), gloss=float(u(0.15, 0.5)),
                      edge=draw.hsv(u(0, 360), u(0.0, 0.2), u(0.1, 0.3)),
                      folds=int(rng.choice([1, 2, 3]) if game == "start11" else rng.choice([2, 1])), **extra)


def _facsimile_look(rng: np.random.Generator) -> tuple[Colour, Colour, str, str]:
    """Board and accent colours of a facsimile printing: any board, light or dark."""
    u = rng.uniform
    bg = draw.hsv(u(0, 360), u(0.0, 0.5), float(rng.choice([u(0.15, 0.35), u(0.5, 0.75), u(0.85, 0.97)])))
    return bg, draw.hsv(u(0, 360), u(0.3, 0.7), u(0.4, 0.8)), "facsimile", "row"


def _varied_look(rng: np.random.Generator) -> tuple[Colour, Colour, str, str]:
    """A board of any colour, light, mid or dark, with squares filled, tinted or outlined and
    numerals white, in the row's ink or dark (on an outlined square's light inside, white is drawn
    in the row's ink)."""
    u = rng.uniform
    bg = draw.hsv(u(0, 360), u(0.0, 0.6), float(rng.choice([u(0.15, 0.35), u(0.45, 0.75), u(0.85, 0.98)])))
    return (bg, draw.hsv(u(0, 360), u(0.3, 0.7), u(0.4, 0.8)), str(rng.choice(["filled", "tinted", "outlined"])),
            str(rng.choice(["white", "row", "dark"])))


def _varied(rng: np.random.Generator) -> dict:
    u = rng.uniform
    return {"inner": draw.hsv(u(0, 360), u(0.0, 0.15), u(0.85, 0.99)), "line": float(u(0.05, 0.16)),
            "tint": float(u(0.25, 0.7))}


def _facsimile(rng: np.random.Generator) -> dict:
    """A tile-like stock (ivory, white, cream, wood or stone, as `designs._apply_tile` draws
    tiles), an optional line round each square, and an optional printed bevel."""
    u = rng.uniform
    stock = [draw.hsv(u(38, 50), u(0.06, 0.15), u(0.9, 0.97)), draw.hsv(u(30, 60), u(0.0, 0.04), u(0.94, 0.99)),
             draw.hsv(u(40, 48), u(0.12, 0.22), u(0.88, 0.95)), draw.hsv(u(30, 40), u(0.22, 0.38), u(0.8, 0.9)),
             draw.hsv(u(0, 360), u(0.0, 0.04), u(0.82, 0.9))][int(rng.integers(0, 5))]
    return {"stock": stock, "frame": str(rng.choice(["none", "ink", "dark"], p=[0.4, 0.4, 0.2])),
            "bevel": float(rng.choice([0.0, u(0.04, 0.12)]))}


def board_image(layout: BoardLayout, style: BoardStyle, px_per_mm: float) -> tuple[np.ndarray, np.ndarray]:
    """(bgr, alpha) float32 of the board's top face; pixel (i, j) ↔ board mm ((j+0.5)/s, (i+0.5)/s)."""
    return _board_cached(layout, style, round(float(px_per_mm), 3))


@lru_cache(maxsize=4)
def _board_cached(layout: BoardLayout, style: BoardStyle, s: float) -> tuple[np.ndarray, np.ndarray]:
    W, H = int(round(layout.width_mm * s)), int(round(layout.height_mm * s))
    img = draw.blank(H, W, style.background)
    rng = np.random.default_rng(style.seed)
    # Printed board: a faint mottled texture so the surface is not flat colour.
    from .table import fbm

    img *= (1.0 + fbm(rng, H, W, 60 * s, 3) * 0.04)[..., None]
    if layout.game == "start11":
        _start11(img, layout, style, s, rng)
    else:
        _numeri(img, layout, style, s, rng)
    # Folds: panels meet at creases; each panel catches the light a little differently.
    for k in range(1, style.folds + 1):
        x = W * k / (style.folds + 1)
        img[:, : int(x)] *= np.float32(1.0 - 0.015 * ((k % 2) * 2 - 1))
        draw.paint_rrect(img, x - 0.6 * s, -5, x + 0.6 * s, H + 5, 0.1, draw.scale_colour(style.background, 0.55),
                         0.55)
        draw.paint_rrect(img, x + 0.6 * s, -5, x + 1.4 * s, H + 5, 0.1, (1.0, 1.0, 1.0), 0.18)
    # Cardboard edge all round.
    alpha = draw.rounded_rect(H, W, 0, 0, W, H, 1.5 * s)
    inner = draw.rounded_rect(H, W, 1.2 * s, 1.2 * s, W - 1.2 * s, H - 1.2 * s, 0.8 * s)
    draw.paint(img, np.clip(alpha - inner, 0, 1), style.edge, 0.9)
    np.clip(img, 0, 1, out=img)
    img.setflags(write=False)
    alpha.setflags(write=False)
    return img, alpha


def _text(img, text, face, height_px, colour, cx, cy, max_w=None):
    m = text_mask(text, face, height_px)
    if max_w is not None and m.shape[1] > max_w:
        m = draw.fit_mask(m, max_w, m.shape[0])
    draw.paint_at(img, m, colour, cx - m.shape[1] / 2.0, cy - m.shape[0] / 2.0)


def _start11(img, layout: BoardLayout, st: BoardStyle, s: float, rng) -> None:
    sq = layout.square_mm * s
    half = sq / 2
    by_id = {q.id: q for q in layout.squares}
    ys = sorted({q.y for q in layout.squares})
    # Title
    title_y = (ys[0] - layout.square_mm) / 2 * s
    _text(img, "11!", st.typeface, 1.1 * title_y, st.accent, img.shape[1] / 2, title_y)
    # Link columns 1, 11, 20: a lighter band across all rows.
    band = draw.mix(st.background, (1.0, 1.0, 1.0), 0.45) if st.template != "dark" else draw.scale_colour(
        st.background, 1.5)
    for n in layout.link_columns:
        xs = [q.x for q in layout.squares if q.number == n]
        x = float(np.mean(xs)) * s
        draw.paint_rrect(img, x - half - 3 * s, ys[0] * s - half - 5 * s, x + half + 3 * s, ys[-1] * s + half + 5 * s,
                         3 * s, band, 0.8)
    # Rows: a thin band under each row in its colour.
    for row in layout.rows:
        qs = [q for q in layout.squares if q.row == row]
        x0, x1 = min(q.x for q in qs) * s, max(q.x for q in qs) * s
        y = qs[0].y * s
        draw.paint_rrect(img, x0, y - 0.18 * sq, x1, y + 0.18 * sq, 0.1 * sq, st.ink(row), 0.35)
    # Bridges between rows, some with a bonus symbol.
    for b in layout.bridges:
        a, c = by_id[f"{b.rows[0]}-{b.number}"], by_id[f"{b.rows[1]}-{b.number}"]
        x = a.x * s
        y0, y1 = min(a.y, c.y) * s, max(a.y, c.y) * s
        col = draw.mix(st.ink(b.rows[0]), st.ink(b.rows[1]), 0.5)
        draw.paint_rrect(img, x - 0.3 * sq, y0, x + 0.3 * sq, y1, 0.05 * sq, draw.mix(col, st.background, 0.35))
        if b.bonus:
            ym = (y0 + y1) / 2
            draw.paint_ellipse(img, x, ym, 0.55 * sq, 0.55 * sq, (0.96, 0.96, 0.96))
            star = icons.star(int(0.8 * sq), int(0.8 * sq))
            draw.paint_at(img, star, st.accent, x - star.shape[1] / 2, ym - star.shape[0] / 2)
    # Squares
    grey = draw.hsv(0, 0.0, 0.55)
    for q in layout.squares:
        cx, cy = q.x * s, q.y * s
        x0, y0, x1, y1 = cx - half, cy - half, cx + half, cy + half
        r = st.corner * sq
        if q.kind == "symbol":
            draw.paint_rrect(img, x0, y0, x1, y1, r, (0.95, 0.95, 0.94))
            draw.paint_rrect(img, x0, y0, x1, y1, r, draw.scale_colour(st.ink(q.row), 1.0), 0.25)
            m = icons.symbol(q.symbol or "circle", int(0.8 * sq), filled=False, line=0.12)
            draw.paint_at(img, m, draw.hsv(0, 0, 0.25), cx - m.shape[1] / 2, cy - m.shape[0] / 2)
            continue
        ink = grey if q.kind == "joker" else st.ink(q.row)
        if st.square_style == "filled":
            draw.paint_rrect(img, x0, y0, x1, y1, r, ink)
            num_col = (0.95, 0.95, 0.95) if st.number_ink == "white" else draw.scale_colour(ink, 0.55)
        elif st.square_style == "tinted":
            draw.paint_rrect(img, x0, y0, x1, y1, r, draw.mix((1.0, 1.0, 1.0), ink, st.tint))
            num_col = {"row": draw.scale_colour(ink, 0.8), "dark": DARK_INK}.get(st.number_ink, (0.97, 0.97, 0.97))
        elif st.square_style == "facsimile":
            _tile_print(img, st, x0, y0, x1, y1, r, ink)
            num_col = ink
        else:  # outlined
            draw.paint_rrect(img, x0, y0, x1, y1, r, ink)
            t = max(1.5, st.line * sq)
            draw.paint_rrect(img, x0 + t, y0 + t, x1 - t, y1 - t, max(0.5, r - t), st.inner)
            num_col = DARK_INK if st.number_ink == "dark" else ink
        _text(img, str(q.number), st.typeface, 0.42 * sq, num_col, cx, cy, max_w=0.78 * sq)


def _tile_print(img, st: BoardStyle, x0: float, y0: float, x1: float, y1: float, r: float, ink: Colour) -> None:
    """A square printed like a tile's face: its stock, a line round it, a flat bevel's shading."""
    stock = st.stock or (0.95, 0.94, 0.9)
    if st.frame != "none":
        line = ink if st.frame == "ink" else draw.hsv(0, 0, 0.25)
        draw.paint_rrect(img, x0, y0, x1, y1, r, line)
        t = max(1.0, 0.06 * (x1 - x0))
        x0, y0, x1, y1, r = x0 + t, y0 + t, x1 - t, y1 - t, max(0.5, r - t)
    draw.paint_rrect(img, x0, y0, x1, y1, r, stock)
    if st.bevel > 0:  # lit upper-left rim, shaded lower-right, as drawn on a tile
        w = max(1.0, 0.07 * (x1 - x0))
        draw.paint_rrect(img, x0, y0, x1, y0 + w, r, (1.0, 1.0, 1.0), st.bevel * 2)
        draw.paint_rrect(img, x0, y1 - w, x1, y1, r, draw.scale_colour(stock, 0.6), st.bevel * 3)


def _numeri(img, layout: BoardLayout, st: BoardStyle, s: float, rng) -> None:
    sq = layout.square_mm * s
    half = sq / 2
    qs = list(layout.squares)
    # Decorative blobs (ponds, bushes) behind the track.
    H, W = img.shape[:2]
    for _ in range(int(rng.integers(4, 9))):
        pts = draw.blob_points(rng, rng.uniform(0, W), rng.uniform(0, H), rng.uniform(0.05, 0.12) * W, 0.3)
        col = draw.mix(st.background, st.accent, float(rng.uniform(0.2, 0.5)))
        draw.paint_polygon(img, pts, col, 0.6)
    top = (min(q.y for q in qs) - layout.square_mm / 2) * s
    _text(img, "NUMERI", st.typeface, 0.55 * top, st.accent, W * 0.5, top * 0.5)
    # The path joining consecutive squares.
    path_col = draw.mix(st.accent, (1.0, 1.0, 1.0), 0.3)
    for a, b in zip(qs, qs[1:], strict=False):
        pts = np.array([[a.x, a.y], [b.x, b.y]]) * s
        x0, y0 = np.maximum(pts.min(axis=0) - sq, 0).astype(int)
        x1, y1 = np.minimum(pts.max(axis=0) + sq, [W, H]).astype(int)
        m = draw.polyline(y1 - y0, x1 - x0, pts - [x0, y0], 0.5 * sq)
        draw.paint(img[y0:y1, x0:x1], m, path_col, 0.9)
    red = draw.hsv(rng.uniform(-5, 5), 0.75, 0.75)
    dark_red = draw.hsv(rng.uniform(-5, 5), 0.8, 0.4)
    yellow = draw.hsv(rng.uniform(44, 52), 0.8, 0.95)
    cream = draw.hsv(42, 0.08, 0.96)
    for q in qs:
        cx, cy = q.x * s, q.y * s
        r = st.corner * sq
        fill = {"start": dark_red, "negative": red, "end": yellow}.get(q.kind, cream)
        draw.paint_rrect(img, cx - half - 0.06 * sq, cy - half - 0.06 * sq, cx + half + 0.06 * sq,
                         cy + half + 0.06 * sq, r + 0.06 * sq, draw.scale_colour(st.accent, 0.5))
        draw.paint_rrect(img, cx - half, cy - half, cx + half, cy + half, r, fill)
        if q.kind == "blank":
            continue
        if q.kind == "start":
            label, col = str(q.value), (0.95, 0.95, 0.95)
        elif q.kind == "negative":
            label, col = str(q.value), (0.97, 0.97, 0.97)
        else:
            label, col = str(q.value), (0.1, 0.1, 0.1)
        _text(img, label, st.typeface, 0.4 * sq, col, cx, cy, max_w=0.8 * sq)
    # Barriers: a bar across the track between squares b and b+1, labelled with the player count.
    for players, b in sorted(layout.barriers.items()):
        a, c = qs[b], qs[b + 1]
        mx, my = (a.x + c.x) / 2 * s, (a.y + c.y) / 2 * s
        dx, dy = (c.x - a.x), (c.y - a.y)
        n = float(np.hypot(dx, dy)) or 1.0
        px, py = -dy / n, dx / n
        L = 0.75 * sq
        pts = [(mx + px * L - dx / n * 2 * s, my + py * L - dy / n * 2 * s),
               (mx + px * L + dx / n * 2 * s, my + py * L + dy / n * 2 * s),
               (mx - px * L + dx / n * 2 * s, my - py * L + dy / n * 2 * s),
               (mx - px * L - dx / n * 2 * s, my - py * L - dy / n * 2 * s)]
        draw.paint_polygon(img, pts, (0.12, 0.12, 0.12))
        lx, ly = mx + px * (L + 0.25 * sq), my + py * (L + 0.25 * sq)
        draw.paint_ellipse(img, lx, ly, 0.22 * sq, 0.22 * sq, (0.12, 0.12, 0.12))
        _text(img, str(players), st.typeface, 0.25 * sq, (0.95, 0.95, 0.95), lx, ly)


def layout_for(game: str) -> BoardLayout | None:
    return load_layout(game) if game in ("start11", "numeri") else None
