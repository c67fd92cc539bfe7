"""runes-service: the headless companion as systemd runs it, in its own process."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion.config import load_config
from companion.core.journal import Journal
from companion.service import Service
from tests.support.broker import SecureBroker
from tests.support.mqtt import Probe

T = "runes/t1"


def write_config(tmp_path: Path, broker: SecureBroker, extra: str = "") -> Path:
    secret = tmp_path / "mqtt-password"
    secret.write_text(broker.users["companion-t1"].password + "\n")
    config = tmp_path / "companion.toml"
    config.write_text(f"""
[table]
id = "t1"

[journal]
path = "{tmp_path / 'data' / 'journal.sqlite'}"

[mqtt]
host = "{broker.host}"
port = {broker.port}
username = "companion-t1"
password_file = "{secret}"
keepalive = "5s"

[trackers]
simulated = 2
{extra}""")
    return config


def service(config: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "companion.service", "--config", str(config),
                             *args], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.fixture
def controller(locked_broker: SecureBroker):
    probe = Probe(locked_broker.host, locked_broker.port, locked_broker.users["controller-t1"])
    assert not probe.connect().is_failure
    probe.subscribe(f"{T}/status", f"{T}/cmd/result", f"{T}/state")
    yield probe
    probe.close()


def test_serves_resumes_and_stops_cleanly(tmp_path, locked_broker, controller):
    config = write_config(tmp_path, locked_broker)
    process = service(config, "--new", "zun players=Ann,Bob")
    try:
        controller.latest(f"{T}/status", where=lambda s: s == "online", timeout=20)
        controller.publish(f"{T}/cmd", b'{"action": "damage", "player": "Ann", "amount": 2}')
        assert controller.latest(f"{T}/cmd/result")["revision"] == 1
        process.send_signal(signal.SIGTERM)
        assert process.wait(10) == 0
        # (The broker passes the goodbye on to the controller a moment after it acknowledged
        # it to the companion, which may already have exited: wait for it.)
        controller.latest(f"{T}/status", where=lambda s: s == "offline", timeout=5)
    finally:
        process.kill()
    output = process.stdout.read()
    assert "new game 1" in output and "SIGTERM: stopping" in output

    process = service(config)
    try:
        controller.latest(f"{T}/status", where=lambda s: s == "online", timeout=20)
        controller.publish(f"{T}/cmd", b'{"action": "damage", "player": "Ann", "amount": 2}')
        result = controller.latest(f"{T}/cmd/result", where=lambda r: r["revision"] == 2)
        assert result["events"][0]["text"] == "Ann takes 2 damage: 10 → 8"
        process.kill()  # no goodbye: the broker says it, with the companion's last will
        process.wait(10)
        assert controller.latest(f"{T}/status", where=lambda s: s == "offline", timeout=15)
    finally:
        process.kill()
    assert (tmp_path / "data" / "trackers.json").exists(), "the simulated trackers were assigned"


def test_a_bad_setting_is_named_and_nothing_starts(tmp_path, locked_broker):
    config = write_config(tmp_path, locked_broker, extra="wled_leds = \"twelve\"\n")
    process = service(config)
    assert process.wait(20) == 2
    assert "[trackers] wled_leds: must be a whole number" in process.stdout.read()
    config.write_text('[table]\nid = "table 1"\n')
    process = service(config)
    assert process.wait(20) == 2
    assert "[table] id must be 1 to 32 letters" in process.stdout.read()
    config.write_text(f'[table]\nid = "t1"\n[journal]\npath = "{tmp_path / "j.sqlite"}"\n'
                      f'[mqtt]\ntls = true\nca_certs = "{tmp_path / "missing-ca.pem"}"\n')
    process = service(config)
    assert process.wait(20) == 2
    output = process.stdout.read()
    assert "[mqtt] ca_certs: cannot use" in output and "Traceback" not in output
    config = write_config(tmp_path, locked_broker)
    process = service(config, "--new", "zun players=Ann")
    assert process.wait(20) == 2
    assert "Runes of Zun needs at least 2 players" in process.stdout.read()


def test_a_new_game_in_json_and_a_game_that_cannot_be_resumed(tmp_path: Path) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(f'[journal]\npath = "{tmp_path / "journal.sqlite"}"\n')
    service = Service(load_config(config),
                      new_game='{"action": "zun", "players": ["Ann", "Bob"]}')
    service.open_game()
    assert service.table.execute("damage Ann 2").ok
    service.journal.close()
    with Journal(tmp_path / "journal.sqlite") as journal:  # data files changed under the game
        journal._db.execute("UPDATE actions SET action = '{\"action\": \"fly\"}'")
    service = Service(load_config(config))
    service.open_game()  # logged, and the table comes up with no game rather than not at all
    assert service.table.session is None
    assert not service.table.execute("next").ok
    service.journal.close()
