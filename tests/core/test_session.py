"""The session: one log, undo/redo/goto, journaling before anyone hears of a change."""

from __future__ import annotations

from typing import Any

import pytest

from companion.core.errors import JournalError, NoSuchGame, RuleError
from companion.core.journal import Journal
from companion.core.session import Change, NothingToRedo, NothingToUndo, Session
from companion.games.zun import RULES


def hps(session: Session[Any]) -> list[int]:
    return [p.hp for p in session.state.players]


def test_undo_redo_and_goto_move_through_the_log() -> None:
    s = Session.new(RULES, "players=Ann,Bob")
    for cmd in ["damage Ann 1", "damage Ann 2", "damage Bob 3"]:
        s.play(cmd)
    assert [str(e) for e in s.undo()] == ["Undone: damage Bob 3"]
    assert hps(s) == [9, 12]
    s.undo()
    assert hps(s) == [11, 12]
    assert [str(e) for e in s.redo()] == ["Redone: damage Ann 2"]
    assert hps(s) == [9, 12]
    s.goto(0)
    assert hps(s) == [12, 12] and s.can_redo and not s.can_undo
    s.goto(3)
    assert hps(s) == [9, 9]
    assert s.revision == 8 and s.cursor == 3  # 3 actions, 2 undos, a redo, 2 jumps


def test_a_new_action_after_undo_replaces_the_undone_tail() -> None:
    s = Session.new(RULES, "players=Ann,Bob")
    s.play("damage Ann 1")
    s.play("damage Ann 2")
    s.undo()
    s.play("heal Ann 1")
    assert [str(a) for a in s.log] == ["damage Ann 1", "heal Ann 1"]
    assert not s.can_redo
    with pytest.raises(NothingToRedo):
        s.redo()


def test_undo_at_the_start_and_goto_out_of_range_are_refused() -> None:
    s = Session.new(RULES, "players=Ann,Bob")
    with pytest.raises(NothingToUndo, match="nothing to undo"):
        s.play("undo")
    with pytest.raises(RuleError, match="there is no action 4"):
        s.play("goto 4")


def test_history_keeps_undone_entries_marked() -> None:
    s = Session.new(RULES, "players=Ann,Bob")
    s.play("damage Ann 1")
    s.play("damage Bob 1")
    s.undo()
    history = s.history()
    assert [(e.seq, str(e.action), e.undone) for e in history] == [
        (1, "damage Ann 1", False), (2, "damage Bob 1", True)]
    assert str(history[0].events[0]) == "Ann takes 1 damage: 12 → 11"


def test_listeners_hear_after_the_journal_has_the_action() -> None:
    journal = Journal(":memory:")
    s = Session.new(RULES, "players=Ann,Bob", journal=journal)
    heard: list[tuple[int, int]] = []

    def listener(change: Change[Any]) -> None:
        stored = journal.load(s.game_id)  # type: ignore[arg-type]
        heard.append((change.revision, stored.info.cursor))

    s.subscribe(listener)
    s.play("damage Ann 1")
    s.undo()
    assert heard == [(1, 1), (2, 0)]


def test_a_failing_listener_does_not_undo_a_committed_action(caplog: pytest.LogCaptureFixture) -> None:
    s = Session.new(RULES, "players=Ann,Bob")
    s.subscribe(lambda change: 1 / 0)
    s.play("damage Ann 1")
    assert hps(s) == [11, 12]
    assert "listener" in caplog.text


def test_a_refused_action_is_not_journaled_and_nobody_hears_of_it() -> None:
    journal = Journal(":memory:")
    s = Session.new(RULES, "players=Ann,Bob", journal=journal)
    heard: list[Any] = []
    s.subscribe(heard.append)
    with pytest.raises(RuleError):
        s.play("heal Zed 1")
    assert heard == [] and journal.load(s.game_id).actions == ()  # type: ignore[arg-type]


def test_when_the_journal_cannot_write_the_game_does_not_change() -> None:
    journal = Journal(":memory:")
    s = Session.new(RULES, "players=Ann,Bob", journal=journal)
    s.play("damage Ann 1")
    journal.close()
    before = (s.state, s.revision, s.log)
    with pytest.raises(JournalError, match="not writable"):
        s.play("damage Ann 1")
    with pytest.raises(JournalError):
        s.undo()
    assert (s.state, s.revision, s.log) == before


def test_seeds_are_filled_in_and_kept_so_replay_is_exact() -> None:
    journal = Journal(":memory:")
    deck = 'deck="Ritual Grounds","Rune Library","Quiet Crossroads","Ember Steps"'
    s = Session.new(RULES, f"players=Ann,Bob locations=normal {deck}", journal=journal)
    assert s.setup.seed is not None  # type: ignore[attr-defined]
    s.play("next")
    s.play("scramble")
    assert s.log[-1].seed is not None  # type: ignore[attr-defined]
    resumed = Session.resume(journal, s.game_id)
    assert resumed.state == s.state


def test_resume_brings_back_the_redo_tail_and_the_revision() -> None:
    journal = Journal(":memory:")
    s = Session.new(RULES, "players=Ann,Bob", journal=journal)
    s.play("damage Ann 1")
    s.play("damage Ann 2")
    s.undo()
    resumed = Session.resume(journal)
    assert (resumed.cursor, resumed.revision, hps(resumed)) == (1, 3, [11, 12])
    resumed.redo()
    assert hps(resumed) == [9, 12]


def test_resume_picks_the_last_unfinished_game() -> None:
    journal = Journal(":memory:")
    first = Session.new(RULES, "players=Ann,Bob", journal=journal)
    second = Session.new(RULES, "players=Cid,Dee", journal=journal)
    second.play("defeat Dee")  # finished
    first.play("damage Ann 1")
    assert Session.resume(journal).game_id == first.game_id
    first.play("defeat Bob")
    with pytest.raises(NoSuchGame, match="no unfinished game"):
        Session.resume(journal)


def test_an_action_of_another_game_is_refused() -> None:
    from companion.core.actions import Action, action

    @action("fly")
    class Fly(Action):
        pass

    s = Session.new(RULES, "players=Ann,Bob")
    with pytest.raises(RuleError, match="'fly' is not an action of Runes of Zun"):
        s.play(Fly())
