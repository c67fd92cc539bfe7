"""A process that journals actions as fast as it can, reporting each commit on stdout.

Used by the crash test: the test kills it with SIGKILL at random moments and checks that
every commit it reported is still in the file. Usage: ``python -m tests.support.journal_writer DB``.
"""

from __future__ import annotations

import itertools
import sys

from companion.core.errors import NoSuchGame
from companion.core.journal import Journal
from companion.core.session import Session


def main(path: str) -> None:
    journal = Journal(path)
    try:
        session = Session.resume(journal)
    except NoSuchGame:
        session = Session.new("zun", "players=Ann,Bob", journal=journal)
    # Setting HP above 0 never ends the game, wherever a kill left it; undo/redo move the cursor.
    for command in itertools.cycle(["set Ann 5", "set Ann 6", "undo", "redo"]):
        session.play(command)
        print(session.revision, session.cursor, flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
