"""The hardware panel on gpiozero's mock pins: presses, holds, LEDs, buzzer."""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.config import ButtonPins, GpioConfig, LedPins
from companion.hardware import Panel, PanelError

WAIT = 10.0  # seconds before giving up waiting for a background thread (never reached when it works)


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh MockFactory as gpiozero's default, restored afterwards (as gpiozero's own tests do)."""
    saved = Device.pin_factory
    Device.pin_factory = MockFactory()
    try:
        yield Device.pin_factory
    finally:
        Device.pin_factory.reset()
        Device.pin_factory = saved


def _config(**changes) -> GpioConfig:
    base = GpioConfig(enabled=True, hold_time=0.3, buttons=ButtonPins(next=17, roll=27, draw=22, undo=23),
                      leds=LedPins(ok=5, error=6, turn=(13, 19, 26)), buzzer=24)
    return replace(base, **changes)


@pytest.fixture
def panel(mock_factory: MockFactory) -> Iterator[tuple[Panel, queue.Queue[str]]]:
    commands: queue.Queue[str] = queue.Queue()
    with Panel(_config()) as p:
        p.on_command(commands.put)
        yield p, commands


def _drain(q: queue.Queue[str]) -> list[str]:
    out = []
    while not q.empty():
        out.append(q.get_nowait())
    return out


def _wait_for(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the panel")
        time.sleep(0.005)


def _press(panel: Panel, name: str) -> None:
    pin = panel.buttons[name].pin
    pin.drive_low()
    pin.drive_high()


def _hold(panel: Panel, name: str, commands: queue.Queue[str]) -> str:
    """Hold a button until the panel reports the hold, then release it; return the hold's command."""
    pin = panel.buttons[name].pin
    pin.drive_low()
    command = commands.get(timeout=WAIT)
    pin.drive_high()
    return command


def _states(pin) -> list[int]:
    return [int(s.state) for s in pin.states]


def test_presses_give_commands(panel) -> None:
    p, commands = panel
    for name in ("next", "roll", "draw", "undo"):
        _press(p, name)
    assert _drain(commands) == ["next", "roll", "draw", "undo"]


def test_a_hold_is_not_a_press(panel) -> None:
    p, commands = panel
    assert _hold(p, "undo", commands) == "undo_turn"
    assert _hold(p, "next", commands) == "new_code"
    assert _drain(commands) == []  # releasing after a hold sends no press
    _press(p, "undo")
    assert _drain(commands) == ["undo"]  # and the next short press is a press again


def test_buttons_without_a_hold_command_act_when_pressed(panel) -> None:
    p, commands = panel
    pin = p.buttons["roll"].pin
    pin.drive_low()
    assert _drain(commands) == ["roll"]  # at once, before release
    pin.drive_high()
    assert _drain(commands) == []


def test_signal_ok_flashes_green_and_clears_red(panel) -> None:
    p, _ = panel
    p.signal_error()
    _wait_for(lambda: len(p.error_led.pin.states) >= 3)
    p.signal_ok()
    assert p.error_led.pin.state == 0
    _wait_for(lambda: _states(p.ok_led.pin)[-2:] == [1, 0])
    assert _states(p.ok_led.pin) == [0, 1, 0]


def test_signal_error_blinks_red_and_beeps_twice(panel) -> None:
    p, _ = panel
    p.signal_error()
    _wait_for(lambda: _states(p.buzzer.pin) == [0, 1, 0, 1, 0])
    _wait_for(lambda: len(p.error_led.pin.states) >= 6)  # still blinking: on, off, on, off, ...
    assert _states(p.error_led.pin)[:6] == [0, 1, 0, 1, 0, 1]
    p.clear_error()
    assert p.error_led.pin.state == 0


def test_silent_buzzer(mock_factory: MockFactory) -> None:
    with Panel(_config(beep=False)) as p:
        p.signal_error()
        _wait_for(lambda: len(p.error_led.pin.states) >= 3)
        assert _states(p.buzzer.pin) == [0]


def test_show_turn_one_led_per_seat(panel) -> None:
    p, _ = panel
    lit = lambda: [led.pin.state for led in p.turn_leds]  # noqa: E731
    p.show_turn(1)
    assert lit() == [0, 1, 0]
    p.show_turn(2)
    assert lit() == [0, 0, 1]
    p.show_turn(5)  # no LED for that seat: none rather than a wrong one
    assert lit() == [0, 0, 0]
    p.show_turn(None)
    assert lit() == [0, 0, 0]


