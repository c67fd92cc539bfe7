"""Card finding and naming on generated decks and photographs (OpenCV on real image files).

Decks are generated into a temporary folder at test time (``vision.cards.synth``,
deterministic from a seed), written as JPEG/PNG files and read back like a user's.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.vision_cards import _degraded, frames
from vision.cards import synth
from vision.cards.deck import MARGIN, SIZE, Deck, seen_card
from vision.cards.find import FoundCard, find_cards
from vision.cards.reading import read_cards


@dataclass
class Tally:
    right: int = 0
    known: int = 0
    misnamed: int = 0
    unknown_named: int = 0
    unknown: int = 0
    undecidable: int = 0


def _corner_error(found: np.ndarray, truth: np.ndarray) -> float:
    return min(float(np.abs(np.roll(found, k, axis=0) - truth).max()) for k in range(4))


def _tally(deck_dir: Path, size: int, frames: int, seed: int) -> Tally:
    specs = synth.deck_specs(size, seed)
    synth.write_deck(deck_dir, specs, seed)
    deck = Deck.load(deck_dir)
    unknown = synth.unknown_specs(6, specs, seed)
    rng = np.random.default_rng(seed + 100)
    tally = Tally()
    pool = specs + unknown
    for i in range(frames):
        chosen = [pool[int(k)] for k in rng.choice(len(pool), 4, replace=False)]
        photo = synth.photograph([synth.render(s) for s in chosen], rng, harsh=i % 2 == 0, cover=0.15)
        reading = read_cards(photo.image, deck)
        for spec, corners, hidden in zip(chosen, photo.corners, photo.hidden):
            seen = [c for c in reading.cards if _corner_error(c.corners, corners) < 15]
            name = seen[0].name if seen else None
            if spec in specs and name is None and synth.undecidable(spec, hidden, synth.look_alikes(spec)):
                # What tells it from another card of its kind is under a finger: "unknown"
                # is the right answer (that card may be on the table, taught or not).
                tally.undecidable += 1
            elif spec in specs:
                tally.known += 1
                tally.right += name == spec.name
                tally.misnamed += name is not None and name != spec.name
            else:
                tally.unknown += 1
                tally.unknown_named += name is not None
    return tally


@pytest.mark.parametrize("size", [16, 32, 60])
def test_generated_decks_name_cards_and_never_name_unknown_ones(tmp_path: Path, size: int) -> None:
    # Some 30 cards a deck, a finger over one in seven; rune decks (16) differ by a
    # single rune between cards. The benchmark measures the rate on many more.
    tally = _tally(tmp_path, size, frames=8, seed=size)
    assert tally.unknown_named == 0, tally
    assert tally.misnamed == 0, tally
    assert tally.right >= 0.95 * tally.known, tally


def test_cards_are_found_with_their_corners() -> None:
    rng = np.random.default_rng(7)
    specs = synth.deck_specs(32, 7)
    found = total = 0
    for _ in range(5):
        chosen = specs[:4]
        photo = synth.photograph([synth.render(s) for s in chosen], rng, harsh=False)
        cards = find_cards(photo.image)
        assert len(cards) <= 8
        for truth in photo.corners:
            total += 1
            found += any(_corner_error(c.corners, truth) < 8 for c in cards)
    assert found >= 0.95 * total


def test_a_finger_across_a_card_is_seen_as_lying_on_it(tmp_path: Path) -> None:
    """The outline is hidden where the finger crosses it; the card is still named, unless
    the finger hides just what tells it from another card of its kind (a rune)."""
    specs = synth.deck_specs(16, 4)[:8]
    synth.write_deck(tmp_path, specs, 4)
    deck = Deck.load(tmp_path)
    rng = np.random.default_rng(12)
    named = decidable = 0
    for spec in specs:
        photo = synth.photograph([synth.render(spec)], rng, cover=1.0, harsh=False)
        cards = find_cards(photo.image)
        assert len(cards) == 1 and not cards[0].edge_seen.all()
        names = read_cards(photo.image, deck).names
        assert names in ((spec.name,), (None,))
        if not synth.undecidable(spec, photo.hidden[0], synth.look_alikes(spec)):
            decidable += 1
            named += names == (spec.name,)
    assert named >= decidable - 1 >= 5


def test_a_look_alike_not_in_the_deck_is_unknown_under_a_finger(tmp_path: Path) -> None:
    """A deck card with one rune the other way, not taught: where the finger hides that
    rune, the card seen could be either, so it must not be named after the taught one."""
    specs = synth.deck_specs(16, 4)
    synth.write_deck(tmp_path, specs, 4)
    deck = Deck.load(tmp_path)
    taught = {s.name for s in specs}
    alikes = [a for s in specs[:8] for a in synth.look_alikes(s)[:1] if a.name not in taught]
    rng = np.random.default_rng(13)
    for spec in alikes:
        photo = synth.photograph([synth.render(spec)], rng, cover=1.0, harsh=False)
        assert read_cards(photo.image, deck).names in ((None,), ()), spec.name


# _read_in_place_of reaches its frame by photographing every frame of the seed before it,
# once for the card and once for each look-alike (0.4 s a frame on one core of this
# machine: over a minute for frame 96, and four times that beside other work), so its
# tests get more than pytest's 300 s, which is for tests that hang.
_FRAME_BY_FRAME = pytest.mark.timeout(1200)


def _read_in_place_of(tmp_path: Path, seed: int, frame: int, unknown_share: float, name: str,
                      alikes: tuple[str, ...]) -> None:
    """The deck card ``name`` in the benchmark's ``frame`` of ``seed`` (fingers over
    30%) is named, and each of its look-alikes ``alikes`` (none taught), laid in its
    place, is not. The frames choose cards by their place in the deck's list, so a
    look-alike in the card's place is laid, and fingered, as the card was: the same
    finger over the same rune."""
    specs = synth.deck_specs(60, seed)
    unknown = synth.unknown_specs(20, specs, seed)
    synth.write_deck(tmp_path, specs, seed)
    deck = Deck.load(tmp_path)
    card = next(s for s in specs if s.name == name)
    others = [s for s in synth.look_alikes(card) if s.name in alikes]
    assert len(others) == len(alikes) and not set(others) & set(specs)
    for shown, expected in ((card, card.name), *((alike, None) for alike in others)):
        laid = [shown if s == card else s for s in specs]
        chosen, photo = next(itertools.islice(frames(seed, laid, unknown, unknown_share, cover=0.3), frame, None))
        at = chosen.index(shown)
        assert photo.hidden[at].any()
        seen = [c.name for c in read_cards(photo.image, deck).cards
                if _corner_error(c.corners, photo.corners[at]) < 15]
        assert seen == [expected], shown.name


@_FRAME_BY_FRAME
def test_a_rune_card_whose_telling_rune_shows_partly_beside_a_finger_is_named(tmp_path: Path) -> None:
    """The benchmark's seed 5 (half the cards unknown, fingers over 30%), frame 96: a
    finger lies over most of the rune that tells RRF-FRR-FFR from FRF-FRR-FFR, and what
    shows of it, beside the finger, is evened out round the finger. Compared with the
    taught prints, evened out over the whole card, it told neither way (unknown);
    compared with both prints evened out round the same finger, it is plainly the card's
    own. FRF-FRR-FFR, not taught, in its place (the same frame: the same finger over
    the same rune) is not named."""
    _read_in_place_of(tmp_path, 5, 96, 0.5, "RRF-FRR-FFR", ("FRF-FRR-FFR",))


@_FRAME_BY_FRAME
def test_a_rune_card_whose_telling_rune_shows_in_a_fingers_shadow_is_named(tmp_path: Path) -> None:
    """The benchmark's seed 2 (fingers over 30%), frame 75: a finger lies over most of a
    rune of RRR-FRR-FRF, and the rest of it, beside the finger, lies in the finger's
    shadow, darker all over than either print, so it told neither way (unknown). Each
    print shifted to the level of what shows, its shape is plainly the card's own.
    RRR-FRF-FRF, not taught, which differs from it in that rune, laid in its place is
    not named."""
    _read_in_place_of(tmp_path, 2, 75, 0.2, "RRR-FRR-FRF", ("RRR-FRF-FRF",))


@_FRAME_BY_FRAME
def test_a_rune_card_whose_telling_rune_shows_only_by_its_rim_is_named_when_every_way_agrees(
        tmp_path: Path) -> None:
    """The benchmark's seed 5 (half the cards unknown, fingers over 30%), frame 51: a
    finger lies over all but the rim of the rune that tells FRR-RFR-FFF from its
    look-alikes, too little to tell by the margin (+2 to +12 for 10) but the card's own
    print every way of comparing it (it was unknown). FRR-FFR-FFF, not taught, which
    differs from it in that rune, laid in its place reads for the look-alike every way
    and is not named."""
    _read_in_place_of(tmp_path, 5, 51, 0.5, "FRR-RFR-FFF", ("FRR-FFR-FFF",))


@_FRAME_BY_FRAME
def test_an_art_card_with_a_plain_picture_is_named_by_a_mark_no_other_card_shows(tmp_path: Path) -> None:
    """The benchmark's seed 5, frame 48: Keep Tide's picture is a plain field with a few
    marks, and the word that tells it from Vault Golden (a slot) is under a finger. Where
    the two differ in the picture Vault Golden shows a plain field, as many cards do, so
    no patch holds two prints of their own; but Keep Tide's mark there is shown by no
    other card of its layout, a layout of pictures (other cards of it have pictures of
    their own): that mark, shown, names it (it was unknown)."""
    _read_in_place_of(tmp_path, 5, 48, 0.5, "Keep Tide", ())


@_FRAME_BY_FRAME
def test_a_card_whose_edge_a_fingertip_just_crosses_is_named_by_the_outline_that_sees_it(
        tmp_path: Path) -> None:
    """Seed 41 (half the cards unknown, fingers over 30%), frame 61: a fingertip lies just
    over the edge of RFR-RFF-RRR, and the outline chosen sees that edge all along, so
    nothing is taken to lie on the card and the fingertip shows as a patch no card of the
    deck has: a card not in the deck, seen whole, whose other outlines were not looked
    at (it was unknown). An alternative outline, a few pixels off, sees the fingertip
    cross its edge, and names it. RFR-RFF-RRF, not taught, which differs from it in the
    rune beside the fingertip, laid in its place under the same fingertip, is not named."""
    _read_in_place_of(tmp_path, 41, 61, 0.5, "RFR-RFF-RRR", ("RFR-RFF-RRF",))


def _unknown_in_place_of(tmp_path: Path, seed: int, frame: int, unknown_share: float, name: str,
                         card_name: str, phone: bool = False) -> None:
    """The unknown card ``name`` in the benchmark's ``frame`` of ``seed`` (fingers over
    30%) is not named, and the deck card ``card_name`` laid in its
    place is. The frames choose unknown cards by their place in the list: the card laid
    in the look-alike's place is laid, and fingered, as it was. ``phone``: a soft phone
    photo taught and a table camera's frame (the benchmark's degradations)."""
    specs = synth.deck_specs(60, seed)
    unknown = synth.unknown_specs(20, specs, seed)
    synth.write_deck(tmp_path, specs, seed)
    for photo_file in tmp_path.glob("*/*.jpg") if phone else ():
        cv2.imwrite(str(photo_file), _degraded(cv2.imread(str(photo_file)), 1.0, 0, None))
    deck = Deck.load(tmp_path)
    alike = next(s for s in unknown if s.name == name)
    card = next(s for s in specs if s.name == card_name)
    for shown, expected in ((alike, None), (card, card.name)):
        laid = [shown if s == alike else s for s in unknown]
        chosen, photo = next(itertools.islice(frames(seed, specs, laid, unknown_share, cover=0.3), frame, None))
        at = chosen.index(shown)
        assert photo.hidden[at].any()
        image = _degraded(photo.image, 0.8, 70, [1.1, 1.0, 0.85]) if phone else photo.image
        seen = [c.name for c in read_cards(image, deck).cards if _corner_error(c.corners, photo.corners[at]) < 15]
        assert seen == [expected], shown.name


def test_a_look_alike_showing_its_own_rune_beside_a_finger_is_not_named(tmp_path: Path) -> None:
    """Seed 24 (never tuned on; half the cards unknown, fingers over 30%), a soft phone
    photo taught and a table camera's frame, frame 9: RRR-RRF-RRF, not in the deck, has
    a fingertip beside the rune that tells it from RRR-FRF-RRF. Beside a finger a rune
    the other way hardly counts as a contradiction, and no other look-alike shows its
    R there, so that rune is no slot: it was named RRR-FRF-RRF, though it shows its own
    rune plainly. RRR-FRF-RRF laid in its place, under the same finger, is named."""
    _unknown_in_place_of(tmp_path, 24, 9, 0.5, "RRR-RRF-RRF", "RRR-FRF-RRF", phone=True)


def test_a_look_alike_showing_a_sliver_of_its_rune_beside_a_finger_is_not_named(tmp_path: Path) -> None:
    """Seed 35 (never tuned on; fingers over 30%), frame 85: a finger lies over all but a
    sliver of the rune that tells FFF-FRR-FRR, not in the deck, from FRF-FRR-FRR. Against
    the prints as taught the sliver leaned to FRF-FRR-FRR's rune by just over the margin
    (11 for 10), and it was named; against both prints evened out round the finger and
    levelled it leans to the look-alike's (-9 for 5). Ways of comparing that disagree
    tell nothing sure: it is unknown. FRF-FRR-FRR laid in its place, whose rune every
    way of comparing tells for it (12-26), is named."""
    _unknown_in_place_of(tmp_path, 35, 85, 0.2, "FFF-FRR-FRR", "FRF-FRR-FRR")


def test_a_card_whose_outline_runs_along_a_finger_is_named_by_its_own_edge(tmp_path: Path) -> None:
    """A finger across a card's side: the outline chosen runs out along the finger's side,
    some 20 px beyond the card's edge, and is no card of the deck; another outline of
    the card, along its own edge, is (``FoundCard.alternatives``)."""
    specs = synth.deck_specs(32, 3)
    rng = np.random.default_rng(129)
    chosen = [specs[int(k)] for k in rng.choice(len(specs), 2, replace=False)]
    photo = synth.photograph([synth.render(s) for s in chosen], rng, cover=0.5)
    synth.write_deck(tmp_path, specs[:8] + chosen, 3)
    deck = Deck.load(tmp_path)
    seen = [c for c in read_cards(photo.image, deck).cards if _corner_error(c.corners, photo.corners[0]) < 15]
    assert [c.name for c in seen] == [chosen[0].name]
    card = min(find_cards(photo.image), key=lambda c: _corner_error(c.corners, photo.corners[0]))
    assert _corner_error(card.corners, photo.corners[0]) > 15
    assert any(_corner_error(a.corners, photo.corners[0]) < 8 for a in card.alternatives)


def test_a_card_whose_side_runs_along_a_fingers_edge_is_outlined_by_its_own(tmp_path: Path) -> None:
    """The benchmark's seed 1, frame 8: a finger across the end of a card's side, whose
    edge steps as the card's does. The outline found runs along the finger's edge for
    that stretch, 21 px inside the card's corner there and turned some 6 degrees from
    its side, so it is no card of the deck, and no line parallel to it is the card's side.
    The card's side, moved out at that end, is one of its other outlines, and named."""
    _assert_named(tmp_path, seed=1, frame=8, unknown_share=0.2, cover=0.15, name="Vault Oak", outlined=True)


