"""The repo's broker configuration really locks the broker down (systemd/mosquitto/runes.conf)."""

from __future__ import annotations

import json
import ssl
import subprocess
import time
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from companion.broker import BrokerDir, BrokerSetupError, User, acl_text, main
from companion.trackers.firmware import FirmwareTracker
from tests.support.broker import Credentials, SecureBroker
from tests.support.mqtt import Companion, Probe, companion_config

T = "runes/t1"


def probe(broker: SecureBroker, user: str | None, *filters: str, **kwargs) -> Probe:
    p = Probe(broker.host, broker.port, broker.users[user] if user else None, **kwargs)
    reason = p.connect()
    assert not reason.is_failure, reason
    if filters:
        p.subscribe(*filters)
    return p


def test_anonymous_and_wrong_passwords_are_refused(locked_broker):
    for credentials in (None, Credentials("controller-t1", "guess")):
        p = Probe(locked_broker.host, locked_broker.port, credentials)
        reason = p.connect()
        assert reason.is_failure and reason.getName() in ("Not authorized",
                                                          "Bad user name or password")
        p.close()
    old = Probe(locked_broker.host, locked_broker.port, protocol=mqtt.MQTTv311)
    assert old.connect().is_failure
    old.close()


def test_a_tracker_cannot_publish_state_or_commands(mqtt_companion, locked_broker):
    watcher = probe(locked_broker, "controller-t1", f"{T}/state", f"{T}/seat/1")
    state = watcher.latest(f"{T}/state")
    tracker = probe(locked_broker, "tracker-t1-tr1")
    forged = json.dumps({**state, "revision": 99}).encode()
    assert tracker.publish(f"{T}/state", forged, retain=True).getName() == "Not authorized"
    assert tracker.publish(f"{T}/seat/1", b'{"hp": 1}', retain=True).getName() == "Not authorized"
    assert tracker.publish(f"{T}/cmd", b'{"action": "damage", "player": "Ann", "amount": 5}'
                           ).getName() == "Not authorized"
    assert tracker.publish(f"{T}/tracker/other/status", b'{"id": "other"}'
                           ).getName() == "Not authorized"
    # ...while its own status goes through: the refusals above are the ACL, not a broken client.
    assert not tracker.publish(f"{T}/tracker/tr1/status", b'{"id": "tr1"}').is_failure
    time.sleep(0.3)
    assert mqtt_companion.revision == 0
    assert all(json.loads(m.payload)["revision"] == 0 for m in watcher.on(f"{T}/state"))
    assert all(json.loads(m.payload)["hp"] == 12 for m in watcher.on(f"{T}/seat/1"))
    tracker.close()
    watcher.close()


def test_a_tracker_reads_only_its_seats_and_its_own_topics(mqtt_companion, locked_broker):
    tracker = probe(locked_broker, "tracker-t1-tr1", f"{T}/seat/+", f"{T}/tracker/tr1/#",
                    f"{T}/state", f"{T}/event", f"{T}/tracker/other/seat", "runes/t2/seat/+")
    tracker.latest(f"{T}/seat/3")
    mqtt_companion.links.trackers.add(FirmwareTracker("other", mqtt_companion.bridge))
    assert mqtt_companion.play("damage Cid 1").ok
    tracker.latest(f"{T}/seat/3", where=lambda s: s["hp"] == 11)
    time.sleep(0.3)
    topics = {m.topic for m in tracker.messages}
    assert f"{T}/state" not in topics and f"{T}/event" not in topics
    assert f"{T}/tracker/other/seat" not in topics
    tracker.close()


def test_commands_need_a_controller_and_vision_may_only_publish_readings(mqtt_companion,
                                                                         locked_broker):
    vision = probe(locked_broker, "vision-t1", f"{T}/vision/cmd")
    assert vision.publish(f"{T}/cmd", b'{"action": "next"}').getName() == "Not authorized"
    for topic in ("dice", "card", "status", "preview", "cmd/result"):
        assert not vision.publish(f"{T}/vision/{topic}", b'{"schema": 1}').is_failure, topic
    # The requests to the camera are the companion's: the camera cannot send itself any,
    # nor can a controller; the camera hears the companion's.
    request = b'{"schema": 1, "preview": 5}'
    assert vision.publish(f"{T}/vision/cmd", request).getName() == "Not authorized"
    assert vision.publish(f"{T}/vision/other", b"{}").getName() == "Not authorized"
    mqtt_companion.bridge.send(f"{T}/vision/cmd", request, qos=1)
    assert vision.latest(f"{T}/vision/cmd") == {"schema": 1, "preview": 5}
    other = probe(locked_broker, "controller-t1")
    assert other.publish(f"{T}/vision/cmd", request).getName() == "Not authorized"
    other.close()
    ha = probe(locked_broker, "homeassistant")
    assert ha.publish(f"{T}/cmd", b'{"action": "next"}').getName() == "Not authorized"
    controller = probe(locked_broker, "controller-t1", f"{T}/cmd/result")
    assert not controller.publish(f"{T}/cmd", b'{"action": "next"}').is_failure
    assert controller.latest(f"{T}/cmd/result")["revision"] == 1
    assert controller.publish(f"{T}/state", b"{}").getName() == "Not authorized"
    for p in (vision, ha, controller):
        p.close()


