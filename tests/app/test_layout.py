"""Every screen of every game, rendered for real: text fits, touch targets are 9 mm or more.

The screenshot command tours the app (the same tour that makes docs/screenshots/)
and checks each screen as it shows it; at 800×480 the touch targets are measured
on the 7" display, at 1280×800 and 1920×1080 the layout must still fit its text.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from companion.app.display import VirtualScreen
from companion.app.screenshots import scenes

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("size", ["800x480", "1280x800", "1920x1080"])
def test_every_screen_fits_its_text_and_targets(size: str, tmp_path: Path) -> None:
    with VirtualScreen() as screen:
        env = {**os.environ, "DISPLAY": screen.display, "KIVY_HOME": str(tmp_path / "kivy"),
               "RUNES_CONFIG": str(tmp_path / "companion.toml"),
               "XDG_CONFIG_HOME": str(tmp_path / "config")}
        run = subprocess.run(
            [sys.executable, "-m", "companion.app.screenshots", "--out", str(tmp_path / "shots"),
             "--size", size, "--check"], env=env, cwd=REPO, capture_output=True, text=True,
            timeout=240)
    report = run.stdout.strip().splitlines()
    assert run.returncode == 0, "\n".join(report) + run.stderr[-3000:]
    assert report[-1].endswith("0 layout problem(s)")
    names = [name for name, _ in scenes()]
    saved = sorted(p.stem for p in (tmp_path / "shots").glob("*.png"))
    assert saved == sorted(names)


def test_the_committed_screenshots_are_the_tour() -> None:
    committed = sorted(p.stem for p in (REPO / "docs" / "screenshots").glob("*.png"))
    assert committed == sorted(name for name, _ in scenes())