def test_a_card_cut_by_fingers_is_outlined_from_a_piece_turned_under_perspective(tmp_path: Path) -> None:
    """The benchmark's seed 6 (half the cards unknown, fingers over 30%), frame 22: two
    fingers across a card leave a piece of its picture as the only outline. The card's
    near short side is turned some 9 degrees from square to the piece's long sides
    (perspective, and one of the piece's short sides is a finger's edge), more than the
    5 degrees a side from straight lines was turned before: the nearest larger outline
    was 14 px off. It is now one of the piece's outlines, and named."""
    _assert_named(tmp_path, seed=6, frame=22, unknown_share=0.5, cover=0.3, name="Vale Stair", outlined=True)


def test_a_card_beside_a_named_part_of_the_outline_round_both_is_named(tmp_path: Path) -> None:
    """The benchmark's seed 5 (half the cards unknown, fingers over 30%), frame 1: a finger
    joins two cards lying side by side into one light region, the one outline found round
    both, and two fingers cut the second card (Shadow Iron) into pieces, each under a
    tenth of the whole, so no part. The first card is named as a part; the whole's sides
    beyond it are Shadow Iron's, and the edge map's lines that close them at about a
    card's size outline it (before, nothing was found within 250 px of it)."""
    _assert_named(tmp_path, seed=5, frame=1, unknown_share=0.5, cover=0.3, name="Shadow Iron")


