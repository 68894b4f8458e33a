"""\"Teach this deck\": adapt the recogniser to one printing in minutes.

The players lay out the deck (or part of it) face up, side by side. The recogniser reads the
layout (`draft`), the players confirm or correct the list on a phone, and `teach` stores what
this printing looks like:

- the classifier's embedding of every confirmed card, whole and corner index, upright and
  turned (prototypes per class: the network's own features, so no retraining is needed);
- the measured ink of each suit colour (CIELAB a*, b* against the stock white), so an orange
  "yellow" or a teal "green" is named by this deck's own inks;
- the card's size and aspect in the camera's pixels (recorded; the recogniser searches for the
  card size on its first picture all the same, as the camera may have moved since).

A profile is a folder with `profile.json` (readable, versioned) and `prototypes.npz`.
`Recognizer(game, profile=load_profile(path))` uses it: readings close to a taught prototype
are pulled toward its class (gently, `STRENGTH`), and a table showing too few cards to measure
its own inks names colours by the nearest taught ink. `benchmarks/vision_taught.py` measures
what a profile buys on printings never seen.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .classify import CARD_CLASSES, CARD_REGION, CROP, INDEX_REGION, Pyramid, rotate_quad, warp_crop
from .colour import SUITS, read_colour
from .errors import VisionError

VERSION = 1
WHOLE, INDEX, NUMERAL, CORNER = 0, 1, 2, 3  # crop kinds; numeral and corner crops are taught no prototypes
# How strongly prototypes pull a reading (logit units per cosine). Chosen on train-pool printings
# of the "mixed" family, which stand in for unseen ones (`vision_taught.py --pool train --cards
# mixed`, 8 printings x 3 games x 10 tables, 4 987 cards): read exactly 97.63 % without a profile,
# 97.67 % at 4, 97.37 % at 12 (the earlier default); pulled harder, tables' crops that only look
# like a taught card are read as it.
STRENGTH = 4.0
OLD_STRENGTH = 12.0  # the default until stop 61, stored in the profiles taught then
# Joint logits (class × 2 orientations) of the classes no deck is taught: no card, a card's back.
_UNTAUGHT = [2 * CARD_CLASSES.index(c) + o for c in ("none", "back") for o in (0, 1)]


class ProfileError(VisionError):
    """A deck profile cannot be read or built (the message names the file and the key)."""


@dataclass
class DeckProfile:
    name: str
    game: str | None
    classes: list[str]  # classes the players confirmed
    card_aspect: float | None = None  # height / width
    card_width_px: float | None = None  # in the camera that taught it
    inks: dict[str, tuple[float, float]] = field(default_factory=dict)  # colour -> (a*, b*)
    proto_feats: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), np.float32))  # M×D, unit length
    proto_labels: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))  # joint index class*2+turned
    proto_kinds: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int8))  # WHOLE or INDEX
    created: str = ""
    strength: float = STRENGTH  # how strongly prototypes pull the readings (logit units per cosine)
    features: str = ""  # fingerprint of the classifier whose features the prototypes are

    # -- storage ------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        folder = Path(path)
        folder.mkdir(parents=True, exist_ok=True)
        meta = {"version": VERSION, "name": self.name, "game": self.game, "classes": self.classes,
                "card_aspect": self.card_aspect, "card_width_px": self.card_width_px,
                "inks": {k: [round(float(a), 3), round(float(b), 3)] for k, (a, b) in self.inks.items()},
                "strength": self.strength, "created": self.created, "prototypes": int(len(self.proto_labels)),
                "features": self.features}
        np.savez_compressed(folder / "prototypes.npz", feats=self.proto_feats.astype(np.float16),
                            labels=self.proto_labels, kinds=self.proto_kinds)
        tmp = folder / "profile.json.tmp"
        tmp.write_text(json.dumps(meta, indent=1, ensure_ascii=False))
        tmp.replace(folder / "profile.json")
        return folder

    # -- use ---------------------------------------------------------------------------------
    def adjust(self, logits: np.ndarray, feats: np.ndarray | None, kinds: np.ndarray,
               temperature: float) -> np.ndarray:
        """Joint logits (N×C·2) pulled toward the taught prototypes nearest to each crop's features."""
        if feats is None or len(self.proto_labels) == 0 or len(logits) == 0:
            return logits
        f = feats / np.maximum(np.linalg.norm(feats, axis=1, keepdims=True), 1e-6)
        out = logits.copy()
        n_joint = logits.shape[1]
        for kind in (WHOLE, INDEX):
            rows = np.nonzero(kinds == kind)[0]
            protos = self.proto_kinds == kind
            if len(rows) == 0 or not protos.any():
                continue
            sims = f[rows] @ self.proto_feats[protos].T  # R×M
            labels = self.proto_labels[protos]
            best = np.full((len(rows), n_joint), -np.inf, np.float32)
            for j in np.unique(labels):
                best[:, j] = sims[:, labels == j].max(axis=1)
            if kind == INDEX:  # index crops do not tell orientation: both halves share the class
                cls = best.reshape(len(rows), -1, 2).max(axis=2)
                best = np.repeat(cls, 2, axis=1)
            taught = np.isfinite(best)
            top = np.where(taught, best, -1).max(axis=1, keepdims=True)
            med = np.array([np.median(b[t]) if t.any() else 0.0 for b, t in zip(best, taught, strict=True)])[:, None]
            adj = np.where(taught, best - top, med - top) * self.strength * temperature
            # "No card" and a card's back have no prototypes but are no less likely for a deck
            # taught: left as the network has them, a fragment or a strip of the cloth is not
            # pulled into the taught card it looks most like (train "mixed" printings at 4:
            # 97.41 -> 97.67 % read exactly, precision 99.27 -> 99.49 %; at 12, 98.43 -> 99.39 %).
            adj[:, _UNTAUGHT] = 0.0
            out[rows] += adj
        return out


