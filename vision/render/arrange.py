"""Random plausible table states for every game: rows, fans, stacks, piles, boards with tiles
and tokens, round-end counting spreads, distractors, and the camera view that frames them.

`random_scene(game, rng, pool, **overrides)` is the entry point. Overrides (all optional):
size, design, table, light, camera (a CameraSpec or a dict of CameraSpec fields), hand
(True/False/HandSpec), distractors (True/False), mode (row layout: side|overlap|stacked|count
for card games; piles|count for 11-nimmt), rows (number of rows), variant, heads (11 nimmt!
head table), seed (render seed), view_w_mm, angle (global rotation of the layout, degrees).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import replace

import numpy as np

from ..layouts import JOKER_NUMBERS, TILE_COPIES, load_layout
from . import hands
from .boards import random_board_style
from .camera import Camera, CameraSpec
from .compose import rect_mm
from .designs import SUITS, Design, card_family, random_design, tile_family
from .fonts import check_pool
from .optics import LightSpec, random_camera, random_light
from .scene import DEFAULT_SIZE, GAMES, BoardPlacement, Item, Scene, board_to_table, item_size
from .table import TableSpec, random_table

OVERRIDES = ("size", "design", "table", "light", "camera", "hand", "distractors", "mode", "rows", "variant", "heads",
             "seed", "view_w_mm", "angle", "misplaced")


def on_request(scene: Scene, rng: np.random.Generator, board: str | None = None, tiles: str | None = None,
               cards: str | None = None) -> None:
    """Gives `scene` a board printing, a tile family or a card family drawn only when asked for
    (`boards.ON_REQUEST`, `designs.TILE_ON_REQUEST`, `designs.CARD_ON_REQUEST`), for training and
    measuring on them; None leaves that part as it is."""
    if board is not None:
        scene.board = replace(scene.board, style=random_board_style(rng, scene.game, scene.pool, template=board))
    if tiles is not None:
        scene.design = tile_family(scene.design, rng, tiles)
    if cards is not None:
        scene.design = card_family(scene.design, rng, cards)


def random_scene(game: str, rng: np.random.Generator, pool: str = "train", **overrides) -> Scene:
    """A random plausible scene of `game` with styles from `pool` ("train" or "holdout")."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
    check_pool(pool)
    bad = sorted(set(overrides) - set(OVERRIDES))
    if bad:
        raise TypeError(f"unknown override(s) {bad}; expected some of {list(OVERRIDES)}")
    size = tuple(overrides.get("size", DEFAULT_SIZE))
    design = overrides.get("design") or random_design(rng, pool)
    if not isinstance(design, Design):
        raise TypeError("design must be a Design (see random_design)")
    gen = {"elfer-raus": _elfer_raus, "elfer-raus-junior": _junior, "elevens": _elevens, "11-nimmt": _nimmt,
           "start11": _start11, "numeri": _numeri}[game]
    items, board, meta = gen(rng, design, pool, overrides)

    # Turn the whole layout (camera mounted any way round), then frame it.
    if "angle" in overrides:
        theta = float(overrides["angle"])
    else:
        theta = float(rng.choice([0, 0, 0, 90, 180, 270]) + rng.normal(0, 6))
    board = _rotate(items, board, theta)
    lo, hi = _extent(items, board, design)
    aspect = size[1] / size[0]
    need_w = max(hi[0] - lo[0], (hi[1] - lo[1]) / aspect)
    view_w = float(overrides.get("view_w_mm", np.clip(need_w * rng.uniform(1.08, 1.45), 380, 1700)))
    view_h = view_w * aspect
    slack = np.array([max(0.0, view_w - (hi[0] - lo[0])), max(0.0, view_h - (hi[1] - lo[1]))])
    centre = (lo + hi) / 2 + (rng.uniform(-0.4, 0.4, 2) * slack)
    board = _shift(items, board, -centre)

    cam_over = overrides.get("camera")
    if isinstance(cam_over, CameraSpec):
        camera = replace(cam_over, view_w_mm=view_w) if "view_w_mm" in overrides else cam_over
    else:
        camera = random_camera(rng, view_w, **(cam_over or {}))
    light = overrides.get("light") or random_light(rng, pool)
    table = overrides.get("table") or random_table(rng, pool)
    if not isinstance(light, LightSpec) or not isinstance(table, TableSpec):
        raise TypeError("light must be a LightSpec and table a TableSpec")

    want_props = overrides.get("distractors", rng.random() < 0.45)
    if want_props:
        _distractors(rng, items, game, view_w, view_h, design)
    scene = Scene(game=game, size=size, seed=int(overrides.get("seed", rng.integers(0, 2**31))), pool=pool,
                  design=design, table=table, light=light, camera=camera, items=items, board=board, meta=meta,
                  heads=overrides.get("heads"))
    want_hand = overrides.get("hand", rng.random() < 0.25)
    if isinstance(want_hand, hands.HandSpec):
        scene.hand = want_hand
    elif want_hand:
        scene.hand = random_hand_over(rng, scene)
    return scene


