"""The Rune Market under random play: what must hold after any sequence of commands.

A random player proposes commands from the position in front of it (its shelters,
the others' shelters, the tie still to break), so that most are legal and games
reach their end, mixed with commands that are not legal, or not even well formed,
which must be refused without changing anything. Hypothesis draws the setup and
the random player's seed, and shrinks a failing game to a short one.
"""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.core.errors import ActionSyntaxError, RuleError
from companion.core.events import MESSAGES
from companion.core.session import Session
from companion.games.market import RULES
from companion.games.market.state import COLOURS, MarketState, Phase

SETUPS = st.sampled_from([
    "players=Ann,Bob red=4 blue=3",
    "players=Ann,Bob red=12 blue=10 outposts=3 bandits=3",
    "players=Ann,Bob,Cid red=6 blue=6 outposts=2 bandits=2",
    "players=Ann,Bob,Cid,Dee red=5 blue=8",
    "players=Ann,Bob,Cid,Dee,Eve first=Cid red=9 blue=9 outposts=4 bandits=3",
])

JUNK = ["", "buy_rune", "buy_rune Ann red cards=x", "duel Ann Bob 0", "thief Ann Bob sword",
        "collect Zed", "end_turn 9", '{"action": "store"}', "ransom Ann red red=9", "redo",
        "undo", "high_cards Ann:3", "rps Ann", "attach Ann outpost9 red", "goto 0"]


def proposals(state: MarketState, rng: random.Random) -> list[tuple[int, str]]:
    """Commands worth trying in ``state``, with weights."""
    if state.outcome is not None:
        tied = state.outcome.contenders
        values = " ".join(f"{n}:{rng.choice([0, 5, 13, 13])}" for n in tied)
        return [(3, f"high_cards {values}"), (2, f"rps {rng.choice(tied)}"), (1, "undo")]
    p = state.players[state.active]
    me = p.name
    others = [q for q in state.players if q.name != me]
    price = RULES.content.price(len(state.players))
    out: list[tuple[int, str]] = [(1, f"end_turn {me} cannot_play"), (1, "undo")]
    if state.phase is Phase.INTEREST:
        return out + [(20, f"collect {me}"), (3, f"decline {me}"), (1, f"end_turn {me}")]
    out.append((12 if state.phase is Phase.CARDS else 2, f"end_turn {me}"))
    pay = [f"runes={c}" for c in COLOURS if p.spendable(c) >= price]
    if p.hand >= 2:
        pay.append("cards=10,11")
    for c in COLOURS:
        out.append((6, f"buy_rune {me} {c} cards={rng.choice(['5', '2,3', '10', '7,8'])}"))
        out.append((3, f"shelter {me} {c} {rng.choice(['', '', 'to=red', 'to=blue'])}"))
        for s in p.shelters:
            out.append((4, f"store {me} {s.label} {rng.randint(1, 2)} colour={c}"))
            if s.kind == "outpost":
                out.append((1, f"attach {me} {s.label} {c}"))
    for method in pay:
        out.append((3, f"buy_outpost {me} {method} {rng.choice(['', 'to=red', 'to=blue'])}"))
        for q in others:
            for s in q.shelters:
                out.append((3, f"buy_bandit {me} {q.name} {s.label} {method}"))
    for s in p.shelters:
        if s.occupied:
            red = rng.randint(0, 3)
            out += [(3, f"ransom {me} {s.label} cards=13,9"),
                    (3, f"ransom {me} {s.label} red={red} blue={3 - red}"),
                    (3, f"neutralise {me} {s.label}"),
                    (2, f"neutralise {me} {s.label} {rng.choice(pay or ['runes=red'])}")]
        if s.kind == "main":
            out.append((1, f"double_steal {me} {others[0].name} card table={s.colour}"))
    for q in others:
        take = rng.choice(["red", "blue", "card"])
        out += [(3, f"thief {me} {q.name} {take}"),
                (2, f"double_steal {me} {q.name} {take} {rng.choice(others).name} card"),
                (3, f"duel {me} {q.name} {rng.randint(1, 13)} {rng.randint(1, 13)}"),
                (2, f"duel {me} {q.name} {rng.randint(1, 13)} conceded take={take}")]
    return out + [(1, rng.choice(JUNK))]


