"""Print designs of cards, tiles, tokens and dice, drawn at random from named templates.

A `Design` is everything a printer decided: card stock, ink of each suit, typeface, frame,
background, corner indices, marks under 6/9, tile plastic, token discs, die. Templates are
named styles; each belongs to one pool ("train" or "holdout", fixed below) so accuracy can
be measured on styles never used in training. Within a template every parameter varies.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace

import numpy as np

from . import draw
from .draw import Colour
from .fonts import Typeface, check_pool, typefaces

SUITS = ("yellow", "red", "blue", "green")

# Template name -> pool. Fixed (not hashed) so both pools always hold several styles.
CARD_TEMPLATES: dict[str, str] = {
    "classic": "train",
    "solid-oval": "train",
    "tinted": "train",
    "minimal": "train",
    "banded": "train",
    "kids": "train",
    "retro": "train",
    "pattern": "train",
    "thick-frame": "train",
    "collage": "train",  # random ink shapes (bands, corners, rules): variety, not any one printing
    "corner-blocks": "holdout",
    "gradient-shadow": "holdout",
    "edge-stripe": "holdout",
    "hollow": "holdout",
    "diagonal": "holdout",
}
TILE_TEMPLATES: dict[str, str] = {
    "ivory-plastic": "train",
    "white-card": "train",
    "cream-bevel": "train",
    "wood-tile": "holdout",
    "grey-stone": "holdout",
}
TOKEN_TEMPLATES: dict[str, str] = {
    "wood-disc": "train",
    "plastic-disc": "train",
    "white-ring": "train",
    "printed-chip": "holdout",
    "glossy-dome": "holdout",
}
DIE_TEMPLATES: dict[str, str] = {
    "white-black": "train",
    "wood": "train",
    "red-white": "train",
    "black-white": "holdout",
    "ivory-rounded": "holdout",
}


def templates(kind: str, pool: str) -> list[str]:
    table = {"card": CARD_TEMPLATES, "tile": TILE_TEMPLATES, "token": TOKEN_TEMPLATES, "die": DIE_TEMPLATES}
    check_pool(pool)
    if kind not in table:
        raise ValueError(f"unknown design kind {kind!r}; expected one of {sorted(table)}")
    return [name for name, p in table[kind].items() if p == pool]


@dataclass(frozen=True)
class Design:
    """One printing of a game's components. Colours are BGR in 0..1."""

    name: str
    pool: str
    template: str
    seed: int
    typeface: Typeface
    index_typeface: Typeface
    stock: Colour
    inks: tuple[tuple[str, Colour], ...]
    # Card geometry (mm)
    card_w: float = 59.0
    card_h: float = 91.0
    corner_mm: float = 3.5
    # Card face
    # plain|tint|solid|gradient|pattern|blobs|bands|diagonal|corner_blocks|edge_stripe|collage
    background: str = "plain"
    bg_strength: float = 0.2
    pattern: str = "dots"  # dots|stripes|diamonds|waves|grid
    frame: str = "none"  # none|line|double|thick
    frame_width: float = 0.03  # fraction of card width
    frame_ink: str = "suit"  # suit|black|gray
    print_margin: float = 0.0  # white margin around the print (fraction of width)
    numeral_scale: float = 0.42  # central numeral height / card height
    numeral_style: str = "fill"  # fill|outline_dark|outline_white|shadow|hollow|badge|inverse
    numeral_weight: float = 0.05  # outline width, fraction of numeral height
    indices: str = "tl_br"  # none|tl_br|four|tl_tr
    index_scale: float = 0.12  # index height / card height
    index_style: str = "plain"  # plain|circle|box
    index_on_colour: bool = False  # index printed white on a coloured band/block
    index_numbers: bool = True  # False: indices without their numbers (training labels: where they lie)
    ambiguity_mark: str = "underline"  # none|underline|dot
    gloss: float = 0.3
    edge_shade: float = 0.18  # darkening of the cut edge
    # 11 nimmt!
    nimmt_number_ink: str = "black"  # black|heads|dark
    nimmt_bg_by_heads: bool = True
    nimmt_watermark: float = 0.12  # opacity of the big central bull behind the number
    nimmt_head_icon: str = "silhouette"  # silhouette|outline
    bull_variant: int = 0
    # Jokers, links, bonus
    joker_style: str = "jester"  # jester|letter|star
    link_ink: str = "black"  # black|multi|gray
    bonus_style: str = "burst"  # burst|star|plain
    # Backs (face-down draw piles)
    back_colour: Colour = (0.55, 0.25, 0.15)
    back_pattern: str = "diamonds"
    # Tiles (11!)
    tile_template: str = "ivory-plastic"
    tile_mm: float = 21.0
    tile_thick_mm: float = 3.5
    tile_colour: Colour = (0.90, 0.95, 0.96)
    tile_side: Colour = (0.70, 0.76, 0.78)
    tile_corner: float = 0.12  # fraction of side
    tile_number_scale: float = 0.56
    tile_symbol_filled: bool = True
    tile_gloss: float = 0.35
    tile_texture: str = "none"  # none|grain|mottle: the stock's surface (the wood-tile template: grain)
    # Tokens (Numeri)
    token_template: str = "wood-disc"
    token_mm: float = 24.0
    token_thick_mm: float = 5.0
    token_number_ink: str = "white"  # white|black|suit
    token_face: str = "suit"  # suit|white (with coloured ring)
    token_gloss: float = 0.2
    # Dice
    die_template: str = "white-black"
    die_mm: float = 16.0
    die_body: Colour = (0.95, 0.95, 0.95)
    die_pip: Colour = (0.1, 0.1, 0.1)
    die_corner: float = 0.18
    die_star_pip: str = "star"  # star|sun
    extra: dict = field(default_factory=dict, compare=False, hash=False)

    def ink(self, name: str | None) -> Colour:
        for n, c in self.inks:
            if n == name:
                return c
        return dict(self.inks)["black"]

    def with_typeface(self, face: Typeface) -> Design:
        name = f"{self.template}/{face.name}#{_seed_name(self.seed)}"
        return replace(self, typeface=face, index_typeface=face, name=name)


