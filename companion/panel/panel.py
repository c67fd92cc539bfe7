"""The button panel: the pin map's devices, feeding one table.

:class:`ButtonPanel` builds gpiozero devices from the pin map when it starts
(never at import), and turns presses into commands for the running companion
through the game's mapping. It never touches the game: every command goes
through ``table.submit`` (thread-safe), and the owner thread's answer comes
back to :meth:`ButtonPanel._answered`, which flashes and beeps::

    panel = ButtonPanel(table).start()
    panel.when_request = app.on_panel_request     # read dice, confirm, cancel
    ...
    panel.close()

Threads: gpiozero calls the controls on its own threads, the clock calls them
on its timer threads; both only submit commands, ask ``when_request``, or
drive the LED and buzzer. The game mapping is swapped (one assignment) on the
owner thread when a game starts.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from gpiozero import LED, PWMLED, Button, Device as GpioDevice, RotaryEncoder, TonalBuzzer
from gpiozero.pins import Factory

from companion.core.session import Change, Session
from companion.table import Result, Table

from .clock import Clock, SystemClock
from .config import PanelConfig
from .controls import PanelButton, PanelDial
from .errors import MappingError, PanelError
from .factory import choose_pin_factory
from .feedback import Feedback
from .mapping import GameMapping, Meaning, Request, expand
from .pinmap import Device, PinMap, load_pinmap

__all__ = ["ButtonPanel", "PinState"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class PinState:
    """One input pin as it is now, for a screen that checks the wiring button by button."""

    name: str
    pin: int
    pressed: bool


class ButtonPanel:
    """The buttons, dials, status LED and buzzer of one table."""

    def __init__(self, table: Table, pinmap: PinMap | None = None, *,
                 config: PanelConfig | None = None, clock: Clock | None = None,
                 pin_factory: Factory | None = None) -> None:
        self.table = table
        self.pinmap = pinmap
        self.config = config if config is not None else PanelConfig()
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.pin_factory = pin_factory
        self.when_request: Callable[[Request], None] | None = None
        """Called with each :class:`Request` (read dice, confirm, cancel), on a panel thread."""
        self.feedback = Feedback(None, None, self.clock)
        self.buttons: list[PanelButton] = []
        self.dials: dict[int, PanelDial] = {}
        self._mapping: GameMapping | None = None
        self._devices: list[GpioDevice] = []
        self._inputs: dict[int, GpioDevice] = {}
        """The gpiozero input on each GPIO, for :meth:`pins`."""
        self._detach: Callable[[], None] | None = None

    # -- starting and stopping -------------------------------------------------

    def start(self) -> ButtonPanel:
        """Check the pin map, choose the pin factory, build the devices, follow the table."""
        if self._detach is not None:
            return self
        if self.pinmap is None:
            self.pinmap = load_pinmap(self.config.pinmap)
        if self.pin_factory is None:
            self.pin_factory = choose_pin_factory(self.config.pins)
        try:
            self._build(self.pinmap, self.pin_factory)
        except BaseException:
            self.close()
            raise
        self._detach = self.table.subscribe(self._on_table)
        if self.table.session is not None:
            self._use_game(self.table.session)
        return self

    def close(self) -> None:
        """Stop following the table and release every pin; safe to call twice."""
        if self._detach is not None:
            self._detach()
            self._detach = None
        for control in self.buttons:
            control.close()
        if self._devices:
            # Closing a Button stops its hold thread, which wakes only every 0.1 s:
            # one by one, a panel of twenty buttons would take two seconds to close.
            with ThreadPoolExecutor(max_workers=len(self._devices)) as pool:
                for _ in pool.map(lambda device: device.close(), self._devices):
                    pass
        self._devices.clear()
        self._inputs.clear()
        self.buttons.clear()
        self.dials.clear()
        self.feedback = Feedback(None, None, self.clock)

    def __enter__(self) -> ButtonPanel:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _build(self, pinmap: PinMap, factory: Factory) -> None:
        led: LED | PWMLED | None = None
        buzzer: TonalBuzzer | None = None
        for device in pinmap:
            if device.kind == "button":
                button = self._button(device, device.pins["pin"], factory)
                if device.function == "confirm":
                    button.when_pressed = self.confirm
                elif device.function == "cancel":
                    button.when_pressed = self.cancel
                else:
                    self.buttons.append(PanelButton(device, button, self))
            elif device.kind == "encoder":
                encoder = self._make(device, RotaryEncoder, device.pins["a"], device.pins["b"],
                                     max_steps=0, pin_factory=factory)
                self._inputs[device.pins["a"]] = encoder.a
                self._inputs[device.pins["b"]] = encoder.b
                push = (self._button(device, device.pins["push"], factory)
                        if "push" in device.pins else None)
                assert device.seat is not None
                self.dials[device.seat] = PanelDial(device, encoder, push, self)
            elif device.kind == "led":
                led = self._make(device, PWMLED if device.pwm else LED, device.pins["pin"],
                                 pin_factory=factory)
            else:
                buzzer = self._make(device, TonalBuzzer, device.pins["pin"], pin_factory=factory)
        self.feedback = Feedback(led, buzzer, self.clock, sound=self.config.sound)

    def _button(self, device: Device, gpio: int, factory: Factory) -> Button:
        bounce = self.config.bounce_time or None
        button: Button = self._make(device, Button, gpio, pull_up=device.pull_up,
                                    bounce_time=bounce, pin_factory=factory)
        self._inputs[gpio] = button
        return button

    def _make(self, device: Device, cls: type[Any], *pins: int, **options: Any) -> Any:
        try:
            made = cls(*pins, **options)
        except Exception as e:
            # Whatever the driver raises (pin busy, no permission), say which control it was.
            where = ", ".join(f"GPIO{p}" for p in pins)
            raise PanelError(f"{device.name} ({where}, pin map line {device.line}): {e}") from e
        self._devices.append(made)
        return made

    # -- the game --------------------------------------------------------------

    @property
    def mapping(self) -> GameMapping | None:
        """The game's meanings for the controls; None: every control is refused."""
        return self._mapping

    def use(self, mapping: GameMapping | None) -> None:
        """Give the controls another game's meanings; dial turns not yet sent are dropped."""
        for dial in self.dials.values():
            dial.take()
        self._mapping = mapping

    def _on_table(self, session: Session[Any], change: Change[Any] | None) -> None:
        if change is None:
            self._use_game(session)

    def _use_game(self, session: Session[Any]) -> None:
        try:
            mapping = GameMapping.load(session.rules.name)
            mapping.check(session.vocabulary)
        except MappingError as e:
            log.error("the button panel does nothing in this game: %s", e)
            self.use(None)
        else:
            self.use(mapping)

    def pins(self) -> list[PinState]:
        """Every input pin and whether its contact is closed now, in the pin map's order."""
        if self.pinmap is None:
            return []
        return [PinState(device.label(role), gpio, bool(self._inputs[gpio].is_active))
                for gpio, (device, role) in self.pinmap.used().items() if gpio in self._inputs]

    def pending(self) -> dict[int, int]:
        """Dial steps turned and not yet sent, by seat (positive: clockwise)."""
        return {seat: dial.pending for seat, dial in self.dials.items() if dial.pending}

    # -- Confirm and Cancel: the panel's own --------------------------------------

    def confirm(self) -> None:
        """Send every dial's pending turn; with none, ask the app to confirm what it shows."""
        sent = [dial.confirm() for dial in self.dials.values()]
        if not any(sent):
            self._ask(Request("confirm"))

    def cancel(self) -> None:
        """Forget every dial's pending turn; with none, ask the app to cancel what it shows."""
        dropped = {dial.device.seat: dial.take() for dial in self.dials.values()}
        dropped = {seat: steps for seat, steps in dropped.items() if steps}
        if dropped:
            log.info("dial turns cancelled: %s", dropped)
            self.feedback.accepted()
        else:
            self._ask(Request("cancel"))

    # -- the Host interface for the controls (any thread) ---------------------------

    def meaning(self, function: str) -> Meaning | None:
        mapping = self._mapping
        return mapping.get(function) if mapping is not None else None

    def send(self, template: str, device: Device, steps: int | None = None) -> None:
        command = expand(template, seat=device.seat, steps=steps)
        if isinstance(command, Request):
            self._ask(command)
        else:
            self.table.submit(command, source="button", reply=self._answered)

    def unmapped(self, device: Device, what: str = "") -> None:
        game = self._mapping.game if self._mapping is not None else "this game"
        log.info("%s %s: means nothing in %s", device.name, what or "pressed", game)
        self.feedback.refused()

    def stuck(self, device: Device, seconds: float, repeats: int) -> None:
        log.warning("%s has been held for %.0f s: stopped after %d repeats; is it stuck?",
                    device.name, seconds, repeats)
        self.feedback.warning()

    def unstuck(self, device: Device, seconds: float) -> None:
        log.warning("%s released after %.0f s", device.name, seconds)
        self.feedback.calm()

    def _ask(self, request: Request) -> None:
        handler = self.when_request
        if handler is None:
            log.warning("the panel asks %s, but nothing is wired to answer it", request)
            self.feedback.refused()
            return
        try:
            handler(request)
        except Exception:
            # The app's handler failed on a panel thread; say so and keep the panel alive.
            log.exception("when_request failed on %s", request)
            self.feedback.refused()

    def _answered(self, result: Result) -> None:
        if result.ok:
            self.feedback.accepted()
        else:
            self.feedback.refused()
