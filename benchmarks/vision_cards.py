"""Card reading figures: time per 1280x720 frame with 4 cards against a 60-card deck,
and accuracy (known cards named right, unknown cards never named).

A known card answered "unknown" because a finger hides just what tells it from a
look-alike (:func:`vision.cards.synth.undecidable`: a card with the other rune there,
taught or not, would look the same) is counted apart, as rightly unknown; the share
named right is given both of the rest and of all known cards. That headline stays as it
was; beside it, every known card is classed from the generator's ground truth alone,
whatever the reader says: *hidden* if another card that may be on the table (of the deck,
of the unknown cards, or a look-alike) shows the same face over all of it that is not
covered (:func:`vision.cards.synth.indistinct`), else *identifiable*. The figure on
identifiable cards is what the reader can be asked for; a hidden card is right unknown
or named right, and wrong only if misnamed.

Goals (issue 8): median under 50 ms on one core; at least 99% right; no unknown card named.
The time is split into finding the cards and naming them (the rest of ``read_cards``).
Run: ``python benchmarks/vision_cards.py [--frames N] [--seed S] [--cover P]``.
``--teach-blur``, ``--blur``, ``--jpeg`` and ``--cast`` make the teaching photos and the
camera differ as a phone and a table camera do (the frames are the same whatever they are).
"""

from __future__ import annotations

import argparse
import collections
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.cards import synth  # noqa: E402
from vision.cards.deck import Deck  # noqa: E402
from vision.cards.find import find_cards  # noqa: E402
from vision.cards.reading import read_cards  # noqa: E402
from vision.synthetic import saved_as_jpeg  # noqa: E402


def _spread(label: str, values: list[float]) -> str:
    values = sorted(values)
    return (f"{label}: median {statistics.median(values):.1f} ms, "
            f"90th percentile {values[int(0.9 * len(values))]:.1f} ms, "
            f"95th {values[int(0.95 * len(values))]:.1f} ms")


def _degraded(image: np.ndarray, blur: float, quality: int, cast: list[float] | None) -> np.ndarray:
    """``image`` blurred by ``blur`` (if any), its channels times ``cast`` (if given),
    then saved at JPEG ``quality`` (if any)."""
    if blur:
        image = cv2.GaussianBlur(image, (0, 0), blur)
    if cast:
        image = np.clip(image * np.array(cast), 0, 255).astype(np.uint8)
    return saved_as_jpeg(image, quality) if quality else image


def frames(seed: int, specs: list[synth.CardSpec], unknown: list[synth.CardSpec], unknown_share: float,
           cover: float) -> Iterator[tuple[list[synth.CardSpec], synth.Photo]]:
    """The benchmark's frames for ``seed``, one after another: the four cards chosen
    (each unknown with the chance ``unknown_share``) and their photo."""
    rng = np.random.default_rng(seed + 1)
    while True:
        chosen = [unknown[int(rng.integers(len(unknown)))] if rng.random() < unknown_share
                  else specs[int(rng.integers(len(specs)))] for _ in range(4)]
        yield chosen, synth.photograph([synth.render(s) for s in chosen], rng, cover=cover)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--frames", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--unknown-share", type=float, default=0.2)
    parser.add_argument("--cover", type=float, default=0.15,
                        help="chance that a finger lies over each card")
    parser.add_argument("--teach-blur", type=float, default=0.0,
                        help="more blur (Gaussian sigma, pixels) on every teaching photo")
    parser.add_argument("--blur", type=float, default=0.0, help="more blur on every frame")
    parser.add_argument("--jpeg", type=int, default=0, help="every frame saved again at this JPEG quality")
    parser.add_argument("--cast", type=float, nargs=3, default=None, metavar=("B", "G", "R"),
                        help="every frame's colour channels multiplied by these (a lamp's colour)")
    args = parser.parse_args(argv)
    cv2.setNumThreads(1)
    specs = synth.deck_specs(60, args.seed)
    unknown = synth.unknown_specs(20, specs, args.seed)
    alike = {a.name for s in specs for a in synth.look_alikes(s)}
    with tempfile.TemporaryDirectory() as tmp:
        synth.write_deck(Path(tmp), specs, args.seed)
        for photo_file in Path(tmp).glob("*/*.jpg") if args.teach_blur else ():
            cv2.imwrite(str(photo_file), _degraded(cv2.imread(str(photo_file)), args.teach_blur, 0, None))
        start = time.perf_counter()
        deck = Deck.load(tmp)
        load_s = time.perf_counter() - start
    times: list[float] = []
    finding: list[float] = []
    known = right = misnamed = missed = undecidable = unknown_seen = unknown_named = alikes_seen = 0
    identifiable = identifiable_right = 0
    hidden_cards: collections.Counter[str] = collections.Counter()
    for chosen, photo in itertools.islice(frames(args.seed, specs, unknown, args.unknown_share, args.cover),
                                          args.frames):
        image = _degraded(photo.image, args.blur, args.jpeg, args.cast)
        start = time.perf_counter()
        find_cards(image)
        finding.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        reading = read_cards(image, deck)
        times.append((time.perf_counter() - start) * 1000)
        for spec, corners, hidden in zip(chosen, photo.corners, photo.hidden):
            hits = [c for c in reading.cards
                    if min(np.abs(np.roll(c.corners, k, axis=0) - corners).max() for k in range(4)) < 15]
            name = hits[0].name if hits else None
            if spec in specs and synth.indistinct(spec, hidden, [*specs, *unknown, *synth.look_alikes(spec)]):
                hidden_cards["right" if name == spec.name else "unknown" if name is None else "misnamed"] += 1
                hidden_cards["not found"] += not hits
            elif spec in specs:
                identifiable += 1
                identifiable_right += name == spec.name
            if spec in specs and name is None and synth.undecidable(spec, hidden, synth.look_alikes(spec)):
                undecidable += 1
            elif spec in specs:
                known += 1
                right += name == spec.name
                misnamed += name is not None and name != spec.name
                missed += not hits
            else:
                unknown_seen += 1
                alikes_seen += spec.name in alike
                unknown_named += name is not None
    naming = [t - f for t, f in zip(times, finding)]
    print(f"deck: 60 cards taught from 1 photo each, loaded in {load_s:.2f} s")
    print(f"frames: {args.frames} at 1280x720, 4 cards each, one OpenCV thread, "
          f"a finger over {args.cover:.0%} of cards")
    print(_spread("time per frame", times) + " (goal: median < 50 ms)")
    print("  " + _spread("finding", finding) + "; " + _spread("naming", naming))
    print(f"known cards: {right}/{known} named right ({100 * right / max(known, 1):.1f}%, goal >= 99%), "
          f"{misnamed} misnamed, {missed} not found")
    print(f"  and {undecidable} rightly unknown (what tells them from a look-alike hidden); "
          f"of all {known + undecidable} known: {100 * right / max(known + undecidable, 1):.1f}% named right")
    print(f"identifiable known cards named right: {identifiable_right}/{identifiable} "
          f"({100 * identifiable_right / max(identifiable, 1):.1f}%)")
    print(f"hidden cards (what tells them from another card covered): named right {hidden_cards['right']} / "
          f"left unknown {hidden_cards['unknown']} ({hidden_cards['not found']} not found) / "
          f"misnamed {hidden_cards['misnamed']}")
    print(f"unknown cards: {unknown_named}/{unknown_seen} named (goal: 0); {alikes_seen} of them "
          "look-alikes of a deck card (one rune the other way)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
