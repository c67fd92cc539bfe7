"""Actions: both forms parse to the same record, print back exactly, and fail precisely."""

from __future__ import annotations

import json
from typing import Annotated, Literal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.core.actions import Action, ActionSet, Min, Positive, action
from companion.core.errors import ActionSyntaxError
from companion.games.zun.actions import ACTIONS, Damage, Heal, Scry, ZunSetup


@action("demo")
class Demo(Action):
    """An action using every kind of field."""

    player: str
    amount: Positive
    when: Literal["start", "end"] = "start"
    note: str | None = None
    loud: bool = False
    rest: tuple[str, ...] = ()


DEMO = ActionSet(Demo)


def test_text_and_json_forms_give_the_same_record() -> None:
    from_text = ACTIONS.parse("damage Ann 3")
    from_json = ACTIONS.from_json('{"action": "damage", "player": "Ann", "amount": 3}')
    assert from_text == from_json == Damage("Ann", 3)


def test_fields_by_position_by_name_and_flags() -> None:
    # Optional fields take the next words too, in declaration order; a tuple takes the rest.
    assert DEMO.parse("demo Ann 2 end loud x y z") == Demo("Ann", 2, "end", "x", True, ("y", "z"))
    assert DEMO.parse("demo amount=2 player=Ann note='a b'") == Demo("Ann", 2, note="a b")
    assert DEMO.parse("demo Ann 2 loud=no rest=a,b") == Demo("Ann", 2, rest=("a", "b"))


def test_quoted_names_with_spaces() -> None:
    assert ACTIONS.parse('heal "Ann Marie" 2 uptier') == Heal("Ann Marie", 2, True)
    assert str(Heal("Ann Marie", 2, True)) == "heal 'Ann Marie' 2 uptier"


def test_verbs_are_case_and_dash_insensitive() -> None:
    assert ACTIONS.parse("DISCARD-EFFECT Ann Defend").verb == "discard_effect"


def test_usage_lines_are_derived_from_the_declaration() -> None:
    assert Damage.usage() == "damage PLAYER AMOUNT [immune]"
    assert ZunSetup.usage().startswith("zun PLAYERS... [teams=TEAMS] [hp=HP]")
    assert Demo.usage() == "demo PLAYER AMOUNT [start|end] [NOTE] [loud] [REST...]"


@pytest.mark.parametrize("text, message", [
    ("", "empty action"),
    ("   ", "empty action"),
    ("dmg Ann 3", "unknown action 'dmg' \\(did you mean damage\\?\\)"),
    ("damage Ann", "damage: AMOUNT is missing; usage: damage PLAYER AMOUNT \\[immune\\]"),
    ("damage Ann 0", "AMOUNT must be a whole number of at least 1, got 0"),
    ("damage Ann 2.5", "got '2.5'"),
    ("damage Ann 3 4", "unexpected '4'"),
    ("damage Ann 3 bogus=1", "unknown option 'bogus'"),
    ("damage Ann amount=3 amount=4", "amount is given twice"),
    ("damage 'Ann 3", "no closing quotation"),
    ("damage '' 3", "PLAYER must not be empty"),
    ("demo Ann 1 when=noon", "when must be one of start, end, got 'noon'"),
    ("demo Ann 1 loud=perhaps", "loud must be yes or no"),
])
def test_text_errors_name_the_input_and_the_rule(text: str, message: str) -> None:
    with pytest.raises(ActionSyntaxError, match=message):
        (DEMO | ACTIONS).parse(text)


@pytest.mark.parametrize("document, message", [
    ("{not json", "not valid JSON"),
    ("[1, 2]", "must be a JSON object"),
    ('{"player": "Ann"}', 'must be a JSON object with an "action" key'),
    ('{"action": 3}', '"action" key'),
    ('{"action": "damage", "player": "Ann", "amount": "3"}', "'amount' must be a whole number"),
    ('{"action": "damage", "player": "Ann", "amount": true}', "'amount' must be a whole number"),
    ('{"action": "damage", "player": 7, "amount": 3}', "'player' must be a string"),
    ('{"action": "damage", "player": "Ann", "amount": 3, "by": "Bob"}', "unknown field 'by'"),
    ('{"action": "scry", "chosen": "A", "bottom": "B"}', "'bottom' must be a list of strings"),
    ('{"action": "damage", "player": "Ann", "amount": -1}', "at least 1, got -1"),
])
def test_json_errors_name_the_input_and_the_rule(document: str, message: str) -> None:
    with pytest.raises(ActionSyntaxError, match=message):
        ACTIONS.read(document)


def test_bytes_must_be_utf8() -> None:
    with pytest.raises(ActionSyntaxError, match="UTF-8"):
        ACTIONS.read(b"\xff\xfe")


def test_building_an_invalid_action_in_code_fails_too() -> None:
    with pytest.raises(ActionSyntaxError, match="at least 1"):
        Damage("Ann", -3)


def test_two_actions_with_one_verb_cannot_share_a_vocabulary() -> None:
    @action("damage")
    class Other(Action):
        pass

    with pytest.raises(ValueError, match="two actions use the verb 'damage'"):
        ActionSet(Damage, Other)


names = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc")), min_size=1,
                max_size=12).filter(lambda s: s.strip() == s and s and "=" not in s)
zun_actions = st.one_of(
    st.builds(Damage, names, st.integers(1, 99), st.booleans()),
    st.builds(Heal, names, st.integers(1, 99), st.booleans()),
    st.builds(Scry, names, st.lists(names, max_size=3).map(tuple)),
    st.builds(Demo, names, st.integers(1, 9), st.sampled_from(["start", "end"]),
              st.none() | names, st.booleans(), st.lists(names, max_size=3).map(tuple)),
)


@settings(max_examples=300)
@given(zun_actions)
def test_every_action_survives_a_round_trip_through_both_forms(a: Action) -> None:
    vocabulary = DEMO | ACTIONS
    assert vocabulary.read(json.dumps(a.to_json())) == a
    if not any("," in v for v in getattr(a, "bottom", ()) + getattr(a, "rest", ())):
        assert vocabulary.parse(str(a)) == a


@action("pay")
class Pay(Action):
    """An action with a list of whole numbers, each bounded."""

    player: str
    cards: tuple[Annotated[int, Min(1)], ...]
    tip: tuple[int, ...] = ()


PAY = ActionSet(Pay)


def test_number_lists_in_both_forms() -> None:
    record = Pay("Ann", (5, 10))
    assert PAY.parse("pay Ann 5 10") == PAY.parse("pay Ann cards=5,10") == record
    assert record.to_json() == {"action": "pay", "player": "Ann", "cards": [5, 10]}
    assert PAY.from_json(record.to_json()) == record
    assert PAY.parse(str(record)) == record
    assert PAY.parse("pay Ann 1 tip=2,3") == Pay("Ann", (1,), (2, 3))
    assert Pay.usage() == "pay PLAYER CARDS... [tip=TIP]"


@pytest.mark.parametrize("line, message", [
    ("pay Ann 5 x", "CARDS must be whole numbers separated by commas, got 'x'"),
    ("pay Ann cards=5,-1", "CARDS must be whole numbers separated by commas"),
    ("pay Ann 5 0", "each of CARDS must be a whole number of at least 1, got 0"),
    ('{"action": "pay", "player": "Ann", "cards": ["5"]}', "must be a list of whole numbers"),
    ('{"action": "pay", "player": "Ann", "cards": [true]}', "must be a list of whole numbers"),
])
def test_number_lists_fail_precisely(line: str, message: str) -> None:
    with pytest.raises(ActionSyntaxError, match=message):
        PAY.read(line)
