"""Cut training crops for the board readers from rendered scenes (`board_scenes`), exactly as the
readers cut them at run time (`vision.board.crop_transform` + `sample_crop`), from the true board
view plus the small errors a located view has (shift, turn, scale).

Outputs one .npz per kind (``tiles``, ``tokens``, ``dice``) with ``x`` (N×S×S×3 uint8), ``y``
(class index, see `vision.board.TILE_CLASSES`, `vision.tokens.TOKEN_CLASSES`,
`vision.dice.DIE_CLASSES`), ``colour`` (the true colour name, for checking the colour reader) and
``scene`` (scene index, to split training and validation by scene).

    python -m vision.train.board_crops --scenes /work/data/boards --out /work/data/board_crops
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import cv2
import numpy as np

from vision.board import TILE_CROP, TILE_CROP_MM, tile_class
from vision.boardfind import layout_points
from vision.boardview import BoardView, crop_transform, fit_view, sample_crop
from vision.classify import Pyramid
from vision.dice import DIE_CROP, DIE_CROP_MM, die_class
from vision.layouts import load_layout
from vision.tokens import TOKEN_CROP, TOKEN_CROP_MM, board_white, token_class

DIE_VIEWS = 8  # crops of each die (turned, shifted, lit differently): one die per scene, many negatives


def true_view(truth: dict, layout) -> BoardView:
    sq = truth["layout"]["squares"]
    pts = layout_points(layout)
    px = np.array([sq[str(q.id)]["center"] for q in layout.squares], np.float64)
    size = tuple(truth["size"])
    view, _ = fit_view(pts, px, np.ones(len(pts)), size, (layout.width_mm, layout.height_mm))
    return view


def _angle_on_board(view: BoardView, corners) -> float:
    """Direction of an item's TL -> TR edge on the board, degrees clockwise."""
    c = view.to_board(np.asarray(corners, np.float64))
    d = c[1] - c[0]
    return math.degrees(math.atan2(d[1], d[0]))


def _crop(pyr, view, centre, size_mm, out_px, angle, rng, shift=1.2, turn=2.0, scale=0.03):
    c = np.asarray(centre, np.float64) + rng.normal(0, shift, 2)
    m = crop_transform(view, c, size_mm, out_px, angle + rng.normal(0, turn), 1.0 + rng.normal(0, scale))
    return sample_crop(pyr, m, out_px)


def _inside(view, centre_mm, margin_px=4.0) -> bool:
    p = view.to_image(np.asarray(centre_mm, np.float64).reshape(1, 2))[0]
    w, h = view.image_size
    return bool(margin_px <= p[0] <= w - margin_px and margin_px <= p[1] <= h - margin_px)


def start11_crops(img, truth, rng, out, board_share: float = 1.0, at_proposals: bool = False) -> None:
    """Crops of the board's squares (`board_share` of them), of the loose tiles, of decoys and of
    the table; `at_proposals`: also every crop the reader cuts beside the board (`_loose_at_proposals`)."""
    layout = load_layout("start11")
    view = true_view(truth, layout)
    pyr = Pyramid(img)
    by_square = {c["square"]: c for c in truth["cards"] if c.get("square")}
    hidden = {c.get("square") for c in truth.get("hidden", []) if c.get("square")}
    if at_proposals:
        _loose_at_proposals(pyr, view, layout, truth, rng, out)
    for q in layout.squares:
        if q.id in hidden or not _inside(view, (q.x, q.y), 10) or (board_share < 1.0 and rng.random() >= board_share):
            continue
        card = by_square.get(q.id)
        if card is None:
            out.append((_crop(pyr, view, (q.x, q.y), TILE_CROP_MM, TILE_CROP, 0.0, rng), 0, "none"))
            continue
        a = _angle_on_board(view, card["corners"])
        quarter = int(round(a / 90.0)) % 4
        label = tile_class(card["kind"], card["value"], quarter)
        for _ in range(2):
            out.append((_crop(pyr, view, (q.x, q.y), TILE_CROP_MM, TILE_CROP, 0.0, rng), label,
                        card.get("color") or "none"))
    # Loose tiles: read in the frame of their own outline, in any of the four quarter turns.
    for card in truth["cards"]:
        if card.get("square"):
            continue
        centre = view.to_board(np.asarray(card["corners"], np.float64)).mean(axis=0)
        a = _angle_on_board(view, card["corners"])
        for _ in range(2):
            k = int(rng.integers(0, 4))
            out.append((_crop(pyr, view, centre, TILE_CROP_MM, TILE_CROP, a - 90 * k, rng, 1.5, 4.0),
                        tile_class(card["kind"], card["value"], k), card.get("color") or "none"))
        # near misses: a tile half out of the crop is not "a tile here"
        off = rng.normal(0, 1, 2)
        off = off / np.linalg.norm(off) * rng.uniform(11, 16)
        out.append((_crop(pyr, view, centre + off, TILE_CROP_MM, TILE_CROP, float(rng.uniform(0, 360)), rng), 0,
                    "none"))
    _decoy_crops(pyr, view, truth, rng, out, TILE_CROP_MM, TILE_CROP, 2)  # a plain square is no tile
    _negatives(pyr, view, layout, truth, rng, out, TILE_CROP_MM, TILE_CROP, 10)


