"""Actions: the only thing that changes a game.

An action is a small frozen record, like a chess move. Touch, buttons, the
camera, MQTT and the command line all produce the same actions, in one of two
forms that both parse here:

* text a person can type: ``damage Ann 3``, ``heal "Ann Marie" 2 uptier``,
  ``loki_roll hammers=3 snakes=2 trees=1``
* JSON: ``{"action": "damage", "player": "Ann", "amount": 3}``

Each action class declares its fields once, with type hints; the text form,
the JSON form, the usage line and the validation are all derived from that
declaration, so they cannot drift apart::

    @action("damage")
    class Damage(Action):
        player: str
        amount: Positive
        immune: bool = False

Text form rules: fields are given in declaration order, or as ``name=value``
in any order; a ``bool`` field is set by writing its name; a
``tuple[str, ...]`` field takes every remaining word (or ``name=a,b,c``), and a
``tuple[int, ...]`` field likewise takes whole numbers (``cards=5,10``).
"""

from __future__ import annotations

import dataclasses
import difflib
import json
import shlex
import types
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Literal, TypeVar, dataclass_transform

from .errors import ActionSyntaxError

__all__ = [
    "Action",
    "ActionSet",
    "Min",
    "Max",
    "NonNegative",
    "Param",
    "Positive",
    "action",
    "whole_number",
]


@dataclass(frozen=True, slots=True)
class Min:
    """Annotated metadata: the smallest allowed value of an ``int`` field."""

    value: int


@dataclass(frozen=True, slots=True)
class Max:
    """Annotated metadata: the largest allowed value of an ``int`` field."""

    value: int


def whole_number(text: str) -> int | None:
    """``text`` as a whole number written in the digits 0-9 (no sign), else None.

    ``str.isdigit`` alone also passes ``²`` and other Unicode digits that ``int`` refuses,
    and ``int`` refuses numbers of thousands of digits: typed or sent input must never
    reach either as an exception.
    """
    if not (text.isascii() and text.isdigit()):
        return None
    try:
        return int(text)
    except ValueError:
        return None


Positive = Annotated[int, Min(1)]
NonNegative = Annotated[int, Min(0)]

_TRUE = {"yes", "true", "on", "1"}
_FALSE = {"no", "false", "off", "0"}


