"""Finding the dice in a frame: blobs that stand out from the tray, and the size of a die.

This stage knows nothing of faces. It works on a copy of the frame scaled down to at most
``WORK_SIDE`` pixels (dice are found as well at that size, for a fraction of the cost),
and hands each blob to the reader as a region of the full-size frame.

The size of a die is learnt from the frame itself: the median area of the blobs that look
like single dice (solid and square). A blob about ``k`` times that area holds ``k`` dice
touching. Where the blobs' areas mislead (a cluster of dice as solid and square as one
die), the pips tell the size (:func:`pip_side`, asked by the reader). The pip reader
separates touching dice by their faces; :func:`find_dice` (for readers that need one
region per die, such as taught faces) splits a blob around the ``k`` strongest peaks of
its distance transform.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dice.marks import mark_mask, mark_response
from vision.tray import FAINTEST, Tray, foreground, grow

__all__ = ["CLEAR", "MAX_DICE", "SIDES", "WORK_SIDE", "Blobs", "DieRegion", "View", "find_blobs", "find_dice",
           "box_centres", "holding", "pip_side", "pointed_side", "shrink", "split_blob"]

WORK_SIDE = 640
MAX_DICE = 64
MIN_DIE = 12  # work pixels: a blob smaller than this is no die that can be read
FAR = 0.12  # of a die's area: the least a die farther off than the others may fill (_far)
_BODY = 0.3  # of the split between tray and dice: what a die found by its marks stands out by
_RINGED = 0.8  # the least share of a mark's ring that stands out so (_bodies)
_REACH = 3  # a die found by its marks lies within this many times their size of them (_bodies)
_PIPS_A_SIDE = 8.0  # a die's side over the square root of its pips' area (pip_side)
_PIP_SHARE = 0.5  # of a blob's strongest mark: its pips' outline, measured (pip_side)
_ROUND = 0.75  # the least share of marks ringed by a body that are round, for pips (_pip_bodies)

# Frames, masks and label images (uint8 here), typed as OpenCV's functions give them back.
Image = NDArray[np.integer[Any] | np.floating[Any]]
Contour = NDArray[np.int32]  # OpenCV's outline of a blob: n×1×2 points


@dataclass(frozen=True)
class DieRegion:
    """Where a die is (or ``count`` dice touching), in full-frame pixels: a bounding box
    and the mask of the die's pixels inside it."""

    x: int
    y: int
    mask: Image  # 0/255, the die's pixels within the box
    side: float  # the expected side of a die in this frame, pixels (top face and a bit)
    count: int = 1

    @property
    def box(self) -> tuple[int, int, int, int]:
        return self.x, self.y, self.mask.shape[1], self.mask.shape[0]


def shrink(image: Image, size: tuple[int, int]) -> Image:
    """``image`` scaled down to ``size``: averaged over whole blocks of pixels (OpenCV's fast
    case), then interpolated the rest of the way, which costs a quarter of averaging over
    fractional blocks and looks the same."""
    h, w = image.shape[:2]
    k = int(min(w / size[0], h / size[1]))
    if k >= 2:
        image = cv2.resize(image, (w // k, h // k), interpolation=cv2.INTER_AREA)
    if (image.shape[1], image.shape[0]) == size:
        return image
    return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)


@dataclass(frozen=True)
class View:
    """A frame as the face readers see it: scaled so that a die is a set size, with the
    blobs (``body``: 0 tray, k for the blob in ``boxes[k - 1]``, which holds about
    ``counts[k - 1]`` dice)."""

    image: Image
    body: Image
    boxes: list[tuple[int, int, int, int]]
    counts: list[int]
    side: float  # a die's side, view pixels
    scale: float  # view pixels per frame pixel
    sides: NDArray[np.float64] | None = None  # by label of ``body``, view pixels (None: all ``side``)


def _grown(labels: Image, grow: int) -> Image:
    """``labels`` (uint8) grown by a disc ``grow`` pixels across each way (the larger label
    where two meet), worked out only around the box holding its labels: the rest of the
    view is tray, and stays 0 (grown too, it cost a third more)."""
    x, y, w, h = cv2.boundingRect(labels)
    out = np.zeros_like(labels)
    if w:
        x0, y0 = max(0, x - grow), max(0, y - grow)
        x1, y1 = x + w + grow, y + h + grow
        out[y0:y1, x0:x1] = cv2.dilate(labels[y0:y1, x0:x1], cv2.getStructuringElement(
            cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1)))
    return out


