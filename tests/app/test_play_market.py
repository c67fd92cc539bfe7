"""A short game of The Rune Market played from the touchscreen alone."""

from __future__ import annotations

from tests.app.conftest import AppDriver


def seat(state: dict, name: str) -> dict:
    return next(p for p in state["players"] if p["name"] == name)


def form(app: AppDriver, verb: str, *taps: str) -> None:
    """Open the action form for ``verb``, tap its fields, enter it."""
    app.reveal(f"form:{verb}", near="market_actions")
    app.click(f"form:{verb}")
    for tag in taps:
        app.reveal(tag, near="form_fields")
        app.click(tag)
    app.click("enter_action")


def test_a_short_game_of_the_rune_market_from_the_screen_alone(app: AppDriver) -> None:
    app.click("new:market")
    app.type_into("name:0", "Ann")
    app.type_into("name:1", "Bob")
    for colour, taps in (("red", 3), ("blue", 2)):  # Default -> 0 -> 1 (-> 2)
        app.reveal(f"option:{colour}:plus", near="setup_options")
        app.click(f"option:{colour}:plus", times=taps)
    app.click("start")
    assert app.view()["screen"] == "table_market", app.view()["message"]
    state = app.engine()
    assert state["market"]["red"] == 2 and state["market"]["blue"] == 1

    # Ann plays a red shelter, buys a red rune with a 5 and stores it.
    form(app, "shelter", "field:colour:red")
    form(app, "buy_rune", "field:colour:red", "card:5")
    state = app.engine()
    assert seat(state, "Ann")["runes"]["red"] == 1 and state["market"]["red"] == 1
    # A wrong payment is refused in the form, and nothing changes.
    app.reveal("form:buy_rune", near="market_actions")
    app.click("form:buy_rune")
    app.click("field:colour:blue")
    app.click("card:3")
    app.click("enter_action")
    assert "sum to 3" in app.view()["message"] and app.engine()["market"]["blue"] == 1
    app.click("close_form")
    form(app, "store", "field:shelter:red")
    assert seat(app.engine(), "Ann")["runes"]["by_shelter"] == {"red": 1}
    app.click("end_turn")
    assert app.engine()["turn"] == "Bob"

    # Bob has nothing he can play.
    form(app, "end_turn", "field:cannot_play")
    state = app.engine()
    assert state["turn"] == "Ann" and state["phase"] == "interest"
    assert state["interest_total"] == 1

    # Interest, computed by the engine, collected with one tap.
    assert app.find("collect")["text"] == "Collect 1"
    app.click("collect")
    state = app.engine()
    assert seat(state, "Ann")["runes"]["red"] == 2 and state["market"]["red"] == 0
    form(app, "end_turn", "field:cannot_play")

    # Bob buys the last rune: the game ends and the final scores show.
    form(app, "buy_rune", "field:colour:blue", "card:10", "card:5")
    state = app.engine()
    assert state["phase"] == "over" and state["outcome"]["winner"] == "Ann"
    assert state["outcome"]["scores"] == [2, 1]
    assert app.find("end_turn")["disabled"]
