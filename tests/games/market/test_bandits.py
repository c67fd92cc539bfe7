"""Bandits: frozen runes, and the three ways to get rid of one."""

from __future__ import annotations

import pytest

from companion.core.errors import RuleError, WrongPhase
from companion.games.market import RULES

from .support import arrange, main, new, outpost, play, player, ruin, said, shelter


def occupied(**free: int):  # type: ignore[no-untyped-def]
    """Ann's red shelter (2 runes) is occupied by Bob's bandit; Ann has ``free`` runes."""
    return arrange(new("Ann,Bob,Cid"), "Ann", shelters=(main("red", 2, bandit="Bob"),), **free)


# -- frozen runes ---------------------------------------------------------------------------


def test_frozen_runes_cannot_be_spent() -> None:
    # "The runes of the occupied shelter are 'frozen' and cannot be used to buy goods".
    state = occupied(red=1)
    with pytest.raises(RuleError, match=r"Ann has 1 red rune\(s\) that can be used, not 3 "
                                        r"\(2 more are frozen under a bandit\)"):
        play(state, "buy_outpost Ann runes=red")


def test_frozen_runes_cannot_be_stolen() -> None:
    state = play(occupied(), "buy_rune Ann blue cards=5", "end_turn Ann")
    with pytest.raises(RuleError, match="frozen"):
        play(state, "thief Bob Ann red")


def test_frozen_runes_still_count_for_the_score() -> None:
    state = occupied()
    assert RULES.score(player(state, "Ann")) == 2 - 1


def test_runes_may_still_be_put_into_an_occupied_shelter() -> None:
    state = play(occupied(red=2), "store Ann red 2")
    assert shelter(state, "Ann", "red").runes == 4


# -- I: ransom in number cards ------------------------------------------------------------


def test_a_ransom_of_21_or_more_in_number_cards() -> None:
    state = occupied()
    bandits = state.market.bandits
    state, lines = said(state, "ransom Ann red cards=8,13")
    red = shelter(state, "Ann", "red")
    assert (red.bandit, red.runes) == (None, 2)
    assert state.market.bandits == bandits + 1
    assert player(state, "Ann").hand == 1
    assert lines == ["Ann discards number cards 8+13 (total 21)",
                     "Ann pays a ransom: the bandit leaves the red shelter"]


def test_a_ransom_below_21_is_refused() -> None:
    with pytest.raises(RuleError, match="sum to 20; a ransom costs 21 or more"):
        play(occupied(), "ransom Ann red cards=7,13")


def test_a_ransom_in_cards_may_be_paid_after_a_hand_card() -> None:
    state = play(occupied(), "thief Ann Cid card", "ransom Ann red cards=12,13")
    assert shelter(state, "Ann", "red").bandit is None


# -- II: three runes from outside the occupied shelter ------------------------------------------


def test_three_runes_from_outside_the_shelter_free_it() -> None:
    state = arrange(occupied(red=1, blue=1), "Ann", shelters=(main("blue", 2),))
    market = state.market
    state, lines = said(state, "ransom Ann red red=1 blue=2")
    assert shelter(state, "Ann", "red").bandit is None
    assert shelter(state, "Ann", "red").runes == 2
    assert shelter(state, "Ann", "blue").runes == 1
    assert (state.market.red, state.market.blue) == (market.red + 1, market.blue + 2)
    assert lines[0] == ("Ann returns 3 rune(s) to the market (1 red from 1 free; "
                        "2 blue from 1 free, 1 from blue)")


def test_runes_inside_the_occupied_shelter_do_not_pay_the_ransom() -> None:
    with pytest.raises(RuleError, match=r"Ann has 1 red rune\(s\) that can be used, not 3"):
        play(occupied(red=1), "ransom Ann red red=3")


@pytest.mark.parametrize("runes", ["red=2", "red=2 blue=2"])
def test_the_ransom_in_runes_is_exactly_three(runes: str) -> None:
    with pytest.raises(RuleError, match="exactly 3 runes"):
        play(occupied(red=5), f"ransom Ann red {runes}")


def test_the_ransom_is_cards_or_runes() -> None:
    with pytest.raises(RuleError, match="not both or neither"):
        play(occupied(red=5), "ransom Ann red red=3 cards=10,11")
    with pytest.raises(RuleError, match="not both or neither"):
        play(occupied(red=5), "ransom Ann red")


