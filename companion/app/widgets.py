"""Widgets every screen uses: themed buttons, labels that fit, tier bars, steppers.

Their looks are in ``widgets.kv``; here is only behaviour. Every widget a
test may need to find carries a ``tag`` (``hp_minus:Ann``); the test-only
probe (:mod:`companion.app.probe`) reports where tagged widgets are.
"""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.clock import Clock
from kivy.graphics import Color, Line, Rectangle
from kivy.properties import (
    BooleanProperty, ColorProperty, ListProperty, NumericProperty, ObjectProperty,
    StringProperty,
)
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.textinput import TextInput
from kivy.uix.togglebutton import ToggleButton
from kivy.uix.widget import Widget

from . import theme

__all__ = ["CommandButton", "FitLabel", "Hideable", "LinePlot", "RButton", "RToggle", "Stepper", "TagInput",
           "TagScroll", "TierBars", "TouchBox", "make"]


def make(kind: str, **props: Any) -> Widget:
    """A widget of the kv class ``kind`` with ``props`` set.

    Properties that a kv rule declares (``<PlayerRow@BoxLayout>: index: 0``)
    exist only once the rule has been applied, so they cannot be passed to
    the constructor; they are set right after it.
    """
    from kivy.factory import Factory

    widget: Widget = getattr(Factory, kind)()
    for name, value in props.items():
        setattr(widget, name, value)
    return widget


class RButton(Button):
    """A flat, rounded button; ``tag`` names it for the probe."""

    tag = StringProperty("")
    bg = ColorProperty(theme.BUTTON)


class CommandButton(RButton):
    """A button that plays one command (``next``, ``undo``) through the app."""

    command = StringProperty("")

    def on_release(self) -> None:
        App.get_running_app().act(self.command)


class RToggle(ToggleButton):
    tag = StringProperty("")
    bg = ColorProperty(theme.BUTTON)
    value = ObjectProperty(None, allownone=True)
    """What choosing this toggle means (a choice of an option, a face)."""


class Hideable(BoxLayout):
    """A box that can be hidden in place: invisible, and no touch reaches its children.

    (A disabled widget would still swallow the touches that land on it, and so
    block whatever shows underneath.)
    """

    shown = BooleanProperty(True)

    def on_shown(self, _widget: Widget, shown: bool) -> None:
        self.opacity = 1 if shown else 0

    def on_touch_down(self, touch: Any) -> bool:
        return bool(self.shown and super().on_touch_down(touch))

    def on_touch_move(self, touch: Any) -> bool:
        return bool(self.shown and super().on_touch_move(touch))

    def on_touch_up(self, touch: Any) -> bool:
        return bool(self.shown and super().on_touch_up(touch))


class TagInput(TextInput):
    """A text field with a ``tag`` for the probe."""

    tag = StringProperty("")


class TagScroll(ScrollView):
    """A scrolling list with a ``tag``, so a test can put the mouse wheel over it."""

    tag = StringProperty("")


class TouchBox(ButtonBehavior, BoxLayout):
    """A box that is also a button: a player's header, a saved game's line."""

    tag = StringProperty("")
    bg = ColorProperty(theme.PANEL)


class FitLabel(Label):
    """A label that shrinks its font, down to ``min_font``, until its text fits."""

    max_font = NumericProperty(20)
    tag = StringProperty("")
    min_font = NumericProperty(9)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._fit = Clock.create_trigger(self._shrink, -1)
        self.bind(text=self._restart, max_font=self._restart, size=self._restart)
        self.bind(texture_size=lambda *_: self._fit())

    def _restart(self, *_: Any) -> None:
        self.font_size = self.max_font
        self._fit()

    def _shrink(self, *_: Any) -> None:
        w, h = self.texture_size
        if (w > self.width or h > self.height) and self.font_size > self.min_font:
            ratio = min(self.width / max(w, 1), self.height / max(h, 1))
            self.font_size = max(self.min_font, min(self.font_size - 1, self.font_size * ratio))


