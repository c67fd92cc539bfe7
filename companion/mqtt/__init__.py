"""The table on MQTT: topics, the bridge to the broker, Home Assistant discovery.

See ``docs/mqtt.md`` for the topics and documents, ``docs/broker.md`` for the
broker's users, rights and TLS.
"""

from .bridge import CommandTooLarge, MqttBridge, MqttConfig
from .homeassistant import Discovery
from .topics import Topics, check_id

__all__ = ["CommandTooLarge", "Discovery", "MqttBridge", "MqttConfig", "Topics", "check_id"]
