"""Phase 1: interest, and what the bandits do at the beginning of a turn."""

from __future__ import annotations

import pytest

from companion.core.errors import WrongPhase
from companion.games.market import RULES
from companion.games.market.state import Interest, Phase

from .support import arrange, begin, main, new, outpost, play, player, ruin, said, shelter


def due(state) -> list[tuple[str, str, int]]:  # type: ignore[no-untyped-def]
    return [(i.shelter, i.colour, i.runes) for i in state.interest]


def test_a_shelter_with_a_rune_earns_one_matching_rune() -> None:
    state, _ = begin(arrange(new(), "Ann", shelters=(main("red", 1),)))
    assert state.phase is Phase.INTEREST
    assert due(state) == [("red", "red", 1)]


def test_an_empty_shelter_earns_nothing() -> None:
    state, _ = begin(arrange(new(), "Ann", shelters=(main("red"), outpost())))
    assert state.phase is Phase.PURCHASE
    assert due(state) == []


def test_interest_does_not_grow_with_the_runes_held() -> None:
    state, _ = begin(arrange(new(), "Ann", shelters=(main("blue", 7),)))
    assert due(state) == [("blue", "blue", 1)]


def test_a_main_shelter_with_its_outpost_earns_two() -> None:
    # "If at the beginning of your turn you have a main shelter with an outer shelter and at
    # least one rune in it, you get 2 runes of the same colour from the market as interest."
    state, _ = begin(arrange(new(), "Ann", shelters=(main("red", 1, outpost=True),)))
    assert due(state) == [("red", "red", 2)]


def test_a_stand_alone_outpost_earns_one_of_its_colour() -> None:
    state, _ = begin(arrange(new(), "Ann", shelters=(outpost(2, "blue"),)))
    assert due(state) == [("outpost", "blue", 1)]


def test_each_shelter_earns_separately() -> None:
    # Two main shelters, one with its outpost: "you earn double interest for this warehouse".
    state, _ = begin(arrange(new(), "Ann",
                             shelters=(main("red", 1, outpost=True), main("blue", 3))))
    assert due(state) == [("red", "red", 2), ("blue", "blue", 1)]


def test_free_runes_earn_nothing() -> None:
    state, _ = begin(arrange(new(), "Ann", red=5, blue=5))
    assert due(state) == []


def test_interest_is_shown_before_it_is_collected() -> None:
    state, lines = begin(arrange(new(), "Ann", shelters=(main("red", 1, outpost=True),)))
    assert "Ann may collect 2 red rune(s) of interest for the red shelter" in lines
    doc = RULES.to_json(state)
    assert doc["phase"] == "interest"
    assert doc["interest"] == [{"shelter": "red", "colour": "red", "runes": 2}]
    assert doc["interest_total"] == 2
    assert player(state, "Ann").runes("red") == 1  # not paid yet


def test_collect_puts_the_interest_into_the_shelter_that_earned_it() -> None:
    state, _ = begin(arrange(new(), "Ann",
                             shelters=(main("red", 1, outpost=True), outpost(1, "blue"))))
    market = state.market
    state = play(state, "collect Ann")
    assert shelter(state, "Ann", "red").runes == 3
    assert shelter(state, "Ann", "outpost").runes == 2
    assert (state.market.red, state.market.blue) == (market.red - 2, market.blue - 1)
    assert state.phase is Phase.PURCHASE and state.interest == ()


def test_interest_may_be_declined() -> None:
    state, _ = begin(arrange(new(), "Ann", shelters=(main("red", 1),)))
    state, lines = said(state, "decline Ann")
    assert lines == ["Ann declines the interest"]
    assert shelter(state, "Ann", "red").runes == 1
    assert state.phase is Phase.PURCHASE


@pytest.mark.parametrize("line", ["buy_rune Ann red cards=5", "thief Ann Bob card",
                                  "buy_outpost Ann runes=red", "end_turn Ann",
                                  "store Ann red"])
def test_nothing_else_happens_before_the_interest_is_taken(line: str) -> None:
    state, _ = begin(arrange(new(), "Ann", red=5, shelters=(main("red", 1),)))
    with pytest.raises(WrongPhase, match=r"first takes the interest due \(1 red\): collect Ann"):
        play(state, line)


@pytest.mark.parametrize("line", ["collect Ann", "decline Ann"])
def test_no_interest_to_take_once_the_turn_is_under_way(line: str) -> None:
    state = play(new(), "buy_rune Ann red cards=5")
    with pytest.raises(WrongPhase, match="no interest"):
        play(state, line)


