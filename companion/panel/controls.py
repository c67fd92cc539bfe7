"""The panel's inputs: push buttons that press, repeat or long-press, and seat dials.

gpiozero does the electrical part: its ``bounce_time`` drops contact bounce,
its ``RotaryEncoder`` decodes the quadrature signal and counts every step on
its own callback thread. What gpiozero has no notion of is what a person
*means* by holding a button, so that is here:

* a button whose meaning repeats sends its command on press, then again after
  ``repeat_delay``, then faster and faster (``repeat_interval`` times
  ``repeat_acceleration`` after each repeat, down to ``repeat_fastest``). After
  ``repeat_limit`` repeats it stops and warns: a button held that long is
  stuck, and a stuck button must not flood the game;
* a button with a long-press meaning sends ``hold`` once it has been down for
  ``hold_time``; released sooner, it sends ``press`` on release (it cannot
  know on the way down which one the person means);
* a dial adds up its steps until it is pushed (or Confirm is pressed), then
  sends the net turn as one command: an encoder spun faster than anyone reads
  it still gives exactly the steps turned, as one action.

gpiozero's own ``hold_time``/``hold_repeat`` repeat at a fixed rate, without a
limit, on the wall clock; the timing here runs on the panel's :class:`Clock`
so that tests can hold a button for minutes in no time.

Callbacks arrive on gpiozero's threads and the clock's: each control guards
its state with its own lock and hands commands to its host outside it.
"""

from __future__ import annotations

import logging
import threading
from typing import Protocol

from gpiozero import Button, RotaryEncoder

from .clock import Clock, Timer
from .config import PanelConfig
from .mapping import Meaning
from .pinmap import Device

__all__ = ["Host", "PanelButton", "PanelDial"]

log = logging.getLogger(__name__)


class Host(Protocol):
    """What a control needs from the panel that owns it."""

    clock: Clock
    config: PanelConfig

    def meaning(self, function: str) -> Meaning | None: ...

    def send(self, template: str, device: Device, steps: int | None = None) -> None: ...

    def unmapped(self, device: Device, what: str = "") -> None: ...

    def stuck(self, device: Device, seconds: float, repeats: int) -> None: ...

    def unstuck(self, device: Device, seconds: float) -> None: ...


class PanelButton:
    """One push button: its press, its repeats while held, or its long press."""

    def __init__(self, device: Device, button: Button, host: Host) -> None:
        self.device = device
        self.button = button
        self._host = host
        self._lock = threading.Lock()
        self._generation = 0
        """Counts presses and releases; a timer set for an earlier one does nothing."""
        self._meaning: Meaning | None = None
        self._timer: Timer | None = None
        self._since = 0.0
        self._repeats = 0
        self._interval = 0.0
        self._held = False
        self._stuck = False
        button.when_pressed = self._pressed
        button.when_released = self._released

    def _pressed(self) -> None:
        host, config = self._host, self._host.config
        meaning = host.meaning(self.device.function)
        command = None
        with self._lock:
            self._cancel_timer()
            self._generation += 1
            generation = self._generation
            self._meaning = meaning
            self._since = host.clock.monotonic()
            self._held = self._stuck = False
            self._repeats = 0
            if meaning is not None and meaning.hold is not None:
                self._timer = host.clock.call_later(meaning.hold_time,
                                                    lambda: self._long(generation))
            elif meaning is not None:
                command = meaning.press
                if meaning.repeat:
                    self._interval = config.repeat_interval
                    self._timer = host.clock.call_later(config.repeat_delay,
                                                        lambda: self._repeat(generation))
        if meaning is None:
            host.unmapped(self.device)
        elif command is not None:
            host.send(command, self.device)

    def _repeat(self, generation: int) -> None:
        host, config = self._host, self._host.config
        command = None
        with self._lock:
            if generation != self._generation or self._meaning is None:
                return
            self._repeats += 1
            if self._repeats > config.repeat_limit:
                self._stuck = True
                seconds = host.clock.monotonic() - self._since
            else:
                command = self._meaning.press
                self._timer = host.clock.call_later(self._interval,
                                                    lambda: self._repeat(generation))
                self._interval = max(config.repeat_fastest,
                                     self._interval * config.repeat_acceleration)
        if command is not None:
            host.send(command, self.device)
        else:
            host.stuck(self.device, seconds, config.repeat_limit)

    def _long(self, generation: int) -> None:
        with self._lock:
            if generation != self._generation or self._meaning is None:
                return
            self._held = True
            command = self._meaning.hold
        if command is not None:
            self._host.send(command, self.device)

    def _released(self) -> None:
        command = None
        with self._lock:
            self._cancel_timer()
            self._generation += 1
            meaning = self._meaning
            if meaning is not None and meaning.hold is not None and not self._held:
                command = meaning.press
            stuck, seconds = self._stuck, self._host.clock.monotonic() - self._since
        if stuck:
            self._host.unstuck(self.device, seconds)
        if command is not None:
            self._host.send(command, self.device)

    def close(self) -> None:
        """Forget the press in progress: no repeat or long press may follow."""
        with self._lock:
            self._cancel_timer()
            self._generation += 1

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


class PanelDial:
    """A seat's rotary encoder: turns add up until a push sends them as one command."""

    def __init__(self, device: Device, encoder: RotaryEncoder, push: Button | None,
                 host: Host) -> None:
        self.device = device
        self.encoder = encoder
        self.push = push
        self._host = host
        self._lock = threading.Lock()
        self._taken: int = encoder.steps
        """Steps already sent or cancelled; gpiozero's count is never reset, so no step is lost."""
        if push is not None:
            push.when_pressed = self.confirm

    @property
    def pending(self) -> int:
        """Steps turned and not yet sent: positive clockwise."""
        return int(self.encoder.steps) - self._taken

    def take(self) -> int:
        """The pending steps, now counted as dealt with."""
        with self._lock:
            steps: int = self.encoder.steps
            turned, self._taken = steps - self._taken, steps
        return turned

    def confirm(self) -> bool:
        """Send the net turn as one command; False if the dial had not been turned."""
        turned = self.take()
        if turned == 0:
            return False
        meaning = self._host.meaning(self.device.function)
        template = None
        if meaning is not None:
            template = meaning.clockwise if turned > 0 else meaning.counter_clockwise
        if template is None:
            direction = "clockwise" if turned > 0 else "counter-clockwise"
            self._host.unmapped(self.device, f"turned {direction}")
        else:
            self._host.send(template, self.device, abs(turned))
        return True
