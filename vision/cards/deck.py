"""A deck taught from photos, and telling which of its cards a rectified card is.

A deck is a folder with one subfolder per card, named after the card, holding
one or more photos of it (the card alone, or lying on a table: the card found
in the photo is the example). An optional ``deck.toml`` says what kind of deck
it is (``kind = "lokis-chosen"``), so a reading can become an action
(:mod:`vision.cards.meaning`).

Naming a card takes two steps:

1. **Shortlist.** The card's :class:`~vision.cards.face.Face` signature (edge
   directions and colour per cell) is compared with every example, both ways up;
   the few closest cards are the candidates. Cells count by how much the deck's
   cards differ there, so in a deck of look-alikes the cells that tell them apart
   decide the shortlist.
2. **Close comparison.** The card is aligned onto the best candidate's example
   and compared pixel by pixel with each candidate (:mod:`vision.cards.compare`);
   the most promising are aligned onto their own example and compared again. A
   candidate *fits* when the card shows nothing it does not (no contradiction),
   little of the card is covered, and the rest is alike.

The card is named when exactly one card of the deck fits. None fitting is a card
not in the deck; two fitting is two cards the photo cannot tell apart (their
difference is under a finger): both are answered "unknown", never a guess.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

import cv2
import numpy as np

from .compare import CLEAR, Likeness, LinedUp, align, compare, shadow_weight
from .face import CELL, MARGIN, SIZE, Face, print_of, signature
from .find import find_cards, rectify

__all__ = ["Deck", "DeckError", "IMAGE_SUFFIXES", "MARGIN", "Match", "SIZE", "example_card",
           "seen_card"]

log = logging.getLogger(__name__)

SHORTLIST = 6
"""Most cards compared closely with each card seen (the closest by signature)."""

TWINS = 16
"""Most look-alikes of each example compared with it when the deck is loaded."""

FRAMING = 5
"""Most look-alikes an example is lined up with to frame it as they are framed."""

SAME_LAYOUT = 0.15
"""Mean difference under which two cards share a layout (a frame, a title, text lines)."""

REFRAME = 2.0
"""Face pixels (at a corner) an example must be off its look-alikes to be framed again."""

FAR = 1.6
"""Signature distance, over the closest card's, beyond which a card is not shortlisted
(besides the closest two): the right card is within 1.1 of the closest in tests."""

REALIGN = 2
"""Most candidates besides the first aligned onto their own example before deciding."""

NEAR_FIT = 1.0
"""How far from fitting (:attr:`_Candidate.badness`) a candidate may be, aligned as
the first was, to be aligned onto its own example and compared again."""

CAP = 1.0
"""Most one signature cell can count: a finger over part of a card costs that part only."""

CONTRADICTION = 16.0
"""Most clear difference inside the card (see :class:`~vision.cards.compare.Likeness`)
for a fit: a rune of another card is some 100, noise and glare stay under 1."""

COVERED = 0.3
"""Most share of a card under a finger or another card for a fit."""

FIT = 0.07
"""Most mean difference over the uncovered card for a fit (the same card: about 0.02)."""

ANOTHER_CARD = 2 * CONTRADICTION
"""Contradiction beyond which a card that fits its closest card of the deck in all else
(lined up, alike elsewhere, little covered) is plainly another card: a rune the other
way is some 50; the right card outlined a few pixels off stays under 21 in tests."""

DECISIVE = 20.0
"""Clear difference (as :attr:`~vision.cards.compare.Likeness.contradiction` counts it)
of a patch where two look-alikes differ that tells them apart (a rune: some 50-100)."""

SLOT = 0.2
"""Difference that marks the whole of a patch where two look-alikes differ (a rune's
strokes), not only its clearest part."""

RECUR = 0.25
"""How alike two cards' print in a patch must be (their squared difference over the
patch, as a share of a third card's) to be the same form of a slot (two R runes)."""

EVIDENT = 10.0
"""How much more like a card than like its look-alike (summed squared differences of
detail) the part of a patch where they differ must show, when the rest is covered."""

LEVELLED = EVIDENT / 2
"""The same margin when each print is first shifted to the level of what shows (see
:meth:`_Slots._told`): the shift takes away what the two prints differ by on average
over the few pixels in view, so less is left to tell by. Read so, a card not in the
deck with its own rune partly under a finger scores at most 0.9 for the deck card it
looks like (benchmark seeds 2, 5, 20 and 23, each card's look-alikes laid in its
place); deck cards left unknown by the other checks score 6.2-10.5."""

