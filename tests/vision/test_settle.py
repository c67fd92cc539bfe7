"""Settled rolls on replayed sequences: moving, still, moved again."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.dice.reader import DiceReader, DiceReading
from vision.dice.render import render_scene
from vision.settle import MotionMeter, Settler, settled_stream
from vision.sources import ReplaySource


@dataclass(frozen=True)
class Reading:
    summary: tuple[str, ...]


FRAME = np.zeros((4, 4, 3), np.uint8)


def feed(settler: Settler[Reading], steps: list[tuple[tuple[str, ...], float]]) -> list[int]:
    """The steps at which a reading settled."""
    return [i for i, (summary, motion) in enumerate(steps)
            if settler.update(Reading(summary), FRAME, motion) is not None]


def test_a_reading_settles_once_after_agreeing_still_frames() -> None:
    still = (("5", "6"), 0.0)
    assert feed(Settler(frames=3), [still] * 10) == [2]


def test_disagreeing_frames_do_not_settle() -> None:
    steps = [(("5",), 0.0), (("6",), 0.0), (("5",), 0.0), (("6",), 0.0)]
    assert feed(Settler(frames=2), steps) == []


def test_motion_resets_and_a_new_throw_settles_again_even_with_the_same_faces() -> None:
    still, moving = (("5", "6"), 0.0), (("5", "6"), 0.2)
    steps = [moving] * 3 + [still] * 4 + [moving] * 2 + [still] * 4
    assert feed(Settler(frames=3), steps) == [5, 11]


def test_an_empty_tray_is_not_reported_unless_asked() -> None:
    empty = ((), 0.0)
    assert feed(Settler(frames=2), [empty] * 5) == []
    assert feed(Settler(frames=2, report_empty=True), [empty] * 5) == [1]


def test_motion_meter_sees_a_die_move_but_not_noise() -> None:
    meter = MotionMeter()
    scene = render_scene(5, count=4, width=640, height=480)
    rng = np.random.default_rng(0)
    assert meter(scene.image) == 1.0  # no previous frame: assume motion
    noisy = np.clip(scene.image + rng.normal(0, 3, scene.image.shape), 0, 255).astype(np.uint8)
    assert meter(noisy) < 0.001
    moved = render_scene(6, count=4, width=640, height=480)
    assert meter(moved.image) > 0.01


def test_replayed_throws_settle_with_the_right_reading(tmp_path: Path) -> None:
    """Two throws recorded as image files: the dice move, lie still, move, lie still."""
    first = render_scene(13, count=5, width=640, height=480, blur=0.0, glare=0.0)
    second = render_scene(12, count=5, width=640, height=480, blur=0.0, glare=0.0)
    frames = ([render_scene(s, count=5, width=640, height=480).image for s in (20, 21)]
              + [first.image] * 4
              + [render_scene(s, count=5, width=640, height=480).image for s in (22, 23)]
              + [second.image] * 4)
    for i, frame in enumerate(frames):
        cv2.imwrite(str(tmp_path / f"frame_{i:03d}.png"), frame)
    reader = DiceReader()
    settled = list(settled_stream(ReplaySource(tmp_path).frames(), reader.read,
                                  Settler[DiceReading](frames=3)))
    assert [s.index for s in settled] == [5, 11]
    assert settled[0].reading == reader.read(first.image)
    assert settled[1].reading.summary == reader.read(second.image).summary
    assert settled[0].frame.shape == (480, 640, 3)
