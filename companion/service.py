"""The companion without a screen: ``runes-service``.

It reads the settings file, opens the journal, resumes the last unfinished
game (or starts the one given with ``--new``), links the table to the broker
and the LED trackers, and then owns the table: its main thread applies queued
commands as they arrive, until SIGTERM or SIGINT stops it cleanly (the broker
hears ``offline``, the journal is closed).

For a table that runs the Kivy app instead, the app does the same with the
same pieces (:class:`~companion.table.Table`, :class:`~companion.links.Links`)
and Kivy's clock as the owner loop.
"""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from collections.abc import Sequence
from pathlib import Path
from types import FrameType

from companion.config import Config, journal_path, load_config, read_section
from companion.core.errors import CompanionError, JournalError, NoSuchGame
from companion.core.journal import Journal
from companion.core.replay import game_of
from companion.links import Links
from companion.systemd import Watchdog
from companion.table import Table, TableConfig

__all__ = ["OwnerLoop", "Service", "main"]

log = logging.getLogger("companion.service")


class OwnerLoop:
    """The owner thread of a table without a screen: apply commands as soon as they arrive.

    ``table.wake`` sets an event; the loop wakes, clears it and pumps. Clearing
    before pumping means a command submitted meanwhile wakes the next round, so
    none waits for the ``tick``.
    """

    def __init__(self, table: Table, *, tick: float = 1.0,
                 watchdog: Watchdog | None = None) -> None:
        self.table = table
        self.tick = tick
        self.watchdog = watchdog or Watchdog()
        self._wake = threading.Event()
        self._stopping = threading.Event()
        table.wake = self._wake.set

    def run(self) -> None:
        while not self._stopping.is_set():
            self._wake.wait(self.tick)
            self._wake.clear()
            self.pump()
            self.watchdog.ping()  # from the loop itself: proof that it turns

    def pump(self) -> int:
        try:
            return self.table.pump()
        except Exception:
            # A bug in an engine must not take the table down with it: log it, carry on.
            log.exception("a command failed unexpectedly")
            return 0

    def stop(self) -> None:
        """Ask ``run`` to return (safe from a signal handler or another thread)."""
        self._stopping.set()
        self._wake.set()


class Service:
    """One table's companion, headless; see the module docstring."""

    def __init__(self, config: Config, *, new_game: str | None = None) -> None:
        settings = read_section(TableConfig, config.section("table"), "table")
        path = journal_path(config)
        self.journal = Journal(path)
        self.table = Table(self.journal, table_id=settings.id)
        try:
            self.links = Links.from_config(self.table, config, journal_dir=path.parent)
        except BaseException:
            self.journal.close()
            raise
        self.watchdog = Watchdog()
        self.loop = OwnerLoop(self.table, watchdog=self.watchdog)
        self.new_game = new_game

    def open_game(self) -> None:
        """Start the ``--new`` game, else resume the last unfinished one, if any."""
        if self.new_game is not None:
            session = self.table.start(game_of(self.new_game), self.new_game)
            log.info("new game %s: %s", session.game_id, self.new_game)
            return
        try:
            session = self.table.resume()
        except NoSuchGame:
            log.info("no unfinished game in %s; commands wait for one", self.journal.path)
            return
        except JournalError as e:
            # The table must come up all the same: a new game can still be started.
            log.error("the last game cannot be resumed: %s; commands wait for a game", e)
            return
        log.info("resumed game %s (%s) at revision %d", session.game_id, session.rules.name,
                 session.revision)

    def run(self) -> None:
        """Serve until :meth:`stop`; the links are stopped and the journal closed after."""
        try:
            self.open_game()
            self.links.start()
            self.watchdog.ready(f"table {self.table.table_id}")
            self.loop.run()
        finally:
            self.watchdog.stopping()
            self.links.stop()
            self.journal.close()

    def stop(self) -> None:
        self.loop.stop()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="runes-service",
        description="Run a table's companion without a screen: journal, MQTT, LED trackers.")
    parser.add_argument("--config", type=Path, default=None,
                        help="settings file (default: $RUNES_CONFIG, ~/.config/runes/companion.toml)")
    parser.add_argument("--new", metavar="SETUP", default=None,
                        help='start a new game instead of resuming, e.g. "zun players=Ann,Bob"')
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO,
                        format="%(levelname)s %(name)s: %(message)s")
    try:
        service = Service(load_config(args.config), new_game=args.new)
    except CompanionError as e:
        log.error("%s", e)
        return 2

    def on_signal(number: int, frame: FrameType | None) -> None:
        log.info("%s: stopping", signal.Signals(number).name)
        service.stop()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        service.run()
    except CompanionError as e:
        log.error("%s", e)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
