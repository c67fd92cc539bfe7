"""Setup, the state JSON and the seat payloads of The Rune Market."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from companion.core.errors import SetupError
from companion.core.journal import Journal
from companion.core.rules import rules_for
from companion.core.session import Session
from companion.games.market import RULES
from companion.games.market.state import Phase

from .support import arrange, main, new, outpost, ruin

FOLDER = Path(__file__).resolve().parents[2] / "scenarios" / "market"


def test_the_game_is_registered_under_market() -> None:
    assert rules_for("market") is RULES
    assert RULES.title == "The Rune Market"


@pytest.mark.parametrize("names", ["Ann,Bob", "Ann,Bob,Cid", "Ann,Bob,Cid,Dan", "A,B,C,D,E"])
def test_two_to_five_players(names: str) -> None:
    state = new(names)
    assert [p.name for p in state.players] == names.split(",")
    assert all(p.hand == 3 for p in state.players)  # "each of you receives 3 hand cards"


@pytest.mark.parametrize(("names", "message"), [
    ("Ann", "The Rune Market needs at least 2 players, got 1"),
    ("A,B,C,D,E,F", "The Rune Market is for at most 5 players, got 6"),
])
def test_other_player_counts_are_refused_with_a_sentence(names: str, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        new(names)


def test_the_market_starts_with_the_deck_description() -> None:
    state = new()
    c = RULES.content
    assert (state.market.red, state.market.blue, state.market.outposts, state.market.bandits) \
        == (c.red, c.blue, c.outposts, c.bandits)
    assert state.start == state.market


def test_counts_can_be_set_for_one_game() -> None:
    state = new("Ann,Bob", red=3, blue=0, outposts=1, bandits=2)
    assert (state.market.red, state.market.blue, state.market.outposts, state.market.bandits) \
        == (3, 0, 1, 2)


def test_a_market_without_runes_is_refused() -> None:
    with pytest.raises(SetupError, match="at least one rune"):
        new("Ann,Bob", red=0, blue=0)


def test_the_first_player_is_last_rounds_winner_or_the_youngest() -> None:
    state = new("Ann,Bob,Cid", first="cid")
    assert state.active == state.first == 2
    assert new("Ann,Bob,Cid", first=2).active == 1
    assert new("Ann,Bob,Cid").active == 0


def test_an_unknown_first_player_is_a_setup_error() -> None:
    with pytest.raises(SetupError, match="first: no player called 'Dan'"):
        new("Ann,Bob", first="Dan")


def test_the_setup_reads_like_the_other_games() -> None:
    session = Session.new("market", "market players=Ann,Bob,Cid first=Cid red=4")
    assert session.setup.to_json() == {"action": "market", "players": ["Ann", "Bob", "Cid"],
                                       "first": "Cid", "red": 4}
    again = Session.new("market", session.setup.to_json())
    assert again.state == session.state


def test_a_turn_starts_in_the_purchase_phase_when_no_interest_is_due() -> None:
    assert new().phase is Phase.PURCHASE


def test_state_json_has_the_agreed_keys() -> None:
    state = new("Ann,Bob", red=10, blue=10)
    state = arrange(state, "Ann", red=1, blue=2,
                    shelters=(main("red", 3, outpost=True), ruin("blue", 2, "Bob")))
    doc = RULES.to_json(state)
    assert doc["market"] == {"red": 6, "blue": 6, "outposts": RULES.content.outposts - 1,
                             "bandits": RULES.content.bandits - 1}
    assert doc["phase"] == "purchase"
    assert doc["turn"] == "Ann"
    assert doc["outcome"] is None
    ann = doc["players"][0]
    assert ann["name"] == "Ann"
    assert ann["runes"] == {"red": 4, "blue": 4, "total": 8, "free": {"red": 1, "blue": 2},
                            "by_shelter": {"red": 3, "outpost": 2}, "frozen": 2}
    assert ann["shelters"] == [
        {"label": "red", "kind": "main", "colour": "red", "runes": 3, "outpost": True,
         "bandit": None, "frozen": False},
        {"label": "outpost", "kind": "ruin", "colour": "blue", "runes": 2, "outpost": False,
         "bandit": "Bob", "frozen": True},
    ]
    assert ann["hand_count"] == 3
    assert ann["score"] == 8 + 2 - 1
    assert doc["prices"]["outpost_runes"] == 4


def test_seats_carry_the_common_keys_and_the_rune_count() -> None:
    state = arrange(new("Ann,Bob"), "Bob", red=2, shelters=(outpost(1, "blue"),))
    seats = RULES.seats(state)
    assert seats[1] == {"seat": 2, "name": "Bob", "colour": RULES.content.palette[1],
                        "team": None, "hp": None, "max": None, "tier": None,
                        "defeated": False, "active": False, "winner": False, "over": False,
                        "runes": 3}
    assert seats[0]["active"] is True


def test_a_saved_game_resumes_exactly_and_a_finished_one_is_marked(tmp_path: Path) -> None:
    script = (FOLDER / "two_players_bandit_loot.txt").read_text().splitlines()
    lines = [line for line in script if line.strip() and not line.startswith("#")]
    with Journal(tmp_path / "journal.sqlite") as journal:
        session: Session[Any] = Session.new("market", lines[0], journal=journal)
        for line in lines[1:-1]:
            session.play(line)
        session.undo()
        resumed = Session.resume(journal)
        assert resumed.state == session.state and resumed.cursor == session.cursor
        resumed.redo()
        resumed.play(lines[-1])
        assert resumed.finished
        assert journal.latest_unfinished() is None
