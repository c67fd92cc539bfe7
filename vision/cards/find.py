"""Finding cards in a frame: four corners each, whatever the table looks like.

A card is a flat rectangle, so in a photograph it is a convex quadrilateral
whose sides are long straight edges. The finder looks for closed outlines in
an edge map of the frame (edges of brightness and of colour, so a white card
on a pale table is still found by its shadow or tint) and fits a
quadrilateral to each: its convex hull's when that has four corners, else the
strongest pairs of parallel straight runs of the outline, so a card whose
side is broken by a finger, or whose corner lies under another card, still
gets its four sides (a hidden corner is where two sides meet).

Each side is then snapped to the card's own edge: moved out, parallel, to the
outermost line along which the picture steps the same way nearly all along
(on a busy table often only a line inside the card closes into an outline,
such as the inner edge of its border), then fitted through the steepest point
of that step across the side, so the corners are as exact as the picture
allows. Nothing here knows what the cards show: recognition
(:mod:`vision.cards.deck`) decides which quadrilaterals are cards of the deck,
and which way up they lie.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["FoundCard", "find_cards", "rectify", "rectify_target"]

WORK_SIZE = 640
"""Frames are searched at most this many pixels wide or high: enough for a card's
outline (corners are then fitted to a fraction of a pixel), and a 12-megapixel
photo costs no more than a camera frame."""

FILL = 0.3
"""Least share of its quadrilateral an outline must enclose: a finger across a card cuts
its outline short, and on a patterned table the outline runs off into the pattern, so
that only about half of the card may be enclosed; a diagonal streak or an L-shaped
outline encloses much less of the quadrilateral round it. (For a guess from an
outline's straight runs, its hull stands for what it encloses.)"""

MAX_ASPECT = 2.0
"""Longest over shortest side of anything taken for a card (a tarot card is 1.7)."""

GROW = 0.05
"""How far out (a share of the card's short side) a side may move to the card's edge."""

SUPPORT = 0.55
"""Least share of a card's outline that must show a clear edge."""

SIDE_SUPPORT = 0.4
"""Least share of each side that must show it: a finger or another card hides part of a
side, while an outline that strays off the card (into a glare spot, over a finger) has
a side with hardly any edge under it."""

PINNED = 0.8
"""Share of each of the other three sides that, shown, pins a card down: then the fourth
need only show ``LENGTHWISE`` of its length, as when a finger lies along it."""

LENGTHWISE = 0.25
"""Least share of a side that must show it when the other three are seen (``PINNED``):
a finger lying along a side hides most of it, yet its ends still show where it runs."""


@dataclass(frozen=True, slots=True)
class FoundCard:
    """A card-shaped quadrilateral in a frame.

    ``corners`` (4 x 2, frame pixels) go clockwise as seen in the frame, starting
    at an end of a short side, so the card is upright once rectified (or upside
    down: only the deck can tell). ``support`` is the share of its outline that
    shows a clear edge (lower when part of the card is covered). ``edge_seen`` says
    where: for each side (from corner *i* to corner *i + 1*), ``SAMPLES`` points
    evenly spread from 6% to 94% of its length, True where the card's edge shows.
    Where it does not, something may lie across the card (a finger, another card).
    ``parts`` are well-supported outlines inside this one, largest first, each of a
    different card: it may be two cards lying edge to edge, or a card and a patch of
    table, rather than one card (only the deck can tell). They are as found, not
    snapped: :meth:`snapped_parts` snaps them, only when they are to be named (most
    outlines are one card, and snapping every part cost a tenth of finding).
    ``alternatives`` are other outlines of the same card, best first: the one chosen
    may run off the card along a finger's side or a cloth's line, or (a part) not snap
    to the card's edge at all, where another traces the card; only the deck can tell.
    :meth:`outlines` adds, when asked, larger outlines whose sides are straight lines of
    the frame, or round this one and another piece beside it (the card this outline may
    be a piece of); :meth:`beside` gives, when one part is named, outlines of the card
    lying beside it.
    """

    corners: np.ndarray
    support: float
    edge_seen: np.ndarray | None = None
    parts: tuple[FoundCard, ...] = ()
    snap: Callable[[], tuple[FoundCard, ...]] | None = field(default=None, repr=False, compare=False)
    """Snaps ``parts`` (see :meth:`snapped_parts`), with what finding had worked out."""
    alternatives: tuple[FoundCard, ...] = ()
    area: float = field(init=False, repr=False, compare=False)
    widen: Callable[[], tuple[FoundCard, ...]] | None = field(default=None, repr=False, compare=False)
    """Works out the larger outlines of :meth:`outlines`, with what finding had worked out."""
    rest: Callable[[np.ndarray], tuple[FoundCard, ...]] | None = field(default=None, repr=False, compare=False)
    """Works out :meth:`beside`, with what finding had worked out."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "area", float(cv2.contourArea(self.corners.astype(np.float32))))

    def snapped_parts(self) -> tuple[FoundCard, ...]:
        """``parts``, each snapped to its card's edge: the first of its outlines that
        snapping leaves a card, with the others that it does as its ``alternatives``
        (as it was, alone, if none does)."""
        return self.snap() if self.snap is not None else self.parts

    def outlines(self) -> tuple[FoundCard, ...]:
        """``alternatives``, then larger outlines round this one whose sides are straight
        lines of the frame, or round it and another outline found beside it
        (:func:`_wider_outlines`): worked out only now, as they are looked at only when
        this outline is no card (a few milliseconds each)."""
        return self.alternatives + (self.widen() if self.widen is not None else ())

    def beside(self, part: FoundCard) -> tuple[FoundCard, ...]:
        """Outlines of a card lying beside ``part`` (one of :meth:`snapped_parts`, named)
        inside this outline, the one round both (:func:`_beside`): worked out only now, as
        they are looked at only when one part is named."""
        return self.rest(part.corners) if self.rest is not None else ()

    def overlap(self, other: FoundCard) -> float:
        """Area shared with ``other`` over the smaller one's area."""
        return _overlap(self, other)

    def same_card(self, other: FoundCard) -> bool:
        """True when this outline and ``other`` share at least ``SAME`` of the larger one's
        area: two outlines of one card (its edge, and a line a little inside it)."""
        return _same_card(self, other)

    def apart(self, other: FoundCard) -> float:
        """How far apart this outline's corners and ``other``'s are (the farthest pair,
        however numbered)."""
        return _corners_apart(self, other)

    def aligned(self, other: FoundCard) -> np.ndarray:
        """This outline's corners numbered as ``other``'s: from the corner that brings the
        farthest pair nearest (as :meth:`apart` measures them)."""
        turns = self.corners[_TURNS]
        out: np.ndarray = turns[int(np.abs(turns - other.corners).max(axis=(1, 2)).argmin())]
        return out

    @property
    def short_side(self) -> float:
        """The length of the outline's shortest side."""
        return float(np.hypot(*(self.corners[_NEXT] - self.corners).T).min())


def find_cards(image: np.ndarray, *, max_cards: int = 8, min_size: float = 0.06) -> list[FoundCard]:
    """Every card-shaped quadrilateral in ``image`` (BGR or grey), largest first.

    ``min_size`` is the shortest card side accepted, as a share of the frame's
    shorter side. At most ``max_cards`` are returned.
    """
    if image is None or image.size == 0:
        raise ValueError("the frame is empty")
    scale = min(1.0, WORK_SIZE / max(image.shape[:2]))
    small = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale,
                                                  interpolation=cv2.INTER_AREA)
    channels = _channels(small)
    edges = _edges(channels)
    gradients = _gradients(channels)
    min_side = min_size * min(small.shape[:2])
    found: list[FoundCard] = []
    inner: list[FoundCard] = []
    quads, broken = _quads(_outlines(edges, channels), edges.shape, min_side)
    # A rough quadrilateral (corners of a polygon fitted to an outline) may lie two
    # pixels off the edge it traces until it is snapped: the quick look allows that.
    near_edges = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    for quad, rough in _supported(quads, near_edges):
        # An outline well inside a card already found is a line of its picture (its
        # border's inner edge, its picture's frame), or a card on its own if what was
        # found is two cards edge to edge: kept as it is, in case. One nearly as large
        # may be the same card, better outlined: it is snapped and competes.
        area = float(cv2.contourArea(quad))
        if any(area < SAME * f.area and _inside(quad, f) > 0.85 for f in found):
            inner.append(FoundCard(quad, rough))
            continue
        snapped = _snap(quad, gradients)
        if snapped is None:
            continue
        corners, support, seen = snapped
        if support >= SUPPORT and _card_shaped(corners, min_side):
            found.append(FoundCard(corners, support, seen))
    # A part may be named as a card of its own: one not snapped yet is snapped then.
    def snap(f: FoundCard) -> Callable[[], tuple[FoundCard, ...]]:
        return lambda: tuple(_scaled(_snapped_part(p, gradients, min_side), scale) for p in f.parts)

    kept = _distinct(found, inner)[:max_cards]

    # Larger outlines from straight lines are worked out only for an outline that is no card.
    def widen(f: FoundCard) -> Callable[[], tuple[FoundCard, ...]]:
        return lambda: tuple(_scaled(w, scale) for w in _wider_outlines(
            f, edges, gradients, near_edges, min_side, [g for g in kept if g is not f], broken))

    # Outlines beside a part are worked out only when the part is named.
    def rest(f: FoundCard) -> Callable[[np.ndarray], tuple[FoundCard, ...]]:
        return lambda part: tuple(_scaled(b, scale) for b in _beside(
            f.corners, ((part + 0.5) * scale - 0.5).astype(np.float32), edges, gradients, min_side))

    return [_scaled(f, scale, snap(f) if f.parts else None, widen(f), rest(f) if f.parts else None)
            for f in kept]


