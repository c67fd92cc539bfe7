"""A player's turn: Draw (flip a Fate card), Use (the hero ability), Roll; tree heals."""

from __future__ import annotations

import pytest

from companion.core.errors import ActionSyntaxError, RuleError, UnknownPlayer, WrongPhase

from .support import game, kinds

FOUR = "runecast players=Ann,Bob,Cid,Dan fates=RFR,RRF,FFR,FRF boards=Endless,Small"


# -- Drawing an Item Card ------------------------------------------------------------


def test_a_flip_turns_over_the_top_card_of_the_fate_hand() -> None:
    s = game(FOUR)
    events = s.play('flip Ann weapon "Spear of Tyr"')
    assert s.state.heroes[0].weapon == "Spear of Tyr"
    assert s.state.heroes[0].hand == 6
    assert str(events[0]) == "Ann flips Spear of Tyr and puts it in play as their weapon"


def test_a_flip_is_at_the_start_of_the_turn_before_the_roll() -> None:
    s = game(FOUR, "roll 2 2 2")
    with pytest.raises(RuleError, match="start of the turn, and Ann has rolled already"):
        s.play("flip Ann armour")


def test_one_flip_per_turn() -> None:
    s = game(FOUR, "flip Ann fate")
    with pytest.raises(RuleError, match="one per turn"):
        s.play("flip Ann weapon")


def test_only_the_active_player_flips() -> None:
    s = game(FOUR)
    with pytest.raises(WrongPhase, match="your own turn; it is Ann's turn"):
        s.play("flip Bob weapon")


def test_one_weapon_and_one_armour_in_play_together() -> None:
    s = game("runecast players=Ann,Bob boards=Endless", "flip Ann weapon Axe", "next", "next")
    s.play("flip Ann armor Mail")  # either spelling
    assert (s.state.heroes[0].weapon, s.state.heroes[0].armour) == ("Axe", "Mail")


def test_a_second_weapon_discards_the_first() -> None:
    s = game("runecast players=Ann,Bob boards=Endless", "flip Ann weapon Axe", "next",
             "next")
    # Loki holds no dice, so round 2 begins at once with Ann.
    events = s.play("flip Ann weapon Sword")
    assert s.state.heroes[0].weapon == "Sword"
    assert "runecast.item_replaced" in kinds(events)
    assert "Ann's weapon Axe is discarded" in str(events[1])


def test_a_fate_card_resolves_at_once_and_is_not_kept() -> None:
    s = game(FOUR)
    events = s.play("flip Ann fate Skuld")
    hero = s.state.heroes[0]
    assert (hero.weapon, hero.armour, hero.hand) == (None, None, 6)
    assert "resolve it now, then discard it" in str(events[0])


def test_an_empty_fate_hand_cannot_flip() -> None:
    s = game("runecast players=Ann,Bob boards=Endless")
    for _ in range(10):
        s.play("flip Ann fate")
        s.play("next")
        s.play("next")
    assert s.state.heroes[0].hand == 0
    with pytest.raises(RuleError, match="Ann's Fate hand is empty"):
        s.play("flip Ann fate")


def test_flip_needs_a_known_kind() -> None:
    with pytest.raises(ActionSyntaxError, match="weapon, armour, armor, fate"):
        game(FOUR, "flip Ann shield")


# -- Using a Heroes Ability ---------------------------------------------------------


def test_an_ability_costs_one_hit_point_and_shows_its_text() -> None:
    s = game(FOUR)
    events = s.play("ability Ann")
    assert s.state.heroes[0].hp == 9
    assert str(events[0]) == ("Ann uses Astrid's ability for 1 HP (10 → 9): "
                              "Rally: a hero adds 1 die to their pool.")


def test_abilities_may_be_used_more_than_once_and_on_other_turns() -> None:
    s = game(FOUR, "ability Bob", "ability Bob", "roll 6", "ability Bob")
    assert s.state.heroes[1].hp == 9


def test_an_ability_may_not_exhaust_the_last_hit_point() -> None:
    s = game(FOUR + " hp=2", "ability Ann")
    assert s.state.heroes[0].hp == 1
    with pytest.raises(RuleError, match="Ann has 1 HP; an ability costs 1 HP and may never "
                                        "spend the last one"):
        s.play("ability Ann")


def test_an_ability_can_be_used_during_lokis_roll() -> None:
    s = game(FOUR, "roll 0 6", "next", "roll 6", "next", "roll 6", "next", "roll 6", "next")
    assert s.state.phase.value == "loki"
    s.play("ability Cid")
    assert s.state.heroes[2].hp == 8


def test_players_are_found_by_name_seat_or_character() -> None:
    s = game(FOUR, "ability bob", "ability 2", "ability Bjorn")
    assert s.state.heroes[1].hp == 9
    with pytest.raises(UnknownPlayer, match="no hero called 'Zed'.*characters: Astrid"):
        s.play("ability Zed")


# -- Roll to Attack -----------------------------------------------------------------


def test_hammers_wound_the_battle_board() -> None:
    s = game(FOUR, "roll hammers=4 snakes=0 trees=2")
    assert s.state.wounds == 4


