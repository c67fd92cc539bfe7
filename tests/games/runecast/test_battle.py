"""Battle boards, Victory, and the dice around them."""

from __future__ import annotations

from dataclasses import replace

import pytest

from companion.core.errors import GameOver, RuleError
from companion.core.session import Session, parse_setup
from companion.games.runecast.engine import RunecastRules
from companion.games.runecast.state import RunecastState

from .support import CONTENT, game, kinds

# Small: 4 wounds. Medium: 6 wounds. Large: 8 wounds.
FOUR = "runecast players=Ann,Bob,Cid,Dan fates=RFR,RRF,FFR,FRF boards=Small,Medium,Large"


def test_the_battle_in_play_is_the_top_of_the_stack() -> None:
    s = game(FOUR)
    assert (s.state.board.name, s.state.wounds, s.state.battles_left) == ("Small", 0, 3)


def test_the_last_wound_defeats_the_battle_and_the_next_begins() -> None:
    s = game(FOUR, "roll 3 1 2", "next")
    events = s.play("roll 1 2 3")
    assert [str(e) for e in events][2:6] == [
        "Small takes 1 wound(s): 4 of 4",
        "Small is defeated!",
        "Loki's 3 dice are discarded",
        "Battle 2 of 3: Medium (6 wounds; special attack on 4 snakes, Fate's boon on 3 trees)",
    ]
    assert (s.state.board.name, s.state.wounds, s.state.battles_left) == ("Medium", 0, 2)
    assert s.state.loki_pool == 0


def test_extra_hammers_do_not_carry_over_to_the_next_battle() -> None:
    s = game(FOUR, "roll 6")
    assert (s.state.board.name, s.state.wounds) == ("Medium", 0)


def test_the_winning_rolls_snakes_are_discarded_with_lokis_pool() -> None:
    s = game(FOUR, "roll 4 2")
    assert s.state.loki_pool == 0


def test_play_continues_with_the_next_player_in_turn_order() -> None:
    s = game(FOUR, "next", "roll 4 0 2")
    assert s.state.heroes[s.state.active].name == "Bob"  # Bob may still heal with trees
    s.play("next")
    assert s.state.heroes[s.state.active].name == "Cid"
    assert s.state.round == 1


def test_a_new_battle_refills_every_pool() -> None:
    s = game(FOUR, "damage Ann 2", "roll 0 4 2", "tree_heal 2", "next", "roll 4 2")
    assert [h.pool for h in s.state.heroes] == [6, 6, 6, 6]
    assert [h.set_aside + h.waiting for h in s.state.heroes] == [0, 0, 0, 0]
    assert s.state.dice_in_play() == 32


def test_without_refill_dice_only_come_back_from_trees() -> None:
    rules = RunecastRules(replace(CONTENT, refill_dice=False))
    s: Session[RunecastState] = Session(rules, parse_setup(rules, FOUR))
    for line in ("roll 0 4 2", "next", "roll 4 2"):
        s.play(line)
    assert [h.pool for h in s.state.heroes] == [2, 4, 6, 6]
    assert s.state.box == 8 + 6
    assert "runecast.refill" not in kinds(s.play("next"))


def test_a_board_wounded_by_an_effect() -> None:
    s = game(FOUR, "wound 3")
    assert s.state.wounds == 3
    events = s.play("wound")
    assert "runecast.battle_won" in kinds(events)


def test_a_battle_won_during_lokis_roll_skips_it() -> None:
    s = game(FOUR, "roll 0 3 3", "next", "roll 0 0 6", "next", "roll 0 0 6", "next",
             "roll 0 0 6", "next")
    assert s.state.phase.value == "loki"
    events = s.play("wound 4")  # e.g. an ability before the Thrall rolls
    assert kinds(events)[-4:] == ["runecast.refill", "runecast.loki_empty", "runecast.round",
                                  "runecast.turn"]
    assert s.state.phase.value == "turn" and s.state.round == 2


def test_victory_when_the_final_battle_falls() -> None:
    s = game("runecast players=Ann,Bob,Cid boards=Small fates=FRR,FRF,FFR")
    events = s.play("roll 4 2 2")
    assert s.state.outcome == "victory"
    assert s.state.battles_left == 0
    assert str(events[-1]) == ("Victory! The final battle is won: every hero earns a place in "
                               "Valhalla")
    assert RunecastRules(CONTENT).finished(s.state)
    with pytest.raises(GameOver, match="the game is over \\(victory\\); undo to go back"):
        s.play("next")


def test_victory_counts_every_hero_even_the_fallen() -> None:
    s = game("runecast players=Ann,Bob,Cid boards=Small fates=FRR,FRF,FFR", "damage Cid 9",
             "roll 4 2 2")
    seats = RunecastRules(CONTENT).seats(s.state)
    assert [seat["winner"] for seat in seats] == [True, True, True]


# -- Dice from abilities, items and boons ---------------------------------------------


def test_dice_are_added_from_and_returned_to_the_box() -> None:
    s = game(FOUR, "dice Ann +2")
    assert (s.state.heroes[0].pool, s.state.box) == (8, 6)
    s.play("dice Ann -3")
    assert (s.state.heroes[0].pool, s.state.box) == (5, 9)


def test_dice_cannot_be_made_up_or_go_below_zero() -> None:
    s = game(FOUR)
    with pytest.raises(RuleError, match="the box holds 8 dice, not 9 more"):
        s.play("dice Ann +9")
    with pytest.raises(RuleError, match="Ann's pool holds 6 dice, not 7"):
        s.play("dice Ann -7")
    with pytest.raises(RuleError, match="give the dice to add"):
        s.play("dice Ann 0")


def test_lokis_pool_can_be_changed_by_an_effect() -> None:
    s = game(FOUR, "roll 0 4 2", "loki_dice -3")
    assert (s.state.loki_pool, s.state.box) == (1, 11)
    with pytest.raises(RuleError, match="Loki's pool holds 1 dice, not 2"):
        s.play("loki_dice -2")


def test_items_can_be_discarded_by_an_effect() -> None:
    s = game(FOUR, "flip Ann armour Mail", "discard Ann armor")
    assert s.state.heroes[0].armour is None
    with pytest.raises(RuleError, match="Ann has no weapon in play"):
        s.play("discard Ann weapon")
