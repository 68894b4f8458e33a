"""Settings of the service: a TOML file, then environment variables, then the command line.

`load(path, env, overrides)` returns a frozen `Config`. Every setting has a default (see
`config.example.toml`, which lists them all), so the file is optional. Later layers win:
defaults < file < environment (`COMPANION_*`) < command line. Any unknown key or bad value
raises `ConfigError` naming where it came from and the key, e.g.
``config.toml: gpio.buttons.next: must be a BCM pin number 0–27 or false, not 'x'``.

Relative paths are relative to the config file's directory (in the file) or to the
current directory (environment, command line). The data directory, when nobody sets it,
is systemd's `$STATE_DIRECTORY`, else `$XDG_DATA_HOME/table-companion`, else
`~/.local/share/table-companion`.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from . import games
from .store import DATABASE_NAME

APP_DIR_NAME = "table-companion"

# The product's game ids (DESIGN.md section 4); a game whose engine is registered is also
# checked for its variants and player range.
GAME_IDS = ("start11", "elevens", "elfer-raus-junior", "elfer-raus", "11-nimmt", "numeri")
BCM_PINS = range(28)

# Environment variables and the setting each one overrides.
ENVIRONMENT = {
    "COMPANION_DATA": "data.dir",
    "COMPANION_CAMERA": "camera.spec",
    "COMPANION_HOST": "server.host",
    "COMPANION_PORT": "server.port",
    "COMPANION_PUBLIC_URL": "server.public_url",
    "COMPANION_GPIO": "gpio.enabled",
}
CONFIG_ENV = "COMPANION_CONFIG"  # the file to read when `load` gets no path


class ConfigError(ValueError):
    """A setting that cannot be used; the message names its source and key."""


# --- the settings -------------------------------------------------------------------


@dataclass(frozen=True)
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = 8080
    public_url: str = ""  # "" = http://<LAN address>:<port>/


@dataclass(frozen=True)
class CameraConfig:
    spec: str = "auto"
    resolution: tuple[int, int] = (1920, 1080)
    fps: float = 10.0
    lores: tuple[int, int] = (640, 360)


@dataclass(frozen=True)
class VisionConfig:
    stable_frames: int = 5
    min_confidence: float = 0.9
    boards: bool = False  # read the 11! board and the Numeri track (their readers are not yet good enough)


@dataclass(frozen=True)
class MatchConfig:
    game: str = "elfer-raus"
    variant: str | None = None
    players: tuple[str, ...] = ("Joueur 1", "Joueur 2", "Joueur 3", "Joueur 4")
    rounds: int | None = None  # None = the game's own number of rounds


@dataclass(frozen=True)
class ButtonPins:
    next: int | None = 17
    roll: int | None = 27
    draw: int | None = 22
    undo: int | None = 23


@dataclass(frozen=True)
class LedPins:
    ok: int | None = 5
    error: int | None = 6
    turn: tuple[int, ...] = (13,)  # one LED, or one per seat


@dataclass(frozen=True)
class GpioConfig:
    enabled: bool | Literal["auto"] = "auto"
    bounce_time: float = 0.05
    hold_time: float = 1.5
    beep: bool = True
    buzzer: int | None = 24
    buttons: ButtonPins = field(default_factory=ButtonPins)
    leds: LedPins = field(default_factory=LedPins)


@dataclass(frozen=True)
class DataConfig:
    dir: Path


@dataclass(frozen=True)
class RulesConfig:
    board: Path | None = None  # start11: the board's rows and bridges
    track: Path | None = None  # numeri: the track's values and barriers
    heads: Path | None = None  # 11-nimmt: bull heads per card

    def data_file(self, game_id: str) -> Path | None:
        """The user's data file for this game, or None for the shipped one."""
        return {"start11": self.board, "numeri": self.track, "11-nimmt": self.heads}.get(game_id)


@dataclass(frozen=True)
class Config:
    server: ServerConfig
    camera: CameraConfig
    vision: VisionConfig
    match: MatchConfig
    gpio: GpioConfig
    data: DataConfig
    rules: RulesConfig
    source: str = "defaults"  # the file read, for messages

    @property
    def database(self) -> Path:
        return self.data.dir / DATABASE_NAME


# --- value checkers -------------------------------------------------------------------


class _Bad(Exception):
    """A value's problem, without its location (added by the loader)."""


@dataclass(frozen=True)
class _Ctx:
    base: Path  # for relative paths
    text: bool = False  # values arrive as text (environment, command line): "8080" may be a number


Parser = Callable[[Any, _Ctx], Any]


