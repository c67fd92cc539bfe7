"""The desktop demo, ``runes-demo``: every part of a table, for real, on one machine.

One command starts, as separate processes that stop together (:mod:`companion.launcher`):

* a private Mosquitto on a free loopback port (anonymous: it listens on 127.0.0.1 only);
* the touchscreen app (``runes-app``) in a window, with the demo's own settings and journal
  under the user's state directory, table id ``demo``, the button panel on simulated pins
  (the keyboard stands in for it), and a Runes of Zun team game to start from;
* the camera process (``runes-vision watch``) replaying sample photos of Runecast dice and
  of cards, one scene every :data:`SCENE_SECONDS`; the photos are rendered at first run by
  the repository's own generators, with the taught dice faces and card deck the camera
  reads them with, and kept in the user's cache directory;
* LED trackers: the real firmware under the MicroPython unix port, one per seat, each
  sending its frames to a window that draws the rings (:mod:`companion.demo.leds`).

One Ctrl-C (or SIGTERM, or closing the app's window) stops all of it and leaves no process
behind. Logs are in ``<state>/logs/``.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import pwd
import shutil
import socket
import sys
import tempfile
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Demo", "main"]

log = logging.getLogger("companion.demo")

TABLE = "demo"
GAME = "zun players=Ann,Bob,Cid,Dee teams=Red:Ann+Cid,Blue:Bob+Dee locations=normal"
"""The game waiting in a new demo journal (the app resumes it)."""
SAMPLES_VERSION = 1
"""Bumped when the sample scenes change, so a cached set is made again (a change of the
camera's reader makes it again by itself: :func:`reader_stamp`)."""
SCENE_SECONDS = 25
"""How long the camera looks at each sample scene (one replayed frame a second)."""
LOCATIONS = ("Mirror Lake", "Ritual Grounds", "Rune Library")
LOKI_CARD = "FRR-FRF-FFR"
ROLLS = ({"hammer": 3, "snake": 3, "tree": 2}, {"hammer": 2, "snake": 4, "tree": 2},
         {"hammer": 1, "snake": 3, "tree": 4})
APP_SIZE = (800, 480)


def _home(variable: str, default: str) -> Path:
    return Path(os.environ.get(variable) or Path.home() / default)


@dataclass(frozen=True)
class Samples:
    """The camera's side of the demo: what it has been taught, and what it replays."""

    faces: Path
    deck: Path
    replay: Path


def reader_stamp(package: Path | None = None) -> str:
    """A checksum of the camera's reading code: the sources of ``package`` (by default the
    installed ``vision`` package).

    A sample is kept only if the reader reads it as what it shows, and a reader changed
    by an upgrade may read a kept sample otherwise (a side face taken for a die): the
    samples are made again when this changes."""
    if package is None:
        import vision

        package = Path(vision.__file__).parent
    stamp = 0
    for source in sorted(package.rglob("*.py")):
        stamp = zlib.crc32(source.relative_to(package).as_posix().encode(), stamp)
        stamp = zlib.crc32(source.read_bytes(), stamp)
    return f"{stamp:08x}"


def prepare_samples(cache: Path) -> Samples:
    """The sample scenes, rendered once into ``cache`` (a few seconds) and kept there
    until the reader changes; sets made for an earlier reader are removed."""
    root = cache / f"samples-v{SAMPLES_VERSION}-{reader_stamp()}"
    samples = Samples(root / "faces", root / "deck", root / "replay")
    if (root / "done").exists():
        return samples
    import cv2

    from vision.cards.deck import Deck
    from vision.dice.cli import make_reader
    from vision.watch import TrayReader

    from .samples import card_photo, deck_folder, dice_photo, face_folder

    print("Rendering the camera's sample photos (once)...", flush=True)
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="samples-", dir=cache))
    try:
        faces = face_folder(work / "faces")
        deck = deck_folder(work / "deck", [*LOCATIONS, LOKI_CARD, "RFR-FFF-FFR"])
        reader = TrayReader(make_reader(str(faces)), Deck.load(deck))
        scenes = [card_photo(LOCATIONS[0], reader), dice_photo(ROLLS[0], reader),
                  card_photo(LOCATIONS[1], reader), dice_photo(ROLLS[1], reader),
                  card_photo(LOKI_CARD, reader), dice_photo(ROLLS[2], reader),
                  card_photo(LOCATIONS[2], reader)]
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)  # half a sample set is no cache
        raise
    (work / "replay").mkdir()
    for n, scene in enumerate(scenes):
        first = work / "replay" / f"{n:02d}-00.png"
        cv2.imwrite(str(first), scene)
        # The camera sees a scene for a while: the same picture, linked, not copied.
        for k in range(1, SCENE_SECONDS):
            os.link(first, first.with_name(f"{n:02d}-{k:02d}.png"))
    (work / "done").touch()
    shutil.rmtree(root, ignore_errors=True)
    work.rename(root)
    for old in cache.glob("samples-v*"):
        if old != root:
            shutil.rmtree(old, ignore_errors=True)
    return samples


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _listening(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.2):
            return True
    except OSError:
        return False


