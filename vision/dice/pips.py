"""Reading a pip die: count the pips of the top face, and only those.

Pips are found as small blobs that contrast with the die around them (a black-hat or
top-hat transform, so uneven light and shaded side faces do not matter), each described by
the ellipse of its second moments. A die seen at an angle also shows pips on its side
faces; those are foreshortened into thin ellipses, while the top face's pips stay round
and the largest. So the reader keeps the round, large pips, and then demands that they
form one of the six patterns of a die (:mod:`vision.dice.layout`) under a mild affine
distortion and at the scale of the die. A set that fits no pattern, or fits only after
dropping pips it cannot explain, gives a low confidence, and below the threshold the die
is reported as unknown.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice.layout import pip_layout

__all__ = ["FaceRead", "Pip", "find_pips", "read_pips"]


@dataclass(frozen=True)
class Pip:
    """A pip-like blob: centre, semi-axes (``a`` ≥ ``b``), area and contrast."""

    x: float
    y: float
    a: float
    b: float
    area: float
    contrast: float

    @property
    def roundness(self) -> float:
        return self.b / self.a if self.a > 0 else 0.0


@dataclass(frozen=True)
class FaceRead:
    """What a reader made of one die's top face (coordinates in the die's crop)."""

    face: str
    confidence: float
    centre: tuple[float, float]
    marks: int = 0  # how many face marks (pips, symbol strokes) were seen at all


def _blobs(response: np.ndarray, inner: np.ndarray, side: float, min_contrast: float) -> list[Pip]:
    values = response[inner > 0]
    if values.size == 0:
        return []
    level = max(min_contrast, 0.45 * float(np.percentile(values, 99.5)))
    binary = ((response > level) & (inner > 0)).astype(np.uint8)
    n, labels, stats, centroids = cv2.connectedComponentsWithStats(binary, connectivity=8)
    pips = []
    min_area = max(3.0, (0.05 * side) ** 2)
    max_area = (0.4 * side) ** 2
    for i in range(1, n):
        area = float(stats[i, cv2.CC_STAT_AREA])
        if not min_area <= area <= max_area:
            continue
        x, y, w, h = stats[i, :4]
        blob = (labels[y:y + h, x:x + w] == i).astype(np.uint8)
        m = cv2.moments(blob, binaryImage=True)
        mu20, mu02, mu11 = m["mu20"] / area, m["mu02"] / area, m["mu11"] / area
        common = np.sqrt(max(0.0, ((mu20 - mu02) / 2) ** 2 + mu11 ** 2))
        l1, l2 = (mu20 + mu02) / 2 + common, max(1e-6, (mu20 + mu02) / 2 - common)
        a, b = 2 * np.sqrt(l1), 2 * np.sqrt(l2)
        if area / (np.pi * a * b) < 0.6 or a > 0.3 * side:  # not an ellipse, or too long
            continue
        contrast = float(response[y:y + h, x:x + w][blob > 0].mean())
        pips.append(Pip(float(centroids[i][0]), float(centroids[i][1]), float(a), float(b), area,
                        contrast))
    return pips


def find_pips(crop: np.ndarray, mask: np.ndarray, side: float, *, dark: bool | None = None,
              min_contrast: float = 18.0) -> list[Pip]:
    """Pip-like blobs inside the die's mask, dark on light (or ``dark=False``: light on dark).

    With ``dark=None`` the polarity is the one whose extreme lies further from the die's
    typical grey: black pips pull the darkest pixels far down, white pips the brightest up.
    """
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    inner = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    if dark is None:
        values = gray[inner > 0]
        if values.size == 0:
            return []
        lo, mid, hi = np.percentile(values, (1, 50, 99))
        dark = mid - lo >= hi - mid
    k = max(5, int(0.4 * side) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    response = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT, kernel)
    return _blobs(response, inner, side, min_contrast)


def _top_face(pips: list[Pip], side: float) -> list[Pip]:
    """The pips that can be on the top face: round, and about as large as the largest."""
    round_ = [p for p in pips if p.roundness >= 0.5]
    if not round_:
        return []
    big = max(p.b for p in round_)
    best_round = max(p.roundness for p in round_)
    return [p for p in round_ if p.b >= 0.7 * big and p.roundness >= best_round - 0.2]


def _fit(points: np.ndarray, value: int, side: float) -> float:
    """How well ``points`` form the pattern of ``value`` (1 perfect, 0 not at all)."""
    n = len(points)
    if n == 1:
        return 1.0
    if n in (2, 3):
        d = points[:, None] - points[None]
        dist = np.sqrt((d ** 2).sum(2))
        i, j = np.unravel_index(np.argmax(dist), dist.shape)
        span = dist[i, j] / side
        # The diagonal of the pip grid: 2·√2·offset, offset about a quarter of the face,
        # seen foreshortened down to about two thirds.
        scale_ok = float(np.clip(min((span - 0.35) / 0.1, (1.05 - span) / 0.1), 0, 1))
        if n == 2:
            return scale_ok
        k = 3 - i - j
        mid = (points[i] + points[j]) / 2
        off = np.linalg.norm(points[k] - mid) / max(dist[i, j], 1e-6)
        return scale_ok * float(np.exp(-(off / 0.12) ** 2))
    canon = pip_layout(value)
    p0 = points - points.mean(0)
    c0 = canon - canon.mean(0)

    def whiten(x: np.ndarray) -> np.ndarray:
        vals, vecs = np.linalg.eigh(np.cov(x.T) + 1e-9 * np.eye(2))
        return x @ vecs @ np.diag(1 / np.sqrt(vals)) @ vecs.T

    pw, cw = whiten(p0), whiten(c0)
    best, best_perm = np.inf, None
    for i in range(n):
        for j in range(n):
            if np.linalg.norm(cw[j]) < 1e-6 or np.linalg.norm(pw[i]) < 1e-6:
                continue
            t = np.arctan2(pw[i, 1], pw[i, 0]) - np.arctan2(cw[j, 1], cw[j, 0])
            rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
            rc = cw @ rot.T
            cost = ((pw[:, None] - rc[None]) ** 2).sum(2)
            perm = np.argmin(cost, 1)
            if len(set(perm.tolist())) != n:
                continue
            err = float(cost[np.arange(n), perm].mean())
            if err < best:
                best, best_perm = err, perm
    if best_perm is None:
        return 0.0
    # The affine map from the canonical grid to the image: its scale is the pip spacing.
    design = np.hstack([canon[best_perm], np.ones((n, 1))])
    affine, *_ = np.linalg.lstsq(design, points, rcond=None)
    sv = np.linalg.svd(affine[:2], compute_uv=False)
    spacing = sv / side
    shape_ok = float(np.clip((sv[1] / sv[0] - 0.45) / 0.15, 0, 1))
    scale_ok = float(np.clip(min((spacing[1] - 0.13) / 0.04, (0.4 - spacing[0]) / 0.05), 0, 1))
    return float(np.exp(-best / 0.05)) * shape_ok * scale_ok


def face_support(gray: np.ndarray, mask: np.ndarray, centre: tuple[float, float], side: float,
                 marks: list[Pip]) -> float:
    """How much the area around a face's marks looks like the face of a die (0-1).

    A die's face is one plain colour right up to its marks, and lies wholly on the die. The
    clutter that can pass for a die (a corner of a laptop, a cable on a table, a key) has
    marks too, but on a surface of two colours or at the edge of an object. The spread of
    grey over the face (marks left out) is compared with the marks' own contrast.
    """
    disk = np.zeros(gray.shape, np.uint8)
    cv2.circle(disk, (int(round(centre[0])), int(round(centre[1]))), max(2, int(0.36 * side)), 1, -1)
    area = int(disk.sum())
    if area == 0 or not marks:
        return 0.0
    for p in marks:
        cv2.circle(disk, (int(round(p.x)), int(round(p.y))), int(1.6 * p.a + 1), 0, -1)
    inside = (disk > 0) & (mask > 0)
    coverage = (int(inside.sum()) + (area - int(disk.sum()))) / area
    values = gray[inside]
    if values.size < 8:
        return 0.0
    lo, hi = np.percentile(values, (10, 90))
    contrast = float(np.median([p.contrast for p in marks]))
    plain = float(np.clip((0.3 - (hi - lo) / max(contrast, 1.0)) / 0.15, 0, 1))
    return plain * float(np.clip((coverage - 0.6) / 0.25, 0, 1))


def read_pips(crop: np.ndarray, mask: np.ndarray, side: float, *, threshold: float = 0.5) -> FaceRead:
    """The top face's value, with a confidence; ``"unknown"`` when below ``threshold``.

    A die whose face does not look like a die's at all (see :func:`face_support`) is reported
    with no marks, so that the caller can drop it as clutter.
    """
    h, w = mask.shape
    centre = (w / 2, h / 2)
    best = FaceRead("unknown", 0.0, centre)
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY) if crop.ndim == 3 else crop
    pips = find_pips(gray, mask, side)
    if not pips:
        return FaceRead("unknown", 0.0, centre, 0)
    candidates = sorted(_top_face(pips, side), key=lambda p: -p.b * p.roundness)
    if not candidates:
        best = FaceRead("unknown", 0.0, (float(np.mean([p.x for p in pips])),
                                         float(np.mean([p.y for p in pips]))))
    # Drop the least top-like pips one by one until what is left is a die face.
    for keep in range(min(len(candidates), 6), 0, -1):
        chosen = candidates[:keep]
        points = np.array([(p.x, p.y) for p in chosen])
        fit = _fit(points, keep, side)
        dropped = len(candidates) - keep
        confidence = fit * (0.85 ** dropped)
        if confidence > best.confidence:
            best = FaceRead(str(keep), confidence, tuple(points.mean(0)), len(pips))
        if fit > 0.5:
            break
    support = face_support(gray, mask, best.centre, side, candidates or pips)
    if support < 0.3:
        return FaceRead("unknown", 0.0, best.centre, 0)
    best = FaceRead(best.face, best.confidence * support, best.centre, best.marks)
    if best.confidence < threshold:
        return FaceRead("unknown", best.confidence, best.centre, len(pips))
    return best
