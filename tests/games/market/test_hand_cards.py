"""Phase 3, the hand cards, and phase 4, filling up; storing runes and joining outposts."""

from __future__ import annotations

import pytest

from companion.core.errors import ActionSyntaxError, RuleError, UnknownPlayer, WrongPhase
from companion.games.market.state import Phase

from .support import arrange, main, new, outpost, play, player, ruin, said, shelter

# -- buying runes ------------------------------------------------------------------------


@pytest.mark.parametrize("cards", ["5", "2,3", "10", "4,6", "13,2", "7,8", "1,2,12"])
def test_a_rune_costs_number_cards_summing_to_5_10_or_15(cards: str) -> None:
    state = new()
    market = state.market
    state = play(state, f"buy_rune Ann blue cards={cards}")
    assert player(state, "Ann").free.blue == 1
    assert state.market.blue == market.blue - 1
    assert player(state, "Ann").hand == 3 - len(cards.split(","))
    assert state.phase is Phase.CARDS


@pytest.mark.parametrize("cards", ["4", "6", "9", "11", "3,4", "13,8"])
def test_other_sums_buy_no_rune(cards: str) -> None:
    with pytest.raises(RuleError, match="a rune costs a sum of exactly 5, 10, 15"):
        play(new(), f"buy_rune Ann red cards={cards}")


def test_a_rune_the_market_does_not_have_is_refused() -> None:
    state = new("Ann,Bob", red=0, blue=3)
    with pytest.raises(RuleError, match=r"the market has 0 red rune\(s\) left, not 1"):
        play(state, "buy_rune Ann red cards=5")


def test_buying_the_last_rune_ends_the_game_in_the_middle_of_the_turn() -> None:
    state = new("Ann,Bob", red=1, blue=0)
    state, lines = said(state, "buy_rune Ann red cards=5")
    assert state.phase is Phase.OVER
    assert state.outcome is not None and state.outcome.winner == "Ann"
    assert lines[-2:] == ["The market's last rune is gone: the game ends. Scores: Ann 1, Bob 0",
                          "Ann wins with 1 rune points"]


# -- main shelter cards ------------------------------------------------------------------------


def test_a_main_shelter_is_played_onto_the_table() -> None:
    state, lines = said(new(), "shelter Ann blue")
    assert shelter(state, "Ann", "blue").kind == "main"
    assert player(state, "Ann").hand == 2
    assert lines == ["Ann plays a blue main shelter"]


def test_one_main_shelter_of_each_colour() -> None:
    state = play(new(), "shelter Ann red", "shelter Ann blue")
    assert player(state, "Ann").mains == 2
    with pytest.raises(RuleError, match="already has a red main shelter \\(one of each colour "
                                        "at most\\); use the card as a double steal"):
        play(state, "shelter Ann red")


def test_a_second_main_shelter_takes_in_the_stand_alone_outpost() -> None:
    # "If you already own two main camps, the outer camp automatically becomes an extension
    # of a main camp of your choice."
    state = arrange(new(), "Ann", shelters=(main("red", 1, outpost=True), outpost(2, "blue")))
    state, lines = said(state, "shelter Ann blue")
    blue = shelter(state, "Ann", "blue")
    assert (blue.outpost, blue.runes) == (True, 2)
    assert player(state, "Ann").shelter_count == 2
    assert lines[-1] == "Ann joins the outpost outpost shelter to the blue main shelter"


def test_the_player_chooses_the_main_shelter_when_both_fit() -> None:
    state = arrange(new(), "Ann", shelters=(main("red"), outpost()))
    with pytest.raises(RuleError, match="say which outpost joins which main shelter: "
                                        "outpost=outpost to=red; outpost=outpost to=blue"):
        play(state, "shelter Ann blue")
    state = play(state, "shelter Ann blue to=red")
    assert shelter(state, "Ann", "red").outpost


