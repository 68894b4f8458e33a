"""Settings: defaults, the example file, layering, and errors that name the file and key."""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

import pytest

from companion import config, games
from companion.config import ConfigError, load

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "config.example.toml"
HOME_ENV = {"HOME": "/home/ada"}


def _write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _flat_keys(table: dict, prefix: str = "") -> set[str]:
    keys = set()
    for name, value in table.items():
        if isinstance(value, dict):
            keys |= _flat_keys(value, f"{prefix}{name}.")
        else:
            keys.add(f"{prefix}{name}")
    return keys


# --- defaults and the example file ----------------------------------------------------


def test_defaults() -> None:
    c = load(None, {})
    assert (c.server.host, c.server.port, c.server.public_url) == ("0.0.0.0", 8080, "")
    assert c.camera.spec == "auto"
    assert c.match.game in config.GAME_IDS and c.match.variant is None and c.match.rounds is None
    assert c.gpio.enabled == "auto"
    assert (c.gpio.buttons.next, c.gpio.buttons.undo, c.gpio.leds.turn) == (17, 23, (13,))
    assert c.rules.data_file("start11") is None
    assert c.source == "defaults"
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.server.port = 1  # type: ignore[misc]


def test_the_example_lists_every_setting_with_its_default() -> None:
    doc = tomllib.loads(EXAMPLE.read_text("utf-8"))
    assert _flat_keys(doc) == set(config.SETTINGS)
    example = load(EXAMPLE, {})
    assert dataclasses.replace(example, source="defaults") == load(None, {})


def test_every_setting_in_the_example_is_documented() -> None:
    lines = EXAMPLE.read_text("utf-8").splitlines()
    for n, line in enumerate(lines):
        if "=" in line and not line.startswith("#"):
            above = lines[n - 1].strip()
            assert above.startswith("#"), f"config.example.toml line {n + 1}: {line!r} has no comment above it"


def test_example_names_the_environment_variables() -> None:
    text = EXAMPLE.read_text("utf-8")
    for var in config.ENVIRONMENT:
        assert var in text


# --- data directory -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        (HOME_ENV, None),  # ~/.local/share/table-companion
        ({**HOME_ENV, "XDG_DATA_HOME": "/xdg"}, "/xdg/table-companion"),
        ({**HOME_ENV, "XDG_DATA_HOME": "relative/is/ignored"}, None),
        ({**HOME_ENV, "STATE_DIRECTORY": "/var/lib/table-companion:/var/lib/other"}, "/var/lib/table-companion"),
        ({**HOME_ENV, "STATE_DIRECTORY": "/var/lib/x", "COMPANION_DATA": "/srv/games"}, "/srv/games"),
    ],
)
def test_data_directory_resolution(env: dict[str, str], expected: str | None,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/ada")
    c = load(None, env)
    assert c.data.dir == (Path(expected) if expected else Path("/home/ada/.local/share/table-companion"))
    assert c.database == c.data.dir / "companion.sqlite3"


def test_command_line_data_dir_beats_environment_and_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path, '[data]\ndir = "matches"\n')
    assert load(path, {}).data.dir == tmp_path / "matches"  # relative to the file
    assert load(path, {"COMPANION_DATA": "/from/env"}).data.dir == Path("/from/env")
    monkeypatch.chdir(tmp_path)
    got = load(path, {"COMPANION_DATA": "/from/env"}, {"data.dir": "cli-dir"}).data.dir
    assert got == tmp_path / "cli-dir"  # relative to the current directory


# --- layering -------------------------------------------------------------------------


def test_file_environment_and_command_line_layers(tmp_path: Path) -> None:
    path = _write(tmp_path, '[server]\nport = 9000\nhost = "127.0.0.1"\n[camera]\nspec = "usb:1"\n')
    c = load(path, {})
    assert (c.server.port, c.server.host, c.camera.spec, c.source) == (9000, "127.0.0.1", "usb:1", str(path))
    c = load(path, {"COMPANION_PORT": "9001", "COMPANION_CAMERA": "sim"})
    assert (c.server.port, c.server.host, c.camera.spec) == (9001, "127.0.0.1", "sim")
    c = load(path, {"COMPANION_PORT": "9001"}, {"server.port": 9002, "camera.spec": None})
    assert (c.server.port, c.camera.spec) == (9002, "usb:1")  # None = flag not given


def test_config_file_from_the_environment(tmp_path: Path) -> None:
    path = _write(tmp_path, "[server]\nport = 9100\n")
    assert load(None, {"COMPANION_CONFIG": str(path)}).server.port == 9100


