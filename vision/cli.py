"""`companion recognize --game GAME IMAGE...`: one JSON line per image (DESIGN.md 4, exact).

    {"image": "<path as given>", "ms": 41.2, "cards": [...], "tokens": [...], "dice": [...]}

An unreadable image gives `{"image": ..., "error": "<message>"}`; the others are still read and
the exit status is then 1 (else 0). Nothing is ever printed as a traceback: unexpected failures
become error lines too. Optional flags add information, never remove any.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path

import numpy as np

from .pipeline import GAMES

log = logging.getLogger(__name__)


def register(subparsers) -> None:
    p = subparsers.add_parser("recognize", help="read cards (tiles, tokens, dice) from still photos as JSON lines",
                              description="Read still images with the live recogniser; print one JSON line per image.")
    p.add_argument("--game", required=True, choices=GAMES, help="which game's table the photos show")
    p.add_argument("--profile", metavar="DECK", default=None,
                   help="a deck profile taught with `teach` (vision.profile): adapts to this printing")
    p.add_argument("--board", metavar="FILE", default=None, help="board calibration, for board readers (11!, Numeri)")
    p.add_argument("--indices", choices=["always", "auto"], default=None,
                   help="read corner indices of fully visible cards always (default) or only when unsure (faster)")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.set_defaults(func=run)


def load_image(path: str) -> np.ndarray:
    """BGR uint8 image, or ValueError with a message a user can act on."""
    import cv2

    p = Path(path)
    if not p.exists():
        raise ValueError(f"no such file: {path}")
    if p.is_dir():
        raise ValueError(f"is a directory, not an image: {path}")
    try:
        data = np.fromfile(str(p), dtype=np.uint8)  # handles non-ASCII paths, unlike cv2.imread
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    if data.size == 0:
        raise ValueError(f"empty file: {path}")
    img = cv2.imdecode(data, cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"not an image OpenCV can decode (JPEG, PNG, BMP, TIFF, WebP...): {path}")
    return img


def run(args: argparse.Namespace) -> int:
    status = 0
    rec = None
    setup_error = None
    try:
        from .pipeline import Recognizer, RecognizerConfig

        profile = None
        if args.profile:
            from .profile import load_profile

            profile = load_profile(args.profile)
        cfg = RecognizerConfig(indices=args.indices) if args.indices else RecognizerConfig()
        rec = Recognizer(args.game, cfg, profile=profile, options={"board": args.board})
    except Exception as exc:  # noqa: BLE001 - reported per image, never as a traceback
        log.debug("recogniser setup failed", exc_info=True)
        setup_error = f"recogniser unavailable: {exc}"
    for path in args.images:
        line: dict
        try:
            image = load_image(path)
            if rec is None:
                raise RuntimeError(setup_error)
            obs = rec.read(image)
            line = {"image": path, **obs.to_json()}
        except Exception as exc:  # noqa: BLE001 - one bad image must not stop the others
            log.debug("reading %s failed", path, exc_info=True)
            line = {"image": path, "error": str(exc) or type(exc).__name__}
            status = 1
        sys.stdout.write(json.dumps(line, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    return status
