"""The rules engine of Runes of Zun: pure functions of (state, action).

How each rule of the rule book is read is written down in docs/rules-zun.md;
the comments here only say where the code follows one of those readings.
"""

from __future__ import annotations

import random
from functools import cached_property
from typing import Any, Callable

from companion.core.actions import Action
from companion.core.errors import (
    GameOver, RuleError, SetupError, UnknownName, WrongPhase,
)
from companion.core.events import MESSAGES, Event, event
from companion.core.records import evolve
from companion.core.players import check_names, find_seat

from .actions import (
    ACTIONS, AddEffect, Damage, Defeat, DiscardEffect, Heal, Mulligan, Next, Overdraw,
    Purge, Revive, Scramble, Scry, SetHp, Swap, Travel, Underdraw, ZunSetup,
)
from .content import Location, ZunContent
from .state import Effect, Locations, Phase, Player, Team, ZunState

MESSAGES.register({
    "zun.damage": "{player} takes {amount} damage: {before} → {after}",
    "zun.prevented": "{player}'s {effect} prevents {amount} damage",
    "zun.heal": "{player} heals {gained}: {before} → {after}",
    "zun.tier_cap": "{player}'s heal stops at {after}: healing never moves the tracker up "
                    "out of the {low}-{high} tier",
    "zun.max_cap": "{player}'s heal stops at the maximum of {after} HP",
    "zun.set": "{player}'s HP is set to {after} (was {before})",
    "zun.overdraw": "{player} overdraws by {cards}: {before} → {after} "
                    "(Overdraw comes first: nothing prevents it)",
    "zun.underdraw": "{player} lacks {cards} card(s) to produce: {before} → {after} "
                     "(Underdraw comes first: nothing prevents it)",
    "zun.defeated": "{player} is defeated",
    "zun.effects_discarded": "{player}'s cards are discarded without resolving: {effects}",
    "zun.revived": "{player} is revived with {hp} HP",
    "zun.back": "{player} is back in the game with {hp} HP",
    "zun.wins": "{name} wins the game!",
    "zun.team_wins": "Team {name} wins the game!",
    "zun.draw": "Everyone is defeated at once: the game is a draw",
    "zun.turn": "Round {round}: {player}'s turn",
    "zun.phase": "{player}'s {phase} phase",
    "zun.skip_action": "{player} skips the Action phase after changing the Location",
    "zun.mulligan": "{player} mulligans: reveals and discards their hand, draws {draw} cards",
    "zun.mulligan_reminder": "{player} may mulligan once this turn if they hold no Action cards",
    "zun.effect_added": "{player} is affected by {effect} (it triggers {when})",
    "zun.effect_discarded": "{player}'s {effect} is discarded",
    "zun.reminder_effect": "Reminder: {player}'s {effect} triggers now ({when})",
    "zun.location_played": "{location} is now the Location",
    "zun.location_discarded": "{location} is discarded",
    "zun.location_effect": "{location} · {timing}: {text}",
    "zun.travel": "{player} skips the Action phase to travel",
    "zun.location_card": "{player} plays {card} on the Locations",
    "zun.tourist_moves": "{rounds} rounds at {location}: the tourists move on",
    "zun.reshuffle": "The Location discard pile is shuffled into a new Location deck",
})

ALL = "all"
"""``damage all N``: an "All Players" card, which affects everyone standing at once."""

_WHEN = {"start": "at the start of their next turn", "end": "at the end of their turn"}

Handler = Callable[[ZunState, Any, list[Event]], ZunState]


