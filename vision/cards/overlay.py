"""Drawing a card reading over its frame, so a person can confirm it at a glance."""

from __future__ import annotations

import cv2
import numpy as np

from .reading import CardReading

__all__ = ["draw_cards"]

KNOWN = (60, 200, 60)
UNKNOWN = (40, 140, 255)


def draw_cards(frame: np.ndarray, reading: CardReading) -> np.ndarray:
    """A copy of ``frame`` with each card's outline, a dot on its top-left corner,
    and its name and confidence (orange outlines: cards not in the deck)."""
    out = frame.copy() if frame.ndim == 3 else cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    scale = max(out.shape[:2]) / 1280
    thick = max(1, round(2 * scale))
    for card in reading.cards:
        colour = KNOWN if card.name is not None else UNKNOWN
        pts = np.round(card.corners).astype(np.int32)
        cv2.polylines(out, [pts], True, colour, thick, cv2.LINE_AA)
        cv2.circle(out, (int(pts[0][0]), int(pts[0][1])), 3 * thick, colour, -1, cv2.LINE_AA)
        label = f"{card.name or 'unknown'} {card.confidence:.0%}"
        x, y = (int(v) for v in card.corners.mean(axis=0))
        font, size = cv2.FONT_HERSHEY_SIMPLEX, 0.6 * scale
        (w, h), base = cv2.getTextSize(label, font, size, thick)
        org = (x - w // 2, y + h // 2)
        cv2.rectangle(out, (org[0] - 3, org[1] - h - 3), (org[0] + w + 3, org[1] + base + 1),
                      (0, 0, 0), -1)
        cv2.putText(out, label, org, font, size, colour, thick, cv2.LINE_AA)
    return out
