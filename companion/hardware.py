"""The panel at the table: buttons, LEDs and a buzzer, through gpiozero.

`Panel(config.gpio)` builds the devices of the pin map and speaks in intents: buttons
become commands ("next", "roll", "draw", "undo", and for a hold "new_code" or
"undo_turn") given to the `on_command` callback; the referee calls `signal_ok()`,
`signal_error()` and `show_turn(seat)`.

Without pins (a laptop, the tests, `gpio.enabled = false`) the devices run on gpiozero's
own `MockFactory`, so the same code runs everywhere and tests drive the mock pins.

gpiozero calls button callbacks on its own threads: the panel only forwards the command
to the callback, which must queue it for the referee and return at once.
"""

from __future__ import annotations

import logging
import threading
import warnings
from collections.abc import Callable
from typing import Any

from gpiozero import LED, Button, Buzzer, Device, GPIOZeroError
from gpiozero.pins.mock import MockFactory

from .config import GpioConfig

log = logging.getLogger(__name__)

BUTTONS = ("next", "roll", "draw", "undo")
# A hold is a different command from a press on these buttons; on the others a hold is
# just a (slow) press, sent as soon as the button goes down.
HOLD_COMMANDS = {"next": "new_code", "undo": "undo_turn"}

OK_FLASH = 0.3  # seconds the green LED stays lit for an accepted move
ERROR_BLINK = 0.25  # half-period of the red LED while an error is pending
BEEP = 0.1  # length of each of the two error beeps

Command = Callable[[str], Any]


class PanelError(RuntimeError):
    """The pins cannot be used as configured; the message says what to check."""


class Panel:
    """Buttons, LEDs and buzzer of the pin map `config`; a context manager."""

    def __init__(self, config: GpioConfig, *, pin_factory: Any = None) -> None:
        self.config = config
        self._factory, self._own_factory = _choose_factory(config, pin_factory)
        self._callback: Command | None = None
        self._lock = threading.Lock()
        self._held: set[str] = set()
        self._closed = False
        self.buttons: dict[str, Button] = {}
        self.ok_led: LED | None = None
        self.error_led: LED | None = None
        self.turn_leds: tuple[LED, ...] = ()
        self.buzzer: Buzzer | None = None
        try:
            self._build()
        except (GPIOZeroError, OSError) as exc:
            self.close()
            raise PanelError(f"gpio: cannot set up the pins ({exc}); check the [gpio] pin numbers, that lgpio is "
                             "installed and that the service's user is in the gpio group") from exc

    @property
    def simulated(self) -> bool:
        """True when no real pins are driven (gpiozero's MockFactory)."""
        return isinstance(self._factory, MockFactory)

    def _build(self) -> None:
        c = self.config
        for name in BUTTONS:
            pin = getattr(c.buttons, name)
            if pin is not None:
                button = Button(pin, pull_up=True, bounce_time=c.bounce_time or None, hold_time=c.hold_time,
                                pin_factory=self._factory)
                self.buttons[name] = button
                self._wire(name, button)
        if c.leds.ok is not None:
            self.ok_led = LED(c.leds.ok, pin_factory=self._factory)
        if c.leds.error is not None:
            self.error_led = LED(c.leds.error, pin_factory=self._factory)
        self.turn_leds = tuple(LED(pin, pin_factory=self._factory) for pin in c.leds.turn)
        if c.buzzer is not None:  # built even when silent, so the pin is driven off
            self.buzzer = Buzzer(c.buzzer, pin_factory=self._factory)

    def _wire(self, name: str, button: Button) -> None:
        if name in HOLD_COMMANDS:
            # Press and hold on one button: a hold fires `when_held` after hold_time; the
            # release counts as a press only if no hold fired (gpiozero FAQ).
            button.when_held = lambda: self._held_down(name)
            button.when_released = lambda: self._released(name)
        else:
            button.when_pressed = lambda: self._emit(name)

    def _held_down(self, name: str) -> None:
        with self._lock:
            # Released in the instant the hold fired: the release handler sends the press,
            # so exactly one command comes out of one push.
            if not self.buttons[name].is_pressed:
                return
            self._held.add(name)
        self._emit(HOLD_COMMANDS[name])

    def _released(self, name: str) -> None:
        with self._lock:
            was_held = name in self._held
            self._held.discard(name)
        if not was_held:
            self._emit(name)

    def _emit(self, command: str) -> None:
        callback = self._callback
        if callback is None:
            log.debug("button %s with nobody listening", command)
            return
        try:
            callback(command)
        except Exception:  # never let a listener's bug kill gpiozero's callback thread
            log.exception("the %r button handler failed", command)

    # --- intents --------------------------------------------------------------------

    def on_command(self, callback: Command | None) -> None:
        """Give each button command ("next", "undo_turn", ...) to `callback`."""
        self._callback = callback

    def signal_ok(self) -> None:
        """A move was accepted: clear a pending error, flash the green LED."""
        if self.error_led is not None:
            self.error_led.off()
        if self.ok_led is not None:
            self.ok_led.blink(on_time=OK_FLASH, off_time=0, n=1, background=True)

    def signal_error(self) -> None:
        """Something needs fixing: the red LED blinks until the next `signal_ok`/`clear_error`;
        two short beeps (unless `gpio.beep` is false)."""
        if self.ok_led is not None:
            self.ok_led.off()
        if self.error_led is not None:
            self.error_led.blink(on_time=ERROR_BLINK, off_time=ERROR_BLINK, background=True)
        if self.buzzer is not None and self.config.beep:
            self.buzzer.beep(on_time=BEEP, off_time=BEEP, n=2, background=True)

    def clear_error(self) -> None:
        if self.error_led is not None:
            self.error_led.off()

    def show_turn(self, seat: int | None) -> None:
        """Light the LED of the seat to play; None = nobody (the table or a check is awaited).

        With a single turn LED it is lit whenever some player is to move. A seat without
        its own LED lights none rather than a wrong one.
        """
        if len(self.turn_leds) == 1:
            self.turn_leds[0].value = seat is not None
            return
        for index, led in enumerate(self.turn_leds):
            led.value = index == seat

    def close(self) -> None:
        """Release every pin (LEDs off); safe to call twice."""
        if self._closed:
            return
        self._closed = True
        self._callback = None
        outputs = [d for d in (self.ok_led, self.error_led, *self.turn_leds, self.buzzer) if d is not None]
        for device in outputs:
            device.off()  # closing alone leaves a pin as it was: an LED could stay lit after exit
        for device in [*self.buttons.values(), *outputs]:
            device.close()
        if self._own_factory:
            self._factory.close()

    def __enter__(self) -> Panel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _choose_factory(config: GpioConfig, given: Any) -> tuple[Any, bool]:
    """The pin factory to use and whether the panel owns it (and closes it)."""
    if given is not None:
        return given, False
    if config.enabled is False:
        return MockFactory(), True
    try:
        # gpiozero warns once per library it cannot load; that is expected on a laptop.
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            Device.ensure_pin_factory()
        for warning in caught:
            log.debug("gpiozero: %s", warning.message)
    except Exception as exc:  # gpiozero raises BadPinFactory, ImportError, OSError ...
        if config.enabled is True:
            raise PanelError(f"gpio.enabled is true but no GPIO pins can be used here ({exc}); install lgpio "
                             "(apt install python3-lgpio) or set gpio.enabled = \"auto\"") from exc
        log.info("no GPIO pins here (%s): the buttons and LEDs are simulated", exc)
        return MockFactory(), True
    return Device.pin_factory, False


__all__ = ["BUTTONS", "HOLD_COMMANDS", "Panel", "PanelError"]
