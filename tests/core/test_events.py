"""Event sentences come from a catalogue that a translation can replace, safely."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core.errors import ContentError
from companion.core.events import Catalogue, Event


@pytest.fixture
def catalogue() -> Catalogue:
    c = Catalogue()
    c.register({"zun.damage": "{player} takes {amount} damage: {before} → {after}"})
    return c


def test_a_translation_replaces_the_sentences(catalogue: Catalogue, tmp_path: Path) -> None:
    path = tmp_path / "de.toml"
    path.write_text('"zun.damage" = "{player} verliert {amount} LP: {before} → {after}"\n')
    catalogue.load(path)
    params = {"player": "Ann", "amount": 3, "before": 12, "after": 9}
    assert catalogue.render("zun.damage", params) == "Ann verliert 3 LP: 12 → 9"


@pytest.mark.parametrize("line, message", [
    ('"zun.damge" = "x"', "'zun.damge' is not a known sentence"),
    ('"zun.damage" = 3', "zun.damage must be text"),
    ('"zun.damage" = "{player} takes {dmg}"', "uses {dmg}, which"),
    ('"zun.damage = ', "de.toml"),
])
def test_a_translation_that_would_fail_mid_game_is_refused_whole(
        catalogue: Catalogue, tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "de.toml"
    path.write_text(line + "\n")
    with pytest.raises(ContentError, match=message):
        catalogue.load(path)
    assert catalogue.render("zun.damage", {"player": "Ann", "amount": 1, "before": 2,
                                           "after": 1}) == "Ann takes 1 damage: 2 → 1"


def test_two_engines_cannot_give_one_kind_two_sentences(catalogue: Catalogue) -> None:
    with pytest.raises(ValueError, match="already has another message"):
        catalogue.register({"zun.damage": "something else"})


def test_an_event_carries_its_data_and_its_sentence() -> None:
    import companion.core.session  # noqa: F401  (registers the undo sentence)

    e = Event("undo", {"action": "damage Ann 3"})
    assert e.to_json() == {"kind": "undo", "text": "Undone: damage Ann 3", "action": "damage Ann 3"}
