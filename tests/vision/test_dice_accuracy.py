"""Accuracy per die, on real webcam photos and on rendered sets it was not tuned on.

The floors are the figures measured when they were set, rounded down a little: they guard
against regressions. The goal (99 % read right on every set) is tracked by the benchmark.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.vision_dice import WEBCAM, rendered_set, score, webcam_set
from tests.vision.conftest import RUNE_STYLE
from vision.dice.faces import TaughtFaces
from vision.dice.reader import DiceReader


def test_webcam_photos() -> None:
    result, _ = score(DiceReader(), webcam_set(WEBCAM / "Valid"))
    assert result.truths == 255
    assert result.recall >= 0.95
    assert result.precision >= 0.95
    assert result.accuracy >= 0.90


@pytest.mark.parametrize("size", [(960, 540), (640, 480)])
def test_rendered_pip_dice(size: tuple[int, int]) -> None:
    result, _ = score(DiceReader(), rendered_set(range(500, 510), width=size[0], height=size[1]))
    assert result.truths > 40
    assert result.precision >= 0.97
    assert result.recall >= 0.75
    assert result.accuracy >= 0.70


def test_rendered_rune_dice_with_taught_faces(rune_faces: TaughtFaces) -> None:
    result, _ = score(DiceReader(rune_faces),
                      rendered_set(range(600, 610), kind="runes", style=RUNE_STYLE, width=960,
                                   height=540))
    assert result.truths > 40
    assert result.precision >= 0.97
    assert result.recall >= 0.85
    assert result.accuracy >= 0.75
    # Doubtful dice are reported unknown, not guessed: nearly every matched die read is right.
    assert result.correct >= result.matched - result.unknown - 1


def test_rotation_does_not_change_the_reading(rune_faces: TaughtFaces) -> None:
    import cv2

    from vision.dice.render import render_scene

    scene = render_scene(42, count=6, kind="runes", style=RUNE_STYLE, width=800, height=800,
                         tilt=0.0, touching=0.0)
    reader = DiceReader(rune_faces)
    truth = sorted(d.face for d in scene.dice)
    assert sorted(d.face for d in reader.read(scene.image).dice) == truth
    for turn in (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE):
        faces = [d.face for d in reader.read(cv2.rotate(scene.image, turn)).dice]
        assert len(faces) == len(truth)
        # Turned, a die reads the same, or at worst unknown: never another face.
        known = sorted(f for f in faces if f != "unknown")
        assert all(known.count(f) <= truth.count(f) for f in set(known))
        assert faces.count("unknown") <= 1


def test_webcam_copy_is_complete() -> None:
    assert len(list(Path(WEBCAM).glob("*/*.jpg"))) == 396