def test_an_outpost_joins_only_a_main_shelter_of_its_colour() -> None:
    state = arrange(new(), "Ann", shelters=(main("blue", outpost=True), outpost(1, "red",
                                                                                label="outpost")))
    # The blue main shelter is taken; the outpost holds red runes: it joins the new red one.
    state = play(state, "shelter Ann red")
    assert shelter(state, "Ann", "red").outpost


def test_two_stand_alone_outposts_and_a_first_main_shelter() -> None:
    state = arrange(new(), "Ann", shelters=(outpost(1, "blue"), outpost(2, "red",
                                                                        label="outpost2")))
    state = play(state, "shelter Ann red")
    assert shelter(state, "Ann", "red").outpost and shelter(state, "Ann", "red").runes == 2
    assert shelter(state, "Ann", "outpost").colour == "blue"


def test_a_third_shelter_is_refused_when_no_outpost_can_join() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", outpost=True), outpost(1, "red")))
    with pytest.raises(RuleError, match="more than two shelters"):
        play(state, "shelter Ann blue")


# -- storing and joining ---------------------------------------------------------------------


def test_free_runes_go_into_a_shelter_of_their_colour() -> None:
    state = arrange(new(), "Ann", red=3, shelters=(main("red"),))
    state, lines = said(state, "store Ann red 2")
    assert shelter(state, "Ann", "red").runes == 2
    assert player(state, "Ann").free.red == 1
    assert lines == ["Ann puts 2 red rune(s) into the red shelter"]
    with pytest.raises(RuleError, match="holds red runes only"):
        play(state, "store Ann red colour=blue")
    with pytest.raises(RuleError, match=r"1 free red rune\(s\), not 2"):
        play(state, "store Ann red 2")


def test_nothing_to_store() -> None:
    with pytest.raises(RuleError, match="Ann has no free runes"):
        play(arrange(new(), "Ann", shelters=(outpost(),)), "store Ann outpost")


def test_an_empty_outpost_takes_either_colour() -> None:
    state = arrange(new(), "Ann", red=1, blue=1, shelters=(outpost(),))
    with pytest.raises(RuleError, match="say which colour"):
        play(state, "store Ann outpost")
    state = play(state, "store Ann outpost colour=red")
    assert shelter(state, "Ann", "outpost").colour == "red"
    with pytest.raises(RuleError, match="holds red runes only"):
        play(state, "store Ann outpost colour=blue")


def test_storing_is_allowed_after_hand_cards() -> None:
    state = arrange(new(), "Ann", red=1, shelters=(main("red"),))
    state = play(state, "buy_rune Ann red cards=5", "store Ann red 2")
    assert shelter(state, "Ann", "red").runes == 2


def test_an_outpost_may_join_a_main_shelter_later() -> None:
    # "If you have at least one main shelter, you may connect the outer shelter to it".
    state = arrange(new(), "Ann", shelters=(main("red", 1), outpost(2, "red")))
    state, lines = said(state, "attach Ann outpost red")
    assert shelter(state, "Ann", "red").outpost and shelter(state, "Ann", "red").runes == 3
    assert player(state, "Ann").shelter("outpost") is None
    assert lines == ["Ann joins the outpost outpost shelter to the red main shelter"]


def test_attach_checks_colour_and_the_kind_of_shelter() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 1), outpost(2, "blue"),
                                            ruin("red", 1, "Bob", label="outpost2")))
    with pytest.raises(RuleError, match="holds blue runes and cannot join the red"):
        play(state, "attach Ann outpost red")
    with pytest.raises(RuleError, match="not a stand-alone outpost"):
        play(state, "attach Ann outpost2 red")
    with pytest.raises(RuleError, match="no blue main shelter"):
        play(state, "attach Ann outpost blue")


# -- thieves ------------------------------------------------------------------------------------


def test_a_thief_steals_a_rune() -> None:
    state = arrange(new("Ann,Bob,Cid"), "Cid", blue=2)
    state, lines = said(state, "thief Ann Cid blue")
    assert player(state, "Cid").free.blue == 1
    assert player(state, "Ann").free.blue == 1
    assert player(state, "Ann").hand == 2
    assert lines == ["Ann plays a Thief", "Ann steals a blue rune from Cid"]


