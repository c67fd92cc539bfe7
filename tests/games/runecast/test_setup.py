"""Game Setup, the 2- and 3-player modifications and the house rules chosen at setup."""

from __future__ import annotations

import pytest

from companion.core.errors import ActionSyntaxError, SetupError
from companion.core.session import parse_setup

from .support import RULEBOOK_TABLES, RULES, game

NAMES = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"]


def setup(text: str):  # type: ignore[no-untyped-def]
    return RULES.new_game(parse_setup(RULES, text))  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [3, 4, 5, 6])
def test_each_player_gets_table_1_fate_cards_and_table_3_dice(count: int) -> None:
    state = setup(f"runecast players={','.join(NAMES[:count])} seed=1")
    table = RULEBOOK_TABLES[count]
    assert [h.hand for h in state.heroes] == [table.fate_cards] * count
    assert [h.pool for h in state.heroes] == [table.dice] * count


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_the_battle_stack_has_table_2_boards(count: int) -> None:
    state = setup(f"runecast players={','.join(NAMES[:count])} seed=1")
    assert len(state.battles) == RULEBOOK_TABLES[count].battles
    assert state.battles_left == RULEBOOK_TABLES[count].battles
    assert len({b.name for b in state.battles}) == len(state.battles)


@pytest.mark.parametrize("count", [2, 3, 4, 5, 6])
def test_the_32_dice_are_all_there_with_the_rest_in_the_box(count: int) -> None:
    state = setup(f"runecast players={','.join(NAMES[:count])} seed=1")
    assert state.dice_in_play() == 32
    assert state.box == 32 - count * RULEBOOK_TABLES[count].dice
    assert state.loki_pool == 0


def test_battle_boards_are_shuffled_by_the_seed() -> None:
    stacks = {tuple(b.name for b in setup(f"runecast players=Ann,Bob,Cid seed={s}").battles)
              for s in range(8)}
    assert len(stacks) > 1
    assert setup("runecast players=Ann,Bob,Cid seed=5").battles == \
        setup("runecast players=Ann,Bob,Cid seed=5").battles


def test_every_player_gets_a_death_token_and_there_is_a_community_token() -> None:
    state = setup("runecast players=Ann,Bob,Cid seed=1")
    assert all(h.death_token for h in state.heroes)
    assert state.community_token


def test_one_hero_fate_card_each_dealt_from_the_six_card_deck() -> None:
    state = setup("runecast players=Ann,Bob,Cid,Dan,Eve,Fay seed=3")
    fates = [h.fate for h in state.heroes]
    assert sorted(fates) == sorted(["RRF", "RFR", "FRR", "RFF", "FRF", "FFR"])  # type: ignore[type-var]


def test_three_players_never_get_rfr_rrf_or_rff() -> None:
    for seed in range(20):
        state = setup(f"runecast players=Ann,Bob,Cid seed={seed}")
        assert sorted(h.fate for h in state.heroes) == ["FFR", "FRF", "FRR"]  # type: ignore[type-var]


def test_all_fates_keeps_the_full_deck_for_three() -> None:
    state = setup("runecast players=Ann,Bob,Cid fates=RFR,RRF,RFF all_fates seed=1")
    assert [h.fate for h in state.heroes] == ["RFR", "RRF", "RFF"]
    with pytest.raises(SetupError, match="not a card of this game's Hero's Fate deck"):
        setup("runecast players=Ann,Bob,Cid fates=RFR,FRR,FFR seed=1")
    with pytest.raises(SetupError, match="3-character game"):
        setup("runecast players=Ann,Bob,Cid,Dan all_fates seed=1")


def test_fates_can_be_entered_at_setup() -> None:
    state = setup("runecast players=Ann,Bob,Cid,Dan fates=rfr,FFR,frf,RRF seed=1")
    assert [h.fate for h in state.heroes] == ["RFR", "FFR", "FRF", "RRF"]


