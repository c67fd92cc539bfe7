"""The panel's hardware docs, generated from the pin map so that they cannot drift from it.

``python -m companion.panel.docs`` rewrites, in ``hardware/panel/``:

* the generated part of ``README.md`` (between the two ``pin table`` markers):
  the pin table, the reserved pins and the parts list;
* ``wiring.svg``, the wiring diagram: the 40-pin header, and every control on
  the pin it uses.

``--check`` only compares, and fails if a file is stale (the tests do the same).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from html import escape
from pathlib import Path

from .errors import PinMapError
from .pinmap import FUNCTIONS, HEADER, RESERVED, Device, PinMap, load_pinmap

__all__ = ["BEGIN", "END", "main", "pin_table", "update_readme", "wiring_svg"]

BEGIN = ("<!-- pin table: generated from pinmap.toml by `python -m companion.panel.docs`; "
         "edit the pin map, not this -->")
END = "<!-- end of pin table -->"

LED_RESISTOR = "330 Ω"
"""(3.3 V − ~2 V) / 330 Ω ≈ 4 mA: bright enough for a status light, easy on the GPIO."""
BUZZER_RESISTOR = "100 Ω"
"""Limits the current into the piezo's capacitance on each PWM edge."""

_J8 = HEADER.headers["J8"].pins


def _header_pin(gpio: int) -> int:
    return int(next(number for number, info in _J8.items() if info.name == f"GPIO{gpio}"))


TOUCHSCREEN_POWER = (2, 6)
"""Header pins the touchscreen's power leads use (5V, GND); pin 4 is the other 5V."""


def _grounds() -> list[int]:
    """The GND pins free for the panel."""
    return sorted(number for number, info in _J8.items()
                  if info.name == "GND" and number not in TOUCHSCREEN_POWER)


def _rows(pinmap: PinMap) -> Iterator[tuple[int, Device, str]]:
    """(GPIO, device, role) for every pin in use, in the map's order."""
    for device in pinmap:
        for role, gpio in device.pins.items():
            yield gpio, device, role


def _wiring(device: Device, role: str) -> str:
    if device.kind == "encoder":
        if role == "push":
            return "encoder switch, other side to GND"
        return f"encoder {role.upper()}; its C (common) pin to GND"
    if device.kind == "button":
        return ("switch to GND (internal pull-up)" if device.pull_up
                else "switch to 3V3 (internal pull-down)")
    if device.kind == "led":
        return f"{LED_RESISTOR} resistor, LED, GND" + (" (PWM)" if device.pwm else "")
    return f"{BUZZER_RESISTOR} resistor, passive piezo buzzer, GND (PWM tones)"


def _key(device: Device, role: str) -> str:
    if role in ("a", "b"):
        turn = [device.keys[k] for k in ("key_ccw", "key_cw") if k in device.keys]
        return f"`{'` / `'.join(turn)}` (turn)" if role == "a" and turn else ""
    key = device.keys.get("key")
    return f"`{key}`" if key else ""


def pin_table(pinmap: PinMap) -> str:
    """The generated part of hardware/panel/README.md (Markdown)."""
    out = [BEGIN, "", "### Pins", "",
           "| GPIO | Header pin | Control | Wiring | Demo key |",
           "|---|---|---|---|---|"]
    for gpio, device, role in _rows(pinmap):
        out.append(f"| GPIO{gpio} | {_header_pin(gpio)} | {device.label(role)} | "
                   f"{_wiring(device, role)} | {_key(device, role)} |")
    used = set(pinmap.used())
    free = [g for g in range(28) if g not in used and g not in RESERVED]
    out += ["", "Free GPIOs: " + (", ".join(f"GPIO{g}" for g in free) or "none") + ".",
            "Ground: any GND pin (" + ", ".join(map(str, _grounds())) + "); pin 6 powers the "
            "touchscreen.",
            "", "### Reserved pins", "",
            "| GPIO | Header pin | Why the panel leaves it alone |", "|---|---|---|"]
    for gpio, why in sorted(RESERVED.items()):
        out.append(f"| GPIO{gpio} | {_header_pin(gpio)} | {why} |")
    out += ["", "### Parts", "", "| Qty | Part | For |", "|---|---|---|"]
    out += [f"| {qty} | {part} | {use} |" for qty, part, use in _parts(pinmap)]
    out += ["", END]
    return "\n".join(out) + "\n"


