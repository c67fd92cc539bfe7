"""History: the game's log in sentences; undo, redo, and going back to any point.

Going back is ``goto``: the later actions stay in the log, greyed, and redo
(or a tap on one of them) brings them back until a new action replaces them.
"""

from __future__ import annotations

from kivy.factory import Factory

from ..app import AppScreen
from ..widgets import make
from ..strings import t

__all__ = ["HistoryScreen"]


class HistoryScreen(AppScreen):
    SHOWN = 120
    """The newest actions listed; older ones stay reachable by undo and the command line."""

    def refresh(self) -> None:
        self.title = t("history.title")
        controller = self.app.controller
        lines = controller.history()
        cursor = controller.session.cursor if controller.session is not None else 0
        rows = [{"seq": 0, "text": t("history.start"), "undone": False, "current": cursor == 0}]
        for line in lines:
            said = " · ".join(line.sentences) or line.command
            mark = f" {t('history.undone')}" if line.undone else ""
            rows.append({"seq": line.seq, "text": f"{line.seq}. {said}{mark}",
                         "undone": line.undone, "current": line.seq == cursor})
        # Newest first: the last action is where the eye goes.
        box = self.ids.log
        box.clear_widgets()
        for row in reversed(rows[-self.SHOWN:] if len(rows) > self.SHOWN else rows):
            box.add_widget(make("HistoryRow", **row))
        self.ids.undo.disabled = not controller.can_undo
        self.ids.redo.disabled = not controller.can_redo

    def goto(self, seq: int) -> None:
        self.app.act(f"goto {seq}")
