"""The tray under the camera: what is background, and (optionally) how to see it top-down.

With no calibration at all the pipeline assumes a plain surface that contrasts with the
dice: the background is estimated from the frame itself, as the colour that dominates each
neighbourhood (a median over a coarse grid, which a few dice cannot move). Two optional
calibrations make it sturdier:

* **ArUco markers** (``DICT_4X4_50``, ids 0-3) stuck at the tray's corners, clockwise from
  top-left: the frame is warped to a top-down view of the tray, so dice are squares and
  everything outside the tray (cables, hands, the table) is cut away.
* **The empty tray**: a photo of the tray with no dice. Foreground is then whatever differs
  from it, so a patterned or uneven tray works too.

A :class:`Tray` is saved as a small JSON file (the homography and output size) beside a PNG
of the empty tray, and loaded by ``[vision] tray = "…"`` in the settings file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
from numpy.typing import NDArray

from companion.core.errors import CompanionError

__all__ = ["ARUCO_DICTIONARY", "FAINTEST", "CalibrationError", "Tray", "calibrate", "foreground",
           "grow", "marker_sheet"]

ARUCO_DICTIONARY = cv2.aruco.DICT_4X4_50
FAINTEST = 10.0  # the least colour difference from the tray that counts as foreground
_CORNER_IDS = (0, 1, 2, 3)  # top-left, top-right, bottom-right, bottom-left


class CalibrationError(CompanionError, ValueError):
    """The calibration image or file cannot be used (markers missing, unreadable file...)."""


@dataclass(frozen=True)
class Tray:
    """An optional top-down warp and an optional empty-tray image (in the warped view)."""

    homography: np.ndarray | None = None
    size: tuple[int, int] | None = None
    empty: np.ndarray | None = None

    def view(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the pipeline sees it: warped top-down if calibrated, else as is."""
        if self.homography is None or self.size is None:
            return frame
        return cv2.warpPerspective(frame, self.homography, self.size, flags=cv2.INTER_LINEAR)

    def save(self, path: str | Path) -> None:
        path = Path(path)
        data: dict[str, object] = {}
        if self.homography is not None and self.size is not None:
            data["homography"] = self.homography.tolist()
            data["size"] = list(self.size)
        if self.empty is not None:
            empty = path.with_suffix(".empty.png")
            cv2.imwrite(str(empty), self.empty)
            data["empty"] = empty.name
        path.write_text(json.dumps(data, indent=1) + "\n")

    @classmethod
    def load(cls, path: str | Path) -> Tray:
        path = Path(path)
        try:
            data = json.loads(path.read_text())
            homography = np.array(data["homography"], float) if "homography" in data else None
            size = tuple(int(v) for v in data["size"]) if "size" in data else None
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise CalibrationError(f"{path}: not a tray calibration ({e})") from e
        if homography is not None and homography.shape != (3, 3):
            raise CalibrationError(f"{path}: the homography must be 3×3")
        empty = None
        if "empty" in data:
            empty = cv2.imread(str(path.parent / data["empty"]), cv2.IMREAD_COLOR)
            if empty is None:
                raise CalibrationError(f"{path}: cannot read the empty-tray image {data['empty']!r}")
        return cls(homography, size, empty)  # type: ignore[arg-type]


