"""``[camera] turn = "auto"``: the tray's far side learnt over many rolls
(:mod:`vision.dice.direction`), on the real webcam photos turned as a camera at each side
of the tray would take them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from benchmarks.vision_dice import WEBCAM, webcam_set
from companion.config import ConfigError
from tests.support.camera import empty_tray
from vision.cli import main
from vision.dice.direction import TURNS, AutoTurn, DirectionVotes
from vision.dice.reader import DiceReader
from vision.settings import Turn, load_settings
from vision.sources import turned
from vision.tray import Tray, calibrate

ROLLS = 73  # the most rolls any of 2000 random orders of the 396 photos took (docs/vision.md)


@pytest.fixture(scope="module")
def photos() -> list[np.ndarray]:
    """The webcam photos, upright, in one random order."""
    images = [image for image, _ in webcam_set(WEBCAM)]
    order = np.random.default_rng(5).permutation(len(images))
    return [images[i] for i in order[:2 * ROLLS]]


@pytest.mark.parametrize("camera", TURNS)
def test_the_turn_is_learnt_from_webcam_photos_and_kept(photos: list[np.ndarray], camera: Turn) -> None:
    """A camera that needs ``camera`` to bring the far side to the top: its photos are read
    as learnt so far, each a vote; the right turn is adopted within ``ROLLS`` rolls, no
    other before it, and kept (an upright camera is never turned)."""
    reader = DiceReader()
    votes = DirectionVotes()
    turns = []
    for photo in photos:
        frame = turned(turned(photo, TURNS[-TURNS.index(camera) % 4]), votes.turn)
        votes.add_frame(frame, reader.read(frame))
        turns.append(votes.turn)
    learnt = turns.index(camera)
    assert learnt < ROLLS
    assert set(turns[:learnt]) <= {0} and set(turns[learnt:]) == {camera}


def test_a_batch_of_photos_from_one_camera_is_read_at_the_turn_they_vote_for(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``runes-vision dice --turn auto``: photos with the tray's far side at their left
    (upright ones turned a quarter anticlockwise) vote for 90, and are all read as
    ``--turn 90`` reads them."""
    names = []
    for path in sorted((WEBCAM / "Valid").glob("*.jpg"))[:40]:
        names.append(str(tmp_path / path.name))
        cv2.imwrite(names[-1], cv2.rotate(cv2.imread(str(path)), cv2.ROTATE_90_COUNTERCLOCKWISE))

    def read(turn: str) -> tuple[list[object], str]:
        assert main(["dice", *names, "--turn", turn, "--json"]) == 0
        out = capsys.readouterr()
        return [{**json.loads(line), "ms": 0} for line in out.out.splitlines()], out.err

    auto, said = read("auto")
    assert "--turn auto: 90" in said
    assert auto == read("90")[0] != read("0")[0]


def test_a_turn_is_adopted_only_on_a_clear_lead_of_the_last_rolls() -> None:
    """Four votes ahead of every other turn, and 70% of the votes; rolls that abstain
    count for nothing; a camera moved is learnt again once the new side leads the last
    30 rolls so."""
    scattered = DirectionVotes(lead=4, share=0.7, window=30)
    for vote in (0, 0, 0, 270):
        scattered.add(vote)
    assert [scattered.add(90) for _ in range(10)] == [False] * 9 + [True]  # 10 of 14
    votes = DirectionVotes(lead=4, share=0.7, window=30)
    for vote in (180, 180, 180, None, 90):
        assert not votes.add(vote)
    assert votes.turn == 0
    assert [votes.add(180) for _ in range(2)] == [False, True]  # 180: 5, 90: 1
    assert votes.turn == 180
    for vote in [90, 270, 0] * 2:
        votes.add(vote)
    assert votes.turn == 180
    for _ in range(30):
        votes.add(180)
    learnt = next(k for k in range(1, 31) if votes.add(90))
    assert votes.turn == 90 and learnt == 21  # 21 of the last 30


def test_the_empty_tray_is_turned_with_the_frames_and_kept_as_the_camera_sees_it() -> None:
    """The empty-tray picture the reader compares frames with is turned as they are; the
    calibration kept (and saved) stays as the camera took it, right after a restart too."""
    camera = empty_tray((640, 480))
    camera[:40, :80] = (0, 0, 255)  # a corner to tell which way round it is
    reader = DiceReader(tray=Tray(empty=camera))
    auto = AutoTurn(reader)
    assert auto.view(camera).shape == (480, 640, 3) and reader.tray is auto.tray
    for _ in range(4):
        auto.votes.add(90)
    assert auto.view(camera).shape == (640, 480, 3)
    assert reader.tray is not None and reader.tray.empty is not None
    assert np.array_equal(reader.tray.empty, turned(camera, 90))
    assert auto.tray is not None and np.array_equal(auto.tray.empty, camera)  # type: ignore[arg-type]


def test_a_marker_calibration_decides_which_way_is_up_not_the_votes() -> None:
    """The markers' warp is the same however the frame is turned: nothing is turned."""
    frame = empty_tray((640, 480), markers=True)
    markers = calibrate(frame)
    assert markers.homography is not None
    auto = AutoTurn(DiceReader(tray=markers))
    for _ in range(4):
        auto.votes.add(180)
    assert auto.turn == 0
    assert np.array_equal(auto.view(frame), markers.view(frame))


@pytest.mark.parametrize(("value", "turn"), [('"auto"', "auto"), ("270", 270), (None, 0)])
def test_camera_turn_is_a_quarter_turn_or_auto(tmp_path: Path, value: str | None, turn: object) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text("[camera]\n" + (f"turn = {value}\n" if value else ""))
    assert load_settings(settings)[0].turn == turn


@pytest.mark.parametrize("value", ["45", '"Auto"', '"180"', "true"])
def test_a_camera_turn_that_is_none_of_them_is_named(tmp_path: Path, value: str) -> None:
    settings = tmp_path / "settings.toml"
    settings.write_text(f"[camera]\nturn = {value}\n")
    with pytest.raises(ConfigError, match=r"\[camera\] turn: must be one of 0, 90, 180, 270, "
                                          r"'auto', got"):
        load_settings(settings)
