"""What each control does in each game: one data file per game.

The pin map says what a control *is* (seat 3's +1 button); the game's mapping,
``companion/data/panel/<game>.toml``, says what it *does*, as the text of a
command with ``{seat}`` (and, for a dial, ``{steps}``) filled in::

    [plus]
    press = "heal {seat} 1"
    repeat = true               # held: again and again, faster and faster

    [minus]
    press = "damage {seat} 1"   # with a long-press meaning, the press acts on release
    hold = "defeat {seat}"
    hold_time = "2s"

    [encoder]
    clockwise = "heal {seat} {steps}"
    counter_clockwise = "damage {seat} {steps}"

A command starting with ``@`` is a :class:`Request` to the app rather than a
game action: ``@read_dice roll`` asks the camera for the settled roll, which
the app turns into a ``roll`` action once the player confirms it.

Like all game content the file can be extended or overridden from the user's
data folders (:mod:`companion.core.content`), so a table can remap its
buttons without touching code.
"""

from __future__ import annotations

import shlex
import string
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

from companion.config import ConfigError, Seconds, read_section
from companion.core import content
from companion.core.actions import ActionSet
from companion.core.errors import ActionSyntaxError, ContentError

from .errors import MappingError
from .pinmap import FUNCTIONS

__all__ = ["GameMapping", "Meaning", "Request", "expand"]

RequestKind = Literal["read_dice", "confirm", "cancel"]

PANEL_OWN = frozenset({"confirm", "cancel"})
"""Controls whose meaning is the panel's, the same in every game (see ButtonPanel.confirm)."""

_BUTTON_KEYS = ("press", "repeat", "hold", "hold_time")
_DIAL_KEYS = ("clockwise", "counter_clockwise")
_TEMPLATES = ("press", "hold", "clockwise", "counter_clockwise")


@dataclass(frozen=True, slots=True)
class Meaning:
    """What one control does in one game (one table of the mapping file)."""

    press: str | None = None
    repeat: bool = False
    hold: str | None = None
    hold_time: Seconds = 2.0
    clockwise: str | None = None
    counter_clockwise: str | None = None


@dataclass(frozen=True, slots=True)
class Request:
    """Something the panel asks of the app rather than of the game.

    ``read_dice``: ask the camera (a separate process) for the settled roll,
    which becomes the action ``action`` once confirmed. ``confirm``/``cancel``:
    the Confirm or Cancel button with no dial turn waiting, for whatever the
    screen is asking (a dice reading, a question).
    """

    kind: RequestKind
    action: str | None = None
    seat: int | None = None


def expand(template: str, *, seat: int | None = None, steps: int | None = None) -> str | Request:
    """The command a template stands for: the text of a game command, or a request."""
    text = template.format(seat=seat, steps=steps)
    if not text.startswith("@"):
        return text
    words = shlex.split(text[1:])
    if not words:
        raise ValueError("@ must be followed by a request: @read_dice VERB")
    kind, *args = words
    if kind != "read_dice":
        raise ValueError(f"unknown request @{kind}; the requests are: @read_dice VERB")
    if len(args) != 1:
        raise ValueError("@read_dice takes one word: the action the reading becomes, "
                         "e.g. @read_dice roll")
    return Request("read_dice", args[0], seat)


@dataclass(frozen=True)
class GameMapping:
    """One game's meanings for the panel's controls, by pin-map function."""

    game: str
    meanings: Mapping[str, Meaning]
    source: str = ""

    @classmethod
    def load(cls, game: str) -> GameMapping:
        """``panel/<game>.toml`` from the data folders, checked for form (not yet for verbs)."""
        source = f"panel/{game}.toml"
        try:
            data = content.load(source)
        except ContentError as e:
            raise MappingError(str(e)) from e
        return cls.from_data(game, data, source)

    @classmethod
    def from_data(cls, game: str, data: Mapping[str, Any], source: str = "") -> GameMapping:
        where = source or f"the {game} mapping"
        meanings: dict[str, Meaning] = {}
        for function, table in data.items():
            meanings[function] = _meaning(function, table, where)
        return cls(game, meanings, where)

    def get(self, function: str) -> Meaning | None:
        return self.meanings.get(function)

    def check(self, vocabulary: ActionSet) -> None:
        """Raise a MappingError if a command is not an action the game knows."""
        for function, meaning in self.meanings.items():
            for key in _TEMPLATES:
                template = getattr(meaning, key)
                if template is None:
                    continue
                command = expand(template, seat=1, steps=1)
                try:
                    if isinstance(command, Request):
                        assert command.action is not None
                        vocabulary.lookup(command.action)
                    else:
                        vocabulary.read(command)
                except ActionSyntaxError as e:
                    raise MappingError(f"{self.source} [{function}] {key} = {template!r}: "
                                       f"{e}") from None


def _meaning(function: str, table: Any, where: str) -> Meaning:
    usable = [f for f, info in FUNCTIONS.items()
              if info.kind in ("button", "encoder") and f not in PANEL_OWN]
    if function in PANEL_OWN:
        raise MappingError(f"{where} [{function}]: {function} is the panel's own (it confirms "
                           "or cancels dial turns, or what the screen asks); leave it out")
    if function not in usable:
        raise MappingError(f"{where}: unknown control [{function}]; the controls are: "
                           + ", ".join(usable))
    if not isinstance(table, Mapping):
        raise MappingError(f"{where}: [{function}] must be a table of press, hold, ...")
    info = FUNCTIONS[function]
    allowed = _DIAL_KEYS if info.kind == "encoder" else _BUTTON_KEYS
    for key in table:
        if key not in allowed:
            raise MappingError(f"{where} [{function}]: unknown key {key!r}; a "
                               f"{info.kind}'s keys are: {', '.join(allowed)}")
    try:
        meaning = read_section(Meaning, table, function)
    except ConfigError as e:
        raise MappingError(f"{where} {e}") from None
    if meaning.hold_time <= 0:
        raise MappingError(f"{where} [{function}] hold_time: must be more than 0")
    if info.kind == "button":
        if meaning.press is None and meaning.hold is None:
            raise MappingError(f"{where} [{function}]: give press, hold or both")
        if meaning.repeat and meaning.hold is not None:
            raise MappingError(f"{where} [{function}]: a held button either repeats or has a "
                               "long-press meaning (hold), not both")
        if meaning.repeat and meaning.press is None:
            raise MappingError(f"{where} [{function}]: repeat repeats press; give press")
    elif meaning.clockwise is None and meaning.counter_clockwise is None:
        raise MappingError(f"{where} [{function}]: give clockwise, counter_clockwise or both")
    placeholders = {"seat"} if info.per_seat else set()
    if info.kind == "encoder":
        placeholders.add("steps")
    for field in fields(Meaning):
        template = getattr(meaning, field.name)
        if field.name in _TEMPLATES and template is not None:
            _check_template(template, placeholders, f"{where} [{function}] {field.name}")
    return meaning


def _check_template(template: str, placeholders: set[str], where: str) -> None:
    try:
        names = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as e:
        raise MappingError(f"{where} = {template!r}: {e}") from None
    for name in names - placeholders:
        known = ", ".join("{" + p + "}" for p in sorted(placeholders)) or "none"
        raise MappingError(f"{where} = {template!r}: unknown placeholder {{{name}}}; "
                           f"this control's placeholders: {known}")
    try:
        expand(template, seat=1, steps=1)
    except ValueError as e:
        raise MappingError(f"{where} = {template!r}: {e}") from None
    if not template.strip():
        raise MappingError(f"{where}: the command is empty")
