"""The table of Runecast: heroes' HP and dice pools, the battle, Loki's pool and the Thrall.

Rolls are entered on a pad of three counters (hammers, snakes, trees) that
must add up to the dice rolled; Loki's roll follows the rules' order on the
same pad: hammers and the Loki's Chosen card first, then snakes, then trees,
and the engine's preview shows each step's outcome before it is entered.
"""

from __future__ import annotations

from typing import Any

from kivy.properties import (
    BooleanProperty, DictProperty, NumericProperty, ObjectProperty, StringProperty,
)
from kivy.uix.modalview import ModalView

from ..app import AppScreen
from ..strings import t
from .cards import HpCard, seat_cards

__all__ = ["HeroSheet", "RollSheet", "RunecastTableScreen", "loki_steps"]


def loki_steps(roll: dict[str, Any] | None) -> list[str]:
    """Loki's roll as three lines in the rules' order: hammers, snakes, trees."""
    if not roll:
        return []
    hammers, snakes, trees = roll["hammers"], roll["snakes"], roll["trees"]
    card = " ".join(hammers.get("card") or [])
    hit = ", ".join(hammers.get("hit") or [])
    first = f"{t('rc.step_hammers')}: {hammers['count']} · {hammers['result']}"
    if card:
        first += f" · {card}"
    if hit:
        first += f" → {hit} −{hammers['damage']}"
    second = (f"{t('rc.step_snakes')}: {snakes['count']} of {snakes['needed']}"
              f"{' → special attack' if snakes.get('special_attack') else ''}")
    third = (f"{t('rc.step_trees')}: {trees['count']} of {trees['needed']}"
             f"{' → boon' if trees.get('boon') else ''}")
    return [first, second, third]


class RunecastTableScreen(AppScreen):
    turn_text = StringProperty("")
    round_text = StringProperty("")
    battle_text = StringProperty("")
    battle_detail = StringProperty("")
    wounds = NumericProperty(0)
    wounds_needed = NumericProperty(1)
    loki_text = StringProperty("")
    last_text = StringProperty("")
    over_text = StringProperty("")
    loki_phase = BooleanProperty(False)
    can_tree_heal = BooleanProperty(False)
    can_roll = BooleanProperty(False)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cards: list[HpCard] = []

    def refresh(self) -> None:
        state = self.app.state
        if state.get("game") != "runecast":
            return
        self.title = t("game.runecast")
        heroes = state["players"]
        over = state["over"]
        for card, h in zip(seat_cards(self, heroes, 4), heroes):
            card.subtitle = h["character"]
            card.defeated, card.active = not h["alive"], h["active"]
            marks = [t("rc.dice", n=h["dice_pool"])]
            if h["thrall"]:
                marks.append(t("rc.thrall_mark"))
            if h["death_token"]:
                marks.append("☥")
            card.detail = " · ".join(marks)
            card.status = (t("rc.agent") if h["agent_of_loki"] else
                           t("rc.fallen") if not h["alive"] else "")
            self.preview(card)
        self.loki_phase = state["phase"] == "loki"
        active = next((h for h in heroes if h["active"]), None)
        roller = state["thrall"]
        self.round_text = t("table.round", round=state["round"])
        self.turn_text = (t("rc.loki_phase", roller=roller) if self.loki_phase else
                          t("rc.turn", player=active["name"], dice=active["dice_pool"])
                          if active else "")
        battle = state["battle"]
        if battle is not None:
            self.battle_text = f"{battle['name']} · {t('rc.battle', number=battle['number'], total=battle['number'] + state['battles_left'] - 1)}"
            self.wounds, self.wounds_needed = battle["wounds"], battle["wounds_needed"]
            self.battle_detail = "\n".join((
                t("rc.special", snakes=battle["special"]["snakes"], text=battle["special"]["text"]),
                t("rc.boon", trees=battle["boon"]["trees"], text=battle["boon"]["text"])))
        pool = (t("rc.loki_pool_max", dice=state["loki_pool"], max=state["loki_max"])
                if state["loki_max"] else t("rc.loki_pool", dice=state["loki_pool"]))
        self.loki_text = "\n".join((f"{pool} · {t('rc.thrall', player=roller)}",
                                    t("rc.community", state=t("rc.available") if
                                      state["community_death_token"] else t("rc.spent"))))
        last = loki_steps(state["last_loki_roll"])
        self.last_text = (t("rc.last_loki", round=state["last_loki_roll"]["round"]) + "\n"
                          + "\n".join(last)) if last else ""
        self.can_roll = not over and (self.loki_phase or (active is not None and state["roll"] is None
                                                          and active["dice_pool"] > 0))
        self.can_tree_heal = not over and state["tree_heals_left"] > 0
        self.over_text = t("rc.over", outcome=state["outcome"]) if over else ""
        self.ids.undo.disabled = not self.app.controller.can_undo
        self.ids.redo.disabled = not self.app.controller.can_redo

    # -- the cards' −/+ ------------------------------------------------------------------

    def command_for(self, card: HpCard) -> str | None:
        if card.pending < 0:
            return f"damage {card.seat} {-card.pending}"
        if card.pending > 0:
            return f"heal {card.seat} {card.pending}"
        return None

    def preview(self, card: HpCard) -> None:
        command = self.command_for(card)
        card.shown_hp, card.shown_tier = card.hp, 0 if card.hp <= 0 else (card.hp - 1) // 4 + 1
        card.note = f"{card.hp} / {card.max_hp}"
        if command is None:
            return
        preview = self.app.controller.preview(command)
        if not preview.ok:
            card.pending = 0
            self.app.say(preview.error or "?")
            return
        after = preview.seat(card.seat)
        assert after is not None
        card.shown_hp = after["hp"]
        card.shown_tier = 0 if after["hp"] <= 0 else (after["hp"] - 1) // 4 + 1
        card.note = t("sheet.preview", before=card.hp, after=after["hp"])

    def apply(self, card: HpCard) -> None:
        command = self.command_for(card)
        if command is not None and self.app.act(command):
            card.pending = 0
            self.preview(card)

    def open_sheet(self, card: HpCard) -> None:
        HeroSheet(screen=self, seat=card.seat).open()

    def open_roll(self, counts: dict[str, int] | None = None, card: str = "") -> None:
        sheet = RollSheet(screen=self)
        if counts:
            sheet.set_counts(counts)
        if card:
            sheet.set_card(card)
        sheet.open()