@dataclass(frozen=True, slots=True)
class Param:
    """One field of an action, as the parsers and the docs see it.

    ``minimum`` and ``maximum`` bound an ``int`` field, or each number of a
    ``numbers`` field (``tuple[int, ...]``).
    """

    name: str
    kind: Literal["int", "str", "bool", "tuple", "numbers", "choice"]
    required: bool
    default: Any = None
    optional: bool = False  # None is allowed
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[str, ...] = ()

    @property
    def placeholder(self) -> str:
        if self.kind == "choice":
            return "|".join(self.choices)
        return self.name.upper()

    def describe_range(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.minimum is not None and self.maximum is not None:
            return f"a whole number from {self.minimum} to {self.maximum}"
        if self.minimum is not None:
            return f"a whole number of at least {self.minimum}"
        if self.maximum is not None:
            return f"a whole number of at most {self.maximum}"
        return "a whole number"

    def from_text(self, verb: str, raw: str) -> Any:
        """Convert one word of the text form; range checks happen on construction."""
        if self.kind == "int":
            text = raw.strip()
            sign = -1 if text[:1] == "-" else 1
            value = whole_number(text[1:] if text[:1] in "+-" else text)
            if value is None:
                raise ActionSyntaxError(
                    f"{verb}: {self.placeholder} must be {self.describe_range()}, got {raw!r}"
                )
            return sign * value
        if self.kind == "bool":
            word = raw.strip().lower()
            if word in _TRUE:
                return True
            if word in _FALSE:
                return False
            raise ActionSyntaxError(f"{verb}: {self.name} must be yes or no, got {raw!r}")
        if self.kind == "tuple":
            return tuple(part.strip() for part in raw.split(",") if part.strip())
        if self.kind == "numbers":
            numbers = [whole_number(part.strip()) for part in raw.split(",") if part.strip()]
            if None in numbers:
                raise ActionSyntaxError(
                    f"{verb}: {self.placeholder} must be whole numbers separated by commas, "
                    f"got {raw!r}"
                )
            return tuple(numbers)
        if self.kind == "choice":
            return raw.strip().lower()
        return raw

    def from_json(self, verb: str, value: Any) -> Any:
        """Check the JSON type of one field; range checks happen on construction."""
        if value is None and self.optional:
            return None
        expected = {"int": "a whole number", "str": "a string", "bool": "true or false",
                    "tuple": "a list of strings", "numbers": "a list of whole numbers",
                    "choice": "a string"}[self.kind]
        ok = {
            "int": isinstance(value, int) and not isinstance(value, bool),
            "str": isinstance(value, str),
            "bool": isinstance(value, bool),
            "tuple": isinstance(value, list) and all(isinstance(v, str) for v in value),
            "numbers": isinstance(value, list)
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value),
            "choice": isinstance(value, str),
        }[self.kind]
        if not ok:
            raise ActionSyntaxError(
                f"{verb}: {self.name!r} must be {expected}, got {json.dumps(value)[:60]}"
            )
        if self.kind in ("tuple", "numbers"):
            return tuple(value)
        if self.kind == "choice":
            return value.lower()
        return value

    def check(self, verb: str, value: Any) -> None:
        """Validate a value of the right type; shared by every way of building an action."""
        if value is None:
            if self.optional:
                return
            raise ActionSyntaxError(f"{verb}: {self.placeholder} is missing")
        if self.kind == "int":
            if (self.minimum is not None and value < self.minimum) or (
                self.maximum is not None and value > self.maximum
            ):
                raise ActionSyntaxError(
                    f"{verb}: {self.placeholder} must be {self.describe_range()}, got {value}"
                )
        elif self.kind == "choice":
            if value not in self.choices:
                raise ActionSyntaxError(
                    f"{verb}: {self.name} must be {self.describe_range()}, got {value!r}"
                )
        elif self.kind == "str":
            if not value.strip():
                raise ActionSyntaxError(f"{verb}: {self.placeholder} must not be empty")
        elif self.kind == "tuple":
            if any(not v.strip() for v in value):
                raise ActionSyntaxError(f"{verb}: {self.placeholder} has an empty entry")
        elif self.kind == "numbers":
            for v in value:
                if (self.minimum is not None and v < self.minimum) or (
                    self.maximum is not None and v > self.maximum
                ):
                    raise ActionSyntaxError(
                        f"{verb}: each of {self.placeholder} must be {self.describe_range()}, "
                        f"got {v}"
                    )

    def to_text(self, value: Any) -> str:
        if self.kind in ("tuple", "numbers"):
            return ",".join(map(str, value))
        return str(value)


class Action:
    """Base class of every action; subclasses are made with :func:`action`."""

    __slots__ = ()
    verb: ClassVar[str]
    params: ClassVar[tuple[Param, ...]]
    seeded: ClassVar[bool]
    """The action draws random numbers, from its ``seed`` field (filled in by the session)."""

    def __post_init__(self) -> None:
        # Runs for every way of building an action (text, JSON, code), so no invalid one exists.
        for p in self.params:
            p.check(self.verb, getattr(self, p.name))

    @classmethod
    def usage(cls) -> str:
        """The text form as a one-line pattern, e.g. ``damage PLAYER AMOUNT [immune]``."""
        parts = [cls.verb]
        rest_taken = False  # after a list field takes every remaining word, only name=value
        for p in cls.params:
            if p.kind == "bool":
                parts.append(f"[{p.name}]")
            elif rest_taken:
                parts.append(f"[{p.name}={p.placeholder}]")
            elif p.kind in ("tuple", "numbers"):
                parts.append(f"{p.placeholder}..." if p.required else f"[{p.placeholder}...]")
                rest_taken = True
            elif p.required:
                parts.append(p.placeholder)
            else:
                parts.append(f"[{p.placeholder}]")
        return " ".join(parts)

    def to_json(self) -> dict[str, Any]:
        """The JSON form: the verb under ``"action"`` and every field not at its default."""
        out: dict[str, Any] = {"action": self.verb}
        for p in self.params:
            value = getattr(self, p.name)
            if not p.required and value == p.default:
                continue
            out[p.name] = list(value) if p.kind in ("tuple", "numbers") else value
        return out

    def __str__(self) -> str:
        """The text form; ``ActionSet.parse(str(a)) == a`` for every action."""
        words = [self.verb]
        for p in self.params:
            value = getattr(self, p.name)
            if p.kind == "bool":
                if value:
                    words.append(p.name)
            elif p.required and p.kind in ("tuple", "numbers"):
                words.extend(shlex.quote(str(v)) for v in value)
            elif p.required:
                words.append(shlex.quote(p.to_text(value)))
            elif value != p.default:
                words.append(f"{p.name}={shlex.quote(p.to_text(value))}")
        return " ".join(words)