def _label_points(points: np.ndarray, things: np.ndarray, others: list, near: float, clear: float
                  ) -> list[tuple[int, int | None]]:
    """The index of each of `points` (board mm) with that of the thing of `things` lying there (within
    `near` mm), or None where nothing lies within `clear` mm (a "nothing here" crop); a point
    between the two, or within `clear` of one of `others` (things hidden or cut by the border), is
    left out: half on a thing, neither."""
    out: list[tuple[int, int | None]] = []
    for j, p in enumerate(points):
        dist = np.linalg.norm(things - p, axis=1) if len(things) else np.zeros(0)
        if len(dist) and dist.min() < near:
            out.append((j, int(dist.argmin())))
        elif not (len(dist) and dist.min() < clear) and all(np.linalg.norm(o - p) >= clear for o in others):
            out.append((j, None))
    return out


def _loose_at_proposals(pyr, view, layout, truth, rng, out) -> None:
    """The crops the reader cuts beside the board (`board.loose_points`: the tile finder's peaks
    and the strongest blobs, each squared to its own edges), labelled with the loose tile lying
    there in the crop's quarter turn, or "none" where no tile does (a cloth's checks and chips,
    a prop's print, a tile's edge): the reader's own errors of place and angle, and its hard
    negatives."""
    from vision.board import LOOSE_TILE_MM, loose_points

    props, _heat, angles = loose_points(pyr, view, layout, TILE_CROP)
    loose = [c for c in truth["cards"] if not c.get("square")]
    centres = np.array([view.to_board(np.asarray(c["corners"], np.float64)).mean(axis=0) for c in loose]).reshape(-1, 2)
    others = [view.to_board(np.asarray(e["corners"], np.float64)).mean(axis=0)
              for e in truth.get("hidden", []) + truth.get("outside", []) if "corners" in e]
    for j, i in _label_points(props, centres, others, 0.3 * LOOSE_TILE_MM, 0.6 * LOOSE_TILE_MM):
        d = angles[j]
        if i is None:
            label, colour = 0, "none"
        else:
            card = loose[i]
            k = int(round((_angle_on_board(view, card["corners"]) - d) / 90.0)) % 4
            label, colour = tile_class(card["kind"], card["value"], k), card.get("color") or "none"
        out.append((_crop(pyr, view, props[j], TILE_CROP_MM, TILE_CROP, d, rng, 0.5, 1.0, 0.02), label,
                    colour))


