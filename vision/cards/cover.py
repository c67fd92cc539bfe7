"""What lies over a card: a finger, a hand, another card, found in the frame round it.

Where something lies across a card, the finder does not see the card's edge
(:attr:`vision.cards.find.FoundCard.edge_seen`): the same thing lies on both sides
of it. So the thing is looked for from just outside the card, where it can be
nothing of the card's own print:

* **another card** found in the frame over that stretch of edge, and just inside it,
  lies on this one (the card on top shows its whole edge, the one below does not; a
  card below, whose outline runs on under this one, holds the point inside but not
  the edge, and a card beside, outlined along a finger to this card's edge, the edge
  but not the point inside);
* anything else (a finger, a hand, a die) is the colour seen just outside that
  stretch, followed into the card as long as it keeps that colour and is nearer to
  it than to the colour of the card's own rim (its border, seen along the rest of
  its edge), except across the rim at that stretch. (Where the
  table, not a finger, happened to match the card's edge, it is the rim's colour
  too, and is followed no further than the rim; where a glare spot on the table
  washed out the card's edge, what lies outside is white of the table's tint paled by
  the light, as a fingertip the light clips as white may be, and it too is followed
  only across the rim; a clipped white far from the table's tint paled, on a
  strongly coloured table, is a fingertip, and followed as any finger.)

The result does not depend on which card of the deck this one is compared with,
so every card of the deck is judged against the same covering, and a difference
that lies under it counts for none of them (:mod:`vision.cards.deck`).
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from .face import MARGIN, SIZE
from .find import SAMPLES, FoundCard, rectify_target

__all__ = ["covering"]

OPENING = 0.1
"""Least share of a side, hidden in one stretch, taken for something lying across it
(a finger is a quarter of a card wide); shorter gaps are the table's pattern matching
the card's edge here and there."""

BAND = 12
"""How far round the card (face pixels, an eighth of its width) the frame is looked at."""

REACH = (2, 6)
"""Face pixels from the card's edge, out and in, where the colours beside it are taken."""

LIGHT = 0.35
"""Least tolerance of lightness (natural log of the brightness) within one thing lying
on the card: a finger is lit from above, bright along its middle, darker at its sides,
and its rounded tip is lighter or darker again (a tip left out, plain as paper or dark
as ink, told for one print of a rune under it; 0.25 left it out)."""

LOOSE_LIGHT = 0.7
"""Tolerance of lightness within one thing lying on a card, on the second look at a card
left unknown (:func:`covering`'s ``following``): a fingertip's rounded end, shaded or in
a lamp's light, may be lighter or darker than the finger's middle by more than ``LIGHT``
(seed 84 f47 needs 0.5 to be followed to its end, seed 82 f65, in deeper shade, 0.7: half
as bright as the finger's middle). Only a second look, so no card named before
is lost: a covering grown for every card (s17-cards-cover's record: twice the tolerance
beside what was followed) grew along fingers' sides too, over ``COVERED``, or hid
telling runes."""

TINT = 0.02
"""Least tolerance of colour (:func:`_colour`'s shares) within one thing lying on the
card: the colour of a finger is the same in its light and in its shade."""

SPREAD = 3.0
"""Tolerance, in spreads (median absolute deviation) of the colours seen outside."""

TABLE = 0.4
"""Share of the ring round a card beyond which what was followed from a stretch of its
edge is the table, not a thing lying over the card."""

GLARE = 225
"""Brightness (of 255) beyond which what lies just outside a card, of the table's tint
paled by the light (:func:`_glare`), may be a glare spot on the table rather than a
finger: it is followed only across the card's rim."""

RIM_ZONE = 8
"""How far from a stretch of hidden edge (face pixels, a card's border and more) the
thing lying over it is followed where the card's rim has its colour too."""