def _beside(whole: np.ndarray, part: np.ndarray, edges: np.ndarray,
            gradients: tuple[np.ndarray, np.ndarray], min_side: float) -> list[FoundCard]:
    """Outlines of a card lying beside ``part`` (a card named) inside ``whole``, the
    outline round both: one from each corner of ``whole`` well outside ``part``, snapped,
    kept if card-shaped and ``WIDER_SUPPORT`` of it shows.

    Two cards side by side, joined by a finger or touching, close one outline round both,
    and fingers may cut the second card into pieces none of which is a part. The whole's
    sides beyond ``part`` are then the second card's own, and a corner of the whole may be
    the card's: its other two sides are the straight lines of the edge map (inside the
    whole, ``part``'s own edges left out) that cross the whole's sides from that corner at
    about ``part``'s size (the cards of a deck are one size; ``BESIDE_SIZE`` either way for
    perspective), each turned up to 15 degrees (opposite sides converge under
    perspective). A corner of the whole that is a finger's is no card's: its outline
    finds no edge along the sides guessed and is not kept.
    """
    mask = np.zeros_like(edges)
    cv2.fillConvexPoly(mask, np.rint(whole).astype(np.int32), 255)
    cv2.polylines(mask, [np.rint(whole).astype(np.int32)], True, 255, 8)  # 4 px beyond it
    centre = part.mean(axis=0)
    cv2.fillConvexPoly(mask, np.rint(centre + (part - centre) * 1.04).astype(np.int32), 0)
    ys, xs = np.nonzero(edges & mask)
    grad = np.stack([gradients[0][ys, xs], gradients[1][ys, xs]], axis=1)
    steep = np.hypot(grad[:, 0], grad[:, 1]) + 1e-6
    points = np.stack([xs, ys], axis=1).astype(np.float32)
    sides = np.roll(part, -1, axis=0) - part
    lengths = np.hypot(sides[:, 0], sides[:, 1])
    directions = sides / lengths[:, None]
    found: list[FoundCard] = []
    for k, corner in enumerate(whole):
        if cv2.pointPolygonTest(part, (float(corner[0]), float(corner[1])), True) > -0.25 * lengths.min():
            continue
        u, v = (whole[(k + 1) % 4] - corner, whole[k - 1] - corner)
        u, v = u / float(np.hypot(*u)), v / float(np.hypot(*v))
        size = [lengths[np.abs(directions @ axis) > 0.7] for axis in (u, v)]
        if not all(len(s) for s in size):
            continue
        rel = points - corner
        width, height = float(size[0].mean()), float(size[1].mean())
        across_u = _far_side(rel, grad, steep, u, v, width, height)
        across_v = _far_side(rel, grad, steep, v, u, height, width)
        if across_u is None or across_v is None:
            continue
        (a, along_a), (b, along_b) = across_u, across_v
        at_a, at_b = corner + a * u, corner + b * v
        far = _intersect(_through(at_a, at_a + along_a), _through(at_b, at_b + along_b))
        if far is None:
            continue
        snapped = _snap(_order(np.array([corner, at_a, far, at_b], np.float32)), gradients)
        if snapped is not None and snapped[1] >= WIDER_SUPPORT and _card_shaped(snapped[0], min_side):
            found.append(FoundCard(*snapped))
    return found


BESIDE_SIZE = 0.25
"""How much larger or smaller than the card named beside it a card is sought (:func:`_beside`)."""

BESIDE_TURNS = np.radians(np.arange(-15.0, 15.01, 1.0))
"""Turns tried for a far side in :func:`_beside`, from the whole's side across it."""

BESIDE_TURN_COST = 0.5
"""Edge pixels a far side's line gives up per degree it is turned: a card's border has an
inner line beside its edge, and a line a little turned may gather as many pixels from the
two (and from a finger's edge) as the edge alone."""


def _far_side(rel: np.ndarray, grad: np.ndarray, steep: np.ndarray, u: np.ndarray, v: np.ndarray,
              size: float, length: float) -> tuple[float, np.ndarray] | None:
    """The far side across ``u`` of a card with a corner at the origin and sides along
    ``u`` and ``v``: the line most edge pixels (``rel``, from the corner, stepping the same
    way across it) lie on, crossing ``u`` within ``BESIDE_SIZE`` of ``size`` and running
    ``length`` from there along ``v`` turned (``BESIDE_TURNS``); as its distance along
    ``u`` and its direction, None if no edge pixel lies there."""
    lo, hi = (1 - BESIDE_SIZE) * size, (1 + BESIDE_SIZE) * size
    best, side = 0.0, None
    for turn in BESIDE_TURNS:
        c, s = math.cos(turn), math.sin(turn)
        along = np.array([v[0] * c - v[1] * s, v[0] * s + v[1] * c], np.float32)
        normal = np.array([-along[1], along[0]], np.float32)
        cross = float(u @ normal)
        if abs(cross) < 0.5:
            continue
        at = (rel @ normal) / cross  # where the line through each pixel crosses u
        pos = rel @ along - at * float(u @ along)
        near = (at >= lo) & (at <= hi) & (pos >= 0) & (pos <= length)
        step = grad @ normal
        for sign in (1.0, -1.0):
            on = near & (sign * step > 0.9 * steep)
            if not on.any():
                continue
            count = np.convolve(np.bincount(np.rint((at[on] - lo) * abs(cross)).astype(int)), np.ones(3), "same")
            top = int(count.argmax())
            score = float(count[top]) - BESIDE_TURN_COST * abs(math.degrees(float(turn)))
            if score > best:
                best, side = score, (lo + top / abs(cross), along)
    return side


