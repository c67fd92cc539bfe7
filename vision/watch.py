"""``runes-vision watch``: the camera process's main loop.

It reads every still frame of the camera (or a replay) for dice and, when a deck is
set (``[cards] deck`` or ``--deck``), for cards; prints each reading once it has
settled, and with ``--publish`` sends it to the companion: the dice on
``runes/<table>/vision/dice``, the named cards on ``…/vision/card``.

Dice and cards are one reading of the tray (:class:`TrayReading`), settled together
by the generic detector of :mod:`vision.settle`. Cards are read first, and the dice
reader does not look inside a card it named: the print on a card is no die.

Under systemd (``Type=notify``) the loop tells the watchdog it is ready once the
camera is open and pings it at every turn, read or not, so a hung camera read gets
the process restarted; SIGTERM stops it cleanly (the companion hears ``offline``).
While the camera gives no frames (unplugged, a replay folder gone) the status topic
says ``offline``, and ``online`` again once frames come back.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from types import FrameType
from typing import Any

import cv2
import numpy as np

from companion.config import ConfigError, load_config
from companion.systemd import Watchdog
from vision.cards.deck import Deck, DeckError
from vision.cards.overlay import draw_cards
from vision.cards.reading import CardReading, SeenCard, read_cards
from vision.dice.cli import make_reader, overlay
from vision.dice.reader import DiceReader, DiceReading
from vision.publish import VisionPublisher
from vision.settings import VisionConfig, broker_settings, cards_settings, load_settings
from vision.settle import Settler, settled_stream
from vision.sources import FrameSource, open_source
from vision.tray import CalibrationError

__all__ = ["TrayReader", "TrayReading", "register"]


@dataclass(frozen=True)
class TrayReading:
    """What lies on the tray in one frame: the dice, and the cards (None: no deck)."""

    dice: DiceReading
    cards: CardReading | None = None
    """None when no deck is set."""

    @property
    def named_cards(self) -> list[SeenCard]:
        return [c for c in self.cards.cards if c.name is not None] if self.cards else []

    @property
    def summary(self) -> Hashable:
        """The dice counts and the named cards: cards the deck does not know come and
        go with the light, and must not keep a still tray from settling."""
        return (self.dice.summary, tuple(sorted(str(c.name) for c in self.named_cards)))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = self.dice.to_json()
        if self.cards is not None:
            out["cards"] = [c.to_json() for c in self.named_cards]
        return out


class TrayReader:
    """Reads the dice, and the cards of ``deck`` if given, in a frame."""

    def __init__(self, dice: DiceReader, deck: Deck | None = None, *, max_cards: int = 8) -> None:
        self.dice = dice
        self.deck = deck
        self.max_cards = max_cards

    def read(self, frame: np.ndarray) -> TrayReading:
        if self.deck is None:
            return TrayReading(self.dice.read(frame))
        cards = read_cards(frame, self.deck, max_cards=self.max_cards)
        named = [c for c in cards.cards if c.name is not None]
        if named:
            # Hide named cards from the dice reader under the tray's own colour.
            frame = frame.copy()
            tray = tuple(int(v) for v in np.median(frame.reshape(-1, 3), axis=0))
            outlines = [np.round(c.corners).astype(np.int32) for c in named]
            cv2.fillPoly(frame, outlines, tray)
            cv2.polylines(frame, outlines, True, tray, max(4, frame.shape[1] // 160))
        return TrayReading(self.dice.read(frame), cards)

    def overlay(self, frame: np.ndarray, reading: TrayReading, width: int) -> np.ndarray:
        """The frame with the dice and the named cards drawn, at most ``width`` px wide."""
        if reading.named_cards:
            frame = draw_cards(frame, CardReading(tuple(reading.named_cards)))
        return overlay(frame, reading.dice, width)  # type: ignore[no-any-return]


def _frames(source: FrameSource, stop: threading.Event, watchdog: Watchdog,
            seeing: Callable[[bool], None] | None = None, idle: float = 0.1
            ) -> Iterator[np.ndarray]:
    """The source's frames until it is finished or ``stop`` is set: one watchdog ping per
    turn, and ``seeing(bool)`` told whether the camera gives frames."""
    while not (source.finished or stop.is_set()):
        watchdog.ping()
        frame = source.read()
        if seeing is not None:
            seeing(frame is not None or source.error is None)
        if frame is None:
            stop.wait(idle)
            continue
        yield frame


def _cmd_watch(args: argparse.Namespace) -> int:
    try:
        config = load_config(args.config)
        camera, settings = load_settings(args.config)
        cards = cards_settings(config)
        dice = make_reader(args.faces or settings.faces,
                           settings.tray if args.tray is None else args.tray, settings.threshold)
        deck = _deck(args.deck or cards.deck)
        table, mqtt = broker_settings(config) if args.publish else ("", None)
        source = open_source(args.source or camera.source, width=camera.width,
                             height=camera.height, retry=camera.retry, fps=args.fps,
                             loop=args.loop)
    except (ConfigError, CalibrationError, FileNotFoundError, ValueError) as e:
        print(f"runes-vision watch: {e}", file=sys.stderr)
        return 2
    reader = TrayReader(dice, deck, max_cards=cards.max_cards)
    publisher = None
    if mqtt is not None:
        publisher = VisionPublisher(table, mqtt)
        publisher.start()
    stop = threading.Event()

    def on_sigterm(number: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    watchdog = Watchdog()
    watchdog.ready(f"watching {args.source or camera.source}")
    settler: Settler[TrayReading] = Settler(args.frames or settings.settle_frames, settings.motion)
    frames = (dice.tray.view(f) if dice.tray else f
              for f in _frames(source, stop, watchdog, publisher.seeing if publisher else None))
    try:
        for settled in settled_stream(frames, reader.read, settler):
            reading = settled.reading
            print(json.dumps({"frame": settled.index, **reading.to_json()}), flush=True)
            if publisher is not None:
                _publish(publisher, reader, settled.frame, reading, settings)
    except KeyboardInterrupt:
        pass
    finally:
        watchdog.stopping()
        signal.signal(signal.SIGTERM, previous)
        source.close()
        if publisher is not None:
            publisher.stop()
    return 0


def _deck(folder: str) -> Deck | None:
    if not folder:
        return None
    try:
        deck = Deck.load(folder)
    except DeckError as e:
        raise ValueError(f"[cards] deck: {e}") from None
    for warning in deck.warnings:
        print(f"runes-vision watch: {warning}", file=sys.stderr)
    return deck


def _publish(publisher: VisionPublisher, reader: TrayReader, frame: np.ndarray,
             reading: TrayReading, settings: VisionConfig) -> None:
    h, w = frame.shape[:2]
    picture = reader.overlay(frame, reading, settings.overlay_width) if settings.overlay else None
    if reading.dice.dice:
        publisher.publish("dice", reading.dice.to_json(), size=(w, h), overlay=picture,
                          quality=settings.overlay_quality)
    if reading.named_cards:
        publisher.publish("card", {"cards": [c.to_json() for c in reading.named_cards]},
                          size=(w, h), overlay=picture, quality=settings.overlay_quality)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("watch", help="print (and publish) settled dice and cards from a "
                                     "camera or replay")
    p.add_argument("--source", help="usb, usb:N, pi, or a folder of images / a video "
                                    "(default: [camera] source)")
    p.add_argument("--faces", help="pips (built in) or a face folder with one subfolder per "
                                   "face (default: [vision] faces)")
    p.add_argument("--tray", help="a tray calibration file (default: [vision] tray)")
    p.add_argument("--deck", help="a deck folder: name the cards too (default: [cards] deck)")
    p.add_argument("--frames", type=int, help="agreeing still frames to settle")
    p.add_argument("--fps", type=float, help="pace a replay at this rate")
    p.add_argument("--loop", action="store_true",
                   help="replay again and again (a folder is listed again at each pass)")
    p.add_argument("--publish", action="store_true",
                   help="publish to the table's broker ([table] id, [mqtt], [vision] user)")
    p.add_argument("--config", help="the settings file (default: the companion's)")
    p.set_defaults(run=_cmd_watch)
