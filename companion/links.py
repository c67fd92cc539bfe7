"""Everything that links a table to the world beyond its screen: MQTT, the LED trackers
and the camera process.

Both owners of a table, the headless service and the Kivy app, build the same
:class:`Links` from the settings file and start it on their owner thread; only
the loop that pumps the table differs (a plain loop, or Kivy's clock)::

    links = Links.from_config(table, load_config(), journal_dir=journal.path.parent)
    links.start()
    ...
    links.trackers.blink("ab12cd")       # the setup screen
    links.trackers.assign("ab12cd", 3)
    links.camera.online                  # the status corner
    ...
    links.stop()
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from companion.camera import CameraLink
from companion.config import Config, ConfigError, Range, Seconds, read_section
from companion.mqtt import MqttBridge, MqttConfig
from companion.table import Table
from companion.trackers import Trackers, TrackerStore
from companion.trackers.base import BLINK_LIMIT
from vision.settings import VisionConfig

if TYPE_CHECKING:
    from companion.trackers.serial import SerialLink

__all__ = ["Links", "TrackersConfig"]


@dataclass(frozen=True)
class TrackersConfig:
    """The ``[trackers]`` settings: which LED trackers the table has, and how to reach them."""

    state_file: Path | None = None
    """Which tracker shows which seat; default ``trackers.json`` beside the journal."""
    blink: Annotated[Seconds, Range(0, BLINK_LIMIT, exclusive_minimum=True)] = 3.0
    """How long a tracker flashes so the players can see which one it is (at most 30 s)."""
    firmware: bool = True
    """Take our firmware trackers that announce themselves on the broker."""
    wled: tuple[str, ...] = ()
    """WLED device topics (WLED's "Device Topic", e.g. ``wled/table1``)."""
    wled_segments: int = 1
    """Seats per WLED device: 1 for a device per seat, or one segment per seat."""
    wled_leds: Annotated[int, Range(1)] = 12
    """LEDs in each seat's segment."""
    wled_dim: Annotated[int, Range(0, 255)] = 96
    """Brightness (0-255) of the seats whose turn it is not."""
    serial: tuple[str, ...] = ()
    """Serial ports with a tracker (``/dev/serial/by-id/...`` names survive replugging)."""
    baudrate: Annotated[int, Range(1)] = 115200
    simulated: Annotated[int, Range(0)] = 0
    """Trackers without hardware, for the demo."""


class Links:
    """The MQTT bridge, the LED trackers and the camera of one table; see the module docstring."""

    def __init__(self, table: Table, *, mqtt: MqttConfig | None = None,
                 trackers: TrackersConfig | None = None, journal_dir: Path | None = None,
                 vision: VisionConfig | None = None) -> None:
        mqtt = mqtt or MqttConfig()
        settings = trackers or TrackersConfig()
        vision = vision or VisionConfig()
        self.table = table
        self.bridge = MqttBridge(table, mqtt) if mqtt.enabled else None
        if self.bridge is None and vision.auto_confirm:
            raise ConfigError("[vision] auto_confirm: camera readings come over MQTT, "
                              "but [mqtt] enabled = false")
        self.camera = (CameraLink(self.bridge, table, auto_confirm=vision.auto_confirm)
                       if self.bridge is not None else None)
        """The camera process (None without MQTT)."""
        state_file = settings.state_file or (journal_dir / "trackers.json" if journal_dir else None)
        self.trackers = Trackers(TrackerStore(state_file), blink_seconds=settings.blink)
        self.serial_links: list[SerialLink] = []
        self._detach: Callable[[], None] | None = None
        self._build(settings)

    @classmethod
    def from_config(cls, table: Table, config: Config, *,
                    journal_dir: Path | None = None) -> Links:
        """Links as the settings file's ``[mqtt]``, ``[trackers]`` and ``[vision]`` tables
        describe them (``[vision]`` is the camera process's; the companion reads
        ``auto_confirm`` from it)."""
        return cls(table, mqtt=read_section(MqttConfig, config.section("mqtt"), "mqtt"),
                   trackers=read_section(TrackersConfig, config.section("trackers"), "trackers"),
                   journal_dir=journal_dir,
                   vision=read_section(VisionConfig, config.section("vision"), "vision"))

    def _build(self, settings: TrackersConfig) -> None:
        # Drivers are imported here, on first use: a table without serial trackers
        # never loads pyserial's port code.
        if self.bridge is None:
            if settings.wled:
                raise ConfigError("[trackers] wled: WLED trackers need MQTT, "
                                  "but [mqtt] enabled = false")
        else:
            if settings.firmware:
                from companion.trackers.firmware import FirmwareTrackers
                FirmwareTrackers(self.bridge, self.trackers)
            if settings.wled:
                from companion.trackers.wled import WledDevice
                for topic in settings.wled:
                    try:
                        WledDevice(self.bridge, self.trackers, topic,
                                   segments=settings.wled_segments, leds=settings.wled_leds,
                                   dim=settings.wled_dim)
                    except ValueError as e:
                        raise ConfigError(f"[trackers] wled: {e}") from None
        if settings.serial:
            from companion.trackers.serial import SerialLink
            self.serial_links = [SerialLink(port, self.trackers, baudrate=settings.baudrate)
                                 for port in settings.serial]
        if settings.simulated:
            from companion.trackers.simulated import SimulatedTracker
            for n in range(1, settings.simulated + 1):
                self.trackers.add(SimulatedTracker(f"sim-{n}"))

    def start(self) -> None:
        """Follow the table and start talking to the broker and the ports (owner thread)."""
        self._detach = self.trackers.attach(self.table)
        if self.camera is not None:
            self.camera.start()
        if self.bridge is not None:
            self.bridge.start()
        for link in self.serial_links:
            link.start()

    def stop(self) -> None:
        """Stop every link: the broker hears ``offline``, the ports are closed."""
        if self._detach is not None:
            self._detach()
            self._detach = None
        for link in self.serial_links:
            link.stop()
        if self.camera is not None:
            self.camera.stop()
        self.trackers.close()
        if self.bridge is not None:
            self.bridge.stop()
