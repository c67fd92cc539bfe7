"""Comparing a card seen by the camera with one taught example, closely.

The seen card is first aligned onto the example (:func:`align`): the outline the
finder gave is a few pixels off, and a rune stroke is only two pixels wide at the
size faces are compared, so the seen face is warped by the perspective (ECC) that
best lines its detail up with the example's. Then the two are compared pixel by
pixel (:func:`compare`), which gives a :class:`Likeness`:

* where the two differ, and by how much (``difference``, in units of local contrast);
* which of those differences are *covered*, and count neither for nor against the
  example: a finger enters from outside the card, where the finder did not see the
  card's outline (:func:`open_rim`), and is of another tint than the card; another
  card lying over it differs all the way from that hidden stretch of outline; a glare
  spot washes out whatever print is under it;
* which are *contradictions*: the largest patch of clear difference that is not
  covered, is the card showing something the example does not (another rune): the
  card is not this example.

The deck (:mod:`vision.cards.deck`) decides from the likenesses of the few examples
a card can be which one it is, if any.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .face import SIZE, Face

__all__ = ["Likeness", "align", "compare", "open_rim"]

ECC_STEPS = 15
"""Most ECC iterations when aligning (it usually settles in under 15)."""

MAX_SHIFT = 0.1
"""Most an alignment may move a corner, as a share of the face's width: more is no
longer the same card lined up, but another picture forced onto it."""

CLEAR = 0.6
"""Difference (squared, in units of local contrast, smoothed) that is clearly not noise."""

EDGE = 5
"""Width, in face pixels, of the band along the card's edge where covering enters."""


@dataclass(frozen=True, slots=True)
class Likeness:
    """How a seen face compares with one example (see the module's doc).

    ``fit``: the mean difference over the uncovered card (0 for a perfect match).
    ``contradiction``: the clear difference inside the card, summed over its largest
    patch (face pixels times difference): 0 when the card shows nothing the example
    does not.
    ``covered``: the share of the card taken to be under a finger or another card
    (``covering`` says where, in the example's pixels).
    ``warp``: the alignment, a homography from example face to seen face pixels.
    ``difference``: the difference, pixel by pixel (the example's pixels).
    """

    fit: float
    contradiction: float
    covered: float
    warp: np.ndarray
    difference: np.ndarray
    covering: np.ndarray


def align(seen: Face, example: Face) -> np.ndarray:
    """The homography (3 x 3, face pixels) taking ``example`` pixels to where they lie on
    ``seen``; the identity when ECC finds nothing better."""
    warp = np.eye(3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, ECC_STEPS, 1e-2)
    try:
        _, warp = cv2.findTransformECC(example.coarse, seen.coarse, warp, cv2.MOTION_HOMOGRAPHY,
                                       criteria, None, 1)
    except cv2.error:  # did not converge: the two do not line up at all
        return np.eye(3, dtype=np.float32)
    half = np.diag([2.0, 2.0, 1.0]).astype(np.float32)
    warp = half @ warp @ np.linalg.inv(half)
    corners = np.float32([[0, 0], [SIZE[0], 0], [SIZE[0], SIZE[1]], [0, SIZE[1]]])
    moved = cv2.perspectiveTransform(corners[None], warp)[0]
    if np.abs(moved - corners).max() > MAX_SHIFT * SIZE[0]:
        return np.eye(3, dtype=np.float32)
    return warp.astype(np.float32)


PLAIN = 0.3
"""Detail (local contrast units) under which a washed-out patch shows nothing."""

REACH = 0.45
"""How far into a card (a share of its width) something lying across its edge may
cover it: a fingertip over a card reaches a third of the way in."""

BODY = 0.005
"""Least share of a card that something lying across it, of another colour than the
card, takes up (a fingertip over a card: some 5%)."""

RIM = 5
"""Face pixels along the card's edge left out of the comparison: the outline found may
be a pixel or two off, so there the table or the card's rim shows by turns."""

_INSIDE = np.zeros(SIZE[::-1], np.float32)
_INSIDE[RIM:-RIM, RIM:-RIM] = 1
_INSIDE_AREA = float(_INSIDE.sum())

FAR_OFF = 0.25
"""Mean difference over a card beyond which, nothing covering it, it is plainly not the
example (the same card: about 0.02; another card of a deck of look-alikes: 0.05-0.1)."""

BORDER = 8
"""Face pixels along the card's edge where a difference is no contradiction: an outline
a little off shifts the card's own border there (a card's print starts further in)."""

_CORE = np.zeros(SIZE[::-1], bool)
_CORE[BORDER:-BORDER, BORDER:-BORDER] = True


OPENING = 0.1
"""Least share of a side, hidden in one stretch, taken for something lying across it
(a finger is a quarter of a card wide); shorter gaps are the table's pattern matching
the card's edge here and there."""


def _long_runs(hidden: np.ndarray, share: float) -> np.ndarray:
    """``hidden`` (sides x samples) with runs shorter than ``share`` of a side cleared."""
    least = max(2, int(round(share * hidden.shape[1])))
    out = np.zeros_like(hidden)
    for side, row in enumerate(hidden):
        padded = np.concatenate([[0], row.astype(np.int8), [0]])
        starts = np.flatnonzero(np.diff(padded) == 1)
        ends = np.flatnonzero(np.diff(padded) == -1)
        for a, b in zip(starts, ends):
            if b - a >= least:
                out[side, a:b] = True
    return out


