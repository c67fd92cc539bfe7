"""Running firmware code on the real MicroPython unix port (``.venv/bin/micropython``)."""

from __future__ import annotations

import binascii
import json
import subprocess
from pathlib import Path
from typing import Any

from companion.firmware import FIRMWARE_DIR
from companion.firmware.emulator import micropython_command, micropython_path
from companion.firmware.libs import micropython_lib

HARNESS = Path(__file__).resolve().parents[1] / "firmware" / "on_device"


def run_micropython(code: str, *, timeout: float = 30) -> Any:
    """Run ``code`` after ``from harness import *`` (tests/firmware/on_device/harness.py);
    returns the JSON its last line of output prints (see ``report``)."""
    result = subprocess.run(
        [micropython_command(), "-c", "from harness import *\n" + code],
        env=micropython_path([FIRMWARE_DIR, HARNESS, micropython_lib()]),
        capture_output=True, text=True, timeout=timeout)
    if result.returncode != 0:
        raise AssertionError(f"MicroPython failed ({result.returncode}):\n"
                             f"{result.stdout}{result.stderr}")
    lines = result.stdout.strip().splitlines()
    assert lines, f"MicroPython printed nothing; stderr:\n{result.stderr}"
    return json.loads(lines[-1])


def pixels(value: Any) -> list[tuple[int, int, int]]:
    """A frame as JSON (lists) → a list of (r, g, b) tuples, for comparing."""
    return [(p[0], p[1], p[2]) for p in value]


def serial_line(kind: str, obj: Any) -> bytes:
    """One line of the serial protocol (docs/mqtt.md); stands in for the companion's serial
    driver, being written in parallel."""
    body = f"{kind} {json.dumps(obj)}".encode()
    return body + b"*%08x\n" % (binascii.crc32(body) & 0xFFFFFFFF)