def test_a_thief_steals_from_a_shelter_when_nothing_is_free() -> None:
    state = arrange(new(), "Bob", shelters=(main("red", 2),))
    state = play(state, "thief Ann Bob red")
    assert shelter(state, "Bob", "red").runes == 1


def test_a_thief_steals_a_hand_card() -> None:
    state, lines = said(new(), "thief Ann Bob card")
    assert player(state, "Bob").hand == 2
    assert player(state, "Ann").hand == 3  # played one, stole one
    assert lines[-1] == "Ann steals a hand card from Bob; Bob draws again only at the end of " \
                        "their next turn"


def test_a_robbed_player_plays_their_next_turn_short_and_refills_at_its_end() -> None:
    # "the other player may not draw another card until the end of their next turn and now
    # only has 2 cards (or less) for their next turn".
    state = play(new(), "thief Ann Bob card", "end_turn Ann")
    assert player(state, "Bob").hand == 2
    assert player(state, "Ann").hand == 3
    state = play(state, "buy_rune Bob red cards=5", "end_turn Bob")
    assert player(state, "Bob").hand == 3


def test_a_stolen_card_may_be_played_at_once() -> None:
    # The companion does not know which card was stolen: a Thief played three times from a
    # hand of three means each stolen card was played in turn.
    state = play(new(), "thief Ann Bob card", "thief Ann Bob card", "thief Ann Bob card")
    assert player(state, "Bob").hand == 0
    assert player(state, "Ann").hand == 3


def test_a_player_keeps_more_than_3_cards_and_draws_none() -> None:
    # "draw new cards from the main pile until you have 3 cards": none to draw with 4.
    state = play(new(), "double_steal Ann Bob card Bob card")
    assert player(state, "Ann").hand == 4
    state, lines = said(state, "end_turn Ann")
    assert lines[0] == "Ann draws 0 card(s) and holds 4"
    assert player(state, "Bob").hand == 1  # Bob plays his turn with one card


def test_one_steals_from_another_player_only() -> None:
    with pytest.raises(RuleError, match="steal from another player"):
        play(arrange(new(), "Ann", red=1), "thief Ann Ann red")
    with pytest.raises(UnknownPlayer):
        play(new(), "thief Ann Zed card")


def test_nothing_to_steal_is_refused() -> None:
    with pytest.raises(RuleError, match=r"Bob has 0 red rune\(s\) that can be used"):
        play(new(), "thief Ann Bob red")
    state = arrange(new(), "Bob", hand=0)
    with pytest.raises(RuleError, match="Bob has no hand card to steal"):
        play(state, "thief Ann Bob card")


def test_one_may_steal_from_a_person_several_times_in_a_turn() -> None:
    state = arrange(new(), "Bob", red=2)
    state = play(state, "thief Ann Bob red", "thief Ann Bob red")
    assert player(state, "Ann").free.red == 2


# -- the main shelter as a double steal ---------------------------------------------------------


def test_a_main_shelter_card_from_the_hand_is_a_double_steal() -> None:
    state = arrange(new("Ann,Bob,Cid"), "Bob", red=1)
    state, lines = said(state, "double_steal Ann Bob red Cid card")
    assert player(state, "Ann").free.red == 1
    assert player(state, "Cid").hand == 2
    assert player(state, "Ann").hand == 3
    assert lines == ["Ann discards a main shelter card (from the hand) as a double steal",
                     "Ann steals a red rune from Bob",
                     "Ann steals a hand card from Cid; Cid draws again only at the end of "
                     "their next turn"]


def test_a_double_steal_may_take_twice_from_one_player_or_once() -> None:
    state = arrange(new(), "Bob", blue=2)
    assert player(play(state, "double_steal Ann Bob blue Bob blue"), "Ann").free.blue == 2
    assert player(play(state, "double_steal Ann Bob blue"), "Ann").free.blue == 1