@dataclass(frozen=True)
class Blobs:
    """The die-like blobs of a frame, found on a work copy of it: single dice, and touching
    dice as one blob that holds ``counts[k]`` dice by its area."""

    labels: Image  # the work copy's size: 0 tray, k + 1 for blob k
    boxes: list[tuple[int, int, int, int]]  # work pixels
    counts: list[int]
    scale: float  # work pixels per frame pixel
    side: float  # a die's side (top face and a bit), frame pixels
    sides: list[float]  # the side of each blob's dice, frame pixels: ``side``, or less far off

    def __len__(self) -> int:
        return len(self.boxes)

    def view(self, frame: Image, side: float) -> View:
        """The frame scaled so that a die is about ``side`` pixels (never enlarged), with
        the blobs at that scale."""
        h, w = frame.shape[:2]
        f = min(1.0, side / self.side)
        size = (max(1, round(w * f)), max(1, round(h * f)))
        image = frame if f == 1.0 else shrink(frame, size)
        # The dice as found, a little grown: a die found only in part still has its marks.
        grow = max(1, round(0.1 * side))
        body = _grown(cv2.resize(self.labels, size, interpolation=cv2.INTER_NEAREST), grow)
        r = size[0] / self.labels.shape[1]
        boxes = []
        for x, y, bw, bh in self.boxes:
            x0, y0 = max(0, int(x * r) - grow - 1), max(0, int(y * r) - grow - 1)
            x1 = min(size[0], int(np.ceil((x + bw) * r)) + grow + 1)
            y1 = min(size[1], int(np.ceil((y + bh) * r)) + grow + 1)
            boxes.append((x0, y0, x1 - x0, y1 - y0))
        sides = np.array([self.side, *self.sides]) * f
        return View(image, body, boxes, self.counts, self.side * f, f, sides)

    def region(self, k: int, size: tuple[int, int]) -> DieRegion:
        """Blob ``k`` as a region of the full-size frame (``size``: width, height), with a
        margin so that the die's edges are inside the box."""
        x, y, w, h = self.boxes[k]
        mask = (self.labels[y:y + h, x:x + w] == k + 1).view(np.uint8) * 255
        x0, y0, full = _to_full(mask, x, y, self.scale, 0.15 * self.side * self.scale, size)
        return DieRegion(x0, y0, full, self.sides[k], self.counts[k])


class _Shape(NamedTuple):
    """A blob's shape, as the die size is learnt from it."""

    area: float
    solidity: float  # area over its convex hull's: 1 for a die, less for an L of dice
    aspect: float  # short over long side of its smallest box: 1 for a die seen from above
    squares: float  # area over the square on its widest inscribed circle: about 1 for a die
    inside: bool  # clear of the frame's edge
    box: tuple[int, int, int, int]  # its bounding box, work pixels


def _shape(contour: Contour, area: float, inscribed: float, inside: bool,
           box: tuple[int, int, int, int]) -> _Shape:
    """A blob's shape from its outline, area, inscribed radius and bounding box."""
    hull = cv2.contourArea(cv2.convexHull(contour))
    (_, _), (w, h), _ = cv2.minAreaRect(contour)
    return _Shape(area, area / max(hull, 1e-6), min(w, h) / max(w, h, 1e-6),
                  area / max(2 * inscribed, 1.0) ** 2, inside, box)


def _typical_area(shapes: list[_Shape]) -> float | None:
    """The area of one die, from the blobs' shapes.

    Each blob shaped like one die is a hypothesis, and so is the square on the widest
    circle inside any other solid blob (touching dice in a row are as wide as one die);
    the hypothesis that explains most blobs as one to four dice wins (so a lone die beside
    a square of four touching dice is one die, not the square), a blob read as one die
    counting more than one read as several, and a big blob more than a small one (specks
    of shadow or grain, however many, are not the dice). A blob narrower than a die holds
    none. Ties go to the larger area.
    """
    solid = [s for s in shapes if s.solidity > 0.65]
    if not solid:
        return None
    # (area, width: its inscribed circle's diameter, prior) of each hypothesis. Blobs cut
    # by the frame's edge are likelier the table's clutter (a laptop, a cable), and their
    # shape is not all there.
    hypotheses = np.array(
        [(s.area, np.sqrt(s.area / s.squares), _die_like(s) * (1.0 if s.inside else 0.3))
         for s in solid]
        + [(1.06 * s.area / s.squares, np.sqrt(s.area / s.squares),
            0.5 * _die_like(s, alone=False) * (1.0 if s.inside else 0.3))
           for s in solid if s.squares > 1.3])
    areas = np.array([s.area for s in shapes])
    widths = np.sqrt(areas / np.array([s.squares for s in shapes]))
    weight = np.sqrt(areas) * np.array([1.0 if s.inside else 0.3 for s in shapes])
    ratio = areas[None, :] / hypotheses[:, 0, None]  # hypothesis × blob
    k = np.clip(np.round(ratio), 1, 4)
    explained = (np.exp(-((ratio / k - 1) / 0.2) ** 2) * (ratio < 4.5) * np.where(k == 1, 1.0, 0.7)
                 * (widths[None, :] >= 0.8 * hypotheses[:, 1, None]))
    score = hypotheses[:, 2] * (explained @ weight) + 1e-6 * hypotheses[:, 0] / hypotheses[:, 0].max()
    if score.max() < 1e-3:
        # Nothing like a die: the largest solid blob is one die, or two side by side.
        biggest = max(solid, key=lambda s: s.area)
        return biggest.area if biggest.aspect > 0.7 else biggest.area / 2
    return float(hypotheses[int(np.argmax(score)), 0])