@pytest.mark.parametrize("fates, message", [
    ("RFR,FFR,FRF", "one Hero's Fate card per character"),
    ("RFR,FFR,FRF,RFR", "dealt once"),
    ("RFR,FFR,FRF,RRR", "not a card"),
    ("RFR,FFR,FRF,RXF", "not a card"),
    ("RFR,FFR,FRF,RF", "not a card"),
])
def test_bad_fates_at_setup(fates: str, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        setup(f"runecast players=Ann,Bob,Cid,Dan fates={fates} seed=1")


def test_one_player_is_refused_with_a_sentence() -> None:
    with pytest.raises(SetupError, match="Runecast is for 2 to 6 players, got 1"):
        setup("runecast players=Ann seed=1")


def test_seven_players_are_refused_with_a_sentence() -> None:
    with pytest.raises(SetupError, match="Runecast is for 2 to 6 players, got 7"):
        setup("runecast players=Ann,Bob,Cid,Dan,Eve,Fay,Gil seed=1")


def test_bad_names_are_refused() -> None:
    with pytest.raises(SetupError, match="two players"):
        setup("runecast players=Ann,ann seed=1")
    with pytest.raises(SetupError, match="number"):
        setup("runecast players=Ann,7 seed=1")


def test_two_players_alone_play_two_characters_with_no_runes() -> None:
    state = setup("runecast players=Ann,Bob seed=1")
    assert state.options.duo
    assert [h.fate for h in state.heroes] == [None, None]
    assert [h.pool for h in state.heroes] == [12, 12]
    assert [h.hand for h in state.heroes] == [10, 10]
    with pytest.raises(SetupError, match="disregards the Hero's Fate runes"):
        setup("runecast players=Ann,Bob fates=RFR,FFR seed=1")


def test_two_players_may_take_extra_characters_as_a_bigger_game() -> None:
    state = setup("runecast players=Ann,Bob extra=Ann,Bob seed=1")
    assert [h.name for h in state.heroes] == ["Ann", "Bob", "Ann 2", "Bob 2"]
    assert [h.controller for h in state.heroes] == ["Ann", "Bob", "Ann", "Bob"]
    assert not state.options.duo
    assert [h.pool for h in state.heroes] == [6] * 4  # a 4-character game
    assert len(state.battles) == 8
    assert all(h.fate for h in state.heroes)


def test_extra_characters_one_or_two_per_player() -> None:
    state = setup("runecast players=Ann,Bob extra=Ann,Ann,2,Bob seed=1")
    assert [h.name for h in state.heroes] == ["Ann", "Bob", "Ann 2", "Bob 2", "Ann 3", "Bob 3"]
    state = setup("runecast players=Ann,Bob extra=Ann,Ann,Bob seed=1")
    assert [h.name for h in state.heroes] == ["Ann", "Bob", "Ann 2", "Bob 2", "Ann 3"]
    assert [h.pool for h in state.heroes] == [4] * 5
    with pytest.raises(SetupError, match="Bob has 0"):
        setup("runecast players=Ann,Bob extra=Ann seed=1")
    with pytest.raises(SetupError, match="Ann has 3"):
        setup("runecast players=Ann,Bob extra=Ann,Ann,Ann,Bob seed=1")
    with pytest.raises(SetupError, match="2-player rules"):
        setup("runecast players=Ann,Bob,Cid extra=Ann seed=1")
    with pytest.raises(SetupError, match="extra: no player called 'Zed'"):
        setup("runecast players=Ann,Bob extra=Zed,Bob seed=1")


def test_characters_default_to_the_data_file_order_and_can_be_chosen() -> None:
    state = setup("runecast players=Ann,Bob,Cid seed=1")
    assert [h.character.name for h in state.heroes] == ["Astrid", "Bjorn", "Eira"]
    assert [h.hp for h in state.heroes] == [10, 12, 9]
    state = setup("runecast players=Ann,Bob,Cid characters=ulf,Sigrun,Astrid seed=1")
    assert [h.character.name for h in state.heroes] == ["Ulf", "Sigrun", "Astrid"]
    assert [h.hp for h in state.heroes] == [8, 10, 10]


@pytest.mark.parametrize("chars, message", [
    ("Ulf,Sigrun", "one per character in play"),
    ("Ulf,Ulf,Astrid", "played once"),
    ("Ulf,Loki,Astrid", "unknown character 'Loki'"),
])
def test_bad_characters(chars: str, message: str) -> None:
    with pytest.raises(SetupError, match=message):
        setup(f"runecast players=Ann,Bob,Cid characters={chars} seed=1")


def test_hp_sets_every_starting_hp() -> None:
    state = setup("runecast players=Ann,Bob,Cid hp=7 seed=1")
    assert [(h.hp, h.max_hp) for h in state.heroes] == [(7, 7)] * 3


def test_colours_come_from_the_character_or_the_palette() -> None:
    state = setup("runecast players=Ann,Bob,Cid seed=1")
    assert [h.colour for h in state.heroes] == ["#e53935", "#1e88e5", "#333333"]


def test_boards_give_the_stack_in_order() -> None:
    state = setup("runecast players=Ann,Bob,Cid boards=medium,Small seed=1")
    assert [b.name for b in state.battles] == ["Medium", "Small"]
    with pytest.raises(SetupError, match="unknown battle board 'Nope'"):
        setup("runecast players=Ann,Bob,Cid boards=Small,Nope seed=1")
    with pytest.raises(SetupError, match="listed twice"):
        setup("runecast players=Ann,Bob,Cid boards=Small,small seed=1")
    with pytest.raises(SetupError, match="one or the other"):
        setup("runecast players=Ann,Bob,Cid boards=Small battles=3 seed=1")


def test_random_battles_deal_any_number() -> None:
    state = setup("runecast players=Ann,Bob,Cid battles=3 seed=1")
    assert len(state.battles) == 3
    state = setup("runecast players=Ann,Bob,Cid battles=14 seed=1")
    assert len(state.battles) == 14
    with pytest.raises(SetupError, match="15 battles wanted, the data files hold 14"):
        setup("runecast players=Ann,Bob,Cid battles=15 seed=1")


def test_first_player_and_thrall() -> None:
    state = setup("runecast players=Ann,Bob,Cid first=cid seed=1")
    assert state.active == state.first == state.thrall == 2
    with pytest.raises(SetupError, match="first: no player called 'Zed'"):
        setup("runecast players=Ann,Bob,Cid first=Zed seed=1")


def test_house_rules_and_hit_damage_are_recorded() -> None:
    state = setup("runecast players=Ann,Bob,Cid loki_max=6 unlimited_lives hit=2 seed=1")
    assert state.options.loki_max == 6
    assert state.options.unlimited_lives
    assert state.options.hit == 2
    assert not any(h.death_token for h in state.heroes)  # "Toss the Death Tokens back in the box"


def test_dealing_needs_a_seed_but_a_fully_entered_setup_does_not() -> None:
    with pytest.raises(SetupError, match="seed"):
        setup("runecast players=Ann,Bob,Cid")
    state = setup("runecast players=Ann,Bob,Cid boards=Small fates=FRR,FRF,FFR")
    assert state.battles[0].name == "Small"


def test_the_session_seeds_the_setup_so_replay_is_exact() -> None:
    session = game("runecast players=Ann,Bob,Cid,Dan")
    assert session.setup.seed is not None  # type: ignore[attr-defined]
    again = game(str(session.setup))
    assert again.state == session.state


@pytest.mark.parametrize("text", [
    "runecast players=Ann,Bob hp=0",
    "runecast players=Ann,Bob loki_max=0",
    "runecast players=Ann,Bob battles=-1",
    "runecast players=Ann,Bob colour=red",
])
def test_malformed_setups_are_syntax_errors(text: str) -> None:
    with pytest.raises(ActionSyntaxError):
        parse_setup(RULES, text)
