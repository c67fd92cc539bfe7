"""``runes-vision``: the camera process's command line.

Each reading area adds its own subcommands: a module in :data:`COMMANDS` exposes
``register(subparsers)``, which adds parsers whose ``run`` default is called with the
parsed arguments and returns the exit status.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

__all__ = ["COMMANDS", "main"]

COMMANDS: tuple[str, ...] = ("vision.dice.cli", "vision.cards.cli", "vision.watch")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="runes-vision",
                                     description="Read dice (and cards) on the tray from a camera.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log more")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(name).register(sub)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING,
                        format="runes-vision: %(message)s", stream=sys.stderr)
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        return 130
