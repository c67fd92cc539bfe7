"""The touchscreen app (Kivy): every game playable from the screen.

``runes-app`` starts it. Importing this package does not import Kivy: the
window is configured in :func:`main` before Kivy reads its settings.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path

from companion.core.actions import whole_number

__all__ = ["main"]


def _size(text: str) -> tuple[int, int]:
    left, sep, right = text.lower().partition("x")
    width, height = whole_number(left), whole_number(right)
    if not sep or width is None or height is None:
        raise argparse.ArgumentTypeError(f"a size is WIDTHxHEIGHT, like 800x480; got {text!r}")
    return width, height


def configure_kivy(size: tuple[int, int], *, fullscreen: bool = False) -> None:
    """Kivy's window and input settings; must run before anything imports ``kivy.app``."""
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_LOG_MODE", "PYTHON")
    os.environ.setdefault("KIVY_CLIPBOARD", "sdl2")
    from kivy.config import Config

    Config.set("graphics", "width", str(size[0]))
    Config.set("graphics", "height", str(size[1]))
    Config.set("graphics", "resizable", "1")
    Config.set("graphics", "fullscreen", "auto" if fullscreen else "0")
    Config.set("graphics", "position", "custom")
    Config.set("graphics", "left", "0")
    Config.set("graphics", "top", "0")
    # A mouse is a finger here: no red multitouch-emulation dots on right click.
    Config.set("input", "mouse", "mouse,disable_multitouch")
    Config.set("kivy", "exit_on_escape", "0")
    # On the kiosk there is no keyboard: Kivy docks its own under the screen while typing.
    Config.set("kivy", "keyboard_mode", "systemanddock" if fullscreen else "system")


def main(argv: list[str] | None = None) -> int:
    """``runes-app``: the companion on the touchscreen."""
    from companion.config import ConfigError, load_config

    from .settings import load_app_config

    parser = argparse.ArgumentParser(prog="runes-app", description=__doc__)
    parser.add_argument("--journal", type=Path, help="the SQLite journal (default: [journal])")
    parser.add_argument("--size", type=_size, help="window size, e.g. 800x480 or 1920x1080")
    parser.add_argument("--fullscreen", action="store_true", help="fill the screen (the kiosk)")
    parser.add_argument("--demo", action="store_true",
                        help="start a demo game of Runes of Zun if there is nothing to resume")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        settings = load_config()
        config = load_app_config(settings)
    except ConfigError as e:
        print(f"runes-app: {e}", file=sys.stderr)
        return 2
    configure_kivy(args.size or (config.width, config.height),
                   fullscreen=args.fullscreen or config.fullscreen)
    from .launch import build_app

    try:
        app = build_app(settings, journal=args.journal, demo=args.demo)
    except ConfigError as e:
        print(f"runes-app: {e}", file=sys.stderr)
        return 2
    app.run()
    return 0
