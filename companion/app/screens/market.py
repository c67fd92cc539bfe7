"""The table of The Rune Market: the market, every player's shelters, runes and score.

Interest is computed by the engine and shown for the active player to
collect with one tap. Purchases and hand cards open an action form built
from the action's own declaration (its fields and their types), so every
option of every action is on the screen without a form written per action:
a colour is a pair of toggles, a player a row of names, number cards a pad
of card values, a shelter the labels of the shelters in play.
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import (
    BooleanProperty, ListProperty, ObjectProperty, StringProperty,
)
from kivy.uix.modalview import ModalView

from companion.core.actions import Action, Param
from companion.core.content import load as load_content
from companion.core.rules import rules_for

from ..app import AppScreen
from ..strings import t
from ..widgets import make

__all__ = ["ActionForm", "MarketTableScreen"]

PLAYER_FIELDS = ("victim", "victim2", "defender", "winner")
"""Fields that name another player."""
SHELTER_FIELDS = ("shelter", "outpost", "main")


def _runes(runes: dict[str, Any]) -> str:
    return t("mk.runes", red=runes["red"], blue=runes["blue"])


class MarketTableScreen(AppScreen):
    turn_text = StringProperty("")
    phase = StringProperty("")
    market_text = StringProperty("")
    interest_text = StringProperty("")
    interest_total = StringProperty("")
    outcome_text = StringProperty("")
    tie_break = StringProperty("")
    """What the tie-break waits for: ``high_cards``, ``rps`` or ""."""
    over = BooleanProperty(False)
    active = StringProperty("")

    def refresh(self) -> None:
        state = self.app.state
        if state.get("game") != "market":
            return
        self.title = t("game.market")
        self.active = state["turn"] or ""
        self.phase = state["phase"]
        self.turn_text = t("mk.turn", player=self.active)
        market = state["market"]
        self.market_text = t("mk.market", **market)
        if state["interest"]:
            what = ", ".join(f"{i['runes']} {i['colour']} → {i['shelter']}"
                             for i in state["interest"])
            self.interest_text = t("mk.interest", player=self.active, what=what)
        else:
            self.interest_text = ""
        self.interest_total = t("mk.collect", n=state["interest_total"])
        self._draw_players(state)
        outcome = state["outcome"]
        self.over = state["phase"] == "over"
        self.tie_break = (outcome or {}).get("waiting_for") or ""
        if outcome:
            lines = [t("mk.final") + ": " + ", ".join(
                f"{p['name']} {s}" for p, s in zip(state["players"], outcome["scores"]))]
            if outcome.get("winner"):
                lines.append(t("table.over", result=f"{outcome['winner']} won"))
            if outcome.get("decided_by"):
                lines.append(t("mk.tie_break", how=outcome["decided_by"]))
            self.outcome_text = "\n".join(lines)
        else:
            self.outcome_text = ""
        self.ids.undo.disabled = not self.app.controller.can_undo
        self.ids.redo.disabled = not self.app.controller.can_redo

    def _draw_players(self, state: dict[str, Any]) -> None:
        grid = self.ids.players
        players = state["players"]
        if len(grid.children) != len(players):
            grid.clear_widgets()
            grid.cols = 2 if len(players) <= 4 else 3
            for _ in players:
                grid.add_widget(make("MarketPlayer"))
        for panel, p in zip(reversed(grid.children), players):
            panel.name = p["name"]
            panel.colour = p["colour"]
            panel.active = p["active"] and not self.over
            panel.score = str(p["score"])
            panel.runes = _runes(p["runes"])
            shelters = []
            for s in p["shelters"]:
                text = t("mk.shelter", label=s["label"], runes=s["runes"])
                if s.get("outpost"):
                    text += " +outpost"
                if s.get("bandit"):
                    text += f" ({t('mk.bandit_in', owner=s['bandit'])})"
                shelters.append(text)
            panel.detail = "\n".join(shelters + [t("mk.hand", n=p["hand_count"])])

    # -- acting ----------------------------------------------------------------------------

    def collect(self) -> None:
        self.app.act(f"collect {self._seat()}")

    def decline(self) -> None:
        self.app.act(f"decline {self._seat()}")

    def end_turn(self) -> None:
        self.app.act(f"end_turn {self._seat()}")

    def _seat(self) -> int:
        return int(next(p["seat"] for p in self.app.state["players"] if p["name"] == self.active))

    def open_form(self, verb: str) -> None:
        ActionForm(screen=self, verb=verb).open()


class ActionForm(ModalView):
    """A form for one action, built from its declared fields; the engine previews the result."""

    screen = ObjectProperty(None)
    verb = StringProperty("")
    heading = StringProperty("")
    outlook = StringProperty("")
    cards = ListProperty([])
    """Number cards tapped so far (for a ``cards`` field)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        state = self.screen.app.state
        self.values: dict[str, Any] = {}
        cls: type[Action] = rules_for("market").actions.lookup(self.verb)
        self.params = cls.params
        self.heading = t(f"mk.verb.{self.verb}")
        box = self.ids.fields
        for p in self.params:
            if p.name == "player":
                self.values["player"] = str(self.screen._seat())
                continue
            box.add_widget(make("Heading", text=t(f"mk.field.{p.name}")))
            box.add_widget(self._editor(p, state))
        self.update()

    def _editor(self, p: Param, state: dict[str, Any]) -> Any:
        if self.verb == "high_cards":
            return self._high_cards(state)
        if p.name == "cards" and p.kind == "numbers":
            deck = load_content("market/deck.toml")["hand"]
            grid = Factory.FormGrid(cols=7)
            for value in range(deck["number_min"], deck["number_max"] + 1):
                button = Factory.RButton(text=str(value), tag=f"card:{value}")
                button.bind(on_release=lambda w, v=value: self.add_card(v))
                grid.add_widget(button)
            clear = Factory.RButton(text=t("mk.clear"), tag="card:clear")
            clear.bind(on_release=lambda *_: self.clear_cards())
            grid.add_widget(clear)
            return grid
        if p.kind == "choice" or p.name in PLAYER_FIELDS or p.name in SHELTER_FIELDS:
            options = self._options(p, state)
            grid = Factory.FormGrid(cols=min(4, max(2, len(options))))
            for option in options:
                toggle = Factory.RToggle(text=str(option), group=f"{self.verb}:{p.name}",
                                         value=option, tag=f"field:{p.name}:{option}")
                toggle.bind(state=lambda w, s, name=p.name: self._choose(name, w.value, s))
                grid.add_widget(toggle)
            return grid
        if p.kind == "int":
            stepper = Factory.Stepper(value=p.default, minimum=p.minimum or 0, maximum=99,
                                      allow_none=p.optional, tag=f"field:{p.name}",
                                      default_text=t("setup.default"))
            stepper.bind(value=lambda w, v, name=p.name: self._set(name, v))
            return stepper
        if p.kind == "bool":
            toggle = Factory.RToggle(text=t(f"mk.field.{p.name}"), tag=f"field:{p.name}",
                                     size_hint_y=None, height=self.screen.app.u * 50)
            toggle.bind(state=lambda w, s, name=p.name: self._set(name, s == "down"))
            return toggle
        field = Factory.OptionText(hint_text=p.placeholder, tag=f"field:{p.name}")
        field.bind(text=lambda w, text, name=p.name: self._set(name, text.strip() or None))
        return field

    def _high_cards(self, state: dict[str, Any]) -> Any:
        """Tie-break III: each contender's highest number card (0: none in hand)."""
        grid = Factory.FormGrid(cols=2)
        self.high: dict[str, int] = {}
        for name in state["outcome"]["contenders"]:
            grid.add_widget(Factory.Label(text=name, font_size=self.screen.app.u * 17))
            stepper = Factory.Stepper(value=0, minimum=0, maximum=13, tag=f"high:{name}")
            stepper.bind(value=lambda w, v, name=name: self._high(name, v))
            grid.add_widget(stepper)
            self.high[name] = 0
        self.values["cards"] = [f"{n}:{v}" for n, v in self.high.items()]
        return grid

    def _high(self, name: str, value: int | None) -> None:
        self.high[name] = int(value or 0)
        self.values["cards"] = [f"{n}:{v}" for n, v in self.high.items()]
        self.update()

    def _options(self, p: Param, state: dict[str, Any]) -> list[str]:
        players = state["players"]
        if p.name in PLAYER_FIELDS:
            return [q["name"] for q in players if q["name"] != self.screen.active or p.name == "winner"]
        if p.name in SHELTER_FIELDS:
            labels: list[str] = []
            for q in players:
                labels += [s["label"] for s in q["shelters"] if s["label"] not in labels]
            return labels or ["red", "blue", "outpost"]
        return list(p.choices)

    def _choose(self, name: str, value: Any, state: str) -> None:
        if state == "down":
            self.values[name] = value
        elif self.values.get(name) == value:
            self.values.pop(name)
        self.update()

    def _set(self, name: str, value: Any) -> None:
        if value in (None, False):
            self.values.pop(name, None)
        else:
            self.values[name] = value
        self.update()

    def add_card(self, value: int) -> None:
        self.cards = [*self.cards, value]
        self.values["cards"] = list(self.cards)
        self.update()

    def clear_cards(self) -> None:
        self.cards = []
        self.values.pop("cards", None)
        self.update()

    def command(self) -> dict[str, Any]:
        return {"action": self.verb, **self.values}

    def update(self) -> None:
        preview = self.screen.app.controller.preview(self.command())
        cards = f"{' + '.join(map(str, self.cards))} = {sum(self.cards)}\n" if self.cards else ""
        self.outlook = cards + ("\n".join(str(e) for e in preview.events) if preview.ok
                                else (preview.error or ""))

    def enter(self) -> None:
        if self.screen.app.act(self.command()):
            self.dismiss()

