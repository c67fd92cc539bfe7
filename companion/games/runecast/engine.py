"""The rules engine of Runecast: pure functions of (state, action).

How each rule of the rule book is read, and every choice made where it is
silent, is written down in docs/rules-runecast.md; the comments here only say
where the code follows one of those readings.
"""

from __future__ import annotations

import random
import re
from dataclasses import replace
from functools import cached_property
from typing import Any, Callable

from companion.core.actions import Action
from companion.core.errors import (
    ActionSyntaxError, GameOver, RuleError, SetupError, UnknownName, UnknownPlayer, WrongPhase,
)
from companion.core.events import MESSAGES, Event, event
from companion.core.players import check_names, find_seat

from .actions import (
    ACTIONS, AdjustDice, AdjustLokiDice, Damage, Discard, Flip, Heal, LokiRoll, Next,
    Reincarnate, Roll, RunecastSetup, SetFate, TreeHeal, UseAbility, Wound,
)
from .content import EVERYONE, FOILED, BattleBoard, Character, RunecastContent, parse_runes
from .state import Hero, LokiOutcome, Options, Phase, Rolled, RunecastState

MESSAGES.register({
    "runecast.turn": "Round {round}: {player}'s turn ({dice} dice)",
    "runecast.round": "Round {round} begins: {thrall} will roll for Loki",
    "runecast.flip_item": "{player} flips {card} and puts it in play as their {item}",
    "runecast.item_replaced": "{player}'s {item} {old} is discarded: one {item} in play at a time",
    "runecast.flip_fate": "{player} flips the Fate card {card}: resolve it now, then discard it",
    "runecast.hand_left": "{player} has {hand} Fate card(s) left",
    "runecast.ability": "{player} uses {character}'s ability for 1 HP ({before} → {after}): {text}",
    "runecast.roll": "{player} rolls {dice} dice: {hammers} hammer(s), {snakes} snake(s), "
                     "{trees} tree(s)",
    "runecast.wounds": "{battle} takes {amount} wound(s): {after} of {needed}",
    "runecast.snakes": "{snakes} snake(s) leave {player}'s pool for Loki's: Loki holds {pool}",
    "runecast.loki_full": "Loki's pool is at its maximum of {maximum}: {kept} snake(s) stay in "
                          "{player}'s pool",
    "runecast.trees": "{player} may heal up to {heals} HP with trees (tree_heal)",
    "runecast.tree_heal": "{player} sets {count} tree die/dice aside and heals: {before} → {after} "
                          "(back at the end of their next turn)",
    "runecast.dice_back": "{count} tree die/dice return to {player}'s pool: {pool} dice",
    "runecast.battle_won": "{battle} is defeated!",
    "runecast.loki_discarded": "Loki's {dice} dice are discarded",
    "runecast.battle": "Battle {number} of {total}: {battle} ({wounds} wounds; special attack on "
                       "{snakes} snakes, Fate's boon on {trees} trees)",
    "runecast.returns": "{player} returns from Valhalla with {hp} HP and {hand} Fate cards",
    "runecast.refill": "New battle: every hero's dice pool is refilled to {dice}",
    "runecast.victory": "Victory! The final battle is won: every hero earns a place in Valhalla",
    "runecast.defeat": "Defeat: no hero is left to fight on",
    "runecast.loki_turn": "End of round {round}: {roller}, {role}, rolls Loki's {dice} dice",
    "runecast.loki_empty": "Loki's pool is empty: no Loki's roll this round",
    "runecast.loki_roll": "Loki rolls {hammers} hammer(s), {snakes} snake(s), {trees} tree(s)",
    "runecast.card": "Loki's Chosen card: {card}",
    "runecast.rune_miss": "{runes}: {reason}",
    "runecast.hit": "{runes} matches {player}'s Hero's Fate: Loki hits {player}",
    "runecast.everyone": "RRR: Loki has outsmarted the heroes: every hero is hit",
    "runecast.foiled": "FFF: Loki's plans for this round are foiled and his {dice} dice are "
                       "discarded",
    "runecast.missed": "No rune set on the card matches a hero: Loki's hammers miss",
    "runecast.all_hammers": "Every die is a hammer: no card is drawn, every hero takes {damage} "
                            "(half of {hammers}, rounded down)",
    "runecast.target": "{player} is Loki's target this round",
    "runecast.damage": "{player} takes {amount} damage: {before} → {after}",
    "runecast.special": "{snakes} snake(s) trigger {battle}'s special attack (it needs {needed}): "
                        "{text}",
    "runecast.no_special": "{snakes} snake(s): {battle}'s special attack needs {needed}",
    "runecast.special_foiled": "Loki is foiled: {battle}'s special attack does not trigger",
    "runecast.boon": "{trees} tree(s) trigger Fate's boon (it needs {needed}): {text}",
    "runecast.no_boon": "{trees} tree(s): Fate's boon needs {needed}",
    "runecast.fallen": "{player} falls in battle{items}",
    "runecast.death_token": "{player} turns in their Death Token: an agent of Loki until this "
                            "battle ends, back at the start of the next",
    "runecast.unlimited": "{player} is an agent of Loki until this battle ends, back at the start "
                          "of the next (unlimited lives)",
    "runecast.community_choice": "{player} has no Death Token left: the group may spend the "
                                 "Community Death Token (reincarnate {player}); until then "
                                 "{player} is an agent of Loki",
    "runecast.agent": "{player} has no Death Token left: an agent of Loki for the rest of the game",
    "runecast.reincarnate": "The group spends the Community Death Token on {player}: back at the "
                            "start of the next battle",
    "runecast.heal": "{player} heals {gained}: {before} → {after}",
    "runecast.dice": "{player}'s dice pool: {before} → {after}",
    "runecast.loki_dice": "Loki's pool: {before} → {after}",
    "runecast.discard": "{player} discards their {item} {card}",
    "runecast.fate": "{player}'s Hero's Fate is {runes}",
})

