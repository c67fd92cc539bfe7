"""Phase 2: buying outpost shelters and bandits, and where they go."""

from __future__ import annotations

import pytest

from companion.core.errors import RuleError, UnknownName, WrongPhase
from companion.games.market.state import Phase

from .support import arrange, main, new, outpost, play, player, ruin, said, shelter


@pytest.mark.parametrize(("names", "price"), [
    ("Ann,Bob", 4), ("Ann,Bob,Cid", 3), ("Ann,Bob,Cid,Dan", 2), ("Ann,Bob,Cid,Dan,Eve", 2),
])
def test_the_price_in_runes_depends_on_the_number_of_players(names: str, price: int) -> None:
    # "2 Players: 4 runes; 3 Players: 3 runes; 4+ Players: 2 runes"
    state = arrange(new(names), "Ann", red=price)
    state = play(state, "buy_outpost Ann runes=red")
    assert player(state, "Ann").free.red == 0
    assert player(state, "Ann").outposts == 1
    short = arrange(new(names), "Ann", red=price - 1, blue=5)
    with pytest.raises(RuleError, match=f"Ann has {price - 1} red rune\\(s\\) that can be used, "
                                        f"not {price}"):
        play(short, "buy_outpost Ann runes=red")


def test_the_runes_must_be_of_one_colour() -> None:
    state = arrange(new("Ann,Bob,Cid,Dan"), "Ann", red=1, blue=1)
    with pytest.raises(RuleError, match="1 red rune"):
        play(state, "buy_outpost Ann runes=red")


def test_runes_paid_go_back_to_the_market() -> None:
    state = arrange(new("Ann,Bob,Cid"), "Ann", blue=3)
    market = state.market
    state, lines = said(state, "buy_outpost Ann runes=blue")
    assert state.market.blue == market.blue + 3
    assert state.market.outposts == market.outposts - 1
    assert lines == ["Ann returns 3 rune(s) to the market (3 blue from 3 free)",
                     "Ann buys an outpost shelter (stand-alone, as outpost)"]


def test_runes_are_paid_from_free_runes_first_then_the_fullest_shelter() -> None:
    state = arrange(new("Ann,Bob"), "Ann", red=1,
                    shelters=(main("red", 2), outpost(3, "red")))
    state = arrange(state, "Bob", shelters=(main("blue"),))
    state, lines = said(state, "buy_bandit Ann Bob blue runes=red")
    assert lines[0] == "Ann returns 4 rune(s) to the market (4 red from 1 free, 3 from outpost)"
    assert player(state, "Ann").free.red == 0
    assert shelter(state, "Ann", "red").runes == 2
    # An emptied stand-alone outpost loses its colour until a rune goes in again.
    assert shelter(state, "Ann", "outpost").colour is None


def test_number_cards_of_21_or_more_buy_an_outpost_or_a_bandit() -> None:
    state = play(new(), "buy_outpost Ann cards=10,11")
    assert player(state, "Ann").outposts == 1
    assert player(state, "Ann").hand == 1
    assert state.phase is Phase.CARDS  # paying with number cards is playing hand cards
    state = arrange(new(), "Bob", shelters=(main("red"),))
    state = play(state, "buy_bandit Ann Bob red cards=13,9,1")
    assert shelter(state, "Bob", "red").bandit == "Ann"
    assert player(state, "Ann").hand == 0


def test_number_cards_below_21_buy_nothing() -> None:
    with pytest.raises(RuleError, match=r"number cards 10\+10 sum to 20; an outpost shelter "
                                        r"costs 21 or more"):
        play(new(), "buy_outpost Ann cards=10,10")


def test_the_price_in_cards_does_not_change_with_the_players() -> None:
    state = play(new("Ann,Bob,Cid,Dan,Eve"), "buy_outpost Ann cards=10,11")
    assert player(state, "Ann").outposts == 1


@pytest.mark.parametrize("line", ["buy_outpost Ann", "buy_outpost Ann runes=red cards=10,11"])
def test_pay_with_runes_or_cards_exactly(line: str) -> None:
    state = arrange(new(), "Ann", red=4)
    with pytest.raises(RuleError, match="either with 4 runes of one colour"):
        play(state, line)


