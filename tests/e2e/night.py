"""A game night on one machine, every part a real process: the harness of the end-to-end test.

* the broker: Mosquitto with the repository's locked-down configuration (passwords, ACLs,
  TLS), users made by ``runes-broker``'s code (:func:`tests.support.broker.secure_broker`);
* the companion: ``runes-service``, headless, with ``[vision] auto_confirm``, over TLS;
* the camera: ``runes-vision watch --publish``, over TLS as its own user, replaying a folder
  that the night changes like the view of a camera (one frame in it at a time);
* two LED trackers: the real firmware under the MicroPython unix port, as their own users;
* the players: a ``controller`` user sending the actions as MQTT commands.

A night plays script files (``night/*.txt``): a replay file (the setup line starts a new
game, ``runes-service --new``), where a line starting with ``!`` is something that happens
at the table rather than an action:

    ! camera dice hammer=1 snake=2 tree=5   the camera sees these dice (the companion plays them)
    ! camera card FRR-FRF-FFR               the camera sees this card
    ! camera gone                           the replay folder disappears
    ! restart broker                        the broker is killed (SIGKILL) and started again
    ! kill companion                        SIGKILL, then started again: it resumes the game
    ! kill tracker N / ! start tracker N    a tracker unplugged, and plugged in again
    ! trackers                              every tracker shows its seat's HP

Every wait is for a condition, with a timeout; nothing sleeps for a fixed time.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.core.rules import rules_for
from companion.core.session import SESSION_ACTIONS
from companion.demo.samples import SIZE, card_photo, dice_photo
from companion.firmware.emulator import Pixel, TrackerEmulator
from companion.launcher import Child, Launcher
from companion.trackers import TrackerStore
from tests.support.broker import SecureBroker
from tests.support.camera import show
from tests.support.mqtt import Probe, decode
from vision.cards.deck import Deck
from vision.dice.cli import make_reader
from vision.watch import TrayReader

TIERS: dict[int, Pixel] = {1: (255, 0, 0), 2: (255, 160, 0), 3: (0, 224, 0)}
"""A tracker's HP colours at full brightness: 1-4, 5-8, 9-12 HP."""
TRACKERS = ("tr1", "tr2")
"""Tracker ``trN`` shows seat N."""


@dataclass(frozen=True)
class Step:
    """One line of a night's script."""

    text: str
    line: int

    @property
    def event(self) -> list[str] | None:
        """The words of a ``!`` line, None for an action."""
        return self.text[1:].split() if self.text.startswith("!") else None


def read_script(path: Path) -> list[Step]:
    steps = []
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        text = raw.strip()
        if text and not text.startswith("#"):
            steps.append(Step(text, number))
    return steps


def camera_scenes(paths: Sequence[Path]) -> list[tuple[str, ...]]:
    """Every ``! camera dice|card ...`` of the scripts, in order (for rendering the photos)."""
    return [tuple(step.event[1:]) for path in paths for step in read_script(path)
            if step.event and step.event[:2] in (["camera", "dice"], ["camera", "card"])]


