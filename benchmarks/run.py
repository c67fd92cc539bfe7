"""Run every benchmark and print its figures: ``python -m benchmarks.run [AREA ...]``.

Each area is a module here with ``main(argv)`` that parses its own options (see
``python -m benchmarks.AREA --help``); this runner gives each its defaults.

Figures are for comparison within one run on one machine; these machines are noisy, so the
goals are checked here, by a person reading them, not by timed unit tests.
"""

from __future__ import annotations

import argparse
import importlib

AREAS = ("core", "vision_dice", "vision_cards", "firmware", "mqtt", "app")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("areas", nargs="*", metavar="AREA",
                        help=f"some of: {', '.join(AREAS)} (default: all)")
    areas = parser.parse_args().areas or AREAS
    unknown = sorted(set(areas) - set(AREAS))
    if unknown:
        parser.error(f"unknown area {unknown[0]!r}; the areas are: {', '.join(AREAS)}")
    for area in areas:
        importlib.import_module(f"benchmarks.{area}").main([])


if __name__ == "__main__":
    main()
