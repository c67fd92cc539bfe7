"""The journal file: WAL, durable commits, saved games listed, resumed, archived, backed up."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from companion.core.errors import JournalChanged, JournalError, NoSuchGame
from companion.core.journal import Journal
from companion.core.session import Session
from companion.games.zun import RULES


def test_the_file_is_in_wal_mode_with_full_sync(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as j:
        assert j._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_saved_games_are_listed_newest_first_and_archived_ones_hidden(tmp_path: Path) -> None:
    ticks = iter(range(100))
    with Journal(tmp_path / "j.sqlite", clock=lambda: next(ticks)) as j:
        a = Session.new(RULES, "players=Ann,Bob", journal=j, title="Tuesday")
        b = Session.new(RULES, "players=Cid,Dee", journal=j)
        a.play("damage Ann 1")
        assert [g.id for g in j.games()] == [a.game_id, b.game_id]
        assert j.games()[0].title == "Tuesday" and j.games()[0].cursor == 1
        j.mark(a.game_id, "archived")  # type: ignore[arg-type]
        assert [g.id for g in j.games()] == [b.game_id]
        assert {g.id for g in j.games(include_archived=True)} == {a.game_id, b.game_id}
        assert j.latest_unfinished() == b.game_id


def test_an_archived_game_can_be_resumed_and_played_again(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as j:
        a = Session.new(RULES, "players=Ann,Bob", journal=j)
        a.play("damage Ann 1")
        j.mark(a.game_id, "archived")  # type: ignore[arg-type]
        with pytest.raises(NoSuchGame):
            a.play("damage Ann 1")  # an archived game is not written to by mistake
        again = Session.resume(j, a.game_id)
        again.play("damage Ann 1")
        assert again.state.players[0].hp == 10


def test_the_file_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        s = Session.new(RULES, "players=Ann,Bob", journal=j)
        s.play('effect Ann "Rune Shield" prevents')
    with Journal(path) as j:
        resumed = Session.resume(j)
        assert resumed.state.players[0].effects[0].name == "Rune Shield"
        assert j.integrity_check() == ["ok"]


def test_unknown_games_are_named(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as j:
        with pytest.raises(NoSuchGame, match="no game 42"):
            j.load(42)
        with pytest.raises(NoSuchGame):
            j.mark(42, "archived")


def test_a_file_that_is_not_a_journal_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(JournalError, match="cannot open the journal"):
        Journal(path)


def test_a_journal_from_a_newer_companion_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA user_version=99")
    db.close()
    with pytest.raises(JournalError, match="newer companion"):
        Journal(path)


def test_a_damaged_stored_action_is_reported_not_crashed_on(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with Journal(path) as j:
        s = Session.new(RULES, "players=Ann,Bob", journal=j)
        s.play("damage Ann 1")
        j._db.execute("UPDATE actions SET action = '{\"action\": \"fly\"}'")
        with pytest.raises(JournalError, match="stored action 1 no longer applies"):
            Session.resume(j)


def test_online_backup_is_a_consistent_copy(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as j:
        s = Session.new(RULES, "players=Ann,Bob", journal=j)
        s.play("damage Ann 4")
        j.backup(tmp_path / "copy.sqlite")
    with Journal(tmp_path / "copy.sqlite") as copy:
        assert Session.resume(copy).state.players[0].hp == 8


def test_a_second_writer_is_noticed_and_nothing_is_overwritten(tmp_path: Path) -> None:
    """The command line may play a game the app holds: neither write may erase the other."""
    with Journal(tmp_path / "j.sqlite") as app_side, Journal(tmp_path / "j.sqlite") as cli_side:
        app = Session.new(RULES, "players=Ann,Bob", journal=app_side)
        app.play("damage Ann 1")
        Session.resume(cli_side).play("damage Bob 5")
        with pytest.raises(JournalChanged, match="changed by another program"):
            app.play("damage Ann 2")
        assert app.state.players[0].hp == 11  # nothing changed in memory either
        with pytest.raises(JournalChanged):
            app.undo()
        assert [str(a) for a in Session.resume(cli_side).log] == ["damage Ann 1", "damage Bob 5"]


def test_a_full_disk_is_a_journal_error_and_the_game_is_as_it_was(tmp_path: Path) -> None:
    with Journal(tmp_path / "j.sqlite") as j:
        s = Session.new(RULES, "players=Ann,Bob", journal=j)
        pages = j._db.execute("PRAGMA page_count").fetchone()[0]
        j._db.execute(f"PRAGMA max_page_count = {pages + 2}")
        with pytest.raises(JournalError, match="nothing was changed"):
            for n in range(200):
                s.play({"action": "effect", "player": "Ann", "name": f"{n}" + "x" * 3000})
        kept = len(s.log)
        j._db.execute("PRAGMA max_page_count = 1000000")
        assert len(Session.resume(j).log) == kept
        assert j._db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