def hp_shown(pixels: Sequence[Pixel], hp: int) -> bool:
    """Whether a Runes of Zun seat's strip shows ``hp``: that many LEDs lit in its tier colour."""
    colour = TIERS.get((hp + 3) // 4)
    lit = [p for p in pixels if p == colour]
    return hp > 0 and len(lit) == hp and all(p == colour for p in pixels[:hp])


class GameNight:
    """The processes of one table and the script player; see the module docstring."""

    def __init__(self, workdir: Path, broker: SecureBroker, photos: dict[tuple[str, ...], Path],
                 samples: dict[str, Path]) -> None:
        self.workdir = workdir
        self.broker = broker
        self.photos = photos
        self.table = broker.table
        self.live = workdir / "camera"
        self.settings = workdir / "companion.toml"
        self.launcher = Launcher(workdir / "logs")
        (workdir / "logs").mkdir(parents=True, exist_ok=True)
        self.companion: Child | None = None
        self.trackers: dict[int, TrackerEmulator] = {}
        self.revision = -1
        self.committed = 0
        """Actions acknowledged in the game in play (by command results and camera events)."""
        self.comebacks: list[float] = []
        """Seconds from a tracker's first frame after a restart to it showing the game."""
        self._correlation = 0
        self._vocabulary: Any = None
        self._write_settings(samples)
        self.observer = self._probe(f"companion-{self.table}", f"runes/{self.table}/#")
        self.controller = self._probe(f"controller-{self.table}",
                                      f"runes/{self.table}/cmd/result/#")

    # -- setting up ----------------------------------------------------------------

    def _secret(self, user: str) -> Path:
        path = self.workdir / f"{user}.password"
        path.write_text(self.broker.users[user].password + "\n")
        return path

    def _write_settings(self, samples: dict[str, Path]) -> None:
        t = self.table
        TrackerStore(self.workdir / "trackers.json").save(
            {tracker: {"kind": "firmware", "seat": n} for n, tracker in enumerate(TRACKERS, 1)})
        self.settings.write_text(f"""
[table]
id = "{t}"
[journal]
path = "{self.workdir / 'journal.sqlite'}"
[mqtt]
host = "{self.broker.host}"
port = {self.broker.tls_port}
tls = true
ca_certs = "{self.broker.ca}"
username = "companion-{t}"
password_file = "{self._secret(f'companion-{t}')}"
reconnect = "1s"
keepalive = "5s"
homeassistant = false
[trackers]
state_file = "{self.workdir / 'trackers.json'}"
[camera]
source = "{self.live}"
[vision]
username = "vision-{t}"
password_file = "{self._secret(f'vision-{t}')}"
auto_confirm = true
faces = "{samples['faces']}"
overlay_width = 320
[cards]
deck = "{samples['deck']}"
""")

    def _probe(self, user: str, topics: str) -> Probe:
        probe = Probe(self.broker.host, self.broker.port, self.broker.users[user])
        probe.connect()
        probe.subscribe(topics)
        return probe

    def _env(self) -> dict[str, str]:
        return {**os.environ, "RUNES_CONFIG": str(self.settings)}

    # -- the parts -------------------------------------------------------------------

    def start_vision(self) -> None:
        self._show(self.photos[("empty",)])
        mark = len(self.observer.messages)
        self.launcher.start("vision", [sys.executable, "-m", "vision", "watch", "--publish",
                                       "--loop", "--fps", "5", "--config", str(self.settings)],
                            env=self._env())
        self.wait_topic("vision/status", lambda s: s == "online", after=mark, timeout=60)

    def start_companion(self, new: str | None = None) -> None:
        """``runes-service``, starting the game ``new`` or resuming the last one."""
        mark = len(self.observer.messages)
        argv = [str(Path(sys.executable).with_name("runes-service"))]
        self.companion = self.launcher.start("companion", argv + (["--new", new] if new else []),
                                             env=self._env())
        self.wait_topic("status", lambda s: s == "online", after=mark, timeout=30)
        if new is None:  # resumed: at the last action it acknowledged
            state = self.wait_topic("state", lambda s: s["revision"] == self.revision, after=mark)
        else:
            state = self.wait_topic("state", lambda s: s["revision"] == 0
                                    and s["game"] == new.split()[0], after=mark)
        self.revision = state["revision"]
        if new is not None:
            self._vocabulary = rules_for(state["game"]).actions | SESSION_ACTIONS
            self.committed = 0

    def stop_companion(self, sig: int = signal.SIGTERM) -> None:
        assert self.companion is not None
        mark = len(self.observer.messages)
        if sig == signal.SIGKILL:
            os.killpg(self.companion.process.pid, signal.SIGKILL)
            self.companion.process.wait(10)
        else:
            self.launcher.stop_child(self.companion)
        self.launcher.children.remove(self.companion)
        self.companion = None
        # A clean stop says offline; after SIGKILL the broker sends the last will.
        self.wait_topic("status", lambda s: s == "offline", after=mark, timeout=30)

    def start_tracker(self, seat: int, *, check: bool = True) -> float:
        """Plug in tracker ``seat``; with ``check``, the seconds from plugging it in
        (starting its process) to it showing its seat's HP."""
        tracker = TRACKERS[seat - 1]
        credentials = self.broker.users[f"tracker-{self.table}-{tracker}"]
        settings = {"id": tracker, "table": self.table, "broker": self.broker.host,
                    "port": self.broker.port, "user": credentials.user,
                    "password": credentials.password, "seat": seat, "brightness": 1.0,
                    "pulse_ms": 0, "heartbeat_s": 2, "backoff_min_ms": 100,
                    "backoff_max_ms": 1000}
        runs = len(list(self.workdir.glob(f"{tracker}-*")))
        plugged = time.perf_counter()
        emulator = TrackerEmulator(settings, self.workdir / f"{tracker}-{runs}").start()
        self.trackers[seat] = emulator
        if not check:
            return 0.0
        return float(self.tracker_shows(seat, since=0).at - plugged)

    def kill_tracker(self, seat: int) -> None:
        emulator = self.trackers.pop(seat)
        assert emulator.process is not None
        mark = len(self.observer.messages)
        emulator.process.kill()
        emulator.stop()
        self.wait_topic(f"tracker/{TRACKERS[seat - 1]}/status", lambda s: s == "offline",
                        after=mark, timeout=30)

    def tracker_shows(self, seat: int, since: int | None = None, timeout: float = 15) -> Any:
        hp = self.state()["players"][seat - 1]["hp"]
        return self.trackers[seat].wait_for(lambda pixels: hp_shown(pixels, hp), since=since,
                                            timeout=timeout)

    def restart_broker(self) -> None:
        """SIGKILL and start again (no persistence: it comes back empty); wait until every
        part is back: the companion's retained state, the camera, the trackers."""
        self.broker.broker.restart()
        mark = len(self.observer.messages)
        self.wait_topic("status", lambda s: s == "online", after=mark, timeout=30)
        self.wait_topic("state", lambda s: s["revision"] == self.revision, after=mark)
        seeing = "online" if self.live.exists() else "offline"
        self.wait_topic("vision/status", lambda s: s == seeing, after=mark, timeout=30)
        for seat in self.trackers:
            self.wait_topic(f"tracker/{TRACKERS[seat - 1]}/status", lambda s: isinstance(s, dict),
                            after=mark, timeout=30)
        deadline = time.monotonic() + 30
        while not self.controller.client.is_connected():
            assert time.monotonic() < deadline, "the controller did not reconnect"
            time.sleep(0.05)

    def _show(self, photo: Path) -> None:
        """The camera now sees ``photo`` (the replay folder's one frame, replaced at once)."""
        show(self.live, photo)

    # -- watching ---------------------------------------------------------------------

    def wait_topic(self, topic: str, where: Callable[[Any], bool], *, after: int = 0,
                   timeout: float = 15) -> Any:
        """The first message on ``runes/<table>/<topic>`` from index ``after`` that ``where``
        accepts, decoded."""
        full = f"runes/{self.table}/{topic}"
        message = self.observer.wait_for(
            lambda m: m.topic == full and bool(m.payload) and where(decode(m.payload)),
            timeout=timeout, after=after)
        return decode(message.payload)

    def state(self) -> dict[str, Any]:
        return self.wait_topic("state", lambda s: s["revision"] == self.revision,
                               after=self._last("state"))

    def _last(self, topic: str) -> int:
        full = f"runes/{self.table}/{topic}"
        indexes = [i for i, m in enumerate(self.observer.messages) if m.topic == full]
        return indexes[-1] if indexes else 0

    def log(self, name: str) -> str:
        return (self.workdir / "logs" / f"{name}.log").read_text(errors="replace")

    # -- playing -----------------------------------------------------------------------

    def command(self, text: str) -> dict[str, Any]:
        """Send one action as the controller; the companion's answer (it must be yes)."""
        self._correlation += 1
        correlation = str(self._correlation)
        action = self._vocabulary.parse(text).to_json()
        self.controller.publish(f"runes/{self.table}/cmd",
                                json.dumps({**action, "correlation": correlation}))
        answer = decode(self.controller.wait_for(
            lambda m: decode(m.payload).get("correlation") == correlation, timeout=15,
            after=0).payload)
        assert answer["ok"], f"{text!r} refused: {answer}"
        self.revision = answer["revision"]
        self.committed += 1
        return answer  # type: ignore[no-any-return]

    def camera(self, kind: str, words: list[str]) -> None:
        mark = len(self.observer.messages)
        self._show(self.photos[(kind, *words)])
        if kind == "card":
            reading = self.wait_topic("vision/card", lambda r: True, after=mark, timeout=60)
            assert [c["name"] for c in reading["cards"]] == words
            return
        counts = {face: int(n) for face, n in (w.split("=") for w in words)}
        faces = {"hammers": counts.get("hammer", 0), "snakes": counts.get("snake", 0),
                 "trees": counts.get("tree", 0)}
        event = self.wait_topic("event", lambda e: {k: e["action"].get(k, 0) for k in faces} == faces,
                                after=mark, timeout=60)
        assert event["action"]["action"] in ("roll", "loki_roll")
        self.revision = event["revision"]
        self.committed += 1

    def camera_gone(self) -> None:
        mark = len(self.observer.messages)
        shutil.rmtree(self.live)
        self.wait_topic("vision/status", lambda s: s == "offline", after=mark, timeout=30)
        deadline = time.monotonic() + 15
        while "the camera is offline" not in self.log("companion"):
            assert time.monotonic() < deadline, "the companion did not report the camera offline"
            time.sleep(0.1)

    def play(self, script: Path) -> dict[str, Any]:
        """Play one script; the final state, as the companion publishes it."""
        steps = read_script(script)
        if self.companion is not None:
            self.stop_companion()
        self.start_companion(new=steps[0].text)
        for step in steps[1:]:
            try:
                self._step(step)
            except AssertionError as e:
                raise AssertionError(f"{script.name}, line {step.line}: {step.text}: {e}") from e
        return self.state()

    def _step(self, step: Step) -> None:
        words = step.event
        if words is None:
            self.command(step.text)
        elif words[0] == "camera" and words[1] == "gone":
            self.camera_gone()
        elif words[0] == "camera":
            self.camera(words[1], words[2:])
        elif words == ["restart", "broker"]:
            self.restart_broker()
        elif words == ["kill", "companion"]:
            self.stop_companion(signal.SIGKILL)
            self.start_companion()
        elif words[:2] == ["kill", "tracker"]:
            self.kill_tracker(int(words[2]))
        elif words[:2] == ["start", "tracker"]:
            self.comebacks.append(self.start_tracker(int(words[2])))
        elif words == ["trackers"]:
            for seat in self.trackers:
                self.tracker_shows(seat)
        else:
            raise ValueError(f"unknown event {step.text!r}")

    def close(self) -> None:
        for emulator in self.trackers.values():
            emulator.stop()
        self.launcher.stop()
        self.observer.close()
        self.controller.close()


def render_photos(scenes: Sequence[tuple[str, ...]], samples: dict[str, Path],
                  folder: Path) -> dict[tuple[str, ...], Path]:
    """A photo the camera reads right for each scene, and one of the empty tray."""
    reader = TrayReader(make_reader(str(samples["faces"])), Deck.load(samples["deck"]))
    folder.mkdir(parents=True, exist_ok=True)
    photos: dict[tuple[str, ...], Path] = {}
    empty = folder / "empty.png"
    cv2.imwrite(str(empty), np.full((SIZE[1], SIZE[0], 3), (40, 110, 30), np.uint8))
    photos[("empty",)] = empty
    for n, scene in enumerate(scenes):
        if scene in photos:
            continue
        kind, *words = scene
        if kind == "dice":
            counts = {face: int(v) for face, v in (w.split("=") for w in words)}
            image = dice_photo(counts, reader, seed=1000 * n)
        else:
            image = card_photo(words[0], reader, seed=n)
        path = folder / f"{n:02d}-{kind}.png"
        cv2.imwrite(str(path), image)
        photos[scene] = path
    return photos


def started(night: GameNight) -> Iterator[GameNight]:
    try:
        night.start_vision()
        for seat in range(1, len(TRACKERS) + 1):
            night.start_tracker(seat, check=False)
        yield night
    finally:
        night.close()