Handler = Callable[[RunecastState, Any, list[Event]], RunecastState]

MIN_PLAYERS = 2
MAX_EXTRA = 2
"""The 2-player game: "each player may choose 1-2 additional characters"."""
TREE_HEALS = 2
"""Players may heal a maximum of 2 hit points per turn with trees."""


class RunecastRules:
    """Runecast, for :class:`companion.core.session.Session`."""

    name = "runecast"
    title = "Runecast"
    actions = ACTIONS
    setup_type = RunecastSetup

    def __init__(self, content: RunecastContent | None = None) -> None:
        if content is not None:
            self.__dict__["content"] = content
        self._handlers: dict[type[Action], Handler] = {
            Flip: self._flip, UseAbility: self._ability, Roll: self._roll,
            TreeHeal: self._tree_heal, Next: self._next, LokiRoll: self._loki_roll,
            SetFate: self._fate, Damage: self._damage, Heal: self._heal, Wound: self._wound,
            AdjustDice: self._dice, AdjustLokiDice: self._loki_dice, Discard: self._discard,
            Reincarnate: self._reincarnate,
        }

    @cached_property
    def content(self) -> RunecastContent:
        """Tables, boards and characters, read from the data files on first use."""
        return RunecastContent.load()

    # -- the Rules interface --------------------------------------------------

    def new_game(self, setup: RunecastSetup) -> RunecastState:
        c = self.content
        most = max(c.tables)
        if not MIN_PLAYERS <= len(setup.players) <= most:
            raise SetupError(
                f"Runecast is for {MIN_PLAYERS} to {most} players, got {len(setup.players)}: "
                "its setup tables, character boards and Hero's Fate deck go no further "
                "(two players may take up to 2 extra characters each)")
        names = check_names(setup.players, minimum=MIN_PLAYERS, maximum=most, game="Runecast")
        seats = _seats(names, setup.extra)
        heroes = check_names([name for name, _ in seats], minimum=MIN_PLAYERS, game="Runecast")
        n = len(seats)
        table = c.tables.get(n)
        if table is None:
            raise SetupError(f"the setup tables have no row for {n} characters")
        rng = random.Random(setup.seed)
        battles = self._deal_battles(setup, table.battles, rng)
        characters = self._characters(setup, n)
        duo = n == 2
        deck = () if duo else c.fate_deck(n, all_fates=setup.all_fates)
        if setup.all_fates and n != 3:
            raise SetupError("all_fates: the Hero's Fate deck only loses cards in a "
                             f"3-character game; this one has {n}")
        fates = self._deal_fates(setup, deck, n, duo, rng)
        box = c.dice_total - n * table.dice
        if box < 0:
            raise SetupError(f"{n} pools of {table.dice} dice need more than the "
                             f"{c.dice_total} dice of the game")
        first = 0
        if setup.first is not None:
            try:
                first = find_seat(heroes, setup.first)
            except RuleError as e:
                raise SetupError(f"first: {e}") from None
        options = Options(
            duo=duo, dice=table.dice, fate_cards=table.fate_cards, card_sets=c.card_sets,
            refill_dice=c.refill_dice, hit=setup.hit or c.loki_hit, loki_max=setup.loki_max,
            unlimited_lives=setup.unlimited_lives, dice_total=c.dice_total, fate_deck=deck,
        )
        return RunecastState(
            heroes=tuple(
                Hero(name, controller, ch, ch.hp, ch.colour or c.palette[i % len(c.palette)],
                     fates[i], table.dice, table.fate_cards,
                     death_token=not setup.unlimited_lives)
                for i, ((_, controller), name, ch) in enumerate(zip(seats, heroes, characters))
            ),
            battles=battles, battle=0, wounds=0, loki_pool=0, box=box,
            active=first, first=first, thrall=first, options=options,
        )

    def apply(self, state: RunecastState, action: Action) -> tuple[RunecastState, tuple[Event, ...]]:
        handler = self._handlers.get(type(action))
        if handler is None:
            raise RuleError(f"{action.verb!r} is not an action of Runecast", rule="vocabulary")
        if state.outcome is not None:
            raise GameOver(f"{action.verb}: the game is over ({state.outcome}); undo to go back",
                           rule="game over")
        events: list[Event] = []
        new = handler(state, action, events)
        if new.outcome is None and new.phase is Phase.LOKI and new.loki_pool == 0:
            # Nothing for Loki to roll (no snakes, a battle fell, or an effect emptied his pool):
            # the round goes on.
            events.append(event("runecast.loki_empty"))
            new = self._new_round(new, events)
        return new, tuple(events)

    def finished(self, state: RunecastState) -> bool:
        return state.outcome is not None

    def to_json(self, state: RunecastState) -> dict[str, Any]:
        roller = state.roller()
        pools = sum(h.pool for h in state.heroes)
        aside = sum(h.set_aside + h.waiting for h in state.heroes)
        rolled = state.rolled
        o = state.options
        return {
            "mode": "two characters" if o.duo else "standard",
            "round": state.round,
            "phase": state.phase.value,
            "turn": state.heroes[state.active].name if state.phase is Phase.TURN else None,
            "turn_number": state.turn,
            "outcome": state.outcome,
            "over": state.outcome is not None,
            "players": [self._hero_json(state, seat, roller) for seat in range(len(state.heroes))],
            "loki_pool": state.loki_pool,
            "loki_max": o.loki_max,
            "battle": {**state.board.to_json(), "number": state.battle + 1,
                       "wounds": state.wounds},
            "battles": [b.name for b in state.battles],
            "battles_left": state.battles_left,
            "final_battle": state.final_battle,
            "thrall": state.heroes[roller].name,
            "thrall_is_agent": not state.heroes[roller].alive,
            "community_death_token": state.community_token,
            "roll": None if rolled is None else {
                "hammers": rolled.hammers, "snakes": rolled.snakes, "trees": rolled.trees},
            "flipped": state.flipped,
            "tree_heals": state.tree_heals,
            "tree_heals_left": 0 if rolled is None else
            min(TREE_HEALS, rolled.trees) - state.tree_heals,
            "dice": {"pools": pools, "set_aside": aside, "loki": state.loki_pool,
                     "box": state.box, "total": state.dice_in_play()},
            "last_loki_roll": _loki_json(state.last_loki),
            "rules": {
                "dice_per_player": o.dice, "fate_cards": o.fate_cards,
                "loki_hit": "hammers" if o.hit is None else o.hit,
                "unlimited_lives": o.unlimited_lives, "refill_dice": o.refill_dice,
                "fate_deck": list(o.fate_deck), "card_sets": o.card_sets,
            },
        }

    def seats(self, state: RunecastState) -> list[dict[str, Any]]:
        roller = state.roller()
        over = state.outcome is not None
        return [
            {
                "seat": seat + 1,
                "name": h.name,
                "colour": h.colour,
                "team": None,
                "hp": h.hp,
                "max": h.max_hp,
                "tier": _tier(h.hp),
                "defeated": not h.alive,
                "active": seat == state.active and state.phase is Phase.TURN and not over,
                "winner": state.outcome == "victory",
                "over": over,
                "alive": h.alive,
                "loki": not h.alive,
                "thrall": seat == roller and not over,
                "loki_pool": state.loki_pool,
            }
            for seat, h in enumerate(state.heroes)
        ]

    def _hero_json(self, state: RunecastState, seat: int, roller: int) -> dict[str, Any]:
        h = state.heroes[seat]
        return {
            "seat": seat + 1,
            "name": h.name,
            "controller": h.controller,
            "character": h.character.name,
            "ability": h.character.ability,
            "colour": h.colour,
            "hp": h.hp,
            "max_hp": h.max_hp,
            "alive": h.alive,
            "agent_of_loki": not h.alive,
            "returning": h.returning,
            "death_token": h.death_token,
            "dice_pool": h.pool,
            "set_aside": h.set_aside + h.waiting,
            "hand": h.hand,
            "weapon": h.weapon,
            "armour": h.armour,
            "fate": h.fate,
            "active": seat == state.active and state.phase is Phase.TURN,
            "thrall": seat == roller,
        }

    # -- setup helpers ----------------------------------------------------------

    def _deal_battles(self, setup: RunecastSetup, count: int,
                      rng: random.Random) -> tuple[BattleBoard, ...]:
        c = self.content
        if setup.boards:
            try:
                boards = [c.board(name) for name in setup.boards]
            except UnknownName as e:
                raise SetupError(f"boards: {e}") from None
            if len({b.name for b in boards}) != len(boards):
                raise SetupError("boards: a battle board is listed twice")
            if setup.battles is not None and setup.battles != len(boards):
                raise SetupError(f"battles={setup.battles} but boards lists {len(boards)}; "
                                 "give one or the other")
            return tuple(boards)
        # "Shuffle the Battle Boards": Table-2's number, or any number (Random Battles).
        wanted = setup.battles or count
        stack = list(c.boards.values())
        if wanted > len(stack):
            raise SetupError(f"battles: {wanted} battles wanted, the data files hold "
                             f"{len(stack)}: add battle boards to runecast/battles.toml")
        _need_seed(setup)
        rng.shuffle(stack)
        return tuple(stack[:wanted])

    def _characters(self, setup: RunecastSetup, n: int) -> list[Character]:
        c = self.content
        if setup.characters:
            if len(setup.characters) != n:
                raise SetupError(f"characters: give one per character in play ({n}), "
                                 f"got {len(setup.characters)}")
            try:
                chosen = [c.character(name) for name in setup.characters]
            except UnknownName as e:
                raise SetupError(f"characters: {e}") from None
            if len({ch.name for ch in chosen}) != n:
                raise SetupError("characters: each character board can be played once")
        else:
            chosen = list(c.characters.values())[:n]
            if len(chosen) < n:
                raise SetupError(f"{n} characters are needed and the data files hold "
                                 f"{len(chosen)}: add some to runecast/characters.toml")
        if setup.hp is not None:
            chosen = [replace(ch, hp=setup.hp) for ch in chosen]
        return chosen

    def _deal_fates(self, setup: RunecastSetup, deck: tuple[str, ...], n: int, duo: bool,
                    rng: random.Random) -> list[str | None]:
        if duo:
            if setup.fates:
                raise SetupError("fates: the two-character game disregards the Hero's Fate "
                                 "runes, so none are dealt")
            return [None] * n
        if setup.fates:
            if len(setup.fates) != n:
                raise SetupError(f"fates: give one Hero's Fate card per character ({n}), "
                                 f"got {len(setup.fates)}")
            fates = []
            for text in setup.fates:
                runes = parse_runes(text)
                if runes is None or runes not in deck:
                    raise SetupError(f"fates: {text!r} is not a card of this game's Hero's Fate "
                                     f"deck ({', '.join(deck)})")
                fates.append(runes)
            if len(set(fates)) != n:
                raise SetupError("fates: each Hero's Fate card is dealt once")
            return list(fates)
        if len(deck) < n:
            raise SetupError(f"the Hero's Fate deck holds {len(deck)} cards, too few for "
                             f"{n} characters")
        _need_seed(setup)
        cards = list(deck)
        rng.shuffle(cards)
        return list(cards[:n])

    # -- finding heroes -----------------------------------------------------------

    def _seat(self, state: RunecastState, ref: str) -> int:
        """A hero by seat name, seat number or character name."""
        names = [h.name for h in state.heroes]
        try:
            return find_seat(names, ref)
        except UnknownPlayer:
            folded = ref.strip().casefold()
            for seat, h in enumerate(state.heroes):
                if h.character.name.casefold() == folded:
                    return seat
            raise UnknownPlayer(
                f"no hero called {ref!r} at the table (players: {', '.join(names)}; "
                f"characters: {', '.join(h.character.name for h in state.heroes)})") from None

    def _living(self, state: RunecastState, ref: str, verb: str) -> int:
        seat = self._seat(state, ref)
        hero = state.heroes[seat]
        if not hero.alive:
            raise RuleError(f"{verb}: {hero.name} has fallen and is an agent of Loki until they "
                            "return", rule="fallen")
        return seat

    # -- a hero's turn: Draw, Use, Roll ----------------------------------------------

    def _flip(self, state: RunecastState, a: Flip, events: list[Event]) -> RunecastState:
        seat = self._living(state, a.player, a.verb)
        hero = state.heroes[seat]
        _require_turn(state, a.verb)
        if seat != state.active:
            raise WrongPhase(f"flip: a Fate card is flipped at the start of your own turn; it is "
                             f"{state.heroes[state.active].name}'s turn", rule="own turn")
        if state.rolled is not None:
            raise RuleError(f"flip: the Fate card is flipped at the start of the turn, and "
                            f"{hero.name} has rolled already", rule="flip first")
        if state.flipped:
            raise RuleError(f"flip: {hero.name} has flipped this turn's Fate card already "
                            "(one per turn)", rule="one flip")
        if hero.hand == 0:
            raise RuleError(f"flip: {hero.name}'s Fate hand is empty", rule="empty hand")
        kind = "armour" if a.kind == "armor" else a.kind
        card = (a.card or "").strip() or kind.title()
        if kind == "fate":
            # "it must be resolved immediately, before being placed in the ... discard pile".
            events.append(event("runecast.flip_fate", player=hero.name, card=card))
            state = state.with_hero(seat, hand=hero.hand - 1)
        else:
            events.append(event("runecast.flip_item", player=hero.name, card=card, item=kind))
            old = hero.weapon if kind == "weapon" else hero.armour
            if old is not None:
                events.append(event("runecast.item_replaced", player=hero.name, item=kind,
                                    old=old))
            state = state.with_hero(seat, hand=hero.hand - 1, **{kind: card})
        events.append(event("runecast.hand_left", player=hero.name, hand=hero.hand - 1))
        return replace(state, flipped=True)

    def _ability(self, state: RunecastState, a: UseAbility, events: list[Event]) -> RunecastState:
        # Any time, any turn, as often as wanted: only the last hit point is out of bounds.
        seat = self._living(state, a.player, a.verb)
        hero = state.heroes[seat]
        if hero.hp <= 1:
            raise RuleError(f"ability: {hero.name} has {hero.hp} HP; an ability costs 1 HP and "
                            "may never spend the last one", rule="last hit point")
        events.append(event("runecast.ability", player=hero.name, character=hero.character.name,
                            before=hero.hp, after=hero.hp - 1, text=hero.character.ability))
        return state.with_hero(seat, hp=hero.hp - 1)

    def _roll(self, state: RunecastState, a: Roll, events: list[Event]) -> RunecastState:
        _require_turn(state, a.verb)
        seat = state.active
        hero = state.heroes[seat]
        if state.rolled is not None:
            raise RuleError(f"roll: {hero.name} has rolled this turn already (one roll per turn)",
                            rule="one roll")
        total = a.hammers + a.snakes + a.trees
        if hero.pool == 0:
            raise RuleError(f"roll: {hero.name} has no dice in their pool; end the turn with next",
                            rule="empty pool")
        if total != hero.pool:
            raise RuleError(f"roll: {hero.name}'s pool holds {hero.pool} dice and every one is "
                            f"rolled; the roll has {_faces(a.hammers, a.snakes, a.trees)}",
                            rule="roll the pool")
        events.append(event("runecast.roll", player=hero.name, dice=total, hammers=a.hammers,
                            snakes=a.snakes, trees=a.trees))
        state = replace(state, rolled=Rolled(a.hammers, a.snakes, a.trees))
        if a.snakes:
            state = self._snakes_to_loki(state, seat, a.snakes, events)
        if a.hammers:
            # The roll's snakes are on the board already: if it falls, they go with Loki's pool.
            state = self._wound_board(state, a.hammers, events)
        if a.trees and state.outcome is None:
            events.append(event("runecast.trees", player=hero.name,
                                heals=min(a.trees, TREE_HEALS)))
        return state

    def _snakes_to_loki(self, state: RunecastState, seat: int, snakes: int,
                        events: list[Event]) -> RunecastState:
        hero = state.heroes[seat]
        moved = snakes
        cap = state.options.loki_max
        if cap is not None:
            # House rule Maximum Loki Pool: snakes beyond the cap stay with the hero.
            moved = min(snakes, max(0, cap - state.loki_pool))
        state = replace(state.with_hero(seat, pool=hero.pool - moved),
                        loki_pool=state.loki_pool + moved)
        if moved:
            events.append(event("runecast.snakes", player=hero.name, snakes=moved,
                                pool=state.loki_pool))
        if moved < snakes:
            events.append(event("runecast.loki_full", maximum=cap, kept=snakes - moved,
                                player=hero.name))
        return state

    def _tree_heal(self, state: RunecastState, a: TreeHeal, events: list[Event]) -> RunecastState:
        _require_turn(state, a.verb)
        seat = state.active
        hero = state.heroes[seat]
        if state.rolled is None:
            raise RuleError(f"tree_heal: heal with the trees of your roll; {hero.name} has not "
                            "rolled yet", rule="trees after roll")
        if state.tree_heals + a.count > TREE_HEALS:
            raise RuleError(f"tree_heal: at most {TREE_HEALS} HP a turn from trees, and "
                            f"{hero.name} has healed {state.tree_heals} this turn",
                            rule="two tree heals")
        if state.tree_heals + a.count > state.rolled.trees:
            raise RuleError(f"tree_heal: {hero.name} rolled {state.rolled.trees} tree(s) and has "
                            f"used {state.tree_heals}", rule="trees rolled")
        if hero.hp + a.count > hero.max_hp:
            raise RuleError(f"tree_heal: {hero.name} has {hero.hp} of {hero.max_hp} HP and "
                            f"cannot heal {a.count}", rule="max hp")
        if hero.pool < a.count:
            raise RuleError(f"tree_heal: {hero.name}'s pool holds {hero.pool} dice, too few to "
                            f"set {a.count} aside", rule="tree dice")
        events.append(event("runecast.tree_heal", player=hero.name, count=a.count,
                            before=hero.hp, after=hero.hp + a.count))
        state = state.with_hero(seat, hp=hero.hp + a.count, pool=hero.pool - a.count,
                                set_aside=hero.set_aside + a.count)
        return replace(state, tree_heals=state.tree_heals + a.count)

    def _next(self, state: RunecastState, a: Next, events: list[Event]) -> RunecastState:
        if state.phase is Phase.LOKI:
            raise WrongPhase(f"next: the round is over and Loki's roll comes first: "
                             f"{state.heroes[state.roller()].name} rolls Loki's "
                             f"{state.loki_pool} dice (loki_roll hammers=.. snakes=.. trees=..)",
                             rule="loki's roll")
        return self._end_turn(state, events)

    def _end_turn(self, state: RunecastState, events: list[Event]) -> RunecastState:
        here = state.active
        hero = state.heroes[here]
        if hero.alive:
            # Tree dice come back "at the end of their next turn": last turn's now, this turn's
            # at the end of the next one.
            if hero.waiting:
                events.append(event("runecast.dice_back", player=hero.name, count=hero.waiting,
                                    pool=hero.pool + hero.waiting))
            state = state.with_hero(here, pool=hero.pool + hero.waiting,
                                    waiting=hero.set_aside, set_aside=0)
        state = replace(state, rolled=None, flipped=False, tree_heals=0)
        nxt = state.next_seat(here)
        if nxt is None:
            return state
        n = len(state.heroes)
        # Turn order goes on round the table; a round ends when play comes back past the seat
        # that went first.
        if (nxt - state.first) % n <= (here - state.first) % n:
            state = replace(state, phase=Phase.LOKI)
            if state.loki_pool:
                roller = state.heroes[state.roller()]
                events.append(event("runecast.loki_turn", round=state.round, roller=roller.name,
                                    role="Loki's Thrall" if roller.alive else "agent of Loki",
                                    dice=state.loki_pool))
            return state
        state = replace(state, active=nxt, turn=state.turn + 1)
        events.append(_turn_event(state))
        return state

    def _new_round(self, state: RunecastState, events: list[Event]) -> RunecastState:
        """After Loki's roll: the next living hero in order starts, the Thrall moves on."""
        nxt = state.next_seat(state.active)
        thrall = state.next_seat(state.thrall)
        assert nxt is not None and thrall is not None, "a new round needs a living hero"
        state = replace(state, phase=Phase.TURN, round=state.round + 1, turn=state.turn + 1,
                        active=nxt, thrall=thrall, rolled=None, flipped=False, tree_heals=0)
        events.append(event("runecast.round", round=state.round,
                            thrall=state.heroes[state.roller()].name))
        events.append(_turn_event(state))
        return state

    # -- the battle board ---------------------------------------------------------------

    def _wound_board(self, state: RunecastState, amount: int, events: list[Event]) -> RunecastState:
        board = state.board
        after = min(board.wounds, state.wounds + amount)
        events.append(event("runecast.wounds", battle=board.name, amount=amount, after=after,
                            needed=board.wounds))
        state = replace(state, wounds=after)
        return self._battle_won(state, events) if after == board.wounds else state

    def _battle_won(self, state: RunecastState, events: list[Event]) -> RunecastState:
        events.append(event("runecast.battle_won", battle=state.board.name))
        if state.loki_pool:
            events.append(event("runecast.loki_discarded", dice=state.loki_pool))
            state = replace(state, box=state.box + state.loki_pool, loki_pool=0)
        if state.final_battle:
            events.append(event("runecast.victory"))
            return replace(state, outcome="victory")
        state = replace(state, battle=state.battle + 1, wounds=0)
        board = state.board
        events.append(event("runecast.battle", number=state.battle + 1, total=len(state.battles),
                            battle=board.name, wounds=board.wounds, snakes=board.special.needed,
                            trees=board.boon.needed))
        o = state.options
        for seat, hero in enumerate(state.heroes):
            if hero.alive or not (hero.returning or o.unlimited_lives):
                continue
            # "they draw Fate Cards ... back up to their starting limit".
            dice = 0 if o.refill_dice else min(o.dice, state.box)
            state = replace(state.with_hero(seat, alive=True, returning=False, hp=hero.max_hp,
                                            hand=max(hero.hand, o.fate_cards), pool=dice),
                            box=state.box - dice)
            events.append(event("runecast.returns", player=hero.name, hp=hero.max_hp,
                                hand=max(hero.hand, o.fate_cards)))
        if o.refill_dice:
            state = _refill(state)
            events.append(event("runecast.refill", dice=o.dice))
        return state

    def _wound(self, state: RunecastState, a: Wound, events: list[Event]) -> RunecastState:
        return self._wound_board(state, a.amount, events)

    # -- Loki's roll -----------------------------------------------------------------------

    def _loki_roll(self, state: RunecastState, a: LokiRoll, events: list[Event]) -> RunecastState:
        if state.phase is not Phase.LOKI:
            raise WrongPhase(f"loki_roll: Loki rolls at the end of the round, after every hero's "
                             f"turn; it is {state.heroes[state.active].name}'s turn",
                             rule="loki's roll")
        total = a.hammers + a.snakes + a.trees
        if total != state.loki_pool:
            raise RuleError(f"loki_roll: Loki's pool holds {state.loki_pool} dice and every one "
                            f"is rolled; the roll has {_faces(a.hammers, a.snakes, a.trees)}",
                            rule="roll the pool")
        card = () if a.card is None else parse_card(a.card, state.options.card_sets)
        roller = state.roller()
        agent = not state.heroes[roller].alive
        outcome = LokiOutcome(state.round, state.heroes[roller].name, agent, a.hammers,
                              a.snakes, a.trees, card)
        events.append(event("runecast.loki_roll", hammers=a.hammers, snakes=a.snakes,
                            trees=a.trees))
        # 1. Hammers: "resolve all damage and target player".
        state, outcome = self._loki_hammers(state, outcome, roller, events)
        if outcome.hammer_result == "foiled":
            events.append(event("runecast.foiled", dice=state.loki_pool))
            state = replace(state, box=state.box + state.loki_pool, loki_pool=0)
        if agent:
            state = replace(state, last_agent=roller)
        if state.outcome is not None:
            return replace(state, last_loki=replace(outcome, resolved=False))
        board = state.board
        # 2. Snakes: the special attack, once per round (Loki rolls once a round).
        special = outcome.hammer_result != "foiled" and a.snakes >= board.special.needed
        if outcome.hammer_result == "foiled":
            events.append(event("runecast.special_foiled", battle=board.name))
        elif special:
            events.append(event("runecast.special", battle=board.name, snakes=a.snakes,
                                needed=board.special.needed, text=board.special.text))
        else:
            events.append(event("runecast.no_special", battle=board.name, snakes=a.snakes,
                                needed=board.special.needed))
        # 3. Trees: Fate's boon, once per round.
        boon = a.trees >= board.boon.needed
        if boon:
            events.append(event("runecast.boon", trees=a.trees, needed=board.boon.needed,
                                text=board.boon.text))
        else:
            events.append(event("runecast.no_boon", trees=a.trees, needed=board.boon.needed))
        outcome = replace(outcome, special=special, special_needed=board.special.needed,
                          boon=boon, boon_needed=board.boon.needed)
        return self._new_round(replace(state, last_loki=outcome), events)

    def _loki_hammers(self, state: RunecastState, outcome: LokiOutcome, roller: int,
                      events: list[Event]) -> tuple[RunecastState, LokiOutcome]:
        hammers, card = outcome.hammers, outcome.card
        dice = outcome.hammers + outcome.snakes + outcome.trees
        hit = state.options.hit or hammers
        if hammers == 0 or hammers == dice or state.options.duo:
            if card:
                why = ("there are no hammers" if hammers == 0 else
                       "every die is a hammer" if hammers == dice else
                       "the two-character game disregards the runes")
                raise RuleError(f"loki_roll: no Loki's Chosen card is drawn when {why}; "
                                "leave out card=", rule="no card")
        if hammers == 0:
            return state, outcome
        if hammers == dice:
            damage = hammers // 2
            events.append(event("runecast.all_hammers", hammers=hammers, damage=damage))
            return self._hit(state, replace(outcome, hammer_result="all_hammers"),
                             state.living, damage, events)
        if state.options.duo:
            # "alternate Loki's Thrall and Loki's target": the target is the other character.
            target = next(s for s in state.living if s != roller)
            events.append(event("runecast.target", player=state.heroes[target].name))
            return self._hit(state, replace(outcome, hammer_result="target"), (target,), hit,
                             events)
        if not card:
            raise RuleError(f"loki_roll: Loki rolled {hammers} hammer(s): draw a Loki's Chosen "
                            "card and enter its rune sets in order, e.g. card=RFR,RRF,FFR",
                            rule="draw a card")
        events.append(event("runecast.card", card=" ".join(card)))
        for runes in card:
            if runes == FOILED:
                return state, replace(outcome, hammer_result="foiled", matched=runes)
            if runes == EVERYONE:
                events.append(event("runecast.everyone"))
                return self._hit(state, replace(outcome, hammer_result="everyone",
                                                 matched=runes), state.living, hit, events)
            holder = next((s for s, h in enumerate(state.heroes) if h.fate == runes), None)
            if holder is not None and state.heroes[holder].alive:
                events.append(event("runecast.hit", runes=runes,
                                    player=state.heroes[holder].name))
                return self._hit(state, replace(outcome, hammer_result="hit", matched=runes),
                                 (holder,), hit, events)
            # A fallen hero cannot be hit again: the next rune set decides.
            reason = ("no hero holds these runes" if holder is None else
                      f"{state.heroes[holder].name} has fallen")
            events.append(event("runecast.rune_miss", runes=runes, reason=reason))
        events.append(event("runecast.missed"))
        return state, replace(outcome, hammer_result="missed")

    def _hit(self, state: RunecastState, outcome: LokiOutcome, seats: tuple[int, ...],
             damage: int, events: list[Event]) -> tuple[RunecastState, LokiOutcome]:
        fallen = []
        for seat in seats:
            if damage:
                state = self._hurt(state, seat, damage, events)
            if not state.heroes[seat].alive:
                fallen.append(state.heroes[seat].name)
        return state, replace(outcome, hit=tuple(state.heroes[s].name for s in seats),
                              damage=damage, fallen=tuple(fallen))

    # -- HP, death and return ------------------------------------------------------------

    def _hurt(self, state: RunecastState, seat: int, amount: int,
              events: list[Event]) -> RunecastState:
        hero = state.heroes[seat]
        after = max(0, hero.hp - amount)
        events.append(event("runecast.damage", player=hero.name, amount=amount, before=hero.hp,
                            after=after))
        state = state.with_hero(seat, hp=after)
        return self._fall(state, seat, events) if after == 0 else state

    def _fall(self, state: RunecastState, seat: int, events: list[Event]) -> RunecastState:
        hero = state.heroes[seat]
        items = [x for x in (hero.weapon, hero.armour) if x is not None]
        # The fallen hero's dice leave the fight with them (they come back with the hero).
        state = replace(state.with_hero(seat, alive=False, pool=0, set_aside=0, waiting=0,
                                        weapon=None, armour=None),
                        box=state.box + hero.dice)
        events.append(event("runecast.fallen", player=hero.name,
                            items=f" and loses {' and '.join(items)}" if items else ""))
        if state.options.unlimited_lives:
            state = state.with_hero(seat, returning=True)
            events.append(event("runecast.unlimited", player=hero.name))
        elif hero.death_token:
            state = state.with_hero(seat, death_token=False, returning=True)
            events.append(event("runecast.death_token", player=hero.name))
        elif state.community_token:
            events.append(event("runecast.community_choice", player=hero.name))
        else:
            events.append(event("runecast.agent", player=hero.name))
        if not state.living:
            events.append(event("runecast.defeat"))
            return replace(state, outcome="defeat")
        if state.phase is Phase.TURN and seat == state.active:
            return self._end_turn(state, events)
        return state

    def _damage(self, state: RunecastState, a: Damage, events: list[Event]) -> RunecastState:
        return self._hurt(state, self._living(state, a.player, a.verb), a.amount, events)

    def _heal(self, state: RunecastState, a: Heal, events: list[Event]) -> RunecastState:
        seat = self._living(state, a.player, a.verb)
        hero = state.heroes[seat]
        after = min(hero.max_hp, hero.hp + a.amount)
        if after == hero.hp:
            raise RuleError(f"heal: {hero.name} is at their full {hero.max_hp} HP",
                            rule="max hp")
        events.append(event("runecast.heal", player=hero.name, gained=after - hero.hp,
                            before=hero.hp, after=after))
        return state.with_hero(seat, hp=after)

    def _reincarnate(self, state: RunecastState, a: Reincarnate,
                     events: list[Event]) -> RunecastState:
        seat = self._seat(state, a.player)
        hero = state.heroes[seat]
        if hero.alive:
            raise RuleError(f"reincarnate: {hero.name} has not fallen", rule="fallen")
        if hero.returning:
            raise RuleError(f"reincarnate: {hero.name} already returns at the start of the next "
                            "battle", rule="returning")
        if not state.community_token:
            raise RuleError("reincarnate: the Community Death Token has been spent",
                            rule="community token")
        events.append(event("runecast.reincarnate", player=hero.name))
        return replace(state.with_hero(seat, returning=True), community_token=False)

    # -- dice, items and runes ----------------------------------------------------------

    def _dice(self, state: RunecastState, a: AdjustDice, events: list[Event]) -> RunecastState:
        seat = self._living(state, a.player, a.verb)
        hero = state.heroes[seat]
        _check_move(a.verb, a.amount, hero.pool, f"{hero.name}'s pool", state.box)
        events.append(event("runecast.dice", player=hero.name, before=hero.pool,
                            after=hero.pool + a.amount))
        return replace(state.with_hero(seat, pool=hero.pool + a.amount),
                       box=state.box - a.amount)

    def _loki_dice(self, state: RunecastState, a: AdjustLokiDice,
                   events: list[Event]) -> RunecastState:
        _check_move(a.verb, a.amount, state.loki_pool, "Loki's pool", state.box)
        cap = state.options.loki_max
        if cap is not None and state.loki_pool + a.amount > cap:
            raise RuleError(f"loki_dice: Loki's pool may hold at most {cap} dice (house rule), "
                            f"it holds {state.loki_pool}", rule="maximum loki pool")
        events.append(event("runecast.loki_dice", before=state.loki_pool,
                            after=state.loki_pool + a.amount))
        return replace(state, loki_pool=state.loki_pool + a.amount, box=state.box - a.amount)

    def _discard(self, state: RunecastState, a: Discard, events: list[Event]) -> RunecastState:
        seat = self._living(state, a.player, a.verb)
        hero = state.heroes[seat]
        kind = "armour" if a.kind == "armor" else a.kind
        card = hero.weapon if kind == "weapon" else hero.armour
        if card is None:
            raise RuleError(f"discard: {hero.name} has no {kind} in play", rule="item in play")
        events.append(event("runecast.discard", player=hero.name, item=kind, card=card))
        return state.with_hero(seat, **{kind: None})

    def _fate(self, state: RunecastState, a: SetFate, events: list[Event]) -> RunecastState:
        seat = self._seat(state, a.player)
        hero = state.heroes[seat]
        if state.options.duo:
            raise RuleError("fate: the two-character game disregards the Hero's Fate runes",
                            rule="duo")
        runes = parse_runes(a.fate)
        if runes is None:
            raise ActionSyntaxError(f"fate: {a.fate!r} is not a rune set: three runes, each R "
                                    "or F, e.g. RFR")
        deck = state.options.fate_deck
        if runes not in deck:
            raise RuleError(f"fate: {runes} is not in this game's Hero's Fate deck "
                            f"({', '.join(deck)})", rule="fate deck")
        holder = next((h for h in state.heroes if h.fate == runes and h is not hero), None)
        if holder is not None:
            raise RuleError(f"fate: {holder.name} holds {runes}; each Hero's Fate card is dealt "
                            "once", rule="one card each")
        events.append(event("runecast.fate", player=hero.name, runes=runes))
        return state.with_hero(seat, fate=runes)