def open_rim(edge_seen: np.ndarray | None) -> np.ndarray:
    """Where along a face's edge something may lie across the card: the band just inside
    the rim, beside the parts of the card's outline the finder did not see.

    ``edge_seen`` is :attr:`vision.cards.find.FoundCard.edge_seen` (sides top, right,
    bottom, left of the upright face, each from its corner clockwise); None for an
    outline seen all round.
    """
    band = np.zeros(SIZE[::-1], bool)
    if edge_seen is None:
        return band
    w, h = SIZE
    hidden = _long_runs(~np.asarray(edge_seen, bool), OPENING)
    hidden[:, 1:] |= hidden[:, :-1].copy()
    hidden[:, :-1] |= hidden[:, 1:].copy()
    samples = hidden.shape[1]

    def along(side: int, n: int, backwards: bool) -> np.ndarray:
        t = (np.arange(n) + 0.5) / n
        t = 1 - t if backwards else t
        k = np.clip(np.rint((t - 0.06) / 0.88 * (samples - 1)), 0, samples - 1).astype(int)
        return hidden[side, k]

    inner = slice(RIM, RIM + EDGE)
    band[inner, :] |= along(0, w, False)[None, :]
    band[:, w - RIM - EDGE:w - RIM] |= along(1, h, False)[:, None]
    band[h - RIM - EDGE:h - RIM, :] |= along(2, w, True)[None, :]
    band[:, inner] |= along(3, h, True)[:, None]
    band &= _INSIDE > 0
    return band


def compare(seen: Face, example: Face, warp: np.ndarray | None = None,
            opening: np.ndarray | None = None) -> Likeness:
    """``seen`` against ``example``, aligned by ``warp`` (found by :func:`align` if None).

    ``opening`` (from :func:`open_rim`, for ``seen`` as given) is where something may
    lie across the card; None: nowhere.
    """
    if warp is None:
        warp = align(seen, example)
    lined_up = cv2.warpPerspective(seen.detail, warp, SIZE, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
    diff = lined_up - example.detail
    difference = cv2.GaussianBlur(diff * diff, (0, 0), 2.0) * _INSIDE
    open_rim_given = opening is not None and opening.any()
    if not open_rim_given and not seen.glare.any():
        # Nothing can cover the card: a card far from the example needs no closer look.
        mean = float(np.minimum(difference, 2.0).sum()) / _INSIDE_AREA
        if mean > FAR_OFF:
            nothing = np.zeros(difference.shape, bool)
            return Likeness(mean, float("inf"), 0.0, warp, difference, nothing)
    clear = difference > CLEAR
    # A glare spot hides the print under it, like a finger, but anywhere; it cannot add
    # print, so only where the card shows nothing at all.
    washed = np.zeros_like(clear)
    if seen.glare.any():
        washed = cv2.warpPerspective(seen.glare, warp, SIZE, flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE) > 0
        washed &= cv2.GaussianBlur(np.abs(lined_up), (0, 0), 1.5) < PLAIN
    covered = washed & clear
    if open_rim_given:
        reach = cv2.distanceTransform((~opening).astype(np.uint8), cv2.DIST_L2, 3) < REACH * SIZE[0]
        # A finger: of another colour than the card, entering where the outline is
        # hidden, and of some size (an outline hidden by a table much like the card's
        # edge has nothing beside it). It covers itself and its own outline, no more:
        # print that differs beyond it is the card's own.
        body = _touching(_recoloured(seen, example, warp) & reach, opening)
        if body.sum() >= BODY * SIZE[0] * SIZE[1]:
            covered |= cv2.dilate(body.astype(np.uint8), _BESIDE) > 0
        # A card lying over it: other print all the way from the hidden outline.
        covered |= _touching(clear & reach, opening)
    # The largest patch counts: another card's rune is one patch; light and noise leave
    # small scattered ones.
    inside = (clear & ~covered & _CORE).astype(np.uint8)
    count, patches = cv2.connectedComponents(inside, connectivity=8)
    excess = np.where(inside > 0, difference - CLEAR, 0).astype(np.float32)
    contradiction = float(np.bincount(patches.ravel(), excess.ravel(), count)[1:].max()) if count > 1 else 0.0
    # What lies on the card shades and blurs what is just beside it too.
    shown = _INSIDE > 0
    if covered.any():
        shown = shown & ~(cv2.dilate(covered.astype(np.uint8), _BESIDE) > 0)
    if washed.any():
        shown = shown & ~washed
    fit = float(np.minimum(difference[shown], 2.0).mean()) if shown.any() else 2.0
    return Likeness(fit, contradiction, float(covered.mean()), warp, difference, covered)


def _touching(mask: np.ndarray, seeds: np.ndarray) -> np.ndarray:
    """The patches of ``mask`` that touch ``seeds``."""
    count, labels = cv2.connectedComponents(mask.astype(np.uint8), connectivity=8)
    touching = np.zeros(count, bool)
    touching[np.unique(labels[seeds & mask])] = True
    touching[0] = False
    return touching[labels]


_BESIDE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (7, 7))
"""Just beside something lying on a card: three face pixels round."""

RECOLOURED = 0.06
"""Difference of tint (:func:`vision.cards.face.tint`) that marks something other than
the card lying on it: a finger over white card is some 0.08, over print more."""

_TO_HALF = np.float32([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]])


def _recoloured(seen: Face, example: Face, warp: np.ndarray) -> np.ndarray:
    """Where the seen card's tint is not the example's (a lamp's colour evened out)."""
    half = _TO_HALF @ warp @ np.linalg.inv(_TO_HALF)
    lined_up = cv2.warpPerspective(seen.tint, half, (SIZE[0] // 2, SIZE[1] // 2),
                                   flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                   borderMode=cv2.BORDER_REPLICATE)
    change = lined_up - example.tint
    change -= np.median(change.reshape(-1, 2), axis=0)
    off = (np.abs(change).max(axis=2) > RECOLOURED).astype(np.uint8)
    return cv2.resize(off, SIZE, interpolation=cv2.INTER_NEAREST) > 0
