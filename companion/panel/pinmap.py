"""The pin map: which GPIO is which control, checked in full before any pin is touched.

``hardware/panel/pinmap.toml`` is the one description of the panel. The
companion builds its gpiozero devices from it, and the pin table, the bill of
materials and the wiring diagram in ``hardware/panel/`` are generated from it
(``python -m companion.panel.docs``), so the wiring and the software cannot
disagree. Each control is a ``[[device]]`` table::

    [[device]]
    function = "plus"      # what the control is (FUNCTIONS)
    seat = 3               # per-seat controls: the seat number in the game
    pin = 23               # a BCM GPIO number (or any name gpiozero knows: "GPIO23", "BOARD16")
    pull_up = true         # the switch connects the pin to GND
    key = "s"              # the key that stands for it in the desktop demo

An encoder has ``a``, ``b`` and an optional ``push`` pin instead of ``pin``,
and ``key_ccw``/``key_cw`` for turning it from the keyboard.

A map that uses a pin twice, a pin the touchscreen, camera, I2C or a HAT
needs (:data:`RESERVED`), an unknown function or key, or an input without its
pull is refused with a :class:`PinMapError` naming the line of the file.
tomllib keeps no positions, so the lines are found again in the text: each
``[[device]]`` header in order, and each ``key =`` below it.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from gpiozero.pins.pi import PiBoardInfo

from .errors import PinMapError

__all__ = ["DEFAULT_PINMAP", "FUNCTIONS", "HEADER", "MAX_SEATS", "RESERVED", "Device",
           "Function", "PinMap", "load_pinmap", "parse_pinmap"]

DEFAULT_PINMAP = Path(__file__).resolve().parents[2] / "hardware" / "panel" / "pinmap.toml"
"""The pin map in the source tree (the installer installs the companion in place)."""

HEADER = PiBoardInfo.from_revision(0xD04170)
"""gpiozero's description of a Raspberry Pi 5's 40-pin header, the same on every 40-pin Pi.

Only data: reading it touches no pin. Pin names are resolved with it, so the
map accepts exactly the names gpiozero does.
"""

MAX_SEATS = 8
"""The most players any of the three games seats (Runes of Zun: 2-8)."""

Kind = Literal["button", "encoder", "led", "buzzer"]


@dataclass(frozen=True, slots=True)
class Function:
    """One kind of control: its label on the panel, its hardware, whether it belongs to a seat."""

    title: str
    kind: Kind
    per_seat: bool = False
    purpose: str = ""


FUNCTIONS: Mapping[str, Function] = {
    "plus": Function("+1", "button", True, "the seat's HP up (the game's mapping decides)"),
    "minus": Function("−1", "button", True, "the seat's HP down"),
    "encoder": Function("HP dial", "encoder", True, "turn to change the seat's HP, push to confirm"),
    "next": Function("Next", "button", purpose="the next turn or phase"),
    "undo": Function("Undo", "button", purpose="take back the last action"),
    "redo": Function("Redo", "button", purpose="bring back what undo took back"),
    "read_dice": Function("Read dice", "button", purpose="ask the camera for the settled roll"),
    "confirm": Function("Confirm", "button", purpose="confirm dial turns or what the screen asks"),
    "cancel": Function("Cancel", "button", purpose="forget dial turns or what the screen asks"),
    "f1": Function("F1", "button", purpose="a game's own action (labelled per game)"),
    "f2": Function("F2", "button", purpose="a game's own action (labelled per game)"),
    "status_led": Function("Status LED", "led", purpose="flashes when an action is accepted or refused"),
    "buzzer": Function("Buzzer", "buzzer", purpose="a high tone when accepted, a low one when refused"),
}
"""Every control the panel knows, by the name the pin map and the game mappings use."""

RESERVED: Mapping[int, str] = {
    0: "ID_SD: the HAT ID EEPROM (I2C-0); on a Pi 4 or earlier I2C-0 is also switched "
       "to the touchscreen's and the camera's connectors",
    1: "ID_SC: the HAT ID EEPROM (I2C-0); on a Pi 4 or earlier I2C-0 is also switched "
       "to the touchscreen's and the camera's connectors",
    2: "I2C-1 SDA, with a fixed 1.8 kΩ pull-up on the Pi; the 7-inch touchscreen's "
       "touch controller is wired here on a first-generation Pi",
    3: "I2C-1 SCL, with a fixed 1.8 kΩ pull-up on the Pi; the 7-inch touchscreen's "
       "touch controller is wired here on a first-generation Pi",
}
"""GPIOs the panel must leave alone, and why (hardware/panel/README.md explains more)."""

_KEYS: Mapping[Kind, frozenset[str]] = {
    "button": frozenset({"function", "seat", "pin", "pull_up", "key"}),
    "encoder": frozenset({"function", "seat", "a", "b", "push", "pull_up", "key", "key_ccw",
                          "key_cw"}),
    "led": frozenset({"function", "pin", "pwm"}),
    "buzzer": frozenset({"function", "pin"}),
}
_PINS: Mapping[Kind, tuple[str, ...]] = {
    "button": ("pin",), "encoder": ("a", "b", "push"), "led": ("pin",), "buzzer": ("pin",),
}
_KEY_ROLES = ("key", "key_ccw", "key_cw")


@dataclass(frozen=True, slots=True)
class Device:
    """One ``[[device]]`` of the pin map, checked."""

    function: str
    line: int
    """The line of its ``[[device]]`` header, for messages."""
    pins: Mapping[str, int] = field(default_factory=dict)
    """BCM GPIO number by role: ``pin``, or ``a``, ``b`` and ``push`` for an encoder."""
    seat: int | None = None
    pull_up: bool = True
    pwm: bool = False
    keys: Mapping[str, str] = field(default_factory=dict)
    """Desktop demo key by role: ``key`` (press), ``key_ccw`` and ``key_cw`` (turn)."""

    @property
    def kind(self) -> Kind:
        return FUNCTIONS[self.function].kind

    @property
    def name(self) -> str:
        """How messages and the docs call it: ``seat 3 +1``, ``Next``."""
        title = FUNCTIONS[self.function].title
        return f"seat {self.seat} {title}" if self.seat is not None else title

    def label(self, role: str) -> str:
        """How messages and the docs call one of its pins: ``seat 1 HP dial A``."""
        if self.kind != "encoder":
            return self.name
        return f"{self.name} {'push' if role == 'push' else role.upper()}"


@dataclass(frozen=True)
class PinMap:
    """The whole panel: every device, in the file's order."""

    path: Path
    devices: tuple[Device, ...]

    def __iter__(self) -> Iterator[Device]:
        return iter(self.devices)

    def find(self, function: str, seat: int | None = None) -> Device | None:
        return next((d for d in self.devices if d.function == function and d.seat == seat), None)

    def used(self) -> dict[int, tuple[Device, str]]:
        """Every GPIO in use: BCM number → (device, role)."""
        return {gpio: (d, role) for d in self.devices for role, gpio in d.pins.items()}

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(sorted({d.seat for d in self.devices if d.seat is not None}))


