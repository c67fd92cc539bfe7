"""Custom die faces taught from examples: a folder with one subfolder per face.

    faces/
      hammer/   photo1.jpg photo2.jpg …   (photos of dice showing a hammer)
      snake/    …
      tree/     …

Each photo may show several dice, all showing that face; a small square image (at most
``CROP_MAX`` pixels a side, as :func:`teach` writes) is taken as one face already cut out.

A face is compared as *ink*: each pixel's colour distance from the die's body colour, so
the same symbol reads the same on a red die and on a white one. The die is turned to
line up with its edges (from the outline of its body), which leaves four ways it can lie;
every taught face is kept in all four turns, slightly blurred so that a few degrees of
error in the outline do not matter. Reading slides each template over a window one and a
half dice wide (so the top face is found even when side faces show) and takes the best
normalised correlation. The confidence grows with that score and with the margin over the
best other face; close calls are ``unknown``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from pathlib import Path

import cv2
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from companion.core.errors import CompanionError
from vision.dice.find import find_dice
from vision.dice.pips import FaceRead

__all__ = ["CROP_MAX", "FaceFolderError", "TaughtFaces", "face_crops", "teach"]

log = logging.getLogger(__name__)

CROP_MAX = 160
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp")
_T = 24  # template side, pixels: one die side
_W = 36  # search window side: one and a half die sides
_STEP = 2  # the template slides two pixels at a time (the blur covers the pixel between)
_BLUR = 0.7


class FaceFolderError(CompanionError, ValueError):
    """A face folder that cannot teach anything: missing, empty, or no face readable."""


def _ink(crop: np.ndarray, mask: np.ndarray | None, side: float | None = None) -> np.ndarray:
    """The face's marks, 0 on the plain body and about 1 on a mark.

    Marks are what a black-hat (or, for light marks on a dark die, a top-hat) transform
    keeps: details narrower than a die that contrast with the body around them. Broad
    shading, such as a side face in the shade, is not a mark.
    """
    gray = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY)
    values = gray.ravel() if mask is None else gray[mask > 0]
    if values.size == 0:
        return np.zeros(gray.shape, np.float32)
    lo, mid, hi = np.percentile(values, (2, 50, 98))
    dark = mid - lo >= hi - mid
    k = max(5, int(0.6 * (side or min(gray.shape))) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    response = cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT if dark else cv2.MORPH_TOPHAT, kernel,
                                borderType=cv2.BORDER_REPLICATE).astype(np.float32)
    if mask is not None:
        response[cv2.erode(mask, np.ones((3, 3), np.uint8)) == 0] = 0
    top = float(np.percentile(response if mask is None else response[mask > 0], 98))
    return np.clip(response / max(top, 20.0), 0, 1)


def _window(crop: np.ndarray, mask: np.ndarray, side: float) -> tuple[np.ndarray, np.ndarray]:
    """The die's ink, turned square to its edges, ``_W`` px for 1.5 sides; and the affine
    map from window to crop pixels."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if contours:
        (cx, cy), _, angle = cv2.minAreaRect(max(contours, key=cv2.contourArea))
    else:
        cx, cy, angle = mask.shape[1] / 2, mask.shape[0] / 2, 0.0
    scale = 1.5 * side / _W
    t = np.radians(angle)
    c, s = np.cos(t) * scale, np.sin(t) * scale
    # window (u, v) -> crop (x, y), centred on the body, rotated by the body's angle
    to_crop = np.array([[c, -s, cx - c * _W / 2 + s * _W / 2],
                        [s, c, cy - s * _W / 2 - c * _W / 2]], np.float32)
    ink = _ink(crop, mask, side)
    small = cv2.GaussianBlur(ink, (0, 0), 0.5 * scale) if scale > 1.5 else ink
    window = cv2.warpAffine(small, to_crop, (_W, _W), flags=cv2.INTER_LINEAR + cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return cv2.GaussianBlur(window, (0, 0), _BLUR), to_crop


def _normalise(rows: np.ndarray) -> np.ndarray:
    rows = rows - rows.mean(1, keepdims=True)
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-6)


def face_crops(image: np.ndarray) -> list[np.ndarray]:
    """The faces in a teaching image, each as a ``_T``-px ink template (upright)."""
    h, w = image.shape[:2]
    if h == w and h <= CROP_MAX:
        ink = cv2.resize(_ink(image, None), (_T, _T), interpolation=cv2.INTER_AREA)
        return [cv2.GaussianBlur(ink, (0, 0), _BLUR)]
    out = []
    for region in find_dice(image):
        x, y, rw, rh = region.box
        window, _ = _window(image[y:y + rh, x:x + rw], region.mask, region.side)
        k = (_W - _T) // 2
        out.append(window[k:k + _T, k:k + _T])
    return out