# ----------------------------------------------------------------------------------------
# Geometry helpers


def _rotate(items: list[Item], board: BoardPlacement | None, theta: float) -> BoardPlacement | None:
    a = math.radians(theta)
    ca, sa = math.cos(a), math.sin(a)
    for it in items:
        it.x, it.y = it.x * ca - it.y * sa, it.x * sa + it.y * ca
        it.angle += theta
    if board is None:
        return None
    return replace(board, x=board.x * ca - board.y * sa, y=board.x * sa + board.y * ca, angle=board.angle + theta)


def _shift(items: list[Item], board: BoardPlacement | None, d: np.ndarray) -> BoardPlacement | None:
    for it in items:
        it.x += float(d[0])
        it.y += float(d[1])
    return None if board is None else replace(board, x=board.x + float(d[0]), y=board.y + float(d[1]))


def _extent(items: list[Item], board: BoardPlacement | None, design: Design) -> tuple[np.ndarray, np.ndarray]:
    pts = []
    for it in items:
        if it.group == "prop":
            continue
        w, h, _ = item_size(it, design)
        pts.append(rect_mm(w, h, it.x, it.y, it.angle))
    if board is not None:
        lay = load_layout(board.game)
        pts.append(rect_mm(lay.width_mm, lay.height_mm, board.x, board.y, board.angle))
    p = np.vstack(pts) if pts else np.zeros((1, 2))
    return p.min(axis=0), p.max(axis=0)


def _jit(rng, mm: float = 1.2, deg: float = 1.5) -> tuple[float, float, float]:
    return float(rng.normal(0, mm)), float(rng.normal(0, mm)), float(rng.normal(0, deg))


def _seed(rng) -> int:
    return int(rng.integers(0, 2**31))


def _card(kind: str, value, color) -> dict:
    return {"kind": kind, "value": value, "color": color}


# ----------------------------------------------------------------------------------------
# Rows of number cards (Elfer raus!, junior, elevens)


def _row_items(rng, design: Design, cards: list[tuple[int, dict]], y: float, mode: str, pitch: float,
               x_of, group: str, fan_dir: int, items: list[Item]) -> list[int]:
    """Lay one row: cards[(position, card dict)] at x_of(position); returns item indices in row order."""
    out = []
    cw = design.card_w
    stack_left: list[int] = []
    stack_right: list[int] = []
    for pos, card in cards:
        dx, dy, da = _jit(rng, 1.0 if mode != "side" else 1.8, 1.2 if mode != "side" else 2.0)
        if mode == "stacked" and pos != 0:
            side = stack_left if pos < 0 else stack_right
            k = len(side)
            x = (-1 if pos < 0 else 1) * (cw + rng.uniform(2, 8)) if k == 0 else items[side[0]].x
            it = Item("card", card, x + float(rng.normal(0, 1.5)), y + float(rng.normal(0, 1.5)),
                      float(rng.normal(0, 2.5)), z=0.32 * k, layer=10 + k, seed=_seed(rng), group=group)
            side.append(len(items))
        else:
            layer = pos * fan_dir if mode == "overlap" else 0
            it = Item("card", card, x_of(pos) + dx, y + dy, da, layer=layer, seed=_seed(rng), group=group)
        out.append(len(items))
        items.append(it)
    return out