def _parts(pinmap: PinMap) -> list[tuple[int, str, str]]:
    buttons = [d for d in pinmap if d.kind == "button"]
    dials = [d for d in pinmap if d.kind == "encoder"]
    leds = [d for d in pinmap if d.kind == "led"]
    buzzers = [d for d in pinmap if d.kind == "buzzer"]
    parts: list[tuple[int, str, str]] = []
    if buttons:
        titles = list(dict.fromkeys(FUNCTIONS[d.function].title for d in buttons))
        parts.append((len(buttons), "Momentary push button, normally open (12 mm tactile or "
                      "24 mm arcade)", ", ".join(titles)))
    if dials:
        seats = ", ".join(str(d.seat) for d in dials)
        parts.append((len(dials), "Rotary encoder with push switch, EC11 type, 20 detents, "
                      "no pull-ups on board", f"HP dials of seats {seats}"))
        parts.append((len(dials), "Knob for a 6 mm D shaft", "the dials"))
    if leds:
        parts.append((len(leds), "LED, 5 mm, green", "status"))
        parts.append((len(leds), f"Resistor {LED_RESISTOR}, ¼ W", "status LED"))
    if buzzers:
        parts.append((len(buzzers), "Passive piezo buzzer, 12 mm (no built-in oscillator: "
                      "gpiozero's TonalBuzzer makes the tone)", "accepted/refused tones"))
        parts.append((len(buzzers), f"Resistor {BUZZER_RESISTOR}, ¼ W", "buzzer"))
    parts.append((1, "40-pin GPIO ribbon cable and breakout board (or female jumper wires: one "
                  f"per GPIO, {len(pinmap.used())}, plus grounds)", "Pi to panel"))
    parts.append((1, "Perfboard or panel plate, and hook-up wire for a common GND bus",
                  "the panel"))
    return parts


def update_readme(text: str, table: str) -> str:
    """README text with its generated part replaced by ``table``."""
    start, end = text.find(BEGIN), text.find(END)
    if start < 0 or end < start:
        raise ValueError("the README has lost its pin table markers; put back:\n"
                         f"{BEGIN}\n{END}")
    return text[:start] + table + text[end + len(END) + 1:]


# -- the wiring diagram ------------------------------------------------------------

_TOP, _ROW = 90, 30
_LEFT_X, _RIGHT_X = 530, 570
_WIDTH = 1100
_COLOURS = {"3V3": "#f39c12", "5V": "#c0392b", "GND": "#222222"}


