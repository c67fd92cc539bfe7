"""The running companion: the game in play, and the one queue every input feeds.

Touch, buttons, the camera and MQTT all produce commands (actions, or
undo/redo). Buttons and MQTT deliver them on their own threads, so they never
touch the session: they ``submit`` to the table's queue, which is thread-safe,
and the owner thread (Kivy's main loop, or the headless service loop) calls
``pump`` to apply them in arrival order. A ``wake`` callback set by the owner
lets a submit nudge that loop at once instead of waiting for its next tick.

Listeners (the screen, the MQTT publisher, the trackers) are told of every
change on the owner thread, and of a new or resumed game with ``change=None``
so they can show everything afresh.
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from companion.config import ConfigError
from companion.core.actions import Action
from companion.core.errors import CompanionError, JournalChanged
from companion.core.events import Event
from companion.core.journal import Journal
from companion.core.rules import Rules, Setup
from companion.core.session import Change, Session

__all__ = ["Command", "Result", "Table", "TableConfig"]

log = logging.getLogger(__name__)

Command = Action | str | bytes | Mapping[str, Any]
Listener = Callable[[Session[Any], "Change[Any] | None"], None]


@dataclass(frozen=True)
class TableConfig:
    """The ``[table]`` settings: which table this is (the journal is ``[journal]``)."""

    id: str = "table1"
    """The table's id in MQTT topics (``runes/<id>/...``): letters, digits, ``-`` and ``_``."""

    def __post_init__(self) -> None:
        # Checked here, at load, for every process that reads [table] (service, app,
        # camera, installer), not when the first topic is made from it.
        from companion.mqtt.topics import check_id  # not at the top: companion.mqtt imports us

        try:
            check_id(self.id, "[table] id")
        except ValueError as e:
            raise ConfigError(str(e)) from None


@dataclass(frozen=True, slots=True)
class Result:
    """The answer to one command: the new revision, or why nothing changed."""

    ok: bool
    revision: int | None
    events: tuple[Event, ...] = ()
    error: str | None = None
    kind: str | None = None
    """The error's class name (``RuleError``, ``ActionSyntaxError``, ...), for programs."""

    def to_json(self) -> dict[str, Any]:
        if self.ok:
            return {"ok": True, "revision": self.revision,
                    "events": [e.to_json() for e in self.events]}
        return {"ok": False, "revision": self.revision, "error": self.error, "kind": self.kind}


class Table:
    """One table's companion: a journal, the game in play, listeners and the input queue."""

    QUEUE_LIMIT = 256
    """Commands waiting at most; beyond that a flood (a stuck button, a runaway client) is refused."""

    def __init__(self, journal: Journal, *, table_id: str = "table") -> None:
        self.journal = journal
        self.table_id = table_id
        self.session: Session[Any] | None = None
        self.wake: Callable[[], None] | None = None
        self._queue: queue.Queue[tuple[Command, str, Callable[[Result], None] | None]] = (
            queue.Queue(self.QUEUE_LIMIT))
        self._listeners: list[Listener] = []
        self._detach: Callable[[], None] | None = None

    # -- games (owner thread) ---------------------------------------------------

    def start(self, rules: Rules[Any] | str, setup: Setup | str | Mapping[str, Any],
              title: str = "") -> Session[Any]:
        """Start a new game, saved in the journal from its first moment."""
        return self._attach(Session.new(rules, setup, journal=self.journal, title=title))

    def resume(self, game_id: int | None = None) -> Session[Any]:
        """Resume a saved game (default: the last unfinished one)."""
        return self._attach(Session.resume(self.journal, game_id))

    def _attach(self, session: Session[Any]) -> Session[Any]:
        if self._detach is not None:
            self._detach()
        self.session = session
        self._detach = session.subscribe(lambda change: self._tell(session, change))
        self._tell(session, None)
        return session

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(session, change)`` on every change, ``change=None`` for a new game."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _tell(self, session: Session[Any], change: Change[Any] | None) -> None:
        for listener in list(self._listeners):
            try:
                listener(session, change)
            except Exception:
                # The change is committed; a broken output must not make it look refused.
                log.exception("table listener %r failed", listener)

    # -- commands --------------------------------------------------------------------

    def submit(self, command: Command, *, source: str = "",
               reply: Callable[[Result], None] | None = None) -> bool:
        """Queue a command from any thread; False (and an error reply) if the queue is full."""
        try:
            self._queue.put_nowait((command, source, reply))
        except queue.Full:
            log.warning("command from %s refused: %d commands already waiting",
                        source or "?", self.QUEUE_LIMIT)
            if reply is not None:
                reply(Result(False, self._revision(), error="the companion is busy; try again",
                             kind="Busy"))
            return False
        if self.wake is not None:
            self.wake()
        return True

    def pump(self, limit: int = QUEUE_LIMIT) -> int:
        """Apply up to ``limit`` queued commands on the owner thread; returns how many."""
        done = 0
        while done < limit:
            try:
                command, source, reply = self._queue.get_nowait()
            except queue.Empty:
                break
            result = self.execute(command, source=source)
            done += 1
            if reply is not None:
                reply(result)
        return done

    def execute(self, command: Command, *, source: str = "") -> Result:
        """Apply one command now (owner thread); the result says what happened or why not."""
        if self.session is None:
            return Result(False, None, error="no game is being played; start or resume one",
                          kind="NoGame")
        try:
            try:
                events = self.session.play(command)
            except JournalChanged as e:
                # The command line played this game meanwhile: take its actions in, then ours.
                log.warning("%s; reading the game again", e)
                events = self.resume(self.session.game_id).play(command)
        except CompanionError as e:
            log.info("refused from %s: %r: %s", source or "?", command, e)
            return Result(False, self.session.revision, error=str(e), kind=type(e).__name__)
        except Exception:
            # A bug, not bad input: the game goes on, and the sender still gets an answer.
            log.exception("command from %s failed unexpectedly: %r", source or "?", command)
            return Result(False, self.session.revision, kind="InternalError",
                          error="the companion failed on this command (see its log)")
        return Result(True, self.session.revision, events)

    def _revision(self) -> int | None:
        return None if self.session is None else self.session.revision