def _strength(stored) -> float:
    """The pull of a loaded profile: profiles taught before stop 61 stored the default of then
    (12, never a player's choice), which pulled readings too hard; they take today's."""
    if stored is None or float(stored) == OLD_STRENGTH:
        return STRENGTH
    return float(stored)


def load_profile(path: str | Path) -> DeckProfile:
    folder = Path(path)
    if folder.is_file() and folder.name == "profile.json":
        folder = folder.parent
    js = folder / "profile.json"
    try:
        meta = json.loads(js.read_text())
    except FileNotFoundError:
        raise ProfileError(f"no deck profile at {folder} (expected {js})") from None
    except (OSError, ValueError) as exc:
        raise ProfileError(f"cannot read deck profile {js}: {exc}") from None
    if meta.get("version") != VERSION:
        raise ProfileError(f"{js}: version {meta.get('version')!r} is not supported (expected {VERSION})")
    for key in ("name", "classes"):
        if key not in meta:
            raise ProfileError(f"{js}: missing key {key!r}")
    bad = [c for c in meta["classes"] if c not in CARD_CLASSES]
    if bad:
        raise ProfileError(f"{js}: key 'classes' holds unknown classes {bad}")
    inks = {}
    for k, v in (meta.get("inks") or {}).items():
        if k not in SUITS and k != "gray":
            raise ProfileError(f"{js}: key 'inks' names an unknown colour {k!r}")
        inks[k] = (float(v[0]), float(v[1]))
    npz = folder / "prototypes.npz"
    try:
        arr = np.load(npz)
        feats, labels, kinds = arr["feats"].astype(np.float32), arr["labels"], arr["kinds"]
    except FileNotFoundError:
        raise ProfileError(f"deck profile {folder} lacks {npz.name}") from None
    except (OSError, ValueError, KeyError) as exc:
        raise ProfileError(f"cannot read {npz}: {exc}") from None
    return DeckProfile(name=str(meta["name"]), game=meta.get("game"), classes=list(meta["classes"]),
                       card_aspect=meta.get("card_aspect"), card_width_px=meta.get("card_width_px"), inks=inks,
                       proto_feats=feats, proto_labels=labels.astype(np.int32), proto_kinds=kinds.astype(np.int8),
                       created=str(meta.get("created", "")), strength=_strength(meta.get("strength")),
                       features=str(meta.get("features", "")))


# ----------------------------------------------------------------------------------------
# Teaching


def draft(recognizer, image: np.ndarray) -> list[dict]:
    """What the recogniser reads in a teaching layout, top to bottom then left to right."""
    obs = recognizer.read(image)
    cards = [c.to_json() for c in obs.cards]
    if not cards:
        return []
    h = float(np.median([np.linalg.norm(np.subtract(c["corners"][3], c["corners"][0])) for c in cards]))
    cards.sort(key=lambda c: (round(np.mean([p[1] for p in c["corners"]]) / (0.6 * h)),
                              np.mean([p[0] for p in c["corners"]])))
    return cards


