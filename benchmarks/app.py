"""Touchscreen app figures: start-up to the first interactive frame, frame times under a camera.

    python -m benchmarks.app [--runs 3] [--seconds 5] [--fps 30] [--size 800x480]

Start-up is measured from spawning ``runes-app`` (a fresh Python process, as
systemd starts it) to its first frame on screen with a saved game of Runes of
Zun resumed, so the table is what that frame shows. Frame times are the
intervals between frames while the Settings screen shows the camera preview,
fed by a simulated camera thread at ``--fps`` through the same main-thread
mailbox the real camera uses. Without a display, an Xvfb is started.
Goals: start-up under 3 s; no frame over 50 ms.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.core import percentile
from companion.app.display import VirtualScreen
from companion.core.journal import Journal
from companion.core.session import Session

ROOT = Path(__file__).resolve().parents[1]


def _ask(path: Path, op: str, **params: Any) -> dict[str, Any]:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(str(path))
        with s.makefile("rwb") as f:
            f.write(json.dumps({"op": op, **params}).encode() + b"\n")
            f.flush()
            answer: dict[str, Any] = json.loads(f.readline())
    return answer


def _launch(work: Path, size: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], float, Path]:
    probe = work / f"probe-{time.monotonic_ns()}.sock"
    env = {**env, "RUNES_APP_PROBE": str(probe)}
    spawned = time.time()
    process = subprocess.Popen([sys.executable, "-c", "from companion.app import main; main()",
                                "--journal", str(work / "journal.sqlite"), "--size", size],
                               env=env, cwd=ROOT, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if probe.exists():
            try:
                answer = _ask(probe, "ping")
                if answer.get("ready"):
                    return process, answer["first_frame_wall"] - spawned, probe
            except OSError:
                pass
        time.sleep(0.02)
    process.kill()
    raise TimeoutError("the app did not show its first frame within 60 s")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.app", description=__doc__)
    parser.add_argument("--runs", type=int, default=3, help="start-ups to time")
    parser.add_argument("--seconds", type=float, default=5.0, help="camera stream to time")
    parser.add_argument("--fps", type=int, default=30, help="simulated camera frames a second")
    parser.add_argument("--size", default="800x480")
    args = parser.parse_args(argv)
    screen = None if os.environ.get("DISPLAY") else VirtualScreen()
    work = Path(tempfile.mkdtemp(prefix="runes-bench-app-"))
    (work / "companion.toml").write_text(
        f'[app]\nhardware = "simulated"\ncamera_fps = {args.fps}\n')
    env = {**os.environ, "KIVY_HOME": str(work / "kivy"),
           "RUNES_CONFIG": str(work / "companion.toml")}
    if screen is not None:
        env["DISPLAY"] = screen.display
    with Journal(work / "journal.sqlite") as journal:
        session = Session.new("zun", "players=Ann,Bob,Cid,Dee locations=tourist", journal=journal)
        for command in ("damage Ann 3", "next", "heal Ann 1", "next", "next", "next") * 5:
            session.play(command)
    try:
        startups = []
        for _ in range(args.runs):
            process, startup, probe = _launch(work, args.size, env)
            startups.append(startup)
            _ask(probe, "stop")
            process.wait(timeout=30)
        print(f"app start-up to first frame ({args.runs} runs): best {min(startups):.2f} s, "
              f"worst {max(startups):.2f} s (goal < 3 s)")
        process, _, probe = _launch(work, args.size, env)
        try:
            _ask(probe, "go", screen="settings", tab="camera")
            time.sleep(1.0)  # the camera thread starts, the preview settles
            _ask(probe, "frames_start")
            time.sleep(args.seconds)
            answer = _ask(probe, "frames_stop")
        finally:
            _ask(probe, "stop")
            process.wait(timeout=30)
        frames = [f * 1000 for f in answer["frames"]]
        slow = sum(1 for f in frames if f > 50)
        print(f"frame times with the camera preview at {args.fps} fps over {args.seconds:.0f} s: "
              f"{len(frames)} frames, median {percentile(frames, 50):.1f} ms, "
              f"p99 {percentile(frames, 99):.1f} ms, max {max(frames):.1f} ms, "
              f"{slow} over 50 ms (goal: none); camera frames shown {answer['camera_shown']}, "
              f"dropped {answer['camera_dropped']}")
    finally:
        if screen is not None:
            screen.close()


if __name__ == "__main__":
    main()
