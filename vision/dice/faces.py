"""Custom die faces taught from examples: a folder with one subfolder per face.

    faces/
      hammer/   photo1.jpg photo2.jpg …   (photos of dice showing a hammer)
      snake/    …
      tree/     …

Each photo may show several dice, all showing that face, from above and in any turn; a
small image (at most ``CROP_MAX`` pixels) in which no die stands out from a tray is taken
as one face already cut out. :func:`teach` cuts dice out of photos into such a folder.

A face is its symbol: the marks on the die found as for pips (:mod:`vision.dice.marks`,
so the same symbol reads the same in black on a yellow die and in white on a red one),
joined into one shape when they lie close together. A shape is cut out around its centre,
as wide as its own spread (so neither the die's distance nor an error in its estimated
size matters), and compared with every taught example of every face in 24 turns, by
normalised correlation: any rotation of the die reads the same. It is cut out twice:
stretched until its ink spreads evenly, which tells how squashed it is, and only scaled,
which keeps its strokes, and scores it. On each die the shape
that matches best is its top face; the side faces show their symbols foreshortened, and
match worse. Faces are ranked by their scores weighed by how little their examples must
be squashed to match (a top face is seen nearly square on). The confidence grows with the
best score and with its margin over the best other face; close calls are ``unknown``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.errors import CompanionError
from vision.dice.find import View, find_blobs, find_dice, holding
from vision.dice.marks import KERNEL, PLAIN, mark_lean, mark_masks, mark_reach, mark_response
from vision.dice.pips import FaceRead

__all__ = ["CROP_MAX", "FACE_SIDE", "FaceFolderError", "TaughtFaces", "face_shapes", "teach"]

log = logging.getLogger(__name__)

FACE_SIDE = 56.0  # dice are read scaled down to about this many pixels a side
CROP_MAX = 160  # an image this small with no die found in it is one face, cut out
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
_T = 24  # a shape's cut-out, pixels a side
_SPAN = 2.4  # ... covering this many of the shape's spreads either side of its centre
_TURNS = 24
_TIE = 0.05  # correlations this close are a tie
_CHANCE = 0.4  # a correlation any shape may reach with some face (see read_view)
# A cut-out pixel is a fifth of its shape's spread: a shape that spreads fewer pixels than
# this is enlarged in it, too few pixels to be told from a smudge (a symbol on a die 30 px
# a side, the smallest read, spreads 5 px or more).
_MIN_SPREAD = 4.0
# Marks grown by this share of a die's side (whole pixels) and then touching are one
# symbol: 2 pixels on a die read 56 px a side, 1 on one under 50 (as at 640×480), so gaps
# up to about 0.06 of a die are bridged. Rounded up to 2 there (from 0.04), a tenth of the
# die was: a crisp die's edge, a line of marks two or three pixels from a tree's branches
# or a snake's ends, joined the symbol and spoilt its cut-out.
_JOIN = 0.03
# Marks are a die's pixels standing out by half its strongest mark (a hammer's head); a
# stroke a pixel or two wide, blurred or under glare, peaks lower and breaks up (a hammer's
# handle, a tree's branches). So marks reach one pixel further into pixels that stand out
# by this share: a gap of a pixel or two bridged, a stroke's flanks kept, no more (reaching
# further, along all faint ink, joins the seams between touching dice to their symbols).
_FAINT = 0.4
# On a die under this many pixels a side a symbol's strokes are under a pixel wide: any
# speck pattern (a patterned cloth's weave, found as dice 9-13 px a side) matches some
# face as well as a symbol would, so nothing is named there (the smallest die read is 30 px).
_MIN_SIDE = 20.0
# A symbol on a top face spreads under a fifth of its die's side (root mean square, 0.14-0.19
# on the rendered Runecast dice); a shape spreading more than this share is strokes of two
# faces run together.
_ONE_SYMBOL = 0.25
_DISC = ((np.mgrid[0:_T, 0:_T] - (_T - 1) / 2) ** 2).sum(0) <= (_T / 2) ** 2
_MIDDLE = np.full(2, (_T - 1) / 2)  # a cut-out's middle pixel, x and y
# Each cut-out pixel's x and y from the middle (2 × _T²).
_GRID = (np.mgrid[0:_T, 0:_T][::-1] - (_T - 1) / 2).reshape(2, -1)


class FaceFolderError(CompanionError, ValueError):
    """A face folder that cannot teach anything: missing, empty, or no face readable."""


@dataclass(frozen=True)
class _Shape:
    """A symbol (or what may be one) on a die: where, how large, and its cut-out."""

    blob: int
    dark: bool  # dark marks (on a light die), or light ones
    centre: tuple[float, float]
    spread: float  # root mean square distance of its ink from its centre, pixels
    mass: float  # its ink standing out by half its die's strongest mark, summed (_shapes)
    patch: np.ndarray  # _T × _T, zero mean and unit norm over the disc
    cut: np.ndarray  # 2×2: the cut-out's pixel steps in the image (see _cut)
    look: np.ndarray  # _T × _T, the shape cut out unstretched, less its outline (see _looks)


def _normalise(rows: NDArray[np.floating[Any]]) -> NDArray[np.floating[Any]]:
    rows = rows * _DISC.ravel()
    n = _DISC.sum()
    return _unit(rows - (rows.sum(1, keepdims=True) / n) * _DISC.ravel())


def _unit(rows: NDArray[np.floating[Any]]) -> NDArray[np.floating[Any]]:
    """Rows scaled to length 1, so their products are correlations."""
    unit: NDArray[np.floating[Any]] = rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)
    return unit


def _apart(rows: NDArray[np.floating[Any]], common: NDArray[np.floating[Any]]
           ) -> NDArray[np.floating[Any]]:
    """Unit rows less their share of the unit vector ``common``: what all taught faces
    share. A cut-out spans its shape's own spread, so every shape is ink in the middle
    fading towards the rim, a smudge of noise as much as a symbol: that part alone made a
    smudge correlate with every face at about 0.7 (a hammer, the most compact, best), and
    so read as a sure hammer. What is left correlates only as the symbols are alike."""
    return _unit(rows - np.outer(rows @ common, common))


def _cut_steps(cov: NDArray[np.float64]) -> NDArray[np.float64]:
    """The image steps of one cut-out pixel for ink of covariance ``cov`` (n×2×2, one per
    shape): its square root (so the same symbol seen squashed on a tilted face, or from
    further away, gives the same cut-out, only turned), sized so that the cut-out spans
    ``_SPAN`` spreads."""
    vals, vecs = np.linalg.eigh(cov)
    vals = np.sqrt(np.maximum(vals, 0.05 * vals.max(-1, keepdims=True)))
    root = (vecs * vals[:, None, :]) @ vecs.transpose(0, 2, 1)
    steps: NDArray[np.float64] = (2 * _SPAN / _T) * np.sqrt(2) * root
    return steps


def _looks(cuts: NDArray[np.floating[Any]], steps: NDArray[np.float64]
           ) -> NDArray[np.floating[Any]]:
    """Unstretched cut-outs (rows) less their share of their own outline: a blob shaped as
    their ink's covariance (taken from the steps of their stretched cut-outs, ``steps``).
    Cut out stretched, so that its ink spreads evenly, a symbol whose strokes run together
    (a small tree's branches), or that glare washes out in part, comes out skewed all over,
    like none of its examples; cut out unstretched it keeps its strokes. But then the blob
    its ink makes is part of every cut-out, a smudge's as much as a symbol's: what is left
    without it correlates only as the strokes are alike."""
    cov = steps @ steps
    # In cut-out pixels the ink spreads _T / (2 _SPAN): its covariance's trace is its square.
    cov = cov / np.trace(cov, axis1=1, axis2=2)[:, None, None] * (_T / (2 * _SPAN)) ** 2
    inside = np.einsum("ip,nij,jp->np", _GRID, np.linalg.inv(cov), _GRID)
    outline = _normalise(np.exp(-0.5 * inside))
    rows = _normalise(cuts)
    return _unit(rows - (rows * outline).sum(1, keepdims=True) * outline)


def _blur(a: np.ndarray) -> float:
    """How much ink is smoothed (a Gaussian's sigma, pixels; 0: not at all) for cut-out
    pixels of steps ``a`` in the image, so that strokes finer than them are not lost
    between them (nor alias)."""
    step = float(np.sqrt(abs(a[0, 0] * a[1, 1] - a[0, 1] * a[1, 0])))
    return 0.4 * step if step > 1.5 else 0.0


def _blurred(ink: np.ndarray, a: np.ndarray) -> np.ndarray:
    """The ink smoothed for cut-out pixels of steps ``a`` (:func:`_blur`)."""
    sigma = _blur(a)
    return cv2.GaussianBlur(ink, (0, 0), sigma) if sigma else ink


def _cut(ink: np.ndarray, centre: tuple[float, float], a: np.ndarray) -> np.ndarray:
    """The ink around ``centre`` as a ``_T``-pixel square, one pixel of it ``a`` in the
    image (the ink smoothed for such pixels: _blurred)."""
    # (Filled in place: a hundred cut-outs a frame, and NumPy's stacking costs more than
    # the numbers.)
    m = np.empty((2, 3), np.float32)
    m[:, :2] = a
    m[:, 2] = np.array(centre) - a @ _MIDDLE
    return cv2.warpAffine(ink, m, (_T, _T), flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_CONSTANT, borderValue=0)


def _shapes(view: View, *, both_when_unsure: bool = False) -> list[_Shape]:
    """The shapes on the dice of a view, each die's of the kind of marks it has; with
    ``both_when_unsure``, both kinds on dice whose grey levels do not tell it plainly (the
    reader then keeps the kind that looks more like a taught face)."""
    gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY) if view.image.ndim == 3 else view.image
    side = view.side
    whole = (gray.shape[1], gray.shape[0])
    ox, oy, x_end, y_end = _holding(view.boxes, side, whole)
    gray, body = gray[oy:y_end, ox:x_end], view.body[oy:y_end, ox:x_end]
    boxes = [(x - ox, y - oy, bw, bh) for x, y, bw, bh in view.boxes]
    h, w = gray.shape
    # Each die's marks are the colour its face has least of: dark marks on a light die.
    lean = mark_lean(gray, body, side, len(boxes) + 1)
    dark_die = lean >= 0
    # A yellow die at a slant shows a shaded side face about as large as its top face: its
    # median grey lies halfway between the ink and the top face, and does not tell.
    unsure = both_when_unsure & (np.abs(lean) < PLAIN)
    grow = max(1, round(_JOIN * side))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow + 1, 2 * grow + 1))
    out: list[_Shape] = []
    for dark in (True, False):
        mine = np.zeros(256, np.uint8)
        mine[:len(lean)] = (dark_die == dark) | unsure
        if not mine[1:].any():
            # No die has this kind of marks (dice of one colour, as a set mostly is): its
            # marks are not looked for (label 0, the tray, has none: see mark_masks).
            continue
        response = mark_response(gray, side, dark=dark)
        core, faint = mark_masks(response, body, boxes, (0.5, _FAINT))
        # (A byte look-up: a tenth of NumPy's indexing.)
        marks = mark_reach(core, faint) * cv2.LUT(body, mine)
        # Strokes close together are one symbol (a hammer's head and handle).
        n, joined = cv2.connectedComponents(cv2.dilate(marks, kernel), connectivity=8)
        points = cv2.findNonZero(marks)
        points = np.zeros((0, 2), np.int32) if points is None else points.reshape(-1, 2)
        xs, ys = points[:, 0], points[:, 1]
        # (Pixels looked up by their index in the flattened part, and labels made NumPy's
        # own index type: by 32-bit rows and columns, or labels, NumPy takes a path three
        # times slower, for the tens of thousands of pixels a frame's marks have.)
        flat = ys.astype(np.intp) * w + xs
        wt = np.take(response, flat).astype(float)
        lab = np.take(joined, flat).astype(np.intp)
        cx, cy, cxx, cyy, cxy = _moments(lab, n, xs, ys, wt)
        # A shape spreading over one symbol (_ONE_SYMBOL) on a blob of touching dice is a
        # top face's strokes run into what lies a pixel or two off them, a neighbour's side
        # face or the dark seam between two dice (a tree's branch beside it), and matches
        # no face: such a shape is joined again across narrower gaps, so that the symbol is
        # read apart. (On a lone die there is no seam, nor on a blob filling the frame, the
        # whole tray: frames of noise, found as one die or two 400-740 px a side, had their
        # blotches split into pieces read as faces.)
        touching = [c > 1 and (bw, bh) != whole
                    for c, (_, _, bw, bh) in zip(view.counts, boxes)]
        at_blob = body[np.clip(np.round(cy), 0, h - 1).astype(int),
                       np.clip(np.round(cx), 0, w - 1).astype(int)]
        over = (cxx + cyy > (_ONE_SYMBOL * side) ** 2) & np.array([False, *touching])[at_blob]
        over[0] = False
        unsplit = n  # (the shapes as joined, before any is split again)
        if over.any():
            moved = np.flatnonzero(over[lab])
            at = (xs[moved], ys[moved])
            n = _split(marks, joined, n, over, grow, at)
            lab[moved] = np.take(joined, flat[moved])
            # (The shapes split have no ink left: too little to be kept, below.)
            cx, cy, cxx, cyy, cxy = (np.concatenate([old, new[len(old):]]) for old, new in zip(
                (cx, cy, cxx, cyy, cxy), _moments(lab[moved], n, *at, wt[moved])))
        # Its ink as weighed against other shapes' (a side face's symbol, foreshortened,
        # has less than the top face's) is only its marks, not what they reach into: a
        # side face's thin strokes gain more, in share, from their flanks than a top face's.
        solid = np.bincount(lab, wt * np.take(core, flat), n)
        count = np.bincount(lab, minlength=n)
        spread = np.sqrt(np.maximum(cxx + cyy, 0.0))
        ok = ((count >= 0.01 * side * side) & (spread >= max(0.05 * side, _MIN_SPREAD))
              & (spread <= 0.45 * side))
        ok[0] = False
        ids = np.nonzero(ok)[0]
        at_x = np.clip(np.round(cx[ids]), 0, w - 1).astype(int)
        at_y = np.clip(np.round(cy[ids]), 0, h - 1).astype(int)
        blobs = body[at_y, at_x]
        ids, at_x, at_y, blobs = ids[blobs > 0], at_x[blobs > 0], at_y[blobs > 0], blobs[blobs > 0]
        all_steps = _cut_steps(np.stack([np.stack([cxx[ids], cxy[ids]], -1),
                                         np.stack([cxy[ids], cyy[ids]], -1)], -2))
        grown = _grown_boxes(xs, ys, lab, unsplit, grow, (w, h))
        cuts, plain = [], []
        for k, px, py, steps in zip(ids, at_x, at_y, all_steps):
            # The shape's own ink only (faint strokes near its marks included), not its
            # neighbours' (the die's edge, a side face).
            r = int(np.ceil(1.5 * _SPAN * spread[k] * 2)) + 2
            x0, y0, x1, y1 = max(0, px - r), max(0, py - r), min(w, px + r + 1), min(h, py + r + 1)
            # Only the box of its own pixels holds its ink, and the smoothing spreads it no
            # further than its kernel's reach (4 sigmas, OpenCV's): the rest of the square
            # is zeros, smoothed and cut out for nothing (the square is 7 spreads either
            # side, for a long stroke's sake; a shape's box is a twelfth of it, median).
            left, top, bw, bh = _own_box(joined, k, grown, (x0, y0, x1, y1))
            m = int(np.ceil(4 * _blur(steps))) + 2
            u0, v0 = max(0, left - m), max(0, top - m)
            u1, v1 = min(x1 - x0, left + bw + m), min(y1 - y0, top + bh + m)
            x0, y0, x1, y1 = x0 + u0, y0 + v0, x0 + u1, y0 + v1
            own = (response[y0:y1, x0:x1] * (joined[y0:y1, x0:x1] == k)).astype(np.float32)
            # Smoothed once for both cut-outs: the stretched one's pixels are the smaller
            # (their area, the ink's spread along both axes multiplied, is at most the
            # plain one's, its spread squared).
            own = _blurred(own, steps)
            mid = (float(cx[k]) - x0, float(cy[k]) - y0)
            cuts.append(_cut(own, mid, steps).ravel())
            plain.append(_cut(own, mid, (2 * _SPAN * spread[k] / _T) * np.eye(2)).ravel())
        patches = _normalise(np.array(cuts).reshape(len(cuts), _T * _T))
        looks = _looks(np.array(plain).reshape(len(plain), _T * _T), all_steps)
        out.extend(_Shape(int(blob), dark, (float(cx[k]) + ox, float(cy[k]) + oy), float(spread[k]),
                          float(solid[k]), patch, steps, look)
                   for k, blob, patch, steps, look in zip(ids, blobs, patches, all_steps, looks))
    return out


def _grown_boxes(xs: np.ndarray, ys: np.ndarray, lab: np.ndarray, n: int, grow: int,
                 size: tuple[int, int]) -> np.ndarray:
    """The bounding box (x0, y0, x1, y1, inclusive) of each of the first ``n`` shapes as
    joined: their marks' (pixels ``xs``, ``ys`` labelled ``lab``) grown by ``grow`` pixels
    each way, within the image of ``size`` (the joining kernel, an ellipse, reaches that
    far along its middle row and column, and no further). Labels past ``n`` (shapes split
    again) are not boxed. (All at once: each shape's pixels looked for in its square, 7
    spreads either way, cost some 3% of reading taught faces.)"""
    # (Of the marks' own type: NumPy's ``at`` takes a slow path, 30 times slower, otherwise.)
    low, high = np.full((2, n), max(size), xs.dtype), np.full((2, n), -1, xs.dtype)
    mine = lab < n
    for axis, values in enumerate((xs[mine], ys[mine])):
        np.minimum.at(low[axis], lab[mine], values)
        np.maximum.at(high[axis], lab[mine], values)
    (x0, y0), (x1, y1) = np.maximum(low - grow, 0), np.minimum(high + grow, np.array(size)[:, None] - 1)
    out: np.ndarray = np.stack([x0, y0, x1, y1], 1)
    return out


def _own_box(joined: np.ndarray, k: int, grown: np.ndarray,
             square: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
    """The box ``x, y, w, h`` of shape ``k``'s pixels in ``joined`` within the ``square``
    (``x0, y0, x1, y1``), relative to it: its whole box (:func:`_grown_boxes`) when that
    lies inside the square, else (a shape split again, or reaching past the square) its
    pixels there looked for."""
    x0, y0, x1, y1 = square
    if k < len(grown):
        bx0, by0, bx1, by1 = grown[k].tolist()
        if bx0 >= x0 and by0 >= y0 and bx1 < x1 and by1 < y1:
            return bx0 - x0, by0 - y0, bx1 - bx0 + 1, by1 - by0 + 1
    left, top, w, h = cv2.boundingRect((joined[y0:y1, x0:x1] == k).view(np.uint8))
    return left, top, w, h


def _holding(boxes: list[tuple[int, int, int, int]], side: float,
             size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The part of a view (of ``size``) that holds the blobs of ``boxes``, dice ``side``
    pixels a side, with a margin as wide as the marks' kernel reaches
    (:data:`~vision.dice.marks.KERNEL`), so that their response on the blobs is as in the
    whole view."""
    return holding(boxes, int(np.ceil(KERNEL * side / 2)) + 1, size)


def _moments(lab: np.ndarray, n: int, xs: np.ndarray, ys: np.ndarray, wt: np.ndarray
             ) -> tuple[np.ndarray, ...]:
    """Each of ``n`` shapes' ink (points ``xs``, ``ys`` of weights ``wt``, labelled ``lab``):
    its centre's x and y, and its covariance's xx, yy and xy."""
    safe = np.maximum(np.bincount(lab, wt, n), 1e-6)
    cx = np.bincount(lab, wt * xs, n) / safe
    cy = np.bincount(lab, wt * ys, n) / safe
    dx, dy = xs - cx[lab], ys - cy[lab]
    return (cx, cy, np.bincount(lab, wt * dx * dx, n) / safe,
            np.bincount(lab, wt * dy * dy, n) / safe, np.bincount(lab, wt * dx * dy, n) / safe)


def _split(marks: np.ndarray, joined: np.ndarray, n: int, over: np.ndarray, grow: int,
           at: tuple[np.ndarray, np.ndarray]) -> int:
    """The shapes ``joined`` (``n`` labels, changed in place) with those marked ``over``
    joined again across gaps a pixel narrower than ``grow``; ``at`` is their marks' x and y.
    Returns the number of labels after. (Only the box around those shapes is looked at: a
    whole frame's labels looked up cost more than the rest of the split.)"""
    (x0, y0), (x1, y1) = np.min(at, 1) - grow, np.max(at, 1) + grow + 1
    x0, y0 = max(int(x0), 0), max(int(y0), 0)
    box = joined[y0:y1, x0:x1]
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow - 1, 2 * grow - 1))
    m, pieces = cv2.connectedComponents(cv2.dilate(marks[y0:y1, x0:x1], kernel), connectivity=8)
    # Joined across narrower gaps, each piece lies within one shape: its label is its own.
    split = over[box]
    box[split] = np.where(pieces[split] > 0, n + pieces[split], 0)
    return n + m


