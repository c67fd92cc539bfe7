"""What the camera sees of the cards on the table, in one frame.

:func:`read_cards` finds every card in a frame and names it against a deck. The
:class:`CardReading` it returns is what the rest of the pipeline handles: its
``summary`` is what a settle detector compares from frame to frame, its
``to_json`` is the payload published on ``runes/<table>/vision/card``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .cover import covering, touched
from .deck import Deck, Match, seen_card
from .face import Face
from .find import FoundCard, find_cards
from .meaning import meaning_of

__all__ = ["CardReading", "SeenCard", "read_cards"]


@dataclass(frozen=True, slots=True)
class SeenCard:
    """One card in a frame: its name (None: not a card of the deck), its corners
    clockwise from the card's own top-left, in frame pixels, and how sure the
    answer is (0.5 a coin toss, 1 certain; for an unknown card, sure it is unknown)."""

    name: str | None
    corners: np.ndarray
    confidence: float

    @property
    def centre(self) -> tuple[float, float]:
        x, y = self.corners.mean(axis=0)
        return float(x), float(y)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in self.corners],
            "confidence": round(self.confidence, 3),
        }


@dataclass(frozen=True, slots=True)
class CardReading:
    """Every card found in one frame, largest first."""

    cards: tuple[SeenCard, ...]

    @property
    def names(self) -> tuple[str | None, ...]:
        return tuple(c.name for c in self.cards)

    @property
    def summary(self) -> Hashable:
        """What must stay the same for the reading to have settled: which cards lie
        on the table (unknown ones counted as ``"?"``), sorted.

        Positions are left out on purpose: a card nudged by a finger is the same
        card, and a position rounded to a grid flickers when a card lies on a line.
        """
        return tuple(sorted(c.name or "?" for c in self.cards))

    def to_json(self, kind: str | None = None) -> dict[str, Any]:
        """The reading as JSON; with a deck ``kind``, each card also has the ``action``
        it stands for (:mod:`vision.cards.meaning`; None when it stands for nothing)."""
        cards = [c.to_json() for c in self.cards]
        if kind:
            for card in cards:
                card["action"] = meaning_of(card["name"], kind)
        return {"cards": cards}


def read_cards(frame: np.ndarray, deck: Deck, *, max_cards: int = 8) -> CardReading:
    """Find and name every card in ``frame`` (BGR)."""
    seen: list[SeenCard] = []
    cards = find_cards(frame, max_cards=max_cards)
    for found in cards:
        # Two pieces of a card cut by fingers may each be named by the card's outline
        # (an alternative of each): a piece inside a card already named is that card.
        if any(_inside_named(found, c) for c in seen):
            continue
        card, match = _named(frame, found, deck, cards)
        if card.name is None and found.parts and not match.another_card:
            # Two cards edge to edge look like one card too: if some outline inside is a
            # card of the deck, those are what lies there (a card not in the deck seen
            # whole is one card). Only outlines that look more like a card of the deck
            # than the whole are looked at closely, and those snapped out to the whole's own
            # size: another outline of the card the whole is (seed 90 f11, 94 f22).
            named: list[SeenCard] = []
            taken: list[FoundCard] = []
            # The whole is no card lying over its parts: the parts are judged without it.
            rest = [c for c in cards if c is not found]
            for part in found.snapped_parts():
                if any(part.overlap(t) > 0.2 for t in taken):
                    continue
                picture = seen_card(frame, part.corners)
                if not part.same_card(found) and deck.distance(picture) > PART_NEARER * match.distance:
                    continue
                inside, _ = _named(frame, part, deck, rest, picture)
                if inside.name is not None:
                    named.append(inside)
                    taken.append(part)
            if named:
                seen += named
                if len(taken) == 1:
                    seen += _card_beside(frame, found, taken[0], deck, rest + taken)
                continue
        seen.append(card)
    return CardReading(tuple(seen[:max_cards]))


INSIDE_NAMED = 0.85
"""Share of an outline's area inside a card already named for it to be left out as a
piece of that card."""


def _inside_named(found: FoundCard, card: SeenCard) -> bool:
    """True when ``found`` is smaller than ``card``, a card named, and lies mostly inside it."""
    if card.name is None:
        return False
    named = FoundCard(card.corners, 1.0)
    return found.area < named.area and found.overlap(named) > INSIDE_NAMED


def _card_beside(frame: np.ndarray, whole: FoundCard, part: FoundCard, deck: Deck,
                 others: list[FoundCard]) -> list[SeenCard]:
    """The card lying beside ``part``, the one part of ``whole`` named, if the deck names
    one of its outlines (:meth:`FoundCard.beside`): the whole is the outline round both,
    and fingers may cut the other card into pieces none of which is a part. An outline
    over ``part`` is left out, and so is one another card found (``others``) as large or
    larger lies over: that card is read on its own."""
    for outline in whole.beside(part):
        if outline.overlap(part) > 0.2 or any(
                outline.overlap(o) > 0.5 and o.area >= outline.area for o in others if o is not part):
            continue
        card, _ = _seen(frame, outline, deck, covering(frame, outline, others))
        if card.name is not None:
            return [card]
    return []


PART_NEARER = 1.0
"""How much nearer to a card of the deck (by signature) an outline inside an unknown
card must be to be looked at closely as a card of its own."""


def _named(frame: np.ndarray, found: FoundCard, deck: Deck, others: list[FoundCard],
           picture: np.ndarray | None = None) -> tuple[SeenCard, Match]:
    """``found`` named; if it is no card of the deck, the first of its other outlines
    (:meth:`FoundCard.outlines`) that is one, if any: the outline chosen may run
    along a finger's side or a cloth's line beyond the card's edge, where another
    outline of the card does not, or be a piece of a card cut by fingers (``found``'s
    own answer otherwise). A card plainly not in the deck (:attr:`Match.another_card`:
    lined up with a card of the deck and alike elsewhere, it shows a rune the other way)
    is outlined well, and its other outlines, which would show the same, are not looked
    at: on a table where half the cards are unknown they took a sixth of the time;
    unless an alternative lies far from it, or ``found`` sees nothing lying over the
    card and an alternative does (:func:`_other_alternatives`). Where another card's
    outline only touches a stretch of ``found``'s hidden edge, taking it for a card on
    top is a second reading of what covers ``found`` (:func:`~vision.cards.cover.touched`),
    and so is, for a card near fitting, a second look at what covers it (``following``:
    a finger's end, lit or shaded beyond the tolerance of one thing, followed to its
    end; seed 84 f47, 81 f27). A card named may take the corners of an alternative that
    traces it better (:func:`_better_outlined`). ``picture`` is ``found`` rectified
    (:func:`seen_card`), if already worked out."""
    covered = covering(frame, found, others)
    card, match = _seen(frame, found, deck, covered, picture)
    if card.name is not None:
        return _better_outlined(frame, found, deck, others, card), match
    if touched(found, others):
        # A card beside outlined to this one's edge: the finger followed, or that outline.
        other = _seen(frame, found, deck, covering(frame, found, others, touching=True), picture)
        if other[0].name is not None:
            return other
    if covered is not None and (match.another_card or match.confidence < 1.0):
        # A second look: a fingertip may be left out of what was followed (lighter or
        # darker than the finger's middle, or beyond a card beside outlined onto the rim).
        # Only for a card near fitting (within twice the limits, so not sure it is
        # unknown) or fitting but for a patch (the fingertip): a card unlike every card
        # of the deck shows so beyond any fingertip (and was a third of the time taken
        # on a table of unknown cards, s25-cards-speed).
        again = covering(frame, found, others, following=True)
        if again is not None and not np.array_equal(again, covered):
            other = _seen(frame, found, deck, again, picture)
            if other[0].name is not None:
                return other
    # The outline chosen is no card lying over its other outlines.
    rest = [c for c in others if c is not found]
    if not match.another_card:
        outlines: Iterable[tuple[FoundCard, np.ndarray | None]] = (
            (outline, covering(frame, outline, rest)) for outline in found.outlines())
    else:
        outlines = _other_alternatives(frame, found, rest, bare=covered is None)
    for outline, lying in outlines:
        other = _seen(frame, outline, deck, lying)
        if other[0].name is not None:
            return other
    return card, match


def _better_outlined(frame: np.ndarray, found: FoundCard, deck: Deck, others: list[FoundCard],
                     card: SeenCard) -> SeenCard:
    """``card`` (``found`` named) with the corners of an alternative outline that shows
    more of its edge, shares three of ``found``'s corners and not the fourth (farther
    apart than ``APART``), and names the same card.

    The outline chosen is the largest well supported, and one side of it may run out
    along a finger or its shadow from a corner (seed 20 f49, 65 f42: one corner 16-22 px
    off, the card named all the same), where a smaller alternative follows the card's
    edge and sees more of it. Any alternative that shows more is no better: on seed 0
    those with a whole side elsewhere (a border's inner line, a few pixels in) moved
    seven cards' corners away from the card's, one beyond the benchmark's 15 px. Only
    the corners change: a name is never given or taken here, and the alternatives are
    named only for such a card."""
    rest = [c for c in others if c is not found]
    for outline in found.alternatives:
        if outline.support > found.support and _one_corner_off(found, outline):
            other, _ = _seen(frame, outline, deck, covering(frame, outline, rest))
            if other.name == card.name:
                return other
    return card


def _one_corner_off(found: FoundCard, outline: FoundCard) -> bool:
    """True when ``outline`` and ``found`` share three corners (within ``SHARED`` of the
    card's short side) and the fourth lies farther apart than ``APART``: one side turned
    out from a corner."""
    off = np.hypot(*(outline.aligned(found) - found.corners).T)
    short = found.short_side
    return int((off > SHARED * short).sum()) == 1 and float(off.max()) > APART * short


SHARED = 0.025
"""Share of a card's short side within which a corner of two outlines is one corner: half
of ``APART``, as snapping places a corner to a pixel or two (on seed 0 the alternatives
that show more of the edge and lie elsewhere, a border's inner line, differ by more at
two corners or more)."""


APART = 0.05
"""Share of a card's short side beyond which an alternative outline is no longer the
outline found, a little off, but another (snapping moves a side out by at most as much,
``find.GROW``): lined up otherwise, it may show the card otherwise."""


def _other_alternatives(frame: np.ndarray, found: FoundCard, others: list[FoundCard], bare: bool
                        ) -> Iterator[tuple[FoundCard, np.ndarray | None]]:
    """The alternatives of ``found`` (taken for a card not in the deck,
    :attr:`Match.another_card`) that may show the card otherwise, each with its covering,
    one by one. Those farther from ``found`` than ``APART``: the outline chosen may run
    a long way beyond the card's edge at one end (onto the gap to a card beside, seed 86
    f56: 20 px off, where its alternatives lie 5 px off), and a card lined up so may
    well show a patch no card of the deck has. And when ``found`` sees nothing lying
    over the card (``bare``), those that see something: a fingertip just over a card's
    edge may leave the edge seen all along one outline, so the finger is no covering but
    a patch the card shows and no card of the deck does, where an outline a few pixels
    off sees the fingertip cross its edge (seed 41 f61: two cards so). Another outline of
    a card truly not in the deck shows its rune the other way all the same, unless that
    outline's covering hides it, and then the look-alike check leaves it unknown."""
    far = APART * found.short_side
    for outline in found.alternatives:
        apart = outline.apart(found) > far
        if apart or bare:
            lying = covering(frame, outline, others)
            if apart or lying is not None:
                yield outline, lying


def _seen(frame: np.ndarray, found: FoundCard, deck: Deck, covered: np.ndarray | None,
          picture: np.ndarray | None = None) -> tuple[SeenCard, Match]:
    """``found`` named against ``deck``; ``covered`` is what lies over it (:func:`covering`)."""
    if picture is None:
        picture = seen_card(frame, found.corners)
    match = deck.identify_face(Face.of(picture, covered), covered)
    # The outline as found, from the corner that is the example's top-left.
    corners = np.roll(found.corners, -2, axis=0) if match.turned else found.corners
    return SeenCard(match.name, corners, match.confidence), match
