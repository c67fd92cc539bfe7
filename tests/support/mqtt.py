"""MQTT helpers for tests: a recording client, the payload schemas, a running companion."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jsonschema
import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions
from referencing import Registry, Resource

from companion.core.journal import Journal
from companion.links import Links, TrackersConfig
from companion.mqtt import MqttConfig
from companion.mqtt.bridge import tcp_no_delay
from companion.service import OwnerLoop
from companion.table import Result, Table
from tests.support.broker import REPO, Credentials, SecureBroker
from vision.settings import VisionConfig

SCHEMAS = REPO / "docs" / "schemas"


def _registry() -> Registry:
    resources = [(p.name, Resource.from_contents(json.loads(p.read_text())))
                 for p in sorted(SCHEMAS.glob("*.json"))]
    return Registry().with_resources(resources)


REGISTRY = _registry()


def validate(schema: str, document: Any) -> None:
    """Check ``document`` against ``docs/schemas/<schema>.json`` (and fail the test if not)."""
    contents = REGISTRY.contents(f"{schema}.json")
    jsonschema.Draft202012Validator(contents, registry=REGISTRY).validate(document)


def schema_for(topic: str, table: str = "t1") -> str | None:
    """Which schema a topic's payload follows (None for topics without one)."""
    t = f"runes/{table}/"
    parts = topic.split("/")
    if topic == t + "status":
        return "status"
    if topic == t + "state":
        return "state"
    if topic == t + "event":
        return "event"
    if topic == t + "cmd":
        return "command"
    if topic.startswith(t + "cmd/result"):
        return "result"
    if topic.startswith(t + "seat/"):
        return "seat"
    if topic.startswith(t + "tracker/") and len(parts) == 5:
        return {"status": "tracker-status", "seat": "tracker-seat",
                "blink": "tracker-blink"}.get(parts[4])
    if topic.startswith(t + "vision/"):
        return {"dice": "vision-dice", "card": "vision-card", "status": "status",
                "cmd": "vision-cmd", "cmd/result": "vision-cmd-result",
                "preview": "vision-preview"}.get(topic[len(t + "vision/"):])
    if topic.startswith("homeassistant/") and topic.endswith("/config"):
        return "discovery"
    if topic.startswith("wled/") and topic.endswith("/api"):
        return "wled-state"
    return None


def decode(payload: bytes) -> Any:
    """A payload as the schemas see it: JSON, or a bare word as a JSON string."""
    try:
        return json.loads(payload)
    except ValueError:
        return payload.decode("utf-8")