def _negatives(pyr, view, layout, truth, rng, out, size_mm, px, n) -> None:
    """Crops of the table round the board (and of props) where none of our things lie."""
    things = []
    for key in ("cards", "tokens", "dice", "hidden", "outside"):
        for e in truth.get(key, []):
            c = np.asarray(e["corners"], np.float64).mean(axis=0) if "corners" in e else np.asarray(e["center"])
            things.append(view.to_board(c.reshape(1, 2))[0])
    things = np.array(things).reshape(-1, 2)
    w, h = view.image_size
    made = tries = 0
    while made < n and tries < 20 * n:
        tries += 1
        p = np.array([rng.uniform(0, w), rng.uniform(0, h)])
        b = view.to_board(p.reshape(1, 2))[0]
        if -5 < b[0] < layout.width_mm + 5 and -5 < b[1] < layout.height_mm + 5 and rng.random() < 0.8:
            continue  # mostly off the board (on the board, squares are read in place)
        if len(things) and np.linalg.norm(things - b, axis=1).min() < 0.6 * size_mm:
            continue
        out.append((_crop(pyr, view, b, size_mm, px, float(rng.uniform(0, 360)), rng), 0, "none"))
        made += 1
    for item in truth.get("items", []):  # props, when the scene recorded them
        if item.get("obj") == "prop":
            b = view.to_board(np.asarray(item["corners"], np.float64)).mean(axis=0)
            out.append((_crop(pyr, view, b, size_mm, px, float(rng.uniform(0, 360)), rng), 0, "none"))


def _decoy_crops(pyr, view, truth, rng, out, size_mm, px, n) -> None:
    """`n` "nothing here" crops at each decoy the scene holds (`board_scenes`: plain discs and
    squares with no numeral, `distractors.DECOYS`)."""
    for b in truth.get("decoys_mm", []):
        b = np.asarray(b, np.float64)
        if _inside(view, b, 10):
            for _ in range(n):
                out.append((_crop(pyr, view, b, size_mm, px, float(rng.uniform(0, 360)), rng, 1.5), 0, "none"))


def _away_from_dice(view, truth, pts: np.ndarray) -> np.ndarray:
    """The board-mm points `pts` over 0.6 of a die's crop from every die, seen or hidden."""
    dice = [view.to_board(np.asarray(d["corners"], np.float64)).mean(axis=0)
            for d in truth["dice"] + [h for h in truth.get("hidden", []) if h.get("object") == "die"]]
    if not dice or not len(pts):
        return pts
    return pts[np.linalg.norm(pts[:, None] - np.array(dice)[None], axis=2).min(axis=1) > 0.6 * DIE_CROP_MM]


def _proposal_negatives(pyr, view, truth, rng, out, n) -> None:
    """"No die" crops where the die reader will look: its blob proposals (the table's knots,
    dots and checks, tokens' and props' edges) away from any die: the hard negatives."""
    from vision.board import table_proposals
    from vision.dice import DIE_MM

    props = _away_from_dice(view, truth, table_proposals(pyr, view, DIE_MM, limit=240))
    if not len(props):
        return
    for i in rng.choice(len(props), size=min(n, len(props)), replace=False):
        out.append((_crop(pyr, view, props[i], DIE_CROP_MM, DIE_CROP, float(rng.uniform(0, 360)), rng), 0, "none"))


def _finder_negatives(pyr, view, truth, rng, out) -> None:
    """"No die" crops at the die finder's peaks away from any die (a terrazzo's dark chips, a
    cloth's dots): the die reader reads every peak, and the die net, trained before the finder
    was, read such chips as a star."""
    from vision.dice import DIE_FINDER, FINDER_LIMIT
    from vision.finder import find_centres

    for b in _away_from_dice(view, truth, find_centres(pyr, view, DIE_FINDER)[:FINDER_LIMIT]):
        out.append((_crop(pyr, view, b, DIE_CROP_MM, DIE_CROP, float(rng.uniform(0, 360)), rng), 0, "none"))


