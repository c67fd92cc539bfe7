"""A virtual X screen (Xvfb) for screenshots and tests on a machine without a display."""

from __future__ import annotations

import os
import shutil
import subprocess

__all__ = ["VirtualScreen"]


class VirtualScreen:
    """An Xvfb server on a free display number (Xvfb picks it: ``-displayfd``)."""

    def __init__(self, size: tuple[int, int] = (1920, 1080)) -> None:
        if shutil.which("Xvfb") is None:
            raise RuntimeError("Xvfb is not installed (Debian: apt-get install xvfb)")
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-screen", "0", f"{size[0]}x{size[1]}x24",
             "-nolisten", "tcp"], pass_fds=(write,), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as f:
            number = f.readline().strip()
        if not number:
            self.process.kill()
            raise RuntimeError("Xvfb did not start")
        self.display = f":{number}"

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)

    def __enter__(self) -> VirtualScreen:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
