"""Screenshots of every screen of every game, and the layout check of each.

    python -m companion.app.screenshots                  # docs/screenshots/, 800×480
    python -m companion.app.screenshots --size 1920x1080 --out /tmp/big --check

The app runs for real (on simulated hardware and a throw-away journal) and a
scripted tour plays each game to an interesting point, shows each screen and
sheet, saves what the window shows, and checks it (:mod:`companion.app.layout`:
no text overflowing its widget, every touch target at least 9 mm on the 7"
display). ``--check`` makes any problem the exit status. Without a display, the
tour starts its own Xvfb.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

__all__ = ["main"]

Scene = tuple[str, Callable[[Any], None]]


def _play(app: Any, *commands: str) -> None:
    for command in commands:
        result = app.controller.play(command)
        if not result.ok:
            raise RuntimeError(f"tour: {command!r} refused: {result.error}")
    app.redraw()


def _start(app: Any, game: str, setup: str, *commands: str) -> None:
    result = app.controller.new_game(game, setup)
    if not result.ok:
        raise RuntimeError(f"tour: {game} {setup!r} refused: {result.error}")
    _play(app, *commands)
    app.go("table")


def _sheet(kind: str, **props: Any) -> Callable[[Any], None]:
    def open_it(app: Any) -> None:
        from kivy.factory import Factory

        app.go("table")
        getattr(Factory, kind)(screen=app.screen("table"), **props).open()

    return open_it


def _pending(tag: str, delta: int) -> Callable[[Any], None]:
    def press(app: Any) -> None:
        app.go("table")
        card = next(c for c in app.screen("table").cards if c.name == tag)
        card.bump(delta)

    return press


def _setup(game: str) -> Callable[[Any], None]:
    def show(app: Any) -> None:
        app.screen("setup").begin(game)
        app.go("setup")

    return show


def _reading(kind: str, *what: str) -> Callable[[Any], None]:
    def show(app: Any) -> None:
        from .adapters import demo_card, demo_dice

        app.show_reading(demo_dice(list(what)) if kind == "dice" else demo_card(what[0]))

    return show


def _photographed(counts: dict[str, int]) -> Callable[[Any], None]:
    """A settled reading as the camera process sends it: a rendered photo of Runecast dice,
    read by the camera process's own reader (with its real boxes and confidences)."""
    def show(app: Any) -> None:
        from companion.demo.samples import dice_photo, face_folder
        from vision.dice.cli import make_reader
        from vision.watch import TrayReader

        from .adapters import DieSeen, Reading

        with tempfile.TemporaryDirectory(prefix="runes-tour-") as faces:
            reader = TrayReader(make_reader(str(face_folder(Path(faces)))))
        photo = dice_photo(counts, reader)
        dice = tuple(DieSeen(d.face, d.box, d.confidence) for d in reader.read(photo).dice.dice)
        app.show_reading(Reading("dice", photo, dice))

    return show


