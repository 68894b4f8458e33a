"""Render train-pool scenes for the detector and for realistic classifier crops.

Each scene is saved as ``<out>/<name>.jpg`` (the rendered photo), ``<name>.json`` (the
renderer's truth plus the image outline of every item in drawing order) and, when a hand is
in view, ``<name>_hand.png`` (its coverage). The per-item outlines let the detector's
targets (which card shows at each pixel) be rebuilt at any scale.

    python -m vision.train.scenes --out /work/data/scenes --pool train --count 2400 --workers 2
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
from pathlib import Path

import cv2
import numpy as np

from vision.render import Camera, on_request, random_scene, render, render_static
from vision.render.compose import rect_mm
from vision.render.designs import CARD_ON_REQUEST
from vision.render.faces import index_regions
from vision.render.scene import item_size

# Game mix: card games the recogniser reads, plus a few board scenes as negatives (tiles and
# tokens are not cards for this detector).
GAME_MIX = (("elfer-raus", 0.28), ("elevens", 0.25), ("11-nimmt", 0.24), ("elfer-raus-junior", 0.17),
            ("start11", 0.03), ("numeri", 0.03))
COUNT_SHARE = 0.2  # round-end spreads of loose cards at any angle


ROW_GAMES = ("elfer-raus", "elevens", "elfer-raus-junior")


def scene_for(pool: str, seed: list[int], game: str | None = None, overlap: float = 0.0,
              count_share: float = COUNT_SHARE, cards: str | None = None, **overrides):
    """A random scene; `overlap`: extra share of row-game scenes forced into overlapping rows
    (the hardest layout to find cards in); `count_share`: share of card scenes spread loose;
    `cards`: a card family drawn only on request (`designs.CARD_ON_REQUEST`), or the pool's."""
    rng = np.random.default_rng(seed)
    if game is None:
        names, p = zip(*GAME_MIX, strict=True)
        game = str(rng.choice(names, p=np.asarray(p) / sum(p)))
    if game not in ("start11", "numeri") and "mode" not in overrides and rng.random() < count_share:
        overrides["mode"] = "count"
    elif game in ROW_GAMES and "mode" not in overrides and overlap and rng.random() < overlap:
        overrides["mode"] = "overlap"
    scene = random_scene(game, rng, pool, **overrides)
    if cards is not None:
        on_request(scene, rng, cards=cards)
    return scene


def render_with_geometry(scene) -> tuple[np.ndarray, dict, np.ndarray | None]:
    """Same image and truth as `vision.render.render`, plus item outlines and the hand coverage.

    The hand's coverage needs the renderer's overlay step (mirrors `render`); without a hand the
    public `render` is used as is."""
    mask = None
    if scene.hand is None:
        image, truth = render(scene)
    else:
        from vision.render.overlay import HandCompositor, add_hand_truth, finish

        static = render_static(scene)
        image, truth = static.image, static.truth
        layer = HandCompositor(static, scene).layer(scene.hand)
        if layer is not None:
            image = layer.composite(image)
            mask = layer.mask()
        truth = add_hand_truth(truth, layer)
        image = finish(image, static.cam, np.random.default_rng([scene.seed, 7]))
    truth = dict(truth)
    truth["items"] = item_outlines(scene)
    return image, truth, mask


def item_outlines(scene) -> list[dict]:
    """Every item's top-face outline in image pixels, in drawing order (later items cover earlier ones)."""
    cam = Camera(scene.camera, scene.size)
    out = []
    order = sorted(range(len(scene.items)), key=lambda i: (scene.items[i].layer, i))
    for i in order:
        it = scene.items[i]
        w, h, t = item_size(it, scene.design)
        q = cam.distort(cam.project(rect_mm(w, h, it.x, it.y, it.angle), it.z + t))
        entry = {"obj": it.obj, "corners": np.round(q, 2).tolist()}
        if it.obj in ("card", "tile"):
            entry.update(kind=it.card.get("kind", "number"), value=it.card.get("value"), color=it.card.get("color"))
        if it.obj == "card":  # where its corner indices are printed (fractions of the face), for the index finder
            entry["indices"] = [list(r) for r in index_regions(it.card, scene.design)]
        elif it.obj == "prop":
            entry["name"] = it.card.get("name")
        out.append(entry)
    return out


def _work(args) -> str:
    out, pool, base, k, hand, overlap, count_share, cards, game = args
    name = f"{pool}_{base}_{k:05d}"
    if (Path(out) / f"{name}.json").exists():
        return name
    scene = scene_for(pool, [base, k], game, overlap=overlap, count_share=count_share, cards=cards,
                      **({} if hand else {"hand": False}))
    image, truth, mask = render_with_geometry(scene)
    truth["styles"]["design_template"] = scene.design.template
    truth["styles"]["typeface"] = scene.design.typeface.name
    truth["card_size_mm"] = [scene.design.card_w, scene.design.card_h]
    truth["overlap"] = overlap  # `scene_for` needs these to draw the same scene again
    truth["count_share"] = count_share
    truth["cards_family"] = cards
    truth["game_asked"] = game
    cv2.imwrite(str(Path(out) / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 95])
    if mask is not None:
        cv2.imwrite(str(Path(out) / f"{name}_hand.png"), (mask > 0.5).astype(np.uint8) * 255)
    tmp = Path(out) / f"{name}.json.tmp"
    tmp.write_text(json.dumps(truth))
    tmp.rename(Path(out) / f"{name}.json")
    return name


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--pool", default="train", choices=["train", "holdout"])
    ap.add_argument("--count", type=int, default=100)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument("--base-seed", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--overlap", type=float, default=0.0, help="extra share of row scenes in overlapping rows")
    ap.add_argument("--count-share", type=float, default=COUNT_SHARE, help="share of card scenes spread loose")
    ap.add_argument("--cards", choices=CARD_ON_REQUEST, default=None,
                    help="cards of a family drawn only on request (designs.CARD_ON_REQUEST), e.g. mixed")
    ap.add_argument("--game", default=None, help="only this game (default: the mix GAME_MIX)")
    ap.add_argument("--no-hand", action="store_true", help="no hand over the table (evaluation sets)")
    a = ap.parse_args(argv)
    Path(a.out).mkdir(parents=True, exist_ok=True)
    jobs = [(a.out, a.pool, a.base_seed, k, not a.no_hand, a.overlap, a.count_share, a.cards, a.game)
            for k in range(a.start, a.start + a.count)]
    with mp.Pool(a.workers) as pool:
        for n, name in enumerate(pool.imap_unordered(_work, jobs), 1):
            if n % 50 == 0:
                print(n, name, flush=True)


if __name__ == "__main__":
    main()
