"""The `serve` subcommand (kept apart so `companion games`/`simulate` never import the service)."""

from __future__ import annotations

import argparse
from typing import Any


def register(sub: Any) -> None:
    p = sub.add_parser("serve", help="run the live referee: camera, rules, web pages, buttons")
    p.add_argument("--camera", default=None,
                   help="auto (default), picamera2, usb:N, file:PATH or sim (automatic players on a rendered table)")
    p.add_argument("--host", default=None, help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=int, default=None, help="port (default 8080)")
    p.add_argument("--data", default=None, help="data directory (default $COMPANION_DATA, else the user's)")
    p.add_argument("--config", default=None, help="TOML config file (see config.example.toml)")
    p.set_defaults(func=_serve)


def _serve(args: argparse.Namespace) -> int:
    from .cli import UsageError
    from .config import ConfigError, load
    from .store import StoreError

    overrides = {"camera.spec": args.camera, "server.host": args.host, "server.port": args.port,
                 "data.dir": args.data}
    try:
        config = load(args.config, overrides={k: v for k, v in overrides.items() if v is not None})
    except ConfigError as exc:
        raise UsageError(str(exc)) from None
    from . import service

    try:
        return service.run(config)
    except StoreError as exc:
        raise UsageError(str(exc)) from None
