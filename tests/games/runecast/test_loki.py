"""The end of the round: Loki's Thrall, agents of Loki, and Loki's roll step by step."""

from __future__ import annotations

import pytest

from companion.core.errors import ActionSyntaxError, RuleError, WrongPhase
from companion.core.session import Session
from companion.games.runecast.engine import parse_card
from companion.games.runecast.state import RunecastState

from .support import game, kinds, round_of

# Endless: 99 wounds, special attack on 4 snakes, Fate's boon on 3 trees.
FOUR = "runecast players=Ann,Bob,Cid,Dan fates=RFR,RRF,FFR,FRF boards=Endless,Small"


def at_lokis_roll(setup: str = FOUR, snakes: int = 6) -> Session[RunecastState]:
    """Round 1 played: Ann's roll gave Loki ``snakes`` dice, everyone else rolled hammers."""
    s = game(setup)
    s.play(f"roll {s.state.heroes[0].pool - snakes} {snakes}")
    s.play("next")
    while s.state.phase.value == "turn":
        s.play(f"roll {s.state.heroes[s.state.active].pool}")
        s.play("next")
    return s


def hp(s: Session[RunecastState]) -> list[int]:
    return [h.hp for h in s.state.heroes]


# -- Loki's Thrall and the agents of Loki ----------------------------------------------


def test_the_player_who_went_first_is_the_first_thrall() -> None:
    s = at_lokis_roll(FOUR + " first=Cid")
    assert s.state.heroes[s.state.roller()].name == "Cid"


def test_the_thrall_moves_to_the_next_player_each_round() -> None:
    s = game(FOUR)
    thralls = []
    for _ in range(5):
        thralls.append(s.state.heroes[s.state.roller()].name)
        s.play(f"roll 0 1 {s.state.heroes[0].pool - 1}")  # Ann gives Loki a die
        s.play("next")
        round_of(s, "6", "6", "6")
        s.play(f"loki_roll trees={s.state.loki_pool}")
    assert thralls == ["Ann", "Bob", "Cid", "Dan", "Ann"]


def test_turn_order_goes_on_round_the_table() -> None:
    s = at_lokis_roll()
    s.play("loki_roll snakes=6")
    assert (s.state.round, s.state.heroes[s.state.active].name) == (2, "Ann")


def test_a_fallen_player_rolls_for_loki_as_his_agent() -> None:
    s = game(FOUR, "damage Cid 9")
    s.play("roll 0 6")
    s.play("next")
    round_of(s, "6", "6")
    assert s.state.phase.value == "loki"
    assert s.state.heroes[s.state.roller()].name == "Cid"
    s.play("loki_roll snakes=6")
    assert s.state.last_loki is not None and s.state.last_loki.agent


def test_several_fallen_players_take_turns_as_agents() -> None:
    s = game(FOUR, "damage Bob 12", "damage Dan 11", "roll 0 1 5", "next", "roll 6", "next")
    assert s.state.heroes[s.state.roller()].name == "Bob"
    s.play("loki_roll snakes=1")
    assert s.state.heroes[s.state.roller()].name == "Dan"
    round_of(s, "0 0 5", "6")
    s.play("loki_roll snakes=1")
    assert s.state.heroes[s.state.roller()].name == "Bob"


def test_agents_of_loki_take_no_turns() -> None:
    s = game(FOUR, "damage Bob 12", "next")
    assert s.state.heroes[s.state.active].name == "Cid"


# -- Hammers ------------------------------------------------------------------------


def test_hammers_need_a_lokis_chosen_card() -> None:
    s = at_lokis_roll()
    with pytest.raises(RuleError, match=r"draw a Loki's Chosen card .* e\.g\. card=RFR,RRF,FFR"):
        s.play("loki_roll hammers=2 snakes=4")


