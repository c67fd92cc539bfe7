"""The pin map: the shipped one is sound, and each kind of bad map is refused, naming its line."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpiozero import Device

from companion.core.journal import Journal
from companion.panel import ButtonPanel, PanelConfig, PinMapError, load_pinmap, parse_pinmap
from companion.panel.pinmap import DEFAULT_PINMAP, RESERVED
from companion.table import Table
from tests.support.pins import ClockedMockFactory

GOOD = """\
[[device]]
function = "plus"
seat = 1
pin = 17
pull_up = true
key = "s"
"""


def test_the_shipped_pin_map_is_sound() -> None:
    pinmap = load_pinmap()
    assert pinmap.path == DEFAULT_PINMAP
    assert pinmap.seats == (1, 2, 3, 4, 5, 6)
    assert set(pinmap.used()).isdisjoint(RESERVED)
    functions = {d.function for d in pinmap}
    assert {"plus", "minus", "encoder", "next", "undo", "redo", "read_dice", "confirm",
            "cancel", "status_led", "buzzer"} <= functions


def test_pins_may_be_given_by_any_name_gpiozero_knows() -> None:
    for name in ('17', '"GPIO17"', '"BCM17"', '"BOARD11"', '"J8:11"'):
        pinmap = parse_pinmap(GOOD.replace("pin = 17", f"pin = {name}"))
        assert pinmap.devices[0].pins == {"pin": 17}


# Each bad map marks the line the error must name with "# <-".
BAD = {
    "a pin used twice": ("used twice", """\
[[device]]
function = "plus"
seat = 1
pin = 17
pull_up = true

[[device]]
function = "minus"
seat = 1
pin = 17  # <-
pull_up = true
"""),
    "a pin used twice within an encoder": ("used twice", """\
[[device]]
function = "encoder"
seat = 2
a = 5
b = 5  # <-
pull_up = true
"""),
    "an I2C pin": ("reserved: I2C-1 SDA", """\
[[device]]
function = "next"
pin = 2  # <-
pull_up = true
"""),
    "the HAT EEPROM's pin, by header number": ("reserved: ID_SC", """\
[[device]]
function = "undo"
pin = "BOARD28"  # <-
pull_up = true
"""),
    "an encoder on the touchscreen's I2C": ("reserved", """\
[[device]]
function = "encoder"
seat = 1
a = 22
b = 3  # <-
pull_up = true
"""),
    "a ground pin": ("header pin 6, GND, not a GPIO", """\
[[device]]
function = "redo"
pin = "BOARD6"  # <-
pull_up = true
"""),
    "a pin that is not on the header": ("not a pin of the 40-pin header", """\
[[device]]
function = "redo"
pin = 40  # <-
pull_up = true
"""),
    "an unknown function": ("unknown function 'nxt' (did you mean 'next'?)", """\
[[device]]
function = "plus"
seat = 1
pin = 17
pull_up = true

[[device]]
function = "nxt"  # <-
pin = 27
pull_up = true
"""),
    "a missing function": ("needs a function", """\
[[device]]  # <-
pin = 27
pull_up = true
"""),
    "a missing pull-up": ("has no pull", """\
[[device]]
function = "plus"
seat = 1
pin = 17
pull_up = true

[[device]]  # <-
function = "minus"
seat = 1
pin = 27
key = "a"
"""),
    "a pulled-down encoder": ("pulls its pins up", """\
[[device]]
function = "encoder"
seat = 1
a = 17
b = 27
pull_up = false  # <-
"""),
    "a misspelt key": ("unknown key 'pul_up'", """\
[[device]]
function = "next"
pin = 27
pul_up = true  # <-
"""),
    "a seat's control without a seat": ("belongs to a seat", """\
[[device]]  # <-
function = "plus"
pin = 27
pull_up = true
"""),
    "a seat out of range": ("seat must be a number from 1 to 8", """\
[[device]]
function = "plus"
seat = 9  # <-
pin = 27
pull_up = true
"""),
    "a seat on a table-wide control": ("serves the whole table", """\
[[device]]
function = "next"
seat = 1  # <-
pin = 27
pull_up = true
"""),
    "the same control twice": ("seat 1 plus is already on line 1", """\
[[device]]
function = "plus"
seat = 1
pin = 17
pull_up = true

[[device]]  # <-
function = "plus"
seat = 1
pin = 27
pull_up = true
"""),
    "a key used twice": ("key 'a' is used twice", """\
[[device]]
function = "plus"
seat = 1
pin = 17
pull_up = true
key = "a"

[[device]]
function = "minus"
seat = 1
pin = 27
pull_up = true
key = "A"  # <-
"""),
    "a missing pin": ("needs pin", """\
[[device]]  # <-
function = "buzzer"
"""),
    "not TOML": ("not valid TOML", """\
[[device]]
function = "buzzer"
pin = = 18  # <-
"""),
    "an inline array of devices": ("write each device as a [[device]] table", """\
device = [{ function = "buzzer", pin = 18 }]  # <-
"""),
    "an unknown table": ("a pin map holds only [[device]] tables", """\
[[device]]
function = "buzzer"
pin = 18

[panel]  # <-
bounce = 1
"""),
}


@pytest.mark.parametrize("case", BAD, ids=list(BAD))
def test_a_bad_map_is_refused_naming_its_line(case: str) -> None:
    fragment, text = BAD[case]
    line = next(n for n, t in enumerate(text.splitlines(), 1) if t.endswith("# <-"))
    with pytest.raises(PinMapError) as caught:
        parse_pinmap(text, "panel.toml")
    assert caught.value.line == line
    assert str(caught.value).startswith(f"panel.toml, line {line}: ")
    assert fragment in str(caught.value)


def test_a_bad_map_is_refused_before_any_pin_is_touched(
        tmp_path: Path, mock_factory: ClockedMockFactory) -> None:
    bad = tmp_path / "pinmap.toml"
    bad.write_text(GOOD + BAD["an I2C pin"][1])
    with pytest.raises(PinMapError, match="line 9"):
        ButtonPanel(Table(Journal(":memory:")), config=PanelConfig(pinmap=bad)).start()
    assert Device.pin_factory is mock_factory
    assert not mock_factory.pins


def test_a_missing_file_is_a_pin_map_error(tmp_path: Path) -> None:
    with pytest.raises(PinMapError, match="cannot read the pin map"):
        load_pinmap(tmp_path / "nowhere.toml")