def _row_mode(rng, overrides: dict, length_mm: float) -> str:
    mode = overrides.get("mode")
    if mode is not None:
        return str(mode)
    if length_mm > 900:
        return str(rng.choice(["overlap", "stacked"], p=[0.7, 0.3]))
    return str(rng.choice(["side", "overlap", "stacked"], p=[0.4, 0.4, 0.2]))


def _elfer_raus(rng, design: Design, pool: str, ov: dict):
    variant = ov.get("variant") or str(rng.choice(["base", "base", "base", "extremes", "three-openings"]))
    if ov.get("mode") == "count":
        return _count_spread(rng, design, "elfer-raus", ov)
    n_rows = int(ov.get("rows", rng.integers(1, 5)))
    colours = list(rng.permutation(SUITS))[:n_rows]
    items: list[Item] = []
    rows_meta = []
    cw, ch = design.card_w, design.card_h
    mode = _row_mode(rng, ov, 10 * cw)
    if variant == "extremes" and mode == "stacked":
        mode = "overlap"
    pitch = cw + rng.uniform(1, 8) if mode == "side" else cw * rng.uniform(0.24, 0.5)
    fan_dir = int(rng.choice([1, -1]))
    gap = ch + rng.uniform(4, 30)
    for r, col in enumerate(colours):
        if variant == "extremes":
            a = int(rng.integers(1, 10))
            b = int(rng.integers(a + 2, 21))
            values = list(range(1, a + 1)) + list(range(b, 21))
        else:
            centre = 11 if variant == "base" else int(rng.choice([10, 11, 12]))
            lo = int(max(1, centre - rng.geometric(0.25) + 1))
            hi = int(min(20, centre + rng.geometric(0.25) - 1))
            values = list(range(lo, hi + 1))
        ref = 11 if variant != "extremes" else 10.5
        cards = [(v - 11 if variant != "extremes" else v - ref, _card("number", v, col)) for v in values]
        if mode == "stacked":
            # Stacks grow outward: the outermost card lies on top.
            left = sorted([c for c in cards if c[0] < 0], key=lambda c: -c[0])
            right = sorted([c for c in cards if c[0] > 0], key=lambda c: c[0])
            cards = [c for c in cards if c[0] == 0] + left + right
        idx = _row_items(rng, design, cards, r * gap, mode, pitch, lambda p: p * pitch, f"row:{col}", fan_dir,
                         items)
        order = sorted(range(len(idx)), key=lambda k: items[idx[k]].card["value"])
        rows_meta.append({"color": col, "mode": mode, "values": [items[idx[k]].card["value"] for k in order],
                          "items": [idx[k] for k in order]})
    _draw_pile(rng, design, items, ov)
    return items, None, {"rows": rows_meta, "variant": variant}


def _junior(rng, design: Design, pool: str, ov: dict):
    if ov.get("mode") == "count":
        return _count_spread(rng, design, "elfer-raus-junior", ov)
    n_rows = int(ov.get("rows", 4))
    colours = list(rng.permutation(SUITS))[:n_rows]
    cw, ch = design.card_w, design.card_h
    mode = ov.get("mode") or str(rng.choice(["side", "overlap"], p=[0.65, 0.35]))
    pitch = cw + rng.uniform(1, 8) if mode == "side" else cw * rng.uniform(0.3, 0.55)
    fan_dir = int(rng.choice([1, -1]))
    gap = ch + rng.uniform(4, 25)
    items: list[Item] = []
    rows_meta = []
    for r, col in enumerate(colours):
        a = int(rng.integers(1, 11))
        b = int(rng.integers(a + 1, 12))
        values = list(range(1, a + 1)) + list(range(b, 12))
        cards = [(v - 6, _card("number", v, col)) for v in values]
        idx = _row_items(rng, design, cards, r * gap, "side" if mode == "stacked" else mode, pitch,
                         lambda p: p * pitch, f"row:{col}", fan_dir, items)
        rows_meta.append({"color": col, "mode": mode, "values": values, "items": idx})
    _draw_pile(rng, design, items, ov)
    return items, None, {"rows": rows_meta}