# ----------------------------------------------------------------------------------------
# Colours


def suit_inks(rng: np.random.Generator, style: str) -> dict[str, Colour]:
    """Printed inks for the four suits, grey and black. Never pure RGB."""
    vivid = {"vivid": 1.0, "muted": 0.82, "deep": 0.95}[style]
    dark = {"vivid": 1.0, "muted": 0.92, "deep": 0.8}[style]
    yk = rng.random()
    if yk < 0.5:
        yellow = draw.hsv(rng.uniform(44, 52), rng.uniform(0.78, 0.95) * vivid, rng.uniform(0.9, 0.99))
    elif yk < 0.8:
        yellow = draw.hsv(rng.uniform(36, 44), rng.uniform(0.8, 0.95) * vivid, rng.uniform(0.9, 0.98))
    else:  # older decks print this suit orange
        yellow = draw.hsv(rng.uniform(24, 33), rng.uniform(0.8, 0.95) * vivid, rng.uniform(0.88, 0.98))
    red = draw.hsv(rng.uniform(-10, 6), rng.uniform(0.75, 0.93) * vivid, rng.uniform(0.72, 0.9) * dark)
    blue = draw.hsv(rng.uniform(198, 232), rng.uniform(0.65, 0.95) * vivid, rng.uniform(0.5, 0.8) * dark)
    green = draw.hsv(rng.uniform(100, 152), rng.uniform(0.55, 0.9) * vivid, rng.uniform(0.42, 0.7) * dark)
    gray = draw.hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.06), rng.uniform(0.42, 0.6))
    black = draw.hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.25), rng.uniform(0.06, 0.18))
    return {"yellow": yellow, "red": red, "blue": blue, "green": green, "gray": gray, "black": black}


