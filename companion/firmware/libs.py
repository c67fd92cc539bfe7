"""The MicroPython libraries the firmware needs, fetched for the unix port.

On a board they come from micropython-lib through ``mpremote mip install``
(see :mod:`.setup`). The unix port has no ``mip`` path in the tests, so the
same library is taken from PyPI, where ``micropython-umqtt.simple`` is
published as a bare sdist with neither ``setup.py`` nor ``pyproject.toml``:
pip refuses to build it, but with ``--no-clean`` it leaves the unpacked source
in its temporary directory, which is where we pick ``umqtt/simple.py`` up.
The result is cached under ``.cache/`` and never committed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from . import CACHE_DIR

__all__ = ["UMQTT", "micropython_lib"]

UMQTT = "micropython-umqtt.simple==1.3.4"
"""The MQTT client the firmware uses (the same code as micropython-lib's umqtt.simple)."""


class LibraryFetchError(RuntimeError):
    """pip could not download a MicroPython library (no network, or no such release)."""


def micropython_lib(cache: Path = CACHE_DIR) -> Path:
    """A directory to put on ``MICROPYPATH`` that holds ``umqtt/simple.py``."""
    target = cache / "micropython-lib" / UMQTT.replace("==", "-")
    if (target / "umqtt" / "simple.py").is_file():
        return target
    with tempfile.TemporaryDirectory(prefix="umqtt-") as tmp:
        # Fails by design ("does not appear to be a Python project") after unpacking.
        result = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
             "--no-clean", "--disable-pip-version-check", "-d", os.path.join(tmp, "dl"), UMQTT],
            env={**os.environ, "TMPDIR": tmp}, capture_output=True, text=True)
        found = sorted(Path(tmp).rglob("umqtt/simple.py"))
        if not found:
            raise LibraryFetchError(f"pip download {UMQTT} left no umqtt/simple.py:\n"
                                    f"{result.stdout}{result.stderr}")
        target.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="umqtt-", dir=target.parent))
        shutil.copytree(found[0].parent, staging / "umqtt")
    try:
        staging.rename(target)   # atomic: a parallel run either wins or finds it there
    except OSError:
        shutil.rmtree(staging)
    return target
