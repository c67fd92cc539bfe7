"""The vision process's settings: ``[camera]`` and ``[vision]`` in the companion's file.

    [camera]
    source = "usb"        # "usb", "usb:1" (device index), "pi", or a folder / video to replay
    width = 1280
    height = 720
    fps = 10.0
    retry = "2s"          # how often a missing camera is tried again

    [vision]
    table = "table1"      # topics are runes/<table>/vision/…
    broker_host = "localhost"
    broker_port = 1883
    faces = "pips"        # or a face folder (one subfolder per face)
    tray = ""             # a tray calibration file from `runes-vision calibrate`, if any
    threshold = 0.5       # below this confidence a die is "unknown"
    settle_frames = 3     # consecutive agreeing, still frames before a reading counts
    motion = 0.004        # share of the picture that may change and still count as still
    overlay = true        # send the confirmation overlay with each reading
    overlay_width = 960
    overlay_quality = 80
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from companion.config import Seconds, load_config, read_section

__all__ = ["CameraConfig", "VisionConfig", "load_settings"]


@dataclass(frozen=True)
class CameraConfig:
    source: str = "usb"
    width: int = 1280
    height: int = 720
    fps: float = 10.0
    retry: Seconds = 2.0


@dataclass(frozen=True)
class VisionConfig:
    table: str = "table1"
    broker_host: str = "localhost"
    broker_port: int = 1883
    faces: str = "pips"
    tray: str = ""
    threshold: float = 0.5
    settle_frames: int = 3
    motion: float = 0.004
    overlay: bool = True
    overlay_width: int = 960
    overlay_quality: int = 80


def load_settings(path: str | Path | None = None) -> tuple[CameraConfig, VisionConfig]:
    """Both tables, checked (a wrong key or type raises ``ConfigError`` naming it)."""
    config = load_config(path)
    return (read_section(CameraConfig, config.section("camera"), "camera"),
            read_section(VisionConfig, config.section("vision"), "vision"))
