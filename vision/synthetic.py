"""Building blocks for rendering synthetic camera frames: a pinhole camera over a tray,
tray surfaces, shadows and the faults of a cheap camera (blur, noise, JPEG).

Real labelled photos are scarce, and the ones we have show one kind of die on one table.
Rendered frames let the tests and the benchmark check that the pipeline holds on surfaces,
colours, angles and lighting it was not tuned on. Everything here is deterministic from a
``numpy.random.Generator``, so a seed names a frame exactly. The dice renderer
(:mod:`vision.dice.render`) builds on it; so can a card renderer.

World units are millimetres; the tray is the plane ``z = 0`` and ``z`` points up.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import cv2
import numpy as np
from numpy.typing import NDArray

__all__ = ["BACKGROUNDS", "Camera", "background", "camera_effects", "cast_shadows", "saved_as_jpeg"]

Image = NDArray[np.uint8]


@dataclass(frozen=True)
class Camera:
    """A pinhole camera ``distance`` mm from the tray centre, tilted ``tilt`` degrees from
    straight down (towards the viewer, as a webcam on a stand looks at a table)."""

    width: int = 1280
    height: int = 720
    focal: float = 1150.0
    distance: float = 400.0
    tilt: float = 0.0
    roll: float = 0.0

    @property
    def _pose(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        t = np.radians(self.tilt)
        # Rows: the camera's x (right), y (down) and z (forward) axes in world coordinates.
        look = np.array([[1.0, 0.0, 0.0], [0.0, -np.cos(t), -np.sin(t)], [0.0, np.sin(t), -np.cos(t)]])
        r = np.radians(self.roll)
        roll = np.array([[np.cos(r), -np.sin(r), 0.0], [np.sin(r), np.cos(r), 0.0], [0.0, 0.0, 1.0]])
        rotation = roll @ look
        position = np.array([0.0, -self.distance * np.sin(t), self.distance * np.cos(t)])
        return rotation, -rotation @ position

    @property
    def position(self) -> NDArray[np.float64]:
        rotation, translation = self._pose
        return -rotation.T @ translation

    @property
    def matrix(self) -> NDArray[np.float64]:
        return np.array([[self.focal, 0.0, self.width / 2], [0.0, self.focal, self.height / 2],
                         [0.0, 0.0, 1.0]])

    def project(self, points: NDArray[np.floating[Any]]) -> NDArray[np.float64]:
        """Image coordinates (N×2) of world points (N×3)."""
        rotation, translation = self._pose
        cam = np.asarray(points, np.float64) @ rotation.T + translation
        uv = cam @ self.matrix.T
        return uv[:, :2] / uv[:, 2:3]

    def ground(self, u: float, v: float) -> NDArray[np.float64]:
        """The point of the tray (z = 0) seen at pixel (u, v)."""
        rotation, translation = self._pose
        ray = rotation.T @ np.linalg.solve(self.matrix, np.array([u, v, 1.0]))
        origin = self.position
        return origin - ray * float(origin[2] / ray[2])


Surface = Literal["felt", "wood", "paper", "slate", "cloth"]
BACKGROUNDS: tuple[Surface, ...] = ("felt", "wood", "paper", "slate", "cloth")


def _smooth_noise(rng: np.random.Generator, shape: tuple[int, int], scale: float
                  ) -> NDArray[np.float32]:
    """Noise with features about ``scale`` pixels across, in [-1, 1]."""
    h, w = shape
    small = rng.standard_normal((max(2, int(h / scale)) + 1, max(2, int(w / scale)) + 1))
    out = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
    noise: NDArray[np.float32] = out / (np.abs(out).max() + 1e-6)
    return noise


def background(kind: Surface, width: int, height: int, rng: np.random.Generator) -> Image:
    """A tray surface of the given kind, its colour drawn at random (BGR uint8)."""
    shape = (height, width)
    base: NDArray[np.floating[Any]]  # float32, but float64 on paper
    if kind == "felt":
        palette = [(40, 110, 30), (120, 60, 20), (30, 30, 130), (90, 40, 90), (60, 60, 60)]
        base = np.array(palette[rng.integers(len(palette))], np.float32)
        tex = 12 * _smooth_noise(rng, shape, 3) + 8 * _smooth_noise(rng, shape, 40)
        img = base + tex[..., None]
    elif kind == "wood":
        # Red above green above blue, as in every wood (pale birch to orange pine).
        red = rng.uniform(175, 235)
        green = red * rng.uniform(0.78, 0.92)
        base = np.array([green * rng.uniform(0.6, 0.88), green, red], np.float32)
        if rng.random() < 0.4:  # dark stained wood
            base *= 0.45
        angle = rng.uniform(-0.3, 0.3)
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        along = yy * np.cos(angle) + xx * np.sin(angle)
        warp = 25 * _smooth_noise(rng, shape, 120)
        grain = np.sin((along + warp) / rng.uniform(5, 12)) * 0.5 + 0.5
        tex = 18 * grain ** 3 + 6 * _smooth_noise(rng, shape, 2)
        img = base - tex[..., None] * np.array([1.0, 0.8, 0.6], np.float32)
    elif kind == "paper":
        base = np.full(3, rng.uniform(200, 245), np.float32) - [rng.uniform(0, 20), 0, 0]
        img = base + (4 * _smooth_noise(rng, shape, 2))[..., None]
    elif kind == "slate":
        base = np.full(3, rng.uniform(35, 70), np.float32)
        img = base + (10 * _smooth_noise(rng, shape, 25) + 5 * _smooth_noise(rng, shape, 3))[..., None]
    else:  # woven cloth: a fine two-way weave
        base = np.array(rng.uniform(60, 200, 3), np.float32)
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        weave = np.sin(xx * 1.3) * np.sin(yy * 1.3)
        img = base + (10 * weave + 6 * _smooth_noise(rng, shape, 30))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def cast_shadows(image: NDArray[np.uint8 | np.float32], polygons: list[np.ndarray],
                 strength: float = 0.45, softness: float = 4.0) -> Image:
    """Darken the image under the given image-space polygons, with soft edges."""
    mask = np.zeros(image.shape[:2], np.float32)
    for poly in polygons:
        cv2.fillConvexPoly(mask, np.round(poly * 16).astype(np.int32), 1.0, cv2.LINE_AA, 4)
    soft = cv2.GaussianBlur(mask, (0, 0), softness) if softness > 0 else mask
    shade = 1.0 - strength * np.clip(soft, 0, 1)
    return np.clip(image * shade[..., None], 0, 255).astype(np.uint8)


def camera_effects(image: Image, rng: np.random.Generator, *, blur: float = 0.0,
                   noise: float = 3.0, vignette: float = 0.15, jpeg: int = 90,
                   exposure: float = 1.0, tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
                   ) -> Image:
    """Exposure and white balance (a gain per channel, BGR), uneven light, lens blur, sensor
    noise and JPEG compression, in that order."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    gx, gy = rng.uniform(-1, 1, 2)
    gradient = 1 + vignette * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy)
    gain = exposure * np.array(tint, np.float32)
    out = image.astype(np.float32) * gradient[..., None] * gain
    if blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), blur)
    out += rng.normal(0, noise, out.shape).astype(np.float32)
    return saved_as_jpeg(np.clip(out, 0, 255).astype(np.uint8), jpeg)


def saved_as_jpeg(image: Image, quality: int) -> Image:
    """``image`` as a camera or phone saves it: encoded at JPEG ``quality`` and decoded
    again, with the blocks and ringing that leaves (as it was, should OpenCV fail to)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    decoded = cv2.imdecode(data, cv2.IMREAD_COLOR) if ok else None
    return image if decoded is None else decoded.astype(np.uint8, copy=False)