class TaughtFaces:
    """A face reader for custom dice, from templates per face name."""

    def __init__(self, templates: dict[str, list[np.ndarray]], *, threshold: float = 0.5) -> None:
        empty = [name for name, ts in templates.items() if not ts]
        if empty or not templates:
            raise FaceFolderError(f"no example of face {empty[0]!r}" if empty else "no faces given")
        self.names = tuple(templates)
        self.threshold = threshold
        rows, labels = [], []
        for i, (name, examples) in enumerate(templates.items()):
            for t in examples:
                for k in range(4):
                    rows.append(np.rot90(t, k).ravel())
                    labels.append(i)
        self._templates = _normalise(np.array(rows, np.float32))
        self._labels = np.array(labels)

    @classmethod
    def load(cls, folder: str | Path, *, threshold: float = 0.5) -> TaughtFaces:
        """Teach from ``folder/<face>/*.jpg``; a face whose images give no die is an error."""
        folder = Path(folder)
        if not folder.is_dir():
            raise FaceFolderError(f"{folder}: no such face folder")
        templates: dict[str, list[np.ndarray]] = {}
        for sub in sorted(p for p in folder.iterdir() if p.is_dir()):
            images = sorted(p for p in sub.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
            found: list[np.ndarray] = []
            for path in images:
                image = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if image is None:
                    log.warning("%s: not an image, skipped", path)
                    continue
                crops = face_crops(image)
                if not crops:
                    log.warning("%s: no die found, skipped", path)
                found.extend(crops)
            if not images:
                raise FaceFolderError(f"{sub}: no images of face {sub.name!r}")
            if not found:
                raise FaceFolderError(f"{sub}: no die found in any image of face {sub.name!r}")
            templates[sub.name] = found
        if not templates:
            raise FaceFolderError(f"{folder}: no face subfolders (expected one per face, "
                                  "such as hammer/, snake/, tree/)")
        return cls(templates, threshold=threshold)

    def __call__(self, crop: np.ndarray, mask: np.ndarray, side: float) -> FaceRead:
        window, to_crop = _window(crop, mask, side)
        views = sliding_window_view(window, (_T, _T))[::_STEP, ::_STEP]
        n = views.shape[0]
        patches = views.reshape(-1, _T * _T)
        scores = _normalise(patches) @ self._templates.T  # shifts × templates
        per_face = np.full(len(self.names), -1.0)
        where = np.zeros(len(self.names), int)
        for i in range(len(self.names)):
            cols = scores[:, self._labels == i]
            best = np.unravel_index(np.argmax(cols), cols.shape)
            per_face[i], where[i] = cols[best], best[0]
        order = np.argsort(per_face)[::-1]
        best, second = per_face[order[0]], per_face[order[1]] if len(order) > 1 else 0.0
        u = where[order[0]] % n * _STEP + _T / 2
        v = where[order[0]] // n * _STEP + _T / 2
        cx, cy = to_crop @ np.array([u, v, 1.0])
        confidence = float(np.clip((best - 0.25) / 0.35, 0, 1) * np.clip((best - second) / 0.1, 0, 1))
        marks = 0 if best < 0.25 else 1
        face = self.names[order[0]] if confidence >= self.threshold else "unknown"
        return FaceRead(face, confidence, (float(cx), float(cy)), marks)


def teach(photos: Iterable[str | Path], face: str, folder: str | Path) -> list[Path]:
    """Cut the dice out of photos of one face into ``folder/face/`` (one die, with some tray
    around it, per file), ready for :meth:`TaughtFaces.load`. Returns the files written."""
    out_dir = Path(folder) / face
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for photo in map(Path, photos):
        image = cv2.imread(str(photo), cv2.IMREAD_COLOR)
        if image is None:
            log.warning("%s: not an image, skipped", photo)
            continue
        for n, region in enumerate(find_dice(image)):
            # Each die with the tray around it, so that it is found again exactly as in a photo.
            x, y, w, h = region.box
            cx, cy, half = x + w / 2, y + h / 2, 1.1 * max(w, h)
            x0, y0 = max(0, int(cx - half)), max(0, int(cy - half))
            x1, y1 = min(image.shape[1], int(cx + half)), min(image.shape[0], int(cy + half))
            path = out_dir / f"{photo.stem}-{n}.png"
            cv2.imwrite(str(path), image[y0:y1, x0:x1])
            written.append(path)
    return written
