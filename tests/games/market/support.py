"""Building positions of The Rune Market for tests, and playing lines of actions on them.

Positions are built by taking runes, outposts and bandits out of the market, so
that everything the tests build is a position a real game could reach: the
market plus the players always hold the starting total.
"""

from __future__ import annotations

from dataclasses import replace

from companion.core.events import Event
from companion.core.session import parse_setup
from companion.games.market.actions import ACTIONS, Colour, MarketSetup
from companion.games.market.engine import MarketRules
from companion.games.market.state import MarketState, Phase, Player, Runes, Shelter

RULES = MarketRules()


def new(players: str = "Ann,Bob", **options: object) -> MarketState:
    """A new game, e.g. ``new("Ann,Bob,Cid", first="Cid", red=5)``."""
    words = " ".join(f"{k}={v}" for k, v in options.items())
    setup = parse_setup(RULES, f"market players={players} {words}")
    assert isinstance(setup, MarketSetup)
    return RULES.new_game(setup)


def play(state: MarketState, *lines: str) -> MarketState:
    """``state`` after each action line in turn."""
    for line in lines:
        state, _ = RULES.apply(state, ACTIONS.read(line))
    return state


def said(state: MarketState, line: str) -> tuple[MarketState, list[str]]:
    """``state`` after one action, and the sentences it produced."""
    state, events = RULES.apply(state, ACTIONS.read(line))
    return state, [str(e) for e in events]


def kinds(events: tuple[Event, ...]) -> list[str]:
    return [e.kind for e in events]


def player(state: MarketState, name: str) -> Player:
    return next(p for p in state.players if p.name == name)


def shelter(state: MarketState, name: str, label: str) -> Shelter:
    found = player(state, name).shelter(label)
    assert found is not None, f"{name} has no shelter {label}"
    return found


def arrange(state: MarketState, name: str, *, red: int = 0, blue: int = 0,
            shelters: tuple[Shelter, ...] = (), hand: int | None = None) -> MarketState:
    """``name`` given ``red``/``blue`` free runes and ``shelters``, all taken from the market.

    A bandit in a shelter is taken from the market too; its owner is whoever
    the shelter names.
    """
    seat = next(i for i, p in enumerate(state.players) if p.name == name)
    market = state.market
    for s in shelters:
        if s.colour is not None:
            market = market.plus(s.colour, -s.runes)
        market = market.plus("outposts", -s.outposts)
        market = market.plus("bandits", -int(s.occupied))
    market = market.plus("red", -red).plus("blue", -blue)
    assert min(market.red, market.blue, market.outposts, market.bandits) >= 0, market
    p = state.players[seat]
    p = replace(p, free=Runes(p.free.red + red, p.free.blue + blue),
                shelters=p.shelters + shelters, hand=p.hand if hand is None else hand)
    return replace(state.with_player(seat, p), market=market)


def begin(state: MarketState) -> tuple[MarketState, list[str]]:
    """The active player's turn begun afresh (after ``arrange``): the player before them
    ends their turn, so bandits act and interest is computed as in play."""
    before = (state.active - 1) % len(state.players)
    state = replace(state, active=before, phase=Phase.CARDS)
    return said(state, f"end_turn {state.players[before].name}")


def total_runes(state: MarketState) -> int:
    return state.market.red + state.market.blue + sum(p.total_runes for p in state.players)


def main(colour: Colour, runes: int = 0, *, outpost: bool = False,
         bandit: str | None = None) -> Shelter:
    return Shelter(colour, "main", colour, runes, outpost, bandit)


def outpost(runes: int = 0, colour: Colour | None = None, label: str = "outpost") -> Shelter:
    """A stand-alone outpost shelter; it has a colour only while it holds runes."""
    assert (colour is None) == (runes == 0)
    return Shelter(label, "outpost", colour, runes)


def ruin(colour: Colour, runes: int, bandit: str, label: str = "outpost") -> Shelter:
    return Shelter(label, "ruin", colour, runes, False, bandit)
