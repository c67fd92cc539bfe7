"""Getting games out of the journal and back in, and keeping copies of the journal.

* Export: one game as JSON (setup, every action with its time, the cursor), which
  :func:`import_game` turns back into a saved game, and its log as CSV for a spreadsheet.
* Backups: a consistent copy of the whole journal taken while the app runs (SQLite's online
  backup), named by time, keeping the newest N. The systemd timer runs ``runes backup``.
"""

from __future__ import annotations

import csv
import json
import math
import time
from pathlib import Path
from typing import Any, TextIO, TypeVar

from companion.core.errors import CompanionError, JournalError, RuleError
from companion.core.journal import Journal
from companion.core.session import SESSION_ACTIONS, Session

__all__ = ["EXPORT_FORMAT", "ImportFailed", "backup", "export_csv", "export_game", "import_game"]

EXPORT_FORMAT = "rune-table-companion/game"
EXPORT_VERSION = 1

T = TypeVar("T")


class ImportFailed(CompanionError, ValueError):
    """An export file that cannot become a saved game; nothing was written."""


def export_game(journal: Journal, game_id: int) -> dict[str, Any]:
    """Everything needed to recreate game ``game_id`` exactly, as JSON-ready data."""
    saved = journal.load(game_id)
    return {
        "format": EXPORT_FORMAT,
        "version": EXPORT_VERSION,
        "game": saved.info.rules,
        "title": saved.info.title,
        "status": saved.info.status,
        "created": saved.info.created,
        "setup": saved.setup,
        "cursor": saved.info.cursor,
        "revision": saved.revision,
        "actions": [{"at": at, **action} for action, at in zip(saved.actions, saved.times)],
    }


def export_csv(journal: Journal, game_id: int, out: TextIO) -> None:
    """The game's log, one row per action: when, what, what it did, whether undone."""
    session = Session.resume(journal, game_id, current=False)
    writer = csv.writer(out)
    writer.writerow(["seq", "time", "action", "json", "events", "undone"])
    for entry in session.history():
        writer.writerow([
            entry.seq,
            time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(entry.at)),
            str(entry.action),
            json.dumps(entry.action.to_json(), ensure_ascii=False),
            " | ".join(str(e) for e in entry.events),
            "yes" if entry.undone else "",
        ])


def import_game(journal: Journal, document: Any) -> int:
    """Save an exported game as a new game; it is replayed first, so a bad file writes nothing."""
    if not isinstance(document, dict) or document.get("format") != EXPORT_FORMAT:
        raise ImportFailed(f"not an exported game (expected \"format\": \"{EXPORT_FORMAT}\")")
    if document.get("version") != EXPORT_VERSION:
        raise ImportFailed(f"export version {document.get('version')!r} is not supported")
    game, setup = _field(document, "game", str), _field(document, "setup", dict)
    title = _field(document, "title", str, "")
    actions, cursor = _field(document, "actions", list), _field(document, "cursor", int)
    revision = _field(document, "revision", int, len(actions))
    if not 0 <= cursor <= len(actions):
        raise ImportFailed(f"cursor {cursor} is outside the {len(actions)} actions")
    if revision < 0:
        raise ImportFailed(f"revision {revision} is negative")
    try:
        probe: Session[Any] = Session.new(game, setup)
    except CompanionError as e:
        raise ImportFailed(f"the setup does not apply: {e}") from None
    times = []
    for number, entry in enumerate(actions, 1):
        at = entry.get("at") if isinstance(entry, dict) else None
        if not isinstance(at, (int, float)) or isinstance(at, bool) or not math.isfinite(at):
            raise ImportFailed(f"action {number} ({entry!r}) has no time \"at\" in seconds")
        try:
            act = probe.parse({k: v for k, v in entry.items() if k != "at"})
            if type(act) in SESSION_ACTIONS:
                raise RuleError(f"{act.verb!r} is not stored in an export: its cursor says "
                                "how many actions are undone", rule="export")
            probe.play(act)
        except CompanionError as e:
            raise ImportFailed(f"action {number} ({entry!r}) does not apply: {e}") from None
        times.append(float(at))
    # The probe's own records: they carry the seeds a shuffle drew, if the file had none.
    played = [a.to_json() for a in probe.log]
    return journal.insert_game(probe.rules.name, probe.setup.to_json(), played, times,
                               cursor=cursor, revision=revision, title=title,
                               finished=probe.rules.finished(probe.state_at(cursor)))


_KINDS = {str: "text", dict: "an object", list: "a list", int: "a whole number"}


def _field(document: dict[str, Any], key: str, kind: type[T], default: T | None = None) -> T:
    """``document[key]``, which must be of ``kind`` (JSON's true is not a number here)."""
    value = document.get(key, default)
    if not isinstance(value, kind) or isinstance(value, bool):
        raise ImportFailed(f"the export's \"{key}\" must be {_KINDS[kind]}, got {value!r}")
    return value


def backup(journal: Journal, folder: Path, keep: int) -> Path:
    """Copy the journal to ``folder/journal-YYYYmmdd-HHMMSS.sqlite`` and keep the newest ``keep``."""
    if keep < 1:
        raise JournalError("keep at least one backup")
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = folder / f"journal-{stamp}.sqlite"
    n = 1
    while target.exists():
        n += 1
        target = folder / f"journal-{stamp}-{n}.sqlite"
    journal.backup(target)
    copies = sorted(folder.glob("journal-*.sqlite"), key=lambda p: p.stat().st_mtime_ns)
    for old in copies[:-keep]:
        old.unlink()
    return target
