"""Death Tokens, the Community Death Token, agents of Loki for good, and defeat."""

from __future__ import annotations

import pytest

from companion.core.errors import GameOver, RuleError

from .support import game, kinds

# Small: 4 wounds, so "wound 4" wins a battle at once.
FOUR = "runecast players=Ann,Bob,Cid,Dan fates=RFR,RRF,FFR,FRF boards=Small,Medium,Large,Endless"


def test_hp_never_goes_below_zero() -> None:
    s = game(FOUR, "damage Bob 50")
    assert s.state.heroes[1].hp == 0


def test_a_fallen_player_loses_the_items_in_play() -> None:
    s = game(FOUR, "flip Ann weapon Axe", "next", "flip Bob armour Mail", "next")
    events = s.play("damage Bob 12")
    bob = s.state.heroes[1]
    assert (bob.alive, bob.weapon, bob.armour) == (False, None, None)
    assert str(events[1]) == "Bob falls in battle and loses Mail"


def test_a_fallen_hero_keeps_the_cards_in_hand() -> None:
    s = game(FOUR, "next", "flip Bob fate", "damage Bob 12")
    assert s.state.heroes[1].hand == 6


def test_the_death_token_returns_the_player_at_the_next_battle() -> None:
    s = game(FOUR, "next", "flip Bob fate", "damage Bob 12")
    bob = s.state.heroes[1]
    assert (bob.death_token, bob.returning, bob.pool) == (False, True, 0)
    events = s.play("wound 4")
    bob = s.state.heroes[1]
    assert (bob.alive, bob.hp, bob.hand, bob.pool) == (True, 12, 7, 6)
    assert "Bob returns from Valhalla with 12 HP and 7 Fate cards" in [str(e) for e in events]


def test_a_returned_player_takes_turns_again() -> None:
    s = game(FOUR, "damage Bob 12")
    s.play("wound 4")
    s.play("next")
    assert s.state.heroes[s.state.active].name == "Bob"


def test_a_second_death_may_use_the_community_token() -> None:
    s = game(FOUR, "damage Bob 12", "wound 4", "damage Bob 12")
    assert not s.state.heroes[1].returning
    events = s.play("reincarnate Bob")
    assert kinds(events) == ["runecast.reincarnate"]
    assert not s.state.community_token
    s.play("wound 6")
    assert s.state.heroes[1].alive


def test_the_group_may_choose_not_to_reincarnate() -> None:
    s = game(FOUR, "damage Bob 12", "wound 4")
    events = s.play("damage Bob 12")
    assert "the group may spend the Community Death Token (reincarnate Bob)" in str(events[-1])
    s.play("wound 6")
    assert not s.state.heroes[1].alive
    assert s.state.community_token  # still there for someone else
    s.play("damage Cid 9")
    assert s.state.heroes[2].returning  # Cid's own token comes first


def test_the_community_token_is_spent_once() -> None:
    s = game(FOUR, "damage Bob 12", "damage Cid 9", "wound 4", "damage Bob 12",
             "damage Cid 9", "reincarnate Bob")
    with pytest.raises(RuleError, match="the Community Death Token has been spent"):
        s.play("reincarnate Cid")


def test_reincarnate_only_a_fallen_player_without_a_return() -> None:
    s = game(FOUR)
    with pytest.raises(RuleError, match="Bob has not fallen"):
        s.play("reincarnate Bob")
    s.play("damage Bob 12")
    with pytest.raises(RuleError, match="Bob already returns at the start of the next battle"):
        s.play("reincarnate Bob")


def test_with_no_token_left_a_fallen_player_is_an_agent_for_good() -> None:
    s = game(FOUR, "damage Bob 12", "damage Cid 9", "wound 4", "damage Bob 12",
             "reincarnate Bob", "wound 6")
    events = s.play("damage Cid 9")
    assert "an agent of Loki for the rest of the game" in str(events[-1])
    events = s.play("damage Bob 12")
    assert str(events[-1]) == ("Bob has no Death Token left: an agent of Loki for the rest of "
                               "the game")
    s.play("wound 8")
    assert not s.state.heroes[1].alive


def test_unlimited_lives_bring_every_fallen_hero_back() -> None:
    s = game(FOUR + " unlimited_lives")
    for battle in (4, 6, 8):
        events = s.play("damage Bob 12")
        assert "(unlimited lives)" in str(events[-1])
        s.play(f"wound {battle}")
        assert s.state.heroes[1].alive
    assert s.state.community_token


def test_fallen_heroes_cannot_act() -> None:
    s = game(FOUR, "damage Bob 12")
    for line, verb in [("ability Bob", "ability"), ("heal Bob 1", "heal"),
                       ("damage Bob 1", "damage"), ("dice Bob +1", "dice")]:
        with pytest.raises(RuleError, match=f"{verb}: Bob has fallen"):
            s.play(line)


def test_a_player_falling_on_their_own_turn_ends_it() -> None:
    s = game(FOUR, "roll 2 2 2")
    events = s.play("damage Ann 10")
    assert s.state.heroes[s.state.active].name == "Bob"
    assert kinds(events)[-1] == "runecast.turn"


def test_their_dice_leave_the_fight_with_them() -> None:
    s = game(FOUR, "damage Ann 3", "roll 0 2 4", "tree_heal 2", "damage Ann 20")
    assert s.state.heroes[0].dice == 0
    assert s.state.dice_in_play() == 32


def test_defeat_when_nobody_can_fight_on() -> None:
    s = game(FOUR, "damage Ann 10", "damage Bob 12", "damage Cid 9")
    events = s.play("damage Dan 11")
    assert s.state.outcome == "defeat"
    assert str(events[-1]) == "Defeat: no hero is left to fight on"
    with pytest.raises(GameOver):
        s.play("wound 4")


def test_heal_up_to_the_starting_hp() -> None:
    s = game(FOUR, "damage Ann 3")
    events = s.play("heal Ann 5")
    assert s.state.heroes[0].hp == 10
    assert str(events[0]) == "Ann heals 3: 7 → 10"
    with pytest.raises(RuleError, match="Ann is at their full 10 HP"):
        s.play("heal Ann 1")
