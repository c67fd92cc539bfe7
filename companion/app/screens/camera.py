"""Camera confirmation: the photo with each die or card outlined and labelled.

One tap on Confirm enters the reading as the chosen action; a tap on a die
cycles its face (a misread die), a tap on a card picks another card. The
outlines are drawn here, over the plain photo the vision process sends, so a
corrected die shows its new face at once. Their colour says how sure the
reading is: green, amber with a question mark (below :data:`UNSURE`), red for
a die that could not be read at all; a corrected one turns green, since a
person has now read it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from kivy.factory import Factory
from kivy.graphics.texture import Texture
from kivy.properties import (
    BooleanProperty, ColorProperty, ListProperty, NumericProperty, StringProperty,
)

from .. import theme
from ..adapters import Reading
from ..app import AppScreen
from ..widgets import RButton, make
from ..readings import card_names, dice_faces, reading_actions
from ..strings import t

__all__ = ["CameraScreen", "ReadingMark", "texture_of"]

UNSURE = 0.7
"""Below this confidence a die or card is marked for a second look."""
UNKNOWN = "unknown"
"""The face of a die the vision process could not read."""


def texture_of(image: np.ndarray, texture: Texture | None = None) -> Texture:
    """A Kivy texture of a BGR image (reusing ``texture`` when the size matches)."""
    h, w = image.shape[:2]
    if texture is None or texture.size != (w, h):
        texture = Texture.create(size=(w, h), colorfmt="rgb")
        texture.flip_vertical()
    texture.blit_buffer(np.ascontiguousarray(image[:, :, ::-1]).tobytes(), colorfmt="rgb",
                        bufferfmt="ubyte")
    return texture


class ReadingMark(RButton):
    """A die or card read on the photo: its outline where it lies, its label on a tab of the
    outline's colour above it (below it at the photo's top edge); the whole of it, at least
    a finger wide, is the target that corrects it."""

    index = NumericProperty(0)
    outline = ListProperty([])
    """The outline's corners on the screen: x0, y0, x1, y1, ..."""
    colour = ColorProperty(theme.OK)
    label_height = NumericProperty(20)
    label_at_top = BooleanProperty(True)


