"""A whole game of Runes of Zun played from the touchscreen alone, with real clicks and keys.

After every step the engine's state is read back from the journal on disk:
what the screen did must be what the game holds.
"""

from __future__ import annotations

import time

from tests.app.conftest import AppDriver
from tests.support.wait import until

REPEAT_GUARD = 0.4
"""A little over RunesApp.REPEAT_GUARD: the same command tapped again sooner is one tap."""


def player(state: dict, name: str) -> dict:
    return next(p for p in state["players"] if p["name"] == name)


def test_a_game_of_zun_from_the_screen_alone(app: AppDriver) -> None:
    assert app.view()["screen"] == "home"

    # -- setup, with the bad inputs a table produces ------------------------------------
    app.click("new:zun")
    assert app.view()["screen"] == "setup"
    app.type_into("name:0", "Ann")
    app.type_into("name:1", "ann")
    app.click("start")
    view = app.view()
    assert view["screen"] == "setup" and "already at the table" in view["message"]
    assert app.saved_games() == 0, "a refused setup must not be saved"

    app.type_into("name:1", "Bob")
    app.click("team:0")  # Ann: Red, Bob: no team -> the engine refuses the teams
    app.click("start")
    view = app.view()
    assert view["screen"] == "setup" and "team" in view["message"]
    assert app.saved_games() == 0
    app.click("team:0", times=4)  # Red, Blue, Green, Yellow -> back to no team
    app.sync()

    app.click("add_player")
    app.type_into("name:2", "Cid")
    app.click("up:2")  # Cid moves to seat 2
    app.click("option:locations:normal")
    app.click("start")
    view = app.view()
    assert view["screen"] == "table_zun", view["message"]
    state = app.engine()
    assert [p["name"] for p in state["players"]] == ["Ann", "Cid", "Bob"]
    assert [p["hp"] for p in state["players"]] == [12, 12, 12]
    assert state["locations"]["mode"] == "normal" and state["locations"]["active"]

    # -- −/+ build a previewed change that lands only on OK --------------------------------
    app.click("minus:Bob", times=3)
    assert app.find("hp:Bob")["text"] == "9", "the preview shows the result"
    assert player(app.engine(), "Bob")["hp"] == 12, "nothing lands before OK"
    app.click("ok:Bob")
    assert player(app.engine(), "Bob")["hp"] == 9

    # A heal previewed by the engine stops at the top of the tier (9-12 stays, 5-8 caps at 8).
    app.click("minus:Cid", times=5)
    app.click("ok:Cid")
    app.click("plus:Cid", times=3)
    assert app.find("hp:Cid")["text"] == "8", "the engine's tier cap shows in the preview"
    app.click("cancel:Cid")
    assert player(app.engine(), "Cid")["hp"] == 7

    # -- a double tap on Next moves one phase, not two --------------------------------------
    app.click("next", times=2, delay_ms=30)
    assert app.engine()["phase"] == "action"

    # -- the player's sheet: overdraw, an ongoing effect that prevents damage ---------------
    app.click("sheet:Ann")
    app.click("amount:plus", times=2)  # amount 3
    app.click("do:overdraw")
    assert player(app.engine(), "Ann")["hp"] == 9
    app.type_into("effect_name", "Defend")
    app.click("prevents")
    app.click("add_effect")
    ann = player(app.engine(), "Ann")
    assert ann["effects"] == [{"name": "Defend", "when": "start", "prevents": True}]
    app.click("close_sheet")
    app.click("minus:Ann", times=2)
    app.click("ok:Ann")
    assert player(app.engine(), "Ann")["hp"] == 9, "Defend prevented the damage"

    # -- the turn goes round ---------------------------------------------------------------
    for _ in range(3):  # recovery, end, Cid's turn
        app.click("next")
        time.sleep(REPEAT_GUARD)  # tapped again sooner, Next counts as a double tap
    state = app.engine()
    assert (state["turn"], state["phase"], state["round"]) == ("Cid", "start", 1)

    # -- a camera reading of the Location card drawn, confirmed with one tap -----------------
    drawn = app.engine()["locations"]["deck"][-1]
    assert app.ask("reading", kind="card", name=drawn)["ok"]
    until(lambda: app.view()["screen"] == "camera")  # the reading hops to the main thread
    app.click("confirm")
    state = app.engine()
    assert state["locations"]["active"]["name"] == drawn and state["travelled"]
    assert app.view()["screen"] == "table_zun"

    # -- defeat, undo and redo from the table's buttons --------------------------------------
    app.click("sheet:Bob")
    app.click("do:defeat")
    app.click("close_sheet")
    assert player(app.engine(), "Bob")["defeated"]
    app.click("undo")
    assert not player(app.engine(), "Bob")["defeated"]
    app.click("redo")
    assert player(app.engine(), "Bob")["defeated"]

    # -- a device goes down: shown in the corner, and the game goes on ----------------------
    assert app.ask("device", key="broker", online=False)["ok"]
    until(lambda: app.view()["devices"]["broker"] is False)
    app.click("plus:Bob", times=2)  # Revive on a defeated player
    assert app.find("hp:Bob")["text"] == "2"
    app.click("ok:Bob")
    assert player(app.engine(), "Bob")["hp"] == 2 and not player(app.engine(), "Bob")["defeated"]

    # -- History: jump back, then forward again ---------------------------------------------
    length = len(app.engine()["players"]) and app.engine()["cursor"]
    app.click("history")
    app.reveal("goto:1", near="history_list")
    app.click("goto:1")
    assert app.engine()["cursor"] == 1
    assert player(app.engine(), "Bob")["hp"] == 9
    app.reveal(f"goto:{length}", near="history_list")
    app.click(f"goto:{length}")
    assert app.engine()["cursor"] == length
    app.click("back")

    # -- the end: Ann and Bob fall, Cid wins -------------------------------------------------
    for name in ("Ann", "Bob"):
        app.click(f"sheet:{name}")
        app.click("do:defeat")
        app.click("close_sheet")
    state = app.engine()
    assert state["over"] and state["winner"] == "Cid"
    assert app.find("next")["disabled"]
    app.click("next")
    assert app.engine()["cursor"] == state["cursor"]

    # -- plots show the game so far ------------------------------------------------------------
    app.click("plots")
    assert app.view()["screen"] == "plots"
    assert app.ask("check")["problems"] == []
