"""Runes of Zun, one rule at a time, with the rule book's own examples where it gives one."""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest

from companion.core.errors import (
    ActionSyntaxError, GameOver, RuleError, SetupError, UnknownName, UnknownPlayer, WrongPhase,
)
from companion.core.events import MESSAGES
from companion.core.session import Session
from companion.games.zun import RULES, engine
from companion.games.zun.state import Phase, ZunState


def game(setup: str = "players=Ann,Bob,Cid") -> Session[ZunState]:
    return Session.new(RULES, setup)


def hp(session: Session[Any], name: str) -> int:
    return next(p.hp for p in session.state.players if p.name == name)


def texts(events: Any) -> list[str]:
    return [str(e) for e in events]


def play_to(session: Session[Any], phase: Phase) -> None:
    while session.state.phase is not phase:
        session.play("next")


# -- setup ----------------------------------------------------------------------------------


def test_everyone_starts_at_12_hp_in_seat_order_with_the_first_player_at_start_of_turn() -> None:
    s = game()
    assert [(p.name, p.hp, p.max_hp) for p in s.state.players] == [
        ("Ann", 12, 12), ("Bob", 12, 12), ("Cid", 12, 12)]
    assert (s.state.active, s.state.phase, s.state.round) == (0, Phase.START, 1)


def test_starting_hp_is_settable() -> None:
    s = game("players=Ann,Bob hp=20")
    assert [p.hp for p in s.state.players] == [20, 20]


def test_first_player_can_be_chosen_and_rounds_count_from_them() -> None:
    s = game("players=Ann,Bob,Cid first=Bob")
    assert s.state.players[s.state.active].name == "Bob"
    for _ in range(4 * 2):  # Bob's and Cid's turns
        s.play("next")
    assert (s.state.players[s.state.active].name, s.state.round) == ("Ann", 1)
    for _ in range(4):
        s.play("next")
    assert (s.state.players[s.state.active].name, s.state.round) == ("Bob", 2)