def test_snakes_leave_the_pool_for_lokis_pool() -> None:
    s = game(FOUR, "roll hammers=1 snakes=3 trees=2")
    assert s.state.heroes[0].pool == 3
    assert s.state.loki_pool == 3


def test_a_roll_is_every_die_of_the_pool() -> None:
    s = game(FOUR)
    with pytest.raises(RuleError, match="Ann's pool holds 6 dice and every one is rolled; the "
                                        r"roll has 7 \(3 hammer\(s\), 2 snake\(s\), 2 tree"):
        s.play("roll 3 2 2")
    with pytest.raises(RuleError, match="the roll has 5"):
        s.play("roll 3 2")
    assert s.state.rolled is None


def test_negative_counts_are_refused() -> None:
    s = game(FOUR)
    with pytest.raises(ActionSyntaxError, match="HAMMERS must be a whole number of at least 0"):
        s.play("roll hammers=-1 snakes=7")


def test_one_roll_per_turn() -> None:
    s = game(FOUR, "roll 6")
    with pytest.raises(RuleError, match="one roll per turn"):
        s.play("roll 6")


def test_an_empty_pool_cannot_roll() -> None:
    s = game(FOUR, "dice Ann -6")
    with pytest.raises(RuleError, match="Ann has no dice in their pool; end the turn with next"):
        s.play("roll 0")


def test_the_roll_is_for_the_active_player_only() -> None:
    s = game(FOUR, "roll 6", "next", "roll 0 6")
    assert s.state.heroes[1].pool == 0
    assert s.state.heroes[0].pool == 6


def test_text_and_json_forms_are_the_same_roll() -> None:
    a = game(FOUR, "roll 3 1 2")
    b = game(FOUR, '{"action": "roll", "hammers": 3, "snakes": 1, "trees": 2}')
    assert a.state == b.state


# -- Trees --------------------------------------------------------------------------


def test_a_tree_heals_one_and_sets_the_die_aside() -> None:
    s = game(FOUR, "damage Ann 3", "roll 2 2 2", "tree_heal")
    hero = s.state.heroes[0]
    assert (hero.hp, hero.pool, hero.set_aside) == (8, 3, 1)


def test_at_most_two_tree_heals_a_turn() -> None:
    s = game(FOUR, "damage Ann 5", "roll 0 0 6", "tree_heal", "tree_heal")
    with pytest.raises(RuleError, match="at most 2 HP a turn from trees, and Ann has healed 2"):
        s.play("tree_heal")
    assert s.state.heroes[0].hp == 7
    s = game(FOUR, "damage Ann 5", "roll 0 0 6")
    with pytest.raises(ActionSyntaxError, match="from 1 to 2"):
        s.play("tree_heal 3")


def test_tree_heals_need_trees_rolled() -> None:
    s = game(FOUR, "damage Ann 5")
    with pytest.raises(RuleError, match="Ann has not rolled yet"):
        s.play("tree_heal")
    s.play("roll 5 0 1")
    with pytest.raises(RuleError, match="Ann rolled 1 tree"):
        s.play("tree_heal 2")


def test_tree_heals_stop_at_full_hp() -> None:
    s = game(FOUR, "damage Ann 1", "roll 0 0 6")
    with pytest.raises(RuleError, match="Ann has 9 of 10 HP and cannot heal 2"):
        s.play("tree_heal 2")


def test_tree_dice_return_at_the_end_of_the_next_turn() -> None:
    s = game("runecast players=Ann,Bob boards=Endless", "damage Ann 5", "roll 10 0 2",
             "tree_heal 2", "next")
    assert (s.state.heroes[0].pool, s.state.heroes[0].dice) == (10, 12)
    s.play("next")  # Bob's turn ends; Loki holds nothing, round 2: Ann again
    assert s.state.heroes[0].pool == 10
    s.play("roll 10")
    events = s.play("next")  # the end of Ann's next turn
    assert s.state.heroes[0].pool == 12
    assert "2 tree die/dice return to Ann's pool: 12 dice" in [str(e) for e in events]


# -- Turn order ------------------------------------------------------------------


def test_next_passes_the_turn_in_seat_order() -> None:
    s = game(FOUR)
    events = s.play("next")
    assert s.state.active == 1
    assert [str(e) for e in events] == ["Round 1: Bob's turn (6 dice)"]


def test_after_the_last_turn_comes_lokis_roll() -> None:
    s = game(FOUR, "roll 0 1 5", "next", "next", "next")
    events = s.play("next")
    assert s.state.phase.value == "loki"
    assert str(events[-1]) == "End of round 1: Ann, Loki's Thrall, rolls Loki's 1 dice"
    with pytest.raises(WrongPhase, match="Loki's roll comes first"):
        s.play("next")
    with pytest.raises(WrongPhase, match="Loki's roll comes first"):
        s.play("roll 6")


def test_with_nothing_for_loki_to_roll_the_next_round_starts() -> None:
    s = game(FOUR, "next", "next", "next")
    events = s.play("next")
    assert s.state.round == 2 and s.state.active == 0
    assert kinds(events) == ["runecast.loki_empty", "runecast.round", "runecast.turn"]
