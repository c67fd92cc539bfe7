"""Setup: the players and every option of a game, read from the game's Setup record.

The options are not written per game: each field of the engine's setup
record (``ZunSetup``: ``hp``, ``locations``, ``deck``, ``first``...) becomes
an editor by its type (a choice is a row of toggles, a whole number a
stepper, yes/no a toggle, a list of names a set of toggles when the game can
name the choices). A new option in an engine appears here with no change.

``players``, ``teams`` and ``colours`` are edited together in the players
list. The finished setup is the same JSON the command line accepts; the
engine checks it, and a refusal is shown without starting anything.
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import StringProperty

from companion.core.actions import Param
from companion.core.content import load as load_content
from companion.core.rules import rules_for

from ..app import AppScreen
from ..widgets import make
from ..strings import t

__all__ = ["SetupScreen", "table_palette"]

MAX_PLAYERS = 8
"""The most the table screen lays out; an engine may allow fewer."""
PLAYER_FIELDS = ("players", "teams", "colours")
HIDDEN_FIELDS = ("seed",)
"""Drawn by the session, never asked."""


def table_palette() -> list[tuple[str, str]]:
    """The table's colours as (name, #rrggbb), in seat order: the LED trackers use them too."""
    colours = load_content("zun/defaults.toml").get("colours", {})
    names = {v.lower(): k for k, v in colours.get("names", {}).items()}
    return [(names.get(hex_.lower(), hex_).capitalize(), hex_) for hex_ in colours.get("palette", [])]


def option_choices(game: str, param: Param) -> list[str] | None:
    """Names a list option picks from, where the game can name them (Zun's Location deck)."""
    sources = {("zun", "deck"): ("zun/locations.toml", "location"),
               ("runecast", "characters"): ("runecast/characters.toml", "character"),
               ("runecast", "boards"): ("runecast/battles.toml", "battle")}
    source = sources.get((game, param.name))
    if source is None:
        return None
    return [entry["name"] for entry in load_content(source[0]).get(source[1], [])]


