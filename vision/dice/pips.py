"""Reading pip dice: find the pips, group them into faces, keep the top faces, count.

Pips are small blobs that contrast with the die around them: a black-hat (or, for light
pips on a dark die, a top-hat) transform keeps details narrower than a die, so uneven
light and shaded side faces do not matter. Both kinds are looked for in every die, so
white and black dice can share a frame. Each blob is described by the ellipse of its
second moments, measured on its core (above 0.6 of its peak) so that blur and glare around
it do not change its shape; a light pip's paint (above 0.75) too, since glare all round a
light pip joins its core.

Pips are grouped into faces: two pips are on one face when the face between them is
plain, with no seam (touching dice: their rounded edges make a dip) and no step (a side
face is lit differently from the top face). When a group holds more pips than one face
explains (dark dice touching show no seam), it is split the way that reads best.

A die seen at an angle shows pips on its side faces too; those are foreshortened, while
the top face's pips stay the roundest and the largest. So each group keeps its round,
large pips, and they must form one of the six patterns of a die
(:mod:`vision.dice.layout`) under a mild affine distortion, with pips spaced as a die's
are for their size; then the nine places of the pattern's grid are checked (marks where
the pattern has pips, plain face where it has none) and the face around must be plain. A
face beside another, in the direction that one is squashed (towards the camera) and more
squashed itself, is that die's side face and is dropped. A set that fits no pattern, or
fits only after dropping pips it cannot explain, gets a low confidence, and below the
threshold the die is reported as unknown.

Everything is measured in pips and in the die's size as estimated in this frame (for a
die farther off than the others, its own: :func:`vision.dice.find.find_blobs`), never in
pixels, so the same reader works on any camera and at any distance.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, NamedTuple, TypeVar

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.dice.find import SIDES, Image, View, box_centres, holding, pointed_side
from vision.dice.layout import GRID, pip_layout
from vision.dice.marks import PLAIN, mark_lean, mark_mask, mark_response

__all__ = ["READ_SIDE", "FaceRead", "Pips", "find_pips", "read_pip_faces"]

READ_SIDE = 46.0  # dice are read scaled down to about this many pixels a side

Floats = NDArray[np.float64]
Ints = NDArray[np.intp]  # indices, labels
Bools = NDArray[np.bool_]

_EYE = np.eye(2)  # (made once: np.eye costs more than the 2×2 sums it goes into)
# The side of the picture a camera looks from, unless a frame's faces say otherwise: its
# bottom (x right, y down), the far side of the table up.
_NEAR: Floats = SIDES[2]  # (down)
_PLAINLY = 0.2  # roundness: a face's pips this much flatter than its neighbour's (_cued_side)
# Roundness: a face's pips this much flatter than its neighbour's are squashed another way,
# so one of the two may be a side face (_side_face). Measured on one pip, a lone pip's
# face, it is rough: such a face must be plainly flatter to say where the camera is.
_SQUASHED = 0.1
# Of a frame's side faces' pull (their steps from their top faces, summed): the most of it
# that may lie towards the picture's bottom for it to point to the left or right side. A
# camera at the bottom sees a die's side faces below it and, turned, down to the left and
# right; a camera at the left or right sees them that way, and up or down a little. Down
# by 17° or less is read as sideways (seed 1057 upright, whose faces lie 25° below the
# right, 0.42, kept at the bottom; turned frames' pulls lie 0-45° off their side).
_SIDEWAYS = 0.3
# Of a die's side, per lone die: how far lone dice that name no side clearly (pulled
# aslant, pointed_side) must lie beyond their blobs' centres, away from the side the pairs
# point to, to agree with them. 0.03 (pointed_side's lead) turned three upright frames of
# 9100-11299 more; 0.05 one (no die lost).
_BEYOND = 0.05
# Pips alike: the eigenvalues of one's second moments relative to the other's within
# e^±0.55, a third either way in radius (_alike_pairs).
_ALIKE = 0.55
# Of a step between pips: how close a third pip must lie to the place one step on for the
# three to be a row (_in_a_row). A 3's middle pip lies within 0.12 of its diagonal of its
# middle when read (_fits): 0.24 of a step.
_ROW = 0.25
# Pips in a row of three: alike within this many times _ALIKE, about half as large or
# flat again either way in radius (_in_a_row). At twice, a front face's flat pip made a
# row with two of a cluster's pips, and a 4 was lost (10302 at 640×480).
_LOOSE = 1.5
# Of a die's side: the step between pips next to each other in a row of three
# (_in_a_row), 0.18-0.45. A 3's are √2 grid steps apart, about 0.31 of a die (a grid step
# is 0.22 of it, _step_ok), less at a slant. Touching dice's 1s lie a die apart, and a
# 1's pip is 0.7 of a die or more from a neighbour's pip; a front face's column of pips,
# seen nearly edge on, lies 0.15 of a die apart (a 2 read as a 3 on no die, 10345).
_ROW_STEP = (0.18, 0.45)
# Dark pips in a row of three (_in_a_row): the faintest at least half as strong as the
# strongest (pips of one face elsewhere: 0.6). A 3's corner pip shaded on a dark-pipped
# die measured 0.52-0.6 of its other pips (9146, 9338, 10676 at 640×480).
_ROW_STRONG = 0.5


@dataclass(frozen=True)
class FaceRead:
    """What a reader made of one die's top face (coordinates in the image it was given)."""

    face: str
    confidence: float
    centre: tuple[float, float]
    marks: int = 0  # how many face marks (pips, symbol strokes) were seen at all
    side: float = 0.0  # the top face's side as measured from its marks (0: not measured)


@dataclass(frozen=True)
class Pips:
    """Pip-like blobs of one kind (dark or light) in an image, as parallel arrays:
    centres, semi-axes ``a`` ≥ ``b``, second moments (the shape), peak contrast, and the
    blob of the body mask each lies in."""

    xy: Floats
    a: Floats
    b: Floats
    cov: Floats  # n×2×2
    paint: Floats  # n×2×2: the second moments of a light pip's paint (above 0.75 of its
    # peak; a dark pip's core): glare all round a pip widens its core, not its paint
    contrast: Floats
    fill: Floats  # its core's area over its ellipse's: 0.97 or so for a disc, less for strokes
    outline: Floats  # farthest pixel, in its ellipse's own units: 1 or so for a disc
    blob: Ints
    side: Floats  # the expected side of each pip's die, pixels (dice far off are smaller)
    inside: Bools  # bool image: pixels of the pips (with their blurred rims)
    response: Image  # the black-hat/top-hat image they were found in
    dark: bool
    roundness: Floats = field(init=False)  # b over a: 1 for a disc seen square on

    def __post_init__(self) -> None:
        object.__setattr__(self, "roundness", self.b / np.maximum(self.a, 1e-6))

    def __len__(self) -> int:
        return len(self.a)

    @cached_property
    def listed(self) -> tuple[list[float], list[float]]:
        """The short semi-axes and roundnesses as lists, made once: proposals are sorted by
        them, and groups sifted, one pip at a time, many times a frame."""
        return self.b.tolist(), self.roundness.tolist()

    @cached_property
    def trials(self) -> dict[tuple[int, ...], list[list[int]]]:
        """Each proposed set of pips as tried (:func:`_trials`), kept as made: as faces are
        taken out of a cluster of dice, the same pips propose the same sets again."""
        return {}

    @cached_property
    def unexplained(self) -> dict[frozenset[int], tuple[Floats, set[int], set[int]]]:
        """Each face's pips left unexplained (:func:`_unexplained`), kept with its grid and
        the pips asked about: as faces are taken out of a cluster of dice, the faces of the
        pips left are asked about again, and about fewer pips."""
        return {}

    @cached_property
    def alike(self) -> Bools:
        """Which pips have one another's size and shape (n×n bool), worked out once: the
        faces of a cluster of dice are read by asking it again and again. (See
        :func:`_alike_pips`.) Only pips of one blob are compared, as only they are asked
        about (a face's pips are all on one blob); pips of two blobs are marked unlike."""
        i, j = np.nonzero(self.blob[:, None] == self.blob[None])
        out = np.zeros((len(self), len(self)), bool)
        out[i, j] = _alike_pips(self, i, j)
        return out


def _unit(x: Floats) -> Floats:
    """``x`` clipped to 0-1 (as np.clip, for a third of its cost on the small arrays read
    here, hundreds of times a frame)."""
    out: Floats = np.minimum(np.maximum(x, 0.0), 1.0)
    return out


def _mean(x: NDArray[Any], axis: int) -> Floats:
    """The mean of ``x`` along ``axis``, as ``x.mean(axis)`` (the same sum, divided by the
    same count) without its overhead, which outweighs the few values averaged here."""
    out: Floats = x.sum(axis) / x.shape[axis]
    return out


def _dist2(p: Floats, q: Floats) -> Floats:
    """Squared distances between points ``p`` and ``q`` (…×2, broadcast against each other),
    coordinate by coordinate: as summing the squared differences over the last axis, without
    the array of pairs that costs more than the sums."""
    dx, dy = p[..., 0] - q[..., 0], p[..., 1] - q[..., 1]
    out: Floats = dx * dx + dy * dy
    return out


def _clamp(i: Ints, top: int) -> Ints:
    """Integer coordinates ``i`` kept within 0-``top`` (as np.clip, for less on small arrays)."""
    out: Ints = np.minimum(np.maximum(i, 0), top)
    return out