# -- module helpers ------------------------------------------------------------------

_CARD_SEPARATORS = re.compile(r"[\s,;/+\-]+")


def parse_card(text: str, sets: int) -> tuple[str, ...]:
    """A Loki's Chosen card's rune sets from ``RFR,RRF,FFR``, ``RFR-RRF-FFR``, ``RFR RRF FFR``
    or ``RFRRRFFFR``; an ActionSyntaxError names what is wrong."""
    words = [w for w in _CARD_SEPARATORS.split(text.strip().upper()) if w]
    if len(words) == 1 and len(words[0]) == 3 * sets:
        words = [words[0][i:i + 3] for i in range(0, len(words[0]), 3)]
    example = ",".join(["RFR", "RRF", "FFR", "FRF", "RFF"][:sets])
    for word in words:
        if parse_runes(word) is None:
            raise ActionSyntaxError(f"loki_roll: card {text!r} has the rune set {word!r}; a rune "
                                    f"set is three runes, each R or F (e.g. card={example})")
    if len(words) != sets:
        raise ActionSyntaxError(f"loki_roll: a Loki's Chosen card shows {sets} rune sets, "
                                f"card {text!r} has {len(words)} (e.g. card={example})")
    return tuple(words)


def _seats(names: tuple[str, ...], extra: tuple[str, ...]) -> list[tuple[str, str]]:
    """(seat name, controller) per character: the players, then the 2-player extras."""
    seats = [(name, name) for name in names]
    if not extra:
        return seats
    if len(names) != 2:
        raise SetupError(f"extra: additional characters are the 2-player rules; this game has "
                         f"{len(names)} players")
    count = dict.fromkeys(names, 0)
    for ref in extra:
        try:
            count[names[find_seat(names, ref)]] += 1
        except RuleError as e:
            raise SetupError(f"extra: {e}") from None
    for name, k in count.items():
        if not 1 <= k <= MAX_EXTRA:
            raise SetupError(f"extra: each player may choose 1 or {MAX_EXTRA} additional "
                             f"characters; {name} has {k}")
    # "as if it were a 4-6 player game": the extra characters sit after the players, in turns.
    for level in range(1, MAX_EXTRA + 1):
        seats.extend((f"{name} {level + 1}", name) for name in names if count[name] >= level)
    return seats


