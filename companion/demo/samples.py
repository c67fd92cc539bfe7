"""Sample camera pictures for the demo and the end-to-end tests, made with the repo's own
generators: Runecast dice (:mod:`vision.dice.render`) and cards (:mod:`vision.cards.synth`).

Nothing is downloaded and nothing binary is committed: the pictures are rendered on first
use. A rendered picture only becomes a sample once the camera process's own reader
(:class:`vision.watch.TrayReader`, with the taught faces and deck made here) reads it as
what it shows: a demo whose camera misreads its own samples would show nothing, and an
end-to-end test needs to know what each reading is. Pictures are saved as PNG, so the
replay gives the reader exactly the pixels checked here.

::

    faces = face_folder(root / "faces")            # hammer/, snake/, tree/
    deck = deck_folder(root / "deck", ["Ritual Grounds", "FRR-FRF-FFR"])
    reader = TrayReader(make_reader(str(faces)), Deck.load(deck))
    photo = dice_photo({"hammer": 3, "snake": 3, "tree": 2}, reader)
    photo = card_photo("Ritual Grounds", reader)
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from vision.cards import synth
from vision.dice.render import DIE_STYLES, RUNE_FACES, render_scene, write_face_folder
from vision.watch import TrayReader

__all__ = ["SIZE", "SampleError", "card_photo", "deck_folder", "dice_photo", "face_folder"]

SIZE = (640, 480)
"""Width and height of every sample picture: what a Pi camera's preview gives."""

STYLE = DIE_STYLES[6]
"""The Runecast dice: one set, as a table has (the taught faces are of this set)."""

_RUNES = re.compile(r"^[RF]{3}(-[RF]{3})*$")


class SampleError(RuntimeError):
    """No rendered picture was read as what it shows (the reader and the renderer disagree)."""


def face_folder(folder: Path) -> Path:
    """The taught Runecast faces (one subfolder per face), as ``runes-vision teach`` makes them."""
    return write_face_folder(folder, seed=7, style=STYLE, faces=RUNE_FACES)


def deck_folder(folder: Path, names: Sequence[str]) -> Path:
    """A deck folder of the named cards: Loki's Chosen cards for rune names
    (``FRR-FRF-FFR``), printed cards with a picture for any other name (a Location)."""
    specs = [synth.CardSpec(name, "runes" if _RUNES.match(name) else "art",
                            zlib.crc32(name.encode()))
             for name in names]
    synth.write_deck(folder, specs, seed=5)
    return folder


def dice_photo(counts: Mapping[str, int], reader: TrayReader, *, seed: int = 0,
               tries: int = 400) -> np.ndarray:
    """A photo of Runecast dice showing ``counts`` (face → dice) that ``reader`` reads right.

    Scenes are rendered from ``seed`` on until one shows those faces and is read so.
    """
    wanted = {face: n for face, n in counts.items() if n}
    total = sum(wanted.values())
    for attempt in range(seed, seed + tries):
        scene = render_scene(attempt, count=total, kind="runes", width=SIZE[0], height=SIZE[1],
                             style=STYLE, tilt=float(attempt % 8), glare=0.0, blur=0.0,
                             surface="felt", touching=0.0)
        shown: dict[str, int] = {}
        for die in scene.dice:
            shown[die.face] = shown.get(die.face, 0) + 1
        if shown != wanted:
            continue
        reading = reader.read(scene.image)
        if reading.dice.counts == wanted and not reading.named_cards:
            return scene.image
    raise SampleError(f"no rendered photo of {wanted} was read right in {tries} tries "
                      f"from seed {seed}")


def card_photo(name: str, reader: TrayReader, *, seed: int = 0, tries: int = 40) -> np.ndarray:
    """A photo of the card ``name`` lying alone on the table that ``reader`` names right."""
    spec = synth.CardSpec(name, "runes" if _RUNES.match(name) else "art",
                          zlib.crc32(name.encode()))
    card = synth.render(spec)
    for attempt in range(seed, seed + tries):
        photo = synth.photograph([card], np.random.default_rng(attempt), size=SIZE,
                                 card_height=(300, 380), table="felt", tilt=0.03, harsh=False)
        reading = reader.read(photo.image)
        if [c.name for c in reading.named_cards] == [name] and not reading.dice.dice:
            return photo.image
    raise SampleError(f"no rendered photo of the card {name!r} was read right in {tries} "
                      f"tries from seed {seed}")
