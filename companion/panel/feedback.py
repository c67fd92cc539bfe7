"""What the people at the table see and hear of a press: the status LED and the buzzer.

A press only queues a command; whether the game took it is known later, when
the owner thread answers. That answer drives the feedback: a short flash and a
high tone for *accepted*, three flashes and a low tone for *refused* (a rule
said no, or the button means nothing in this game), a slow blink while a
button seems stuck. Sounds never hold anything up: gpiozero blinks the LED on
its own thread, and a tone is stopped by a call on the panel's clock.
"""

from __future__ import annotations

import threading

from gpiozero import LED, PWMLED, TonalBuzzer
from gpiozero.tones import Tone

from .clock import Clock, Timer

__all__ = ["Feedback"]


class Feedback:
    """The panel's LED and buzzer (either may be missing from the pin map)."""

    ACCEPTED = (Tone("A5"), 0.06)
    """A high, short tone; TonalBuzzer's default range is A3 to A5."""
    REFUSED = (Tone("A3"), 0.3)
    WARNING = (Tone("A3"), 1.0)
    FLASH = 0.08
    """Seconds on and off for a flash of the status LED."""

    def __init__(self, led: LED | PWMLED | None, buzzer: TonalBuzzer | None, clock: Clock,
                 *, sound: bool = True) -> None:
        self.led = led
        self.buzzer = buzzer if sound else None
        self._clock = clock
        self._lock = threading.Lock()
        self._stop: Timer | None = None
        self._tones = 0
        """Tones started so far; a stop meant for an earlier tone leaves a later one alone."""

    def accepted(self) -> None:
        self._flash(1)
        self._tone(*self.ACCEPTED)

    def refused(self) -> None:
        self._flash(3)
        self._tone(*self.REFUSED)

    def warning(self) -> None:
        """A button seems stuck: blink until :meth:`calm`."""
        if self.led is not None:
            self.led.blink(on_time=0.5, off_time=0.5)
        self._tone(*self.WARNING)

    def calm(self) -> None:
        if self.led is not None:
            self.led.off()

    def _flash(self, times: int) -> None:
        if self.led is not None:
            self.led.blink(on_time=self.FLASH, off_time=self.FLASH, n=times)

    def _tone(self, tone: Tone, seconds: float) -> None:
        buzzer = self.buzzer
        if buzzer is None:
            return
        with self._lock:
            if self._stop is not None:
                self._stop.cancel()
            self._tones += 1
            number = self._tones
            buzzer.play(tone)
            self._stop = self._clock.call_later(seconds, lambda: self._quiet(number))

    def _quiet(self, number: int) -> None:
        with self._lock:
            if number != self._tones or self.buzzer is None or self.buzzer.closed:
                return
            self._stop = None
            self.buzzer.stop()
