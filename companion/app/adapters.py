"""The app's view of the hardware: small interfaces, and simulated devices behind them.

The screens show what the broker, the camera, the vision service and the LED
trackers are doing, and ask a few things of them (blink a tracker, calibrate
the tray). They do it only through the interfaces here: the real MQTT and
vision wiring is one implementation (:mod:`companion.app.wired`), and tests
and the demo run on the simulated ones. The button panel is the real
:class:`~companion.panel.ButtonPanel` everywhere, on simulated pins off a Pi
(:mod:`companion.app.buttons`).

Callbacks given to ``start`` may be called on any thread: the app wraps them
with its main-thread hop (:mod:`companion.app.bridge`) before handing them
over, so an implementation never has to think about Kivy.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

import numpy as np

__all__ = [
    "Calibration", "Camera", "CardSeen", "DeviceStatus", "DieSeen", "Hardware", "Reading",
    "SimulatedCamera", "SimulatedStatus", "SimulatedTrackers",
    "SimulatedVision", "StatusFeed", "Trackers", "Vision", "simulated_hardware",
]


# -- status ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DeviceStatus:
    """One line of the status corner: ``broker``, ``camera`` or ``tracker:<id>``."""

    key: str
    online: bool
    detail: str = ""


class StatusFeed(Protocol):
    """Reports devices going online and offline."""

    def start(self, report: Callable[[DeviceStatus], None]) -> None: ...
    def stop(self) -> None: ...


class SimulatedStatus:
    """Devices that are up or down because a test or the demo says so."""

    def __init__(self, devices: Mapping[str, bool]) -> None:
        self._devices = dict(devices)
        self._report: Callable[[DeviceStatus], None] | None = None

    def start(self, report: Callable[[DeviceStatus], None]) -> None:
        self._report = report
        for key, online in self._devices.items():
            report(DeviceStatus(key, online))

    def stop(self) -> None:
        self._report = None

    def set(self, key: str, online: bool, detail: str = "") -> None:
        """Bring a device up or down (from any thread, like a real feed)."""
        self._devices[key] = online
        if self._report is not None:
            self._report(DeviceStatus(key, online, detail))


# -- vision readings -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DieSeen:
    face: str
    box: tuple[int, int, int, int]
    """x, y, width, height in image pixels, origin top left (as OpenCV gives it)."""
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class CardSeen:
    name: str
    corners: tuple[tuple[float, float], ...]
    """Four corners in image pixels, origin top left."""
    confidence: float = 1.0


@dataclass(frozen=True, slots=True)
class Reading:
    """A settled reading of the tray: dice or a card, with the photo it was read from,
    and what the companion already did with it (``[vision] auto_confirm``)."""

    kind: Literal["dice", "card"]
    image: np.ndarray = field(repr=False, compare=False)
    """The photo, BGR as OpenCV holds it."""
    dice: tuple[DieSeen, ...] = ()
    cards: tuple[CardSeen, ...] = ()
    outcome: Literal["new", "played", "refused", "held"] = "new"
    """What the companion already did with it: nothing (a person confirms it), played at
    once (``[vision] auto_confirm``), played but refused by the game, or held until the
    other half of Loki's roll is read."""
    said: str = ""
    """What playing it did (the game's sentences), or why the game refused it."""

    @classmethod
    def from_json(cls, kind: Literal["dice", "card"], payload: Mapping[str, Any],
                  image: np.ndarray, *, scale: float = 1.0) -> Reading:
        """Build from the vision service's payload (``runes/<table>/vision/dice|card``);
        ``scale`` takes the payload's frame pixels to the photo's."""
        dice = tuple(DieSeen(str(d["face"]),
                             tuple(round(float(v) * scale) for v in d["box"]),  # type: ignore[arg-type]
                             float(d.get("confidence", 1.0)))
                     for d in payload.get("dice", ()))
        cards = tuple(CardSeen(str(c["name"]),
                               tuple((float(x) * scale, float(y) * scale) for x, y in c["corners"]),
                               float(c.get("confidence", 1.0)))
                      for c in payload.get("cards", ()))
        return cls(kind, image, dice, cards)

    def counts(self) -> dict[str, int]:
        """How many dice show each face."""
        out: dict[str, int] = {}
        for die in self.dice:
            out[die.face] = out.get(die.face, 0) + 1
        return out


class Vision(Protocol):
    """Delivers settled readings from the vision service."""

    def start(self, deliver: Callable[[Reading], None]) -> None: ...
    def stop(self) -> None: ...


class SimulatedVision:
    """Readings handed in by a test or the demo (``show``), delivered like real ones."""

    def __init__(self) -> None:
        self._deliver: Callable[[Reading], None] | None = None

    def start(self, deliver: Callable[[Reading], None]) -> None:
        self._deliver = deliver

    def stop(self) -> None:
        self._deliver = None

    def show(self, reading: Reading) -> None:
        if self._deliver is not None:
            self._deliver(reading)


