"""The running companion: commands from any thread, applied in order on the owner thread."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from companion.core.journal import Journal
from companion.core.session import Change, Session
from companion.table import Result, Table


def table() -> Table:
    t = Table(Journal(":memory:"), table_id="t1")
    t.start("zun", "players=Ann,Bob")
    return t


def test_commands_from_threads_wait_for_the_owner_thread() -> None:
    t = table()
    replies: list[Result] = []
    lock = threading.Lock()

    def reply(result: Result) -> None:
        with lock:
            replies.append(result)

    threads = [threading.Thread(target=t.submit, args=("damage Ann 1",),
                                kwargs={"source": "button", "reply": reply}) for _ in range(5)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert t.session is not None and t.session.state.players[0].hp == 12  # nothing yet
    assert t.pump() == 5
    assert t.session.state.players[0].hp == 7
    assert sorted(r.revision for r in replies) == [1, 2, 3, 4, 5]


def test_a_refused_command_answers_with_the_rule_and_changes_nothing() -> None:
    t = table()
    result = t.execute("heal Zed 1", source="mqtt")
    assert not result.ok and result.kind == "UnknownPlayer"
    assert result.to_json() == {"ok": False, "revision": 0, "kind": "UnknownPlayer",
                                "error": "no player called 'Zed' at the table (players: Ann, Bob)"}
    ok = t.execute("damage Bob 2")
    assert ok.to_json()["events"][0]["text"] == "Bob takes 2 damage: 12 → 10"


def test_a_flood_is_refused_once_the_queue_is_full() -> None:
    t = table()
    replies: list[Result] = []
    accepted = sum(t.submit("next", reply=replies.append) for _ in range(Table.QUEUE_LIMIT + 10))
    assert accepted == Table.QUEUE_LIMIT
    assert len(replies) == 10 and all(r.kind == "Busy" for r in replies)
    assert t.pump() == Table.QUEUE_LIMIT


def test_wake_is_called_on_submit_so_the_owner_loop_can_pump_at_once() -> None:
    t = table()
    woken = []
    t.wake = lambda: woken.append(True)
    t.submit("next")
    assert woken == [True]


def test_listeners_hear_changes_and_new_games() -> None:
    t = Table(Journal(":memory:"))
    heard: list[tuple[str, Any]] = []

    def listener(session: Session[Any], change: Change[Any] | None) -> None:
        heard.append((session.rules.name, None if change is None else change.revision))

    t.subscribe(listener)
    t.start("zun", "players=Ann,Bob")
    t.execute("damage Ann 1")
    first = t.session
    t.start("zun", "players=Cid,Dee")
    assert first is not None
    first.play("damage Ann 1")  # the old session is no longer attached
    t.resume(first.game_id)
    assert heard == [("zun", None), ("zun", 1), ("zun", None), ("zun", None)]


def test_no_game_yet_is_an_answer_not_a_crash() -> None:
    t = Table(Journal(":memory:"))
    result = t.execute("next")
    assert not result.ok and "no game is being played" in (result.error or "")


def test_a_game_the_command_line_played_meanwhile_is_read_again_before_the_next_command(
        tmp_path: Path) -> None:
    t = Table(Journal(tmp_path / "j.sqlite"))
    t.start("zun", "players=Ann,Bob")
    heard: list[int | None] = []
    t.subscribe(lambda session, change: heard.append(None if change is None else change.revision))
    t.execute("damage Ann 1")
    with Journal(tmp_path / "j.sqlite") as cli:  # `runes do damage Bob 5`, another process
        Session.resume(cli, current=False).play("damage Bob 5")
    result = t.execute("damage Ann 2")
    assert result.ok and result.revision == 3
    assert t.session is not None
    assert [str(a) for a in t.session.log] == ["damage Ann 1", "damage Bob 5", "damage Ann 2"]
    assert heard == [1, None, 3]  # the screen and MQTT are told to show the game afresh


def test_a_bug_in_a_command_is_still_answered_and_the_table_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    t = table()
    assert t.session is not None
    rules = t.session.rules

    def broken(state: Any, action: Any) -> Any:
        raise ZeroDivisionError("a bug")

    monkeypatch.setattr(rules, "apply", broken)
    answers: list[Result] = []
    t.submit("damage Ann 1", reply=answers.append)
    t.pump()
    assert [(a.ok, a.kind, a.revision) for a in answers] == [(False, "InternalError", 0)]
    monkeypatch.undo()
    assert t.execute("damage Ann 1").ok
