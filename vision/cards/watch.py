"""``runes-vision watch-cards``: the cards on the table, read from a camera (or a replay),
reported once they lie still, and published with a picture to confirm them.

Nothing here is new machinery: frames come from :mod:`vision.sources`, readings settle
by the generic detector of :mod:`vision.settle` (a card reading's ``summary`` is the
sorted card names, so a nudged card is the same reading and a swapped one a new one),
and go out through :class:`vision.publish.VisionPublisher` on
``runes/<table>/vision/card`` (to the broker of ``[table]`` and ``[mqtt]``, as the
``[vision]`` user). Settings are the camera process's ``[camera]`` and ``[vision]``
tables plus ``[cards]``::

    [cards]
    deck = "decks/loki"   # the deck folder (--deck overrides it)
    max_cards = 8         # most cards read in one frame

One JSON line per settled reading is printed: ``{"frame": N, "cards": [...]}``, each
card with its ``action`` when the deck has a kind (see :mod:`vision.cards.meaning`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.config import ConfigError, load_config
from vision.publish import VisionPublisher, report_settled
from vision.settings import broker_settings, cards_settings, load_settings
from vision.settle import Settled, Settler, settled_stream
from vision.sources import open_source

from .deck import Deck, DeckError
from .overlay import draw_cards
from .reading import CardReading, read_cards

__all__ = ["card_overlay", "register", "settled_cards"]


def settled_cards(frames: Iterable[np.ndarray], deck: Deck, settler: Settler[CardReading], *,
                  max_cards: int = 8) -> Iterator[Settled[CardReading]]:
    """Read the cards in every still frame and yield the readings as they settle."""
    return settled_stream(frames, partial(read_cards, deck=deck, max_cards=max_cards), settler)


def card_overlay(frame: np.ndarray, reading: CardReading, width: int = 960) -> np.ndarray:
    """The frame with the reading drawn over it (:func:`draw_cards`), at most ``width``
    pixels wide: the picture sent with a reading for the players to confirm."""
    drawn = draw_cards(frame, reading)
    h, w = drawn.shape[:2]
    if w <= width:
        return drawn
    return cv2.resize(drawn, (width, round(h * width / w)), interpolation=cv2.INTER_AREA)


def register(sub: Any) -> None:
    """Add ``watch-cards`` to an argparse subparsers object."""
    p = sub.add_parser("watch-cards", help="print (and publish) settled card readings",
                       description="Read the cards on the table from a camera or a replay; "
                                   "print each reading once it settles, and publish it to "
                                   "runes/<table>/vision/card with --publish.")
    p.add_argument("--deck", type=Path, metavar="DIR",
                   help="deck folder: one subfolder of photos per card (default: [cards] deck)")
    p.add_argument("--source", help="usb, usb:N, pi, or a folder of images / a video "
                                    "(default: [camera] source)")
    p.add_argument("--frames", type=int, help="agreeing still frames to settle "
                                              "(default: [vision] settle_frames)")
    p.add_argument("--fps", type=float, help="pace a replay at this rate")
    p.add_argument("--publish", action="store_true",
                   help="publish to the table's broker ([table] id, [mqtt], [vision] user)")
    p.add_argument("--config", help="the settings file (default: the companion's)")
    p.set_defaults(run=run_watch)


def run_watch(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
        camera, settings = load_settings(args.config)
        cards = cards_settings(config)
        table, mqtt = broker_settings(config) if args.publish else ("", None)
        folder = args.deck or cards.deck
        if not folder:
            raise DeckError("no deck: give --deck DIR or set deck in [cards]")
        deck = Deck.load(folder)
        source = open_source(args.source or camera.source, width=camera.width,
                             height=camera.height, retry=camera.retry, fps=args.fps)
    except (ConfigError, DeckError, FileNotFoundError, ValueError) as e:
        print(f"runes-vision watch-cards: {e}", file=sys.stderr)
        return 2
    for warning in deck.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    publisher = None
    if mqtt is not None:
        publisher = VisionPublisher(table, mqtt)
        publisher.start()
    settler: Settler[CardReading] = Settler(args.frames or settings.settle_frames, settings.motion)
    report_settled(settled_cards(source.frames(), deck, settler, max_cards=cards.max_cards),
                   "card", publisher, settings, payload=partial(CardReading.to_json, kind=deck.kind),
                   overlay=card_overlay, source=source)
    return 0