class SetupScreen(AppScreen):
    game = StringProperty("zun")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.players: list[dict[str, Any]] = []
        self.options: dict[str, Any] = {}
        self.params: list[Param] = []
        self.tracker_seats: dict[str, int | None] = {}
        self.palette = table_palette()

    # -- model -----------------------------------------------------------------------

    def begin(self, game: str) -> None:
        """A fresh setup of ``game`` with two players and every option at its default."""
        self.game = game
        rules = rules_for(game)
        self.params = [p for p in rules.setup_type.params
                       if p.name not in PLAYER_FIELDS + HIDDEN_FIELDS]
        self.fields = {p.name for p in rules.setup_type.params}
        self.players = []  # the names "Player N" are counted from the new list
        for i in range(2):
            self.players.append(self._new_player(i))
        self.options = {p.name: p.default for p in self.params}
        self.tracker_seats = self.app.hardware.trackers.assignments()
        self._build_players()
        self._build_options()

    def _new_player(self, index: int) -> dict[str, Any]:
        used = {p["name"].casefold() for p in self.players}
        n = index + 1
        while f"player {n}" in used:
            n += 1
        return {"name": f"Player {n}", "colour": index % len(self.palette), "team": None}

    def add_player(self) -> None:
        if len(self.players) >= MAX_PLAYERS:
            self.app.say(t("setup.max_players", game=t(f"game.{self.game}"), maximum=MAX_PLAYERS))
            return
        self.players.append(self._new_player(len(self.players)))
        self._build_players()

    def remove_player(self, index: int) -> None:
        if len(self.players) <= 1:
            self.app.say(t("setup.min_players", game=t(f"game.{self.game}"), minimum=1))
            return
        del self.players[index]
        self._build_players()

    def move_player(self, index: int, delta: int) -> None:
        other = index + delta
        if 0 <= other < len(self.players):
            self.players[index], self.players[other] = self.players[other], self.players[index]
            self._build_players()

    def rename(self, index: int, name: str) -> None:
        if index < len(self.players):
            self.players[index]["name"] = name

    def cycle_colour(self, index: int) -> None:
        player = self.players[index]
        player["colour"] = (player["colour"] + 1) % len(self.palette)
        self._build_players()

    def cycle_team(self, index: int) -> None:
        player = self.players[index]
        teams = min(4, len(self.palette))
        player["team"] = None if player["team"] == teams - 1 else (
            0 if player["team"] is None else player["team"] + 1)
        self._build_players()

    def setup_json(self) -> dict[str, Any]:
        """The setup as the engine reads it (the command line's JSON form)."""
        doc: dict[str, Any] = {"action": self.game,
                               "players": [p["name"].strip() for p in self.players]}
        teamed = any(p["team"] is not None for p in self.players)
        if "teams" in self.fields and teamed:
            teams: dict[int, list[str]] = {}
            for p in self.players:
                if p["team"] is not None:  # a player left without a team: the engine says so
                    teams.setdefault(p["team"], []).append(p["name"].strip())
            doc["teams"] = [f"{self.palette[i][0]}:" + "+".join(members)
                            for i, members in sorted(teams.items())]
        if "colours" in self.fields:
            doc["colours"] = [self.palette[p["team"] if teamed and p["team"] is not None
                                           else p["colour"]][1] for p in self.players]
        for param in self.params:
            value = self.options.get(param.name)
            if value is not None and value != param.default and value != ():
                doc[param.name] = list(value) if isinstance(value, tuple) else value
        return doc

    def start(self) -> None:
        names = [p["name"].strip() for p in self.players]
        seen: set[str] = set()
        for name in names:
            if name.casefold() in seen:
                self.app.say(t("setup.name_taken", name=name))
                return
            seen.add(name.casefold())
        result = self.app.controller.new_game(self.game, self.setup_json())
        if not result.ok:
            self.app.say(result.error or "?")
            return
        trackers = self.app.hardware.trackers
        for tracker, seat in self.tracker_seats.items():
            trackers.assign(tracker, seat if seat is None or seat <= len(names) else None)
        self.app.redraw()
        self.app.go("table")

    # -- drawing -----------------------------------------------------------------------

    def refresh(self) -> None:
        self.title = t("setup.title", game=t(f"game.{self.game}"))

    def _build_players(self) -> None:
        """Show the players; rows are reused, so a quick second tap finds its button in place."""
        box = self.ids.players
        rows = list(reversed(box.children))
        while len(rows) > len(self.players):
            box.remove_widget(rows.pop())
        while len(rows) < len(self.players):
            rows.append(make("PlayerRow", index=len(rows)))
            box.add_widget(rows[-1])
        teamed = any(p["team"] is not None for p in self.players)
        for row, p in zip(rows, self.players):
            row.has_teams = "teams" in self.fields
            if row.ids.name.text != p["name"]:
                row.ids.name.text = p["name"]
            colour = self.palette[p["team"] if teamed and p["team"] is not None else p["colour"]]
            row.colour = colour[1]
            row.team_text = (t("setup.team_none") if p["team"] is None
                             else self.palette[p["team"]][0])
        self._build_first()

    def _build_options(self) -> None:
        box = self.ids.options
        box.clear_widgets()
        for p in self.params:
            box.add_widget(make("Heading", text=t(f"option.{p.name}")))
            if p.name == "first":
                row = Factory.OptionRow()
                button = Factory.RButton(tag="option:first")
                button.bind(on_release=lambda *_: self._cycle_first())
                row.add_widget(button)
                self._first_button = button
                box.add_widget(row)
                self._build_first()
            elif p.kind == "choice":
                row = Factory.ChoiceGrid() if len(p.choices) > 3 else Factory.OptionRow()
                for choice in p.choices:
                    toggle = Factory.RToggle(text=t(f"option.{p.name}.{choice}"),
                                             group=f"option:{p.name}", value=choice,
                                             tag=f"option:{p.name}:{choice}",
                                             allow_no_selection=False,
                                             state="down" if choice == self.options[p.name] else "normal")
                    toggle.bind(on_release=lambda w, name=p.name: self._set(name, w.value))
                    row.add_widget(toggle)
                box.add_widget(row)
            elif p.kind == "int":
                stepper = Factory.Stepper(value=self.options[p.name], tag=f"option:{p.name}",
                                          minimum=p.minimum if p.minimum is not None else 0,
                                          maximum=p.maximum if p.maximum is not None else 99,
                                          allow_none=p.optional, default_text=t("setup.default"))
                stepper.bind(value=lambda w, v, name=p.name: self._set(name, v))
                box.add_widget(stepper)
            elif p.kind == "bool":
                row = Factory.OptionRow()
                toggle = Factory.RToggle(text=t("setup.yes"), tag=f"option:{p.name}",
                                         state="down" if self.options[p.name] else "normal")
                toggle.bind(state=lambda w, s, name=p.name: self._set(name, s == "down"))
                row.add_widget(toggle)
                box.add_widget(row)
            elif p.kind == "tuple" and (choices := option_choices(self.game, p)) is not None:
                grid = Factory.ChoiceGrid()
                for choice in choices:
                    toggle = Factory.RToggle(text=choice, value=choice, tag=f"option:{p.name}:{choice}")
                    toggle.bind(state=lambda w, s, name=p.name: self._toggle_item(name, w.value, s))
                    grid.add_widget(toggle)
                box.add_widget(grid)
            else:
                field = Factory.OptionText(hint_text=p.placeholder)
                field.bind(text=lambda w, text, param=p: self._set_text(param, text))
                box.add_widget(field)
        box.add_widget(make("Heading", text=t("setup.trackers")))
        trackers = self.app.hardware.trackers.trackers()
        if not trackers:
            box.add_widget(make("Body", text=t("setup.no_trackers")))
        for tracker in trackers:
            row = make("TrackerRow", tracker=tracker)
            row.seat_text = self._seat_text(self.tracker_seats.get(tracker))
            box.add_widget(row)

    def _set(self, name: str, value: Any) -> None:
        self.options[name] = value

    def _set_text(self, param: Param, text: str) -> None:
        if param.kind == "tuple":
            self.options[param.name] = tuple(w.strip() for w in text.split(",") if w.strip())
        else:
            self.options[param.name] = text.strip() or None

    def _toggle_item(self, name: str, item: str, state: str) -> None:
        chosen = [c for c in self.options.get(name) or () if c != item]
        if state == "down":
            chosen.append(item)
        self.options[name] = tuple(chosen)

    def _cycle_first(self) -> None:
        names = [p["name"] for p in self.players]
        current = self.options.get("first")
        i = names.index(current) + 1 if current in names else 1
        self.options["first"] = None if i >= len(names) else names[i]
        self._build_first()

    def _build_first(self) -> None:
        button = getattr(self, "_first_button", None)
        if button is None:
            return
        names = [p["name"] for p in self.players]
        if self.options.get("first") not in names:
            self.options["first"] = None
        first = self.options.get("first")
        button.text = first if first is not None else f"{t('setup.first_default')} ({names[0]})"

    def _seat_text(self, seat: int | None) -> str:
        return t("setup.seat_none") if seat is None else t("setup.seat", seat=seat)

    def cycle_tracker(self, row: Any) -> None:
        seat = self.tracker_seats.get(row.tracker)
        seat = 1 if seat is None else (None if seat >= len(self.players) else seat + 1)
        self.tracker_seats[row.tracker] = seat
        row.seat_text = self._seat_text(seat)

    def blink(self, tracker: str) -> None:
        self.app.hardware.trackers.blink(tracker)
