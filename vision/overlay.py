"""The confirmation overlay: the frame with a box and a label on everything read, so the
players can check the reading at a glance before it counts.

Green is a confident reading, amber a doubtful one, red unknown. Generic over what is read:
it draws ``(label, box, confidence)`` triples and a title line.
"""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

__all__ = ["draw_overlay", "encode_jpeg"]

Box = tuple[int, int, int, int]


def _colour(label: str, confidence: float) -> tuple[int, int, int]:
    if label == "unknown":
        return (40, 40, 230)
    return (60, 200, 60) if confidence >= 0.8 else (30, 170, 240)


def draw_overlay(frame: np.ndarray, items: Iterable[tuple[str, Box, float]], title: str = "",
                 *, width: int = 960) -> np.ndarray:
    """A copy of the frame, at most ``width`` px wide, with the items drawn on it."""
    h, w = frame.shape[:2]
    f = min(1.0, width / w)
    out = cv2.resize(frame, (round(w * f), round(h * f)), interpolation=cv2.INTER_AREA) if f < 1 \
        else frame.copy()
    if out.ndim == 2:
        out = cv2.cvtColor(out, cv2.COLOR_GRAY2BGR)
    scale = max(0.4, out.shape[1] / 1600)
    thick = max(1, round(2 * scale))
    for label, (x, y, bw, bh), confidence in items:
        colour = _colour(label, confidence)
        p0 = (round(x * f), round(y * f))
        p1 = (round((x + bw) * f), round((y + bh) * f))
        cv2.rectangle(out, p0, p1, colour, thick, cv2.LINE_AA)
        text = label if label == "unknown" else f"{label} {confidence:.0%}"
        (tw, th), base = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        ty = max(th + base, p0[1] - 2)
        cv2.rectangle(out, (p0[0], ty - th - base), (p0[0] + tw, ty), colour, -1)
        cv2.putText(out, text, (p0[0], ty - base // 2), cv2.FONT_HERSHEY_SIMPLEX, scale,
                    (0, 0, 0), thick, cv2.LINE_AA)
    if title:
        (tw, th), base = cv2.getTextSize(title, cv2.FONT_HERSHEY_SIMPLEX, 1.5 * scale, thick + 1)
        cv2.rectangle(out, (0, 0), (tw + 12, th + base + 12), (0, 0, 0), -1)
        cv2.putText(out, title, (6, th + 6), cv2.FONT_HERSHEY_SIMPLEX, 1.5 * scale, (255, 255, 255),
                    thick + 1, cv2.LINE_AA)
    return out


def encode_jpeg(image: np.ndarray, quality: int = 80) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("the overlay could not be encoded as JPEG")
    return data.tobytes()
