"""The generator's ground truth of whether a covered card can be named at all
(``synth.indistinct``), which the benchmark uses to tell a reader's failure from a card
nobody could name."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.vision_cards import main
from vision.cards import synth

CARD = synth.CardSpec("RRR-FRF-RFF", "runes", 5)
# Every card of a mixed deck, and the card's own look-alikes (one rune the other way).
OTHERS = [*synth.deck_specs(60, 3), *synth.look_alikes(CARD)]


def _covered(x0: int, y0: int, x1: int, y1: int) -> np.ndarray:
    """A mask of the card's picture, True over the box (as a finger would be)."""
    w, h = synth.CARD_SIZE
    hidden = np.zeros((h, w), bool)
    hidden[y0:y1, x0:x1] = True
    return hidden


# The first rune (top row, left), R: its loop and leg, all that tells it from F, lie in
# x 76-110, y 84-156 (strokes 7 px wide), its leg's end at the bottom.
FIRST_RUNE = (60, 78, 116, 162)


def test_a_rune_card_with_its_telling_rune_covered_is_hidden() -> None:
    seen_as = synth.indistinct(CARD, _covered(*FIRST_RUNE), OTHERS)
    assert [s.name for s in seen_as] == ["FRR-FRF-RFF"]


def test_the_same_card_with_a_corner_covered_is_identifiable() -> None:
    w, h = synth.CARD_SIZE
    assert synth.indistinct(CARD, _covered(w - 90, h - 90, w, h), OTHERS) == []


def test_an_uncovered_card_is_identifiable() -> None:
    w, h = synth.CARD_SIZE
    assert synth.indistinct(CARD, np.zeros((h, w), bool), OTHERS) == []


@pytest.mark.parametrize(("showing", "hidden"), [(1, True), (4, False), (20, False)])
def test_a_strokes_end_shows_unless_only_a_smudge_of_it_does(showing: int, hidden: bool) -> None:
    # The R's leg's end uncovered, ``showing`` rows of it: 1 row (9 px) is less than a
    # photo resolves; 4 rows (38 px) are a dot of ink beside the finger, 20 a stroke.
    x0, y0, x1, y1 = FIRST_RUNE
    seen_as = synth.indistinct(CARD, _covered(x0, y0, x1, 156 - showing), OTHERS)
    assert bool(seen_as) is hidden


def test_the_benchmark_gives_both_figures(capsys: pytest.CaptureFixture[str]) -> None:
    main(["--frames", "3", "--seed", "5", "--cover", "1"])
    out = capsys.readouterr().out
    assert "known cards: " in out
    assert "identifiable known cards named right: " in out
    assert "hidden cards (what tells them from another card covered): named right " in out
