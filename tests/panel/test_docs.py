"""The hardware docs are generated from the pin map, and the committed ones are up to date."""

from __future__ import annotations

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from companion.panel import load_pinmap
from companion.panel.docs import BEGIN, END, main, pin_table, update_readme, wiring_svg

FOLDER = Path(__file__).resolve().parents[2] / "hardware" / "panel"


def test_the_committed_pin_table_is_generated_from_the_pin_map() -> None:
    readme = (FOLDER / "README.md").read_text(encoding="utf-8")
    assert update_readme(readme, pin_table(load_pinmap())) == readme, (
        "hardware/panel/README.md is stale: run python -m companion.panel.docs")


def test_the_committed_wiring_diagram_is_generated_from_the_pin_map() -> None:
    svg = (FOLDER / "wiring.svg").read_text(encoding="utf-8")
    assert wiring_svg(load_pinmap()) == svg, (
        "hardware/panel/wiring.svg is stale: run python -m companion.panel.docs")


def test_the_table_lists_every_pin_of_the_map_once() -> None:
    pinmap = load_pinmap()
    table = pin_table(pinmap)
    for gpio in pinmap.used():
        assert table.count(f"| GPIO{gpio} |") == 1
    assert "| GPIO2 | 3 | I2C-1 SDA" in table


def test_the_diagram_is_well_formed_svg_with_every_control() -> None:
    pinmap = load_pinmap()
    root = ET.fromstring(wiring_svg(pinmap))
    texts = " ".join(t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text"))
    for device in pinmap:
        assert device.name in texts


def test_check_fails_on_a_stale_copy_and_the_command_mends_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("README.md", "wiring.svg", "pinmap.toml"):
        shutil.copy(FOLDER / name, tmp_path / name)
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text(pinmap.read_text().replace('key = "s"', 'key = "l"'))
    assert main(["--check", "--pinmap", str(pinmap)]) == 1
    assert "README.md is out of date" in capsys.readouterr().err
    assert main(["--pinmap", str(pinmap)]) == 0
    assert main(["--check", "--pinmap", str(pinmap)]) == 0
    assert "| seat 3 +1 | switch to GND (internal pull-up) | `l` |" in (
        tmp_path / "README.md").read_text()


def test_a_readme_without_its_markers_is_an_error() -> None:
    with pytest.raises(ValueError, match="lost its pin table markers"):
        update_readme("# Panel\n", pin_table(load_pinmap()))
    assert update_readme(f"a\n{BEGIN}\nold\n{END}\nb\n", "new\n") == "a\nnew\nb\n"


def test_a_bad_pin_map_is_reported_by_the_command(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "pinmap.toml"
    bad.write_text('[[device]]\nfunction = "next"\npin = 2\npull_up = true\n')
    assert main(["--check", "--pinmap", str(bad)]) == 2
    assert "line 3" in capsys.readouterr().err