def _die_like(shape: _Shape, *, alone: bool = True) -> float:
    """How like one die (or, not ``alone``, dice touching) a blob's shape is, 0-1: solid,
    and for one die square, its widest inscribed circle as wide as the blob (two dice side
    by side, or an L of three, hold a circle only one die wide)."""
    solid = _within_one((shape.solidity - 0.6) / 0.25)
    if not alone:
        return solid
    return solid * (_within_one((shape.aspect - 0.45) / 0.25) * _within_one((1.6 - shape.squares) / 0.25))


def _within_one(x: float) -> float:
    """``x`` kept within 0-1, as ``np.clip`` keeps it, which costs six times as much on a
    number: asked for every blob, it took most of the time the die's size took to learn."""
    return min(max(x, 0.0), 1.0)


def _to_full(part: Image, x: int, y: int, scale: float, margin: float,
             size: tuple[int, int]) -> tuple[int, int, Image]:
    """A work-image mask at (x, y) as a full-frame box (with ``margin`` work pixels around)
    and its mask at full size."""
    w, h = size
    x0 = max(0, int((x - margin) / scale))
    y0 = max(0, int((y - margin) / scale))
    x1 = min(w, int(np.ceil((x + part.shape[1] + margin) / scale)))
    y1 = min(h, int(np.ceil((y + part.shape[0] + margin) / scale)))
    if scale == 1.0:
        full = np.zeros((y1 - y0, x1 - x0), np.uint8)
        full[y - y0:y - y0 + part.shape[0], x - x0:x - x0 + part.shape[1]] = part
        return x0, y0, full
    # Full-size pixel (x0 + u, y0 + v) is work-image point (x0 + u) * scale, (y0 + v) * scale.
    m = np.array([[scale, 0, x0 * scale - x], [0, scale, y0 * scale - y]], np.float32)
    warped = cv2.warpAffine(part, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP)
    return x0, y0, cv2.threshold(warped, 127, 255, cv2.THRESH_BINARY)[1]


