"""The marks on dice: each blob's grey levels, which tell its kind of marks."""

from __future__ import annotations

import cv2
import numpy as np

from vision.dice.marks import mark_lean


def test_mark_lean_reads_every_blob_and_the_tray_as_from_all_their_pixels() -> None:
    """Each blob's grey levels are counted from its own pixels, and the tray's from the
    rest of the frame, as when every pixel of the frame was counted with its label."""
    rng = np.random.default_rng(3)
    gray = rng.integers(0, 256, (120, 200), dtype=np.uint8)
    body = np.zeros((120, 200), np.uint8)
    body[10:60, 10:60], body[20:90, 100:180] = 1, 2
    gray[10:60, 10:60] |= 128  # a lighter die
    gray[20:90, 100:180] //= 3  # a darker one
    k = 2 * max(1, round(0.1 * 40.0)) + 1
    inner = cv2.erode(body, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k)))
    hist = np.bincount((inner.astype(np.int32) * 256 + gray).ravel(), minlength=3 * 256).reshape(3, 256)
    cdf = np.cumsum(hist, 1)
    lo, mid, hi = ((cdf >= q * cdf[:, -1:]).argmax(1) for q in (0.05, 0.5, 0.95))
    assert np.allclose(mark_lean(gray, body, 40.0, 3), ((mid - lo) - (hi - mid)) / np.maximum(hi - lo, 1))