def _front_face(centre: tuple[float, float], others: list[tuple[float, float]],
                view: View) -> bool:
    """Whether a shape is the face of its die towards the camera. A camera looks at the
    table from its near side, so that face shows below the top face, and is seen squashed
    about as much as the top face at a steep slant: what tells it is the die below it,
    which ends within a little over half a die (a top face has its front face below it as
    well, or the die in front of it; a blurred die's blob reaches a little past its edge)."""
    x, y = centre
    above = any(0.3 * view.side <= y - oy <= 0.8 * view.side and abs(x - ox) < y - oy
                for ox, oy in others)
    if not above:
        return False
    column = view.body[int(y):int(y + 0.55 * view.side) + 1, int(x)]
    return bool((column == 0).any())


def _turned(patch: np.ndarray, m: np.ndarray) -> np.ndarray:
    """A cut-out turned by the 2×3 map ``m``, as a row."""
    turned: np.ndarray = cv2.warpAffine(patch.reshape(_T, _T).astype(np.float32), m, (_T, _T),
                                        flags=cv2.INTER_LINEAR).ravel()
    return turned


def _whole_image_view(image: np.ndarray) -> View:
    """A view of an image that is all one die (a face already cut out)."""
    h, w = image.shape[:2]
    return View(image, np.ones((h, w), np.uint8), [(0, 0, w, h)], [1], float(min(h, w)), 1.0)