class Demo:
    """The demo's files and processes; :meth:`run` starts them and waits for the end."""

    def __init__(self, state: Path, cache: Path, *, trackers: int = 4) -> None:
        self.state = state
        self.cache = cache
        # Ids as short as a seat number: the status corner shows them as T1, T2... beside
        # the screen's title, which has little room at 800×480.
        self.trackers = [str(n) for n in range(1, trackers + 1)]
        self.settings = state / "companion.toml"
        self.journal = state / "journal.sqlite"
        self.logs = state / "logs"
        self.port = _free_port()

    def prepare(self) -> Samples:
        """The samples, the settings (kept from run to run but for the port), the journal
        with a game to resume, and which tracker shows which seat."""
        from companion.app.settings import save_settings
        from companion.core.journal import Journal
        from companion.table import Table
        from companion.trackers import TrackerStore

        samples = prepare_samples(self.cache)
        self.logs.mkdir(parents=True, exist_ok=True)
        save_settings({
            "table": {"id": TABLE},
            "journal": {"path": str(self.journal)},
            "mqtt": {"host": "127.0.0.1", "port": self.port},
            "trackers": {"state_file": str(self.state / "trackers.json")},
            "panel": {"pins": "mock"},
            "app": {"hardware": "links"},
            "camera": {"source": str(samples.replay)},
            "vision": {"faces": str(samples.faces), "overlay_width": 640},
            "cards": {"deck": str(samples.deck)},
        }, self.settings)
        journal = Journal(self.journal)
        try:
            if journal.latest_unfinished() is None:
                Table(journal, table_id=TABLE).start("zun", GAME)
        finally:
            journal.close()
        store = TrackerStore(self.state / "trackers.json")
        if set(store.load()) != set(self.trackers):  # new, or left by an older demo
            store.save({t: {"kind": "firmware", "seat": n} for n, t in enumerate(self.trackers, 1)})
        return samples

    def _broker_config(self) -> Path:
        path = self.state / "mosquitto.conf"
        # Run as whoever runs the demo (as root, Mosquitto would drop to its own user, who
        # may not write the log here).
        user = pwd.getpwuid(os.geteuid()).pw_name
        path.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\n"
                        f"persistence false\nuser {user}\n"
                        f"log_dest file {self.logs / 'mosquitto-broker.log'}\n")
        return path

    def _tracker_settings(self, tracker: str, seat: int, frames: int) -> Path:
        folder = self.state / "trackers" / tracker
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "secrets.json"
        path.write_text(json.dumps({"id": tracker, "table": TABLE, "broker": "127.0.0.1",
                                    "port": self.port, "seat": seat, "brightness": 1.0,
                                    "frames": f"udp:127.0.0.1:{frames}"}, indent=1))
        return path

    def run(self) -> str:
        """Start everything, wait for Ctrl-C (or the app's window closing), stop everything."""
        from companion.firmware import FIRMWARE_DIR
        from companion.firmware.emulator import micropython_command, micropython_path
        from companion.firmware.libs import micropython_lib
        from companion.launcher import Launcher

        self.prepare()
        python = sys.executable
        env = {**os.environ, "RUNES_CONFIG": str(self.settings),
               "KIVY_HOME": str(self.state / "kivy")}
        ready = self.state / "leds.port"
        ready.unlink(missing_ok=True)
        firmware_path = micropython_path([FIRMWARE_DIR, micropython_lib()])
        broker = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        with Launcher(self.logs) as launcher:
            launcher.start("broker", [broker, "-c", str(self._broker_config())],
                           ready=lambda: _listening(self.port))
            launcher.start("leds", [python, "-m", "companion.demo.leds", "--trackers",
                                    ",".join(self.trackers), "--ready", str(ready),
                                    "--left", str(APP_SIZE[0] + 10)],
                           env=env, ready=ready.exists, timeout=60)
            frames = int(ready.read_text())
            launcher.start("app", [python, "-c", "from companion.app import main; "
                                   "raise SystemExit(main())",
                                   "--size", f"{APP_SIZE[0]}x{APP_SIZE[1]}"], env=env)
            launcher.start("vision", [python, "-m", "vision", "watch", "--publish", "--loop",
                                      "--fps", "1", "--config", str(self.settings)], env=env)
            for seat, tracker in enumerate(self.trackers, 1):
                settings = self._tracker_settings(tracker, seat, frames)
                launcher.start(f"tracker-{tracker}", [micropython_command(),
                               str(FIRMWARE_DIR / "main.py"), str(settings)],
                               env=firmware_path, cwd=settings.parent)
            print(f"The demo is running: the app, {len(self.trackers)} LED trackers, the "
                  f"camera replay and a broker on 127.0.0.1:{self.port}.\n"
                  f"Logs: {self.logs}. Ctrl-C stops everything.", flush=True)
            return launcher.wait(critical=("app", "broker"))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="runes-demo", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--trackers", type=int, default=4, choices=range(1, 9),
                        metavar="N", help="LED trackers, one per seat (1-8, default 4)")
    parser.add_argument("--state", type=Path, default=None,
                        help="the demo's settings, journal and logs "
                             "(default: ~/.local/state/runes/demo)")
    parser.add_argument("--cache", type=Path, default=None,
                        help="the rendered sample photos (default: ~/.cache/runes/demo)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="runes-demo: %(message)s")
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        print("runes-demo: no display: the demo's windows need a desktop session "
              "(or a virtual screen: xvfb-run runes-demo)", file=sys.stderr)
        return 2
    state = args.state or _home("XDG_STATE_HOME", ".local/state") / "runes" / "demo"
    cache = args.cache or _home("XDG_CACHE_HOME", ".cache") / "runes" / "demo"
    try:
        why = Demo(state, cache, trackers=args.trackers).run()
    except KeyboardInterrupt:
        why = "stop requested"
    except RuntimeError as e:
        print(f"runes-demo: {e}", file=sys.stderr)
        return 1
    print(f"runes-demo: {why}; everything is stopped.", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
