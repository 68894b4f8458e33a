"""The `companion` command: games, simulate, and (from the other packages) serve and recognize."""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence

from . import games

log = logging.getLogger(__name__)


class UsageError(Exception):
    """Bad command-line input: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def _cmd_games(args: argparse.Namespace) -> int:
    lang = args.lang
    if args.json:
        print(json.dumps([g.info.to_json() for g in games.all_games()], ensure_ascii=False, indent=2))
        return 0
    rows = [("id", "name" if lang == "en" else "nom", "players" if lang == "en" else "joueurs",
             "variants" if lang == "en" else "variantes", "winner" if lang == "en" else "gagnant")]
    for g in games.all_games():
        info = g.info
        winner = {"highest": ("plus haut total", "highest total"),
                  "lowest": ("plus petit total", "lowest total")}[info.winner]
        rows.append((
            info.id,
            info.name(lang),
            f"{info.min_players}-{info.max_players}",
            ", ".join(v.id for v in info.variants) or "-",
            winner[0] if lang == "fr" else winner[1],
        ))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    for n, row in enumerate(rows):
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    return 0


def _cmd_simulate(args: argparse.Namespace) -> int:
    from .simulate import simulate

    try:
        game = games.get(args.game)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    info = game.info
    try:
        info.variant(args.variant)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not info.min_players <= args.players <= info.max_players:
        raise UsageError(f"{info.id} is for {info.min_players} to {info.max_players} players, not {args.players}")
    if args.games < 1:
        raise UsageError("--games must be at least 1")
    report = simulate(args.game, args.players, args.games, args.seed, args.variant, args.policy)
    if not args.verbose:
        report.pop("error_messages", None)
    print(json.dumps(report, ensure_ascii=False))
    return 0 if report["errors"] == 0 else 1


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="companion", description="Table Companion: a referee for games at a real table.")
    parser.add_argument("--log-level", default=os.environ.get("COMPANION_LOG", "WARNING"),
                        choices=["DEBUG", "INFO", "WARNING", "ERROR"], help="logging level")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("games", help="list the games, their variants and player ranges")
    p.add_argument("--lang", choices=["fr", "en"], default="en")
    p.add_argument("--json", action="store_true", help="print the metadata as JSON")
    p.set_defaults(func=_cmd_games)

    p = sub.add_parser("simulate", help="play whole matches with automatic players and check the rules")
    p.add_argument("--game", required=True)
    p.add_argument("--variant", default=None)
    p.add_argument("--players", type=int, required=True)
    p.add_argument("--games", type=int, default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--policy", choices=["random", "greedy"], default="random")
    p.add_argument("--verbose", action="store_true", help="add the first error messages to the report")
    p.set_defaults(func=_cmd_simulate)

    for extra in _extra_commands():
        extra(sub)
    return parser


def _extra_commands() -> list:
    """Commands living in other modules (serve, recognize); each registers itself."""
    found = []
    for module, attr in (("companion.service_cli", "register"), ("vision.cli", "register")):
        try:
            mod = __import__(module, fromlist=[attr])
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
            continue
        found.append(getattr(mod, attr))
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        logging.basicConfig(level=args.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        return int(args.func(args) or 0)
    except UsageError as exc:
        print(f"companion: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
