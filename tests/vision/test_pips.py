"""The geometry pips are judged by: a top face seen from the tray's near side, a pip's own
outline, pips run together, and a face below another (its front face, or a die behind)."""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np
import pytest

from vision.dice import pips as pip_reader
from vision.dice.find import View, find_blobs
from vision.dice.pips import (READ_SIDE, FaceRead, _alike_pips, _drop_side_faces, _Face, _glare, _kmeans,
                              _moments, _near_side, _same_face, _seamless, _side_face, _trials,
                              _upright_roundness, find_pips)
from vision.dice.render import render_scene


def _ellipse(long: float, short: float, degrees: float) -> np.ndarray:
    """The second moments of an ellipse with semi-axes ``long`` and ``short``, its long
    axis turned ``degrees`` from the picture's width."""
    t = np.radians(degrees)
    turn = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    return turn @ np.diag([long ** 2 / 4, short ** 2 / 4]) @ turn.T


@pytest.mark.parametrize("short", [1.0, 0.7, 0.5, 0.4])
def test_a_top_face_foreshortened_towards_the_camera_keeps_its_pip_round(short: float) -> None:
    # Its pip lies along the picture's width, however low the camera.
    assert _upright_roundness(_ellipse(1.0, short, 0.0)) == pytest.approx(1.0)


@pytest.mark.parametrize(("short", "degrees"), [(0.5, 90.0), (0.5, 45.0), (0.6, 60.0)])
def test_a_side_faces_pip_stays_squashed(short: float, degrees: float) -> None:
    # Upright (a left or right face, squashed across) or tilted: no stretch along the
    # picture's height makes it round.
    assert _upright_roundness(_ellipse(1.0, short, degrees)) < 0.7


