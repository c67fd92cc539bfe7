"""The wiring diagrams in hardware/tracker/ are what their script draws, from the firmware's pins."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parents[2] / "hardware" / "tracker"
FILES = ["wiring-esp32.svg", "wiring-pico-w.svg"]


def test_the_committed_diagrams_are_what_the_script_draws(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(HERE / "diagrams.py"), str(tmp_path)], check=True,
                   capture_output=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == FILES
    for name in FILES:
        assert (HERE / name).read_text(encoding="utf-8") == (tmp_path / name).read_text(
            encoding="utf-8"), f"{name} is stale: run python hardware/tracker/diagrams.py"


@pytest.mark.parametrize(("file", "labels"), [
    ("wiring-esp32.svg", ["GPIO18", "GPIO19", "GPIO4", "5V", "74AHCT125", "330 Ω", "1000 µF"]),
    ("wiring-pico-w.svg", ["GP2 (pin 4)", "GP3 (pin 5)", "GP15 (pin 20)", "VBUS (pin 40)",
                           "74AHCT125", "330 Ω", "1000 µF"]),
])
def test_each_diagram_is_an_svg_naming_the_firmware_pins(file: str, labels: list[str]) -> None:
    root = ET.parse(HERE / file).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = " | ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for label in labels:
        assert label in texts
