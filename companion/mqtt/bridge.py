"""The table on an MQTT broker: retained state out, commands in.

Threads. paho runs its network loop on its own thread; the game belongs to the
table's owner thread. So the two meet in exactly two places:

* Out: a table listener (owner thread) turns each change into documents and
  hands them to paho, whose ``publish`` only queues them: the owner never waits
  for the network.
* In: a command arriving on paho's thread is checked for size and shape, then
  ``table.submit``-ted; the owner applies it and the reply is published from
  there.

Retained topics are kept in a snapshot (topic → payload bytes, all already
encoded), guarded by one lock that is also held while publishing. On every
(re)connect paho's thread republishes the snapshot under that lock, so what the
broker keeps is always the newest document, in order, and a broker that lost
everything (restarted without persistence) is whole again at once. While the
broker is away nothing is queued: the snapshot simply moves on, and events and
answers that could not be sent are counted in ``dropped``.

Retained documents are published at QoS 0 on purpose: at QoS 1 paho re-sends
messages that were in flight when the link broke *after* the fresh republish,
so the broker could end up keeping an older state. TCP already makes QoS 0
reliable on a live link, and the republish covers a broken one.

Stale retained documents (a seat of the previous, larger game; a removed
tracker's assignment; a Home Assistant sensor no longer needed) are found by
subscribing, with MQTT 5's no-local option, to the table's own retained
namespaces: whatever the broker hands back that is not in the snapshot is
cleared.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions

from companion.core.errors import ActionSyntaxError, CompanionError
from companion.core.session import Change, Session
from companion.payloads import (
    dumps, event_payload, read_object, result_payload, seat_key, seat_payloads, state_payload,
)
from companion.table import Result, Table

from .client import MqttConfig, make_client, tcp_no_delay
from .homeassistant import Discovery
from .topics import Topics

__all__ = ["CommandTooLarge", "MqttBridge", "MqttConfig", "tcp_no_delay"]

log = logging.getLogger(__name__)

Handler = Callable[[mqtt.MQTTMessage], None]


class CommandTooLarge(CompanionError, ValueError):
    """A command payload longer than the ``command_limit`` setting."""


@dataclass
class _Route:
    filter: str
    qos: int
    no_local: bool = False
    handlers: list[Handler] = field(default_factory=list)


class MqttBridge:
    """Publishes one table's game and takes commands for it; see the module docstring."""

    RESULT_QOS = 1
    CORRELATION_LIMIT = 128
    """Longest ``correlation`` string a command may carry."""

    def __init__(self, table: Table, config: MqttConfig | None = None) -> None:
        self.table = table
        self.config = config or MqttConfig()
        self.topics = Topics(table.table_id)
        self.discovery = (Discovery(self.topics, self.config.discovery_prefix)
                          if self.config.homeassistant else None)
        self.dropped = 0
        """Events and answers not sent because the broker was away."""
        self._lock = threading.Lock()
        self._retained: dict[str, bytes] = {}
        self._seats: dict[int, dict[str, Any]] = {}
        self._revision: int | None = None
        self._connected = False
        self._online = threading.Event()
        self._listening_mid: int | None = None
        self._offline_logged = False
        self._routes: dict[str, _Route] = {}
        self._detach: Callable[[], None] | None = None

        self.client = self._make_client()
        self.listen(self.topics.cmd, self._on_command)
        for namespace in (self.topics.seats, self.topics.trackers("seat")):
            self.listen(namespace, self._on_own, no_local=True)
        if self.discovery is not None:
            self.listen(self.discovery.filter, self._on_own, no_local=True)
            self.listen(self.discovery.status_topic, self._on_homeassistant)

    def _make_client(self) -> mqtt.Client:
        client = make_client(self.config,
                             client_id=self.config.client_id or f"runes-companion-{self.topics.table}",
                             will=self.topics.status)
        client.max_inflight_messages_set(64)
        client.max_queued_messages_set(256)
        client.on_connect = self._on_connect
        client.on_connect_fail = self._on_connect_fail
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_subscribe
        client.on_message = self._on_stray
        return client

    # -- life ----------------------------------------------------------------

    def start(self) -> None:
        """Follow the table and connect in the background (owner thread); never blocks."""
        self._detach = self.table.subscribe(self._on_change)
        if self.table.session is not None:
            self._on_change(self.table.session, None)
        c = self.config
        self.client.connect_async(c.host, c.port, keepalive=max(5, round(c.keepalive)),
                                  clean_start=True)
        self.client.loop_start()

    def stop(self, timeout: float = 2.0) -> None:
        """Say ``offline`` (a clean stop sends no last will) and disconnect."""
        if self._detach is not None:
            self._detach()
            self._detach = None
        with self._lock:
            info = (self.client.publish(self.topics.status, "offline", qos=1, retain=True)
                    if self._connected else None)
        if info is not None and info.rc == mqtt.MQTT_ERR_SUCCESS:
            try:
                info.wait_for_publish(timeout)
            except RuntimeError:
                pass  # the link broke meanwhile: the broker sends the last will instead
        self.client.disconnect()
        self.client.loop_stop()
        with self._lock:
            self._connected = False
            self._online.clear()

    @property
    def is_connected(self) -> bool:
        return self._online.is_set()

    def wait_for_connection(self, timeout: float | None = None) -> bool:
        """Block until the broker has accepted us, the snapshot is sent and the broker has
        confirmed our subscriptions (a command published after this is heard); for tests and
        tools."""
        return self._online.wait(timeout)

    # -- what other parts publish (any thread) --------------------------------

    def retain(self, topic: str, payload: bytes) -> None:
        """Keep ``payload`` retained on ``topic``, now and after every reconnect."""
        with self._lock:
            self._put(topic, payload)

    def forget(self, topic: str) -> None:
        """Remove a retained document from the broker and from the snapshot."""
        with self._lock:
            self._drop(topic)

    def send(self, topic: str, payload: bytes, qos: int = 0,
             properties: Properties | None = None) -> bool:
        """Publish once, not retained; False (and counted in ``dropped``) while offline."""
        with self._lock:
            if not self._connected:
                self.dropped += 1
                return False
            info = self.client.publish(topic, payload, qos=qos, properties=properties)
        if info.rc != mqtt.MQTT_ERR_SUCCESS:
            self.dropped += 1
            return False
        return True

    def listen(self, topic_filter: str, handler: Handler, qos: int = 1,
               no_local: bool = False) -> None:
        """Call ``handler(message)`` on paho's thread for messages matching ``topic_filter``.

        The subscription is made again on every reconnect. Handlers must not touch
        the session: they submit to the table or update their own thread-safe state.
        """
        with self._lock:
            route = self._routes.get(topic_filter)
            if route is not None:
                route.handlers.append(handler)
                return
        route = _Route(topic_filter, qos, no_local, [handler])
        # Outside our lock: paho takes its callback lock here, and holds it while calling
        # on_connect, which takes ours.
        self.client.message_callback_add(topic_filter, self._dispatch(route))
        with self._lock:
            self._routes[topic_filter] = route
            if self._connected:
                self.client.subscribe(topic_filter, options=SubscribeOptions(qos, no_local))

    def _dispatch(self, route: _Route) -> Callable[[mqtt.Client, Any, mqtt.MQTTMessage], None]:
        def on_message(client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
            for handler in list(route.handlers):
                try:
                    handler(message)
                except Exception:
                    # A broken handler must not stop paho's loop, and with it every other topic.
                    log.exception("handling %s failed", message.topic)
        return on_message

    # -- out: the owner thread -----------------------------------------------

    def _on_change(self, session: Session[Any], change: Change[Any] | None) -> None:
        state = dumps(state_payload(session))
        seats = seat_payloads(session)
        configs = (self.discovery.configs(seats)
                   if change is None and self.discovery is not None else None)
        event = dumps(event_payload(session, change)) if change is not None else None
        with self._lock:
            self._revision = session.revision
            self._put(self.topics.state, state)
            for seat in seats:
                key = seat_key(seat)
                number = seat["seat"]
                if change is None or self._seats.get(number) != key:
                    self._seats[number] = key
                    self._put(self.topics.seat(number), dumps(seat))
            if change is None:
                for number in [n for n in self._seats if n > len(seats)]:
                    del self._seats[number]
                    self._drop(self.topics.seat(number))
            if configs is not None and self.discovery is not None:
                for topic in [t for t in self._retained
                              if self.discovery.owns(t) and t not in configs]:
                    self._drop(topic)
                for topic, document in configs.items():
                    self._put(topic, dumps(document))
        if event is not None:
            self.send(self.topics.event, event)

    def _put(self, topic: str, payload: bytes) -> None:
        """Lock held: remember and, if connected, publish a retained document."""
        if self._retained.get(topic) == payload:
            return
        self._retained[topic] = payload
        if self._connected:
            self.client.publish(topic, payload, qos=0, retain=True)

    def _drop(self, topic: str) -> None:
        if self._retained.pop(topic, None) is not None and self._connected:
            self.client.publish(topic, b"", qos=0, retain=True)

    # -- in: paho's thread ------------------------------------------------------

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                    properties: Any) -> None:
        if reason.is_failure:
            self._log_offline(logging.ERROR, "the MQTT broker at %s:%d refused the companion "
                              "(%s); check [mqtt] username and password", reason)
            return
        with self._lock:
            self._connected = True
            _, self._listening_mid = client.subscribe(
                [(r.filter, SubscribeOptions(r.qos, r.no_local)) for r in self._routes.values()])
            client.publish(self.topics.status, "online", qos=0, retain=True)
            for topic, payload in self._retained.items():
                client.publish(topic, payload, qos=0, retain=True)
        self._offline_logged = False
        log.info("connected to the MQTT broker at %s:%d as table %s",
                 self.config.host, self.config.port, self.topics.table)

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any,
                      properties: Any) -> None:
        # Online once the broker has our subscriptions: until then a command sent to the
        # table could pass unheard.
        if mid == self._listening_mid:
            self._online.set()

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self._log_offline(logging.WARNING,
                          "cannot reach the MQTT broker at %s:%d; retrying (the game goes on)")

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any,
                       properties: Any) -> None:
        with self._lock:
            self._connected = False
            self._online.clear()
        if reason.is_failure:
            self._log_offline(logging.WARNING,
                              "lost the MQTT broker at %s:%d; reconnecting (the game goes on)")

    def _log_offline(self, level: int, message: str, *args: Any) -> None:
        """Say it once per outage, not at every retry."""
        if not self._offline_logged:
            self._offline_logged = True
            log.log(level, message, self.config.host, self.config.port, *args)

    def _on_stray(self, client: mqtt.Client, userdata: Any, message: mqtt.MQTTMessage) -> None:
        log.debug("message on %s matches no route", message.topic)

    def _on_own(self, message: mqtt.MQTTMessage) -> None:
        """A retained document in our own namespace that we did not publish this run: clear it."""
        if not message.retain or not message.payload:
            return
        with self._lock:
            if message.topic not in self._retained and self._connected:
                log.info("clearing the stale retained %s", message.topic)
                self.client.publish(message.topic, b"", qos=0, retain=True)

    def _on_homeassistant(self, message: mqtt.MQTTMessage) -> None:
        if message.payload != b"online" or self.discovery is None:
            return
        with self._lock:
            if self._connected:
                for topic, payload in self._retained.items():
                    if self.discovery.owns(topic):
                        self.client.publish(topic, payload, qos=0, retain=True)

    def _on_command(self, message: mqtt.MQTTMessage) -> None:
        properties = message.properties
        response_topic = getattr(properties, "ResponseTopic", None)
        correlation_data = getattr(properties, "CorrelationData", None)
        if message.retain:
            # A retained command would be applied again at every reconnect: it is never current.
            log.warning("ignoring and clearing a retained message on %s", message.topic)
            self.client.publish(message.topic, b"", qos=0, retain=True)
            return
        reply_to = self._reply_topic(response_topic)
        try:
            document, correlation = self._decode(message.payload)
        except CompanionError as e:
            log.info("refused an MQTT command: %s", e)
            self._answer(Result(False, self._revision, error=str(e), kind=type(e).__name__),
                         reply_to, correlation_data, None)
            return
        self.table.submit(document, source="mqtt", reply=lambda result: self._answer(
            result, reply_to, correlation_data, correlation))

    def _decode(self, payload: bytes | bytearray) -> tuple[dict[str, Any], str | None]:
        """The command's JSON object and its correlation string, or why it cannot be one."""
        limit = self.config.command_limit
        if len(payload) > limit:
            raise CommandTooLarge(f"a command is at most {limit} bytes; this one has {len(payload)}")
        try:
            document = read_object(payload)
        except ValueError as e:
            raise ActionSyntaxError(f'the command {e}; send a JSON object such as '
                                    '{"action": "damage", "player": "Ann", "amount": 3}') from None
        correlation = document.pop("correlation", None)
        if correlation is not None and not (isinstance(correlation, str)
                                            and len(correlation) <= self.CORRELATION_LIMIT):
            raise ActionSyntaxError(f'"correlation" must be a string of at most '
                                    f'{self.CORRELATION_LIMIT} characters')
        return document, correlation

    def _reply_topic(self, requested: str | None) -> str:
        """The MQTT 5 response topic if it lies below the result topic, else the result topic.

        Anything else could make the companion write where it should not (a state
        topic, another table), so it is refused and the shared topic used instead.
        """
        if requested is None:
            return self.topics.result
        if (requested.startswith(self.topics.result + "/") and len(requested) <= 256
                and not any(c in requested for c in "+#\0")):
            return requested
        log.info("ignoring the response topic %r: answers go below %s", requested,
                 self.topics.result)
        return self.topics.result

    def _answer(self, result: Result, topic: str, correlation_data: bytes | None,
                correlation: str | None) -> None:
        properties = None
        if correlation_data is not None:
            properties = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
            properties.CorrelationData = correlation_data
        self.send(topic, dumps(result_payload(result, correlation)), qos=self.RESULT_QOS,
                  properties=properties)