class RollSheet(ModalView):
    """The roll pad: a hero's roll, or Loki's roll step by step with the card between."""

    screen = ObjectProperty(None)
    heading = StringProperty("")
    total_text = StringProperty("")
    loki = BooleanProperty(False)
    dice = NumericProperty(0)
    card_needed = BooleanProperty(False)
    card_note = StringProperty("")
    steps = StringProperty("")
    runes = DictProperty({})
    """(set, position) as "s,p" → "R" or "F": the Loki's Chosen card."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        state = self.screen.app.state
        self.loki = state["phase"] == "loki"
        sets = state["rules"]["card_sets"]
        self.runes = {f"{s},{p}": "R" for s in range(sets) for p in range(3)}
        if self.loki:
            self.dice = state["loki_pool"]
            self.heading = t("rc.loki_phase", roller=state["thrall"])
        else:
            active = next(h for h in state["players"] if h["active"])
            self.dice = active["dice_pool"]
            self.heading = t("rc.turn", player=active["name"], dice=self.dice)
        self.update()

    def counts(self) -> dict[str, int]:
        return {face: int(self.ids[face].value or 0) for face in ("hammers", "snakes", "trees")}

    def set_counts(self, counts: dict[str, int]) -> None:
        for face in ("hammers", "snakes", "trees"):
            self.ids[face].value = counts.get(face, 0)
        self.update()

    def set_card(self, name: str) -> None:
        runes = dict(self.runes)
        for s, text in enumerate(name.replace(",", "-").split("-")):
            for p, rune in enumerate(text.strip().upper()[:3]):
                runes[f"{s},{p}"] = rune
        self.runes = runes
        self.update()

    def flip_rune(self, key: str) -> None:
        self.runes = {**self.runes, key: "F" if self.runes[key] == "R" else "R"}
        self.update()

    def card(self) -> str:
        sets = sorted({int(k.split(",")[0]) for k in self.runes})
        return ",".join("".join(self.runes[f"{s},{p}"] for p in range(3)) for s in sets)

    def command(self) -> dict[str, Any]:
        counts = self.counts()
        command: dict[str, Any] = {"action": "loki_roll" if self.loki else "roll", **counts}
        if self.card_needed:
            command["card"] = self.card()
        return command

    def update(self, *_: Any) -> None:
        if "hammers" not in self.ids:
            return
        counts = self.counts()
        total = sum(counts.values())
        self.total_text = t("rc.total", total=total, dice=self.dice)
        hammers = counts["hammers"]
        self.card_needed = self.loki and 0 < hammers < total
        if self.loki and not self.card_needed:
            self.card_note = t("rc.card_not_needed", why=t("rc.no_hammers") if hammers == 0
                               else t("rc.all_hammers")) if total else ""
        else:
            self.card_note = ""
        preview = self.screen.app.controller.preview(self.command())
        if not preview.ok:
            self.steps = preview.error or ""
        elif self.loki:
            self.steps = "\n".join(loki_steps(preview.state.get("last_loki_roll")))
        else:
            self.steps = "\n".join(str(e) for e in preview.events)

    def enter(self) -> None:
        if self.screen.app.act(self.command()):
            self.dismiss()


class HeroSheet(ModalView):
    """What can happen to one hero besides damage and heals."""

    screen = ObjectProperty(None)
    seat = NumericProperty(1)
    heading = StringProperty("")
    about = StringProperty("")

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._unbind = self.screen.app.controller.subscribe(lambda *_: self.refresh())
        self.refresh()

    def on_dismiss(self) -> None:
        self._unbind()

    def refresh(self) -> None:
        hero = self.screen.app.controller.state()["players"][self.seat - 1]
        self.heading = f"{hero['name']} · {hero['character']} · {hero['hp']} HP"
        self.about = "\n".join((
            hero["ability"],
            t("rc.fate_runes", fate=hero["fate"] or "?"),
            t("rc.items", weapon=hero["weapon"] or t("rc.none"), armour=hero["armour"] or t("rc.none")),
            t("rc.dice", n=hero["dice_pool"]) + (f" · {t('rc.token')}" if hero["death_token"] else ""),
        ))

    def do(self, command: str) -> None:
        self.screen.app.act(command.format(seat=self.seat))
