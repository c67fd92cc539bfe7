"""The table of Runes of Zun: every player's HP, big, with the turn, the phase and the Location.

−/+ on a player's card do not act at once: they build a pending change whose
result the engine computes (a heal stops at the tier, a Defend prevents the
damage) and the card shows, big, before OK lands it. Everything else a card
game needs (overdraw, underdraw, revive, set, ongoing effects) is on the
player's sheet, opened by tapping the player's name.
"""

from __future__ import annotations

from typing import Any

from kivy.factory import Factory
from kivy.properties import (
    BooleanProperty, NumericProperty, ObjectProperty, StringProperty,
)
from kivy.uix.modalview import ModalView

from ..app import AppScreen
from .cards import HpCard, seat_cards
from ..widgets import make
from ..strings import t

__all__ = ["LocationSheet", "PlayerSheet", "ZunTableScreen"]


class ZunTableScreen(AppScreen):
    round_text = StringProperty("")
    turn_text = StringProperty("")
    turn_colour = StringProperty("#ffffff")
    phase = StringProperty("start")
    location_name = StringProperty("")
    location_detail = StringProperty("")
    reminders = StringProperty("")
    over_text = StringProperty("")
    can_mulligan = BooleanProperty(False)
    can_change_location = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cards: list[HpCard] = []

    # -- drawing ---------------------------------------------------------------------

    def refresh(self) -> None:
        state = self.app.state
        if state.get("game") != "zun":
            return
        self.title = t("game.zun")
        players = state["players"]
        for card, p in zip(seat_cards(self, players, state["tier_size"]), players):
            card.subtitle = t("table.team", team=p["team"]) if p["team"] else ""
            card.defeated, card.active = p["defeated"], p["active"] and not state["over"]
            winner = state["over"] and state["winner"] in (p["name"], p["team"])
            card.status = (t("table.winner") if winner else
                           t("table.defeated") if p["defeated"] else "")
            card.detail = ", ".join(e["name"] for e in p["effects"])
            self.preview(card)
        active = next(p for p in players if p["name"] == state["turn"])
        self.round_text = t("table.round", round=state["round"])
        self.turn_text = t("table.turn", player=state["turn"])
        self.turn_colour = active["colour"]
        self.phase = state["phase"]
        self.can_mulligan = (state["phase"] == "start" and not state["mulligan_used"]
                             and not state["travelled"] and not state["over"])
        self.over_text = t("table.over", result=state["result"]) if state["over"] else ""
        self._draw_location(state)
        self.reminders = "\n".join(state["reminders"])
        self.ids.undo.disabled = not self.app.controller.can_undo
        self.ids.redo.disabled = not self.app.controller.can_redo

    def _draw_location(self, state: dict[str, Any]) -> None:
        locs = state["locations"]
        self.can_change_location = locs["mode"] == "normal" and not state["over"]
        active = locs["active"]
        if active is None:
            self.location_name = t("table.no_location")
            self.location_detail = ""
            return
        self.location_name = active["name"]
        lines = []
        if active.get("challenge") is not None:
            lines.append(t("table.challenge", challenge="◆" * active["challenge"] or "0"))
        if locs["rounds_left"] is not None:
            left = locs["rounds_left"]
            lines.append(t("table.tourist_last") if left <= 1 else t("table.tourist_left", rounds=left))
        for effect in active["effects"]:
            if effect["phase"] in ("always", "turn", state["phase"]):
                lines.append(f"{effect['timing']}: {effect['text']}")
        self.location_detail = "\n".join(lines)

    # -- pending changes ---------------------------------------------------------------

    def command_for(self, card: HpCard) -> str | None:
        if card.pending < 0:
            return f"damage {card.seat} {-card.pending}"
        if card.pending > 0:
            return f"{'revive' if card.defeated else 'heal'} {card.seat} {card.pending}"
        return None

    def preview(self, card: HpCard) -> None:
        """Show what the pending change would do, as the engine computes it."""
        command = self.command_for(card)
        card.shown_hp, card.shown_tier = card.hp, _tier(card.hp, card.tier_size)
        card.note = _tier_range(card.hp, card.tier_size, card.max_hp)
        if command is None:
            return
        preview = self.app.controller.preview(command)
        if not preview.ok:
            card.note = preview.error or ""
            card.pending = 0
            self.app.say(preview.error or "?")
            return
        after = preview.seat(card.seat)
        assert after is not None
        card.shown_hp, card.shown_tier = after["hp"], after["tier"]
        card.note = t("sheet.preview", before=card.hp, after=after["hp"])

    def apply(self, card: HpCard) -> None:
        command = self.command_for(card)
        if command is not None and self.app.act(command):
            card.pending = 0
            self.preview(card)

    # -- sheets --------------------------------------------------------------------

    def open_sheet(self, card: HpCard) -> None:
        PlayerSheet(screen=self, seat=card.seat).open()

    def open_location(self) -> None:
        if not self.can_change_location:
            return
        LocationSheet(screen=self).open()