def _loki_roll(app: Any) -> None:
    """Every hero rolls (one hammer, one snake, the rest trees), then Loki's roll pad opens."""
    while app.controller.state()["phase"] == "turn":
        hero = next(h for h in app.controller.state()["players"] if h["active"])
        pool = hero["dice_pool"]
        if pool >= 2:
            _play(app, f"roll 1 1 {pool - 2}")
        _play(app, "next")
    pool = app.controller.state()["loki_pool"]
    app.screen("table").open_roll({"hammers": pool // 3, "snakes": pool // 3,
                                   "trees": pool - 2 * (pool // 3)}, "RFR-FRR-RRF")


def _settings(tab: str, *, calibrate: bool = False) -> Callable[[Any], None]:
    def show(app: Any) -> None:
        app.go("settings")
        screen = app.screen("settings")
        screen.show_tab(tab)
        if calibrate:
            screen.calibrate("tray")

    return show


def _panel_drawer(app: Any) -> None:
    """The on-screen panel of the desktop demo, open over the table."""
    app.go("table")
    app.panel_strip = app.panel_open = True


def scenes() -> Iterator[Scene]:
    """The tour: (file name, what to do before the picture)."""
    yield "home-empty", lambda app: app.go("home")
    yield "settings", _settings("broker")
    yield "settings-camera", _settings("camera", calibrate=True)
    yield "settings-trackers", _settings("trackers")
    yield "settings-pins", _settings("pins")
    # Runes of Zun: teams, Tourist Locations, a game under way.
    yield "zun-setup", _setup("zun")
    yield "zun-table", lambda app: _start(
        app, "zun", "players=Ann,Bob,Cid,Dee teams=Red:Ann+Cid,Blue:Bob+Dee locations=tourist",
        "damage Bob 5", "next", "damage Cid 9", "overdraw Dee 2", "effect Ann Defend prevents",
        "next", "next")
    yield "zun-table-preview", _pending("Bob", -3)
    yield "zun-panel", _panel_drawer
    yield "zun-player-sheet", _sheet("PlayerSheet", seat=1)
    yield "zun-history", lambda app: app.go("history")
    yield "zun-plots", lambda app: app.go("plots")
    yield "zun-table-8", lambda app: _start(
        app, "zun", "players=Ann,Bob,Cid,Dee,Eve,Finnegan,Gus,Hal locations=normal",
        "damage Ann 4", "damage Finnegan 12", "next")
    yield "zun-table-8-preview", _pending("Bob", -2)
    yield "zun-location-sheet", _sheet("LocationSheet")
    yield "zun-camera", _reading("card", "Mirror Lake")  # the Action phase: Purge, Scramble, Swap
    yield "zun-table-over", lambda app: _start(app, "zun", "players=Ann,Bob", "defeat Bob")
    # Runecast: a round and Loki's roll.
    yield "runecast-setup", _setup("runecast")
    yield "runecast-table", lambda app: _start(
        app, "runecast", "players=Ann,Bob,Cid seed=5", "roll 1 5 2", "next", "roll 1 5 2",
        "next", "roll 1 5 2", "next", "loki_roll hammers=5 snakes=6 trees=4 card=RFR,FRR,FFF",
        "damage Cid 3")
    yield "runecast-roll", lambda app: app.screen("table").open_roll({"hammers": 1, "snakes": 1})
    yield "runecast-hero-sheet", _sheet("HeroSheet", seat=2)
    yield "runecast-loki-roll", _loki_roll
    yield "runecast-camera", _photographed({"hammer": 3, "snake": 2, "tree": 3})
    yield "runecast-history", lambda app: app.go("history")
    yield "runecast-plots", lambda app: app.go("plots")
    # The Rune Market: shelters, runes, interest due.
    yield "market-setup", _setup("market")
    yield "market-table", lambda app: _start(
        app, "market", "players=Ann,Bob,Cid", "shelter Ann red", "buy_rune Ann red cards=5",
        "store Ann red", "end_turn Ann", "shelter Bob blue", "buy_rune Bob blue cards=10",
        "end_turn Bob", "buy_rune Cid red cards=7,8", "end_turn Cid")
    yield "market-form", lambda app: app.screen("table").open_form("buy_bandit")
    yield "market-history", lambda app: app.go("history")
    yield "market-plots", lambda app: app.go("plots")
    yield "market-camera", _reading("card", "RFR")
    yield "market-over", lambda app: _start(
        app, "market", "players=Ann,Bob red=1 blue=1", "buy_rune Ann red cards=5",
        "end_turn Ann", "buy_rune Bob blue cards=5", "high_cards cards=Ann:12,Bob:9")
    yield "home", lambda app: app.go("home")


def _reset(app: Any) -> None:
    """Close what the last scene opened: sheets, and the on-screen panel."""
    from kivy.core.window import Window
    from kivy.uix.modalview import ModalView

    for widget in list(Window.children):
        if isinstance(widget, ModalView):
            widget.dismiss(animation=False)
    app.panel_strip = app.panel_open = False


def run_tour(out: Path, size: tuple[int, int]) -> dict[str, list[str]]:
    """Take every screenshot into ``out``; returns each scene's layout problems."""
    from . import configure_kivy

    configure_kivy(size)
    from kivy.clock import Clock
    from kivy.core.window import Window

    from companion.config import Config

    from . import layout
    from .launch import build_app

    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="runes-tour-"))
    # Made-up devices and a throw-away journal: the tour never touches a real table. The
    # screens are shown as the touchscreen shows them: without the desktop's on-screen
    # panel, which has a scene of its own.
    settings = Config(work / "companion.toml",
                      {"app": {"hardware": "simulated", "onscreen_panel": "hide"}})
    app = build_app(settings, journal=work / "journal.sqlite")
    problems: dict[str, list[str]] = {}
    tour = iter(scenes())
    state: dict[str, Any] = {"scene": None, "frames": 0}

    def step(_dt: float) -> None:
        if state["scene"] is None:
            try:
                name, action = next(tour)
            except StopIteration:
                app.stop()
                return
            _reset(app)
            app.clear_message()
            action(app)
            state["scene"], state["frames"] = name, 0
            return
        state["frames"] += 1
        if state["frames"] < 6:  # let layouts settle and labels fit
            return
        name = state["scene"]
        saved = Window.screenshot(name=str(out / f"{name}.png"))
        Path(saved).replace(out / f"{name}.png")
        problems[name] = [str(p) for p in layout.check(app.u)]
        state["scene"] = None

    def begin(*_: Any) -> None:
        # Returns None: a true value would stop the app's own on_start.
        Clock.schedule_interval(step, 0.05)

    app.bind(on_start=begin)
    app.run()
    return problems


def main(argv: list[str] | None = None) -> int:
    from . import _size

    parser = argparse.ArgumentParser(prog="python -m companion.app.screenshots",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--size", type=_size, default=(800, 480))
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if any screen has overflowing text or a too small target")
    args = parser.parse_args(argv)
    screen = None
    if not os.environ.get("DISPLAY"):
        from .display import VirtualScreen

        screen = VirtualScreen()
        os.environ["DISPLAY"] = screen.display
    started = time.perf_counter()
    try:
        problems = run_tour(args.out, args.size)
    finally:
        if screen is not None:
            screen.close()
    total = sum(len(p) for p in problems.values())
    for name, found in problems.items():
        for problem in found:
            print(f"{name}: {problem}")
    print(f"{len(problems)} screens saved to {args.out} in {time.perf_counter() - started:.1f} s; "
          f"{total} layout problem(s)")
    return 1 if args.check and total else 0


if __name__ == "__main__":
    sys.exit(main())
