"""Every option and action the screens build from the engines' declarations has its words."""

from __future__ import annotations

import pytest

from companion.app.screens.setup import HIDDEN_FIELDS, PLAYER_FIELDS
from companion.app.strings import UI
from companion.core.rules import GAMES, rules_for


@pytest.mark.parametrize("game", list(GAMES))
def test_every_setup_option_has_a_label(game: str) -> None:
    kinds = UI.kinds()
    assert f"game.{game}" in kinds
    for param in rules_for(game).setup_type.params:
        if param.name in PLAYER_FIELDS + HIDDEN_FIELDS:
            continue
        assert f"option.{param.name}" in kinds, f"{game}: option {param.name} has no label"
        for choice in param.choices:
            assert f"option.{param.name}.{choice}" in kinds


def test_every_market_action_has_a_button_a_title_and_field_labels() -> None:
    kinds = UI.kinds()
    for action in rules_for("market").actions:
        assert f"mk.verb.{action.verb}" in kinds
        if action.verb not in ("collect", "decline", "high_cards", "rps"):
            assert f"mk.button.{action.verb}" in kinds
        for param in action.params:
            if param.name != "player":
                assert f"mk.field.{param.name}" in kinds, f"{action.verb}: {param.name}"