def test_the_second_theft_needs_both_its_words() -> None:
    with pytest.raises(ActionSyntaxError, match="needs both VICTIM2 and TAKE2"):
        play(new(), "double_steal Ann Bob card victim2=Bob")


def test_a_main_shelter_on_the_table_may_be_discarded_as_a_double_steal() -> None:
    # "You can also discard it from your table cards at the beginning of your turn."
    state = arrange(new(), "Ann", shelters=(main("red", 2, outpost=True),))
    state, lines = said(state, "double_steal Ann Bob card Bob card table=red")
    ann = player(state, "Ann")
    assert ann.free.red == 2
    assert ann.hand == 5  # no hand card was used for it
    assert [s.label for s in ann.shelters] == ["outpost"]
    assert state.phase is Phase.PURCHASE  # not a hand card: purchases with runes still allowed
    assert lines[:3] == [
        "Ann discards a main shelter card (the red main shelter from the table) as a double steal",
        "Ann discards the red main shelter from the table; its 2 rune(s) are now free",
        "Ann's outpost shelter stays as the stand-alone outpost",
    ]


def test_a_table_shelter_is_discarded_only_before_the_first_hand_card() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 2),))
    state = play(state, "buy_rune Ann red cards=5")
    with pytest.raises(WrongPhase, match="only at the beginning of the turn"):
        play(state, "double_steal Ann Bob card table=red")


def test_an_occupied_shelter_cannot_be_discarded_to_escape_its_bandit() -> None:
    state = arrange(new(), "Ann", shelters=(main("red", 2, bandit="Bob"),))
    with pytest.raises(RuleError, match="a bandit occupies the red main shelter"):
        play(state, "double_steal Ann Bob card table=red")


def test_a_double_steal_from_the_table_needs_that_shelter() -> None:
    state = arrange(new(), "Ann", shelters=(outpost(),))
    with pytest.raises(RuleError):
        play(state, "double_steal Ann Bob card table=blue")


# -- duels ----------------------------------------------------------------------------------------


def test_a_higher_attack_wins_and_steals() -> None:
    state = arrange(new(), "Bob", red=1)
    state, lines = said(state, "duel Ann Bob 9 7 take=red")
    assert player(state, "Ann").free.red == 1 and player(state, "Ann").hand == 2
    assert player(state, "Bob").hand == 3  # the defending card stays in the hand
    assert lines == ["Attack! Ann's 9 beats Bob (7)", "Ann steals a red rune from Bob"]


@pytest.mark.parametrize("defence", [9, 12])
def test_an_equal_or_higher_defence_holds(defence: int) -> None:
    state = arrange(new(), "Bob", red=1)
    state, lines = said(state, f"duel Ann Bob 9 {defence}")
    assert player(state, "Bob").free.red == 1
    assert player(state, "Ann").hand == 2  # "only the attacking card goes to the discard pile"
    assert lines == [f"Bob defends with {defence} against Ann's 9: only the attacking card is "
                     "discarded"]


def test_a_defender_who_gives_up_shows_nothing() -> None:
    state, lines = said(new(), "duel Ann Bob 2 conceded take=card")
    assert lines[0] == "Attack! Ann's 2 beats Bob (gave up)"
    assert player(state, "Bob").hand == 2


def test_the_winner_may_steal_nothing() -> None:
    state, lines = said(new(), "duel Ann Bob 4 conceded take=nothing")
    assert lines[-1] == "Ann steals nothing"
    assert player(state, "Bob").hand == 3


def test_the_winner_says_what_they_steal() -> None:
    with pytest.raises(RuleError, match="Ann wins; say what they steal from Bob"):
        play(new(), "duel Ann Bob 9 conceded")
    with pytest.raises(RuleError, match="so Ann steals nothing: leave out take="):
        play(new(), "duel Ann Bob 9 10 take=card")


