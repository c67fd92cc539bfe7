"""What the screens may do to the game: the one door between Kivy and the engines.

Screens never import a rules engine or touch a session. They call the
controller with the same commands the command line takes (``damage Ann 3``,
or the JSON form) and read the game back as ``Session.to_json()`` data, so
every way into the game stays one way.

Two guards live here because every screen needs them:

* **Stale taps.** A screen passes the revision it was showing (``seen``);
  if the game moved on before the tap landed (another tap in the same frame,
  a button on the panel, an MQTT command), the tap is refused instead of
  being applied to a state the player never saw.
* **Nothing half-applied.** Setup and actions are validated by the engine
  before anything is stored; a refusal comes back as a :class:`Result` with
  the engine's sentence, and the game is unchanged.

The controller runs on the owner thread (Kivy's main loop); it holds no Kivy
object, so it is tested without a window.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from companion.core.errors import CompanionError
from companion.core.events import Event
from companion.core.journal import GameInfo
from companion.core.rules import GAMES, rules_for
from companion.core.session import Change, Session
from companion.table import Command, Result, Table

from .strings import t

__all__ = ["Controller", "HistoryLine", "Preview"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Preview:
    """What a command would do, computed by the engine without applying it."""

    ok: bool
    state: Mapping[str, Any] = field(default_factory=dict)
    events: tuple[Event, ...] = ()
    error: str | None = None

    def seat(self, seat: int) -> Mapping[str, Any] | None:
        """The previewed player in ``seat`` (1-based), if the game has players."""
        for player in self.state.get("players", ()):
            if player.get("seat") == seat:
                return player  # type: ignore[no-any-return]
        return None


@dataclass(frozen=True, slots=True)
class HistoryLine:
    """One action of the log, as the History screen lists it."""

    seq: int
    """1-based; ``goto seq`` brings the game back to just after this action."""
    command: str
    sentences: tuple[str, ...]
    undone: bool


class Controller:
    """The app's hold on the table: games, commands and what the screens read."""

    def __init__(self, table: Table) -> None:
        self.table = table

    # -- games -----------------------------------------------------------------------

    @property
    def session(self) -> Session[Any] | None:
        return self.table.session

    @property
    def game(self) -> str | None:
        """The id of the game being played (``zun``), or None."""
        return None if self.session is None else self.session.rules.name

    @property
    def revision(self) -> int | None:
        return None if self.session is None else self.session.revision

    @staticmethod
    def available_games() -> dict[str, bool]:
        """Every game the companion knows, and whether its engine is installed."""
        out = {}
        for name in GAMES:
            try:
                rules_for(name)
            except ImportError:
                out[name] = False
            else:
                out[name] = True
        return out

    def saved_games(self, *, include_archived: bool = False) -> list[GameInfo]:
        return self.table.journal.games(include_archived=include_archived)

    def actions_stored(self, game_id: int) -> int:
        """How many actions a saved game holds (for the Home list)."""
        return len(self.table.journal.load(game_id).actions)

    def new_game(self, game: str, setup: str | Mapping[str, Any]) -> Result:
        """Start and save a new game; a setup the rules forbid leaves everything as it was."""
        try:
            # The session is built (and the setup checked by the engine) before it is saved.
            session = self.table.start(game, setup)
        except (CompanionError, ImportError) as e:
            return Result(False, None, error=str(e), kind=type(e).__name__)
        return Result(True, session.revision)

    def resume(self, game_id: int | None = None) -> Result:
        try:
            session = self.table.resume(game_id)
        except CompanionError as e:
            return Result(False, None, error=str(e), kind=type(e).__name__)
        return Result(True, session.revision)

    def archive(self, game_id: int) -> Result:
        """Put a saved game away; archiving the game in play also leaves it."""
        try:
            self.table.journal.mark(game_id, "archived")
        except CompanionError as e:
            return Result(False, None, error=str(e), kind=type(e).__name__)
        if self.session is not None and self.session.game_id == game_id:
            # An archived game takes no more actions: the table leaves it.
            self.table.session = None
        return Result(True, None)

    # -- commands --------------------------------------------------------------------

    def play(self, command: Command, *, seen: int | None = None, source: str = "touch") -> Result:
        """Apply a command now; ``seen`` is the revision the tapping screen showed."""
        if self.session is None:
            return Result(False, None, error=t("error.no_game"), kind="NoGame")
        if seen is not None and seen != self.session.revision:
            return Result(False, self.session.revision, error=t("table.stale"), kind="Stale")
        return self.table.execute(command, source=source)

    def preview(self, command: Command) -> Preview:
        """The state ``command`` would lead to, from the engine, without storing anything."""
        session = self.session
        if session is None:
            return Preview(False, error=t("error.no_game"))
        try:
            act = session.parse(command)
            state, events = session.rules.apply(session.state, act)
        except CompanionError as e:
            return Preview(False, error=str(e))
        return Preview(True, session.rules.to_json(state), events)

    def subscribe(self, listener: Callable[[Session[Any], Change[Any] | None], None]
                  ) -> Callable[[], None]:
        """Hear every change (owner thread); ``None`` means a new or resumed game."""
        return self.table.subscribe(listener)

    # -- reading ---------------------------------------------------------------------

    def state(self) -> dict[str, Any]:
        """``Session.to_json()`` of the game in play, or ``{}``."""
        return {} if self.session is None else self.session.to_json()

    @property
    def can_undo(self) -> bool:
        return self.session is not None and self.session.can_undo

    @property
    def can_redo(self) -> bool:
        return self.session is not None and self.session.can_redo

    def history(self) -> list[HistoryLine]:
        """Every stored action with its sentences; entries past the cursor are undone."""
        if self.session is None:
            return []
        return [HistoryLine(e.seq, str(e.action), tuple(str(ev) for ev in e.events), e.undone)
                for e in self.session.history()]

    def hp_series(self) -> dict[str, list[int]]:
        """Each player's HP after every action of the game so far (index 0: the start)."""
        session = self.session
        if session is None:
            return {}
        series: dict[str, list[int]] = {}
        for position in range(session.cursor + 1):
            for seat in session.rules.seats(session.state_at(position)):
                if seat.get("hp") is not None:
                    series.setdefault(seat["name"], []).append(int(seat["hp"]))
        return series

    def log_json(self) -> list[dict[str, Any]]:
        """The actions that make the current state, in their JSON form."""
        return [] if self.session is None else [a.to_json() for a in self.session.log]