def test_the_first_matching_rune_set_hits_that_player() -> None:
    s = at_lokis_roll()
    events = s.play("loki_roll hammers=2 snakes=3 trees=1 card=RRR,FFR,RRF")
    # RRR comes first on this card, so everyone is hit.
    assert hp(s) == [8, 10, 7, 9]
    s = at_lokis_roll()
    events = s.play("loki_roll hammers=2 snakes=3 trees=1 card=FFR,RRF,RRR")
    assert hp(s) == [10, 12, 7, 11]
    assert "FFR matches Cid's Hero's Fate: Loki hits Cid" in [str(e) for e in events]


def test_with_no_match_the_next_rune_set_is_checked() -> None:
    s = at_lokis_roll("runecast players=Ann,Bob,Cid fates=FRR,FRF,FFR boards=Endless")
    events = s.play("loki_roll hammers=2 snakes=4 card=RFR,RRF,FRF")
    assert [str(e) for e in events][2:5] == [
        "RFR: no hero holds these runes",
        "RRF: no hero holds these runes",
        "FRF matches Bob's Hero's Fate: Loki hits Bob",
    ]
    assert [h.hp for h in s.state.heroes] == [10, 10, 9]


def test_no_match_at_all_misses() -> None:
    s = at_lokis_roll("runecast players=Ann,Bob,Cid fates=FRR,FRF,FFR boards=Endless")
    events = s.play("loki_roll hammers=2 snakes=4 card=RFR,RRF,RFF")
    assert "runecast.missed" in kinds(events)
    assert s.state.last_loki is not None and s.state.last_loki.hammer_result == "missed"


def test_a_fallen_players_runes_are_passed_over() -> None:
    s = game(FOUR, "damage Bob 12", "roll 0 6", "next", "roll 6", "next", "roll 6", "next")
    events = s.play("loki_roll hammers=2 snakes=4 card=RRF,FRF,RFR")
    assert "RRF: Bob has fallen" in [str(e) for e in events]
    assert [h.hp for h in s.state.heroes] == [10, 0, 9, 9]


def test_fff_foils_loki_and_empties_his_pool() -> None:
    s = at_lokis_roll()
    events = s.play("loki_roll hammers=1 snakes=4 trees=1 card=FFF,RFR,RFR")
    assert hp(s) == [10, 12, 9, 11]
    assert s.state.loki_pool == 0
    assert s.state.box == 8 + 6
    assert "runecast.foiled" in kinds(events)
    # Loki's plans for the round are foiled: 4 snakes do not trigger the special attack.
    assert "runecast.special_foiled" in kinds(events)
    assert "runecast.special" not in kinds(events)


def test_fff_after_a_miss_still_foils() -> None:
    s = at_lokis_roll("runecast players=Ann,Bob,Cid fates=FRR,FRF,FFR boards=Endless")
    events = s.play("loki_roll hammers=2 snakes=1 trees=3 card=RFR-FFF-RRR")
    assert kinds(events)[2:4] == ["runecast.rune_miss", "runecast.foiled"]
    assert [h.hp for h in s.state.heroes] == [10, 12, 9]
    assert s.state.loki_pool == 0


def test_rrr_hits_every_living_hero() -> None:
    s = game(FOUR, "damage Dan 11", "roll 0 6", "next", "roll 6", "next", "roll 6", "next")
    s.play("loki_roll hammers=3 snakes=3 card=RRR,FFF,FFF")
    assert hp(s) == [7, 9, 6, 0]


def test_a_hit_deals_one_damage_per_hammer_by_default() -> None:
    s = at_lokis_roll()
    s.play("loki_roll hammers=4 snakes=1 trees=1 card=RFR,RRF,FFR")
    assert hp(s)[0] == 6


def test_the_hit_damage_can_be_set() -> None:
    s = at_lokis_roll(FOUR + " hit=2")
    s.play("loki_roll hammers=4 snakes=1 trees=1 card=RFR,RRF,FFR")
    assert hp(s)[0] == 8


def test_all_hammers_draw_no_card_and_everyone_takes_half() -> None:
    s = at_lokis_roll(snakes=5)
    events = s.play("loki_roll hammers=5")
    assert hp(s) == [8, 10, 7, 9]
    assert str(events[1]) == ("Every die is a hammer: no card is drawn, every hero takes 2 "
                              "(half of 5, rounded down)")
    s = at_lokis_roll(snakes=5)
    with pytest.raises(RuleError, match="no Loki's Chosen card is drawn when every die is a "
                                        "hammer"):
        s.play("loki_roll hammers=5 card=RFR,RRF,FFR")


