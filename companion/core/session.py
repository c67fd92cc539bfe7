"""A game session: one game's log, its undo/redo cursor, and who to tell.

The session is the one place where a game changes. It parses commands into
actions, asks the pure rules engine for the next state, writes the action to
the journal, and only then moves its cursor and tells its listeners (the
screen, MQTT, the LED trackers). If the engine refuses or the journal write
fails, nothing changes and nobody is told.

Every state of the game is kept (states are immutable and share structure),
so undo, redo and jumping to any earlier point are instant and exact.

A session is not thread-safe: it belongs to one thread (the app's main loop).
Hardware threads hand their commands to that thread, they never call in.
"""

from __future__ import annotations

import dataclasses
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .actions import Action, ActionSet, NonNegative, action
from .errors import ActionSyntaxError, JournalError, NoSuchGame, RuleError
from .events import MESSAGES, Event, event
from .journal import Journal, Status
from .rules import Rules, Setup, rules_for

__all__ = ["Change", "Entry", "Goto", "NothingToRedo", "NothingToUndo", "Redo", "Session",
           "SESSION_ACTIONS", "Undo", "parse_setup"]

log = logging.getLogger(__name__)

S = TypeVar("S")

STATE_SCHEMA = 1
"""Version of the JSON state envelope; bumped when a field changes meaning."""


@action("undo")
class Undo(Action):
    """Take back the last action."""


@action("redo")
class Redo(Action):
    """Bring back the last action taken back by undo."""


@action("goto")
class Goto(Action):
    """Jump to the game as it was after action number POSITION (0 is the start); redo can come back."""

    position: NonNegative


SESSION_ACTIONS = ActionSet(Undo, Redo, Goto)
"""Commands every game understands; the session handles them, not the engine."""


class NothingToUndo(RuleError):
    """Undo at the start of the game."""


class NothingToRedo(RuleError):
    """Redo with nothing taken back."""


MESSAGES.register({
    "undo": "Undone: {action}",
    "redo": "Redone: {action}",
    "goto": "Back to the game after action {position} of {length}",
})


@dataclass(frozen=True, slots=True)
class Change(Generic[S]):
    """What a listener hears after every change of the game."""

    command: Action
    """The action applied, or the Undo, Redo or Goto that moved the cursor."""
    events: tuple[Event, ...]
    state: S
    revision: int
    """Increases by one with every change, across restarts: subscribers use it to order states."""
    cursor: int


@dataclass(frozen=True, slots=True)
class Entry:
    """One line of the game's history."""

    seq: int
    action: Action
    events: tuple[Event, ...]
    at: float
    undone: bool


def parse_setup(rules: Rules[Any], setup: Setup | str | Mapping[str, Any]) -> Setup:
    """A game's setup from its text form (``zun players=Ann,Bob``), JSON form or record."""
    if isinstance(setup, Setup):
        return setup
    vocabulary = ActionSet(rules.setup_type)
    if isinstance(setup, str) and not setup.lstrip().startswith("{"):
        # The game's name may lead the text (``zun players=...``); a player called Zuni may not.
        words = setup.split(maxsplit=1)
        if not words or words[0].lower() != rules.name:
            setup = f"{rules.name} {setup}"
    record = vocabulary.read(setup)
    assert isinstance(record, Setup)
    return record


def _seeded(record: Action) -> Action:
    """Give a record that draws random numbers its seed, so that replay draws the same ones."""
    if record.seeded and getattr(record, "seed") is None:
        return dataclasses.replace(record, seed=secrets.randbelow(2**31))  # type: ignore[type-var]
    return record