def holding(boxes: Sequence[Sequence[int]], margin: int,
            size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The part of an image of ``size`` holding ``boxes`` (``x, y, w, h``) and ``margin``
    pixels around them, as ``x0, y0, x1, y1`` (the whole image without boxes). Around the
    blobs of a frame of 32 dice lies a fifth to a third of it, bare tray, which every pass
    over the image paid for."""
    if not boxes:
        return 0, 0, size[0], size[1]
    return (max(0, min(x for x, _, _, _ in boxes) - margin),
            max(0, min(y for _, y, _, _ in boxes) - margin),
            min(size[0], max(x + bw for x, _, bw, _ in boxes) + margin),
            min(size[1], max(y + bh for _, y, _, bh in boxes) + margin))


def _label(mask: Image, diff: NDArray[np.float32], level: float, min_area: float
           ) -> tuple[list[Contour], NDArray[np.int32], NDArray[np.intp], dict[int, _Shape]]:
    """The blobs of a mask: contours, a label image (holes filled: a die's pips are part
    of it; blob i labelled i + 1), the pixels of each label (0: the tray; counted once
    here, as :func:`_complete` needs them too) and the shapes of those worth a look."""
    found, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    contours = cast(list[Contour], list(found))
    labels = np.zeros(mask.shape, np.int32)
    for i, c in enumerate(contours):
        cv2.drawContours(labels, [c], -1, i + 1, -1)
    # Each blob's pixels, counted in its box (a frame has a few dozen blobs: cheaper than
    # counting the whole label image).
    boxes = [cv2.boundingRect(c) for c in contours]
    pixels = np.zeros(len(contours) + 1, np.intp)
    for i, (x, y, bw, bh) in enumerate(boxes):
        pixels[i + 1] = cv2.countNonZero((labels[y:y + bh, x:x + bw] == i + 1).view(np.uint8))
    pixels[0] = mask.size - pixels[1:].sum()
    h, w = mask.shape
    # (Counted in the part of the work copy holding the blobs, and each blob's widest
    # circle measured in its own box: see _inscribed.)
    x0, y0, x1, y1 = holding(boxes, 0, (w, h))
    part, ring = labels[y0:y1, x0:x1], diff[y0:y1, x0:x1]
    # Keep only blobs with some pixels far from the tray's colour (a die's body or its pips):
    # wood grain and faint stains pass the first threshold but never this one.
    strong = np.bincount(part[ring > 1.5 * level], minlength=len(contours) + 1)[1:]
    areas = pixels[1:].astype(float)
    shapes = {}
    for i, c in enumerate(contours):
        if strong[i] >= 3 and areas[i] >= min_area:
            x, y, bw, bh = boxes[i]
            inside = x > 0 and y > 0 and x + bw < w and y + bh < h
            box = (x, y, bw, bh)
            shapes[i] = _shape(c, areas[i], _inscribed(labels, i + 1, box), inside, box)
    return contours, labels, pixels, shapes


def _inscribed(labels: NDArray[np.int32], label: int, box: tuple[int, int, int, int]) -> float:
    """The radius of the widest circle inside blob ``label`` of ``labels`` (whose bounding
    box is ``box``): its pixels' largest distance from the tray (OpenCV's 3×3 estimate).

    Measured in its box with a pixel of tray around it: every way out of the blob to the
    tray crosses that ring, and another blob's pixels, never touching this one's (the
    blobs are apart), lie beyond the tray between them, so they may count as tray there.
    The distances over the whole work copy's blobs, a few dozen boxes' worth of pixels
    where the dice lie spread over the frame, cost twice as much."""
    h, w = labels.shape
    x, y, bw, bh = box
    x0, y0 = max(0, x - 1), max(0, y - 1)
    own = (labels[y0:min(h, y + bh + 1), x0:min(w, x + bw + 1)] == label).view(np.uint8)
    _, inscribed, _, _ = cv2.minMaxLoc(cv2.distanceTransform(own, cv2.DIST_L2, 3), own)
    return float(inscribed)


def _complete(mask: Image, diff: NDArray[np.float32], labels: NDArray[np.int32],
              pixels: NDArray[np.intp], typical: float | None) -> Image | None:
    """The mask with dice found only in part made whole, or None if that adds nothing.

    The split between tray and foreground is Otsu's over the whole frame: strongly
    coloured clutter (a red cable, a dark laptop) raises it above a pale die on a pale
    tray, which then stands out only by its pips or an edge, as blobs too small for a
    die. Each such blob is followed into the fainter pixels connected to it, down to the
    faintest difference that still counts; dice found whole (and whatever touches them)
    are left as they are, so a frame whose dice all stand out is read as before.
    (``pixels``: each label's, as :func:`_label` counted them.)
    """
    part = pixels < (0.35 * typical if typical is not None else np.inf)
    part[0] = False
    if not part.any():
        return None
    _, found = cv2.connectedComponents((diff > FAINTEST).view(np.uint8), connectivity=8)
    faint = cast(NDArray[np.int32], found)
    seeds = np.zeros(int(faint.max()) + 1, bool)
    # (Each pixel's blob told once, 1 in part, 2 whole. NumPy looks values up by 32-bit
    # labels at half the speed of ``take``, which costs a frame of 32 dice some 0.5 ms
    # each time over the whole work copy.)
    kind = np.where(part, 1, 2).astype(np.uint8)
    kind[0] = 0
    blob = np.take(kind, labels)
    seeds[faint[blob == 1]] = True
    seeds[faint[blob == 2]] = False
    seeds[0] = False
    fuller = cv2.bitwise_or(mask, np.take(seeds, faint).view(np.uint8) * 255)
    return fuller if cv2.countNonZero(fuller) > cv2.countNonZero(mask) else None


def _rings(boxes: NDArray[np.int_], shape: tuple[int, int]) -> tuple[NDArray[np.int_], NDArray[np.intp]]:
    """How far out from each blob's bounding box (``boxes``: n×4, x y w h) its ring lies (a
    tenth of its longer side, at least 2 pixels), and which blobs' rings lie within the
    frame (of ``shape``, height and width)."""
    x, y, bw, bh = boxes.T
    r = np.maximum(2, np.round(0.1 * np.maximum(bw, bh))).astype(int)
    clear = (x >= r) & (y >= r) & (x + bw + r <= shape[1]) & (y + bh + r <= shape[0])
    return r, np.nonzero(clear)[0]


def _ringed(diff: NDArray[np.float32], floor: float,
            boxes: NDArray[np.int_]) -> dict[int, NDArray[np.float32]]:
    """Which blobs (by their bounding ``boxes``, n×4) are ringed, a few pixels out from
    their box, by pixels that stand out above ``floor``: first at twelve points of each
    ring for all blobs at once (a quarter, half and three quarters along each side; not
    the corners, where a mark's box turned with its die nears the die's edge), then, where
    those all but one stand out, on the whole ring (``_RINGED`` of it). Each ringed blob's
    index is given with its ring's pixels, which tell how far its die stands out."""
    r, ids = _rings(boxes, (diff.shape[0], diff.shape[1]))
    x, y, bw, bh = boxes[ids].T
    x0, y0, x1, y1, r = x - r[ids], y - r[ids], x + bw + r[ids] - 1, y + bh + r[ids] - 1, r[ids]
    t = np.array([0.25, 0.5, 0.75])
    along_x = np.round(x0[:, None] + t * (x1 - x0)[:, None]).astype(int)
    along_y = np.round(y0[:, None] + t * (y1 - y0)[:, None]).astype(int)
    xs = np.hstack([along_x, along_x, np.repeat(x0[:, None], 3, 1), np.repeat(x1[:, None], 3, 1)])
    ys = np.hstack([np.repeat(y0[:, None], 3, 1), np.repeat(y1[:, None], 3, 1), along_y, along_y])
    rings = {int(ids[k]): _ring(diff, boxes[ids[k]], r[k])
             for k in np.nonzero((diff[ys, xs] > floor).sum(1) >= 11)[0]}
    return {k: ring for k, ring in rings.items() if (ring > floor).mean() >= _RINGED}