AGREED = EVIDENT / 5
"""How much more like the example than the look-alike every one of the four ways of
comparing (:meth:`_Slots.in_doubt`) must show a slot beside a finger, when none shows it
by its margin, for it to be told: only a rune's rim may show there, too little for the
margin, but what little shows is the card's own print every way (seed 5 f51 FRR-RFR-FFF:
+2.1 to +12); the look-alike laid in its place reads for the look-alike every way (-2.8
to -14), and cards seen whose rune differs there read 0.0 at most the least way (seeds
2, 4 and 5: cards not in the deck and deck cards alike)."""

OWN_AMONG = 3
"""Least other cards of an example's layout against which a print must be its own (shown
by none of them) to be taken for its picture rather than a form of a slot."""

ORIENTATION = 1.6
"""A card's other way up is aligned too when its closest card is this near (signature
distance over the closest's): cards that look alike either way up."""

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")


class DeckError(ValueError):
    """A deck folder that cannot be used: missing, empty, or with no readable card photo."""


@dataclass(frozen=True, slots=True)
class Match:
    """Which card a rectified picture is: ``name`` None for a card not in the deck.

    ``turned`` is True when the card lies upside down relative to its examples.
    ``confidence`` is the certainty of the answer given, 0.5 (a coin toss) to 1 (for
    an unknown card: that it is unknown). ``runner_up`` is the closest other card.
    ``distance`` is how far the closest card's signature is (see :meth:`Deck.distance`).
    ``another_card`` is True for a card not in the deck seen whole: it lines up with its
    closest card and is alike elsewhere, but shows clearly what that card does not (a
    rune the other way), so another outline of it would show the same.
    """

    name: str | None
    confidence: float
    turned: bool
    runner_up: str | None = None
    distance: float = 0.0
    another_card: bool = False


@dataclass(frozen=True, slots=True)
class _Candidate:
    name: int
    example: int
    turned: bool
    likeness: Likeness

    @property
    def fits(self) -> bool:
        lk = self.likeness
        return lk.contradiction <= CONTRADICTION and lk.covered <= COVERED and lk.fit <= FIT

    @property
    def badness(self) -> float:
        """How far from fitting, 0 for a fit (each criterion scaled to its limit)."""
        lk = self.likeness
        return max(lk.contradiction / CONTRADICTION, lk.covered / COVERED, lk.fit / FIT, 1.0) - 1.0


