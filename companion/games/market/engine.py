"""The rules engine of The Rune Market: pure functions of (state, action).

How each rule of the (translated) rule book is read is written down in
docs/rules-market.md; the comments here only say where the code follows one of
those readings.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any

from companion.core.actions import Action, whole_number
from companion.core.errors import (
    ActionSyntaxError, GameOver, RuleError, SetupError, UnknownName, WrongPhase,
)
from companion.core.events import MESSAGES, Event, event
from companion.core.players import check_names, find_seat
from companion.core.records import evolve

from .actions import (
    ACTIONS, Attach, BuyBandit, BuyOutpost, BuyRune, Collect, Colour, Decline, DoubleSteal,
    Duel, EndTurn, HighCards, MarketSetup, Neutralise, PlayShelter, Ransom, RockPaperScissors,
    Store, Take, Thief,
)
from .content import MarketContent
from .state import (
    COLOURS, Interest, Market, MarketState, Outcome, Phase, Player, Runes, Shelter, TieBreak,
)

MESSAGES.register({
    "market.turn": "Round {round}: {player}'s turn",
    "market.interest_due": "{player} may collect {runes} {colour} rune(s) of interest "
                           "for the {shelter} shelter",
    "market.interest_short": "The market has no more {colour} runes: {player}'s {shelter} "
                             "shelter earns {short} fewer",
    "market.interest": "{player} collects {runes} {colour} rune(s) of interest into the "
                       "{shelter} shelter",
    "market.interest_declined": "{player} declines the interest",
    "market.loot": "{owner}'s bandit takes a {colour} rune from {player}'s {shelter} shelter",
    "market.abandoned": "{player}'s {shelter} shelter is looted empty and abandoned; "
                        "the bandit returns to the market",
    "market.paid_runes": "{player} returns {runes} rune(s) to the market ({detail})",
    "market.paid_cards": "{player} discards number cards {cards} (total {total})",
    "market.outpost_bought": "{player} buys an outpost shelter ({where})",
    "market.bandit_placed": "{player} places a bandit in {victim}'s {shelter} shelter",
    "market.outpost_destroyed": "The bandit destroys {player}'s outpost shelter "
                                "({shelter}): it goes back to the market",
    "market.bandit_idle": "The bandit finds {player}'s outpost shelter ({shelter}) empty: "
                          "nothing to sit on, it returns to the market",
    "market.ransom": "{player} pays a ransom: the bandit leaves the {shelter} shelter",
    "market.neutralised": "{player} neutralises the bandit in the {shelter} shelter with "
                          "an outpost shelter ({how}): both go back to the market",
    "market.ruin_cleared": "{player} takes back the {runes} rune(s) the bandit sat on",
    "market.stored": "{player} puts {count} {colour} rune(s) into the {shelter} shelter",
    "market.attached": "{player} joins the {outpost} outpost shelter to the {main} main "
                       "shelter",
    "market.rune_bought": "{player} buys {runes} {colour} rune(s) from the market",
    "market.shelter_played": "{player} plays a {colour} main shelter",
    "market.double_steal": "{player} discards a main shelter card ({source}) as a double steal",
    "market.table_shelter_discarded": "{player} discards the {colour} main shelter from the "
                                      "table; its {runes} rune(s) are now free",
    "market.outpost_freed": "{player}'s outpost shelter stays as the stand-alone {shelter}",
    "market.thief": "{player} plays a Thief",
    "market.steal_rune": "{player} steals a {colour} rune from {victim}",
    "market.steal_card": "{player} steals a hand card from {victim}; {victim} draws again "
                         "only at the end of their next turn",
    "market.duel_won": "Attack! {player}'s {attack} beats {defender} ({defence})",
    "market.duel_lost": "{defender} defends with {defence} against {player}'s {attack}: "
                        "only the attacking card is discarded",
    "market.duel_nothing": "{player} steals nothing",
    "market.fill_up": "{player} draws {drawn} card(s) and holds {hand}",
    "market.game_over": "The market's last rune is gone: the game ends. Scores: {scores}",
    "market.wins": "{player} wins with {score} rune points",
    "market.wins_tie_break": "{player} wins tie-break {tie_break} ({reason})",
    "market.tie": "{players} tie with {score} rune points: tie-break {tie_break} "
                  "({reason}) decides",
    "market.tie_remains": "Still tied after tie-break {tie_break}: {players}",
})

_TIE_BREAK_REASONS = {
    "I": "more outpost shelters",
    "II": "fewer bandits in their shelters",
    "III": "the highest number card in hand",
    "IV": "best of 3 rock-paper-scissors",
}

_TIE_BREAK_KEYS: tuple[tuple[TieBreak, Callable[[Player], int]], ...] = (
    ("I", lambda p: p.outposts),  # more outpost shelters wins
    ("II", lambda p: -p.bandits),  # more bandits in one's shelters loses
)
"""The tie-breaks the table cards decide, each as the number the most of which wins."""

Handler = Callable[[MarketState, Any, list[Event]], MarketState]


class MarketRules:
    """The Rune Market, for :class:`companion.core.session.Session`."""

    name = "market"
    title = "The Rune Market"
    actions = ACTIONS
    setup_type = MarketSetup

    def __init__(self, content: MarketContent | None = None) -> None:
        if content is not None:
            self.__dict__["content"] = content
        self._turn_handlers: dict[type[Action], Handler] = {
            Collect: self._collect, Decline: self._decline, BuyOutpost: self._buy_outpost,
            BuyBandit: self._buy_bandit, Ransom: self._ransom, Neutralise: self._neutralise,
            Store: self._store, Attach: self._attach, BuyRune: self._buy_rune,
            PlayShelter: self._play_shelter, Thief: self._thief, DoubleSteal: self._double_steal,
            Duel: self._duel, EndTurn: self._end_turn,
        }
        self._result_handlers: dict[type[Action], tuple[str, Handler]] = {
            HighCards: ("high_cards", self._high_cards), RockPaperScissors: ("rps", self._rps),
        }

    @cached_property
    def content(self) -> MarketContent:
        """The deck and its numbers, read from the data files on first use."""
        return MarketContent.load()

    # -- the Rules interface --------------------------------------------------

    def new_game(self, setup: MarketSetup) -> MarketState:
        c = self.content
        names = check_names(setup.players, minimum=c.min_players, maximum=c.max_players,
                            game=self.title)
        first = 0
        if setup.first is not None:
            try:
                first = find_seat(names, setup.first)
            except RuleError as e:
                raise SetupError(f"first: {e}") from None
        market = Market(
            red=c.red if setup.red is None else setup.red,
            blue=c.blue if setup.blue is None else setup.blue,
            outposts=c.outposts if setup.outposts is None else setup.outposts,
            bandits=c.bandits if setup.bandits is None else setup.bandits,
        )
        if market.red + market.blue == 0:
            raise SetupError("the market needs at least one rune: the game ends as soon as "
                             "its last rune is taken")
        players = tuple(Player(n, c.palette[i % len(c.palette)], Runes(), (), c.hand_size)
                        for i, n in enumerate(names))
        return MarketState(players=players, market=market, start=market, active=first,
                           first=first, phase=Phase.PURCHASE, round=1, turn=1)

    def apply(self, state: MarketState, action: Action) -> tuple[MarketState, tuple[Event, ...]]:
        events: list[Event] = []
        if type(action) in self._result_handlers:
            if state.phase is not Phase.TIE_BREAK:
                raise WrongPhase(f"{action.verb}: only to break a tie at the end of the game",
                                 rule="tie-break")
            assert state.outcome is not None
            waits_for, result = self._result_handlers[type(action)]
            if state.outcome.waiting_for != waits_for:
                raise WrongPhase(f"{action.verb}: the tie waits for tie-break "
                                 f"{_next_tie_break(state.outcome)}", rule="tie-break")
            return result(state, action, events), tuple(events)
        handler = self._turn_handlers.get(type(action))
        if handler is None:
            raise RuleError(f"{action.verb!r} is not an action of {self.title}",
                            rule="vocabulary")
        if state.phase is Phase.TIE_BREAK:
            assert state.outcome is not None
            raise WrongPhase(f"{action.verb}: the game has ended in a tie; enter tie-break "
                             f"{_next_tie_break(state.outcome)}", rule="tie-break")
        if state.phase is Phase.OVER:
            assert state.outcome is not None
            raise GameOver(f"{action.verb}: the game is over ({state.outcome.winner} won); "
                           "undo to go back", rule="game over")
        actor = state.players[state.active].name
        # Every turn action names its player first; only the active player acts.
        ref: str = getattr(action, "player")
        named = state.players[find_seat([p.name for p in state.players], ref)].name
        if named != actor:
            raise WrongPhase(f"{action.verb}: it is {actor}'s turn, not {named}'s", rule="turn")
        return handler(state, action, events), tuple(events)

    def finished(self, state: MarketState) -> bool:
        return state.outcome is not None and state.outcome.winner is not None

    def to_json(self, state: MarketState) -> dict[str, Any]:
        c = self.content
        price = c.price(len(state.players))
        return {
            "round": state.round,
            "turn": state.players[state.active].name,
            "turn_number": state.turn,
            "phase": state.phase.value,
            "market": {"red": state.market.red, "blue": state.market.blue,
                       "outposts": state.market.outposts, "bandits": state.market.bandits},
            "start": {"red": state.start.red, "blue": state.start.blue,
                      "outposts": state.start.outposts, "bandits": state.start.bandits},
            "prices": {"outpost_runes": price, "bandit_runes": price,
                       "outpost_cards": c.price_cards, "bandit_cards": c.price_cards,
                       "rune_sums": sorted(c.rune_sums), "ransom_cards": c.ransom_cards,
                       "ransom_runes": c.ransom_runes},
            "interest": [{"shelter": i.shelter, "colour": i.colour, "runes": i.runes}
                         for i in state.interest],
            "interest_total": sum(i.runes for i in state.interest),
            "hand_card_played": state.phase is Phase.CARDS,
            "duelled": list(state.duelled),
            "players": [self._player_json(state, seat) for seat in range(len(state.players))],
            "outcome": _outcome_json(state.outcome),
        }

    def seats(self, state: MarketState) -> list[dict[str, Any]]:
        winner = state.outcome.winner if state.outcome else None
        return [
            {
                "seat": seat + 1,
                "name": p.name,
                "colour": p.colour,
                "team": None,
                "hp": None,
                "max": None,
                "tier": None,
                "defeated": False,
                "active": seat == state.active and not state.over,
                "winner": p.name == winner,
                "over": self.finished(state),
                "runes": p.total_runes,
            }
            for seat, p in enumerate(state.players)
        ]

    # -- scores -----------------------------------------------------------------

    def score(self, player: Player) -> int:
        """Rune points: runes 1, main shelters 0, outposts 2, bandits in one's shelters -1."""
        c = self.content
        return (player.total_runes * c.rune_points + player.mains * c.main_shelter_points
                + player.outposts * c.outpost_points + player.bandits * c.bandit_points)

    def _player_json(self, state: MarketState, seat: int) -> dict[str, Any]:
        p = state.players[seat]
        return {
            "seat": seat + 1,
            "name": p.name,
            "colour": p.colour,
            "active": seat == state.active and not state.over,
            "runes": {
                "red": p.runes("red"),
                "blue": p.runes("blue"),
                "total": p.total_runes,
                "free": {"red": p.free.red, "blue": p.free.blue},
                "by_shelter": {s.label: s.runes for s in p.shelters},
                "frozen": p.frozen("red") + p.frozen("blue"),
            },
            "shelters": [
                {"label": s.label, "kind": s.kind, "colour": s.colour, "runes": s.runes,
                 "outpost": s.outposts == 1, "bandit": s.bandit, "frozen": s.occupied}
                for s in p.shelters
            ],
            "outposts": p.outposts,
            "bandits": p.bandits,
            "hand_count": p.hand,
            "score": self.score(p),
        }

    # -- phase 1: the beginning of a turn, interest ---------------------------------

    def _begin_turn(self, state: MarketState, events: list[Event]) -> MarketState:
        """Bandits act, then the interest due is computed and shown (not yet paid)."""
        seat = state.active
        p = state.players[seat]
        events.append(event("market.turn", round=state.round, player=p.name))
        for shelter in p.shelters:
            if shelter.bandit is None:
                continue
            owner_seat = find_seat([q.name for q in state.players], shelter.bandit)
            p = state.players[seat]
            if shelter.runes == 0:
                # Checked before the bandit loots, so a shelter looted to its last rune
                # is abandoned only a turn later, giving its owner one turn to save it.
                events.append(event("market.abandoned", player=p.name, shelter=shelter.label))
                state = evolve(state.with_player(seat, p.without_shelter(shelter.label)),
                               market=state.market.plus("bandits", 1))
                continue
            assert shelter.colour is not None
            events.append(event("market.loot", owner=shelter.bandit, colour=shelter.colour,
                                player=p.name, shelter=shelter.label))
            state = state.with_player(seat, p.with_shelter(evolve(shelter,
                                                                  runes=shelter.runes - 1)))
            owner = state.players[owner_seat]
            state = state.with_player(owner_seat,
                                      evolve(owner, free=owner.free.plus(shelter.colour, 1)))
        left = state.market.runes
        due: list[Interest] = []
        c = self.content
        for shelter in state.players[seat].shelters:
            if shelter.occupied or shelter.runes == 0 or shelter.colour is None:
                continue
            earned = (c.interest_with_outpost if shelter.kind == "main" and shelter.outpost
                      else c.interest)
            paid = min(earned, left[shelter.colour])
            left = left.plus(shelter.colour, -paid)
            if paid:
                due.append(Interest(shelter.label, shelter.colour, paid))
                events.append(event("market.interest_due", player=p.name, runes=paid,
                                    colour=shelter.colour, shelter=shelter.label))
            if paid < earned:
                events.append(event("market.interest_short", player=p.name,
                                    colour=shelter.colour, shelter=shelter.label,
                                    short=earned - paid))
        return evolve(state, interest=tuple(due),
                      phase=Phase.INTEREST if due else Phase.PURCHASE)

    def _collect(self, state: MarketState, a: Collect, events: list[Event]) -> MarketState:
        if state.phase is not Phase.INTEREST:
            raise WrongPhase(f"collect: {_active(state).name} has no interest to collect "
                             "(interest is taken at the beginning of the turn, before anything "
                             "else)", rule="interest")
        seat = state.active
        for due in state.interest:
            p = state.players[seat]
            shelter = p.shelter(due.shelter)
            assert shelter is not None
            state = evolve(state.with_player(seat, p.with_shelter(
                evolve(shelter, runes=shelter.runes + due.runes))),
                market=state.market.plus(due.colour, -due.runes))
            events.append(event("market.interest", player=p.name, runes=due.runes,
                                colour=due.colour, shelter=due.shelter))
        state = evolve(state, interest=(), phase=Phase.PURCHASE)
        return self._check_end(state, events)

    def _decline(self, state: MarketState, a: Decline, events: list[Event]) -> MarketState:
        if state.phase is not Phase.INTEREST:
            raise WrongPhase(f"decline: {_active(state).name} has no interest to decline",
                             rule="interest")
        events.append(event("market.interest_declined", player=_active(state).name))
        return evolve(state, interest=(), phase=Phase.PURCHASE)

    # -- paying -----------------------------------------------------------------------

    def _pay(self, state: MarketState, verb: str, runes: Colour | None, count: int,
             cards: tuple[int, ...], at_least: int, what: str,
             events: list[Event]) -> MarketState:
        """Pay ``count`` runes of the colour ``runes``, or number ``cards`` summing to
        ``at_least`` or more; exactly one of the two."""
        if (runes is None) == (not cards):
            raise RuleError(f"{verb}: pay {what} either with {count} runes of one colour "
                            f"(runes=red or runes=blue) or with number cards summing to "
                            f"{at_least} or more (cards=...), not both or neither",
                            rule="payment")
        if runes is not None:
            return self._pay_runes(state, verb, Runes().plus(runes, count), events)
        total = self._check_cards(state, verb, cards)
        if total < at_least:
            raise RuleError(f"{verb}: number cards {_cards(cards)} sum to {total}; "
                            f"{what} costs {at_least} or more", rule="card sum")
        return self._discard(state, cards, events)

    def _pay_runes(self, state: MarketState, verb: str, runes: Runes,
                   events: list[Event]) -> MarketState:
        """Return ``runes`` of the active player's to the market (before any hand card)."""
        p = _active(state)
        if state.phase is Phase.CARDS:
            raise WrongPhase(f"{verb}: {p.name} has played a hand card this turn, and after "
                             "the first hand card nothing may be paid with runes",
                             rule="runes before cards")
        details = []
        for colour in COLOURS:
            if runes[colour]:
                p, taken = _take_runes(p, colour, runes[colour], verb)
                details.append(f"{runes[colour]} {colour} from {taken}")
        events.append(event("market.paid_runes", player=p.name, runes=runes.total,
                            detail="; ".join(details)))
        market = state.market.plus("red", runes.red).plus("blue", runes.blue)
        return evolve(state.with_player(state.active, p), market=market)

    def _check_cards(self, state: MarketState, verb: str, cards: tuple[int, ...]) -> int:
        """The sum of number cards the active player says they discard, once checked."""
        c = self.content
        p = _active(state)
        if not cards:
            raise RuleError(f"{verb}: name the number cards discarded (cards=5,10)",
                            rule="cards")
        for value in cards:
            if not c.number_min <= value <= c.number_max:
                raise RuleError(f"{verb}: there is no number card {value}; number cards are "
                                f"{c.number_min} to {c.number_max}", rule="card values")
        if len(cards) > p.hand:
            raise RuleError(f"{verb}: {p.name} holds {p.hand} card(s), not {len(cards)}",
                            rule="hand count")
        return sum(cards)

    def _discard(self, state: MarketState, cards: tuple[int, ...],
                 events: list[Event]) -> MarketState:
        p = _active(state)
        events.append(event("market.paid_cards", player=p.name, cards=_cards(cards),
                            total=sum(cards)))
        return self._play_cards(state, len(cards))

    def _play_cards(self, state: MarketState, count: int) -> MarketState:
        """The active player plays ``count`` hand cards: from now on, no paying with runes."""
        p = _active(state)
        return evolve(state.with_player(state.active, evolve(p, hand=p.hand - count)),
                      phase=Phase.CARDS)

    def _hand_card(self, state: MarketState, verb: str) -> MarketState:
        p = _active(state)
        if p.hand < 1:
            raise RuleError(f"{verb}: {p.name} has no cards in hand", rule="hand count")
        return self._play_cards(state, 1)

    # -- phase 2: purchases -----------------------------------------------------------

    def _buy_outpost(self, state: MarketState, a: BuyOutpost, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        if state.market.outposts < 1:
            raise RuleError("buy_outpost: the market has no outpost shelter left",
                            rule="market stock")
        place = _outpost_place(_active(state), a.to, a.verb)
        c = self.content
        state = self._pay(state, a.verb, a.runes, c.price(len(state.players)), a.cards,
                          c.price_cards, "an outpost shelter", events)
        p = _active(state)
        if place is None:
            label = _free_outpost_label(p)
            p = p.with_shelter(Shelter(label, "outpost", None))
            where = f"stand-alone, as {label}"
        else:
            main = p.shelter(place)
            assert main is not None
            p = p.with_shelter(evolve(main, outpost=True))
            where = f"joined to the {place} main shelter"
        events.append(event("market.outpost_bought", player=p.name, where=where))
        return evolve(state.with_player(state.active, p),
                      market=state.market.plus("outposts", -1))

    def _buy_bandit(self, state: MarketState, a: BuyBandit, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        if state.market.bandits < 1:
            raise RuleError("buy_bandit: the market has no bandit left", rule="market stock")
        buyer = _active(state)
        victim_seat = find_seat([p.name for p in state.players], a.victim)
        victim = state.players[victim_seat]
        if victim.name == buyer.name:
            raise RuleError("buy_bandit: a bandit goes into another player's shelter",
                            rule="bandit target")
        target = _shelter(victim, a.shelter, a.verb)
        if target.kind == "ruin":
            raise RuleError(f"buy_bandit: {victim.name}'s {target.label} is no shelter any "
                            "more, only runes a bandit already sits on", rule="bandit target")
        if target.occupied:
            raise RuleError(f"buy_bandit: a bandit ({target.bandit}'s) already occupies "
                            f"{victim.name}'s {target.label} shelter", rule="bandit target")
        c = self.content
        state = self._pay(state, a.verb, a.runes, c.price(len(state.players)), a.cards,
                          c.price_cards, "a bandit", events)
        events.append(event("market.bandit_placed", player=buyer.name, victim=victim.name,
                            shelter=target.label))
        market = state.market.plus("bandits", -1)
        if target.outposts:
            # "A bandit who finds an outpost shelter automatically destroys it."
            events.append(event("market.outpost_destroyed", player=victim.name,
                                shelter=target.label))
            market = market.plus("outposts", 1)
        if target.kind == "main":
            victim = victim.with_shelter(evolve(target, outpost=False, bandit=buyer.name))
        elif target.runes:
            # "... but the bandit remains in the shelter or on the runes."
            victim = victim.with_shelter(evolve(target, kind="ruin", bandit=buyer.name))
        else:
            events.append(event("market.bandit_idle", player=victim.name, shelter=target.label))
            victim = victim.without_shelter(target.label)
            market = market.plus("bandits", 1)
        return evolve(state.with_player(victim_seat, victim), market=market)

    # -- getting rid of a bandit ----------------------------------------------------------

    def _ransom(self, state: MarketState, a: Ransom, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        p = _active(state)
        target = _occupied(p, a.shelter, a.verb)
        c = self.content
        runes = Runes(a.red, a.blue)
        if bool(a.cards) == bool(runes.total):
            raise RuleError(f"ransom: pay either number cards summing to {c.ransom_cards} or "
                            f"more (cards=...) or {c.ransom_runes} runes from outside the "
                            "occupied shelter (red=N blue=N), not both or neither",
                            rule="payment")
        if a.cards:
            state = self._pay(state, a.verb, None, 0, a.cards, c.ransom_cards, "a ransom",
                              events)
        else:
            if runes.total != c.ransom_runes:
                raise RuleError(f"ransom: the ransom in runes is exactly {c.ransom_runes} "
                                f"runes, not {runes.total}", rule="ransom runes")
            # Frozen runes cannot be spent, so those of the occupied shelter never count.
            state = self._pay_runes(state, a.verb, runes, events)
        events.append(event("market.ransom", player=p.name, shelter=target.label))
        return self._evict(state, target.label, events)

    def _neutralise(self, state: MarketState, a: Neutralise, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        p = _active(state)
        target = _occupied(p, a.shelter, a.verb)
        c = self.content
        if a.runes is not None or a.cards:
            if a.outpost is not None:
                raise RuleError("neutralise: use an outpost you own (outpost=...) or buy one "
                                "(runes=... or cards=...), not both", rule="payment")
            if state.market.outposts < 1:
                raise RuleError("neutralise: the market has no outpost shelter to buy",
                                rule="market stock")
            # Bought and at once returned: the market's outposts do not change.
            state = self._pay(state, a.verb, a.runes, c.price(len(state.players)), a.cards,
                              c.price_cards, "an outpost shelter", events)
            how = "bought from the market"
        else:
            state, how = _give_up_outpost(state, a.outpost)
            state = evolve(state, market=state.market.plus("outposts", 1))
        events.append(event("market.neutralised", player=p.name, shelter=target.label, how=how))
        return self._evict(state, target.label, events)

    def _evict(self, state: MarketState, label: str, events: list[Event]) -> MarketState:
        """The bandit leaves the active player's shelter ``label`` for the market."""
        p = _active(state)
        shelter = p.shelter(label)
        assert shelter is not None and shelter.occupied
        if shelter.kind == "ruin":
            assert shelter.colour is not None
            if shelter.runes:
                events.append(event("market.ruin_cleared", player=p.name, runes=shelter.runes))
            p = evolve(p.without_shelter(label), free=p.free.plus(shelter.colour, shelter.runes))
        else:
            p = p.with_shelter(evolve(shelter, bandit=None))
        return evolve(state.with_player(state.active, p), market=state.market.plus("bandits", 1))

    # -- any time on one's turn ------------------------------------------------------------

    def _store(self, state: MarketState, a: Store, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        p = _active(state)
        shelter = _shelter(p, a.shelter, a.verb)
        if shelter.kind == "ruin":
            raise RuleError(f"store: {shelter.label} is no shelter any more, only runes under "
                            "a bandit", rule="store")
        colour = shelter.colour or a.colour or _only_free_colour(p, a.verb)
        if a.colour is not None and a.colour != colour:
            raise RuleError(f"store: the {shelter.label} shelter holds {colour} runes only",
                            rule="shelter colour")
        if p.free[colour] < a.count:
            raise RuleError(f"store: {p.name} has {p.free[colour]} free {colour} rune(s), "
                            f"not {a.count}", rule="free runes")
        p = evolve(p.with_shelter(evolve(shelter, colour=colour, runes=shelter.runes + a.count)),
                   free=p.free.plus(colour, -a.count))
        events.append(event("market.stored", player=p.name, count=a.count, colour=colour,
                            shelter=shelter.label))
        return state.with_player(state.active, p)

    def _attach(self, state: MarketState, a: Attach, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        p = _active(state)
        outpost = _shelter(p, a.outpost, a.verb)
        if outpost.kind != "outpost":
            raise RuleError(f"attach: {outpost.label} is not a stand-alone outpost shelter",
                            rule="attach")
        p = _join(p, outpost, a.main, a.verb)
        events.append(event("market.attached", player=p.name, outpost=outpost.label,
                            main=a.main))
        return state.with_player(state.active, p)

    # -- phase 3: hand cards -----------------------------------------------------------------

    def _buy_rune(self, state: MarketState, a: BuyRune, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        c = self.content
        total = self._check_cards(state, a.verb, a.cards)
        if total not in c.rune_sums:
            sums = ", ".join(map(str, sorted(c.rune_sums)))
            raise RuleError(f"buy_rune: number cards {_cards(a.cards)} sum to {total}; a rune "
                            f"costs a sum of exactly {sums}", rule="card sum")
        count = c.rune_sums[total]
        if state.market.runes[a.colour] < count:
            raise RuleError(f"buy_rune: the market has {state.market.runes[a.colour]} "
                            f"{a.colour} rune(s) left, not {count}", rule="market stock")
        state = self._discard(state, a.cards, events)
        p = _active(state)
        events.append(event("market.rune_bought", player=p.name, runes=count, colour=a.colour))
        p = evolve(p, free=p.free.plus(a.colour, count))
        state = evolve(state.with_player(state.active, p),
                       market=state.market.plus(a.colour, -count))
        return self._check_end(state, events)

    def _play_shelter(self, state: MarketState, a: PlayShelter,
                      events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        p = _active(state)
        if p.shelter(a.colour) is not None:
            raise RuleError(f"shelter: {p.name} already has a {a.colour} main shelter (one "
                            "of each colour at most); use the card as a double steal",
                            rule="one main per colour")
        state = self._hand_card(state, a.verb)
        p = _active(state).with_shelter(Shelter(a.colour, "main", a.colour))
        events.append(event("market.shelter_played", player=p.name, colour=a.colour))
        if p.shelter_count > 2 or a.outpost is not None or a.to is not None:
            outpost, main = _joining(p, a.outpost, a.to)
            p = _join(p, outpost, main, a.verb)
            events.append(event("market.attached", player=p.name, outpost=outpost.label,
                                main=main))
        return state.with_player(state.active, p)

    def _thief(self, state: MarketState, a: Thief, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        state = self._hand_card(state, a.verb)
        events.append(event("market.thief", player=_active(state).name))
        return _steal(state, a.victim, a.take, a.verb, events)

    def _double_steal(self, state: MarketState, a: DoubleSteal,
                      events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        if (a.victim2 is None) != (a.take2 is None):
            raise ActionSyntaxError("double_steal: the second theft needs both VICTIM2 and "
                                    "TAKE2 (or leave both out)")
        p = _active(state)
        if a.table is None:
            state = self._hand_card(state, a.verb)
            events.append(event("market.double_steal", player=p.name, source="from the hand"))
        else:
            state = _discard_table_shelter(state, a.table, events)
        state = _steal(state, a.victim, a.take, a.verb, events)
        if a.victim2 is not None and a.take2 is not None:
            state = _steal(state, a.victim2, a.take2, a.verb, events)
        return state

    def _duel(self, state: MarketState, a: Duel, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        c = self.content
        attacker = _active(state)
        seat = find_seat([p.name for p in state.players], a.defender)
        defender = state.players[seat]
        if defender.name == attacker.name:
            raise RuleError("duel: challenge another player", rule="duel target")
        if defender.name in state.duelled:
            raise RuleError(f"duel: {attacker.name} has already challenged {defender.name} "
                            "this round (once per player per round)", rule="duel once")
        if (a.defence is not None) == a.conceded:
            raise RuleError("duel: give the defender's card (DEFENCE) or say the defender "
                            "gave up (conceded), one of the two", rule="duel")
        for value, who in ((a.attack, attacker.name), (a.defence, defender.name)):
            if value is not None and not c.number_min <= value <= c.number_max:
                raise RuleError(f"duel: {who} cannot show a {value}; number cards are "
                                f"{c.number_min} to {c.number_max}", rule="card values")
        if a.defence is not None and defender.hand < 1:
            raise RuleError(f"duel: {defender.name} has no card in hand to show",
                            rule="hand count")
        won = a.defence is None or a.defence < a.attack
        if won and a.take is None:
            raise RuleError(f"duel: {attacker.name} wins; say what they steal from "
                            f"{defender.name}: take=red, take=blue, take=card or take=nothing",
                            rule="duel steal")
        if not won and a.take is not None:
            raise RuleError(f"duel: {defender.name} defends ({a.defence} against {a.attack}), "
                            f"so {attacker.name} steals nothing: leave out take=",
                            rule="duel steal")
        state = self._hand_card(state, a.verb)
        state = evolve(state, duelled=state.duelled + (defender.name,))
        if not won:
            events.append(event("market.duel_lost", player=attacker.name, attack=a.attack,
                                defender=defender.name, defence=a.defence))
            return state
        events.append(event("market.duel_won", player=attacker.name, attack=a.attack,
                            defender=defender.name,
                            defence="gave up" if a.defence is None else a.defence))
        if a.take == "nothing":
            events.append(event("market.duel_nothing", player=attacker.name))
            return state
        assert a.take is not None
        return _steal(state, defender.name, a.take, a.verb, events)

    # -- phase 4: fill up and pass ---------------------------------------------------------

    def _end_turn(self, state: MarketState, a: EndTurn, events: list[Event]) -> MarketState:
        _after_interest(state, a.verb)
        p = _active(state)
        if state.phase is not Phase.CARDS and p.hand > 0 and not a.cannot_play:
            raise RuleError(f"end_turn: {p.name} must play at least one hand card every turn "
                            "(say cannot_play if none of them can be played)",
                            rule="one hand card")
        drawn = max(0, self.content.hand_size - p.hand)
        p = evolve(p, hand=p.hand + drawn)
        events.append(event("market.fill_up", player=p.name, drawn=drawn, hand=p.hand))
        state = state.with_player(state.active, p)
        n = len(state.players)
        nxt = (state.active + 1) % n
        state = evolve(state, active=nxt, turn=state.turn + 1,
                       round=state.round + (nxt == state.first), duelled=(), interest=())
        return self._begin_turn(state, events)

    # -- the end ----------------------------------------------------------------------------

    def _check_end(self, state: MarketState, events: list[Event]) -> MarketState:
        """The game ends at once when the market's last rune has been taken."""
        if state.market.red or state.market.blue:
            return state
        scores = tuple(self.score(p) for p in state.players)
        events.append(event("market.game_over", scores=", ".join(
            f"{p.name} {s}" for p, s in zip(state.players, scores))))
        top = max(scores)
        tied = tuple(p.name for p, s in zip(state.players, scores) if s == top)
        outcome = Outcome(scores=scores, tied=tied, contenders=tied)
        if len(tied) == 1:
            events.append(event("market.wins", player=tied[0], score=top))
            return _settle(state, evolve(outcome, winner=tied[0]))
        events.append(event("market.tie", players=", ".join(tied), score=top, tie_break="I",
                            reason=_TIE_BREAK_REASONS["I"]))
        by_name = {p.name: p for p in state.players}
        for tie_break, key in _TIE_BREAK_KEYS:
            outcome = _narrow(outcome, tie_break, lambda name: key(by_name[name]), events)
            if outcome.winner is not None:
                break
        return _settle(state, outcome)

    def _high_cards(self, state: MarketState, a: HighCards, events: list[Event]) -> MarketState:
        outcome = state.outcome
        assert outcome is not None
        c = self.content
        names = [p.name for p in state.players]
        values: dict[str, int] = {}
        for entry in a.cards:
            ref, sep, raw = entry.partition(":")
            value = whole_number(raw.strip())
            if not sep or value is None:
                raise ActionSyntaxError(f"high_cards: write each entry as PLAYER:VALUE "
                                        f"(Ann:13, or Ann:0 for no number card), got {entry!r}")
            name = names[find_seat(names, ref)]
            if name in values:
                raise RuleError(f"high_cards: {name} is given twice", rule="tie-break")
            if value and not c.number_min <= value <= c.number_max:
                raise RuleError(f"high_cards: there is no number card {value}; number cards "
                                f"are {c.number_min} to {c.number_max} (0: none in hand)",
                                rule="card values")
            values[name] = value
        if set(values) != set(outcome.contenders):
            raise RuleError(f"high_cards: give the highest number card of exactly the tied "
                            f"players: {', '.join(outcome.contenders)}", rule="tie-break")
        outcome = evolve(outcome, high_cards=tuple((n, values[n]) for n in outcome.contenders))
        return _settle(state, _narrow(outcome, "III", values.__getitem__, events))

    def _rps(self, state: MarketState, a: RockPaperScissors, events: list[Event]) -> MarketState:
        outcome = state.outcome
        assert outcome is not None
        names = [p.name for p in state.players]
        winner = names[find_seat(names, a.winner)]
        if winner not in outcome.contenders:
            raise RuleError(f"rps: {winner} is not in the tie; it is between "
                            f"{', '.join(outcome.contenders)}", rule="tie-break")
        return _settle(state, _narrow(outcome, "IV", lambda name: name == winner, events))


# -- module helpers ---------------------------------------------------------------------


def _active(state: MarketState) -> Player:
    return state.players[state.active]


def _after_interest(state: MarketState, verb: str) -> None:
    """Interest comes first: nothing else happens while it waits to be collected."""
    if state.phase is Phase.INTEREST:
        p = _active(state)
        due = ", ".join(f"{i.runes} {i.colour}" for i in state.interest)
        raise WrongPhase(f"{verb}: {p.name} first takes the interest due ({due}): "
                         f"collect {p.name}, or decline {p.name}", rule="interest first")


def _cards(cards: Iterable[int]) -> str:
    return "+".join(map(str, cards))


def _shelter(player: Player, label: str, verb: str) -> Shelter:
    shelter = player.shelter(label)
    if shelter is None:
        known = ", ".join(s.label for s in player.shelters) or "none"
        raise UnknownName(f"{verb}: {player.name} has no shelter {label!r} "
                          f"(shelters: {known})")
    return shelter


def _occupied(player: Player, label: str, verb: str) -> Shelter:
    shelter = _shelter(player, label, verb)
    if not shelter.occupied:
        raise RuleError(f"{verb}: no bandit occupies {player.name}'s {shelter.label} shelter",
                        rule="no bandit")
    return shelter


def _take_runes(player: Player, colour: Colour, count: int, verb: str) -> tuple[Player, str]:
    """``player`` without ``count`` runes of ``colour`` that are not frozen, and where from.

    Free runes go first, then the unoccupied shelters holding the most, so a
    shelter is emptied (and stops earning interest) only when nothing else is left.
    """
    if player.spendable(colour) < count:
        frozen = player.frozen(colour)
        note = f" ({frozen} more are frozen under a bandit)" if frozen else ""
        raise RuleError(f"{verb}: {player.name} has {player.spendable(colour)} {colour} "
                        f"rune(s) that can be used, not {count}{note}", rule="runes")
    sources: list[str] = []
    from_free = min(count, player.free[colour])
    if from_free:
        player = evolve(player, free=player.free.plus(colour, -from_free))
        sources.append(f"{from_free} free")
    left = count - from_free
    shelters = sorted((s for s in player.shelters if s.colour == colour and not s.occupied
                       and s.runes), key=lambda s: -s.runes)
    for shelter in shelters:
        if not left:
            break
        taken = min(left, shelter.runes)
        left -= taken
        runes = shelter.runes - taken
        # An empty stand-alone outpost has no colour until a rune is put in it again.
        colour_now = None if shelter.kind == "outpost" and not runes else shelter.colour
        player = player.with_shelter(evolve(shelter, runes=runes, colour=colour_now))
        sources.append(f"{taken} from {shelter.label}")
    return player, ", ".join(sources)


def _steal(state: MarketState, victim_ref: str, take: Take, verb: str,
           events: list[Event]) -> MarketState:
    """The active player steals a rune of a colour, or a hand card, from another player."""
    thief = _active(state)
    seat = find_seat([p.name for p in state.players], victim_ref)
    victim = state.players[seat]
    if victim.name == thief.name:
        raise RuleError(f"{verb}: steal from another player, not from {thief.name}",
                        rule="steal target")
    if take == "card":
        if victim.hand < 1:
            raise RuleError(f"{verb}: {victim.name} has no hand card to steal",
                            rule="steal card")
        victim = evolve(victim, hand=victim.hand - 1)
        thief = evolve(thief, hand=thief.hand + 1)
        events.append(event("market.steal_card", player=thief.name, victim=victim.name))
    else:
        victim, _ = _take_runes(victim, take, 1, verb)
        thief = evolve(thief, free=thief.free.plus(take, 1))
        events.append(event("market.steal_rune", player=thief.name, colour=take,
                            victim=victim.name))
    return state.with_player(seat, victim).with_player(state.active, thief)


def _free_outpost_label(player: Player) -> str:
    labels = {s.label for s in player.shelters}
    return next(label for label in ("outpost", *(f"outpost{n}" for n in range(2, 99)))
                if label not in labels)


def _outpost_place(player: Player, to: Colour | None, verb: str) -> Colour | None:
    """Where a new outpost goes: the main shelter it joins, or None for stand-alone."""
    if to is not None:
        _check_joinable(player, None, to, verb)
        return to
    if player.shelter_count < 2:
        return None
    free = [s.label for s in player.shelters
            if s.kind == "main" and not s.outpost and not s.occupied]
    if len(free) == 1:
        # "Once you have two main shelters, you must connect your outer shelters".
        return free[0]  # type: ignore[return-value]
    if not free:
        raise RuleError(f"{verb}: {player.name} has two shelters already and no main shelter "
                        "free to take an outpost (one outpost each, none in an occupied one)",
                        rule="two shelters")
    raise RuleError(f"{verb}: {player.name} has two shelters: say which main shelter the "
                    "outpost joins (to=red or to=blue)", rule="two shelters")


def _check_joinable(player: Player, outpost: Shelter | None, main: Colour, verb: str) -> Shelter:
    """The main shelter ``main`` if ``outpost`` (or a new empty one) may join it."""
    shelter = player.shelter(main)
    if shelter is None or shelter.kind != "main":
        raise RuleError(f"{verb}: {player.name} has no {main} main shelter", rule="join")
    if shelter.outpost:
        raise RuleError(f"{verb}: {player.name}'s {main} main shelter already has its outpost "
                        "(one at a time)", rule="one outpost per main")
    if shelter.occupied:
        raise RuleError(f"{verb}: a bandit occupies {player.name}'s {main} main shelter and "
                        "would destroy the outpost at once", rule="join")
    if outpost is not None and outpost.colour not in (None, main):
        raise RuleError(f"{verb}: the {outpost.label} outpost holds {outpost.colour} runes and "
                        f"cannot join the {main} main shelter", rule="shelter colour")
    return shelter


def _join(player: Player, outpost: Shelter, main: Colour, verb: str) -> Player:
    """``player`` with the stand-alone ``outpost`` joined to their ``main`` shelter."""
    shelter = _check_joinable(player, outpost, main, verb)
    joined = evolve(shelter, outpost=True, runes=shelter.runes + outpost.runes)
    return player.without_shelter(outpost.label).with_shelter(joined)


def _joining(player: Player, outpost: str | None, to: Colour | None) -> tuple[Shelter, Colour]:
    """Which stand-alone outpost joins which main shelter when a main shelter is played."""
    outposts = [s for s in player.shelters if s.kind == "outpost"
                and (outpost is None or s.label == outpost.strip().casefold())]
    mains = [s for s in player.shelters if s.kind == "main" and not s.outpost
             and not s.occupied and (to is None or s.label == to)]
    pairs = [(o, m.label) for o in outposts for m in mains if o.colour in (None, m.colour)]
    if len(pairs) == 1:
        return pairs[0]  # type: ignore[return-value]
    if not pairs:
        why = (f"{player.name} would have more than two shelters, and "
               if player.shelter_count > 2 else "")
        raise RuleError(f"shelter: {why}no stand-alone outpost can join a free main shelter "
                        "of its colour (an occupied one, or one with an outpost, takes none)",
                        rule="two shelters")
    choices = "; ".join(f"outpost={o.label} to={m}" for o, m in pairs)
    raise RuleError(f"shelter: say which outpost joins which main shelter: {choices}",
                    rule="two shelters")


def _give_up_outpost(state: MarketState, ref: str | None) -> tuple[MarketState, str]:
    """The active player hands an outpost they own back (to neutralise a bandit)."""
    p = _active(state)
    owned = [s for s in p.shelters if s.outposts]
    if ref is not None:
        owned = [s for s in owned if s.label == ref.strip().casefold()]
        if not owned:
            raise RuleError(f"neutralise: {p.name} has no outpost shelter at {ref!r}",
                            rule="neutralise")
    if not owned:
        raise RuleError(f"neutralise: {p.name} owns no outpost shelter; buy one to neutralise "
                        "the bandit (runes=... or cards=...)", rule="neutralise")
    if len(owned) > 1:
        raise RuleError("neutralise: say which outpost shelter is used: "
                        + " or ".join(f"outpost={s.label}" for s in owned), rule="neutralise")
    shelter = owned[0]
    if shelter.kind == "main":
        p = p.with_shelter(evolve(shelter, outpost=False))
        how = f"the one joined to the {shelter.label} main shelter"
    else:
        # The card goes back; its runes stay with the player.
        p = p.without_shelter(shelter.label)
        if shelter.colour is not None:
            p = evolve(p, free=p.free.plus(shelter.colour, shelter.runes))
        how = f"the stand-alone {shelter.label}"
    return state.with_player(state.active, p), how


def _discard_table_shelter(state: MarketState, colour: Colour,
                           events: list[Event]) -> MarketState:
    """A main shelter on the table discarded as a double steal, at the beginning of a turn."""
    p = _active(state)
    if state.phase is Phase.CARDS:
        raise WrongPhase("double_steal: a main shelter is discarded from the table only at the "
                         "beginning of the turn, before the first hand card",
                         rule="table double steal")
    shelter = _shelter(p, colour, "double_steal")
    if shelter.kind != "main":
        raise RuleError(f"double_steal: {p.name} has no {colour} main shelter on the table",
                        rule="table double steal")
    if shelter.occupied:
        raise RuleError(f"double_steal: a bandit occupies the {colour} main shelter; it "
                        "leaves only by ransom, an outpost, or when the shelter is looted",
                        rule="table double steal")
    events.append(event("market.double_steal", player=p.name, source=f"the {colour} main "
                        "shelter from the table"))
    events.append(event("market.table_shelter_discarded", player=p.name, colour=colour,
                        runes=shelter.runes))
    p = evolve(p.without_shelter(colour), free=p.free.plus(colour, shelter.runes))
    if shelter.outpost:
        # The outpost "remains until it is destroyed by a bandit": it stands alone now.
        label = _free_outpost_label(p)
        p = p.with_shelter(Shelter(label, "outpost", None))
        events.append(event("market.outpost_freed", player=p.name, shelter=label))
    return state.with_player(state.active, p)


def _only_free_colour(player: Player, verb: str) -> Colour:
    """The colour of the runes to put into an empty outpost, when only one is possible."""
    colours = [c for c in COLOURS if player.free[c]]
    if len(colours) == 1:
        return colours[0]
    if not colours:
        raise RuleError(f"{verb}: {player.name} has no free runes", rule="free runes")
    raise RuleError(f"{verb}: say which colour goes into the empty outpost (colour=red or "
                    "colour=blue)", rule="shelter colour")


def _narrow(outcome: Outcome, tie_break: TieBreak, value: Callable[[str], int],
            events: list[Event]) -> Outcome:
    """One tie-break: the contenders with the highest ``value`` stay; one left has won."""
    best = max(value(n) for n in outcome.contenders)
    contenders = tuple(n for n in outcome.contenders if value(n) == best)
    if len(contenders) > 1:
        events.append(event("market.tie_remains", tie_break=tie_break,
                            players=", ".join(contenders)))
        return evolve(outcome, contenders=contenders)
    events.append(event("market.wins_tie_break", player=contenders[0], tie_break=tie_break,
                        reason=_TIE_BREAK_REASONS[tie_break]))
    return evolve(outcome, contenders=contenders, winner=contenders[0], tie_break=tie_break)


def _settle(state: MarketState, outcome: Outcome) -> MarketState:
    """The game ended: over with a winner, else waiting for the next tie-break's result."""
    return evolve(state, outcome=outcome, interest=(),
                  phase=Phase.TIE_BREAK if outcome.winner is None else Phase.OVER)


def _next_tie_break(outcome: Outcome) -> str:
    """The tie-break the table must enter, and how."""
    if outcome.waiting_for == "rps":
        return "IV, the rock-paper-scissors winner: rps NAME"
    return ("III, the tied players' highest number cards: high_cards "
            + " ".join(f"{n}:VALUE" for n in outcome.contenders))


def _outcome_json(outcome: Outcome | None) -> dict[str, Any] | None:
    if outcome is None:
        return None
    return {
        "winner": outcome.winner,
        "tie_break": outcome.tie_break,
        "decided_by": ("the highest score" if outcome.winner and outcome.tie_break is None
                       else _TIE_BREAK_REASONS.get(outcome.tie_break or "")),
        "scores": list(outcome.scores),
        "tied": list(outcome.tied),
        "contenders": list(outcome.contenders),
        "high_cards": {n: v for n, v in outcome.high_cards},
        "waiting_for": outcome.waiting_for,
    }


RULES = MarketRules()
