"""Deck folders, bad input, the game meaning of cards, the overlay and the command line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import synth
from vision.cards.cli import main
from vision.cards.deck import CAP, SIZE, Deck, DeckError, _Slots, _Source
from vision.cards.face import Face
from vision.cards.meaning import card_action
from vision.cards.overlay import draw_cards
from vision.cards.reading import read_cards


@pytest.fixture
def deck_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "deck"
    synth.write_deck(folder, synth.deck_specs(32, 2)[:5], 2)
    return folder


def test_a_missing_or_empty_deck_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="does not exist"):
        Deck.load(tmp_path / "nope")
    with pytest.raises(DeckError, match="holds no card folders"):
        Deck.load(tmp_path)


def test_unreadable_photos_are_skipped_with_a_warning(deck_dir: Path) -> None:
    bad = deck_dir / "Broken Card"
    bad.mkdir()
    (bad / "1.jpg").write_bytes(b"not a jpeg at all")
    deck = Deck.load(deck_dir)
    assert "Broken Card" not in deck.names and len(deck.names) == 5
    assert any("1.jpg: not a readable image" in w for w in deck.warnings)
    assert any("'Broken Card' has no usable photo" in w for w in deck.warnings)


def test_a_deck_of_only_unreadable_photos_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "A").mkdir()
    (tmp_path / "A" / "a.png").write_bytes(b"\x89PNG broken")
    with pytest.raises(DeckError, match="no card has a usable photo"):
        Deck.load(tmp_path)


def test_two_names_for_the_same_card_are_warned_of(deck_dir: Path) -> None:
    first = sorted(p for p in deck_dir.iterdir())[0]
    shutil.copytree(first, deck_dir / "Same Again")
    deck = Deck.load(deck_dir)
    assert any("Same Again" in w and "cannot be told apart" in w for w in deck.warnings)


def test_distinct_cards_raise_no_warning(deck_dir: Path) -> None:
    assert Deck.load(deck_dir).warnings == []


def test_reading_summary_and_json(deck_dir: Path) -> None:
    deck = Deck.load(deck_dir)
    specs = synth.deck_specs(32, 2)[:2]
    photo = synth.photograph([synth.render(s) for s in specs], np.random.default_rng(4), harsh=False)
    reading = read_cards(photo.image, deck)
    assert reading.summary == tuple(sorted(s.name for s in specs))
    card = reading.to_json()["cards"][0]
    assert set(card) == {"name", "corners", "confidence"} and len(card["corners"]) == 4
    drawn = draw_cards(photo.image, reading)
    assert drawn.shape == photo.image.shape and not np.array_equal(drawn, photo.image)


@pytest.mark.parametrize(("name", "kind", "text"), [
    ("RFR-RRF-FFR", "lokis-chosen", "card=RFR,RRF,FFR"),
    ("rfr rrf", "lokis_chosen", "card=RFR,RRF"),
    ("FFR", "heros-fate", "fate=FFR"),
    ("ritual grounds", "locations", 'travel to="Ritual Grounds"'),
])
def test_card_names_map_to_action_text(name: str, kind: str, text: str) -> None:
    assert card_action(name, kind) == text


@pytest.mark.parametrize(("name", "kind", "message"), [
    ("RXR-RRF", "lokis-chosen", "three letters R or F"),
    ("RFR-RRF", "heros-fate", "one rune set"),
    ("Nowhere", "locations", "unknown Location 'Nowhere'"),
    ("RFR", "tarot", "unknown deck kind"),
])
def test_meaningless_names_are_clear_errors(name: str, kind: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        card_action(name, kind)


def test_cli_teaches_a_deck_and_reads_a_photo_as_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    specs = synth.deck_specs(32, 5)[:4]
    rng = np.random.default_rng(5)
    for spec in specs:
        photo = synth.photograph([synth.render(spec)], rng, size=(960, 720), card_height=(420, 560),
                                 tilt=0.04, harsh=False)
        path = tmp_path / f"{spec.name}.jpg"
        cv2.imwrite(str(path), photo.image)
        assert main(["teach-card", str(tmp_path / "deck"), spec.name, str(path)]) == 0
    table = synth.photograph([synth.render(s) for s in specs[:2]], rng, names=[s.name for s in specs[:2]],
                             harsh=False)
    frame = tmp_path / "table.jpg"
    cv2.imwrite(str(frame), table.image)
    capsys.readouterr()
    assert main(["card", str(frame), "--deck", str(tmp_path / "deck"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["image"] == str(frame) and result["ms"] > 0
    assert sorted(c["name"] for c in result["cards"]) == sorted(table.names)


def test_cli_reports_bad_input_without_crashing(tmp_path: Path, deck_dir: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["card", "x.jpg", "--deck", str(tmp_path / "empty")]) == 2
    assert "does not exist" in capsys.readouterr().err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 90, np.uint8))
    assert main(["card", str(tmp_path / "missing.jpg"), str(blank), "--deck", str(deck_dir), "--json"]) == 1
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["error"] == "not a readable image"
    assert lines[1]["cards"] == [] and lines[1]["note"] == "no card found in the image"


def test_where_two_look_alikes_differ_is_split_into_slots_and_their_own_prints() -> None:
    """A patch where other cards of the deck show each of the two prints is a slot; one
    where none shows either is the two cards' own; the patches a card seen is asked about
    are worked out once, when the deck is loaded."""
    mine = np.zeros(SIZE[::-1], np.float32)
    theirs = mine.copy()
    difference = mine.copy()
    slot, picture = (slice(20, 31), slice(20, 31)), (slice(80, 91), slice(50, 61))
    for patch in (slot, picture):
        theirs[patch] = 1.0
        difference[patch] = 2.0
    shows_theirs, shows_mine, plain = theirs.copy(), mine.copy(), mine.copy()
    for other in (shows_theirs, shows_mine, plain):
        other[picture] = 5.0  # no other card shows either picture
    slots = _Slots.of(1, theirs, mine, difference, [shows_theirs, shows_mine, plain],
                      _Source(0, False, np.eye(3, dtype=np.float32)))
    assert slots.slots.tolist() == [1] and slots.own.tolist() == [2]
    assert slots.every.tolist() == [1, 2] and slots.told.tolist() == [1]
    assert len(slots.where) == 2 * 11 * 11
    # The example's own print there, shown by no other card, is its mark; a picture only
    # in a layout of pictures (pictured).
    assert slots.marks.tolist() == [2] and slots.pictures.tolist() == [2]


def test_a_mark_only_the_example_shows_counts_as_its_picture_in_a_layout_of_pictures() -> None:
    """A patch where the look-alike's print recurs on other cards but the example's on
    none is the example's mark: its picture when the layout is one of pictures
    (:meth:`_Slots.pictured`), not otherwise (a rune no other card shows there)."""
    mine = np.zeros(SIZE[::-1], np.float32)
    theirs = mine.copy()
    difference = mine.copy()
    mark = (slice(80, 91), slice(50, 61))
    mine[mark] = 1.0
    difference[mark] = 2.0
    slots = _Slots.of(1, theirs, mine, difference, [theirs.copy(), theirs.copy(), theirs.copy()],
                      _Source(0, False, np.eye(3, dtype=np.float32)))
    assert slots.own.tolist() == [] and slots.slots.tolist() == [] and slots.marks.tolist() == [1]
    seen = mine.copy()
    covered = np.zeros(SIZE[::-1], bool)
    weight = np.ones(SIZE[::-1], np.float32)
    assert not slots.own_shown(seen, covered, weight)
    assert slots.pictured().own_shown(seen, covered, weight)
    assert not slots.pictured().own_shown(theirs, covered, weight)


def test_signatures_compared_over_the_cells_that_count_give_the_distances_of_all_cells() -> None:
    """The deck compares a signature only over the cells that count (the rim's weigh
    nothing): every card's distance, both ways up, is the one the weighted sum over all
    cells gives, to the bit, for cards of the deck and others, seen a little off."""
    specs = synth.deck_specs(32, 2)
    faces = {s.name: [Face.of(cv2.resize(synth.render(s), SIZE, interpolation=cv2.INTER_AREA))] for s in specs[:6]}
    deck = Deck(faces)
    sigs = np.stack([face.signature for name in deck.names for face in faces[name]])
    both = np.stack([sigs, sigs[:, ::-1]])
    rng = np.random.default_rng(0)
    for spec in specs[:12]:
        seen = Face.of(cv2.resize(synth.render(spec), SIZE, interpolation=cv2.INTER_AREA)).signature
        seen = (seen + rng.normal(0, 0.1, seen.shape)).astype(np.float32)
        diff = both - seen[None, None]
        plain = np.minimum(np.einsum("wecf,wecf->wec", diff, diff), CAP) @ deck._weights
        shortlist = deck._shortlist(seen, len(deck.names), float("inf"))
        assert len(shortlist) == len(deck.names)
        for _, example, turned, distance in shortlist:
            assert distance == float(plain[int(turned), example]), spec.name