def stock_colour(rng: np.random.Generator) -> Colour:
    k = rng.random()
    if k < 0.45:  # bright white
        v = rng.uniform(0.95, 0.99)
        return draw.hsv(rng.uniform(30, 60), rng.uniform(0.0, 0.03), v)
    if k < 0.8:  # off-white
        return draw.hsv(rng.uniform(35, 55), rng.uniform(0.03, 0.08), rng.uniform(0.93, 0.98))
    if k < 0.93:  # cream
        return draw.hsv(rng.uniform(38, 50), rng.uniform(0.08, 0.16), rng.uniform(0.92, 0.97))
    return draw.hsv(rng.uniform(190, 220), rng.uniform(0.02, 0.05), rng.uniform(0.93, 0.98))  # cool white


# ----------------------------------------------------------------------------------------
# Random designs


def _seed_name(seed: int) -> str:
    return hashlib.sha1(str(seed).encode()).hexdigest()[:6]


def random_design(rng: np.random.Generator, pool: str = "train", template: str | None = None,
                  typeface: Typeface | None = None) -> Design:
    """A random printing of all components, from templates and typefaces of `pool`."""
    check_pool(pool)
    names = templates("card", pool)
    tpl = template if template is not None else str(rng.choice(names))
    if tpl not in CARD_TEMPLATES:
        raise ValueError(f"unknown card template {tpl!r}; expected one of {sorted(CARD_TEMPLATES)}")
    faces = typefaces(pool)
    face = typeface if typeface is not None else _pick_face(rng, faces)
    index_face = face if rng.random() < 0.75 else _pick_face(rng, faces)
    seed = int(rng.integers(0, 2**31))
    inks = suit_inks(rng, str(rng.choice(["vivid", "muted", "deep"], p=[0.5, 0.25, 0.25])))
    stock = stock_colour(rng)
    w = float(rng.uniform(56, 63))
    d = Design(
        name=f"{tpl}/{face.name}#{_seed_name(seed)}",
        pool=pool,
        template=tpl,
        seed=seed,
        typeface=face,
        index_typeface=index_face,
        stock=stock,
        inks=tuple(inks.items()),
        card_w=w,
        card_h=float(w * rng.uniform(1.40, 1.58)),
        corner_mm=float(rng.uniform(2.0, 5.0)),
        numeral_scale=float(rng.uniform(0.36, 0.52)),
        index_scale=float(rng.uniform(0.085, 0.14)),
        ambiguity_mark=str(rng.choice(["underline", "dot", "none"], p=[0.6, 0.2, 0.2])),
        gloss=float(rng.uniform(0.05, 0.6)),
        edge_shade=float(rng.uniform(0.08, 0.3)),
        nimmt_number_ink=str(rng.choice(["black", "heads", "dark"], p=[0.4, 0.4, 0.2])),
        nimmt_bg_by_heads=bool(rng.random() < 0.6),
        nimmt_watermark=float(rng.uniform(0.0, 0.25)),
        nimmt_head_icon=str(rng.choice(["silhouette", "outline"], p=[0.75, 0.25])),
        bull_variant=int(rng.integers(0, 9)),
        joker_style=str(rng.choice(["jester", "letter", "star"])),
        link_ink=str(rng.choice(["black", "multi", "gray"])),
        bonus_style=str(rng.choice(["burst", "star", "plain"])),
        back_colour=draw.hsv(rng.uniform(0, 360), rng.uniform(0.4, 0.9), rng.uniform(0.25, 0.6)),
        back_pattern=str(rng.choice(["diamonds", "stripes", "dots", "logo"])),
        print_margin=float(rng.choice([0.0, rng.uniform(0.03, 0.07)], p=[0.6, 0.4])),
    )
    d = _apply_card_template(d, rng)
    d = _apply_tile(d, rng, pool)
    d = _apply_token(d, rng, pool)
    return _apply_die(d, rng, pool)