def test_interest_after_a_hand_card_is_refused() -> None:
    # "Once you have played your first hand card, you may no longer collect interest".
    state, _ = begin(arrange(new(), "Ann", shelters=(main("red", 1),)))
    state = play(state, "decline Ann", "buy_rune Ann red cards=5")
    with pytest.raises(WrongPhase):
        play(state, "collect Ann")


def test_interest_is_computed_at_the_beginning_of_the_turn() -> None:
    # Runes stored later in the turn do not add interest until the next turn.
    state = arrange(new(), "Ann", red=1, shelters=(main("red"),))
    state = play(state, "store Ann red", "buy_rune Ann red cards=5")
    assert state.interest == ()
    state = play(state, "end_turn Ann", "buy_rune Bob blue cards=5", "end_turn Bob")
    assert due(state) == [("red", "red", 1)]


def test_the_market_pays_only_the_runes_it_has() -> None:
    # Two red runes left in the market; the shelters earn three.
    state = arrange(new("Ann,Bob", red=4, blue=5), "Ann",
                    shelters=(main("red", 1, outpost=True), outpost(1, "red")))
    state, lines = begin(state)
    assert state.interest == (Interest("red", "red", 2),)
    assert "The market has no more red runes: Ann's outpost shelter earns 1 fewer" in lines


def test_collecting_the_last_rune_ends_the_game() -> None:
    state = arrange(new("Ann,Bob", red=2, blue=0), "Ann", shelters=(main("red", 1),))
    state, _ = begin(state)
    state = play(state, "collect Ann")
    assert state.market.red == 0
    assert state.outcome is not None and state.outcome.winner == "Ann"


# -- bandits at the beginning of the occupied player's turn ---------------------------------


def test_an_occupied_shelter_earns_nothing_and_its_bandit_loots_a_rune() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 3, bandit="Bob"), main("blue", 1)))
    state, lines = begin(state)
    assert "Bob's bandit takes a red rune from Ann's red shelter" in lines
    assert shelter(state, "Ann", "red").runes == 2
    assert player(state, "Bob").free.red == 1
    assert due(state) == [("blue", "blue", 1)]


def test_the_bandit_loots_only_on_the_occupied_players_turn() -> None:
    state = arrange(new("Ann,Bob,Cid"), "Ann", shelters=(main("red", 3, bandit="Bob"),))
    state = play(state, "buy_rune Ann red cards=5", "end_turn Ann")
    assert shelter(state, "Ann", "red").runes == 3
    assert player(state, "Bob").free.red == 0


def test_a_looted_empty_shelter_is_abandoned_and_the_bandit_returns() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 0, bandit="Bob"),))
    bandits = state.market.bandits
    state, lines = begin(state)
    assert "Ann's red shelter is looted empty and abandoned; the bandit returns to the market" \
        in lines
    assert player(state, "Ann").shelters == ()
    assert state.market.bandits == bandits + 1


def test_the_shelter_is_abandoned_a_turn_after_its_last_rune_is_looted() -> None:
    # The emptiness is checked at the beginning of the turn, before the bandit loots: the
    # owner has that turn to free the shelter or to put runes back in.
    state = arrange(new(), "Ann", shelters=(main("red", 1, bandit="Bob"),))
    state, _ = begin(state)
    assert shelter(state, "Ann", "red").runes == 0
    state, _ = begin(state)
    assert player(state, "Ann").shelter("red") is None


def test_runes_put_into_an_occupied_shelter_keep_it() -> None:
    # "the owner of the shelter may continue to put runes in his shelter".
    state = arrange(new(), "Ann", red=1, shelters=(main("red", 1, bandit="Bob"),))
    state, _ = begin(state)
    state = play(state, "store Ann red 1", "buy_rune Ann blue cards=5")
    state, _ = begin(state)
    assert shelter(state, "Ann", "red").runes == 0
    assert player(state, "Bob").free.red == 2


def test_a_bandit_on_a_ruin_loots_it_too() -> None:
    state = arrange(new(), "Ann", shelters=(ruin("blue", 2, "Bob"),))
    state, _ = begin(state)
    assert shelter(state, "Ann", "outpost").runes == 1
    assert player(state, "Bob").free.blue == 1
    state, _ = begin(state)
    state, lines = begin(state)
    assert player(state, "Ann").shelters == ()
    assert "Ann's outpost shelter is looted empty and abandoned; the bandit returns to the " \
           "market" in lines
