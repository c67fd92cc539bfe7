"""A player's card on a table screen: HP big, tier by colour and by bars, −/+ with a preview.

Shared by the games with HP (Runes of Zun, Runecast). The screen that owns
the cards decides what −/+ mean (``command_for``) and computes the preview
with the engine (``preview``); the card only keeps the pending amount.
"""

from __future__ import annotations

from typing import Any

from kivy.properties import BooleanProperty, NumericProperty, ObjectProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout

__all__ = ["HpCard", "layout_cards", "seat_cards"]


class HpCard(BoxLayout):
    """One player at the table."""

    seat = NumericProperty(1)
    name = StringProperty("")
    hp = NumericProperty(0)
    max_hp = NumericProperty(12)
    tiers = NumericProperty(3)
    colour = StringProperty("#888888")
    subtitle = StringProperty("")
    """Under the name: the team (Zun) or the character (Runecast)."""
    defeated = BooleanProperty(False)
    active = BooleanProperty(False)
    detail = StringProperty("")
    """A line under the HP when nothing is pending: effects, dice, tokens."""
    status = StringProperty("")
    """DEFEATED, WINNER, FALLEN...: shown big over the detail."""
    pending = NumericProperty(0)
    shown_hp = NumericProperty(0)
    """The HP shown big: the previewed result while a change is pending."""
    shown_tier = NumericProperty(0)
    tier_size = NumericProperty(4)
    note = StringProperty("")
    big_font = NumericProperty(60)
    narrow = BooleanProperty(False)
    """Too narrow for − HP + side by side (7 or 8 players): the steps go under the HP."""
    screen = ObjectProperty(None)

    def bump(self, delta: int) -> None:
        self.pending += delta
        self.screen.preview(self)

    def cancel(self) -> None:
        self.pending = 0
        self.screen.preview(self)


def seat_cards(screen: Any, players: list[dict[str, Any]], tier_size: int) -> list[HpCard]:
    """``screen.cards``, one a player in seat order with their seat, name, colour, HP and
    tiers shown; laid out again only when the players change, so a pending −/+ survives
    every other refresh."""
    if [card.name for card in screen.cards] != [p["name"] for p in players]:
        screen.cards = layout_cards(screen.ids.cards, len(players), screen)
    for card, p in zip(screen.cards, players):
        card.seat, card.name, card.colour = p["seat"], p["name"], p["colour"]
        card.hp, card.max_hp, card.tier_size = p["hp"], p["max_hp"], tier_size
        card.tiers = -(-p["max_hp"] // tier_size)
    cards: list[HpCard] = screen.cards
    return cards


def layout_cards(grid: Any, n: int, screen: Any) -> list[HpCard]:
    """Fill ``grid`` with ``n`` cards in the arrangement that keeps each one widest."""
    grid.clear_widgets()
    grid.cols = {1: 1, 2: 2, 3: 3, 4: 2, 5: 3, 6: 3}.get(n, 4)
    grid.rows = -(-n // grid.cols)
    cards = []
    for _ in range(n):
        card = HpCard(screen=screen)
        grid.add_widget(card)
        cards.append(card)
    return cards
