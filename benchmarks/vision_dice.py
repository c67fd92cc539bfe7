"""Dice reading: accuracy per set and time per frame.

    python -m benchmarks.vision_dice [--quick]

Sets: the real webcam photos in ``tests/data/dice-webcam`` (white pip dice on wood),
rendered pip dice (every die colour, surface, tilt, blur and glare the renderer draws), and
rendered Runecast dice read with faces taught from a rendered face folder. Timing: frames
of 1280×720 with 32 dice, on one core (OpenCV's own threads are switched off).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one core, as on the Pi: before NumPy loads

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import cv2
import numpy as np

from vision.dice.faces import TaughtFaces
from vision.dice.reader import DiceReader
from vision.dice.render import DIE_STYLES, render_scene, write_face_folder
from vision.evaluate import Labelled, Score, match, read_yolo

WEBCAM = Path(__file__).resolve().parent.parent / "tests" / "data" / "dice-webcam"
PIP_NAMES = ["1", "2", "3", "4", "5", "6"]

Sample = tuple[np.ndarray, list[Labelled]]


def webcam_set(folder: Path = WEBCAM) -> Iterator[Sample]:
    for path in sorted(folder.rglob("*.jpg")):
        image = cv2.imread(str(path))
        h, w = image.shape[:2]
        yield image, read_yolo(path.with_suffix(".txt"), w, h, PIP_NAMES)


def rendered_set(seeds: range, **kwargs: object) -> Iterator[Sample]:
    for seed in seeds:
        scene = render_scene(seed, **kwargs)  # type: ignore[arg-type]
        yield scene.image, [Labelled(d.face, d.box) for d in scene.dice]


def score(reader: DiceReader, samples: Iterator[Sample]) -> tuple[Score, list[float]]:
    total, times = Score(), []
    for image, truth in samples:
        start = time.perf_counter()
        reading = reader.read(image)
        times.append(time.perf_counter() - start)
        total = total.add(match(truth, [Labelled(d.face, d.box) for d in reading.dice]))
    return total, times


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller sets")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    n = 20 if args.quick else 100
    with tempfile.TemporaryDirectory() as tmp:
        runes = TaughtFaces.load(write_face_folder(Path(tmp) / "faces", seed=7, style=DIE_STYLES[6]))
    pips, taught = DiceReader(), DiceReader(runes)
    sets: list[tuple[str, DiceReader, Callable[[], Iterator[Sample]]]] = [
        ("webcam photos (real)", pips, webcam_set),
        ("rendered pip dice", pips, lambda: rendered_set(range(1000, 1000 + n))),
        ("rendered pip dice, 640×480", pips,
         lambda: rendered_set(range(2000, 2000 + n), width=640, height=480)),
        ("rendered Runecast dice, taught", taught,
         lambda: rendered_set(range(3000, 3000 + n), kind="runes", style=DIE_STYLES[6])),
    ]
    print("Dice reading accuracy (per die: found, and read right)")
    for name, reader, samples in sets:
        result, _ = score(reader, samples())
        print(f"  {name:34s} {result}")
    print("Time per 1280×720 frame with 32 dice, one core")
    for name, reader, kind in (("pips", pips, "pips"), ("taught faces", taught, "runes")):
        frames = [render_scene(s, count=32, kind=kind, style=DIE_STYLES[6] if kind == "runes" else None)
                  for s in range(4000, 4000 + (5 if args.quick else 20))]
        result, times = score(reader, iter([(f.image, [Labelled(d.face, d.box) for d in f.dice])
                                            for f in frames]))
        ms = sorted(t * 1000 for t in times)
        print(f"  {name:34s} median {statistics.median(ms):.1f} ms, worst {ms[-1]:.1f} ms; {result}")


if __name__ == "__main__":
    main()
