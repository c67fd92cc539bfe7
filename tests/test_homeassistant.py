"""Home Assistant discovery: the table as a device, each seat's HP as a sensor."""

from __future__ import annotations


import pytest

from tests.support.broker import SecureBroker
from tests.support.mqtt import Probe, decode, validate

PREFIX = "homeassistant/sensor/runes_t1"


@pytest.fixture
def home_assistant(locked_broker: SecureBroker):
    probe = Probe(locked_broker.host, locked_broker.port, locked_broker.users["homeassistant"])
    assert not probe.connect().is_failure
    probe.subscribe("homeassistant/#", "runes/+/seat/+", "runes/+/status")
    yield probe
    probe.close()


def configs(probe: Probe, after: int = 0) -> dict[str, dict]:
    return {m.topic: decode(m.payload) for m in probe.messages[after:]
            if m.topic.endswith("/config") and m.payload}


def test_discovery_describes_the_table_and_its_seats(mqtt_companion, home_assistant):
    home_assistant.latest(f"{PREFIX}/seat3_hp/config")
    found = configs(home_assistant)
    assert sorted(found) == [f"{PREFIX}/{o}/config" for o in ("game", "seat1_hp", "seat2_hp",
                                                               "seat3_hp")]
    for document in found.values():
        validate("discovery", document)
        assert document["availability_topic"] == "runes/t1/status"
        assert document["device"]["identifiers"] == ["runes_t1"]
    hp = found[f"{PREFIX}/seat2_hp/config"]
    assert hp["state_topic"] == "runes/t1/seat/2" and hp["unit_of_measurement"] == "HP"
    # The template reads a key the seat document has (Home Assistant renders it so).
    seat = home_assistant.latest("runes/t1/seat/2")
    assert hp["value_template"] == "{{ value_json.hp }}" and seat["hp"] == 12
    assert home_assistant.latest("runes/t1/status") == "online"


def test_discovery_is_sent_again_when_home_assistant_comes_online(mqtt_companion, home_assistant):
    home_assistant.latest(f"{PREFIX}/seat3_hp/config")
    seen = len(home_assistant.messages)
    home_assistant.publish("homeassistant/status", b"online")
    home_assistant.wait_for(lambda m: m.topic == f"{PREFIX}/seat3_hp/config", after=seen)
    assert len(configs(home_assistant, seen)) == 4
    seen = len(home_assistant.messages)
    home_assistant.publish("homeassistant/status", b"offline")
    home_assistant.publish("homeassistant/status", b"online")
    home_assistant.wait_for(lambda m: m.topic == f"{PREFIX}/game/config", after=seen)


def test_a_smaller_game_removes_the_sensors_it_no_longer_has(mqtt_companion, home_assistant):
    home_assistant.latest(f"{PREFIX}/seat3_hp/config")
    with mqtt_companion.paused() as table:
        table.start("zun", "zun players=Dee,Eve")
    home_assistant.wait_for(lambda m: m.topic == f"{PREFIX}/seat3_hp/config" and m.payload == b"")