@pytest.mark.parametrize("frame, name", [(84, "Shadow Throne"), (58, "Stone Den")])
def test_a_card_cut_in_two_pieces_by_fingers_is_outlined_round_both(tmp_path: Path, frame: int, name: str
                                                                     ) -> None:
    """The fresh seed 22 (fingers over 30%; never tuned on): fingers across an art card cut
    its face in two pieces, each outlined on its own and no card, and no straight lines
    beyond either piece close round the card (before, the nearest outline was 101 and 36
    px off). The outline round both pieces, or its own straight lines, is the card's."""
    _assert_named(tmp_path, seed=22, frame=frame, unknown_share=0.2, cover=0.3, name=name)


def _assert_named(tmp_path: Path, *, seed: int, frame: int, unknown_share: float, cover: float,
                  name: str, outlined: bool = False) -> None:
    """In the benchmark's ``frame`` of ``seed``, the card ``name`` is named right (and,
    if ``outlined``, has an outline found or among the others of one found within 6 px
    of its own)."""
    specs = synth.deck_specs(60, seed)
    chosen, photo = next(itertools.islice(
        frames(seed, specs, synth.unknown_specs(20, specs, seed), unknown_share=unknown_share, cover=cover),
        frame, None))
    card = next(i for i, s in enumerate(chosen) if s.name == name)
    if outlined:
        outlines = [o for c in find_cards(photo.image) for o in (c, *c.outlines())]
        assert min(_corner_error(o.corners, photo.corners[card]) for o in outlines) < 6
    synth.write_deck(tmp_path, specs[:8] + [s for s in chosen if s in specs], seed)
    seen = [c for c in read_cards(photo.image, Deck.load(tmp_path)).cards
            if _corner_error(c.corners, photo.corners[card]) < 15]
    assert [c.name for c in seen] == [name]