def test_one_tables_users_cannot_touch_another_table(mqtt_companion, locked_broker):
    other = locked_broker.add("controller", table="t2")
    locked_broker.broker.reload()
    time.sleep(0.3)
    p = Probe(locked_broker.host, locked_broker.port, other)
    assert not p.connect().is_failure, "the new user is known after a reload"
    assert p.publish(f"{T}/cmd", b'{"action": "next"}').getName() == "Not authorized"
    assert not p.publish("runes/t2/cmd", b'{"action": "next"}').is_failure
    p.close()
    assert mqtt_companion.revision == 0


def test_tls_listener_with_the_made_certificates(tmp_path, locked_broker):
    secure = Probe(locked_broker.host, locked_broker.tls_port, locked_broker.users["controller-t1"],
                   ca=locked_broker.ca)
    assert not secure.connect().is_failure
    secure.close()
    plain = Probe(locked_broker.host, locked_broker.tls_port, locked_broker.users["controller-t1"])
    with pytest.raises(Exception):
        plain.connect(timeout=2)
    plain.close()
    # Another CA (a certificate for a different LAN) is not trusted.
    stranger = BrokerDir(tmp_path / "stranger")
    stranger.make_certificates(["localhost"])
    wrong = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    wrong.tls_set(ca_certs=str(stranger.certs / "ca.crt"))
    with pytest.raises(ssl.SSLCertVerificationError):
        wrong.connect(locked_broker.host, locked_broker.tls_port)


def test_the_companion_over_tls(tmp_path, locked_broker):
    c = Companion(tmp_path, locked_broker, mqtt=companion_config(
        locked_broker, port=locked_broker.tls_port, tls=True, ca_certs=locked_broker.ca)).start()
    try:
        p = probe(locked_broker, "controller-t1", f"{T}/state")
        assert c.play("damage Ann 1").ok
        assert p.latest(f"{T}/state", where=lambda s: s["revision"] == 1)
        p.close()
    finally:
        c.stop()


def test_acl_rights_per_role():
    users = [User("companion-t1", "companion", "t1"), User("wled-t1-strip", "wled", "t1", "strip"),
             User("tracker-t1-ab", "tracker", "t1", "ab"), User("homeassistant", "homeassistant")]
    text = acl_text(users)
    blocks = {b.splitlines()[1].split()[1]: b for b in text.split("\n\n")[1:] if b.strip()}
    assert "topic write wled/strip/api" in blocks["companion-t1"]
    assert "topic write runes/t1/tracker/ab/status" in blocks["tracker-t1-ab"]
    assert "write runes/t1/seat" not in blocks["tracker-t1-ab"]
    assert "runes/t1/state" not in blocks["tracker-t1-ab"]
    assert "runes" not in blocks["wled-t1-strip"]


@pytest.mark.parametrize("role, table, device, message", [
    ("admin", "t1", None, "unknown role"),
    ("tracker", "t1", None, "needs --id"),
    ("controller", None, None, "needs --table"),
    ("tracker", "t1", "a/b", "a device id"),
    ("controller", "t+1", None, "a table id"),
])
def test_bad_users_are_refused(role, table, device, message):
    with pytest.raises(BrokerSetupError, match=message):
        User(User.default_name(role, table, device), role, table, device)


def test_the_setup_command(tmp_path, capsys):
    d = tmp_path / "broker"
    assert main(["--dir", str(d), "init", "--host", "table.local", "--host", "10.0.0.7"]) == 0
    assert (d / "certs" / "server.crt").exists() and (d / "acl").exists()
    assert (d / "certs" / "ca.key").stat().st_mode & 0o777 == 0o600
    assert main(["--dir", str(d), "add", "tracker", "--table", "t1", "--id", "ab12"]) == 0
    name, password = capsys.readouterr().out.strip().splitlines()[-1].split()
    assert name == "tracker-t1-ab12" and len(password) >= 20
    assert password not in (d / "passwd").read_text(), "stored hashed"
    secret = tmp_path / "mqtt_companion.secret"
    assert main(["--dir", str(d), "add", "companion", "--table", "t1",
                 "--password-file", str(secret)]) == 0
    assert secret.stat().st_mode & 0o777 == 0o600
    assert main(["--dir", str(d), "list"]) == 0
    assert "tracker-t1-ab12\ttracker" in capsys.readouterr().out
    assert main(["--dir", str(d), "remove", "tracker-t1-ab12"]) == 0
    assert "tracker-t1-ab12" not in (d / "passwd").read_text()
    assert "tracker-t1-ab12" not in (d / "acl").read_text()
    assert main(["--dir", str(d), "remove", "nobody"]) == 1
    assert "no user 'nobody'" in capsys.readouterr().err
    san = _certificate_text(d / "certs" / "server.crt")
    assert "DNS:table.local" in san and "IP Address:10.0.0.7" in san


def _certificate_text(path: Path) -> str:
    return subprocess.run(["openssl", "x509", "-in", str(path), "-noout", "-text"],
                          capture_output=True, text=True, check=True).stdout