def _tier(hp: int, size: int) -> int:
    return 0 if hp <= 0 else (hp - 1) // size + 1


def _tier_range(hp: int, size: int, max_hp: int) -> str:
    tier = _tier(hp, size)
    if tier == 0:
        return t("table.tier_down")
    return f"{(tier - 1) * size + 1}-{min(tier * size, max_hp)}"


class PlayerSheet(ModalView):
    """Everything that can happen to one player: HP actions and ongoing effects."""

    screen = ObjectProperty(None)
    seat = NumericProperty(1)
    heading = StringProperty("")
    outlook = StringProperty("")
    immune = BooleanProperty(False)
    uptier = BooleanProperty(False)
    when = StringProperty("start")
    prevents = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._unbind = self.screen.app.controller.subscribe(lambda *_: self.refresh())
        self.refresh()

    def on_dismiss(self) -> None:
        self._unbind()

    @property
    def player(self) -> dict[str, Any]:
        return self.screen.app.controller.state()["players"][self.seat - 1]  # type: ignore[no-any-return]

    def refresh(self) -> None:
        p = self.player
        self.heading = t("sheet.title", player=p["name"], hp=p["hp"])
        amount = int(self.ids.amount.value or 1)
        parts = []
        for label, command in ((t("sheet.damage"), self.command("damage", amount)),
                               (t("sheet.heal"), self.command("heal", amount))):
            preview = self.screen.app.controller.preview(command)
            after = preview.seat(self.seat) if preview.ok else None
            parts.append(f"{label}: {p['hp']} → {after['hp']}" if after else f"{label}: —")
        self.outlook = "   ".join(parts)
        box = self.ids.effects
        box.clear_widgets()
        for effect in p["effects"]:
            row = make("EffectRow", text=f"{effect['name']} ({t('sheet.when_' + effect['when'])})",
                                    effect=effect["name"], sheet=self)
            box.add_widget(row)

    def command(self, verb: str, amount: int) -> str:
        flags = {"damage": " immune" if self.immune else "",
                 "heal": " uptier" if self.uptier else "",
                 "revive": " uptier" if self.uptier else ""}.get(verb, "")
        return f"{verb} {self.seat} {amount}{flags}"

    def do(self, verb: str) -> None:
        amount = int(self.ids.amount.value or 1)
        command = {"set": f"set {self.seat} {amount}", "defeat": f"defeat {self.seat}",
                   "overdraw": f"overdraw {self.seat} {amount}",
                   "underdraw": f"underdraw {self.seat} {amount}"}.get(verb) or self.command(verb, amount)
        self.screen.app.act(command)

    def add_effect(self) -> None:
        name = self.ids.effect_name.text.strip()
        if not name:
            self.screen.app.say(t("sheet.effect_name"))
            return
        command = {"action": "effect", "player": str(self.seat), "name": name, "when": self.when,
                   "prevents": self.prevents}
        if self.screen.app.act(command):
            self.ids.effect_name.text = ""

    def discard_effect(self, name: str) -> None:
        self.screen.app.act({"action": "discard_effect", "player": str(self.seat), "name": name})


class LocationSheet(ModalView):
    """Changing the Location under the Normal rules: Travel, Purge, Scramble, Swap, Scry."""

    screen = ObjectProperty(None)
    drawn = StringProperty("")
    """The card the table actually drew, or "" for the top of the deck."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        locs = self.screen.app.state["locations"]
        grid = self.ids.drawn_choices
        top = Factory.RToggle(text=t("loc.top"), group="drawn", value="", state="down",
                              tag="drawn:", allow_no_selection=False)
        top.bind(on_release=lambda w: setattr(self, "drawn", w.value))
        grid.add_widget(top)
        for name in sorted(set(locs["deck"]) | set(locs["discard"])):
            toggle = Factory.RToggle(text=name, group="drawn", value=name, tag=f"drawn:{name}",
                                     allow_no_selection=False)
            toggle.bind(on_release=lambda w: setattr(self, "drawn", w.value))
            grid.add_widget(toggle)
        scry = self.ids.scry_choices
        for name in locs["deck"][:3]:
            button = Factory.RButton(text=f"{t('loc.scry')}: {name}", tag=f"scry:{name}")
            button.bind(on_release=lambda w, n=name: self.play({"action": "scry", "chosen": n}))
            scry.add_widget(button)

    def change(self, verb: str) -> None:
        command: dict[str, Any] = {"action": verb}
        if self.drawn:
            command["to"] = self.drawn
        self.play(command)

    def play(self, command: dict[str, Any]) -> None:
        if self.screen.app.act(command):
            self.dismiss()

