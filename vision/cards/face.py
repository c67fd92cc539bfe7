"""A card's face prepared for comparing: its picture at a fixed size, with the light taken out.

Every taught example and every card seen by the camera becomes a :class:`Face`. A face
holds three views of the same rectified picture, each for one step of naming a card:

* ``signature``: a coarse summary (edge directions and colour per cell) that is cheap to
  compare with every example of a deck, to shortlist the few cards it can be;
* ``detail``: the grey picture, balanced to white and blurred to a common sharpness, with
  the light taken out (each pixel's difference from its neighbourhood's mean, in units of
  the neighbourhood's contrast), so a shadow, a lamp's colour, a camera's sharpness or a
  glare spot that leaves some contrast does not count, and a rune stroke counts as much
  in a dim corner as in the middle;
* ``coarse``: ``detail`` at half size, for aligning a seen card onto an example;
* ``glare``: where the picture is washed out (white to the camera): what the card
  shows there is lost, whatever it is;
* ``spot``: a glare spot's clipped core and the ring round it where its steep light
  still leaves detail the card does not have.

Faces are compared in :mod:`vision.cards.compare`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["CELL", "Face", "MARGIN", "SIZE", "glare", "glare_spot", "print_of", "signature"]

SIZE = (96, 136)
"""Width and height of a face, in pixels: a playing card's proportions (63 x 88 mm)."""

MARGIN = 0.03
"""Share of the card cut from each edge for its face, so an outline a little wide brings
no table in."""

CELL = 8
"""Signature cell size in face pixels: 12 x 17 cells."""

BINS = 8
"""Edge directions per signature cell (0..180 degrees: a card turned round keeps them);
a power of two."""

LIGHT_SCALE = 4.0
"""Neighbourhood (Gaussian sigma, face pixels) over which light is taken to be even:
a card's strokes and letters are smaller, shadows and glare spots larger."""


SOFTEN = 2.0
"""How blurred (Gaussian sigma, face pixels) every face is made before its detail is
compared, its own blur included: what a camera a metre away resolves."""

SOFTEN_LEAST = 0.5
"""The least blur added, however blurred a face is already: it evens out a pixel's noise."""