def test_a_card_crossed_by_two_light_fingers_is_traced_by_its_edge(tmp_path: Path) -> None:
    """Fingers as light as the card, across two of its sides on a dark table, join its
    light region and split its edge outline: the card's quadrilateral is guessed from the
    straight runs of the region's outline as from an edge outline's (before, only the
    inner line of its border was found, or, for one card, nothing that was the card)."""
    specs = synth.deck_specs(32, 3)[:12]
    synth.write_deck(tmp_path, specs, 3)
    deck = Deck.load(tmp_path)
    truth = np.array([[460, 100], [819, 100], [819, 603], [460, 603]], np.float32)
    traced = 0
    for spec in specs:
        table = np.full((720, 1280, 3), (40, 50, 60), np.uint8)
        table[100:604, 460:820] = synth.render(spec)
        for start, end in (((560, 20), (600, 220)), ((700, 700), (740, 480))):
            cv2.line(table, start, end, (140, 170, 215), 44, cv2.LINE_AA)
        cards = read_cards(cv2.GaussianBlur(table, (0, 0), 1.0), deck).cards
        assert [c.name for c in cards] == [spec.name]
        traced += _corner_error(cards[0].corners, truth) < 6
    assert traced >= 10


def test_a_card_cut_in_pieces_by_two_fingers_is_outlined_by_its_straight_sides() -> None:
    """Two fingers across a card leave no closed outline of it: only the piece above them
    (its text panel) is found. Its sides are parallel to the card's, and the card's sides,
    straight lines of the edge map broken by the fingers, give the card's outline as one
    of the piece's other outlines (before, the nearest outline was 80 px off)."""
    specs = synth.deck_specs(32, 3)
    rng = np.random.default_rng(141)
    chosen = [specs[int(k)] for k in rng.choice(len(specs), 2, replace=False)]
    photo = synth.photograph([synth.render(s) for s in chosen], rng, cover=1.0)
    outlines = [o for c in find_cards(photo.image) for o in (c, *c.outlines())]
    assert min(_corner_error(o.corners, photo.corners[0]) for o in outlines) < 6