def _class_of(label: dict) -> str:
    kind = label.get("kind", "number")
    if kind == "number":
        v = label.get("value")
        if not isinstance(v, int) or not 1 <= v <= 100:
            raise ProfileError(f"a number card needs a value 1..100, not {v!r}")
        return str(v)
    if kind not in CARD_CLASSES:
        raise ProfileError(f"unknown card kind {kind!r}")
    return kind


def teach(recognizer, images: list[np.ndarray], drafts: list[list[dict]], labels: list[list[dict | None]],
          name: str = "deck") -> DeckProfile:
    """Build a profile from teaching layouts: `drafts` as returned by `draft`, `labels` the confirmed
    identity of each drafted card (None: not a card / leave out)."""
    if not (len(images) == len(drafts) == len(labels)):
        raise ProfileError("images, drafts and labels must have the same length")
    clf = recognizer.classifier
    feats, labs, kinds = [], [], []
    ink_ab: dict[str, list[np.ndarray]] = {}
    widths, aspects = [], []
    classes: set[str] = set()
    for image, cards, confirmed in zip(images, drafts, labels, strict=True):
        if len(cards) != len(confirmed):
            raise ProfileError("each drafted card needs a confirmed label (or None)")
        pyr = Pyramid(image)
        for card, lab in zip(cards, confirmed, strict=True):
            if lab is None or card.get("occluded"):
                continue
            cls = _class_of(lab)
            ci = CARD_CLASSES.index(cls)
            classes.add(cls)
            quad = np.asarray(card["corners"], np.float64)
            # Which way up: the frame where the network finds the confirmed class upright.
            both = np.stack([warp_crop(pyr, rotate_quad(quad, t), CARD_REGION, CROP) for t in (0, 2)])
            logit, _f = clf.run(both)
            p = clf.to_probs(logit)
            if p[1, ci, 0] > p[0, ci, 0]:
                quad = rotate_quad(quad, 2)
            crops = [warp_crop(pyr, rotate_quad(quad, t), CARD_REGION, CROP) for t in (0, 2)]
            crops += [warp_crop(pyr, rotate_quad(quad, t), INDEX_REGION, CROP) for t in (0, 2)]
            _l, f = clf.run(np.stack(crops))
            if f is None:
                raise ProfileError("the classifier model exports no features; re-export it with vision.train")
            f = f / np.maximum(np.linalg.norm(f, axis=1, keepdims=True), 1e-6)
            feats.append(f)
            labs += [ci * 2, ci * 2 + 1, ci * 2, ci * 2]
            kinds += [WHOLE, WHOLE, INDEX, INDEX]
            w = float(np.linalg.norm(quad[1] - quad[0]))
            widths.append(w)
            aspects.append(float(np.linalg.norm(quad[3] - quad[0])) / max(w, 1e-6))
            colour = lab.get("color")
            if colour in SUITS or colour == "gray":
                pix = warp_crop(pyr, quad, (0.06, 0.05, 0.94, 0.95), (24, 36)).reshape(-1, 3)
                ink_ab.setdefault(colour, []).append(_ink_ab(pix))
    if not feats:
        raise ProfileError("no confirmed, fully visible card to learn from")
    inks = {k: tuple(float(x) for x in np.median(np.stack(v), axis=0)) for k, v in ink_ab.items()}
    return DeckProfile(name=name, game=recognizer.game, classes=sorted(classes, key=CARD_CLASSES.index),
                       card_aspect=float(np.median(aspects)), card_width_px=float(np.median(widths)), inks=inks,
                       proto_feats=np.concatenate(feats).astype(np.float32), proto_labels=np.array(labs, np.int32),
                       proto_kinds=np.array(kinds, np.int8), created=time.strftime("%Y-%m-%dT%H:%M:%S"),
                       features=clf.fingerprint)


def _ink_ab(pix: np.ndarray) -> np.ndarray:
    """(a*, b*) of a card's ink, measured as the reader measures it at play (`read_colour`), so
    that taught inks and read ones compare like with like."""
    return np.asarray(read_colour(pix).ink, np.float64)


def summary(profile: DeckProfile) -> dict[str, Any]:
    return {"name": profile.name, "game": profile.game, "classes": len(profile.classes),
            "prototypes": int(len(profile.proto_labels)), "inks": sorted(profile.inks)}