def _pick_face(rng: np.random.Generator, faces: list[Typeface]) -> Typeface:
    # Real decks favour bold, upright numerals; keep the rest for variety.
    weights = np.array([(2.5 if f.bold else 1.0) * (0.25 if f.italic else 1.0) for f in faces], float)
    return faces[int(rng.choice(len(faces), p=weights / weights.sum()))]


def _apply_card_template(d: Design, rng: np.random.Generator) -> Design:
    r = rng.random
    t = d.template
    ch = {}
    if t == "classic":
        ch = {"background": "plain", "frame": str(rng.choice(["line", "double", "none"])), "frame_ink": "suit",
                  "numeral_style": str(rng.choice(["fill", "outline_dark"])), "indices": "tl_br"}
    elif t == "solid-oval":
        ch = {"background": "solid", "numeral_style": str(rng.choice(["outline_dark", "fill", "shadow"])),
                  "indices": str(rng.choice(["tl_br", "four"])), "index_on_colour": True, "frame": "none",
                  "numeral_scale": float(rng.uniform(0.34, 0.44))}
    elif t == "tinted":
        ch = {"background": "tint", "bg_strength": float(rng.uniform(0.12, 0.35)),
                  "numeral_style": str(rng.choice(["outline_dark", "outline_white", "fill"])),
                  "indices": str(rng.choice(["four", "tl_br"])), "frame": str(rng.choice(["none", "line"]))}
    elif t == "minimal":
        ch = {"background": "plain", "frame": "none", "numeral_style": "fill",
                  "indices": str(rng.choice(["none", "tl_br"], p=[0.6, 0.4])),
                  "numeral_scale": float(rng.uniform(0.45, 0.6))}
    elif t == "banded":
        ch = {"background": "bands", "bg_strength": float(rng.uniform(0.13, 0.2)), "index_on_colour": True,
                  "indices": str(rng.choice(["tl_br", "four"])), "numeral_style": str(rng.choice(["fill", "shadow"])),
                  "numeral_scale": float(rng.uniform(0.32, 0.4))}
    elif t == "kids":
        ch = {"background": "blobs", "bg_strength": float(rng.uniform(0.35, 0.7)),
                  "numeral_style": str(rng.choice(["outline_white", "outline_dark"])), "numeral_weight": 0.09,
                  "indices": str(rng.choice(["tl_br", "four"])), "index_style": "circle",
                  "frame": str(rng.choice(["thick", "line"])), "frame_width": float(rng.uniform(0.025, 0.05))}
    elif t == "retro":
        ch = {"background": str(rng.choice(["plain", "pattern"])), "pattern": "diamonds",
                  "bg_strength": float(rng.uniform(0.06, 0.12)), "frame": "double", "frame_ink": "black",
                  "numeral_style": "fill", "indices": "tl_br", "ambiguity_mark": "dot"}
    elif t == "pattern":
        ch = {"background": "pattern", "pattern": str(rng.choice(["dots", "stripes", "waves", "grid"])),
                  "bg_strength": float(rng.uniform(0.15, 0.35)), "numeral_style": "badge",
                  "indices": str(rng.choice(["tl_br", "four", "none"]))}
    elif t == "thick-frame":
        ch = {"background": str(rng.choice(["plain", "tint"])), "bg_strength": 0.1, "frame": "thick",
                  "frame_width": float(rng.uniform(0.07, 0.12)), "index_on_colour": True, "indices": "tl_br",
                  "numeral_style": str(rng.choice(["fill", "outline_dark"]))}
    elif t == "collage":
        ch = {"background": "collage", "index_on_colour": True, "indices": str(rng.choice(["tl_br", "four"])),
              "numeral_style": str(rng.choice(["fill", "outline_dark", "shadow"])),
              "frame": str(rng.choice(["none", "line"], p=[0.7, 0.3]))}
    elif t == "corner-blocks":
        ch = {"background": "corner_blocks", "index_on_colour": True, "indices": "four",
                  "numeral_style": str(rng.choice(["fill", "shadow"])), "bg_strength": float(rng.uniform(0.2, 0.3))}
    elif t == "gradient-shadow":
        ch = {"background": "gradient", "bg_strength": float(rng.uniform(0.2, 0.45)), "numeral_style": "shadow",
                  "indices": str(rng.choice(["tl_br", "four"])), "index_style": str(rng.choice(["plain", "box"]))}
    elif t == "edge-stripe":
        ch = {"background": "edge_stripe", "bg_strength": float(rng.uniform(0.16, 0.22)), "index_on_colour": True,
                  "indices": "tl_br", "numeral_style": str(rng.choice(["fill", "outline_dark"]))}
    elif t == "hollow":
        ch = {"background": str(rng.choice(["plain", "tint"])), "bg_strength": 0.12, "numeral_style": "hollow",
                  "numeral_weight": float(rng.uniform(0.06, 0.1)), "indices": str(rng.choice(["tl_br", "four"])),
                  "frame": str(rng.choice(["line", "none"]))}
    elif t == "diagonal":
        ch = {"background": "diagonal", "bg_strength": float(rng.uniform(0.2, 0.5)),
                  "numeral_style": str(rng.choice(["outline_white", "inverse"])),
                  "indices": str(rng.choice(["tl_br", "four"])), "numeral_weight": 0.07}
    if r() < 0.1 and ch.get("indices") != "none":
        ch["index_style"] = str(rng.choice(["circle", "box"]))
    return replace(d, **ch)


