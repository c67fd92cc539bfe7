"""Put the tracker firmware and its settings on a board over USB, with ``mpremote``.

    python -m companion.firmware.install --port /dev/ttyACM0 --id ann-tracker
    python -m companion.firmware.install --port /dev/ttyACM0 --id usb1 --mode serial

What every board is told (the table id, the broker as the boards reach it, the Wi-Fi) comes
from the ``[tracker_setup]`` table of the companion's settings file (the table id from
``[table] id``), and each can be overridden on
the command line; the tracker id, its seat and any other firmware setting (``--set leds=16``)
are per board. The settings are checked with the firmware's own rules
(``firmware/tracker/config.py``) before anything is copied, then written to the board as
``secrets.json``.

The steps, each one ``mpremote`` run:

1. Stop the running tracker: delete its ``main.py`` and reset the board. Its watchdog cannot be
   stopped once started, and would reset the board half-way through the copy.
2. Install ``umqtt.simple`` from micropython-lib (``mip``; MQTT mode only), copy the
   ``tracker`` package and ``secrets.json``, and ``main.py`` last, so that an interrupted
   install never starts a half-copied firmware.
3. Reset: the board starts the tracker.

``--no-reset`` leaves out the resets (a board without the watchdog, or the unix port in the
tests); ``--dry-run`` prints the settings and the commands instead.
"""

from __future__ import annotations

import argparse
import json
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Annotated, Any

from companion.config import ConfigError, Range, load_config, read_section
from companion.table import TableConfig

from . import FIRMWARE_DIR, firmware_config

__all__ = ["InstallError", "TrackerSetup", "board_settings", "check_settings", "install", "main",
           "mpremote_steps"]

_ID = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
"""Tracker ids go into MQTT topics: no ``/``, ``+`` or ``#``."""


class InstallError(RuntimeError):
    """The settings are wrong, or mpremote failed; the message says which and why."""


@dataclass(frozen=True)
class TrackerSetup:
    """The ``[tracker_setup]`` table of the settings file: what every board is told.

    (``[trackers]`` is the companion's own view of its trackers; this is what a board is
    flashed with.) ``table`` defaults to the companion's ``[table] id``.
    """

    table: str | None = None
    broker: str = "runes.local"
    """The broker's address as the boards reach it (the companion's host name on the LAN)."""
    port: Annotated[int, Range(1, 65535)] = 1883
    user: str | None = None
    password: str | None = None
    wifi_ssid: str | None = None
    wifi_password: str | None = None


def board_settings(setup: TrackerSetup, tracker_id: str, *, mode: str = "mqtt",
                   seat: int | None = None, extra: Mapping[str, Any] | None = None
                   ) -> dict[str, Any]:
    """The ``secrets.json`` of one board: only what differs from the firmware's defaults."""
    if not _ID.match(tracker_id):
        raise InstallError(f"tracker id {tracker_id!r}: use 1 to 32 letters, digits, - or _ "
                           "(it goes into MQTT topics)")
    settings: dict[str, Any] = {"id": tracker_id, "mode": mode}
    if mode == "mqtt":
        if not setup.wifi_ssid:
            raise InstallError("no Wi-Fi network: set wifi_ssid in [tracker_setup] of the settings "
                               "file or give --wifi-ssid (or use --mode serial)")
        settings.update({k: v for k, v in asdict(setup).items() if v is not None})
    else:
        settings["table"] = setup.table
    if seat is not None:
        settings["seat"] = seat
    settings.update(extra or {})
    return settings


def check_settings(settings: Mapping[str, Any]) -> None:
    """Raise InstallError unless the firmware would take every setting as given."""
    config = firmware_config()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "secrets.json"
        path.write_text(json.dumps(settings))
        _, problems = config.load(str(path), "esp32")
    if problems:
        raise InstallError("; ".join(p.replace(str(path), "secrets.json") for p in problems))


def mpremote_steps(port: str, secrets: Path, *, libs: bool = True, reset: bool = True
                   ) -> list[list[str]]:
    """The ``mpremote`` argument lists of the three steps (see the module docstring)."""
    connect = ["connect", port, "resume"]
    stop = ["exec", 'import os; "main.py" in os.listdir() and os.remove("main.py")']
    modules = sorted(str(p) for p in (FIRMWARE_DIR / "tracker").glob("*.py"))
    copy = [*connect]
    if libs:
        copy += ["mip", "install", "umqtt.simple", "+"]
    copy += ["exec", 'import os; "tracker" in os.listdir() or os.mkdir("tracker")', "+",
             "fs", "cp", *modules, ":tracker/", "+",
             "fs", "cp", str(secrets), ":secrets.json", "+",
             "fs", "cp", str(FIRMWARE_DIR / "main.py"), ":main.py"]
    steps = [[*connect, *stop, *(["+", "reset"] if reset else [])], copy]
    if reset:
        steps.append([*connect, "reset"])
    return steps