class ZunRules:
    """Runes of Zun, for :class:`companion.core.session.Session`."""

    name = "zun"
    title = "Runes of Zun"
    actions = ACTIONS
    setup_type = ZunSetup

    def __init__(self, content: ZunContent | None = None) -> None:
        if content is not None:
            self.__dict__["content"] = content
        self._handlers: dict[type[Action], Handler] = {
            Damage: self._damage, Heal: self._heal, SetHp: self._set, Defeat: self._defeat,
            Revive: self._revive, Overdraw: self._overdraw, Underdraw: self._underdraw,
            Next: self._next, Mulligan: self._mulligan, AddEffect: self._add_effect,
            DiscardEffect: self._discard_effect, Travel: self._travel, Purge: self._purge,
            Scramble: self._scramble, Scry: self._scry, Swap: self._swap,
        }

    @cached_property
    def content(self) -> ZunContent:
        """Locations and defaults, read from the data files on first use."""
        return ZunContent.load()

    # -- the Rules interface --------------------------------------------------

    def new_game(self, setup: ZunSetup) -> ZunState:
        c = self.content
        names = check_names(setup.players, minimum=2, game="Runes of Zun")
        if any(n.casefold() == ALL for n in names):
            raise SetupError(f"a player cannot be called {ALL!r}: 'damage all 1' means everyone")
        teams, team_of = _teams(setup.teams, names)
        colours = self._colours(setup, names, teams, team_of)
        hp = setup.hp or c.starting_hp
        players = tuple(
            Player(n, hp, hp, team_of.get(n), colours[i]) for i, n in enumerate(names)
        )
        first = 0
        if setup.first is not None:
            try:
                first = find_seat(names, setup.first)
            except RuleError as e:
                raise SetupError(f"first: {e}") from None
        return ZunState(
            players=players,
            teams=tuple(Team(t, colours[names.index(members[0])]) for t, members in teams),
            active=first, first=first, phase=Phase.START, round=1, turn=1,
            locations=self._deal_locations(setup),
            tier_size=c.tier_size,
        )

    def apply(self, state: ZunState, action: Action) -> tuple[ZunState, tuple[Event, ...]]:
        handler = self._handlers.get(type(action))
        if handler is None:
            raise RuleError(f"{action.verb!r} is not an action of Runes of Zun", rule="vocabulary")
        if state.over:
            raise GameOver(f"{action.verb}: the game is over ({_result(state)}); undo to go back",
                           rule="game over")
        events: list[Event] = []
        new = handler(state, action, events)
        return new, tuple(events)

    def finished(self, state: ZunState) -> bool:
        return state.over

    def to_json(self, state: ZunState) -> dict[str, Any]:
        active = state.players[state.active]
        size = state.tier_size
        return {
            "mode": "teams" if state.teams else "free-for-all",
            "round": state.round,
            "turn": active.name,
            "turn_number": state.turn,
            "phase": state.phase.value,
            "winner": state.winner,
            "over": state.over,
            "result": _result(state) if state.over else None,
            "mulligan_used": state.mulligan_used,
            "travelled": state.travelled,
            "players": [
                {
                    "seat": seat + 1,
                    "name": p.name,
                    "hp": p.hp,
                    "max_hp": p.max_hp,
                    "tier": state.tier(p.hp),
                    "tier_range": _tier_range(state, p.hp),
                    "defeated": p.defeated,
                    "team": p.team,
                    "colour": p.colour,
                    "active": seat == state.active,
                    "effects": [{"name": e.name, "when": e.when, "prevents": e.prevents}
                                for e in p.effects],
                }
                for seat, p in enumerate(state.players)
            ],
            "teams": [
                {"name": t.name, "colour": t.colour,
                 "standing": any(p.team == t.name and not p.defeated for p in state.players)}
                for t in state.teams
            ],
            "tier_size": size,
            "locations": self._locations_json(state),
            "reminders": [str(e) for e in self._reminders(state)],
        }

    def seats(self, state: ZunState) -> list[dict[str, Any]]:
        return [
            {
                "seat": seat + 1,
                "name": p.name,
                "colour": p.colour,
                "team": p.team,
                "hp": p.hp,
                "max": p.max_hp,
                "tier": state.tier(p.hp),
                "defeated": p.defeated,
                "active": seat == state.active and not state.over,
                "winner": state.winner is not None and state.winner in (p.name, p.team),
                "over": state.over,
            }
            for seat, p in enumerate(state.players)
        ]

    # -- setup helpers ----------------------------------------------------------

    def _colours(self, setup: ZunSetup, names: tuple[str, ...],
                 teams: list[tuple[str, list[str]]], team_of: dict[str, str]) -> list[str]:
        palette = self.content.palette
        if setup.colours:
            if len(setup.colours) != len(names):
                raise SetupError(f"colours: give one colour per player ({len(names)}), "
                                 f"got {len(setup.colours)}")
            try:
                return [self.content.colour(c) for c in setup.colours]
            except ValueError as e:
                raise SetupError(f"colours: {e}") from None
        if teams:
            team_index = {t: i for i, (t, _) in enumerate(teams)}
            return [palette[team_index[team_of[n]] % len(palette)] for n in names]
        return [palette[i % len(palette)] for i in range(len(names))]

    def _deal_locations(self, setup: ZunSetup) -> Locations:
        mode = setup.locations
        if mode == "none":
            if setup.deck:
                raise SetupError("deck: Locations are chosen but locations=none; "
                                 "pick normal, simplified or tourist")
            return Locations("none")
        try:
            chosen = [self.content.location(n).name for n in setup.deck]
        except UnknownName as e:
            raise SetupError(f"deck: {e}") from None
        if len({n.casefold() for n in chosen}) != len(chosen):
            raise SetupError("deck: a Location is listed twice")
        if mode == "simplified":
            if len(chosen) != 1:
                raise SetupError("Simplified rules play one Location for the whole game: "
                                 "give exactly one, e.g. deck=\"Ritual Grounds\"")
            return Locations(mode, active=chosen[0])
        deck = chosen or list(self.content.locations)
        if mode == "normal":
            # "shuffle all desired Location cards into a separate deck, flip over the top".
            random.Random(_need_seed(setup.seed, "zun")).shuffle(deck)
        # Tourist rules: face up, in the order chosen.
        return Locations(mode, active=deck[0], deck=tuple(deck[1:]))

    # -- HP -----------------------------------------------------------------------

    def _standing(self, state: ZunState, ref: str, verb: str) -> int:
        seat = find_seat([p.name for p in state.players], ref)
        if state.players[seat].defeated:
            raise RuleError(f"{verb}: {state.players[seat].name} is defeated; only Revive "
                            "brings a defeated player back", rule="defeated")
        return seat

    def _damage(self, state: ZunState, a: Damage, events: list[Event]) -> ZunState:
        if a.player.strip().casefold() == ALL:
            # "All Players": everyone standing is affected at once, so a draw is possible.
            seats = [i for i, p in enumerate(state.players) if not p.defeated]
        else:
            seats = [self._standing(state, a.player, a.verb)]
        moves = {}
        for seat in seats:
            p = state.players[seat]
            ward = next((e for e in p.effects if e.prevents), None)
            if ward is not None and not a.immune:
                events.append(event("zun.prevented", player=p.name, effect=ward.name,
                                    amount=a.amount))
                continue
            moves[seat] = max(0, p.hp - a.amount)
            events.append(event("zun.damage", player=p.name, amount=a.amount, before=p.hp,
                                after=moves[seat]))
        return self._move_trackers(state, moves, events)

    def _lose(self, state: ZunState, ref: str, cards: int, kind: str, verb: str,
              events: list[Event]) -> ZunState:
        # Rule Priority 1: Overdraw and Underdraw beat every card that would prevent HP loss.
        seat = self._standing(state, ref, verb)
        p = state.players[seat]
        after = max(0, p.hp - cards)
        events.append(event(kind, player=p.name, cards=cards, before=p.hp, after=after))
        return self._move_trackers(state, {seat: after}, events)

    def _overdraw(self, state: ZunState, a: Overdraw, events: list[Event]) -> ZunState:
        return self._lose(state, a.player, a.cards, "zun.overdraw", a.verb, events)

    def _underdraw(self, state: ZunState, a: Underdraw, events: list[Event]) -> ZunState:
        return self._lose(state, a.player, a.cards, "zun.underdraw", a.verb, events)

    def _raise_hp(self, state: ZunState, seat: int, amount: int, uptier: bool,
                  events: list[Event]) -> ZunState:
        """A heal: up to the top of the current tier, or the maximum if a card allows it."""
        p = state.players[seat]
        ceiling = p.max_hp if uptier else min(state.tier_top(p.hp), p.max_hp)
        after = min(p.hp + amount, ceiling)
        events.append(event("zun.heal", player=p.name, gained=after - p.hp, before=p.hp,
                            after=after))
        if after < p.hp + amount:
            if after < p.max_hp:
                low = (state.tier(max(p.hp, 1)) - 1) * state.tier_size + 1
                events.append(event("zun.tier_cap", player=p.name, after=after, low=low,
                                    high=ceiling))
            else:
                events.append(event("zun.max_cap", player=p.name, after=after))
        return self._move_trackers(state, {seat: after}, events)

    def _heal(self, state: ZunState, a: Heal, events: list[Event]) -> ZunState:
        seat = self._standing(state, a.player, a.verb)
        return self._raise_hp(state, seat, a.amount, a.uptier, events)

    def _revive(self, state: ZunState, a: Revive, events: list[Event]) -> ZunState:
        seat = find_seat([p.name for p in state.players], a.player)
        amount = a.amount or self.content.revive_heal
        # On a standing player Revive is a heal, tier rule included (the rule book's example).
        return self._raise_hp(state, seat, amount, a.uptier, events)

    def _set(self, state: ZunState, a: SetHp, events: list[Event]) -> ZunState:
        seat = find_seat([p.name for p in state.players], a.player)
        p = state.players[seat]
        if a.hp > p.max_hp:
            raise RuleError(f"set: HP must be 0 to {p.max_hp}, got {a.hp}", rule="hp bounds")
        events.append(event("zun.set", player=p.name, before=p.hp, after=a.hp))
        return self._move_trackers(state, {seat: a.hp}, events)

    def _defeat(self, state: ZunState, a: Defeat, events: list[Event]) -> ZunState:
        seat = self._standing(state, a.player, a.verb)
        p = state.players[seat]
        events.append(event("zun.set", player=p.name, before=p.hp, after=0))
        return self._move_trackers(state, {seat: 0}, events)

    def _move_trackers(self, state: ZunState, moves: dict[int, int],
                       events: list[Event]) -> ZunState:
        """Put trackers at their new HP together, then follow through: defeat, return,
        victory, and the turn passing if the active player fell."""
        players = list(state.players)
        moved = False
        for seat, hp in moves.items():
            p = players[seat]
            if hp == p.hp:
                continue
            moved = True
            # "If you're Defeated: discard ... all cards affecting you without resolving them".
            players[seat] = evolve(p, hp=hp, effects=() if hp == 0 else p.effects)
            if hp == 0:
                events.append(event("zun.defeated", player=p.name))
                if p.effects:
                    events.append(event("zun.effects_discarded", player=p.name,
                                        effects=", ".join(e.name for e in p.effects)))
            elif p.defeated:
                events.append(event("zun.revived", player=p.name, hp=hp))
        if not moved:
            return state
        state = _check_victory(evolve(state, players=tuple(players)), events)
        if state.players[state.active].defeated and not state.over:
            # A player defeated on their own turn discards what they played: the turn ends.
            state = self._pass_turn(state, events)
        return state

    # -- turns and phases -----------------------------------------------------------

    def _next(self, state: ZunState, a: Next, events: list[Event]) -> ZunState:
        p = state.players[state.active]
        if state.phase is Phase.END:
            return self._pass_turn(state, events)
        if state.phase is Phase.START and state.travelled:
            events.append(event("zun.skip_action", player=p.name))
            phase = Phase.RECOVERY
        else:
            phase = {Phase.START: Phase.ACTION, Phase.ACTION: Phase.RECOVERY,
                     Phase.RECOVERY: Phase.END}[state.phase]
        state = evolve(state, phase=phase)
        events.append(event("zun.phase", player=p.name, phase=phase.title))
        events.extend(self._reminders(state))
        return state

    def _pass_turn(self, state: ZunState, events: list[Event]) -> ZunState:
        n = len(state.players)
        here = state.active
        nxt = next(s for s in ((here + k) % n for k in range(1, n + 1))
                   if not state.players[s].defeated)
        # A round ends when play passes the first player's seat again.
        wrapped = (nxt - state.first) % n <= (here - state.first) % n
        state = evolve(state, active=nxt, phase=Phase.START, turn=state.turn + 1,
                        round=state.round + wrapped, mulligan_used=False, travelled=False)
        if wrapped:
            state = self._tourist_rotation(state, events)
        events.append(event("zun.turn", round=state.round, player=state.players[nxt].name))
        events.extend(self._reminders(state))
        return state

    def _reminders(self, state: ZunState) -> list[Event]:
        """What the table should be reminded of in the current phase."""
        p = state.players[state.active]
        out = [event("zun.reminder_effect", player=p.name, effect=e.name, when=_WHEN[e.when])
               for e in p.effects if e.when == state.phase.value]
        if state.phase is Phase.START and not state.mulligan_used and not state.travelled:
            out.append(event("zun.mulligan_reminder", player=p.name))
        location = self._active_location(state)
        if location is not None and state.phase.value in ("start", "end"):
            out.extend(_location_events(location, state.phase.value))
        return out

    def _mulligan(self, state: ZunState, a: Mulligan, events: list[Event]) -> ZunState:
        p = state.players[state.active]
        _require_phase(state, Phase.START, a.verb)
        if state.mulligan_used:
            raise RuleError(f"mulligan: {p.name} has already mulliganed this turn (once per turn)",
                            rule="mulligan once")
        if state.travelled:
            raise RuleError(f"mulligan: {p.name} has gone past the mulligan step by travelling",
                            rule="mulligan step")
        events.append(event("zun.mulligan", player=p.name, draw=self.content.mulligan_draw))
        return evolve(state, mulligan_used=True)

    # -- ongoing effects --------------------------------------------------------------

    def _add_effect(self, state: ZunState, a: AddEffect, events: list[Event]) -> ZunState:
        seat = self._standing(state, a.player, a.verb)
        p = state.players[seat]
        name = a.name.strip()
        if any(e.name.casefold() == name.casefold() for e in p.effects):
            raise RuleError(f"effect: {p.name} already has an effect called {name!r}; "
                            "give the second one another name", rule="effect names")
        moved = evolve(p, effects=p.effects + (Effect(name, a.when, a.prevents),))
        events.append(event("zun.effect_added", player=p.name, effect=name, when=_WHEN[a.when]))
        return evolve(state, players=state.players[:seat] + (moved,) + state.players[seat + 1:])

    def _discard_effect(self, state: ZunState, a: DiscardEffect, events: list[Event]) -> ZunState:
        seat = find_seat([p.name for p in state.players], a.player)
        p = state.players[seat]
        kept = tuple(e for e in p.effects if e.name.casefold() != a.name.strip().casefold())
        if len(kept) == len(p.effects):
            held = ", ".join(e.name for e in p.effects) or "none"
            raise UnknownName(f"discard_effect: {p.name} has no effect called {a.name!r} "
                              f"(effects: {held})")
        gone = next(e for e in p.effects if e not in kept)
        events.append(event("zun.effect_discarded", player=p.name, effect=gone.name))
        moved = evolve(p, effects=kept)
        return evolve(state, players=state.players[:seat] + (moved,) + state.players[seat + 1:])

    # -- Locations ----------------------------------------------------------------

    def _active_location(self, state: ZunState) -> Location | None:
        name = state.locations.active
        return None if name is None else self.content.locations.get(name)

    def _travel(self, state: ZunState, a: Travel, events: list[Event]) -> ZunState:
        _require_changeable(state, a.verb)
        _require_phase(state, Phase.START, a.verb)
        if state.travelled:
            raise RuleError("travel: the Location was already changed this turn", rule="travel")
        events.append(event("zun.travel", player=state.players[state.active].name))
        locs = self._discard_active(state, events)
        state = self._play_next(state, locs, a.to, a.seed, a.verb, events)
        return evolve(state, travelled=True)

    def _card_on_locations(self, state: ZunState, a: Action, events: list[Event]) -> Locations:
        """The common start of Purge, Scramble, Scry and Swap: checks, then discard the active."""
        _require_changeable(state, a.verb)
        _require_phase(state, Phase.ACTION, a.verb)
        events.append(event("zun.location_card", player=state.players[state.active].name,
                            card=a.verb.capitalize()))
        return self._discard_active(state, events)

    def _purge(self, state: ZunState, a: Purge, events: list[Event]) -> ZunState:
        locs = self._card_on_locations(state, a, events)
        return self._play_next(state, locs, a.to, a.seed, a.verb, events)

    def _scramble(self, state: ZunState, a: Scramble, events: list[Event]) -> ZunState:
        locs = self._card_on_locations(state, a, events)
        pile = list(locs.discard + locs.deck)
        random.Random(_need_seed(a.seed, a.verb)).shuffle(pile)
        locs = evolve(locs, deck=tuple(pile), discard=())
        return self._play_next(state, locs, a.to, a.seed, a.verb, events)

    def _scry(self, state: ZunState, a: Scry, events: list[Event]) -> ZunState:
        locs = self._card_on_locations(state, a, events)
        top = locs.deck[:3]
        if not top:
            raise RuleError("scry: the Location deck is empty", rule="scry")
        chosen = _pick(top, a.chosen, f"scry: {a.chosen!r} is not among the top "
                                       f"{len(top)} Locations ({', '.join(top)})")
        others = [n for n in top if n != chosen]
        bottom = [_pick(others, n, f"scry: {n!r} is not one of the Locations to put back "
                                   f"({', '.join(others)})") for n in a.bottom] if a.bottom else others
        if sorted(bottom) != sorted(others):
            raise RuleError(f"scry: put back exactly these, in any order: {', '.join(others)}",
                            rule="scry")
        locs = evolve(locs, deck=locs.deck[len(top):] + tuple(bottom))
        return self._play(state, locs, chosen, events)

    def _swap(self, state: ZunState, a: Swap, events: list[Event]) -> ZunState:
        locs = self._card_on_locations(state, a, events)
        new_deck = list(locs.discard)
        random.Random(_need_seed(a.seed, a.verb)).shuffle(new_deck)
        # The old deck is flipped face up: its bottom card is now the top of the discard pile.
        flipped = tuple(reversed(locs.deck))
        if a.to is not None or not flipped:
            locs = evolve(locs, deck=tuple(new_deck), discard=flipped)
            return self._play_next(state, locs, a.to, a.seed, a.verb, events)
        locs = evolve(locs, deck=tuple(new_deck), discard=flipped[1:])
        return self._play(state, locs, flipped[0], events)

    def _discard_active(self, state: ZunState, events: list[Event]) -> Locations:
        locs = state.locations
        if locs.active is None:
            return locs
        events.append(event("zun.location_discarded", location=locs.active))
        location = self.content.locations.get(locs.active)
        if location is not None:
            events.extend(_location_events(location, "discarded"))
        return evolve(locs, active=None, discard=(locs.active,) + locs.discard)

    def _play_next(self, state: ZunState, locs: Locations, to: str | None, seed: int | None,
                   verb: str, events: list[Event]) -> ZunState:
        """Play ``to`` (the card the table actually drew) or the top of the deck."""
        if to is not None:
            name = self.content.location(to).name
            if name not in locs.deck and name not in locs.discard:
                raise RuleError(f"{verb}: {name} is not in this game's Location deck",
                                rule="location deck")
            locs = evolve(locs, deck=tuple(n for n in locs.deck if n != name),
                           discard=tuple(n for n in locs.discard if n != name))
            return self._play(state, locs, name, events)
        if not locs.deck:
            if not locs.discard:
                raise RuleError(f"{verb}: there is no other Location to play", rule="location deck")
            # As with the rune deck: an empty deck is made again from the shuffled discard pile.
            pile = list(locs.discard)
            random.Random(_need_seed(seed, verb)).shuffle(pile)
            locs = evolve(locs, deck=tuple(pile), discard=())
            events.append(event("zun.reshuffle"))
        return self._play(state, evolve(locs, deck=locs.deck[1:]), locs.deck[0], events)

    def _play(self, state: ZunState, locs: Locations, name: str, events: list[Event]) -> ZunState:
        events.append(event("zun.location_played", location=name))
        location = self.content.locations.get(name)
        if location is not None:
            events.extend(_location_events(location, "played"))
        return evolve(state, locations=evolve(locs, active=name, since_round=state.round))

    def _tourist_rotation(self, state: ZunState, events: list[Event]) -> ZunState:
        """Tourist rules: at the end of every 3rd round the next Location in order is played."""
        locs = state.locations
        rounds = self.content.tourist_rounds
        if locs.mode != "tourist" or state.round - locs.since_round < rounds:
            return state
        assert locs.active is not None
        events.append(event("zun.tourist_moves", rounds=rounds, location=locs.active))
        events.append(event("zun.location_discarded", location=locs.active))
        # "Return discarded Locations to the bottom of the Location deck face-up".
        deck = locs.deck + (locs.active,)
        return self._play(state, evolve(locs, deck=deck[1:], active=None), deck[0], events)

    def _locations_json(self, state: ZunState) -> dict[str, Any]:
        locs = state.locations
        location = self._active_location(state)
        rounds_left = None
        if locs.mode == "tourist":
            rounds_left = self.content.tourist_rounds - (state.round - locs.since_round)
        return {
            "mode": locs.mode,
            "active": None if locs.active is None else (
                location.to_json() if location else {"name": locs.active, "challenge": None,
                                                     "keywords": [], "effects": []}),
            "deck": list(locs.deck),
            "discard": list(locs.discard),
            "rounds_left": rounds_left,
        }


