"""The table on a real, locked-down Mosquitto: retained state, events, commands, recovery."""

from __future__ import annotations

import json
import time

import pytest
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from tests.support.broker import SecureBroker
from tests.support.mqtt import Companion, Probe, companion_config, decode, validate

T = "runes/t1"


def controller(broker: SecureBroker, *filters: str) -> Probe:
    probe = Probe(broker.host, broker.port, broker.users["controller-t1"])
    assert not probe.connect().is_failure
    if filters:
        probe.subscribe(*filters)
    return probe


def test_state_seats_and_status_are_retained_for_a_late_subscriber(mqtt_companion, locked_broker):
    watcher = controller(locked_broker, f"{T}/state")
    mqtt_companion.play("damage Ann 3")
    watcher.latest(f"{T}/state", where=lambda s: s["revision"] == 1)
    watcher.close()
    probe = controller(locked_broker, f"{T}/state", f"{T}/seat/+", f"{T}/status")
    state = probe.latest(f"{T}/state")
    assert state["revision"] == mqtt_companion.revision == 1
    assert state["players"][0]["hp"] == 9
    assert [m.retain for m in probe.on(f"{T}/state")] == [True]
    seats = [probe.latest(f"{T}/seat/{n}") for n in (1, 2, 3)]
    assert [s["name"] for s in seats] == ["Ann", "Bob", "Cid"]
    assert seats[0]["hp"] == 9 and seats[0]["tier"] == 3 and seats[0]["revision"] == 1
    assert seats[1]["revision"] == 0, "a seat is republished only when it changes"
    assert probe.latest(f"{T}/status") == "online"
    for n, seat in enumerate(seats, 1):
        validate("seat", seat)
    validate("state", state)
    probe.close()


def test_every_change_is_published_in_order_with_its_events(mqtt_companion, locked_broker):
    probe = controller(locked_broker, f"{T}/event", f"{T}/seat/1")
    for command in ("damage Ann 1", "damage Ann 1", "undo", "heal Ann 1"):
        assert mqtt_companion.play(command).ok
    probe.wait_for(lambda m: m.topic == f"{T}/event" and decode(m.payload)["revision"] == 4)
    events = [decode(m.payload) for m in probe.on(f"{T}/event")]
    assert [e["revision"] for e in events] == [1, 2, 3, 4]
    assert [e["action"]["action"] for e in events] == ["damage", "damage", "undo", "heal"]
    assert events[0]["events"][0]["text"] == "Ann takes 1 damage: 12 → 11"
    assert not probe.on(f"{T}/event")[0].retain
    for e in events:
        validate("event", e)
    hps = [decode(m.payload)["hp"] for m in probe.on(f"{T}/seat/1")]
    assert hps == [12, 11, 10, 11, 12]
    probe.close()


def test_a_command_is_answered_with_the_new_revision(mqtt_companion, locked_broker):
    probe = controller(locked_broker, f"{T}/cmd/result")
    probe.publish(f"{T}/cmd", json.dumps({"action": "damage", "player": "bob", "amount": 2,
                                          "correlation": "c-1"}))
    result = probe.latest(f"{T}/cmd/result")
    validate("result", result)
    assert result["ok"] and result["revision"] == 1 and result["correlation"] == "c-1"
    assert result["events"][0]["kind"] == "zun.damage"
    assert mqtt_companion.table.session.state.players[1].hp == 10
    probe.close()


@pytest.mark.parametrize("payload, kind", [
    (b'{"action": "damage", "player": "Zed", "amount": 2}', "UnknownPlayer"),
    (b'{"action": "fly"}', "ActionSyntaxError"),
    (b'{"action": "damage", "player": "Ann"}', "ActionSyntaxError"),
    (b'{"action": "damage", "player": "Ann", "amount": -4}', "ActionSyntaxError"),
    (b'{"action": "redo"}', "NothingToRedo"),
    (b"damage Ann 3", "ActionSyntaxError"),
    (b"\xff\xfe garbage", "ActionSyntaxError"),
    (b"[1, 2]", "ActionSyntaxError"),
    (b'{"action": "damage", "player": "Ann", "amount": 2, "correlation": 7}', "ActionSyntaxError"),
    (b"[" * 100_000, "CommandTooLarge"),
])
def test_a_bad_command_is_answered_with_an_error_and_changes_nothing(
        mqtt_companion, locked_broker, payload, kind):
    before = mqtt_companion.table.session.to_json()
    probe = controller(locked_broker, f"{T}/cmd/result")
    probe.publish(f"{T}/cmd", payload)
    result = probe.latest(f"{T}/cmd/result")
    validate("result", result)
    assert not result["ok"] and result["kind"] == kind, result
    assert result["revision"] == 0 and result["error"]
    assert mqtt_companion.table.session.to_json() == before
    probe.close()


