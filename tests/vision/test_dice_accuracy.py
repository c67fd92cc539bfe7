"""Accuracy per die, on real webcam photos and on rendered sets it was not tuned on.

The floors are the figures measured when they were set, rounded down a little: they guard
against regressions. The goal is 99 % read right on every set; where a floor is below it,
docs/vision.md says why (its open gaps). The benchmark measures larger sets.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.vision_dice import (PIP_NAMES, WEBCAM, corrected, rendered_set, score, turned_set,
                                    unseen, webcam_errata, webcam_set)
from tests.vision.conftest import RUNE_STYLE
from vision.cli import main
from vision.dice.faces import TaughtFaces, face_shapes
from vision.dice.find import find_blobs, pip_side
from vision.dice.reader import DiceReader
from vision.dice.render import DIE_STYLES, Scene, render_scene, write_face_folder
from vision.evaluate import Labelled, Score, match, read_yolo


def test_webcam_photos() -> None:
    result, _ = score(DiceReader(), webcam_set(WEBCAM / "Valid"))
    assert result.truths == 256  # (255 labels, and one die left unlabelled: see the errata)
    assert result.recall >= 0.995
    assert result.precision >= 0.99
    assert result.accuracy >= 0.995


def test_webcam_training_photos() -> None:
    """The photos the reader was tuned on, with their clutter (a laptop, cables, a basket):
    what is read is nearly always a die (laptop keys passed for 1s: precision 98.3%)."""
    result, _ = score(DiceReader(), webcam_set(WEBCAM / "Train"))
    assert result.truths == 950  # (951 labels, one of them no die: see the errata)
    assert result.recall >= 0.99
    assert result.precision >= 0.99
    assert result.accuracy >= 0.99  # (98.8% before dice far off were read at their own size)


def test_webcam_photos_mirrored() -> None:
    """Nothing assumes which way left and right lie: mirrored, the photos read as upright.
    (Turned a quarter or half turn they do not: docs/vision.md, open gaps.)"""
    result, _ = score(DiceReader(), turned_set(webcam_set(WEBCAM / "Valid"), "mirrored"))
    assert result.truths == 256
    assert result.recall >= 0.995
    assert result.precision >= 0.99
    assert result.accuracy >= 0.995


@pytest.mark.parametrize(("size", "floor"), [((1280, 720), 0.985), ((640, 480), 0.98)])
def test_rendered_pip_dice(size: tuple[int, int], floor: float) -> None:
    result, _ = score(DiceReader(), rendered_set(range(500, 516), width=size[0], height=size[1]))
    assert result.truths > 100
    assert result.precision >= 0.99
    assert result.recall >= 0.98
    assert result.accuracy >= floor


def test_the_benchmark_scores_held_out_seeds(rune_faces: TaughtFaces) -> None:
    """``--unseen`` scores sets on seeds no rule was tuned on, by name and seeds (checked
    here on one scene each: the figures are the benchmark's to print)."""
    sets = unseen(DiceReader(), DiceReader(rune_faces), scenes=1)
    assert [name for name, _ in sets] == [
        "rendered pip dice, 640×480, seeds 9100-9100", "rendered pip dice, 1280×720, seeds 9000-9000",
        "rendered Runecast dice, 640×480, seeds 9100-9100"]
    assert all(result.truths > 0 for _, result in sets)


def test_every_die_colour_reads() -> None:
    """White, ivory, red, black, blue, green, yellow, red pips on white, purple: on trays
    they stand out from, lone dice, tilted up to 30° (side faces showing)."""
    reader, total = DiceReader(), Score()
    for style in DIE_STYLES:
        result, _ = score(reader, rendered_set(range(720, 724), count=6, style=style,
                                               touching=0.0, width=960, height=540))
        assert result.accuracy >= 0.95, style.name
        total = total.add(result)
    assert total.accuracy >= 0.99
    assert total.precision >= 0.99


# 640×480: 0.925 while a small die's edge joined its symbol, 0.981 while marks did not
# reach into fainter ink (105 of 106 read right now).
@pytest.mark.parametrize(("size", "floor"), [((1280, 720), 0.98), ((640, 480), 0.985)])
def test_rendered_rune_dice_with_taught_faces(rune_faces: TaughtFaces, size: tuple[int, int],
                                              floor: float) -> None:
    result, _ = score(DiceReader(rune_faces),
                      rendered_set(range(600, 616), kind="runes", style=RUNE_STYLE, width=size[0],
                                   height=size[1]))
    assert result.truths > 100
    assert result.precision >= 0.985
    assert result.accuracy >= floor
    # Doubtful dice are reported unknown, not guessed: nearly every matched die read is right.
    assert result.correct >= result.matched - result.unknown - 2


def _scored(scene: Scene) -> Score:
    """The pip reader's score on one rendered scene, against its dice."""
    result, _ = score(DiceReader(), iter([(scene.image, [Labelled(d.face, d.box) for d in scene.dice])]))
    return result


def _faces_read_on(faces: TaughtFaces | None, scene: Scene, die: int) -> list[str]:
    """The faces read within half a die of the scene's die ``die``: one, if it is read
    (``faces`` None: pips)."""
    target = scene.dice[die]
    side = max(target.box[2:])
    return [d.face for d in DiceReader(faces).read(scene.image).dice
            if np.hypot(d.centre[0] - target.centre[0], d.centre[1] - target.centre[1]) < 0.5 * side]


@pytest.mark.parametrize("seed", [3085, 3089])
def test_a_tree_whose_branches_run_together_reads(rune_faces: TaughtFaces, seed: int) -> None:
    """A small tree (a die some 60 px a side, tilted) whose branches run together in its
    ink: cut out stretched so that its ink spread evenly, it came out skewed, like no face,
    and read unknown. It is the scene's second die."""
    scene = render_scene(seed, kind="runes", style=RUNE_STYLE)
    assert scene.dice[1].face == "tree"
    assert _faces_read_on(rune_faces, scene, 1) == ["tree"]


@pytest.mark.parametrize(("seed", "die", "face"), [(5033, 5, "tree"), (5079, 3, "snake"),
                                                   (5097, 0, "snake")])
def test_a_crisp_small_die_reads(rune_faces: TaughtFaces, seed: int, die: int, face: str) -> None:
    """A sharp die some 40-50 px a side (640×480): its edge, a line of marks a few pixels
    from its symbol, was joined to the symbol when marks were joined across a tenth of a
    die, and the die read unknown."""
    scene = render_scene(seed, kind="runes", style=RUNE_STYLE, width=640, height=480)
    assert scene.dice[die].face == face
    assert _faces_read_on(rune_faces, scene, die) == [face]


@pytest.mark.parametrize("seed", [2005, 2081])
def test_neighbouring_pips_are_no_face_of_their_own(seed: int) -> None:
    """Two pips next to each other on a face, read as a 2, make a face under half a die's
    size: a yellow 6's two pips read so left the rest unknown, and a black 3's front face
    gave a 2 more (640×480, dice 30-40 px)."""
    result, _ = score(DiceReader(), rendered_set(range(seed, seed + 1), width=640, height=480))
    assert result.correct == result.truths == result.detections


def test_a_3_is_not_read_as_the_2_of_its_close_pips() -> None:
    """A white 3 seen at 30° of tilt, touching a 5: two of its pips, a step apart, read as a
    2 half the face's size. It is the scene's fourth die."""
    scene = render_scene(4014, count=32)
    assert scene.dice[3].face == "3"
    assert _faces_read_on(None, scene, 3) == ["3"]


@pytest.mark.parametrize(("seed", "die"), [(9340, 4), (9540, 1)])
def test_a_small_3_tilted_is_plain_out_to_its_face_not_its_edge(seed: int, die: int) -> None:
    """640×480 (held-out check seeds): a 3 some 33 px a side tilted 20-30°, its blurred pips
    measured round. Its face's other diagonal, guessed from their shapes, was too long, so
    the face sampled 1.6 steps out met its darker rounded edge and the front face, was not
    plain, and its middle pip was read as a 1."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == "3"
    assert _faces_read_on(None, scene, die) == ["3"]


def test_a_die_in_front_of_a_side_face_is_read() -> None:
    """A black 5 on paper, tilted 27°, below and to the side of a flatter 2, the side face
    of a die behind it: the 5 was dropped as that 2's front face. It is the scene's sixth
    die."""
    scene = render_scene(1014)
    assert scene.dice[5].face == "5"
    assert _faces_read_on(None, scene, 5) == ["5"]


def test_glare_between_a_6s_columns_is_no_pip() -> None:
    """A blue 6 on felt with a glare spot on its middle column, pip-like and 0.57 as strong
    as its pips: while a mark there over half as strong counted against the 6, its top
    face was read as a 3. It is the scene's 19th die."""
    scene = render_scene(4011, count=32)
    assert scene.dice[18].face == "6"
    assert _faces_read_on(None, scene, 18) == ["6"]


@pytest.mark.parametrize(("seed", "die", "face"), [(2038, 9, "3"), (2039, 7, "4")])
def test_a_pip_with_glare_beside_it_is_read_with_its_face(seed: int, die: int, face: str) -> None:
    """Green dice at 640×480 (dice 40-50 px) with a glare spot joined to one pip on one
    side: measured with it, that pip was larger and flatter than its face's others and was
    left out, so that a 3 in a cluster was read as a 1 and a 4 tilted 25° as unknown."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


@pytest.mark.parametrize(("seed", "die", "face"), [(2075, 4, "1"), (2008, 3, "2")])
def test_a_light_mark_fainter_than_a_pip_is_no_pip_of_its_face(seed: int, die: int, face: str) -> None:
    """640×480. A glare spot on a green 1, round and 0.7 as strong as its pip, made a face
    with it (read `unknown`); purple dice tilted 25° and touching, their front faces'
    pips shaded to 0.6 of the top faces', made faces with them (a 2 not read at all, and
    three readings of no die)."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


