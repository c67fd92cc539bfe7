"""The ``runes`` command line, run as a person would: a real journal file, real output."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main

ROOT = Path(__file__).resolve().parents[1]


def runes(db: Path, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--db", str(db), *args], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "journal.sqlite"


def test_a_game_from_the_command_line(db: Path) -> None:
    code, out, _ = runes(db, "new", "zun", "players=Ann,Bob,Cid,Dee",
                         "teams=Red:Ann+Cid,Blue:Bob+Dee")
    assert code == 0 and "Started game 1: Runes of Zun" in out
    assert runes(db, "do", "damage", "Ann", "3")[1] == "Ann takes 3 damage: 12 → 9\n"
    assert runes(db, "do", '{"action": "heal", "player": "Ann", "amount": 2}')[0] == 0
    assert runes(db, "undo")[1] == "Undone: heal Ann 2\n"
    assert runes(db, "redo")[1] == "Redone: heal Ann 2\n"
    code, out, _ = runes(db, "state", "--json")
    state = json.loads(out)
    assert state["players"][0] == {**state["players"][0], "name": "Ann", "hp": 11,
                                   "defeated": False, "team": "Red"}
    assert (state["round"], state["turn"], state["phase"], state["winner"]) == (1, "Ann", "start",
                                                                                None)


def test_refusals_exit_1_with_the_rule_and_change_nothing(db: Path) -> None:
    runes(db, "new", "zun", "players=Ann,Bob")
    code, out, err = runes(db, "do", "heal", "Zed", "2")
    assert (code, out) == (1, "")
    assert err == "runes: no player called 'Zed' at the table (players: Ann, Bob)\n"
    code, _, err = runes(db, "do", "damage", "Ann", "-3")
    assert code == 1 and "AMOUNT must be a whole number of at least 1, got -3" in err
    assert json.loads(runes(db, "state", "--json")[1])["revision"] == 0


def test_log_games_resume_and_archive(db: Path) -> None:
    runes(db, "new", "zun", "players=Ann,Bob", "--title", "first")
    runes(db, "do", "damage", "Ann", "1")
    runes(db, "new", "zun", "players=Cid,Dee")
    assert "Cid" in runes(db, "state")[1]
    code, out, _ = runes(db, "resume", "1")
    assert code == 0 and "Resumed game 1" in out
    assert "Ann takes 1 damage: 12 → 11" in runes(db, "log")[1]
    games = json.loads(runes(db, "games", "--json")[1])
    assert [g["id"] for g in games] == [1, 2] and games[0]["title"] == "first"
    runes(db, "archive", "1")
    assert [g["id"] for g in json.loads(runes(db, "games", "--json")[1])] == [2]
    assert len(json.loads(runes(db, "games", "--all", "--json")[1])) == 2
    assert "Cid" in runes(db, "state")[1]
    assert runes(db, "--game", "1", "state", "--json")[0] == 0


def test_no_game_yet_is_a_clear_message(db: Path) -> None:
    code, _, err = runes(db, "state")
    assert code == 1 and "no unfinished game" in err


def test_replay_prints_the_final_state(tmp_path: Path, db: Path) -> None:
    game = tmp_path / "game.txt"
    game.write_text("# a duel\nzun players=Ann,Bob\ndamage Bob 5\n"
                    '{"action": "heal", "player": "Bob", "amount": 1}\n\nnext\n')
    code, out, _ = runes(db, "replay", str(game))
    state = json.loads(out)
    assert code == 0 and state["players"][1]["hp"] == 8 and state["phase"] == "action"
    assert not db.exists() or json.loads(runes(db, "games", "--json")[1]) == []


def test_replay_names_the_line_of_a_garbled_action(tmp_path: Path, db: Path) -> None:
    game = tmp_path / "game.txt"
    game.write_text("zun players=Ann,Bob\ndamage Bob 5\nhael Bob 2\n")
    code, out, err = runes(db, "replay", str(game))
    assert (code, out) == (1, "")
    assert "line 3: 'hael Bob 2': unknown action 'hael' (did you mean heal?)" in err


def test_replay_of_a_missing_file_is_a_usage_error(tmp_path: Path, db: Path) -> None:
    code, _, err = runes(db, "replay", str(tmp_path / "nope.txt"))
    assert code == 2 and "cannot read" in err


def test_actions_lists_every_verb_with_its_text_form(db: Path) -> None:
    out = runes(db, "actions", "zun")[1]
    assert "damage PLAYER AMOUNT [immune]" in out and "undo" in out


def test_the_installed_entry_point_runs(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "companion", "--db", str(tmp_path / "j.sqlite"),
                           "new", "zun", "players=Ann,Bob"], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "Started game 1" in done.stdout


def test_export_and_import_make_the_same_game(tmp_path: Path, db: Path) -> None:
    runes(db, "new", "zun", "players=Ann,Bob", "--title", "Friday")
    for action in (["damage", "Bob", "5"], ["next"], ["heal", "Bob", "3"], ["undo"]):
        runes(db, "do", *action)
    code, exported, _ = runes(db, "export")
    assert code == 0
    (tmp_path / "game.json").write_text(exported)
    other = tmp_path / "other.sqlite"
    assert runes(other, "import", str(tmp_path / "game.json"))[1] == "Imported as game 1\n"
    original = json.loads(runes(db, "state", "--json")[1])
    copy = json.loads(runes(other, "state", "--json")[1])
    assert {k: v for k, v in copy.items() if k != "game_id"} == {
        k: v for k, v in original.items() if k != "game_id"}
    assert runes(other, "redo")[1] == "Redone: heal Bob 3\n"  # the undone tail came along


def test_import_refuses_a_broken_export_and_writes_nothing(tmp_path: Path, db: Path) -> None:
    runes(db, "new", "zun", "players=Ann,Bob")
    runes(db, "do", "damage", "Bob", "5")
    document = json.loads(runes(db, "export")[1])
    document["actions"][0]["player"] = "Zed"
    (tmp_path / "bad.json").write_text(json.dumps(document))
    other = tmp_path / "other.sqlite"
    code, _, err = runes(other, "import", str(tmp_path / "bad.json"))
    assert code == 1 and "action 1" in err and "no player called 'Zed'" in err
    assert json.loads(runes(other, "games", "--json")[1]) == []
    (tmp_path / "junk.json").write_text('{"format": "something else"}')
    assert "not an exported game" in runes(other, "import", str(tmp_path / "junk.json"))[2]


def test_the_log_exports_as_csv(db: Path) -> None:
    import csv

    runes(db, "new", "zun", "players=Ann,Bob")
    runes(db, "do", "damage", "Bob", "5")
    runes(db, "do", "next")
    runes(db, "undo")
    rows = list(csv.reader(io.StringIO(runes(db, "export", "--csv")[1])))
    assert rows[0] == ["seq", "time", "action", "json", "events", "undone"]
    assert rows[1][2] == "damage Bob 5" and rows[1][4] == "Bob takes 5 damage: 12 → 7"
    assert rows[2][2] == "next" and rows[2][5] == "yes"


def test_backups_are_consistent_copies_and_only_the_newest_are_kept(tmp_path: Path,
                                                                    db: Path) -> None:
    import time

    runes(db, "new", "zun", "players=Ann,Bob")
    runes(db, "do", "damage", "Bob", "5")
    folder = tmp_path / "backups"
    for _ in range(4):
        assert runes(db, "backup", str(folder), "--keep", "2")[0] == 0
        time.sleep(0.01)
    copies = sorted(folder.glob("journal-*.sqlite"))
    assert len(copies) == 2
    state = json.loads(runes(copies[-1], "state", "--json")[1])
    assert state["players"][1]["hp"] == 7


def test_an_import_keeps_its_shuffles_and_refuses_what_a_journal_cannot_resume(
        tmp_path: Path, db: Path) -> None:
    runes(db, "new", "zun", "players=Ann,Bob", "locations=normal")
    runes(db, "do", "next")  # to the Action phase
    assert runes(db, "do", "scramble")[0] == 0
    document = json.loads(runes(db, "export")[1])
    del document["actions"][1]["seed"]  # hand-written: the companion draws the seed on import
    document["game"] = "ZUN"
    other = tmp_path / "other.sqlite"

    def attempt(doc: dict[str, object]) -> tuple[int, str]:
        (tmp_path / "game.json").write_text(json.dumps(doc))
        code, _, err = runes(other, "import", str(tmp_path / "game.json"))
        return code, err

    assert attempt(document) == (0, "")
    assert runes(other, "games", "--json")[1].count('"game": "zun"') == 1
    code, out, _ = runes(other, "log")
    assert code == 0 and "scramble" in out  # resumes: the stored action has its seed
    for broken, message in (
        ({**document, "actions": document["actions"] + [{"action": "undo", "at": 1.0}]},
         "'undo' is not stored in an export"),
        ({**document, "setup": 5}, "\"setup\" must be an object"),
        ({**document, "cursor": True}, "\"cursor\" must be a whole number"),
        ({**document, "title": {"a": 1}}, "\"title\" must be text"),
        ({**document, "revision": -1}, "revision -1 is negative"),
        ({**document, "cursor": 1, "actions": [{**document["actions"][0], "at": "nan"}]},
         "has no time"),
        ({**document, "cursor": 1, "actions": ["next"]}, "has no time"),
    ):
        code, err = attempt(broken)
        assert code == 1 and message in err, err
    assert len(json.loads(runes(other, "games", "--json")[1])) == 1


def test_looking_at_a_game_leaves_the_journal_as_it_was(tmp_path: Path, db: Path) -> None:
    for players in ("Ann,Bob", "Cid,Dee", "Eve,Fay"):
        runes(db, "new", "zun", f"players={players}")
    before = runes(db, "games", "--json")[1]
    runes(db, "--game", "2", "state")
    runes(db, "--game", "1", "log")
    runes(db, "export", "1", "--csv")
    assert runes(db, "games", "--json")[1] == before
    assert runes(db, "do", "damage", "1", "1")[1] == "Eve takes 1 damage: 12 → 11\n"
    runes(db, "archive", "1")
    runes(db, "export", "1", "--csv")
    assert '"status": "archived"' in runes(db, "games", "--all", "--json")[1]


def test_quotes_keep_a_name_with_a_space_together(db: Path) -> None:
    assert runes(db, "new", "zun", "players=Ann Marie,Bob")[0] == 0
    code, out, _ = runes(db, "do", "damage", "Ann Marie", "2")
    assert (code, out) == (0, "Ann Marie takes 2 damage: 12 → 10\n")
    assert runes(db, "do", "damage Bob 1")[1] == "Bob takes 1 damage: 12 → 11\n"


def test_a_player_may_be_called_like_the_game(db: Path) -> None:
    code, out, err = runes(db, "new", "zun", "players=Zuni,Bob")
    assert code == 0, err
    assert "Zuni" in runes(db, "state")[1]


def test_the_move_that_ended_a_game_can_be_undone(db: Path) -> None:
    runes(db, "new", "zun", "players=Ann,Bob")
    runes(db, "do", "damage", "Ann", "12")
    assert runes(db, "state")[0] == 1  # no unfinished game left
    assert runes(db, "undo")[1] == "Undone: damage Ann 12\n"
    assert runes(db, "do", "damage", "Ann", "1")[1] == "Ann takes 1 damage: 12 → 11\n"


def test_digits_that_are_not_0_to_9_are_refused_in_words(db: Path) -> None:
    runes(db, "new", "zun", "players=Ann,Bob")
    for line in (["damage", "Ann", "²"], ["damage", "²", "3"], ["damage", "Ann", "9" * 5000]):
        code, out, err = runes(db, "do", *line)
        assert code == 1 and "Traceback" not in err, err
    assert "must be a whole number" in runes(db, "do", "damage", "Ann", "²")[2]
    assert "no player called '²'" in runes(db, "do", "damage", "²", "3")[2]
    assert json.loads(runes(db, "state", "--json")[1])["revision"] == 0