def test_a_ransom_in_runes_comes_before_the_first_hand_card() -> None:
    state = play(occupied(red=3), "buy_rune Ann blue cards=5")
    with pytest.raises(WrongPhase, match="nothing may be paid with runes"):
        play(state, "ransom Ann red red=3")


def test_only_an_occupied_shelter_pays_a_ransom() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 2),))
    with pytest.raises(RuleError, match="no bandit occupies Ann's red shelter"):
        play(state, "ransom Ann red cards=10,11")


# -- III: neutralising with an outpost ---------------------------------------------------------


def test_an_outpost_already_owned_neutralises_the_bandit() -> None:
    state = arrange(occupied(), "Ann", shelters=(outpost(1, "blue"),))
    market = state.market
    state, lines = said(state, "neutralise Ann red")
    assert shelter(state, "Ann", "red").bandit is None
    assert player(state, "Ann").shelter("outpost") is None
    assert player(state, "Ann").free.blue == 1  # the card goes back, its rune stays
    assert state.market.outposts == market.outposts + 1
    assert state.market.bandits == market.bandits + 1
    assert lines == ["Ann neutralises the bandit in the red shelter with an outpost shelter "
                     "(the stand-alone outpost): both go back to the market"]


def test_the_outpost_of_a_main_shelter_may_neutralise_too() -> None:
    state = arrange(occupied(), "Ann", shelters=(main("blue", 3, outpost=True),))
    state = play(state, "neutralise Ann red outpost=blue")
    assert shelter(state, "Ann", "blue").outpost is False
    assert shelter(state, "Ann", "blue").runes == 3
    assert shelter(state, "Ann", "red").bandit is None


def test_which_outpost_when_there_are_two() -> None:
    state = arrange(new(), "Ann", shelters=(ruin("red", 1, "Bob"), outpost(label="outpost2"),
                                            main("blue", outpost=True)))
    with pytest.raises(RuleError, match="say which outpost shelter is used: outpost=outpost2 "
                                        "or outpost=blue"):
        play(state, "neutralise Ann outpost")
    state = play(state, "neutralise Ann outpost outpost=outpost2")
    assert [s.label for s in player(state, "Ann").shelters] == ["blue"]
    assert player(state, "Ann").free.red == 1


def test_an_outpost_bought_now_neutralises_the_bandit() -> None:
    state = occupied(red=3)
    market = state.market
    state = play(state, "neutralise Ann red runes=red")
    assert shelter(state, "Ann", "red").bandit is None
    assert player(state, "Ann").outposts == 0
    assert state.market.outposts == market.outposts  # bought, and back at once
    assert state.market.bandits == market.bandits + 1
    assert state.market.red == market.red + 3


def test_an_outpost_bought_with_cards_neutralises_the_bandit() -> None:
    state = play(occupied(), "neutralise Ann red cards=10,11")
    assert shelter(state, "Ann", "red").bandit is None


def test_without_an_outpost_nothing_neutralises() -> None:
    with pytest.raises(RuleError, match="owns no outpost shelter; buy one"):
        play(occupied(), "neutralise Ann red")


def test_buying_to_neutralise_needs_an_outpost_in_the_market() -> None:
    state = arrange(new("Ann,Bob", outposts=0), "Ann", red=4,
                    shelters=(main("red", 1, bandit="Bob"),))
    with pytest.raises(RuleError, match="no outpost shelter to buy"):
        play(state, "neutralise Ann red runes=red")


def test_neutralise_uses_an_owned_outpost_or_buys_one_not_both() -> None:
    state = arrange(occupied(red=3), "Ann", shelters=(outpost(),))
    with pytest.raises(RuleError, match="not both"):
        play(state, "neutralise Ann red outpost=outpost runes=red")


# -- ruins --------------------------------------------------------------------------------------


def test_freeing_a_ruin_gives_its_runes_back() -> None:
    state = arrange(new(), "Ann", shelters=(ruin("blue", 2, "Bob"),))
    state, lines = said(state, "ransom Ann outpost cards=10,11")
    assert player(state, "Ann").shelters == ()
    assert player(state, "Ann").free.blue == 2
    assert "Ann takes back the 2 rune(s) the bandit sat on" in lines


def test_no_runes_go_into_a_ruin() -> None:
    state = arrange(new(), "Ann", blue=1, shelters=(ruin("blue", 2, "Bob"),))
    with pytest.raises(RuleError, match="no shelter any more"):
        play(state, "store Ann outpost")
