"""Scenes: what lies where on the table, in which printing, light and camera; rendering one
scene to an image with exact ground truth.

A `Scene` is plain data (table millimetres, degrees, named styles) so it can be changed and
rendered again (sequences). `render(scene)` returns (image_bgr, truth); the truth JSON uses
the `companion recognize` fields (DESIGN.md 4) plus visibility extras. All randomness comes
from seeds stored in the scene and its items: the same scene gives the same image.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from ..layouts import BoardLayout, load_layout
from . import faces, hands
from .boards import BoardStyle, board_image
from .camera import Camera, CameraSpec
from .compose import Canvas, Placed, rect_mm
from .designs import Design
from .distractors import prop
from .optics import LightSpec, develop, glare_field, illumination, light_cast, mul_plane
from .table import TableSpec, table_texture

GAMES = ("start11", "elevens", "elfer-raus-junior", "elfer-raus", "11-nimmt", "numeri")
DEFAULT_SIZE = (1640, 1232)  # Pi Camera v2, 2×2 binned full field of view
BOARD_THICK_MM = 2.0
CARD_THICK_MM = 0.32


@dataclass
class Item:
    """One physical object on the table (or held above it)."""

    obj: str  # card|tile|token|die|back|prop
    card: dict  # card/tile: kind, value, color (+heads); token: value, color; die: value; prop: name
    x: float  # centre, table mm
    y: float
    angle: float = 0.0  # clockwise degrees; 0 = upright as seen in the image
    z: float = 0.0  # height of its underside above the table (piles, board, held)
    layer: float = 0.0  # draw order: higher on top (ties keep list order)
    seed: int = 0
    square: str | int | None = None
    group: str | None = None  # "row:red", "pile:0", "loose", "board", "draw", ...
    tag: str | None = None  # free label used by sequences to find an item again


@dataclass(frozen=True)
class BoardPlacement:
    game: str  # which layout
    style: BoardStyle
    x: float  # centre of the board, table mm
    y: float
    angle: float = 0.0


@dataclass
class Scene:
    game: str
    size: tuple[int, int]
    seed: int
    pool: str
    design: Design
    table: TableSpec
    light: LightSpec
    camera: CameraSpec
    items: list[Item] = field(default_factory=list)
    board: BoardPlacement | None = None
    hand: hands.HandSpec | None = None
    meta: dict = field(default_factory=dict)  # rows, piles... as laid out (see truth "layout")
    heads: dict[int, int] | None = None  # 11 nimmt! head counts, when not the RULES.md table

    def copy(self) -> Scene:
        return replace(self, items=[replace(i, card=dict(i.card)) for i in self.items], meta=dict(self.meta))


# ----------------------------------------------------------------------------------------
# Static part of a render (everything but the hand and the sensor noise)


@dataclass
class Static:
    image: np.ndarray  # uint8 BGR, developed, before the hand, noise and JPEG
    cam: Camera
    truth: dict  # without hand information
    illum_cast: np.ndarray  # BGR gain of the light (for layers added later)
    illum: np.ndarray  # canvas light level (H×W); its colour is illum_cast
    exposure: float = 1.0  # auto-exposure gain the camera applied
    ids: np.ndarray | None = None  # canvas: item index + 1 of the top surface at each pixel (0: table/board)
    where: dict = field(default_factory=dict)  # item index -> (truth list, position in it)

    def id_image(self) -> np.ndarray:
        """Item index + 1 showing at each image pixel (0 = table or board), through the same camera."""
        if self.ids is None:
            raise ValueError("this Static was made without its id buffer")
        src = self.ids.astype(np.float32)
        maps = self.cam.canvas_maps()
        if maps is None:
            out = cv2.warpPerspective(src, self.cam.H0, (self.cam.w, self.cam.h), flags=cv2.INTER_NEAREST)
        else:
            out = cv2.remap(src, maps[0], maps[1], cv2.INTER_NEAREST)
        return np.round(out).astype(np.int32)


_TABLE_CACHE: OrderedDict = OrderedDict()


def _table(spec: TableSpec, h: int, w: int, s: float) -> tuple[np.ndarray, float]:
    key = (spec, h, w, round(s, 4))
    if key in _TABLE_CACHE:
        _TABLE_CACHE.move_to_end(key)
        img, g = _TABLE_CACHE[key]
        return img.copy(), g
    img, g = table_texture(spec, h, w, s)
    _TABLE_CACHE[key] = (img, g)
    while len(_TABLE_CACHE) > 2:  # ~27 MB each at 1640×1232
        _TABLE_CACHE.popitem(last=False)
    return img.copy(), g


def item_size(item: Item, design: Design) -> tuple[float, float, float]:
    """(width, height, thickness) in mm."""
    if item.obj == "prop":
        p = prop(item.card["name"], item.seed, 1.0, design.typeface, item.card.get("title", ""))
        return p.w_mm, p.h_mm, p.thickness
    card = _face_card(item)
    w, h = faces.object_size_mm(card, design)
    t = {"tile": design.tile_thick_mm, "token": design.token_thick_mm, "die": design.die_mm}.get(item.obj,
                                                                                                  CARD_THICK_MM)
    return w, h, t


def _face_card(item: Item) -> dict:
    card = dict(item.card)
    card["object"] = item.obj
    return card


def board_corners_mm(b: BoardPlacement, layout: BoardLayout) -> np.ndarray:
    return rect_mm(layout.width_mm, layout.height_mm, b.x, b.y, b.angle)


def board_to_table(b: BoardPlacement, layout: BoardLayout, pts: np.ndarray) -> np.ndarray:
    """Board mm (origin top-left) -> table mm."""
    p = np.asarray(pts, float).reshape(-1, 2) - [layout.width_mm / 2, layout.height_mm / 2]
    a = math.radians(b.angle)
    ca, sa = math.cos(a), math.sin(a)
    return np.stack([b.x + p[:, 0] * ca - p[:, 1] * sa, b.y + p[:, 0] * sa + p[:, 1] * ca], axis=1)


def square_centre(b: BoardPlacement, sid: str | int) -> tuple[float, float]:
    layout = load_layout(b.game)
    q = layout.square(sid)
    x, y = board_to_table(b, layout, np.array([[q.x, q.y]]))[0]
    return float(x), float(y)


def render_static(scene: Scene) -> Static:
    """Draw table, board and pieces, light them and develop through the camera (no hand, no noise)."""
    if scene.game not in GAMES:
        raise ValueError(f"unknown game {scene.game!r}; expected one of {GAMES}")
    cam = Camera(scene.camera, scene.size)
    s = cam.s
    base, tgloss = _table(scene.table, cam.canvas_h, cam.canvas_w, s)
    cv = Canvas(base, tgloss, cam, scene.light)
    rng = np.random.default_rng(scene.seed)
    design = scene.design
    heads = scene.heads or {}

    board_truth = None
    layout = None
    if scene.board is not None:
        layout = load_layout(scene.board.game)
        corners = board_corners_mm(scene.board, layout)
        bgr, alpha = board_image(layout, scene.board.style, s * cam.D / (cam.D - BOARD_THICK_MM))
        cv.shadow(alpha, corners, 0.0, BOARD_THICK_MM, strength=0.9)
        cv.sides(alpha, corners, 0.0, BOARD_THICK_MM, scene.board.style.edge)
        cv.lay(-2, bgr, alpha, corners, BOARD_THICK_MM, scene.board.style.gloss, record=False)
        board_truth = corners

    order = sorted(range(len(scene.items)), key=lambda i: (scene.items[i].layer, i))
    placed: dict[int, Placed] = {}
    for i in order:
        it = scene.items[i]
        w_mm, h_mm, thick = item_size(it, design)
        z0, z1 = it.z, it.z + thick
        corners = rect_mm(w_mm, h_mm, it.x, it.y, it.angle)
        k = s * cam.D / (cam.D - z1)
        wp, hp = max(3, int(round(w_mm * k))), max(3, int(round(h_mm * k)))
        irng = np.random.default_rng(it.seed)
        if it.obj == "prop":
            p = prop(it.card["name"], it.seed, k, design.typeface, it.card.get("title", ""))
            bgr, alpha, gloss, side = p.bgr, p.alpha, p.gloss, p.side
        else:
            card = _face_card(it)
            if it.obj == "card" and card.get("kind") == "number" and card.get("color") is None:
                v = int(card["value"])
                card["heads"] = int(heads.get(v, faces.default_heads(v)))
            bgr, alpha = faces.face(card, design, wp, hp)
            gloss = faces.card_gloss(card, design)
            side = _side_colour(it, design)
        # Real cards are never quite flat: a slightly lifted edge casts a visible shadow.
        lift = float(irng.uniform(0.3, 1.6)) if it.obj in ("card", "back") else 0.0
        cv.shadow(alpha, corners, z0, z1 + lift)
        if thick > 1.0:
            cv.sides(alpha, corners, z0, z1, side)
        shade = (float(irng.normal(0, 0.05)), float(irng.normal(0, 0.05))) if it.obj in ("card", "back") else (0, 0)
        tint = tuple(float(x) for x in 1.0 + irng.normal(0, 0.012, 3)) if it.obj != "prop" else None
        placed[i] = cv.lay(i, bgr, alpha, corners, z1, gloss, shade=shade, tint=tint)

    # Light: shadows, the illumination field, then specular glare on glossy surfaces.
    illum = illumination(scene.light, cam)
    mul_plane(cv.img, illum * (1.0 - cv.shade))
    g = glare_field(scene.light, cam)
    if g is not None:
        gl = g * cv.gloss
        cv.img += cv2.merge([gl, gl, gl])
    cast = light_cast(scene.light)
    image, ae = develop(cv.img, cam, cast)
    truth, where = _truth(scene, cam, cv, placed, layout, board_truth, rng)
    return Static(image=image, cam=cam, truth=truth, illum_cast=cast, illum=illum, ids=cv.ids,
                  where=where, exposure=ae)


def _side_colour(it: Item, d: Design):
    if it.obj == "tile":
        return d.tile_side
    if it.obj == "token":
        from .draw import scale_colour

        return scale_colour(d.ink(it.card.get("color")), 0.62) if d.token_face == "suit" else scale_colour(d.stock, 0.7)
    if it.obj == "die":
        from .draw import scale_colour

        return scale_colour(d.die_body, 0.8)
    return (0.8, 0.8, 0.8)


# ----------------------------------------------------------------------------------------
# Truth


def _img_pts(cam: Camera, pts_mm: np.ndarray, z: float) -> np.ndarray:
    return cam.distort(cam.project(pts_mm, z))


def _quad_json(q: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 1), round(float(y), 1)] for x, y in q]


def _truth(scene: Scene, cam: Camera, cv: Canvas, placed: dict[int, Placed], layout, board_corners,
           rng) -> tuple[dict, dict]:
    design = scene.design
    cards, tokens, dice, hidden, backs, outside = [], [], [], [], [], []
    where: dict[int, tuple[str, int]] = {}
    order = sorted(placed, key=lambda i: (scene.items[i].layer, i))
    under_top = {i for pile in scene.meta.get("piles", []) for i in pile.get("items", [])[:-1]}
    for i in order:
        it, p = scene.items[i], placed[i]
        if it.obj == "prop":
            continue
        w_mm, h_mm, thick = item_size(it, design)
        corners = _img_pts(cam, rect_mm(w_mm, h_mm, it.x, it.y, it.angle), it.z + thick)
        card = _face_card(it)
        vis = cv.visible_fraction(p)
        inside = _inside(corners, cam)
        if it.obj == "back":
            if vis > 0.3 and inside:
                backs.append({"corners": _quad_json(corners)})
            continue
        if not inside:  # cut by the image border: not reported, listed apart
            entry = {"object": it.obj, **dict(it.card.items()), "corners": _quad_json(corners)}
            where[i] = ("outside", len(outside))
            outside.append(entry)
            continue
        if it.obj == "token":
            entry = {"value": int(it.card["value"]), "color": it.card["color"],
                     "center": [round(float(corners[:, 0].mean()), 1), round(float(corners[:, 1].mean()), 1)],
                     "confidence": 1.0}
            if it.square is not None:
                entry["square"] = it.square
            if vis >= 0.6:
                where[i] = ("tokens", len(tokens))
                tokens.append(entry)
            else:
                where[i] = ("hidden", len(hidden))
                hidden.append({"object": "token", **entry})
            continue
        if it.obj == "die":
            entry = {"value": it.card["value"], "corners": _quad_json(corners), "confidence": 1.0}
            if vis >= 0.6:
                where[i] = ("dice", len(dice))
                dice.append(entry)
            else:
                where[i] = ("hidden", len(hidden))
                hidden.append({"object": "die", **entry})
            continue
        entry = {"kind": card.get("kind", "number"), "value": card.get("value"), "color": card.get("color"),
                 "corners": _quad_json(corners), "confidence": 1.0}
        if it.square is not None:
            entry["square"] = it.square
        if it.obj == "tile":
            ok = vis >= 0.6
            occluded = False
        else:
            centre = cv.visible_fraction(p, faces.centre_region(card, design))
            idx = [cv.visible_fraction(p, r) for r in faces.index_regions(card, design)]
            ok = centre >= 0.9 or (idx and max(idx) >= 0.92)
            occluded = centre < 0.9
        if ok:
            if occluded:
                entry["occluded"] = True
            where[i] = ("cards", len(cards))
            cards.append(entry)
        else:
            entry.pop("occluded", None)
            entry["shown"] = round(float(vis), 3)  # share of the card in view: readable or not
            if i in under_top:
                entry["pile"] = True  # under a pile's top: not the game's, however much shows
            where[i] = ("hidden", len(hidden))
            hidden.append(entry)
    truth: dict[str, Any] = {
        "game": scene.game,
        "size": [cam.w, cam.h],
        "cards": cards,
        "tokens": tokens,
        "dice": dice,
        "hidden": hidden,
        "backs": backs,
        "outside": outside,
        "hand": False,
        "hand_mask_area": 0.0,
        "layout": _layout_truth(scene, cam, where, layout),
        "styles": {"design": design.name, "table": scene.table.name, "light": scene.light.name,
                   "pool": scene.pool},
    }
    if board_corners is not None:
        truth["board"] = {"corners": _quad_json(_img_pts(cam, board_corners, BOARD_THICK_MM))}
    return truth, where


def _inside(q: np.ndarray, cam: Camera) -> bool:
    """Truth is only given for things whose outline lies in the image (a little slack at the border)."""
    return bool((q[:, 0] >= -0.5).all() and (q[:, 0] <= cam.w - 0.5).all() and (q[:, 1] >= -0.5).all()
                and (q[:, 1] <= cam.h - 0.5).all())


def _layout_truth(scene: Scene, cam: Camera, where: dict, layout) -> dict:
    out: dict[str, Any] = {}

    def ref(i):
        w = where.get(i)
        return None if w is None else {"list": w[0], "index": w[1]}

    rows = []
    for r in scene.meta.get("rows", []):
        rows.append({**{k: v for k, v in r.items() if k != "items"}, "cards": [ref(i) for i in r.get("items", [])]})
    if rows:
        out["rows"] = rows
    piles = []
    for p in scene.meta.get("piles", []):
        items = p.get("items", [])
        entry = {k: v for k, v in p.items() if k != "items"}
        entry["top"] = ref(items[-1]) if items else None
        if items:
            it = scene.items[items[-1]]
            c = _img_pts(cam, np.array([[it.x, it.y]]), it.z)[0]
            entry["center"] = [round(float(c[0]), 1), round(float(c[1]), 1)]
        piles.append(entry)
    if piles:
        out["piles"] = piles
    if layout is not None and scene.board is not None:
        sq = {}
        occupant_of = {it.square: i for i, it in enumerate(scene.items) if it.square is not None and i in where}
        for q in layout.squares:
            c = board_to_table(scene.board, layout, np.array([[q.x, q.y]]))[0]
            corners = rect_mm(layout.square_mm, layout.square_mm, c[0], c[1], scene.board.angle)
            img = _img_pts(cam, corners, BOARD_THICK_MM)
            centre = _img_pts(cam, c[None, :], BOARD_THICK_MM)[0]
            i = occupant_of.get(q.id)
            sq[str(q.id)] = {"center": [round(float(centre[0]), 1), round(float(centre[1]), 1)],
                             "corners": _quad_json(img), "occupied": None if i is None else ref(i)}
        out["squares"] = sq
    return out


# ----------------------------------------------------------------------------------------


def render(scene: Scene) -> tuple[np.ndarray, dict]:
    """Render a scene: (BGR uint8 image, truth dict)."""
    from .overlay import HandCompositor, add_hand_truth, finish

    static = render_static(scene)
    image, truth = static.image, static.truth
    mask = None
    if scene.hand is not None:
        layer = HandCompositor(static, scene).layer(scene.hand)
        if layer is not None:
            image = layer.composite(image)
            mask = layer
    truth = add_hand_truth(truth, mask)
    rng = np.random.default_rng([scene.seed, 7])
    return finish(image, static.cam, rng), truth