def _wider_outlines(f: FoundCard, edges: np.ndarray, gradients: tuple[np.ndarray, np.ndarray],
                    near_edges: np.ndarray, min_side: float, others: list[FoundCard],
                    broken: Sequence[Broken] = ()) -> tuple[FoundCard, ...]:
    """The larger outlines round ``f`` that the edge map's straight lines give
    (:func:`_wider`, and :func:`_side_moved` when something may lie across ``f``), and
    those round ``f`` and an outline of ``others`` beside it (:func:`_joined`, with
    their own from straight lines), and last the further guesses from the straight runs
    of ``broken`` outlines round it (:func:`_further_guesses`), snapped, other than
    ``f`` and its ``alternatives``.

    A card crossed by fingers may close no outline of its own: what is found is a piece
    of it (its picture's frame, the part between two fingers), whose sides are parallel
    to the card's. Such a piece is no card of the deck, and then its alternatives are
    named: so a larger outline costs nothing when ``f`` is a card, and cannot push a
    card of the deck aside (as the outline round two cards lying side by side would, or
    a checked cloth's line beyond a card's edge).
    """
    wider: list[FoundCard] = []
    quads, more = _wider(f.corners, edges, gradients, near_edges, min_side)
    for joined in _joined(f, others, min_side, edges.shape):
        best, rest = _wider(joined, edges, gradients, near_edges, min_side)
        quads += [joined, *best]
        more += rest
    # An outline with one side moved keeps three sides of one that closed: it needs the
    # support a closed outline needs, not one guessed from lines alone.
    bars = [WIDER_SUPPORT] * len(quads)
    if f.edge_seen is not None and (f.edge_seen.mean(axis=1) < CROSSED).any():
        moved = _side_moved(f.corners, edges, gradients, min_side)
        quads += moved
        bars += [SUPPORT] * len(moved)
    # The further boxes from lines come last: a card named by any outline before is
    # named as it was.
    quads += more
    bars += [WIDER_SUPPORT] * len(more)
    # Guesses from an outline's runs are snapped only if they mostly lie on edges, as
    # those of the outlines found are.
    further = [quad for quad, _ in _supported(_further_guesses(f, broken, min_side, edges.shape), near_edges)]
    quads += further
    bars += [WIDER_SUPPORT] * len(further)
    for quad, bar in zip(quads, bars):
        snapped = _snap(quad, gradients)
        if snapped is None or snapped[1] < bar or not _card_shaped(snapped[0], min_side):
            continue
        card = FoundCard(*snapped)
        if all(_corners_apart(card, g) > DOUBLE for g in (f, *f.alternatives, *wider)):
            wider.append(card)
    return tuple(wider)


def _joined(f: FoundCard, others: list[FoundCard], min_side: float, shape: tuple[int, ...]
            ) -> list[np.ndarray]:
    """The outlines round ``f`` and each of ``others`` that lies beside it, where the
    two together are card-shaped: a finger across a card may cut its face in two
    pieces, each outlined on its own, and the card is both."""
    joined = []
    for g in others:
        hull = cv2.convexHull(np.concatenate([f.corners, g.corners]).astype(np.float32))
        area = float(cv2.contourArea(hull))
        if area > JOINED * (f.area + g.area) or _shared(f.corners, g.corners) > HALF * min(f.area, g.area):
            continue
        quad = cv2.approxPolyDP(hull, 0.02 * cv2.arcLength(hull, True), True).reshape(-1, 2)
        if len(quad) == 4 and _card_shaped(quad, min_side) and not _frame_edge(quad, shape):
            joined.append(_order(quad))
    return joined


JOINED = 1.5
"""Most area the outline round two pieces of a card may have for their sum: the
finger between them is the rest."""

WIDER_SUPPORT = 0.75
"""Least share of a larger outline from straight lines that must show a clear edge once
snapped (``SUPPORT`` for outlines that close: these are guessed from lines alone)."""

WIDER = 1.5
"""How far from an outline's centre (in its longest extent) its card's sides are sought."""

LINES = 3
"""Strongest lines kept on each side of an outline when seeking its card's sides."""

WIDER_SUPPORTED = 2
"""Boxes best supported offered round an outline in all, those taken before included
(:func:`_more_boxes`): none more when two were, two when none was (seed 5 f63: no line
was sought where the card's side lies, 2 px inside the piece's outermost corner; the
two best supported then are one box and the card's, 47 px beyond it). Three named no
card more on the seeds run."""

WIDER_APART = 0.2
"""Least shift of some side (a share of the outline's short extent) between any two
larger outlines :func:`_wider` offers: lines a few pixels apart (a card's edge and its
border's inner line, a finger's edge and its shadow) give boxes as well supported as each
other, and two such were offered where the card's own, beyond a finger, came third
(seed 5 f63; the piece's side moved 4 or 5 px, the card's 47 px beyond it)."""


