"""The journal: every game's action log in SQLite, crash-safe.

Why it is shaped like this:

* One row per accepted action, written in its own transaction *before* the
  session tells anyone about the new state. A power cut loses at most the
  action being applied, never a committed one.
* WAL mode with ``synchronous=FULL``: a commit is on disk when ``COMMIT``
  returns (NORMAL would survive a crashed process but not a power cut), and
  readers (the command line, a backup) never block the app.
* Undo and redo move a per-game cursor instead of deleting rows, so redo still
  works after a restart; a new action after an undo replaces the undone tail
  in the same transaction that adds it.
* Only actions are stored, never states: the rules engines are pure, so the
  state is the replay of the log, and the log is the thing worth keeping.
* Every change of a game moves its ``revision`` on by one, and is written only if
  the stored revision is still the one the writer read: the command line may play
  a game while the app holds it, and neither silently overwrites the other
  (:class:`~companion.core.errors.JournalChanged`).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from .errors import JournalChanged, JournalError, NoSuchGame

__all__ = ["GameInfo", "Journal", "SavedGame", "Status"]

Status = Literal["active", "finished", "archived"]

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    rules TEXT NOT NULL,
    setup TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    status TEXT NOT NULL DEFAULT 'active'
        CHECK (status IN ('active', 'finished', 'archived')),
    cursor INTEGER NOT NULL DEFAULT 0,
    revision INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS actions (
    game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS games_by_update ON games(status, updated);
"""


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A saved game as listed: enough to choose one, not enough to play it."""

    id: int
    rules: str
    title: str
    status: Status
    cursor: int
    created: float
    updated: float


@dataclass(frozen=True, slots=True)
class SavedGame:
    """Everything needed to resume a game exactly."""

    info: GameInfo
    setup: dict[str, Any]
    actions: tuple[dict[str, Any], ...]
    """Every stored action in order, including an undone tail that redo can bring back."""
    times: tuple[float, ...]
    """When each action was accepted (seconds since the epoch), for plots."""
    revision: int


class Journal:
    """The SQLite file that holds every game; one per companion."""

    def __init__(self, path: str | Path, *, clock: Any = time.time) -> None:
        self.path = Path(path)
        self._clock = clock
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we issue BEGIN/COMMIT ourselves, one per change.
            self._db = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA busy_timeout=5000")
            version = self._db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise JournalError(
                    f"{path} was written by a newer companion (journal schema {version}); "
                    "upgrade the companion to open it"
                )
            if version < SCHEMA_VERSION:
                with self._transaction() as db:
                    # Not executescript(): it would COMMIT half-way through this transaction.
                    for statement in _SCHEMA.split(";"):
                        if statement.strip():
                            db.execute(statement)
                    db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        except sqlite3.DatabaseError as e:
            raise JournalError(f"cannot open the journal {path}: {e}") from e

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One atomic, durable change; any failure leaves the file as it was."""
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise JournalError(f"the journal is not writable: {e}") from e
        try:
            yield self._db
            self._db.execute("COMMIT")
        except BaseException as e:
            if self._db.in_transaction:  # SQLite rolls back by itself on some errors (disk full)
                self._db.execute("ROLLBACK")
            if isinstance(e, sqlite3.Error):
                raise JournalError(f"the journal write failed, nothing was changed: {e}") from e
            raise

    # -- writing -------------------------------------------------------------

    def create_game(self, rules: str, setup: dict[str, Any], title: str = "") -> int:
        now = self._clock()
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO games (rules, setup, title, created, updated) VALUES (?, ?, ?, ?, ?)",
                (rules, json.dumps(setup, ensure_ascii=False), title, now, now),
            )
            assert cur.lastrowid is not None
            return cur.lastrowid

    def insert_game(self, rules: str, setup: dict[str, Any], actions: Sequence[dict[str, Any]],
                    times: Sequence[float], *, cursor: int, revision: int, title: str = "",
                    finished: bool = False) -> int:
        """Save a whole game at once (an import), in one transaction."""
        now = self._clock()
        with self._transaction() as db:
            cur = db.execute(
                "INSERT INTO games (rules, setup, title, status, cursor, revision, created, "
                "updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (rules, json.dumps(setup, ensure_ascii=False), title,
                 "finished" if finished else "active", cursor, revision, now, now),
            )
            assert cur.lastrowid is not None
            db.executemany(
                "INSERT INTO actions (game_id, seq, action, at) VALUES (?, ?, ?, ?)",
                [(cur.lastrowid, seq, json.dumps(a, ensure_ascii=False), at)
                 for seq, (a, at) in enumerate(zip(actions, times), 1)],
            )
            return cur.lastrowid

    def append(
        self, game_id: int, seq: int, action: dict[str, Any], *, status: Status, revision: int
    ) -> None:
        """Store action number ``seq`` (1-based) and make it the cursor, dropping any undone tail.

        ``revision`` is the game's revision after this change: one more than the writer read.
        """
        now = self._clock()
        with self._transaction() as db:
            db.execute("DELETE FROM actions WHERE game_id = ? AND seq >= ?", (game_id, seq))
            db.execute(
                "INSERT INTO actions (game_id, seq, action, at) VALUES (?, ?, ?, ?)",
                (game_id, seq, json.dumps(action, ensure_ascii=False), now),
            )
            self._update(db, game_id, seq, status, revision, now)

    def move_cursor(self, game_id: int, cursor: int, *, status: Status, revision: int) -> None:
        """Record an undo, redo or jump: the first ``cursor`` actions are the game now."""
        with self._transaction() as db:
            self._update(db, game_id, cursor, status, revision, self._clock())

    def _update(
        self, db: sqlite3.Connection, game_id: int, cursor: int, status: Status, revision: int,
        now: float,
    ) -> None:
        cur = db.execute(
            "UPDATE games SET cursor = ?, status = ?, revision = ?, updated = ? "
            "WHERE id = ? AND status != 'archived' AND revision = ?",
            (cursor, status, revision, now, game_id, revision - 1),
        )
        if cur.rowcount == 1:
            return
        row = db.execute("SELECT status, revision FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None or row[0] == "archived":
            raise NoSuchGame(f"no game {game_id} that can be played in {self.path}")
        raise JournalChanged(
            f"game {game_id} was changed by another program since it was read (revision "
            f"{row[1]}, expected {revision - 1}); nothing was written")

    def mark(self, game_id: int, status: Status) -> None:
        """Set a game's status and make it the most recently played.

        ``archived`` puts a game away (kept, listed with ``include_archived``, never resumed by
        default); resuming a game marks it ``active`` or ``finished`` again.
        """
        with self._transaction() as db:
            cur = db.execute("UPDATE games SET status = ?, updated = ? WHERE id = ?",
                             (status, self._clock(), game_id))
            if cur.rowcount != 1:
                raise NoSuchGame(f"no game {game_id} in {self.path}")

    def backup(self, destination: str | Path) -> None:
        """A consistent copy of the whole journal, taken while it is in use (SQLite online backup)."""
        try:
            target = sqlite3.connect(str(destination))
            try:
                self._db.backup(target)
            finally:
                target.close()
        except sqlite3.Error as e:
            raise JournalError(f"backup to {destination} failed: {e}") from e

    # -- reading -------------------------------------------------------------

    def games(self, *, include_archived: bool = False) -> list[GameInfo]:
        """Saved games, most recently played first."""
        where = "" if include_archived else "WHERE status != 'archived'"
        rows = self._db.execute(
            f"SELECT id, rules, title, status, cursor, created, updated FROM games {where} "
            "ORDER BY updated DESC, id DESC"
        )
        return [GameInfo(*row) for row in rows]

    def latest_unfinished(self) -> int | None:
        """The game to resume on start: the last one played that has no result yet."""
        row = self._db.execute(
            "SELECT id FROM games WHERE status = 'active' ORDER BY updated DESC, id DESC LIMIT 1"
        ).fetchone()
        return None if row is None else int(row[0])

    def load(self, game_id: int) -> SavedGame:
        row = self._db.execute(
            "SELECT id, rules, title, status, cursor, created, updated, setup, revision "
            "FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise NoSuchGame(f"no game {game_id} in {self.path}")
        rows = self._db.execute(
            "SELECT action, at FROM actions WHERE game_id = ? ORDER BY seq", (game_id,)
        ).fetchall()
        try:
            return SavedGame(
                info=GameInfo(*row[:7]),
                setup=json.loads(row[7]),
                actions=tuple(json.loads(a) for a, _ in rows),
                times=tuple(at for _, at in rows),
                revision=row[8],
            )
        except ValueError as e:
            raise JournalError(f"game {game_id} in {self.path} is damaged: {e}") from e

    def integrity_check(self) -> Sequence[str]:
        """SQLite's own check of the file; ``["ok"]`` when it is sound."""
        return [r[0] for r in self._db.execute("PRAGMA integrity_check")]