def test_a_card_in_pieces_under_two_fingers_is_read_once_by_its_name(tmp_path: Path) -> None:
    """Two fingers across an art card: the two pieces of it found were read as two
    unknown cards; now the card is named once, by the outline its straight sides give
    (the other piece lies inside it and is that card)."""
    specs = synth.deck_specs(32, 3)
    rng = np.random.default_rng(170)
    chosen = [specs[int(k)] for k in rng.choice(len(specs), 2, replace=False)]
    photo = synth.photograph([synth.render(s) for s in chosen], rng, cover=1.0)
    synth.write_deck(tmp_path, specs[:8] + chosen, 3)
    reading = read_cards(photo.image, Deck.load(tmp_path))
    assert reading.summary == tuple(sorted(s.name for s in chosen))
    card = next(c for c in reading.cards if c.name == chosen[0].name)
    assert _corner_error(card.corners, photo.corners[0]) < 6


def test_two_cards_edge_to_edge_are_two_cards(tmp_path: Path) -> None:
    specs = synth.deck_specs(32, 3)[:4]
    synth.write_deck(tmp_path, specs, 3)
    deck = Deck.load(tmp_path)
    table = np.full((720, 1280, 3), (60, 110, 40), np.uint8)
    left, right = (synth.render(s) for s in specs[:2])
    table[100:604, 300:660] = left
    table[100:604, 662:1022] = right
    assert sorted(c.name or "?" for c in read_cards(table, deck).cards) == sorted(s.name for s in specs[:2])