class CameraScreen(AppScreen):
    summary = StringProperty("")
    hint = StringProperty("")
    image_size = ListProperty([640, 480])
    choice = NumericProperty(0)
    choices = ListProperty([])
    """(label, action) pairs the reading can be entered as."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.faces: list[str] = []
        self.names: list[str] = []
        self.shown: Reading | None = None
        self._prefer = ""
        """The action asked for (the panel's Read dice), chosen once the choices are known."""

    def refresh(self) -> None:
        self.title = t("camera.title")
        reading: Reading | None = self.app.reading
        if reading is not self.shown:
            self.shown = reading
            self.faces = [d.face for d in reading.dice] if reading else []
            self.names = [c.name for c in reading.cards] if reading else []
            self.choice = 0
            if reading is not None:
                self.ids.photo.texture = texture_of(reading.image)
                self.image_size = [reading.image.shape[1], reading.image.shape[0]]
            else:
                self.ids.photo.texture = None
        if self.app.reading_as:
            self._prefer, self.app.reading_as = self.app.reading_as, ""
        self._draw()

    def _draw(self) -> None:
        reading = self.shown
        if reading is None:
            self.summary, self.hint = t("camera.none"), ""
            self.choices = []
            self._draw_marks()
            self._draw_choices()
            return
        counts: dict[str, int] = {}
        for face in self.faces:
            counts[face] = counts.get(face, 0) + 1
        if reading.kind == "dice":
            self.summary = "\n".join(f"{n} × {face}" for face, n in counts.items())
            self.hint = t("camera.tap_to_fix")
        else:
            self.summary = t("camera.card_summary", names=", ".join(self.names))
            self.hint = t("camera.tap_card")
        self.choices = reading_actions(self.app.game, self.app.state, counts=counts, cards=self.names)
        if not self.choices:
            self.hint = t("camera.no_use", game=t(f"game.{self.app.game}") if self.app.game else "?")
        if self._prefer:
            verbs = [command["action"] for _, command in self.choices]
            if self._prefer in verbs:
                self.choice = verbs.index(self._prefer)
            else:
                self.app.say(t("camera.not_as", verb=self._prefer))
            self._prefer = ""
        self._draw_marks()
        self._draw_choices()

    def _draw_marks(self) -> None:
        layer = self.ids.marks
        layer.clear_widgets()
        reading = self.shown
        if reading is None:
            return
        photo = self.ids.photo
        iw, ih = self.image_size
        scale = min(photo.width / iw, photo.height / ih)
        ox = photo.x + (photo.width - iw * scale) / 2
        oy = photo.y + (photo.height - ih * scale) / 2
        top = oy + ih * scale

        def window(x: float, y: float) -> tuple[float, float]:
            """A photo pixel (origin top left) on the screen (origin bottom left)."""
            return ox + x * scale, oy + (ih - y) * scale

        for i, die in enumerate(reading.dice):
            x, y, w, h = die.box
            corners = [window(x, y), window(x + w, y), window(x + w, y + h), window(x, y + h)]
            self._mark(layer, f"die:{i}", i, corners, self.faces[i], die.face, die.confidence,
                       top)
        for i, card in enumerate(reading.cards):
            corners = [window(x, y) for x, y in card.corners]
            self._mark(layer, f"card:{i}", i, corners, self.names[i], card.name, card.confidence,
                       top)

    def _mark(self, layer: Any, tag: str, index: int, corners: list[tuple[float, float]],
              shown: str, read: str, confidence: float, top: float) -> None:
        """One outlined, labelled target: at least a finger wide, the label's tab above the
        outline (below it where the photo ends)."""
        colour = self._colour(shown, read, confidence)
        label = shown + ("?" if colour is theme.ACCENT else "")
        u = self.app.u
        least, tab = u * 48, u * 20
        left, right = min(x for x, _ in corners), max(x for x, _ in corners)
        bottom, high = min(y for _, y in corners), max(y for _, y in corners)
        width = max(least, right - left, len(label) * u * 10 + u * 10)
        height = max(least, high - bottom + tab)
        centre = (left + right) / 2
        at_top = high + tab <= top
        y = high + tab - height if at_top else bottom - tab
        mark = make("ReadingMark", tag=tag, index=index, text=label, colour=colour,
                    label_at_top=at_top, label_height=tab, size=(width, height),
                    pos=(centre - width / 2, y),
                    outline=[v for point in corners for v in point])
        layer.add_widget(mark)

    @staticmethod
    def _colour(shown: str, read: str, confidence: float) -> tuple[float, ...]:
        """Green when sure (or corrected by a person), amber when doubtful, red when unread."""
        if shown == UNKNOWN:
            return theme.ERROR
        if shown != read or confidence >= UNSURE:
            return theme.OK
        return theme.ACCENT

    def _draw_choices(self) -> None:
        box = self.ids.choices
        box.clear_widgets()
        for i, (label, _) in enumerate(self.choices):
            toggle = Factory.RToggle(text=label, group="reading_as", tag=f"as:{i}",
                                     allow_no_selection=False,
                                     state="down" if i == self.choice else "normal")
            toggle.bind(on_release=lambda w, i=i: setattr(self, "choice", i))
            box.add_widget(toggle)
        self.ids.confirm.disabled = not self.choices

    def on_size(self, *_: Any) -> None:
        self._draw_marks()

    def tap_mark(self, index: int) -> None:
        """A misread die or card: step to the next face or card."""
        reading = self.shown
        if reading is None:
            return
        if reading.kind == "dice":
            options = dice_faces(self.app.game) or sorted(set(self.faces))
            current = self.faces[index]
            self.faces[index] = options[(options.index(current) + 1) % len(options)] \
                if current in options else options[0]
        else:
            options = card_names(self.app.game) or self.names
            current = self.names[index]
            self.names[index] = options[(options.index(current) + 1) % len(options)] \
                if current in options else options[0]
        self._draw()

    def confirm(self) -> bool:
        """Enter the reading as the chosen action; False if there is none or the game refused."""
        if not self.choices:
            return False
        _, command = self.choices[min(self.choice, len(self.choices) - 1)]
        if command["action"] == "loki_roll" and self.app.game == "runecast":
            # The card and the dice of Loki's roll are read apart: the roll pad joins them.
            screen = self.app.screen("table")
            self._used()
            counts = {k: v for k, v in command.items() if k in ("hammers", "snakes", "trees")}
            screen.open_roll(counts or None, command.get("card", ""))
            return True
        if not self.app.act(command):
            return False
        self._used()
        return True

    def _used(self) -> None:
        """A reading entered is spent: the panel's Read dice will not offer it again."""
        if self.app.latest_dice is self.shown:
            self.app.latest_dice = None
        self.discard()

    def discard(self) -> bool:
        self.app.reading = None
        self.app.go("table")
        return True
