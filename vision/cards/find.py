"""Finding cards in a frame: four corners each, whatever the table looks like.

A card is a flat rectangle, so in a photograph it is a convex quadrilateral
whose sides are long straight edges. The finder looks for closed outlines in
an edge map of the frame (edges of brightness and of colour, so a white card
on a pale table is still found by its shadow or tint), fits a quadrilateral to
each outline's convex hull and keeps those whose four sides are backed by
edges all along. A card whose corner is under a hand or another card leaves a
hull with five or more sides; the four longest are the card's own, and where
they meet is the hidden corner.

Nothing here knows what the cards show: recognition (:mod:`vision.cards.deck`)
decides which quadrilaterals are cards of the deck, and which way up they lie.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

__all__ = ["FoundCard", "find_cards", "rectify"]

WORK_SIZE = 960
"""Frames are searched at most this many pixels wide or high: enough for card edges,
and the search costs the same for a 12-megapixel photo as for a camera frame."""

MAX_ASPECT = 2.0
"""Longest over shortest side of anything taken for a card (a tarot card is 1.7)."""


@dataclass(frozen=True, slots=True)
class FoundCard:
    """A card-shaped quadrilateral in a frame.

    ``corners`` (4 x 2, frame pixels) go clockwise as seen in the frame, starting
    at an end of a short side, so the card is upright once rectified (or upside
    down: only the deck can tell). ``support`` is the share of its outline that
    lies on edges of the frame (lower when part of the card is covered).
    """

    corners: np.ndarray
    support: float

    @property
    def area(self) -> float:
        return float(cv2.contourArea(self.corners.astype(np.float32)))


def find_cards(image: np.ndarray, *, max_cards: int = 8, min_size: float = 0.06) -> list[FoundCard]:
    """Every card-shaped quadrilateral in ``image`` (BGR or grey), largest first.

    ``min_size`` is the shortest card side accepted, as a share of the frame's
    shorter side. At most ``max_cards`` are returned.
    """
    if image is None or image.size == 0:
        raise ValueError("the frame is empty")
    scale = min(1.0, WORK_SIZE / max(image.shape[:2]))
    # Linear is enough for a camera frame (the channels are smoothed next); a big
    # photo needs averaging or its fine print turns into noise.
    how = cv2.INTER_AREA if scale < 0.5 else cv2.INTER_LINEAR
    small = image if scale == 1.0 else cv2.resize(image, None, fx=scale, fy=scale, interpolation=how)
    channels = _channels(small)
    edges = _edges(channels)
    support_map = cv2.dilate(edges, np.ones((5, 5), np.uint8))
    min_side = min_size * min(small.shape[:2])
    found = [FoundCard(_order(q), _support(support_map, q)) for q in _quads(edges, min_side)]
    found = _distinct([f for f in found if f.support >= 0.6])[:max_cards]
    if not found:
        return []
    gradients = _gradients(channels)
    grown = [FoundCard(_grow(f.corners, gradients), f.support) for f in found]
    return [FoundCard(f.corners / scale, f.support) for f in _distinct(grown)]


def rectify(image: np.ndarray, corners: np.ndarray, size: tuple[int, int],
            margin: float = 0.0) -> np.ndarray:
    """The card inside ``corners``, warped to ``size`` (w, h) pixels, corner 0 top-left.

    ``margin`` (a share of each side) is cut from every edge, so an outline found a
    pixel too wide brings no table into the picture.
    """
    w, h = size
    mx, my = margin * w / (1 - 2 * margin), margin * h / (1 - 2 * margin)
    target = np.float32([[-mx, -my], [w - 1 + mx, -my], [w - 1 + mx, h - 1 + my], [-mx, h - 1 + my]])
    m = cv2.getPerspectiveTransform(np.float32(corners), target)
    return cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_AREA,
                               borderMode=cv2.BORDER_REPLICATE)


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
            ch = cv2.normalize(ch, None, 0, 255, cv2.NORM_MINMAX)
        out.append(cv2.GaussianBlur(ch, (0, 0), 1.6))
    return out


def _edges(channels: list[np.ndarray]) -> np.ndarray:
    """Edges of brightness and of colour, so a white card on a pale table still has an outline."""
    edges = cv2.Canny(channels[0], 30, 80)
    for ch in channels[1:]:
        edges |= cv2.Canny(ch, 30, 80)
    return edges


def _gradients(channels: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Per pixel, the x and y gradient of whichever channel changes most there."""
    best_x = best_y = best = None
    for ch in channels:
        gx = cv2.Sobel(ch, cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(ch, cv2.CV_32F, 0, 1, ksize=3)
        mag = cv2.magnitude(gx, gy)
        if best is None:
            best_x, best_y, best = gx, gy, mag
        else:
            more = mag > best
            np.copyto(best_x, gx, where=more)
            np.copyto(best_y, gy, where=more)
            np.maximum(mag, best, out=best)
    assert best_x is not None and best_y is not None
    return best_x, best_y


GROW = 0.14
"""How far out (a share of the card's short side) an outline may move to the card's edge."""


def _grow(quad: np.ndarray, gradients: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Move each side out to the card's own edge.

    On a busy table the card's outer edge joins the table's pattern and never
    closes into an outline of its own: what is found is a line inside the card
    (the inner edge of its border, the frame of its picture). Each side is moved
    outwards, parallel to itself, to the outermost line along which the picture
    changes strongly nearly all the way; a side that is already the edge has only
    the table's scattered pattern beyond it and stays put.
    """
    gx, gy = gradients
    h, w = gx.shape
    centre = quad.mean(axis=0)
    short = min(float(np.linalg.norm(quad[1] - quad[0])), float(np.linalg.norm(quad[2] - quad[1])))
    steps = np.arange(0, GROW * short, 1.0, dtype=np.float32)
    lines = []
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        along = b - a
        normal = np.float32([along[1], -along[0]]) / float(np.linalg.norm(along))
        if np.dot(normal, (a + b) / 2 - centre) < 0:
            normal = -normal
        t = np.linspace(0.1, 0.9, max(int(np.linalg.norm(along) / 2), 8), dtype=np.float32)
        base = a + along * t[:, None]
        pts = base[None, :, :] + steps[:, None, None] * normal  # offsets x samples x 2
        x = np.clip(np.round(pts[..., 0]).astype(int), 0, w - 1)
        y = np.clip(np.round(pts[..., 1]).astype(int), 0, h - 1)
        across = gx[y, x] * normal[0] + gy[y, x] * normal[1]
        level = max(float(np.percentile(np.abs(across), 90)) * 0.35, 20.0)
        # The card's edge is one step all along (card to table, the same way round);
        # a checked cloth's lines step up and down by turns.
        shares = []
        for strong in (across > level, across < -level):
            # A one-pixel-wide edge may fall between samples: count a neighbour too.
            strong[1:] |= strong[:-1]
            shares.append(strong.mean(axis=1))
        share = np.maximum(*shares)
        best = 0
        for k in range(len(steps)):
            if share[k] >= 0.8:
                best = k
        lines.append((a + normal * steps[best], along))
    corners = []
    for i in range(4):
        (p, r), (q, u) = lines[i - 1], lines[i]
        hit = _intersect((p, p + r), (q, q + u))
        corners.append(quad[i] if hit is None else hit)
    return np.float32(corners)


def _quads(edges: np.ndarray, min_side: float) -> list[np.ndarray]:
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    min_area = min_side * min_side
    quads = []
    for contour in contours:
        area = cv2.contourArea(contour)
        if area < min_area:
            continue
        hull = cv2.convexHull(contour)
        quad = _fit_quad(contour, hull)
        if quad is None:
            continue
        quad_area = cv2.contourArea(quad)
        if area < 0.55 * quad_area or quad_area > 1.35 * cv2.contourArea(hull):
            continue
        if _card_shaped(quad, min_side) and not _frame_edge(quad, edges.shape):
            quads.append(quad)
    return quads


def _fit_quad(contour: np.ndarray, hull: np.ndarray) -> np.ndarray | None:
    """Four corners for an outline: its hull's if that has four, else from its longest lines."""
    perimeter = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.02 * perimeter, True).reshape(-1, 2).astype(np.float32)
    if len(poly) == 4:
        return poly
    return _fit_lines(contour, perimeter)


def _fit_lines(contour: np.ndarray, perimeter: float) -> np.ndarray | None:
    """The card's four sides among the straight runs of an outline broken by a hand or a card.

    Runs on one line (a side interrupted by a finger) are pooled; the card is the
    strongest pair of parallel lines with the strongest pair across it, and its
    corners are where they meet, seen or not.
    """
    poly = cv2.approxPolyDP(contour, 0.01 * perimeter, True).reshape(-1, 2).astype(np.float32)
    if len(poly) < 4:
        return None
    groups: list[list[float]] = []  # angle, offset, total length, x, y of a point
    runs = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
    runs.sort(key=lambda r: -float(np.linalg.norm(r[1] - r[0])))
    for a, b in runs:
        length = float(np.linalg.norm(b - a))
        if length < 0.04 * perimeter:
            break
        angle = math.atan2(float(b[1] - a[1]), float(b[0] - a[0])) % math.pi
        offset = -math.sin(angle) * float(a[0]) + math.cos(angle) * float(a[1])
        for g in groups:
            turn = abs(angle - g[0])
            if min(turn, math.pi - turn) < math.radians(6):
                shift = -math.sin(g[0]) * float(a[0]) + math.cos(g[0]) * float(a[1]) - g[1]
                if abs(shift) < 0.015 * perimeter:
                    g[2] += length
                    break
        else:
            groups.append([angle, offset, length, float(a[0]), float(a[1])])
    pair = _parallel_pair(groups, None)
    if pair is None:
        return None
    across = _parallel_pair(groups, pair[0][0])
    if across is None:
        return None
    (g1, g2), (g3, g4) = pair, across
    corners = []
    for s, t in ((g1, g3), (g3, g2), (g2, g4), (g4, g1)):
        p = _intersect(_as_segment(s), _as_segment(t))
        if p is None:
            return None
        corners.append(p)
    quad = np.float32(corners)
    return quad if cv2.isContourConvex(quad.reshape(-1, 1, 2)) else None


def _parallel_pair(groups: list[list[float]], square_to: float | None) -> tuple[list[float], list[float]] | None:
    """The two strongest parallel, separated lines (square to ``square_to`` if given)."""
    best = None
    for i, g in enumerate(groups):
        if square_to is not None:
            turn = abs(g[0] - square_to)
            if min(turn, math.pi - turn) < math.radians(60):
                continue
        for h in groups[i + 1:]:
            turn = abs(g[0] - h[0])
            if min(turn, math.pi - turn) > math.radians(20):
                continue
            gap = abs(-math.sin(g[0]) * h[3] + math.cos(g[0]) * h[4] - g[1])
            if gap < 10:
                continue
            score = min(g[2], h[2])
            if best is None or score > best[0]:
                best = (score, g, h)
    return None if best is None else (best[1], best[2])


def _as_segment(g: list[float]) -> tuple[np.ndarray, np.ndarray]:
    p = np.float32([g[3], g[4]])
    return p, p + np.float32([math.cos(g[0]), math.sin(g[0])])


def _intersect(s: tuple[np.ndarray, np.ndarray], t: tuple[np.ndarray, np.ndarray]) -> np.ndarray | None:
    (p, p2), (q, q2) = s, t
    r, u = p2 - p, q2 - q
    denom = r[0] * u[1] - r[1] * u[0]
    if abs(denom) < 1e-6 * float(np.linalg.norm(r) * np.linalg.norm(u)):
        return None
    k = ((q[0] - p[0]) * u[1] - (q[1] - p[1]) * u[0]) / denom
    return p + k * r


def _card_shaped(quad: np.ndarray, min_side: float) -> bool:
    """Convex, corners near right angles (a card seen from above), sides in card proportions."""
    if not cv2.isContourConvex(quad.reshape(-1, 1, 2).astype(np.float32)):
        return False
    sides = [float(np.linalg.norm(quad[(i + 1) % 4] - quad[i])) for i in range(4)]
    if min(sides) < min_side:
        return False
    for i in range(4):
        a = quad[i - 1] - quad[i]
        b = quad[(i + 1) % 4] - quad[i]
        cos = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
        if abs(cos) > 0.45:  # beyond about 63..117 degrees
            return False
    short = (sides[0] + sides[2]) / 2
    long = (sides[1] + sides[3]) / 2
    return max(short, long) / min(short, long) <= MAX_ASPECT


def _frame_edge(quad: np.ndarray, shape: tuple[int, ...]) -> bool:
    """True for the outline of the picture itself (a patterned table has edges up to it)."""
    h, w = shape[:2]
    near = (np.minimum(quad[:, 0], w - 1 - quad[:, 0]) < 4) | (np.minimum(quad[:, 1], h - 1 - quad[:, 1]) < 4)
    return bool(near.sum() >= 3)


def _support(edge_map: np.ndarray, quad: np.ndarray) -> float:
    """Share of points along the quadrilateral's sides that lie on an edge."""
    hits = total = 0
    h, w = edge_map.shape
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        n = max(int(np.linalg.norm(b - a) / 3), 2)
        t = np.linspace(0.05, 0.95, n)[:, None]
        pts = np.round(a + (b - a) * t).astype(int)
        inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
        pts = pts[inside]
        hits += int(np.count_nonzero(edge_map[pts[:, 1], pts[:, 0]]))
        total += n
    return hits / total


def _order(quad: np.ndarray) -> np.ndarray:
    """Clockwise on screen, starting at an end of a short side."""
    centre = quad.mean(axis=0)
    angles = np.arctan2(quad[:, 1] - centre[1], quad[:, 0] - centre[0])
    quad = quad[np.argsort(angles)]  # y points down, so increasing angle is clockwise
    sides = [float(np.linalg.norm(quad[(i + 1) % 4] - quad[i])) for i in range(4)]
    if sides[0] + sides[2] > sides[1] + sides[3]:
        quad = np.roll(quad, -1, axis=0)
    return quad.astype(np.float32)


def _distinct(found: list[FoundCard]) -> list[FoundCard]:
    """One quadrilateral per card: of outlines that overlap, the outermost well-supported one.

    A card gives several outlines (its edge, the inner line of its border, its
    picture's frame); the card is the largest, unless it is much worse supported.
    """
    found.sort(key=lambda f: -f.area * (0.5 + f.support))
    kept: list[FoundCard] = []
    for f in found:
        if all(_overlap(f, k) < 0.5 for k in kept):
            kept.append(f)
    return kept


def _overlap(a: FoundCard, b: FoundCard) -> float:
    """Area shared by two quadrilaterals over the smaller's area."""
    inter, _ = cv2.intersectConvexConvex(a.corners.astype(np.float32), b.corners.astype(np.float32))
    return float(inter) / max(min(a.area, b.area), 1e-6)

