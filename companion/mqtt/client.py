"""One way to connect to the table's broker, for every process of the table.

The companion (:class:`~companion.mqtt.bridge.MqttBridge`) and the camera process
(:class:`vision.publish.VisionPublisher`) reach the same broker with the same
``[mqtt]`` settings (host, port, TLS and its CA), each as its own user. Both get
their paho client here, so credentials, TLS, the last will and the reconnect
delays are set up once, the same way: MQTT 5, the will set before connecting (the
broker keeps it from CONNECT on), a reconnect delay that grows to ``reconnect``
seconds, and small messages sent at once.
"""

from __future__ import annotations

import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from companion.config import ConfigError, Range, Seconds

__all__ = ["MqttConfig", "make_client", "tcp_no_delay"]


@dataclass(frozen=True)
class MqttConfig:
    """The ``[mqtt]`` settings: where the broker is and who the companion is on it."""

    enabled: bool = True
    host: str = "localhost"
    port: Annotated[int, Range(1, 65535)] = 1883
    username: str = ""
    password: str = ""
    password_file: Path | None = None
    """A file holding the password (made by ``runes-broker add companion``); wins over ``password``."""
    tls: bool = False
    ca_certs: Path | None = None
    """The CA certificate that signed the broker's (``runes-broker init`` makes both)."""
    keepalive: Annotated[Seconds, Range(0, 65535)] = 30.0
    """Seconds between pings when nothing else is said (0: never; MQTT allows 65535 at most)."""
    reconnect: Annotated[Seconds, Range(0)] = 5.0
    """Longest wait between two attempts to reach a broker that is down."""
    client_id: str = ""
    """Default: ``runes-companion-<table>``."""
    command_limit: Annotated[int, Range(1)] = 16384
    """Commands longer than this many bytes are refused before parsing."""
    homeassistant: bool = True
    discovery_prefix: str = "homeassistant"

    def secret(self, key: str = "[mqtt] password_file") -> str | None:
        """The password: ``password_file``'s content, else ``password``; errors name ``key``."""
        if self.password_file is not None:
            try:
                return self.password_file.read_text().strip()
            except OSError as e:
                raise ConfigError(f"{key}: cannot read {self.password_file}: "
                                  f"{e.strerror}") from e
        return self.password or None


def make_client(config: MqttConfig, *, client_id: str, will: str | None = None) -> mqtt.Client:
    """A paho client for the broker ``config`` names, not yet connected.

    ``will`` is a status topic: the broker publishes ``offline`` there (retained) when
    this client vanishes without saying goodbye. Connect with
    ``client.connect_async(config.host, config.port, ...)`` and ``loop_start()``.
    """
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=client_id, protocol=mqtt.MQTTv5)
    if config.username:
        client.username_pw_set(config.username, config.secret())
    if config.tls:
        try:
            client.tls_set(ca_certs=str(config.ca_certs) if config.ca_certs else None)
        except OSError as e:  # missing, unreadable, or not a certificate (ssl.SSLError)
            where = "[mqtt] ca_certs" if config.ca_certs else "[mqtt] tls"
            raise ConfigError(f"{where}: cannot use {config.ca_certs or 'the system CAs'}: "
                              f"{e.strerror or e}") from e
    if will is not None:
        client.will_set(will, "offline", qos=1, retain=True)
    client.reconnect_delay_set(min_delay=1, max_delay=max(1, round(config.reconnect)))
    client.on_socket_open = tcp_no_delay
    return client


def tcp_no_delay(client: mqtt.Client, userdata: Any, sock: Any) -> None:
    """Send each small message at once: with Nagle's algorithm a publish that follows
    another waits for its TCP acknowledgement, which the broker may delay by 40 ms."""
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    except (AttributeError, OSError):
        pass  # not a TCP socket (a websocket wrapper): nothing to tune