def load_pinmap(path: str | Path | None = None) -> PinMap:
    """Read and check a pin map file (default: :data:`DEFAULT_PINMAP`)."""
    path = Path(path) if path is not None else DEFAULT_PINMAP
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise PinMapError(f"cannot read the pin map: {e}", path=path, line=0) from e
    return parse_pinmap(text, path)


def parse_pinmap(text: str, path: str | Path = "<pin map>") -> PinMap:
    """Check the text of a pin map; the first problem found is raised, naming its line."""
    path = Path(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        found = re.search(r"at line (\d+)", str(e))
        raise PinMapError(f"not valid TOML: {e}", path=path,
                          line=int(found.group(1)) if found else 0) from None
    lines = _Lines(text)
    for name in data:
        if name != "device":
            raise PinMapError(f"unknown {name!r}: a pin map holds only [[device]] tables",
                              path=path, line=lines.top.get(name, 1))
    entries = data.get("device", [])
    if (not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries)
            or len(entries) != len(lines.devices)):
        raise PinMapError("write each device as a [[device]] table", path=path,
                          line=lines.top.get("device", 1))
    checker = _Checker(path, lines)
    return PinMap(path, tuple(checker.device(i, entry) for i, entry in enumerate(entries)))


class _Lines:
    """Where each ``[[device]]`` table and each of its keys starts in the text."""

    _HEADER = re.compile(r"^\[\[\s*device\s*\]\]\s*(#.*)?$")
    _TABLE = re.compile(r"^\[+\s*([^\]]+?)\s*\]")
    _KEY = re.compile(r"^([A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')\s*=")

    def __init__(self, text: str) -> None:
        self.top: dict[str, int] = {}
        self.devices: list[dict[str, int]] = []
        in_device = False
        for number, raw in enumerate(text.splitlines(), 1):
            line = raw.strip()
            if self._HEADER.match(line):
                in_device = True
                self.devices.append({"": number})
            elif table := self._TABLE.match(line):
                in_device = False
                self.top.setdefault(table.group(1).split(".")[0].strip("\"'"), number)
            elif key := self._KEY.match(line):
                name = key.group(1).strip("\"'")
                if in_device:
                    self.devices[-1].setdefault(name, number)
                elif not self.devices:
                    self.top.setdefault(name, number)

    def of(self, index: int, key: str = "") -> int:
        """The line of ``key`` in device ``index`` (its header line if the key is absent)."""
        if index >= len(self.devices):
            return 0
        found = self.devices[index]
        return found.get(key, found[""])