def test_show_turn_single_led(mock_factory: MockFactory) -> None:
    with Panel(_config(leds=LedPins(ok=5, error=6, turn=(13,)))) as p:
        p.show_turn(3)
        assert p.turn_leds[0].pin.state == 1
        p.show_turn(None)
        assert p.turn_leds[0].pin.state == 0


def test_unwired_devices_are_skipped(mock_factory: MockFactory, caplog: pytest.LogCaptureFixture) -> None:
    config = _config(buttons=ButtonPins(next=17, roll=None, draw=None, undo=None),
                     leds=LedPins(ok=None, error=None, turn=()), buzzer=None)
    with Panel(config) as p:
        assert list(p.buttons) == ["next"]
        p.signal_ok()
        p.signal_error()
        p.show_turn(0)  # nothing to light, nothing breaks


def test_a_failing_listener_does_not_break_the_buttons(panel, caplog: pytest.LogCaptureFixture) -> None:
    p, commands = panel
    calls: list[str] = []

    def listener(command: str) -> None:
        calls.append(command)
        if len(calls) == 1:
            raise RuntimeError("bug in the listener")

    p.on_command(listener)
    with caplog.at_level(logging.ERROR, logger="companion.hardware"):
        _press(p, "roll")
        _press(p, "draw")
    assert calls == ["roll", "draw"]
    assert "bug in the listener" in caplog.text


def test_close_turns_everything_off_and_frees_the_pins(mock_factory: MockFactory) -> None:
    p = Panel(_config())
    p.show_turn(0)
    p.signal_error()
    p.close()
    p.close()  # twice is fine
    assert all(mock_factory.pin(n).state == 0 for n in (5, 6, 13, 19, 26, 24))
    with Panel(_config()) as again:  # the pins are free again
        assert set(again.buttons) == {"next", "roll", "draw", "undo"}


def test_disabled_gpio_uses_a_private_mock_factory() -> None:
    saved = Device.pin_factory
    try:
        with Panel(_config(enabled=False)) as p:
            assert p.simulated
            commands: list[str] = []
            p.on_command(commands.append)
            _press(p, "draw")
            assert commands == ["draw"]
        assert Device.pin_factory is saved  # the global default was not touched
    finally:
        Device.pin_factory = saved


def test_auto_falls_back_to_mock_pins_without_a_pin_library(monkeypatch: pytest.MonkeyPatch) -> None:
    if Device.pin_factory is not None or os.environ.get("GPIOZERO_PIN_FACTORY"):
        pytest.skip("a pin factory is already chosen in this process")
    monkeypatch.setattr(Device, "_default_pin_factory", staticmethod(_no_pins))
    with Panel(_config(enabled="auto")) as p:
        assert p.simulated
    with pytest.raises(PanelError, match="gpio.enabled is true"):
        Panel(_config(enabled=True))
    assert Device.pin_factory is None


def _no_pins():
    from gpiozero.exc import BadPinFactory

    raise BadPinFactory("Unable to load any default pin factory!")


def test_a_pin_that_cannot_be_used_is_a_panel_error(mock_factory: MockFactory) -> None:
    with Panel(_config()):
        clash = _config(buttons=ButtonPins(next=18, roll=27, draw=None, undo=None))  # 27 is taken
        with pytest.raises(PanelError, match="cannot set up the pins"):
            Panel(clash)
    with Panel(_config(buttons=ButtonPins(next=18, roll=None, draw=None, undo=None))) as p:
        assert list(p.buttons) == ["next"]  # GPIO18, built before the failure, was released


def test_hold_thread_callbacks_run_off_the_caller_thread(panel) -> None:
    p, _ = panel
    threads: list[str] = []
    got = threading.Event()
    p.on_command(lambda c: (threads.append(threading.current_thread().name), got.set()))
    p.buttons["undo"].pin.drive_low()
    assert got.wait(WAIT)
    p.buttons["undo"].pin.drive_high()
    assert threads and threads[0] != threading.current_thread().name


@pytest.mark.hardware
def test_real_pins_light_and_read() -> None:  # pragma: no cover - needs a Pi with the panel wired
    if not os.environ.get("COMPANION_TEST_REAL_PINS"):
        pytest.skip("set COMPANION_TEST_REAL_PINS=1 on a Pi with the panel wired")
    with Panel(GpioConfig(enabled=True)) as p:
        assert not p.simulated
        p.signal_error()
        p.show_turn(0)
        time.sleep(1)
        p.signal_ok()
        assert all(not b.is_pressed for b in p.buttons.values())