def check_invariants(session: Session[Any]) -> None:
    state: MarketState = session.state
    start, market = state.start, state.market
    # Runes, outposts and bandits are conserved: market + players = the starting total.
    assert market.red + market.blue + sum(p.total_runes for p in state.players) \
        == start.red + start.blue
    assert market.outposts + sum(p.outposts for p in state.players) == start.outposts
    assert market.bandits + sum(p.bandits for p in state.players) == start.bandits
    assert min(market.red, market.blue, market.outposts, market.bandits) >= 0
    for p in state.players:
        assert p.hand >= 0 and p.free.red >= 0 and p.free.blue >= 0
        # At most one main shelter of each colour, at most two shelters, one outpost each.
        assert p.shelter_count <= 2
        mains = [s.colour for s in p.shelters if s.kind == "main"]
        assert len(mains) == len(set(mains))
        assert len({s.label for s in p.shelters}) == len(p.shelters)
        for s in p.shelters:
            assert s.runes >= 0
            assert s.bandit != p.name
            if s.kind == "main":
                assert s.label == s.colour
                assert not (s.outpost and s.occupied), "a bandit destroys the outpost it finds"
            elif s.kind == "outpost":
                assert not s.occupied and (s.colour is None) == (s.runes == 0)
            else:
                assert s.occupied and s.colour is not None
    assert (state.phase is Phase.INTEREST) == bool(state.interest)
    assert state.over == (market.red + market.blue == 0)
    assert RULES.finished(state) == (state.phase is Phase.OVER)
    json.dumps(session.to_json())
    assert len(RULES.seats(state)) == len(state.players)


def random_game(session: Session[Any], rng: random.Random, length: int,
                on_accepted: Any = None) -> None:
    for _ in range(length):
        if RULES.finished(session.state):
            return
        weights, lines = zip(*proposals(session.state, rng))
        line = rng.choices(lines, weights)[0]
        before, revision = session.state, session.revision
        try:
            events = session.play(line)
        except (RuleError, ActionSyntaxError):
            assert session.state is before and session.revision == revision
            continue
        if on_accepted is not None:
            on_accepted(line, events)


SETTINGS = settings(max_examples=75, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@SETTINGS
@given(setup=SETUPS, rng=st.randoms(use_true_random=False),
       length=st.integers(10, 250))
def test_random_play_keeps_every_invariant_and_refuses_cleanly(setup: str, rng: random.Random,
                                                               length: int) -> None:
    session: Session[Any] = Session.new("market", setup)

    def check(line: str, events: Any) -> None:
        for e in events:
            assert e.kind in MESSAGES.kinds(), e.kind
            str(e)
        check_invariants(session)

    random_game(session, rng, length, check)


@SETTINGS
@given(setup=SETUPS, rng=st.randoms(use_true_random=False), length=st.integers(5, 150))
def test_undo_redo_and_replay_are_exact(setup: str, rng: random.Random, length: int) -> None:
    session: Session[Any] = Session.new("market", setup)
    random_game(session, rng, length)
    states = [session.state_at(i) for i in range(session.cursor + 1)]
    replayed: Session[Any] = Session.new("market", session.setup)
    for action in session.log:
        replayed.play(str(action))  # the text form replays the game exactly
    assert replayed.state == session.state
    for expected in reversed(states[:-1]):
        session.undo()
        assert session.state == expected
    for expected in states[1:]:
        session.redo()
        assert session.state == expected


def test_the_random_player_plays_whole_games() -> None:
    # Guards the properties above against a random player that never gets anywhere.
    ended, kinds = 0, set()
    for seed in range(10):
        session: Session[Any] = Session.new("market", "players=Ann,Bob,Cid red=6 blue=6")
        random_game(session, random.Random(seed), 300,
                    lambda line, events: kinds.update(e.kind for e in events))
        ended += RULES.finished(session.state)
    assert ended >= 5
    assert {"market.loot", "market.interest", "market.bandit_placed", "market.steal_rune",
            "market.duel_won", "market.outpost_bought"} <= kinds
