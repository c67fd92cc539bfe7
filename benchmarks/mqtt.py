"""MQTT figures: from an accepted action to the LED trackers, on a real local Mosquitto.

    python -m benchmarks.mqtt [--actions 5000] [--journal-on-disk]

Prints the latency from an accepted action (``Table.execute`` returning) to the
seat message arriving at a subscribed tracker client (median and p99), and the
sustained rate of actions with 8 seats subscribed, checking that every tracker
got every change of its seat, once, in order. The broker runs with the repo's
configuration (passwords, ACLs, TLS listener) on loopback. The journal is in
memory unless ``--journal-on-disk``, to measure MQTT rather than the disk's
fsync. Goals on loopback: p99 under 10 ms, 1,000 actions/s.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from benchmarks.core import percentile
from companion.core.journal import Journal
from companion.mqtt import MqttBridge, MqttConfig
from companion.mqtt.bridge import tcp_no_delay
from companion.payloads import dumps
from companion.table import Table
from tests.support.broker import secure_broker

SEATS = 8


class TrackerClient:
    """A tracker: one seat's topic, every message timed on arrival."""

    def __init__(self, host: str, port: int, user: str, password: str, seat: int) -> None:
        self.seat = seat
        self.got: list[tuple[int, int, float]] = []  # (revision, hp, arrival)
        self.changed = threading.Condition()
        self.ready = threading.Event()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"bench-tracker-{seat}",
                                  protocol=mqtt.MQTTv311)
        self.client.username_pw_set(user, password)
        self.client.on_socket_open = tcp_no_delay

        def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
            client.subscribe(f"runes/t1/seat/{seat}", qos=0)

        def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
            now = time.perf_counter()
            document = json.loads(message.payload)
            with self.changed:
                self.got.append((document["revision"], document["hp"], now))
                self.changed.notify_all()
            self.ready.set()

        self.client.on_connect = on_connect
        self.client.on_message = on_message
        self.client.connect(host, port)
        self.client.loop_start()

    def wait_for(self, revision: int, timeout: float = 10.0) -> float:
        """When the message of ``revision`` arrived."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while True:
                for rev, _, at in reversed(self.got):
                    if rev == revision:
                        return at
                    if rev < revision:
                        break
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"seat {self.seat}: revision {revision} never arrived")
                self.changed.wait(left)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def run(actions: int, journal_on_disk: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as scratch:
        workdir = Path(scratch)
        broker = secure_broker(workdir)
        broker.broker.start()
        journal = Journal(workdir / "journal.sqlite" if journal_on_disk else ":memory:")
        table = Table(journal, table_id="t1")
        players = ",".join(f"P{n}" for n in range(1, SEATS + 1))
        table.start("zun", f"zun players={players} hp=1000000")
        me = broker.users["companion-t1"]
        bridge = MqttBridge(table, MqttConfig(host=broker.host, port=broker.port,
                                              username=me.user, password=me.password,
                                              homeassistant=False))
        bridge.start()
        assert bridge.wait_for_connection(10)
        tr = broker.users["tracker-t1-tr1"]
        trackers = [TrackerClient(broker.host, broker.port, tr.user, tr.password, n)
                    for n in range(1, SEATS + 1)]
        try:
            for t in trackers:
                assert t.ready.wait(10), "a tracker got no retained seat"
            # Latency: one action at a time, each timed until its tracker has it.
            latencies = []
            for i in range(1000):
                seat = i % SEATS + 1
                start = time.perf_counter()
                result = table.execute(f"damage {seat} 1")
                assert result.ok, result.error
                latencies.append(trackers[seat - 1].wait_for(result.revision) - start)
            # Throughput: actions back to back, as fast as the owner thread applies them.
            first = table.session.revision + 1
            start = time.perf_counter()
            for i in range(actions):
                assert table.execute(f"damage {i % SEATS + 1} 1").ok
            applied = time.perf_counter() - start
            last = table.session.revision
            arrivals = [t.wait_for(seat_revisions(t.seat, first, last)[-1], timeout=60)
                        for t in trackers]
            elapsed = max(arrivals) - start
            problems = check_order(trackers, first, last)
        finally:
            for t in trackers:
                t.close()
            bridge.stop()
            journal.close()
            broker.broker.stop()
    return {
        "latency_median_ms": statistics.median(latencies) * 1000,
        "latency_p99_ms": percentile(latencies, 99) * 1000,
        "actions": actions,
        "applied_per_s": actions / applied,
        "delivered_per_s": actions / elapsed,
        "problems": problems,
        "payload_bytes": len(dumps(table.session.to_json())),
    }


def seat_revisions(seat: int, first: int, last: int) -> list[int]:
    """The revisions in [first, last] that changed ``seat`` (action i hits seat i % 8 + 1)."""
    return [rev for rev in range(first, last + 1) if (rev - first) % SEATS == seat - 1]


def check_order(trackers: list[TrackerClient], first: int, last: int) -> list[str]:
    """Every tracker got each change of its seat in [first, last] exactly once, in order."""
    problems = []
    for t in trackers:
        revisions = [rev for rev, _, _ in t.got if rev >= first]
        expected = seat_revisions(t.seat, first, last)
        if revisions != expected:
            lost = len(set(expected) - set(revisions))
            reordered = any(b <= a for a, b in zip(revisions, revisions[1:]))
            problems.append(f"seat {t.seat}: {lost} lost, reordered={reordered}")
        hps = [hp for rev, hp, _ in t.got if rev >= first]
        if any(b != a - 1 for a, b in zip(hps, hps[1:])):
            problems.append(f"seat {t.seat}: HP does not go down one by one")
    return problems


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=5000)
    parser.add_argument("--journal-on-disk", action="store_true")
    args = parser.parse_args(argv)
    figures = run(args.actions, args.journal_on_disk)
    journal = "on disk (fsync per action)" if args.journal_on_disk else "in memory"
    print(f"MQTT benchmark: {SEATS} seats, repo broker configuration on loopback, "
          f"journal {journal}")
    print(f"  latency action -> tracker  median {figures['latency_median_ms']:.2f} ms   "
          f"p99 {figures['latency_p99_ms']:.2f} ms   (goal p99 < 10 ms)")
    print(f"  sustained {figures['actions']} actions: {figures['delivered_per_s']:.0f} actions/s "
          f"delivered to the trackers ({figures['applied_per_s']:.0f}/s applied)   "
          f"(goal 1000/s)")
    print(f"  state document: {figures['payload_bytes']} bytes per action")
    if figures["problems"]:
        print("  LOST OR REORDERED: " + "; ".join(figures["problems"]))
    else:
        print("  every tracker got every change of its seat, once, in order")


if __name__ == "__main__":
    main()