def test_two_pips_joined_by_glare_are_cut_between_their_paint() -> None:
    """A green 6 tilted 26° at 640×480 (dice 32 px, pips 5 px), glare joining two pips of
    a row and lying below one of them: cut where the mark's response dips, a pixel off the
    middle, one half kept the glare between them, too flat to be a pip, and the cut was
    undone (the 6 read `unknown`). It is the scene's first die."""
    scene = render_scene(2085, width=640, height=480)
    assert scene.dice[0].face == "6"
    assert _faces_read_on(None, scene, 0) == ["6"]


@pytest.mark.parametrize(("seed", "die", "face"), [(2072, 2, "3"), (2072, 6, "6")])
def test_a_pip_with_glare_all_round_it_is_read_with_its_face(seed: int, die: int, face: str) -> None:
    """Red dice on felt at 640×480 with glare all round a pip: measured with it, that pip
    was larger than its face's others and was left out (a 3 read as a 1, a 6 as a 3)."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


@pytest.mark.parametrize(("seed", "die", "face"), [(4001, 20, "1"), (4001, 24, "2"), (4012, 4, "2")])
def test_touching_dice_in_a_crowded_frame_are_read(seed: int, die: int, face: str) -> None:
    """Frames of 32 dice. Purple dice on paper, a 1 touching a 2 below it: the 1's pip
    and the 2's upper pip, a faint seam between them, made a 2 as good as the 2's own
    pips. Purple dice on cloth, tilted 26° and blurred: a 2 beside another, its pips
    flatter but squashed as a top face's are, was dropped as that die's side face."""
    scene = render_scene(seed, count=32)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


@pytest.mark.parametrize(("seed", "die", "face"), [(6134, 0, "2"), (6134, 1, "6"), (6134, 2, "2"),
                                                   (6134, 3, "4"), (6079, 5, "4"), (6079, 8, "4")])
def test_touching_dice_are_read_by_their_unbroken_faces(seed: int, die: int, face: str) -> None:
    """640×480, dice touching. Red dice on felt, a 4, a 2 and a 6 in a row, another 2
    above the 6; black 4s on wood, each touching another die. A 2's or a 4's pips a
    diagonal apart (0.74 of a die) lay beyond a face's reach of the die as estimated, so
    each pip proposed only part of its face: the 4s were read as 2s, and the 2s as 1s.
    The face between a face's own pips does not dip at all, whatever their distance."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