@dataclass
class Deck:
    """Cards taught from photos; :meth:`identify` names a rectified card.

    Build one with :meth:`load` (a deck folder) or from example faces directly.
    ``warnings`` lists what was skipped or cannot work (unreadable photos, two
    names that are the same card).
    """

    examples: Mapping[str, Sequence[Face]]
    kind: str | None = None
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        names = [n for n in sorted(self.examples) if len(self.examples[n])]
        if not names:
            raise DeckError("the deck has no card with a usable photo")
        self.names: tuple[str, ...] = tuple(names)
        self._faces = [face for name in names for face in self.examples[name]]
        self._owner = np.array([i for i, name in enumerate(names) for _ in self.examples[name]])
        self._index_signatures()
        self._frame_examples()
        # For each example, the look-alike cards and where they differ from it.
        self._twins: list[list[_Slots]] = [[] for _ in self._faces]
        self._compare_examples()

    def _index_signatures(self) -> None:
        sigs = np.stack([face.signature for face in self._faces])
        self._weights = _cell_weights(sigs, self._owner)
        # Both ways up: a card seen upside down has its cells in reverse order.
        both = np.stack([sigs, sigs[:, ::-1]])  # ways x examples x cells x features
        # Only the cells that count are compared (the rim's weigh nothing): a quarter
        # less work for every outline named. Those left out are 0 in the weighted sum,
        # as they were times their weight, so it is the same, term by term and in the
        # same order, as over them all.
        self._counted = np.flatnonzero(self._weights)
        self._sigs = np.ascontiguousarray(both[:, :, self._counted])

    def _frame_examples(self) -> None:
        """Frame every example as its look-alikes are framed.

        A teaching photo's outline may have been found a border's width inside the
        card's edge (on a busy table), so that example shows the card a little larger
        than the others do, and a card seen later, found by its edge, looks less like
        it than it should. Lined up with the look-alikes of the deck that share its
        layout, such an example shows how far off it is: it is warped back by the
        middle of those alignments (when at least three agree).
        """
        framed = []
        for i, face in enumerate(self._faces):
            ways = _Ways(face)
            warps = []
            alikes = self._shortlist(face.signature, FRAMING, 2 * FAR, int(self._owner[i]))
            for _, example, turned, _ in alikes:
                lk = compare(ways[turned], self._faces[example])
                if lk.fit < SAME_LAYOUT:
                    warps.append(_TURN @ lk.warp @ _TURN if turned else lk.warp)
            middle = np.median(np.stack(warps), axis=0) if len(warps) >= 3 else np.eye(3)
            corners = np.array([[0, 0], [SIZE[0], 0], [SIZE[0], SIZE[1]], [0, SIZE[1]]], np.float32)
            off = np.abs(cv2.perspectiveTransform(corners[None], middle.astype(np.float32))[0] - corners).max()
            if off < REFRAME:
                framed.append(face)
                continue
            framed.append(Face.of(cv2.warpPerspective(face.colour, middle.astype(np.float32), SIZE,
                                                      flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                                      borderMode=cv2.BORDER_REPLICATE)))
        self._faces = framed
        self._index_signatures()

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
        examples: dict[str, list[Face]] = {}
        for sub in subfolders:
            photos = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            faces = []
            for photo in photos:
                image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
                if image is None:
                    warnings.append(f"{photo}: not a readable image, skipped")
                    continue
                card = example_card(image)
                if card is None:
                    warnings.append(f"{photo}: no card found in the photo, skipped")
                    continue
                faces.append(Face.of(card))
            if not faces:
                warnings.append(f"card {sub.name!r} has no usable photo in {sub}, left out")
                continue
            examples[sub.name] = faces
        for w in warnings:
            log.warning("%s", w)
        if not examples:
            raise DeckError(f"deck folder {folder}: no card has a usable photo ("
                            + "; ".join(warnings[:3]) + ")")
        return cls(examples, kind, warnings)

    def identify(self, card: np.ndarray, covering: np.ndarray | None = None) -> Match:
        """Which card of the deck a rectified picture (from :func:`seen_card`) is.

        ``covering`` (:func:`vision.cards.cover.covering`) is where something lies
        over the card; by default nothing does.
        """
        return self.identify_face(Face.of(card, covering), covering)

    def distance(self, card: np.ndarray) -> float:
        """How far the signature of a rectified card (from :func:`seen_card`) is from the
        closest card's (0: the same picture): a quick look, to tell which of a few
        outlines is most like a card of the deck (only the signature is worked out)."""
        return self._shortlist(signature(card), 1)[0][3]

    def identify_face(self, face: Face, covering: np.ndarray | None = None) -> Match:
        """Which card of the deck a face is; ``covering`` as for :func:`compare`."""
        shortlist = self._shortlist(face.signature)
        candidates = self._close_look(face, shortlist, covering)
        closest = shortlist[0][3]
        ranked = sorted(candidates, key=lambda c: (c.badness, c.likeness.fit))
        best = ranked[0]
        others = ranked[1:]
        runner_up = self.names[others[0].name] if others else None
        fitting = [c for c in ranked if c.fits]
        seen = _Ways(face)[best.turned]
        named = bool(fitting) and not self._hidden_slot(best, seen) and all(
            self._told_apart(best, c, seen) for c in fitting[1:])
        if named:
            # How clearly the answer stands: its margin under the limits, and the next
            # card's distance over them.
            gap = min(others[0].badness, 1.0) if others and not others[0].fits else 0.5
            return Match(self.names[best.name], 0.5 + 0.5 * min(_margin(best.likeness), gap),
                         best.turned, runner_up, closest)
        doubt = min(best.badness, 1.0) if not fitting else 0.5
        lk = best.likeness
        another = lk.contradiction > ANOTHER_CARD and lk.fit <= FIT and lk.covered <= COVERED
        return Match(None, 0.5 + 0.5 * doubt, best.turned, self.names[best.name], closest, another)

    def _shortlist(self, sig: np.ndarray, most: int = SHORTLIST, far: float = FAR, besides: int = -1
                   ) -> list[tuple[int, int, bool, float]]:
        """The cards closest to a signature: (name, example, turned, distance), closest
        first (leaving out the name ``besides``)."""
        diff = self._sigs - sig[self._counted][None, None]
        cells = np.zeros((*self._sigs.shape[:2], len(self._weights)), np.float32)
        cells[:, :, self._counted] = np.minimum(np.einsum("wecf,wecf->wec", diff, diff), CAP)
        distance = cells @ self._weights  # ways x examples
        way, example = np.unravel_index(np.argsort(distance, axis=None), distance.shape)
        picks: list[tuple[int, int, bool, float]] = []
        seen: set[int] = {besides}
        closest = 0.0
        for w, e in zip(way, example):
            owner = int(self._owner[e])
            if owner not in seen:
                closest = closest or float(distance[w, e])
                if len(picks) >= 2 and distance[w, e] > far * closest:
                    break
                seen.add(owner)
                picks.append((owner, int(e), bool(w), float(distance[w, e])))
                if len(picks) == most:
                    break
        return picks

    def _close_look(self, face: Face, shortlist: list[tuple[int, int, bool, float]],
                    covering: np.ndarray | None = None) -> list[_Candidate]:
        """Each shortlisted card compared closely, then the most promising again after
        aligning onto its own example.

        The cards of a deck mostly share a layout, so one alignment (onto the closest
        card, each way up that is close) serves them all for a first look, and the face
        is lined up by it once for them all (:class:`~vision.cards.compare.LinedUp`).
        """
        ways = _Ways(face)
        coverings = (covering, None if covering is None else covering[::-1, ::-1])
        warps: dict[bool, np.ndarray] = {}
        aligned: set[int] = set()
        closest = shortlist[0][3]
        for i, (_, example, turned, distance) in enumerate(shortlist):
            if turned not in warps and (not warps or distance <= ORIENTATION * closest):
                warps[turned] = align(ways[turned], self._faces[example])
                aligned.add(i)
        if len(warps) == 1:  # the other way up is far off: the same alignment, turned
            (turned, warp), = warps.items()
            warps[not turned] = _TURN @ warp @ _TURN
        lined = {turned: LinedUp.of(ways[turned], warps[turned], coverings[turned])
                 for turned in {turned for _, _, turned, _ in shortlist}}
        candidates = [_Candidate(name, example, turned, compare(lined[turned], self._faces[example]))
                      for name, example, turned, _ in shortlist]
        # The runner-up by signature, and any that nearly fit: their example may have
        # been taken a little differently (its outline a border's width in, say).
        # (unless the closest fits and the runner-up is not close)
        contender = len(shortlist) > 1 and (
            not candidates[0].fits or shortlist[1][3] <= ORIENTATION * closest)
        order = sorted((i for i in range(len(candidates)) if i not in aligned and (
            (i == 1 and contender) or 0 < candidates[i].badness < NEAR_FIT)),
            key=lambda i: (i != 1, candidates[i].badness))
        for i in order[:REALIGN]:
            c = candidates[i]
            candidates[i] = _Candidate(c.name, c.example, c.turned, compare(
                ways[c.turned], self._faces[c.example], None, coverings[c.turned]))
        return candidates

    def _compare_examples(self) -> None:
        """Compare each example with its look-alikes, both ways up: two names whose photos
        show the same card (they fit each other) are warned of; for the others, where
        they differ is kept (see :meth:`_hidden_slot`).

        Whether a print recurs there (a slot) is judged against every card of the deck
        that shares the example's layout, not its look-alikes alone: a card at the edge
        of its family has few look-alikes, and a rune they all show one way is still a
        slot if other cards of the deck show it the other way."""
        # For each example: its look-alikes, their detail lined up on it, and the difference.
        alikes: list[list[tuple[int, np.ndarray, np.ndarray, _Source]]] = [[] for _ in self._faces]
        # For each example: every card sharing its layout, its detail lined up on it.
        kin: list[list[tuple[int, np.ndarray]]] = [[] for _ in self._faces]
        for i, face in enumerate(self._faces):
            owner = int(self._owner[i])
            ways = (face, face.turned())
            twins = {example for _, example, _, _ in self._shortlist(face.signature, TWINS, 2 * FAR, owner)}
            for name, example, way, _ in self._shortlist(face.signature, len(self.names), float("inf"), owner):
                if example not in twins:
                    # Not a look-alike: only what it shows where they vary is asked of it, so
                    # one way up (the signature's) will do.
                    lk = compare(ways[way], self._faces[example])
                    if lk.fit < SAME_LAYOUT:
                        kin[example].append((owner, _lined_up(ways[way].detail, lk.warp)))
                    continue
                likenesses = []
                for turned in (False, True):
                    c = _Candidate(name, example, turned, compare(ways[turned], self._faces[example]))
                    if c.fits:
                        pair = sorted((self.names[owner], self.names[name]))
                        message = (f"cards {pair[0]!r} and {pair[1]!r} look the same in their "
                                   "photos: they cannot be told apart")
                        if message not in self.warnings:
                            self.warnings.append(message)
                            log.warning("%s", message)
                    likenesses.append(c.likeness)
                # Cards that share a layout and differ in places (a rune, a word) show
                # where the deck's cards vary: a card not in the deck may vary there too.
                turned = likenesses[1].fit < likenesses[0].fit
                alike = likenesses[turned]
                if alike.fit < SAME_LAYOUT:
                    theirs = _lined_up(ways[turned].detail, alike.warp)
                    alikes[example].append((owner, theirs, alike.difference, _Source(i, turned, alike.warp)))
                    kin[example].append((owner, theirs))
        for example, twins_of in enumerate(alikes):
            mine = self._faces[example].detail
            for owner, theirs, difference, source in twins_of:
                others = [d for o, d in kin[example] if o != owner]
                self._twins[example].append(_Slots.of(owner, theirs, mine, difference, others, source))
        # A layout of pictures: some card of it has, against a look-alike, two prints of
        # their own in one place (no rune family has: one of the two forms of a rune recurs).
        pictures = {int(self._owner[e]) for e, twins in enumerate(self._twins) if any(len(s.own) for s in twins)}
        for example in range(len(self._faces)):
            if any(owner in pictures for owner in (int(self._owner[example]), *(o for o, _ in kin[example]))):
                self._twins[example] = [slots.pictured() for slots in self._twins[example]]

    def _hidden_slot(self, best: _Candidate, seen: Face) -> bool:
        """True when ``best``'s card was covered just where it differs from one of its
        look-alikes in the deck (a rune, a word), so that what shows there is no more
        like it than like the look-alike: a card with the look-alike's print there, in
        the deck or not, would look the same. ``seen`` is the face the way up ``best``
        was seen."""
        covered = best.likeness.covering
        if not covered.any():
            return False
        # Beside what lies on the card are its rim and shadow, which may look more like
        # one print than the other: what shows there counts less, as for contradictions.
        weight = shadow_weight(covered)
        lined_up = _lined_up(seen.detail, best.likeness.warp)
        twins = self._twins[best.example]
        # What shows is compared with the prints as taught, and where that tells too
        # little, with both prints evened out round the same covering (:class:`_Prints`).
        prints = _Prints(self._faces, best.example, covered)
        # Beside a finger a rune the other way hardly counts as a contradiction (where
        # the card shows darker it may be a shadow), and where the look-alike's print
        # is found on no other card the patch is no slot: a card that shows there
        # clearly the look-alike's print is not this one, in the deck or not.
        if any(slots.shows_theirs(lined_up, covered, weight)
               and slots.shows_theirs(lined_up, covered, weight, prints.of(slots)) for slots in twins):
            return True
        # Beside a finger its shadow may darken what shows of a slot evenly: that leaves it
        # between the two prints, and then only its shape tells (levelled); and a sliver
        # of a rune there leans whichever way the finger's rim and shadow push it (the
        # docs' "A sliver of a rune beside a finger").
        if not any(slots.in_doubt(lined_up, covered, weight, prints) for slots in twins):
            return False
        # A card with a print of its own (a picture no other card shows, or in a layout
        # of pictures a mark) is not one of a family varied in slots alone: a card not in
        # the deck would have a picture of its own too. If the card shows that picture, a
        # hidden slot leaves no doubt.
        return not any(slots.own_shown(lined_up, covered, weight) for slots in twins)

    def _told_apart(self, best: _Candidate, other: _Candidate, seen: Face) -> bool:
        """True when ``other``, a look-alike that fits too (what sets the two apart is
        faint, or partly covered), is told from ``best`` by what shows where they
        differ: that is clearly more like ``best``'s print than ``other``'s (as taught, or
        both evened out round what covers the card, as in :meth:`_hidden_slot`)."""
        covered = best.likeness.covering
        lined_up = _lined_up(seen.detail, best.likeness.warp)
        prints = _Prints(self._faces, best.example, covered)
        return any(slots.owner == other.name and not (
            slots.hidden(lined_up, covered, every=True)
            and slots.hidden(lined_up, covered, every=True, prints=prints.of(slots)))
            for slots in self._twins[best.example])


