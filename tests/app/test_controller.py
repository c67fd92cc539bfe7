"""The controller: the screens' one door to the game, tested without a window."""

from __future__ import annotations

from pathlib import Path

import pytest

from companion.app.controller import Controller
from companion.core.journal import Journal
from companion.core.session import Session
from companion.table import Table


@pytest.fixture
def controller(tmp_path: Path) -> Controller:
    return Controller(Table(Journal(tmp_path / "journal.sqlite")))


def test_a_forbidden_setup_is_refused_and_nothing_is_saved(controller: Controller) -> None:
    result = controller.new_game("zun", {"action": "zun", "players": ["Ann"]})
    assert not result.ok and "at least 2 players" in (result.error or "")
    assert controller.session is None
    assert controller.saved_games() == []


def test_a_name_already_taken_is_refused(controller: Controller) -> None:
    result = controller.new_game("zun", {"action": "zun", "players": ["Ann", "ann"]})
    assert not result.ok and "two players are called" in (result.error or "")
    assert controller.saved_games() == []


def test_an_unknown_game_is_a_clear_refusal(controller: Controller) -> None:
    result = controller.new_game("chess", "players=Ann,Bob")
    assert not result.ok and "unknown game" in (result.error or "")


def test_preview_shows_the_engines_result_without_applying_it(controller: Controller) -> None:
    assert controller.new_game("zun", "players=Ann,Bob").ok
    controller.play("damage Ann 5")  # 12 -> 7: tier 2 (5-8)
    preview = controller.preview("heal Ann 4")
    assert preview.ok
    ann = preview.seat(1)
    assert ann is not None and ann["hp"] == 8  # the tier cap, computed by the engine
    assert controller.state()["players"][0]["hp"] == 7
    assert not controller.preview("heal Zed 1").ok


def test_a_tap_on_a_state_the_player_never_saw_is_refused(controller: Controller) -> None:
    assert controller.new_game("zun", "players=Ann,Bob").ok
    seen = controller.revision
    assert controller.play("next", seen=seen).ok
    stale = controller.play("next", seen=seen)
    assert not stale.ok and stale.kind == "Stale"
    assert controller.state()["phase"] == "action"


def test_history_goto_and_hp_series(controller: Controller) -> None:
    assert controller.new_game("zun", "players=Ann,Bob").ok
    for command in ("damage Ann 3", "damage Bob 2", "heal Ann 1"):
        assert controller.play(command).ok
    assert controller.hp_series() == {"Ann": [12, 9, 9, 10], "Bob": [12, 12, 10, 10]}
    assert controller.play("goto 1").ok
    lines = controller.history()
    assert [line.undone for line in lines] == [False, True, True]
    assert lines[0].sentences == ("Ann takes 3 damage: 12 → 9",)
    assert controller.hp_series() == {"Ann": [12, 9], "Bob": [12, 12]}


def test_resume_and_archive(controller: Controller, tmp_path: Path) -> None:
    assert controller.new_game("zun", "players=Ann,Bob").ok
    controller.play("damage Bob 4")
    game_id = controller.session.game_id  # type: ignore[union-attr]
    other = Controller(Table(Journal(tmp_path / "journal.sqlite")))
    assert other.resume().ok
    assert other.state()["players"][1]["hp"] == 8
    assert isinstance(other.session, Session)
    assert other.archive(game_id).ok
    assert other.session is None, "archiving the game in play leaves it"
    assert other.saved_games() == []
    assert not other.resume(9999).ok
