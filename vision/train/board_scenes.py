"""Render train-pool board scenes (11! tiles, Numeri tokens and dice) for the board readers' models.

The renderer's own scenes always put the right tile on the right square; a classifier trained
on them could learn to read the square instead of the tile. So these scenes put tiles (and
tokens) of random identity on random squares, turn a few tiles on the board, add loose tiles,
tokens and extra dice (some on the board), and keep the rest of the renderer's variety
(printings, tables, lights, camera, distractors). Each scene is saved as ``<name>.jpg`` and
``<name>.json`` (the renderer's truth, with square outlines in ``layout.squares``).

    python -m vision.train.board_scenes --game start11 --out /work/data/boards --count 400
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
from pathlib import Path

import cv2
import numpy as np

from vision.layouts import JOKER_NUMBERS, SYMBOLS, load_layout
from vision.render import on_request, random_scene, render
from vision.render.designs import SUITS, TILE_ON_REQUEST
from vision.render.scene import Item, board_to_table


def _seed(rng) -> int:
    return int(rng.integers(0, 2**31))


def random_tile(rng) -> dict:
    """Any of the 88 tiles (64 coloured, 16 grey jokers, 8 symbols)."""
    k = rng.random()
    if k < 0.1:
        return {"kind": "symbol", "value": str(rng.choice(SYMBOLS)), "color": None}
    if k < 0.28:
        return {"kind": "joker", "value": int(rng.choice(JOKER_NUMBERS)), "color": "gray"}
    n = int(rng.choice([v for v in range(1, 21) if v not in JOKER_NUMBERS]))
    return {"kind": "number", "value": n, "color": str(rng.choice(SUITS))}


def tile_for_square(sq) -> dict:
    if sq.kind == "symbol":
        return {"kind": "symbol", "value": sq.symbol, "color": None}
    if sq.kind == "joker":
        return {"kind": "joker", "value": sq.number, "color": "gray"}
    return {"kind": "number", "value": sq.number, "color": sq.row}


def _board_point(scene, layout, x: float, y: float) -> tuple[float, float]:
    p = board_to_table(scene.board, layout, np.array([[x, y]]))[0]
    return float(p[0]), float(p[1])


def start11_scene(rng, pool: str = "train", board: str | None = None, coins: bool = False):
    scene = random_scene("start11", rng, pool, hand=False)
    on_request(scene, rng, board=board)
    layout = load_layout("start11")
    scene.items = [it for it in scene.items if it.group != "board"]
    fill = rng.uniform(0.15, 0.95)
    match = rng.uniform(0.3, 0.9)
    for sq in layout.squares:
        if rng.random() > fill:
            continue
        card = tile_for_square(sq) if rng.random() < match else random_tile(rng)
        x, y = _board_point(scene, layout, sq.x + rng.normal(0, 1.0), sq.y + rng.normal(0, 1.0))
        turn = 0.0 if rng.random() > 0.06 else 90.0 * int(rng.integers(1, 4))
        scene.items.append(Item("tile", card, x, y, scene.board.angle + turn + float(rng.normal(0, 3)), z=2.0,
                                layer=1, seed=_seed(rng), square=sq.id, group="board"))
    # Loose tiles round the board (some fall outside the view: they are simply not seen).
    for _ in range(int(rng.integers(0, 9))):
        bx = rng.uniform(-30, layout.width_mm + 30)
        by = rng.choice([rng.uniform(-90, -16), rng.uniform(layout.height_mm + 16, layout.height_mm + 90)])
        x, y = _board_point(scene, layout, bx, by)
        scene.items.append(Item("tile", random_tile(rng), x, y, float(rng.uniform(0, 360)), layer=5,
                                seed=_seed(rng), group="loose"))
    _decoys(scene, layout, rng, "plaque", 0.0)
    if rng.random() < 0.3:  # a patch of touching squares, like a cloth's checks
        bx = rng.uniform(-30, layout.width_mm - 30)
        by = rng.choice([rng.uniform(-110, -60), rng.uniform(layout.height_mm + 20, layout.height_mm + 70)])
        side, turn, seed = rng.uniform(16, 26), float(rng.uniform(0, 90)), _seed(rng)
        c, s_ = np.cos(np.radians(turn)), np.sin(np.radians(turn))
        for i in range(3):
            for j in range(3):
                u, v = (i - 1) * side, (j - 1) * side
                _decoy(scene, layout, "plaque", bx + c * u - s_ * v, by + s_ * u + c * v, turn, 0.0, seed + (i + j) % 2)
    if coins:  # a coin with a "5" had been read as a loose tile
        _decoys(scene, layout, rng, "coin", 0.2)
    return scene


def _decoy(scene, layout, name: str, bx: float, by: float, angle: float, z: float, seed: int) -> None:
    """A plain thing (`distractors.DECOYS`) at board mm (bx, by); its centre is kept in
    scene.meta["decoys_mm"] for board_crops to cut "nothing here" crops from."""
    x, y = _board_point(scene, layout, bx, by)
    scene.items.append(Item("prop", {"name": name}, x, y, angle, z=z, layer=3, seed=seed, group="prop"))
    scene.meta.setdefault("decoys_mm", []).append([round(float(bx), 1), round(float(by), 1)])


def _decoys(scene, layout, rng, name: str, on_board: float) -> None:
    """Up to eight decoys round the board (a share `on_board` of them on it)."""
    for _ in range(int(rng.integers(0, 9))):
        if rng.random() < on_board:
            bx, by, z = rng.uniform(10, layout.width_mm - 10), rng.uniform(10, layout.height_mm - 10), 2.0
        else:
            bx = rng.uniform(-60, layout.width_mm + 60)
            by = rng.choice([rng.uniform(-70, -15), rng.uniform(layout.height_mm + 15, layout.height_mm + 70)])
            z = 0.0
        _decoy(scene, layout, name, bx, by, float(rng.uniform(0, 360)), z, _seed(rng))


def numeri_scene(rng, pool: str = "train", board: str | None = None, coins: bool = False):
    variant = "d6" if rng.random() < 0.35 else None
    scene = random_scene("numeri", rng, pool, hand=False, **({"variant": variant} if variant else {}))
    on_request(scene, rng, board=board)
    layout = load_layout("numeri")
    scene.items = [it for it in scene.items if it.group != "board"]
    fill = rng.uniform(0.15, 0.8)
    for sq in layout.squares:
        if rng.random() > fill:
            continue
        x, y = _board_point(scene, layout, sq.x + rng.normal(0, 2.0), sq.y + rng.normal(0, 2.0))
        card = {"value": int(rng.integers(1, 6)), "color": str(rng.choice(SUITS))}
        scene.items.append(Item("token", card, x, y, float(rng.uniform(0, 360)), z=2.0, layer=1, seed=_seed(rng),
                                square=sq.id, group="board"))
    faces = [1, 2, 3, 4, 5, 6, "star"]
    for _ in range(int(rng.integers(0, 4))):
        on_board = rng.random() < 0.25
        if on_board:
            bx, by, z = rng.uniform(20, layout.width_mm - 20), rng.uniform(20, layout.height_mm - 20), 2.0
        else:
            bx = rng.uniform(-60, layout.width_mm + 60)
            by = rng.choice([rng.uniform(-70, -15), rng.uniform(layout.height_mm + 15, layout.height_mm + 70)])
            z = 0.0
        x, y = _board_point(scene, layout, bx, by)
        scene.items.append(Item("die", {"value": faces[int(rng.integers(0, 7))]}, x, y, float(rng.uniform(0, 360)),
                                z=z, layer=4, seed=_seed(rng), group="die"))
    for _ in range(int(rng.integers(0, 6))):  # stray tokens anywhere off the board
        bx = rng.uniform(-60, layout.width_mm + 60)
        by = rng.choice([rng.uniform(-70, -15), rng.uniform(layout.height_mm + 15, layout.height_mm + 70)])
        x, y = _board_point(scene, layout, bx, by)
        card = {"value": int(rng.integers(1, 6)), "color": str(rng.choice(SUITS))}
        scene.items.append(Item("token", card, x, y, float(rng.uniform(0, 360)), layer=2, seed=_seed(rng),
                                group="stray"))
    _decoys(scene, layout, rng, "chip", 0.2)
    if coins:  # a coin, read "5" from a 50 or a 5, is no token (no crop was cut at one before)
        _decoys(scene, layout, rng, "coin", 0.2)
    return scene


MAKERS = {"start11": start11_scene, "numeri": numeri_scene}


def _work(args) -> str:
    out, game, pool, base, k, board, coins, tiles = args
    name = f"{game}_{pool}_{base}_{k:05d}"
    target = Path(out) / f"{name}.json"
    if target.exists():
        return name
    rng = np.random.default_rng([base, k])
    scene = MAKERS[game](rng, pool, board, coins)
    on_request(scene, rng, tiles=tiles)
    image, truth = render(scene)
    truth["styles"].update(board=scene.board.style.template, tile=scene.design.tile_template,
                           token=scene.design.token_template, die=scene.design.die_template)
    if scene.meta.get("decoys_mm"):
        truth["decoys_mm"] = scene.meta["decoys_mm"]
    cv2.imwrite(str(Path(out) / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    tmp = target.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(truth))
    tmp.rename(target)
    return name


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--game", required=True, choices=sorted(MAKERS))
    ap.add_argument("--out", required=True)
    ap.add_argument("--pool", default="train", choices=["train", "holdout"])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--base-seed", type=int, default=7100)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--board", help="the board's printing in every scene (a template, e.g. facsimile)")
    ap.add_argument("--coins", action="store_true", help="coins round the board (and on it), as decoys")
    ap.add_argument("--tiles", choices=TILE_ON_REQUEST, help="11!: every tile of this family (drawn only on request)")
    a = ap.parse_args(argv)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    jobs = [(a.out, a.game, a.pool, a.base_seed, k, a.board, a.coins, a.tiles)
            for k in range(a.start, a.start + a.count)]
    if a.workers <= 1:
        for n, job in enumerate(jobs, 1):
            name = _work(job)
            if n % 25 == 0:
                print(n, name, flush=True)
        return
    with mp.Pool(a.workers) as pool:
        for n, name in enumerate(pool.imap_unordered(_work, jobs), 1):
            if n % 25 == 0:
                print(n, name, flush=True)


if __name__ == "__main__":
    main()