@dataclass(frozen=True, slots=True)
class _Source:
    """Where a look-alike's detail in a :class:`_Slots` came from: its example (by
    number), which way up, and the warp that lined it up on the example compared."""

    example: int
    turned: bool
    warp: np.ndarray


@dataclass(frozen=True, slots=True)
class _Slots:
    """Where an example differs from one look-alike (``owner``), in the example's pixels:
    each patch of difference (a rune, a word) that tells the two apart, the pixels of
    the patches (``where``, flat indices, and ``patch``, which patch), and the two
    cards' detail there."""

    owner: int
    where: np.ndarray
    patch: np.ndarray
    mine: np.ndarray
    theirs: np.ndarray
    slots: np.ndarray
    """Which patches (by number) are slots of the deck (see :meth:`of`)."""
    own: np.ndarray
    """Which patches (by number) hold two prints of their cards' own, neither shown there
    by any other card of the layout (two pictures; a rune card has none)."""
    source: _Source
    every: np.ndarray
    """Every patch (by number, sorted), worked out once: each card seen asks for them."""
    told: np.ndarray
    """The patches that are no picture of the two cards' own (:attr:`own`), likewise."""
    marks: np.ndarray
    """Which patches (by number) hold a print of the example's own, shown there by no
    other card of the layout, whatever the look-alike shows (a mark on a plain picture;
    a rune no other card shows there too)."""
    pictures: np.ndarray
    """The patches whose print, shown, names the example (:meth:`own_shown`): :attr:`own`,
    and :attr:`marks` when its layout is one of pictures (:meth:`pictured`)."""

    @classmethod
    def of(cls, owner: int, theirs: np.ndarray, mine: np.ndarray, difference: np.ndarray,
           others: Sequence[np.ndarray], source: _Source) -> _Slots:
        """From the look-alike's detail lined up on the example's, the example's own, and
        their difference (:attr:`Likeness.difference`).

        Only patches where both the example's print and the look-alike's recur on
        other cards of the deck (``others``: every other card of the layout, its detail
        lined up on the example's)
        are kept: those are the deck's slots (a rune, R on some cards and F on others);
        a patch of a picture that is one card's alone says nothing of what other cards
        may show there.
        """
        count, patches = cv2.connectedComponents((difference > SLOT).astype(np.uint8), connectivity=8)
        excess = np.clip(difference - CLEAR, 0, None)
        decisive = np.bincount(patches.ravel(), excess.ravel(), count) >= DECISIVE
        decisive[0] = False
        slot = np.zeros(count, bool)
        own = np.zeros(count, bool)
        mark = np.zeros(count, bool)
        if decisive.any():
            flat = patches.ravel()
            apart = np.bincount(flat, ((theirs - mine) ** 2).ravel(), count)
            like_theirs = np.zeros(count, bool)
            like_mine = np.zeros(count, bool)
            for other in others:
                like_theirs |= np.bincount(flat, ((theirs - other) ** 2).ravel(), count) < RECUR * apart
                like_mine |= np.bincount(flat, ((mine - other) ** 2).ravel(), count) < RECUR * apart
            slot = decisive & like_theirs & like_mine
            if len(others) >= OWN_AMONG:
                own = decisive & ~like_theirs & ~like_mine
                mark = decisive & ~like_mine
        where = np.flatnonzero(decisive[patches])
        patch = patches.ravel()[where]
        every = np.unique(patch)
        owns = np.flatnonzero(own)
        return cls(owner, where, patch, mine.ravel()[where], theirs.ravel()[where],
                   np.flatnonzero(slot), owns, source, every, np.setdiff1d(every, owns),
                   np.flatnonzero(mark), owns)

    def pictured(self) -> _Slots:
        """The same, with the example's own marks (:attr:`marks`) among its pictures."""
        return replace(self, pictures=np.union1d(self.own, self.marks))

    def hidden(self, seen: np.ndarray, covered: np.ndarray | None, every: bool = False,
               weight: np.ndarray | None = None, prints: tuple[np.ndarray, np.ndarray] | None = None
               ) -> bool:
        """True when, for some slot (any patch if ``every``), what ``seen`` (lined up on
        the example) shows of it outside ``covered`` is not clearly more like the example
        than the look-alike; each pixel's say times ``weight`` (example pixels) if given.
        ``prints`` are the example's detail and the look-alike's to compare with (as
        taught, if None)."""
        patches = self.every if every else self.slots
        if not len(patches):
            return False
        return bool(np.any(self._told(seen, covered, patches, weight, prints) < EVIDENT))

    def in_doubt(self, seen: np.ndarray, covered: np.ndarray, weight: np.ndarray, prints: _Prints) -> bool:
        """True when what ``seen`` shows outside ``covered`` leaves some slot in doubt,
        compared four ways: with the prints as taught and evened out round the covering
        (``prints``), each as they are and levelled (:meth:`_told`; half the margin).

        A slot is in doubt when no way tells it clearly for the example (:meth:`hidden`,
        every way), or when it lies partly under or beside what covers the card
        (``weight`` under 1: :func:`shadow_weight`) and one way tells it for the
        look-alike by that way's margin, whatever the others say: a sliver of a rune
        there leans whichever way the finger's rim and shadow push it. (A slot in full
        view is left to the contradiction.) A slot beside what covers the card that no
        way tells by its margin is told when every way reads it for the example by
        :data:`AGREED`: a rune's rim, too little for the margin, that is the card's own
        print however it is compared. Each way's figures serve every question."""
        if not len(self.slots):
            return False
        beside = np.isin(self.slots, self.patch[weight.ravel()[self.where] < 1])
        hidden = True
        clear = np.zeros(len(self.slots), bool)
        agreed = beside.copy()
        for evened, levelled in ((False, False), (True, False), (False, True), (True, True)):
            margin = LEVELLED if levelled else EVIDENT
            told = self._told(seen, covered, self.slots, weight, prints.of(self) if evened else None, levelled)
            if np.any(told[beside] <= -margin):
                return True
            hidden = hidden and bool(np.any(told < margin))
            if not hidden and not beside.any():
                return False
            clear |= told >= margin
            agreed &= told >= AGREED
        return hidden and not bool(np.all(clear | agreed))

    def shows_theirs(self, seen: np.ndarray, covered: np.ndarray, weight: np.ndarray,
                     prints: tuple[np.ndarray, np.ndarray] | None = None) -> bool:
        """True when what ``seen`` shows outside ``covered`` of some patch that is no
        picture of the two cards' own (:attr:`own`; a slot or not) is clearly more like
        the look-alike's print than the example's (the margin of :meth:`hidden`, the
        other way). Two pictures are left out: what a finger leaves of one may well look
        more like the other (an art card not in the deck would not fit elsewhere)."""
        patches = self.told
        return bool(len(patches)) and bool(np.any(self._told(seen, covered, patches, weight, prints) <= -EVIDENT))

    def own_shown(self, seen: np.ndarray, covered: np.ndarray, weight: np.ndarray) -> bool:
        """True when ``seen`` clearly shows, outside ``covered``, some print of the
        example's own (:attr:`pictures`) rather than the look-alike's (as :meth:`hidden`)."""
        return bool(len(self.pictures)) and bool(
            np.any(self._told(seen, covered, self.pictures, weight) >= EVIDENT))

    def _told(self, seen: np.ndarray, covered: np.ndarray | None, patches: np.ndarray,
              weight: np.ndarray | None, prints: tuple[np.ndarray, np.ndarray] | None = None,
              levelled: bool = False) -> np.ndarray:
        """How much more like the example than the look-alike ``seen`` shows each of
        ``patches`` outside ``covered`` (summed squared detail), against ``prints`` as
        :meth:`hidden`.

        ``levelled``: each print is first shifted, patch by patch, by how much darker or
        lighter than it what shows is on average (weighted as the evidence). Beside a
        finger its shadow darkens the card's detail evenly over the few pixels that show
        of a rune's end, so they lie between the two prints and tell neither way; what
        tells is then the shape of what shows, which no shift of the other print gives."""
        shows = np.ones(len(self.where), bool) if covered is None else ~covered.ravel()[self.where]
        at = seen.ravel()[self.where]
        mine, theirs = (self.mine, self.theirs) if prints is None else (
            prints[0].ravel()[self.where], prints[1].ravel()[self.where])
        say = np.ones(len(self.where), np.float32) if weight is None else weight.ravel()[self.where]
        count = int(self.every[-1]) + 1
        off_mine, off_theirs = at - mine, at - theirs
        if levelled:
            said = np.maximum(np.bincount(self.patch[shows], say[shows], count), 1e-6)

            def level(off: np.ndarray) -> np.ndarray:
                mean: np.ndarray = np.bincount(self.patch[shows], (say * off)[shows], count) / said
                levelled_off: np.ndarray = off - mean[self.patch]
                return levelled_off

            off_mine, off_theirs = level(off_mine), level(off_theirs)
        # Each pixel tells at most how far apart the two prints are there: a pixel far
        # from both (a finger's dark rim that the covering missed, a shadow) tells nothing.
        apart = (mine - theirs) ** 2
        evidence = (np.minimum(off_theirs ** 2, apart) - np.minimum(off_mine ** 2, apart)) * say
        told: np.ndarray = np.bincount(self.patch[shows], evidence[shows], count)[patches]
        return told