# -- module helpers ------------------------------------------------------------------


def _teams(specs: tuple[str, ...], names: tuple[str, ...]) -> tuple[list[tuple[str, list[str]]],
                                                                    dict[str, str]]:
    """Parse ``Red:Ann+Cid`` team specs into (team, members) and player → team."""
    if not specs:
        return [], {}
    teams: list[tuple[str, list[str]]] = []
    team_of: dict[str, str] = {}
    for i, spec in enumerate(specs, 1):
        label, sep, members = spec.partition(":")
        team = label.strip() if sep else f"Team {i}"
        if not sep:
            members = spec
        if not team:
            raise SetupError(f"teams: team {i} has an empty name in {spec!r}")
        if any(team.casefold() == t.casefold() for t, _ in teams):
            raise SetupError(f"teams: two teams are called {team!r}")
        seats: list[str] = []
        for ref in filter(None, (m.strip() for m in members.split("+"))):
            try:
                player = names[find_seat(names, ref)]
            except RuleError:
                raise SetupError(f"teams: {ref!r} in team {team} is not one of the players "
                                 f"({', '.join(names)})") from None
            if player in team_of:
                raise SetupError(f"teams: {player} is in both {team_of[player]} and {team}")
            team_of[player] = team
            seats.append(player)
        if not seats:
            raise SetupError(f"teams: team {team} has no players")
        teams.append((team, seats))
    if len(teams) < 2:
        raise SetupError("teams: a team game needs at least two teams")
    missing = [n for n in names if n not in team_of]
    if missing:
        raise SetupError(f"teams: every player needs a team; {', '.join(missing)} has none")
    return teams, team_of


