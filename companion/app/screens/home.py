"""Home: a new game of each of the three games, the last game, the saved games."""

from __future__ import annotations

import time

from kivy.factory import Factory

from ..app import AppScreen
from ..widgets import make
from ..strings import t

__all__ = ["HomeScreen"]


class HomeScreen(AppScreen):
    def refresh(self) -> None:
        self.title = t("home.title")
        available = self.app.controller.available_games()
        for game, button in (("zun", self.ids.new_zun), ("runecast", self.ids.new_runecast),
                             ("market", self.ids.new_market)):
            button.bg = Factory.RButton().bg if available[game] else (0.2, 0.2, 0.22, 1)
        listing = self.ids.saved
        listing.clear_widgets()
        games = self.app.controller.saved_games()
        self.ids.resume_last.disabled = not any(g.status == "active" for g in games)
        if not games:
            listing.add_widget(make("Body", text=t("home.none_saved")))
        for info in games[:30]:
            when = time.strftime("%d %b %H:%M", time.localtime(info.updated))
            line = make("SavedGame")
            line.game_id = info.id
            line.text = t("home.game_line", id=info.id, game=t(f"game.{info.rules}"),
                          status=t(f"status.{info.status}"),
                          actions=self.app.controller.actions_stored(info.id), when=when)
            listing.add_widget(line)

    def new_game(self, game: str) -> None:
        if not self.app.controller.available_games()[game]:
            self.app.say(t("home.not_available", game=t(f"game.{game}")))
            return
        self.app.screen("setup").begin(game)
        self.app.go("setup")

    def resume(self, game_id: int | None) -> None:
        result = self.app.controller.resume(game_id)
        if not result.ok:
            self.app.say(result.error or "?")
            return
        self.app.go("table")

    def archive(self, game_id: int) -> None:
        result = self.app.controller.archive(game_id)
        if not result.ok:
            self.app.say(result.error or "?")
        self.app.redraw()
        self.refresh()
