"""Reading pip dice: find the pips, group them into faces, keep the top faces, count.

Pips are small blobs that contrast with the die around them: a black-hat (or, for light
pips on a dark die, a top-hat) transform keeps details narrower than a die, so uneven
light and shaded side faces do not matter. Both kinds are looked for in every die, so
white and black dice can share a frame. Each blob is described by the ellipse of its
second moments, measured on its core (above half its peak) so that blur and glare around
it do not change its shape.

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

Everything is measured in pips and in the die's size as estimated in this frame, never in
pixels, so the same reader works on any camera and at any distance.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from vision.dice.find import View
from vision.dice.layout import GRID, pip_layout
from vision.dice.marks import mark_mask, mark_response

__all__ = ["READ_SIDE", "FaceRead", "Pips", "find_pips", "read_pip_faces"]

READ_SIDE = 40.0  # dice are read scaled down to about this many pixels a side


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

    xy: np.ndarray
    a: np.ndarray
    b: np.ndarray
    cov: np.ndarray  # n×2×2
    contrast: np.ndarray
    blob: np.ndarray
    inside: np.ndarray  # bool image: pixels of the pips (with their blurred rims)
    response: np.ndarray  # the black-hat/top-hat image they were found in
    dark: bool

    def __len__(self) -> int:
        return len(self.a)

    @property
    def roundness(self) -> np.ndarray:
        return self.b / np.maximum(self.a, 1e-6)


def find_pips(gray: np.ndarray, body: np.ndarray, boxes: list[tuple[int, int, int, int]],
              side: float, *, dark: bool) -> Pips:
    """Pip-like blobs on the dice of ``body`` (a label image: 0 tray, k for the blob in
    ``boxes[k - 1]``), dark on light or light on dark, for dice about ``side`` pixels a side."""
    response = mark_response(gray, side, dark=dark)
    binary = mark_mask(response, body, boxes)
    n, labels = cv2.connectedComponents(binary, connectivity=8)
    ys, xs = np.nonzero(binary)
    lab = labels[ys, xs]
    r = response[ys, xs].astype(float)
    peak = np.zeros(n)
    np.maximum.at(peak, lab, r)
    # Each blob's shape is measured on its core (above half its peak): a blurred pip's rim
    # or a glare spot around it would make it larger and less round than it is.
    core = r >= 0.5 * peak[lab]
    ys, xs, lab = ys[core], xs[core], lab[core]
    area = np.bincount(lab, minlength=n).astype(float)
    area[0] = 1.0
    xs_f, ys_f = xs.astype(float), ys.astype(float)
    cx = np.bincount(lab, xs_f, n) / area
    cy = np.bincount(lab, ys_f, n) / area
    dx, dy = xs_f - cx[lab], ys_f - cy[lab]
    mu20 = np.bincount(lab, dx * dx, n) / area + 1 / 12  # (+ a pixel's own spread)
    mu02 = np.bincount(lab, dy * dy, n) / area + 1 / 12
    mu11 = np.bincount(lab, dx * dy, n) / area
    common = np.sqrt(((mu20 - mu02) / 2) ** 2 + mu11 ** 2)
    # Semi-axes of the ellipse with the same second moments (a disc of radius r: r and r).
    a = 2 * np.sqrt(np.maximum((mu20 + mu02) / 2 + common, 1e-6))
    b = 2 * np.sqrt(np.maximum((mu20 + mu02) / 2 - common, 1e-6))
    fill = area / (np.pi * a * b)
    keep = ((area >= max(3.0, 0.004 * side * side)) & (area <= 0.1 * side * side)
            & (fill >= 0.55) & (a <= 0.25 * side))
    keep[0] = False
    ids = np.nonzero(keep)[0]
    kept = np.zeros(n, np.uint8)
    kept[ids] = 1
    # A pip's blurred rim, below the threshold, is still the pip's.
    rim = max(1, int(round(0.04 * side)))
    inside = cv2.dilate(kept[labels], cv2.getStructuringElement(cv2.MORPH_ELLIPSE,
                                                               (2 * rim + 1, 2 * rim + 1)))
    px = np.clip(np.round(cx[ids]).astype(int), 0, gray.shape[1] - 1)
    py = np.clip(np.round(cy[ids]).astype(int), 0, gray.shape[0] - 1)
    cov = np.stack([np.stack([mu20[ids], mu11[ids]], 1), np.stack([mu11[ids], mu02[ids]], 1)], 1)
    return Pips(np.stack([cx[ids], cy[ids]], 1), a[ids], b[ids], cov, peak[ids],
                body[py, px].astype(int), inside > 0, response, dark)


def _same_face(pips: Pips, gray: np.ndarray, reach: float, rim: float) -> np.ndarray:
    """Pairs (i, j) of pips on one face: in one blob, close, as strong as each other, and
    with plain face between them.

    The face is followed along the line between the two pips (outside their own rims, of
    ``rim`` pixels): the seam between touching dice dips below the faces on either side,
    if only a little (their rounded edges), and so does any mark on the way (a third pip:
    the pips of a face are joined pip to next pip), and a side face is lit differently from
    the top face, a step along the line. The pips of a side face are fainter too.
    """
    d = np.linalg.norm(pips.xy[:, None] - pips.xy[None], axis=2)
    i, j = np.nonzero(np.triu((d <= reach) & (pips.blob[:, None] == pips.blob[None]), 1))
    if i.size == 0:
        return np.zeros((0, 2), int)
    ci, cj = pips.contrast[i], pips.contrast[j]
    contrast = np.minimum(ci, cj)
    t = np.linspace(0.0, 1.0, max(8, int(reach) + 1))
    dist = d[i, j][:, None]
    pts = pips.xy[i, None] + (pips.xy[j] - pips.xy[i])[:, None] * t[None, :, None]
    px = np.clip(np.round(pts[..., 0]).astype(int), 0, gray.shape[1] - 1)
    py = np.clip(np.round(pts[..., 1]).astype(int), 0, gray.shape[0] - 1)
    from_i, from_j = t[None, :] * dist, (1 - t[None, :]) * dist
    ai, aj = pips.a[i][:, None], pips.a[j][:, None]
    # Outside the two pips and their blurred rims (as far as the rims go).
    free = ((from_i > ai + rim) & (from_j > aj + rim)
            & ~(pips.inside[py, px] & ((from_i <= 2 * ai + rim) | (from_j <= 2 * aj + rim))))
    raw = gray[py, px].astype(float)
    enough = free.sum(1) >= 2
    free[~enough] = True  # (judged plain: the pips all but touch)
    values = np.where(free, raw, np.nan)
    dip = np.nanpercentile(values, 80, axis=1) - np.nanmin(values, 1)
    near, far = free & (t[None, :] < 0.5), free & (t[None, :] >= 0.5)
    n_near, n_far = near.sum(1), far.sum(1)
    step = np.abs((raw * near).sum(1) / np.maximum(n_near, 1)
                  - (raw * far).sum(1) / np.maximum(n_far, 1))
    step[(n_near == 0) | (n_far == 0)] = 0.0
    # The pips of one face are alike: one size, squashed the same way.
    alike = _alike(pips, list(range(len(pips))), list(range(len(pips))))[i, j]
    ok = ((contrast >= 0.7 * np.maximum(ci, cj)) & alike
          & (~enough | ((dip <= np.maximum(8.0, 0.1 * contrast))
                        & (step <= np.maximum(10.0, 0.2 * contrast)))))
    return np.stack([i[ok], j[ok]], 1)


def _groups(n: int, pairs: np.ndarray) -> list[list[int]]:
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


def _whiten(x: np.ndarray) -> np.ndarray:
    vals, vecs = np.linalg.eigh(np.cov(x.T) + 1e-9 * np.eye(2))
    return x @ vecs @ np.diag(1 / np.sqrt(vals)) @ vecs.T


_CANON = {v: pip_layout(v) for v in range(1, 7)}
_CANON_W = {v: _whiten(_CANON[v] - _CANON[v].mean(0)) for v in range(4, 7)}
_CANON_ANGLE = {v: np.arctan2(_CANON_W[v][:, 1], _CANON_W[v][:, 0]) for v in range(4, 7)}
# Which of the nine grid places each pattern has a pip in.
_OCCUPIED = {v: np.isin(np.arange(9), [int(y + 1) * 3 + int(x + 1) for x, y in _CANON[v]])
             for v in range(1, 7)}


@dataclass(frozen=True)
class _Fit:
    quality: float  # 1 perfect, 0 not at all
    affine: np.ndarray  # 2×3: face grid units (pips one apart) to image pixels


def _step_ok(step: float, radius: float, side: float) -> float:
    """Whether a grid step (pixels) suits pips of ``radius`` on a die of about ``side``.

    On dice the pips are 1.6 to 5.5 radii apart (a quarter of the face, pips a tenth to a
    fifth of it); two pips of dice side by side, read as one face, are further apart. A
    face's grid is never larger than the die (whose size is only roughly known).
    """
    ratio = step / max(radius, 1e-6)
    return float(np.clip(min((ratio - 1.4) / 0.3, (5.8 - ratio) / 0.5, (0.4 - step / side) / 0.05),
                         0, 1))


def _squash(cov: np.ndarray) -> np.ndarray:
    """The face's foreshortening (2×2, determinant 1) from its pips' mean shape: a round
    pip seen at a slant is an ellipse, squashed as the face is."""
    vals, vecs = np.linalg.eigh(cov.mean(0))
    vals = np.sqrt(np.maximum(vals, 1e-6))
    return vecs @ np.diag(vals / np.sqrt(vals.prod())) @ vecs.T


def _fit(points: np.ndarray, side: float, radius: float, squash: np.ndarray) -> _Fit | None:
    """How well ``points`` (pips of ``radius``, squashed by ``squash``) form the pattern of
    their number, and the grid they sit on."""
    n = len(points)
    centre = points.mean(0)
    if n == 1:
        g = min(0.26 * side, 2.5 * radius)
        return _Fit(1.0, np.column_stack([g * squash, centre]))
    if n in (2, 3):
        d = points[:, None] - points[None]
        dist = np.sqrt((d ** 2).sum(2))
        i, j = np.unravel_index(np.argmax(dist), dist.shape)
        # The diagonal of the pip grid: 2·√2 steps.
        quality = _step_ok(float(dist[i, j]) / (2 * np.sqrt(2)), radius, side)
        if n == 3:
            k = 3 - i - j
            mid = (points[i] + points[j]) / 2
            off = np.linalg.norm(points[k] - mid) / max(dist[i, j], 1e-6)
            quality *= float(np.exp(-(off / 0.12) ** 2))
        # The other diagonal: the same length, square to this one on the face, as the
        # face is squashed.
        u = (points[j] - points[i]) / 2
        w = np.linalg.solve(squash, u)
        v = squash @ np.array([-w[1], w[0]])
        return _Fit(quality, np.column_stack([(u + v) / 2, (u - v) / 2, centre]))
    # Four to six pips: whitened (an affine map makes any parallelogram a square), the
    # pattern is matched under every turn that lays a pip on a pattern place.
    canon, cw = _CANON[n], _CANON_W[n]
    pw = _whiten(points - centre)
    ang = (np.arctan2(pw[:, 1], pw[:, 0])[:, None] - _CANON_ANGLE[n][None]).ravel()
    c, s = np.cos(ang), np.sin(ang)
    rc = np.stack([c[:, None] * cw[None, :, 0] - s[:, None] * cw[None, :, 1],
                   s[:, None] * cw[None, :, 0] + c[:, None] * cw[None, :, 1]], 2)  # m×n×2
    cost = ((pw[None, :, None, :] - rc[:, None, :, :]) ** 2).sum(3)  # m × point × place
    perm = np.argmin(cost, 2)
    distinct = (np.diff(np.sort(perm, 1), axis=1) > 0).all(1)
    if not distinct.any():
        return None
    err = np.take_along_axis(cost, perm[:, :, None], 2)[..., 0].mean(1)
    err[~distinct] = np.inf
    best = int(np.argmin(err))
    design = np.hstack([canon[perm[best]], np.ones((n, 1))])
    affine = np.linalg.lstsq(design, points, rcond=None)[0].T
    sv = np.linalg.svd(affine[:, :2], compute_uv=False)
    shape_ok = float(np.clip((sv[1] / sv[0] - 0.45) / 0.15, 0, 1))
    # The step along the face's unforeshortened direction, as the pips' long axis.
    return _Fit(float(np.exp(-err[best] / 0.05)) * shape_ok * _step_ok(float(sv[0]), radius, side),
                affine)


def _grid_check(pips: Pips, fit: _Fit, value: int, contrast: float) -> float:
    """How well the nine places of the fitted grid agree with the pattern (0-1): where the
    pattern has no pip the face is plain; a mark there means another face."""
    places = GRID @ fit.affine[:, :2].T + fit.affine[:, 2]
    h, w = pips.response.shape
    px, py = np.round(places[:, 0]).astype(int), np.round(places[:, 1]).astype(int)
    on = (px >= 0) & (px < w) & (py >= 0) & (py < h) & ~_OCCUPIED[value]
    seen = pips.response[py[on], px[on]]
    if seen.size == 0:
        return 1.0
    # A light mark half as strong as the pips is glare on a dark die; a dark one is a pip
    # under glare, or another face's.
    worst = 0.75 if not pips.dark else 0.5
    return float(np.clip((worst - seen.max() / max(contrast, 1.0)) / 0.25, 0, 1))


# Where the face is sampled, in grid steps: a square over the pip grid and a little
# beyond; for a lone pip, whose face's turn is unknown, rings around it.
_LATTICE = np.array([(x, y) for y in np.linspace(-1.6, 1.6, 9) for x in np.linspace(-1.6, 1.6, 9)])
_RINGS = np.array([(r * np.cos(t), r * np.sin(t)) for r in (0.6, 0.9, 1.2)
                   for t in np.linspace(0, 2 * np.pi, 24, endpoint=False)])


def _plain(gray: np.ndarray, pips: Pips, fit: _Fit, contrast: float, value: int) -> float:
    """How plain the face around the marks is (0-1): a die's face is one colour up to its
    edges, apart from its marks. Clutter that passes for pips sits on a surface of two
    colours or at an edge."""
    h, w = gray.shape
    pts = (_RINGS if value == 1 else _LATTICE) @ fit.affine[:, :2].T + fit.affine[:, 2]
    px, py = np.round(pts[:, 0]).astype(int), np.round(pts[:, 1]).astype(int)
    on = (px >= 0) & (px < w) & (py >= 0) & (py < h)
    px, py = px[on], py[on]
    free = ~pips.inside[py, px]
    values = np.sort(gray[py[free], px[free]])
    if values.size < 12:
        return 0.0
    spread = float(values[int(0.9 * values.size)]) - float(values[int(0.1 * values.size)])
    return float(np.clip((0.35 - spread / max(contrast, 1.0)) / 0.15, 0, 1))


@dataclass(frozen=True)
class _Face:
    read: FaceRead
    blob: int
    pips: list[int]  # its pips
    grid: np.ndarray  # 2×3: its pip grid (pips one apart) to image pixels
    unexplained: int  # pips of its group it leaves out that look like its own
    size: float  # its pips' short semi-axis: a die's top face has the largest
    flat: float  # their roundness (short over long axis): the top face's are the roundest
    axis: np.ndarray  # unit vector along their short axis: where the face is squashed

    @property
    def topness(self) -> float:
        return self.size * self.flat


def _alike(pips: Pips, chosen: list[int], others: list[int]) -> np.ndarray:
    """Which of ``others`` have the size and shape of each ``chosen`` pip (the same ellipse
    within about a quarter either way): a bool matrix, chosen × others."""
    vals, vecs = np.linalg.eigh(pips.cov[chosen])
    inv = vecs @ (vecs.transpose(0, 2, 1) / np.sqrt(np.maximum(vals, 1e-6))[:, :, None])
    rel = inv[:, None] @ pips.cov[others][None] @ inv[:, None]
    return (np.abs(np.log(np.maximum(np.linalg.eigvalsh(rel), 1e-6))) < 0.45).all(-1)


def _unexplained(pips: Pips, fit: _Fit, chosen: list[int], others: list[int]) -> int:
    """How many of ``others`` lie on the fitted face and look like its pips: they should
    have been part of it. (Pips unlike them, squashed another way, are a side face's.)"""
    if not others:
        return 0
    at = (pips.xy[others] - fit.affine[:, 2]) @ np.linalg.inv(fit.affine[:, :2]).T
    on = np.hypot(at[:, 0], at[:, 1]) <= 1.8 if len(chosen) == 1 else (np.abs(at) <= 1.6).all(1)
    if not on.any():
        return 0
    return int((on & _alike(pips, chosen, others).any(0)).sum())


def _top_like(pips: Pips, group: list[int]) -> list[int]:
    """The pips of a group that may be on a top face: round enough (a side face seen
    almost edge on has pips squashed to slits)."""
    return [k for k in group if pips.roundness[k] >= 0.45]


def _read_group(gray: np.ndarray, pips: Pips, group: list[int], side: float) -> _Face | None:
    """The best die face a group of pips makes.

    A face's pips are alike (one size, squashed the same way); the group may hold a side
    face's too, or a dark gap between dice passing for a pip. So each pip proposes the
    pips like it as a face, dropping the least like ones if they fit no pattern; the face
    that fits best wins, and of two that fit about as well, the one with the larger,
    rounder pips (the top face).
    """
    tops = _top_like(pips, group)
    if not tops:
        return None
    similar = _alike(pips, tops, tops)
    proposals = {tuple(sorted(np.array(tops)[row].tolist())) for row in similar}
    # Pips of dice side by side are alike too: those proposals also come split in space.
    for proposal in list(proposals):
        points = pips.xy[list(proposal)]
        for k in range(2, min(4, len(proposal)) + 1):
            labels = _kmeans(points, k)
            proposals.update(tuple(sorted(np.array(proposal)[labels == j].tolist()))
                             for j in range(k) if (labels == j).any())
    best: tuple[tuple[bool, int, float], float, int, _Fit, list[int], int] | None = None
    for proposal in proposals:
        members = list(proposal)
        typical = float(np.median(pips.b[members]))
        members.sort(key=lambda k: abs(np.log(pips.b[k] / typical)) + max(0.0, 0.85 - pips.roundness[k]))
        for keep in range(min(len(members), 6), 0, -1):
            chosen = members[:keep]
            fit = _fit(pips.xy[chosen], side, float(np.median(pips.a[chosen])),
                       _squash(pips.cov[chosen]))
            if fit is None or fit.quality < 0.05:
                continue
            unexplained = _unexplained(pips, fit, chosen, [k for k in tops if k not in chosen])
            contrast = float(np.median(pips.contrast[chosen]))
            score = fit.quality * _grid_check(pips, fit, keep, contrast) * 0.6 ** unexplained
            # A sure face that explains more pips beats a part of it.
            key = (score >= 0.5, keep if score >= 0.5 else 0, score)
            if best is None or key > best[0]:
                best = (key, score, keep, fit, chosen, unexplained)
            if score > 0.5:
                break
    if best is None:
        return None
    _, score, value, fit, chosen, unexplained = best
    centre = fit.affine[:, 2]
    face_side = float(np.sqrt(abs(np.linalg.det(fit.affine[:, :2])))) / 0.26
    plain = _plain(gray, pips, fit, float(np.median(pips.contrast[chosen])), value)
    score *= plain
    if plain < 0.3 or score < 0.1:
        return None  # nothing like a die's face: clutter
    vals, vecs = np.linalg.eigh(pips.cov[chosen].mean(0))
    read = FaceRead(str(value), score, (float(centre[0]), float(centre[1])), len(group), face_side)
    return _Face(read, int(pips.blob[chosen[0]]), chosen, fit.affine, unexplained,
                 float(np.median(pips.b[chosen])),
                 float(np.sqrt(max(vals[0], 1e-9) / max(vals[1], 1e-9))), vecs[:, 0])


def _side_of(face: _Face, top: _Face) -> bool | None:
    """Whether ``face`` is a side face of the die whose top face is ``top``: beside it, in
    the direction the top face is squashed (towards the camera), and more foreshortened;
    ``None`` when they are alike (seen at about 45°, or two dice one behind the other)."""
    d = np.array(face.read.centre) - np.array(top.read.centre)
    dist = float(np.hypot(*d))
    if dist > 1.3 * max(face.read.side, top.read.side):
        return False
    if top.flat >= 0.9:
        # Seen from straight above, side faces show as slivers at most.
        return face.flat < 0.6
    if abs(float(d @ top.axis)) < 0.6 * dist:
        return False  # beside it, but not towards the camera: another die
    if face.flat < top.flat - 0.08 or face.topness < 0.75 * top.topness:
        return True
    return None


def _drop_side_faces(faces: list[_Face], count: int) -> list[_Face]:
    """The top faces among the faces read in a blob of about ``count`` dice."""
    kept: list[_Face] = []
    doubtful: list[tuple[_Face, _Face]] = []
    for face in sorted(faces, key=lambda f: -f.topness):
        relation = [_side_of(face, top) for top in kept]
        if any(relation):
            continue
        doubtful.extend((face, top) for top, r in zip(kept, relation) if r is None)
        kept.append(face)
    if count == 1:
        # The blob is one die: of two faces alike, the top one is higher in the picture, as
        # a camera looks at a table from its near side.
        for a, b in doubtful:
            if a in kept and b in kept:
                kept.remove(a if a.read.centre[1] > b.read.centre[1] else b)
    return kept


def _kmeans(points: np.ndarray, k: int) -> np.ndarray:
    """Labels of ``points`` in ``k`` clusters: farthest-point start, a few Lloyd steps."""
    centres = [points[np.argmax(np.linalg.norm(points - points.mean(0), axis=1))]]
    for _ in range(k - 1):
        d = np.min(np.linalg.norm(points[:, None] - np.array(centres)[None], axis=2), 1)
        centres.append(points[np.argmax(d)])
    c = np.array(centres)
    labels = np.zeros(len(points), int)
    for _ in range(5):
        labels = np.argmin(np.linalg.norm(points[:, None] - c[None], axis=2), 1)
        c = np.array([points[labels == i].mean(0) if (labels == i).any() else c[i]
                      for i in range(k)])
    return labels


def _read_cluster(gray: np.ndarray, pips: Pips, group: list[int], side: float) -> list[_Face]:
    """The faces in a group of pips: usually one, but a group can hold the faces of dice
    touching with no seam to be seen between them (dark dice), and a side face or two.
    The best face is taken out with every pip on it, then the best of the rest, and so on."""
    faces: list[_Face] = []
    rest = list(group)
    while rest:
        face = _read_group(gray, pips, rest, side)
        if face is None:
            break
        faces.append(face)
        # Every pip on the face goes with it (it fits no other face); a lone pip's face
        # has none but it (its grid is checked empty).
        inverse = np.linalg.inv(face.grid[:, :2])
        at = (pips.xy[rest] - face.grid[:, 2]) @ inverse.T
        on = (np.abs(at) <= 1.6).all(1) & (len(face.pips) > 1)
        rest = [k for k, o in zip(rest, on) if not o and k not in face.pips]
    return faces


def _apart(a: _Face, b: _Face) -> float:
    """How far apart two faces are, in face sides."""
    d = np.hypot(a.read.centre[0] - b.read.centre[0], a.read.centre[1] - b.read.centre[1])
    return float(d / max(a.read.side, b.read.side, 1e-6))


def read_pip_faces(view: View, *, threshold: float = 0.5) -> list[tuple[int, FaceRead]]:
    """Every top face on the dice of a view: (blob, face) pairs in view pixels, confidence
    below ``threshold`` reported as unknown."""
    image, side = view.image, view.side
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    smooth = cv2.blur(gray, (3, 3))
    faces: dict[int, list[_Face]] = {}
    # Both kinds of pips: a blob can hold a light die and a dark one touching (or a die
    # and a cable), and each face is read with its own.
    for dark in (True, False):
        pips = find_pips(gray, view.body, view.boxes, side, dark=dark)
        for group in _groups(len(pips), _same_face(pips, smooth, 0.85 * side, 0.06 * side)):
            blob = int(pips.blob[group[0]])
            faces.setdefault(blob, []).extend(_read_cluster(gray, pips, group, side))
    out = []
    for blob, found in faces.items():
        # One face read twice (its pips, and the plain face between them as light marks):
        # the surer reading, then the one with more marks, is the face.
        found.sort(key=lambda face: (-face.read.confidence, -face.read.marks))
        unique: list[_Face] = []
        for face in found:
            if all(_apart(face, k) > 0.4 for k in unique):
                unique.append(face)
        for face in _drop_side_faces(unique, view.counts[blob - 1]):
            r = face.read
            name = r.face if r.confidence >= threshold else "unknown"
            out.append((blob, FaceRead(name, r.confidence, r.centre, r.marks, r.side)))
    return out