@pytest.mark.parametrize(("die", "face"), [(0, "3"), (2, "3"), (4, "1")])
def test_a_face_proposed_only_as_unbroken_leaves_the_rest_split(die: int, face: str) -> None:
    """640×480: green dice on cloth, eight touching in one blob, tilted 22°. A 1's pip
    and a 3's, the face unbroken between them, made a 2 as sure as any face; taken as
    surely a face, it left the pips round it unsplit, and a 1 and two 3s were lost (read
    right before faces were proposed as unbroken, and since)."""
    scene = render_scene(7071, count=8, width=640, height=480, touching=0.9, tilt=22.0)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


def test_a_top_face_left_after_a_side_face_is_read() -> None:
    """640×480: white dice on cloth, eight touching in one blob, tilted 22°. Its faces are
    taken out one at a time; the last, a side face's lone pip (flat), left only a 1's
    pip, round and so unlike it, and reading stopped there: the 1 was not found. It is
    the scene's fifth die."""
    scene = render_scene(7079, count=8, width=640, height=480, touching=0.9, tilt=22.0)
    assert scene.dice[4].face == "1"
    assert _faces_read_on(None, scene, 4) == ["1"]


@pytest.mark.parametrize(("die", "face"), [(3, "2"), (4, "1")])
def test_a_seam_right_beside_a_pip_tells_two_faces_apart(die: int, face: str) -> None:
    """640×480: two purple dice on slate, tilted 27°, a 2 above a 1, touching. The seam
    between them lies right beside the 2's lower pip, in the margin round a pip where dips
    are not looked for: that pip and the 1's made a 2 as sure as the 2's own pips, and
    were read so (the 2 read as a 1, the 1 as a 2)."""
    scene = render_scene(2037, width=640, height=480)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


@pytest.mark.parametrize(("die", "face"), [(12, "2"), (14, "6"), (17, "4"), (22, "3"), (29, "2"),
                                          (31, "2")])
def test_dark_dice_amid_a_crowd_on_dark_felt_are_read(die: int, face: str) -> None:
    """Black dice on blue felt, 32 a frame: a cluster of six, two 2s touching beside it and
    more dice round them filled most of the neighbourhood whose median is the tray's
    colour there, so the estimate came out nearly black, the felt round the cluster stood
    out and the black dice inside it were taken for the tray. Its 2 and 4 were not found,
    its 6 read as a 4 and its 3 as a 1, and the two 2s as 1s."""
    scene = render_scene(4010, count=32)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


@pytest.mark.parametrize(("seed", "die"), [(4014, 16), (4019, 8)])
def test_a_1_in_front_of_another_die_is_read(seed: int, die: int) -> None:
    """A white 1 on wood and a yellow 1 in a pile on cloth, 32 dice a frame, each just
    below another die's top face and flatter, were taken for that die's front face; below
    each lies its own front face (a 2), and a front face shows none of its die below it."""
    scene = render_scene(seed, count=32)
    assert scene.dice[die].face == "1"
    assert _faces_read_on(None, scene, die) == ["1"]


@pytest.mark.parametrize(("die", "face"), [(19, "snake"), (28, "tree")])
def test_yellow_dice_amid_a_crowd_are_read(rune_faces: TaughtFaces, die: int, face: str) -> None:
    """Yellow Runecast dice on felt, 32 a frame, in clusters that pulled the tray's colour
    towards theirs (as black dice on felt do, above): a snake and a tree in them were not
    found."""
    scene = render_scene(4014, count=32, kind="runes", style=RUNE_STYLE)
    assert scene.dice[die].face == face
    assert _faces_read_on(rune_faces, scene, die) == [face]


@pytest.mark.parametrize(("seed", "die"), [(4016, 9), (4019, 1)])
def test_a_tilted_die_beside_a_flat_one_is_read(rune_faces: TaughtFaces, seed: int, die: int) -> None:
    """A tree die tilted against a snake die (32 a frame), its top face seen squashed to
    0.66-0.74 where the snake's is 0.86-0.94: read sure at 1.0, it was dropped as the
    snake's side face, which must be as little squashed within 0.15. A shape that reads
    fully sure, with a top face's ink and one symbol's spread, is a top face."""
    scene = render_scene(seed, count=32, kind="runes", style=RUNE_STYLE)
    assert scene.dice[die].face == "tree"
    assert _faces_read_on(rune_faces, scene, die) == ["tree"]


@pytest.mark.parametrize("die", [6, 25])
def test_a_tree_run_into_a_seam_beside_it_is_read(rune_faces: TaughtFaces, die: int) -> None:
    """A tree in a cluster (32 a frame) whose branches lie a pixel or two from the dark
    seam between touching dice: joined across such gaps, tree and seam were one shape
    spreading a third of the die, like no face (hammer 0.49-0.5), and the die was missed.
    Such a shape is joined again across narrower gaps, and the tree reads on its own."""
    scene = render_scene(4014, count=32, kind="runes", style=RUNE_STYLE)
    assert scene.dice[die].face == "tree"
    assert _faces_read_on(rune_faces, scene, die) == ["tree"]


@pytest.mark.parametrize(("seed", "die", "face"), [(5020, 4, "hammer"), (5020, 3, "tree"),
                                                   (5039, 10, "snake"), (5061, 0, "tree"),
                                                   (5099, 2, "tree")])
