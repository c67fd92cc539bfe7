"""Runes of Zun under random play: invariants that must hold after any sequence of commands."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core.errors import CompanionError
from companion.core.journal import Journal
from companion.core.session import Session
from companion.games.zun import RULES

NAMES = ["Ann", "Bob", "Cid", "Dee"]
LOCATIONS = ["Ritual Grounds", "Rune Library", "Quiet Crossroads", "Ember Steps"]

player = st.sampled_from(NAMES + ["ann", "1", "4", "Zed", "9", "all"])
amount = st.integers(-2, 14).map(str) | st.sampled_from(["x", "", "1.5"])
location = st.sampled_from(LOCATIONS + ["Atlantis"]).map(lambda n: f'"{n}"')

command = st.one_of(
    st.tuples(st.sampled_from(["damage", "heal", "overdraw", "underdraw", "set", "revive"]),
              player, amount).map(" ".join),
    st.tuples(st.sampled_from(["heal", "damage", "revive"]), player, amount,
              st.sampled_from(["uptier", "immune", ""])).map(" ".join),
    st.sampled_from(["next"] * 6 + ["mulligan", "travel", "purge", "swap", "scramble", "undo",
                                    "redo", "goto 0", "goto 3"]),
    st.tuples(st.just("defeat"), player).map(" ".join),
    st.tuples(st.just("effect"), player, st.sampled_from(["Defend", "Poison"]),
              st.sampled_from(["when=start", "when=end prevents", "prevents"])).map(" ".join),
    st.tuples(st.just("discard_effect"), player, st.sampled_from(["Defend", "Poison"])).map(" ".join),
    st.tuples(st.just("travel to="), location).map("".join),
    st.tuples(st.just("scry"), location).map(" ".join),
    st.text(max_size=12),
)

setups = st.sampled_from([
    "players=Ann,Bob",
    "players=Ann,Bob,Cid,Dee",
    "players=Ann,Bob,Cid,Dee teams=Red:Ann+Cid,Blue:Bob+Dee hp=9",
    'players=Ann,Bob,Cid locations=normal deck="Ritual Grounds","Rune Library",'
    '"Quiet Crossroads","Ember Steps"',
    'players=Ann,Bob,Cid locations=tourist deck="Rune Library","Ember Steps"',
])

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


def check_invariants(session: Session) -> None:
    state = session.state
    for p in state.players:
        assert 0 <= p.hp <= p.max_hp
        assert p.defeated == (p.hp == 0)
        assert not (p.defeated and p.effects)
    if not state.over:
        assert not state.players[state.active].defeated
    locs = state.locations
    cards = ([locs.active] if locs.active else []) + list(locs.deck) + list(locs.discard)
    assert len(cards) == len(set(cards)), "a Location card is in two places"


@SETTINGS
@given(setups, st.lists(command, max_size=60))
def test_random_play_keeps_the_invariants_and_raises_only_companion_errors(
        setup: str, commands: list[str]) -> None:
    session = Session.new(RULES, setup)
    locations_in_play = None
    for text in commands:
        try:
            session.play(text)
        except CompanionError:
            pass  # refused: anything else (a TypeError, an IndexError) fails the test
        check_invariants(session)
        locs = session.state.locations
        total = sorted(([locs.active] if locs.active else []) + list(locs.deck) + list(locs.discard))
        locations_in_play = locations_in_play or total
        assert total == locations_in_play, "Location cards appeared or vanished"


@SETTINGS
@given(setups, st.lists(command, max_size=40))
def test_refused_commands_change_nothing(setup: str, commands: list[str]) -> None:
    session = Session.new(RULES, setup)
    for text in commands:
        before = (session.state, session.revision, session.cursor, session.log)
        try:
            session.play(text)
        except CompanionError:
            assert (session.state, session.revision, session.cursor, session.log) == before


@SETTINGS
@given(setups, st.lists(command, max_size=40))
def test_undo_restores_exactly_the_state_a_fresh_replay_gives(setup: str,
                                                              commands: list[str]) -> None:
    session = Session.new(RULES, setup)
    for text in commands:
        try:
            session.play(text)
        except CompanionError:
            pass
    while session.can_undo:
        session.undo()
        replayed = Session(RULES, session.setup)
        for action in session.log:
            replayed.play(action)
        assert replayed.state == session.state
        assert RULES.to_json(replayed.state) == RULES.to_json(session.state)


@SETTINGS
@given(setups, st.lists(command, max_size=40))
def test_the_journal_resumes_exactly_the_live_state(setup: str, commands: list[str]) -> None:
    with Journal(":memory:") as journal:
        live = Session.new(RULES, setup, journal=journal)
        for text in commands:
            try:
                live.play(text)
            except CompanionError:
                pass
        resumed = Session.resume(journal, live.game_id)
        assert resumed.state == live.state
        assert (resumed.cursor, resumed.revision) == (live.cursor, live.revision)
        assert [e.action for e in resumed.history()] == [e.action for e in live.history()]