def _mid(values: Floats) -> float:
    """The median of a few values (NumPy's costs more than the values are worth)."""
    ordered = sorted(np.ravel(values).tolist())
    return float(ordered[len(ordered) // 2])


def _mids(values: Floats) -> Floats:
    """The median of each row of a few values."""
    return np.sort(values, 1)[:, values.shape[1] // 2]


_Entries = TypeVar("_Entries", Floats, float)


def _eig2(xx: _Entries, xy: _Entries, yy: _Entries) -> tuple[_Entries, _Entries]:
    """The eigenvalues (low, high) of symmetric 2×2 matrices [[xx, xy], [xy, yy]] given by
    their entries (arrays of one shape, or numbers), in closed form: a frame has hundreds
    of marks and faces, matrices too small for ``linalg`` to be worth its cost. (A mark's
    second moments give its ellipse's squared semi-axes over 4.)"""
    mean, half = (xx + yy) / 2, (((xx - yy) / 2) ** 2 + xy * xy) ** 0.5
    return mean - half, mean + half


def _inv_sqrt2(m: Floats) -> Floats:
    """The inverse square roots of symmetric positive 2×2 matrices (…×2×2), in closed
    form: sqrt(M) = (M + sqrt(det) I) / sqrt(trace + 2 sqrt(det))."""
    det = np.maximum(m[..., 0, 0] * m[..., 1, 1] - m[..., 0, 1] ** 2, 1e-12)
    root_det = np.sqrt(det)
    t = np.sqrt(m[..., 0, 0] + m[..., 1, 1] + 2 * root_det)
    r = (m + root_det[..., None, None] * _EYE) / t[..., None, None]  # sqrt(M)
    r_det = (r[..., 0, 0] * r[..., 1, 1] - r[..., 0, 1] ** 2)[..., None, None]
    inv: Floats = np.empty_like(r)
    inv[..., 0, 0], inv[..., 1, 1] = r[..., 1, 1], r[..., 0, 0]
    inv[..., 0, 1] = inv[..., 1, 0] = -r[..., 0, 1]
    out: Floats = inv / r_det
    return out


def _alike_pairs(cov_a: Floats, cov_b: Floats, within: float = _ALIKE) -> Bools:
    """Whether ellipses (second moments, …×2×2) are alike in pairs: the same size and
    squash within about a third either way (in radius): the eigenvalues λ of B relative to
    A, the roots of det(B - λA) = 0, all between e^-within and e^within. (Pips are a few
    pixels across where dice are read, so their shapes are measured roughly: a pip near
    the face's edge, a little blurred or shaded, measures flatter than its neighbour.)"""
    a11, a12, a22 = cov_a[..., 0, 0], cov_a[..., 0, 1], cov_a[..., 1, 1]
    b11, b12, b22 = cov_b[..., 0, 0], cov_b[..., 0, 1], cov_b[..., 1, 1]
    det_a = np.maximum(a11 * a22 - a12 * a12, 1e-12)
    half = (a11 * b22 + a22 * b11 - 2 * a12 * b12) / (2 * det_a)
    root = np.sqrt(np.maximum(half * half - (b11 * b22 - b12 * b12) / det_a, 0))
    alike: Bools = (half - root > np.exp(-within)) & (half + root < np.exp(within))
    return alike


def _alike_pips(pips: Pips, i: Ints, j: Ints, within: float = _ALIKE) -> Bools:
    """Whether pips ``i`` and ``j`` (index arrays that broadcast) are alike
    (:func:`_alike_pairs`) by their cores or by their paint. Glare lying all round a light
    pip joins its core on every side: the core measures larger, not flatter or off centre
    (so :func:`_glare` keeps it), and the pip is unlike its face's others (a red 3 read as
    a 1); its paint is not."""
    out: Bools = _alike_pairs(pips.cov[i], pips.cov[j], within)
    if not pips.dark:
        out |= _alike_pairs(pips.paint[i], pips.paint[j], within)
    return out


def _in_a_row(pips: Pips, i: Ints, j: Ints, strong: float) -> Bools:
    """Whether pips ``i`` and ``j`` (pairs of a blob, close, ``strong`` as each other, a
    3's step apart (_ROW_STEP), one of them alike to no pip), not plainly of one face, are
    next to each other in a row of three on a face: a third pip of their blob, as strong,
    goes on from one of them one more step the same way, one pair of the three is alike
    (:func:`_alike_pips`), and all three are alike within _LOOSE times as much.

    A 3's three pips are measured each on its own few pixels: one blurred more, shaded,
    or with glare all round it (light pips), measures a third larger or flatter than the
    two others, and the three were never grouped (the two alike are not joined either:
    the middle pip lies between them), the 3 read as a 1 or a 2. A row of three evenly
    spaced is a 3's diagonal, or a 4's, a 5's or a 6's pips, whose other pips then join
    too. The odd pip must be alike to no pip: a pip of a cluster's face is not pulled into
    another face by a row. The face between them is still followed for a seam
    (:func:`_same_face`)."""
    xy, c = pips.xy, pips.contrast
    out = np.zeros(len(i), bool)
    for a, b in ((i, j), (j, i)):
        # The pip one more step on, beyond b (within _ROW of a step of the place).
        beyond = 2 * xy[b] - xy[a]
        step = np.hypot(*(xy[b] - xy[a]).T)
        off = np.hypot(beyond[:, None, 0] - xy[None, :, 0], beyond[:, None, 1] - xy[None, :, 1])
        pa, k = np.nonzero((off <= _ROW * step[:, None]) & (pips.blob[None] == pips.blob[b][:, None]))
        if not pa.size:
            continue
        a3, b3 = a[pa], b[pa]
        low = np.minimum(np.minimum(c[a3], c[b3]), c[k])
        high = np.maximum(np.maximum(c[a3], c[b3]), c[k])
        loose = ((low >= strong * high) & _alike_pips(pips, a3, k, _LOOSE * _ALIKE)
                 & _alike_pips(pips, b3, k, _LOOSE * _ALIKE) & _alike_pips(pips, a3, b3, _LOOSE * _ALIKE))
        one = _alike_pips(pips, a3, k) | _alike_pips(pips, b3, k) | _alike_pips(pips, a3, b3)
        np.logical_or.at(out, pa, loose & one)
    return out


_Moments = tuple[Floats, Floats, Floats, Floats, Floats, Floats]  # area, cx, cy, mu20, mu02, mu11


def _moments(xs: Floats, ys: Floats, lab: Ints, n: int) -> _Moments:
    """Each of ``n`` labelled blobs' area, centre and second moments (``lab``: each
    pixel's label; label 0 is the background; a label with no pixels has area 1)."""
    area = np.maximum(np.bincount(lab, minlength=n), 1).astype(float)
    cx = np.bincount(lab, xs, n) / area
    cy = np.bincount(lab, ys, n) / area
    dx, dy = xs - cx[lab], ys - cy[lab]
    mu20 = np.bincount(lab, dx * dx, n) / area + 1 / 12  # (+ a pixel's own spread)
    mu02 = np.bincount(lab, dy * dy, n) / area + 1 / 12
    mu11 = np.bincount(lab, dx * dy, n) / area
    return area, cx, cy, mu20, mu02, mu11


_ALONG = np.array([-0.5, -0.25, 0.0, 0.25, 0.5])  # where a long mark is sampled, in long axes
_PAINT = 0.75  # of its peak: a light pip's paint, brighter than glare beside it (_glare, find_pips)


def _cut_at_dip(response: Image, area: Floats, cx: Floats, cy: Floats, mu20: Floats,
                mu02: Floats, mu11: Floats, xs: Floats, ys: Floats, lab: Ints,
                light: Floats | None = None) -> tuple[Ints, Ints] | None:
    """Long marks (twice as long as wide, or more, and solid: two discs fill most of their
    ellipse, a word's letters do not) whose response dips between their ends, below 0.85
    of the fainter end, and whose ends are about as strong (two pips of one face), cut in
    two there: new labels for the pixels, and each label's parent (itself, or for a mark's
    far half the mark it was cut from); None if no mark is cut. A pip seen edge on is long
    too, but strongest along its middle.

    Light marks (``light``: each pixel's response) are cut midway between their halves'
    paint (above :data:`_PAINT` of each half's peak) instead: glare joined to one of two
    light pips, too faint to be paint, moves the mark's centre and where its response
    dips, and a cut there left a pixel or two of glare on one half, larger and flatter
    than the face's other pips (a green 6 read `unknown`). (Glare on a dark pip makes it
    fainter, never larger.)"""
    n = len(cx)
    low, high = _eig2(mu20, mu11, mu02)
    fill = area / (4 * np.pi * np.sqrt(np.maximum(high * low, 1e-12)))
    long = np.nonzero((low[1:] < 0.25 * high[1:]) & (fill[1:] >= 0.75))[0] + 1
    if not long.size:
        return None
    angle = 0.5 * np.arctan2(2 * mu11[long], mu20[long] - mu02[long])
    ux, uy = np.cos(angle), np.sin(angle)
    reach = 2 * np.sqrt(high[long])[:, None] * _ALONG  # marks × samples, pixels along the axis
    h, w = response.shape
    px = np.minimum(np.maximum(np.rint(cx[long, None] + ux[:, None] * reach), 0), w - 1).astype(int)
    py = np.minimum(np.maximum(np.rint(cy[long, None] + uy[:, None] * reach), 0), h - 1).astype(int)
    values = response[py, px].astype(float)
    inner = values[:, 1:-1].argmin(1) + 1
    rows = np.arange(len(long))
    ends = np.minimum(values[:, 0], values[:, -1])
    dip = ((values[rows, inner] < 0.85 * ends)
           & (ends >= 0.75 * np.maximum(values[:, 0], values[:, -1])))
    if not dip.any():
        return None
    marks = long[dip]
    split = np.zeros(n, bool)
    split[marks] = True
    at = np.zeros(n)  # where along the axis each cut mark is cut, and the axis
    at[marks] = reach[dip, inner[dip]]
    axis_x, axis_y = np.zeros(n), np.zeros(n)
    axis_x[marks], axis_y[marks] = ux[dip], uy[dip]
    new = np.zeros(n, int)
    new[marks] = n + np.arange(len(marks))
    along = (xs - cx[lab]) * axis_x[lab] + (ys - cy[lab]) * axis_y[lab]  # pixels along the axis
    beyond = split[lab] & (along > at[lab])
    if light is not None:
        # Each half's paint as that cut parts them; the cut moves to midway between the
        # two paints' places along the axis (where a half has none, it stays).
        on = np.flatnonzero(split[lab])
        half = np.where(beyond[on], new[lab[on]], lab[on])
        peak = np.zeros(n + len(marks))
        np.maximum.at(peak, half, light[on])
        paint = light[on] >= _PAINT * peak[half]
        count = np.bincount(half[paint], minlength=len(peak))
        mean = np.bincount(half[paint], along[on][paint], len(peak)) / np.maximum(count, 1)
        both = (count[marks] > 0) & (count[new[marks]] > 0)
        at[marks[both]] = (mean[marks[both]] + mean[new[marks[both]]]) / 2
        beyond = split[lab] & (along > at[lab])
    out: Ints = np.where(beyond, new[lab], lab)
    return out, np.concatenate([np.arange(n), marks])


def _cut_joined(response: Image, xs: Floats, ys: Floats, lab: Ints, n: int,
                light: Floats | None = None) -> tuple[Ints, int, _Moments]:
    """The marks' labels (``lab``, of ``n``), their count and :func:`_moments`, with two
    pips run together (blurred, or a 6's close columns joined by glare) cut apart: one long
    mark whose response dips between them (:func:`_cut_at_dip`; ``light``: light marks'
    pixels' response). A cut is kept only if it gives two pips: each round, and of about
    one size (a letter's strokes are not)."""
    moments = _moments(xs, ys, lab, n)
    cut = _cut_at_dip(response, *moments, xs, ys, lab, light)
    if cut is None:
        return lab, n, moments
    parts, parent = cut
    count = len(parent)
    cut_moments = _moments(xs, ys, parts, count)
    area, _, _, mu20, mu02, mu11 = cut_moments
    low, high = _eig2(mu20, mu11, mu02)
    round_ = low >= 0.36 * high  # (short axis at least 0.6 of the long one)
    halves = np.nonzero(parent != np.arange(count))[0]
    ratio = area[halves] / area[parent[halves]]
    bad = halves[~(round_[halves] & round_[parent[halves]] & (ratio >= 0.5) & (ratio <= 2.0))]
    if not bad.size:
        return parts, count, cut_moments
    if bad.size == halves.size:
        return lab, n, moments
    undo = np.zeros(count, bool)
    undo[bad] = True
    kept: Ints = np.where(undo[parts], parent[parts], parts)
    return kept, count, _moments(xs, ys, kept, count)


def _glare(moments: _Moments, xs: Floats, ys: Floats, lab: Ints, r: Floats,
           side: float) -> Bools | None:
    """Which pixels of light marks (``lab``, measured as ``moments``, their response
    ``r``) are a glare spot beside a pip, not the pip (None: none are). Glare on a coloured
    die, 0.6-0.75 as strong as a white pip beside it, joins the pip's core (above 0.6 of its
    peak) on one side: the pip measures larger and flatter than its face's others and is
    left out of its face (a 3 read as a 1, a 4 unknown). Its paint, above 0.75 of the
    peak, is then a rounder mark than the core, and off the core's centre by a quarter of
    its own long semi-axis or more; a blurred rim all round a pip moves no centre. Only
    marks whose paint covers a hundredth of a die's area are looked at: a pixel more or
    less moves the centre of a few pixels' paint as far. (Glare makes a dark pip fainter,
    never larger.)"""
    area, cx, cy, mu20, mu02, mu11 = moments
    low, top = _eig2(mu20, mu11, mu02)
    roundness = np.sqrt(np.maximum(low, 0.0) / np.maximum(top, 1e-6))
    # (Only marks that can pass are measured again: most are round, or too small or too
    # large for a pip, as the face showing between a white die's pips.)
    maybe = (roundness < 0.9) & (area >= 0.01 * side * side) & (area <= 0.1 * side * side)
    if not maybe.any():
        return None
    at = np.flatnonzero(maybe[lab])
    mark, response = lab[at], r[at]
    peak = np.zeros(len(area))
    np.maximum.at(peak, mark, response)
    high = response >= _PAINT * peak[mark]
    paint = at[high]
    p_area, p_cx, p_cy, p20, p02, p11 = _moments(xs[paint], ys[paint], mark[high], len(area))
    p_low, p_top = _eig2(p20, p11, p02)
    rounder = np.sqrt(np.maximum(p_low, 0.0) / np.maximum(p_top, 1e-6)) > roundness + 0.1
    off = np.hypot(cx - p_cx, cy - p_cy) > 0.25 * 2 * np.sqrt(np.maximum(p_top, 1e-6))
    beside = maybe & rounder & off & (p_area >= 0.01 * side * side)
    if not beside.any():
        return None
    out = np.zeros(len(lab), bool)
    out[at[beside[mark] & ~high]] = True
    return out


def _part(boxes: list[tuple[int, int, int, int]], margin: int,
          size: tuple[int, int]) -> tuple[int, int, int, int]:
    """The part of a view (of ``size``) that holds the blobs of ``boxes`` and ``margin``
    pixels around them (see :func:`~vision.dice.find.holding`), starting on an even row
    and column: OpenCV labels components a block of 2×2 pixels at a time, in the order
    met, and so numbers them as in the whole view."""
    x0, y0, x1, y1 = holding(boxes, margin, size)
    return x0 & ~1, y0 & ~1, x1, y1


def find_pips(gray: Image, body: Image, boxes: list[tuple[int, int, int, int]],
              side: float, *, dark: bool, sides: Floats | None = None) -> Pips:
    """Pip-like blobs on the dice of ``body`` (a label image: 0 tray, k for the blob in
    ``boxes[k - 1]``), dark on light or light on dark, for dice about ``side`` pixels a side
    (``sides``: each blob's, by label, where they differ)."""
    response = mark_response(gray, side, dark=dark)
    h, w = gray.shape
    # The marks' pixels are labelled and measured in the part of the view holding the
    # blobs (with the pips' rims' reach: the pips' pixels are grown there), view pixels
    # where they are placed: the marks are only on the blobs.
    rim = max(1, int(round(0.04 * side)))
    x0, y0, x1, y1 = _part(boxes, rim, (w, h))
    part = np.ascontiguousarray(response[y0:y1, x0:x1])
    binary = mark_mask(part, body[y0:y1, x0:x1], [(x - x0, y - y0, bw, bh) for x, y, bw, bh in boxes])
    n, labels = cv2.connectedComponents(binary, connectivity=8)
    points = cv2.findNonZero(binary)
    points = np.zeros((0, 2), np.int32) if points is None else points.reshape(-1, 2)
    # (Pixels are looked up by their index in the flattened part: cheaper than by row
    # and column, for the many thousands a frame has. Their labels are made NumPy's own
    # index type: indexing by OpenCV's 32-bit labels takes a path three times slower.)
    flat = points[:, 1].astype(np.intp) * binary.shape[1] + points[:, 0]
    old = np.take(labels, flat).astype(np.intp)
    # A mark larger than a die holds no pip (as light marks, a white die's face between its
    # pips): left out before its pixels are measured, which would cost more than all the pips.
    large = np.bincount(old) > side * side
    if large.any():
        small = ~large[old]
        xs, ys, old, flat = points[small, 0], points[small, 1], old[small], flat[small]
    else:
        xs, ys = points[:, 0], points[:, 1]
    xs, ys = xs + x0, ys + y0  # (view pixels)
    lab = old
    r = np.take(part, flat).astype(float)
    peak = np.zeros(n)
    np.maximum.at(peak, lab, r)
    # Each blob is measured on its core (above 0.6 of its peak): a blurred pip's rim or a
    # glare spot around it would make it larger and less round than it is, and two pips
    # joined by glare between them come apart.
    core = r >= 0.6 * peak[lab]
    ys, xs, old_core, flat_core = ys[core], xs[core], old[core], flat[core]
    cores = np.zeros(binary.shape, np.uint8)
    np.put(cores, flat_core, 1)
    n, labels = cv2.connectedComponents(cores, connectivity=8)
    lab = np.take(labels, flat_core).astype(np.intp)
    r = r[core]
    xs_f, ys_f = xs.astype(float), ys.astype(float)
    lab, n, moments = _cut_joined(response, xs_f, ys_f, lab, n, None if dark else r)
    if not dark:
        glare = _glare(moments, xs_f, ys_f, lab, r, side)
        if glare is not None:
            paint = ~glare
            xs_f, ys_f, lab, r, old_core = xs_f[paint], ys_f[paint], lab[paint], r[paint], old_core[paint]
            moments = _moments(xs_f, ys_f, lab, n)
    area, cx, cy, mu20, mu02, mu11 = moments
    # Semi-axes of the ellipse with the same second moments (a disc of radius r: r and r).
    low, high = _eig2(mu20, mu11, mu02)
    a, b = 2 * np.sqrt(np.maximum(high, 1e-6)), 2 * np.sqrt(np.maximum(low, 1e-6))
    fill = area / (np.pi * a * b)
    at = body[_clamp(np.round(cy).astype(int), h - 1), _clamp(np.round(cx).astype(int), w - 1)]
    die = np.full(n, side) if sides is None else sides[at]
    keep = ((area >= np.maximum(3.0, 0.004 * die * die)) & (area <= 0.1 * die * die)
            & (fill >= 0.55) & (a <= 0.25 * die))
    keep[0] = False
    ids = np.nonzero(keep)[0]
    # How far its farthest pixel is, measured in its ellipse (whose edge is 1): 1 for a
    # disc or an ellipse however flat, 1.22 for a square or a rectangle however flat (its
    # corners: a sticker's dark chip, a key), more for a letter. (It and the peak, only for
    # the marks kept: most pixels are of specks and of marks too large.)
    det = np.maximum(mu20 * mu02 - mu11 * mu11, 1e-12)
    mine = keep[lab]
    kept, px, py, pr = lab[mine], xs_f[mine], ys_f[mine], r[mine]
    dx, dy = px - cx[kept], py - cy[kept]
    far, peak = np.zeros(n), np.zeros(n)
    np.maximum.at(far, kept, (dx * dx * mu02[kept] - 2 * dx * dy * mu11[kept] + dy * dy * mu20[kept]) / det[kept])
    np.maximum.at(peak, kept, pr)
    outline = np.sqrt(far) / 2
    # A light pip's paint (above 0.75 of its peak) too: glare all round it widens its core.
    painted = (mu20, mu02, mu11)
    if not dark:
        bright = pr >= _PAINT * peak[kept]
        painted = _moments(px[bright], py[bright], kept[bright], n)[3:]
    # The pips' pixels, and their blurred rims below the threshold.
    inside = np.zeros(binary.shape, np.uint8)
    blob_kept = np.zeros(int(old.max(initial=0)) + 1, bool)
    blob_kept[old_core[mine]] = True
    on = blob_kept[old]
    np.put(inside, flat[on], 1)
    grown = np.zeros((h, w), np.uint8)
    grown[y0:y1, x0:x1] = cv2.dilate(inside, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * rim + 1,) * 2))
    return Pips(np.stack([cx[ids], cy[ids]], 1), a[ids], b[ids], _covs(mu20, mu02, mu11, ids),
                _covs(*painted, ids), peak[ids], fill[ids], outline[ids], at[ids].astype(np.intp),
                die[ids], grown.view(bool), response, dark)


def _covs(mu20: Floats, mu02: Floats, mu11: Floats, ids: Ints) -> Floats:
    """The second moments of the marks ``ids`` as 2×2 matrices (n×2×2)."""
    return np.stack([np.stack([mu20[ids], mu11[ids]], 1), np.stack([mu11[ids], mu02[ids]], 1)], 1)


class _Seams(NamedTuple):
    """How deep a dip lies between the pips of each pair looked at, as a share of the
    face's level (n×n, NaN where not looked at): outside the pips' rims (``depth``), and,
    for light pips joined, right beside them too (``beside``; NaN for dark pips)."""

    depth: Floats
    beside: Floats


def _same_face(pips: Pips, gray: Image, reach: Floats, rim: float,
               use: Bools | None = None) -> tuple[Ints, _Seams]:
    """Pairs (i, j) of pips on one face (of those in ``use``): in one blob, close (within the
    ``reach`` of each pip's die), alike (one size, squashed the same way) and about as
    strong (a side face's are fainter and flatter), with no seam between them; and the
    dips between the pips of each pair looked at (:class:`_Seams`).

    The face is followed along the line between the two pips (outside their own rims, of
    ``rim`` pixels): the seam between touching dice dips below the face on either side,
    if only a little (their rounded edges), and so does any mark on the way (a third pip:
    the pips of a face are joined pip to next pip). Glare, brighter, is no seam.

    A light pip's blurred rim is brighter than its face, never darker, so a dip right
    beside it, in the rim's margin, is no part of the pip: a seam close to a pip (a 2's pip
    near its die's edge, touching another die) lies there. It is measured too, with the
    pips taken for face (up to its level), but only to choose between faces as sure as each
    other (:func:`_better`): glare's slope down towards a light pip dips the same way.
    """
    # Pairs in one blob (a frame's few hundred pips make many pairs, but few in one blob).
    same = np.triu(pips.blob[:, None] == pips.blob[None], 1)
    if use is not None:
        same &= use[:, None]
    i, j = np.nonzero(same)
    c = pips.contrast
    d = np.hypot(pips.xy[j, 0] - pips.xy[i, 0], pips.xy[j, 1] - pips.xy[i, 1])
    # Within a face's reach: the die's as estimated, or ten pips', whichever is larger (a
    # die's size is only roughly known, its pips' is measured). About as strong: glare on a
    # dark pip takes a third of its contrast, a side face's more. Light pips are white
    # paint, brighter than any glare on a coloured face, so they are held to a quarter: a
    # glare spot on its own (0.7 as strong as the pips beside it) or a front face's pip,
    # shaded (0.6), made a face with a top face's pip (a green 1 read `unknown`, a 2 across
    # two purple dice touching).
    strong = 0.6 if pips.dark else 0.75
    near = d <= np.maximum(reach[i], 5.0 * (pips.a[i] + pips.a[j]))
    i, j, d = i[near], j[near], d[near]
    share = np.minimum(c[i], c[j]) / np.maximum(np.maximum(c[i], c[j]), 1e-6)
    # The pips of one face are alike: one size, squashed the same way. Or they are a 3's,
    # in a row, one of whose pips measures unlike the others (and a dark one, shaded, may
    # be fainter: :func:`_in_a_row`).
    alike = share >= strong
    alike[alike] = _alike_pips(pips, i[alike], j[alike])
    partners = np.bincount(np.r_[i[alike], j[alike]], minlength=len(pips))
    # A row's odd pip is alike to no pip near it (a pip of a cluster's face joins another
    # face only as that face's own pips do), and a 3's step from its neighbour.
    in_row = _ROW_STRONG if pips.dark else strong
    row = (~alike & (share >= in_row) & ((partners[i] == 0) | (partners[j] == 0))
           & (d >= _ROW_STEP[0] * pips.side[i]) & (d <= _ROW_STEP[1] * pips.side[i]))
    alike[row] = _in_a_row(pips, i[row], j[row], in_row)
    i, j, d = i[alike], j[alike], d[alike]
    seams = _Seams(np.full((len(pips), len(pips)), np.nan), np.full((len(pips), len(pips)), np.nan))
    if i.size == 0:
        return np.zeros((0, 2), int), seams
    contrast = np.minimum(c[i], c[j])
    t = np.linspace(0.0, 1.0, max(8, int(d.max()) + 1))
    dist = d[:, None]
    pts = pips.xy[i, None] + (pips.xy[j] - pips.xy[i])[:, None] * t[None, :, None]
    px = _clamp(np.round(pts[..., 0]).astype(int), gray.shape[1] - 1)
    py = _clamp(np.round(pts[..., 1]).astype(int), gray.shape[0] - 1)
    from_i, from_j = t[None, :] * dist, (1 - t[None, :]) * dist
    ai, aj = pips.a[i][:, None], pips.a[j][:, None]
    # Outside the two pips and their blurred rims (as far as the rims go).
    free = ((from_i > ai + rim) & (from_j > aj + rim)
            & ~(pips.inside[py, px] & ((from_i <= 2 * ai + rim) | (from_j <= 2 * aj + rim))))
    raw = gray[py, px].astype(float)
    enough = free.sum(1) >= 2
    # The face's level on each pip's half of the way (its upper quartile: a seam close to
    # one pip is no part of it), and the darkest point between: a seam dips below both
    # sides (glare between the pips, brighter, does not).
    near, far = free & (t[None, :] < 0.5), free & (t[None, :] >= 0.5)
    n_near, n_far = near.sum(1), far.sum(1)
    rows = np.arange(len(i))
    level_i = -np.sort(np.where(near, -raw, np.inf), 1)[rows, n_near // 4]
    level_j = -np.sort(np.where(far, -raw, np.inf), 1)[rows, n_far // 4]
    level_i = np.where(n_near > 0, level_i, level_j)
    level_j = np.where(n_far > 0, level_j, level_i)
    lowest = np.where(enough, np.where(free, raw, np.inf).min(1), 0.0)
    level = np.minimum(level_i, level_j)

    def dip(walls: Floats | float, k: Ints | slice = slice(None)) -> Floats:
        """How deep the face dips between the pips of the pairs ``k``, grey levels, with
        the pixels left out (the pips and their rims) counted as ``walls``. A dip has the
        face higher on both sides of it: the slope down into a blurred pip's dark rim,
        beyond the rim as measured, is none."""
        seen = np.where(free[k], raw[k], walls)
        rise = np.minimum(np.maximum.accumulate(seen, 1), np.maximum.accumulate(seen[:, ::-1], 1)[:, ::-1])
        valley = np.where(free[k], rise - raw[k], 0.0).max(1)
        out: Floats = np.where(enough[k], np.minimum(level[k] - lowest[k], valley), 0.0)
        return out

    outside = dip(-np.inf)
    ok = ~enough | (outside <= np.maximum(8.0, 0.1 * contrast))
    # (A few grey levels are noise, whatever the light.)
    scale = np.maximum(level, 20.0)
    seams.depth[i, j] = seams.depth[j, i] = np.maximum(outside - 4.0, 0.0) / scale
    if not pips.dark:
        # (Only for the pairs joined: a pair not joined has its dip counted already. Only
        # a face lower somewhere than both its levels, and by more than the dip outside the
        # rims, can dip deeper with the pips counted.)
        seams.beside[i[ok], j[ok]] = seams.beside[j[ok], i[ok]] = seams.depth[i[ok], j[ok]]
        k = np.flatnonzero(ok & enough & (level - lowest > np.maximum(outside, 4.0)))
        beside = dip(np.minimum(raw[k], level[k, None]), k)
        seams.beside[i[k], j[k]] = seams.beside[j[k], i[k]] = np.maximum(beside - 4.0, 0.0) / scale[k]
    return np.stack([i[ok], j[ok]], 1), seams


def _groups(n: int, pairs: Ints) -> list[list[int]]:
    """The connected groups of ``n`` items joined by ``pairs``."""
    parent = list(range(n))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for i, j in pairs.tolist():
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[ri] = rj
    out: dict[int, list[int]] = {}
    for k in range(n):
        out.setdefault(root(k), []).append(k)
    return list(out.values())


def _whiten(x: Floats) -> Floats:
    """Centred points mapped so that their spread is the same in every direction."""
    return x @ _inv_sqrt2(x.T @ x / max(len(x) - 1, 1) + 1e-9 * np.eye(2))


_CANON = {v: pip_layout(v) for v in range(1, 7)}
_CANON_W = {v: _whiten(_CANON[v] - _CANON[v].mean(0)) for v in range(4, 7)}
_NORMAL_INV = {v: np.linalg.inv(np.c_[_CANON[v], np.ones(v)].T @ np.c_[_CANON[v], np.ones(v)])
               for v in range(4, 7)}


def _turn_places(w: Floats) -> Ints:
    """The places of a whitened pattern that a fit must try to lay each point on: a
    pattern that a quarter or half turn maps onto itself (four, five, six) gives the same
    turns from places that the turn swaps, so one of them is enough."""
    def turned(t: float) -> Floats:
        c, s = np.cos(t), np.sin(t)
        out: Floats = w @ np.array([[c, s], [-s, c]])
        return out

    symmetric = [t for t in (np.pi / 2, np.pi, 1.5 * np.pi)
                 if np.abs(turned(t)[:, None] - w[None]).sum(2).min(1).max() < 1e-6]
    keep: list[int] = []
    for j in range(len(w)):
        if not any(np.abs(turned(t)[k] - w[j]).sum() < 1e-6 for k in keep for t in symmetric):
            keep.append(j)
    return np.array(keep)


_TURN_PLACES = {v: _turn_places(_CANON_W[v]) for v in range(4, 7)}
_CANON_ANGLE = {v: np.arctan2(_CANON_W[v][_TURN_PLACES[v], 1], _CANON_W[v][_TURN_PLACES[v], 0])
                for v in range(4, 7)}
# Which of the nine grid places each pattern has a pip in, by its count of pips (row 0 unused).
_OCCUPIED = np.array([[False] * 9] + [np.isin(np.arange(9), [int(y + 1) * 3 + int(x + 1) for x, y in _CANON[v]])
                                      for v in range(1, 7)])


@dataclass(frozen=True)
class _Fit:
    quality: float  # 1 perfect, 0 not at all
    affine: Floats  # 2×3: face grid units (pips one apart) to image pixels


def _step_ok(step: Floats, radius: Floats, side: Floats) -> Floats:
    """Whether grid steps (pixels) suit pips of ``radius`` on dice of about ``side``.

    On dice the pips are 1.6 to 5.5 radii apart (a quarter of the face, pips a tenth to a
    fifth of it); two pips of dice side by side, read as one face, are further apart. A
    face's grid is never larger than the die (whose size is only roughly known), nor under
    half of a die's: a top face's step is about 0.22 of a die as found (a quarter of a face
    some 0.85 of it), less on a face seen at a slant (the webcam photos lose dice from
    0.12 on), where two pips next to each other on a face, read as a 2, make a face a third
    to half its size: a 3's or a 6's pips (the rest of the face read unknown), a front
    face's.
    """
    ratio = step / np.maximum(radius, 1e-6)
    size = step / side
    return _unit(np.minimum(np.minimum((ratio - 1.4) / 0.3, (5.8 - ratio) / 0.5),
                            np.minimum((0.4 - size) / 0.05, (size - 0.09) / 0.02)))


def _squash(cov: Floats) -> Floats:
    """Faces' foreshortening (…×2×2, determinant 1) from their pips' mean shapes
    (…×pips×2×2): a round pip seen at a slant is an ellipse, squashed as its face is."""
    inv = _inv_sqrt2(_mean(cov, -3))
    det = np.maximum(inv[..., 0, 0] * inv[..., 1, 1] - inv[..., 0, 1] ** 2, 1e-12)
    root = np.empty_like(inv)  # the square root: the inverse's adjugate over its determinant
    root[..., 0, 0], root[..., 1, 1] = inv[..., 1, 1], inv[..., 0, 0]
    root[..., 0, 1], root[..., 1, 0] = -inv[..., 0, 1], -inv[..., 1, 0]
    return root / np.sqrt(det)[..., None, None]


def _fits(points: Floats, side: Floats, radius: Floats,
          cov: Floats) -> tuple[Floats, Floats]:
    """How well sets of ``n`` points (m×n×2: pips of ``radius`` and second moments ``cov``,
    m×n×2×2, on dice of ``side``) form the pattern of ``n``, and the grids they sit on
    (m×2×3: grid units, pips one apart, to pixels). All sets at once: most dice are read
    in one go. (The pips' shapes tell how a face of one to three pips is squashed
    (:func:`_squash`); four or more pips tell it by where they lie.)"""
    m, n = points.shape[:2]
    rows = np.arange(m)
    centre = _mean(points, 1)
    if n == 1:
        squash = _squash(cov)
        # A quarter of the face (a die as found shows some of its side faces too: its face
        # is about side / 1.2, see _face_size), or of a face with pips of that size, which
        # is less for the large pip of many dice's 1: the face around it is checked out to
        # the grid's edge, and must not take in the die's edge.
        g = np.minimum(_lone_step(side), 2.2 * radius)
        return np.ones(m), np.concatenate([g[:, None, None] * squash, centre[:, :, None]], 2)
    if n in (2, 3):
        squash = _squash(cov)
        dist = np.hypot(points[:, :, None, 0] - points[:, None, :, 0],
                        points[:, :, None, 1] - points[:, None, :, 1])
        i, j = np.divmod(np.argmax(dist.reshape(m, -1), 1), n)
        span = dist[rows, i, j]
        # The diagonal of the pip grid: 2·√2 steps.
        quality = _step_ok(span / (2 * np.sqrt(2)), radius, side)
        pi, pj = points[rows, i], points[rows, j]
        if n == 3:
            off = np.sqrt(_dist2(points[rows, 3 - i - j], (pi + pj) / 2)) / np.maximum(span, 1e-6)
            quality = quality * np.exp(-(off / 0.12) ** 2)
        # The other diagonal: the same length, square to this one on the face, as the
        # face is squashed.
        u = (pj - pi) / 2
        # (The squash's determinant is 1: its inverse is its adjugate.)
        w = np.stack([squash[:, 1, 1] * u[:, 0] - squash[:, 0, 1] * u[:, 1],
                      squash[:, 0, 0] * u[:, 1] - squash[:, 1, 0] * u[:, 0]], 1)
        v = (squash @ np.stack([-w[:, 1], w[:, 0]], 1)[:, :, None])[:, :, 0]
        return quality, np.stack([(u + v) / 2, (u - v) / 2, centre], 2)
    # Four to six pips: whitened (an affine map makes any parallelogram a square), the
    # pattern is matched under every turn that lays a pip on a pattern place (on one of
    # the places that a turn of the pattern onto itself swaps).
    canon, cw = _CANON[n], _CANON_W[n]
    x = points - centre[:, None]
    pw = x @ _inv_sqrt2(x.transpose(0, 2, 1) @ x / (n - 1) + 1e-9 * _EYE)
    ang = (np.arctan2(pw[:, :, 1], pw[:, :, 0])[:, :, None] - _CANON_ANGLE[n]).reshape(m, -1)
    c, s = np.cos(ang)[:, :, None], np.sin(ang)[:, :, None]
    rc = np.stack([c * cw[:, 0] - s * cw[:, 1], s * cw[:, 0] + c * cw[:, 1]], 3)  # m×turn×place×2
    cost = _dist2(pw[:, None, :, None], rc[:, :, None])  # m × turn × point × place
    perm = np.argmin(cost, 3)
    distinct = _distinct(perm, n)
    # Each point's cost at its nearest place, taken where argmin found it (NumPy's min
    # along so short an axis costs several times as much).
    nearest = cost.reshape(-1, n)[np.arange(perm.size), perm.ravel()].reshape(perm.shape)
    err = _mean(nearest, 2)
    err[~distinct] = np.inf
    best = np.argmin(err, 1)
    # The least-squares affine map from the pattern's places to the points. Its normal
    # matrix sums over the pattern's places, in whatever order they are matched: one
    # inverse per pattern serves every set.
    design = np.concatenate([canon[perm[rows, best]], np.ones((m, n, 1))], 2)
    affine = (_NORMAL_INV[n] @ (design.transpose(0, 2, 1) @ points)).transpose(0, 2, 1)
    gram = affine[:, :, :2].transpose(0, 2, 1) @ affine[:, :, :2]
    short, long = (np.sqrt(np.maximum(e, 0)) for e in _eig2(gram[:, 0, 0], gram[:, 0, 1], gram[:, 1, 1]))
    shape_ok = _unit((short / np.maximum(long, 1e-9) - 0.45) / 0.15)
    # The step along the face's unforeshortened direction, as the pips' long axis.
    quality = np.exp(-np.minimum(err[rows, best], 50) / 0.05) * shape_ok * _step_ok(long, radius, side)
    return np.where(np.any(distinct, 1), quality, 0.0), affine


def _distinct(perm: Ints, n: int) -> Bools:
    """Whether each row of places (…×n, each 0 to n - 1) lays the points on n different
    places: its bits together make all n (cheaper than sorting the rows)."""
    out: Bools = np.bitwise_or.reduce(1 << perm, -1) == (1 << n) - 1
    return out


def _discs(pips: Pips, idx: Ints) -> Floats:
    """How much sets of marks (m×n) look like pips, 0-1: discs (seen at a slant, ellipses),
    not letters or symbols. A lone pip has no other pip to be like, so its own shape must
    be a top face's: round once the face's foreshortening towards the camera is undone
    (:func:`_upright_roundness`), not a slit, and solid."""
    disc = (_unit((_mids(pips.fill[idx]) - 0.65) / 0.15)
            * _unit((1.2 - _mids(pips.outline[idx])) / 0.12))
    if idx.shape[1] == 1:
        k = idx[:, 0]
        # A die read smaller than READ_SIDE (one far off, read at its own size) has pips a
        # few pixels across, whose cores measure less full than a disc's and their farthest
        # pixel nearer, by about 0.45 and 1.3 over the pip's area in pixels (discs drawn,
        # blurred and measured as here): allowed for beyond what is at READ_SIDE, where the
        # limits below were set, for pips whose radius is a tenth of their die.
        small = np.maximum(1 / pips.side[k] ** 2 - 1 / READ_SIDE ** 2, 0.0) / (0.01 * np.pi)
        # (Its outline an ellipse's: a 1's large pip is a clean disc, where a flat dark
        # rectangle seen along the picture's width would pass for one seen at a slant.
        # And it is solid, as a disc of paint is: its core fills its ellipse (0.97
        # typically, at least 0.94 for every 1 measured) out to the ellipse's edge (the
        # farthest pixel at 0.83 or more for all but one pip in 8,000). A letter's strokes
        # leave gaps, so a key's print, light on a dark key, is no black die's lone pip:
        # it fills 0.75-0.91, or, its pixels at its ends, reaches 0.73.)
        disc = disc * (_unit((_upright_roundness(pips.cov[k]) - 0.5) / 0.2)
                       * _unit((pips.roundness[k] - 0.35) / 0.15) * _unit((1.1 - pips.outline[k]) / 0.04)
                       * _unit((pips.outline[k] + 1.3 * small - 0.75) / 0.05)
                       * _unit((pips.fill[k] + 0.45 * small - 0.9) / 0.04))
    return disc


def _upright_roundness(cov: Floats) -> Floats:
    """The roundness (short over long axis) of ellipses (second moments, …×2×2) once
    stretched along the picture's height as far as makes them roundest, never squeezed.

    A camera looks at the table from its near side, so a top face is foreshortened along
    the picture's height, the more the lower the camera: its lone pip is an ellipse lying
    along the picture's width, however flat. What no such stretch undoes is a tilt of the
    ellipse (the correlation ρ of x and y: the roundest stretch leaves sqrt((1-|ρ|)/(1+|ρ|)))
    or an ellipse standing upright (a left or right face's, squashed across).
    """
    xx, xy, yy = cov[..., 0, 0], cov[..., 0, 1], cov[..., 1, 1]
    rho = np.abs(xy) / np.sqrt(np.maximum(xx * yy, 1e-12))
    low, high = _eig2(xx, xy, yy)
    out: Floats = np.where(xx >= yy, np.sqrt((1 - rho) / (1 + rho)), np.sqrt(np.maximum(low, 0) / high))
    return out


def _seamless(seams: Floats, idx: Ints) -> Floats:
    """How surely sets of pips (m×n) lie on one face as far as seams go, 0-1: each pip
    joined to some other of its set with no dip between them (the rounded edges of dice
    touching make one, however faint, where a face has none). A dip too faint to part
    two pips still counts a little against them (its depth, as a share: 0.07 costs
    7%): two purple dice touching, a 1 above a 2, made two 2s as good as each other, the
    1's pip and the 2's upper pip across the seam, and the 2's own pips."""
    if idx.shape[1] < 2:
        return np.ones(len(idx))
    depth = seams[idx[:, :, None], idx[:, None, :]]  # m×n×n, NaN: not looked at
    depth[:, np.arange(idx.shape[1]), np.arange(idx.shape[1])] = np.nan
    link = np.where(np.isnan(depth), np.inf, depth).min(2)  # each pip's cleanest link
    worst: Floats = np.where(np.isinf(link), 0.0, link).max(1)
    return _unit((0.25 - worst) / 0.15) * (1.0 - worst)


def _grid_checks(pips: Pips, affine: Floats, occupied: Bools, contrast: Floats,
                 idx: Ints) -> Floats:
    """How well the nine places of each fitted grid (of the pips ``idx``, a set's first
    repeated to fill a row) agree with the pattern whose pips take the places ``occupied``
    (m×9, 0-1): where the pattern has no pip the face is plain; a mark there is another
    face's."""
    places = affine[:, None, :, :2] @ GRID[None, :, :, None]
    places = places[..., 0] + affine[:, None, :, 2]
    h, w = pips.response.shape
    px, py = np.round(places[..., 0]).astype(int), np.round(places[..., 1]).astype(int)
    on = (px >= 0) & (px < w) & (py >= 0) & (py < h) & ~occupied
    px, py = _clamp(px, w - 1), _clamp(py, h - 1)
    share = np.where(on, pips.response[py, px], 0) / np.maximum(contrast, 1.0)[:, None]
    # A dark mark half as strong as the pips is a pip under glare, or another face's. A
    # light one is glare on a dark die unless it is a pip like the face's own and about as
    # strong (it counts from 0.55 of the pips' strength, wholly at 0.8: a glare spot
    # between a blue 6's columns, pip-like, reaches 0.57), or stronger than the pips
    # (glare is fainter than white paint).
    if pips.dark:
        return _unit((0.5 - share.max(1)) / 0.25)
    check = _unit((1.0 - share) / 0.25)
    # Only a mark over half as strong as the pips can be one: only there are the pips
    # looked for (all pips against all places costs as much as the rest of the check).
    m, k = np.nonzero(share > 0.5)
    if m.size:
        d = np.linalg.norm(places[m, k][:, None] - pips.xy[None], axis=2)  # marks × pips
        # (Only the pips at a mark are compared with the set's, by their cores alone: a glare
        # spot's brightest part, next to a light pip, may have the pip's paint's size. Every
        # pip against every pip, worked out once, cost a frame more than the pips at marks.)
        mark, near = np.nonzero(d <= 1.5 * pips.a)
        alike = _alike_pairs(pips.cov[idx[m[mark]]], pips.cov[near][:, None]).any(1)
        pip_there = np.zeros(len(m), bool)
        pip_there[mark[alike]] = True
        check[m, k] = _unit((np.where(pip_there, 0.8, 1.0) - share[m, k]) / 0.25)
    worst: Floats = check.min(1)
    return worst


# Where the face is sampled, in grid steps: a square over the pip grid and a little
# beyond; for a lone pip, whose face's turn is unknown, rings around it.
_LATTICE = np.array([(x, y) for y in np.linspace(-1.6, 1.6, 9) for x in np.linspace(-1.6, 1.6, 9)])
# A 3's grid is fitted along its pips' diagonal only, the other guessed from their shapes,
# which on a small die (pips 2-3 px across) are measured roughly: seen at a slant, blurred
# pips look round, and the square 1.6 steps out, 0.3 of a step from the face's edge as
# fitted, reached its darker rounded edge or the front face below, so that a 3 tilted
# 20-30° was not plain and its middle pip was read as a 1. Its face is sampled out to
# 1.4 steps (1.3: fewer dice gained).
_THREE_OUT = 1.4 / 1.6
_RINGS = np.array([(r * np.cos(t), r * np.sin(t)) for r in (0.7, 1.1, 1.6)
                   for t in np.linspace(0, 2 * np.pi, 24, endpoint=False)])


def _plains(gray: Image, pips: Pips, affine: Floats, contrast: Floats, *,
            lone: bool) -> Floats:
    """How plain the face around each set of marks is (0-1): a die's face is one colour up
    to its edges, apart from its marks, and all in the picture. Clutter that passes for
    pips sits on a surface of two colours or at an edge. (``lone``: faces of one pip.)"""
    h, w = gray.shape
    lattice = _RINGS if lone else _LATTICE
    pts = (affine[:, None, :, :2] @ lattice[None, :, :, None])[..., 0] + affine[:, None, :, 2]
    px, py = np.round(pts[..., 0]).astype(int), np.round(pts[..., 1]).astype(int)
    on = (px >= 0) & (px < w) & (py >= 0) & (py < h)
    px, py = _clamp(px, w - 1), _clamp(py, h - 1)
    free = on & ~pips.inside[py, px]
    count = free.sum(1)
    values = np.sort(np.where(free, gray[py, px].astype(float), np.inf), 1)
    rows = np.arange(len(affine))
    lo = values[rows, (0.1 * count).astype(int)]
    hi = values[rows, np.maximum(0, (0.9 * count).astype(int) - 1)]
    spread = np.where(count >= 12, hi - np.where(count >= 12, lo, 0), np.inf)
    # A face cut by the frame's edge may have more marks beyond it.
    seen = _unit((_mean(on, 1) - 0.8) / 0.15)
    return _unit((0.35 - spread / np.maximum(contrast, 1.0)) / 0.15) * seen


def _lone_step(side: Floats) -> Floats:
    """A quarter of the face of a die of ``side`` (as found, with some of its side faces:
    its face is about side / 1.2, see _face_size): the most a lone pip's grid step may be."""
    out: Floats = 0.26 * side / 1.2
    return out


_LARGE = 0.94  # of a face's quarter: as far as blur shrinks a large pip's core, measured (_within_face)
_SURE_1 = 0.9  # a lone pip's score (its disc's shape, its empty grid) that is surely a 1 (_within_face)


def _within_face(grid: Floats, radius: Floats, side: Floats, sure: Bools) -> Floats:
    """What scales lone pips' grids (m×2×2, of pips of ``radius`` on dice of ``side``) so
    that a large pip's reaches no further than :func:`_lone_step` along its long axis.

    A face seen at a slant is foreshortened across only: along the pip's long axis it has
    its full side. The grid keeps the pip's area, stretching that axis by one over the
    square root of its roundness, which is right for a grid the pip's own size sets (the
    pip is squashed as its face is), not for one set by the face's size: the rings around
    a large lone pip (a blue or red 1's, whose step is the face's quarter) reached past the
    face's edges, onto the tray or the front face, on dice tilted 20-30° (roundness
    0.6-0.8), so such 1s were dropped and their front faces read as dice. Grids a pip's
    own size sets keep the stretch: drawn in, the rings around a laptop key's print, a
    light mark on a dark key, no longer reached the key's edge (a webcam photo, read as a
    1).

    A large pip's core (above 0.6 of its peak) measures smaller when blurred: 2.2 of its
    radii reach 0.95-0.99 of the face's quarter on 1s whose rings then reached the face's
    edge (their front faces read as dice in their place). So a pip reaching :data:`_LARGE`
    of the quarter is large too when it is ``sure``ly a 1 by its shape and grid (a disc,
    solid, round once upright; no mark where a 1 has none): a laptop key's print, a light
    mark on a dark key as large (0.92) but flat and not quite an ellipse (0.6 sure), read
    as a 1 with its rings drawn in."""
    step = _lone_step(side)
    g = grid.transpose(0, 2, 1) @ grid
    _, high = _eig2(g[:, 0, 0], g[:, 0, 1], g[:, 1, 1])
    large = (2.2 * radius >= step) | ((2.2 * radius >= _LARGE * step) & sure)
    out: Floats = np.where(large, np.minimum(1.0, step / np.sqrt(np.maximum(high, 1e-12))), 1.0)
    return out


def _checks(gray: Image, pips: Pips, batches: list[tuple[Ints, Floats, Floats]], *,
            floor: float) -> tuple[Floats, Floats]:
    """Fitted sets of pips of every size checked at once (a frame has many small batches):
    each batch's pips (m×n), fit qualities and grids. Gives the scores with the grid
    checked (:func:`_grid_checks`) and how plain each face is (:func:`_plains`, only where
    that score reaches ``floor``; 0 elsewhere)."""
    # (A set's row filled up with its first pip: repeated, it changes no check.)
    idx = np.concatenate([np.concatenate([i, np.repeat(i[:, :1], 6 - i.shape[1], 1)], 1)
                          for i, _, _ in batches])
    n = np.repeat([i.shape[1] for i, _, _ in batches], [len(i) for i, _, _ in batches])
    occupied, lone = _OCCUPIED[n], n == 1
    contrast = np.concatenate([_mids(pips.contrast[i]) for i, _, _ in batches])
    affine = np.concatenate([a for _, _, a in batches])
    score = np.concatenate([q for _, q, _ in batches]) * _grid_checks(pips, affine, occupied, contrast, idx)
    plain = np.zeros(len(score))
    affine[n == 3, :, :2] *= _THREE_OUT  # (a copy, drawn in: its lattice with it)
    first = idx[lone, 0]  # (a lone pip's face: the face's size bounds a large pip's rings)
    scale = _within_face(affine[lone, :, :2], pips.a[first], pips.side[first], score[lone] >= _SURE_1)
    affine[lone, :, :2] *= scale[:, None, None]
    for kind in (True, False):
        rows = np.nonzero((lone == kind) & (score >= floor))[0]
        if rows.size:
            plain[rows] = _plains(gray, pips, affine[rows], contrast[rows], lone=kind)
    return score, plain


@dataclass(frozen=True)
class _Face:
    read: FaceRead
    blob: int
    pips: list[int]  # its pips
    grid: Floats  # 2×3: its pip grid (pips one apart) to image pixels
    flat: float  # its pips' roundness (short over long axis, of their mean shape)
    short: float  # its pips' short semi-axis (of their mean shape), pixels
    die: float  # its die's expected side, pixels (as its pips were found for)
    squash: Floats  # its pips' mean shape (second moments, 2×2) scaled to determinant 1
    ends: bool = False  # its die ends just below it, towards the camera (:func:`_ends_below`)

    @property
    def long(self) -> float:
        """Its pips' long semi-axis, pixels: their size as if seen square on (a slant
        narrows them only across), which only the distance from the camera changes."""
        return self.short / max(self.flat, 1e-9)


def _alike(pips: Pips, chosen: list[int], others: list[int]) -> Bools:
    """Which of ``others`` have the size and shape of each ``chosen`` pip: a bool matrix,
    chosen × others."""
    return pips.alike[chosen][:, others]  # (np.ix_ costs more, for the few pips asked about)


def _unexplained(pips: Pips, grid: Floats, chosen: list[int], others: list[int]) -> int:
    """How many of ``others`` lie on the fitted face and look like its pips: they should
    have been part of it. (Pips unlike them, squashed another way, are a side face's.)"""
    if not others:
        return 0
    # (Asked again about pips it was asked about, on the same grid: those of them it left
    # unexplained then. A face's pips and grid set which of them those are, one by one.)
    key = frozenset(chosen)
    kept = pips.unexplained.get(key)
    if kept is not None and kept[0] is grid and kept[1].issuperset(others):
        return len(kept[2].intersection(others))
    found = _unexplained_pips(pips, grid, chosen, others)
    pips.unexplained[key] = (grid, set(others), found)
    return len(found)


def _unexplained_pips(pips: Pips, grid: Floats, chosen: list[int], others: list[int]) -> set[int]:
    """Which of ``others`` lie on the face of ``chosen`` pips fitted on ``grid`` and look
    like its pips (:func:`_unexplained`)."""
    (xx, xy, _), (yx, yy, _) = grid.tolist()  # (numbers: NumPy's scalars cost more)
    det = xx * yy - xy * yx
    if abs(det) < 1e-9:
        return set()
    inverse = np.array([[yy, -xy], [-yx, xx]]) / det
    at = (pips.xy[others] - grid[:, 2]) @ inverse.T
    on = np.hypot(at[:, 0], at[:, 1]) <= 1.8 if len(chosen) == 1 else (np.abs(at) <= 1.6).all(1)
    if not on.any():
        return set()
    lying = [k for k, o in zip(others, on) if o]
    return {lying[i] for i in np.flatnonzero(_alike(pips, chosen, lying).any(0)).tolist()}


def _top_like(pips: Pips, group: list[int]) -> list[int]:
    """The pips of a group that may be on a top face: round enough (a side face seen
    almost edge on has pips squashed to slits)."""
    roundness = pips.listed[1]
    return [k for k in group if roundness[k] >= 0.45]


_Best = tuple[tuple[bool, int, float], float, int, _Fit, list[int]]


def _patterns(gray: Image, pips: Pips, seams: _Seams, sets: list[list[int]],
              seen: dict[frozenset[int], tuple[_Fit, float] | None]) -> None:
    """How well each set of pips forms a face, into ``seen`` (the fit and its quality with
    the grid, the plain face around and the seams between its pips checked, or None:
    nothing like a die's face): sets of one size are fitted at once, and the same pips,
    coming up again as faces are taken out, are not fitted twice."""
    todo: dict[int, list[list[int]]] = {}
    for chosen in sets:
        key = frozenset(chosen)
        if key not in seen:
            todo.setdefault(len(chosen), []).append(chosen)
            seen[key] = None
    batches: list[tuple[list[list[int]], Ints, Floats, Floats]] = []
    for n, same in todo.items():
        idx = np.array(same)
        quality, affine = _fits(pips.xy[idx], pips.side[idx[:, 0]], _mids(pips.a[idx]),
                                pips.cov[idx])
        # A face less sure than 0.1 is none (_read_groups): the checks, each only lowering
        # the score, stop at a set that cannot reach it (most sets fit no pattern, and are
        # not checked further).
        fitted = np.nonzero(quality >= 0.1)[0]
        if not fitted.size:
            continue
        quality = quality[fitted] * _discs(pips, idx[fitted]) * _seamless(seams.depth, idx[fitted])
        sure = quality >= 0.1
        fitted, quality = fitted[sure], quality[sure]
        if fitted.size:
            batches.append(([same[k] for k in fitted.tolist()], idx[fitted], quality, affine[fitted]))
    if not batches:
        return
    score, plain = _checks(gray, pips, [(idx, q, a) for _, idx, q, a in batches], floor=0.1)
    affine = np.concatenate([a for *_, a in batches])
    quality = np.concatenate([q for _, _, q, _ in batches])
    chosen_sets = [c for sets, *_ in batches for c in sets]
    for chosen, q, grid, sure, p in zip(chosen_sets, quality.tolist(), affine, score.tolist(),
                                        plain.tolist()):
        # The face around the marks must be plain (else nothing like a die's face: clutter).
        if p >= 0.3:
            seen[frozenset(chosen)] = (_Fit(q, grid), sure * p)


def _trials(pips: Pips, proposals: set[tuple[int, ...]]) -> list[tuple[tuple[int, ...], list[list[int]]]]:
    """Each proposed set of pips, least typical pips last, as itself and trimmed of one and
    of two of those (each proposal's worked out once: :attr:`Pips.trials`)."""
    out = []
    b_all, round_all = pips.listed
    made = pips.trials
    for proposal in proposals:
        trial = made.get(proposal)
        if trial is None:
            members = list(proposal)
            if len(members) > 1:
                typical = sorted(b_all[k] for k in members)[len(members) // 2]
                members.sort(key=lambda k: abs(math.log(b_all[k] / typical))
                             + max(0.0, 0.85 - round_all[k]))
            top = min(len(members), 6)
            trial = made[proposal] = [members[:keep] for keep in range(top, max(0, top - 3), -1)]
        out.append((proposal, trial))
    return out


def _better(key: tuple[bool, int, float], chosen: list[int], best: _Best | None, beside: Floats) -> bool:
    """Whether a face of the pips ``chosen``, ranked ``key``, beats ``best``: ranked higher,
    or as high with its pips cleaner of dips right beside them (``beside``: see _Seams).
    Two purple dice touching, a 2 above a 1: the 2's lower pip and the 1's, the seam
    between them right beside the 2's pip, made a 2 as sure as the 2's own pips, and the
    one found first won. (Worked out only for ties between two sets of pips: they are few;
    most ties are one face, proposed by each of its pips.)"""
    if best is None or key > best[0]:
        return True
    if key < best[0] or set(chosen) == set(best[4]):
        return False
    mine, theirs = (float(_seamless(beside, np.array([face]))[0]) for face in (chosen, best[4]))
    return mine > theirs


def _best_face(pips: Pips, trials: list[tuple[tuple[int, ...], list[list[int]]]], tops: list[int],
               seen: dict[frozenset[int], tuple[_Fit, float] | None], beside: Floats,
               failed: set[tuple[int, ...]] | None = None) -> _Best | None:
    """The best face among the trials (already fitted, in ``seen``): each proposal's first
    sure one, or its best: (key, score, value, fit, pips). The proposals that
    make no sure face go into ``failed``."""
    best: _Best | None = None
    for proposal, trial in trials:
        sure = False
        for chosen in trial:
            pattern = seen[frozenset(chosen)]
            if pattern is None:
                continue
            fit, quality = pattern
            if best is not None and best[0][0] and (quality < 0.5 or len(chosen) < best[2]):
                continue  # (it cannot beat a sure face with as many pips)
            unexplained = _unexplained(pips, fit.affine, chosen, [k for k in tops if k not in chosen])
            score = quality * 0.6 ** unexplained
            # A sure face that explains more pips beats a part of it.
            key = (score >= 0.5, len(chosen) if score >= 0.5 else 0, score)
            if _better(key, chosen, best, beside):
                best = (key, score, len(chosen), fit, chosen)
            if score > 0.5:
                sure = True
                break
        if not sure and failed is not None:
            failed.add(proposal)
    return best


def _unbroken(depth: Floats) -> Bools:
    """For each of a group's pips, the pips on its face as far as the face between them
    is unbroken (``depth``: the group's seams, n×n): a bool matrix, pip × pips.

    A pip's pips within a face's reach are its face's only while the die's size is right
    and no die touches it: a die's size is estimated, and a 4's far pip, 0.74 of a die
    away, lies beyond the reach of a die taken a tenth too small (two 4s touching read as
    a 2); a die touching it has pips within reach (a 6 beside a 4 and a 2 read as a 5 of
    pips of all three). The face between two pips of one face does not dip at all (no
    seam, a few grey levels of noise), where between dice touching it mostly does, if only
    a little: the pips joined to a pip so, however far, are its face's too. A pip beyond
    the next on a face dips (the next pip lies on the way: a 5's far corner, past its
    middle), so a pip joined so to two or more of them is taken in as well, until none is
    left: else a part of a face is proposed, which may fit another pattern (four of a
    6's pips, seen at a slant, a 4).
    """
    joined: Bools = depth == 0.0
    np.fill_diagonal(joined, True)
    if len(depth) <= 3:
        return joined  # (none is joined to two of a pip's pips and not to it: none to add)
    links = joined.astype(np.intp)
    rows = joined
    for _ in range(len(depth)):
        grown: Bools = rows | (rows.astype(np.intp) @ links >= 2)
        if (grown == rows).all():
            break
        rows = grown
    return rows


def _read_groups(gray: Image, pips: Pips, seams: _Seams, groups: list[list[int]],
                 seen: dict[frozenset[int], tuple[_Fit, float] | None]) -> list[_Face | None]:
    """The best die face each group of pips makes (or None), all groups at once.

    A face's pips are alike (one size, squashed the same way); a group may hold a side
    face's too, or a dark gap between dice passing for a pip. So each pip proposes the
    pips like it within a face's reach, dropping the least typical ones if they fit no
    pattern; when no proposal is surely a face, those that are not split in space (the pips
    of dice side by side are alike too). Each pip also proposes the pips it is joined to
    with the face unbroken between them (:func:`_unbroken`). The face that fits best wins.
    """
    tops: list[list[int]] = []
    trials: list[list[tuple[tuple[int, ...], list[list[int]]]]] = []
    reached: list[set[tuple[int, ...]]] = []  # each group's proposals by reach
    for group in groups:
        t = _top_like(pips, group)
        tops.append(t)
        if not t:
            trials.append([])
            reached.append(set())
            continue
        xy = pips.xy[t]
        reach = 0.75 * pips.side[t[0]]
        near = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1]) <= reach
        members = np.array(t)
        # (A group's pips are in order, and so each proposal's.)
        by_reach = {tuple(members[row].tolist()) for row in _alike(pips, t, t) & near}
        reached.append(by_reach)
        unbroken = _unbroken(seams.depth[members[:, None], members])
        trials.append(_trials(pips, by_reach | {tuple(members[row].tolist()) for row in unbroken}))
    _patterns(gray, pips, seams, [c for trial in trials for _, cs in trial for c in cs], seen)
    best: list[_Best | None] = []
    split: list[list[tuple[tuple[int, ...], list[list[int]]]]] = []
    for t, trial, by_reach in zip(tops, trials, reached):
        failed: set[tuple[int, ...]] = set()
        b = _best_face(pips, trial, t, seen, seams.beside, failed)
        best.append(b)
        parts: set[tuple[int, ...]] = set()
        # Split unless the best face is a proposal by reach, whole: a part of one may
        # leave a better face, and so may a face proposed only as unbroken (black dice
        # touching show no seam between them: the face is unbroken across it).
        # A part beats a sure face only with as many pips or more (:func:`_best_face`'s
        # key): beside one, a proposal too small to hold that many is not split, and only
        # its parts' sets that large are fitted (most are smaller, beside a cluster's faces).
        least = b[2] if b is not None and b[0][0] else 0
        if (b is None or b[1] < 0.8 or not any(len(p) == b[2] for p in by_reach)
                or not any(set(b[4]) <= set(p) for p in by_reach)):
            for proposal in (p for p in failed if len(p) >= least):
                for k, labels in enumerate(_kmeans(pips.xy[list(proposal)], min(3, len(proposal))), 2):
                    parts.update(part for j in range(k)
                                 if (part := tuple(p for p, label in zip(proposal, labels) if label == j)))
        split.append([(part, large) for part, sets in _trials(pips, parts - {p for p, _ in trial})
                      if (large := [c for c in sets if len(c) >= least])])
    _patterns(gray, pips, seams, [c for trial in split for _, cs in trial for c in cs], seen)
    for i, (t, trial) in enumerate(zip(tops, split)):
        other = _best_face(pips, trial, t, seen, seams.beside) if trial else None
        if other is not None and _better(other[0], other[4], best[i], seams.beside):
            best[i] = other
    return [_face(pips, b[4], b[3].affine, b[1], len(g)) if b is not None and b[1] >= 0.1 else None
            for g, b in zip(groups, best)]


def _face(pips: Pips, chosen: list[int], grid: Floats, score: float, marks: int) -> _Face:
    """A face read from ``chosen`` pips on ``grid``."""
    (a, b, cx), (c, d, cy) = grid.tolist()  # (numbers: NumPy's scalars cost more)
    side = math.sqrt(abs(a * d - b * c)) / 0.26
    mean = _mean(pips.cov[chosen], 0)
    (xx, xy), (_, yy) = mean.tolist()
    low, high = _eig2(xx, xy, yy)
    read = FaceRead(str(len(chosen)), score, (cx, cy), marks, side)
    return _Face(read, int(pips.blob[chosen[0]]), chosen, grid,
                 math.sqrt(max(low, 1e-9) / max(high, 1e-9)), 2 * math.sqrt(max(low, 0.0)),
                 float(pips.side[chosen[0]]), mean / math.sqrt(max(low * high, 1e-12)))


def _read_clean(gray: Image, pips: Pips, seams: _Seams,
                groups: list[list[int]]) -> tuple[list[_Face], list[list[int]]]:
    """The groups that may be one face as they are (at most six pips, all round; alike, as
    pips are joined only to pips like them), read all at once: the faces read surely, and
    the groups left to read more carefully.

    A group is one face as it is only if each of its pips is joined to another with the
    face not dipping at all between them (:func:`_seamless`): between a face's own pips it
    does not dip, while a dip too faint to part two pips is most often the seam of two
    dice touching (two blue 1s side by side, their large pips a 2 as sure as any), read
    with care as a cluster is (:func:`_read_clusters`), where each pip also proposes the
    pips within a face's reach only."""
    by_size: dict[int, list[list[int]]] = {}
    rest = []
    for g in groups:
        if len(g) <= 6 and len(_top_like(pips, g)) == len(g):
            by_size.setdefault(len(g), []).append(g)
        else:
            rest.append(g)
    batches = []
    unbroken: list[Bools] = []
    for same in by_size.values():
        idx = np.array(same)
        quality, affine = _fits(pips.xy[idx], pips.side[idx[:, 0]], _mids(pips.a[idx]),
                                pips.cov[idx])
        batches.append((idx, quality * _discs(pips, idx), affine))
        unbroken.append(_seamless(seams.depth, idx) == 1.0)
    if not batches:
        return [], rest
    score, plain = _checks(gray, pips, batches, floor=0.0)
    faces = []
    groups = [g for same in by_size.values() for g in same]
    grids = np.concatenate([a for _, _, a in batches])
    for g, sure, grid, p, whole in zip(groups, (score * plain).tolist(), grids, plain.tolist(),
                                       np.concatenate(unbroken).tolist()):
        n = len(g)
        if (sure >= 0.8 and whole) or (n == 1 and p >= 0.3 and sure >= 0.1):
            faces.append(_face(pips, g, grid, sure, n))
        elif n > 1:
            rest.append(g)  # (a lone pip read doubtfully has nothing more to try)
    return faces, rest


def _side_face(a: _Face, b: _Face, count: int, size: float,
               near: Floats = _NEAR, middle: Floats | None = None) -> _Face | None:
    """Of two faces read close enough together to be one die's (within 1.3 ``size``, the
    larger one's unforeshortened side) in a blob of about ``count`` dice, the one that is
    a side face of the other's die, or None if they are the top faces of two dice.

    A camera looks at a table from its near side, the far side up in the picture: a die's
    top face shows above its front face, both squashed along the picture's height, one
    more than the other (the top face less below 45°, more beyond). Its left and right
    faces show beside the top face, squashed across, seen almost edge on. Two dice one
    behind the other look alike, one above the other, but further apart (a die's depth
    apart, where its front face is half of it below its top face) and both seen nearly
    square on at once: a face's roundness is the cosine of the angle between the camera's
    ray and its normal, and a die's faces are square to one another, so the squares of a
    top face's roundness and a side face's add up to at most one. Side by side, two lone
    pips squashed two ways (unlike in shape) in a blob of one die are its top face's and a
    side face's (two dice side by side on a table are seen squashed alike); the side
    face's shows less clearly. (Faces of more pips are left to the rules above: in a photo
    turned from the camera's view, a 1 beside a 3 on one die was its top face.) A lower
    face with nothing of a die below it (``ends``), no further below than a front face
    lies, is a side face however round the two measure, unless the upper one is seen
    more edge on (:func:`_edge_on`: the frame's side taken wrong); so is a lone pip below
    a face whose die ends below it, narrower across than that face's pips, however far
    below (:func:`_front_pip`), and a face towards the picture's ``middle`` squashed along
    the step from the other (:func:`_inner_face`).
    "Below" and "across" are along ``near``, the side of the picture the camera is at
    (:func:`_near_side`): the picture's bottom unless its faces say otherwise.
    """
    dx, dy = _turned(np.subtract(b.read.centre, a.read.centre), near)
    dist = math.hypot(dx, dy)
    flatter, rounder = (a, b) if a.flat < b.flat else (b, a)
    squashed = rounder.flat - flatter.flat > _SQUASHED
    apart = dist / size
    lower, upper = (b, a) if dy > 0 else (a, b)
    above = abs(dy) >= 0.6 * dist  # (one above the other, else side by side)
    inner = None if middle is None else _inner_face(a, b, dx, dist, size, near, middle)
    if inner is not None:
        return inner
    if above and lower.ends and _apart(a, b) < _FRONT_APART and not _edge_on(upper, lower):
        # Nothing of a die below the lower face, and no further below than a front face
        # lies: it is the face towards the camera, not a die in front (whose own front face
        # would show below it), however round both measure (a front face's small pips,
        # blurred, measure round, and a side face's at the frame's edge, seen less edge on).
        return lower
    if above and lower.ends and _front_pip(lower, upper):
        return lower
    if not (a.flat ** 2 + b.flat ** 2 < 1.25 or apart < 0.8):
        return None
    if above:
        if (squashed and lower is rounder and lower.short >= upper.short
                and (a.flat ** 2 + b.flat ** 2 >= 1.25
                     or (abs(dx) > 0.3 * dist and lower.long >= upper.long))):
            # A front face is rounder than its top face only beyond 45° of tilt, where the
            # top face is flatter than cos 45° and the two squares add up to at most one:
            # two faces too round for that are two dice, however close (one behind
            # another, their depth foreshortened). Blur rounds small pips, a front face's
            # too: its pips, foreshortened more, stay narrower across (blurred alike).
            # Nor is a rounder face below and well to the side a side face if its pips are
            # no smaller: a die turned shows its side faces down to the left and right,
            # seen more edge on than a face straight below, their pips no larger than its
            # top face's (no nearer the camera). Such a face is a die in front, the face
            # above it another die's side face.
            return None
        # (Seen from straight above, two faces alike are two dice whatever the blob's size.)
        return lower if squashed or (count == 1 and rounder.flat < 0.88) or apart < 0.75 else None
    if rounder.flat - flatter.flat > 0.15:
        # A left or right face is squashed across, or aslant. Its pips lying along the
        # picture's width, as a top face's do (their roundness once stretched upright
        # 0.95 or more), a flatter face of two pips or more (blur flattens them) half a
        # die or more away is another die's top face.
        top = (float(_upright_roundness(_turned_cov(flatter.squash, near))) >= 0.95
               and len(flatter.pips) > 1)
        return None if top and apart >= 0.5 else flatter
    # Too close to be two dice, and neither seen more edge on: the face read from fewer
    # pips (a side face's show less clearly), or less surely.
    weaker = min((a, b), key=lambda f: (len(f.pips), f.read.confidence, f.flat))
    if count == 1 and len(a.pips) == len(b.pips) == 1 and not _alike_pairs(a.squash, b.squash):
        return weaker
    return weaker if dist / _beside_size(weaker, b if weaker is a else a, size) < 0.75 else None


# Of the lower face's pips' short axis: the upper face's pips, their short axis under
# this, are seen more edge on (_edge_on). Measured where the front-face rule fires and
# roundness alone would not drop the lower face: where it dropped a turned frame's top
# face 0.30-0.78 (1280×720 seeds 1000-1099, 10960-11019, 11360-11419); upright front
# faces below their top faces 0.81-2.0 (640×480 seeds 9100-11499).
_NARROWER = 0.8


def _edge_on(upper: _Face, lower: _Face) -> bool:
    """Whether the upper of two faces one above the other is seen more edge on than the
    lower: flatter by :data:`_SQUASHED` and its pips' short axis under :data:`_NARROWER` of
    the lower face's.

    Seen from the side a frame is read from, a front face lies below its top face, and
    its pips, blurred small, may measure as round and as wide as the top face's: the face
    above it is never plainly flatter and narrower. Such a pair says the camera is at the
    other side (a frame turned, no cue telling its side): the lower face is the die's top
    face, its die ending just past it, away from the camera, and the upper its front face.
    There the front-face rule would drop the top face; roundness weighs the two instead
    (docs/vision-log.md, s26-dice-turned). Any two faces may be so weighed: one seen more
    edge on than a face it is a side face of is no top face, whatever lies below it
    (:func:`_drop_side_faces`)."""
    return upper.flat <= lower.flat - _SQUASHED and upper.short < _NARROWER * lower.short


# Of the short axis of the pips of the face above: a lone pip below it, narrower across than
# this, is a front face's pip (_front_pip). Measured where the lower face's die ends below it:
# front faces' lone pips read as a die 0.54-0.85 (640×480 seeds 9100-11999); the seven lone
# pips there that are top faces 0.88-1.62 (those seeds, 1280×720 seeds 11560-11619 turned,
# the webcam photos).
_PIP_NARROWER = 0.86


def _front_pip(lower: _Face, upper: _Face) -> bool:
    """Whether ``lower``, a face below ``upper`` whose die ends just below it, is a lone pip
    narrower across than ``upper``'s pips by :data:`_PIP_NARROWER`: a pip of the face
    towards the camera, however far below (a front face read from one pip, its others lost
    in blur or read as a face of their own, is measured by a lone pip's size, no die's).

    A 1's pip is as large as its die's other pips or larger, and a die in front is nearer
    the camera than the die behind it: a top face's lone pip below a face is no narrower
    across than that face's pips. A front face's pips are foreshortened across, and blur
    leaves them as round as the top face's but narrower (docs/vision-log.md, s27-dice-ghost).
    Seen from the other side (a frame turned, its side not told), the lower face is the top
    face and the face above it the front face, narrower: the rule keeps it."""
    return len(lower.pips) == 1 and lower.short < _PIP_NARROWER * upper.short


def _along(face: _Face, unit: Floats) -> float:
    """A face's pips' extent along ``unit`` (a direction in the picture) over across it:
    1 for round pips, under 1 for pips squashed along it."""
    across = np.array([-unit[1], unit[0]])
    return math.sqrt(float(unit @ face.squash @ unit) / float(across @ face.squash @ across))


# Of the larger face's side: a left or right face lies at most half a side and half its
# own width from its top face (measured 0.65-0.89), two dice side by side a whole side
# apart or more.
_INNER_APART = 0.9
# Of the distance between two faces: the least of it across the picture for the two to lie
# side by side or aslant (a face straight below is a front face or a die in front: the
# rules above weigh those).
_ASLANT = 0.6
# How much more a side face's pips are squashed along the step from its top face than the
# top face's are (as _along measures them; measured 0.17-0.55 on the faces it drops).
_SQUASHED_ALONG = 0.15


def _inner_face(a: _Face, b: _Face, dx: float, dist: float, size: float, near: Floats,
                middle: Floats) -> _Face | None:
    """Of two faces side by side or aslant, ``dist`` apart (``dx`` across the picture),
    the one that is a left or right face of the other's die, seen from the picture's
    ``middle``; or None.

    A camera's rays spread out: a die in the picture's left or right part is seen from
    the middle's side and shows its face towards the middle, less edge on than near the
    middle (its pips measured 0.53-0.67 round beside a top face's 0.77-0.97), the two too
    round together for one die's faces by roundness alone (:func:`_side_face`'s first
    test). But a face is squashed along its normal as the picture shows it: such a face's
    pips are narrower along the step from its top face than across it, while two dice's
    top faces side by side are squashed alike (along the picture's height, by the
    camera's tilt). So the face towards the middle, flatter than the other and squashed
    along the step between them by :data:`_SQUASHED_ALONG` more, within
    :data:`_INNER_APART` of a face, is a side face however round both measure
    (docs/vision-log.md, s26-dice-sides)."""
    if dist >= _INNER_APART * size or abs(dx) < _ASLANT * dist:
        return None
    for inner, outer in ((a, b), (b, a)):
        step = np.subtract(inner.read.centre, outer.read.centre)
        if _turned(step, near)[0] * _turned(middle - np.asarray(outer.read.centre), near)[0] <= 0:
            continue  # (not towards the middle)
        unit = step / dist
        if inner.flat < outer.flat and _along(inner, unit) < _along(outer, unit) - _SQUASHED_ALONG:
            return inner
    return None


_NO_SMALLER = 0.9  # a 1's pip's long axis over a face's beside it: as large, within blur (_beside_size)


def _beside_size(weaker: _Face, other: _Face, size: float) -> float:
    """The face side that says how far apart two faces side by side are, the ``weaker``
    one a side face if under 0.75 of it: ``size`` (the larger one's), but for a sure 1
    beside a face of more pips, that face's, measured on its grid.

    A lone pip's face is the die's as found for the whole frame (:func:`_face_size`), no
    measure of its own die: in a frame seen in perspective the far dice are smaller, their
    faces measured on their grids 0.7-0.9 of it. A far 1 touching a die beside it (their
    faces one face apart) measured under 0.75 of the frame's size apart, and was dropped
    as the other's side face; the face beside it, as far from the camera, measures both.
    Only a sure 1 whose pip is no smaller than the other face's pips (a 1's pip is as
    large as its die's others or larger, and a die beside it, as far from the camera,
    shows pips as large): a side face's pip read doubtfully beside its top face, or
    smaller than its pips (a 6's beside a 2, a webcam photo turned), is kept apart so.
    One face above or below the other is left to the frame's size: a die's front face
    read as a 1 lies as far below its top face as a 1 below a die behind it
    (docs/vision-log.md, s25-dice-ones)."""
    if (len(weaker.pips) == 1 < len(other.pips) and weaker.read.confidence >= _SURE_1
            and weaker.long >= _NO_SMALLER * other.long):
        return min(size, _face_size(other))
    return size


def _turned(v: Floats, near: Floats) -> tuple[float, float]:
    """A vector in the picture as (across, towards the camera), the camera at ``near``."""
    return float(v[0] * near[1] - v[1] * near[0]), float(v @ near)


def _turned_cov(cov: Floats, near: Floats) -> Floats:
    """Second moments (2×2) in the picture, in axes across and towards the camera, the
    camera at ``near``."""
    turn = np.array([[near[1], -near[0]], near])
    out: Floats = turn @ cov @ turn.T
    return out


def _near_side(faces: dict[int, list[_Face]], view: View) -> Floats:
    """The side of the picture the camera looks from, as the faces read in the blobs of
    ``view`` (before side faces are dropped) say it: by their side faces and lone dice
    (:func:`_cued_side`), else by the way their pips are foreshortened
    (:func:`_foreshortened_side`), else by the lone dice alone (:func:`_lone_side`), else
    the picture's bottom (where a camera at the table's near side puts it). The lone dice
    (:func:`_lone_offsets`) are worked out once, for all three."""
    lone = _lone_offsets(faces, view)
    cued = _cued_side(faces, view, lone)
    if cued is not None:
        return cued
    seen = _foreshortened_side(faces, view, lone)
    if seen is None:
        seen = _lone_side(view, lone)
    return _NEAR if seen is None else seen


# Of a die's side, per lone die: how much nearer one side of the picture than any other
# the lone dice's top faces must lie off their blobs' centres to name the camera's side
# alone (_lone_side), and the fewest lone dice asked. pointed_side's own 0.03 (the votes
# of [camera] turn = "auto", right in 82-91% of photos) is too little for one frame: at
# 0.05 upright photos were turned, and at 0.1 a lone die alone turned 26 upright rendered
# frames of 9100-13199 at 640×480, two lone dice 8 (none read otherwise: frames of lone
# dice read alike from any side; s29-dice-side).
_LONE_CLEAR = 0.1
_LONE_DICE = 2


def _lone_side(view: View, lone: list[Floats]) -> Floats | None:
    """The side of the picture the camera looks from, as the lone dice alone say it
    plainly where neither side faces nor foreshortening say it, or None.

    A lone die's blob (``lone``: :func:`_lone_offsets`) holds its top face and the faces it shows the
    camera, so its top face lies off the blob's centre away from the camera. Where no
    side face is read plainly (a photo of a few dice, each seen at about 45°, its front
    face hardly flatter than its top face: :func:`_cued_side` asks for pairs), two lone
    dice or more pointing plainly (:data:`_LONE_CLEAR`) to one side name the camera's
    side opposite (docs/vision-log.md, s29-dice-side)."""
    if len(lone) < _LONE_DICE:
        return None
    far = pointed_side(lone, view.side, _LONE_CLEAR)
    if far is None:
        return None
    out: Floats = SIDES[(far + 2) % len(SIDES)]
    return out


# Of the frame's faces' pips' mean shape (scaled to determinant 1, weighed by pips): how
# much more it must be squashed along one of the picture's axes than the other to name
# that axis as the camera's (_foreshortened_side). Measured on rendered frames upright:
# at 1280×720 (seeds 11560-11619, 12060-12119) no frame past it had it across; at 640×480
# (9100-9699) 5 frames of three faces or more did (-0.12 to -0.32; none read otherwise:
# their side faces' pull or lone dice said no side), and more of two faces (-0.25, 9104:
# hence _AXIS_FACES). Frames seen from nearly above measure under it.
_AXIS = 0.1
_AXIS_FACES = 3  # faces of two pips or more: the fewest whose mean shape names the axis
# Of the frame's side faces' pull along the axis (their unit steps from their top faces,
# summed): the least that names the camera's side on it, about one side face's worth.
# Upright 640×480 frames read as from the top lost dice where it was under it (9353: 0.74
# the wrong way, three faces; turned frames won back pull 1.4-10).
_TOWARDS = 1.0


def _foreshortened_side(faces: dict[int, list[_Face]], view: View, lone: list[Floats]) -> Floats | None:
    """The side of the picture the camera looks from, as the faces' foreshortening says
    it where :func:`_cued_side` finds no plain cue, or None if it does not say it.

    A camera looks at the table aslant, so each top face (and its front face) is squashed
    along the line towards the camera, whichever way the camera is turned: the faces' pips
    together, flatter along one of the picture's axes than the other by :data:`_AXIS`,
    name that axis. Along it, the side faces lie off their top faces towards the camera
    (their pull, :data:`_TOWARDS`), and the lone dice's top faces off their blobs' centres
    away from it: the two agreeing (or no lone die to ask) name the side (a pair with a
    lone pip's face plainly flatter, :data:`_PLAINLY`: one pip's roundness is rough, and
    a 1 measured round beside two 2s 0.14-0.17 flatter turned 9737 upside down). Without the
    axis the pull is no proof (two dice one behind the other, a left or right face), and
    :func:`_cued_side` asks for more; with it, a frame turned a quarter, whose default
    bottom lies across the axis, or upside down is read from its camera's side: every
    rendered frame turned so lost its dice to the side taken (docs/vision-log.md,
    s28-dice-turned). The lone dice must not disagree: upright frames whose side faces
    pulled up (faces flatter above faces: dice behind dice, 9395, 9518, 9659) lost dice.
    Nor does a pair whose rounder face, taken for the top face, has its pips squashed
    across the axis rather than along it (:func:`_along`): a top face is squashed along the
    line towards the camera however the die is turned, but a front face of a die turned
    aslant along its own normal, aslant in the picture. Near 45° of tilt the two measure
    alike, and blur rounds a front face's small pips: a row of three dice turned 30° had
    its front faces measure up to 0.1 rounder than its top faces, squashed aslant, pull the
    side up (11486 at 640×480: three dice lost, four front faces read as dice;
    docs/vision-log.md, s29-dice-side)."""
    many = [face for found in faces.values() for face in found if len(face.pips) > 1]
    if len(many) < _AXIS_FACES:
        return None
    weights = np.array([len(face.pips) for face in many], float)
    shape = np.tensordot(weights, np.array([face.squash for face in many]), 1) / weights.sum()
    across = float(shape[0, 0] - shape[1, 1])  # (> 0: squashed along the picture's height)
    if abs(across) < _AXIS:
        return None
    axis = SIDES[2] if across > 0 else SIDES[3]
    pull = 0.0
    for _, flatter, rounder, step in _side_steps(faces, faces):
        least = _SQUASHED if len(flatter.pips) > 1 and len(rounder.pips) > 1 else _PLAINLY
        if rounder.flat - flatter.flat >= least and _along(rounder, axis) <= 1:
            pull += float(step @ axis)
    if abs(pull) < _TOWARDS:
        return None
    if lone:
        away = sum(float(offset @ axis) for offset in lone)
        if away * pull >= 0:
            return None  # (the lone dice say the other side, or nothing)
    out: Floats = axis if pull > 0 else -axis
    return out


def _cued_side(faces: dict[int, list[_Face]], view: View, lone: list[Floats]) -> Floats | None:
    """The side of the picture the camera looks from, when the faces read in the blobs of
    ``view`` (before side faces are dropped) say it plainly in two ways, or, with no lone
    die to ask, plainly in one; else None.

    A die shows its top face and the faces towards the camera, and below 45° of tilt (most
    views of a table) a side face is flatter than its top face, its pips no wider: in a
    blob of one die, such a pair says the camera is on the flatter face's side. But two
    dice one behind the other look alike, so that alone is no proof (8 of 1,600 rendered
    frames, all taken from below, seemed to show a side face above or beside its top
    face). So the lone dice must agree: a blob of one die read as one face is that top
    face and the faces it shows the camera, its face off the blob's centre away from the
    camera (:func:`~vision.dice.find.pointed_side`). Only when both point away from the
    bottom (:func:`_pointed_away`), to one side, is that side taken (lone dice pulled
    aslant, naming no side, agree if they lie beyond their blobs' centres from it by
    :data:`_BEYOND`); the pairs then need only be squashed as :func:`_side_face` weighs
    them (the lone dice are the proof), a lone pip's face plainly (its squash measured on
    one pip). Where the pairs of lone dice
    say nothing or too little, plain pairs in blobs of several dice may agree instead
    (added to them: two dice one behind the other seldom look plainly so). A frame with
    no lone die, every die showing a side face, has only its pairs to ask: each must be
    plainly flatter in a blob of one die, and all point to one side (docs/vision-log.md,
    s23-dice-turned, s24-dice-turned and s25-dice-turned). ``lone``: the lone dice
    (:func:`_lone_offsets`)."""
    pairs, plain, crowded = np.zeros(2), np.zeros(2), np.zeros(2)
    sides: set[int] = set()  # the sides the plain pairs point to, one by one
    # (Crowded blobs' pairs only agree with lone dice.)
    asked = faces if lone else [blob for blob in faces if view.counts[blob - 1] == 1]
    for blob, flatter, rounder, step in _side_steps(faces, asked):
        alone = view.counts[blob - 1] == 1
        flatness = rounder.flat - flatter.flat
        if flatness < (_SQUASHED if alone and len(flatter.pips) > 1 else _PLAINLY):
            continue
        if not alone:
            crowded += step
            continue
        pairs += step
        if flatness >= _PLAINLY:
            plain += step
            sides.add(int(np.argmax(SIDES @ step)))
    if not lone:
        return SIDES[sides.pop()] if len(sides) == 1 and float(plain @ _NEAR) < 0 else None
    away = {side for side in (_pointed_away(pairs), _pointed_away(pairs + crowded)) if side is not None}
    if not away:
        return None  # (nothing points away from the bottom)
    far = pointed_side(lone, view.side)
    if far is not None:
        near = (far + 2) % len(SIDES)
        return SIDES[near] if near in away else None
    # Lone dice pulled aslant name no side, but may still lie beyond their blobs' centres
    # from the side the pairs point to.
    pull = SIDES @ (np.sum(lone, 0) / view.side)
    beyond = [near for near in away if pull[(near + 2) % len(SIDES)] >= _BEYOND * len(lone)]
    return SIDES[beyond[0]] if beyond else None


def _side_steps(faces: dict[int, list[_Face]], blobs: Iterable[int]) -> Iterator[tuple[int, _Face, _Face, Floats]]:
    """Of ``blobs``' faces, each pair close enough to be one die's (:func:`_close_pairs`)
    whose flatter face's pips are no wider across than the rounder's, as a side face's
    beside its top face: the blob, the flatter face, the rounder one, and the unit step
    from the rounder to the flatter (towards the camera if the flatter is a side face).
    How much flatter it must be is the asker's: :func:`_cued_side` and
    :func:`_foreshortened_side` ask differently."""
    for blob in blobs:
        found = faces[blob]
        for _, i, j, _ in _close_pairs(found):
            flatter, rounder = sorted((found[i], found[j]), key=lambda f: f.flat)
            if flatter.short <= rounder.short:
                step = np.subtract(flatter.read.centre, rounder.read.centre)
                yield blob, flatter, rounder, step / max(float(np.hypot(*step)), 1e-9)


def _lone_offsets(faces: dict[int, list[_Face]], view: View) -> list[Floats]:
    """The lone dice of ``view``, blobs of one die read as one face (that face is its top
    face): how far each one's face lies off its blob's centre, away from the camera, the
    blob holding the faces it shows the camera too."""
    lone = [blob for blob, found in faces.items() if view.counts[blob - 1] == 1 and len(found) == 1]
    centres = box_centres(view.body, view.boxes, lone)
    return [np.subtract(faces[blob][0].read.centre, centre) for blob, centre in zip(lone, centres)]


def _pointed_away(pull: Floats) -> int | None:
    """The side of the picture (an index of :data:`SIDES`) that side faces' ``pull`` (their
    steps from their top faces, summed) points to, or None if it is the bottom's, or
    nearly so (the bottom's share of it :data:`_SIDEWAYS` or more), or there is none."""
    size = float(np.hypot(*pull))
    side = int(np.argmax(SIDES @ pull))
    return None if size == 0 or float(pull @ _NEAR) >= _SIDEWAYS * size else side


def _face_size(face: _Face) -> float:
    """A face's side unforeshortened, pixels: from its grid's long axis, or for a lone pip
    a die's (as found, with some of its side faces)."""
    if len(face.pips) == 1:
        return face.die / 1.2
    (a, b, _), (c, d, _) = face.grid.tolist()
    # The larger eigenvalue of the grid's M Mᵀ (on numbers: a frame has many faces).
    _, high = _eig2(a * a + b * b, a * c + b * d, c * c + d * d)
    return math.sqrt(high) / 0.26


_OWN_FRONT = 0.6  # of a face: the least gap of a face's own front face (_drop_side_faces)
# A face read this surely is a face, not a stray mark or a side face's pips read doubtfully
# (_its_front; a lone pip there must be surely a 1, _SURE_1).
_SURE_FACE = 0.9


def _close_pairs(faces: list[_Face], *, across: bool = False) -> list[tuple[float, int, int, float]]:
    """The pairs of ``faces`` close enough to be one die's (within 1.3 of the larger one's
    side), nearest first: (how far apart, in face sides; i; j; the larger side). ``across``:
    only pairs from two blobs. (Sizes worked out once: a frame holds many faces.)"""
    sizes = [_face_size(f) for f in faces]
    pairs = []
    for i, a in enumerate(faces):
        for j in range(i + 1, len(faces)):  # (each pair once: a frame's faces make hundreds)
            b, size = faces[j], max(sizes[i], sizes[j])
            if (a.blob != b.blob or not across) and math.dist(a.read.centre, b.read.centre) <= 1.3 * size:
                pairs.append((_apart(a, b), i, j, size))
    return sorted(pairs)


def _drop_side_faces(faces: list[_Face], count: int, *, across: bool = False,
                     near: Floats = _NEAR, middle: Floats | None = None) -> list[_Face]:
    """The top faces among the faces read in a blob of about ``count`` dice; ``across``:
    among faces of different blobs (only pairs from two blobs are weighed). Only faces
    close enough to be one die's are weighed; ``near`` is the side of the picture the
    camera is at (:func:`_near_side`), ``middle`` the picture's centre (:func:`_inner_face`)."""
    pairs = _close_pairs(faces, across=across)
    verdicts = [(i, j, _side_face(faces[i], faces[j], count, size, near, middle)) for _, i, j, size in pairs]
    # A face with a side face of its own below it (its die's front face, 0.6 of a face away
    # or more, not the same face read twice: :func:`_its_front`) is a top face: a front face
    # shows no face of its die below it. So it is no side face of another face as far away
    # (a die behind it, seen over it, or beside it), whichever pair is weighed first. Which
    # face a front face is its die's: :func:`_own_top`. But a face seen plainly more edge on
    # than the face it is a side face of (:func:`_edge_on`) is its side face still, whatever
    # lies below it (two parts of one side face, or a front face and a side face of its own
    # read below it): two dice's top faces are seen alike (docs/vision-log.md, s27-dice-ghost).
    below: dict[int, list[tuple[float, int]]] = {}
    for (gap, _, _, _), (i, j, face) in zip(pairs, verdicts):
        for k, other in ((i, j), (j, i)):
            front = faces[other]
            if (face is front and np.dot(np.subtract(front.read.centre, faces[k].read.centre), near) > 0
                    and gap >= _OWN_FRONT and _its_front(front, faces[k])):
                below.setdefault(other, []).append((gap, k))
    judged = {(i, j): face for i, j, face in verdicts}
    fronted = {top for found in below.values() if (top := _own_top(faces, sorted(found), judged)) is not None}
    dropped: set[int] = set()
    for (gap, _, _, _), (i, j, face) in zip(pairs, verdicts):
        if face is None or i in dropped or j in dropped:
            continue
        k, m = (i, j) if face is faces[i] else (j, i)
        if k not in fronted or gap < _OWN_FRONT or _edge_on(faces[k], faces[m]):
            dropped.add(k)
    return [f for k, f in enumerate(faces) if k not in dropped]


def _its_front(front: _Face, top: _Face) -> bool:
    """Whether ``front``, a side face of ``top`` lying below it, shows that ``top`` is a top
    face (its die's front face below it), not another die's side face.

    It does when it is flatter than ``top`` (a front face is seen more edge on below 45°
    of tilt), or when it ends its die (:func:`_ends_below`: nothing of a die below it, as
    a front face's does) where ``top`` does not, ``top`` read surely (:data:`_SURE_FACE`)
    and measuring larger (its grid's side).

    Pips a few pixels across are measured roughly: a front face's blurred pips measured as
    round as its top face's, or rounder (0.72 below 0.69), so two dice one behind the
    other, the front die's top face a front face's distance below the die behind's, lost
    the front die as the other's front face. Its own front face below it ends its die,
    which a front face's top face never does, and it measures smaller than its top face
    (foreshortened more below 45°), where a left or right face seen edge on, over a face
    below it, measures smaller than that face. A face of one pip is a stray mark unless
    read surely (a 1; a front face's lone pip read doubtfully lies beside side faces'
    pips) (docs/vision-log.md, s27-dice-missed)."""
    if len(front.pips) == 1 and front.read.confidence < _SURE_1:
        return False
    return front.flat < top.flat or (front.ends and not top.ends and top.read.confidence >= _SURE_FACE
                                     and top.read.side > front.read.side)


def _own_top(faces: list[_Face], found: list[tuple[float, int]],
             judged: dict[tuple[int, int], _Face | None]) -> int | None:
    """Of the faces a front face is a side face of (``found``: how far apart, in face
    sides, and which of ``faces``, nearest first), its die's top face: the nearest, unless
    that one is a side face (as ``judged`` by pair) of another of them that lies no further
    from the front face than a front face does (:data:`_FRONT_APART`). A die in the
    picture's left or right part shows its top face, its front face below, and its face
    towards the middle beside: the front face may lie nearer that side face than its top
    face (docs/vision-log.md, s26-dice-sides). None if each is a side face of another."""
    near = {k for gap, k in found if gap < _FRONT_APART}
    for _, k in found:
        if not any(faces[k] is judged.get((min(k, m), max(k, m))) for m in near if m != k):
            return k
    return None


_ENDS = 0.55  # of a die: how far below a front face its die ends (faces.py's _front_face)
# Of a face side: a front face lies at most 0.71 below its top face, half the two faces'
# heights (0.5 · (sin + cos) of the camera's angle); a die behind another lies its depth
# foreshortened apart, a whole side seen from above, where the die in front's top face
# ends within half a die too (measured: front faces 0.69-0.92 apart, dice one behind the
# other seen from 0-12° of tilt 0.97-1.57).
_FRONT_APART = 0.9


def _ends_below(centres: Floats, view: View, near: Floats) -> Bools:
    """Whether the die of the face at each of ``centres`` (F×2) ends within a little over
    half a die of it towards the camera (``near``): then no face of a die shows below it,
    and it is the face towards the camera (a top face has its own front face below it, or
    the die in front of it; a blurred die's blob reaches a little past its edge). The
    frame's edge is no end. (All faces at once: a frame has many.)"""
    reach = _ENDS * view.side
    steps = np.linspace(0.0, reach, max(2, int(reach) + 1))
    xs = np.round(centres[:, :1] + steps * near[0]).astype(int)
    ys = np.round(centres[:, 1:] + steps * near[1]).astype(int)
    h, w = view.body.shape
    inside = np.cumprod((xs >= 0) & (xs < w) & (ys >= 0) & (ys < h), 1).astype(bool)  # (up to the edge)
    out: Bools = (inside & (view.body[np.clip(ys, 0, h - 1), np.clip(xs, 0, w - 1)] == 0)).any(1)
    return out


def _kmeans(points: Floats, most: int) -> list[list[int]]:
    """Labels of ``points`` in 2, 3 ... ``most`` clusters: farthest-point start, a few
    Lloyd steps. (Each start takes the one before and a point more: the distances between
    the points serve them all. On numbers past the distances and their sums, which NumPy
    sums its own way: a proposal has a few pips, too few for NumPy's calls to pay, and a
    frame has dozens.)"""
    d = np.sqrt(_dist2(points[:, None], points[None]))
    total, rows = d.sum(1).tolist(), d.tolist()
    xs, ys = points[:, 0].tolist(), points[:, 1].tolist()
    chosen = [total.index(max(total))]
    out = []
    for k in range(2, most + 1):
        nearest = [min(column) for column in zip(*(rows[c] for c in chosen))]
        chosen.append(nearest.index(max(nearest)))
        # (Each point's nearest centre: the first of the nearest, as NumPy's argmin.)
        labels = [ds.index(min(ds)) for ds in zip(*(rows[c] for c in chosen))]
        for _ in range(3):
            count, sum_x, sum_y = [0] * k, [0.0] * k, [0.0] * k
            for label, x, y in zip(labels, xs, ys):
                count[label] += 1
                sum_x[label] += x
                sum_y[label] += y
            centres = [(sx / max(n, 1), sy / max(n, 1)) for sx, sy, n in zip(sum_x, sum_y, count)]
            moved = []
            for x, y in zip(xs, ys):
                ds = [(x - cx) * (x - cx) + (y - cy) * (y - cy) for cx, cy in centres]
                moved.append(ds.index(min(ds)))
            if moved == labels:
                break
            labels = moved
        out.append(labels)
    return out


def _take_out(gray: Image, pips: Pips, seams: _Seams, groups: list[list[int]],
              seen: dict[frozenset[int], tuple[_Fit, float] | None]) -> list[list[_Face]]:
    """The faces in each group, the best taken out with every pip on it, then the best of
    the rest, and so on; all groups a round at a time, so that their fits are batched."""
    faces: list[list[_Face]] = [[] for _ in groups]
    rests = [list(g) for g in groups]
    active = list(range(len(groups)))
    while active:
        found = _read_groups(gray, pips, seams, [rests[i] for i in active], seen)
        still = []
        for i, face in zip(active, found):
            if face is None:
                continue
            faces[i].append(face)
            # Every pip on the face goes with it (it fits no other face); a lone pip's face
            # has none but it (its grid is checked empty).
            rest = rests[i]
            if len(face.pips) > 1:
                inverse = np.linalg.inv(face.grid[:, :2])
                at = (pips.xy[rest] - face.grid[:, 2]) @ inverse.T
                on: Bools = np.all(np.abs(at) <= 1.6, 1)
                rest = [k for k, o in zip(rest, on) if not o]
            rests[i] = [k for k in rest if k not in face.pips]
            # What is left holds another face only if some pip there is like this face's
            # (a side face's pips are squashed another way), or rounder than its pips, as
            # a top face's are than a side face's (_side_face): the face taken out may be
            # a side face, read first for its many pips (the front faces of a row of dice
            # touching, 5s and 6s, before their top faces, a 1 to a 4).
            if rests[i] and (_alike(pips, face.pips, rests[i]).any()
                             or float(pips.roundness[rests[i]].max()) > face.flat + 0.1):
                still.append(i)
        active = still
    return faces


# Grid steps (of the face read first): how near the centre of a face read after it may lie.
# A face is 1 / 0.26 steps across (_face), so a die touching it lies 3.85 steps away or
# more; pips set a little further out (0.28 of some dice's face) and perspective bring a
# right neighbour nearer: of 2,967 pairs of right faces in clusters of the development
# scenes 9100-10799 (the first of several pips), none within 3.23. Faces across a seam
# are followed by faces within 2.0-3.0 steps of them, some within 3.2-3.3 (left).
_OVERLAP = 3.2


def _overlapped(pips: Pips, faces: list[_Face]) -> _Face | None:
    """The first face of several pips (of ``faces``, in the order read) within which lies
    the centre of a sure face read after it, of pips like its own (a top face too): two
    dice's top faces do not overlap, so one of the two is read wrong."""
    for k, face in enumerate(faces):
        if len(face.pips) < 2:
            continue
        inverse = np.linalg.inv(face.grid[:, :2])
        for later in faces[k + 1:]:
            at = inverse @ (np.array(later.read.centre) - face.grid[:, 2])
            if (math.hypot(at[0], at[1]) < _OVERLAP and later.read.confidence >= 0.5
                    and _alike(pips, face.pips, later.pips).any()):
                return face
    return None


def _explained(faces: list[_Face]) -> int:
    """How many pips the sure faces (0.5 or more) hold."""
    return sum(len(face.pips) for face in faces if face.read.confidence >= 0.5)


def _read_clusters(gray: Image, pips: Pips, seams: _Seams,
                   groups: list[list[int]]) -> list[list[_Face]]:
    """The faces in groups of pips that are not plainly one face each: a group can hold the
    faces of dice touching with no seam to be seen between them (dark dice), and a side
    face or two. In each, the best face is taken out with every pip on it, then the best
    of the rest, and so on (:func:`_take_out`).

    The best face first is not always right: across the seam of two dice touching that
    barely dips, a 4's pips and two of the 5 beside it make a 6, doubtfully but sure
    enough to go first, and the 5's pips left over are then read as 1s lying within the
    6's face. Top faces do not overlap: where a sure face read later lies within one of
    several pips read before it (:func:`_overlapped`), the group is read again without
    that face, and the new reading is kept if nothing overlaps in it, its sure faces hold
    as many pips, and it has no more faces (a 6 followed by a 1 of its side face's pip,
    read again, makes two 3s of its columns and the same 1)."""
    seen: dict[frozenset[int], tuple[_Fit, float] | None] = {}
    faces = _take_out(gray, pips, seams, groups, seen)
    wrong = [(i, face) for i, found in enumerate(faces) if (face := _overlapped(pips, found)) is not None]
    if wrong:
        for _, face in wrong:
            seen[frozenset(face.pips)] = None  # (fitted as no face: the groups share no pips)
        again = _take_out(gray, pips, seams, [groups[i] for i, _ in wrong], seen)
        for (i, _), found in zip(wrong, again):
            if (_overlapped(pips, found) is None and _explained(found) >= _explained(faces[i])
                    and len(found) <= len(faces[i])):
                faces[i] = found
    return faces


def _apart(a: _Face, b: _Face) -> float:
    """How far apart two faces are, in face sides."""
    return math.dist(a.read.centre, b.read.centre) / max(a.read.side, b.read.side, 1e-6)


def _read_kind(gray: Image, smooth: Image, pips: Pips, use: Bools, side: float,
               faces: dict[int, list[_Face]]) -> None:
    """The faces the pips in ``use`` (one kind of marks) make, added to ``faces`` by blob."""
    pairs, seams = _same_face(pips, smooth, 0.85 * pips.side, 0.06 * side, use)
    groups = [g for g in _groups(len(pips), pairs) if use[g[0]]]
    # A group of pips far flatter than the roundest on its blob is a side face seen
    # almost edge on.
    flat = [float(_mid(pips.roundness[g])) for g in groups]
    roundest: dict[int, float] = {}
    for g, roundness in zip(groups, flat):
        blob = int(pips.blob[g[0]])
        roundest[blob] = max(roundest.get(blob, 0.0), roundness)
    groups = [g for g, roundness in zip(groups, flat)
              if roundness >= roundest[int(pips.blob[g[0]])] - 0.45]
    clean, rest = _read_clean(gray, pips, seams, groups)
    for face in clean:
        faces.setdefault(face.blob, []).append(face)
    for g, found in zip(rest, _read_clusters(gray, pips, seams, rest)):
        faces.setdefault(int(pips.blob[g[0]]), []).extend(found)


def read_pip_faces(view: View, *, threshold: float = 0.5) -> list[tuple[int, FaceRead]]:
    """Every top face on the dice of a view: (blob, face) pairs in view pixels, confidence
    below ``threshold`` reported as unknown."""
    image, side = view.image, view.side
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    smooth = cv2.blur(gray, (3, 3))
    faces: dict[int, list[_Face]] = {}
    # Both kinds of pips are found; on each blob, the kind with more round discs is its
    # dice's (the other kind is the face showing between pips, or glare).
    kinds = [find_pips(gray, view.body, view.boxes, side, dark=dark, sides=view.sides)
             for dark in (True, False)]
    weight = [np.bincount(p.blob, p.contrast * ((p.roundness >= 0.6) & (p.fill >= 0.8)),
                          len(view.boxes) + 1) for p in kinds]
    for pips, mine, theirs in zip(kinds, weight, weight[::-1]):
        _read_kind(gray, smooth, pips, (mine >= theirs)[pips.blob], side, faces)
    # Round marks are not always pips: a white die's face showing between its front face's
    # pips (flat, so weighing nothing) is a round light mark too, and may outweigh a 1's
    # lone pip. A blob whose kind of marks read no face is read for the other kind's round
    # marks when its grey levels plainly say that its marks are of that kind (a dark pip
    # on a blob mostly light); else it may be clutter, a laptop's keys with light prints.
    unread = np.ones(len(view.boxes) + 1, bool)
    unread[[blob for blob, found in faces.items() if found]] = False
    others = [unread & (theirs > mine) & (mine > 0) for mine, theirs in (weight, weight[::-1])]
    if any(other.any() for other in others):  # (rare: the grey levels are not worked out else)
        lean = mark_lean(gray, view.body, side, len(view.boxes) + 1)
        for pips, other, says in zip(kinds, others, (lean > PLAIN, lean < -PLAIN)):
            use = (other & says)[pips.blob]
            if use.any():
                _read_kind(gray, smooth, pips, use, side, faces)
    uniques: dict[int, list[_Face]] = {}
    for blob, found in faces.items():
        # One face read twice (its pips, and the plain face between them as light marks):
        # the surer reading, then the one with more marks, is the face.
        found.sort(key=lambda face: (-face.read.confidence, -face.read.marks))
        unique = uniques[blob] = []
        for face in found:
            if all(_apart(face, k) > 0.4 for k in unique):
                unique.append(face)
    near = _near_side(uniques, view)
    every = [face for unique in uniques.values() for face in unique]
    if every:
        ends = iter(_ends_below(np.array([face.read.centre for face in every]), view, near).tolist())
        uniques = {blob: [replace(face, ends=next(ends)) for face in unique]
                   for blob, unique in uniques.items()}
    tops: list[_Face] = []
    middle = np.array(view.body.shape[::-1], float) / 2  # (where the camera's axis meets the picture)
    for blob, unique in uniques.items():
        tops.extend(_drop_side_faces(unique, view.counts[blob - 1], near=near, middle=middle))
    # A die on a tray close to it in colour may be found in two parts, its top face in one
    # blob and its front face in the next: faces of neighbouring blobs are weighed too, as
    # a blob of more than one die would be (two blobs are no proof of one die).
    out = []
    for face in _drop_side_faces(tops, 2, across=True, near=near, middle=middle):
        read = face.read
        name = read.face if read.confidence >= threshold else "unknown"
        out.append((face.blob, FaceRead(name, read.confidence, read.centre, read.marks, read.side)))
    return out