A = TypeVar("A", bound=type[Action])


def _bounds(hint: Any) -> tuple[Any, int | None, int | None]:
    """Strip ``Annotated[...]`` from a hint, returning it with its Min/Max bounds."""
    if typing.get_origin(hint) is not Annotated:
        return hint, None, None
    hint, *meta = typing.get_args(hint)
    low = next((m.value for m in meta if isinstance(m, Min)), None)
    high = next((m.value for m in meta if isinstance(m, Max)), None)
    return hint, low, high


def _param_for(name: str, hint: Any, default: Any) -> Param:
    required = default is dataclasses.MISSING
    default = None if required else default
    optional = False
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        if len(members) != 1:
            raise TypeError(f"field {name}: unions other than X | None are not supported")
        optional, hint = True, members[0]
    hint, minimum, maximum = _bounds(hint)
    if hint is bool:
        return Param(name, "bool", False, bool(default))
    if hint is int:
        return Param(name, "int", required, default, optional, minimum, maximum)
    if hint is str:
        return Param(name, "str", required, default, optional)
    if typing.get_origin(hint) is tuple:
        item, low, high = _bounds(typing.get_args(hint)[0])
        if item is int:
            return Param(name, "numbers", required, default, optional, low, high)
        return Param(name, "tuple", required, default, optional)
    if typing.get_origin(hint) is Literal:
        return Param(name, "choice", required, default, optional,
                     choices=tuple(str(c) for c in typing.get_args(hint)))
    raise TypeError(f"field {name}: type {hint!r} is not supported in actions")


@dataclass_transform(frozen_default=True)
def action(verb: str) -> Callable[[A], A]:
    """Class decorator: make ``cls`` a frozen action with the text verb ``verb``."""

    def wrap(cls: A) -> A:
        cls = dataclass(frozen=True, slots=True)(cls)  # type: ignore[assignment]
        hints = typing.get_type_hints(cls, include_extras=True)
        params = tuple(
            _param_for(f.name, hints[f.name], f.default) for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        )
        cls.verb = verb
        cls.params = params
        cls.seeded = any(p.name == "seed" and p.kind == "int" for p in params)
        return cls

    return wrap


def _normalise_verb(word: str) -> str:
    return word.strip().lower().replace("-", "_")