ON_TOP = 4
"""Face pixels inside the middle of a stretch of hidden edge where another card found
must lie, as well as on the edge there, to be lying over this one: a card on top covers
this one's rim, where an outline of a card beside, run along a finger to this card's
edge, only touches it (seed 41 f67: its corner under a face pixel from the stretch's
middle). Half the rim's zone, so a card on top over a corner, shallow at the stretch's
middle, is still taken. The edge itself is asked too: the outline of a card below this
one runs on under it, holding points inside but not the edge the finger hides (seed 6
f16, seed 32 f2)."""

CLIPPED = 0.04
"""How far (in :func:`_colour`'s shares) clipping may grey a glare spot's tint from the
table's tint paled by the light: a spot washed to white on a green-grey table (seed 40
f78, f97) is 0.024 from it, a fingertip clipped white on a pink table (seed 3 f75) 0.127.
Twice ``TINT``: a spot not quite clipped is nearer."""

BESIDE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (9, 9))
"""What lies on a card shades and blurs just beside it too: four face pixels round."""


def covering(frame: np.ndarray, found: FoundCard, others: Sequence[FoundCard] = (),
             touching: bool = False, following: bool = False) -> np.ndarray | None:
    """Where something lies over ``found`` in ``frame`` (BGR), as a mask of its upright
    face (``SIZE``, corner 0 top-left, the deck's margin cut off), or None if nothing
    does. ``others`` are the other cards found in the frame; if ``touching``, one whose
    outline holds a stretch's middle on the edge but not inside it is taken for lying
    over it too (see :func:`touched`). If ``following`` (a second look at a card left
    unknown), what lies outside a stretch another card lies over is followed into the
    card as well (the outline of a card beside may have been run along a finger onto
    this card's rim, seed 81 f27: it covers the rim, not the fingertip beyond it over
    the print), and the lightness of one thing may vary by ``LOOSE_LIGHT``."""
    if found.edge_seen is None:
        return None
    stretches = _stretches(~np.asarray(found.edge_seen, bool))
    if not stretches:
        return None
    w, h = SIZE
    target = rectify_target(SIZE, MARGIN)
    to_face = cv2.getPerspectiveTransform(found.corners.astype(np.float32), target)
    cover = np.zeros((h, w), np.uint8)
    rest = []
    for side, start, end in stretches:
        mid = _along(target, side, (start + end - 1) / 2 / (SAMPLES - 1))
        on_top = [o for o in _holding(to_face, found, others, mid)
                  if touching or _inside_of(o, _to_frame(to_face, mid + ON_TOP * _INWARD[side]))]
        if on_top:
            for o in on_top:
                quad = cv2.perspectiveTransform(o.corners[None].astype(np.float32), to_face)[0]
                cv2.fillConvexPoly(cover, np.round(quad * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        if following or not on_top:
            rest.append((side, start, end))
    if rest:
        cover |= _things(frame, to_face, target, rest, LOOSE_LIGHT if following else LIGHT)
    if not cover.any():
        return None
    return cv2.dilate(cover, BESIDE) > 0


def touched(found: FoundCard, others: Sequence[FoundCard]) -> bool:
    """Whether the outline of another card found (``others``) holds a hidden stretch of
    ``found``'s edge at its middle but not the point ``ON_TOP`` inside it: a card beside
    outlined along a finger to this card's edge, or a card on top over a corner, shallow
    there. The finger is then followed (:func:`covering`); where that leaves the card
    unknown, the other outline's covering is a second reading (seed 36 f40: a finger
    over the telling rune's end, outlined by the card beside it all but its tip)."""
    if found.edge_seen is None:
        return False
    target = rectify_target(SIZE, MARGIN)
    to_face = cv2.getPerspectiveTransform(found.corners.astype(np.float32), target)
    for side, start, end in _stretches(~np.asarray(found.edge_seen, bool)):
        mid = _along(target, side, (start + end - 1) / 2 / (SAMPLES - 1))
        inside = mid + ON_TOP * _INWARD[side]
        if any(not _inside_of(o, _to_frame(to_face, inside)) for o in _holding(to_face, found, others, mid)):
            return True
    return False


def _holding(to_face: np.ndarray, found: FoundCard, others: Sequence[FoundCard], mid: np.ndarray
             ) -> list[FoundCard]:
    """The cards of ``others`` whose outline holds ``mid``, the middle of a stretch of
    ``found``'s hidden edge (on the upright face; ``to_face`` maps the frame to it)."""
    return [o for o in others if o is not found and _inside_of(o, _to_frame(to_face, mid))]


def _things(frame: np.ndarray, to_face: np.ndarray, target: np.ndarray,
            stretches: list[tuple[int, int, int]], light: float) -> np.ndarray:
    """What keeps the colour seen just outside each stretch, followed into the card.

    Where the colour is nearer one of the card's own (its rim's, seen along the rest
    of its edge, or its face's commonest), the thing is followed only across the rim
    at the stretch itself: a finger as dark as a card's frame crosses the frame, it
    does not run along it; and the table, where it happened to match the card's edge,
    is no nearer the card's paper than the paper is.
    """
    w, h = SIZE
    shift = np.array([[1, 0, BAND], [0, 1, BAND], [0, 0, 1]], np.float32)
    size = (w + 2 * BAND, h + 2 * BAND)
    patch = cv2.warpPerspective(frame, shift @ to_face, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
    patch = cv2.GaussianBlur(patch, (0, 0), 0.8)
    col = _colour(patch)
    edge = target + BAND
    outer, inner = _beside(edge, inward=False), _beside(edge, inward=True)
    seen = np.ones((4, SAMPLES), bool)
    for side, start, end in stretches:
        seen[side, start:end] = False
    # The card's own colours: its rim's, and its face's commonest (paper, or a picture),
    # each as itself (a card's face has many colours: their spread says nothing).
    rim = _colours(col, inner, seen)
    face = col[:, BAND + RIM_ZONE:BAND + h - RIM_ZONE, BAND + RIM_ZONE:BAND + w - RIM_ZONE].reshape(3, -1).T
    off_card = _off(col, face[::7], light, spread=False)
    if len(rim) >= 4:
        off_card = np.minimum(off_card, _off(col, rim, light, spread=False))
    card = np.zeros(size[::-1], np.uint8)
    cv2.fillConvexPoly(card, np.round(edge).astype(np.int32), 1)
    ring = (cv2.dilate(card, np.ones((2 * BAND - 1,) * 2, np.uint8)) > card)
    table = np.median(_colours(col, outer, seen), axis=0)
    cover = np.zeros((h, w), np.uint8)
    for side, start, end in _runs(col, outer, stretches, light):
        which = np.zeros((4, SAMPLES), bool)
        which[side, start:end] = True
        outside = _colours(col, outer, which)
        there = np.median(outside, axis=0)
        # A glare spot on the table, as white as the card's edge and paper, or a fingertip
        # the light clips as white (seed 31 f79): either way followed only across the rim
        # at the stretch, as a fingertip hides that much at least and a glare spot is
        # kept out of the card's paper.
        glare = _glare(there, table)
        crossing = np.zeros(size[::-1], np.uint8)
        ends = np.round([_along(edge, side, start / (SAMPLES - 1)),
                         _along(edge, side, (end - 1) / (SAMPLES - 1))]).astype(np.int32)
        cv2.line(crossing, tuple(ends[0]), tuple(ends[1]), 1, 2 * RIM_ZONE + 1)
        off = _off(col, outside, light)
        further = np.zeros_like(crossing, bool) if glare else off < off_card
        passable = ((off <= 1) & (further | (crossing > 0))).astype(np.uint8)
        count, colels = cv2.connectedComponents(passable, connectivity=4)
        seeds = outer[which].reshape(-1, 2)
        keep = np.zeros(count, bool)
        keep[colels[np.clip(seeds[:, 1], 0, size[1] - 1), np.clip(seeds[:, 0], 0, size[0] - 1)]] = True
        keep[0] = False
        thing = keep[colels]
        if thing[ring].mean() > TABLE:
            continue  # it runs round the card: it is the table
        cover |= thing[BAND:BAND + h, BAND:BAND + w]
    return cover


def _glare(there: np.ndarray, table: np.ndarray) -> bool:
    """True when a colour (``there``, as :func:`_colour` gives it) is near-white and of the
    table's tint (``table``) paled by light added to it: a glare spot on the table. Light
    added to every channel alike pales a colour towards grey (its tint shares shrink as
    the brightness grows), and clipping greys it further, so the tint lies between grey
    and the table's own, paled (seed 40 f97: a glare spot on a green-grey table, whose
    own tint is 0.024 off the spot's). But not by much, ``CLIPPED``: on a strongly
    coloured table, any white lies near that line, a fingertip the light clips too
    (seed 3 f75); so it must lie near the paled tint, or the table's own.
    """
    if there[0] < np.log(GLARE + 4):
        return False
    # The sum of the three channels (see :func:`_colour`), plus the constant added to it.
    lit, dim = (3 * (np.exp(c[0]) - 4) + 90 for c in (there, table))
    paled = table[1:] * dim / lit
    if np.abs(there[1:] - paled).max() > CLIPPED and np.abs(there[1:] - table[1:]).max() > TINT:
        return False
    share = float(np.clip(np.dot(there[1:], paled) / max(float(np.dot(paled, paled)), 1e-12), 0, 1))
    return bool(np.abs(there[1:] - share * paled).max() <= TINT)


def _runs(col: np.ndarray, outer: np.ndarray, stretches: list[tuple[int, int, int]], light: float
          ) -> list[tuple[int, int, int]]:
    """The stretches cut where the colour just outside (``outer``, :func:`_beside`)
    changes: a stretch may be hidden partly by a finger and partly by the table matching
    the card's edge."""
    out = []
    for side, start, end in stretches:
        which = np.zeros((4, SAMPLES), bool)
        which[side, start:end] = True
        outside = np.median(_colours(col, outer, which).reshape(end - start, -1, 3), axis=1)
        jumps = np.abs(np.diff(outside, axis=0)) / np.array([light, TINT, TINT], np.float32)
        cuts = [start] + [start + 1 + int(i) for i in np.flatnonzero(jumps.max(axis=1) > 1)] + [end]
        out += [(side, a, b) for a, b in zip(cuts, cuts[1:]) if b - a >= 2]
    return out


def _colour(picture: np.ndarray) -> np.ndarray:
    """Lightness and colour of each pixel of a BGR picture, apart: the log of the
    brightness, and blue and red over green as shares of it (with a constant added, so
    that dark pixels, whose colour is mostly noise, count as grey). A shadow changes
    the first only. As three planes (3 x height x width): :func:`_off` works plane by
    plane (a last axis of three is slow in numpy)."""
    b, g, r = cv2.split(picture.astype(np.float32))
    total = b + g + r
    return np.stack([np.log(total / 3 + 4), (b - g) / (total + 90), (r - g) / (total + 90)])


def _off(col: np.ndarray, colours: np.ndarray, light: float = LIGHT, spread: bool = True) -> np.ndarray:
    """How far each pixel of ``col`` (:func:`_colour`'s planes) is from the colour of
    ``colours`` (n x 3): from their median, in tolerances (``light`` and ``TINT``, or
    ``SPREAD`` times their spread if ``spread`` and that is more); 1 at the edge of the
    tolerance."""
    centre = np.median(colours, axis=0)
    tolerance = np.array([light, TINT, TINT], np.float32)
    if spread:
        tolerance = np.maximum(SPREAD * np.median(np.abs(colours - centre), axis=0), tolerance)
    # The largest of the three, plane by plane: this runs several times for every card
    # covered, and numpy is slow over a last axis of three.
    off: np.ndarray = np.abs((col[0] - centre[0]) / tolerance[0])
    for k in (1, 2):
        np.maximum(off, np.abs((col[k] - centre[k]) / tolerance[k]), out=off)
    return off


def _stretches(hidden: np.ndarray) -> list[tuple[int, int, int]]:
    """The runs of ``hidden`` (sides x samples) at least ``OPENING`` of a side long, as
    (side, first sample, sample after the last). A run that reaches a corner goes on
    round it into the next side's run from that corner: a finger over a corner hides a
    little of each side, and it is one thing lying there."""
    least = max(2, int(round(OPENING * hidden.shape[1])))
    n = hidden.shape[1]
    runs = []
    for row in hidden:
        padded = np.concatenate([[0], row.astype(np.int8), [0]])
        runs.append([(int(a), int(b)) for a, b in zip(np.flatnonzero(np.diff(padded) == 1),
                                                      np.flatnonzero(np.diff(padded) == -1))])
    out = []
    for side, row_runs in enumerate(runs):
        for a, b in row_runs:
            length = b - a
            if b == n:
                length += sum(d - c for c, d in runs[(side + 1) % 4] if c == 0)
            if a == 0:
                length += sum(d - c for c, d in runs[side - 1] if d == n)
            if length >= least:
                out.append((side, a, b))
    return out


_INWARD = np.array([[0, 1], [-1, 0], [0, -1], [1, 0]], np.float32)
"""Each side's inward direction on the upright face (sides clockwise from the top)."""

_T = (0.06 + 0.88 * np.arange(SAMPLES) / (SAMPLES - 1)).astype(np.float32)
"""Where along its side each of the finder's samples lies."""


def _along(corners: np.ndarray, side: int, t: float) -> np.ndarray:
    """The point of a side (from corner ``side`` to the next) at sample position ``t``
    (0 the first sample, 1 the last)."""
    a, b = corners[side], corners[(side + 1) % 4]
    point: np.ndarray = a + (b - a) * (0.06 + 0.88 * t)
    return point


def _beside(corners: np.ndarray, inward: bool) -> np.ndarray:
    """Integer pixels beside the finder's samples of a quadrilateral's sides, ``REACH``
    pixels out (or in): sides x samples x depth x 2. (Worked out once for a card, and
    the samples wanted picked out: see :func:`_colours`.)"""
    a = corners.astype(np.float32)
    along = np.roll(a, -1, axis=0) - a
    normal = np.stack([along[:, 1], -along[:, 0]], axis=1)
    normal /= np.maximum(np.hypot(normal[:, 0], normal[:, 1]), 1e-6)[:, None]
    outward = np.einsum("ij,ij->i", normal, a + along / 2 - a.mean(axis=0)) > 0
    normal[~outward] *= -1
    if inward:
        normal = -normal
    depth = np.arange(REACH[0], REACH[1] + 1, dtype=np.float32)
    pts = (a[:, None, None] + along[:, None, None] * _T[None, :, None, None]
           + depth[None, None, :, None] * normal[:, None, None])  # sides x samples x depth x 2
    pixels: np.ndarray = np.round(pts).astype(np.int32)
    return pixels


def _colours(col: np.ndarray, beside: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The colours (n x 3) of ``col`` (:func:`_colour`'s planes) beside the samples
    ``which`` (sides x samples), at the pixels ``beside`` (:func:`_beside`)."""
    pts = beside[which].reshape(-1, 2)
    h, w = col.shape[1:]
    colours: np.ndarray = col[:, np.clip(pts[:, 1], 0, h - 1), np.clip(pts[:, 0], 0, w - 1)].T
    return colours


def _to_frame(to_face: np.ndarray, point: np.ndarray) -> np.ndarray:
    there: np.ndarray = cv2.perspectiveTransform(point.reshape(1, 1, 2).astype(np.float32),
                                                 np.linalg.inv(to_face))[0, 0]
    return there


def _inside_of(card: FoundCard, point: np.ndarray) -> bool:
    return cv2.pointPolygonTest(card.corners.astype(np.float32), (float(point[0]), float(point[1])),
                                False) > 0