# Drawn only when asked for (vision_accuracy.py --cards, scenes --cards), so the pools' random draws
# stay as they are. Cards as families, for measuring and training on them:
# "any-stock": a design's card stock of any light colour (white to grey, cream to tan, a faint tint of
#   any hue) and suit inks anywhere a printer might put them (near-pure primaries included), with any
#   numeral and index size;
# "mixed": any-stock, and the train templates' elements (background, frame, numeral and index
#   styles) combined independently, where each template fixes one combination. The held-out
#   templates' own elements (corner blocks, gradient, edge stripe, diagonal; hollow and inverse
#   numerals) stay out, and so do indices in the two top corners only (the recogniser reads
#   indices at diagonal corners, as nearly every deck prints them).
CARD_ON_REQUEST = ("any-stock", "mixed")


def any_stock_card(d: Design, rng: np.random.Generator) -> Design:
    u = rng.uniform
    hue = float(rng.choice([u(25, 60), u(0, 360)]))
    stock = draw.hsv(hue, u(0.0, 0.22 if 25 <= hue <= 60 else 0.08), u(0.80, 0.99))
    inks = dict(d.inks)
    inks.update(yellow=draw.hsv(u(24, 62), u(0.6, 1.0), u(0.82, 1.0)),
                red=draw.hsv(u(-15, 12), u(0.6, 1.0), u(0.6, 0.95)),
                blue=draw.hsv(u(195, 250), u(0.55, 1.0), u(0.4, 0.9)),
                green=draw.hsv(u(90, 165), u(0.5, 1.0), u(0.38, 0.8)))
    return replace(d, stock=stock, inks=tuple(inks.items()),
                   numeral_scale=float(u(0.30, 0.58)), index_scale=float(u(0.08, 0.16)))