def demo_dice(faces: Sequence[str], *, size: tuple[int, int] = (640, 480),
              colours: Mapping[str, tuple[int, int, int]] | None = None) -> Reading:
    """A made-up photo of a tray with ``faces`` on dice, and the reading of it."""
    import cv2

    width, height = size
    image = np.full((height, width, 3), (40, 90, 30), np.uint8)
    colours = colours or {}
    dice = []
    per_row = max(1, (width - 40) // 110)
    for i, face in enumerate(faces):
        x, y = 30 + (i % per_row) * 110, 40 + (i // per_row) * 110
        cv2.rectangle(image, (x, y), (x + 80, y + 80), colours.get(face, (230, 230, 220)), -1)
        cv2.putText(image, face[:1].upper(), (x + 22, y + 58), cv2.FONT_HERSHEY_SIMPLEX, 1.6,
                    (30, 30, 30), 3)
        dice.append(DieSeen(face, (x, y, 80, 80), 0.55 if i == 1 else 0.95))
    return Reading("dice", image, tuple(dice))


def demo_card(name: str, *, size: tuple[int, int] = (640, 480)) -> Reading:
    """A made-up photo of one card on the tray, and the reading of it."""
    import cv2

    width, height = size
    image = np.full((height, width, 3), (40, 90, 30), np.uint8)
    corners = ((200.0, 80.0), (440.0, 80.0), (440.0, 420.0), (200.0, 420.0))
    cv2.fillPoly(image, [np.array(corners, np.int32)], (225, 215, 190))
    cv2.putText(image, name[:12], (215, 250), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (40, 30, 20), 2)
    return Reading("card", image, cards=(CardSeen(name, corners, 0.9),))


# -- LED trackers ------------------------------------------------------------------------


class Trackers(Protocol):
    """The LED trackers the companion drives: which seat each shows, blink, and the
    brightness of them all (0 to 1)."""

    def trackers(self) -> list[str]: ...
    def assignments(self) -> dict[str, int | None]: ...
    def assign(self, tracker: str, seat: int | None) -> None: ...
    def blink(self, tracker: str) -> None: ...
    def set_brightness(self, level: float) -> None: ...
    def brightness(self) -> float: ...


class SimulatedTrackers:
    """Trackers that remember what they were asked, for tests and the demo."""

    def __init__(self, ids: Sequence[str]) -> None:
        self._seats: dict[str, int | None] = {i: n for n, i in enumerate(ids, 1)}
        self._brightness = 0.6
        self.blinked: list[str] = []

    def trackers(self) -> list[str]:
        return list(self._seats)

    def assignments(self) -> dict[str, int | None]:
        return dict(self._seats)

    def assign(self, tracker: str, seat: int | None) -> None:
        if tracker not in self._seats:
            raise KeyError(f"no tracker {tracker!r}")
        self._seats[tracker] = seat

    def blink(self, tracker: str) -> None:
        self.blinked.append(tracker)

    def set_brightness(self, level: float) -> None:
        self._brightness = min(1.0, max(0.0, level))

    def brightness(self) -> float:
        return self._brightness


# -- the camera ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Calibration:
    """The answer to a tray calibration: what was found, or why it failed."""

    ok: bool
    markers: bool = False
    """The four corner markers were found: the tray is seen top-down."""
    empty: bool = False
    """A picture of the empty tray was kept (dice are what differs from it)."""
    size: tuple[int, int] | None = None
    """The tray's view in pixels."""
    error: str = ""


class Camera(Protocol):
    """Live frames for the calibration preview, and the tray calibration itself.

    ``calibrate`` asks for a calibration, ``"tray"`` (the corner markers and the empty
    tray) or ``"empty"`` (a new picture of the empty tray); the answer comes later, to
    ``done``, from any thread.
    """

    def start(self, deliver: Callable[[np.ndarray], None]) -> None: ...
    def stop(self) -> None: ...
    def calibrate(self, kind: str, done: Callable[[Calibration], None]) -> None: ...


class SimulatedCamera:
    """A moving test pattern at ``fps`` frames a second, on its own thread like a real camera."""

    def __init__(self, *, fps: float = 15.0, size: tuple[int, int] = (640, 480)) -> None:
        self.fps = fps
        self.size = size
        self.frames = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, deliver: Callable[[np.ndarray], None]) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, args=(deliver,), daemon=True,
                                        name="simulated-camera")
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
            self._thread = None

    def calibrate(self, kind: str, done: Callable[[Calibration], None]) -> None:
        """Markers found at a tenth of the frame from each edge, whatever ``kind``."""
        w, h = self.size
        done(Calibration(True, markers=True, empty=True, size=(w - w // 5, h - h // 5)))

    def _run(self, deliver: Callable[[np.ndarray], None]) -> None:
        w, h = self.size
        base = np.zeros((h, w, 3), np.uint8)
        base[:, :, 1] = np.linspace(60, 120, w, dtype=np.uint8)[None, :]
        period = 1.0 / self.fps
        next_at = time.monotonic()
        while not self._stop.is_set():
            frame = base.copy()
            x = (self.frames * 7) % (w - 60)
            frame[h // 2 - 30:h // 2 + 30, x:x + 60] = (220, 220, 220)
            deliver(frame)
            self.frames += 1
            next_at += period
            self._stop.wait(max(0.0, next_at - time.monotonic()))


# -- all of it ----------------------------------------------------------------------------


@dataclass
class Hardware:
    """Every device the app shows or asks something of."""

    status: StatusFeed
    vision: Vision
    trackers: Trackers
    camera: Camera


def simulated_hardware(*, trackers: int = 4, camera_fps: float = 15.0) -> Hardware:
    """Simulated devices for tests and the demo; everything starts online."""
    ids = [str(n) for n in range(1, trackers + 1)]
    devices = {"broker": True, "camera": True, **{f"tracker:{i}": True for i in ids}}
    return Hardware(
        status=SimulatedStatus(devices),
        vision=SimulatedVision(),
        trackers=SimulatedTrackers(ids),
        camera=SimulatedCamera(fps=camera_fps),
    )