def test_a_card_upside_down_is_named_and_its_corners_start_at_its_top_left(tmp_path: Path) -> None:
    specs = synth.deck_specs(32, 3)[:6]
    synth.write_deck(tmp_path, specs, 3)
    deck = Deck.load(tmp_path)
    card = synth.render(specs[0])
    table = np.full((720, 1280, 3), (60, 110, 40), np.uint8)
    for turned in (False, True):
        face = cv2.rotate(card, cv2.ROTATE_180) if turned else card
        frame = table.copy()
        frame[100:604, 400:760] = face
        reading = read_cards(frame, deck)
        assert [c.name for c in reading.cards] == [specs[0].name]
        top_left = (760, 604) if turned else (400, 100)
        assert np.abs(reading.cards[0].corners[0] - top_left).max() < 12


def test_a_frame_without_cards_reads_as_no_cards(tmp_path: Path) -> None:
    specs = synth.deck_specs(32, 1)[:4]
    synth.write_deck(tmp_path, specs, 1)
    deck = Deck.load(tmp_path)
    empty = synth.background("wood", (1280, 720), np.random.default_rng(1))
    reading = read_cards(empty, deck)
    assert reading.cards == ()
    assert reading.summary == ()


def test_a_deck_taught_from_soft_photos_reads_a_sharper_camera_under_another_light(
        tmp_path: Path) -> None:
    """Each card taught from one soft phone photo (blurred by some 1.7 face pixels, more
    than the table camera's), read under a cool light: no card misnamed, all but one named
    (how the faces are made alike: ``test_face.py``; the benchmark's ``--teach-blur`` and
    ``--cast`` measure it on more frames)."""
    specs = synth.deck_specs(32, 7)
    synth.write_deck(tmp_path, specs, 7)
    for photo_file in tmp_path.glob("*/*.jpg"):
        cv2.imwrite(str(photo_file), cv2.GaussianBlur(cv2.imread(str(photo_file)), (0, 0), 6))
    deck = Deck.load(tmp_path)
    rng = np.random.default_rng(14)
    right = known = 0
    for _ in range(6):
        chosen = [specs[int(k)] for k in rng.choice(len(specs), 4, replace=False)]
        photo = synth.photograph([synth.render(s) for s in chosen], rng, harsh=False)
        cool = np.clip(photo.image * np.array([1.15, 1.0, 0.8]), 0, 255).astype(np.uint8)
        reading = read_cards(cool, deck)
        for spec, corners in zip(chosen, photo.corners):
            seen = [c for c in reading.cards if _corner_error(c.corners, corners) < 15]
            name = seen[0].name if seen else None
            assert name in (spec.name, None), (spec.name, name)
            known += 1
            right += name == spec.name
    assert right >= known - 1, (right, known)