def test_gpio_switch_from_the_environment() -> None:
    assert load(None, {"COMPANION_GPIO": "0"}).gpio.enabled is False
    assert load(None, {"COMPANION_GPIO": "true"}).gpio.enabled is True
    assert load(None, {"COMPANION_GPIO": "AUTO"}).gpio.enabled == "auto"


def test_a_full_custom_file(tmp_path: Path) -> None:
    board = _write(tmp_path, "# my board\n", "board.toml")
    path = _write(tmp_path, f"""
[camera]
resolution = [2304, 1296]
lores = [576, 324]
fps = 15
[match]
game = "numeri"
players = ["Léa", "Hugo", "Inès"]
rounds = 2
[gpio]
enabled = false
buzzer = false
hold_time = 2
[gpio.buttons]
draw = false
[gpio.leds]
turn = [13, 19, 26]
[rules]
board = "{board.name}"
""")
    c = load(path, {})
    assert (c.camera.resolution, c.camera.lores, c.camera.fps) == ((2304, 1296), (576, 324), 15.0)
    assert (c.match.game, c.match.players, c.match.rounds) == ("numeri", ("Léa", "Hugo", "Inès"), 2)
    assert (c.gpio.enabled, c.gpio.buzzer, c.gpio.hold_time, c.gpio.buttons.draw) == (False, None, 2.0, None)
    assert c.gpio.leds.turn == (13, 19, 26)
    assert c.rules.data_file("start11") == board
    assert c.rules.data_file("numeri") is None


# --- errors name the source and the key -------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[gpio.buttons]\nnext = "x"',
         "config.toml: gpio.buttons.next: must be a BCM pin number 0–27 or false, not 'x'"),
        ("[gpio.buttons]\nnext = 28", "config.toml: gpio.buttons.next: must be a BCM pin number 0–27 or false, not 28"),
        ("[gpio.buttons]\nnext = true", "gpio.buttons.next: must be a BCM pin number 0–27 or false, not true"),
        ("[gpio.buttons]\nnext = 17\nstart = 4", "config.toml: gpio.buttons.start: unknown setting (known here: "
                                                 "draw, next, roll, undo)"),
        ("[server]\nprot = 8080", "config.toml: server.prot: unknown setting (known here: host, port, public_url)"),
        ("[serveur]\nport = 8080", "config.toml: serveur: unknown setting"),
        ("port = 8080", "config.toml: port: unknown setting"),
        ("[server]\nport = 70000", "config.toml: server.port: must be a whole number 0–65535, not 70000"),
        ('[server]\nport = "8080"', "config.toml: server.port: must be a whole number 0–65535, not '8080'"),
        ("[server]\nhost = ''", "config.toml: server.host: must be a non-empty text"),
        ('[server]\npublic_url = "jeux.local"', "config.toml: server.public_url: must be \"\" or an address"),
        ('[camera]\nspec = "webcam"', "config.toml: camera.spec: must be auto, picamera2, usb:N, file:PATH or sim"),
        ('[camera]\nspec = "usb:x"', "camera.spec: must be auto"),
        ("[camera]\nresolution = [1920]", "config.toml: camera.resolution: must be [width, height]"),
        ("[camera]\nfps = 0", "config.toml: camera.fps: must be a number from 0.5 to 120, not 0"),
        ("[camera]\nlores = [4000, 100]", "config.toml: camera.lores: camera.lores [4000, 100] must not be larger "
                                           "than camera.resolution [1920, 1080]"),
        ("[camera]\nresolution = [320, 240]", "config.toml: camera.resolution: camera.lores [640, 360] must not be"),
        ("[vision]\nmin_confidence = 1.5", "config.toml: vision.min_confidence: must be a number from 0 to 1"),
        ('[match]\ngame = "uno"', "config.toml: match.game: must be one of"),
        ('[match]\nplayers = ["Léa", "Léa"]', "config.toml: match.players: names must differ"),
        ("[match]\nplayers = []", "config.toml: match.players: must be a list of player names"),
        ('[match]\nplayers = ["A", ""]', "config.toml: match.players: name 2 must be a text"),
        ("[match]\nrounds = -1", "config.toml: match.rounds: must be a whole number 0–99, not -1"),
        ('[gpio]\nenabled = "yes please"', "config.toml: gpio.enabled: must be true, false or \"auto\""),
        ("[gpio]\nenabled = 1", "config.toml: gpio.enabled: must be true, false or \"auto\", not 1"),
        ("[gpio]\nbuttons = 3", "config.toml: gpio.buttons: must be a table [gpio.buttons], not 3"),
        ("[gpio]\nbeep = 1", "config.toml: gpio.beep: must be true or false, not 1"),
        ("[gpio]\nhold_time = 0", "config.toml: gpio.hold_time: must be a number from 0.1 to 10, not 0"),
        ("[gpio.leds]\nturn = [13, 40]", "config.toml: gpio.leds.turn: must be a BCM pin number 0–27, a list"),
        ("[gpio.leds]\nok = 17", "config.toml: gpio.leds.ok: pin 17 is used by both gpio.buttons.next and "
                                  "gpio.leds.ok"),
        ("[gpio.buttons]\nroll = 5", "config.toml: gpio.buttons.roll: pin 5 is used by both gpio.buttons.roll and "
                                      "gpio.leds.ok"),
        ("[gpio.leds]\nturn = [13, 19, 13]", "config.toml: gpio.leds.turn: pin 13 is used by both"),
        ('[gpio]\nenabled = "true"', "config.toml: gpio.enabled: must be true, false or \"auto\", not 'true'"),
        ('[camera]\nfps = "10"', "config.toml: camera.fps: must be a number from 0.5 to 120, not '10'"),
        ('[rules]\nboard = "nowhere.toml"', "config.toml: rules.board: no such file: "),
        ("[rules]\nheads = 3", "config.toml: rules.heads: must be a path (text), not 3"),
        ("[server]\nport = ", "config.toml: not valid TOML (Invalid value"),
    ],
)
def test_bad_settings_name_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as err:
        load(path, {})
    assert str(err.value).startswith(str(tmp_path) + "/")  # the file as given
    assert message in str(err.value)