def _wider(quad: np.ndarray, edges: np.ndarray, gradients: tuple[np.ndarray, np.ndarray],
           near_edges: np.ndarray, min_side: float) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Larger card-shaped quadrilaterals round ``quad``, each side a straight line of the
    edge map beyond one of its sides and parallel to it: the best two supported, and
    further ones (:func:`_more_boxes`), to be tried after every other outline.

    The edge pixels whose gradient lies across one of the quadrilateral's two directions
    (within 20 degrees) are counted by their distance along the other: a straight line
    parallel to a side is a peak, however a finger breaks it into pieces. The strongest
    few beyond each side are combined, and each side of the combinations offered is
    then found again among the edge pixels near it, turned up to 10 degrees (a piece of a
    card is not quite parallel to its sides under perspective, nor a finger-cut outline).
    """
    along = quad[1] - quad[0] + quad[2] - quad[3]
    axes = np.array([along, [-along[1], along[0]]], np.float32) / float(np.hypot(*along))
    centre = quad.mean(axis=0)
    extent = (quad - centre) @ axes.T  # corners x (along, across)
    reach = WIDER * float(np.ptp(extent, axis=0).max())
    h, w = edges.shape
    x0, y0 = (max(int(c - 1.42 * reach), 0) for c in centre)
    x1, y1 = (min(int(c + 1.42 * reach) + 1, n) for c, n in zip(centre, (w, h)))
    ys, xs = np.nonzero(edges[y0:y1, x0:x1])
    ys, xs = ys + y0, xs + x0
    grad = np.stack([gradients[0][ys, xs], gradients[1][ys, xs]], axis=1)
    points = np.stack([xs, ys], axis=1).astype(np.float32)
    coords = (points - centre) @ axes.T
    crossing = np.abs(grad @ axes.T) > 0.94 * (np.hypot(grad[:, 0], grad[:, 1])[:, None] + 1e-6)
    crossing &= (np.abs(coords) < reach).all(axis=1)[:, None]
    # Lines across the first direction (steps along it) bound the card along it.
    size = int(reach) + 2
    # The strongest lines beyond each side (left, right, top, bottom): beyond its
    # corners as before, and beyond where its two corners are on average (a side a
    # little turned, by perspective or a finger's edge, reaches past that at one end).
    beyond: list[list[tuple[float, float]]] = []
    further: list[list[tuple[float, float]]] = []
    for k in range(2):
        count = np.convolve(np.bincount(np.rint(coords[crossing[:, k], k]).astype(int) + size,
                                        minlength=2 * size + 1), np.ones(3), "same")
        peak = (count >= np.roll(count, 1)) & (count > np.roll(count, -1)) & (count >= 0.3 * min_side)
        at = np.arange(len(count)) - size
        low, high = np.sort(extent[:, k]).reshape(2, 2).mean(axis=1)
        for lines, lo, hi in ((beyond, extent[:, k].min(), extent[:, k].max()), (further, low, high)):
            for side in (at <= lo + 2, at >= hi - 2):
                strongest = sorted(np.flatnonzero(peak & side), key=lambda i: -count[i])[:LINES]
                lines.append([(float(at[i]), float(count[i])) for i in strongest])
    least = 1.15 * float(np.prod(np.ptp(extent, axis=0)))
    boxes, strength = _boxes(beyond, centre, axes, least, min_side, edges.shape)
    best = [box for box, _ in sorted(_supported(boxes, near_edges), key=lambda qs: -qs[1])[:2]]
    boxes, strength = _boxes(further, centre, axes, least, min_side, edges.shape)
    more = _more_boxes(boxes, strength, near_edges, WIDER_APART * float(np.ptp(extent, axis=0).min()), best)
    best, more = ([quad for quad in (_fitted(box, points, crossing, min_side) for box in chosen) if quad is not None]
                  for chosen in (best, more))
    return best, more


def _boxes(lines: list[list[tuple[float, float]]], centre: np.ndarray, axes: np.ndarray, least: float,
           min_side: float, shape: tuple[int, ...]) -> tuple[list[np.ndarray], list[float]]:
    """The card-shaped boxes of at least ``least`` area on one of ``lines`` (position and
    edge pixels) beyond each side (left, right, top, bottom, along ``axes`` from
    ``centre``), with the edge pixels along their four lines."""
    left, right, top, bottom = lines
    boxes, strength = [], []
    for (a, sa), (b, sb) in ((a, b) for a in left for b in right):
        for (c, sc), (d, sd) in ((c, d) for c in top for d in bottom):
            if (b - a) * (d - c) < least:
                continue
            box = (centre + np.array([[a, c], [b, c], [b, d], [a, d]], np.float32) @ axes).astype(np.float32)
            if _card_shaped(box, min_side) and not _frame_edge(box, shape):
                boxes.append(box)
                strength.append(sa + sb + sc + sd)
    return boxes, strength


def _fitted(box: np.ndarray, points: np.ndarray, crossing: np.ndarray, min_side: float) -> np.ndarray | None:
    """``box`` with each side found again among the edge pixels near it (``points``,
    ``crossing`` the box's two directions), if still card-shaped."""
    sides = [_side_line(box[k], box[(k + 1) % 4], points[crossing[:, (k + 1) % 2]]) for k in range(4)]
    corners = [_intersect(sides[k - 1], sides[k]) for k in range(4)]
    if any(c is None for c in corners):
        return None
    fitted = np.array(corners, np.float32)
    return _order(fitted) if _card_shaped(fitted, min_side) else None


def _more_boxes(boxes: list[np.ndarray], strength: list[float], near_edges: np.ndarray, apart: float,
                taken: list[np.ndarray]) -> list[np.ndarray]:
    """Further boxes :func:`_wider` offers after those ``taken`` (the two whose sides most
    lie on edges, if any): the next such, up to ``WIDER_SUPPORTED`` in all (of those as
    well supported, the larger: a card's edge is its outermost line), then the one on the
    strongest lines (the most edge pixels along its four sides); each with some side more
    than ``apart`` from every box before, so none is another's double.

    On a busy table, or with fingers across a card, boxes a few pixels apart (a card's
    edge and its border's inner line, a finger's edge and its shadow) lie as well on
    edges as each other, and the two taken were often one box, a side moved a few
    pixels, where the card's own came third by support (seed 5 f63) or far down (seed 40
    f92: there its box is on the four strongest lines).
    """
    supported = _supported(boxes, near_edges)
    of = {id(box): s for box, s in zip(boxes, strength)}
    by_support = [box for box, _ in sorted(supported, key=lambda qs: (-qs[1], -cv2.contourArea(qs[0])))]
    by_lines = sorted(by_support, key=lambda box: -of[id(box)])
    chosen = list(taken)
    for ranked, most in ((by_support, WIDER_SUPPORTED), (by_lines, WIDER_SUPPORTED + 1)):
        for box in ranked:
            if len(chosen) < most and all(float(np.abs(box - c).max()) > apart for c in chosen):
                chosen.append(box)
    return chosen[len(taken):]


def _side_moved(quad: np.ndarray, edges: np.ndarray, gradients: tuple[np.ndarray, np.ndarray],
                min_side: float) -> list[np.ndarray]:
    """``quad`` with one side moved out, at one end or both, onto a straight line of the
    edge map that more edge pixels lie on than on the side itself: for each side the line
    the most lie on, and of those the ``SIDES_MOVED`` with the most for their side's
    length (none if no side has such a line).

    Where a finger crosses a card's side, the finger's edge steps the same way as the
    card's, and the outline may run along it for part of the side: the side found is
    then turned a few degrees into the card from the card's corner at its other end,
    and no line parallel to it is the card's side (:func:`_wider` looks for those).
    Every line through a point beyond each end of the side (up to ``MOVE`` pixels out,
    or ``MOVE_SHARE`` of the short side if more) is counted by the edge pixels along the
    side whose gradient lies across it.
    """
    centre = quad.mean(axis=0)
    h, w = edges.shape
    lengths = np.hypot(*(np.roll(quad, -1, axis=0) - quad).T)
    move = max(MOVE, int(MOVE_SHARE * float(lengths.min())))
    reach = float(lengths.max()) / 2 + move
    x0, y0 = (max(int(c - reach), 0) for c in centre)
    x1, y1 = (min(int(c + reach) + 1, n) for c, n in zip(centre, (w, h)))
    ys, xs = np.nonzero(edges[y0:y1, x0:x1])
    ys, xs = ys + y0, xs + x0
    grad = np.stack([gradients[0][ys, xs], gradients[1][ys, xs]], axis=1)
    steep = np.hypot(grad[:, 0], grad[:, 1]) + 1e-6
    points = np.stack([xs, ys], axis=1).astype(np.float32)
    own = [_through(quad[k], quad[(k + 1) % 4]) for k in range(4)]
    out = np.arange(move + 1, dtype=np.float32)
    boxes = []
    for k in range(4):
        a, b = quad[k], quad[(k + 1) % 4]
        direction = (b - a) / float(lengths[k])
        normal = np.array([direction[1], -direction[0]], np.float32)
        if float(normal @ ((a + b) / 2 - centre)) < 0:
            normal = -normal
        across = np.abs(grad @ normal) > 0.94 * steep
        off, along = ((points[across] - a) @ np.stack([normal, direction]).T).T
        near = (along >= 0) & (along <= lengths[k]) & (off >= -1) & (off <= move + 1)
        off, t = off[near], along[near] / float(lengths[k])
        # Lines from ``start`` pixels out at the side's first end to ``end`` out at its
        # other: starts x ends x edge pixels within a pixel of each.
        at = out[:, None, None] + (out[None, :, None] - out[:, None, None]) * t[None, None, :]
        counts = (np.abs(off[None, None, :] - at) <= 1.0).sum(axis=2)
        # The best line for this side that leaves a card (most pixels first, ties in
        # the order of their starts and ends).
        least = max(float(counts[0, 0]), 0.3 * float(lengths[k]))
        for i in np.argsort(-counts, axis=None, kind="stable").tolist():
            start, end = divmod(i, len(out))
            if counts[start, end] <= least:
                break
            if max(start, end) <= 2:  # the side itself, a pixel or two off
                continue
            sides = own[:k] + [_through(a + normal * out[start], b + normal * out[end])] + own[k + 1:]
            corners = [_intersect(sides[j - 1], sides[j]) for j in range(4)]
            if all(c is not None for c in corners):
                box = np.array(corners, np.float32)
                if _card_shaped(box, min_side) and not _frame_edge(box, edges.shape):
                    boxes.append((float(counts[start, end]) / float(lengths[k]), box))
                    break
    return [_order(box) for _, box in sorted(boxes, key=lambda sb: -sb[0])[:SIDES_MOVED]]


MOVE_SHARE = 0.25
"""Share of an outline's short side that :func:`_side_moved` looks beyond each end of a
side, when more than ``MOVE``: a finger's edge across a card's short side may run 10-15
degrees off it (the outline's corner 20 working pixels inside the card's, seed 2 f59)."""

SIDES_MOVED = 2
"""Most outlines :func:`_side_moved` offers, each with another side moved (the side most
edge pixels move to need not be the one that ran along a finger)."""


CROSSED = 0.9
"""Share of a side's edge seen under which something may lie across the outline, and
one of its sides run along that thing's edge (:func:`_side_moved`)."""

MOVE = 12
"""Working pixels beyond each end of a side that :func:`_side_moved` looks for the card's
side (a finger's edge may run 5-10 degrees off it)."""


def _through(a: np.ndarray, b: np.ndarray) -> Line:
    """The line through two points."""
    return float(a[0]), float(a[1]), float(b[0] - a[0]), float(b[1] - a[1])


TURNS = np.radians(np.arange(-10.0, 10.01, 1.0))
"""Turns tried for a side found from straight lines: the box round a piece is square to
the piece's long sides, but under perspective a card's short side may be 9 degrees off
square, and a piece's short side may be a finger's edge."""


_TURN_COS = np.array([math.cos(a) for a in TURNS], np.float32)
_TURN_SIN = np.array([math.sin(a) for a in TURNS], np.float32)
"""The cosines and sines of ``TURNS``, as :func:`_best_turn` multiplies its pixels' (float32)
distances by them."""


def _side_line(start: np.ndarray, end: np.ndarray, points: np.ndarray, reach: int = 10) -> Line:
    """The straight line through most of ``points`` (edge pixels) near the side from
    ``start`` to ``end``: within ``reach`` pixels of it, turned at most 10 degrees about
    its middle."""
    length = float(np.hypot(*(end - start)))
    direction = (end - start) / length
    normal = np.array([-direction[1], direction[0]], np.float32)
    middle = (start + end) / 2
    off, pos = ((points - middle) @ np.stack([normal, direction]).T).T
    near = (np.abs(off) <= reach) & (np.abs(pos) <= length / 2)
    turn, shift = _best_turn(off[near], pos[near], reach)
    c, s = math.cos(turn), math.sin(turn)
    dx, dy = float(direction[0] * c - direction[1] * s), float(direction[0] * s + direction[1] * c)
    return float(middle[0]) - shift * dy, float(middle[1]) + shift * dx, dx, dy


def _best_turn(off: np.ndarray, pos: np.ndarray, reach: int) -> tuple[float, float]:
    """Of the lines turned by ``TURNS`` about a side's middle and shifted across it by up
    to ``reach`` pixels, the one most edge pixels (``off`` across the side, ``pos`` along
    it, float32) lie on, counting each line's two neighbours too: its turn and shift (the
    first turn with the most, and its first shift; none if no pixel is near).

    Every turn at once (turns x pixels): this runs for every side of every box offered
    round an outline that is no card."""
    width = 2 * reach + 5
    shifted = np.rint(off * _TURN_COS[:, None] - pos * _TURN_SIN[:, None]).astype(int) + reach + 2
    inside = (shifted >= 0) & (shifted < width)
    row = np.broadcast_to(np.arange(len(TURNS))[:, None] * width, shifted.shape)
    binned = np.bincount((row + shifted)[inside], minlength=len(TURNS) * width).reshape(len(TURNS), width)
    count = binned.copy()
    count[:, 1:] += binned[:, :-1]
    count[:, :-1] += binned[:, 1:]
    peaks = count.max(axis=1)
    if peaks.max() == 0:
        return 0.0, 0.0
    k = int(peaks.argmax())
    return float(TURNS[k]), float(int(count[k].argmax()) - reach - 2)


def _snapped(f: FoundCard, gradients: tuple[np.ndarray, np.ndarray], min_side: float) -> FoundCard:
    """``f`` snapped to the card's edge if it was not yet and that leaves it a card;
    otherwise ``f`` as it is."""
    if f.edge_seen is not None:
        return f
    snapped = _snap(f.corners, gradients)
    if snapped is None or snapped[1] < SUPPORT or not _card_shaped(snapped[0], min_side):
        return f
    return FoundCard(*snapped)


def _snapped_part(part: FoundCard, gradients: tuple[np.ndarray, np.ndarray], min_side: float
                  ) -> FoundCard:
    """``part`` snapped: the first of its outlines (``part``, then its alternatives) that
    snapping leaves a card, with the others that it does as alternatives; ``part`` as it
    is, alone, if none does (the outline chosen for a part may trace a finger's side
    along with the card's, where another outline of the card traces its edge)."""
    outlines = [_snapped(o, gradients, min_side) for o in (part, *part.alternatives)]
    cards = [o for o in outlines if o.edge_seen is not None]
    if not cards:
        return FoundCard(part.corners, part.support)
    return FoundCard(cards[0].corners, cards[0].support, cards[0].edge_seen, alternatives=tuple(cards[1:]))


def _scaled(f: FoundCard, scale: float, snap: Callable[[], tuple[FoundCard, ...]] | None = None,
            widen: Callable[[], tuple[FoundCard, ...]] | None = None,
            rest: Callable[[np.ndarray], tuple[FoundCard, ...]] | None = None) -> FoundCard:
    """``f`` found in a picture ``scale`` times the frame's size, in frame pixels (its
    parts snapped by ``snap``, its larger outlines worked out by ``widen``, the outlines
    beside a part by ``rest``, in frame pixels too)."""
    # Pixel centres: pixel i of the small picture covers (i + 0.5) / scale - 0.5 of the frame.
    return FoundCard((f.corners + 0.5) / scale - 0.5, f.support, f.edge_seen,
                     tuple(_scaled(p, scale) for p in f.parts), snap,
                     tuple(_scaled(a, scale) for a in f.alternatives), widen, rest)


def rectify(image: np.ndarray, corners: np.ndarray, size: tuple[int, int],
            margin: float = 0.0) -> np.ndarray:
    """The card inside ``corners``, warped to ``size`` (w, h) pixels, corner 0 top-left.

    ``margin`` (a share of each side) is cut from every edge, so an outline found a
    pixel too wide brings no table into the picture.
    """
    m = cv2.getPerspectiveTransform(np.array(corners, np.float32), rectify_target(size, margin))
    return cv2.warpPerspective(image, m, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REPLICATE)


def rectify_target(size: tuple[int, int], margin: float = 0.0) -> np.ndarray:
    """Where :func:`rectify` puts a card's four corners (4 x 2, pixels of the result)."""
    w, h = size
    mx, my = margin * w / (1 - 2 * margin), margin * h / (1 - 2 * margin)
    return np.array([[-mx, -my], [w - 1 + mx, -my], [w - 1 + mx, h - 1 + my], [-mx, h - 1 + my]],
                    np.float32)


def _channels(small: np.ndarray) -> list[np.ndarray]:
    """Brightness and two colour channels, smoothed so a table's grain does not count."""
    if small.ndim == 2:
        planes = [small]
    else:
        planes = list(cv2.split(cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb)))
    out = []
    for i, ch in enumerate(planes):
        if i:
            # Colour channels vary little; stretch them so a tint counts like a shade.
            # (The stub wants a dst array, but OpenCV takes None for "a new one".)
            ch = cv2.normalize(ch, None, 0, 255, cv2.NORM_MINMAX)  # type: ignore[call-overload]
        out.append(cv2.GaussianBlur(ch, (0, 0), 1.1))
    return out