def _ring(diff: NDArray[np.float32], box: NDArray[np.int_], r: int) -> NDArray[np.float32]:
    """The pixels of ``diff`` in the ring ``r`` pixels wide round a bounding ``box``."""
    x, y, bw, bh = box
    patch = diff[y - r:y + bh + r, x - r:x + bw + r]
    inner = np.zeros(patch.shape, bool)
    inner[r:-r, r:-r] = True
    ring: NDArray[np.float32] = patch[~inner]
    return ring


def _bodies(mask: Image, diff: NDArray[np.float32], level: float, contours: list[Contour],
            shapes: dict[int, _Shape]) -> Image | None:
    """The mask with the bodies of dice found only by their marks, or None if there are none.

    White symbols on a black die on dark wood stand out from the tray four times as much
    as the die: the split between tray and dice falls between the die and its marks, and
    the die's size would be learnt from its marks (a hammer's head and handle, a quarter
    of the die). What tells such a mark (a blob of ``shapes``, by index) from a die: it is
    ringed by pixels that stand out from the tray by over ``_BODY`` of the split
    (:func:`_ringed`), where a die's outline, blurred or not, meets the tray within a few
    pixels. Its die is the pixels joined to it that stand out by half as much as its ring
    (its lower quartile), looked for within ``_REACH`` times the mark's size all round:
    found reaching further, they are the tray's own blotch (or a card under the die).
    """
    if not shapes:
        return None
    h, w = diff.shape
    ids = list(shapes)
    boxes = np.array([shapes[i].box for i in ids])
    fuller = None
    for k, ring in _ringed(diff, _BODY * level, boxes).items():
        x, y, bw, bh = boxes[k]
        body = float(np.percentile(ring, 25))
        m = _REACH * max(bw, bh)
        x0, y0, x1, y1 = max(0, x - m), max(0, y - m), min(w, x + bw + m), min(h, y + bh + m)
        _, parts = cv2.connectedComponents((diff[y0:y1, x0:x1] > 0.5 * body).view(np.uint8),
                                           connectivity=4)
        px, py = contours[ids[k]][0, 0]
        die = parts[py - y0, px - x0]
        # (A die cut by the frame's edge is cut by it: only the window's other sides count.)
        edges = [parts[0] if y0 > 0 else None, parts[-1] if y1 < h else None,
                 parts[:, 0] if x0 > 0 else None, parts[:, -1] if x1 < w else None]
        if any(die in edge for edge in edges if edge is not None):
            continue
        fuller = mask.copy() if fuller is None else fuller
        fuller[y0:y1, x0:x1][parts == die] = 255
    return fuller


