"""Runecast in a journaled session: saved, resumed, and every action's text form."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.core.journal import Journal
from companion.core.replay import replay_lines
from companion.core.session import Session
from companion.games.runecast.actions import ACTIONS

SCENARIO = Path(__file__).parents[2] / "scenarios" / "runecast" / "four_players.txt"


def test_a_saved_game_resumes_exactly(tmp_path: Path) -> None:
    lines = [ln for ln in SCENARIO.read_text().splitlines() if ln and not ln.startswith("#")]
    with Journal(tmp_path / "games.sqlite") as journal:
        session = Session.new("runecast", lines[0], journal=journal)
        for line in lines[1:30]:
            session.play(line)
        session.undo()
        resumed = Session.resume(journal)
        assert resumed.state == session.state
        assert resumed.cursor == session.cursor
        resumed.redo()
        for line in lines[30:]:
            resumed.play(line)
        assert resumed.state == replay_lines(lines).state
        assert resumed.finished


@pytest.mark.parametrize("line", [
    'flip Ann weapon "Spear of Tyr"',
    "flip 2 armor",
    "ability Astrid",
    "roll hammers=3 snakes=1 trees=2",
    "tree_heal 2",
    "next",
    "loki_roll hammers=3 snakes=2 trees=1 card=RFR-RRF-FFR",
    'loki_roll 1 2 3 card="RFR RRF FFR"',
    "fate 'Ann 2' RFR",
    "fate Ann fate=RFR",
    "damage Bob 2",
    "heal Bob 1",
    "wound",
    "dice Ann -1",
    "loki_dice +2",
    "discard Cid weapon",
    "reincarnate Dan",
])
def test_text_and_json_forms_round_trip(line: str) -> None:
    action = ACTIONS.parse(line)
    assert ACTIONS.parse(str(action)) == action
    assert ACTIONS.from_json(action.to_json()) == action