class Session(Generic[S]):
    """One game being played; see the module docstring."""

    def __init__(
        self,
        rules: Rules[S],
        setup: Setup,
        *,
        journal: Journal | None = None,
        game_id: int | None = None,
    ) -> None:
        self.rules = rules
        self.setup = _seeded(setup)
        self.journal = journal
        self.game_id = game_id
        self.vocabulary = rules.actions | SESSION_ACTIONS
        self._states: list[S] = [rules.new_game(self.setup)]  # type: ignore[arg-type]
        self._actions: list[Action] = []
        self._events: list[tuple[Event, ...]] = []
        self._times: list[float] = []
        self.cursor = 0
        self.revision = 0
        self._listeners: list[Callable[[Change[S]], None]] = []

    # -- starting and resuming ----------------------------------------------

    @classmethod
    def new(
        cls,
        rules: Rules[S] | str,
        setup: Setup | str | Mapping[str, Any],
        *,
        journal: Journal | None = None,
        title: str = "",
    ) -> Session[S]:
        """Start a game; with a journal, it is saved from its first moment."""
        if isinstance(rules, str):
            rules = rules_for(rules)
        session = cls(rules, parse_setup(rules, setup))
        if journal is not None:
            session.journal = journal
            session.game_id = journal.create_game(rules.name, session.setup.to_json(), title)
        return session

    @classmethod
    def resume(cls, journal: Journal, game_id: int | None = None, *,
               current: bool = True) -> Session[Any]:
        """The saved game ``game_id`` (default: the last unfinished one), exactly as it was left.

        ``current``: resuming to play makes it the current game (and brings an archived one
        back); only looking at it (``runes state``, an export) leaves the journal untouched.
        """
        if game_id is None:
            game_id = journal.latest_unfinished()
            if game_id is None:
                raise NoSuchGame(f"no unfinished game in {journal.path}")
        saved = journal.load(game_id)
        rules = rules_for(saved.info.rules)
        session: Session[Any] = cls(
            rules, parse_setup(rules, saved.setup), journal=journal, game_id=game_id
        )
        for seq, (document, at) in enumerate(zip(saved.actions, saved.times), 1):
            try:
                session._extend(session.vocabulary.from_json(document), at)
            except (ActionSyntaxError, RuleError) as e:
                # Only possible if the game's data files changed under a saved game.
                raise JournalError(f"game {game_id}: stored action {seq} no longer applies: {e}") from e
        session.cursor = min(saved.info.cursor, len(session._actions))
        session.revision = saved.revision
        if current:
            journal.mark(game_id, session._status(session.state))
        return session

    def _extend(self, act: Action, at: float) -> None:
        state, events = self.rules.apply(self._states[-1], act)
        self._states.append(state)
        self._actions.append(act)
        self._events.append(events)
        self._times.append(at)

    # -- looking -------------------------------------------------------------

    @property
    def state(self) -> S:
        return self._states[self.cursor]

    @property
    def log(self) -> tuple[Action, ...]:
        """The actions that make the current state, in order."""
        return tuple(self._actions[: self.cursor])

    @property
    def finished(self) -> bool:
        return self.rules.finished(self.state)

    @property
    def can_undo(self) -> bool:
        return self.cursor > 0

    @property
    def can_redo(self) -> bool:
        return self.cursor < len(self._actions)

    def state_at(self, position: int) -> S:
        """The state after the first ``position`` actions (0 is the start)."""
        return self._states[position]

    def history(self) -> list[Entry]:
        """Every stored action with what it did; entries past the cursor are undone."""
        return [
            Entry(i + 1, a, e, t, i >= self.cursor)
            for i, (a, e, t) in enumerate(zip(self._actions, self._events, self._times))
        ]

    def to_json(self) -> dict[str, Any]:
        """The state for the screen, MQTT and ``state --json``, with who and which version."""
        return {
            "schema": STATE_SCHEMA,
            "game": self.rules.name,
            "game_id": self.game_id,
            "revision": self.revision,
            "cursor": self.cursor,
            **self.rules.to_json(self.state),
        }

    # -- changing ------------------------------------------------------------

    def subscribe(self, listener: Callable[[Change[S]], None]) -> Callable[[], None]:
        """Call ``listener`` after every change; returns a function that unsubscribes."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def parse(self, command: Action | str | bytes | Mapping[str, Any]) -> Action:
        """An action of this game (or undo/redo/goto) from text, JSON or a record."""
        if isinstance(command, Action):
            if type(command) not in self.vocabulary:
                raise RuleError(f"{command.verb!r} is not an action of {self.rules.title}",
                                rule="vocabulary")
            return command
        return self.vocabulary.read(command)

    def play(self, command: Action | str | bytes | Mapping[str, Any]) -> tuple[Event, ...]:
        """Apply one command and return what happened; on any error nothing changes."""
        act = self.parse(command)
        if isinstance(act, Undo):
            return self.undo()
        if isinstance(act, Redo):
            return self.redo()
        if isinstance(act, Goto):
            return self.goto(act.position)
        act = _seeded(act)
        state, events = self.rules.apply(self.state, act)
        seq = self.cursor + 1
        at = time.time()
        if self.journal is not None and self.game_id is not None:
            self.journal.append(self.game_id, seq, act.to_json(),
                                status=self._status(state), revision=self.revision + 1)
        del self._states[seq:], self._actions[self.cursor:]
        del self._events[self.cursor:], self._times[self.cursor:]
        self._states.append(state)
        self._actions.append(act)
        self._events.append(events)
        self._times.append(at)
        self._moved(seq, act, events)
        return events

    def undo(self) -> tuple[Event, ...]:
        if not self.can_undo:
            raise NothingToUndo("nothing to undo: the game is at its start", rule="undo")
        undone = self._actions[self.cursor - 1]
        events = (event("undo", action=str(undone)),)
        self._move(self.cursor - 1, Undo(), events)
        return events

    def redo(self) -> tuple[Event, ...]:
        if not self.can_redo:
            raise NothingToRedo("nothing to redo", rule="redo")
        redone = self._actions[self.cursor]
        events = (event("redo", action=str(redone)),)
        self._move(self.cursor + 1, Redo(), events)
        return events

    def goto(self, position: int) -> tuple[Event, ...]:
        if not 0 <= position <= len(self._actions):
            raise RuleError(
                f"goto: there is no action {position}; the log holds {len(self._actions)}",
                rule="goto",
            )
        events = (event("goto", position=position, length=len(self._actions)),)
        self._move(position, Goto(position), events)
        return events

    def _move(self, cursor: int, command: Action, events: tuple[Event, ...]) -> None:
        if self.journal is not None and self.game_id is not None:
            self.journal.move_cursor(self.game_id, cursor, status=self._status(self._states[cursor]),
                                     revision=self.revision + 1)
        self._moved(cursor, command, events)

    def _moved(self, cursor: int, command: Action, events: tuple[Event, ...]) -> None:
        self.cursor = cursor
        self.revision += 1
        change = Change(command, events, self.state, self.revision, cursor)
        for listener in list(self._listeners):
            try:
                listener(change)
            except Exception:
                # The change is committed; a broken display must not make it look refused.
                log.exception("listener %r failed on revision %d", listener, self.revision)

    def _status(self, state: S) -> Status:
        return "finished" if self.rules.finished(state) else "active"