def test_an_art_card_with_a_finger_over_its_text_is_named_by_its_picture(tmp_path: Path) -> None:
    """A finger across an art card's lines of text hides words that recur on other cards
    (a slot of the deck, as a rune is); the card's own picture still shows, and a card
    not in the deck would have a picture of its own: it is named (two were unknown)."""
    specs = synth.deck_specs(32, 3)
    synth.write_deck(tmp_path, specs, 3)
    deck = Deck.load(tmp_path)
    for spec in (s for s in specs if s.family == "art"):
        table = np.full((720, 1280, 3), (40, 50, 60), np.uint8)
        table[100:604, 460:820] = synth.render(spec)
        cv2.line(table, (400, 470), (640, 474), (140, 170, 215), 40, cv2.LINE_AA)
        assert read_cards(cv2.GaussianBlur(table, (0, 0), 1.0), deck).names == (spec.name,)


def test_a_card_not_in_the_deck_seen_whole_is_not_named_again_from_other_outlines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An untaught look-alike (one rune the other way) in full view lines up with the deck
    card and shows another rune there: it is plainly another card, outlined well
    (``Match.another_card``), and its other outlines, which would show the same, are not
    worked out and named (where half the cards are unknown, that took a sixth of the
    time)."""
    specs = synth.deck_specs(16, 4)
    synth.write_deck(tmp_path, specs, 4)
    deck = Deck.load(tmp_path)
    taught = {s.name for s in specs}
    alikes = [a for s in specs[:6] for a in synth.look_alikes(s)[:1] if a.name not in taught]
    asked: list[FoundCard] = []
    outlines = FoundCard.outlines

    def counted(card: FoundCard) -> tuple[FoundCard, ...]:
        asked.append(card)
        return outlines(card)

    monkeypatch.setattr(FoundCard, "outlines", counted)
    rng = np.random.default_rng(5)
    outlined = 0
    for spec in alikes:
        photo = synth.photograph([synth.render(spec)], rng, cover=0.0, harsh=False)
        cards = read_cards(photo.image, deck).cards
        assert all(c.name is None for c in cards), spec.name
        if any(_corner_error(c.corners, photo.corners[0]) < 4 for c in cards):
            outlined += 1
            assert not [a for a in asked if _corner_error(a.corners, photo.corners[0]) < 4], spec.name
        asked.clear()
    assert outlined >= 4


def test_a_card_half_inside_the_outline_round_two_cards_is_named(tmp_path: Path) -> None:
    """The benchmark's seed 2 (fingers over 30%), frame 80: one outline runs round two
    cards, and a third of the second card (FFF-RFF-FRF) sticks out of it, a finger over
    its edge. Its own outline overlaps the larger one by half, so it was dropped, and
    was no part of it (only outlines 70% inside were): the card was not found. Every
    outline dropped for lying half inside another may now be a part of it, and an
    outline of the same card as a part is that part's alternative however little of it
    lies inside."""
    _assert_named(tmp_path, seed=2, frame=80, unknown_share=0.2, cover=0.3, name="FFF-RFF-FRF")


def test_a_look_alike_at_the_edge_of_its_family_is_unknown_with_its_telling_rune_covered(
        tmp_path: Path) -> None:
    """Seed 22's deck (as in its benchmark frame 92): FFR-FFF-FFR, not in the deck, with
    the rune that tells it from FRR-FFF-FFR (the first set's middle) under a finger. Of
    FRR-FFF-FFR's few look-alikes by signature only one shows F there, so the rune was
    taken for no slot, its being hidden was never asked about, and the card was named
    FRR-FFF-FFR. Eleven cards of the deck show F there: judged against every card of the
    layout it is a slot, and hidden, the card is unknown."""
    seed = 22
    specs = synth.deck_specs(60, seed)
    synth.write_deck(tmp_path, specs, seed)
    deck = Deck.load(tmp_path)
    alike = next(s for s in synth.unknown_specs(20, specs, seed) if s.name == "FFR-FFF-FFR")
    card = next(s for s in specs if s.name == "FRR-FFF-FFR")

    w, h = synth.CARD_SIZE

    def face(spec: synth.CardSpec) -> np.ndarray:
        return seen_card(synth.render(spec), np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float32))

    # A fingertip over the first set's middle rune (120 pixels down the card as drawn).
    finger = np.zeros(SIZE[::-1], np.uint8)
    cv2.circle(finger, (SIZE[0] // 2, round((120 / h - MARGIN) / (1 - 2 * MARGIN) * SIZE[1])), 12, 1, -1)
    covered = face(alike)
    covered[finger > 0] = (120, 150, 200)
    assert deck.identify(face(card)).name == card.name
    assert deck.identify(covered, finger > 0).name is None