class TierBars(Widget):
    """The tier as bars (one per tier, filled up to the player's): the cue that is not colour."""

    tiers = NumericProperty(3)
    tier = NumericProperty(3)
    color = ColorProperty(theme.TEXT)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.bind(pos=self._draw, size=self._draw, tiers=self._draw, tier=self._draw,
                  color=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        n = max(1, int(self.tiers))
        gap = self.width * 0.08
        bar_w = (self.width - gap * (n - 1)) / n
        with self.canvas:
            for i in range(n):
                x = self.x + i * (bar_w + gap)
                bar_h = self.height * (0.45 + 0.55 * (i + 1) / n)
                Color(*self.color)
                if i < self.tier:
                    Rectangle(pos=(x, self.y), size=(bar_w, bar_h))
                else:
                    Line(rectangle=(x + 1, self.y + 1, bar_w - 2, bar_h - 2), width=1.2)


class Stepper(BoxLayout):
    """A whole number with − and + buttons; ``None`` shows as the default when allowed."""

    value = NumericProperty(None, allownone=True)
    minimum = NumericProperty(1)
    maximum = NumericProperty(99)
    allow_none = BooleanProperty(False)
    default_text = StringProperty("")
    tag = StringProperty("")

    def step(self, delta: int) -> None:
        if self.value is None:
            self.value = self.minimum if delta > 0 else None
            return
        value = self.value + delta
        if value < self.minimum:
            self.value = None if self.allow_none else self.minimum
        else:
            self.value = min(self.maximum, value)


class LinePlot(Widget):
    """Lines over a shared x axis, drawn with Kivy's canvas.

    ``series`` is a list of ``(label, rgba, values)``; ``bands`` are
    horizontal stripes ``(low, high, rgba)`` behind the lines (the HP tiers).
    Each line ends in a dot with its label, so lines are told apart without
    relying on colour.
    """

    series = ListProperty([])
    bands = ListProperty([])
    y_max = NumericProperty(12)
    line_width = NumericProperty(2)

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._labels: list[Label] = []
        self.bind(pos=self._draw, size=self._draw, series=self._draw, bands=self._draw,
                  y_max=self._draw)

    def _draw(self, *_: Any) -> None:
        self.canvas.clear()
        for label in self._labels:
            self.remove_widget(label)
        self._labels = []
        u = App.get_running_app().u
        left, bottom = self.x + 34 * u, self.y + 8 * u
        width, height = self.width - 100 * u, self.height - 16 * u
        if width <= 0 or height <= 0:
            return
        top = max(1.0, float(self.y_max))
        longest = max((len(v) for _, _, v in self.series), default=1)
        step = width / max(1, longest - 1)

        def y_of(value: float) -> float:
            return float(bottom + height * value / top)

        with self.canvas:
            for low, high, rgba in self.bands:
                Color(*rgba)
                Rectangle(pos=(left, y_of(low)), size=(width, y_of(high) - y_of(low)))
            Color(*theme.MUTED)
            Line(points=[left, bottom + height, left, bottom, left + width, bottom], width=1)
        for value in range(0, int(top) + 1, max(1, int(top) // 4)):
            self._label(str(value), left - 30 * u, y_of(value) - 9 * u, 26 * u, theme.MUTED, "right")
        ends: list[float] = []
        for name, rgba, values in self.series:
            if not values:
                continue
            points: list[float] = []
            for i, value in enumerate(values):
                points += [left + i * step, y_of(value)]
            if len(points) == 2:
                points += points
            with self.canvas:
                Color(*rgba)
                Line(points=points, width=self.line_width * u)
                Line(circle=(points[-2], points[-1], 4 * u), width=self.line_width * u)
            y = points[-1] - 9 * u
            while any(abs(y - e) < 18 * u for e in ends):
                y += 18 * u
            ends.append(y)
            self._label(name, points[-2] + 8 * u, y, 90 * u, rgba, "left")

    def _label(self, text: str, x: float, y: float, w: float, rgba: Any, halign: str) -> None:
        u = App.get_running_app().u
        label = Label(text=text, pos=(x, y), size=(w, 18 * u), font_size=13 * u, color=rgba,
                      halign=halign, valign="middle", shorten=False)
        label.text_size = label.size
        self.add_widget(label)
        self._labels.append(label)
