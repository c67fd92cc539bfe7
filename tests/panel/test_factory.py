"""Pin factories: chosen when the panel starts, never at import; the mock fallback warns."""

from __future__ import annotations

import subprocess
import sys
import warnings
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory

from companion.core.journal import Journal
from companion.panel import ButtonPanel, PanelConfig, PanelError, PanelWarning
from companion.panel.factory import choose_pin_factory
from companion.table import Table
from tests.panel.conftest import Rig


@pytest.fixture
def no_default_factory(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No factory installed, no GPIOZERO_PIN_FACTORY, and no lgpio to load (as on a desktop)."""
    saved = Device.pin_factory
    Device.pin_factory = None
    monkeypatch.delenv("GPIOZERO_PIN_FACTORY", raising=False)
    monkeypatch.setitem(sys.modules, "gpiozero.pins.lgpio", None)
    yield
    if Device.pin_factory is not None:
        Device.pin_factory.close()
    Device.pin_factory = saved


def test_the_installed_factory_is_used(rig: Rig) -> None:
    assert rig.panel.pin_factory is rig.factory


@pytest.mark.usefixtures("no_default_factory")
def test_asking_for_mock_pins_gives_them_quietly() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        factory = choose_pin_factory("mock")
    assert isinstance(factory, MockFactory)


@pytest.mark.usefixtures("no_default_factory")
def test_without_gpio_the_panel_runs_on_simulated_pins_and_says_so_loudly(
        caplog: pytest.LogCaptureFixture) -> None:
    table = Table(Journal(":memory:"))
    with pytest.warns(PanelWarning, match="runs on simulated pins and its buttons do nothing"):
        panel = ButtonPanel(table).start()
    try:
        assert isinstance(panel.pin_factory, MockFactory)
        assert "no GPIO here" in caplog.text
    finally:
        panel.close()


@pytest.mark.usefixtures("no_default_factory")
def test_asking_for_lgpio_where_there_is_none_is_an_error() -> None:
    with pytest.raises(PanelError, match="lgpio cannot drive the pins here"):
        ButtonPanel(Table(Journal(":memory:")), config=PanelConfig(pins="lgpio")).start()


@pytest.mark.usefixtures("no_default_factory")
def test_gpiozero_pin_factory_in_the_environment_is_respected(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        factory = choose_pin_factory("auto")
    assert isinstance(factory, MockFactory)


def test_importing_the_panel_touches_no_pin() -> None:
    code = ("import companion.panel, companion.panel.keyboard\n"
            "from gpiozero import Device\n"
            "assert Device.pin_factory is None, Device.pin_factory\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
