"""Draw the LED tracker's wiring diagrams as SVG, one per board.

    .venv/bin/python hardware/tracker/diagrams.py [DIR]   # writes wiring-esp32.svg, wiring-pico-w.svg

The GPIO numbers come from the firmware's own defaults (``PINS`` in
firmware/tracker/config.py), so a diagram and the firmware cannot disagree; the test suite
checks that the committed SVGs are what this script draws.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

from companion.firmware import firmware_config

HERE = Path(__file__).resolve().parent

FIVE_V, GROUND, DATA, SIGNAL = "#d32f2f", "#212121", "#1565c0", "#2e7d32"


def firmware_pins() -> dict[str, dict[str, int]]:
    return dict(firmware_config().PINS)


@dataclass(frozen=True)
class Board:
    """One board variant: how its pins are labelled on the silkscreen."""

    file: str
    title: str
    platform: str
    """``sys.platform`` on the board: the key of the firmware's PINS."""
    five_volt: str
    ground: str
    gpio: str
    """How a GPIO is written, with {n} and its header pin {pin} when known."""
    header: dict[int, int]
    """GPIO → physical header pin, where the board numbers them (Pico W)."""


BOARDS = [
    Board("wiring-esp32.svg", "ESP32-DevKitC-32E", "esp32", "5V", "GND", "GPIO{n}", {}),
    Board("wiring-pico-w.svg", "Raspberry Pi Pico W (SC0918)", "rp2", "VBUS (pin 40)",
          "GND (pin 38)", "GP{n} (pin {pin})", {2: 4, 3: 5, 15: 20}),
]


class Svg:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.items: list[str] = []

    def text(self, x: float, y: float, s: str, size: int = 13, anchor: str = "start",
             weight: str = "normal", colour: str = "#212121") -> None:
        self.items.append(f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}" '
                          f'font-weight="{weight}" fill="{colour}">{escape(s)}</text>')

    def box(self, x: float, y: float, w: float, h: float, title: str, fill: str = "#fafafa",
            dashed: bool = False) -> None:
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        self.items.append(f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="{fill}" '
                          f'stroke="#424242" stroke-width="1.5"{dash}/>')
        self.text(x + w / 2, y + 20, title, 14, "middle", "bold")

    def wire(self, colour: str, *points: tuple[float, float], dashed: bool = False) -> None:
        path = " ".join(f"{x},{y}" for x, y in points)
        dash = ' stroke-dasharray="6 4"' if dashed else ""
        self.items.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                          f'stroke-width="2.5" stroke-linejoin="round"{dash}/>')

    def dot(self, x: float, y: float, colour: str) -> None:
        self.items.append(f'<circle cx="{x}" cy="{y}" r="4" fill="{colour}"/>')

    def resistor(self, x: float, y: float, label: str) -> None:
        """A horizontal resistor from (x, y) to (x + 60, y)."""
        zigzag = [(x, y), (x + 10, y)] + [(x + 15 + 6 * i, y + (-7 if i % 2 == 0 else 7))
                                          for i in range(6)] + [(x + 50, y), (x + 60, y)]
        self.wire(DATA, *zigzag)
        self.text(x + 30, y - 12, label, 12, "middle")

    def capacitor(self, x: float, top: float, bottom: float) -> None:
        """A polarised capacitor between the rail at ``top`` and the one at ``bottom``."""
        mid = (top + bottom) / 2
        self.wire(FIVE_V, (x, top), (x, mid - 5))
        self.wire(GROUND, (x, mid + 5), (x, bottom))
        self.items.append(f'<line x1="{x - 14}" y1="{mid - 5}" x2="{x + 14}" y2="{mid - 5}" '
                          'stroke="#212121" stroke-width="3"/>')
        self.items.append(f'<path d="M{x - 14},{mid + 9} Q{x},{mid + 1} {x + 14},{mid + 9}" '
                          'fill="none" stroke="#212121" stroke-width="3"/>')
        self.text(x + 10, mid - 10, "+", 12)

    def leds(self, x: float, y: float, n: int, dashed: bool = False) -> None:
        for i in range(n):
            fill = "#43a047" if i < 9 else "#eeeeee"
            dash = ' stroke-dasharray="2 2"' if dashed else ""
            self.items.append(f'<rect x="{x + i * 20}" y="{y}" width="16" height="16" rx="3" '
                              f'fill="{"#eeeeee" if dashed else fill}" stroke="#616161"{dash}/>')

    def render(self) -> str:
        body = "\n  ".join(self.items)
        return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width}" '
                f'height="{self.height}" viewBox="0 0 {self.width} {self.height}" '
                f'font-family="DejaVu Sans, Arial, sans-serif">\n'
                f'  <rect width="100%" height="100%" fill="white"/>\n  {body}\n</svg>\n')


