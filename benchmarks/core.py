"""The game core: one journaled action, and replaying a long game.

Goals on this machine: p99 under 2 ms per journaled action (SQLite WAL, synchronous=FULL,
one transaction per action), and replay above 100,000 actions/s.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from companion.core.actions import Action
from companion.core.journal import Journal
from companion.core.session import Session
from companion.games.zun import RULES

SETUP = "players=Ann,Bob,Cid,Dee teams=Red:Ann+Cid,Blue:Bob+Dee"


def long_game(length: int) -> tuple[Session, list[Action]]:
    """A legal game of ``length`` actions that never ends: damage, heals and turns."""
    session = Session.new(RULES, SETUP)
    cycle = ["damage Ann 2", "heal Ann 2", "damage 2 1", "heal Bob 1", "next",
             "effect Cid Ward when=end", "overdraw Dee 1", "set Dee 12", "discard_effect Cid Ward"]
    while len(session.log) < length:
        session.play(cycle[len(session.log) % len(cycle)])
    return session, list(session.log)


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def journaled_action(count: int = 3000) -> dict[str, float]:
    _, actions = long_game(count)
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "bench.sqlite") as journal:
        session = Session.new(RULES, SETUP, journal=journal)
        times = []
        for action in actions:
            start = time.perf_counter()
            session.play(action)
            times.append(time.perf_counter() - start)
    return {"median_ms": statistics.median(times) * 1e3, "p99_ms": percentile(times, 99) * 1e3}


def replay(length: int = 10_000, rounds: int = 5) -> dict[str, float]:
    live, actions = long_game(length)
    best_apply = best_resume = float("inf")
    with tempfile.TemporaryDirectory() as tmp, Journal(Path(tmp) / "bench.sqlite") as journal:
        saved = Session.new(RULES, SETUP, journal=journal)
        for action in actions:
            saved.play(action)
        for _ in range(rounds):
            start = time.perf_counter()
            session = Session(RULES, live.setup)
            for action in actions:
                session.play(action)
            best_apply = min(best_apply, time.perf_counter() - start)
            assert session.state == live.state
            start = time.perf_counter()
            resumed = Session.resume(journal, saved.game_id)
            best_resume = min(best_resume, time.perf_counter() - start)
            assert resumed.state == live.state
    return {"actions": length, "replay_actions_per_s": length / best_apply,
            "resume_from_journal_actions_per_s": length / best_resume}


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--length", type=int, default=10_000, help="actions in the replayed game")
    args = parser.parse_args(argv)
    j = journaled_action()
    print(f"core: journaled action   median {j['median_ms']:.3f} ms   p99 {j['p99_ms']:.3f} ms"
          f"   (goal p99 < 2 ms)")
    r = replay(args.length)
    print(f"core: replay {r['actions']} actions   {r['replay_actions_per_s']:,.0f} actions/s"
          f"   (goal > 100,000/s)")
    print(f"core: resume from journal (parse JSON + replay)   "
          f"{r['resume_from_journal_actions_per_s']:,.0f} actions/s")


if __name__ == "__main__":
    main()
