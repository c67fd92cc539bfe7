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

The camera belongs to this process, so the companion's Settings screen asks for what it
needs on ``runes/<table>/vision/cmd`` (:class:`Requests`): a slow, small preview of what
the camera sees, on ``…/vision/preview`` for a number of seconds, and a tray calibration
made from the next frame (the four corner markers and the empty tray, or the empty tray
alone), used at once, saved to the tray file and answered on ``…/vision/cmd/result``.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
import threading
import time
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Protocol

import cv2
import numpy as np

from companion.config import ConfigError, load_config
from companion.systemd import Watchdog
from vision.cards.deck import Deck, DeckError
from vision.cards.overlay import draw_cards
from vision.cards.reading import CardReading, SeenCard, read_cards
from vision.dice.cli import make_reader, overlay, turn_unused
from vision.dice.direction import TURNS, AutoTurn, DirectionVotes
from vision.dice.reader import DiceReader, DiceReading
from vision.publish import VisionPublisher, scaled
from vision.settings import (Turn, VisionConfig, broker_settings, cards_settings,
                             learnt_turn_path, load_settings, tray_path)
from vision.settle import Settler, settled_stream
from vision.sources import FrameSource, open_source, turned
from vision.tray import CalibrationError, Tray, calibrate

__all__ = ["Requests", "TrayReader", "TrayReading", "register"]


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


class HasTray(Protocol):
    """What holds the tray calibration that :class:`Requests` uses and replaces."""

    tray: Tray | None