def _refill(state: RunecastState) -> RunecastState:
    """Every die back in the box, then each living hero's pool back to the Table-3 number."""
    box = state.box + sum(h.dice for h in state.heroes)
    heroes = []
    for hero in state.heroes:
        dice = state.options.dice if hero.alive else 0
        heroes.append(replace(hero, pool=dice, set_aside=0, waiting=0))
        box -= dice
    return replace(state, heroes=tuple(heroes), box=box)


def _check_move(verb: str, amount: int, held: int, where: str, box: int) -> None:
    if amount == 0:
        raise RuleError(f"{verb}: give the dice to add (+2) or remove (-1)", rule="amount")
    if amount > box:
        raise RuleError(f"{verb}: the box holds {box} dice, not {amount} more", rule="32 dice")
    if -amount > held:
        raise RuleError(f"{verb}: {where} holds {held} dice, not {-amount}", rule="dice held")


def _need_seed(setup: RunecastSetup) -> None:
    if setup.seed is None:
        raise SetupError("runecast: dealing needs a seed (the session adds one)")


def _require_turn(state: RunecastState, verb: str) -> None:
    if state.phase is Phase.LOKI:
        raise WrongPhase(f"{verb}: the round is over; Loki's roll comes first "
                         f"({state.heroes[state.roller()].name} rolls)", rule="loki's roll")