def draw(board: Board, pins: dict[str, int]) -> str:
    def gpio(n: int) -> str:
        return board.gpio.format(n=n, pin=board.header.get(n, "?"))

    svg = Svg(1080, 560)
    rail_5v, rail_gnd = 90, 500
    svg.text(20, 32, f"LED HP tracker — {board.title}", 18, weight="bold")
    svg.text(20, 54, "WS2812B strip, 74AHCT125 level shifter (3.3 V → 5 V), "
             "1000 µF across the strip's supply, 330 Ω in series with each data line", 12)
    svg.wire(FIVE_V, (40, rail_5v), (1020, rail_5v))
    svg.text(1026, rail_5v + 4, "5 V", 13, weight="bold", colour=FIVE_V)
    svg.wire(GROUND, (40, rail_gnd), (1020, rail_gnd))
    svg.text(1026, rail_gnd + 4, "GND", 13, weight="bold")

    # The board, powered from USB; its 5 V pin feeds the rail.
    svg.box(40, 130, 250, 300, board.title if len(board.title) < 24 else board.title.split(" (")[0])
    svg.text(165, 160, "USB ← 5 V supply (≥ 2 A)", 11, "middle", colour="#616161")
    rows = [(board.five_volt, FIVE_V, 190), (gpio(pins["pin"]), DATA, 250),
            (gpio(pins["pool_pin"]), DATA, 300), (gpio(pins["button_pin"]), SIGNAL, 350),
            (board.ground, GROUND, 400)]
    for label, colour, y in rows:
        svg.text(280, y + 4, label, 12, "end")
        svg.dot(290, y, colour)
    svg.wire(FIVE_V, (290, 190), (320, 190), (320, rail_5v))
    svg.dot(320, rail_5v, FIVE_V)
    svg.wire(GROUND, (290, 400), (320, 400), (320, rail_gnd))
    svg.dot(320, rail_gnd, GROUND)

    # The button to ground (the firmware turns the internal pull-up on).
    svg.wire(SIGNAL, (290, 350), (340, 350), (340, 380))
    svg.items.append('<line x1="330" y1="380" x2="352" y2="392" stroke="#212121" '
                     'stroke-width="2.5"/>')
    svg.wire(GROUND, (340, 396), (340, 400), (340, rail_gnd))
    svg.text(352, 378, "button", 11)

    # The level shifter: channels 1 (strip) and 2 (pool); 3 and 4 unused, inputs grounded.
    svg.box(420, 150, 190, 290, "74AHCT125")
    left = [("14 VCC", FIVE_V, 190), ("2 1A", DATA, 250), ("5 2A", DATA, 300),
            ("1 1OE, 4 2OE", GROUND, 360), ("7 GND", GROUND, 400)]
    for label, colour, y in left:
        svg.text(430, y + 4, label, 12)
        svg.dot(420, y, colour)
    svg.wire(FIVE_V, (420, 190), (400, 190), (400, rail_5v))
    svg.dot(400, rail_5v, FIVE_V)
    svg.wire(DATA, (290, 250), (420, 250))
    svg.wire(DATA, (290, 300), (420, 300))
    svg.wire(GROUND, (420, 360), (400, 360), (400, rail_gnd))
    svg.wire(GROUND, (420, 400), (400, 400))
    svg.dot(400, rail_gnd, GROUND)
    svg.text(515, 425, "9, 10, 12, 13 → GND", 11, "middle", colour="#616161")
    right = [("3 1Y", 250), ("6 2Y", 300)]
    for label, y in right:
        svg.text(600, y + 4, label, 12, "end")
        svg.dot(610, y, DATA)

    # Data through 330 Ω into each strip; 1000 µF across the supply where it enters the strip.
    svg.resistor(610, 250, "330 Ω")
    svg.wire(DATA, (670, 250), (700, 250))
    svg.resistor(610, 300, "330 Ω")
    svg.wire(DATA, (670, 300), (685, 300), (685, 380), (700, 380))
    svg.box(700, 200, 260, 80, "HP strip: 12 × WS2812B")
    svg.leds(712, 236, 12)
    svg.text(706, 274, "DIN", 11, colour="#616161")
    svg.box(700, 330, 260, 80, "Loki's pool (optional)", dashed=True)
    svg.leds(712, 356, 12, dashed=True)
    svg.text(706, 404, "DIN", 11, colour="#616161")
    # Power: +5V on the top edge of the HP strip, GND on the right edges.
    svg.wire(FIVE_V, (760, rail_5v), (760, 200))
    svg.dot(760, rail_5v, FIVE_V)
    svg.text(766, 196, "+5V", 11, colour=FIVE_V)
    svg.wire(GROUND, (960, 240), (985, 240))
    svg.text(964, 234, "GND", 10, colour="#616161")
    svg.wire(GROUND, (985, 165), (985, rail_gnd))
    svg.dot(985, rail_gnd, GROUND)
    svg.wire(FIVE_V, (960, 350), (1005, 350), (1005, rail_5v), dashed=True)
    svg.dot(1005, rail_5v, FIVE_V)
    svg.wire(GROUND, (960, 390), (985, 390), dashed=True)
    svg.capacitor(920, rail_5v, 175)
    svg.dot(920, rail_5v, FIVE_V)
    svg.wire(GROUND, (920, 175), (920, 165), (985, 165))
    svg.text(910, 125, "1000 µF", 12, "end")
    svg.text(910, 140, "10 V", 12, "end")
    svg.text(40, 530, "100 nF from 74AHCT125 pin 14 to GND; its unused inputs to GND. "
             "Keep data wires short (under 30 cm from shifter to strip).", 12)
    svg.text(40, 548, "One common ground everywhere. More than one seat on a strip: feed the "
             "strip from its own 5 V supply (see the power budget).", 12)
    return svg.render()


def main(argv: list[str]) -> None:
    out = Path(argv[0]) if argv else HERE
    pins = firmware_pins()
    for board in BOARDS:
        (out / board.file).write_text(draw(board, pins[board.platform]), encoding="utf-8")
        print(f"wrote {out / board.file}")


if __name__ == "__main__":
    main(sys.argv[1:])