def wiring_svg(pinmap: PinMap) -> str:
    """The wiring diagram as SVG text: the header in the middle, controls on their pins."""
    used = pinmap.used()
    height = _TOP + 20 * _ROW + 120
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{height}" '
           f'viewBox="0 0 {_WIDTH} {height}" font-family="DejaVu Sans, Verdana, sans-serif" '
           'font-size="12">',
           f'<rect width="{_WIDTH}" height="{height}" fill="#ffffff"/>',
           f'<text x="{_WIDTH // 2}" y="34" font-size="20" text-anchor="middle">'
           'Rune Table button panel: wiring</text>',
           f'<text x="{_WIDTH // 2}" y="56" fill="#555555" text-anchor="middle">'
           'Raspberry Pi 40-pin header seen from above, pin 1 top left. '
           f'Generated from {escape(pinmap.path.name)}.</text>',
           f'<rect x="{_LEFT_X - 18}" y="{_TOP - 18}" width="{_RIGHT_X - _LEFT_X + 36}" '
           f'height="{20 * _ROW + 6}" rx="6" fill="#2d2d2d"/>']
    for number, info in sorted(_J8.items()):
        left = number % 2 == 1
        x = _LEFT_X if left else _RIGHT_X
        y = _TOP + (info.row - 1) * _ROW
        side = -1 if left else 1
        gpio = int(info.name[4:]) if info.name.startswith("GPIO") else None
        out += _pin(x, y, side, number, info.name, gpio, used.get(gpio) if gpio is not None
                    else None)
    out += _legend(height)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _pin(x: int, y: int, side: int, number: int, name: str, gpio: int | None,
         use: tuple[Device, str] | None) -> list[str]:
    anchor = "end" if side < 0 else "start"
    fill = _COLOURS.get(name, "#c9a227")
    if gpio is not None and gpio in RESERVED:
        fill = "#8e44ad"
    out = [f'<circle cx="{x}" cy="{y}" r="8" fill="{fill}" stroke="#ffffff"/>',
           f'<text x="{x}" y="{y + 4}" font-size="8" fill="#ffffff" '
           f'text-anchor="middle">{number}</text>']
    label_x = x + side * 30
    if use is None:
        note = name
        if gpio is not None and gpio in RESERVED:
            note = f"{name} reserved: {RESERVED[gpio].split(',')[0].split(':')[0]}"
        elif gpio is not None:
            note = f"{name} free"
        out.append(f'<text x="{label_x}" y="{y + 4}" fill="#777777" '
                   f'text-anchor="{anchor}">{escape(note)}</text>')
        return out
    device, role = use
    end = x + side * 200
    out.append(f'<line x1="{x + side * 9}" y1="{y}" x2="{end}" y2="{y}" stroke="#1f5fa8" '
               'stroke-width="2"/>')
    out.append(f'<text x="{label_x}" y="{y - 5}" font-size="10" fill="#1f5fa8" '
               f'text-anchor="{anchor}">{name}</text>')
    out += _glyph(device, role, end, y, side)
    text_x = end + side * 90
    keys = _key(device, role).replace("`", "")
    label = device.label(role) + (f"  [{keys}]" if keys else "")
    out.append(f'<text x="{text_x}" y="{y + 4}" text-anchor="{anchor}">{escape(label)}</text>')
    return out


def _ground(x: int, y: int) -> list[str]:
    """A ground symbol hanging below (x, y)."""
    return [f'<line x1="{x}" y1="{y}" x2="{x}" y2="{y + 8}" stroke="#222222"/>',
            f'<line x1="{x - 7}" y1="{y + 8}" x2="{x + 7}" y2="{y + 8}" stroke="#222222"/>',
            f'<line x1="{x - 4}" y1="{y + 11}" x2="{x + 4}" y2="{y + 11}" stroke="#222222"/>',
            f'<line x1="{x - 1}" y1="{y + 14}" x2="{x + 1}" y2="{y + 14}" stroke="#222222"/>']


