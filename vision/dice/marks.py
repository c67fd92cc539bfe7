"""The marks on dice (pips, symbols): details that contrast with the die around them.

A black-hat transform (closing minus image) keeps dark details narrower than its kernel,
a top-hat (image minus opening) light ones, so uneven light and shaded side faces do not
matter. The kernel is a square, which OpenCV filters in two cheap passes, a little less
than half a die: wide enough to hold a pip or a symbol's stroke, narrow enough that a
die's body never counts as a mark on the tray.
"""

from __future__ import annotations

import cv2
import numpy as np

__all__ = ["MIN_CONTRAST", "mark_mask", "mark_response"]

MIN_CONTRAST = 15.0  # grey levels: a mark fainter than this is noise


def mark_response(gray: np.ndarray, side: float, *, dark: bool) -> np.ndarray:
    """How much each pixel stands out as a mark (dark on light, or light on dark) on dice
    about ``side`` pixels a side."""
    k = max(3, int(0.45 * side) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    return cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT, kernel)


def mark_mask(response: np.ndarray, body: np.ndarray, boxes: list[tuple[int, int, int, int]],
              share: float = 0.35) -> np.ndarray:
    """The marks (uint8 0/1) on the dice of ``body`` (0 tray, k for the blob in
    ``boxes[k - 1]``): each blob thresholded at ``share`` of its own strongest response, so
    a white die and a grey one in the same frame are read alike."""
    lut = np.full(256, 255, np.uint8)
    for b, (x, y, w, h) in enumerate(boxes, 1):
        _, top, _, _ = cv2.minMaxLoc(response[y:y + h, x:x + w],
                                     (body[y:y + h, x:x + w] == b).view(np.uint8))
        lut[b] = int(np.clip(max(MIN_CONTRAST, share * top), 0, 255))
    return cv2.compare(response, cv2.LUT(body, lut), cv2.CMP_GT) // 255
