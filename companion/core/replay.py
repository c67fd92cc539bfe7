"""Replay files: a game written down as text, one line per step.

The first line that is not blank or a ``#`` comment is the setup (its first
word, or its ``"action"`` in JSON, is the game: ``zun players=Ann,Bob``); every
later line is one action, in text or JSON. The command line's ``replay`` and
the scenario tests of every game read this format.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from .errors import ActionSyntaxError, CompanionError, ReplayError
from .session import Session

__all__ = ["ReplayError", "game_of", "replay_lines"]


def game_of(line: str) -> str:
    """The game a setup line names: its first word, or its ``"action"`` in JSON."""
    text = line.strip()
    if text.startswith("{"):
        try:
            document = json.loads(text)
        except ValueError as e:
            raise ActionSyntaxError(f"the setup is not valid JSON: {e}") from None
        if not isinstance(document, dict) or not isinstance(document.get("action"), str):
            raise ActionSyntaxError('a JSON setup needs "action": the game (zun, runecast, market)')
        return str(document["action"])
    words = text.split(maxsplit=1)
    if not words:
        raise ActionSyntaxError("the setup is empty: it names the game first, e.g. 'zun players=Ann,Bob'")
    return words[0]


def replay_lines(lines: Iterable[str], *, source: str = "<replay>") -> Session[Any]:
    """Play a replay file's lines in a fresh, unsaved session; errors name the line."""
    session: Session[Any] | None = None
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        try:
            if session is None:
                session = Session.new(game_of(line), line)
            else:
                session.play(line)
        except (CompanionError, KeyError) as e:
            raise ReplayError(f"{source}, line {number}: {line!r}: {e}", line=number) from e
    if session is None:
        raise ReplayError(f"{source}: no setup line (e.g. 'zun players=Ann,Bob')", line=0)
    return session