def _run_mpremote(args: Sequence[str], wait: float) -> None:
    """Run mpremote, waiting up to ``wait`` s for the port (a board re-enumerates after reset)."""
    deadline = time.monotonic() + wait
    while True:
        result = subprocess.run([sys.executable, "-m", "mpremote", *args],
                                capture_output=True, text=True)
        if result.returncode == 0:
            return
        if "failed to access" not in result.stdout + result.stderr or time.monotonic() > deadline:
            raise InstallError(f"mpremote {shlex.join(args)} failed:\n{result.stdout}"
                               f"{result.stderr}")
        time.sleep(0.5)


def install(port: str, settings: Mapping[str, Any], *, libs: bool = True,
            reset: bool = True, wait: float = 15.0) -> None:
    """Check ``settings`` and put the firmware and them on the board at ``port``."""
    check_settings(settings)
    with tempfile.TemporaryDirectory() as tmp:
        secrets = Path(tmp) / "secrets.json"
        secrets.write_text(json.dumps(settings, indent=1) + "\n")
        for step in mpremote_steps(port, secrets, libs=libs and settings.get("mode") == "mqtt",
                                   reset=reset):
            _run_mpremote(step, wait)


def _setting(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: write KEY=VALUE, e.g. leds=16")
    try:
        return key.strip(), json.loads(value)
    except ValueError:
        return key.strip(), value      # plain text needs no JSON quotes


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m companion.firmware.install",
        description="Copy the LED tracker firmware and its settings to a board over USB.")
    parser.add_argument("--port", help="the board's serial port, e.g. /dev/ttyACM0")
    parser.add_argument("--id", required=True, help="the tracker's id (letters, digits, - or _)")
    parser.add_argument("--mode", choices=("mqtt", "serial"), default="mqtt",
                        help="mqtt over Wi-Fi (default) or serial over USB")
    parser.add_argument("--seat", type=int, help="the seat it shows until the companion says")
    parser.add_argument("--table", help="the table id (default: [table] id)")
    parser.add_argument("--broker", help="the broker as the boards reach it")
    parser.add_argument("--broker-port", type=int)
    parser.add_argument("--user", help="the tracker's broker user")
    parser.add_argument("--password", help="the tracker's broker password")
    parser.add_argument("--wifi-ssid")
    parser.add_argument("--wifi-password")
    parser.add_argument("--set", type=_setting, action="append", default=[], metavar="KEY=VALUE",
                        help="any other firmware setting, e.g. leds=16 or pool_leds=12")
    parser.add_argument("--no-libs", action="store_true", help="skip mip install umqtt.simple")
    parser.add_argument("--no-reset", action="store_true", help="do not reset the board")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the settings and mpremote commands, touch nothing")
    args = parser.parse_args(argv)
    try:
        config = load_config()
        setup = read_section(TrackerSetup, config.section("tracker_setup"), "tracker_setup")
        table = read_section(TableConfig, config.section("table"), "table").id
        overrides = {"table": args.table or setup.table or table, "broker": args.broker, "port": args.broker_port,
                     "user": args.user, "password": args.password, "wifi_ssid": args.wifi_ssid,
                     "wifi_password": args.wifi_password}
        setup = TrackerSetup(**{**asdict(setup),
                                **{k: v for k, v in overrides.items() if v is not None}})
        settings = board_settings(setup, args.id, mode=args.mode, seat=args.seat,
                                  extra=dict(args.set))
        check_settings(settings)
        if args.dry_run:
            print(json.dumps(settings, indent=1))
            for step in mpremote_steps(args.port or "PORT", Path("secrets.json"),
                                       libs=not args.no_libs and args.mode == "mqtt",
                                       reset=not args.no_reset):
                print("mpremote", shlex.join(step))
            return 0
        if not args.port:
            parser.error("--port is needed (see: mpremote connect list)")
        install(args.port, settings, libs=not args.no_libs, reset=not args.no_reset)
    except (ConfigError, InstallError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    print(f"tracker {args.id} installed on {args.port}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
