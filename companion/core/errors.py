"""Every error the game core raises.

Each failure has its own small class so callers can catch exactly what they
expect, and each also inherits the builtin it most resembles, so code that
only knows ``ValueError`` or ``KeyError`` still does the right thing.

Messages are sentences a player can read on the screen: they name the input
and, for rule errors, the rule that forbids it.
"""

from __future__ import annotations


class CompanionError(Exception):
    """Base class of every error raised on purpose by the companion."""


class ActionSyntaxError(CompanionError, ValueError):
    """A line of text or a JSON document is not a well-formed action."""


class SetupError(CompanionError, ValueError):
    """A game setup that the rules do not allow (too few players, bad teams)."""


class UnknownGame(SetupError, KeyError):
    """A game id that is not one of the games the companion knows."""

    def __str__(self) -> str:
        return str(self.args[0])


class RuleError(CompanionError, ValueError):
    """A well-formed action that the rules forbid in the current state.

    ``rule`` names the rule in a few words (for logs and tests); the message
    is the full sentence shown to players.
    """

    def __init__(self, message: str, *, rule: str = "") -> None:
        super().__init__(message)
        self.rule = rule


class UnknownPlayer(RuleError, KeyError):
    """An action names a player who is not at the table."""

    def __str__(self) -> str:
        # KeyError quotes its argument; a player should read a plain sentence.
        return str(self.args[0])


class UnknownName(RuleError, KeyError):
    """An action names a thing (a Location, a battle board, a card) that the game does not know."""

    def __str__(self) -> str:
        return str(self.args[0])


class WrongPhase(RuleError):
    """The action exists, but not in this phase or on this player's turn."""


class GameOver(RuleError):
    """The game has ended; only undo can change it now."""


class ReplayError(CompanionError, ValueError):
    """A line of a replay file could not be played; ``line`` is its 1-based number."""

    def __init__(self, message: str, *, line: int) -> None:
        super().__init__(message)
        self.line = line


class ContentError(CompanionError, ValueError):
    """A game data file (locations, battle boards, prices) is malformed."""


class JournalError(CompanionError, RuntimeError):
    """The journal could not be read or written; the game state did not change."""


class NoSuchGame(JournalError, KeyError):
    """The journal holds no game with that id."""

    def __str__(self) -> str:
        return str(self.args[0])


class JournalChanged(JournalError):
    """Another program (the ``runes`` command line) changed the game since it was read.

    Nothing was written: resuming the game from the journal and playing again is safe.
    """
