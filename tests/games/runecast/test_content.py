"""The shipped data files, and a table's own boards, characters and defaults."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.core.errors import ContentError
from companion.core.session import Session
from companion.games.runecast.content import RunecastContent
from companion.games.runecast.engine import RunecastRules

from .support import RULEBOOK_TABLES


@pytest.fixture
def user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty user data folder; the real ~/.config is kept out of the way."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    folder = tmp_path / "data"
    (folder / "runecast").mkdir(parents=True)
    monkeypatch.setenv("RUNES_DATA", str(folder))
    yield folder / "runecast"


def test_the_shipped_tables_are_the_rule_books(user_data: Path) -> None:
    c = RunecastContent.load()
    assert dict(c.tables) == RULEBOOK_TABLES
    assert c.dice_total == 32
    assert c.card_sets == 3
    assert c.loki_hit is None  # one damage per hammer
    assert c.refill_dice


def test_the_hero_fate_deck_and_the_three_player_removals(user_data: Path) -> None:
    c = RunecastContent.load()
    assert sorted(c.hero_fates) == ["FFR", "FRF", "FRR", "RFF", "RFR", "RRF"]
    assert sorted(c.fate_deck(3)) == ["FFR", "FRF", "FRR"]
    assert c.fate_deck(3, all_fates=True) == c.hero_fates
    assert c.fate_deck(4) == c.hero_fates


def test_there_is_sample_content_for_a_six_player_game(user_data: Path) -> None:
    c = RunecastContent.load()
    assert len(c.boards) >= 12
    assert len(c.characters) >= 6
    assert all(b.wounds > 0 and b.special.text and b.boon.text for b in c.boards.values())
    assert all(ch.hp > 0 and ch.ability for ch in c.characters.values())
    session = Session.new(RunecastRules(), "runecast players=A1,B2,C3,D4,E5,F6")
    assert session.state.dice_in_play() == 32


def test_a_table_adds_and_replaces_battle_boards(user_data: Path) -> None:
    (user_data / "battles.toml").write_text('''
[[battle]]
name = "Draugr Barrow"
wounds = 20
special = { snakes = 9, text = "Harder" }
boon = { trees = 9, text = "Rarer" }

[[battle]]
name = "Our Own Troll"
wounds = 7
special = { snakes = 3, text = "Club" }
boon = { trees = 2, text = "Sunrise" }
''')
    c = RunecastContent.load()
    assert c.board("draugr barrow").wounds == 20
    assert c.board("Our Own Troll").special.text == "Club"
    assert len(c.boards) == 15


def test_a_character_without_hp_starts_at_the_default(user_data: Path) -> None:
    (user_data / "defaults.toml").write_text("starting_hp = 14\nloki_hit = 2\n")
    (user_data / "characters.toml").write_text(
        '[[character]]\nname = "Freydis"\nability = "Sail away."\n')
    c = RunecastContent.load()
    assert c.character("Freydis").hp == 14
    assert c.character("Freydis").colour is None
    assert c.loki_hit == 2


@pytest.mark.parametrize("file, text, message", [
    ("battles.toml", '[[battle]]\nname = "X"\nwounds = 0\nspecial = { snakes = 1, text = "a" }\n'
                     'boon = { trees = 1, text = "b" }\n', "battle 'X': wounds must be at least 1"),
    ("battles.toml", '[[battle]]\nname = "X"\nwounds = 3\nspecial = { snakes = 1 }\n'
                     'boon = { trees = 1, text = "b" }\n', "battle 'X' special: missing 'text'"),
    ("battles.toml", '[[battle]]\nname = "X"\nwounds = 3\nspecial = { snakes = 1, text = "a" }\n',
     "battle 'X': missing 'boon'"),
    ("characters.toml", '[[character]]\nname = "A,B"\nability = "x"\n', "cannot be a number"),
    ("characters.toml", '[[character]]\nname = "Z"\nhp = "ten"\nability = "x"\n',
     "'hp' must be int"),
    ("defaults.toml", 'loki_hit = "lots"\n', 'loki_hit must be "hammers" or a whole number'),
    ("defaults.toml", 'hero_fates = ["RFR", "RFR"]\n', "different triplets"),
    ("defaults.toml", 'hero_fates = ["RFR", "FFF"]\n', "never FFF or RRR"),
    ("defaults.toml", 'three_player_removed = ["RXR"]\n', "a rune set is three of R and F"),
    ("defaults.toml", '[characters.7]\nfate_cards = 5\nbattles = 0\ndice = 4\n',
     r"\[characters.7\]: battles must be at least 1"),
    ("defaults.toml", "battles = [\n", "runecast/defaults.toml"),
])
def test_malformed_data_names_the_file_and_entry(user_data: Path, file: str, text: str,
                                                 message: str) -> None:
    (user_data / file).write_text(text)
    with pytest.raises(ContentError, match=message):
        RunecastContent.load()
