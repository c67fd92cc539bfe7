"""Command line for card reading: ``card`` reads photos, ``teach-card`` builds a deck.
(``runes-vision watch``, :mod:`vision.watch`, reads a camera and publishes settled
readings of the dice and the cards together.)

``register(subparsers)`` adds the commands to the ``runes-vision`` parser; this module
also runs on its own: ``python -m vision.cards.cli card IMG --deck DIR``.

Examples::

    python -m vision.cards.cli teach-card decks/loki RFR-RRF-FFR photo1.jpg photo2.jpg \\
        --kind lokis-chosen
    python -m vision.cards.cli card table.jpg --deck decks/loki --json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cv2

from .deck import IMAGE_SUFFIXES, Deck, DeckError
from .find import find_cards, rectify
from .meaning import KINDS
from .overlay import draw_cards
from .reading import read_cards

__all__ = ["main", "register"]

TAUGHT_SIZE = (360, 504)
"""Size of a taught card picture: enough detail for any later change of method."""


def register(subparsers: Any) -> None:
    """Add ``card`` and ``teach-card`` to an argparse subparsers object."""
    card = subparsers.add_parser("card", help="name the cards in photos against a deck",
                                 description="Find and name every card in each IMAGE.")
    card.add_argument("images", nargs="+", metavar="IMAGE", type=Path)
    card.add_argument("--deck", required=True, type=Path, metavar="DIR",
                      help="deck folder: one subfolder of photos per card name")
    card.add_argument("--json", action="store_true", help="one JSON object per image, per line")
    card.add_argument("--overlay", type=Path, metavar="DIR",
                      help="write each image with the cards outlined and named into DIR")
    card.set_defaults(run=run_card)

    teach = subparsers.add_parser(
        "teach-card", help="add photos of a card to a deck folder",
        description="Find the card in each PHOTO and save it, rectified, as an example of "
                    "NAME in the deck folder DIR (made if missing).")
    teach.add_argument("deck", type=Path, metavar="DIR")
    teach.add_argument("name", metavar="NAME",
                       help="the card's name, e.g. RFR-RRF-FFR or a Location's name")
    teach.add_argument("photos", nargs="+", metavar="PHOTO", type=Path)
    teach.add_argument("--kind", choices=KINDS, help="record the deck's kind in deck.toml")
    teach.set_defaults(run=run_teach)


def run_card(args: argparse.Namespace) -> int:
    try:
        deck = Deck.load(args.deck)
    except DeckError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for warning in deck.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    status = 0
    for path in args.images:
        start = time.perf_counter()
        frame = cv2.imread(str(path), cv2.IMREAD_COLOR) if path.is_file() else None
        if frame is None:
            _report(args, {"image": str(path), "error": "not a readable image", "cards": []})
            status = 1
            continue
        reading = read_cards(frame, deck)
        ms = (time.perf_counter() - start) * 1000
        result: dict[str, Any] = {"image": str(path), **reading.to_json(deck.kind), "ms": round(ms, 1)}
        if not reading.cards:
            result["note"] = "no card found in the image"
        if args.overlay:
            args.overlay.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(args.overlay / (path.stem + ".jpg")), draw_cards(frame, reading))
        _report(args, result)
    return status


def _report(args: argparse.Namespace, result: dict[str, Any]) -> None:
    if args.json:
        print(json.dumps(result), flush=True)
        return
    if "error" in result:
        print(f"{result['image']}: {result['error']}")
        return
    names = ", ".join(f"{c['name'] or 'unknown'} ({c['confidence']:.0%})" for c in result["cards"])
    print(f"{result['image']}: {names or 'no card found'}  [{result['ms']:.0f} ms]")


def run_teach(args: argparse.Namespace) -> int:
    name = args.name.strip()
    if not name or name.startswith(".") or "/" in name or "\\" in name:
        print(f"error: {args.name!r} cannot be a card name (it names a folder)", file=sys.stderr)
        return 2
    folder = args.deck / name
    folder.mkdir(parents=True, exist_ok=True)
    if args.kind:
        (args.deck / "deck.toml").write_text(f'kind = "{args.kind}"\n', encoding="utf-8")
    taken = len([p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES])
    saved = 0
    for photo in args.photos:
        image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if image is None:
            print(f"warning: {photo}: not a readable image, skipped", file=sys.stderr)
            continue
        found = find_cards(image, max_cards=1)
        if found:
            card = rectify(image, found[0].corners, TAUGHT_SIZE)
        else:
            print(f"warning: {photo}: no card outline found; keeping the whole photo "
                  "(fine for a tight crop or a scan)", file=sys.stderr)
            card = image
        target = folder / f"{taken + saved + 1}.png"
        cv2.imwrite(str(target), card)
        saved += 1
        print(f"{photo} -> {target}")
    if not saved:
        print(f"error: no usable photo of {name!r}", file=sys.stderr)
        return 1
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    # Our own messages name a bad file; OpenCV's would repeat them in its own words.
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
    parser = argparse.ArgumentParser(prog="python -m vision.cards.cli",
                                     description="Read the table's own cards from photos.")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    raise SystemExit(main())