def _show(value: Any) -> str:
    return repr(value) if not isinstance(value, bool) else str(value).lower()


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _int(lo: int, hi: int) -> Parser:
    def parse(value: Any, ctx: _Ctx) -> int:
        if ctx.text and isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
            value = int(value)
        if not _is_int(value) or not lo <= value <= hi:
            raise _Bad(f"must be a whole number {lo}–{hi}, not {_show(value)}")
        return value
    return parse


def _number(lo: float, hi: float) -> Parser:
    def parse(value: Any, ctx: _Ctx) -> float:
        if ctx.text and isinstance(value, str):
            try:
                value = float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
            raise _Bad(f"must be a number from {lo:g} to {hi:g}, not {_show(value)}")
        return float(value)
    return parse


def _bool(value: Any, ctx: _Ctx) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"must be true or false, not {_show(value)}")
    return value


def _text(value: Any, ctx: _Ctx) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"must be a non-empty text, not {_show(value)}")
    return value.strip()


def _optional_text(value: Any, ctx: _Ctx) -> str | None:
    if value == "":
        return None
    return _text(value, ctx)


def _url(value: Any, ctx: _Ctx) -> str:
    if value == "":
        return ""
    if not isinstance(value, str) or not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
        raise _Bad(f"must be \"\" or an address like http://192.168.1.20:8080/, not {_show(value)}")
    return value


_SPEC = re.compile(r"auto|picamera2|sim(:.*)?|usb:\d+|file:.+")


def _camera_spec(value: Any, ctx: _Ctx) -> str:
    if not isinstance(value, str) or not _SPEC.fullmatch(value):
        raise _Bad(f"must be auto, picamera2, usb:N, file:PATH or sim, not {_show(value)}")
    return value


def _size(value: Any, ctx: _Ctx) -> tuple[int, int]:
    if (not isinstance(value, list) or len(value) != 2 or not all(_is_int(v) and 16 <= v <= 8192 for v in value)):
        raise _Bad(f"must be [width, height] in pixels (16–8192), not {_show(value)}")
    return (value[0], value[1])


def _pin(value: Any, ctx: _Ctx) -> int | None:
    if value is False:
        return None  # not wired
    if not _is_int(value) or value not in BCM_PINS:
        raise _Bad(f"must be a BCM pin number 0–27 or false, not {_show(value)}")
    return value


def _pins(value: Any, ctx: _Ctx) -> tuple[int, ...]:
    if value is False:
        return ()
    values = value if isinstance(value, list) else [value]
    if not values or len(values) > 10 or not all(_is_int(v) and v in BCM_PINS for v in values):
        raise _Bad(f"must be a BCM pin number 0–27, a list of them (one per seat) or false, not {_show(value)}")
    return tuple(values)


def _enabled(value: Any, ctx: _Ctx) -> bool | str:
    if isinstance(value, str):
        word = value.strip().lower()
        if ctx.text:
            value = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}.get(word, word)
        elif word == "auto":
            value = word
    if not (value is True or value is False or value == "auto"):  # `in` would let 1 pass as True
        raise _Bad(f"must be true, false or \"auto\", not {_show(value)}")
    return value


def _path(must_exist: bool) -> Parser:
    def parse(value: Any, ctx: _Ctx) -> Path | None:
        if value == "":
            return None
        if not isinstance(value, str):
            raise _Bad(f"must be a path (text), not {_show(value)}")
        path = (ctx.base / Path(value).expanduser()).absolute()
        if must_exist and not path.is_file():
            raise _Bad(f"no such file: {path}")
        if not must_exist and path.exists() and not path.is_dir():
            raise _Bad(f"not a directory: {path}")
        return path
    return parse


def _players(value: Any, ctx: _Ctx) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise _Bad(f"must be a list of player names, not {_show(value)}")
    names = []
    for i, name in enumerate(value):
        if not isinstance(name, str) or not name.strip() or len(name.strip()) > 24:
            raise _Bad(f"name {i + 1} must be a text of 1 to 24 characters, not {_show(name)}")
        names.append(name.strip())
    if len(set(names)) != len(names):
        raise _Bad(f"names must differ, not {names!r}")
    return tuple(names)


def _game(value: Any, ctx: _Ctx) -> str:
    known = sorted(set(GAME_IDS) | set(games.ids()))
    if value not in known:
        raise _Bad(f"must be one of {', '.join(known)}, not {_show(value)}")
    return value


def _rounds(value: Any, ctx: _Ctx) -> int | None:
    return _int(0, 99)(value, ctx) or None


