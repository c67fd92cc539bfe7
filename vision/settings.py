"""The vision process's settings: ``[camera]``, ``[vision]`` and ``[cards]`` in the
companion's file, and the broker as the companion's ``[table]`` and ``[mqtt]`` name it.

    [table]
    id = "table1"         # topics are runes/<id>/vision/…

    [mqtt]                # the companion's: host, port, tls and ca_certs are shared
    host = "localhost"
    port = 1883

    [camera]
    source = "usb"        # "usb", "usb:1" (device index), "pi", or a folder / video to replay
    width = 1280
    height = 720
    fps = 10.0
    retry = "2s"          # how often a missing camera is tried again
    turn = 0              # degrees clockwise (0, 90, 180, 270) that bring the tray's far side to
                          # the top, or "auto": learnt from the rolls (vision.dice.direction)

    [vision]
    username = "vision-table1"        # the camera's own broker user (runes-broker add vision)
    password_file = "/etc/runes/vision-password"
    auto_confirm = false  # the companion plays settled readings at once (no confirmation)
    faces = "pips"        # or a face folder (one subfolder per face)
    tray = ""             # the tray calibration file (default: tray.json in the state directory)
    threshold = 0.5       # below this confidence a die is "unknown"
    settle_frames = 3     # consecutive agreeing, still frames before a reading counts
    motion = 0.004        # share of the picture that may change and still count as still
    photo = true          # send the photo of each reading (the touchscreen outlines it)
    overlay = true        # send the confirmation overlay (outlines drawn in) with each reading
    overlay_width = 960   # width of the pictures sent with readings (photo and overlay)
    overlay_quality = 80
    preview_width = 480   # the preview the companion's Settings asks for (vision/cmd)
    preview_fps = 2.0

    [cards]
    deck = ""             # a deck folder (runes-vision teach-card): cards are read too
    max_cards = 8         # most cards read in one frame

``[vision]`` is one table for both sides: the companion reads ``auto_confirm`` from it
(:mod:`companion.camera`), the camera process everything else.

The tray calibration is read from ``tray`` if it names a file, else from ``tray.json`` in
the state directory (:func:`tray_path`), if there is one; a calibration asked for from the
companion's Settings (``vision/cmd``) is written to that same file, so it holds after a
restart without anyone editing this file.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Annotated, Literal

from companion.config import Config, Range, Seconds, journal_path, load_config, read_section
from companion.mqtt.client import MqttConfig
from companion.table import TableConfig

__all__ = ["CameraConfig", "CameraTurn", "CardsConfig", "VisionConfig", "broker_settings",
           "cards_settings", "learnt_turn_path", "load_settings", "tray_path"]


Turn = Literal[0, 90, 180, 270]
"""Degrees clockwise a frame is turned before it is read (:func:`vision.sources.turned`)."""
CameraTurn = Literal[0, 90, 180, 270, "auto"]
"""``[camera] turn``: a :data:`Turn`, or ``"auto"``: learnt (:mod:`vision.dice.direction`)."""


@dataclass(frozen=True)
class CameraConfig:
    source: str = "usb"
    width: Annotated[int, Range(1)] = 1280
    height: Annotated[int, Range(1)] = 720
    fps: Annotated[float, Range(0, exclusive_minimum=True)] = 10.0
    retry: Annotated[Seconds, Range(0, exclusive_minimum=True)] = 2.0
    turn: CameraTurn = 0
    """Each frame is turned clockwise by this much, so that the tray's far side is at the
    top of the picture, where the dice reader expects it (:func:`vision.sources.turned`);
    ``"auto"``: by as much as the rolls seen so far say (:mod:`vision.dice.direction`)."""


@dataclass(frozen=True)
class VisionConfig:
    username: str = ""
    """The camera process's broker user; empty: anonymous (a private demo broker)."""
    password_file: Path | None = None
    """A file holding its password (``runes-broker add vision`` writes it)."""
    auto_confirm: bool = False
    """Read by the companion: a settled reading is played at once, without a tap."""
    faces: str = "pips"
    tray: str = ""
    threshold: Annotated[float, Range(0, 1)] = 0.5
    settle_frames: Annotated[int, Range(1)] = 3
    motion: Annotated[float, Range(0)] = 0.004
    photo: bool = True
    """Send the plain photo with each reading (``photo_jpeg``): the touchscreen draws on it."""
    overlay: bool = True
    overlay_width: Annotated[int, Range(1)] = 960
    """The width, at most, of both pictures sent with a reading."""
    overlay_quality: Annotated[int, Range(1, 100)] = 80
    preview_width: Annotated[int, Range(1)] = 480
    preview_fps: Annotated[float, Range(0, exclusive_minimum=True)] = 2.0
    """The preview asked for on ``vision/cmd``: small and slow, for aiming the camera."""


@dataclass(frozen=True)
class CardsConfig:
    """The ``[cards]`` table: which deck the camera names cards against."""

    deck: str = ""
    max_cards: Annotated[int, Range(1)] = 8


def load_settings(path: str | Path | None = None) -> tuple[CameraConfig, VisionConfig]:
    """Both tables, checked (a wrong key or type raises ``ConfigError`` naming it)."""
    config = load_config(path)
    return (read_section(CameraConfig, config.section("camera"), "camera"),
            read_section(VisionConfig, config.section("vision"), "vision"))


def cards_settings(config: Config) -> CardsConfig:
    """The ``[cards]`` table, checked."""
    return read_section(CardsConfig, config.section("cards"), "cards")


def broker_settings(config: Config) -> tuple[str, MqttConfig]:
    """The table's id, and the companion's ``[mqtt]`` connection as the camera's own user.

    The password is read here, at start, so a missing file is reported at once and by
    its key (``[vision] password_file``) rather than when the broker is first tried.
    """
    table = read_section(TableConfig, config.section("table"), "table").id
    shared = read_section(MqttConfig, config.section("mqtt"), "mqtt")
    vision = read_section(VisionConfig, config.section("vision"), "vision")
    own = replace(shared, password="", password_file=vision.password_file)
    password = own.secret("[vision] password_file") if vision.username else None
    return table, replace(shared, username=vision.username, password=password or "",
                          password_file=None, client_id=f"runes-vision-{table}")


def tray_path(config: Config, settings: VisionConfig) -> Path:
    """Where the tray calibration is kept: ``[vision] tray``, else ``tray.json`` in the
    state directory (beside the journal: ``$STATE_DIRECTORY`` under systemd)."""
    if settings.tray:
        return Path(settings.tray)
    return journal_path(config).parent / "tray.json"


def learnt_turn_path(config: Config) -> Path:
    """Where ``[camera] turn = "auto"`` keeps the turn it learnt, so that a restart starts
    from it: ``camera-turn.txt`` in the state directory (beside the journal)."""
    return journal_path(config).parent / "camera-turn.txt"
