"""The end-to-end game night: three games on a table whose parts fail and come back.

Every part is a real process (see :mod:`tests.e2e.night`): the locked-down broker, the
headless companion, the camera process on a replay and two firmware trackers under
MicroPython. The scripts in ``night/`` play a Runes of Zun team game, a Runecast game with
camera-read rolls and Loki's roll, and a Rune Market game to its scoring, while the broker
is killed twice, the companion once in Zun and once in the Market (SIGKILL), the camera's
replay disappears and a tracker is unplugged. Each game must end exactly in the state its
``.json`` file expects (a subset of ``Session.to_json()``, as the scenario files), and the
journal must hold every action that was acknowledged.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.core.journal import Journal
from companion.core.session import Session
from companion.demo.samples import deck_folder, face_folder
from tests.e2e.night import GameNight, camera_scenes, render_photos, started
from tests.support.broker import secure_broker
from tests.test_scenarios import assert_subset

SCRIPTS = sorted((Path(__file__).parent / "night").glob("*.txt"))


@pytest.fixture
def night(tmp_path: Path) -> Iterator[GameNight]:
    samples = {"faces": face_folder(tmp_path / "faces"),
               "deck": deck_folder(tmp_path / "deck", ["FRR-FRF-FFR", "RFR-FFF-FFR",
                                                       "Mirror Lake"])}
    photos = render_photos(camera_scenes(SCRIPTS), samples, tmp_path / "photos")
    (tmp_path / "broker").mkdir()
    broker = secure_broker(tmp_path / "broker", table="t1")
    broker.add("tracker", "tr2")
    broker.broker.start()
    try:
        yield from started(GameNight(tmp_path / "night", broker, photos, samples))
    finally:
        broker.broker.stop()


def test_a_game_night_survives_its_faults(night: GameNight) -> None:
    assert [p.stem for p in SCRIPTS] == ["1-zun-teams", "2-runecast-camera", "3-market"]
    committed = []
    for script in SCRIPTS:
        final = night.play(script)
        assert_subset(json.loads(script.with_suffix(".json").read_text()), final)
        committed.append((final["game_id"], night.committed))
    night.stop_companion()

    # The unplugged tracker showed the game within 2 s of coming back.
    print(f"the tracker showed the game {night.comebacks[0]:.2f} s after it was plugged in")
    assert len(night.comebacks) == 1 and night.comebacks[0] <= 2.0, night.comebacks
    # Nothing committed is lost: the journal holds every acknowledged action of each game,
    # and replays to the state the night ended each game in.
    journal = Journal(night.workdir / "journal.sqlite")
    try:
        for script, (game_id, actions) in zip(SCRIPTS, committed):
            session = Session.resume(journal, game_id)
            assert len(session.log) == actions, script.name
            assert_subset(json.loads(script.with_suffix(".json").read_text()), session.to_json())
    finally:
        journal.close()