def test_the_match_must_suit_the_game(tmp_path: Path) -> None:
    info = games.get("numeri").info
    names = [f"P{i}" for i in range(info.max_players + 1)]
    path = _write(tmp_path, f'[match]\ngame = "numeri"\nplayers = {names!r}\n'.replace("'", '"'))
    with pytest.raises(ConfigError, match=rf"match.players: numeri is for {info.min_players} to {info.max_players}"):
        load(path, {})
    path = _write(tmp_path, '[match]\ngame = "elfer-raus"\nvariant = "turbo"\n')
    with pytest.raises(ConfigError, match="config.toml: match.variant: unknown variant 'turbo' for elfer-raus"):
        load(path, {})
    variant = games.get("elfer-raus").info.variants[0].id
    path = _write(tmp_path, f'[match]\ngame = "elfer-raus"\nvariant = "{variant}"\n')
    assert load(path, {}).match.variant == variant


def test_the_later_layer_is_blamed(tmp_path: Path) -> None:
    small = min(games.all_games(), key=lambda g: g.info.max_players).info
    names = [f"P{i}" for i in range(small.max_players + 1)]
    path = _write(tmp_path, f"[match]\nplayers = {names!r}\n".replace("'", '"'))
    assert len(load(path, {}).match.players) == len(names)  # fine for the default game
    with pytest.raises(ConfigError, match=rf"^command line: match.game: {small.id} is for"):
        load(path, {}, {"match.game": small.id})
    with pytest.raises(ConfigError, match=r"^\$COMPANION_CAMERA: camera.spec"):
        load(path, {"COMPANION_CAMERA": "usb:"}, {"match.game": small.id})  # a value's own check comes first


def test_file_problems(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"missing.toml: no such file"):
        load(tmp_path / "missing.toml", {})
    (tmp_path / "latin1.toml").write_bytes('[match]\nplayers = ["Zo\xe9"]\n'.encode("latin-1"))
    with pytest.raises(ConfigError, match=r"latin1.toml: not a UTF-8 text file"):
        load(tmp_path / "latin1.toml", {})
    (tmp_path / "data").write_text("")
    with pytest.raises(ConfigError, match=r"config.toml: data.dir: not a directory"):
        load(_write(tmp_path, '[data]\ndir = "data"\n'), {})


def test_environment_errors_name_the_variable() -> None:
    with pytest.raises(ConfigError, match=r"^\$COMPANION_PORT: server.port: must be a whole number 0–65535, not 'ab'$"):
        load(None, {"COMPANION_PORT": "ab"})
    with pytest.raises(ConfigError, match=r"^\$COMPANION_CAMERA: camera.spec: must be auto"):
        load(None, {"COMPANION_CAMERA": "usb"})


def test_command_line_errors() -> None:
    with pytest.raises(ConfigError, match=r"^command line: server.port: must be a whole number 0–65535, not -1$"):
        load(None, {}, {"server.port": -1})
    assert load(None, {}, {"server.port": 0}).server.port == 0  # any free port
    with pytest.raises(ConfigError, match=r"^command line: server.porte: unknown setting$"):
        load(None, {}, {"server.porte": 1})
    with pytest.raises(ConfigError, match=r"^--camera: camera.spec"):
        load(None, {}, {"camera.spec": "nope"}, overrides_source="--camera")
