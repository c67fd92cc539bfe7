"""Camera readings as actions: the choices a screen offers, and readings played at once."""

from __future__ import annotations

from typing import Any

import pytest

from companion.app.strings import UI
from companion.core.replay import replay_lines
from companion.readings import LABELS, AutoConfirm, card_meaning, card_names, choices

RUNECAST = ("runecast players=Ann,Bob,Cid fates=FRR,FRF,FFR seed=1 "
            "boards=\"Frost Giant Vanguard,Hel's Gate,Fenrir Unchained\"")
ROUND_1 = (RUNECAST, "roll 1 2 5", "next", "roll 2 2 4", "next", "roll 1 2 5", "next")


def state_after(*lines: str) -> dict[str, Any]:
    return replay_lines(list(lines)).to_json()


def loki_phase() -> dict[str, Any]:
    """Round 1 over: Loki's pool holds the heroes' 6 snakes."""
    state = state_after(*ROUND_1)
    assert (state["phase"], state["loki_pool"]) == ("loki", 6)
    return state


def test_every_label_has_words_in_the_app() -> None:
    assert set(LABELS) <= set(UI.kinds())


def test_dice_are_the_active_heros_roll_or_loki_s_roll() -> None:
    counts = {"hammer": 3, "snake": 2, "tree": 3}
    [roll] = choices("runecast", state_after(RUNECAST), counts=counts, cards=())
    assert (roll.label, roll.action) == ("rc.roll", {"action": "roll", "hammers": 3, "snakes": 2,
                                                     "trees": 3})
    [loki] = choices("runecast", loki_phase(), counts=counts, cards=())
    assert loki.action["action"] == "loki_roll" and "card" not in loki.action


def test_cards_are_loki_s_card_a_hero_s_fate_or_a_location() -> None:
    [card] = choices("runecast", loki_phase(), counts={}, cards=["frr-frf-ffr"])
    assert card.action == {"action": "loki_roll", "card": "FRR,FRF,FFR"}
    assert card.subject == "frr-frf-ffr"
    fates = choices("runecast", state_after(RUNECAST), counts={}, cards=["RFR"])
    assert [c.action for c in fates] == [{"action": "fate", "player": str(n), "fate": "RFR"}
                                         for n in (1, 2, 3)]
    assert fates[0].subject == "Ann: RFR"
    assert choices("runecast", state_after(RUNECAST), counts={}, cards=["Ember Hall"]) == []
    zun = state_after("zun players=Ann,Bob locations=normal seed=3")
    assert zun["phase"] == "start"
    [travel] = choices("zun", zun, counts={}, cards=["mirror lake"])
    assert travel.action == {"action": "travel", "to": "Mirror Lake"}
    action = state_after("zun players=Ann,Bob locations=normal seed=3", "next")
    assert [c.action["action"] for c in choices("zun", action, counts={}, cards=["Mirror Lake"])] \
        == ["purge", "scramble", "swap"]
    assert "Mirror Lake" in card_names("zun") and len(card_names("runecast")) == 8
    # A card that is no Location (a Loki's Chosen card left on the tray) means nothing in Zun.
    assert choices("zun", zun, counts={}, cards=["FRR-FRF-FFR"]) == []


@pytest.mark.parametrize(("name", "kind", "meaning"), [
    ("RFR-RRF-FFR", "lokis-chosen", {"card": "RFR,RRF,FFR"}),
    ("ffr", "heros_fate", {"fate": "FFR"}),
    ("ritual grounds", "locations", {"action": "travel", "to": "Ritual Grounds"}),
])
def test_what_a_card_means_for_its_deck(name: str, kind: str, meaning: dict[str, str]) -> None:
    assert card_meaning(name, kind) == meaning


def test_auto_confirm_plays_a_roll_once_and_only_sure_readings() -> None:
    confirm = AutoConfirm()
    state = state_after(RUNECAST)
    assert confirm.dice(state, {"hammer": 1, "snake": 2, "tree": 5}) == {
        "action": "roll", "hammers": 1, "snakes": 2, "trees": 5}
    assert confirm.dice(state, {"hammer": 3, "unknown": 1}) is None, "an unknown die: a person looks"
    assert confirm.dice(state, {"5": 2}) is None, "pips are no Runecast roll"
    rolled = state_after(RUNECAST, "roll 1 2 5")
    assert confirm.dice(rolled, {"hammer": 1, "snake": 2, "tree": 5}) is None, "rolled already"
    assert confirm.card(state, "RFR") is None, "whose Fate card? a person says"
    assert confirm.dice(state_after("zun players=Ann,Bob"), {"hammer": 1}) is None


@pytest.mark.parametrize("card_first", [True, False])
def test_loki_s_roll_joins_the_dice_and_the_card_in_either_order(card_first: bool) -> None:
    confirm = AutoConfirm()
    state = loki_phase()
    dice = {"hammer": 2, "snake": 3, "tree": 1}
    if card_first:
        assert confirm.card(state, "FRR-FRF-FFR") is None and confirm.waiting == "dice"
        action = confirm.dice(state, dice)
    else:
        assert confirm.dice(state, dice) is None and confirm.waiting == "card"
        action = confirm.card(state, "FRR-FRF-FFR")
    assert action == {"action": "loki_roll", "hammers": 2, "snakes": 3, "trees": 1,
                      "card": "FRR,FRF,FFR"}
    assert confirm.waiting is None
    # The action is legal as it stands.
    replay_lines([*ROUND_1, "loki_roll hammers=2 snakes=3 trees=1 card=FRR,FRF,FFR"])


def test_a_loki_roll_without_a_card_and_held_readings_that_expire() -> None:
    confirm = AutoConfirm()
    state = loki_phase()
    assert confirm.dice(state, {"snake": 4, "tree": 2}) == {
        "action": "loki_roll", "hammers": 0, "snakes": 4, "trees": 2}, "no hammers: no card"
    assert confirm.dice(state, {"hammer": 6}) == {
        "action": "loki_roll", "hammers": 6, "snakes": 0, "trees": 0}, "all hammers: no card"
    assert confirm.card(state, "FRR") is None and confirm.waiting is None, "a Fate card is no Loki card"
    assert confirm.card(state, "FRR-FRF-FFR") is None and confirm.waiting == "dice"
    later = state_after(*ROUND_1, "loki_roll snakes=6", "roll 1 2 3", "next", "roll 1 2 3",
                        "next", "roll 1 2 3", "next")
    assert later["phase"] == "loki" and later["round"] == 2
    assert confirm.dice(later, {"hammer": 1, "snake": 2}) is None, "round 1's card is gone"
    assert confirm.waiting == "card"
    # A seeded setup and one hammer a roll: a random board could fall to 8 hammers first.
    duo = state_after('runecast players=Ann,Bob seed=1 boards="Fenrir Unchained"',
                      "roll 1 4 7", "next", "roll 1 4 7", "next")
    assert duo["phase"] == "loki" and duo["mode"] == "two characters"
    assert confirm.dice(duo, {"hammer": 3, "snake": 5}) == {
        "action": "loki_roll", "hammers": 3, "snakes": 5, "trees": 0}, "two characters: no card"
