"""The end of the game: points, the winner, and tie-breaks I to IV."""

from __future__ import annotations

import pytest

from companion.core.errors import ActionSyntaxError, GameOver, RuleError, UnknownPlayer, WrongPhase
from companion.games.market import RULES
from companion.games.market.state import MarketState, Phase

from .support import arrange, main, new, outpost, play, player, ruin, said


def last_rune(players: str = "Ann,Bob", **holdings: dict) -> MarketState:  # type: ignore[type-arg]
    """A game whose market holds one red rune, with ``holdings`` arranged per player."""
    extra = sum(h.get("red", 0) + sum(s.runes for s in h.get("shelters", ())
                                      if s.colour == "red") for h in holdings.values())
    blue = sum(h.get("blue", 0) + sum(s.runes for s in h.get("shelters", ())
                                      if s.colour == "blue") for h in holdings.values())
    state = new(players, red=extra + 1, blue=blue)
    for name, h in holdings.items():
        state = arrange(state, name, **h)
    assert (state.market.red, state.market.blue) == (1, 0)
    return state


def test_points_runes_1_main_shelters_0_outposts_2_bandits_minus_1() -> None:
    state = last_rune("Ann,Bob,Cid", Ann={"red": 1, "blue": 1,
                                          "shelters": (main("red", 2, outpost=True),
                                                       main("blue", 1, bandit="Bob"))},
                      Bob={"shelters": (outpost(1, "red"),)})
    assert [RULES.score(p) for p in state.players] == [5 + 2 - 1, 1 + 2, 0]
    # The owner of a bandit scores nothing for it.


def test_a_clear_winner() -> None:
    state = last_rune(Ann={"red": 1}, Bob={"blue": 3})
    state, lines = said(state, "buy_rune Ann red cards=5")
    assert RULES.to_json(state)["outcome"] == {
        "winner": "Bob", "tie_break": None, "decided_by": "the highest score",
        "scores": [2, 3], "tied": ["Bob"], "contenders": ["Bob"], "high_cards": {},
        "waiting_for": None,
    }
    assert lines[-1] == "Bob wins with 3 rune points"
    assert RULES.seats(state)[1]["winner"] is True
    assert RULES.seats(state)[0]["over"] is True


def test_the_game_ends_even_while_runes_would_go_back_later() -> None:
    # "The game ends immediately as soon as the last rune has been taken from the market."
    state = last_rune(Ann={"red": 4})
    state = play(state, "buy_rune Ann red cards=5")
    with pytest.raises(GameOver, match="the game is over \\(Ann won\\); undo to go back"):
        play(state, "end_turn Ann")


def test_tie_break_I_more_outposts_wins() -> None:
    state = last_rune(Ann={"red": 2, "shelters": (outpost(),)}, Bob={"blue": 5})
    state, lines = said(state, "buy_rune Ann red cards=5")
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.tie_break) == ("Ann", "I")
    assert lines[-2:] == ["Ann, Bob tie with 5 rune points: tie-break I (more outpost shelters) "
                          "decides", "Ann wins tie-break I (more outpost shelters)"]
    assert RULES.to_json(state)["outcome"]["decided_by"] == "more outpost shelters"


def test_tie_break_II_more_bandits_loses() -> None:
    state = last_rune(Ann={"red": 1, "shelters": (main("blue", 1, bandit="Bob"),
                                                  outpost(1, "red"))},
                      Bob={"blue": 2, "shelters": (outpost(1, "red"),)})
    # Ann: 4 runes + 2 - 1 = 5 after the last rune; Bob: 3 runes + 2 = 5. One outpost each.
    state = play(state, "buy_rune Ann red cards=5")
    assert state.outcome is not None
    assert state.outcome.scores == (5, 5)
    assert (state.outcome.winner, state.outcome.tie_break) == ("Bob", "II")


def test_tie_break_III_the_highest_number_card_in_hand() -> None:
    state = last_rune(Ann={"red": 1}, Bob={"red": 2})
    state, lines = said(state, "buy_rune Ann red cards=5")
    assert state.phase is Phase.TIE_BREAK
    assert not RULES.finished(state)
    assert lines[-3:] == ["Ann, Bob tie with 2 rune points: tie-break I (more outpost "
                          "shelters) decides", "Still tied after tie-break I: Ann, Bob",
                          "Still tied after tie-break II: Ann, Bob"]
    doc = RULES.to_json(state)["outcome"]
    assert (doc["winner"], doc["waiting_for"], doc["contenders"]) == (None, "high_cards",
                                                                      ["Ann", "Bob"])
    state, lines = said(state, "high_cards Ann:9 bob:12")
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.tie_break) == ("Bob", "III")
    assert RULES.to_json(state)["outcome"]["high_cards"] == {"Ann": 9, "Bob": 12}
    assert lines == ["Bob wins tie-break III (the highest number card in hand)"]


