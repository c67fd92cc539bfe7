"""Cards read by ``runes-vision watch`` from a replayed sequence: settled once per layout
with the right names, printed, and published with an overlay (real broker)."""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path

import cv2
import numpy as np
import paho.mqtt.client as mqtt
import pytest

from tests.support.broker import Broker
from vision.cards import synth
from vision.cli import main


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[tuple[str, ...]]]:
    """A deck of four cards, and a replay: cards moved, two cards lying still, moved
    again, three other cards lying still (frame files in order)."""
    root = tmp_path_factory.mktemp("watch")
    specs = synth.deck_specs(32, 9)[:4]
    synth.write_deck(root / "deck", specs, 9)
    rng = np.random.default_rng(9)

    def shot(chosen: list[synth.CardSpec]) -> np.ndarray:
        return synth.photograph([synth.render(s) for s in chosen], rng, size=(960, 540),
                                card_height=(190, 230), harsh=False).image

    first, second = specs[:2], specs[1:]
    frames = ([shot(specs[2:]), shot(specs[:1])] + [shot(first)] * 4
              + [shot(specs[3:]), shot(specs[:2])] + [shot(second)] * 4)
    (root / "frames").mkdir()
    for i, frame in enumerate(frames):
        cv2.imwrite(str(root / "frames" / f"frame_{i:03d}.png"), frame)
    names = [tuple(sorted(s.name for s in first)), tuple(sorted(s.name for s in second))]
    return root / "deck", root / "frames", names


def test_watch_settles_prints_and_publishes_the_cards_of_a_replay(
        table: tuple[Path, Path, list[tuple[str, ...]]], broker: Broker, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    deck_dir, frames, names = table
    config = tmp_path / "companion.toml"
    config.write_text(f'[table]\nid = "t7"\n[mqtt]\nhost = "{broker.host}"\n'
                      f"port = {broker.port}\n[vision]\noverlay_width = 480\n"
                      f'[cards]\ndeck = "{deck_dir}"\n')
    got: list[mqtt.MQTTMessage] = []
    two = threading.Event()
    sub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)

    def on_message(client: mqtt.Client, userdata: object, message: mqtt.MQTTMessage) -> None:
        got.append(message)
        if sum(m.topic == "runes/t7/vision/card" for m in got) == 2:
            two.set()

    sub.on_message = on_message
    sub.on_connect = lambda c, u, f, r, p: c.subscribe("runes/t7/vision/#", qos=1)
    sub.connect(broker.host, broker.port)
    sub.loop_start()
    try:
        assert main(["watch", "--source", str(frames), "--publish", "--config", str(config)]) == 0
        assert two.wait(10)
    finally:
        sub.loop_stop()
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["frame"] for line in lines] == [5, 11]
    assert [tuple(sorted(c["name"] for c in line["cards"])) for line in lines] == names
    assert all(line["dice"] == [] for line in lines), "a card's print is no die"
    payloads = [json.loads(m.payload) for m in got if m.topic == "runes/t7/vision/card"]
    assert [p["seq"] for p in payloads] == [1, 2] and payloads[0]["size"] == [960, 540]
    assert [tuple(sorted(c["name"] for c in p["cards"])) for p in payloads] == names
    picture = cv2.imdecode(np.frombuffer(base64.b64decode(payloads[1]["overlay_jpeg"]), np.uint8),
                           cv2.IMREAD_COLOR)
    assert picture.shape == (270, 480, 3)


def test_watch_with_a_missing_deck_folder_is_a_clear_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = tmp_path / "companion.toml"
    config.write_text(f'[cards]\ndeck = "{tmp_path / "nope"}"\n')
    assert main(["watch", "--source", str(tmp_path), "--config", str(config)]) == 2
    assert "[cards] deck" in capsys.readouterr().err
