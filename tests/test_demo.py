"""``runes-demo`` under a virtual screen: everything comes up for real, the LED window shows
lit LEDs, and one Ctrl-C (SIGINT) leaves no process behind."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from pathlib import Path

import cv2
import numpy as np

import pytest

from companion import demo as demo_module
from companion.app.display import VirtualScreen
from companion.demo.leds import TITLE, announce
from tests.support.mqtt import Probe, decode

RUNES_DEMO = Path(sys.executable).with_name("runes-demo")


def descendants(pid: int) -> set[int]:
    """Every process below ``pid`` (from /proc: each process's parent)."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat.rpartition(")")[2].split()[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()
    except OSError:
        return False


def mentioning(text: str) -> list[int]:
    """Processes whose command line mentions ``text`` (an orphan would still)."""
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if text in (entry / "cmdline").read_bytes().decode(errors="replace"):
                    out.append(int(entry.name))
            except OSError:
                continue
    return [p for p in out if alive(p)]


def window(display: str, title: str) -> tuple[int, int, int, int]:
    """x, y, width, height of the top-level window called exactly ``title``, once it is up."""
    pattern = re.compile(r'^\s*0x[0-9a-f]+ "' + re.escape(title) + r'":.*?(\d+)x(\d+)\+(-?\d+)\+(-?\d+)')
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        tree = subprocess.run(["xwininfo", "-root", "-tree"], env={**os.environ, "DISPLAY": display},
                              capture_output=True, text=True).stdout
        for line in tree.splitlines():
            if m := pattern.match(line):
                w, h, x, y = (int(v) for v in m.groups())
                return x, y, w, h
        time.sleep(0.5)
    raise AssertionError(f"no window called {title!r}")


def test_the_demo_comes_up_shows_lit_leds_and_stops_with_one_ctrl_c(tmp_path: Path) -> None:
    state, cache = tmp_path / "state", tmp_path / "cache"
    with VirtualScreen((1280, 800)) as screen:
        env = {**os.environ, "DISPLAY": screen.display, "XDG_CONFIG_HOME": str(tmp_path / "cfg")}
        out = (tmp_path / "demo.out").open("w+")
        demo = subprocess.Popen([str(RUNES_DEMO), "--state", str(state), "--cache", str(cache)],
                                env=env, stdout=out, stderr=subprocess.STDOUT)
        probe = None
        try:
            deadline = time.monotonic() + 180
            while "The demo is running" not in (tmp_path / "demo.out").read_text():
                assert demo.poll() is None, (tmp_path / "demo.out").read_text()
                assert time.monotonic() < deadline, "the demo did not start"
                time.sleep(0.5)
            port = tomllib.loads((state / "companion.toml").read_text())["mqtt"]["port"]
            probe = Probe("127.0.0.1", port)
            probe.connect()
            probe.subscribe("runes/demo/#")
            # The app owns the table; four firmware trackers report; the camera reads.
            probe.latest("runes/demo/status", timeout=90, where=lambda s: s == "online")
            for n in range(1, 5):
                probe.latest(f"runes/demo/tracker/{n}/status", timeout=60,
                             where=lambda s: isinstance(s, dict) and s.get("online", True))
            reading = probe.wait_for(lambda m: m.topic in ("runes/demo/vision/dice",
                                                           "runes/demo/vision/card"), timeout=90)
            assert json.loads(reading.payload).get("cards") or json.loads(reading.payload)["dice"]
            assert decode(probe.on("runes/demo/seat/1")[-1].payload)["name"] == "Ann"

            window(screen.display, "Rune Table")  # the app
            x, y, w, h = window(screen.display, TITLE)
            shot = tmp_path / "screen.png"
            deadline = time.monotonic() + 30
            while True:
                subprocess.run(["import", "-window", "root", str(shot)],
                               env={**os.environ, "DISPLAY": screen.display}, check=True)
                leds = cv2.imread(str(shot))[y:y + h, x:x + w].astype(int)
                lit = (leds.max(axis=2) >= 150) & (leds.max(axis=2) - leds.min(axis=2) >= 100)
                if np.count_nonzero(lit) > 4 * 12 * 100 or time.monotonic() > deadline:
                    break
                time.sleep(1)
            print(f"screenshot: {shot}")
            assert np.count_nonzero(lit) > 4 * 12 * 100, "the LED window shows no lit LEDs"

            family = descendants(demo.pid)
            assert len(family) >= 8, "broker, LED window, app, camera, four trackers"
            demo.send_signal(signal.SIGINT)
            assert demo.wait(60) == 0
        finally:
            if probe is not None:
                probe.close()
            if demo.poll() is None:
                demo.kill()
                demo.wait()
            out.close()
        deadline = time.monotonic() + 10
        while any(alive(p) for p in family) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [p for p in family if alive(p)] == []
        assert mentioning(str(state)) == []
        assert "everything is stopped" in (tmp_path / "demo.out").read_text()


def test_the_led_window_announces_its_port_whole_over_a_stale_file(tmp_path: Path) -> None:
    """The demo reads the port as soon as the file exists, so the file appears already
    holding it (renamed into place), replacing one left by an earlier run."""
    ready = tmp_path / "leds.port"
    ready.write_text("")
    announce(ready, 40123)
    assert int(ready.read_text()) == 40123
    assert sorted(tmp_path.iterdir()) == [ready]


def test_the_reader_stamp_follows_the_reading_code(tmp_path: Path) -> None:
    """The stamp is the reader's sources: the same code, the same stamp; a line changed, another."""
    import vision

    copy = tmp_path / "vision"
    shutil.copytree(Path(vision.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert demo_module.reader_stamp(copy) == demo_module.reader_stamp()
    pips = copy / "dice" / "pips.py"
    pips.write_text(pips.read_text() + "\n# a change\n")
    assert demo_module.reader_stamp(copy) != demo_module.reader_stamp()


def test_samples_kept_for_another_reader_are_made_again(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample set kept for an earlier reader (or from before sets were stamped) may no
    longer be read as what it shows: a new set is made, read right, and the old ones go."""
    cache = tmp_path / "cache"
    for old in (f"samples-v{demo_module.SAMPLES_VERSION}",
                f"samples-v{demo_module.SAMPLES_VERSION}-0000000b"):
        (cache / old / "replay").mkdir(parents=True)
        (cache / old / "done").touch()
    monkeypatch.setattr(demo_module, "reader_stamp", lambda: "0000000a")
    samples = demo_module.prepare_samples(cache)
    assert samples.replay == cache / f"samples-v{demo_module.SAMPLES_VERSION}-0000000a" / "replay"
    assert len(list(samples.replay.glob("*.png"))) == 7 * demo_module.SCENE_SECONDS
    assert sorted(p.name for p in cache.iterdir()) == [samples.replay.parent.name]