@dataclass(frozen=True, slots=True)
class Face:
    """One rectified card picture (``SIZE``), ready to compare; see the module's doc."""

    colour: np.ndarray
    detail: np.ndarray
    coarse: np.ndarray
    glare: np.ndarray
    spot: np.ndarray
    signature: np.ndarray

    @classmethod
    def of(cls, card: np.ndarray, covered: np.ndarray | None = None) -> Face:
        """The face of a rectified card picture (BGR or grey, any size: resized to ``SIZE``).

        ``covered`` (a mask of ``SIZE``) is where something lies over the card
        (:func:`vision.cards.cover.covering`): it is not the card, and the light is
        evened out round it from the card alone.
        """
        if card.ndim == 2:
            card = cv2.cvtColor(card, cv2.COLOR_GRAY2BGR)
        if card.shape[1::-1] != SIZE:
            card = cv2.resize(card, SIZE, interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
        detail = print_of(card, covered)
        coarse = cv2.resize(detail, (SIZE[0] // 2, SIZE[1] // 2), interpolation=cv2.INTER_AREA)
        return cls(card, detail, coarse, glare(grey), glare_spot(card), signature(card))

    def turned(self) -> Face:
        """The same card upside down."""
        return Face(cv2.rotate(self.colour, cv2.ROTATE_180), self.detail[::-1, ::-1].copy(),
                    self.coarse[::-1, ::-1].copy(), self.glare[::-1, ::-1].copy(),
                    self.spot[::-1, ::-1].copy(), self.signature[::-1].copy())


def print_of(card: np.ndarray, covered: np.ndarray | None = None) -> np.ndarray:
    """A BGR card picture of ``SIZE``'s print, as compared: its grey under white light
    with the light evened out round ``covered`` (:func:`balanced_grey`,
    :func:`even_light`). A taught print is made again so round a seen card's finger, to
    be compared with what that card shows beside it."""
    return even_light(balanced_grey(card, covered), covered)


GREY_WEIGHTS = (0.114, 0.587, 0.299)
"""Blue, green and red's shares of grey (OpenCV's, for BGR)."""


def balanced_grey(card: np.ndarray, covered: np.ndarray | None = None) -> np.ndarray:
    """The grey of a BGR card picture as if under white light (float32).

    Each colour channel is scaled by the card's own average in it (what shows of the
    card: not under ``covered``) before they are mixed into grey: a lamp's or camera's
    colour multiplies each channel, and that cancels out, so a card taught under one
    light and seen under another has the same grey print (under a blue cast a red rune
    on a white card grows darker in plain grey, and a pale blue one fades). A channel is
    lifted at most fourfold: under a deep amber light the blue one is mostly the
    sensor's noise, which would otherwise be blown up into the print.
    """
    mask = None if covered is None or not covered.any() else (~covered).astype(np.uint8)
    means = np.maximum(np.array(cv2.mean(card, mask)[:3]), 1.0)
    level = float(np.dot(GREY_WEIGHTS, means))  # the grey's own average, kept
    mix = (np.array(GREY_WEIGHTS) * np.clip(level / means, 0.25, 4.0)).reshape(1, 3)
    balanced: np.ndarray = cv2.transform(card.astype(np.float32), mix)
    return balanced


def even_light(grey: np.ndarray, hidden: np.ndarray | None = None) -> np.ndarray:
    """``grey`` with the light taken out: local mean 0, local contrast 1 (float32).

    Contrast is floored at a share of the whole card's, so plain paper stays plain
    instead of its noise being blown up to the size of a stroke. Where ``hidden`` (a
    mask: a finger, a glare spot) the picture is not the card's: every local average
    is taken over the rest only, so a finger's dark edge does not dim the print beside
    it; the result there is 0.
    """
    g: np.ndarray = grey.astype(np.float32)
    # Blurred to what a camera a metre away resolves, so a sharp scan and a soft photo
    # of one card agree: only as much is added as the picture lacks.
    soften = float(np.sqrt(max(SOFTEN ** 2 - own_blur(g, hidden) ** 2, SOFTEN_LEAST ** 2)))
    if hidden is None or not hidden.any():
        g = cv2.GaussianBlur(g, (0, 0), soften)
        mean = cv2.GaussianBlur(g, (0, 0), LIGHT_SCALE)
        centred = g - mean
        spread = cv2.sqrt(cv2.GaussianBlur(centred * centred, (0, 0), LIGHT_SCALE))
        floor = max(0.25 * float(np.sqrt(np.mean(centred * centred))), 2.0)
        return centred / (spread + floor)
    shown = (~hidden).astype(np.float32)
    # How much of each neighbourhood shows, once for each scale (two averages share one).
    share = {sigma: np.maximum(cv2.GaussianBlur(shown, (0, 0), sigma), 1e-3) for sigma in {soften, LIGHT_SCALE}}

    def average(x: np.ndarray, sigma: float) -> np.ndarray:
        mean: np.ndarray = cv2.GaussianBlur(x * shown, (0, 0), sigma) / share[sigma]
        return mean

    g = average(g, soften)
    centred = (g - average(g, LIGHT_SCALE)) * shown
    spread = cv2.sqrt(average(centred * centred, LIGHT_SCALE))
    floor = max(0.25 * float(np.sqrt(np.sum(centred * centred) / max(float(shown.sum()), 1.0))), 2.0)
    evened: np.ndarray = centred / (spread + floor)
    return evened


REBLUR = 1.0
"""The blur (sigma, face pixels) by which :func:`own_blur` blurs a picture again."""


def own_blur(grey: np.ndarray, hidden: np.ndarray | None = None) -> float:
    """How blurred ``grey`` is (Gaussian sigma, face pixels), from its sharpest edges.

    Blurring it again by ``REBLUR`` lowers an edge's slope by a factor that tells its
    own blur: sqrt(s^2 + REBLUR^2) / s for an edge blurred by s. Edges under ``hidden``
    are not the card's and are left out.
    """
    def slope(x: np.ndarray) -> np.ndarray:
        steep: np.ndarray = cv2.magnitude(cv2.Sobel(x, cv2.CV_32F, 1, 0), cv2.Sobel(x, cv2.CV_32F, 0, 1))
        return steep

    sharp = slope(grey)
    again = slope(cv2.GaussianBlur(grey, (0, 0), REBLUR))
    if hidden is not None:
        sharp[hidden] = 0
    steepest = sharp.size // 20  # the steepest 5%
    edges = sharp >= np.partition(sharp, -steepest, axis=None)[-steepest]
    ratio = float(sharp[edges].sum()) / max(float(again[edges].sum()), 1e-6)
    return REBLUR / float(np.sqrt(max(ratio * ratio - 1, 1e-6)))


WASHED_OUT = 248
"""Grey level (of 255) at which the camera sees only white: a glare spot."""


def glare(grey: np.ndarray) -> np.ndarray:
    """Where a picture is washed out, and a little around (as a 0/1 uint8 mask)."""
    if int(grey.max()) < WASHED_OUT - 1:
        # Blurring averages: nothing gets lighter than the lightest pixel (a margin of a
        # level for rounding), so no pixel is washed out; most faces are so (3 of 4 in the
        # benchmark), and the blur of a uint8 picture is slow.
        return np.zeros(grey.shape, np.uint8)
    soft = cv2.GaussianBlur(grey, (0, 0), 1.5)
    return cv2.dilate((soft >= WASHED_OUT).astype(np.uint8), np.ones((5, 5), np.uint8))


CLIPPED = 250
"""Level (of 255) that every colour channel of a pixel reaches where the sensor is full."""

SPOT_RING = 8
"""Face pixels round a glare spot's clipped core where its light still leaves detail the
card does not have: the spot's light falls off steeply there, curved on the scale over
which light is evened (``LIGHT_SCALE``), and its clipped edge is a kink in it."""

PAPER_CLIPPED = 0.25
"""Share of a card clipped from which it may be the card's own paper over-exposed (a
bright lamp, a camera's exposure), not a spot: the print on it is all there."""

PAPER_SPREAD = 2 / 3
"""Share of a card that a clipped core with its ring (``SPOT_RING``) must reach to be the
paper over-exposed: the paper is clipped all over the card, between its print, so its
ring takes in nearly all of it (0.78-1.0 on generated cards 10-30% too bright); a lamp's
spot is one round patch, and one over a quarter to a third of the card reaches some
0.43-0.62 with its ring, leaving the rest of the card clear."""

_RING = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * SPOT_RING + 1, 2 * SPOT_RING + 1))


def glare_spot(card: np.ndarray) -> np.ndarray:
    """Where a glare spot swamps a BGR card picture (as a 0/1 uint8 mask): its clipped
    core, where every channel is full, and ``SPOT_RING`` pixels round it.

    Evened out, the light round a clipped spot leaves a ring of detail (and under it a
    light stroke is lost), so what the card shows there says nothing either way. Only
    every channel full counts: a pale colour full in one channel still shows its print.
    Nothing when ``PAPER_CLIPPED`` of the card or more is clipped and, with its ring,
    reaches ``PAPER_SPREAD`` of it: that is the paper.
    """
    core = cv2.inRange(card, (CLIPPED,) * 3, (255,) * 3) // 255
    share = float(np.count_nonzero(core)) / core.size
    if share == 0:
        return core
    spot: np.ndarray = cv2.dilate(core, _RING)
    if share >= PAPER_CLIPPED and np.count_nonzero(spot) >= PAPER_SPREAD * spot.size:
        return np.zeros_like(core)
    return spot


_CELL_OF = ((np.arange(SIZE[1]) // CELL)[:, None] * (SIZE[0] // CELL)
            + (np.arange(SIZE[0]) // CELL)[None, :])
"""Each face pixel's signature cell."""

_CELL_BIN = _CELL_OF * BINS
"""Each face pixel's first direction bin, in the signature's cells x bins."""


def signature(card: np.ndarray) -> np.ndarray:
    """Cells x features of a card picture (``SIZE``): a histogram of edge directions per
    cell, normalised per cell with a floor, and the cell's colour relative to the card's
    own average (so a warm lamp does not matter)."""
    grey = card if card.ndim == 2 else cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 0.8)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag, ang = cv2.cartToPolar(gx, gy)
    cols, rows = SIZE[0] // CELL, SIZE[1] // CELL
    # Each pixel votes into its cell's direction bin, by its edge's strength.
    direction = (ang * (BINS / np.pi) + 0.5).astype(np.int32) & (BINS - 1)  # % BINS, quicker
    votes = np.bincount((_CELL_BIN + direction).ravel(), mag.ravel(), rows * cols * BINS)
    cells = (votes / (CELL * CELL)).reshape(rows, cols, BINS).astype(np.float32)
    # Spread each cell into its neighbours so an outline a pixel or two off still lines up.
    hist = cv2.GaussianBlur(cells, (3, 3), 0.7).astype(np.float32, copy=False)
    norms = np.linalg.norm(hist, axis=2, keepdims=True)
    floor = max(float(np.mean(norms)), 1e-3)
    hist /= np.maximum(norms, 0.5 * floor)
    colour: NDArray[np.float32]
    if card.ndim == 2:
        colour = np.zeros((rows, cols, 0), np.float32)
    else:
        ycc = cv2.cvtColor(card, cv2.COLOR_BGR2YCrCb).astype(np.float32)
        small = cv2.resize(ycc, (cols, rows), interpolation=cv2.INTER_AREA).astype(np.float32,
                                                                                 copy=False)
        small -= small.reshape(-1, 3).mean(axis=0)
        small[..., 0] /= max(float(small[..., 0].std()), 8.0)
        small[..., 1:] /= 24.0
        colour = np.clip(small, -2, 2) * np.array([0.25, 0.35, 0.35], np.float32)
    return np.concatenate([hist, colour], axis=2).reshape(rows * cols, -1).astype(np.float32)