def test_mqtt5_response_topic_and_correlation_data(mqtt_companion, locked_broker):
    probe = controller(locked_broker, f"{T}/cmd/result/#")
    properties = Properties(PacketTypes.PUBLISH)
    properties.ResponseTopic = f"{T}/cmd/result/phone-7"
    properties.CorrelationData = b"\x00req-42"
    probe.publish(f"{T}/cmd", b'{"action": "next"}', properties=properties)
    message = probe.wait_for(lambda m: m.topic == f"{T}/cmd/result/phone-7")
    assert message.properties.CorrelationData == b"\x00req-42"
    assert decode(message.payload)["ok"] and decode(message.payload)["revision"] == 1

    # A response topic outside the result topic would let a client make the companion
    # write anywhere it may: it is ignored, the answer goes to the shared result topic.
    properties.ResponseTopic = f"{T}/state"
    properties.CorrelationData = b"req-43"
    probe.publish(f"{T}/cmd", b'{"action": "next"}', properties=properties)
    message = probe.wait_for(lambda m: m.topic == f"{T}/cmd/result")
    assert message.properties.CorrelationData == b"req-43"
    assert decode(message.payload)["revision"] == 2
    probe.close()


def test_a_retained_command_is_never_applied_and_is_cleared(tmp_path, locked_broker):
    probe = controller(locked_broker)
    probe.publish(f"{T}/cmd", b'{"action": "damage", "player": "Ann", "amount": 5}', retain=True)
    c = Companion(tmp_path, locked_broker).start()
    try:
        late = controller(locked_broker, f"{T}/state")
        late.latest(f"{T}/state")
        assert c.revision == 0
        # Cleared from the broker: a new subscriber to the command topic gets nothing retained.
        check = Probe(locked_broker.host, locked_broker.port, locked_broker.users["companion-t1"],
                      client_id="checker")
        check.connect()
        check.subscribe(f"{T}/cmd")
        late.subscribe(f"{T}/cmd/result")
        late.publish(f"{T}/cmd", b'{"action": "next"}')
        assert late.latest(f"{T}/cmd/result")["revision"] == 1
        check.wait_for(lambda m: m.topic == f"{T}/cmd")
        assert all(not m.retain for m in check.on(f"{T}/cmd"))
        check.close()
        late.close()
    finally:
        c.stop()
        probe.close()


def test_the_broker_down_at_start_and_killed_mid_game(tmp_path, locked_broker):
    locked_broker.broker.kill()
    c = Companion(tmp_path, locked_broker).start(wait=False)
    try:
        assert c.play("damage Ann 2").ok, "the game goes on without a broker"
        locked_broker.broker.start()
        assert c.bridge.wait_for_connection(10)
        probe = controller(locked_broker, f"{T}/state", f"{T}/seat/+", f"{T}/status")
        assert probe.latest(f"{T}/state")["revision"] == 1

        locked_broker.broker.kill()  # retained messages die with it (no persistence)
        for _ in range(3):
            assert c.play("damage Bob 1").ok
        assert c.bridge.dropped >= 3, "events while offline are dropped, not queued"
        locked_broker.broker.start()
        state = probe.latest(f"{T}/state", timeout=15, where=lambda s: s["revision"] == 4)
        assert state["players"][1]["hp"] == 9
        assert probe.latest(f"{T}/seat/2", where=lambda s: s["hp"] == 9)["revision"] == 4
        assert probe.latest(f"{T}/seat/3")["hp"] == 12
        assert probe.latest(f"{T}/status") == "online"
        probe.close()
    finally:
        c.stop()


def test_a_new_game_with_fewer_seats_clears_the_stale_seats(mqtt_companion, locked_broker):
    probe = controller(locked_broker, f"{T}/seat/+")
    probe.latest(f"{T}/seat/3")
    with mqtt_companion.paused() as table:
        table.start("zun", "zun players=Dee,Eve")
    probe.wait_for(lambda m: m.topic == f"{T}/seat/3" and m.payload == b"")
    assert probe.latest(f"{T}/seat/1")["name"] == "Dee"
    assert probe.latest(f"{T}/seat/1")["game_id"] == 2
    late = controller(locked_broker, f"{T}/seat/+")
    late.latest(f"{T}/seat/2")
    assert {m.topic for m in late.messages} == {f"{T}/seat/1", f"{T}/seat/2"}
    probe.close()
    late.close()


def test_clean_stop_says_offline(tmp_path, locked_broker):
    c = Companion(tmp_path, locked_broker).start()
    probe = controller(locked_broker, f"{T}/status")
    assert probe.latest(f"{T}/status") == "online"
    c.stop()
    assert probe.latest(f"{T}/status", where=lambda s: s == "offline") == "offline"
    probe.close()


def test_wrong_credentials_are_logged_once_and_the_game_goes_on(tmp_path, locked_broker,
                                                                 caplog):
    c = Companion(tmp_path, locked_broker,
                  mqtt=companion_config(locked_broker, password="wrong")).start(wait=False)
    try:
        assert c.play("damage Ann 1").ok
        time.sleep(2.5)  # a few reconnect attempts
        assert not c.bridge.is_connected
        assert caplog.text.count("refused the companion") == 1
        assert "check [mqtt] username and password" in caplog.text
    finally:
        c.stop()
