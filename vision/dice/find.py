"""Finding the dice in a frame: blobs that stand out from the tray, die-sized and square,
touching dice pulled apart.

This stage knows nothing of faces. It works on a copy of the frame scaled down to
``WORK_SIDE`` pixels (dice are found as well at that size, and it costs a quarter), and
hands each die to the reader as a region of the full-size frame.

The size of a die is learnt from the frame itself: the median area of the blobs that look
like single dice (solid and square). Blobs about ``k`` times that area are ``k`` dice
touching; they are split around the ``k`` strongest peaks of their distance transform.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.tray import Tray, foreground

__all__ = ["WORK_SIDE", "DieRegion", "find_dice"]

WORK_SIDE = 640
MAX_DICE = 64


@dataclass(frozen=True)
class DieRegion:
    """Where one die is, in full-frame pixels: a bounding box and the die's mask inside it."""

    x: int
    y: int
    mask: np.ndarray  # uint8 0/255, the die's pixels within the box
    side: float  # the expected side of a die's top face in this frame, pixels

    @property
    def box(self) -> tuple[int, int, int, int]:
        return self.x, self.y, self.mask.shape[1], self.mask.shape[0]


def _fill_holes(mask: np.ndarray) -> np.ndarray:
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out = np.zeros_like(mask)
    cv2.drawContours(out, contours, -1, 255, -1)
    return out


def _squareness(contour: np.ndarray) -> tuple[float, float]:
    """(solidity, aspect) of a blob: 1 and 1 for a square seen from above."""
    area = cv2.contourArea(contour)
    hull = cv2.contourArea(cv2.convexHull(contour))
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    return area / max(hull, 1e-6), min(w, h) / max(w, h, 1e-6)


def _has_strong(contour: np.ndarray, strong: np.ndarray) -> bool:
    x, y, w, h = cv2.boundingRect(contour)
    inside = np.zeros((h, w), np.uint8)
    cv2.drawContours(inside, [contour - [x, y]], -1, 1, -1)
    return bool((inside & strong[y:y + h, x:x + w]).sum() >= 2)


def _typical_area(contours: list[np.ndarray], min_area: float) -> float | None:
    single = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < min_area:
            continue
        solidity, aspect = _squareness(c)
        if solidity > 0.85 and aspect > 0.7:
            single.append(area)
    if not single:
        return None
    single.sort()
    # The dice are most of the solid square blobs; the median is one of them. Two dice side
    # by side are a 2:1 oblong, kept out by the aspect ratio even when seen at an angle.
    return float(single[len(single) // 2])


def _split(mask: np.ndarray, k: int, min_gap: float) -> list[np.ndarray]:
    """Split a blob of ``k`` touching dice into ``k`` masks (same shape as ``mask``)."""
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    peaks: list[tuple[int, int]] = []
    work = dist.copy()
    for _ in range(k):
        _, value, _, (px, py) = cv2.minMaxLoc(work)
        if value <= 0:
            break
        peaks.append((px, py))
        cv2.circle(work, (px, py), int(min_gap), 0, -1)
    if len(peaks) < 2:
        return [mask]
    ys, xs = np.nonzero(mask)
    points = np.stack([xs, ys], 1).astype(np.float32)
    centres = np.array(peaks, np.float32)
    for _ in range(4):  # a few k-means steps from the peaks: each die takes the pixels nearest it
        labels = np.argmin(((points[:, None, :] - centres[None]) ** 2).sum(2), 1)
        centres = np.array([points[labels == i].mean(0) if (labels == i).any() else centres[i]
                            for i in range(len(centres))], np.float32)
    parts = []
    for i in range(len(centres)):
        part = np.zeros_like(mask)
        part[ys[labels == i], xs[labels == i]] = 255
        parts.append(part)
    return parts


def find_dice(frame: np.ndarray, tray: Tray | None = None, *,
              min_side: float = 8.0) -> list[DieRegion]:
    """The die-like regions of a frame (already in the tray's view), at most ``MAX_DICE``."""
    h, w = frame.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    small = frame if scale == 1.0 else cv2.resize(frame, (round(w * scale), round(h * scale)),
                                                  interpolation=cv2.INTER_AREA)
    mask, diff, level = foreground(small, tray)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    mask = _fill_holes(mask)
    # Keep only blobs with some pixels far from the tray's colour (a die's body or its pips):
    # wood grain and faint stains pass the first threshold but never this one.
    strong = (diff > 2 * level).astype(np.uint8)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contours = [c for c in contours if _has_strong(c, strong)]
    min_area = (min_side * scale) ** 2
    typical = _typical_area(contours, min_area)
    if typical is None:
        return []
    side = float(np.sqrt(typical))
    regions: list[tuple[int, int, np.ndarray]] = []
    for c in contours:
        area = cv2.contourArea(c)
        if area < 0.35 * typical or area > 12 * typical:
            continue
        x, y, bw, bh = cv2.boundingRect(c)
        blob = np.zeros((bh, bw), np.uint8)
        cv2.drawContours(blob, [c - [x, y]], -1, 255, -1)
        k = int(round(area / typical))
        solidity, aspect = _squareness(c)
        if k <= 1 and (solidity < 0.75 or aspect < 0.4):
            k = 2
        parts = _split(blob, k, 0.6 * side) if k >= 2 else [blob]
        for part in parts:
            part_area = cv2.countNonZero(part)
            if part_area < 0.35 * typical or part_area > 2.2 * typical:
                continue
            px, py, pw, ph = cv2.boundingRect(part)
            if min(pw, ph) < 0.4 * side or max(pw, ph) > 2.4 * side:
                continue
            regions.append((x + px, y + py, part[py:py + ph, px:px + pw]))
    regions.sort(key=lambda r: (r[1], r[0]))
    out = []
    for x, y, part in regions[:MAX_DICE]:
        # Back to full size, with a margin so that the die's edges are inside the box.
        margin = 0.15 * side
        x0 = max(0, int((x - margin) / scale))
        y0 = max(0, int((y - margin) / scale))
        x1 = min(w, int(np.ceil((x + part.shape[1] + margin) / scale)))
        y1 = min(h, int(np.ceil((y + part.shape[0] + margin) / scale)))
        # Full-size pixel (x0 + u, y0 + v) is small-image point (x0 + u) * scale, (y0 + v) * scale.
        m = np.float32([[scale, 0, x0 * scale - x], [0, scale, y0 * scale - y]])
        full = cv2.warpAffine(part, m, (x1 - x0, y1 - y0),
                              flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP)
        out.append(DieRegion(x0, y0, (full > 127).astype(np.uint8) * 255, side / scale))
    return out
