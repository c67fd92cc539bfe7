"""Getting games out of the journal and back in, and keeping copies of the journal.

* Export: one game as JSON (setup, every action with its time, the cursor), which
  :func:`import_game` turns back into a saved game, and its log as CSV for a spreadsheet.
* Backups: a consistent copy of the whole journal taken while the app runs (SQLite's online
  backup), named by time, keeping the newest N. The systemd timer runs ``runes backup``.
"""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path
from typing import Any, TextIO

from companion.core.errors import CompanionError, JournalError
from companion.core.journal import Journal
from companion.core.session import Session

__all__ = ["EXPORT_FORMAT", "ImportFailed", "backup", "export_csv", "export_game", "import_game"]

EXPORT_FORMAT = "rune-table-companion/game"
EXPORT_VERSION = 1


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
    session = Session.resume(journal, game_id)
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
    try:
        game, setup = str(document["game"]), document["setup"]
        actions = [{k: v for k, v in a.items() if k != "at"} for a in document["actions"]]
        times = [float(a["at"]) for a in document["actions"]]
        cursor = int(document["cursor"])
        revision = int(document.get("revision", len(actions)))
        title = str(document.get("title", ""))
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ImportFailed(f"the export is incomplete or malformed: {e!r}") from None
    if not 0 <= cursor <= len(actions):
        raise ImportFailed(f"cursor {cursor} is outside the {len(actions)} actions")
    probe: Session[Any] = Session.new(game, setup)
    for number, action in enumerate(actions, 1):
        try:
            probe.play(action)
        except CompanionError as e:
            raise ImportFailed(f"action {number} ({action}) does not apply: {e}") from None
    return journal.insert_game(game, probe.setup.to_json(), actions, times, cursor=cursor,
                               revision=revision, title=title,
                               finished=probe.rules.finished(probe.state_at(cursor)))


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