def _round(w: NDArray[Any], h: NDArray[Any], area: NDArray[Any]) -> NDArray[np.bool_]:
    """Which marks (by their bounding boxes' ``w`` and ``h`` and their ``area``) are round
    like pips: filling most of their box, and their box nearly square."""
    round_: NDArray[np.bool_] = (area >= 0.6 * w * h) & (np.minimum(w, h) >= 0.7 * np.maximum(w, h))
    return round_


def _pip_bodies(mask: Image, diff: NDArray[np.float32], level: float) -> Image | None:
    """The mask with the dice around pips that stand out alone, or None if there are none.

    Black dice on dark wood can stand out from it by less than the faintest difference
    that counts: only their pips are found, each too small for a die, and the die size
    would be learnt from the pips. A pip on such a die is ringed by the die's body, which
    stands out by over ``_BODY`` of the split (:func:`_ringed`), where a speck of the
    tray is not; and pips are round (0.84-0.98 of such marks on black dice, under 0.6 on
    a patterned cloth, whose weave is ringed too). The die is the pixels that stand out
    by half as much as those rings, within two pips of its pips (a face's pips are a pip
    or two apart, and its edge no further from them), smoothed at half a pip (the tray's
    grain, joined to a die, is thinner than that).
    """
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    strong = np.bincount(labels[diff > 1.5 * level], minlength=n) >= 3
    marks = np.nonzero(strong[1:] & (stats[1:, cv2.CC_STAT_AREA] >= 4))[0] + 1
    if not len(marks):
        return None
    rings = _ringed(diff, _BODY * level, stats[marks, :4].astype(int))
    if not rings:
        return None
    ringed = marks[list(rings)]
    w, h, area = (stats[ringed, i] for i in (cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT, cv2.CC_STAT_AREA))
    if np.mean(_round(w, h, area)) < _ROUND:
        return None  # marks of many shapes: a cloth's weave, not pips
    keep = np.zeros(n, np.uint8)
    keep[ringed] = 255
    pips = keep[labels]
    pip = float(np.median(np.sqrt(stats[ringed, cv2.CC_STAT_AREA])))
    body = float(np.median([np.percentile(ring, 25) for ring in rings.values()]))
    reach, smooth = round(2 * pip), max(1, round(pip / 4))
    near = cv2.dilate(pips, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1,) * 2))
    dice = cv2.bitwise_or(pips, cv2.bitwise_and(near, (diff > 0.5 * body).view(np.uint8) * 255))
    return cv2.morphologyEx(dice, cv2.MORPH_OPEN,
                            cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * smooth + 1,) * 2))


_Kept = tuple[tuple[int, int, int, int], int, int, float]  # box, dice, label, their side (work pixels)


def _far(dice: list[_Kept], small: list[_Kept]) -> list[_Kept]:
    """Of the blobs too small for a die (``small``: solid, clear of the frame's edge, each
    with its own size as its die's), those that are dice farther off: wholly above every
    single die of ``dice``.

    A camera looks at the table from its near side, so a die farther off shows higher in
    the picture and smaller: a pale die's top face (all of it that stands out from pale
    wood) at the far side of a table seen at a slant is a fifth of a near one's, seen
    steeply as well as from further. Its pips are then too small for the die size learnt
    from the near dice, so it is read at its own. Beside or below a die, a blob that small
    is that die's side face or clutter.
    """
    top = min((box[1] for box, count, _, _ in dice if count == 1), default=0)
    return [blob for blob in small if blob[0][1] + blob[0][3] < top
            and not any(_overlap(blob[0], box) for box, _, _, _ in dice)]


