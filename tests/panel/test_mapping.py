"""Game mappings: data files say what each control does; the mechanism is tested with Zun."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.core.content import BUILTIN
from companion.core.rules import rules_for
from companion.core.session import SESSION_ACTIONS
from companion.panel import GameMapping, MappingError, Request
from companion.panel.mapping import expand
from tests.panel.conftest import Rig

SHIPPED = sorted((BUILTIN / "panel").glob("*.toml"))

CHECKED = ["zun", "runecast", "market"]
"""Every game: each shipped mapping must use only its game's verbs."""


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_mapping_is_well_formed(path: Path) -> None:
    mapping = GameMapping.load(path.stem)
    assert mapping.meanings


@pytest.mark.parametrize("game", CHECKED)
def test_the_shipped_mapping_uses_only_the_games_actions(game: str) -> None:
    GameMapping.load(game).check(rules_for(game).actions | SESSION_ACTIONS)


def test_every_game_has_a_mapping() -> None:
    assert {p.stem for p in SHIPPED} == {"zun", "runecast", "market"}


def test_a_mapping_naming_an_unknown_action_is_refused() -> None:
    mapping = GameMapping.from_data("zun", {"plus": {"press": "heel {seat} 1"}}, "test.toml")
    with pytest.raises(MappingError, match=r"test.toml \[plus\] press = 'heel \{seat\} 1': "
                                           r"unknown action 'heel' \(did you mean heal\?\)"):
        mapping.check(rules_for("zun").actions)


def test_read_dice_must_become_an_action_of_the_game() -> None:
    mapping = GameMapping.from_data("zun", {"read_dice": {"press": "@read_dice roll"}})
    with pytest.raises(MappingError, match="unknown action 'roll'"):
        mapping.check(rules_for("zun").actions)


@pytest.mark.parametrize(("data", "message"), [
    ({"plsu": {"press": "next"}}, r"unknown control \[plsu\]"),
    ({"buzzer": {"press": "next"}}, r"unknown control \[buzzer\]"),
    ({"confirm": {"press": "next"}}, "the panel's own"),
    ({"plus": "heal"}, "must be a table"),
    ({"plus": {"pres": "heal {seat} 1"}}, "unknown key 'pres'"),
    ({"plus": {"press": 3}}, r"\[plus\] press: must be text"),
    ({"minus": {"hold": "defeat {seat}", "hold_time": "soon"}}, "must be a duration"),
    ({"minus": {"hold": "defeat {seat}", "hold_time": 0}}, "hold_time: must be more than 0"),
    ({"plus": {"repeat": True}}, "give press"),
    ({"plus": {"press": "heal {seat} 1", "repeat": True, "hold": "defeat {seat}"}},
     "either repeats or has a long-press meaning"),
    ({"encoder": {"press": "next"}}, "unknown key 'press'"),
    ({"encoder": {}}, "give clockwise, counter_clockwise or both"),
    ({"next": {"press": "damage {seat} 1"}}, r"unknown placeholder \{seat\}"),
    ({"plus": {"press": "heal {seat} {steps}"}}, r"unknown placeholder \{steps\}"),
    ({"plus": {"press": "heal {seat 1"}}, "expected '}'"),
    ({"read_dice": {"press": "@roll_dice"}}, "unknown request @roll_dice"),
    ({"read_dice": {"press": "@read_dice"}}, "@read_dice takes one word"),
    ({"next": {"press": " "}}, "the command is empty"),
])
def test_a_malformed_mapping_is_refused_naming_the_control(data: dict[str, Any],
                                                            message: str) -> None:
    with pytest.raises(MappingError, match=message):
        GameMapping.from_data("zun", data, "test.toml")


def test_expand_fills_in_seat_and_steps() -> None:
    assert expand("damage {seat} {steps}", seat=3, steps=4) == "damage 3 4"
    assert expand("@read_dice loki_roll") == Request("read_dice", "loki_roll")


def test_a_user_mapping_overrides_the_shipped_one(tmp_path: Path, table: Any,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  rig: Rig) -> None:
    (tmp_path / "panel").mkdir()
    (tmp_path / "panel" / "zun.toml").write_text(
        '[plus]\npress = "heal {seat} 2"\n\n[f1]\npress = "damage 1 3"\n')
    monkeypatch.setenv("RUNES_DATA", str(tmp_path))
    rig.table.start("zun", "players=Ann,Bob,Cid,Dan,Eve,Fay")  # a new game reloads the mapping
    rig.tap("f1")
    rig.tap("plus", 3)
    rig.tap("minus", 3)
    assert rig.sent == ["damage 1 3", "heal 3 2", "damage 3 1"]


def test_a_mapping_that_does_not_fit_the_game_leaves_the_panel_silent(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, rig: Rig,
        caplog: pytest.LogCaptureFixture) -> None:
    (tmp_path / "panel").mkdir()
    (tmp_path / "panel" / "zun.toml").write_text('[next]\npress = "end_turn"\n')
    monkeypatch.setenv("RUNES_DATA", str(tmp_path))
    rig.table.start("zun", "players=Ann,Bob")
    assert "the button panel does nothing in this game" in caplog.text
    assert "end_turn" in caplog.text
    assert rig.panel.mapping is None
    rig.tap("minus", 3)
    assert rig.sent == []