def mixed_card(d: Design, rng: np.random.Generator) -> Design:
    u, pick = rng.uniform, (lambda *xs: str(rng.choice(xs)))
    d = any_stock_card(d, rng)
    background = pick("plain", "plain", "tint", "solid", "pattern", "blobs", "bands", "collage")
    strength = {"blobs": u(0.3, 0.7), "bands": u(0.12, 0.22), "solid": 0.2}.get(background, u(0.06, 0.35))
    frame = pick("none", "none", "line", "double", "thick")
    indices = str(rng.choice(["tl_br", "four", "none"], p=[0.55, 0.35, 0.1]))
    return replace(d, template="mixed", name=f"mixed/{d.typeface.name}#{_seed_name(d.seed)}",
                   background=background, bg_strength=float(strength),
                   pattern=pick("dots", "stripes", "diamonds", "waves", "grid"), frame=frame,
                   frame_width=float(u(0.07, 0.12) if frame == "thick" else u(0.02, 0.05)),
                   frame_ink=pick("suit", "suit", "black", "gray"),
                   print_margin=float(rng.choice([0.0, u(0.03, 0.07)], p=[0.6, 0.4])),
                   numeral_style=pick("fill", "fill", "outline_dark", "outline_white", "shadow", "badge"),
                   numeral_weight=float(u(0.04, 0.1)), indices=indices,
                   index_style=str(rng.choice(["plain", "circle", "box"], p=[0.7, 0.15, 0.15])),
                   index_on_colour=True,  # else an index on a solid band, block or frame is ink on ink
                   ambiguity_mark=str(rng.choice(["underline", "dot", "none"], p=[0.6, 0.2, 0.2])))


def card_family(d: Design, rng: np.random.Generator, family: str) -> Design:
    """`d` with its cards drawn from `family`, one of `CARD_ON_REQUEST`."""
    if family not in CARD_ON_REQUEST:
        raise ValueError(f"no card family {family!r}; expected one of {CARD_ON_REQUEST}")
    return (mixed_card if family == "mixed" else any_stock_card)(d, rng)


# Drawn only when asked for (board_scenes --tiles), so the pools' random draws stay as they are.
# "any-stock": a tile of any light stock (white, cream to tan, grey, a faint tint of any hue; plain,
# grained or mottled; matte to glossy; sharp to round corners): materials as a family for training.
TILE_ON_REQUEST = ("any-stock",)


def any_stock_tile(d: Design, rng: np.random.Generator) -> Design:
    u = rng.uniform
    # warm stocks (paper, wood, bone) may be strongly tinted, others only faintly
    hue = float(rng.choice([u(20, 60), u(0, 360)]))
    col = draw.hsv(hue, u(0.0, 0.42 if 20 <= hue <= 60 else 0.12), u(0.7, 0.99))
    return replace(d, tile_template="any-stock", tile_colour=col, tile_side=draw.scale_colour(col, u(0.6, 0.8)),
                   tile_gloss=float(u(0.02, 0.6)), tile_corner=float(u(0.02, 0.25)), tile_mm=float(u(19, 23)),
                   tile_thick_mm=float(u(2.5, 5.0)), tile_number_scale=float(u(0.48, 0.62)),
                   tile_symbol_filled=bool(rng.random() < 0.6),
                   tile_texture=str(rng.choice(["none", "grain", "mottle"], p=[0.5, 0.25, 0.25])))


def tile_family(d: Design, rng: np.random.Generator, family: str) -> Design:
    """`d` with its tiles drawn from `family`, one of `TILE_ON_REQUEST`."""
    if family not in TILE_ON_REQUEST:
        raise ValueError(f"no tile family {family!r}; expected one of {TILE_ON_REQUEST}")
    return any_stock_tile(d, rng)


