"""Power cut at any moment: SIGKILL a process that is journaling, many times over."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from companion.core.journal import Journal
from companion.core.session import Session

ROOT = Path(__file__).resolve().parents[2]


def test_no_committed_action_is_lost_when_the_process_is_killed(tmp_path: Path) -> None:
    db = tmp_path / "journal.sqlite"
    rng = random.Random(1234)
    last_reported = (0, 0)
    kills = 0
    for _ in range(30):
        child = subprocess.Popen([sys.executable, "-m", "tests.support.journal_writer", str(db)],
                                 cwd=ROOT, stdout=subprocess.PIPE, text=True,
                                 env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert child.stdout is not None
        # Let it start and commit a few, then cut the power at a random moment.
        first = child.stdout.readline()
        assert first, "the writer did not start"
        time.sleep(rng.uniform(0.0, 0.05))
        child.send_signal(signal.SIGKILL)
        kills += 1
        output = first + child.stdout.read()
        child.wait()
        # Only complete lines are reports: the kill may cut the last one in half.
        complete = output.split("\n")[:-1]
        revision, cursor = map(int, complete[-1].split())
        assert revision >= last_reported[0]
        with Journal(db) as journal:
            assert journal.integrity_check() == ["ok"]
            game = journal.games()[0]
            stored = journal.load(game.id)
            # Everything reported is there; at most the one action being applied is more.
            assert stored.revision in (revision, revision + 1)
            if stored.revision == revision:
                assert stored.info.cursor == cursor
            resumed = Session.resume(journal, game.id)
            assert resumed.revision == stored.revision
        last_reported = (stored.revision, stored.info.cursor)
    assert kills == 30 and last_reported[0] > 30, "the writer committed too little to test"