@pytest.mark.parametrize("setup, message", [
    ("players=Ann", "at least 2 players"),
    ("players=Ann,ann", "two players are called"),
    ("players=Ann,3", "cannot be a number"),
    ("players=Ann,Bob teams=Red:Ann+Bob", "at least two teams"),
    ("players=Ann,Bob,Cid teams=Red:Ann,Blue:Bob", "Cid has none"),
    ("players=Ann,Bob teams=Red:Ann+Bob,Blue:Bob", "in both"),
    ("players=Ann,Bob teams=Red:Ann+Zed,Blue:Bob", "'Zed' in team Red is not one of the players"),
    ("players=Ann,Bob locations=simplified", "exactly one"),
    ("players=Ann,Bob locations=normal deck=Nowhere", "unknown Location 'Nowhere'"),
    ("players=Ann,Bob colours=red", "one colour per player"),
    ("players=Ann,Bob colours=red,mauve", "unknown colour 'mauve'"),
    ("players=Ann,Bob first=Zed", "no player called 'Zed'"),
    ("players=Ann,All", "cannot be called 'all'"),
])
def test_setups_the_rules_forbid_are_refused_with_a_reason(setup: str, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        game(setup)


def test_teams_of_any_size_take_their_team_colour() -> None:
    s = game("players=Ann,Bob,Cid teams=Red:Ann+Cid,Solo:Bob")
    teams = {p.name: (p.team, p.colour) for p in s.state.players}
    assert teams["Ann"][0] == teams["Cid"][0] == "Red" and teams["Bob"][0] == "Solo"
    assert teams["Ann"][1] == teams["Cid"][1] != teams["Bob"][1]


# -- HP and the tier rule ---------------------------------------------------------------------------


def test_damage_moves_the_tracker_down_and_says_so() -> None:
    s = game()
    assert texts(s.play("damage Ann 3")) == ["Ann takes 3 damage: 12 → 9"]
    assert hp(s, "Ann") == 9


def test_a_player_can_be_named_by_seat_number_in_any_case() -> None:
    s = game()
    s.play("damage 2 1")
    s.play("damage cid 1")
    assert (hp(s, "Bob"), hp(s, "Cid")) == (11, 11)


def test_heal_within_a_tier() -> None:
    s = game()
    s.play("set Ann 5")
    s.play("heal Ann 2")
    assert hp(s, "Ann") == 7


def test_rule_book_example_revive_at_3_hp_gains_only_1() -> None:
    # "you have 3 HP and play a Revive on yourself. You will only gain 1 HP instead of 2
    # because your HP is in the 1-4 HP (red-colored) tier."
    s = game()
    s.play("set Ann 3")
    events = texts(s.play("revive Ann"))
    assert hp(s, "Ann") == 4
    assert events[0] == "Ann heals 1: 3 → 4"
    assert "never moves the tracker up out of the 1-4 tier" in events[1]


@pytest.mark.parametrize("start, amount, expected", [
    (1, 10, 4), (4, 1, 4), (5, 10, 8), (8, 3, 8), (9, 10, 12), (11, 5, 12), (6, 1, 7)])
def test_healing_never_moves_the_tracker_up_a_tier(start: int, amount: int, expected: int) -> None:
    s = game()
    s.play(f"set Ann {start}")
    s.play(f"heal Ann {amount}")
    assert hp(s, "Ann") == expected


def test_a_card_that_allows_it_heals_across_tiers_up_to_the_maximum() -> None:
    s = game()
    s.play("set Ann 3")
    s.play("heal Ann 6 uptier")
    assert hp(s, "Ann") == 9
    s.play("heal Ann 10 uptier")
    assert hp(s, "Ann") == 12


def test_tiers_follow_a_larger_starting_hp_in_steps_of_four() -> None:
    s = game("players=Ann,Bob hp=20")
    s.play("set Ann 14")
    s.play("heal Ann 9")
    assert hp(s, "Ann") == 16
    assert RULES.to_json(s.state)["players"][0]["tier_range"] == "13-16"


def test_set_hp_cannot_exceed_the_maximum() -> None:
    s = game()
    with pytest.raises(RuleError, match="HP must be 0 to 12"):
        s.play("set Ann 13")


# -- Rule Priority: Overdraw and Underdraw beat prevention ----------------------------------------


def test_rule_book_example_overdraw_is_not_prevented_by_defend() -> None:
    # "you have Defend and the Overdraw Rule triggers for you. The HP reduction from the
    # Overdraw Rule will still happen even though Defend would otherwise prevent it."
    s = game()
    s.play("effect Ann Defend prevents")
    assert texts(s.play("damage Ann 3")) == ["Ann's Defend prevents 3 damage"]
    assert hp(s, "Ann") == 12
    s.play("overdraw Ann 1")
    assert hp(s, "Ann") == 11


def test_rule_book_example_underdraw_steal_from_an_empty_hand_costs_1_hp() -> None:
    # "someone plays a Steal on you but your hand is empty. You must reduce your HP by 1".
    s = game()
    s.play("effect Bob Defend prevents")
    s.play("underdraw Bob 1")
    assert hp(s, "Bob") == 11


def test_an_immune_card_ignores_prevention() -> None:
    s = game()
    s.play("effect Ann Defend prevents")
    s.play("damage Ann 2 immune")
    assert hp(s, "Ann") == 10


def test_overdraw_costs_one_hp_per_card_over_ten() -> None:
    s = game()
    events = texts(s.play("overdraw Cid 2"))
    assert hp(s, "Cid") == 10
    assert events == ["Cid overdraws by 2: 12 → 10 (Overdraw comes first: nothing prevents it)"]


# -- defeat, Revive, victory ----------------------------------------------------------------------


def test_defeat_at_zero_discards_effects_and_hp_never_goes_negative() -> None:
    s = game()
    s.play("effect Bob Poison when=start")
    events = texts(s.play("damage Bob 20"))
    bob = s.state.players[1]
    assert (bob.hp, bob.defeated, bob.effects) == (0, True, ())
    assert "Bob is defeated" in events
    assert any("discarded without resolving: Poison" in e for e in events)


@pytest.mark.parametrize("action", ["heal Bob 1", "damage Bob 1", "overdraw Bob 1",
                                    "effect Bob X", "defeat Bob"])
def test_a_defeated_player_can_only_be_revived(action: str) -> None:
    s = game()
    s.play("defeat Bob")
    before = s.state
    with pytest.raises(RuleError, match="Bob is defeated; only Revive"):
        s.play(action)
    assert s.state is before


def test_revive_brings_a_defeated_player_back_with_two_hp() -> None:
    s = game()
    s.play("defeat Bob")
    events = texts(s.play("revive Bob"))
    assert hp(s, "Bob") == 2 and not s.state.players[1].defeated
    assert "Bob is revived with 2 HP" in events


def test_defeated_players_are_skipped_in_turn_order_and_revived_ones_return() -> None:
    s = game()
    s.play("defeat Bob")
    play_to(s, Phase.END)
    s.play("next")
    assert s.state.players[s.state.active].name == "Cid"
    s.play("revive Bob")
    play_to(s, Phase.END)
    s.play("next")
    assert (s.state.players[s.state.active].name, s.state.round) == ("Ann", 2)
    play_to(s, Phase.END)
    s.play("next")
    assert s.state.players[s.state.active].name == "Bob"


def test_a_player_defeated_on_their_own_turn_ends_it() -> None:
    s = game()
    s.play("next")
    events = texts(s.play("damage Ann 12"))
    assert s.state.players[s.state.active].name == "Bob"
    assert s.state.phase is Phase.START
    assert "Round 1: Bob's turn" in events


def test_free_for_all_is_won_by_the_last_player_standing() -> None:
    s = game()
    s.play("defeat Bob")
    assert not s.finished
    events = texts(s.play("damage Cid 12"))
    assert (s.state.winner, s.finished) == ("Ann", True)
    assert events[-1] == "Ann wins the game!"


def test_teams_win_when_every_opponent_is_defeated() -> None:
    s = game("players=Ann,Bob,Cid,Dee teams=Red:Ann+Cid,Blue:Bob+Dee")
    s.play("defeat Ann")
    s.play("defeat Bob")
    assert not s.finished
    events = texts(s.play("defeat Dee"))
    assert s.state.winner == "Red" and events[-1] == "Team Red wins the game!"


def test_an_all_players_card_hits_everyone_standing_at_once() -> None:
    s = game()
    s.play("defeat Cid")
    s.play("effect Bob Defend prevents")
    events = texts(s.play("damage all 2"))
    assert [p.hp for p in s.state.players] == [10, 12, 0]
    assert events == ["Ann takes 2 damage: 12 → 10", "Bob's Defend prevents 2 damage"]


def test_everyone_falling_at_once_is_a_draw() -> None:
    s = game("players=Ann,Bob,Cid")
    s.play("set Ann 2")
    s.play("set Bob 1")
    s.play("defeat Cid")
    events = texts(s.play("damage all 2"))
    assert s.finished and s.state.winner is None
    assert events[-1] == "Everyone is defeated at once: the game is a draw"
    assert RULES.to_json(s.state)["result"] == "a draw"


def test_no_action_after_the_game_is_over_but_undo_still_works() -> None:
    s = game("players=Ann,Bob")
    s.play("defeat Bob")
    with pytest.raises(GameOver, match="the game is over \\(Ann won\\); undo"):
        s.play("heal Ann 1")
    s.undo()
    assert not s.finished and hp(s, "Bob") == 12


# -- turns and phases ---------------------------------------------------------------------------------


def test_phases_run_start_action_recovery_end_then_the_next_player() -> None:
    s = game()
    seen = [(s.state.players[s.state.active].name, s.state.phase)]
    for _ in range(5):
        s.play("next")
        seen.append((s.state.players[s.state.active].name, s.state.phase))
    assert seen == [("Ann", Phase.START), ("Ann", Phase.ACTION), ("Ann", Phase.RECOVERY),
                    ("Ann", Phase.END), ("Bob", Phase.START), ("Bob", Phase.ACTION)]


def test_rounds_count_full_turns_of_the_table() -> None:
    s = game()
    for _ in range(3 * 4):
        s.play("next")
    assert (s.state.round, s.state.turn, s.state.active) == (2, 4, 0)


def test_mulligan_once_per_turn_in_the_start_phase_with_a_reminder() -> None:
    s = game()
    assert "Ann may mulligan once this turn if they hold no Action cards" in (
        RULES.to_json(s.state)["reminders"])
    s.play("mulligan")
    with pytest.raises(RuleError, match="already mulliganed this turn"):
        s.play("mulligan")
    s.play("next")
    with pytest.raises(WrongPhase, match="only in the Start of Turn phase.*Ann's Action phase"):
        s.play("mulligan")
    play_to(s, Phase.END)
    s.play("next")
    s.play("mulligan")  # Bob's own once-per-turn mulligan


# -- ongoing effects ------------------------------------------------------------------------------------


def test_an_effect_at_the_start_of_the_next_turn_is_surfaced_then_until_discarded() -> None:
    s = game()
    s.play("effect Bob Poison when=start")
    play_to(s, Phase.END)
    events = texts(s.play("next"))
    assert "Reminder: Bob's Poison triggers now (at the start of their next turn)" in events
    assert any("Poison" in r for r in RULES.to_json(s.state)["reminders"])
    s.play("discard_effect Bob poison")
    assert not any("Poison" in r for r in RULES.to_json(s.state)["reminders"])


def test_an_effect_at_the_end_of_the_turn_is_surfaced_in_the_end_phase() -> None:
    s = game()
    s.play("effect Ann Reserve when=end")
    s.play("next")
    s.play("next")
    events = texts(s.play("next"))
    assert s.state.phase is Phase.END
    assert "Reminder: Ann's Reserve triggers now (at the end of their turn)" in events


def test_discarding_an_unknown_effect_names_what_is_there() -> None:
    s = game()
    s.play("effect Ann Shield")
    with pytest.raises(UnknownName, match="Ann has no effect called 'Sword' \\(effects: Shield\\)"):
        s.play("discard_effect Ann Sword")


def test_two_effects_with_one_name_on_a_player_are_refused() -> None:
    s = game()
    s.play("effect Ann Shield")
    with pytest.raises(RuleError, match="already has an effect called 'shield'"):
        s.play("effect Ann shield")


# -- Locations ---------------------------------------------------------------------------------------


DECK = 'deck="Ritual Grounds","Rune Library","Quiet Crossroads","Ember Steps"'


def test_normal_rules_start_with_an_active_location_from_a_shuffled_deck() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    locs = s.state.locations
    assert locs.active is not None and len(locs.deck) == 3
    assert sorted((locs.active,) + locs.deck) == sorted(
        ["Ritual Grounds", "Rune Library", "Quiet Crossroads", "Ember Steps"])
    # The same seed deals the same deck: replay is exact.
    assert game(f"players=Ann,Bob locations=normal {DECK} seed=7").state.locations == locs


def test_travel_replaces_the_location_and_skips_the_action_phase() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    old, top = s.state.locations.active, s.state.locations.deck[0]
    s.play("travel")
    assert s.state.locations.active == top
    assert s.state.locations.discard == (old,)
    events = texts(s.play("next"))
    assert s.state.phase is Phase.RECOVERY
    assert events[0] == "Ann skips the Action phase after changing the Location"


def test_travel_only_at_the_start_of_turn_and_past_the_mulligan_step() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    s.play("travel")
    with pytest.raises(RuleError, match="past the mulligan step"):
        s.play("mulligan")
    with pytest.raises(RuleError, match="already changed this turn"):
        s.play("travel")
    s.play("next")
    s.play("next")
    with pytest.raises(WrongPhase):
        s.play("travel")


def test_travel_to_the_card_actually_drawn() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    target = s.state.locations.deck[-1]
    s.play(f'travel to="{target.lower()}"')
    assert s.state.locations.active == target
    s.play("undo")
    with pytest.raises(UnknownName, match="unknown Location 'Atlantis'"):
        s.play("travel to=Atlantis")


def test_purge_scramble_scry_swap_are_action_phase_cards() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    with pytest.raises(WrongPhase, match="only in the Action phase"):
        s.play("purge")
    s.play("next")
    top = s.state.locations.deck[0]
    s.play("purge")
    assert s.state.locations.active == top


def test_scry_plays_one_of_the_top_three_and_puts_the_others_on_the_bottom() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    s.play("next")
    old = s.state.locations.active
    a, b, c = s.state.locations.deck[:3]
    s.play(f'scry "{b}" bottom="{c}","{a}"')
    assert s.state.locations.active == b
    assert s.state.locations.deck == (c, a)
    assert s.state.locations.discard == (old,)


def test_scry_refuses_a_card_not_in_the_top_three() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    s.play("next")
    with pytest.raises(RuleError, match="not among the top 3 Locations"):
        s.play(f'scry "{s.state.locations.active}"')


def test_scramble_shuffles_discard_and_deck_together_then_plays_the_top() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    s.play("next")
    s.play("purge")
    s.play("scramble seed=3")
    locs = s.state.locations
    assert locs.discard == () and len(locs.deck) == 3 and locs.active is not None


def test_swap_turns_the_discard_into_the_deck_and_plays_the_old_deck_bottom() -> None:
    s = game(f"players=Ann,Bob locations=normal {DECK} seed=7")
    s.play("next")
    s.play("purge")
    before = s.state.locations
    s.play("swap seed=1")
    after = s.state.locations
    assert after.active == before.deck[-1]
    assert after.discard == tuple(reversed(before.deck[:-1]))
    assert sorted(after.deck) == sorted((before.active,) + before.discard)


def test_an_empty_location_deck_is_made_again_from_the_discard_pile() -> None:
    s = game('players=Ann,Bob locations=normal deck="Ritual Grounds","Rune Library" seed=1')
    s.play("next")
    s.play("purge")
    events = texts(s.play("purge seed=5"))
    assert "The Location discard pile is shuffled into a new Location deck" in events


def test_simplified_rules_keep_one_location_even_against_cards() -> None:
    s = game('players=Ann,Bob locations=simplified deck="Rune Library"')
    assert s.state.locations.active == "Rune Library"
    with pytest.raises(RuleError, match="Simplified rules the Location never changes"):
        s.play("travel")
    s.play("next")
    with pytest.raises(RuleError, match="Simplified"):
        s.play("purge")


def test_tourist_rules_rotate_in_order_every_three_rounds_and_loop() -> None:
    s = game('players=Ann,Bob locations=tourist deck="Rune Library","Ember Steps"')
    assert s.state.locations.active == "Rune Library"
    seen = []
    for _ in range(4 * 2 * 6):  # six rounds of two players
        s.play("next")
        if s.state.phase is Phase.START and s.state.players[s.state.active].name == "Ann":
            seen.append((s.state.round, s.state.locations.active))
    assert seen == [(2, "Rune Library"), (3, "Rune Library"), (4, "Ember Steps"),
                    (5, "Ember Steps"), (6, "Ember Steps"), (7, "Rune Library")]
    with pytest.raises(RuleError, match="Tourist rules"):
        s.play("travel")


def test_tourist_countdown_is_in_the_state() -> None:
    s = game('players=Ann,Bob locations=tourist deck="Rune Library","Ember Steps"')
    assert RULES.to_json(s.state)["locations"]["rounds_left"] == 3
    for _ in range(8):
        s.play("next")
    assert RULES.to_json(s.state)["locations"]["rounds_left"] == 2


def test_location_effects_are_shown_at_their_phase() -> None:
    s = game('players=Ann,Bob locations=simplified deck="Ritual Grounds"')
    reminders = RULES.to_json(s.state)["reminders"]
    assert any(r.startswith("Ritual Grounds · Your start of turn") for r in reminders)


def test_no_location_operations_in_a_game_without_locations() -> None:
    s = game()
    with pytest.raises(RuleError, match="played without Locations"):
        s.play("travel")


# -- bad input never changes anything ----------------------------------------------------------------


@pytest.mark.parametrize("command, error, message", [
    ("damage Zed 3", UnknownPlayer, "no player called 'Zed' at the table"),
    ("damage 9 3", UnknownPlayer, "there is no seat 9"),
    ("damage Ann -3", ActionSyntaxError, "AMOUNT must be a whole number of at least 1, got -3"),
    ("heal Ann lots", ActionSyntaxError, "AMOUNT must be a whole number of at least 1, got 'lots'"),
    ("fly Ann", ActionSyntaxError, "unknown action 'fly'"),
    ("scry", ActionSyntaxError, "CHOSEN is missing"),
])
def test_bad_input_is_refused_and_changes_nothing(command: str, error: type[Exception],
                                                  message: str) -> None:
    s = game()
    s.play("damage Ann 1")
    before, revision = s.state, s.revision
    with pytest.raises(error, match=message):
        s.play(command)
    assert s.state is before and s.revision == revision


def test_every_event_kind_has_a_sentence() -> None:
    kinds = set(re.findall(r'event\("(zun\.[a-z_]+)"', inspect.getsource(engine)))
    assert len(kinds) > 20
    assert kinds <= MESSAGES.kinds()