def _tokens_at_proposals(pyr, view, layout, truth, rng, out) -> None:
    """The crops the Numeri reader cuts beside the board (`tokens.beside_points`: the token
    finder's peaks and the strongest blobs off the track's squares), labelled with the token lying
    there or "no token" away from every token and die: a camouflage cloth's blotches, a chip's
    print, a prop's edge, where the reader looks and the random negatives seldom fall."""
    from vision.finder import find_peaks
    from vision.tokens import TOKEN_FINDER, TOKEN_MM, beside_points

    peaks, _heat = find_peaks(pyr, view, TOKEN_FINDER)
    props, _spare = beside_points(pyr, view, layout, peaks)
    loose = [t for t in truth["tokens"] if t.get("square") is None]
    at = np.array([view.to_board(np.asarray(t["center"], np.float64).reshape(1, 2))[0] for t in loose]).reshape(-1, 2)
    others = [view.to_board(np.asarray(e["corners"], np.float64)).mean(axis=0)
              for e in truth["dice"] + truth.get("hidden", []) + truth.get("outside", []) if "corners" in e]
    others += [view.to_board(np.asarray(e["center"], np.float64).reshape(1, 2))[0]
               for e in truth.get("hidden", []) + truth.get("outside", []) if "center" in e and "corners" not in e]
    for j, i in _label_points(props, at, others, 0.25 * TOKEN_MM, 0.6 * TOKEN_MM):
        label, colour = (0, "none") if i is None else (token_class(loose[i]["value"]), loose[i]["color"])
        out.append((_crop(pyr, view, props[j], TOKEN_CROP_MM, TOKEN_CROP, float(rng.uniform(0, 360)), rng, 0.5), label,
                    colour))


def numeri_crops(img, truth, rng, tokens, dice, finder_negatives: bool = False, at_proposals: bool = False
                 ) -> None:
    """Crops of the track's squares, of the tokens and dice beside it, of decoys and of the table;
    `at_proposals`: also every crop the reader cuts beside the board (`_tokens_at_proposals`)."""
    layout = load_layout("numeri")
    view = true_view(truth, layout)
    pyr = Pyramid(img)
    n0 = len(tokens)
    white = board_white(pyr, view, layout)
    if at_proposals:
        _tokens_at_proposals(pyr, view, layout, truth, rng, tokens)
    on_square = {t["square"]: t for t in truth["tokens"] if t.get("square") is not None}
    hidden = {t.get("square") for t in truth.get("hidden", []) if t.get("square") is not None}
    dice_sq = set()
    for d in truth["dice"] + [h for h in truth.get("hidden", []) if h.get("object") == "die"]:
        b = view.to_board(np.asarray(d["corners"], np.float64)).mean(axis=0)
        dice_sq |= {q.id for q in layout.squares if abs(q.x - b[0]) < 30 and abs(q.y - b[1]) < 30}
    for q in layout.squares:
        if q.id in hidden or q.id in dice_sq or not _inside(view, (q.x, q.y), 10):
            continue
        t = on_square.get(q.id)
        ang = float(rng.uniform(0, 360))
        if t is None:
            tokens.append((_crop(pyr, view, (q.x, q.y), TOKEN_CROP_MM, TOKEN_CROP, ang, rng), 0, "none"))
        else:
            for _ in range(2):
                tokens.append((_crop(pyr, view, (q.x, q.y), TOKEN_CROP_MM, TOKEN_CROP, float(rng.uniform(0, 360)),
                                     rng), token_class(t["value"]), t["color"]))
    for t in truth["tokens"]:
        if t.get("square") is not None:
            continue
        b = view.to_board(np.asarray(t["center"], np.float64).reshape(1, 2))[0]
        for _ in range(2):
            tokens.append((_crop(pyr, view, b, TOKEN_CROP_MM, TOKEN_CROP, float(rng.uniform(0, 360)), rng, 1.8),
                           token_class(t["value"]), t["color"]))
        off = rng.normal(0, 1, 2)
        off = off / np.linalg.norm(off) * rng.uniform(14, 20)
        tokens.append((_crop(pyr, view, b + off, TOKEN_CROP_MM, TOKEN_CROP, float(rng.uniform(0, 360)), rng), 0,
                       "none"))
    for d in truth["dice"]:
        b = view.to_board(np.asarray(d["corners"], np.float64)).mean(axis=0)
        for _ in range(DIE_VIEWS):
            dice.append((_crop(pyr, view, b, DIE_CROP_MM, DIE_CROP, float(rng.uniform(0, 360)), rng, 1.2),
                         die_class(d["value"]), "none"))
        off = rng.normal(0, 1, 2)
        off = off / np.linalg.norm(off) * rng.uniform(10, 14)
        dice.append((_crop(pyr, view, b + off, DIE_CROP_MM, DIE_CROP, float(rng.uniform(0, 360)), rng), 0, "none"))
        # a die read by the token reader is "no token"
        tokens.append((_crop(pyr, view, b, TOKEN_CROP_MM, TOKEN_CROP, float(rng.uniform(0, 360)), rng), 0, "none"))
    _decoy_crops(pyr, view, truth, rng, tokens, TOKEN_CROP_MM, TOKEN_CROP, 2)  # a plain disc is no token,
    _decoy_crops(pyr, view, truth, rng, dice, DIE_CROP_MM, DIE_CROP, 1)  # and no die
    for t in truth["tokens"][:6]:  # a token read by the die reader is "no die"
        b = view.to_board(np.asarray(t["center"], np.float64).reshape(1, 2))[0]
        dice.append((_crop(pyr, view, b, DIE_CROP_MM, DIE_CROP, float(rng.uniform(0, 360)), rng), 0, "none"))
    _negatives(pyr, view, layout, truth, rng, tokens, TOKEN_CROP_MM, TOKEN_CROP, 8)
    _negatives(pyr, view, layout, truth, rng, dice, DIE_CROP_MM, DIE_CROP, 8)
    _proposal_negatives(pyr, view, truth, rng, dice, 12)
    if finder_negatives:
        _finder_negatives(pyr, view, truth, rng, dice)
    for i in range(n0, len(tokens)):  # the picture's white goes with each token crop
        tokens[i] = (*tokens[i], white)