def test_a_blurred_small_die_keeps_its_thin_strokes(rune_faces: TaughtFaces, seed: int, die: int,
                                                    face: str) -> None:
    """A blurred die some 40-50 px a side (640×480), some under glare: its thin strokes (a
    hammer's handle, a tree's branches, a snake's tail) peak under half its thick ones, and
    broke off the symbol when marks were only what stands out by half the strongest. The
    hammer was not read at all, the rest `unknown`."""
    scene = render_scene(seed, kind="runes", style=RUNE_STYLE, width=640, height=480)
    assert scene.dice[die].face == face
    assert _faces_read_on(rune_faces, scene, die) == [face]


def _faces_read_near(faces: TaughtFaces, scene: Scene, die: int) -> list[str]:
    """The faces read within one die of the scene's die ``die``, alone on the tray there:
    only its own, if its side faces are told from top faces."""
    target = scene.dice[die]
    side = max(target.box[2:])
    return [d.face for d in DiceReader(faces).read(scene.image).dice
            if np.hypot(d.centre[0] - target.centre[0], d.centre[1] - target.centre[1]) < side]


def test_a_side_face_with_thin_strokes_is_no_die(rune_faces: TaughtFaces) -> None:
    """A tilted tree die (1280×720) shows a snake on its side face. Marks reaching into
    fainter ink give its thin, foreshortened strokes more ink, in share, than the top
    face's: weighed with it, the snake had over 0.4 of the tree's ink and was read as a
    die of its own, sure at 1.0. Ink is weighed as what stands out by half the strongest."""
    scene = render_scene(3015, kind="runes", style=RUNE_STYLE)
    assert _faces_read_near(rune_faces, scene, 0) == ["tree"]


def test_a_blurred_front_face_is_no_die(tmp_path: Path) -> None:
    """A blurred blue snake die (640×480) shows a hammer on its front face; its blob, blurred,
    ends a little over half a die below that face, and the hammer (its strokes whole now
    that marks reach into fainter ink) was read as a die of its own, sure at 1.0."""
    blue = next(style for style in DIE_STYLES if style.name == "blue")
    faces = TaughtFaces.load(write_face_folder(tmp_path, seed=7, style=blue))
    scene = render_scene(6016, kind="runes", style=blue, width=640, height=480)
    assert _faces_read_near(faces, scene, 1) == ["snake"]


def test_a_black_die_is_taught_by_its_body_not_its_symbol(tmp_path: Path) -> None:
    """Teaching photos of one black hammer die (white symbol) on dark wood: the die stands
    out from the wood a quarter as much as its symbol, the split between tray and dice
    fell between the two, and the die's size was learnt from its symbol (31-34 px, where
    the die is about 130): no die was found, and two of the three photos taught nothing."""
    black = next(style for style in DIE_STYLES if style.name == "black")
    folder = write_face_folder(tmp_path, seed=7, style=black, faces=("hammer",))
    for path in sorted((folder / "hammer").glob("*.jpg")):
        image = cv2.imread(str(path))
        assert find_blobs(image).side > 100, path.name
        assert face_shapes(image), path.name


def test_black_dice_on_dark_wood_are_found_by_their_bodies(tmp_path: Path) -> None:
    """Four black dice with white symbols on dark wood, taught from black dice: their
    bodies stand out from the wood by under the faintest difference counted, their symbols
    were taken for the dice (a die 12 px a side at 640×480, 25 at 1280×720), and one die
    was read of four (none right at 640×480)."""
    black = next(style for style in DIE_STYLES if style.name == "black")
    faces = TaughtFaces.load(write_face_folder(tmp_path, seed=7, style=black))
    for width, height in ((1280, 720), (640, 480)):
        result, _ = score(DiceReader(faces), rendered_set(range(6009, 6010), kind="runes",
                                                          style=black, width=width, height=height))
        assert (result.truths, result.correct, result.detections) == (4, 4, 4), width


def test_black_pip_dice_on_dark_wood_are_found_round_their_pips() -> None:
    """Five black pip dice on dark wood (640×480): their bodies stand out from it by under
    the faintest difference counted, so only their pips were found, the die size was learnt
    from them (8 px for dice some 45 px a side) and no die was read. Each pip is ringed by
    its die's body, and the die is found round it."""
    black = next(style for style in DIE_STYLES if style.name == "black")
    scene = render_scene(30029, width=640, height=480, style=black, surface="wood")
    assert 35 < find_blobs(scene.image).side < 55
    result = _scored(scene)
    assert (result.truths, result.correct, result.detections) == (5, 5, 5)


@pytest.mark.parametrize(("seed", "dice"), [(30095, 10), (30110, 12)])
def test_a_cluster_of_dice_taken_for_one_die_is_read_at_its_pips_size(seed: int, dice: int) -> None:
    """Dice thrown nearly all touching (640×480): ten red dice on felt in one blob, twelve
    ivory dice on wood in two. The die size was learnt as a whole blob's (124-127 px for
    dice some 55 px a side), their pips were too small to read at it, and no die was read.
    The pips tell the size (49-53 px): the blobs are read again at it."""
    scene = render_scene(seed, width=640, height=480, touching=0.95)
    blobs = find_blobs(scene.image)
    assert (side := pip_side(scene.image, blobs)) is not None and side < 0.7 * blobs.side
    result = _scored(scene)
    assert (result.truths, result.correct, result.detections) == (dice, dice, dice)


@pytest.mark.parametrize(("seed", "dice"), [(9267, (1, 4)), (9267, (2, 3)), (9380, (2, 4))])
def test_two_touching_1s_are_not_one_2(seed: int, dice: tuple[int, int]) -> None:
    """640×480: blue dice with large light pips, two 1s side by side or one above the
    other, touching. Their two pips, a die apart, fitted a 2 sure at 0.9-1.0 (its face the
    size of the die found) and the pair was read as one 2. The face dips faintly between
    them (the seam, too faint to part them); between a face's own pips it does not."""
    scene = render_scene(seed, width=640, height=480)
    for die in dice:
        assert scene.dice[die].face == "1"
        assert _faces_read_on(None, scene, die) == ["1"]


