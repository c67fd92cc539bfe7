"""A deck taught from photos, and telling which of its cards a rectified card is.

A deck is a folder with one subfolder per card, named after the card, holding
one or more photos of it (the card alone, or lying on a table: the card found
in the photo is the example). An optional ``deck.toml`` says what kind of deck
it is (``kind = "lokis-chosen"``), so a reading can become an action
(:mod:`vision.cards.meaning`).

Each example and each card seen by the camera is rectified to the same small
upright picture and summed up as a grid of cells, each holding the directions
of the picture's edges there (which light and shadow leave alone) and its
colour relative to the card's own average (so a warm lamp does not matter).
A card seen is compared with every example, both ways up, cell by cell.

Cells count by how much the deck's cards differ there: a title every card of
a deck shares says nothing, the runes that alone tell two cards apart say it
all. A cell that differs from the best example by more than a little is capped,
so a finger over a corner costs that corner and no more. The answer is the best
card, unless its likeness is too low (a card that is not in the deck) or a
second card comes too close (the photo cannot tell them apart).
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .find import find_cards, rectify

__all__ = ["Deck", "DeckError", "Match", "SIZE", "signature", "IMAGE_SUFFIXES"]

log = logging.getLogger(__name__)

SIZE = (96, 136)
"""Rectified card size (w, h) for comparing: a playing card's proportions."""

CELL = 8
"""Cell size in rectified pixels: 12 x 17 cells."""

MARGIN = 0.03
"""Share cut from each edge before comparing, so an outline a little wide brings no table in."""

BINS = 8
"""Edge directions per cell (0..180 degrees: a card upside down has the same directions)."""

CAP = 0.5
"""Most one cell can cost: a hand or a glare spot over part of a card costs that part only."""

ACCEPT = 0.65
"""Least likeness for a name (1 is the example itself; another card scores lower)."""

CONTENDERS = 4
"""How many runners-up are weighed against the best card where they differ from it."""

CONTEND = 0.15
"""A runner-up this close in likeness is a contender."""

LEAD = 0.45
"""Least lead (-1..1) over every contender, where they differ, for a name."""

CLEARLY = 0.12
"""A cell is explained clearly better by another card when its distance is this much lower."""

CONTRADICTION = 0.3
"""Most share of the card that another card may explain clearly better (see ``_contradiction``)."""

SAME_CARD = 0.9
"""Likeness between two names' examples above which they are taken for the same card."""

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


class DeckError(ValueError):
    """A deck folder that cannot be used: missing, empty, or with no readable card photo."""


@dataclass(frozen=True, slots=True)
class Match:
    """Which card a rectified picture is: ``name`` None for a card not in the deck.

    ``turned`` is True when the card lies upside down relative to its examples.
    ``likeness`` is the raw score (0..1) of the best card, ``confidence`` the
    certainty of the answer given (for an unknown card: that it is unknown).
    """

    name: str | None
    confidence: float
    likeness: float
    turned: bool
    runner_up: str | None = None
    lead: float = 1.0
    against: float = 0.0


def signature(card: np.ndarray) -> np.ndarray:
    """Cells x features of a rectified card picture (``SIZE``), as compared by :class:`Deck`."""
    grey = card if card.ndim == 2 else cv2.cvtColor(card, cv2.COLOR_BGR2GRAY)
    grey = cv2.GaussianBlur(grey.astype(np.float32), (0, 0), 0.8)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    mag, ang = cv2.cartToPolar(gx, gy)
    pos = (ang % np.pi) * (BINS / np.pi)
    low = np.floor(pos).astype(np.int32) % BINS
    frac = pos - np.floor(pos)
    cols, rows = SIZE[0] // CELL, SIZE[1] // CELL
    hist = np.zeros((rows, cols, BINS), np.float32)
    for b in range(BINS):
        plane = mag * ((low == b) * (1 - frac) + (((low + 1) % BINS) == b) * frac)
        hist[..., b] = cv2.resize(plane, (cols, rows), interpolation=cv2.INTER_AREA)
    # Spread each cell into its neighbours so an outline a pixel or two off still lines up.
    hist = cv2.GaussianBlur(hist, (3, 3), 0.7)
    norms = np.linalg.norm(hist, axis=2, keepdims=True)
    floor = max(float(np.mean(norms)), 1e-3)
    hist /= np.maximum(norms, 0.5 * floor)
    if card.ndim == 2:
        colour = np.zeros((rows, cols, 0), np.float32)
    else:
        ycc = cv2.cvtColor(card, cv2.COLOR_BGR2YCrCb).astype(np.float32)
        small = cv2.resize(ycc, (cols, rows), interpolation=cv2.INTER_AREA)
        small -= small.reshape(-1, 3).mean(axis=0)
        small[..., 0] /= max(float(small[..., 0].std()), 8.0)
        small[..., 1:] /= 24.0
        colour = np.clip(small, -2, 2) * np.float32([0.25, 0.35, 0.35])
    return np.concatenate([hist, colour], axis=2).reshape(rows * cols, -1).astype(np.float32)