def _apply_tile(d: Design, rng: np.random.Generator, pool: str) -> Design:
    tpl = str(rng.choice(templates("tile", pool)))
    if tpl == "ivory-plastic":
        col = draw.hsv(rng.uniform(38, 50), rng.uniform(0.06, 0.15), rng.uniform(0.9, 0.97))
        side, gloss, corner = draw.scale_colour(col, 0.78), rng.uniform(0.3, 0.6), rng.uniform(0.1, 0.2)
    elif tpl == "white-card":
        col = draw.hsv(rng.uniform(30, 60), rng.uniform(0.0, 0.04), rng.uniform(0.94, 0.99))
        side, gloss, corner = draw.hsv(30, 0.05, 0.6), rng.uniform(0.05, 0.2), rng.uniform(0.04, 0.1)
    elif tpl == "cream-bevel":
        col = draw.hsv(rng.uniform(40, 48), rng.uniform(0.12, 0.22), rng.uniform(0.88, 0.95))
        side, gloss, corner = draw.scale_colour(col, 0.7), rng.uniform(0.2, 0.45), rng.uniform(0.15, 0.25)
    elif tpl == "wood-tile":
        col = draw.hsv(rng.uniform(30, 40), rng.uniform(0.22, 0.38), rng.uniform(0.8, 0.9))
        side, gloss, corner = draw.scale_colour(col, 0.7), rng.uniform(0.02, 0.1), rng.uniform(0.03, 0.08)
    else:  # grey-stone
        col = draw.hsv(rng.uniform(0, 360), rng.uniform(0.0, 0.04), rng.uniform(0.82, 0.9))
        side, gloss, corner = draw.scale_colour(col, 0.72), rng.uniform(0.1, 0.3), rng.uniform(0.1, 0.18)
    return replace(d, tile_template=tpl, tile_colour=col, tile_side=side, tile_gloss=float(gloss),
                   tile_corner=float(corner), tile_mm=float(rng.uniform(19, 23)),
                   tile_thick_mm=float(rng.uniform(2.5, 5.0)), tile_number_scale=float(rng.uniform(0.48, 0.62)),
                   tile_symbol_filled=bool(rng.random() < 0.6), tile_texture="grain" if tpl == "wood-tile" else "none")


def _apply_token(d: Design, rng: np.random.Generator, pool: str) -> Design:
    tpl = str(rng.choice(templates("token", pool)))
    face, ink, gloss = "suit", "white", 0.15
    if tpl == "wood-disc":
        ink, gloss = str(rng.choice(["white", "black"])), rng.uniform(0.02, 0.1)
    elif tpl == "plastic-disc":
        ink, gloss = "white", rng.uniform(0.3, 0.6)
    elif tpl == "white-ring":
        face, ink, gloss = "white", str(rng.choice(["suit", "black"])), rng.uniform(0.1, 0.4)
    elif tpl == "printed-chip":
        face, ink, gloss = "white", "suit", rng.uniform(0.2, 0.5)
    else:  # glossy-dome
        ink, gloss = "white", rng.uniform(0.5, 0.8)
    return replace(d, token_template=tpl, token_face=face, token_number_ink=ink, token_gloss=float(gloss),
                   token_mm=float(rng.uniform(20, 28)), token_thick_mm=float(rng.uniform(3, 7)))


def _apply_die(d: Design, rng: np.random.Generator, pool: str) -> Design:
    tpl = str(rng.choice(templates("die", pool)))
    body = {
        "white-black": draw.hsv(40, rng.uniform(0.0, 0.05), rng.uniform(0.92, 0.98)),
        "wood": draw.hsv(rng.uniform(28, 38), rng.uniform(0.3, 0.45), rng.uniform(0.7, 0.85)),
        "red-white": draw.hsv(rng.uniform(-6, 4), rng.uniform(0.75, 0.9), rng.uniform(0.65, 0.85)),
        "black-white": draw.hsv(0, 0.0, rng.uniform(0.08, 0.16)),
        "ivory-rounded": draw.hsv(42, rng.uniform(0.1, 0.18), rng.uniform(0.88, 0.95)),
    }[tpl]
    pip = (0.95, 0.95, 0.95) if tpl in ("red-white", "black-white") else draw.hsv(0, 0.0, rng.uniform(0.05, 0.15))
    corner = rng.uniform(0.25, 0.35) if tpl == "ivory-rounded" else rng.uniform(0.1, 0.22)
    return replace(d, die_template=tpl, die_body=body, die_pip=pip, die_corner=float(corner),
                   die_mm=float(rng.uniform(14, 18)), die_star_pip=str(rng.choice(["star", "sun"])))


def all_designs(pool: str, count: int = 24, seed: int = 0) -> list[Design]:
    """A reproducible list of `count` designs of one pool (for browsing and crop datasets)."""
    rng = np.random.default_rng(seed)
    return [random_design(rng, pool) for _ in range(count)]
