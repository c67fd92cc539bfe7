"""Plots: HP over the game for every player, and the dice rolled with a fairness verdict.

Drawn with Kivy's own canvas (lines, rectangles): two small charts do not
justify a plotting library on the Pi, and the canvas redraws in well under a
frame. The statistics come from scipy (:mod:`companion.app.dice`).
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.factory import Factory
from kivy.graphics import Color, Line, Rectangle
from kivy.properties import DictProperty, ListProperty
from kivy.uix.label import Label
from kivy.uix.widget import Widget

from .. import theme
from ..app import AppScreen
from ..widgets import make
from ..dice import die_sets, fairness
from ..strings import t

__all__ = ["FaceBars", "PlotsScreen"]


class FaceBars(Widget):
    """Bars of how often each face came up, with a tick where a fair die would be."""

    counts = DictProperty({})
    expected = DictProperty({})

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._labels: list[Label] = []
        self.bind(pos=self._draw, size=self._draw, counts=self._draw, expected=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        for label in self._labels:
            self.remove_widget(label)
        self._labels = []
        if not self.counts:
            return
        u = App.get_running_app().u
        n = len(self.counts)
        slot = self.width / n
        top = max(max(self.counts.values()), max(self.expected.values(), default=0), 1)
        base, height = self.y + 20 * u, self.height - 40 * u
        for i, (face, count) in enumerate(self.counts.items()):
            x = self.x + i * slot + slot * 0.2
            with self.canvas:
                Color(*theme.ACCENT)
                Rectangle(pos=(x, base), size=(slot * 0.6, height * count / top))
                if face in self.expected:
                    Color(*theme.TEXT)
                    y = base + height * self.expected[face] / top
                    Line(points=[x - 4 * u, y, x + slot * 0.6 + 4 * u, y], width=1.5 * u,
                         dash_length=4, dash_offset=3)
            for text, y in ((face, self.y), (str(count), base + height * count / top + 2 * u)):
                label = Label(text=text, font_size=13 * u, pos=(x - slot * 0.2, y),
                              size=(slot, 18 * u), color=theme.TEXT)
                self.add_widget(label)
                self._labels.append(label)


class PlotsScreen(AppScreen):
    verdicts = ListProperty([])

    def refresh(self) -> None:
        self.title = t("plots.title")
        controller = self.app.controller
        state = self.app.state
        series = controller.hp_series()
        colours = {p["name"]: p.get("colour", "#888888") for p in state.get("players", [])}
        plot = self.ids.hp_plot
        top = max((max(v) for v in series.values() if v), default=12)
        plot.y_max = top
        size = state.get("tier_size", 4)
        plot.bands = [(low, min(low + size, top), theme.tier_rgba(i + 1)[:3] + (0.10,))
                      for i, low in enumerate(range(0, top, size))]
        plot.series = [(name, theme.hex_rgba(colours.get(name, "#888888")), values)
                       for name, values in series.items()]
        box = self.ids.dice
        box.clear_widgets()
        sets = die_sets(controller.game or "")
        if not sets:
            box.add_widget(make("Body", text=t("plots.no_dice")))
        log = controller.log_json()
        for die_set in sets:
            counts = die_set.count(log)
            rolls = sum(counts.values())
            sides = sum(die_set.faces.values())
            bars = FaceBars(size_hint_y=None, height=self.app.u * 150)
            bars.expected = {f: rolls * n / sides for f, n in die_set.faces.items()}
            bars.counts = counts
            box.add_widget(bars)
            box.add_widget(make("Body", text=fairness(die_set, counts).sentence()))
