"""Which side of the picture the tray's far side is at, learnt over many rolls.

The dice reader takes the far side to be at the top of the picture (a die's side faces
show below its top face). A camera at another side of the tray is turned to match
(``[camera] turn``); with ``turn = "auto"`` the turn is learnt instead, from the rolls
the camera sees.

The cue: a lone die's blob is its top face and the faces it shows towards the camera, so
the top face lies off the blob's centre, away from the camera. One frame's lone dice
together point to one side of the picture (:func:`far_side_vote`) when they point there
clearly (else the frame abstains); of the webcam photos a little over half vote, and
82-91% of their votes are right (the fewest upside down). So no frame decides: the votes of the last :data:`WINDOW` rolls
are counted (:class:`DirectionVotes`), and a turn is adopted once it leads every other
by :data:`LEAD` and holds :data:`SHARE` of them. Measured in docs/vision.md (open
gaps): over random orders of the 396 webcam photos turned each way, learnt in a median
of 8-10 rolls, never wrong, never left once adopted, and an upright camera never turned.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import get_args

import numpy as np

from vision.dice.find import box_centres, find_blobs, pointed_side
from vision.dice.reader import UNKNOWN, DiceReader, DiceReading, Die
from vision.settings import Turn
from vision.sources import turned
from vision.tray import Tray

__all__ = ["LEAD", "SHARE", "TURNS", "WINDOW", "AutoTurn", "DirectionVotes", "far_side_vote",
           "plus"]

TURNS: tuple[Turn, ...] = get_args(Turn)  # each brings vision.dice.find.SIDES[k] to the top
LEAD = 4  # votes: the lead over every other turn that adopts a turn
SHARE = 0.7  # of the votes counted: the least a turn must hold to be adopted
WINDOW = 30  # the rolls whose votes count: a camera moved is learnt again within about this


def far_side_vote(frame: np.ndarray, reading: DiceReading, tray: Tray | None = None) -> Turn | None:
    """The turn that would bring the far side of ``frame`` to the top, as its lone dice
    read in ``reading`` say (a blob of one die holding one face read), or None if they do
    not say it clearly (no lone die, or two sides nearly alike).

    The far side is the one the lone dice's top faces lie towards, off their blobs'
    centres (:func:`~vision.dice.find.pointed_side`)."""
    blobs = find_blobs(frame, tray)
    if not len(blobs) or not reading.dice:
        return None
    labels, scale = blobs.labels, blobs.scale
    found: dict[int, list[Die]] = {}
    h, w = labels.shape
    for die in reading.dice:
        x, y = die.centre
        found.setdefault(int(labels[min(h - 1, int(y * scale)), min(w - 1, int(x * scale))]),
                         []).append(die)
    lone = [blob for blob, dice in found.items()
            if blob and len(dice) == 1 and blobs.counts[blob - 1] == 1 and dice[0].face != UNKNOWN]
    centres = box_centres(labels, blobs.boxes, lone) / scale
    far = pointed_side([np.subtract(found[blob][0].centre, centre) for blob, centre in zip(lone, centres)],
                       blobs.side)
    return None if far is None else TURNS[far]


class DirectionVotes:
    """The turn learnt from the votes of the last ``window`` rolls: ``turn`` (``start``
    until one turn leads every other by ``lead`` votes and holds ``share`` of them all),
    changed only by such a lead.

    The share keeps a camera nearly overhead, whose votes scatter (its dice show almost
    no side faces; shadows pull their blobs any way), from being turned by a run of
    luck: in 100 Runecast scenes rendered from 0-7° (the demo's) the votes were 90: 17,
    270: 15, 0: 14, 180: 1, and over 2,000 orders of them a lead of 4 alone changed the
    turn 1,650 times, with the share 136; the webcam photos' right turn holds 82-91% of
    their votes."""

    def __init__(self, start: Turn = 0, *, lead: int = LEAD, share: float = SHARE,
                 window: int = WINDOW) -> None:
        self.turn: Turn = start
        self.lead = lead
        self.share = share
        self._votes: deque[Turn] = deque(maxlen=window)

    def add(self, vote: Turn | None) -> bool:
        """Count one roll's vote (None: it abstains); True if it changed ``turn``."""
        if vote is None:
            return False
        self._votes.append(vote)
        ranked = Counter(self._votes).most_common(2) + [(self.turn, 0)]
        (best, most), (_, next_most) = ranked[0], ranked[1]
        if best == self.turn or most - next_most < self.lead \
                or most < self.share * len(self._votes):
            return False
        self.turn = best
        return True

    def add_frame(self, frame: np.ndarray, reading: DiceReading, tray: Tray | None = None) -> bool:
        """Count the vote of ``frame`` as read (``reading``), the frame already turned by
        ``turn``; True if it changed ``turn``."""
        vote = far_side_vote(frame, reading, tray)
        return self.add(None if vote is None else plus(self.turn, vote))


class AutoTurn:
    """``[camera] turn = "auto"`` (and ``runes-vision dice --turn auto``): frames turned as
    the rolls seen so far say.

    Each settled roll casts a vote (:class:`DirectionVotes`); until one turn leads,
    frames are read at the turn ``votes`` starts from (0, or the turn the camera process
    learnt before it last stopped). The tray calibration (:attr:`tray`, which the
    camera process's :class:`~vision.watch.Requests` makes and saves) stays as the camera
    sees it, so it holds whatever turn is learnt after it; the reader is given it turned
    with the frames. With a marker calibration the markers decide which way is up:
    nothing is turned and no vote is cast.
    """

    def __init__(self, dice: DiceReader, votes: DirectionVotes | None = None) -> None:
        self.dice = dice
        self.votes = votes or DirectionVotes()
        self.tray = dice.tray
        self._turned: tuple[Tray | None, Turn] = (self.tray, 0)

    @property
    def markers(self) -> bool:
        return self.tray is not None and self.tray.homography is not None

    @property
    def turn(self) -> Turn:
        """The turn frames are read at now (0 with markers)."""
        return 0 if self.markers else self.votes.turn

    def view(self, raw: np.ndarray) -> np.ndarray:
        """The camera's frame as the reader is to see it, the reader's tray turned alike."""
        tray, turn = self.tray, self.turn
        if self._turned[0] is not tray or self._turned[1] != turn:
            self._turned = (tray, turn)
            empty = None if tray is None or tray.empty is None else turned(tray.empty, turn)
            self.dice.tray = tray if tray is None or turn == 0 else Tray(empty=empty)
        return turned(tray.view(raw) if tray else raw, turn)

    def settled(self, frame: np.ndarray, reading: DiceReading) -> bool:
        """Count the vote of a settled roll (``frame`` as :meth:`view` gave it); True if
        it changed :attr:`turn`."""
        return not self.markers and self.votes.add_frame(frame, reading, self.dice.tray)


def plus(a: Turn, b: Turn) -> Turn:
    """Two clockwise turns one after the other."""
    return TURNS[(TURNS.index(a) + TURNS.index(b)) % 4]
