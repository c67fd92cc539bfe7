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

__all__ = ["KERNEL", "MIN_CONTRAST", "PLAIN", "mark_lean", "mark_mask", "mark_masks",
           "mark_reach", "mark_response"]

MIN_CONTRAST = 15.0  # grey levels: a mark fainter than this is noise
KERNEL = 0.45  # of a die: the marks' kernel's side, wider than a pip or a stroke, not a die
PLAIN = 0.2  # a blob's grey levels tell its kind of marks when leaning more than this (mark_lean)
_STEP = np.ones((3, 3), np.uint8)  # one pixel further, diagonals included


def mark_response(gray: np.ndarray, side: float, *, dark: bool) -> np.ndarray:
    """How much each pixel stands out as a mark (dark on light, or light on dark) on dice
    about ``side`` pixels a side."""
    k = max(3, int(KERNEL * side) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))
    return cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT, kernel)


def mark_masks(response: np.ndarray, body: np.ndarray, boxes: list[tuple[int, int, int, int]],
               shares: tuple[float, ...]) -> list[np.ndarray]:
    """The marks (uint8 0/1) on the dice of ``body`` (0 tray, k for the blob in
    ``boxes[k - 1]``), once per share: each blob thresholded at that share of its own
    strongest response, so a white die and a grey one in the same frame are read alike."""
    luts = [np.full(256, 255, np.uint8) for _ in shares]
    for b, (x, y, w, h) in enumerate(boxes, 1):
        _, top, _, _ = cv2.minMaxLoc(response[y:y + h, x:x + w],
                                     (body[y:y + h, x:x + w] == b).view(np.uint8))
        for lut, part in zip(luts, shares):
            lut[b] = int(min(max(MIN_CONTRAST, part * top), 255.0))  # (np.clip costs more, on a number)
    # (NumPy's comparison gives the 0/1 bytes at once; OpenCV's gives 0/255, to divide.)
    return [np.greater(response, cv2.LUT(body, lut)).view(np.uint8) for lut in luts]


def mark_mask(response: np.ndarray, body: np.ndarray, boxes: list[tuple[int, int, int, int]],
              share: float = 0.35) -> np.ndarray:
    """The marks at one ``share`` (mark_masks)."""
    return mark_masks(response, body, boxes, (share,))[0]


def mark_reach(marks: np.ndarray, fainter: np.ndarray) -> np.ndarray:
    """The marks with the pixels next to them among ``fainter`` marks (taken at a lower
    share): a thin stroke, blurred, peaks lower than a thick one and would break apart."""
    reached: np.ndarray = cv2.bitwise_and(cv2.dilate(marks, _STEP), fainter)
    return reached


def mark_lean(gray: np.ndarray, body: np.ndarray, side: float, count: int) -> np.ndarray:
    """Which kind of marks each blob's grey levels say it has (``count`` values, by label of
    ``body``), -1 to 1: how far its median grey lies from the middle of its range (5th to
    95th percentile), as a share of the range. A die's face fills most of it and its marks
    are the colour it has least of: towards 1 a light die (dark marks), towards -1 a dark
    one; near 0 the grey levels do not tell (a shaded side face as large as the top face).
    Judged well inside each blob, away from the tray around it; a blob too small for that
    is 0."""
    k = 2 * max(1, round(0.1 * side)) + 1
    inner = cv2.erode(body, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    # Every blob's grey levels at once, as histograms, of the blobs' pixels only (the tray,
    # most of the frame, is what is left of the whole frame's histogram): counting every
    # pixel of the frame cost a tenth of reading taught faces.
    on = inner > 0
    hist = np.bincount((inner[on].astype(np.intp) << 8) | gray[on],
                       minlength=count * 256).reshape(count, 256)
    hist[0] = cv2.calcHist([gray], [0], None, [256], [0, 256]).ravel().astype(np.intp) - hist.sum(0)
    cdf = np.cumsum(hist, 1)
    total = np.maximum(cdf[:, -1:], 1)
    lo, mid, hi = ((cdf >= q * total).argmax(1) for q in (0.05, 0.5, 0.95))
    lean = ((mid - lo) - (hi - mid)) / np.maximum(hi - lo, 1)
    return np.where(cdf[:, -1] >= 16, lean, 0.0)
