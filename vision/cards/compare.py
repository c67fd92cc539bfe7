"""Comparing a card seen by the camera with one taught example, closely.

The seen card is first aligned onto the example (:func:`align`): the outline the
finder gave is a few pixels off, and a rune stroke is only two pixels wide at the
size faces are compared, so the seen face is warped by the perspective (ECC) that
best lines its detail up with the example's. Then the two are compared pixel by
pixel (:func:`compare`), which gives a :class:`Likeness`:

* where the two differ, and by how much (``difference``, in units of local contrast);
* which of those differences are *covered*, and count neither for nor against the
  example: where a finger or another card lies over the card (found in the frame
  round it, :mod:`vision.cards.cover`), and where a glare spot washes out whatever
  print is under it (and round its clipped core, where its evened light leaves a ring);
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
from numpy.typing import NDArray

from .face import SIZE, Face

__all__ = ["Likeness", "LinedUp", "align", "compare", "shadow_weight"]

ECC_STEPS = 15
"""Most ECC iterations when aligning (it usually settles in under 15)."""

MAX_SHIFT = 0.1
"""Most an alignment may move a corner, as a share of the face's width: more is no
longer the same card lined up, but another picture forced onto it."""

CLEAR = 0.6
"""Difference (squared, in units of local contrast, smoothed) that is clearly not noise."""

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
    warp: NDArray[np.float32] = np.eye(3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, ECC_STEPS, 1e-2)
    try:
        # The stub types inputMask without None when gaussFiltSize follows; OpenCV takes None.
        _, warp = cv2.findTransformECC(  # type: ignore[call-overload]
            example.coarse, seen.coarse, warp, cv2.MOTION_HOMOGRAPHY, criteria, None, 1)
    except cv2.error:  # did not converge: the two do not line up at all
        return np.eye(3, dtype=np.float32)
    half = np.diag([2.0, 2.0, 1.0]).astype(np.float32)
    warp = half @ warp @ np.linalg.inv(half)
    corners = np.array([[0, 0], [SIZE[0], 0], [SIZE[0], SIZE[1]], [0, SIZE[1]]], np.float32)
    moved = cv2.perspectiveTransform(corners[None], warp)[0]
    if np.abs(moved - corners).max() > MAX_SHIFT * SIZE[0]:
        return np.eye(3, dtype=np.float32)
    return warp.astype(np.float32)


PLAIN = 0.3
"""Detail (local contrast units) under which a washed-out patch shows nothing."""

RIM = 5
"""Face pixels along the card's edge left out of the comparison: the outline found may
be a pixel or two off, so there the table or the card's rim shows by turns."""

_INSIDE = np.zeros(SIZE[::-1], np.float32)
_INSIDE[RIM:-RIM, RIM:-RIM] = 1
_INSIDE_AREA = float(_INSIDE.sum())
_IN = _INSIDE > 0

FAR_OFF = 0.25
"""Mean difference over a card beyond which, nothing covering it, it is plainly not the
example (the same card: about 0.02; another card of a deck of look-alikes: 0.05-0.1)."""

BORDER = 8
"""Face pixels along the card's edge where a difference is no contradiction: an outline
a little off shifts the card's own border there (a card's print starts further in)."""

SHADOW = 8.0
"""Face pixels beside a thing lying on the card that its shadow may darken."""

SHADED = 0.5
"""Least weight of a difference in a thing's shadow (right beside it)."""


def shadow_weight(lying: NDArray[np.bool_]) -> NDArray[np.float32]:
    """How much each face pixel says, given what lies on the card (``lying``): beside it
    its rim and shadow may darken the print, so there a pixel counts less, from
    :data:`SHADED` right at its edge to fully :data:`SHADOW` pixels away."""
    near = cv2.distanceTransform((~lying).astype(np.uint8), cv2.DIST_L2, 3)
    return np.clip(near / SHADOW, SHADED, 1.0)

_CORE = np.zeros(SIZE[::-1], bool)
_CORE[BORDER:-BORDER, BORDER:-BORDER] = True


def _lined_up_mask(mask: np.ndarray, warp: np.ndarray) -> NDArray[np.bool_]:
    """A mask of the seen face (0/1 uint8) in the example's pixels, aligned by ``warp``."""
    lined: NDArray[np.bool_] = cv2.warpPerspective(
        mask, warp, SIZE, flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_REPLICATE) > 0
    return lined