@pytest.mark.parametrize(("seed", "die"), [(10448, 1), (10448, 2), (9234, 0)])
def test_a_large_lone_pip_on_a_tilted_die_is_a_1(seed: int, die: int) -> None:
    """640×480: 1s with a large pip (white dice with red pips, a blue die), tilted 20-30°.
    The face around a lone pip is checked out to a quarter of the face, stretched along
    the pip's long axis as its grid keeps the pip's area: the rings reached past the
    face's edges, the face was not plain, and the 1 was dropped (its front face read as a
    die in its place) or read unknown."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == "1"
    assert _faces_read_on(None, scene, die) == ["1"]


@pytest.mark.parametrize(("seed", "die"), [(10743, 2), (10757, 1), (10769, 0), (9296, 2)])
def test_a_blurred_large_lone_pip_is_a_1(seed: int, die: int) -> None:
    """640×480: 1s with a large pip on white dice with red pips tilted 21-25°, blurred
    (0.5-1 px). The pip's core measures smaller than its paint, so 2.2 of its radii
    fell just short of the face's quarter (0.96-0.99 of it) and its rings were not drawn
    in: they reached the face's edge, the 1 was not plain, and its front face was read as
    a die in its place. A pip that solid (a 1's paint) and nearly that large is a 1's."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == "1"
    assert _faces_read_on(None, scene, die) == ["1"]


@pytest.mark.parametrize(("seed", "die"), [(10383, 0), (10682, 0), (10884, 0)])
def test_a_far_1_beside_a_die_touching_it_is_read(seed: int, die: int) -> None:
    """640×480: 1s near the frame's top (far from the camera), each touching a die beside
    it (a 6, a 2, a 5) one face apart. Weighed by the frame's die size, larger than these
    far dice, the two lay under 0.75 of a face apart, and the 1 was dropped as the other's
    side face; the face beside it measures their size."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == "1"
    assert _faces_read_on(None, scene, die) == ["1"]


@pytest.mark.parametrize("seed", [10902, 9518, 11284, 10318])
def test_a_front_face_where_its_die_ends_is_no_die(seed: int) -> None:
    """640×480: a die's face towards the camera, read as a die of its own beside its top
    face, read right (10902, 9518, 11284: front faces tilted 29-30°, their blurred pips as
    round as the top face's, so the two faces were taken for two dice one behind the
    other; 10318: a red die's left face at the frame's edge, seen less edge on there).
    Nothing of a die shows below such a face, and it lies no further below the top face
    than a front face does: it is the die's own side face."""
    scene = render_scene(seed, width=640, height=480)
    result = _scored(scene)
    assert (result.correct, result.detections) == (result.truths, result.truths)


@pytest.mark.parametrize("seed", [10157, 11137])
def test_a_die_in_front_seen_from_above_is_read(seed: int) -> None:
    """640×480, seen from nearly above (0-5° of tilt): two dice one behind the other. The
    die in front shows no front face, so its blob ends within half a die below its top
    face as a front face's does, but it lies a whole side below the die behind, further
    than any front face: it is a die."""
    scene = render_scene(seed, width=640, height=480)
    result = _scored(scene)
    assert (result.correct, result.detections) == (result.truths, result.truths)


@pytest.mark.parametrize(("seed", "die"), [(10353, 2), (10861, 5), (10861, 6), (10919, 3), (11120, 2)])
def test_a_die_in_front_of_another_whose_own_front_face_shows_is_read(seed: int, die: int) -> None:
    """640×480, tilted 25-30°: two dice one behind the other, touching, alike in roundness,
    the front die's top face about a front face's distance below the die behind's. It was
    dropped as that die's front face: its own front face, read below it, measured as round
    as it (blurred pips a few pixels across), so it did not count as a front face. That
    face ends its die, and the front die's top face does not: a front face's top face."""
    scene = render_scene(seed, width=640, height=480)
    assert _faces_read_on(None, scene, die) == [scene.dice[die].face]


@pytest.mark.parametrize(("seed", "size"), [(10357, (640, 480)), (11125, (640, 480)), (11373, (1280, 720))])
def test_a_side_face_over_a_face_that_ends_its_die_is_no_die(seed: int, size: tuple[int, int]) -> None:
    """A left or right face, or a face read from a side face's pips, with another face below
    it that ends its die: the upper face ends its die too (10357), or is no sure face
    (11125), or measures smaller than the face below (11373: a right face's 2, seen edge
    on), so the face below is no front face of a top face."""
    scene = render_scene(seed, width=size[0], height=size[1])
    result = _scored(scene)
    assert (result.correct, result.detections) == (result.truths, result.truths)


@pytest.mark.parametrize("seed", [10207, 11384])
def test_a_side_face_towards_the_pictures_middle_is_no_die(seed: int) -> None:
    """640×480: a die in the frame's left part (10207, tilted 11°) or bottom left corner
    (11384, seen from nearly above) shows its face towards the picture's middle, less
    edge on there: its pips measured 0.53-0.61 round beside a top face's 0.93-0.95, too
    round together for one die's faces by their roundness, and it was read as a die. Its
    pips are squashed along the step from its top face, a top face's are not: it is a
    side face."""
    scene = render_scene(seed, width=640, height=480)
    result = _scored(scene)
    assert (result.correct, result.detections) == (result.truths, result.truths)


@pytest.mark.parametrize("seed", [9212, 9661])
def test_a_side_face_over_its_dies_front_face_is_no_die(seed: int) -> None:
    """640×480: a die at the frame's right (9212) or left (9661) shows its top face, its
    front face below, and its face towards the picture's middle beside, the front face
    nearer that face than the top face. The front face was taken for that face's own, so
    that face for a top face, and it was read as a die. It is a side face of the top face
    the front face also lies below, near enough to be its front face: the front face is
    the top face's."""
    scene = render_scene(seed, width=640, height=480)
    result = _scored(scene)
    assert result.detections == result.matched


@pytest.mark.parametrize("seed", [10476, 11617, 10536, 11313])
def test_a_front_faces_lone_pip_and_a_side_face_over_a_face_below_are_no_die(seed: int) -> None:
    """640×480: a lone pip of a die's front face, narrower across than its top face's pips,
    a face's side or more below it (10476, twice; 11617), and a side face plainly more edge
    on than its top face, with a face of its own below it that was taken for its front face
    (10536, 11313): each was read as a die. A 1's pip is no narrower than its die's other
    pips, and a die in front is nearer the camera; two dice's top faces are seen alike."""
    scene = render_scene(seed, width=640, height=480)
    result = _scored(scene)
    assert result.detections == result.matched


def test_a_cluster_whose_only_faces_read_are_1s_is_read_at_its_pips_size() -> None:
    """640×480: six blue dice touching in one blob, taken for one die (112 px for dice
    some 40 px). Only two 1s were read, their sides (from their pips' size) just over half
    the die's, so the frame was not read again at the size its pips tell, where all six
    read. A 1's side is no measure of its face."""
    scene = render_scene(9729, width=640, height=480)
    result = _scored(scene)
    assert (result.truths, result.correct, result.detections) == (6, 6, 6)


def test_a_speck_of_ink_between_dice_is_no_die(rune_faces: TaughtFaces) -> None:
    """Between a hammer die and the die touching it (32 a frame, one blob) lies ink a
    fifth of the hammer's: its centre fell just over 0.8 of a die from the hammer, where
    no shape is held to a nearer one's ink, and it was read as a die of its own (a hammer,
    0.69). In one blob, no shape with under 0.4 of the ink of the most inked is a face."""
    scene = render_scene(4003, count=32, kind="runes", style=RUNE_STYLE)
    assert _faces_read_near(rune_faces, scene, 4) == ["hammer"]


def test_pip_dice_read_wrong_are_rare() -> None:
    """A die read as a face is nearly always that face: doubt is reported as unknown."""
    result, _ = score(DiceReader(), rendered_set(range(800, 812), width=960, height=540))
    assert result.correct >= result.matched - result.unknown - 2


def test_rotation_does_not_change_the_reading(rune_faces: TaughtFaces) -> None:
    scene = render_scene(42, count=6, kind="runes", style=RUNE_STYLE, width=800, height=800,
                         tilt=0.0, touching=0.0)
    reader = DiceReader(rune_faces)
    truth = sorted(d.face for d in scene.dice)
    assert sorted(d.face for d in reader.read(scene.image).dice) == truth
    for turn in (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180, cv2.ROTATE_90_COUNTERCLOCKWISE):
        faces = [d.face for d in reader.read(cv2.rotate(scene.image, turn)).dice]
        assert sorted(faces) == truth


def test_pip_dice_read_the_same_turned_and_scaled() -> None:
    """Nothing is measured in pixels: the same dice read the same at any size and turn."""
    scene = render_scene(43, count=8, width=960, height=720, tilt=10.0, touching=0.0)
    truth = sorted(d.face for d in scene.dice)
    reader = DiceReader()
    for image in (scene.image, cv2.rotate(scene.image, cv2.ROTATE_90_CLOCKWISE),
                  cv2.resize(scene.image, None, fx=2, fy=2, interpolation=cv2.INTER_CUBIC),
                  cv2.resize(scene.image, None, fx=0.75, fy=0.75, interpolation=cv2.INTER_AREA)):
        assert sorted(d.face for d in reader.read(image).dice) == truth


def assert_webcam_photo_read_right(name: str) -> None:
    """Every die of one webcam photo (``Train/…`` or ``Valid/…``) found and read right, and
    nothing else reported."""
    image = cv2.imread(str(WEBCAM / f"{name}.jpg"))
    h, w = image.shape[:2]
    truth = corrected(read_yolo(WEBCAM / f"{name}.txt", w, h, PIP_NAMES), webcam_errata().get(name, []))
    result, _ = score(DiceReader(), iter([(image, truth)]))
    assert result.detections == result.matched == result.correct == result.truths


@pytest.mark.parametrize("name", ["Train/four_35", "Train/two_38", "Train/six_11", "Train/five_39"])
def test_a_laptops_keys_are_not_read_as_dice(name: str) -> None:
    """A laptop beside the dice: a key's print, light on the dark key, passed for a black
    die's lone pip (a 1). Its strokes leave gaps in its core, where a pip is solid."""
    assert_webcam_photo_read_right(name)


def test_a_keys_print_as_large_as_a_1s_pip_is_no_die() -> None:
    """`six_61`: a key's print, light on the dark key above the dice (its centre at 484, 42),
    measures as large beside the die found as a blurred 1's large pip (2.2 radii 0.92 of
    the face's quarter) and as solid, but flat and not quite an ellipse (0.6 sure as a 1).
    With the rings around it drawn in to the face's quarter as a large 1's are, the key
    was plain enough to read as a 1."""
    image = cv2.imread(str(WEBCAM / "Train" / "six_61.jpg"))
    centres = [(x + w / 2, y + h / 2) for x, y, w, h in (d.box for d in DiceReader().read(image).dice)]
    assert all(abs(x - 484) > 25 or abs(y - 42) > 25 for x, y in centres)


@pytest.mark.parametrize("name", ["Train/dice_8", "Valid/valid_10"])
def test_a_pale_die_beside_bright_clutter_is_found(name: str) -> None:
    """A white die on pale wood beside a red cable or a red strap: the clutter raises the
    frame's split between tray and foreground above the die, which stood out only by its
    pips (no die found, or one found in part and dropped as too small for a die)."""
    assert_webcam_photo_read_right(name)


@pytest.mark.parametrize("name", ["Valid/valid_63", "Train/dice_47"])
def test_a_1_outweighed_by_light_marks_is_read(name: str) -> None:
    """A white die showing a 1, seen steeply: the face between its front face's flat pips,
    round and light, outweighed its one round dark pip, so its blob was read for light
    marks only, none of which is a face (the 1 lost). Its grey levels say dark marks."""
    assert_webcam_photo_read_right(name)


@pytest.mark.parametrize("name", ["Train/dice_20", "Train/two_26", "Valid/valid_59"])
def test_a_die_far_off_is_read_at_its_own_size(name: str) -> None:
    """Pale dice at the far side of the table, seen small and steeply: their top faces,
    all that stands out from the wood, are blobs of 0.14-0.26 of a near die's, and were
    dropped as too small for a die (`dice_20`: three 1s). Above every die found, they are
    kept and read at their own size. A blob that small beside or below a die is its side
    face: not kept (`two_26`, `valid_59`, read as 1s when it was)."""
    assert_webcam_photo_read_right(name)


def test_webcam_copy_is_complete() -> None:
    assert len(list(Path(WEBCAM).glob("*/*.jpg"))) == 396
    labels = sum(len(p.read_text().split("\n")) - p.read_text().endswith("\n")
                 for p in Path(WEBCAM).glob("*/*_*.txt"))
    assert labels == 1206


def test_webcam_errata_fix_only_what_they_name() -> None:
    """Three labels are wrong (tests/vision/webcam_errata.toml): a die where there is
    none, a 1 labelled 4, a die with no label. Only those change."""
    fixes = webcam_errata()
    assert sorted(fixes) == ["Train/five_1", "Valid/valid_56", "Valid/valid_9"]
    assert all(fix["reason"] for fix in sum(fixes.values(), []))

    def faces(name: str, *, fixed: bool) -> list[str]:
        h, w = cv2.imread(str(WEBCAM / f"{name}.jpg")).shape[:2]
        labels = read_yolo(WEBCAM / f"{name}.txt", w, h, PIP_NAMES)
        return [d.label for d in (corrected(labels, fixes[name]) if fixed else labels)]

    assert faces("Train/five_1", fixed=False) == ["1", "5"]
    assert faces("Train/five_1", fixed=True) == ["5"]
    assert faces("Valid/valid_56", fixed=False) == ["5", "4", "4", "6"]
    assert faces("Valid/valid_56", fixed=True) == ["5", "4", "1", "6"]
    assert faces("Valid/valid_9", fixed=True) == faces("Valid/valid_9", fixed=False) + ["2"]
    assert sum(len(truth) for _, truth in webcam_set()) == 1206


@pytest.mark.parametrize("name", ["Train/four_30", "Train/six_21"])
def test_a_photo_upside_down_with_lone_dice_reads_as_upright(name: str) -> None:
    """Photos turned 180°, as from a camera at the far side: one die's front face shows
    above its top face, plainly flatter, and a die alone in its blob shows its top face
    below its blob's centre (its other faces, towards the camera, above it). Both say
    the camera is at the top, so the face below is the top face (it was dropped as the
    front face of the face above, and that read as a die of its own)."""
    image = cv2.imread(str(WEBCAM / f"{name}.jpg"))
    labels = read_yolo(WEBCAM / f"{name}.txt", image.shape[1], image.shape[0], PIP_NAMES)
    (turned, truth), = turned_set(iter([(image, labels)]), "180")
    result, _ = score(DiceReader(), iter([(turned, truth)]))
    assert (result.correct, result.detections) == (len(truth), len(truth))


@pytest.mark.parametrize(("name", "turn"), [("Train/three_24", "180"), ("Train/six_48", "270")])
def test_lone_dice_alone_say_where_the_camera_is_when_no_side_face_does(name: str, turn: str) -> None:
    """Photos turned, as from a camera at another side: no side face is read plainly
    flatter than its top face (dice seen at about 45°), and too few faces of several pips
    to show their foreshortening, so they were read as from the bottom, a front face read
    as a die and a top face dropped. Two lone dice or more, their top faces plainly off
    their blobs' centres to one side, say the camera is at the other."""
    image = cv2.imread(str(WEBCAM / f"{name}.jpg"))
    labels = read_yolo(WEBCAM / f"{name}.txt", image.shape[1], image.shape[0], PIP_NAMES)
    (turned, truth), = turned_set(iter([(image, labels)]), turn)
    result, _ = score(DiceReader(), iter([(turned, truth)]))
    assert (result.correct, result.detections) == (len(truth), len(truth))


@pytest.mark.parametrize("name", ["Train/dice_11", "Train/two_25"])
def test_a_photo_upside_down_reads_as_upright_when_its_side_faces_say_so(name: str) -> None:
    """Photos turned 180°: in ``dice_11`` both dice show a front face above the top face,
    plainly flatter, and no die is alone in its blob to be asked, so the front faces alone
    say the camera is at the top; in ``two_25`` a 4, the front face above a 2, is flatter
    but not plainly (the die seen at about 45°), and the lone dice agree. Either way the
    face below is the top face (it was dropped as the front face of the face above)."""
    image = cv2.imread(str(WEBCAM / f"{name}.jpg"))
    labels = read_yolo(WEBCAM / f"{name}.txt", image.shape[1], image.shape[0], PIP_NAMES)
    (turned, truth), = turned_set(iter([(image, labels)]), "180")
    result, _ = score(DiceReader(), iter([(turned, truth)]))
    assert (result.correct, result.detections) == (len(truth), len(truth))


@pytest.mark.parametrize("seed", [11397, 11414])
def test_a_top_face_under_its_front_face_is_read_upside_down_with_no_cue(seed: int) -> None:
    """1280×720 turned 180°, no cue telling the camera's side, so read as from the bottom:
    a die's front face shows above its top face, plainly flatter, its pips narrower, and
    the die ends just below the top face (away from the camera). The top face was dropped
    as a front face where its die ends; a face seen more edge on above it says the side is
    taken wrong, and roundness keeps the top face."""
    scene = render_scene(seed, width=1280, height=720)
    (turned, truth), = turned_set(iter([(scene.image, [Labelled(d.face, d.box) for d in scene.dice])]), "180")
    result, _ = score(DiceReader(), iter([(turned, truth)]))
    assert result.correct == result.truths


@pytest.mark.parametrize(("seed", "turn"), [(12060, "180"), (12077, "180"), (12111, "90")])
def test_a_turned_frame_with_no_plain_cue_is_read_from_where_its_faces_are_foreshortened(
        seed: int, turn: str) -> None:
    """1280×720 turned, no side faces and lone dice saying plainly where the camera is, so
    read as from the bottom: front faces above or beside their top faces were read as dice
    (and top faces dropped as front faces). The faces' pips, squashed along the line
    towards the camera, and their side faces' pull along it tell the camera's side: the
    frame reads as it does upright, every die it reads there and no reading of no die."""
    scene = render_scene(seed, width=1280, height=720)
    upright = (scene.image, [Labelled(d.face, d.box) for d in scene.dice])
    turned = next(turned_set(iter([upright]), turn))
    (before, _), (after, _) = (score(DiceReader(), iter([frame])) for frame in (upright, turned))
    assert (after.correct, after.detections) == (before.correct, before.matched)


def test_front_faces_squashed_aslant_do_not_turn_an_upright_frame_upside_down() -> None:
    """640×480 upright, no plain cue: a row of three dice turned 30° near the frame's top
    corner, seen at about 45°, where its front faces measured up to 0.1 rounder than its
    top faces. Their pull took the camera to be at the top, and the row's top faces were
    dropped as front faces and its front faces read as dice. A top face's pips are
    squashed along the line towards the camera, and these front faces' were squashed
    aslant, across it: they are no top faces, and the frame reads from the bottom, the
    row read right and every reading a die."""
    scene = render_scene(11486, width=640, height=480)
    row = [Labelled(d.face, d.box) for d in scene.dice if d.box[1] < 60]  # (the row's three)
    reading = [Labelled(d.face, d.box) for d in DiceReader().read(scene.image).dice]
    everything = match([Labelled(d.face, d.box) for d in scene.dice], reading)
    assert len(row) == 3 and match(row, reading).correct == len(row)
    assert everything.matched == everything.detections


def test_a_photo_taken_from_the_far_side_reads_right_turned(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A camera at the far side of the tray sees the dice upside down, their front faces
    above their top faces: read as it is, two 1s, one with its front face above it, with no
    die alone in its blob and no face plainly flatter above another to say that the camera
    is at the top, are misread; ``--turn 180`` (as
    ``[camera] turn`` does for the camera) reads it as from the near side, boxes and all.
    (A photo whose faces say plainly that the camera is at the top reads right either way:
    :func:`test_a_photo_upside_down_with_lone_dice_reads_as_upright`.)"""
    upright = WEBCAM / "Train" / "dice_13.jpg"
    far_side = tmp_path / "far-side.png"
    cv2.imwrite(str(far_side), cv2.rotate(cv2.imread(str(upright)), cv2.ROTATE_180))  # (lossless)

    def read(*argv: str) -> list[dict]:
        assert main(["dice", *argv, "--json"]) == 0
        return json.loads(capsys.readouterr().out)["dice"]

    assert sorted(d["face"] for d in read(str(far_side))) != ["1", "1"]
    expected = read(str(upright))
    assert sorted(d["face"] for d in expected) == ["1", "1"]
    turned = read(str(far_side), "--turn", "180")
    assert [d["face"] for d in turned] == [d["face"] for d in expected]
    assert all(abs(a - b) <= 2 for t, e in zip(turned, expected)
               for a, b in zip(t["box"], e["box"]))


@pytest.mark.parametrize(("seed", "die"), [(9152, 1), (9134, 2)])
def test_a_3_whose_pips_measure_unlike_each_other_is_read(seed: int, die: int) -> None:
    """640×480: a 3 one of whose pips measures a third larger or flatter than the two
    others (9152: a purple die, glare all round its middle pip; 9134: its far pip
    flatter). It was never grouped: the two alike are not joined either, the middle pip
    lying between them, and the 3 read as a 1. Its three pips lie in a row, evenly
    spaced: a 3's diagonal."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == "3"
    assert _faces_read_on(None, scene, die) == ["3"]


@pytest.mark.parametrize(("seed", "die", "face"), [(9659, 5, "4"), (9659, 3, "5"), (10377, 5, "4"),
                                                   (10742, 3, "5")])
def test_a_face_across_a_seam_that_later_faces_overlap_is_read_again(seed: int, die: int,
                                                                       face: str) -> None:
    """640×480, dice touching, the seam between them barely dipping: pips of two dice were
    read first as a 6, doubtfully (0.51-0.64: 9659 a 4 and two pips of the 5 beside it,
    10377 three pips of each of two 4s, 10742 three of a 5 and three of a 4), and the pips
    left over then made faces whose centres lay within the 6's face (1s: a 5 read as a 1
    or missed, a 4 missed). Two dice's top faces do not overlap: the cluster read again
    without that 6 gives each die its own face."""
    scene = render_scene(seed, width=640, height=480)
    assert scene.dice[die].face == face
    assert _faces_read_on(None, scene, die) == [face]


def test_a_face_overlapped_only_by_its_own_side_faces_pip_stays() -> None:
    """640×480: a 6 read at 0.99, a pip of its side face within its box read as a 1 after
    it. Read again without the 6, its columns make two 3s and the side face's pips the
    same 1s: a reading of more faces, not taken. It is the scene's eighth die."""
    scene = render_scene(10319, width=640, height=480)
    assert scene.dice[7].face == "6"
    assert _faces_read_on(None, scene, 7) == ["6"]
