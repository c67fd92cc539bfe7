"""The dice commands of ``runes-vision``: ``dice``, ``teach``, ``calibrate``, ``markers``
and ``render`` (``watch``, for dice and cards, is :mod:`vision.watch`)."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any, get_args

import cv2
import numpy as np

from vision.dice.direction import AutoTurn
from vision.dice.faces import FaceFolderError, TaughtFaces, teach
from vision.dice.reader import DiceReader, DiceReading
from vision.dice.render import RUNE_FACES, write_face_folder, write_scene_set
from vision.overlay import draw_overlay
from vision.settings import CameraTurn
from vision.sources import turned
from vision.tray import CalibrationError, Tray, calibrate, marker_sheet

__all__ = ["make_reader", "overlay", "register", "turn_unused"]

log = logging.getLogger(__name__)


def make_reader(faces: str = "pips", tray: str = "", threshold: float = 0.5) -> DiceReader:
    """A reader for ``faces`` (``"pips"`` or a face folder) with an optional tray file."""
    calibration = Tray.load(tray) if tray else None
    if faces == "pips":
        reader = DiceReader(tray=calibration, threshold=threshold)
    else:
        reader = DiceReader(TaughtFaces.load(faces, threshold=threshold), tray=calibration,
                            threshold=threshold)
    reader.read(np.full((64, 64, 3), 128, np.uint8))  # OpenCV's first call sets up its kernels
    return reader


def turn_unused(reader: DiceReader, turn: int) -> str | None:
    """Why turning frames by ``turn`` changes nothing for ``reader``, or None: a marker
    calibration warps every frame to the same top-down view whichever way it was turned
    (the markers' order decides which way is up)."""
    if turn and reader.tray is not None and reader.tray.homography is not None:
        return ("the frames are not turned: with a marker calibration the markers decide "
                "which way is up (ids 0 and 1 go at the corners farthest from the camera)")
    return None


def overlay(frame: Any, reading: DiceReading, width: int = 960) -> Any:
    title = "  ".join(f"{face} x{n}" for face, n in reading.counts.items()) or "no dice"
    return draw_overlay(frame, [(d.face, d.box, d.confidence) for d in reading.dice], title,
                        width=width)


def _cmd_dice(args: argparse.Namespace) -> int:
    try:
        reader = make_reader(args.faces, args.tray or "", args.threshold)
    except (FaceFolderError, CalibrationError) as e:
        print(f"runes-vision dice: {e}", file=sys.stderr)
        return 2
    auto = AutoTurn(reader) if args.turn == "auto" else None
    if auto is not None:
        _learn_turn(auto, args.images)
    elif (why := turn_unused(reader, args.turn)) is not None:
        print(f"runes-vision dice: --turn: {why}", file=sys.stderr)
    if args.overlay:
        Path(args.overlay).mkdir(parents=True, exist_ok=True)
    status = 0
    for name in args.images:
        result: dict[str, Any] = {"image": name}
        frame = _image(name)
        if frame is None:
            why = "no such file" if not Path(name).exists() else "not an image OpenCV can read"
            print(f"runes-vision dice: {name}: {why}", file=sys.stderr)
            result.update(dice=[], counts={}, ms=0.0, error=why)
            status = 1
        else:
            start = time.perf_counter()
            if auto is not None:
                view = auto.view(frame)
            else:
                frame = turned(frame, args.turn)
                view = reader.tray.view(frame) if reader.tray else frame
            reading = reader.read(view)
            result.update(reading.to_json(), ms=round((time.perf_counter() - start) * 1000, 1))
            if args.overlay:
                cv2.imwrite(str(Path(args.overlay) / (Path(name).stem + ".overlay.jpg")),
                            overlay(view, reading))
        if args.json:
            print(json.dumps(result), flush=True)
        elif "error" not in result:
            counts = ", ".join(f"{n}×{face}" for face, n in result["counts"].items()) or "no dice"
            print(f"{name}: {counts} ({result['ms']} ms)", flush=True)
    return status


def _image(name: str) -> np.ndarray | None:
    return cv2.imread(name, cv2.IMREAD_COLOR) if Path(name).is_file() else None


def _learn_turn(auto: AutoTurn, images: list[str]) -> None:
    """``--turn auto``: the photos (from one camera) vote, as the camera's rolls would."""
    for name in images:
        frame = _image(name)
        if frame is not None:
            view = auto.view(frame)
            auto.settled(view, auto.dice.read(view))
    print(f"runes-vision dice: --turn auto: {auto.turn}", file=sys.stderr)


def _turn(text: str) -> CameraTurn:
    """``--turn``'s value: 0, 90, 180, 270 or auto."""
    for turn in get_args(CameraTurn):
        if text == str(turn):
            return turn  # type: ignore[no-any-return]
    raise argparse.ArgumentTypeError(f"{text!r} is not 0, 90, 180, 270 or auto")


def _cmd_teach(args: argparse.Namespace) -> int:
    written = teach(args.photos, args.face, args.out)
    print(f"{len(written)} face(s) of {args.face!r} written to {Path(args.out) / args.face}")
    return 0 if written else 1


def _cmd_calibrate(args: argparse.Namespace) -> int:
    frame = cv2.imread(args.image, cv2.IMREAD_COLOR)
    if frame is None:
        print(f"runes-vision calibrate: {args.image}: not an image", file=sys.stderr)
        return 2
    try:
        tray = calibrate(frame, empty=not args.no_empty)
    except CalibrationError as e:
        print(f"runes-vision calibrate: {e}", file=sys.stderr)
        return 1
    tray.save(args.out)
    kind = "markers found, top-down view" if tray.homography is not None else "no markers"
    print(f"{args.out}: {kind}" + (", empty tray saved" if tray.empty is not None else ""))
    return 0


def _cmd_markers(args: argparse.Namespace) -> int:
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for i, marker in enumerate(marker_sheet(args.size)):
        cv2.imwrite(str(out / f"tray-marker-{i}.png"), marker)
    print(f"4 markers written to {out} (ids 0-3: top-left, top-right, bottom-right, bottom-left)")
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    if args.faces_folder:
        write_face_folder(args.out, args.seed, faces=RUNE_FACES, photos=args.count)
        print(f"face folder written to {args.out}")
        return 0
    paths = write_scene_set(args.out, range(args.seed, args.seed + args.count), kind=args.kind,
                            width=args.width, height=args.height, count=args.dice)
    print(f"{len(paths)} images and labels.json written to {args.out}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    faces_help = "pips (built in) or a face folder with one subfolder per face"

    p = sub.add_parser("dice", help="read the dice in photos")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.add_argument("--faces", default="pips", help=faces_help)
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.add_argument("--tray", help="a tray calibration file (from `calibrate`)")
    p.add_argument("--threshold", type=float, default=0.5,
                   help="confidence below which a die is unknown (default 0.5)")
    p.add_argument("--overlay", metavar="DIR", help="also write the overlay images here")
    p.add_argument("--turn", type=_turn, default=0, metavar="0|90|180|270|auto",
                   help="turn each photo clockwise by this many degrees first, to bring the "
                        "tray's far side to the top (boxes are in the turned photo); auto: as "
                        "the photos, all from one camera, say")
    p.set_defaults(run=_cmd_dice)

    p = sub.add_parser("teach", help="cut the dice out of photos of one face into a face folder")
    p.add_argument("photos", nargs="+", metavar="PHOTO")
    p.add_argument("--face", required=True, help="the face's name, such as hammer")
    p.add_argument("--out", required=True, metavar="DIR", help="the face folder")
    p.set_defaults(run=_cmd_teach)

    p = sub.add_parser("calibrate", help="calibrate the tray from a photo (ArUco markers, empty tray)")
    p.add_argument("image", metavar="IMAGE")
    p.add_argument("--out", default="tray.json", help="the calibration file to write")
    p.add_argument("--no-empty", action="store_true", help="the photo has dice in it: keep no "
                                                           "empty-tray picture")
    p.set_defaults(run=_cmd_calibrate)

    p = sub.add_parser("markers", help="write the four tray-corner markers to print")
    p.add_argument("out", metavar="DIR")
    p.add_argument("--size", type=int, default=400, help="marker side in pixels")
    p.set_defaults(run=_cmd_markers)

    p = sub.add_parser("render", help="render labelled synthetic photos of dice (or a face folder)")
    p.add_argument("out", metavar="DIR")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--count", type=int, default=10, help="images (or photos per face)")
    p.add_argument("--dice", type=int, help="dice per image (default: random)")
    p.add_argument("--kind", choices=("pips", "runes"), default="pips")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=720)
    p.add_argument("--faces-folder", action="store_true",
                   help="write a face folder of Runecast faces instead")
    p.set_defaults(run=_cmd_render)