@dataclass(frozen=True, slots=True)
class LinedUp:
    """A seen face lined up on the examples' pixels by one warp: all of :func:`compare`
    that does not depend on the example. The cards of a deck mostly share a layout, so
    one alignment serves every card shortlisted (:mod:`vision.cards.deck`), and this is
    worked out once for them all, not once per card.

    ``detail``: the seen face's detail in the example's pixels; ``lying``: where
    something lies over the card there (None: nothing), and ``lying_in`` the part of it
    inside the card's rim (all False if nothing lies there); ``weight``: the say of each
    pixel beside it (:func:`shadow_weight`; None when nothing lies on the card);
    ``washed``: where a glare spot washes the print out; ``plain``: nothing can cover
    the card (no covering, no glare).
    """

    seen: Face
    warp: np.ndarray
    detail: np.ndarray
    lying: NDArray[np.bool_] | None
    lying_in: NDArray[np.bool_]
    weight: NDArray[np.float32] | None
    washed: NDArray[np.bool_]
    plain: bool

    @classmethod
    def of(cls, seen: Face, warp: np.ndarray, covering: np.ndarray | None = None) -> LinedUp:
        """``seen`` lined up by ``warp``, with ``covering`` as for :func:`compare`."""
        detail = cv2.warpPerspective(seen.detail, warp, SIZE, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                     borderMode=cv2.BORDER_REPLICATE)
        lying = None if covering is None else _lined_up_mask(covering.astype(np.uint8), warp)
        weight = shadow_weight(lying) if lying is not None and lying.any() else None
        glared, spotted = bool(seen.glare.any()), bool(seen.spot.any())
        # A glare spot hides the print under it, like a finger, but anywhere; it cannot add
        # print, so only where the card shows nothing at all; round its clipped core, its
        # evened light leaves a ring of detail, so there whatever shows.
        washed = np.zeros(SIZE[::-1], bool)
        if glared:
            washed = _lined_up_mask(seen.glare, warp)
            washed &= cv2.GaussianBlur(np.abs(detail), (0, 0), 1.5) < PLAIN
        if spotted:
            washed |= _lined_up_mask(seen.spot, warp)
        lying_in = np.zeros(SIZE[::-1], bool) if lying is None else lying & _IN
        return cls(seen, warp, detail, lying, lying_in, weight, washed,
                   covering is None and not glared and not spotted)


def compare(seen: Face | LinedUp, example: Face, warp: np.ndarray | None = None,
            covering: np.ndarray | None = None) -> Likeness:
    """``seen`` against ``example``, aligned by ``warp`` (found by :func:`align` if None).

    ``covering`` (from :func:`vision.cards.cover.covering`, for ``seen`` as given) is
    where something lies over the card; None: nothing. ``seen`` already lined up
    (:class:`LinedUp`) is compared as it is (``warp`` and ``covering`` are its own).
    """
    if isinstance(seen, Face):
        seen = LinedUp.of(seen, align(seen, example) if warp is None else warp, covering)
    diff = seen.detail - example.detail
    lying = seen.lying
    if lying is not None:
        # What lies over the card is no part of it: it differs neither way, and its
        # difference must not spread onto the print beside it.
        diff[lying] = 0
    difference = cv2.GaussianBlur(diff * diff, (0, 0), 2.0) * _INSIDE
    if seen.plain:
        # Nothing can cover the card: a card far from the example needs no closer look.
        mean = float(np.minimum(difference, 2.0).sum()) / _INSIDE_AREA
        if mean > FAR_OFF:
            nothing = np.zeros(difference.shape, bool)
            return Likeness(mean, float("inf"), 0.0, seen.warp, difference, nothing)
    clear = difference > CLEAR
    washed = seen.washed
    covered = washed & clear
    if lying is not None:
        covered |= seen.lying_in
    # The largest patch counts: another card's rune is one patch; light and noise leave
    # small scattered ones.
    inside = clear & ~covered & _CORE
    count, patches = cv2.connectedComponents(inside.view(np.uint8), connectivity=8)
    # Only the pixels of the patches are summed (a bool mask's are found quickly).
    at = np.flatnonzero(inside)
    excess = difference.ravel()[at] - CLEAR
    if seen.weight is not None:
        # Beside what lies on the card falls its shadow: a difference there counts less,
        # and none where the card shows darker than the example (a shadow, or a finger's
        # dark rim the covering missed, only darkens; another print there is lighter
        # somewhere too, and the look-alike check still asks what it is).
        weight = seen.weight.ravel()[at]
        excess *= weight
        excess[(weight < 1) & (cv2.GaussianBlur(diff, (0, 0), 2.0).ravel()[at] < 0)] = 0
    contradiction = float(np.bincount(patches.ravel()[at], excess, count)[1:].max()) if count > 1 else 0.0
    shown = _IN & ~covered
    if washed.any():
        shown = shown & ~washed
    fit = float(np.minimum(difference[shown], 2.0).mean()) if shown.any() else 2.0
    return Likeness(fit, contradiction, float(covered.mean()), seen.warp, difference, covered)
