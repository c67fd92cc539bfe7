"""The action reference (docs/actions.md), generated from the action declarations.

Each action is declared once, with type hints; its text form, JSON fields, limits and the
errors its fields can raise all come from that declaration, so the reference cannot drift
from the code. A test regenerates it and compares. Run ``python -m companion.reference``
to rewrite the file.
"""

from __future__ import annotations

import json
import inspect
import sys
from collections.abc import Iterable
from pathlib import Path

from companion.core.actions import Action, Param
from companion.core.rules import GAMES, rules_for
from companion.core.session import SESSION_ACTIONS

DOC = Path(__file__).resolve().parent.parent / "docs" / "actions.md"

_JSON_TYPE = {"int": "whole number", "str": "string", "bool": "true/false",
              "tuple": "list of strings", "numbers": "list of whole numbers",
              "choice": "string"}

PREAMBLE = """\
# Actions

Every way of playing (the touchscreen, the buttons, the camera, MQTT commands and the `runes`
command line) produces the same actions. Each has two forms:

- **text**, as a person types it: words in order, or `name=value` in any order; a flag by
  its name; quotes around words with spaces (`heal "Ann Marie" 2 uptier`).
- **JSON**: an object with the verb under `"action"` and the fields by name
  (`{"action": "heal", "player": "Ann Marie", "amount": 2, "uptier": true}`). Types are
  strict: `"3"` is not a number. Unknown fields are refused.

A PLAYER is a name in any case or a seat number (`damage 2 3`). Errors are sentences naming
the input and the rule, and a refused action changes nothing:

- a malformed action (unknown verb, a missing or surplus word, a value of the wrong type or
  out of range, bad JSON) is an `ActionSyntaxError`;
- a well-formed action the rules forbid is a `RuleError`: `UnknownPlayer`, `UnknownName` (a
  Location, a board, a card), `WrongPhase`, `GameOver` (only undo after the end), or a plain
  `RuleError` naming the rule.

This file is generated from the action declarations by `python -m companion.reference`;
a test fails if it is out of date.
"""


def _field_errors(p: Param) -> str:
    if p.kind == "int":
        return f"must be {p.describe_range()}"
    if p.kind == "choice":
        return f"must be {p.describe_range()}"
    if p.kind == "str":
        return "must not be empty"
    if p.kind == "tuple":
        return "entries must not be empty"
    if p.kind == "numbers":
        return f"each {p.describe_range()}"
    return "yes/no in text, true/false in JSON"


def _action_section(cls: type[Action]) -> list[str]:
    lines = [f"### `{cls.verb}`", "", f"Text: `{cls.usage()}`", ""]
    doc = inspect.getdoc(cls) or ""
    lines += [doc, ""] if doc else []
    if cls.params:
        lines += ["| JSON field | type | required | default | limits |",
                  "|---|---|---|---|---|"]
        for p in cls.params:
            default = "" if p.required else f"`{json.dumps(p.default)}`"
            lines.append(f"| `{p.name}` | {_JSON_TYPE[p.kind]} | "
                         f"{'yes' if p.required else 'no'} | {default} | {_field_errors(p)} |")
        lines.append("")
    return lines


def _game_section(name: str) -> list[str]:
    rules = rules_for(name)
    lines = [f"## {rules.title} (`{rules.name}`)", "", "### Setup", "",
             f"Text: `{rules.setup_type.usage()}`", ""]
    doc = inspect.getdoc(rules.setup_type) or ""
    lines += [doc, ""] if doc else []
    for cls in rules.actions:
        lines += _action_section(cls)
    return lines


def render(games: Iterable[str] | None = None) -> str:
    lines = [PREAMBLE, "## Every game", ""]
    for cls in SESSION_ACTIONS:
        lines += _action_section(cls)
    for name in games if games is not None else GAMES:
        lines += _game_section(name)
    return "\n".join(lines).rstrip() + "\n"


if __name__ == "__main__":
    DOC.write_text(render())
    print(f"wrote {DOC}", file=sys.stderr)