class _Prints:
    """An example's detail and its look-alikes' as a seen card's would be with the same
    things lying over them (``covered``, example pixels): each print's light evened out
    round them from the rest of the card, as :meth:`Face.of` does for the card seen.

    Beside a finger the seen card's detail differs from the taught print's, whose
    neighbourhood is all card: a rune's end by the finger's edge, half its neighbourhood
    gone, comes out other than in the print, and compared with the prints as taught it
    told neither way. Evened out the same way, the example and a look-alike are what
    the card seen would show if it were either. Made when first asked for (only when
    the prints as taught leave a slot hidden, or show the look-alike's print).
    """

    def __init__(self, faces: Sequence[Face], example: int, covered: np.ndarray) -> None:
        self._faces = faces
        self._example = example
        self._covered = covered
        self._mine: np.ndarray | None = None
        self._theirs: dict[int, np.ndarray] = {}
        """Each look-alike's, by its example (one example's look-alikes are so many
        examples, each once), as both checks of a slot may ask for it."""

    def of(self, slots: _Slots) -> tuple[np.ndarray, np.ndarray]:
        """The example's detail and that of ``slots``' look-alike, lined up on it."""
        if self._mine is None:
            self._mine = print_of(self._faces[self._example].colour, self._covered)
        source = slots.source
        if source.example not in self._theirs:
            colour = self._faces[source.example].colour
            if source.turned:
                colour = cv2.rotate(colour, cv2.ROTATE_180)
            self._theirs[source.example] = print_of(_lined_up(colour, source.warp), self._covered)
        return self._mine, self._theirs[source.example]


