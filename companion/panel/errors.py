"""What can go wrong with the panel, one class per failure (see companion.core.errors)."""

from __future__ import annotations

from pathlib import Path

from companion.core.errors import CompanionError, ContentError

__all__ = ["MappingError", "PanelError", "PanelWarning", "PinMapError"]


class PinMapError(CompanionError, ValueError):
    """The pin map is malformed or unsafe; ``line`` is the 1-based line of the file at fault."""

    def __init__(self, message: str, *, path: Path | str, line: int) -> None:
        super().__init__(f"{path}, line {line}: {message}")
        self.path = Path(path)
        self.line = line


class MappingError(ContentError):
    """A game's panel mapping names a control, an action or a placeholder that does not exist."""


class PanelError(CompanionError, RuntimeError):
    """The panel's pins could not be had (no GPIO driver, a pin busy)."""


class PanelWarning(RuntimeWarning):
    """Something the person at the table should know: simulated pins, a stuck button."""
