"""The deck description: the built-in numbers, a table's own overrides, and bad files."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core.errors import ContentError
from companion.core.session import parse_setup
from companion.games.market.content import MarketContent
from companion.games.market.engine import MarketRules

from .support import player


@pytest.fixture
def user_data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user data folder searched after the built-in one (and nothing from $HOME)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("RUNES_DATA", str(tmp_path / "data"))
    (tmp_path / "data" / "market").mkdir(parents=True)
    return tmp_path / "data" / "market" / "deck.toml"


def test_the_built_in_deck_has_the_rule_books_numbers(user_data: Path) -> None:
    c = MarketContent.load()
    assert [c.price(n) for n in (2, 3, 4, 5)] == [4, 3, 2, 2]
    assert (c.price_cards, c.ransom_cards, c.ransom_runes) == (21, 21, 3)
    assert dict(c.rune_sums) == {5: 1, 10: 1, 15: 1}
    assert (c.interest, c.interest_with_outpost) == (1, 2)
    assert (c.rune_points, c.main_shelter_points, c.outpost_points, c.bandit_points) == \
        (1, 0, 2, -1)
    assert (c.hand_size, c.min_players, c.max_players) == (3, 2, 5)


def test_a_table_overrides_only_the_keys_it_sets(user_data: Path) -> None:
    user_data.write_text("[market]\nred = 7\n\n[prices]\nrunes = { 2 = 5 }\n")
    c = MarketContent.load()
    assert (c.red, c.blue) == (7, 20)
    assert [c.price(n) for n in (2, 3, 4, 5)] == [5, 3, 2, 2]


def test_the_other_reading_of_rune_prices_is_one_line(user_data: Path) -> None:
    # "discarding any amount of 5, 10 or 15" read as 5 per rune.
    user_data.write_text("[prices]\nrune_sums = { 5 = 1, 10 = 2, 15 = 3 }\n")
    rules = MarketRules(MarketContent.load())
    state = rules.new_game(parse_setup(rules, "players=Ann,Bob"))  # type: ignore[arg-type]
    state, _ = rules.apply(state, rules.actions.read("buy_rune Ann blue cards=7,8"))
    assert player(state, "Ann").free.blue == 3


@pytest.mark.parametrize(("text", "message"), [
    ("[market]\nred = -1\n", r"\[market\]: red must be at least 0, got -1"),
    ("[market]\nred = \"many\"\n", r"'red' must be int"),
    ("[players]\nmax = 6\n", "no price for 6 players"),
    ("[prices]\nrunes = { two = 4 }\n", "the key 'two' must be a player count"),
    ("[prices]\nrune_sums = { 5 = 0 }\n", "5 = 0 must be a whole number of at least 1"),
    ("[colours]\npalette = []\n", "palette must be a list"),
    ("[hand]\nnumber_min = 5\nnumber_max = 4\n", "number_max must be at least 5"),
])
def test_a_malformed_deck_file_names_the_key(user_data: Path, text: str, message: str) -> None:
    user_data.write_text(text)
    with pytest.raises(ContentError, match=message):
        MarketContent.load()