def test_one_hammer_alone_deals_nothing() -> None:
    s = at_lokis_roll(snakes=1)
    s.play("loki_roll hammers=1")
    assert hp(s) == [10, 12, 9, 11]


def test_no_hammers_draw_no_card() -> None:
    s = at_lokis_roll()
    with pytest.raises(RuleError, match="no Loki's Chosen card is drawn when there are no "
                                        "hammers"):
        s.play("loki_roll snakes=6 card=RFR,RRF,FFR")


def test_lokis_roll_is_every_die_of_his_pool() -> None:
    s = at_lokis_roll()
    with pytest.raises(RuleError, match="Loki's pool holds 6 dice and every one is rolled"):
        s.play("loki_roll hammers=7 card=RFR,RRF,FFR")
    with pytest.raises(RuleError, match="the roll has 5"):
        s.play("loki_roll hammers=2 snakes=3 card=RFR,RRF,FFR")


def test_lokis_roll_only_at_the_end_of_the_round() -> None:
    s = game(FOUR, "roll 0 6")
    with pytest.raises(WrongPhase, match="after every hero's turn; it is Ann's turn"):
        s.play("loki_roll snakes=6")


# -- The card, as typed or as read by the camera ---------------------------------------


@pytest.mark.parametrize("text", ["RFR,RRF,FFR", "RFR-RRF-FFR", "rfr rrf ffr", "RFRRRFFFR",
                                  " RFR / RRF / FFR "])
def test_card_forms(text: str) -> None:
    assert parse_card(text, 3) == ("RFR", "RRF", "FFR")


@pytest.mark.parametrize("text, message", [
    ("RFR,RXF,FFR", "has the rune set 'RXF'; a rune set is three runes, each R or F"),
    ("RFR,RRFF,FFR", "has the rune set 'RRFF'"),
    ("RFR,RF,FFR", "has the rune set 'RF'"),
    ("RFR,RRF", "shows 3 rune sets, card 'RFR,RRF' has 2"),
    ("", "shows 3 rune sets"),
])
def test_bad_cards_name_the_problem(text: str, message: str) -> None:
    with pytest.raises(ActionSyntaxError, match=message):
        parse_card(text, 3)


def test_a_bad_card_changes_nothing() -> None:
    s = at_lokis_roll()
    before = s.state
    with pytest.raises(ActionSyntaxError, match="RXR"):
        s.play("loki_roll hammers=2 snakes=4 card=RXR,RRF,FFR")
    assert s.state is before


def test_the_camera_card_name_in_json() -> None:
    s = at_lokis_roll()
    s.play('{"action": "loki_roll", "hammers": 2, "snakes": 4, "card": "FFR-RRF-RFR"}')
    assert s.state.last_loki is not None and s.state.last_loki.hit == ("Cid",)


# -- Snakes and trees ---------------------------------------------------------------------


def test_the_special_attack_triggers_on_enough_snakes() -> None:
    s = at_lokis_roll()
    events = s.play("loki_roll snakes=4 trees=2")
    assert str(events[1]) == ("4 snake(s) trigger Endless's special attack (it needs 4): "
                              "Endless strikes")
    s = at_lokis_roll()
    events = s.play("loki_roll snakes=3 trees=3")
    assert str(events[1]) == "3 snake(s): Endless's special attack needs 4"


def test_the_boon_triggers_on_enough_trees() -> None:
    s = at_lokis_roll()
    events = s.play("loki_roll snakes=3 trees=3")
    assert str(events[2]) == "3 tree(s) trigger Fate's boon (it needs 3): Endless blesses"