def _faces(hammers: int, snakes: int, trees: int) -> str:
    return (f"{hammers + snakes + trees} ({hammers} hammer(s), {snakes} snake(s), "
            f"{trees} tree(s))")


def _turn_event(state: RunecastState) -> Event:
    hero = state.heroes[state.active]
    return event("runecast.turn", round=state.round, player=hero.name, dice=hero.pool)


def _tier(hp: int) -> int:
    """The LED tracker's tier: 1 for 1-4 HP, 2 for 5-8, ...; 0 when fallen."""
    return 0 if hp <= 0 else (hp - 1) // 4 + 1


def _loki_json(o: LokiOutcome | None) -> dict[str, Any] | None:
    if o is None:
        return None
    return {
        "round": o.round, "roller": o.roller, "agent": o.agent,
        "dice": o.hammers + o.snakes + o.trees,
        "hammers": {"count": o.hammers, "result": o.hammer_result, "card": list(o.card),
                    "matched": o.matched, "hit": list(o.hit), "damage": o.damage,
                    "fallen": list(o.fallen)},
        "snakes": {"count": o.snakes, "needed": o.special_needed, "special_attack": o.special},
        "trees": {"count": o.trees, "needed": o.boon_needed, "boon": o.boon},
        "resolved": o.resolved,
    }


RULES = RunecastRules()