def marker_sheet(side: int = 200) -> list[np.ndarray]:
    """The four corner markers as images, to print and stick at the tray's corners."""
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY)
    return [cv2.copyMakeBorder(cv2.aruco.generateImageMarker(dictionary, i, side), side // 5,
                               side // 5, side // 5, side // 5, cv2.BORDER_CONSTANT, value=255)
            for i in _CORNER_IDS]


def calibrate(frame: np.ndarray, *, empty: bool = True, width: int = 960) -> Tray:
    """A tray from a frame showing the four corner markers (and, with ``empty``, no dice).

    The warp maps the markers' inner corners to the corners of a ``width``-wide view with
    the tray's aspect ratio. A frame with no markers gives an empty-tray calibration only.
    """
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICTIONARY),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(frame)
    found = {int(i): c.reshape(4, 2) for i, c in zip(ids.ravel(), corners)} if ids is not None else {}
    if not found:
        return Tray(empty=frame.copy() if empty else None)
    missing = [i for i in _CORNER_IDS if i not in found]
    if missing:
        raise CalibrationError(f"tray markers {missing} not found (found {sorted(found)}): "
                               "all four corners must be visible")
    # The corner of each marker that points into the tray: marker i's corner i+2 (mod 4).
    inner = np.array([found[i][(i + 2) % 4] for i in _CORNER_IDS], np.float32)
    w_top, w_bottom = np.linalg.norm(inner[1] - inner[0]), np.linalg.norm(inner[2] - inner[3])
    h_left, h_right = np.linalg.norm(inner[3] - inner[0]), np.linalg.norm(inner[2] - inner[1])
    aspect = (h_left + h_right) / np.maximum(w_top + w_bottom, 1e-6)
    size = (int(width), max(16, int(round(width * aspect))))
    target = np.array([[0, 0], [size[0] - 1, 0], [size[0] - 1, size[1] - 1], [0, size[1] - 1]],
                      np.float32)
    homography = cv2.getPerspectiveTransform(inner, target)
    warped = cv2.warpPerspective(frame, homography, size)
    return Tray(homography, size, warped if empty else None)


_RING = 0.02  # of the grid's cells: the least tray standing out that tells of a pull (_pulled)