def test_eight_snakes_trigger_a_four_snake_attack_once() -> None:
    s = game(FOUR, "roll 0 6", "next", "roll 0 6", "next", "roll 6", "next", "roll 6", "next")
    events = s.play("loki_roll snakes=8 trees=4")
    assert kinds(events).count("runecast.special") == 1
    assert kinds(events).count("runecast.boon") == 1


def test_hammers_then_snakes_then_trees() -> None:
    s = at_lokis_roll()
    events = kinds(s.play("loki_roll hammers=1 snakes=4 trees=1 card=RFR,RRF,FFR"))
    assert events.index("runecast.damage") < events.index("runecast.special") \
        < events.index("runecast.no_boon") < events.index("runecast.round")


def test_when_every_hero_falls_to_the_hammers_nothing_else_resolves() -> None:
    s = at_lokis_roll(FOUR + " hp=2", snakes=6)
    events = kinds(s.play("loki_roll hammers=2 snakes=4 card=RRR,RRR,RRR"))
    assert s.state.outcome == "defeat"
    assert "runecast.special" not in events and "runecast.no_special" not in events
    assert s.state.last_loki is not None and not s.state.last_loki.resolved


# -- The two-character game -----------------------------------------------------------------


def test_two_characters_alternate_thrall_and_target() -> None:
    s = game("runecast players=Ann,Bob boards=Endless", "roll 0 3 9", "next", "roll 12", "next")
    assert s.state.heroes[s.state.roller()].name == "Ann"
    events = s.play("loki_roll hammers=2 snakes=1")
    assert "Bob is Loki's target this round" in [str(e) for e in events]
    assert [h.hp for h in s.state.heroes] == [10, 10]
    round_of(s, "0 0 9", "12")
    assert s.state.heroes[s.state.roller()].name == "Bob"
    s.play("loki_roll hammers=2 trees=1")
    assert [h.hp for h in s.state.heroes] == [8, 10]


def test_two_characters_draw_no_card() -> None:
    s = game("runecast players=Ann,Bob boards=Endless", "roll 0 12", "next", "roll 12", "next")
    with pytest.raises(RuleError, match="disregards the runes"):
        s.play("loki_roll hammers=3 snakes=9 card=RFR,RRF,FFR")
    s.play("loki_roll hammers=3 snakes=9")


def test_two_characters_fate_cannot_be_set() -> None:
    s = game("runecast players=Ann,Bob boards=Endless")
    with pytest.raises(RuleError, match="disregards the Hero's Fate runes"):
        s.play("fate Ann RFR")


# -- Hero's Fate cards entered at the table ------------------------------------------------


def test_fate_enters_a_heros_runes() -> None:
    s = game("runecast players=Ann,Bob,Cid,Dan fates=RFR,RRF,FFR,FRF", "fate Ann rff")
    assert s.state.heroes[0].fate == "RFF"
    with pytest.raises(RuleError, match="Bob holds RRF; each Hero's Fate card is dealt once"):
        s.play("fate Ann RRF")
    with pytest.raises(ActionSyntaxError, match="'RXF' is not a rune set"):
        s.play("fate Ann RXF")
    with pytest.raises(RuleError, match="RRR is not in this game's Hero's Fate deck"):
        s.play("fate Ann RRR")


def test_three_players_cannot_enter_a_removed_card() -> None:
    s = game("runecast players=Ann,Bob,Cid seed=1")
    with pytest.raises(RuleError, match="RFR is not in this game's Hero's Fate deck "
                                        r"\(FRR, FRF, FFR\)"):
        s.play("fate Ann RFR")


# -- Maximum Loki Pool (house rule) ------------------------------------------------------------


def test_maximum_loki_pool_keeps_extra_snakes_with_the_roller() -> None:
    s = game(FOUR + " loki_max=4", "roll 0 3 3", "next")
    events = s.play("roll 0 3 3")
    assert s.state.loki_pool == 4
    assert s.state.heroes[1].pool == 5  # 1 snake went to Loki, 2 stayed
    assert str(events[-2]) == "Loki's pool is at its maximum of 4: 2 snake(s) stay in Bob's pool"
    with pytest.raises(RuleError, match="at most 4 dice"):
        s.play("loki_dice +1")