def _elevens(rng, design: Design, pool: str, ov: dict):
    if ov.get("mode") == "count":
        return _count_spread(rng, design, "elevens", ov)
    n_rows = int(ov.get("rows", rng.integers(2, 5)))
    colours = list(rng.permutation(SUITS))[:n_rows]
    cw, ch = design.card_w, design.card_h
    mode = _row_mode(rng, ov, 12 * cw)
    if mode == "stacked":
        mode = "overlap"
    pitch = cw + rng.uniform(1, 6) if mode == "side" else cw * rng.uniform(0.26, 0.5)
    fan_dir = int(rng.choice([1, -1]))
    links_wanted = rng.random() < 0.6
    gap = ch + (rng.uniform(0.55, 0.8) * cw if links_wanted else rng.uniform(4, 25))
    items: list[Item] = []
    rows_meta = []
    occupied: dict[str, set[int]] = {}
    jokers_left = int(rng.integers(0, 3))
    for r, col in enumerate(colours):
        lo = int(max(1, 11 - rng.geometric(0.2) + 1))
        hi = int(min(21, 11 + rng.geometric(0.2) - 1))
        vals = set(range(lo, hi + 1))
        if rng.random() < 0.3 and lo > 4:  # a second segment joined by a link
            a = int(rng.integers(1, lo - 2))
            vals |= set(range(a, a + int(rng.integers(1, 3))))
        occupied[col] = vals
        cards = []
        for v in sorted(vals):
            if v != 11 and jokers_left and rng.random() < 0.12:
                cards.append((v - 11, _card("joker", None, None)))
                jokers_left -= 1
            else:
                cards.append((v - 11, _card("number", v, col)))
        idx = _row_items(rng, design, cards, r * gap, mode, pitch, lambda p: p * pitch, f"row:{col}", fan_dir, items)
        rows_meta.append({"color": col, "mode": mode, "values": sorted(vals), "items": idx})
    if links_wanted:
        for r in range(len(colours) - 1):
            both = sorted(occupied[colours[r]] & occupied[colours[r + 1]] - {11})
            for v in both[: int(rng.integers(0, 3))]:
                items.append(Item("card", _card("link", None, None), (v - 11) * pitch + float(rng.normal(0, 2)),
                                  (r + 0.5) * gap + float(rng.normal(0, 2)), 90 + float(rng.normal(0, 4)),
                                  layer=-50, seed=_seed(rng), group="link"))
    # Link cards lying in front of players, bonus cards won.
    spare_y = len(colours) * gap + ch * 0.3
    x = -4 * pitch
    for kind, n in (("link", int(rng.integers(0, 4))), ("bonus", int(rng.integers(0, 3)))):
        for _ in range(n):
            items.append(Item("card", _card(kind, None, None), x + float(rng.normal(0, 3)), spare_y + float(
                rng.normal(0, 4)), float(rng.normal(0, 8)), layer=float(rng.uniform(0, 5)), seed=_seed(rng),
                group="loose"))
            x += cw * rng.uniform(0.4, 1.2)
    _draw_pile(rng, design, items, ov)
    return items, None, {"rows": rows_meta}