def _glyph(device: Device, role: str, x: int, y: int, side: int) -> list[str]:
    """The part on the end of a wire, drawn outward from (x, y), ending in ground."""
    far = x + side * 60
    stroke = 'stroke="#222222" fill="none"'
    if device.kind == "button" or role == "push":
        # A push switch: two contacts and the lever above them.
        a, b = x + side * 12, x + side * 40
        out = [f'<line x1="{x}" y1="{y}" x2="{a}" y2="{y}" {stroke}/>',
               f'<circle cx="{a}" cy="{y}" r="2.5" {stroke}/>',
               f'<circle cx="{b}" cy="{y}" r="2.5" {stroke}/>',
               f'<line x1="{a - 2 * side}" y1="{y - 8}" x2="{b + 2 * side}" y2="{y - 8}" '
               f'{stroke}/>',
               f'<line x1="{(a + b) // 2}" y1="{y - 8}" x2="{(a + b) // 2}" y2="{y - 14}" '
               f'{stroke}/>',
               f'<line x1="{b}" y1="{y}" x2="{far}" y2="{y}" {stroke}/>']
        if device.kind == "button" and not device.pull_up:
            return out + [f'<text x="{far}" y="{y - 6}" font-size="9" '
                          'text-anchor="middle">3V3</text>']
        return out + _ground(far, y)
    if device.kind == "encoder":
        box = min(x + side * 14, x + side * 46)
        return [f'<line x1="{x}" y1="{y}" x2="{x + side * 14}" y2="{y}" {stroke}/>',
                f'<rect x="{box}" y="{y - 9}" width="32" height="18" rx="3" {stroke}/>',
                f'<text x="{box + 16}" y="{y + 4}" font-size="10" text-anchor="middle">'
                f'ENC {role.upper()}</text>',
                f'<line x1="{x + side * 46}" y1="{y}" x2="{far}" y2="{y}" stroke="#999999" '
                'stroke-dasharray="3 2"/>',
                f'<text x="{far}" y="{y - 6}" font-size="9" text-anchor="middle">C</text>',
                *_ground(far, y)]
    # The LED and the buzzer: a series resistor, then the part, then ground.
    resistor = min(x + side * 8, x + side * 28)
    out = [f'<rect x="{resistor}" y="{y - 4}" width="20" height="8" {stroke}/>',
           f'<line x1="{x + side * 28}" y1="{y}" x2="{x + side * 36}" y2="{y}" {stroke}/>']
    part = x + side * 44
    if device.kind == "led":
        tip = x + side * 50
        out += [f'<polygon points="{x + side * 36},{y - 6} {x + side * 36},{y + 6} {tip},{y}" '
                f'{stroke}/>',
                f'<line x1="{tip}" y1="{y - 6}" x2="{tip}" y2="{y + 6}" {stroke}/>']
    else:
        out += [f'<circle cx="{part}" cy="{y}" r="8" {stroke}/>',
                f'<text x="{part}" y="{y + 4}" font-size="9" text-anchor="middle">BZ</text>']
    out.append(f'<line x1="{x + side * 52}" y1="{y}" x2="{far}" y2="{y}" {stroke}/>')
    return out + _ground(far, y)


def _legend(height: int) -> list[str]:
    y = height - 90
    lines = [
        "Each switch connects its GPIO to ground; the Pi's internal pull-up holds the pin "
        "high when open (gpiozero Button, pull_up=True).",
        "Each encoder: A and B to their GPIOs, C (the middle pin) to ground; its push switch "
        "is wired like a button.",
        f"Status LED through {LED_RESISTOR}; passive piezo buzzer through {BUZZER_RESISTOR}. "
        "Ground symbols: any GND pin (" + ", ".join(map(str, _grounds())) + ").",
        "Purple: reserved (HAT EEPROM, I2C). The touchscreen's power leads use 5V (pin 2) "
        "and GND (pin 6). See README.md.",
    ]
    return [f'<text x="40" y="{y + 18 * i}" fill="#333333">{escape(line)}</text>'
            for i, line in enumerate(lines)]


# -- the command -------------------------------------------------------------------

def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m companion.panel.docs",
        description="Generate the panel's pin table, parts list and wiring diagram from the "
                    "pin map.")
    parser.add_argument("--pinmap", type=Path, help="the pin map (default: the shipped one)")
    parser.add_argument("--out", type=Path, help="the folder with README.md and wiring.svg "
                        "(default: the pin map's folder)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; fail if a generated file is out of date")
    args = parser.parse_args(argv)
    try:
        pinmap = load_pinmap(args.pinmap)
    except PinMapError as e:
        print(e, file=sys.stderr)
        return 2
    folder = args.out or pinmap.path.parent
    readme = folder / "README.md"
    try:
        wanted = {readme: update_readme(readme.read_text(encoding="utf-8"), pin_table(pinmap)),
                  folder / "wiring.svg": wiring_svg(pinmap)}
    except (OSError, ValueError) as e:
        print(f"{readme}: {e}", file=sys.stderr)
        return 2
    stale = [path for path, text in wanted.items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    if args.check:
        for path in stale:
            print(f"{path} is out of date: run python -m companion.panel.docs", file=sys.stderr)
        return 1 if stale else 0
    for path in stale:
        path.write_text(wanted[path], encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