def _overlap(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    """Whether two boxes ``(x, y, w, h)`` overlap."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def find_blobs(frame: Image, tray: Tray | None = None, *, min_side: float = 8.0,
               die_side: float | None = None) -> Blobs:
    """The die-like blobs of a frame (already in the tray's view), at most ``MAX_DICE``
    dice in all, for dice ``die_side`` pixels a side if that is known (else learnt from
    the blobs)."""
    h, w = frame.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    known = None if die_side is None else (die_side * scale) ** 2

    def learn(shapes: list[_Shape]) -> float | None:
        return _typical_area(shapes) if known is None else known

    small = frame if scale == 1.0 else shrink(frame, (round(w * scale), round(h * scale)))
    mask, diff, level = foreground(small, tray)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3)))
    none = Blobs(np.zeros(mask.shape, np.uint8), [], [], scale, 0.0, [])
    min_area = (min_side * scale) ** 2
    marks = mask
    contours, labels, pixels, shapes = _label(mask, diff, level, min_area)
    # (Marks ringed by their dice's bodies are looked at before anything is grown: grown,
    # they reach the dice's outlines.)
    bodies = _bodies(mask, diff, level, contours, shapes) if level > FAINTEST else None
    if bodies is not None:
        mask = bodies
        contours, labels, pixels, shapes = _label(mask, diff, level, min_area)
    typical = learn(list(shapes.values()))
    if typical is not None and typical < MIN_DIE ** 2:
        # Blobs too small to be dice that can be read are pips: their dice, close to the
        # tray in colour (black dice on a dark cloth), are found by growing around them.
        mask = grow(mask, diff, level, 4)
        contours, labels, pixels, shapes = _label(mask, diff, level, min_area)
        typical = learn(list(shapes.values()))
    if level > FAINTEST:
        fuller = _complete(mask, diff, labels, pixels, typical)
        if fuller is not None:
            mask = fuller
            contours, labels, pixels, shapes = _label(mask, diff, level, min_area)
            typical = learn(list(shapes.values()))
        if typical is None or typical < MIN_DIE ** 2:
            # Still nothing the size of a die that can be read: the pips that stand out
            # alone are looked at for the dice round them.
            bodies = _pip_bodies(marks, diff, level)
            if bodies is not None:
                mask = bodies
                contours, labels, pixels, shapes = _label(mask, diff, level, min_area)
                typical = learn(list(shapes.values()))
    if typical is None:
        return none
    side = float(np.sqrt(typical))
    kept: list[_Kept] = []
    little: list[_Kept] = []
    for i, (area, solidity, aspect, _, inside, (x, y, bw, bh)) in shapes.items():
        if area < FAR * typical or area > 16 * typical:
            continue
        if max(bw, bh) > 6 * side and area < 2.5 * typical:
            continue  # long and thin: a cable or an edge, not dice
        if area < 0.35 * typical:
            if inside and solidity >= 0.75:
                little.append(((x, y, bw, bh), 1, i + 1, float(np.sqrt(area))))
            continue
        count = max(1, int(round(area / typical)))
        if count == 1 and (solidity < 0.75 or aspect < 0.45):
            count = 2
        kept.append(((x, y, bw, bh), count, i + 1, side))
    kept += _far(kept, little)
    kept.sort(key=lambda r: (r[0][1], r[0][0]))
    lut = np.zeros(len(contours) + 1, np.uint8)
    boxes, counts, sides, total = [], [], [], 0
    for box, count, label, die in kept:
        if total + count > MAX_DICE:
            break
        total += count
        boxes.append(box)
        counts.append(count)
        sides.append(die / scale)
        lut[label] = len(boxes)
    # (OpenCV's look-up, where the labels fit a byte, costs a third of NumPy's.)
    body = (cv2.LUT(labels.astype(np.uint8), np.pad(lut, (0, 256 - len(lut)))) if len(lut) <= 256
            else lut[labels])
    return Blobs(body, boxes, counts, scale, side / scale, sides)


SIDES = np.array([(0.0, -1.0), (-1.0, 0.0), (0.0, 1.0), (1.0, 0.0)])
"""The four sides of a picture, up, left, down and right, as unit vectors (x right, y down)."""

CLEAR = 0.03
"""Of a die's side, per lone die: the least lead of one side over the next that lone dice
must give for :func:`pointed_side` to name it."""


def box_centres(labels: Image, boxes: Sequence[Sequence[int]], which: Sequence[int]) -> NDArray[np.float64]:
    """The centre (x, y) of each label in ``which`` of ``labels`` (row k: ``which[k]``'s), in
    its pixels, from its box ``boxes[label - 1]`` (``x, y, w, h``), which holds all of them
    (as the blobs' boxes hold them, in the work copy and in a view). The few labels asked
    about, each in its box: every pixel's label counted, for the centres of the few lone
    dice, cost a view of 32 dice some 10 ms. (Integer sums over the count: the numbers
    every pixel gives.)"""
    out = np.zeros((len(which), 2))
    for row, label in enumerate(which):
        x, y, w, h = boxes[label - 1]
        ys, xs = np.nonzero(labels[y:y + h, x:x + w] == label)
        count = max(len(xs), 1)
        out[row] = (int(xs.sum()) + x * len(xs)) / count, (int(ys.sum()) + y * len(ys)) / count
    return out


def pointed_side(offsets: list[NDArray[np.float64]], side: float, clear: float = CLEAR) -> int | None:
    """The side of the picture (an index of :data:`SIDES`) that lone dice's top faces lie
    towards, off their blobs' centres (``offsets``, pixels, dice ``side`` pixels a side),
    or None if they do not say it clearly (no lone die, or two sides nearer alike than
    ``clear`` of a die per lone die).

    A lone die's blob is its top face and the faces it shows towards the camera, so its
    top face lies off the blob's centre, away from the camera: the far side of the table
    (:mod:`vision.dice.direction`)."""
    if not offsets:
        return None
    pull = SIDES @ (np.sum(offsets, 0) / side)
    first, second = np.sort(pull)[::-1][:2]
    return None if first - second < clear * len(offsets) else int(np.argmax(pull))


def pip_side(frame: Image, blobs: Blobs) -> float | None:
    """The side of a die (frame pixels) as the pips on ``blobs`` tell it, or None if they
    show fewer than three round marks of either kind (dark or light).

    A die's side is about eight times the square root of its pips' area (6-12 on the
    rendered sets, whatever the die's size: a fixed share of its face), measured on the
    round marks of the blobs' kind that shows most of them, taken at half of each blob's
    strongest mark. A cluster of dice taken for one die has pips too small for it: they
    tell the die size where the blobs' areas cannot.
    """
    size = (blobs.labels.shape[1], blobs.labels.shape[0])
    small = frame if (frame.shape[1], frame.shape[0]) == size else shrink(frame, size)
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
    best: tuple[int, float] = (0, 0.0)
    for dark in (True, False):
        marks = mark_mask(mark_response(gray, blobs.side * blobs.scale, dark=dark), blobs.labels,
                          blobs.boxes, _PIP_SHARE)
        _, _, stats, _ = cv2.connectedComponentsWithStats(marks, connectivity=8)
        w, h, area = stats[1:, cv2.CC_STAT_WIDTH], stats[1:, cv2.CC_STAT_HEIGHT], stats[1:, cv2.CC_STAT_AREA]
        round_ = (area >= 4) & _round(w, h, area)
        if round_.sum() > best[0]:
            best = (int(round_.sum()), float(np.median(np.sqrt(area[round_]))))
    return _PIPS_A_SIDE * best[1] / blobs.scale if best[0] >= 3 else None


def split_blob(mask: Image, k: int, side: float) -> list[Image]:
    """Split a blob of ``k`` touching dice into ``k`` masks (same shape as ``mask``): each
    die takes the pixels nearest to it, starting from the peaks of the distance transform
    (the middles of the dice) and refined by a few k-means steps."""
    if k < 2:
        return [mask]
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    peaks: list[tuple[int, int]] = []
    for _ in range(k):
        _, value, _, (px, py) = cv2.minMaxLoc(dist)
        if value <= 0:
            break
        peaks.append((px, py))
        cv2.circle(dist, (px, py), int(0.6 * side), 0, -1)
    if len(peaks) < 2:
        return [mask]
    ys, xs = np.nonzero(mask)
    points = np.stack([xs, ys], 1).astype(np.float32)
    centres = np.array(peaks, np.float32)
    for _ in range(4):
        labels = np.argmin(((points[:, None, :] - centres[None]) ** 2).sum(2), 1)
        counts = np.bincount(labels, minlength=len(centres))
        sums = np.stack([np.bincount(labels, points[:, 0], len(centres)),
                         np.bincount(labels, points[:, 1], len(centres))], 1)
        centres = np.where(counts[:, None] > 0, sums / np.maximum(counts, 1)[:, None], centres)
    parts = []
    for i in range(len(centres)):
        part = np.zeros_like(mask)
        part[ys[labels == i], xs[labels == i]] = 255
        parts.append(part)
    return parts


def find_dice(frame: Image, tray: Tray | None = None, *,
              min_side: float = 8.0) -> list[DieRegion]:
    """One region per die (touching dice split apart), at most ``MAX_DICE``."""
    blobs = find_blobs(frame, tray, min_side=min_side)
    size = (frame.shape[1], frame.shape[0])
    out = []
    for k in range(len(blobs)):
        blob = blobs.region(k, size)
        if blob.count == 1:
            out.append(blob)
            continue
        for part in split_blob(blob.mask, blob.count, blob.side):
            px, py, pw, ph = cv2.boundingRect(part)
            area = cv2.countNonZero(part)
            if area < 0.35 * blob.side ** 2 or min(pw, ph) < 0.4 * blob.side:
                continue
            margin = int(0.15 * blob.side)
            x0, y0 = max(0, px - margin), max(0, py - margin)
            x1 = min(part.shape[1], px + pw + margin)
            y1 = min(part.shape[0], py + ph + margin)
            out.append(DieRegion(blob.x + x0, blob.y + y0, part[y0:y1, x0:x1], blob.side))
    return out