def _lined_up(picture: np.ndarray, warp: np.ndarray) -> np.ndarray:
    """A face's ``picture`` (its detail, its colour) in the pixels of the example
    ``warp`` aligned it onto."""
    return cv2.warpPerspective(picture, warp, SIZE, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                               borderMode=cv2.BORDER_REPLICATE)


_TURN = np.array([[-1, 0, SIZE[0] - 1], [0, -1, SIZE[1] - 1], [0, 0, 1]], np.float32)
"""Turning a face upside down, as a homography (its own inverse)."""


class _Ways:
    """A face and, made when first asked for, the same face upside down: ``ways[turned]``."""

    def __init__(self, face: Face) -> None:
        self._faces: list[Face | None] = [face, None]

    def __getitem__(self, turned: bool) -> Face:
        face = self._faces[turned]
        if face is None:
            face = self._faces[turned] = self._faces[0].turned()  # type: ignore[union-attr]
        return face


def _cell_weights(sigs: np.ndarray, owner: np.ndarray) -> np.ndarray:
    """How much each signature cell tells the deck's cards apart (1/4 for cells every
    card shares: a title on every card says nothing, the runes say it all).

    The outermost cells count for nothing: an outline found a border's width in or
    out shifts the card's edge there by a cell, while its middle hardly moves.
    """
    names = int(owner.max()) + 1
    if names < 2:
        weights = np.ones(sigs.shape[1], np.float32)
    else:
        means = np.stack([sigs[owner == i].mean(axis=0) for i in range(names)])
        spread = np.minimum(((means - means.mean(axis=0)) ** 2).sum(axis=2), CAP).mean(axis=0)
        spread /= max(float(spread.max()), 1e-6)
        weights = (0.25 + spread).astype(np.float32)
    rim = np.ones((SIZE[1] // CELL, SIZE[0] // CELL), bool)
    rim[1:-1, 1:-1] = False
    weights[rim.ravel()] = 0.0
    return weights


def _margin(lk: Likeness) -> float:
    """How far under the limits for a fit, 0 (at a limit) to 1 (a perfect match)."""
    return float(np.clip(min(1 - lk.contradiction / CONTRADICTION, 1 - lk.covered / COVERED,
                             1 - lk.fit / FIT), 0.0, 1.0))


def seen_card(image: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card inside ``corners`` as compared: the face size, the margin cut off.

    Warped at half as big again and then shrunk, so a card larger than the face is
    averaged down rather than sampled (its fine print would turn to noise).
    """
    big = rectify(image, corners, (3 * SIZE[0] // 2, 3 * SIZE[1] // 2), MARGIN)
    return cv2.resize(big, SIZE, interpolation=cv2.INTER_AREA)


def example_card(image: np.ndarray) -> np.ndarray | None:
    """The rectified card in a teaching photo: the largest card found, else the whole
    picture if it has a card's proportions (a scan or a tight crop)."""
    found = find_cards(image, max_cards=1)
    h, w = image.shape[:2]
    whole = np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32)
    if found and not _fills(found[0].corners, whole):
        return seen_card(image, found[0].corners)
    ratio = max(h, w) / max(min(h, w), 1)
    if min(h, w) < 24 or not 1.05 <= ratio <= 2.0:
        return None
    if w > h:
        image = cv2.rotate(image, cv2.ROTATE_90_CLOCKWISE)
    h, w = image.shape[:2]
    return seen_card(image, np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32))


def _fills(corners: np.ndarray, whole: np.ndarray) -> bool:
    """True when an outline found runs close along the picture's own edges: a scan or a
    tight crop, whose card is the whole picture (what was found is a line inside it)."""
    reach = 0.06 * float(np.abs(whole[2] - whole[0]).max())
    return all(float(np.abs(whole - c).max(axis=1).min()) < reach for c in corners)


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