def test_more_cards_than_the_hand_holds_are_refused() -> None:
    with pytest.raises(RuleError, match=r"Ann holds 3 card\(s\), not 4"):
        play(new(), "buy_outpost Ann cards=5,6,7,8")


def test_card_values_outside_the_deck_are_refused() -> None:
    with pytest.raises(RuleError, match="there is no number card 30; number cards are 1 to 13"):
        play(new(), "buy_outpost Ann cards=30")


def test_nothing_is_bought_with_runes_after_a_hand_card() -> None:
    # "Once you have played your first hand card, you may no longer ... buy anything with runes."
    state = arrange(new(), "Ann", red=4)
    state = play(state, "buy_rune Ann blue cards=5")
    with pytest.raises(WrongPhase, match="after the first hand card nothing may be paid with "
                                         "runes"):
        play(state, "buy_outpost Ann runes=red")


def test_number_cards_still_buy_after_a_hand_card() -> None:
    state = play(new(), "thief Ann Bob card", "buy_outpost Ann cards=12,13")
    assert player(state, "Ann").outposts == 1


def test_several_purchases_in_one_turn() -> None:
    state = arrange(new("Ann,Bob,Cid,Dan"), "Ann", red=2, blue=2)
    state = play(state, "buy_outpost Ann runes=red", "buy_outpost Ann runes=blue")
    assert player(state, "Ann").outposts == 2


def test_the_market_must_have_the_card() -> None:
    state = arrange(new("Ann,Bob", outposts=0, bandits=0), "Ann", red=8)
    with pytest.raises(RuleError, match="no outpost shelter left"):
        play(state, "buy_outpost Ann runes=red")
    state = arrange(state, "Bob", shelters=(main("blue"),))
    with pytest.raises(RuleError, match="no bandit left"):
        play(state, "buy_bandit Ann Bob blue runes=red")


# -- where an outpost goes ---------------------------------------------------------------


def test_an_outpost_stands_alone_with_no_colour_until_a_rune_goes_in() -> None:
    state = play(new(), "buy_outpost Ann cards=10,11")
    assert shelter(state, "Ann", "outpost").colour is None
    state = arrange(state, "Ann", blue=1)
    state = play(state, "store Ann outpost")
    # "The colour of the outpost shelter is then determined by the rune placed in it."
    assert shelter(state, "Ann", "outpost").colour == "blue"


def test_an_outpost_may_join_a_main_shelter() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 1),))
    state, lines = said(state, "buy_outpost Ann cards=10,11 to=red")
    assert shelter(state, "Ann", "red").outpost
    assert lines[-1] == "Ann buys an outpost shelter (joined to the red main shelter)"


def test_a_main_shelter_takes_one_outpost_at_a_time() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 1, outpost=True),))
    with pytest.raises(RuleError, match="already has its outpost"):
        play(state, "buy_outpost Ann cards=10,11 to=red")


def test_with_two_main_shelters_the_outpost_must_join_one() -> None:
    # "Once you have two main shelters, you must connect your outer shelters to a main
    # shelter of your choice."
    state = arrange(new(), "Ann", shelters=(main("red"), main("blue")))
    with pytest.raises(RuleError, match="say which main shelter the outpost joins"):
        play(state, "buy_outpost Ann cards=10,11")
    state = play(state, "buy_outpost Ann cards=10,11 to=blue")
    assert shelter(state, "Ann", "blue").outpost
    assert player(state, "Ann").shelter_count == 2


def test_with_two_shelters_the_one_free_main_takes_the_outpost() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", outpost=True), main("blue")))
    state = play(state, "buy_outpost Ann cards=10,11")
    assert shelter(state, "Ann", "blue").outpost


def test_no_third_shelter() -> None:
    state = arrange(new(), "Ann", shelters=(main("red"), outpost()))
    state = play(state, "buy_outpost Ann cards=10,11")  # joins the red main shelter
    assert shelter(state, "Ann", "red").outpost
    full = arrange(new(), "Ann", shelters=(outpost(label="outpost"), outpost(label="outpost2")))
    with pytest.raises(RuleError, match="two shelters already"):
        play(full, "buy_outpost Ann cards=10,11")


