"""A short game of Runecast (one battle, three heroes) played from the touchscreen alone."""

from __future__ import annotations

import time

from tests.app.conftest import AppDriver
from tests.support.wait import until

REPEAT_GUARD = 0.4
"""A little over RunesApp.REPEAT_GUARD: the same command tapped again sooner is one tap."""


def hero(state: dict, name: str) -> dict:
    return next(p for p in state["players"] if p["name"] == name)


def enter_roll(app: AppDriver, hammers: int, snakes: int, trees: int) -> None:
    app.click("roll")
    for face, n in (("hammers", hammers), ("snakes", snakes), ("trees", trees)):
        if n:
            app.click(f"{face}:plus", times=n, delay_ms=40)
    app.click("enter_roll")


def test_a_short_game_of_runecast_from_the_screen_alone(app: AppDriver) -> None:
    app.click("new:runecast")
    for i, name in enumerate(("Ann", "Bob")):
        app.type_into(f"name:{i}", name)
    # Seven heroes are refused with a clear message, and nothing is saved.
    for i in range(5):
        app.click("add_player")
    app.click("start")
    view = app.view()
    assert view["screen"] == "setup" and "2 to 6 players" in view["message"], view["message"]
    assert app.saved_games() == 0
    for _ in range(4):
        app.click("remove:3")
    app.type_into("name:2", "Cid")
    app.reveal("option:battles:plus", near="setup_options")
    app.click("option:battles:plus")  # house rule: one random battle
    app.click("start")
    assert app.view()["screen"] == "table_runecast", app.view()["message"]
    state = app.engine()
    assert [h["name"] for h in state["players"]] == ["Ann", "Bob", "Cid"]
    assert state["battles_left"] == 1 and [h["dice_pool"] for h in state["players"]] == [8, 8, 8]
    needed = state["battle"]["wounds_needed"]

    # Ann: a roll that must add up to her pool; a wrong total is refused on the pad.
    app.click("roll")
    app.click("hammers:plus", times=2)
    app.click("enter_roll")
    assert "8" in app.view()["message"] and app.engine()["roll"] is None
    app.click("close_roll")
    enter_roll(app, 1, 5, 2)
    state = app.engine()
    assert state["battle"]["wounds"] == 1 and state["loki_pool"] == 5
    # A hit from a card, then a tree heals it back: previewed, then landed.
    app.click("minus:Ann", times=2)
    assert app.find("hp:Ann")["text"] == str(hero(state, "Ann")["hp"] - 2)
    app.click("ok:Ann")
    assert hero(app.engine(), "Ann")["hp"] == hero(state, "Ann")["hp"] - 2
    app.click("tree_heal")
    assert hero(app.engine(), "Ann")["hp"] == hero(state, "Ann")["hp"] - 1
    app.click("next")
    time.sleep(REPEAT_GUARD)
    assert app.engine()["turn"] == "Bob"

    # Bob uses his ability from his sheet, rolls, and Cid rolls.
    before = hero(app.engine(), "Bob")
    app.click("sheet:Bob")
    app.click("rc:ability")
    app.click("close_sheet")
    after = hero(app.engine(), "Bob")
    assert after["hp"] == before["hp"] - 1
    enter_roll(app, 1, 1, after["dice_pool"] - 2)
    app.click("next")
    time.sleep(REPEAT_GUARD)
    enter_roll(app, 1, 1, 6)
    app.click("next")
    state = app.engine()
    assert state["phase"] == "loki" and state["loki_pool"] == 7

    # Loki's roll from the camera: the dice come in, the card is set on the pad, then entered.
    faces = ["hammer", "hammer", "snake", "snake", "snake", "tree", "tree"]
    assert app.ask("reading", kind="dice", faces=faces)["ok"]
    until(lambda: app.view()["screen"] == "camera")  # the reading hops to the main thread
    app.click("die:0")  # misread: hammer -> snake
    assert app.find("die:0")["text"] == "snake"
    app.click("die:0")  # snake -> tree
    assert app.find("die:0")["text"] == "tree"
    app.click("die:0")  # tree -> hammer: back as it was
    assert app.find("die:0")["text"] == "hammer"
    app.click("confirm")
    assert app.view()["modal"], "the roll pad opens with the camera's dice"
    fates = {h["name"]: h["fate"] for h in state["players"]}
    for position, rune in enumerate(fates["Cid"]):  # the card's first set hits Cid
        if rune == "F":
            app.click(f"rune:0,{position}")
        assert app.find(f"rune:0,{position}")["text"] == rune
    app.click("enter_roll")
    state = app.engine()
    roll = state["last_loki_roll"]
    assert roll["hammers"]["count"] == 2 and roll["hammers"]["hit"] == ["Cid"]
    assert roll["snakes"]["count"] == 3 and roll["trees"]["count"] == 2
    assert state["phase"] == "turn" and state["round"] == 2

    # Round 2: the heroes finish the battle, which is the last: victory.
    for _ in range(3):
        state = app.engine()
        if state["over"]:
            break
        active = next(h for h in state["players"] if h["active"])
        left = state["battle"]["wounds_needed"] - state["battle"]["wounds"]
        pool = active["dice_pool"]
        hammers = min(pool, left)
        enter_roll(app, hammers, 0, pool - hammers)
        if not app.engine()["over"]:
            app.click("next")
            time.sleep(REPEAT_GUARD)
    state = app.engine()
    assert state["over"] and state["outcome"], state
    assert needed >= 1
    app.click("history")
    assert app.view()["screen"] == "history"