class _Checker:
    """Checks one device after another, remembering which pins, controls and keys are taken."""

    def __init__(self, path: Path, lines: _Lines) -> None:
        self.path = path
        self.lines = lines
        self.pins: dict[int, tuple[str, int]] = {}
        self.controls: dict[tuple[str, int | None], int] = {}
        self.keys: dict[str, tuple[str, int]] = {}

    def fail(self, message: str, index: int, key: str = "") -> PinMapError:
        return PinMapError(message, path=self.path, line=self.lines.of(index, key))

    def device(self, index: int, entry: Mapping[str, Any]) -> Device:
        header = self.lines.of(index)
        function = entry.get("function")
        if function is None:
            raise self.fail("a device needs a function, e.g. function = \"plus\"", index)
        if function not in FUNCTIONS:
            close = difflib.get_close_matches(str(function), FUNCTIONS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise self.fail(f"unknown function {function!r}{hint}; the functions are: "
                            + ", ".join(FUNCTIONS), index, "function")
        info = FUNCTIONS[function]
        for key in entry:
            if key not in _KEYS[info.kind]:
                raise self.fail(f"unknown key {key!r} for a {function} device; its keys are: "
                                + ", ".join(sorted(_KEYS[info.kind])), index, key)
        seat = self.seat(index, entry, function, info)
        if (function, seat) in self.controls:
            what = f"seat {seat} {function}" if seat is not None else function
            raise self.fail(f"{what} is already on line {self.controls[function, seat]}", index)
        self.controls[function, seat] = header
        label = f"seat {seat} {info.title}" if seat is not None else info.title
        pins = self.device_pins(index, entry, info.kind, label)
        pull_up = self.pull(index, entry, info.kind, label)
        pwm = entry.get("pwm", False)
        if not isinstance(pwm, bool):
            raise self.fail(f"pwm must be true or false, got {pwm!r}", index, "pwm")
        keys = self.device_keys(index, entry, label)
        if "key" in keys and info.kind == "encoder" and "push" not in pins:
            raise self.fail(f"{label}: key is the key for the push switch, and it has no push pin",
                            index, "key")
        return Device(function, header, pins, seat, pull_up, pwm, keys)

    def seat(self, index: int, entry: Mapping[str, Any], function: str,
             info: Function) -> int | None:
        seat = entry.get("seat")
        if not info.per_seat:
            if seat is not None:
                raise self.fail(f"{function} serves the whole table; remove seat", index, "seat")
            return None
        if seat is None:
            raise self.fail(f"a {function} device belongs to a seat; add seat = 1 to "
                            f"{MAX_SEATS}", index)
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= MAX_SEATS:
            raise self.fail(f"seat must be a number from 1 to {MAX_SEATS}, got {seat!r}",
                            index, "seat")
        return seat

    def device_pins(self, index: int, entry: Mapping[str, Any], kind: Kind,
                    label: str) -> dict[str, int]:
        pins: dict[str, int] = {}
        for role in _PINS[kind]:
            if role not in entry:
                if role == "push":
                    continue
                raise self.fail(f"{label} needs {role} = <GPIO number>", index)
            gpio = self.gpio(index, role, entry[role])
            taken = self.pins.get(gpio)
            if taken is not None:
                raise self.fail(f"GPIO{gpio} is used twice: {label} {role}, and {taken[0]} on "
                                f"line {taken[1]}", index, role)
            self.pins[gpio] = (f"{label} {role}", self.lines.of(index, role))
            pins[role] = gpio
        return pins

    def gpio(self, index: int, role: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise self.fail(f"{role} must be a GPIO number such as 17 or a name such as "
                            f"\"GPIO17\", got {value!r}", index, role)
        found = next(iter(HEADER.find_pin(value)), None)
        if found is None:
            raise self.fail(f"{role} = {value!r} is not a pin of the 40-pin header", index, role)
        info = found[1]
        if not info.name.startswith("GPIO"):
            raise self.fail(f"{role} = {value!r} is header pin {info.number}, {info.name}, "
                            "not a GPIO", index, role)
        gpio = int(info.name[4:])
        if gpio in RESERVED:
            raise self.fail(f"GPIO{gpio} (header pin {info.number}) is reserved: "
                            f"{RESERVED[gpio]}", index, role)
        return gpio

    def pull(self, index: int, entry: Mapping[str, Any], kind: Kind, label: str) -> bool:
        if kind not in ("button", "encoder"):
            return False
        if "pull_up" not in entry:
            raise self.fail(f"{label} has no pull: an unpulled input floats and presses itself; "
                            "add pull_up = true (switch to GND) or pull_up = false (switch "
                            "to 3V3)", index)
        pull_up = entry["pull_up"]
        if not isinstance(pull_up, bool):
            raise self.fail(f"pull_up must be true or false, got {pull_up!r}", index, "pull_up")
        if kind == "encoder" and not pull_up:
            raise self.fail(f"{label}: gpiozero's RotaryEncoder pulls its pins up; wire the "
                            "common pin to GND and set pull_up = true", index, "pull_up")
        return pull_up

    def device_keys(self, index: int, entry: Mapping[str, Any], label: str) -> dict[str, str]:
        keys: dict[str, str] = {}
        for role in _KEY_ROLES:
            if role not in entry:
                continue
            key = entry[role]
            if not isinstance(key, str) or not key.strip():
                raise self.fail(f"{role} must be the name of a key, such as \"q\" or "
                                f"\"spacebar\", got {key!r}", index, role)
            key = key.strip().lower()
            if key in self.keys:
                other, line = self.keys[key]
                raise self.fail(f"key {key!r} is used twice: {label}, and {other} on line {line}",
                                index, role)
            self.keys[key] = (label, self.lines.of(index, role))
            keys[role] = key
        return keys