class ActionSet:
    """The vocabulary of one game: every action class, by verb, and both parsers."""

    def __init__(self, *classes: type[Action]) -> None:
        self._by_verb: dict[str, type[Action]] = {}
        for cls in classes:
            self._add(cls)

    def _add(self, cls: type[Action]) -> None:
        if cls.verb in self._by_verb and self._by_verb[cls.verb] is not cls:
            raise ValueError(f"two actions use the verb {cls.verb!r}")
        self._by_verb[cls.verb] = cls

    def __or__(self, other: ActionSet) -> ActionSet:
        return ActionSet(*self, *other)

    def __iter__(self) -> Iterator[type[Action]]:
        return iter(self._by_verb.values())

    def __contains__(self, item: object) -> bool:
        """A verb (``"damage"``) or an action class of this vocabulary."""
        if isinstance(item, type):
            return self._by_verb.get(getattr(item, "verb", "")) is item
        return isinstance(item, str) and _normalise_verb(item) in self._by_verb

    def lookup(self, verb: str) -> type[Action]:
        try:
            return self._by_verb[_normalise_verb(verb)]
        except KeyError:
            close = difflib.get_close_matches(_normalise_verb(verb), self._by_verb, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise ActionSyntaxError(f"unknown action {verb!r}{hint}") from None

    def parse(self, line: str) -> Action:
        """Parse the text form of one action."""
        try:
            words = shlex.split(line)
        except ValueError as e:
            raise ActionSyntaxError(f"cannot read {line.strip()!r}: {str(e).lower()}") from None
        if not words:
            raise ActionSyntaxError("empty action")
        cls = self.lookup(words[0])
        by_name = {p.name: p for p in cls.params}
        values: dict[str, Any] = {}
        positional = [p for p in cls.params if p.kind != "bool"]
        rest: list[str] | None = None
        for word in words[1:]:
            key, sep, raw = word.partition("=")
            key = key.lower().replace("-", "_")
            if sep and key in by_name:
                p = by_name[key]
                if p.name in values:
                    raise ActionSyntaxError(f"{cls.verb}: {p.name} is given twice")
                values[p.name] = p.from_text(cls.verb, raw)
                continue
            if sep and key.isidentifier():
                raise ActionSyntaxError(f"{cls.verb}: unknown option {key!r}; usage: {cls.usage()}")
            flag = by_name.get(word.lower().replace("-", "_"))
            if not sep and flag is not None and flag.kind == "bool":
                values[flag.name] = True
                continue
            while positional and positional[0].name in values and rest is None:
                positional.pop(0)
            if not positional:
                raise ActionSyntaxError(
                    f"{cls.verb}: unexpected {word!r}; usage: {cls.usage()}"
                )
            p = positional[0]
            if p.kind in ("tuple", "numbers"):
                if rest is None:
                    rest = []
                    values[p.name] = rest
                rest.append(word)
            else:
                values[p.name] = p.from_text(cls.verb, word)
                positional.pop(0)
        if rest is not None:
            p = positional[0]
            values[p.name] = (tuple(rest) if p.kind == "tuple"
                              else tuple(n for w in rest for n in p.from_text(cls.verb, w)))
        return self._build(cls, values)

    def from_json(self, document: str | bytes | Mapping[str, Any]) -> Action:
        """Parse the JSON form (a JSON text or an already decoded object)."""
        if isinstance(document, (str, bytes)):
            try:
                document = json.loads(document)
            except (ValueError, RecursionError) as e:
                raise ActionSyntaxError(f"not valid JSON: {e}") from None
        if not isinstance(document, Mapping):
            raise ActionSyntaxError("an action must be a JSON object with an \"action\" key")
        verb = document.get("action")
        if not isinstance(verb, str):
            raise ActionSyntaxError("an action must be a JSON object with an \"action\" key")
        cls = self.lookup(verb)
        by_name = {p.name: p for p in cls.params}
        values: dict[str, Any] = {}
        for key, value in document.items():
            if key == "action":
                continue
            p = by_name.get(key)
            if p is None:
                raise ActionSyntaxError(f"{cls.verb}: unknown field {key!r}; usage: {cls.usage()}")
            values[key] = p.from_json(cls.verb, value)
        return self._build(cls, values)

    def read(self, line: str | bytes | Mapping[str, Any]) -> Action:
        """Parse either form: a mapping, or text starting with ``{`` or ``[``, is JSON."""
        if isinstance(line, Mapping):
            return self.from_json(line)
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError:
                raise ActionSyntaxError("an action must be UTF-8 text") from None
        if line.lstrip().startswith(("{", "[")):
            return self.from_json(line)
        return self.parse(line)

    @staticmethod
    def _build(cls: type[Action], values: dict[str, Any]) -> Action:
        for p in cls.params:
            if p.required and p.name not in values:
                raise ActionSyntaxError(f"{cls.verb}: {p.placeholder} is missing; usage: {cls.usage()}")
        return cls(**values)