def _turned(sig: np.ndarray) -> np.ndarray:
    """The signature of the same card upside down: the cells in reverse order.

    Edge directions are counted modulo 180 degrees, so they do not change.
    """
    return sig[::-1].copy()


@dataclass
class Deck:
    """Cards taught from photos; :meth:`identify` names a rectified card.

    Build one with :meth:`load` (a deck folder) or from examples directly.
    ``warnings`` lists what was skipped or cannot work (unreadable photos, two
    names that are the same card).
    """

    examples: Mapping[str, Sequence[np.ndarray]]
    kind: str | None = None
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        names = [n for n in sorted(self.examples) if len(self.examples[n])]
        if not names:
            raise DeckError("the deck has no card with a usable photo")
        self.names: tuple[str, ...] = tuple(names)
        sigs = [(i, s) for i, n in enumerate(names) for s in self.examples[n]]
        self._owner = np.array([i for i, _ in sigs], np.int32)
        self._sigs = np.stack([s for _, s in sigs])
        self._weights = self._cell_weights()
        self._check_duplicates()

    @classmethod
    def load(cls, folder: str | Path) -> Deck:
        """Read a deck folder; raises :class:`DeckError` if no card in it can be used."""
        folder = Path(folder)
        if not folder.is_dir():
            raise DeckError(f"deck folder {folder} does not exist")
        kind = _read_kind(folder)
        subfolders = sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))
        if not subfolders:
            raise DeckError(f"deck folder {folder} holds no card folders "
                            "(make one subfolder per card, named after the card, with its photos)")
        warnings: list[str] = []
        examples: dict[str, list[np.ndarray]] = {}
        for sub in subfolders:
            photos = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            sigs = []
            for photo in photos:
                image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
                if image is None:
                    warnings.append(f"{photo}: not a readable image, skipped")
                    continue
                card = example_card(image)
                if card is None:
                    warnings.append(f"{photo}: no card found in the photo, skipped")
                    continue
                sigs.append(signature(card))
            if not sigs:
                warnings.append(f"card {sub.name!r} has no usable photo in {sub}, left out")
                continue
            examples[sub.name] = sigs
        for w in warnings:
            log.warning("%s", w)
        if not examples:
            raise DeckError(f"deck folder {folder}: no card has a usable photo ("
                            + "; ".join(warnings[:3]) + ")")
        return cls(examples, kind, warnings)

    def identify(self, card: np.ndarray) -> Match:
        """Which card of the deck a rectified picture (``SIZE``, from :func:`rectify`) is."""
        return self.identify_signature(signature(card))

    def identify_signature(self, sig: np.ndarray) -> Match:
        ways = np.stack([sig, _turned(sig)])
        d = self._distances(ways)  # ways x examples x cells, capped
        likeness = 1.0 - (d @ self._weights) / (CAP * float(self._weights.sum()))
        # Each name's best example, either way up.
        best = np.full(len(self.names), -1.0, np.float32)
        pick = np.zeros((len(self.names), 2), np.int64)
        for way in range(2):
            for e, owner in enumerate(self._owner):
                if likeness[way, e] > best[owner]:
                    best[owner] = likeness[way, e]
                    pick[owner] = (way, e)
        # Every name's cell distances in the frame of the card as seen (way 1 compared the
        # card turned round, so its cells run backwards).
        per_cell = d[pick[:, 0], pick[:, 1]]  # names x cells
        per_cell[pick[:, 0] == 1] = per_cell[pick[:, 0] == 1][:, ::-1]
        order = [int(i) for i in np.argsort(-best)]
        first = order[0]
        contenders = [i for i in order[1:CONTENDERS + 1] if best[i] >= best[first] - CONTEND]
        # A close runner-up is settled where the two cards differ, not over the whole card.
        for other in contenders:
            if self._lead(per_cell, pick, first, other) < 0:
                first = other
        rivals = [i for i in order[: CONTENDERS + 1] if i != first and best[i] >= best[first] - CONTEND]
        lead = min((self._lead(per_cell, pick, first, i) for i in rivals), default=1.0)
        against = self._contradiction(per_cell, first, int(pick[first, 0]))
        top = float(best[first])
        turned = bool(pick[first, 0] == 1)
        runner_up = next((self.names[i] for i in order if i != first), None)
        sure = min(_ramp(top, ACCEPT, ACCEPT + 0.1), _ramp(lead, LEAD, 2 * LEAD),
                   _ramp(-against, -CONTRADICTION, 0.0))
        if top >= ACCEPT and lead >= LEAD and against <= CONTRADICTION:
            return Match(self.names[first], 0.5 + 0.5 * sure, top, turned, runner_up, lead, against)
        doubt = max(_ramp(ACCEPT - top, 0.0, 0.1), _ramp(LEAD - lead, 0.0, LEAD),
                    _ramp(against, CONTRADICTION, 2 * CONTRADICTION))
        return Match(None, 0.5 + 0.5 * doubt, top, turned, self.names[first], lead, against)

    def _distances(self, ways: np.ndarray) -> np.ndarray:
        diff = self._sigs[None, :, :, :] - ways[:, None, :, :]
        d = np.einsum("wecf,wecf->wec", diff, diff)
        return np.minimum(d, CAP, out=d)

    def _oriented(self, pick: np.ndarray, name: int) -> np.ndarray:
        way, e = pick[name]
        return self._sigs[e] if way == 0 else _turned(self._sigs[e])

    def _lead(self, per_cell: np.ndarray, pick: np.ndarray, a: int, b: int) -> float:
        """How clearly the card is ``a`` rather than ``b``, judged where the two differ:
        1 when it looks like ``a`` there, -1 like ``b``, 0 when they do not differ."""
        ta, tb = self._oriented(pick, a), self._oriented(pick, b)
        differ = np.minimum(((ta - tb) ** 2).sum(axis=1), CAP)
        norm = float((differ * differ).sum())
        if norm < 1e-6:
            return 0.0
        return float((differ * (per_cell[b] - per_cell[a])).sum()) / norm

    def _contradiction(self, per_cell: np.ndarray, a: int, way: int) -> float:
        """Share of the card (by weight) that another card of the deck explains clearly
        better than ``a``: a card not in the deck that shares most of ``a``'s face."""
        if len(self.names) < 2:
            return 0.0
        others = np.delete(per_cell, a, axis=0).min(axis=0)
        worse = (per_cell[a] - others) > CLEARLY
        weights = self._weights if way == 0 else self._weights[::-1]
        return float(weights[worse].sum() / weights.sum())

    def _cell_weights(self) -> np.ndarray:
        """How much each cell tells the deck's cards apart (1/4 for cells every card shares)."""
        cells = self._sigs.shape[1]
        if len(self.names) < 2:
            return np.ones(cells, np.float32)
        means = np.stack([self._sigs[self._owner == i].mean(axis=0) for i in range(len(self.names))])
        spread = np.minimum(((means - means.mean(axis=0)) ** 2).sum(axis=2), CAP).mean(axis=0)
        spread /= max(float(spread.max()), 1e-6)
        return (0.25 + spread).astype(np.float32)

    def _check_duplicates(self) -> None:
        """Warn of two names whose photos show the same card.

        Two photos of one card differ a little everywhere (light, focus); two cards
        that differ only in a rune are alike everywhere but there, where they differ
        fully. So: alike overall, and no cell wholly different.
        """
        for i, name in enumerate(self.names):
            for sig in self._sigs[self._owner == i]:
                d = self._distances(np.stack([sig, _turned(sig)]))
                likeness = 1.0 - (d @ self._weights) / (CAP * float(self._weights.sum()))
                way = likeness.argmax(axis=0)
                wholly = (d[way, np.arange(len(way))] >= 0.9 * CAP).sum(axis=1)
                twins = (likeness.max(axis=0) >= SAME_CARD) & (wholly <= 1) & (self._owner > i)
                for j in np.unique(self._owner[twins]):
                    other = self.names[int(j)]
                    message = (f"cards {name!r} and {other!r} look the same in their photos: "
                               "they cannot be told apart")
                    if message not in self.warnings:
                        self.warnings.append(message)
                        log.warning("%s", message)


def example_card(image: np.ndarray) -> np.ndarray | None:
    """The rectified card in a teaching photo: the largest card found, else the whole
    picture if it has a card's proportions (a scan or a tight crop)."""
    found = find_cards(image, max_cards=1)
    if found:
        return rectify(image, found[0].corners, SIZE, MARGIN)
    h, w = image.shape[:2]
    ratio = max(h, w) / max(min(h, w), 1)
    if min(h, w) < 24 or not 1.05 <= ratio <= 2.0:
        return None
    if w > h:
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    h, w = image.shape[:2]
    corners = np.float32([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]])
    return rectify(image, corners, SIZE, MARGIN)


def _read_kind(folder: Path) -> str | None:
    path = folder / "deck.toml"
    if not path.is_file():
        return None
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise DeckError(f"{path}: {e}") from e
    kind = data.get("kind")
    if kind is not None and not isinstance(kind, str):
        raise DeckError(f"{path}: kind must be a string, got {kind!r}")
    return kind


def _ramp(x: float, lo: float, hi: float) -> float:
    return float(np.clip((x - lo) / (hi - lo), 0.0, 1.0))