def test_a_duel_has_a_defence_or_a_defender_who_gave_up() -> None:
    with pytest.raises(RuleError, match="one of the two"):
        play(new(), "duel Ann Bob 9")
    with pytest.raises(RuleError, match="one of the two"):
        play(new(), "duel Ann Bob 9 4 conceded take=card")


def test_a_duel_uses_number_cards() -> None:
    with pytest.raises(RuleError, match="Ann cannot show a 14"):
        play(new(), "duel Ann Bob 14 conceded take=card")
    with pytest.raises(RuleError, match="Bob cannot show a 20"):
        play(new(), "duel Ann Bob 4 20")
    state = arrange(new(), "Bob", hand=0)
    with pytest.raises(RuleError, match="Bob has no card in hand to show"):
        play(state, "duel Ann Bob 4 5")


def test_one_duel_per_player_per_round() -> None:
    state = play(new("Ann,Bob,Cid"), "duel Ann Bob 4 5")
    with pytest.raises(RuleError, match="already challenged Bob this round"):
        play(state, "duel Ann Bob 9 conceded take=card")
    state = play(state, "duel Ann Cid 9 conceded take=card")  # another player is fine
    assert state.duelled == ("Bob", "Cid")
    state = play(state, "end_turn Ann", "buy_rune Bob red cards=5", "end_turn Bob",
                 "buy_rune Cid red cards=5", "end_turn Cid")
    assert state.duelled == ()
    play(state, "duel Ann Bob 9 conceded take=card")  # a new round


def test_no_duel_against_oneself() -> None:
    with pytest.raises(RuleError, match="challenge another player"):
        play(new(), "duel Ann Ann 9 conceded take=card")


# -- phase 4 ------------------------------------------------------------------------------


def test_the_turn_ends_by_filling_up_to_3_and_passes_left() -> None:
    state, lines = said(play(new("Ann,Bob,Cid"), "buy_rune Ann red cards=2,3"), "end_turn Ann")
    assert player(state, "Ann").hand == 3
    assert state.players[state.active].name == "Bob"
    assert state.turn == 2 and state.round == 1
    assert lines == ["Ann draws 2 card(s) and holds 3", "Round 1: Bob's turn"]


def test_a_round_ends_when_play_comes_back_to_the_first_player() -> None:
    state = new("Ann,Bob", first="Bob")
    state = play(state, "buy_rune Bob red cards=5", "end_turn Bob")
    assert state.round == 1
    state = play(state, "buy_rune Ann red cards=5", "end_turn Ann")
    assert state.round == 2 and state.players[state.active].name == "Bob"


def test_at_least_one_hand_card_every_turn() -> None:
    with pytest.raises(RuleError, match="must play at least one hand card every turn"):
        play(new(), "end_turn Ann")
    state, lines = said(new(), "end_turn Ann cannot_play")
    assert lines[0] == "Ann draws 0 card(s) and holds 3"
    empty = arrange(new(), "Ann", hand=0)
    assert player(play(empty, "end_turn Ann"), "Ann").hand == 3


def test_a_table_shelter_double_steal_is_not_a_hand_card() -> None:
    state = arrange(new(), "Ann", shelters=(main("red"),))
    state = play(state, "double_steal Ann Bob card table=red")
    with pytest.raises(RuleError, match="at least one hand card"):
        play(state, "end_turn Ann")


def test_only_the_active_player_acts() -> None:
    with pytest.raises(WrongPhase, match="it is Ann's turn, not Bob's"):
        play(new(), "buy_rune Bob red cards=5")
    play(new(), "buy_rune 1 red cards=5")  # a seat number names the player too


def test_the_hand_must_hold_the_card_played() -> None:
    state = arrange(new(), "Ann", hand=0)
    for line in ("thief Ann Bob card", "shelter Ann red", "double_steal Ann Bob card",
                 "duel Ann Bob 3 conceded take=card"):
        with pytest.raises(RuleError, match="Ann has no cards in hand"):
            play(state, line)
    with pytest.raises(RuleError, match=r"Ann holds 0 card\(s\), not 1"):
        play(state, "buy_rune Ann red cards=5")