def test_a_pips_outline_tells_a_disc_from_a_rectangle() -> None:
    """A 1's pip is a disc, seen at a slant an ellipse; a sticker's dark chip or a key is a
    rectangle, however flat: its corners lie outside its ellipse."""
    gray = np.full((80, 240), 200, np.uint8)
    cv2.circle(gray, (40, 40), 7, 40, -1)  # a pip
    cv2.ellipse(gray, (100, 40), (9, 4), 0, 0, 360, 40, -1)  # a pip at a slant
    cv2.rectangle(gray, (140, 36), (157, 43), 40, -1)  # a flat chip
    cv2.rectangle(gray, (190, 33), (203, 46), 40, -1)  # a square one
    pips = find_pips(gray, np.ones(gray.shape, np.uint8), [(0, 0, 240, 80)], 60.0, dark=True)
    outline = dict(zip((pips.xy[:, 0] // 40).astype(int).tolist(), pips.outline.tolist()))
    assert sorted(outline) == [1, 2, 3, 4]
    assert outline[1] < 1.05 and outline[2] < 1.05
    assert outline[3] > 1.1 and outline[4] > 1.1


def test_two_pips_run_together_are_cut_apart_and_a_long_pip_is_not() -> None:
    """Blur (or glare between them) joins a 6's close pips into one long mark: its response
    dips between them. A pip seen edge on is long too, but strongest along its middle."""
    gray = np.full((60, 160), 60, np.uint8)
    cv2.circle(gray, (36, 30), 5, 230, -1)
    cv2.circle(gray, (47, 30), 5, 230, -1)  # two pips, joined once blurred
    cv2.ellipse(gray, (110, 30), (10, 4), 0, 0, 360, 230, -1)  # one pip seen at a slant
    gray = cv2.GaussianBlur(gray, (0, 0), 1.5)
    pips = find_pips(gray, np.ones(gray.shape, np.uint8), [(0, 0, 160, 60)], 46.0, dark=False)
    xs = sorted(np.round(pips.xy[:, 0]).astype(int).tolist())
    assert len(xs) == 3 and abs(xs[0] - 36) <= 1 and abs(xs[1] - 47) <= 1 and abs(xs[2] - 110) <= 1


@pytest.mark.parametrize(("apart", "glare"), [(7, (37.0, 21.0, 3.5)), (8, (38.0, 20.0, 3.5)),
                                             (8, (39.0, 20.0, 3.0))])
def test_two_light_pips_joined_by_glare_are_cut_between_their_paint(
        apart: int, glare: tuple[float, float, float]) -> None:
    """Glare (x, y, spread) on a coloured die joins two white pips ``apart`` px apart and
    lies nearer one of them: it moves the mark's centre and its dip, and a cut there left
    glare on one half, unlike the other (or too flat for the cut to be kept at all). Cut
    midway between the two pips' paint, the halves are alike."""
    yy, xx = np.mgrid[0:40, 0:80]
    gray = np.full((40, 80), 110.0)
    for x in (36, 36 + apart):
        gray[np.hypot(xx - x, yy - 20) <= 2.5] = 240
    x, y, spread = glare
    gray += 100 * np.exp(-((xx - x) ** 2 + (yy - y) ** 2) / (2 * spread ** 2))
    gray = cv2.GaussianBlur(np.clip(gray, 0, 255).astype(np.float32), (0, 0), 1.0)
    pips = find_pips(np.clip(gray, 0, 255).astype(np.uint8), np.ones((40, 80), np.uint8),
                     [(0, 0, 80, 40)], 40.0, dark=False)
    assert len(pips) == 2
    assert pips.alike[0, 1]


def _mark(paint: float, around: list[tuple[float, float, float]]) -> float:
    """A light mark's pixels (a core of 0.6 of its peak): paint of radius ``paint`` at the
    origin, its response 150, and discs (x, y, radius) of fainter response 100 beyond it
    (a blurred rim, or glare). Gives the share of its pixels that :func:`_glare` takes for
    glare, on dice 46 px a side."""
    ys, xs = np.mgrid[-12:13, -12:13].astype(float)
    paint_at = np.hypot(xs, ys) <= paint
    faint = np.zeros_like(paint_at)
    for x, y, radius in around:
        faint |= np.hypot(xs - x, ys - y) <= radius
    on = paint_at | faint
    r = np.where(paint_at, 150.0, 100.0)[on]
    lab = np.ones(int(on.sum()), np.intp)
    glare = _glare(_moments(xs[on], ys[on], lab, 2), xs[on], ys[on], lab, r, 46.0)
    return 0.0 if glare is None else float(glare.mean())


def test_glare_beside_a_light_pip_is_no_part_of_it() -> None:
    """Glare on a coloured die joins a light pip's core on one side: the pip, measured
    with it, was larger and flatter than its face's others and left out of its face. A
    blurred rim all round a pip, and a pip too small to tell, are the pip's."""
    glare_share = _mark(3.5, [(-4.0, -3.0, 3.0)])
    assert 0.2 < glare_share < 0.6
    assert _mark(3.5, [(0.0, 0.0, 4.5)]) == 0.0  # a rim all round
    assert _mark(1.5, [(-2.0, -1.5, 1.5)]) == 0.0  # paint of a few pixels: a pixel moves it


def test_glare_all_round_a_light_pip_leaves_it_like_its_face() -> None:
    """Glare lying all round a light pip (0.68 as strong as the pip) joins its core on
    every side: the core measures larger, and the pip was unlike its face's others (a red
    3 read as a 1). Its paint is still like theirs."""
    gray = np.full((60, 120), 60, np.uint8)
    cv2.circle(gray, (80, 30), 8, 175, -1)  # glare
    cv2.circle(gray, (30, 30), 5, 230, -1)
    cv2.circle(gray, (80, 30), 5, 230, -1)  # a pip under it
    gray = cv2.GaussianBlur(gray, (0, 0), 1.0)
    pips = find_pips(gray, np.ones(gray.shape, np.uint8), [(0, 0, 120, 60)], 46.0, dark=False)
    assert len(pips) == 2 and pips.a.max() > 1.3 * pips.a.min()  # the glared core is larger
    assert pips.alike[0, 1] and pips.alike[1, 0]


def _read(pips: int, centre: tuple[float, float], flat: float, short: float, *,
          degrees: float = 0.0, confidence: float = 1.0) -> _Face:
    """A face of ``pips`` pips read at ``centre``, its pips of roundness ``flat`` and short
    semi-axis ``short``, their long axis turned ``degrees`` from the picture's width (its
    grid is not looked at)."""
    shape = _ellipse(1.0, flat, degrees)
    return _Face(FaceRead(str(pips), confidence, centre, pips, 40.0), 1, list(range(pips)),
                 np.zeros((2, 3)), flat, short, 40.0, shape / np.sqrt(np.linalg.det(shape)))


@pytest.mark.parametrize(("flat", "short", "dropped"), [(0.88, 2.6, False), (1.0, 2.0, True)])
def test_a_lone_pip_below_a_face_and_rounder_is_a_front_face_only_if_narrower(
        flat: float, short: float, dropped: bool) -> None:
    """Below 45° of tilt a die's front face is flatter than its top face: a 1 below a face
    and rounder than it, both too round to be one die's faces, is a die behind that one,
    however close their depth, foreshortened, brings them. Blur rounds a front face's small
    pip too, but it stays narrower across than the top face's pips."""
    top = _read(6, (100.0, 60.0), 0.75, 2.3)
    below = _read(1, (90.0, 88.0), flat, short)
    assert _side_face(top, below, 1, 40.0) is (below if dropped else None)


@pytest.mark.parametrize(("pips", "degrees", "count", "dropped"),
                         [(1, -75.0, 1, True), (1, 0.0, 1, False), (1, -75.0, 2, False),
                          (3, -75.0, 1, False)])
def test_two_lone_pips_squashed_two_ways_in_one_die_are_its_top_and_a_side_face(
        pips: int, degrees: float, count: int, dropped: bool) -> None:
    """A die far off (read at its own size, 20 pixels): its 1, squashed along the picture's
    height, and beside it a pip of its side face, squashed across, and shown less clearly:
    more than 0.75 of a face apart, as two dice's 1s could be, but two dice side by side
    are seen squashed alike. In a blob of two dice, two 1s are two dice whatever their
    shapes (dice leaning on one another); a face of more pips is left to the other rules."""
    top = _read(pips, (100.0, 60.0), 0.55, 1.3)
    beside = _read(1, (120.0, 62.0), 0.64, 1.5, degrees=degrees, confidence=0.4)
    assert _side_face(top, beside, count, 20.0) is (beside if dropped else None)


@pytest.mark.parametrize(("dx", "short", "dropped"), [(24.0, 2.12, False), (24.0, 1.8, True),
                                                      (6.0, 2.12, True)])
def test_a_rounder_face_below_and_to_the_side_is_a_die_in_front_if_its_pips_are_no_smaller(
        dx: float, short: float, dropped: bool) -> None:
    """A 6 below a flatter 3 and well to its side, not so round that the two could not be
    one die's faces: a die turned shows side faces down to the left and right, but their
    pips are no larger than its top face's, seen square on. Larger, the 6 is a die in front
    (the 3 is the side face of a die behind it); smaller, or straight below, a side face."""
    upper = _read(3, (481.0, 207.0), 0.69, 1.58)
    lower = _read(6, (481.0 + dx, 235.0), 0.848, short)
    assert _side_face(upper, lower, 4, 52.0) is (lower if dropped else None)


@pytest.mark.parametrize(("flat", "short", "dropped"), [(0.57, 1.46, False), (0.76, 1.94, True)])
def test_a_face_where_its_die_ends_is_no_front_face_under_a_face_seen_more_edge_on(
        flat: float, short: float, dropped: bool) -> None:
    """A 1 below a 2, their die ending just below the 1. Read from the side the camera is
    at, that is a front face (its blurred pips as round and as wide as the top face's:
    the upper face 0.76 round). But a 2 plainly flatter above it, its pips narrower by
    over a fifth, is the side face: a frame turned 180°, read as from the bottom with no
    cue telling its side, whose 1 is the top face, its die ending just past it, away from
    the camera. Roundness weighs them: a 2 that flat is no top face of the 1's die."""
    upper = _read(2, (100.0, 60.0), flat, short)
    lower = dataclasses.replace(_read(1, (112.0, 89.0), 0.82, 2.53), ends=True)
    assert _side_face(upper, lower, 1, 40.0) is (lower if dropped else None)


@pytest.mark.parametrize(("degrees", "dx", "dropped"), [(0.0, 26.0, False), (90.0, 26.0, True),
                                                       (0.0, 18.0, True)])
def test_a_flatter_face_beside_another_is_a_side_face_only_if_squashed_across(
        degrees: float, dx: float, dropped: bool) -> None:
    """Two 2s side by side, one's pips flatter (blurred): a left or right face is squashed
    across (or aslant); its pips lying along the picture's width, as a top face's do, the
    flatter 2 is another die's top face, unless the two are under half a die apart (here
    0.58 and 0.41 of a die)."""
    rounder = _read(2, (167.0, 56.0), 0.91, 2.1)
    flatter = _read(2, (167.0 + dx, 62.0), 0.70, 1.8, degrees=degrees)
    assert _side_face(rounder, flatter, 2, 46.0) is (flatter if dropped else None)


@pytest.mark.parametrize(("confidence", "short", "dropped"), [(1.0, 1.7, False), (0.4, 1.7, True),
                                                              (1.0, 1.3, True)])
def test_a_sure_1_beside_a_smaller_face_is_weighed_by_that_faces_size(
        confidence: float, short: float, dropped: bool) -> None:
    """A far 1 touching a 6 beside it (a frame in perspective: the frame's faces are 38
    pixels, these two 28, as the 6's grid measures). One face apart, they lay under 0.75
    of the frame's size apart, and the 1 was dropped as the 6's side face. Weighed by the
    6's own size, they are two dice. A side face's pip read doubtfully, or smaller than
    the 6's pips (a 1's pip is no smaller than a die's others), is dropped still."""
    six = dataclasses.replace(_read(6, (130.0, 60.0), 0.78, 2.0),
                              grid=np.array([[0.26 * 28.0, 0.0, 130.0], [0.0, 0.2 * 28.0, 60.0]]))
    one = _read(1, (103.0, 62.0), 0.70, short, confidence=confidence)
    assert _side_face(six, one, 1, 46.0 / 1.2) is (one if dropped else None)


@pytest.mark.parametrize("fronted", [True, False])
def test_a_face_with_its_own_front_face_below_is_no_side_face(fronted: bool) -> None:
    """Two white dice one behind the other, both showing 1s (a 32-dice frame, seed 4014):
    the near die's 1 lies below the far die's, flatter, close enough to be its front face.
    But below it lies its own front face, a 2 flatter still: a front face shows no face of
    its die below it, so the near 1 is a top face, whichever pair is weighed first. Without
    that 2 the lower 1 is taken for the far die's front face, as before."""
    far = _read(1, (100.0, 60.0), 0.83, 2.7)
    near = _read(1, (96.0, 88.0), 0.70, 2.4)
    front = _read(2, (92.0, 116.0), 0.59, 1.8)
    faces = [far, near, front] if fronted else [far, near]
    kept = _drop_side_faces(faces, 3)
    assert kept == ([far, near] if fronted else [far])


@pytest.mark.parametrize(("short", "dropped"), [(1.5, True), (2.1, False)])
def test_a_lone_pip_below_a_face_where_its_die_ends_is_a_front_face_if_narrower(
        short: float, dropped: bool) -> None:
    """A black 6 and, a face's side below it, a 1, their die ending just below the 1 (seed
    11617 at 640×480): too round together for one die's faces and further below than a
    front face lies, measured by the 6's side, so the 1 was read as a die in front. But a
    1's pip is no narrower than its die's other pips, and a die in front is nearer the
    camera: a lone pip narrower across than the 6's pips is a pip of the 6's front face.
    As wide, it may be a die in front, and is kept."""
    top = _read(6, (100.0, 60.0), 0.84, 2.24)
    below = dataclasses.replace(_read(1, (100.0, 100.0), 0.75, short), ends=True)
    assert _side_face(top, below, 1, 40.0) is (below if dropped else None)


@pytest.mark.parametrize(("flat", "short", "kept"), [(0.70, 2.4, True), (0.62, 2.0, False)])
def test_a_face_seen_more_edge_on_than_its_top_face_is_a_side_face_with_a_front_face_below(
        flat: float, short: float, kept: bool) -> None:
    """As in the test above, a 1 below another 1 with a flatter 2 below it. A face with a
    front face of its own below it is a top face, so no side face of a face beside it
    (seed 4014); but seen plainly more edge on than that face (flatter by 0.1, its pip
    under 0.8 as wide), it is that face's side face however a face below it looks: two
    parts of one side face, or a die's front face and the face below it, seen alike (seeds
    10536, 11313 at 640×480), read as a die."""
    far = _read(1, (100.0, 60.0), 0.83, 2.7)
    near = _read(1, (96.0, 88.0), flat, short)
    front = _read(2, (92.0, 116.0), 0.50, 1.5)
    assert any(face is near for face in _drop_side_faces([far, near, front], 3)) is kept


def _two_dice(lone_face_y: float) -> tuple[dict[int, list[_Face]], View]:
    """A view of two dice alone in their blobs (rows 20-80 and 120-180 of columns 60-140 and
    160-240): in the first, a 4 with a flatter 1 above it; in the second, one face read, at
    height ``lone_face_y``."""
    body = np.zeros((200, 300), np.uint8)
    body[20:80, 60:140] = 1
    body[120:180, 160:240] = 2
    top, above = _read(4, (100.0, 62.0), 0.85, 2.9), _read(1, (100.0, 34.0), 0.5, 1.5)
    lone = dataclasses.replace(_read(5, (200.0, lone_face_y), 0.85, 2.9), blob=2)
    view = View(np.zeros((200, 300, 3), np.uint8), body, [(60, 20, 80, 60), (160, 120, 80, 60)],
                [1, 1], 46.0, 1.0)
    return {1: [top, above], 2: [lone]}, view


@pytest.mark.parametrize(("lone_face_y", "near"), [(165.0, (0.0, -1.0)), (135.0, (0.0, 1.0))])
def test_a_camera_at_the_top_is_told_by_side_faces_above_and_lone_dice_agreeing(
        lone_face_y: float, near: tuple[float, float]) -> None:
    """A camera at the far side of the table sees a die's front face above its top face,
    plainly flatter, and a die alone in its blob shows its top face at the blob's far end
    from the camera, below its centre: both say the camera is at the top, and then the 4
    below the flatter 1 is the top face. A lone die whose face lies above its blob's centre
    says the camera is at the bottom: two dice one behind the other may look like a face
    above a face, so the pair alone turns nothing, and the 4 is taken for a front face."""
    faces, view = _two_dice(lone_face_y)
    side = _near_side(faces, view)
    assert tuple(side) == near
    top, above = faces[1]
    assert _drop_side_faces([top, above], 1, near=side) == ([top] if near == (0.0, -1.0) else [above])


_GRID = np.array([[10.4, 0.0, 0.0], [0.0, 10.4, 0.0]])  # a face's grid: pips 0.26 of a 40 px face apart


def _shown_faces(pairs: list[tuple[float, float]]) -> tuple[dict[int, list[_Face]], View]:
    """A view of dice alone in their blobs (60 pixels a side, 100 pixels apart along the
    picture's width), each showing a 4 and a face of three pips, flatter (roundness 0.85
    and 0.6), one die's side above it: ``pairs`` gives, per die, where that face lies from
    the 4 (x, y in die sides)."""
    body = np.zeros((200, 120 + 100 * len(pairs)), np.uint8)
    faces, boxes = {}, []
    for k, (dx, dy) in enumerate(pairs):
        x = 60 + 100 * k
        body[70:130, x:x + 60] = k + 1
        boxes.append((x, 70, 60, 60))
        faces[k + 1] = [dataclasses.replace(_read(n, centre, flat, short), blob=k + 1, grid=_GRID)
                        for n, centre, flat, short in ((4, (x + 30.0, 100.0), 0.85, 2.9),
                                                       (3, (x + 30.0 + 30 * dx, 100.0 + 30 * dy), 0.6, 1.8))]
    view = View(np.zeros((*body.shape, 3), np.uint8), body, boxes, [1] * len(pairs), 46.0, 1.0)
    return faces, view


@pytest.mark.parametrize(("pairs", "near"), [([(0.0, -1.0), (0.1, -1.0)], (0.0, -1.0)),
                                             ([(0.0, -1.0), (-1.0, 0.8)], (0.0, 1.0))])
def test_with_no_lone_die_side_faces_plainly_flatter_all_above_say_the_camera_is_at_the_top(
        pairs: list[tuple[float, float]], near: tuple[float, float]) -> None:
    """Every die showing a side face (no die alone in its blob read as one face, to ask
    where the camera is): faces plainly flatter than a face beside them, above it on every
    die, say the camera is at the top. One such face below and to the left, another above,
    say nothing (two dice one behind the other in one blob look like a face above a face,
    seed 9648), and the camera is taken to be at the bottom."""
    faces, view = _shown_faces(pairs)
    assert tuple(_near_side(faces, view)) == near


@pytest.mark.parametrize(("pips", "near"), [(2, (0.0, -1.0)), (1, (0.0, 1.0))])
def test_a_face_squashed_above_its_top_face_is_enough_when_lone_dice_agree(
        pips: int, near: tuple[float, float]) -> None:
    """A camera at the top, a lone die's face below its blob's centre: a face above a 4,
    flatter by 0.15 (squashed as side faces are, not plainly: a front face seen at about
    45°, `two_25` turned 180°), agrees, and the camera is taken to be at the top. The
    same squash measured on one pip, a 1's, is too rough to say so."""
    faces, view = _two_dice(165.0)
    top, _ = faces[1]
    faces[1] = [top, dataclasses.replace(_read(pips, (100.0, 34.0), 0.7, 2.0), grid=_GRID)]
    assert tuple(_near_side(faces, view)) == near


def _die_and_lone_die(step: tuple[float, float], lone_dx: float, lone_dy: float,
                      count: int = 1) -> tuple[dict[int, list[_Face]], View]:
    """A view of two blobs (rows 20-80 and 120-180 of columns 60-140 and 160-240): the
    first, of ``count`` dice, shows a 4 and a face of three pips plainly flatter (roundness
    0.85 and 0.6) ``step`` pixels from it; the second a lone die's face ``lone_dx``,
    ``lone_dy`` pixels off its blob's centre."""
    body = np.zeros((200, 300), np.uint8)
    body[20:80, 60:140] = 1
    body[120:180, 160:240] = 2
    top = dataclasses.replace(_read(4, (100.0, 50.0), 0.85, 2.9), grid=_GRID)
    side = dataclasses.replace(_read(3, (100.0 + step[0], 50.0 + step[1]), 0.6, 1.8), grid=_GRID)
    lone = dataclasses.replace(_read(5, (199.5 + lone_dx, 149.5 + lone_dy), 0.85, 2.9), blob=2)
    view = View(np.zeros((200, 300, 3), np.uint8), body, [(60, 20, 80, 60), (160, 120, 80, 60)],
                [count, 1], 46.0, 1.0)
    return {1: [top, side], 2: [lone]}, view


@pytest.mark.parametrize(("step", "lone_dx", "near"), [((-28.0, 6.0), 25.0, (-1.0, 0.0)),
                                                       ((25.0, 13.0), -25.0, (0.0, 1.0))])
def test_a_side_face_pulled_nearly_sideways_and_lone_dice_agreeing_say_the_camera_is_there(
        step: tuple[float, float], lone_dx: float, near: tuple[float, float]) -> None:
    """A camera at the left of the picture sees a die's front face left of its top face,
    and its dice tilted a little, somewhat down; a lone die's face lies right of its blob's
    centre: the camera is at the left. A face 27° below the right of its top face is as
    much the bottom's (a turned die's right face seen from the bottom, seed 1057): the
    camera is taken to be at the bottom, though the lone die's face lies left."""
    faces, view = _die_and_lone_die(step, lone_dx, 0.0)
    assert tuple(_near_side(faces, view)) == near


@pytest.mark.parametrize(("lone_dy", "near"), [(15.0, (0.0, -1.0)), (-15.0, (0.0, 1.0))])
def test_side_faces_in_a_blob_of_two_dice_may_agree_with_lone_dice(
        lone_dy: float, near: tuple[float, float]) -> None:
    """A face plainly flatter above a 4 in a blob of two dice, and a lone die's face below
    its blob's centre: both say the camera is at the top, though no lone die shows a side
    face. The lone die's face above its centre: two dice one behind the other look like a
    face above a face, and the camera is taken to be at the bottom."""
    faces, view = _die_and_lone_die((0.0, -28.0), 0.0, lone_dy, count=2)
    assert tuple(_near_side(faces, view)) == near


@pytest.mark.parametrize(("lone_dy", "near"), [(15.0, (0.0, -1.0)), (-15.0, (0.0, 1.0))])
def test_lone_dice_pulled_aslant_agree_if_they_lie_beyond_their_centres_from_the_camera(
        lone_dy: float, near: tuple[float, float]) -> None:
    """A face plainly flatter above a 4 on a die alone in its blob; a lone die's face off
    its blob's centre as far to the right as down, naming no side clearly: it still lies
    below its centre, away from a camera at the top, and agrees. As far up as to the
    right, it lies towards the top: the camera is taken to be at the bottom."""
    faces, view = _die_and_lone_die((0.0, -28.0), 15.0, lone_dy)
    assert tuple(_near_side(faces, view)) == near


def test_a_faint_seam_between_pips_counts_against_their_face() -> None:
    """Of two pairs of pips alike in every other way, the one with a faint dip between
    them (the rounded edges of two dice touching, too faint to part them) is the less
    likely face: pips 0 and 1 lie across a seam, pips 1 and 2 on one face."""
    seams = np.full((3, 3), np.nan)
    seams[0, 1] = seams[1, 0] = 0.067
    seams[1, 2] = seams[2, 1] = 0.0
    across, one_face = _seamless(seams, np.array([[0, 1], [1, 2]])).tolist()
    assert one_face == pytest.approx(1.0)
    assert across < one_face


@pytest.mark.parametrize("seam", [True, False])
def test_a_seam_right_beside_a_light_pip_is_measured(seam: bool) -> None:
    """Two light pips on a dark face; a seam (two dice touching) right beside one of them,
    in the margin round a pip where dips that part pips are not looked for. It parts
    nothing, but it is measured as a dip beside the pips, to choose between two faces
    as sure as each other."""
    gray = np.full((60, 80), 60, np.uint8)
    cv2.circle(gray, (30, 30), 2, 200, -1, cv2.LINE_AA)
    cv2.circle(gray, (48, 30), 2, 200, -1, cv2.LINE_AA)
    if seam:
        gray[:, 35:37] = 20
    body = np.zeros_like(gray)
    body[5:55, 5:75] = 1
    pips = find_pips(gray, body, [(5, 5, 70, 50)], 40.0, dark=False)
    assert len(pips) == 2
    pairs, seams = _same_face(pips, cv2.blur(gray, (3, 3)), np.full(2, 34.0), 0.06 * 40)
    assert pairs.tolist() == [[0, 1]]
    assert seams.depth[0, 1] == 0.0
    assert (seams.beside[0, 1] > 0.15) == seam


def _kmeans_by_numpy(points: np.ndarray, k: int) -> list[int]:
    """The clusters as NumPy finds them (farthest-point start, Lloyd steps): what the
    reader's own, on numbers, must match label for label."""
    d = np.sqrt(((points[:, None] - points[None]) ** 2).sum(2))
    chosen = [int(np.argmax(d.sum(1)))]
    for _ in range(k - 1):
        chosen.append(int(np.argmax(d[chosen].min(0))))
    labels = np.argmin(d[chosen], 0)
    for _ in range(3):
        count = np.maximum(np.bincount(labels, minlength=k), 1)
        centres = np.stack([np.bincount(labels, points[:, 0], k), np.bincount(labels, points[:, 1], k)], 1)
        moved = np.argmin(((points[:, None] - (centres / count[:, None])[None]) ** 2).sum(2), 1)
        if (moved == labels).all():
            break
        labels = moved
    return [int(label) for label in labels]


def test_pips_split_in_space_as_numpy_splits_them() -> None:
    """Two faces' pips side by side come apart, and any set of points (pips on a grid,
    whose distances tie, among them) is split into two and three as NumPy's argmin and
    sums split it, each number of clusters as if worked out alone."""
    left, right = [(10.0, 10.0), (14.0, 12.0), (11.0, 15.0)], [(40.0, 11.0), (44.0, 14.0)]
    labels, = _kmeans(np.array(left + right), 2)
    assert labels[:3] == [labels[0]] * 3 and labels[3:] == [1 - labels[0]] * 2
    rng = np.random.default_rng(0)
    for trial in range(300):
        n = int(rng.integers(2, 12))
        points = (rng.integers(0, 5, (n, 2)) * 7.5 if trial % 2 else rng.normal(0, 20, (n, 2)))
        most = min(3, n)
        assert _kmeans(points.astype(float), most) == [
            _kmeans_by_numpy(points.astype(float), k) for k in range(2, most + 1)]


def test_pips_are_alike_only_within_one_blob() -> None:
    """Pips alike in size and shape on one blob are alike; on two blobs they are never
    asked about together (no face spans two blobs), and are marked unlike."""
    gray = np.full((60, 200), 200, np.uint8)
    for x in (20, 45, 150):
        cv2.circle(gray, (x, 30), 6, 40, -1)
    body = np.zeros(gray.shape, np.uint8)
    body[:, :100], body[:, 100:] = 1, 2
    pips = find_pips(gray, body, [(0, 0, 100, 60), (100, 0, 100, 60)], 46.0, dark=True)
    order = np.argsort(pips.xy[:, 0])
    a, b, c = order.tolist()
    assert pips.alike[a, b] and pips.alike[b, a] and pips.alike[a, a]
    assert not pips.alike[a, c] and not pips.alike[c, b]
    assert _alike_pips(pips, np.array([a]), np.array([c]))[0]  # (alike in shape all the same)


def test_a_proposals_trials_are_made_once_least_typical_pip_trimmed_first() -> None:
    """Five pips of a face proposed: tried whole, then without the least typical pip (the
    smallest here), then without the next; the same proposal, asked again as faces are
    taken out, gets the trials made the first time."""
    gray = np.full((60, 200), 200, np.uint8)
    for x, radius in ((20, 6), (50, 6), (80, 6), (110, 5), (140, 4)):
        cv2.circle(gray, (x, 30), radius, 40, -1)
    pips = find_pips(gray, np.ones(gray.shape, np.uint8), [(0, 0, 200, 60)], 60.0, dark=True)
    order = np.argsort(pips.xy[:, 0]).tolist()
    proposal = tuple(sorted(order))
    ((_, first),) = _trials(pips, {proposal})
    assert [len(t) for t in first] == [5, 4, 3]
    assert first[1] == first[0][:4] and order[4] not in first[1] and order[3] not in first[2]
    ((_, again),) = _trials(pips, {proposal})
    assert again is first and pips.trials[proposal] is first


@pytest.mark.parametrize("dark", [True, False])
def test_marks_labelled_in_the_blobs_part_of_the_view_are_the_whole_views(
        dark: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The marks' pixels are labelled and measured in the part of the view holding the
    blobs, not over the bare tray around it, and give the pips the whole view gives: the
    same, in the same order (OpenCV numbers components by blocks of 2×2 pixels: a part
    starting on an odd row or column would number them in another order), where they are
    in the view, with their pixels and rims there."""
    scene = render_scene(4003, count=8, width=640, height=480)
    tray = np.median(scene.image.reshape(-1, 3), 0).tolist()
    # (Dice large enough to be read scaled down, plain tray to their right; the part's
    # corner falls on an odd row and column.)
    frame = cv2.copyMakeBorder(cv2.resize(scene.image, (960, 720)), 0, 0, 0, 640,
                               cv2.BORDER_CONSTANT, value=tray)
    view = find_blobs(frame).view(frame, READ_SIDE)
    gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY)
    h, w = gray.shape
    x0, y0, x1, y1 = pip_reader._part(view.boxes, 2, (w, h))
    assert (x1 - x0) * (y1 - y0) < 0.5 * w * h
    assert (min(x for x, _, _, _ in view.boxes) - 2) % 2 and (min(y for _, y, _, _ in view.boxes) - 2) % 2
    part = find_pips(gray, view.body, view.boxes, view.side, dark=dark, sides=view.sides)
    monkeypatch.setattr(pip_reader, "_part", lambda boxes, margin, size: (0, 0, *size))
    whole = find_pips(gray, view.body, view.boxes, view.side, dark=dark, sides=view.sides)
    assert len(part) > (20 if dark else 0)
    for name in ("xy", "a", "b", "cov", "paint", "contrast", "fill", "outline", "blob", "side",
                 "inside", "response"):
        assert np.array_equal(getattr(part, name), getattr(whole, name)), name


def test_a_clusters_parts_are_fitted_only_where_they_may_beat_its_sure_face(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Beside a sure face of n pips a part of a split proposal replaces it only as a sure
    face of n pips or more: only such sets of the parts are fitted (two dice touching, 13
    pips, read as a sure 6 first: none of its parts' sets of one to five pips is fitted),
    and the face read is that 6."""
    frame = render_scene(4000, count=32).image
    view = find_blobs(frame).view(frame, READ_SIDE)
    gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY)
    pips = find_pips(gray, view.body, view.boxes, view.side, dark=True, sides=view.sides)
    pairs, seams = pip_reader._same_face(pips, cv2.blur(gray, (3, 3)), 0.85 * pips.side,
                                         0.06 * view.side, np.ones(len(pips), bool))
    group = max(pip_reader._groups(len(pips), pairs), key=len)
    asked: list[list[int]] = []
    patterns = pip_reader._patterns
    monkeypatch.setattr(pip_reader, "_patterns", lambda gray, pips, seams, sets, seen: (
        asked.append([len(s) for s in sets]), patterns(gray, pips, seams, sets, seen))[1])
    (face,) = pip_reader._read_groups(gray, pips, seams, [group], {})
    assert len(group) == 13 and face is not None and face.read.face == "6" and face.read.confidence >= 0.5
    first, parts = asked
    assert min(first) < 6 and all(n >= 6 for n in parts)


def _frames_pips(seed: int, *, dark: bool) -> pip_reader.Pips:
    """The pips of one kind on a frame of 32 rendered dice."""
    frame = render_scene(seed, count=32).image
    view = find_blobs(frame).view(frame, READ_SIDE)
    gray = cv2.cvtColor(view.image, cv2.COLOR_BGR2GRAY)
    return find_pips(gray, view.body, view.boxes, view.side, dark=dark, sides=view.sides)


def test_a_grids_marks_are_compared_with_the_pips_there_as_with_every_pip() -> None:
    """A light mark at a grid's empty place counts less where a pip like the set's lies
    there (its cores alike): the pips there compared with the set's give the checks that
    every pip compared with every pip gave, bit for bit."""
    pips = _frames_pips(4003, dark=False)
    n = len(pips)
    idx = np.array([[k] * 6 for k in range(n)]
                   + [[i, j] + [i] * 4 for i in range(n) for j in range(i + 1, n)
                      if pips.blob[i] == pips.blob[j]])
    sizes = (idx != idx[:, :1]).any(1) + 1  # a lone pip, or a pair
    affine = np.concatenate([pip_reader._fits(pips.xy[idx[sizes == k, :k]], pips.side[idx[sizes == k, 0]],
                                              pip_reader._mids(pips.a[idx[sizes == k, :k]]),
                                              pips.cov[idx[sizes == k, :k]])[1] for k in (1, 2)])
    idx = np.concatenate([idx[sizes == 1], idx[sizes == 2]])
    occupied = pip_reader._OCCUPIED[np.sort(sizes)]
    contrast = pip_reader._mids(pips.contrast[idx])
    checks = pip_reader._grid_checks(pips, affine, occupied, contrast, idx)
    # As worked out before: every pip's core against every pip's, once a frame.
    places = (affine[:, None, :, :2] @ pip_reader.GRID[None, :, :, None])[..., 0] + affine[:, None, :, 2]
    h, w = pips.response.shape
    px, py = np.round(places[..., 0]).astype(int), np.round(places[..., 1]).astype(int)
    on = (px >= 0) & (px < w) & (py >= 0) & (py < h) & ~occupied
    share = (np.where(on, pips.response[np.clip(py, 0, h - 1), np.clip(px, 0, w - 1)], 0)
             / np.maximum(contrast, 1.0)[:, None])
    check = pip_reader._unit((1.0 - share) / 0.25)
    m, k = np.nonzero(share > 0.5)
    cores = pip_reader._alike_pairs(pips.cov[:, None], pips.cov[None])
    d = np.linalg.norm(places[m, k][:, None] - pips.xy[None], axis=2)
    there = ((d <= 1.5 * pips.a) & cores[idx[m]].any(1)).any(1)
    check[m, k] = pip_reader._unit((np.where(there, 0.8, 1.0) - share[m, k]) / 0.25)
    assert there.sum() > 5 and (~there).sum() > 5
    assert np.array_equal(checks, check.min(1))


def test_a_faces_unexplained_pips_asked_again_are_counted_as_afresh() -> None:
    """A face asked again about fewer of the pips it was asked about (as faces are taken
    out of a cluster) counts the pips left unexplained as a face never asked before does;
    asked about other pips, or on another grid, it works them out again."""
    pips = _frames_pips(4000, dark=True)
    blob = np.bincount(pips.blob).argmax()
    mine = [int(k) for k in np.flatnonzero(pips.blob == blob)]
    assert len(mine) >= 8
    counted = []
    for chosen in ([mine[0]], mine[:2], mine[:4]):
        grid = pip_reader._fits(pips.xy[[chosen]], pips.side[[chosen[0]]], pip_reader._mids(pips.a[[chosen]]),
                                pips.cov[[chosen]])[1][0]
        others = [k for k in mine if k not in chosen]
        asked = [others, others[1:], others[::2], others[::-1], others[2:] + [chosen[0]]]
        again = dataclasses.replace(pips)  # (a copy with nothing asked yet, then asked in turn)
        counts = [pip_reader._unexplained(again, grid, chosen, rest) for rest in asked]
        assert counts == [pip_reader._unexplained(dataclasses.replace(pips), grid, chosen, rest)
                          for rest in asked]
        assert pip_reader._unexplained(again, grid.copy(), chosen, others[1:]) == counts[1]
        counted += counts
    assert max(counted) > 0