def test_an_occupied_main_shelter_takes_no_outpost() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 1, bandit="Bob"),))
    with pytest.raises(RuleError, match="would destroy the outpost at once"):
        play(state, "buy_outpost Ann cards=10,11 to=red")


def test_a_ruin_does_not_count_towards_two_shelters() -> None:
    state = arrange(new(), "Ann", shelters=(main("red"), ruin("blue", 1, "Bob")))
    state = play(state, "buy_outpost Ann cards=10,11")
    assert shelter(state, "Ann", "outpost2").kind == "outpost"


# -- placing a bandit ----------------------------------------------------------------------


def test_a_bandit_goes_into_another_players_shelter() -> None:
    state = arrange(new(), "Bob", shelters=(main("red", 2),))
    state, lines = said(state, "buy_bandit Ann Bob red cards=10,11")
    assert shelter(state, "Bob", "red").bandit == "Ann"
    assert lines[-1] == "Ann places a bandit in Bob's red shelter"


def test_a_bandit_never_goes_into_ones_own_shelter() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 2),))
    with pytest.raises(RuleError, match="another player's shelter"):
        play(state, "buy_bandit Ann Ann red cards=10,11")


def test_a_bandit_needs_a_shelter_to_go_into() -> None:
    with pytest.raises(UnknownName, match="Bob has no shelter 'red' \\(shelters: none\\)"):
        play(new(), "buy_bandit Ann Bob red cards=10,11")


def test_one_bandit_per_shelter() -> None:
    state = arrange(new("Ann,Bob,Cid"), "Bob", shelters=(main("red", 2, bandit="Cid"),))
    with pytest.raises(RuleError, match="a bandit \\(Cid's\\) already occupies Bob's red"):
        play(state, "buy_bandit Ann Bob red cards=10,11")


def test_a_bandit_destroys_the_outpost_of_a_main_shelter() -> None:
    state = arrange(new(), "Bob", shelters=(main("red", 2, outpost=True),))
    market = state.market
    state, lines = said(state, "buy_bandit Ann Bob red cards=10,11")
    red = shelter(state, "Bob", "red")
    assert (red.outpost, red.bandit, red.runes) == (False, "Ann", 2)
    assert state.market.outposts == market.outposts + 1
    assert "The bandit destroys Bob's outpost shelter (red): it goes back to the market" in lines


def test_a_bandit_destroys_a_stand_alone_outpost_and_stays_on_its_runes() -> None:
    state = arrange(new(), "Bob", shelters=(outpost(2, "blue"),))
    market = state.market
    state = play(state, "buy_bandit Ann Bob outpost cards=10,11")
    ruined = shelter(state, "Bob", "outpost")
    assert (ruined.kind, ruined.colour, ruined.runes, ruined.bandit) == ("ruin", "blue", 2, "Ann")
    assert player(state, "Bob").outposts == 0
    assert state.market.outposts == market.outposts + 1


def test_a_bandit_finding_an_empty_outpost_destroys_it_and_goes_home() -> None:
    state = arrange(new(), "Bob", shelters=(outpost(),))
    market = state.market
    state, lines = said(state, "buy_bandit Ann Bob outpost cards=10,11")
    assert player(state, "Bob").shelters == ()
    assert state.market.bandits == market.bandits
    assert state.market.outposts == market.outposts + 1
    assert lines[-1] == ("The bandit finds Bob's outpost shelter (outpost) empty: nothing to "
                         "sit on, it returns to the market")


def test_a_bandit_may_go_into_an_empty_main_shelter() -> None:
    state = arrange(new(), "Bob", shelters=(main("red"),))
    state = play(state, "buy_bandit Ann Bob red cards=10,11", "end_turn Ann")
    assert player(state, "Bob").shelters == ()  # abandoned at once, at Bob's turn


def test_a_ruin_takes_no_second_bandit() -> None:
    state = arrange(new("Ann,Bob,Cid"), "Bob", shelters=(ruin("red", 2, "Cid"),))
    with pytest.raises(RuleError, match="no shelter any more"):
        play(state, "buy_bandit Ann Bob outpost cards=10,11")
