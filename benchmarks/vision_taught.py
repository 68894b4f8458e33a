"""What "Teach this deck" buys on printings the recogniser has never seen (HOLDOUT pool).

Usage: python benchmarks/vision_taught.py [--designs 8] [--tables 10] [--layouts 2] [--seed 5000]
       [--games elfer-raus,elevens,elfer-raus-junior] [--workers 2] [--parts shapes,inks]
       [--strength S] [--pool train --cards mixed]   # choosing settings: train-pool printings

For each of `--designs` random held-out printings and each game: `--layouts` teaching layouts of
that game's deck (cards side by side, squarely, a calm camera, as the camera page asks the
players to lay them) are read (`profile.draft`), every drafted card is confirmed from the truth
as the players would on the phone (a card read where none lies is left out), and a profile is
taught (`profile.teach`). Then `--tables` random tables of that game in that printing (rows,
overlapping rows, one in five a loose heap, as `vision_accuracy.py`) are read twice: without the
profile and with it. Prints the share of visible cards read exactly, recall, precision and whole
tables exact both ways, overall and per printing. `--parts` names what of the profile is used
(the shapes: the classifier's features of each card taught; the inks of the suits). The tables'
camera heights and lights differ from the layouts', as after the camera was moved or the lamp
lit; the recogniser searches for the card size on its first picture, profile or not.

11 nimmt! is left out: its hundred numbers need more layouts than a family lays out at once.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this tree's vision, not the installed one

GAMES = ("elfer-raus", "elevens", "elfer-raus-junior")
COUNT_SHARE = 0.2  # as vision_accuracy.py
CALM = {"tilt_x_deg": 0.3, "tilt_y_deg": -0.3, "focus_sigma": 0.7, "motion_px": 0.0}


def _job(args: tuple) -> dict:
    seed, d, games, n_layouts, n_tables, parts, strength, pool, family = args
    from vision.pipeline import Recognizer
    from vision.profile import draft, teach
    from vision.render import random_design, random_scene, render
    from vision.render.designs import card_family
    from vision.train.evaluate import FULL, Score, confirm_from_truth, score_scene

    rng = np.random.default_rng([seed, d])
    design = random_design(rng, pool)
    if family is not None:
        design = card_family(design, rng, family)
    out = {"design": f"{design.template}/{design.typeface.name}", "taught": 0, "plain": Score(),
           "taught_score": Score()}
    for game in games:
        rec = Recognizer(game)
        images, drafts, labels = [], [], []
        for j in range(n_layouts):
            layout = random_scene(game, np.random.default_rng([seed, d, j, 1]), pool, design=design, mode="side",
                                  rows=4, hand=False, distractors=False, angle=0.0, camera=CALM, size=FULL)
            image, truth = render(layout)
            rec.forget()
            cards = draft(rec, image)
            images.append(image)
            drafts.append(cards)
            labels.append(confirm_from_truth(cards, truth))
        profile = teach(rec, images, drafts, labels, name=f"design {d}")
        out["taught"] += len(profile.classes)
        profile.strength = strength if "shapes" in parts else 0.0
        if "inks" not in parts:
            profile.inks = {}
        plain, taught = Recognizer(game), Recognizer(game, profile=profile)
        for k in range(n_tables):
            rng = np.random.default_rng([seed, d, 1000 + k])
            kw = {"mode": "count"} if rng.random() < COUNT_SHARE else {}
            scene = random_scene(game, rng, pool, design=design, hand=False, **kw)
            image, truth = render(scene)
            for rec_, key in ((plain, "plain"), (taught, "taught_score")):
                rec_.forget()
                obs = rec_.read(image)
                out[key].add(score_scene(truth, [c.to_json() for c in obs.cards], scene_id=f"{game}#{d}.{k}"))
    return out


def _row(name: str, s) -> str:
    m = s.summary()
    return (f"{name:<44} {s.truth:>5} {100 * m['exact']:7.2f} {100 * m['recall']:7.2f} {100 * m['precision']:7.2f} "
            f"{100 * m['scenes_exact']:7.1f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--designs", type=int, default=8)
    ap.add_argument("--tables", type=int, default=10, help="tables per printing and game")
    ap.add_argument("--layouts", type=int, default=2, help="teaching layouts per printing and game")
    ap.add_argument("--seed", type=int, default=5000)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--pool", choices=("holdout", "train"), default="holdout", help="train: for choosing settings")
    ap.add_argument("--cards", choices=("any-stock", "mixed"), default=None,
                    help="a card family drawn only on request (`designs.CARD_ON_REQUEST`; mixed stands in for "
                         "unseen printings on the train pool)")
    ap.add_argument("--strength", type=float, default=None,
                    help="the shapes' pull (logits per cosine; `profile.STRENGTH` by default)")
    ap.add_argument("--parts", default="shapes,inks",
                    help="what of the profile is used: shapes (prototypes), inks")
    a = ap.parse_args()
    games = tuple(g for g in a.games.split(",") if g)
    bad = [g for g in games if g not in GAMES]
    if bad:
        ap.error(f"--games: {', '.join(bad)} not measured here (one of {', '.join(GAMES)})")
    from vision.train.evaluate import Score

    t0 = time.time()
    parts = {p for p in a.parts.split(",") if p}
    if parts - {"shapes", "inks"}:
        ap.error(f"--parts: {', '.join(sorted(parts - {'shapes', 'inks'}))} unknown (shapes, inks)")
    from vision.profile import STRENGTH

    strength = STRENGTH if a.strength is None else a.strength
    jobs = [(a.seed, d, games, a.layouts, a.tables, parts, strength, a.pool, a.cards) for d in range(a.designs)]
    with mp.Pool(a.workers) as pool:
        results = pool.map(_job, jobs, chunksize=1)
    plain, taught = Score(), Score()
    print(f"{'printing (plain, then taught)':<44} {'cards':>5} {'exact':>7} {'recall':>7} {'precis':>7} {'tables':>7}")
    for r in results:
        plain.add(r["plain"])
        taught.add(r["taught_score"])
        print(_row(r["design"][:44], r["plain"]))
        print(_row(f"  taught ({r['taught']} classes over {len(games)} games)", r["taught_score"]))
    print(_row("ALL without a profile", plain))
    print(_row("ALL with the taught profile", taught))
    print(f"{a.designs} printings x {len(games)} games x {a.tables} tables, {a.layouts} layouts taught each; "
          f"the profile's {', '.join(sorted(parts)) or 'nothing'} used; {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