def _edges(channels: list[np.ndarray]) -> np.ndarray:
    """Edges of brightness and of colour, so a white card on a pale table still has an outline."""
    edges = cv2.Canny(channels[0], 30, 80)
    for ch in channels[1:]:
        edges = cv2.bitwise_or(edges, cv2.Canny(ch, 30, 80))
    return edges


def _gradients(channels: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel, the x and y gradient of whichever channel changes most there."""
    best_x = best_y = best = None
    for ch in channels:
        gx = cv2.Sobel(ch, cv2.CV_16S, 1, 0, ksize=3)
        gy = cv2.Sobel(ch, cv2.CV_16S, 0, 1, ksize=3)
        steep = np.abs(gx) + np.abs(gy)
        if best_x is None or best_y is None or best is None:
            best_x, best_y, best = gx, gy, steep
        else:
            # OpenCV's masked copy: numpy's (copyto where) is slow for a mask this ragged.
            more = cv2.compare(steep, best, cv2.CMP_GT)
            best_x = cv2.copyTo(gx, more, best_x)
            best_y = cv2.copyTo(gy, more, best_y)
            np.maximum(steep, best, out=best)
    assert best_x is not None and best_y is not None
    return best_x.astype(np.float32), best_y.astype(np.float32)


SAMPLES = 32
"""Points tried along each side of an outline when snapping it to the card's edge."""


def _snap(quad: np.ndarray, gradients: tuple[np.ndarray, np.ndarray]
          ) -> tuple[np.ndarray, float, np.ndarray] | None:
    """Each side moved to the card's own edge and fitted through it (the corners keep
    their order); with the share of the outline that shows the edge (0 if a side
    hardly shows) and where it shows (see :class:`FoundCard`). None if the sides no
    longer meet."""
    after = quad[_NEXT]
    along = after - quad
    length = np.hypot(along[:, 0], along[:, 1])
    unit = along / length[:, None]
    normal = np.stack([unit[:, 1], -unit[:, 0]], axis=1)
    outward = np.einsum("ij,ij->i", normal, (quad + after) / 2 - quad.mean(axis=0))
    normal[outward < 0] *= -1
    base = quad[:, None, :] + along[:, None, :] * _ALONG[None, :, None]  # sides x samples x 2
    # The card's edge is one step all along (card to table, the same way round); a
    # checked cloth's lines step up and down by turns. Take the outermost such line
    # not far out (a thin border's inner edge may be the outline found).
    offsets = np.arange(-3.0, GROW * float(length.min()) + 1.0, 1.0, dtype=np.float32)
    across = _across(gradients, base, normal, np.broadcast_to(offsets, (4, len(offsets))))
    flat = np.abs(across).transpose(1, 0, 2).reshape(4, -1)
    k90 = int(0.9 * (flat.shape[1] - 1))
    level = np.maximum(0.35 * np.partition(flat, k90, axis=1)[:, k90], 20.0)
    shares = np.empty((2, len(offsets), 4))  # signs (up, down) x offsets x sides
    for i, s in enumerate((1.0, -1.0)):
        strong = s * across > level[None, :, None]
        strong[1:] |= strong[:-1].copy()
        shares[i] = strong.mean(axis=2)
    need = np.maximum(0.6, 0.75 * np.maximum(shares[0].max(axis=0), shares[1].max(axis=0)))
    # The outermost offset where each sign's step is strong enough (-1: none); up wins a tie.
    enough = shares >= need
    last = np.where(enough.any(axis=1), len(offsets) - 1 - enough[:, ::-1].argmax(axis=1), -1)
    best_k = np.maximum(last[0], last[1])
    sign = np.where(last[0] >= last[1], 1.0, -1.0).astype(np.float32)
    home = int(np.searchsorted(offsets, 0.0))
    lost = best_k < 0  # no clear edge: stay on the outline's own line
    best_k[lost] = home
    sign[lost] = np.where(shares[0, home] >= shares[1, home], 1.0, -1.0)[lost]
    # Fit each side through the steepest point of its step, sample by sample.
    near = offsets[best_k][:, None] + FINE[None, :]  # sides x fine offsets
    profile = _across(gradients, base, normal, near) * sign[None, :, None]
    peak = profile.argmax(axis=0)  # sides x samples
    strength = np.take_along_axis(profile, peak[None], axis=0)[0]
    edge = strength > level[:, None]
    starts = (quad + near[:, FINE.size // 2, None] * normal).tolist()
    steps = base + np.take_along_axis(near, peak, axis=1)[:, :, None] * normal[:, None, :]
    lines: list[Line] = []
    for side, count in enumerate(edge.sum(axis=1).tolist()):
        on = edge[side]
        if count < 4:
            (x, y), (dx, dy) = starts[side], unit[side].tolist()
            lines.append((x, y, dx, dy))
            continue
        points = steps[side, on]
        vx, vy, x0, y0 = cv2.fitLine(points, cv2.DIST_HUBER, 0, 0.01, 0.01).ravel().tolist()
        lines.append((x0, y0, vx, vy))
        # Only samples whose step lies on the fitted line show the edge.
        off_line = np.abs((points - np.array([x0, y0], np.float32))
                          @ np.array([-vy, vx], np.float32)) > 1.0
        on[np.flatnonzero(on)[off_line]] = False
    corners = [_intersect(lines[i - 1], lines[i]) for i in range(4)]
    if any(c is None for c in corners):
        return None
    shown = edge.mean(axis=1)
    # A side may be half hidden (a finger, another card), or mostly when a finger lies
    # along it and the other three sides pin the card down; an outline that strays off
    # the card (into a glare spot, over a finger) has a side with hardly any edge.
    rest = np.sort(shown)[1]  # the least shown of the other three sides
    enough = SIDE_SUPPORT if rest < PINNED else LENGTHWISE
    support = float(shown.mean()) if shown.min() >= enough else 0.0
    return np.array(corners, np.float32), support, edge


_ALONG = np.linspace(0.06, 0.94, SAMPLES, dtype=np.float32)
"""Where along its side each of :func:`_snap`'s samples lies (a share of its length)."""

FINE = np.arange(-2.0, 2.01, 0.25, dtype=np.float32)
"""Offsets (working pixels) around a side's line searched for the steepest point."""


def _across(gradients: tuple[np.ndarray, np.ndarray], base: np.ndarray, normal: np.ndarray,
            offsets: np.ndarray) -> np.ndarray:
    """The gradient across each side (along its ``normal``) at ``base`` points moved by
    each side's ``offsets``: offsets x sides x samples, interpolated."""
    pts = base[None, :, :, :] + offsets.T[:, :, None, None] * normal[None, :, None, :]
    k = pts.shape[0]
    map_x = np.ascontiguousarray(pts[..., 0].reshape(k, -1))
    map_y = np.ascontiguousarray(pts[..., 1].reshape(k, -1))
    gx = cv2.remap(gradients[0], map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    gy = cv2.remap(gradients[1], map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    shape = pts.shape[:3]
    across: NDArray[np.floating[Any]] = (gx.reshape(shape) * normal[None, :, None, 0]
                                         + gy.reshape(shape) * normal[None, :, None, 1])
    return across


LEVELS = 4
"""Brightness levels at which the frame is cut into lighter and darker regions."""


def _outlines(edges: np.ndarray, channels: list[np.ndarray]) -> list[np.ndarray]:
    """Closed outlines that may be cards: the edge map's, and those of the regions
    lighter than a few levels of brightness.

    The edge map's outlines follow every card edge, but a card on a busy table has its
    edge joined into the table's pattern; a card's face (or its border) is a region
    lighter or darker than what surrounds it, whatever pattern lies beyond. A finger
    across a card adds its outline to the edge map's; it bites into the card's region,
    or, as light as the card, joins it.
    """
    outlines = list(cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0])
    grey = channels[0]
    sample = np.sort(grey[::8, ::8], axis=None)
    lo, hi = float(sample[len(sample) // 20]), float(sample[-len(sample) // 20])
    for level in np.linspace(lo, hi, LEVELS + 2)[1:-1]:
        _, cut = cv2.threshold(grey, float(level), 255, cv2.THRESH_BINARY)
        outlines += cv2.findContours(cut, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)[0]
    return outlines


def _supported(quads: list[np.ndarray], edges: np.ndarray, samples: int = 16
               ) -> list[tuple[np.ndarray, float]]:
    """The quadrilaterals whose sides mostly lie on edges, with the share that does (a
    quick look before snapping)."""
    if not quads:
        return []
    q = np.stack(quads)  # quads x corners x 2
    t = np.linspace(0.1, 0.9, samples, dtype=np.float32)
    pts = q[:, :, None, :] + (q[:, _NEXT] - q)[:, :, None, :] * t[None, None, :, None]
    h, w = edges.shape
    x = np.clip(np.rint(pts[..., 0]).astype(np.int32), 0, w - 1)
    y = np.clip(np.rint(pts[..., 1]).astype(np.int32), 0, h - 1)
    on = edges[y, x] > 0  # quads x sides x samples
    share = on.mean(axis=2)
    keep = (share.min(axis=1) >= 0.3) & (share.mean(axis=1) >= 0.5)
    return [(quad, float(s)) for quad, s, k in zip(quads, share.mean(axis=1), keep) if k]


def _quads(outlines: list[np.ndarray], shape: tuple[int, ...], min_side: float
           ) -> tuple[list[np.ndarray], list[Broken]]:
    """Card-shaped quadrilaterals fitted to the outlines, largest first, each once
    (outlines of several levels often trace the same card), and the outlines whose
    quadrilaterals were guessed from straight runs (:func:`_further_guesses` may guess
    again)."""
    min_area = min_side * min_side
    quads: list[np.ndarray] = []
    broken: list[Broken] = []
    boxes: set[tuple[int, int, int, int]] = set()
    for contour in outlines:
        x, y, w, h = cv2.boundingRect(contour)
        if min(w, h) < 0.7 * min_side:
            continue
        # An outline traced again at another level (or by the edges) has the same box.
        box = (x // 2, y // 2, w // 2, h // 2)
        if box in boxes:
            continue
        boxes.add(box)
        area = cv2.contourArea(contour)
        if area < min_area:
            continue
        hull = cv2.convexHull(contour)
        hull_area = cv2.contourArea(hull)
        fitted = _fit_quads(contour, hull)
        if any(of_lines for _, of_lines in fitted):
            broken.append(Broken(contour, cv2.arcLength(hull, True), hull_area, (x, y, w, h)))
        for quad, of_lines in fitted:
            # An edge outline crossed by a finger runs along the card's edge and out
            # round the finger and back, enclosing little (a region holds the finger
            # too): its hull stands for the card.
            if _fits_outline(quad, hull_area if of_lines else area, hull_area, min_side, shape):
                quads.append(_order(quad))
    if not quads:
        return [], broken
    # Drop repeats (several levels trace the same card), largest first.
    quads.sort(key=lambda q: -cv2.contourArea(q))
    stack = np.stack(quads)
    kept: list[int] = []
    for i in range(len(quads)):
        if not kept or np.abs(stack[kept] - stack[i]).max(axis=(1, 2)).min() > 2.0:
            kept.append(i)
    return [quads[i] for i in kept], broken


def _fits_outline(quad: np.ndarray, enclosed: float, hull_area: float, min_side: float,
                  shape: tuple[int, ...]) -> bool:
    """True when ``quad``, fitted to an outline enclosing ``enclosed`` (its hull
    ``hull_area``), may be a card: mostly filled, not much beyond the hull, card-shaped
    and clear of the frame's edge."""
    quad_area = cv2.contourArea(quad)
    if enclosed < FILL * quad_area or quad_area > 1.35 * hull_area:
        return False
    return _card_shaped(quad, min_side) and not _frame_edge(quad, shape)


class Broken(NamedTuple):
    """An outline that does not fill its hull (a finger across a card, or a card joined
    to another), whose quadrilaterals were guessed from its straight runs."""

    contour: np.ndarray
    perimeter: float
    hull_area: float
    box: tuple[int, int, int, int]
    """Its bounding box: x, y, width, height."""


GUESSES = 2
"""Pairs of parallel runs each way combined into an outline's guesses as it is found
(:func:`_fit_lines`): a finger's sides are parallel too, so the card's may be second."""

FURTHER_GUESSES = 3
"""Pairs of parallel runs each way combined by :func:`_further_guesses` (the first
``GUESSES`` of them, tried as the outline was found, excepted): six for every outline
found three more cards on seeds 90 and 94 but lost three, each swallowed by a box round
two or three cards that won as the largest (s27-cards-find)."""


def _further_guesses(f: FoundCard, broken: Sequence[Broken], min_side: float,
                     shape: tuple[int, ...]) -> list[np.ndarray]:
    """Quadrilaterals from the third strongest pair of parallel runs of the broken
    outlines round ``f`` (with either of the two first pairs across it, or the third),
    larger than ``f`` and holding at least half of it.

    A card joined by a finger to another card, or with fingers over a short side, closes
    no outline of its own, and its region's own sides may be a later pair of its
    straight runs (seed 94 f89: the outline found runs in along the fingers; six pairs
    also found 94 f54 and 90 f15, s27-cards-find). Tried for every outline, these boxes
    round two or three cards won as the largest and left cards at most parts; offered
    only as larger outlines of an outline that is no card, after all its others, they
    push no card aside.
    """
    cx, cy = f.corners.mean(axis=0)
    guesses: list[np.ndarray] = []
    for b in broken:
        x, y, w, h = b.box
        if not (x <= cx <= x + w and y <= cy <= y + h):
            continue
        for quad in _fit_lines(b.contour, b.perimeter, FURTHER_GUESSES, beyond=GUESSES):
            if (_fits_outline(quad, b.hull_area, b.hull_area, min_side, shape)
                    and cv2.contourArea(quad) > f.area
                    and _shared(quad, f.corners) >= HALF * f.area):
                ordered = _order(quad)
                if all(np.abs(ordered - g).max() > DOUBLE for g in guesses):
                    guesses.append(ordered)
    return guesses


def _fit_quads(contour: np.ndarray, hull: np.ndarray) -> list[tuple[np.ndarray, bool]]:
    """Four corners for an outline: its hull's if that has four, and a few guesses from
    its longest straight runs if it does not fill its hull (a finger across the card
    adds its own outline to the card's edge outline, and one as light as the card joins
    the card's region); each with whether it is such a guess."""
    perimeter = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.02 * perimeter, True).reshape(-1, 2).astype(np.float32)
    if len(poly) > 8:  # a round blob, not a card with a corner hidden
        return []
    quads = [(poly, False)] if len(poly) == 4 else []
    if not quads or cv2.contourArea(contour) < 0.9 * cv2.contourArea(hull):
        quads += [(quad, True) for quad in _fit_lines(contour, perimeter)]
    return quads


RUNS = 12
"""Longest straight runs of an outline looked at for a card's sides."""

_ONE_LINE = math.radians(6)
"""Most turn between two straight runs of an outline on one line."""

_PARALLEL = math.radians(20)
"""Most turn between two lines taken for a card's opposite sides (perspective)."""

_ACROSS = math.radians(60)
"""Least turn between a side and the lines taken for the two sides across it."""


def _fit_lines(contour: np.ndarray, perimeter: float, guesses: int = GUESSES, beyond: int = 0
               ) -> list[np.ndarray]:
    """The card's four sides among the straight runs of an outline broken by a hand or a card.

    Runs on one line (a side interrupted by a finger) are pooled; a card is a pair of
    parallel lines with a pair across it, and its corners are where they meet, seen
    or not. A finger's sides are parallel lines too, so the strongest few pairs each
    way are tried (whichever fits the picture best is chosen later). Only the
    combinations with a pair from the ``beyond``-th on (counting from 0) are returned:
    the first ``beyond`` each way were tried already.
    """
    poly = cv2.approxPolyDP(contour, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float64)
    if len(poly) < 4:
        return []
    along = np.concatenate([poly[1:], poly[:1]]) - poly
    lengths = np.hypot(along[:, 0], along[:, 1])
    groups: list[list[float]] = []  # angle, offset, total length, x, y of a point
    trig: list[tuple[float, float]] = []  # each group's angle's sine and cosine
    # Plain floats: this runs for most outlines of every frame.
    points, steps, sizes = poly.tolist(), along.tolist(), lengths.tolist()
    for i in np.argsort(-lengths)[:RUNS].tolist():
        length = sizes[i]
        if length < 0.04 * perimeter:
            break
        x, y = points[i]
        angle = math.atan2(steps[i][1], steps[i][0]) % math.pi
        sin, cos = math.sin(angle), math.cos(angle)
        offset = -sin * x + cos * y
        for g, (g_sin, g_cos) in zip(groups, trig):
            turn = abs(angle - g[0])
            if min(turn, math.pi - turn) < _ONE_LINE:
                shift = -g_sin * x + g_cos * y - g[1]
                if abs(shift) < 0.015 * perimeter:
                    g[2] += length
                    break
        else:
            groups.append([angle, offset, length, x, y])
            trig.append((sin, cos))
    if len(groups) < 4:
        return []
    ranked = sorted(groups, key=lambda g: -g[2])[:8]
    angle, offset, strength, x, y = np.array(ranked).T
    turn = np.abs(angle[:, None] - angle[None, :])
    turn = np.minimum(turn, math.pi - turn)
    gap = np.abs(-np.sin(angle)[:, None] * x[None, :] + np.cos(angle)[:, None] * y[None, :]
                 - offset[:, None])
    parallel = np.nonzero(np.triu((turn < _PARALLEL) & (gap >= 10), 1))
    pairs = [(min(ranked[i][2], ranked[j][2]), i, j) for i, j in zip(*(p.tolist() for p in parallel))]
    pairs.sort(reverse=True)
    turns = turn.tolist()
    quads = []
    for first, (_, i, j) in enumerate(pairs[:guesses]):
        across = [(k, m) for _, k, m in pairs if min(turns[i][k], turns[i][m]) >= _ACROSS][:guesses]
        for second, (k, m) in enumerate(across):
            if max(first, second) < beyond:
                continue
            sides = [_line(ranked[n]) for n in (i, k, j, m)]
            corners = [_intersect(sides[n], sides[(n + 1) % 4]) for n in range(4)]
            if all(c is not None for c in corners):
                quad = np.array(corners, np.float32)
                if cv2.isContourConvex(quad):
                    quads.append(quad)
    return quads


Line = tuple[float, float, float, float]
"""A line as a point on it and its direction: x, y, dx, dy."""


def _line(g: Sequence[float]) -> Line:
    """A line kept as (angle, offset, strength, x, y) as a point and a direction."""
    return float(g[3]), float(g[4]), math.cos(float(g[0])), math.sin(float(g[0]))


def _intersect(s: Line, t: Line) -> tuple[float, float] | None:
    """Where two lines cross; None for (nearly) parallel lines."""
    px, py, rx, ry = s
    qx, qy, ux, uy = t
    denom = rx * uy - ry * ux
    if abs(denom) < 1e-6 * math.hypot(rx, ry) * math.hypot(ux, uy):
        return None
    k = ((qx - px) * uy - (qy - py) * ux) / denom
    return px + k * rx, py + k * ry


def _card_shaped(quad: np.ndarray, min_side: float) -> bool:
    """Convex, corners near right angles (a card seen from above), sides in card proportions.

    Plain arithmetic on the four corners: this runs for every outline of every frame.
    """
    pts = [(float(x), float(y)) for x, y in quad.tolist()]
    sides = []
    turns = []
    for i in range(4):
        (ax, ay), (bx, by), (cx, cy) = pts[i - 1], pts[i], pts[(i + 1) % 4]
        ux, uy, vx, vy = bx - ax, by - ay, cx - bx, cy - by
        sides.append(math.hypot(vx, vy))
        turns.append(ux * vy - uy * vx)
        norm = math.hypot(ux, uy) * math.hypot(vx, vy)
        if norm == 0 or abs(ux * vx + uy * vy) > 0.45 * norm:  # beyond about 63..117 degrees
            return False
    if min(sides) < min_side or not (all(t > 0 for t in turns) or all(t < 0 for t in turns)):
        return False
    short, long = sorted(((sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2))
    return long / short <= MAX_ASPECT


def _frame_edge(quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    """True for the outline of the picture itself (a patterned table has edges up to it)."""
    h, w = shape[:2]
    near = sum(1 for x, y in quad if min(x, w - 1 - x) < 4 or min(y, h - 1 - y) < 4)
    return near >= 3


def _order(quad: np.ndarray) -> np.ndarray:
    """Clockwise on screen, starting at an end of a short side."""
    pts = [(float(x), float(y)) for x, y in quad.tolist()]
    cx, cy = sum(p[0] for p in pts) / 4, sum(p[1] for p in pts) / 4
    # y points down, so increasing angle is clockwise
    pts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
    sides = [math.hypot(pts[(i + 1) % 4][0] - pts[i][0], pts[(i + 1) % 4][1] - pts[i][1]) for i in range(4)]
    if sides[0] + sides[2] > sides[1] + sides[3]:
        pts = pts[1:] + pts[:1]
    return np.array(pts, np.float32)


def _distinct(found: list[FoundCard], inner: list[FoundCard]) -> list[FoundCard]:
    """One quadrilateral per card: of outlines that overlap, the outermost well-supported one.

    A card gives several outlines (its edge, the inner line of its border, its
    picture's frame); once snapped most are the card's edge, and the card is the
    largest, unless it is much worse supported. The others of nearly its size are
    kept as its ``alternatives``: the largest may have run along a finger's side or
    a cloth's line beyond the card's edge. Two cards edge to edge give one outline
    round both as well: the well-supported outlines it swallowed (found, or ``inner``
    ones not snapped) are kept with it as its ``parts``, for the deck to tell which
    it is.
    """
    found = sorted(found, key=lambda f: -f.area * (0.5 + f.support))
    others = sorted(found + inner, key=lambda f: -f.area * f.support)
    kept: list[FoundCard] = []
    for f in found:
        if all(_overlap(f, k) < HALF for k in kept):
            alternatives = _alternatives(f, [g for g in found if _same_card(f, g)])
            kept.append(FoundCard(f.corners, f.support, f.edge_seen, _parts(f, others),
                                  alternatives=alternatives))
    return kept


def _parts(f: FoundCard, others: list[FoundCard]) -> tuple[FoundCard, ...]:
    """The well-supported outlines at least half inside ``f`` (``others``, best first)
    that may be cards of their own, one part per card: the outlines that overlap a part
    (its edge, its border's inner line, its edge and a finger's side) are the part's
    alternatives, whatever their size and however little of them lies inside ``f``.

    ``HALF``, as :func:`_distinct` drops an outline so far inside one kept: a card sticking
    out of the outline round it and the card beside it is then still named, as a part
    (its own outline, outside by more than half, as the part's alternative)."""
    parts: list[FoundCard] = []
    outlines: list[list[FoundCard]] = []
    for g in others:
        if g is f or g.support < 0.8 or g.area >= SAME * f.area:
            continue
        same = [i for i, p in enumerate(parts) if _overlap(g, p) >= 0.5]
        if same:
            outlines[same[0]].append(g)
        elif _inside(g.corners, f) >= HALF and len(parts) < PARTS and g.area > ALTERNATIVE * f.area:
            parts.append(g)
            outlines.append([g])
    return tuple(FoundCard(p.corners, p.support, p.edge_seen, alternatives=_alternatives(p, o))
                 for p, o in zip(parts, outlines))


def _alternatives(f: FoundCard, outlines: list[FoundCard]) -> tuple[FoundCard, ...]:
    """At most ``ALTERNATIVES`` of ``outlines`` (of the same card as ``f``, best first),
    leaving out ``f`` and any that is another's double (corners within a pixel or so)."""
    chosen: list[FoundCard] = []
    for g in outlines:
        if len(chosen) < ALTERNATIVES and all(_corners_apart(g, h) > DOUBLE for h in (f, *chosen)):
            chosen.append(g)
    return tuple(chosen)


def _same_card(a: FoundCard, b: FoundCard) -> bool:
    """True when two outlines share at least ``SAME`` of the larger one's area."""
    return _shared(a.corners, b.corners) >= SAME * max(a.area, b.area)


def _corners_apart(a: FoundCard, b: FoundCard) -> float:
    """How far apart two outlines' corners are (the farthest pair, however numbered)."""
    return float(np.abs(a.corners[_TURNS] - b.corners).max(axis=(1, 2)).min())


_NEXT = np.array([1, 2, 3, 0])
"""Each corner's next, clockwise (a quadrilateral's corners rolled by one)."""

_TURNS = np.array([np.roll(np.arange(4), k) for k in range(4)])
"""A quadrilateral's corners numbered from each of them in turn (rolled by 0 to 3)."""

HALF = 0.5
"""Share of an outline inside a larger one kept at which it is no card of its own
(:func:`_distinct`) but may be a part of that one (:func:`_parts`)."""

SAME = 0.8
"""Least share of a found card's area an outline inside it must have to be taken for
the same card (the largest the print's own lines inside a card come to)."""

ALTERNATIVE = 0.25
"""Least size (a share of an outline's area) of an outline inside it that may be a card
on its own."""

PARTS = 2
"""Most outlines inside an outline kept as the cards it may be instead."""

ALTERNATIVES = 2
"""Most other outlines of one card kept, for the deck to try when the one chosen is no card."""

DOUBLE = 1.0
"""Working pixels within which two outlines' corners all lie when they are one outline."""


def _inside(quad: np.ndarray, card: FoundCard) -> float:
    """Share of ``quad``'s area inside ``card``."""
    return _shared(quad, card.corners) / max(float(cv2.contourArea(quad)), 1e-6)


def _overlap(a: FoundCard, b: FoundCard) -> float:
    """Area shared by two quadrilaterals over the smaller's area."""
    return _shared(a.corners, b.corners) / max(min(a.area, b.area), 1e-6)


def _shared(a: np.ndarray, b: np.ndarray) -> float:
    """Area two convex quadrilaterals (4×2 corners) share."""
    inter, _ = cv2.intersectConvexConvex(a.astype(np.float32), b.astype(np.float32))
    return float(inter)
