"""Scoring a reader against labelled photos: detections matched to true objects by centre.

A detection matches a label when its centre lies within ``radius`` of the label's centre
(half the size of the detected object by default), each label matched at most once,
nearest first. Recall is the share of labels matched, precision the share of detections
that match a label, accuracy the share of labels matched *and* read right (so a missed or
unknown die counts against it). Shared by the tests and the benchmarks.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Labelled", "Score", "match", "read_yolo"]


@dataclass(frozen=True)
class Labelled:
    """One true or detected object: its class (face, card...) and box ``(x, y, w, h)``."""

    label: str
    box: tuple[float, float, float, float]

    @property
    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.box
        return x + w / 2, y + h / 2


@dataclass
class Score:
    truths: int = 0
    detections: int = 0
    matched: int = 0
    correct: int = 0
    unknown: int = 0

    def add(self, other: Score) -> Score:
        return Score(self.truths + other.truths, self.detections + other.detections,
                     self.matched + other.matched, self.correct + other.correct,
                     self.unknown + other.unknown)

    @property
    def recall(self) -> float:
        return self.matched / self.truths if self.truths else 1.0

    @property
    def precision(self) -> float:
        return self.matched / self.detections if self.detections else 1.0

    @property
    def accuracy(self) -> float:
        return self.correct / self.truths if self.truths else 1.0

    def __str__(self) -> str:
        return (f"{self.truths} dice: recall {self.recall:.1%}, precision {self.precision:.1%}, "
                f"read right {self.accuracy:.1%} ({self.truths - self.correct} wrong or missed, "
                f"{self.unknown} unknown)")


def match(truths: Iterable[Labelled], detections: Iterable[Labelled], *,
          unknown: str = "unknown", radius: float = 0.5) -> Score:
    truths, detections = list(truths), list(detections)
    pairs = []
    for i, t in enumerate(truths):
        for j, d in enumerate(detections):
            dx, dy = t.centre[0] - d.centre[0], t.centre[1] - d.centre[1]
            dist = (dx * dx + dy * dy) ** 0.5
            if dist <= radius * max(d.box[2], d.box[3], t.box[2], t.box[3]):
                pairs.append((dist, i, j))
    used_t: set[int] = set()
    used_d: set[int] = set()
    score = Score(len(truths), len(detections))
    for _, i, j in sorted(pairs):
        if i in used_t or j in used_d:
            continue
        used_t.add(i)
        used_d.add(j)
        score.matched += 1
        score.correct += truths[i].label == detections[j].label
        score.unknown += detections[j].label == unknown
    return score


def read_yolo(path: Path, width: int, height: int, names: list[str]) -> list[Labelled]:
    """Labels in YOLO format: ``CLASS CX CY W H`` per line, relative to the image size."""
    out = []
    for line in path.read_text().split("\n"):
        if not line.strip():
            continue
        k, cx, cy, w, h = line.split()
        bw, bh = float(w) * width, float(h) * height
        out.append(Labelled(names[int(k)], (float(cx) * width - bw / 2,
                                            float(cy) * height - bh / 2, bw, bh)))
    return out
