"""From the companion accepting an action to the tracker's LEDs changing, on loopback.

A real Mosquitto, a table playing Runes of Zun whose seats are published on every change
(tests/support/seats.py, as in the end-to-end tests), and the real tracker firmware on the
MicroPython unix port showing seat 1. Each sample sets Ann's HP to 9 or 10 in turn and times,
from just before the table executes the command (parse, rules, journal, publish) to the arrival
of the first frame that differs. The pulse is off so that only the action changes the frame;
between samples the strip settles on its final frame.

    .venv/bin/python -m benchmarks.firmware [--samples N]

Prints the median, p99 and maximum in milliseconds. Goal: p99 under 50 ms.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from benchmarks.core import percentile
from companion.core.journal import Journal
from companion.firmware.emulator import TrackerEmulator
from companion.table import Table
from tests.support.broker import Broker
from tests.support.seats import publish_seats

TABLE = "bench"
GOAL_MS = 50.0


def lit(hp: int) -> tuple[tuple[int, int, int], ...]:
    """Ann's strip at ``hp`` (9 to 12: the green tier, her red glowing faintly past it)."""
    return ((0, 224, 0),) * hp + ((14, 3, 3),) * (12 - hp)


def measure(samples: int, workdir: Path) -> list[float]:
    broker = Broker(workdir)
    broker.start()
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="bench-companion")
    table = Table(Journal(workdir / "journal.sqlite"), table_id=TABLE)
    table.subscribe(lambda session, change: publish_seats(client, TABLE, session))
    try:
        client.connect(broker.host, broker.port)
        client.loop_start()
        table.start("zun", "players=Ann,Bob")
        settings = {"id": "bench", "table": TABLE, "broker": broker.host, "port": broker.port,
                    "brightness": 1.0, "pulse_ms": 0}
        with TrackerEmulator(settings, workdir / "tracker") as tracker:
            settled = tracker.wait_for(lambda pixels: pixels == lit(12), timeout=30).pixels
            latencies = []
            for i in range(samples):
                hp = 9 + i % 2
                since = tracker.count
                start = time.perf_counter()
                result = table.execute(f"set Ann {hp}")
                assert result.ok, result.error
                changed = tracker.wait_for(lambda pixels: pixels != settled, since=since)
                latencies.append((changed.at - start) * 1000)
                # The fade ends on the exact final frame; after it the strip is still.
                settled = tracker.wait_for(lambda pixels: pixels == lit(hp), since=since).pixels
            return latencies
    finally:
        client.disconnect()
        client.loop_stop()
        table.journal.close()
        broker.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100)
    samples = parser.parse_args(argv).samples
    with tempfile.TemporaryDirectory(prefix="bench-firmware-") as tmp:
        latencies = measure(samples, Path(tmp))
    median, p99 = statistics.median(latencies), percentile(latencies, 99)
    print(f"firmware: companion accepts an action -> tracker LEDs change ({len(latencies)} "
          f"samples, MicroPython unix port, loopback)   median {median:.1f} ms   "
          f"p99 {p99:.1f} ms   max {max(latencies):.1f} ms   (goal p99 < {GOAL_MS:.0f} ms)")


if __name__ == "__main__":
    main()
