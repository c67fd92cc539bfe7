"""Properties of whole games of random, mostly sensible, sometimes wrong input.

Each example sets up a game and plays up to 80 commands chosen from the state: valid rolls
and Loki's rolls most of the time, and any other action (often one the rules refuse) the
rest. After every command: the 32 dice are all accounted for, HP stays in bounds, the
special attack and the boon trigger at most once a round, a refused command changed
nothing, and nothing but a RuleError or an ActionSyntaxError was ever raised. At the end
undo walks back through every state exactly, and redo forward again.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from companion.core.errors import ActionSyntaxError, RuleError
from companion.core.events import MESSAGES
from companion.core.session import Session
from companion.games.runecast.state import Phase, RunecastState

from .support import RULES, game

NAMES = ["Ann", "Bob", "Cid", "Dan", "Eve", "Fay"]
RUNE_SETS = ["RFR", "RRF", "FFR", "FRF", "FRR", "RFF", "RRR", "FFF"]

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def setups(draw: st.DrawFn) -> str:
    players = draw(st.integers(2, 6))
    words = [f"runecast players={','.join(NAMES[:players])}"]
    if players == 2 and draw(st.booleans()):
        extra = draw(st.sampled_from(["Ann,Bob", "Ann,Ann,Bob", "Ann,Bob,Bob,Ann"]))
        words.append(f"extra={extra}")
    words.append(f"battles={draw(st.integers(1, 3))}")
    words.append(f"hp={draw(st.integers(2, 8))}")  # low HP: deaths happen
    if draw(st.booleans()):
        words.append(f"loki_max={draw(st.integers(1, 10))}")
    if draw(st.integers(0, 3)) == 0:
        words.append("unlimited_lives")
    if draw(st.booleans()):
        words.append(f"hit={draw(st.integers(1, 3))}")
    words.append(f"seed={draw(st.integers(0, 1000))}")
    return " ".join(words)


def split(draw: st.DrawFn, dice: int) -> tuple[int, int, int]:
    hammers = draw(st.integers(0, dice))
    snakes = draw(st.integers(0, dice - hammers))
    return hammers, snakes, dice - hammers - snakes


@st.composite
def commands(draw: st.DrawFn, state: RunecastState) -> str:
    hero = draw(st.sampled_from([h.name for h in state.heroes] + ["Zed", "9"]))
    if state.phase is Phase.LOKI and draw(st.integers(0, 4)) > 0:
        h, s, t = split(draw, state.loki_pool)
        card = ",".join(draw(st.lists(st.sampled_from(RUNE_SETS), min_size=3, max_size=3)))
        with_card = 0 < h < state.loki_pool and not state.options.duo
        return f"loki_roll {h} {s} {t}" + (f" card={card}" if with_card else "")
    if state.phase is Phase.TURN and draw(st.integers(0, 2)) > 0:
        if state.rolled is None and draw(st.booleans()):
            h, s, t = split(draw, state.heroes[state.active].pool)
            return f"roll {h} {s} {t}"
        return "next"
    return draw(st.sampled_from([
        f"roll {draw(st.integers(0, 13))} {draw(st.integers(0, 5))} {draw(st.integers(0, 5))}",
        "roll -1 2 3",
        f"tree_heal {draw(st.integers(0, 3))}",
        f"flip {hero} {draw(st.sampled_from(['weapon', 'armour', 'fate', 'hat']))}",
        f"ability {hero}",
        f"damage {hero} {draw(st.integers(0, 6))}",
        f"heal {hero} {draw(st.integers(1, 4))}",
        f"wound {draw(st.integers(1, 4))}",
        f"dice {hero} {draw(st.integers(-3, 3))}",
        f"loki_dice {draw(st.integers(-3, 3))}",
        f"discard {hero} {draw(st.sampled_from(['weapon', 'armor']))}",
        f"reincarnate {hero}",
        f"fate {hero} {draw(st.sampled_from(RUNE_SETS + ['RXR', 'RF']))}",
        f"loki_roll {draw(st.integers(0, 6))} {draw(st.integers(0, 6))} 0 "
        f"card={draw(st.sampled_from(['RFR,RRF,FFR', 'RFR-FFF', 'RXR,RRF,FFR', 'RRRFFFRFR']))}",
        "next",
        "{\"action\": \"roll\", \"hammers\": \"3\"}",
        "bogus 1 2",
    ]))


def check(state: RunecastState) -> None:
    o = state.options
    assert state.dice_in_play() == o.dice_total == 32
    assert state.loki_pool >= 0 and state.box >= 0
    for h in state.heroes:
        assert min(h.pool, h.set_aside, h.waiting) >= 0
        assert 0 <= h.hp <= h.max_hp
        assert (h.hp > 0) == h.alive
        if not h.alive:
            assert h.dice == 0 and h.weapon is None and h.armour is None
    if o.loki_max is not None:
        assert state.loki_pool <= o.loki_max
    assert 0 <= state.tree_heals <= 2
    assert state.outcome is not None or state.living
    if state.outcome is None and state.phase is Phase.TURN:
        assert state.heroes[state.active].alive


@SETTINGS
@given(setups(), st.data())
def test_random_games_keep_every_invariant(setup: str, data: Any) -> None:
    session = game(setup)
    states = [session.state]
    triggers: Counter[tuple[str, int]] = Counter()
    for _ in range(data.draw(st.integers(20, 80))):
        if session.finished:
            break
        before = session.state
        line = data.draw(commands(before))
        try:
            events = session.play(line)
        except (RuleError, ActionSyntaxError):
            assert session.state is before, line
            continue
        states.append(session.state)
        check(session.state)
        for e in events:
            assert e.kind in MESSAGES.kinds()
            if e.kind in ("runecast.fallen", "runecast.foiled", "runecast.all_hammers",
                          "runecast.returns", "runecast.reincarnate", "runecast.everyone"):
                event(e.kind)
            str(e)
            if e.kind in ("runecast.special", "runecast.boon"):
                triggers[(e.kind, before.round)] += 1
        RULES.to_json(session.state)
        RULES.seats(session.state)
    assert all(n == 1 for n in triggers.values()), triggers
    event(f"outcome: {session.state.outcome}")  # --hypothesis-show-statistics
    event(f"battles won: {session.state.battle}")
    assert_undo_is_exact(session, states)


def assert_undo_is_exact(session: Session[RunecastState], states: list[RunecastState]) -> None:
    for position in range(len(states) - 1, 0, -1):
        assert session.state == states[position]
        session.undo()
    assert session.state == states[0]
    for position in range(1, len(states)):
        session.redo()
        assert session.state == states[position]
    replayed = game(str(session.setup), *map(str, session.log))
    assert replayed.state == session.state


@SETTINGS
@given(setups())
def test_every_setup_deals_32_dice_and_the_tables(setup: str) -> None:
    state = game(setup).state
    check(state)
    n = len(state.heroes)
    assert 2 <= n <= 6
    assert {h.pool for h in state.heroes} == {state.options.dice}
    fates = [h.fate for h in state.heroes]
    if state.options.duo:
        assert fates == [None, None]
    else:
        assert len(set(fates)) == n and set(fates) <= set(state.options.fate_deck)  # type: ignore[arg-type]
