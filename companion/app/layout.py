"""Checks a player would make: text that spills out of its widget, targets too small to hit.

Used by the screenshot tour and the tests on every screen at 800×480: a
label's rendered text must fit its box, and every touch target must be at
least 9 mm on its smaller side on the 7" display (with the app's scale, the
same holds at any window size).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from kivy.core.window import Window
from kivy.uix.behaviors import ButtonBehavior
from kivy.uix.label import Label
from kivy.uix.scrollview import ScrollView
from kivy.uix.slider import Slider
from kivy.uix.textinput import TextInput
from kivy.uix.widget import Widget

from . import theme

__all__ = ["Problem", "check", "describe", "visible_widgets", "window_rect"]

SLACK = 1.5
"""Pixels of rounding allowed before text counts as overflowing."""


@dataclass(frozen=True, slots=True)
class Problem:
    kind: str
    widget: str
    detail: str

    def __str__(self) -> str:
        return f"{self.kind}: {self.widget}: {self.detail}"


def window_rect(widget: Widget) -> tuple[float, float, float, float]:
    """x, y, width, height in window pixels, origin bottom left."""
    x, y = widget.to_window(widget.x, widget.y)
    return x, y, widget.width, widget.height


def scroll_views(widget: Widget) -> Iterator[ScrollView]:
    """The ScrollViews ``widget`` lies in, innermost first."""
    parent = widget.parent
    while parent is not None and parent is not Window:
        if isinstance(parent, ScrollView):
            yield parent
        parent = parent.parent


def _clip(widget: Widget) -> tuple[float, float, float, float] | None:
    """The part of the window a widget can be seen in (its ScrollView ancestors' viewports)."""
    left, bottom, right, top = 0.0, 0.0, float(Window.width), float(Window.height)
    for view in scroll_views(widget):
        x, y, w, h = window_rect(view)
        left, bottom = max(left, x), max(bottom, y)
        right, top = min(right, x + w), min(top, y + h)
    return None if right <= left or top <= bottom else (left, bottom, right, top)


def seen_rect(widget: Widget) -> tuple[float, float, float, float]:
    """The part of ``widget`` that can be seen (x, y, width, height in window pixels): a row
    half scrolled out of its list shows only its other half, and only that half takes taps."""
    x, y, w, h = window_rect(widget)
    clip = _clip(widget)
    if clip is None:
        return x, y, 0.0, 0.0
    left, bottom = max(x, clip[0]), max(y, clip[1])
    right, top = min(x + w, clip[2]), min(y + h, clip[3])
    return left, bottom, max(0.0, right - left), max(0.0, top - bottom)


def _shown(widget: Widget) -> bool:
    node: Widget | None = widget
    while node is not None and node is not Window:
        if node.opacity <= 0.01:
            return False
        node = node.parent
    return bool(widget.width >= 1 and widget.height >= 1)


def visible_widgets() -> Iterator[Widget]:
    """Every widget on screen (top-level windows, modal views included) that can be seen."""
    for top in Window.children:
        for widget in top.walk(restrict=True):
            if not _shown(widget):
                continue
            clip = _clip(widget)
            if clip is None:
                continue
            x, y, w, h = window_rect(widget)
            cx, cy = x + w / 2, y + h / 2
            if clip[0] <= cx <= clip[2] and clip[1] <= cy <= clip[3]:
                yield widget


def describe(widget: Widget) -> str:
    tag = getattr(widget, "tag", "")
    text = getattr(widget, "text", "")
    name = type(widget).__name__
    return f"{name}[{tag}]" if tag else f"{name}({str(text)[:30]!r})"


def touchable(widget: Widget) -> bool:
    return isinstance(widget, (ButtonBehavior, TextInput, Slider)) and not widget.disabled


def check(scale: float = 1.0) -> list[Problem]:
    """Problems on the screen as it is now; ``scale`` is the app's ``u``."""
    problems = []
    least = theme.MIN_TARGET_MM * theme.PX_PER_MM * scale
    for widget in visible_widgets():
        if isinstance(widget, Label) and widget.text.strip():
            widget.texture_update()
            tw, th = widget.texture_size
            wrap = widget.text_size[0]
            if wrap:
                for word in widget.text.split():
                    if widget._label.get_extents(word)[0] > wrap + SLACK:
                        problems.append(Problem("split word", describe(widget),
                                                f"{word!r} does not fit on one line"))
                        break
            if tw > widget.width + SLACK or th > widget.height + SLACK:
                problems.append(Problem("overflow", describe(widget),
                                        f"text {tw:.0f}×{th:.0f} px in a {widget.width:.0f}×"
                                        f"{widget.height:.0f} px widget"))
        if touchable(widget):
            x, y, w, h = window_rect(widget)
            if min(w, h) < least - SLACK:
                problems.append(Problem("small target", describe(widget),
                                        f"{w:.0f}×{h:.0f} px, {min(w, h) / theme.PX_PER_MM / scale:.1f} mm"
                                        f" (at least {theme.MIN_TARGET_MM:.0f} mm)"))
            if x < -SLACK or y < -SLACK or x + w > Window.width + SLACK or y + h > Window.height + SLACK:
                problems.append(Problem("off screen", describe(widget), f"at {x:.0f},{y:.0f}"))
    return problems