class Probe:
    """A paho client that records every message; it resubscribes after every reconnect."""

    def __init__(self, host: str, port: int, credentials: Credentials | None = None, *,
                 client_id: str = "", protocol: int = mqtt.MQTTv5,
                 ca: Path | None = None) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id,
                                  protocol=protocol)
        if credentials is not None:
            self.client.username_pw_set(credentials.user, credentials.password)
        if ca is not None:
            self.client.tls_set(ca_certs=str(ca))
        self.client.reconnect_delay_set(1, 1)
        self.host, self.port = host, port
        self.messages: list[mqtt.MQTTMessage] = []
        self.filters: list[str] = []
        self.connects: queue.Queue[Any] = queue.Queue()
        self.subacks: queue.Queue[list[Any]] = queue.Queue()
        self._new = threading.Condition()
        self.client.on_socket_open = tcp_no_delay
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda c, u, mid, codes, p: self.subacks.put(codes)

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if not reason.is_failure and self.filters:
            client.subscribe([(f, SubscribeOptions(qos=1)) for f in self.filters])
        self.connects.put(reason)

    def _on_message(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        with self._new:
            self.messages.append(message)
            self._new.notify_all()

    def connect(self, timeout: float = 5.0) -> Any:
        """Connect and return the broker's reason code (a failure too)."""
        self.client.connect_async(self.host, self.port, keepalive=10)
        self.client.loop_start()
        return self.connects.get(timeout=timeout)

    def subscribe(self, *filters: str, timeout: float = 5.0) -> list[Any]:
        """Subscribe (and again on every reconnect); returns the SUBACK reason codes."""
        self.filters.extend(filters)
        self.client.subscribe([(f, SubscribeOptions(qos=1)) for f in filters])
        return self.subacks.get(timeout=timeout)

    def publish(self, topic: str, payload: bytes | str, *, qos: int = 1, retain: bool = False,
                properties: Properties | None = None, timeout: float = 5.0) -> Any:
        """Publish and wait for the broker to take it (QoS 1: its PUBACK, with v5 its reason)."""
        acks: queue.Queue[Any] = queue.Queue()
        self.client.on_publish = lambda c, u, mid, reason, p: acks.put((mid, reason))
        info = self.client.publish(topic, payload, qos=qos, retain=retain,
                                   properties=properties)
        if qos == 0:
            info.wait_for_publish(timeout)
            return None
        while True:
            mid, reason = acks.get(timeout=timeout)
            if mid == info.mid:
                return reason

    def wait_for(self, predicate: Callable[[mqtt.MQTTMessage], bool], timeout: float = 5.0,
                 after: int = 0) -> mqtt.MQTTMessage:
        """The first message (from index ``after``) that ``predicate`` accepts."""
        deadline = time.monotonic() + timeout
        with self._new:
            while True:
                for message in self.messages[after:]:
                    if predicate(message):
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    raise AssertionError(f"no such message within {timeout} s; got "
                                         f"{[(m.topic, m.payload[:80]) for m in self.messages]}")
                self._new.wait(left)

    def on(self, topic: str) -> list[mqtt.MQTTMessage]:
        with self._new:
            return [m for m in self.messages if m.topic == topic]

    def latest(self, topic: str, timeout: float = 5.0,
               where: Callable[[Any], bool] = lambda d: True) -> Any:
        """The payload of the newest message on ``topic``, decoded, once ``where`` holds for it."""
        deadline = time.monotonic() + timeout
        while True:
            messages = self.on(topic)
            if messages and where(decode(messages[-1].payload)):
                return decode(messages[-1].payload)
            if time.monotonic() > deadline:
                raise AssertionError(f"{topic}: last is "
                                     f"{messages[-1].payload if messages else None!r}")
            time.sleep(0.01)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


@dataclass
class Companion:
    """A table playing a game, linked to a locked broker, its owner loop on a thread."""

    workdir: Path
    broker: SecureBroker
    setup: str = "zun players=Ann,Bob,Cid"
    trackers: TrackersConfig = field(default_factory=lambda: TrackersConfig(firmware=True))
    mqtt: MqttConfig | None = None
    vision: VisionConfig | None = None

    def __post_init__(self) -> None:
        self.mqtt = self.mqtt or companion_config(self.broker)
        self.journal = Journal(self.workdir / "journal.sqlite")
        self.table = Table(self.journal, table_id=self.broker.table)
        self.table.start(self.setup.split()[0], self.setup)
        self.links = Links(self.table, mqtt=self.mqtt, trackers=self.trackers,
                           journal_dir=self.workdir, vision=self.vision)
        self.loop = OwnerLoop(self.table, tick=0.05)
        self._thread: threading.Thread | None = None

    @property
    def bridge(self) -> Any:
        return self.links.bridge

    def start(self, *, wait: bool = True) -> Companion:
        self.links.start()
        self._run()
        if wait:
            assert self.bridge.wait_for_connection(10), "the companion did not connect"
        return self

    def _run(self) -> None:
        self.loop = OwnerLoop(self.table, tick=0.05)
        self._thread = threading.Thread(target=self.loop.run, daemon=True)
        self._thread.start()

    @contextmanager
    def paused(self) -> Iterator[Table]:
        """The owner loop stopped, so the test may act as the owner thread."""
        self.loop.stop()
        assert self._thread is not None
        self._thread.join(5)
        try:
            yield self.table
        finally:
            self._run()

    def play(self, command: Any, timeout: float = 5.0) -> Result:
        """Submit like an input thread would, and wait for the owner's answer."""
        answers: queue.Queue[Result] = queue.Queue()
        assert self.table.submit(command, source="test", reply=answers.put)
        return answers.get(timeout=timeout)

    @property
    def revision(self) -> int:
        assert self.table.session is not None
        return self.table.session.revision

    def stop(self) -> None:
        """Stop the loop and the links, close the journal; again is harmless."""
        if self._thread is None:
            return
        self.loop.stop()
        self._thread.join(5)
        self._thread = None
        self.links.stop()
        self.journal.close()


def companion_config(broker: SecureBroker, **changes: Any) -> MqttConfig:
    credentials = broker.users[f"companion-{broker.table}"]
    config = MqttConfig(host=broker.host, port=broker.port, username=credentials.user,
                        password=credentials.password, keepalive=5, reconnect=1)
    return replace(config, **changes)
