"""Every topic the table uses carries documents that match their schema in docs/schemas/."""

from __future__ import annotations

import json
from pathlib import Path

from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from companion.core.replay import replay_lines
from companion.links import TrackersConfig
from companion.payloads import seat_payloads
from tests.support.broker import REPO, SecureBroker
from tests.support.mqtt import REGISTRY, Companion, Probe, decode, schema_for, validate
from tests.support.wait import until

T = "runes/t1"
SCENARIOS = sorted((REPO / "tests" / "scenarios").glob("*/*.txt"))


def test_every_schema_is_a_valid_json_schema():
    import jsonschema
    for path in sorted((REPO / "docs" / "schemas").glob("*.json")):
        jsonschema.Draft202012Validator.check_schema(json.loads(path.read_text()))
    assert {"status.json", "state.json", "seat.json", "event.json", "command.json",
            "result.json", "tracker-status.json", "tracker-seat.json", "tracker-blink.json",
            "discovery.json", "wled-state.json", "serial-ping.json",
            "serial-error.json"} <= set(REGISTRY)


def test_a_game_on_the_broker_publishes_only_valid_documents(tmp_path: Path,
                                                             locked_broker: SecureBroker):
    trackers = TrackersConfig(wled=("wled/strip",), wled_segments=2, blink=0.2)
    c = Companion(tmp_path, locked_broker, trackers=trackers).start()
    users = locked_broker.users
    listeners = {
        "controller-t1": (f"{T}/#",),
        "homeassistant": ("homeassistant/#",),
        "tracker-t1-tr1": (f"{T}/tracker/tr1/#", f"{T}/seat/+", f"{T}/status"),
        "wled-t1-strip": ("wled/strip/#",),
    }
    probes = {}
    try:
        for user, filters in listeners.items():
            probes[user] = Probe(locked_broker.host, locked_broker.port, users[user],
                                 client_id=f"schema-{user}")
            assert not probes[user].connect().is_failure
            probes[user].subscribe(*filters)
        tracker, controller = probes["tracker-t1-tr1"], probes["controller-t1"]
        tracker.publish(f"{T}/tracker/tr1/status", b'{"id": "tr1", "uptime": 1}', retain=True)
        tracker.latest(f"{T}/tracker/tr1/seat")
        for command in ({"action": "damage", "player": "Ann", "amount": 4, "correlation": "a"},
                        {"action": "heal", "player": "ann", "amount": 9},
                        {"action": "next"}, {"action": "undo"}, {"action": "redo"},
                        {"action": "set", "player": "Bob", "hp": 0},
                        {"action": "set", "player": "Cid", "hp": 0},
                        {"action": "goto", "position": 1}, {"action": "goto", "position": 5},
                        {"action": "fly"}):
            validate("command", command)
            controller.publish(f"{T}/cmd", json.dumps(command))
        properties = Properties(PacketTypes.PUBLISH)
        properties.ResponseTopic = f"{T}/cmd/result/me"
        properties.CorrelationData = b"1"
        controller.publish(f"{T}/cmd", b"not json", properties=properties)
        c.links.trackers.blink("tr1")
        c.links.trackers.blink("wled:wled/strip:0")
        probes["homeassistant"].publish("homeassistant/status", b"online")
        controller.wait_for(lambda m: m.topic == f"{T}/cmd/result/me")
        until(lambda: len(controller.on(f"{T}/cmd/result")) == 10)
        assert controller.latest(f"{T}/state")["over"], "the game was played to its end"
        tracker.latest(f"{T}/tracker/tr1/blink")

        checked = set()
        for probe in probes.values():
            for message in probe.messages:
                if not message.payload:
                    continue  # an empty retained message only removes the topic's document
                schema = schema_for(message.topic)
                assert schema is not None or message.topic == "homeassistant/status", message.topic
                if schema is not None:
                    validate(schema, decode(message.payload))
                    checked.add(schema)
        assert checked == {"status", "state", "event", "result", "seat",
                           "tracker-status", "tracker-seat", "tracker-blink", "discovery",
                           "wled-state"}
    finally:
        for probe in probes.values():
            probe.close()
        c.stop()


ZUN_TEAMS = """zun players=Ann,Bob,Cid,Dee teams=Red:Ann+Cid,Blue:Bob+Dee hp=9
damage Ann 5
heal Ann 1
next
defeat Bob
set Dee 0
"""


def test_every_seat_of_every_game_matches_the_seat_schema():
    """Each game's Rules.seats(), at every step of its golden games, gives valid documents."""
    games = [(path.name, path.read_text()) for path in SCENARIOS] + [("zun teams", ZUN_TEAMS)]
    for name, text in games:
        session = replay_lines(text.splitlines(), source=name)
        for position in range(len(session.log) + 1):
            session.goto(position)
            for seat in seat_payloads(session):
                validate("seat", seat)
