"""Made-up card decks and photographs of them, for tests and benchmarks.

Real decks cannot live in the repository, so the tests render their own: cards
that look like a printed game's (a shared frame and title, art and text that
differ), then photograph them on a table the way a camera over a dice tray
sees them: perspective, rotation, blur, glare, shadow, a hand or another card
over part of them, several kinds of table. Everything is drawn from a seed, so
a failing case can be rendered again exactly.

Two families are hard in different ways:

* ``runes`` cards look like Loki's Chosen: the same frame and title on every
  card, three sets of three runes (R or F) that alone tell them apart. A card
  is named after its runes, ``RFR-RRF-FFR``.
* ``art`` cards share a frame and layout but have their own picture, name and
  text, like Location or Fate cards.

Run ``python -m vision.cards.synth OUT --cards 32 --unknown 8 --frames 20``
to write a deck folder, unknown cards and photographed frames with their
ground truth (``truth.json``).
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synthetic import saved_as_jpeg

__all__ = [
    "CARD_SIZE",
    "CardSpec",
    "Photo",
    "background",
    "deck_specs",
    "indistinct",
    "look_alikes",
    "photograph",
    "render",
    "undecidable",
    "unknown_specs",
    "write_deck",
]

CARD_SIZE = (360, 504)
"""Width and height of a rendered card, in pixels (the 63 x 88 mm of a playing card)."""

RUNE_SETS = ["".join(p) for p in itertools.product("RF", repeat=3)]

_WORDS = (
    "ember hall frost gate iron wood storm peak raven hollow amber keep silver "
    "fjord ash grove thunder ridge moon well serpent coast giant stair bone "
    "field wolf den mist marsh golden hearth rune stone sky forge winter "
    "tide ember vault shadow vale dragon reach oak throne star fall"
).split()

BLUR_REACH = 3
"""Frame pixels beside the edge of a finger (or a card lying over another) that the
photo's blur (up to 1.4 px, and the finger's own soft edge) mixes with it."""

_BACKGROUNDS = ("wood", "felt", "slate", "cloth", "paper", "mat", "dark", "white")


@dataclass(frozen=True, slots=True)
class CardSpec:
    """One made-up card: its name (the deck's subfolder), its family and its art's seed."""

    name: str
    family: str
    seed: int


@dataclass(frozen=True, slots=True)
class Photo:
    """A photographed frame and, for each card in it, its name and its corners.

    Corners go clockwise from the card's own top-left, in frame pixels.
    ``covered`` is the share of each card hidden by a hand or another card, and
    ``hidden`` where: a mask of the card's own picture (``CARD_SIZE``), True where
    something lies over it or within ``BLUR_REACH`` frame pixels of its edge (the
    photo's blur mixes the two there).
    """

    image: np.ndarray
    names: tuple[str, ...]
    corners: tuple[np.ndarray, ...]
    covered: tuple[float, ...]
    hidden: tuple[np.ndarray, ...] = ()


def deck_specs(size: int, seed: int = 0) -> list[CardSpec]:
    """A deck of ``size`` cards: 16 is a runes deck, anything else mixes runes and art.

    Decks of the same seed share their cards, so a 16 is the start of a 32.
    """
    return _specs(seed)[:size] if size != 16 else _rune_specs(seed)[:16]


def unknown_specs(count: int, deck: Sequence[CardSpec], seed: int = 0) -> list[CardSpec]:
    """``count`` cards of the same families that are not in ``deck``: by turns a rune
    card, an art card, and a look-alike of one of the deck's rune cards (one rune the
    other way), the hardest to tell apart when a finger hides that rune."""
    known = {s.name for s in deck}
    arts = [s for s in _specs(seed + 1) if s.family == "art" and s.name not in known]
    runes = [s for s in _rune_specs(seed + 7) if s.name not in known]
    rng = np.random.default_rng(seed + 11)
    alikes = [a for s in deck for a in look_alikes(s) if a.name not in known]
    alikes = [alikes[int(i)] for i in rng.permutation(len(alikes))]
    out: list[CardSpec] = []
    for i, (rune, art) in enumerate(zip(runes, arts)):
        out += [rune, art] + alikes[i:i + 1]
    return out[:count]


def _rune_specs(seed: int) -> list[CardSpec]:
    rng = np.random.default_rng(seed + 1000)
    combos = list(itertools.product(range(8), repeat=3))
    order = rng.permutation(len(combos))
    specs = []
    for i in order:
        name = "-".join(RUNE_SETS[k] for k in combos[i])
        specs.append(CardSpec(name, "runes", int(rng.integers(1 << 30))))
    return specs


def _specs(seed: int) -> list[CardSpec]:
    """Art and rune cards interleaved 2:1, names unique."""
    rng = np.random.default_rng(seed)
    runes = iter(_rune_specs(seed))
    names: set[str] = set()
    out: list[CardSpec] = []
    while len(out) < 200:
        if len(out) % 3 == 2:
            out.append(next(runes))
            continue
        a, b = rng.choice(len(_WORDS), 2, replace=False)
        name = f"{_WORDS[a].title()} {_WORDS[b].title()}"
        if name in names:
            continue
        names.add(name)
        out.append(CardSpec(name, "art", int(rng.integers(1 << 30))))
    return out


def look_alikes(spec: CardSpec) -> list[CardSpec]:
    """The cards of ``spec``'s family that differ from it in one place: for a runes card,
    the same card with one rune the other way (R for F); an art card has none (its
    picture, name and text are its own)."""
    if spec.family != "runes":
        return []
    letters = list(spec.name)
    out = []
    for i, letter in enumerate(letters):
        if letter in "RF":
            other = letters[:i] + ["F" if letter == "R" else "R"] + letters[i + 1:]
            out.append(CardSpec("".join(other), "runes", spec.seed))
    return out


UNDECIDABLE = 0.9
"""Share of what tells two cards apart that must lie under a finger (or another card)
for a photo of one to be a photo of the other as well."""


def undecidable(spec: CardSpec, hidden: np.ndarray, others: Sequence[CardSpec]) -> list[CardSpec]:
    """The cards of ``others`` that differ from ``spec`` only where ``hidden`` (a mask of
    the card's picture, :attr:`Photo.hidden`): seen so, ``spec`` may be any of them.

    What differs (:func:`_differs`) must be hidden for at least ``UNDECIDABLE`` of it.
    """
    if not hidden.any():
        return []
    out = []
    for other in others:
        if other.name == spec.name:
            continue
        differs = _differs(spec, other)
        total = np.count_nonzero(differs)
        if total and np.count_nonzero(differs & hidden) >= UNDECIDABLE * total:
            out.append(other)
    return out


SAME_AREA = 12
"""Card pixels (of ``CARD_SIZE``) in which two faces may differ where they show and still
look the same in a photo: 2 x 2 frame pixels of the nearest card the generator lays
(290 px tall, 3 card pixels to a frame pixel), which the photo's blur (up to 1.4 px)
and JPEG leave a smudge, not a mark to tell from noise or a finger's shadow. Distinct
cards differ on 1101 pixels at least (one rune the other way); a rune's end of 24-48
pixels by a finger shows plainly in a frame, so the square of a stroke's width (49)
would class visible ink as hidden."""


def indistinct(spec: CardSpec, hidden: np.ndarray, others: Sequence[CardSpec]) -> list[CardSpec]:
    """The cards of ``others`` whose faces are ``spec``'s wherever ``hidden`` (a mask of
    the card's picture, :attr:`Photo.hidden`) leaves it to be seen, but for at most
    ``SAME_AREA`` pixels: from what shows, no one could tell ``spec`` from them.

    Unlike :func:`undecidable`, which asks whether most of the difference is hidden, this
    asks whether any of it shows: the ground truth of whether a card can be named at all.
    """
    seen = ~hidden
    return [other for other in others
            if other.name != spec.name and np.count_nonzero(_differs(spec, other) & seen) <= SAME_AREA]


def _differs(spec: CardSpec, other: CardSpec) -> NDArray[np.bool_]:
    """Where the two cards' faces differ: their grey levels by more than a rune stroke's
    edge would after blur (a camera's noise and JPEG stay far below it)."""
    return cv2.absdiff(_grey(spec), _grey(other)) > 60


@functools.lru_cache(maxsize=512)
def _grey(spec: CardSpec) -> np.ndarray:
    """``spec``'s face in grey (uint8), rendered once: a frame's cards are compared with
    a whole deck's, again and again."""
    grey = cv2.cvtColor(render(spec), cv2.COLOR_BGR2GRAY)
    grey.flags.writeable = False
    return grey


# -- rendering -----------------------------------------------------------------------------


def render(spec: CardSpec) -> np.ndarray:
    """The card face, ``CARD_SIZE`` pixels, BGR."""
    w, h = CARD_SIZE
    rng = np.random.default_rng(spec.seed)
    card = np.full((h, w, 3), (236, 240, 244), np.uint8)
    if spec.family == "runes":
        _frame(card, (40, 30, 120), "LOKI'S CHOSEN")
        _draw_runes(card, spec.name)
    else:
        frame = [(90, 60, 20), (30, 90, 40), (20, 70, 130)][int(rng.integers(3))]
        _frame(card, frame, spec.name.upper())
        _draw_art(card, rng)
        _draw_text(card, rng)
    return card


def _frame(card: np.ndarray, colour: tuple[int, int, int], title: str) -> None:
    h, w = card.shape[:2]
    cv2.rectangle(card, (0, 0), (w - 1, h - 1), colour, 18)
    cv2.rectangle(card, (22, 22), (w - 23, h - 23), colour, 2)
    cv2.rectangle(card, (30, 30), (w - 31, 74), colour, -1)
    scale = min(0.9, 9.0 / max(len(title), 1))
    size, _ = cv2.getTextSize(title, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
    cv2.putText(card, title, ((w - size[0]) // 2, 52 + size[1] // 2), cv2.FONT_HERSHEY_DUPLEX,
                scale, (240, 240, 240), 2, cv2.LINE_AA)


def _draw_runes(card: np.ndarray, name: str) -> None:
    h, w = card.shape[:2]
    cv2.circle(card, (w // 2, h - 70), 26, (40, 30, 120), 3, cv2.LINE_AA)
    cv2.line(card, (w // 2 - 18, h - 70), (w // 2 + 18, h - 70), (40, 30, 120), 3, cv2.LINE_AA)
    for row, letters in enumerate(name.split("-")):
        y = 120 + row * 105
        cv2.rectangle(card, (48, y - 42), (w - 49, y + 42), (150, 140, 130), 1, cv2.LINE_AA)
        for col, letter in enumerate(letters):
            _rune(card, (w // 2 + (col - 1) * 92, y), letter)


def _rune(card: np.ndarray, centre: tuple[int, int], letter: str) -> None:
    """R as the rune Raido (a stem with a loop and a leg), F as Fehu (a stem, two branches)."""
    x, y = centre
    ink = (30, 30, 30)
    t = 7
    cv2.line(card, (x - 14, y - 32), (x - 14, y + 32), ink, t, cv2.LINE_AA)
    if letter == "R":
        pts = np.array([(x - 14, y - 32), (x + 16, y - 16), (x - 14, y)], np.int32)
        cv2.polylines(card, [pts], False, ink, t, cv2.LINE_AA)
        cv2.line(card, (x - 14, y), (x + 18, y + 32), ink, t, cv2.LINE_AA)
    else:
        cv2.line(card, (x - 14, y - 10), (x + 18, y - 32), ink, t, cv2.LINE_AA)
        cv2.line(card, (x - 14, y + 10), (x + 18, y - 12), ink, t, cv2.LINE_AA)


def _draw_art(card: np.ndarray, rng: np.random.Generator) -> None:
    h, w = card.shape[:2]
    x0, y0, x1, y1 = 34, 84, w - 35, 300
    sky = rng.integers(60, 230, 3)
    ground = rng.integers(30, 200, 3)
    art = np.zeros((y1 - y0, x1 - x0, 3), np.float32)
    t = np.linspace(0, 1, y1 - y0)[:, None, None]
    art[:] = sky * (1 - t) + ground * t
    art = art.astype(np.uint8)
    for _ in range(int(rng.integers(5, 10))):
        colour = tuple(int(c) for c in rng.integers(0, 256, 3))
        kind = int(rng.integers(4))
        cx, cy = int(rng.integers(0, x1 - x0)), int(rng.integers(0, y1 - y0))
        size = int(rng.integers(15, 70))
        if kind == 0:
            cv2.circle(art, (cx, cy), size, colour, -1, cv2.LINE_AA)
        elif kind == 1:
            pts = rng.integers(-size, size, (int(rng.integers(3, 6)), 2)) + (cx, cy)
            cv2.fillPoly(art, [pts.astype(np.int32)], colour, cv2.LINE_AA)
        elif kind == 2:
            cv2.line(art, (cx, cy), (cx + int(rng.integers(-90, 90)), cy + int(rng.integers(-90, 90))),
                     colour, int(rng.integers(3, 12)), cv2.LINE_AA)
        else:
            cv2.ellipse(art, (cx, cy), (size, size // 2), float(rng.integers(180)), 0, 360, colour,
                        int(rng.integers(2, 8)), cv2.LINE_AA)
    card[y0:y1, x0:x1] = art
    cv2.rectangle(card, (x0, y0), (x1, y1), (60, 60, 60), 2)


def _draw_text(card: np.ndarray, rng: np.random.Generator) -> None:
    h, w = card.shape[:2]
    y = 330
    for _ in range(int(rng.integers(3, 6))):
        words = " ".join(_WORDS[int(i)] for i in rng.integers(0, len(_WORDS), 3))
        cv2.putText(card, words, (40, y), cv2.FONT_HERSHEY_SIMPLEX, 0.62, (40, 40, 40), 1,
                    cv2.LINE_AA)
        y += 30
    pips = int(rng.integers(0, 4))
    for i in range(pips):
        cv2.drawMarker(card, (w - 50 - 28 * i, h - 46), (40, 40, 160), cv2.MARKER_DIAMOND, 20, 3)


# -- photographing -------------------------------------------------------------------------


def background(kind: str, size: tuple[int, int], rng: np.random.Generator) -> np.ndarray:
    """A table top, size (w, h): ``wood``, ``felt``, ``slate``, ``cloth`` (checked, at any
    angle), ``paper``, ``mat`` (a printed play mat: big soft patches of colour), ``dark``
    (a black cloth) or ``white`` (a white table: a card's own border hardly shows)."""
    w, h = size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    noise = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 3)
    img: NDArray[np.float32]
    if kind == "wood":
        phase = float(rng.uniform(0, 6))
        turn = float(rng.uniform(0, math.pi))
        along = xx * math.cos(turn) + yy * math.sin(turn)
        across = -xx * math.sin(turn) + yy * math.cos(turn)
        grain = np.sin(across / float(rng.uniform(6, 14)) + 3 * np.sin(along / 180 + phase) + noise)
        base = np.array(rng.uniform((40, 80, 120), (70, 110, 160)), np.float32)
        img = base * (0.8 + 0.15 * grain[..., None])
    elif kind == "felt":
        base = np.array(rng.uniform((40, 90, 20), (80, 140, 60)), np.float32)
        img = base * (1 + 0.12 * noise[..., None])
    elif kind == "slate":
        level = float(rng.uniform(45, 80))
        img = np.repeat((level + 8 * noise)[..., None], 3, axis=2)
    elif kind == "cloth":
        period = float(rng.uniform(20, 40))
        turn = float(rng.uniform(0, math.pi / 2))
        u = xx * math.cos(turn) + yy * math.sin(turn)
        v = -xx * math.sin(turn) + yy * math.cos(turn)
        check = ((np.floor(u / period) + np.floor(v / period)) % 2)[..., None]
        a = np.array(rng.uniform(60, 200, 3), np.float32)
        b = a + np.array(rng.uniform(-50, 50, 3), np.float32)
        img = a * check + b * (1 - check) + 6 * noise[..., None]
    elif kind == "paper":
        img = np.full((h, w, 3), float(rng.uniform(170, 215)), np.float32) + 4 * noise[..., None]
    elif kind == "mat":
        small = rng.uniform(30, 220, (6, 10, 3)).astype(np.float32)
        patches = cv2.GaussianBlur(cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC), (0, 0), 25)
        img = patches + 5 * noise[..., None]
    elif kind == "dark":
        img = np.full((h, w, 3), float(rng.uniform(15, 40)), np.float32) + 4 * noise[..., None]
    elif kind == "white":
        img = np.full((h, w, 3), float(rng.uniform(215, 240)), np.float32) + 3 * noise[..., None]
    else:
        raise ValueError(f"unknown background {kind!r}; use one of {', '.join(_BACKGROUNDS)}")
    return np.clip(img, 0, 255).astype(np.uint8)


def photograph(
    cards: Sequence[np.ndarray],
    rng: np.random.Generator,
    *,
    names: Sequence[str] = (),
    size: tuple[int, int] = (1280, 720),
    card_height: tuple[float, float] = (200, 290),
    table: str | None = None,
    cover: float = 0.0,
    overlap: bool = False,
    tilt: float = 0.08,
    harsh: bool = True,
) -> Photo:
    """Lay ``cards`` on a table and photograph them.

    ``cover`` is the chance that a finger lies over part of a card; ``overlap`` lets one
    card lie over a corner of another; ``tilt`` is the most a corner moves for
    perspective, as a share of the card; ``harsh`` adds glare, hard shadows and colour
    casts. Cards have rounded corners and cast a slight shadow; fingers are opaque, shaded
    and cast one too.
    """
    w, h = size
    table = table or _BACKGROUNDS[int(rng.integers(len(_BACKGROUNDS)))]
    frame: np.ndarray = background(table, size, rng).astype(np.float32)  # float64 after some steps
    light = rng.normal(0, 1, 2)
    light = light / max(float(np.linalg.norm(light)), 1e-6)  # where shadows fall
    placed: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    warps: list[np.ndarray] = []
    for card in cards:
        quad = _place(card.shape[1] / card.shape[0], placed, rng, size, card_height, tilt, overlap)
        placed.append(quad)
        src = np.array([[0, 0], [card.shape[1], 0], [card.shape[1], card.shape[0]],
                        [0, card.shape[0]]], np.float32)
        m = cv2.getPerspectiveTransform(src, quad)
        warps.append(m)
        warped = cv2.warpPerspective(card, m, size, flags=cv2.INTER_AREA)
        mask = cv2.warpPerspective(_rounded(card.shape[:2], rng), m, size)
        alpha = (mask.astype(np.float32) / 255)[..., None]
        frame = _shadow(frame, mask, light * float(rng.uniform(1.5, 5)), float(rng.uniform(0.2, 0.4)))
        shade = np.float32(rng.uniform(0.85, 1.1))
        frame = frame * (1 - alpha) + warped.astype(np.float32) * shade * alpha
        masks.append(mask > 127)
    # What is left of each card once later cards are laid over it.
    visible = [m.copy() for m in masks]
    for i in range(len(masks)):
        for j in range(i + 1, len(masks)):
            visible[i] &= ~masks[j]
    for quad in placed:
        if rng.random() < cover:
            fingers = 2 if rng.random() < 0.2 else 1
            for _ in range(fingers):
                frame, hand = _finger(frame, quad, rng, light)
                for v in visible:
                    v &= ~hand
    frame = _light(frame, rng, harsh)
    frame = cv2.GaussianBlur(frame, (0, 0), float(rng.uniform(0.3, 1.4)))
    frame += rng.normal(0, float(rng.uniform(1, 5)), frame.shape).astype(np.float32)
    image = saved_as_jpeg(np.clip(frame, 0, 255).astype(np.uint8), int(rng.integers(60, 95)))
    covered = tuple(1 - float(v.sum()) / max(float(m.sum()), 1) for v, m in zip(visible, masks))
    # Back onto each card's own picture: where it is under something, or so close to its
    # edge that the blur mixes the two.
    reach = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * BLUR_REACH + 1,) * 2)
    hidden = tuple(cv2.warpPerspective(cv2.dilate((m & ~v).astype(np.uint8), reach) & m.astype(np.uint8),
                                       w, card.shape[1::-1],
                                       flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP) > 0
                   for m, v, w, card in zip(masks, visible, warps, cards))
    return Photo(image, tuple(names), tuple(placed), covered, hidden)


def _rounded(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """A card's outline as a mask: a rectangle with rounded corners (none on some cards)."""
    h, w = shape[:2]
    mask = np.full((h, w), 255, np.uint8)
    r = int(w * float(rng.uniform(0.0, 0.06)))
    if r < 2:
        return mask
    for cx, cy in ((r, r), (w - 1 - r, r), (w - 1 - r, h - 1 - r), (r, h - 1 - r)):
        x0, y0 = (0 if cx == r else cx), (0 if cy == r else cy)
        mask[y0:y0 + r + 1, x0:x0 + r + 1] = 0
        cv2.circle(mask, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return mask


def _shadow(frame: NDArray[np.floating[Any]], mask: np.ndarray, offset: np.ndarray, depth: float
            ) -> NDArray[np.floating[Any]]:
    """``frame`` darkened where ``mask``, moved by ``offset`` and softened, casts a shadow."""
    move = np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32)
    hard = cv2.warpAffine(mask, move, mask.shape[::-1]).astype(np.float32) / 255
    cast = cv2.GaussianBlur(hard, (0, 0), 1 + float(np.linalg.norm(offset)))
    return frame * (1 - depth * cast)[..., None]


_SKIN = np.array([[150, 178, 228], [118, 150, 205], [90, 120, 170], [55, 78, 115]], np.float32)
"""Skin tones, light to dark (BGR)."""


def _finger(frame: np.ndarray, quad: np.ndarray, rng: np.random.Generator,
            light: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A finger from beyond one side of a card to a point over it: opaque, rounder-looking
    towards its middle, with a shadow. Returns the frame and the finger's mask."""
    h, w = frame.shape[:2]
    side = int(rng.integers(4))
    a, b = quad[side], quad[(side + 1) % 4]
    edge = a + (b - a) * float(rng.uniform(0.15, 0.85))
    inward = quad.mean(axis=0) - edge
    tip = edge + inward * float(rng.uniform(0.15, 0.6))
    base = edge - inward * float(rng.uniform(0.5, 1.0))
    width = float(np.linalg.norm(quad[1] - quad[0])) * float(rng.uniform(0.2, 0.3))
    mask = np.zeros((h, w), np.uint8)
    cv2.line(mask, (int(base[0]), int(base[1])), (int(tip[0]), int(tip[1])), 255, int(width), cv2.LINE_AA)
    cv2.circle(mask, (int(tip[0]), int(tip[1])), int(width / 2), 255, -1, cv2.LINE_AA)
    frame = _shadow(frame, mask, light * float(rng.uniform(4, 10)), float(rng.uniform(0.3, 0.5)))
    # Lit from above: brightest along the finger's middle, darker towards its sides.
    roundness = cv2.distanceTransform((mask > 127).astype(np.uint8), cv2.DIST_L2, 5)
    roundness = np.sqrt(np.clip(roundness / max(width / 2, 1.0), 0, 1))
    tone = _SKIN[int(rng.integers(len(_SKIN)))] * np.array(rng.uniform(0.9, 1.1, 3), np.float32)
    skin = tone * (0.65 + 0.4 * roundness)[..., None]
    alpha = (cv2.GaussianBlur(mask, (0, 0), 1.0).astype(np.float32) / 255)[..., None]
    return frame * (1 - alpha) + skin * alpha, mask > 127


def _place(aspect: float, placed: list[np.ndarray], rng: np.random.Generator,
           size: tuple[int, int], card_height: tuple[float, float], tilt: float,
           overlap: bool) -> np.ndarray:
    w, h = size
    for attempt in range(200):
        ch = float(rng.uniform(*card_height))
        cw = ch * aspect
        angle = float(rng.uniform(0, 2 * math.pi))
        radius = 0.5 * math.hypot(cw, ch)
        margin = radius * 0.7
        cx = float(rng.uniform(margin, w - margin))
        cy = float(rng.uniform(margin, h - margin))
        corners = np.array([[-cw / 2, -ch / 2], [cw / 2, -ch / 2], [cw / 2, ch / 2], [-cw / 2, ch / 2]],
                           np.float32)
        rot = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]],
                       np.float32)
        quad = corners @ rot.T + (cx, cy)
        quad += rng.uniform(-tilt, tilt, (4, 2)).astype(np.float32) * ch
        shared = [cv2.intersectConvexConvex(quad.astype(np.float32), q)[0] for q in placed]
        area = cw * ch
        if overlap:
            # Over a corner at most: every card keeps most of itself in view.
            far = all(a < 0.3 * area for a in shared)
        else:
            grown = [_grow(q, 6) for q in placed]
            far = all(cv2.intersectConvexConvex(quad.astype(np.float32), g)[0] == 0 for g in grown)
        inside = bool(np.all((quad >= 2) & (quad <= (w - 3, h - 3))))
        if far and inside:
            return quad.astype(np.float32)
    raise ValueError(f"cannot lay {len(placed) + 1} cards of that size on a {w}x{h} frame")


def _grow(quad: np.ndarray, pixels: float) -> np.ndarray:
    centre = quad.mean(axis=0)
    out = quad - centre
    scale = 1 + pixels / np.linalg.norm(out, axis=1, keepdims=True)
    grown: NDArray[np.float32] = (centre + out * scale).astype(np.float32)
    return grown


def _light(frame: np.ndarray, rng: np.random.Generator, harsh: bool) -> np.ndarray:
    """Uneven light: a ramp, darker corners, a colour cast; if ``harsh``, sometimes a
    hard shadow across the frame and a glare spot."""
    h, w = frame.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    angle = float(rng.uniform(0, 2 * math.pi))
    ramp = (xx * math.cos(angle) + yy * math.sin(angle)) / max(w, h)
    ramp -= ramp.min()
    gain = 1 - float(rng.uniform(0, 0.35)) * ramp / max(float(ramp.max()), 1e-6)
    # The lens is darker towards the picture's corners.
    reach = ((xx - w / 2) ** 2 + (yy - h / 2) ** 2) / ((w / 2) ** 2 + (h / 2) ** 2)
    gain *= 1 - float(rng.uniform(0, 0.3)) * reach
    frame = frame * gain[..., None]
    frame = (frame * np.array(rng.uniform(0.85, 1.15, 3), np.float32)
             * np.float32(rng.uniform(0.8, 1.2)))
    if harsh:
        if rng.random() < 0.5:
            # A hard-edged shadow (an arm, the camera's own head) across part of the frame.
            p = rng.uniform((0, 0), (w, h), (2, 2))
            normal = np.array([p[1, 1] - p[0, 1], p[0, 0] - p[1, 0]], np.float32)
            side = (xx - p[0, 0]) * normal[0] + (yy - p[0, 1]) * normal[1] > 0
            soft = cv2.GaussianBlur(side.astype(np.float32), (0, 0), 12)
            frame = frame * (1 - float(rng.uniform(0.2, 0.45)) * soft)[..., None]
        if rng.random() < 0.5:
            gx, gy = rng.uniform((0, 0), (w, h))
            r = float(rng.uniform(40, 110))
            glare = np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / (2 * r * r))
            frame = frame + float(rng.uniform(80, 200)) * glare[..., None]
    return frame


# -- decks on disk -------------------------------------------------------------------------


def write_deck(folder: Path, specs: Sequence[CardSpec], seed: int = 0, photos: int = 1) -> None:
    """A deck folder as a user would teach it: one subfolder per card, ``photos`` each.

    The first photo of a card is the card alone, filling the picture (a scan); the
    others are the card on a table, which is how most people will take them.
    """
    rng = np.random.default_rng(seed)
    for spec in specs:
        sub = folder / spec.name
        sub.mkdir(parents=True, exist_ok=True)
        card = render(spec)
        for i in range(photos):
            if i == 0 and rng.random() < 0.5:
                image = cv2.GaussianBlur(card, (0, 0), 0.6)
            else:
                image = photograph([card], rng, size=(960, 720), card_height=(420, 560),
                                   tilt=0.04, harsh=False).image
            cv2.imwrite(str(sub / f"{i + 1}.jpg"), image)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m vision.cards.synth", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path, help="folder to write deck/, unknown/ and frames/ into")
    parser.add_argument("--cards", type=int, default=32, help="cards in the deck (16 is all runes)")
    parser.add_argument("--unknown", type=int, default=8, help="cards not in the deck")
    parser.add_argument("--frames", type=int, default=20, help="photographed frames")
    parser.add_argument("--per-frame", type=int, default=4, help="cards per frame")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    deck = deck_specs(args.cards, args.seed)
    unknown = unknown_specs(args.unknown, deck, args.seed)
    write_deck(args.out / "deck", deck, args.seed)
    (args.out / "unknown").mkdir(parents=True, exist_ok=True)
    for spec in unknown:
        cv2.imwrite(str(args.out / "unknown" / f"{spec.name}.png"), render(spec))
    rng = np.random.default_rng(args.seed + 1)
    (args.out / "frames").mkdir(exist_ok=True)
    truth = {}
    pool = deck + unknown
    for i in range(args.frames):
        chosen = [pool[int(k)] for k in rng.choice(len(pool), args.per_frame, replace=False)]
        photo = photograph([render(s) for s in chosen], rng, names=[s.name for s in chosen],
                           cover=0.2)
        name = f"frame{i:03d}.jpg"
        cv2.imwrite(str(args.out / "frames" / name), photo.image)
        truth[name] = [{"name": s.name if s in deck else None, "corners": q.round(1).tolist()}
                       for s, q in zip(chosen, photo.corners)]
    (args.out / "truth.json").write_text(json.dumps(truth, indent=1))
    print(f"wrote {len(deck)} cards, {len(unknown)} unknown, {args.frames} frames to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