def _save(path: Path, rows: list) -> None:
    if not rows:
        return
    x = np.stack([r[0] for r in rows])
    y = np.array([r[1] for r in rows], np.int16)
    colour = np.array([r[2] for r in rows])
    scene = np.array([r[-1] for r in rows], np.int32)
    extra = {"white": np.array([r[3] for r in rows], np.float32)} if len(rows[0]) == 5 else {}
    np.savez_compressed(path, x=x, y=y, colour=colour, scene=scene, **extra)
    print(path, x.shape, np.bincount(y))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--game", choices=["start11", "numeri"], default=None, help="only this game's scenes")
    ap.add_argument("--kinds", default="tiles,tokens,dice", help="which crop files to write")
    ap.add_argument("--board-share", type=float, default=1.0, help="11!: crop this share of the board's squares")
    ap.add_argument("--at-proposals", action="store_true",
                    help="also every crop the reader cuts beside the board, labelled (`_loose_at_proposals`, "
                         "`_tokens_at_proposals`)")
    ap.add_argument("--die-finder-negatives", action="store_true",
                    help="numeri: also a 'no die' crop at each die finder peak away from any die")
    a = ap.parse_args(argv)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    tiles, tokens, dice = [], [], []
    files = sorted(Path(a.scenes).glob(f"{a.game or ''}*.json"))
    if a.limit:
        files = files[: a.limit]
    for k, f in enumerate(files):
        truth = json.loads(f.read_text())
        img = cv2.imread(str(f.with_suffix(".jpg")))
        if img is None:
            continue
        t0, k0, d0 = [], [], []
        if truth["game"] == "start11":
            start11_crops(img, truth, rng, t0, a.board_share, a.at_proposals)
        else:
            numeri_crops(img, truth, rng, k0, d0, a.die_finder_negatives, a.at_proposals)
        tiles += [(*r, k) for r in t0]
        tokens += [(*r, k) for r in k0]
        dice += [(*r, k) for r in d0]
        if (k + 1) % 50 == 0:
            print(k + 1, len(tiles), len(tokens), len(dice), flush=True)
    kinds = set(a.kinds.split(","))
    for name, rows in (("tiles", tiles), ("tokens", tokens), ("dice", dice)):
        if name in kinds:
            _save(out / f"{name}.npz", rows)


if __name__ == "__main__":
    main()