# Every setting: dotted key -> (parser, default). The order is the file's order.
_D_GPIO = GpioConfig()
SETTINGS: dict[str, tuple[Parser, Any]] = {
    "server.host": (_text, ServerConfig.host),
    "server.port": (_int(0, 65535), ServerConfig.port),  # 0: any free port (tests)
    "server.public_url": (_url, ServerConfig.public_url),
    "camera.spec": (_camera_spec, CameraConfig.spec),
    "camera.resolution": (_size, CameraConfig.resolution),
    "camera.fps": (_number(0.5, 120), CameraConfig.fps),
    "camera.lores": (_size, CameraConfig.lores),
    "vision.stable_frames": (_int(1, 100), VisionConfig.stable_frames),
    "vision.min_confidence": (_number(0, 1), VisionConfig.min_confidence),
    "vision.boards": (_bool, VisionConfig.boards),
    "match.game": (_game, MatchConfig.game),
    "match.variant": (_optional_text, MatchConfig.variant),
    "match.players": (_players, MatchConfig.players),
    "match.rounds": (_rounds, MatchConfig.rounds),
    "gpio.enabled": (_enabled, _D_GPIO.enabled),
    "gpio.bounce_time": (_number(0, 1), _D_GPIO.bounce_time),
    "gpio.hold_time": (_number(0.1, 10), _D_GPIO.hold_time),
    "gpio.beep": (_bool, _D_GPIO.beep),
    "gpio.buzzer": (_pin, _D_GPIO.buzzer),
    "gpio.buttons.next": (_pin, _D_GPIO.buttons.next),
    "gpio.buttons.roll": (_pin, _D_GPIO.buttons.roll),
    "gpio.buttons.draw": (_pin, _D_GPIO.buttons.draw),
    "gpio.buttons.undo": (_pin, _D_GPIO.buttons.undo),
    "gpio.leds.ok": (_pin, _D_GPIO.leds.ok),
    "gpio.leds.error": (_pin, _D_GPIO.leds.error),
    "gpio.leds.turn": (_pins, _D_GPIO.leds.turn),
    "data.dir": (_path(must_exist=False), None),
    "rules.board": (_path(must_exist=True), None),
    "rules.track": (_path(must_exist=True), None),
    "rules.heads": (_path(must_exist=True), None),
}
_TABLES = {key.rsplit(".", 1)[0] for key in SETTINGS}


# --- loading --------------------------------------------------------------------------


def load(
    path: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
    *,
    overrides_source: str = "command line",
) -> Config:
    """Build the settings: defaults, then the file, then `env`, then `overrides`.

    `env` defaults to `os.environ`; `overrides` maps dotted keys ("server.port") to values,
    e.g. from command-line flags (None values are skipped).
    """
    env = os.environ if env is None else env
    values = {key: default for key, (_, default) in SETTINGS.items()}
    origin: dict[str, tuple[int, str]] = {}  # key -> (layer, source) of its value
    if path is None and env.get(CONFIG_ENV):
        path = env[CONFIG_ENV]
    source = "defaults"
    if path is not None:
        source = str(path)
        flat = _read_file(Path(path), source)
        _apply(values, origin, flat, (1, source), _Ctx(Path(path).absolute().parent))
    cwd = _Ctx(Path.cwd(), text=True)
    for var, key in ENVIRONMENT.items():
        if env.get(var, "") != "":
            _apply(values, origin, {key: env[var]}, (2, f"${var}"), cwd)
    if overrides:
        unknown = sorted(set(overrides) - set(SETTINGS))
        if unknown:
            raise ConfigError(f"{overrides_source}: {unknown[0]}: unknown setting")
        given = {k: v for k, v in overrides.items() if v is not None}
        _apply(values, origin, given, (3, overrides_source), cwd)
    if values["data.dir"] is None:
        values["data.dir"] = default_data_dir(env)
    _check_together(values, lambda key: origin.get(key, (0, "defaults")))
    return _build(values, source)


def default_data_dir(env: Mapping[str, str]) -> Path:
    """systemd's state directory, else the XDG data directory of the user."""
    if env.get("STATE_DIRECTORY"):
        return Path(env["STATE_DIRECTORY"].split(":")[0])
    xdg = env.get("XDG_DATA_HOME", "")
    base = Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "share"
    return base / APP_DIR_NAME


def _read_file(path: Path, source: str) -> dict[str, Any]:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{source}: no such file") from None
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the file ({exc.strerror or exc})") from exc
    except UnicodeDecodeError:
        raise ConfigError(f"{source}: not a UTF-8 text file") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML ({exc})") from exc
    flat: dict[str, Any] = {}
    _flatten(doc, "", flat, source)
    return flat