def face_shapes(image: np.ndarray) -> list[_Shape]:
    """The top face of each die in a teaching photo: on each die, its largest shape (as
    many as the blob holds dice, apart from each other)."""
    blobs = find_blobs(image)
    if len(blobs):
        view = blobs.view(image, FACE_SIDE)
    elif max(image.shape[:2]) <= CROP_MAX:
        view = _whole_image_view(image)  # a face already cut out, with no tray around
    else:
        return []
    kept: list[_Shape] = []
    for shape in sorted(_shapes(view), key=lambda s: -s.mass):
        same = [k for k in kept if k.blob == shape.blob]
        # (A side face's symbol, foreshortened, has less ink than the top face's.)
        if len(same) < view.counts[shape.blob - 1] and all(
                shape.mass > 0.6 * k.mass
                and np.hypot(shape.centre[0] - k.centre[0], shape.centre[1] - k.centre[1])
                > 0.8 * view.side for k in same):
            kept.append(shape)
    return kept


class TaughtFaces:
    """A face reader for custom dice, from example shapes per face name."""

    read_side = FACE_SIDE

    def __init__(self, examples: dict[str, list[_Shape]], *, threshold: float = 0.5) -> None:
        empty = [name for name, shapes in examples.items() if not shapes]
        if empty or not examples:
            raise FaceFolderError(f"no example of face {empty[0]!r}" if empty else "no faces given")
        self.names = tuple(examples)
        self.threshold = threshold
        rows, looks, labels, back = [], [], [], []
        mid = (_T - 1) / 2
        for i, shapes in enumerate(examples.values()):
            for shape in shapes:
                # The example's own cut-out, turned: taught once, read in any turn.
                inverse = np.linalg.inv(shape.cut)
                for turn in range(_TURNS):
                    m = cv2.getRotationMatrix2D((mid, mid), 360 * turn / _TURNS, 1.0)
                    rows.append(_turned(shape.patch, m))
                    looks.append(_turned(shape.look, m))
                    labels.append(i)
                    # A shape matching this row is the example seen through (cut @ back).
                    back.append(m[:, :2] @ inverse)
        templates = _normalise(np.array(rows, np.float32))
        # Every turn of every example, averaged: the profile all faces share (round).
        self._common = _normalise(templates.mean(0, keepdims=True))[0]
        self._templates = _apart(templates, self._common)
        # The same for the looks: less their own outlines, they still share a profile, which
        # left in let a frame of noise score high enough to be named a face.
        taught = _normalise(np.array(looks, np.float32))
        self._look_common = _normalise(taught.mean(0, keepdims=True))[0]
        self._looks = _apart(taught, self._look_common)
        self._back = np.array(back)
        # Each face's templates are one run of rows (taught face after face).
        self._runs = np.searchsorted(labels, np.arange(len(self.names) + 1))

    @classmethod
    def load(cls, folder: str | Path, *, threshold: float = 0.5) -> TaughtFaces:
        """Teach from ``folder/<face>/*.jpg``; a face whose images give no die is an error."""
        folder = Path(folder)
        if not folder.is_dir():
            raise FaceFolderError(f"{folder}: no such face folder")
        examples: dict[str, list[_Shape]] = {}
        for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
            images = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            found: list[_Shape] = []
            for path in images:
                image = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if image is None:
                    log.warning("%s: not an image, skipped", path)
                    continue
                shapes = face_shapes(image)
                if not shapes:
                    log.warning("%s: no die found, skipped", path)
                found.extend(shapes)
            if not images:
                raise FaceFolderError(f"{sub}: no images of face {sub.name!r}")
            if not found:
                raise FaceFolderError(f"{sub}: no die found in any image of face {sub.name!r}")
            examples[sub.name] = found
        if not examples:
            raise FaceFolderError(f"{folder}: no face subfolders (expected one per face, "
                                  "such as hammer/, snake/, tree/)")
        return cls(examples, threshold=threshold)

    def _scores(self, shapes: list[_Shape]) -> tuple[np.ndarray, np.ndarray]:
        """The best correlation of each shape's look with each face (shapes × faces), and
        how squashed the shape is next to each face's example it matches best, stretched
        (1: not at all; a die's top face is barely squashed, its side faces are, much).
        Stretched, a shape seen at a slant is cut out as from above, which tells how much
        it is squashed; unstretched, one whose strokes run together keeps them (_looks)."""
        patches = np.array([shape.patch for shape in shapes]).reshape(len(shapes), _T * _T)
        patches = _apart(patches, self._common)
        stretched = self._templates @ patches.T
        looks = np.array([shape.look for shape in shapes]).reshape(len(shapes), _T * _T)
        looks = _apart(looks, self._look_common)
        scores = np.maximum.reduceat(self._looks @ looks.T, self._runs[:-1], 0).T
        best = np.array([start + np.argmax(stretched[start:end], 0)
                         for start, end in zip(self._runs[:-1], self._runs[1:])]).T
        # The singular values' ratio of each 2×2 map, in closed form: their squares sum to
        # its squared norm and multiply to its squared determinant.
        cuts = np.array([shape.cut for shape in shapes]).reshape(len(shapes), 1, 2, 2)
        maps = cuts @ self._back[best]
        norm = (maps ** 2).sum((2, 3))
        det = np.abs(maps[..., 0, 0] * maps[..., 1, 1] - maps[..., 0, 1] * maps[..., 1, 0])
        root = np.sqrt(np.maximum(norm * norm - 4 * det * det, 0))
        squashes = np.sqrt(np.maximum(norm - root, 0) / np.maximum(norm + root, 1e-18))
        return scores, squashes

    def read_view(self, view: View, *, threshold: float | None = None) -> list[tuple[int, FaceRead]]:
        """Every top face on the dice of a view: (blob, face) pairs in view pixels.

        A die's top face is seen least squashed (next to its example, taught from above);
        its side faces, beside it, much more: of shapes close together the least squashed
        is the top face, and a shape squashed to half is a side face whatever is near it.
        """
        threshold = self.threshold if threshold is None else threshold
        by_blob: dict[int, list[tuple[float, float, float, float, FaceRead]]] = {}
        shapes = _shapes(view, both_when_unsure=True)
        scores, squashes = self._scores(shapes)
        # A match is its example seen through a map. A top face is seen nearly square on,
        # so its own example needs little squashing to match it, while another face's
        # example can often be squashed into a fair match: faces are ranked, and told
        # apart, by their scores weighed by how little squashing their matches need. (How
        # squashed the shape itself is, a side face's much, is told by the examples it
        # matches best.)
        weighed = scores * np.sqrt(squashes)
        # A die whose kind of marks its grey levels did not tell has shapes of both kinds:
        # its kind is the one with the shape most like a taught face.
        kind: dict[int, tuple[float, bool]] = {}
        for shape, most in zip(shapes, weighed.max(1, initial=-1.0)):
            kind[shape.blob] = max(kind.get(shape.blob, (-1.0, shape.dark)),
                                   (float(most), shape.dark))
        rows = np.arange(len(shapes))
        order = np.argsort(-weighed, 1)
        face = order[:, 0]
        best = scores[rows, face]
        # How squashed the shape is: as its best match needs, or, of matches about as good
        # (a tree and a hammer, cut out through their spread, correlate alike), the least.
        squash = np.where(scores >= scores.max(1, initial=-1.0, keepdims=True) - _TIE,
                          squashes, 0.0).max(1, initial=0.0)
        margin = weighed[rows, face] - weighed[rows, order[:, 1]] if len(self.names) > 1 \
            else np.ones(len(shapes))
        # Any shape correlates with some turn of some example at up to about _CHANCE (a
        # smudge of noise, or a symbol with a face not its own): only what lies beyond it is
        # evidence. On dice too small for strokes (_MIN_SIDE) there is none.
        confidence = (np.clip((best - _CHANCE) / 0.3, 0, 1) * np.clip(margin / 0.1, 0, 1)
                      * np.clip((squash - 0.5) / 0.15, 0, 1) * (view.side >= _MIN_SIDE))
        for k, shape in enumerate(shapes):
            if shape.dark != kind[shape.blob][1] or best[k] < 0.3 or squash[k] < 0.5:
                continue  # the die's other kind of marks, like no taught face, or a side face
            name = self.names[face[k]] if confidence[k] >= threshold else "unknown"
            read = FaceRead(name, float(confidence[k]), shape.centre, 1, view.side)
            by_blob.setdefault(shape.blob, []).append((float(squash[k]), float(best[k]),
                                                       shape.mass, shape.spread, read))
        out: list[tuple[int, FaceRead]] = []
        for blob, reads in by_blob.items():
            reads = [r for r in reads if not _front_face(r[4].centre, [k.centre for *_, k in reads],
                                                         view)]
            # Of shapes close together, the least squashed is the top face; another shape
            # nearly a die away is the top face of a die behind it (seen at a slant) only
            # if it reads surely, is as little squashed and has not much less ink (a side
            # face's symbol, foreshortened, has less), else it is a side face.
            kept: list[tuple[float, float, FaceRead]] = []
            for squash, _, mass, spread, read in sorted(reads, key=lambda r: (r[0] < 0.65, -r[1])):
                # A die tilted against the others shows its top face squashed as well
                # (0.66-0.79 where the flat die beside it is 0.82-0.96). Told from a side
                # face: it reads fully sure (so is seen at least 0.65 square on), has the
                # ink of a top face (a side face, foreshortened, has less: under 0.6, as
                # when teaching) and spreads like one symbol, not strokes of two faces run
                # together (a top face's symbol spreads under a fifth of the die).
                tilted = read.confidence >= 1.0 and spread <= _ONE_SYMBOL * view.side
                near = [(q, m, k) for q, m, k in kept if np.hypot(read.centre[0] - k.centre[0],
                                                                  read.centre[1] - k.centre[1])
                        <= 0.8 * view.side]
                if all(np.hypot(read.centre[0] - k.centre[0], read.centre[1] - k.centre[1])
                       > 0.45 * view.side and read.face != "unknown" and k.face != "unknown"
                       and (squash > q - 0.15 or tilted and mass > 0.6 * m) and mass > 0.4 * m
                       for q, m, k in near):
                    kept.append((squash, mass, read))
            # Nor is a face, however far from the others, a shape with well under the ink of
            # the blob's most inked (a speck of a seam between touching dice).
            most = max((m for _, m, _ in kept), default=0.0)
            out.extend((blob, read) for _, m, read in kept if m > 0.4 * most)
        return out

    def __call__(self, crop: np.ndarray, mask: np.ndarray, side: float) -> FaceRead:
        """One die's top face, from its crop (BGR), mask and side in pixels."""
        h, w = mask.shape
        view = View(crop, (mask > 0).view(np.uint8), [(0, 0, w, h)], [1], side, 1.0)
        reads = [read for _, read in self.read_view(view)]
        if not reads:
            return FaceRead("unknown", 0.0, (w / 2, h / 2), 0)
        return max(reads, key=lambda r: r.confidence)


def teach(photos: Iterable[str | Path], face: str, folder: str | Path) -> list[Path]:
    """Cut the dice out of photos of one face into ``folder/face/`` (one die, with some tray
    around it, per file), ready for :meth:`TaughtFaces.load`. Returns the files written."""
    out_dir = Path(folder) / face
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for photo in map(Path, photos):
        image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if image is None:
            log.warning("%s: not an image, skipped", photo)
            continue
        for n, region in enumerate(find_dice(image)):
            # Each die with the tray around it, so that it is found again exactly as in a photo.
            x, y, w, h = region.box
            cx, cy, half = x + w / 2, y + h / 2, 1.1 * max(w, h)
            x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
            x1, y1 = min(image.shape[1], int(cx + half)), min(image.shape[0], int(cy + half))
            path = out_dir / f"{photo.stem}-{n}.png"
            cv2.imwrite(str(path), image[y0:y1, x0:x1])
            written.append(path)
    return written
