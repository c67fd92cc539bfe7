"""The Rune Market's vocabulary: text and JSON forms, and the sentences of its events."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from companion.core.errors import ActionSyntaxError, CompanionError
from companion.core.events import MESSAGES
from companion.core.session import Session
from companion.games.market import engine
from companion.games.market.actions import ACTIONS, BuyRune, Duel


EXAMPLES = [
    "collect Ann", "decline Ann", "buy_outpost Ann runes=red",
    "buy_outpost Ann cards=10,11 to=blue",
    "buy_bandit Ann Bob red runes=blue", "buy_bandit Ann Bob outpost2 cards=13,9",
    "ransom Ann red cards=10,11", "ransom Ann red red=1 blue=2", "neutralise Ann red",
    "neutralise Ann red outpost=outpost", "neutralise Ann red runes=red", "store Ann red 2",
    "store Ann outpost colour=blue", "attach Ann outpost red", "buy_rune Ann red cards=5,10",
    "shelter Ann blue", "shelter Ann blue outpost=outpost to=red", "thief Ann Bob card",
    "double_steal Ann Bob red Cid card", "double_steal Ann Bob card table=red",
    "duel Ann Bob 9 7", "duel Ann Bob 9 conceded take=card", "end_turn Ann",
    "end_turn Ann cannot_play", "high_cards Ann:13 Bob:9", "rps Bob",
]


@pytest.mark.parametrize("line", EXAMPLES)
def test_text_and_json_forms_round_trip(line: str) -> None:
    action = ACTIONS.read(line)
    assert ACTIONS.read(str(action)) == action
    assert ACTIONS.read(action.to_json()) == action


def test_card_values_are_numbers_in_both_forms() -> None:
    action = ACTIONS.read("buy_rune Ann red cards=5,10")
    assert action == BuyRune("Ann", "red", (5, 10))
    assert action.to_json() == {"action": "buy_rune", "player": "Ann", "colour": "red",
                                "cards": [5, 10]}
    assert ACTIONS.read("buy_rune Ann red 5 10") == action  # the last field takes every word
    assert ACTIONS.read('{"action": "buy_rune", "player": "Ann", "colour": "red", '
                        '"cards": [5, 10]}') == action


@pytest.mark.parametrize(("line", "message"), [
    ("buy_rune Ann red cards=5,x", "CARDS must be whole numbers separated by commas, got '5,x'"),
    ("buy_rune Ann red cards=-5", "CARDS must be whole numbers"),
    ('{"action": "buy_rune", "player": "Ann", "colour": "red", "cards": ["5"]}',
     "'cards' must be a list of whole numbers"),
    ('{"action": "buy_rune", "player": "Ann", "colour": "red", "cards": [true]}',
     "'cards' must be a list of whole numbers"),
    ("buy_rune Ann green cards=5", "colour must be one of red, blue, got 'green'"),
    ("thief Ann Bob sword", "take must be one of red, blue, card"),
    ("duel Ann Bob 0 conceded", "ATTACK must be a whole number of at least 1"),
    ("store Ann red 0", "COUNT must be a whole number of at least 1"),
    ("ransom Ann red red=-1", "RED must be a whole number of at least 0"),
    ("buy_runes Ann red 5", "unknown action 'buy_runes' \\(did you mean buy_rune\\?\\)"),
])
def test_malformed_actions_are_syntax_errors(line: str, message: str) -> None:
    with pytest.raises(ActionSyntaxError, match=message):
        ACTIONS.read(line)


def test_usage_lines_show_the_fields() -> None:
    assert Duel.usage() == ("duel PLAYER DEFENDER ATTACK [DEFENCE] [conceded] "
                            "[red|blue|card|nothing]")
    assert BuyRune.usage() == "buy_rune PLAYER red|blue CARDS..."


# -- messages ---------------------------------------------------------------------------------

SOURCE = Path(engine.__file__).read_text()
EMITTED = set(re.findall(r'event\(\s*"(market\.[a-z_]+)"', SOURCE))


def test_every_event_kind_emitted_has_a_message() -> None:
    assert EMITTED, "no event kinds found in the engine source"
    assert EMITTED <= MESSAGES.kinds()


def test_every_market_message_is_emitted_somewhere() -> None:
    registered = {k for k in MESSAGES.kinds() if k.startswith("market.")}
    assert registered == EMITTED


# -- bad input changes nothing (the list) ----------------------------------------------


OPENING = [
    # Round 1: Ann shelters two red runes, emptying the market of red; Bob's bandit moves in.
    "shelter Ann red", "buy_rune Ann red cards=5", "buy_rune Ann red cards=10",
    "store Ann red 2", "end_turn Ann",
    "shelter Bob blue", "buy_bandit Bob Ann red cards=10,11", "end_turn Bob",
    # Round 2: the bandit has looted one; Ann's other red rune is frozen.
]


@pytest.mark.parametrize(("lines", "bad", "message"), [
    # spending frozen runes
    ([], "buy_outpost Ann runes=red", "1 more are frozen under a bandit"),
    # buying after a hand card was played
    (["buy_rune Ann blue cards=5"], "buy_outpost Ann runes=blue",
     "after the first hand card nothing may be paid with runes"),
    # a second main shelter of a colour
    ([], "shelter Ann red", "already has a red main shelter"),
    # a duel twice against the same player in a round
    (["duel Ann Bob 3 5"], "duel Ann Bob 9 conceded take=card", "already challenged Bob"),
    # paying with a sum that is not allowed
    ([], "buy_rune Ann blue cards=3,3", "sum to 6"),
    ([], "buy_bandit Ann Bob blue cards=10,10", "sum to 20"),
    # taking runes the market does not have
    ([], "buy_rune Ann red cards=5", "the market has 0 red rune"),
])
def test_bad_input_is_refused_and_changes_nothing(lines: list[str], bad: str,
                                                  message: str) -> None:
    session: Session[Any] = Session.new("market", "market players=Ann,Bob red=2 blue=8")
    for line in OPENING + lines:
        session.play(line)
    before, revision, log = session.state, session.revision, session.log
    with pytest.raises(CompanionError, match=message):
        session.play(bad)
    assert session.state is before
    assert (session.revision, session.log) == (revision, log)