def _estimate_background(lab: np.ndarray) -> np.ndarray:
    """The surface colour at every pixel: a median over a coarse grid, smoothed up (made
    again with the dice's cells painted over from the tray round them where dice outnumber
    the tray: :func:`_pulled`)."""
    h, w = lab.shape[:2]
    cell = max(4, min(h, w) // 40)
    small = cv2.resize(lab, (max(3, w // cell), max(3, h // cell)), interpolation=cv2.INTER_AREA)
    k = max(3, (min(small.shape[:2]) // 2) | 1)
    smooth = cv2.medianBlur(small, k)
    dice = _pulled(small, smooth)
    if dice is not None:
        smooth = cv2.medianBlur(cv2.inpaint(small, dice, 3, cv2.INPAINT_TELEA), k)
    return cv2.resize(smooth, (w, h), interpolation=cv2.INTER_LINEAR)


def _pulled(cells: np.ndarray, smooth: np.ndarray) -> np.ndarray | None:
    """The cells that stand out from the tray's estimate ``smooth`` as dice (0/1), if the
    estimate was pulled off the tray by dice somewhere; else None.

    In a crowd, a neighbourhood can hold more dice than tray: its median is then the
    dice's colour, dice of that colour are taken for the tray (black dice amid a cluster on
    dark felt: only the cluster's rim stood out), and the tray round them stands out
    instead. What tells it is a ring of such tray: cells that stand out from the estimate
    but have the colour of the tray seen over the whole frame (its median: the tray covers
    most of it), ``_RING`` of the grid at least (a few stray ones, where clutter or the
    light pulls the estimate a little, are 1.4% at most on the webcam photos, and
    re-estimating there moves dice read on the edge of a blob either way). The other cells
    that stand out are then dice, painted over from the tray round them.
    """
    # Both differences at once: from the estimate, and from the frame's tray colour.
    n = len(cells)
    bg = np.empty((2 * n, *cells.shape[1:]), np.float32)
    bg[:n], bg[n:] = smooth, np.median(cells.reshape(-1, 3), 0)
    both = _colour_difference(np.vstack([cells, cells]), bg)
    standing, like_tray = both[:n] > FAINTEST, both[n:] < FAINTEST / 2
    if (standing & like_tray).mean() < _RING:
        return None
    return (standing & ~like_tray).view(np.uint8)


_LAB_OFFSET = np.array([16.0, -128.0, -128.0], np.float32)
_LAB_SCALE = np.array([1 / 2.55, 1.0, 1.0], np.float32)
_SHADE = 0.7  # the cube root of the darkest shadow's share of light (0.7³ ≈ a third)
# (L* + 16, a*, b*) of each 8-bit value of OpenCV's L, a and b: a look-up costs a tenth of
# the sums, to the same bits.
_LAB_LUT = [np.arange(256, dtype=np.float32) * k + o for k, o in zip(_LAB_SCALE, _LAB_OFFSET)]


def _scaled(lab: np.ndarray) -> list[np.ndarray]:
    """(L* + 16, a*, b*), channel by channel, of an image in OpenCV's Lab: 8-bit, or float
    (an empty tray's with its light matched to the frame's)."""
    if lab.dtype == np.uint8:
        return [cv2.LUT(c, lut) for c, lut in zip(cv2.split(lab), _LAB_LUT)]
    return [c.astype(np.float32) * k + o for c, k, o in zip(cv2.split(lab), _LAB_SCALE, _LAB_OFFSET)]


def _colour_difference(lab: np.ndarray, bg: np.ndarray) -> np.ndarray:
    """How far each pixel's colour is from the tray's, shadows forgiven (OpenCV's 8-bit Lab).

    Dimming a colour's light by ``k`` scales its (L* + 16, a*, b*) by the cube root of
    ``k``: a shadow lies on the ray from that point towards black. What counts is the
    distance from that ray, plus any darkening beyond the darkest shadow.
    """
    # Channel by channel: (L* + 16, a*, b*) of the pixel (p) and of the tray (q). The sums
    # are taken in place, which saves a third of the time that new arrays take.
    p, q = _scaled(lab), _scaled(bg)
    qq = q[0] * q[0]
    qq += q[1] * q[1]
    qq += q[2] * q[2]
    np.maximum(qq, 1e-6, out=qq)
    t = p[0] * q[0]
    t += p[1] * q[1]
    t += p[2] * q[2]
    t /= qq
    shade = np.clip(t, 0.0, 1.0)
    for pc, qc in zip(p, q):  # p becomes its offset from the ray, squared, channel by channel
        qc *= shade
        pc -= qc
        pc *= pc
    beyond = np.maximum(np.subtract(_SHADE, t, out=t), 0.0, out=t)
    beyond *= beyond
    beyond *= qq
    distance: NDArray[np.float32] = cv2.sqrt(p[0] + p[1] + p[2] + beyond)
    return distance


def grow(mask: np.ndarray, diff: np.ndarray, level: float, reach: int) -> np.ndarray:
    """The mask grown into fainter pixels (above ``0.6 * level``) up to ``reach`` pixels
    away: a die close to the tray in colour stands out only in part (its pips, an edge),
    and the faint pixels around those belong to it too."""
    near = cv2.dilate(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1,) * 2))
    return cv2.bitwise_and(near, (diff > 0.6 * level).astype(np.uint8) * 255)


def foreground(frame: np.ndarray, tray: Tray | None = None, *, min_contrast: float = FAINTEST
               ) -> tuple[np.ndarray, np.ndarray, float]:
    """Pixels that are not tray surface, the per-pixel colour difference behind that, and the
    difference above which a pixel counts as foreground in this frame.

    The difference is a colour distance in Lab, except for a shadow: a shadow darkens the
    tray, down to about a third of its light, and keeps its colour, so it counts for
    nothing, while a dark die (darker still, or of another hue than the shaded tray)
    stands out.
    """
    size = (frame.shape[1], frame.shape[0])
    if max(size) > 400:
        # Colours are compared at half size: a die is a patch of colour, not a detail.
        frame = cv2.resize(frame, ((size[0] + 1) // 2, (size[1] + 1) // 2),
                           interpolation=cv2.INTER_AREA)
    lab = cv2.cvtColor(frame, cv2.COLOR_BGR2LAB)
    if tray is not None and tray.empty is not None:
        empty = tray.empty
        if empty.shape[:2] != frame.shape[:2]:
            empty = cv2.resize(empty, (frame.shape[1], frame.shape[0]), interpolation=cv2.INTER_AREA)
        bg = cv2.cvtColor(empty, cv2.COLOR_BGR2LAB)
        # The light changes between calibration and play: match the overall brightness.
        gain = np.median(lab[..., 0]) / max(1.0, float(np.median(bg[..., 0])))
        bg = bg.astype(np.float32)
        bg[..., 0] *= gain
    else:
        bg = _estimate_background(lab)
    diff = _colour_difference(lab, bg)
    if diff.shape[::-1] != size:
        diff = cv2.resize(diff, size, interpolation=cv2.INTER_LINEAR)
    t, _ = cv2.threshold(np.clip(diff, 0, 255).astype(np.uint8), 0, 255,
                         cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    level = float(np.clip(0.8 * t, min_contrast, 3 * min_contrast))
    mask = (diff > level).astype(np.uint8) * 255
    return mask, diff, level