class Requests:
    """What the companion asks of the camera process on ``vision/cmd``; see the module docstring.

    ``{"preview": seconds}`` starts (or, with 0, stops) the preview: the camera's frames,
    ``[vision] preview_width`` wide at ``preview_fps``, for at most :attr:`PREVIEW_LIMIT`
    seconds (the companion asks again while it shows them, so a preview nobody watches
    stops by itself). ``{"calibrate": "tray"}`` calibrates from the next frame as
    ``runes-vision calibrate`` does (markers if all four show, and the empty tray);
    ``{"calibrate": "empty"}`` keeps the markers' warp and takes a new picture of the empty
    tray (after the light changed). A request may carry an ``id``, given back in its answer.

    Requests arrive on paho's thread and are only noted there; the loop's own thread
    serves them with the next frame it reads (:meth:`frame`), so a new calibration never
    changes under the reader in the middle of a frame.
    """

    PREVIEW_LIMIT = 60.0
    KINDS = ("tray", "empty")

    def __init__(self, publisher: VisionPublisher, dice: HasTray, tray_file: Path,
                 settings: VisionConfig, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.publisher = publisher
        self.dice = dice
        self.tray_file = tray_file
        self.settings = settings
        self._clock = clock
        self._lock = threading.Lock()
        self._preview_until = 0.0
        self._next_preview = 0.0
        self._calibrations: list[dict[str, Any]] = []

    def received(self, request: dict[str, Any]) -> None:
        """A request from the companion (paho's thread): checked, and noted for the loop."""
        echo = {"id": request["id"]} if isinstance(request.get("id"), str) else {}
        if "preview" in request:
            seconds = request["preview"]
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) \
                    or not 0 <= seconds < math.inf:
                self.publisher.answer({"ok": False, **echo, "error": f"preview: {seconds!r} is "
                                       "not a number of seconds (0 stops the preview)"})
                return
            seconds = min(float(seconds), self.PREVIEW_LIMIT)
            with self._lock:
                self._preview_until = self._clock() + seconds
                self._next_preview = 0.0
            self.publisher.answer({"ok": True, **echo, "preview": seconds})
        elif "calibrate" in request:
            kind = request["calibrate"]
            if kind not in self.KINDS:
                self.publisher.answer({"ok": False, **echo, "error": f"calibrate: {kind!r} is "
                                       f"not one of {', '.join(self.KINDS)}"})
                return
            with self._lock:
                self._calibrations.append({"calibrate": kind, **echo})
        else:
            self.publisher.answer({"ok": False, **echo, "error": "unknown request: ask for "
                                   '{"preview": seconds} or {"calibrate": "tray" or "empty"}'})

    def frame(self, raw: np.ndarray) -> None:
        """Serve what was asked, with this frame from the camera (the loop's thread)."""
        now = self._clock()
        with self._lock:
            calibrations, self._calibrations = self._calibrations, []
            preview = now < self._preview_until and now >= self._next_preview
            if preview:
                self._next_preview = now + 1.0 / max(0.1, self.settings.preview_fps)
        for asked in calibrations:
            self.publisher.answer(self._calibrate(raw, asked))
        if preview:
            h, w = raw.shape[:2]
            self.publisher.preview(self._preview(raw), size=(w, h))

    def _calibrate(self, raw: np.ndarray, asked: dict[str, Any]) -> dict[str, Any]:
        current = self.dice.tray
        try:
            if asked["calibrate"] == "tray":
                tray = calibrate(raw, empty=True)
            elif current is not None and current.homography is not None:
                tray = Tray(current.homography, current.size, current.view(raw).copy())
            else:
                tray = Tray(empty=raw.copy())
            self.tray_file.parent.mkdir(parents=True, exist_ok=True)
            tray.save(self.tray_file)
        except (CalibrationError, OSError) as e:
            return {"ok": False, **asked, "error": str(e)}
        self.dice.tray = tray
        view = tray.size or (raw.shape[1], raw.shape[0])
        print(f"runes-vision watch: tray calibrated ({asked['calibrate']}), "
              f"saved to {self.tray_file}", file=sys.stderr, flush=True)
        return {"ok": True, **asked, "markers": tray.homography is not None,
                "empty": tray.empty is not None, "size": list(view), "file": str(self.tray_file)}

    def _preview(self, raw: np.ndarray) -> np.ndarray:
        """The frame, small, with the calibrated tray's outline on it (if there is one)."""
        picture = scaled(raw, self.settings.preview_width)
        tray = self.dice.tray
        if tray is not None and tray.homography is not None and tray.size is not None:
            w, h = tray.size
            corners = np.array([[[0, 0]], [[w - 1, 0]], [[w - 1, h - 1]], [[0, h - 1]]],
                               np.float32)
            outline = cv2.perspectiveTransform(corners, np.linalg.inv(tray.homography))
            f = picture.shape[1] / raw.shape[1]
            picture = picture.copy() if picture is raw else picture
            cv2.polylines(picture, [np.round(outline * f).astype(np.int32)], True, (60, 200, 60),
                          max(2, picture.shape[1] // 240), cv2.LINE_AA)
        return picture


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
        tray_file = Path(args.tray) if args.tray else tray_path(config, settings)
        if not args.tray and not tray_file.is_file():
            print(f"runes-vision watch: no tray calibration in {tray_file} yet: the tray is "
                  "judged from each frame (calibrate from the companion's Settings, or "
                  "runes-vision calibrate)", file=sys.stderr)
        dice = make_reader(args.faces or settings.faces,
                           str(tray_file) if args.tray or tray_file.is_file() else "",
                           settings.threshold)
        fixed: Turn = 0 if camera.turn == "auto" else camera.turn
        if (why := turn_unused(dice, fixed)) is not None:
            print(f"runes-vision watch: [camera] turn: {why}", file=sys.stderr)
        deck = _deck(args.deck or cards.deck)
        table, mqtt = broker_settings(config) if args.publish else ("", None)
        # Built here: its TLS files are read now, so a wrong one is named, not a traceback.
        publisher = None if mqtt is None else VisionPublisher(table, mqtt)
        source = open_source(args.source or camera.source, width=camera.width,
                             height=camera.height, retry=camera.retry, fps=args.fps,
                             loop=args.loop)
    except (ConfigError, CalibrationError, FileNotFoundError, ValueError) as e:
        print(f"runes-vision watch: {e}", file=sys.stderr)
        return 2
    reader = TrayReader(dice, deck, max_cards=cards.max_cards)
    learnt = learnt_turn_path(config)
    auto = AutoTurn(dice, DirectionVotes(_learnt(learnt))) if camera.turn == "auto" else None
    requests = None
    if publisher is not None:
        requests = Requests(publisher, auto or dice, tray_file, settings)
        publisher.on_command = requests.received
        publisher.start()
    stop = threading.Event()

    def on_sigterm(number: int, frame: FrameType | None) -> None:
        stop.set()

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    watchdog = Watchdog()
    watchdog.ready(f"watching {args.source or camera.source}")
    settler: Settler[TrayReading] = Settler(args.frames or settings.settle_frames, settings.motion)

    def views() -> Iterator[np.ndarray]:
        for frame in _frames(source, stop, watchdog, publisher.seeing if publisher else None):
            raw = turned(frame, fixed)
            if requests is not None:
                requests.frame(raw)
            if auto:
                yield auto.view(raw)
            else:
                yield dice.tray.view(raw) if dice.tray else raw

    frames = views()
    try:
        for settled in settled_stream(frames, reader.read, settler):
            reading = settled.reading
            if auto and auto.settled(settled.frame, reading.dice):
                print(f"runes-vision watch: [camera] turn = \"auto\": frames are turned "
                      f"{auto.turn}° clockwise after frame {settled.index}, as the rolls say",
                      file=sys.stderr, flush=True)
                _keep(learnt, auto.turn)
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


def _learnt(path: Path) -> Turn:
    """The turn ``[camera] turn = "auto"`` learnt before the process last stopped, or 0
    (no file, or one that holds anything else: it is only a head start)."""
    try:
        text = path.read_text().strip()
    except (OSError, UnicodeDecodeError):
        return 0
    return next((turn for turn in TURNS if str(turn) == text), 0)


def _keep(path: Path, turn: Turn) -> None:
    """Note the turn learnt, for the next start; a state directory that cannot be written
    costs only that (the next start learns again)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{turn}\n")
    except OSError as e:
        print(f"runes-vision watch: the turn learnt is not kept: {e}", file=sys.stderr, flush=True)


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
    photo = scaled(frame, settings.overlay_width) if settings.photo else None
    if reading.dice.dice:
        publisher.publish("dice", reading.dice.to_json(), size=(w, h), overlay=picture,
                          photo=photo, quality=settings.overlay_quality)
    if reading.named_cards:
        publisher.publish("card", {"cards": [c.to_json() for c in reading.named_cards]},
                          size=(w, h), overlay=picture, photo=photo,
                          quality=settings.overlay_quality)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("watch", help="print (and publish) settled dice and cards from a "
                                     "camera or replay")
    p.add_argument("--source", help="usb, usb:N, pi, or a folder of images / a video "
                                    "(default: [camera] source)")
    p.add_argument("--faces", help="pips (built in) or a face folder with one subfolder per "
                                   "face (default: [vision] faces)")
    p.add_argument("--tray", help="a tray calibration file (default: [vision] tray, else "
                                  "tray.json in the state directory, if there is one)")
    p.add_argument("--deck", help="a deck folder: name the cards too (default: [cards] deck)")
    p.add_argument("--frames", type=int, help="agreeing still frames to settle")
    p.add_argument("--fps", type=float, help="pace a replay at this rate")
    p.add_argument("--loop", action="store_true",
                   help="replay again and again (a folder is listed again at each pass)")
    p.add_argument("--publish", action="store_true",
                   help="publish to the table's broker ([table] id, [mqtt], [vision] user)")
    p.add_argument("--config", help="the settings file (default: the companion's)")
    p.set_defaults(run=_cmd_watch)