def _check_victory(state: ZunState, events: list[Event]) -> ZunState:
    """Free-for-all: the last player standing wins. Teams: the last team with anyone standing."""
    standing = [p for p in state.players if not p.defeated]
    sides = {p.team for p in standing} if state.teams else {p.name for p in standing}
    if len(sides) > 1:
        return state
    if not sides:
        events.append(event("zun.draw"))
        return evolve(state, over=True, winner=None)
    winner = sides.pop()
    assert winner is not None
    events.append(event("zun.team_wins" if state.teams else "zun.wins", name=winner))
    return evolve(state, over=True, winner=winner)


def _result(state: ZunState) -> str:
    if state.winner is None:
        return "a draw"
    return f"team {state.winner} won" if state.teams else f"{state.winner} won"


def _tier_range(state: ZunState, hp: int) -> str | None:
    tier = state.tier(hp)
    if tier == 0:
        return None
    top = min(tier * state.tier_size, state.players[0].max_hp)
    return f"{(tier - 1) * state.tier_size + 1}-{top}"


def _require_phase(state: ZunState, phase: Phase, verb: str) -> None:
    if state.phase is not phase:
        p = state.players[state.active]
        raise WrongPhase(f"{verb}: only in the {phase.title} phase of a turn; it is "
                         f"{p.name}'s {state.phase.title} phase", rule="phase")


def _require_changeable(state: ZunState, verb: str) -> None:
    mode = state.locations.mode
    if mode == "none":
        raise RuleError(f"{verb}: this game is played without Locations", rule="locations")
    if mode == "simplified":
        raise RuleError(f"{verb}: under the Simplified rules the Location never changes, "
                        "even by card effects", rule="simplified")
    if mode == "tourist":
        raise RuleError(f"{verb}: under the Tourist rules the Location changes only every 3 "
                        "rounds, never by players or cards", rule="tourist")


def _need_seed(seed: int | None, verb: str) -> int:
    if seed is None:
        raise RuleError(f"{verb}: a shuffle needs a seed (the session adds one)", rule="seed")
    return seed


def _pick(names: tuple[str, ...] | list[str], wanted: str, error: str) -> str:
    folded = wanted.strip().casefold()
    for n in names:
        if n.casefold() == folded:
            return n
    raise RuleError(error, rule="location choice")


def _location_events(location: Location, phase: str) -> list[Event]:
    return [event("zun.location_effect", location=location.name, timing=e.timing, text=e.text)
            for e in location.effects_at(phase)]  # type: ignore[arg-type]


RULES = ZunRules()