def _draw_pile(rng, design: Design, items: list[Item], ov: dict, p: float = 0.5) -> None:
    """A face-down draw pile somewhere beside the layout."""
    if rng.random() > p:
        return
    lo = np.min([[i.x, i.y] for i in items], axis=0) if items else np.zeros(2)
    hi = np.max([[i.x, i.y] for i in items], axis=0) if items else np.zeros(2)
    side = int(rng.integers(0, 4))
    cx = {0: lo[0] - design.card_w * 1.6, 2: hi[0] + design.card_w * 1.6}.get(side, rng.uniform(lo[0], hi[0] + 1))
    cy = {1: lo[1] - design.card_h * 1.4, 3: hi[1] + design.card_h * 1.4}.get(side, rng.uniform(lo[1], hi[1] + 1))
    n = int(rng.integers(3, 25))
    a0 = float(rng.uniform(0, 360))
    for k in range(n):
        items.append(Item("back", {}, float(cx + rng.normal(0, 0.6)), float(cy + rng.normal(0, 0.6)),
                          a0 + float(rng.normal(0, 1.2)), z=0.32 * k, layer=20 + k * 0.01, seed=_seed(rng),
                          group="draw"))


ELEVENS_JOKERS = 4  # jokers in the 11 Elevens deck (RULES.md §2.1)


def _count_spread(rng, design: Design, game: str, ov: dict):
    """Round end: players lay their remaining cards out to be counted, at any angle, some overlapping.
    The cards come from one deck, which holds each number card once (RULES.md)."""
    items: list[Item] = []
    dealt: set[tuple] = set()
    jokers = 0
    clusters = int(rng.integers(1, 4))
    for c in range(clusters):
        cx, cy = rng.uniform(-250, 250), rng.uniform(-180, 180)
        base = float(rng.uniform(0, 360))
        n = int(rng.integers(2, 9))
        fan = rng.random() < 0.5
        for k in range(n):
            while True:  # drawn again while already dealt (the draws of a table without repeats stay as they were)
                card = _spread_card(rng, game, jokers < ELEVENS_JOKERS)
                key = (card["kind"], card["value"], card["color"])
                if card["kind"] == "joker" or key not in dealt:
                    break
            dealt.add(key)
            jokers += card["kind"] == "joker"
            if fan:
                a = math.radians(base)
                off = k * design.card_w * rng.uniform(0.3, 0.6)
                x, y = cx + off * math.cos(a), cy + off * math.sin(a)
                ang = base + float(rng.normal(0, 4))
            else:
                x, y = cx + rng.normal(0, 70), cy + rng.normal(0, 60)
                ang = float(rng.uniform(0, 360))
            items.append(Item("card", card, float(x), float(y), ang, layer=c * 100 + k, seed=_seed(rng),
                              group=f"count:{c}"))
    return items, None, {"mode": "count"}


def _spread_card(rng, game: str, joker_left: bool) -> dict:
    """One card of a game's deck drawn at random (a joker only while the deck has one left)."""
    if game == "11-nimmt":
        return _card("number", int(rng.integers(1, 101)), None)
    if game == "elevens":
        if rng.random() < 0.08 and joker_left:
            return _card("joker", None, None)
        return _card("number", int(rng.integers(1, 22)), str(rng.choice(SUITS)))
    top = 11 if game == "elfer-raus-junior" else 20
    return _card("number", int(rng.integers(1, top + 1)), str(rng.choice(SUITS)))


# ----------------------------------------------------------------------------------------
# 11 nimmt!