def _flatten(table: Mapping[str, Any], prefix: str, out: dict[str, Any], source: str) -> None:
    for name, value in table.items():
        key = f"{prefix}{name}"
        if key in SETTINGS:
            out[key] = value
        elif key in _TABLES:
            if not isinstance(value, dict):
                raise ConfigError(f"{source}: {key}: must be a table [{key}], not {_show(value)}")
            _flatten(value, f"{key}.", out, source)
        else:
            siblings = sorted(k.removeprefix(prefix) for k in SETTINGS | dict.fromkeys(_TABLES)
                              if k.startswith(prefix) and "." not in k.removeprefix(prefix))
            raise ConfigError(f"{source}: {key}: unknown setting (known here: {', '.join(siblings)})")


def _apply(values: dict[str, Any], origin: dict[str, tuple[int, str]], given: Mapping[str, Any],
           layer: tuple[int, str], ctx: _Ctx) -> None:
    for key, raw in given.items():
        parse = SETTINGS[key][0]
        try:
            values[key] = parse(raw, ctx)
        except _Bad as bad:
            raise ConfigError(f"{layer[1]}: {key}: {bad}") from None
        origin[key] = layer


def _check_together(values: Mapping[str, Any], origin: Callable[[str], tuple[int, str]]) -> None:
    """Rules that involve two settings. The message blames the one given by the later layer,
    not a default it happens to collide with."""

    def fail(key: str, other: str, why: str) -> ConfigError:
        blame = other if origin(other)[0] > origin(key)[0] else key
        return ConfigError(f"{origin(blame)[1]}: {blame}: {why}")

    lores, main = values["camera.lores"], values["camera.resolution"]
    if lores[0] > main[0] or lores[1] > main[1]:
        raise fail("camera.lores", "camera.resolution",
                   f"camera.lores {list(lores)} must not be larger than camera.resolution {list(main)}")

    used: dict[int, str] = {}
    for key in ("gpio.buttons.next", "gpio.buttons.roll", "gpio.buttons.draw", "gpio.buttons.undo",
                "gpio.leds.ok", "gpio.leds.error", "gpio.leds.turn", "gpio.buzzer"):
        value = values[key]
        for pin in value if isinstance(value, tuple) else (value,):
            if pin is None:
                continue
            if pin in used:
                raise fail(key, used[pin], f"pin {pin} is used by both {used[pin]} and {key} "
                                           "(give one of them another pin, or false)")
            used[pin] = key

    game_id = values["match.game"]
    try:
        info = games.get(game_id).info
    except KeyError:
        return  # the engine is not there yet: only its id could be checked
    try:
        info.variant(values["match.variant"])
    except ValueError as exc:
        raise fail("match.variant", "match.game", str(exc)) from None
    players = len(values["match.players"])
    if not info.min_players <= players <= info.max_players:
        raise fail("match.players", "match.game",
                   f"{game_id} is for {info.min_players} to {info.max_players} players, not {players}")


def _build(v: Mapping[str, Any], source: str) -> Config:
    return Config(
        server=ServerConfig(v["server.host"], v["server.port"], v["server.public_url"]),
        camera=CameraConfig(v["camera.spec"], v["camera.resolution"], v["camera.fps"], v["camera.lores"]),
        vision=VisionConfig(v["vision.stable_frames"], v["vision.min_confidence"], v["vision.boards"]),
        match=MatchConfig(v["match.game"], v["match.variant"], v["match.players"], v["match.rounds"]),
        gpio=GpioConfig(
            enabled=v["gpio.enabled"],
            bounce_time=v["gpio.bounce_time"],
            hold_time=v["gpio.hold_time"],
            beep=v["gpio.beep"],
            buzzer=v["gpio.buzzer"],
            buttons=ButtonPins(v["gpio.buttons.next"], v["gpio.buttons.roll"], v["gpio.buttons.draw"],
                               v["gpio.buttons.undo"]),
            leds=LedPins(v["gpio.leds.ok"], v["gpio.leds.error"], v["gpio.leds.turn"]),
        ),
        data=DataConfig(v["data.dir"]),
        rules=RulesConfig(v["rules.board"], v["rules.track"], v["rules.heads"]),
        source=source,
    )


__all__ = [
    "ENVIRONMENT",
    "GAME_IDS",
    "SETTINGS",
    "ButtonPins",
    "CameraConfig",
    "Config",
    "ConfigError",
    "DataConfig",
    "GpioConfig",
    "LedPins",
    "MatchConfig",
    "RulesConfig",
    "ServerConfig",
    "VisionConfig",
    "default_data_dir",
    "load",
]