def test_tie_break_IV_rock_paper_scissors() -> None:
    state = last_rune(Ann={"red": 1}, Bob={"red": 2})
    state = play(state, "buy_rune Ann red cards=5")
    state, lines = said(state, "high_cards Ann:0 Bob:0")  # neither holds a number card
    assert lines == ["Still tied after tie-break III: Ann, Bob"]
    assert RULES.to_json(state)["outcome"]["waiting_for"] == "rps"
    state, lines = said(state, "rps Ann")
    assert state.outcome is not None
    assert (state.outcome.winner, state.outcome.tie_break) == ("Ann", "IV")
    assert lines == ["Ann wins tie-break IV (best of 3 rock-paper-scissors)"]
    assert RULES.finished(state)


def test_each_tie_break_narrows_the_field() -> None:
    state = last_rune("Ann,Bob,Cid,Dan",
                      Ann={"red": 1, "shelters": (outpost(),)},
                      Bob={"blue": 1, "shelters": (outpost(),)},
                      Cid={"red": 2, "shelters": (main("red", 1, bandit="Dan"),
                                                  outpost(label="outpost2"))},
                      Dan={"red": 4})
    # After Ann's last rune: Ann 2 runes + 2, Bob 1 + 2, Cid 3 + 2 - 1, Dan 4.
    state = play(state, "buy_rune Ann red cards=5")
    assert state.outcome is not None
    assert state.outcome.scores == (4, 3, 4, 4)
    assert state.outcome.tied == ("Ann", "Cid", "Dan")
    # I: Ann and Cid have an outpost, Dan none; II: Cid has a bandit: Ann wins.
    assert (state.outcome.winner, state.outcome.tie_break) == ("Ann", "II")


def test_tie_break_entries_are_checked() -> None:
    state = play(last_rune("Ann,Bob,Cid", Ann={"red": 1}, Bob={"red": 2}),
                 "buy_rune Ann red cards=5")
    with pytest.raises(RuleError, match="exactly the tied players: Ann, Bob"):
        play(state, "high_cards Ann:3")
    with pytest.raises(RuleError, match="exactly the tied players"):
        play(state, "high_cards Ann:3 Bob:4 Cid:5")
    with pytest.raises(RuleError, match="Ann is given twice"):
        play(state, "high_cards Ann:3 ann:4")
    with pytest.raises(RuleError, match="there is no number card 40"):
        play(state, "high_cards Ann:40 Bob:4")
    with pytest.raises(ActionSyntaxError, match="PLAYER:VALUE"):
        play(state, "high_cards Ann-3 Bob:4")
    with pytest.raises(UnknownPlayer):
        play(state, "high_cards Zed:3 Bob:4")
    with pytest.raises(WrongPhase, match="rps: the tie waits for tie-break III, the tied "
                                         "players' highest number cards: high_cards "
                                         "Ann:VALUE Bob:VALUE"):
        play(state, "rps Ann")
    state = play(state, "high_cards Ann:5 Bob:5")
    with pytest.raises(WrongPhase, match="the tie waits for tie-break IV, the "
                                         "rock-paper-scissors winner: rps NAME"):
        play(state, "high_cards Ann:5 Bob:6")
    with pytest.raises(RuleError, match="Cid is not in the tie; it is between Ann, Bob"):
        play(state, "rps Cid")


def test_during_a_tie_break_the_game_takes_only_the_result() -> None:
    state = play(last_rune(Ann={"red": 1}, Bob={"red": 2}), "buy_rune Ann red cards=5")
    with pytest.raises(WrongPhase, match="end_turn: the game has ended in a tie; enter "
                                         "tie-break III"):
        play(state, "end_turn Ann")


@pytest.mark.parametrize("line", ["high_cards Ann:3 Bob:4", "rps Ann"])
def test_tie_break_results_only_at_the_end(line: str) -> None:
    with pytest.raises(WrongPhase, match="only to break a tie at the end of the game"):
        play(new(), line)


def test_a_ruin_bandit_counts_against_its_occupant() -> None:
    state = last_rune(Ann={"shelters": (ruin("red", 2, "Bob"),)})
    assert RULES.score(player(state, "Ann")) == 2 - 1