def _nimmt(rng, design: Design, pool: str, ov: dict):
    if ov.get("mode") == "count":
        return _count_spread(rng, design, "11-nimmt", ov)
    items: list[Item] = []
    n_piles = int(rng.integers(1, 7))
    cols = int(rng.choice([n_piles, min(n_piles, 3)]))
    pitch_x = design.card_w + rng.uniform(10, 45)
    pitch_y = design.card_h + rng.uniform(10, 40)
    values = list(rng.permutation(np.arange(1, 101)))
    piles_meta = []
    for p in range(n_piles):
        gx, gy = (p % cols) * pitch_x, (p // cols) * pitch_y
        n = int(rng.integers(1, 14))
        messy = rng.uniform(0.6, 2.5)
        a0 = float(rng.normal(0, 4))
        idx = []
        for k in range(n):
            v = int(values.pop())
            items.append(Item("card", _card("number", v, None), float(gx + rng.normal(0, messy)),
                              float(gy + rng.normal(0, messy)), a0 + float(rng.normal(0, messy * 1.5)), z=0.32 * k,
                              layer=100 + p * 20 + k, seed=_seed(rng), group=f"pile:{p}"))
            idx.append(len(items) - 1)
        piles_meta.append({"values": [items[i].card["value"] for i in idx], "count": n, "items": idx})
    # Bull cards in front of players; sometimes a card just played beside a pile.
    n_bulls = int(rng.integers(0, 5))
    bx, by = -pitch_x * 1.2, (max(1, math.ceil(n_piles / cols))) * pitch_y + 10
    for k in range(n_bulls):
        items.append(Item("card", _card("bull", None, None), float(bx + k * design.card_w * rng.uniform(0.3, 1.1)),
                          float(by + rng.normal(0, 5)), float(rng.normal(0, 10)), layer=float(k), seed=_seed(rng),
                          group="bulls"))
    _draw_pile(rng, design, items, ov, p=0.7)
    return items, None, {"piles": piles_meta}


# ----------------------------------------------------------------------------------------
# Boards


def _start11(rng, design: Design, pool: str, ov: dict):
    layout = load_layout("start11")
    style = random_board_style(rng, "start11", pool)
    board = BoardPlacement("start11", style, 0.0, 0.0, 0.0)
    items: list[Item] = []
    variant = ov.get("variant") or str(rng.choice(["base", "symbols"], p=[0.75, 0.25]))
    fill = rng.uniform(0.0, 1.0)
    # `misplaced`: the share of coloured tiles laid on their number's square of another row (an
    # illegal move the referee must see as it is). Drawn only when asked: the scenes of a seed
    # stay as they were without it.
    wrong = float(ov.get("misplaced", 0.0))
    laid: set[tuple[str, int]] = set()  # coloured tiles on the board: each exists once (RULES.md)
    for row in layout.rows:
        if rng.random() < 0.15 * (1 - fill):
            continue
        lo = int(max(1, 11 - rng.binomial(10, fill)))
        hi = int(min(20, 11 + rng.binomial(9, fill)))
        for n in range(lo, hi + 1):
            sid = f"{row}-{n}"
            colour = row
            if wrong and n not in (3, 7, 13, 17) and rng.random() < wrong:
                colour = str(rng.choice([c for c in SUITS if c != row]))
            if n not in (3, 7, 13, 17):
                if (colour, n) in laid:  # that tile lies on another row's square: this one stays empty
                    continue
                laid.add((colour, n))
            card = _card("joker", n, "gray") if n in (3, 7, 13, 17) else _card("number", n, colour)
            _tile_on(rng, board, layout, sid, card, items)
        if variant == "symbols":
            for end, n in (("left", 1), ("right", 20)):
                if lo <= n <= hi and rng.random() < 0.5:
                    q = layout.square(f"{row}-{end}")
                    _tile_on(rng, board, layout, q.id, _card("symbol", q.symbol, None), items)
    # A few tiles lying beside the board (just drawn, or waiting to be placed), of those not on it.
    for _ in range(int(rng.integers(0, 6))):
        v = int(rng.integers(1, 21))
        card = _card("joker", v, "gray") if v in (3, 7, 13, 17) else _card("number", v, str(rng.choice(SUITS)))
        card = _free_tile(card, items)
        side = 1 if rng.random() < 0.5 else -1
        loose = Item("tile", card or {}, float(rng.uniform(-280, 280)), float(side * rng.uniform(185, 240)),
                     float(rng.uniform(0, 360)), layer=5, seed=_seed(rng), group="loose")
        if card is not None:  # (drawn all the same: the scene's other draws stay)
            items.append(loose)
    if variant == "symbols":
        # The variant's players hold symbol tiles too: one may lie beside the board. Drawn from
        # a stream jumped apart from `rng`, so that every other draw of a seed's scene stays.
        extra = np.random.Generator(rng.bit_generator.jumped())
        spare = [q.symbol for q in layout.squares if q.kind == "symbol"]  # one tile per symbol square
        for it in items:
            if it.card["kind"] == "symbol":
                spare.remove(it.card["value"])
        for _ in range(min(len(spare), int(extra.choice([0, 1, 2], p=[0.4, 0.4, 0.2])))):
            card = _card("symbol", str(extra.choice(spare)), None)
            spare.remove(card["value"])
            side = 1 if extra.random() < 0.5 else -1
            items.append(Item("tile", card, float(extra.uniform(-280, 280)), float(side * extra.uniform(185, 240)),
                              float(extra.uniform(0, 360)), layer=5, seed=_seed(extra), group="loose"))
    return items, board, {"variant": variant}


def _free_tile(card: dict, items: list[Item]) -> dict | None:
    """`card`, or if every copy of it is out already (a coloured tile exists once, a grey joker
    four times: RULES.md) the next one that is not: the following numbers of its colour, then
    the other colours; None when every tile is out. No draw: the scene's other draws stay."""
    out = Counter((it.card["kind"], it.card["value"], it.card["color"]) for it in items if it.obj == "tile")
    colours = [card["color"]] + [c for c in SUITS if c != card["color"]] if card["kind"] == "number" else list(SUITS)
    for col in colours:
        for step in range(20):
            n = (int(card["value"]) - 1 + step) % 20 + 1
            key = ("joker", n, "gray") if n in JOKER_NUMBERS else ("number", n, col)
            if out[key] < TILE_COPIES[key[0]]:
                return _card(*key)
    return None


def _tile_on(rng, board: BoardPlacement, layout, sid, card, items: list[Item]) -> None:
    q = layout.square(sid)
    x, y = board_to_table(board, layout, np.array([[q.x, q.y]]))[0]
    items.append(Item("tile", card, float(x + rng.normal(0, 1.0)), float(y + rng.normal(0, 1.0)),
                      board.angle + float(rng.normal(0, 3)), z=2.0, layer=1, seed=_seed(rng), square=sid,
                      group="board"))


def _numeri(rng, design: Design, pool: str, ov: dict):
    layout = load_layout("numeri")
    style = random_board_style(rng, "numeri", pool)
    board = BoardPlacement("numeri", style, 0.0, 0.0, 0.0)
    items: list[Item] = []
    players = int(rng.integers(2, 5))
    colours = list(rng.permutation(SUITS))[:players]
    n_sq = len(layout.squares)
    free = list(range(n_sq))
    progress = rng.uniform(0.05, 1.0)
    for p, col in enumerate(colours):
        on_board = int(rng.binomial(5, min(1.0, 0.25 + progress)))
        for t in rng.permutation(5)[:on_board] + 1:
            weights = np.exp(-np.arange(n_sq) / (6 + 30 * progress))
            weights = np.array([weights[i] if i in free else 0 for i in range(n_sq)])
            if weights.sum() == 0:
                break
            sq = int(rng.choice(n_sq, p=weights / weights.sum()))
            free.remove(sq)
            q = layout.square(sq)
            x, y = board_to_table(board, layout, np.array([[q.x, q.y]]))[0]
            items.append(Item("token", {"value": int(t), "color": col}, float(x + rng.normal(0, 1.5)),
                              float(y + rng.normal(0, 1.5)), float(rng.uniform(0, 360)), z=2.0, layer=1,
                              seed=_seed(rng), square=sq, group="board"))
        # Tokens not yet on the board wait in front of their player.
        on = {it.card["value"] for it in items if it.obj == "token" and it.card["color"] == col}
        px_, py_ = [(0, 210), (0, -210), (-360, 0), (360, 0)][p]
        for k, t in enumerate(v for v in range(1, 6) if v not in on):
            items.append(Item("token", {"value": t, "color": col}, float(px_ + (k - 2) * 30 + rng.normal(0, 4)),
                              float(py_ + rng.normal(0, 6)), float(rng.uniform(0, 360)), layer=2, seed=_seed(rng),
                              group=f"off:{col}"))
    faces6 = ov.get("variant") == "d6"
    value: int | str = int(rng.integers(1, 7)) if faces6 else [1, 2, 3, 4, 5, "star"][int(rng.integers(0, 6))]
    dx, dy = float(rng.choice([-1, 1]) * rng.uniform(180, 330)), float(rng.choice([-1, 1]) * rng.uniform(175, 230))
    items.append(Item("die", {"value": value}, dx, dy, float(rng.uniform(0, 360)), layer=3, seed=_seed(rng),
                      group="die"))
    return items, board, {"players": players}


# ----------------------------------------------------------------------------------------
# Distractors and hands


def _distractors(rng, items: list[Item], game: str, view_w: float, view_h: float, design: Design) -> None:
    names = ["pencil", "phone", "coin", "box_lid", "score_pad"] + (["bag"] if game == "start11" else [])
    lo = np.array([-view_w / 2, -view_h / 2])
    hi = -lo
    occupied = [(it.x, it.y) for it in items]
    for _ in range(int(rng.integers(1, 4))):
        name = str(rng.choice(names))
        for _try in range(12):
            x, y = rng.uniform(lo[0], hi[0]), rng.uniform(lo[1], hi[1])
            if name == "box_lid":  # mostly outside the view, a corner reaching in
                x, y = x * 1.25, y * 1.25
            d = min((math.hypot(x - a, y - b) for a, b in occupied), default=1e9)
            if d > 90 or rng.random() < 0.05:
                break
        items.append(Item("prop", {"name": name}, float(x), float(y), float(rng.uniform(0, 360)),
                          layer=500 if rng.random() < 0.5 else -100, seed=_seed(rng), group="prop"))
        if name == "coin":
            for _k in range(int(rng.integers(0, 3))):
                items.append(Item("prop", {"name": "coin"}, float(x + rng.normal(0, 30)), float(y + rng.normal(0, 30)),
                                  float(rng.uniform(0, 360)), layer=500, seed=_seed(rng), group="prop"))


def random_hand_over(rng, scene: Scene, target: tuple[float, float] | None = None, **kw) -> hands.HandSpec:
    """A hand reaching from the nearest table edge toward `target` (or somewhere in view)."""
    cam = Camera(scene.camera, scene.size)
    corners = cam.image_to_table(np.array([[0, 0], [cam.w - 1, 0], [cam.w - 1, cam.h - 1], [0, cam.h - 1]], float))
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    if target is None:
        target = (float(rng.uniform(lo[0] * 0.8, hi[0] * 0.8)), float(rng.uniform(lo[1] * 0.8, hi[1] * 0.8)))
    edge = int(rng.choice(4, p=[0.15, 0.15, 0.15, 0.55]))  # left, top, right, bottom (players sit around)
    entry = {0: (lo[0] - 200, target[1]), 1: (target[0], lo[1] - 200), 2: (hi[0] + 200, target[1]),
             3: (target[0], hi[1] + 200)}[edge]
    ang = math.degrees(math.atan2(target[0] - entry[0], -(target[1] - entry[1]))) + float(rng.normal(0, 15))
    height = float(kw.pop("height", rng.uniform(25, 160)))
    spec = hands.random_hand(rng)
    arm = _arm_length(target, ang, lo, hi)
    holding = kw.pop("holding", None)
    return replace(spec, x=float(target[0]), y=float(target[1]), angle=ang, height=height, arm_len=arm,
                   holding=holding, **kw)


def _arm_length(wrist, angle_deg, lo, hi) -> float:
    """Millimetres of arm needed behind the wrist to leave the visible table area."""
    a = math.radians(angle_deg)
    back = np.array([-math.sin(a), math.cos(a)])  # opposite of the fingers
    best = 1e9
    for axis in (0, 1):
        if abs(back[axis]) > 1e-6:
            for bound in (lo[axis], hi[axis]):
                t = (bound - wrist[axis]) / back[axis]
                if t > 0:
                    best = min(best, t)
    return float(min(2500.0, (best if best < 1e9 else 600.0) + 150.0))
