"""Rendered photos of dice on a tray, with their true faces, for tests and benchmarks.

Each die is a cube lit from above, drawn face by face through a pinhole
:class:`~vision.synthetic.Camera`, so tilted views show side faces with their own pips,
foreshortened, exactly the case the reader must not be fooled by. Dice can be pip dice or
carry Runecast's symbols (hammer, snake, tree); colours, surfaces, shadows, glare, blur
and noise vary with the seed. ``render_scene(seed)`` always gives the same picture.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import cv2
import numpy as np

from vision.dice.layout import PIP_FACES, pip_layout
from vision.synthetic import BACKGROUNDS, Camera, Surface, background, camera_effects, cast_shadows

__all__ = ["DIE_STYLES", "RUNE_FACES", "DieStyle", "RenderedDie", "Scene", "face_texture",
           "render_scene", "write_face_folder", "write_scene_set"]

RUNE_FACES: tuple[str, ...] = ("hammer", "snake", "tree")
_TEXTURE = 128


@dataclass(frozen=True)
class DieStyle:
    """How a set of dice looks: body and ink colours (BGR) and pip geometry."""

    name: str
    body: tuple[int, int, int]
    ink: tuple[int, int, int]
    pip_offset: float = 0.26
    pip_radius: float = 0.085
    big_one: bool = False


DIE_STYLES: tuple[DieStyle, ...] = (
    DieStyle("white", (235, 240, 240), (25, 25, 25)),
    DieStyle("ivory", (200, 225, 235), (30, 30, 40), pip_radius=0.095),
    DieStyle("red", (40, 40, 190), (240, 240, 240), pip_offset=0.27),
    DieStyle("black", (35, 35, 35), (235, 235, 235), pip_radius=0.08),
    DieStyle("blue", (150, 80, 30), (245, 245, 245), big_one=True),
    DieStyle("green", (60, 140, 40), (240, 240, 240), pip_offset=0.25, pip_radius=0.09),
    DieStyle("yellow", (40, 200, 230), (20, 20, 20)),
    DieStyle("white, red pips", (240, 240, 245), (30, 30, 200), big_one=True, pip_radius=0.08),
    DieStyle("purple", (110, 40, 110), (230, 230, 230), pip_offset=0.28, pip_radius=0.075),
)


def _draw_symbol(tex: np.ndarray, name: str, ink: tuple[int, int, int]) -> None:
    s = _TEXTURE / 100.0

    def pts(*xy: tuple[float, float]) -> np.ndarray:
        return (np.array(xy, float) * s * 16).astype(np.int32)

    def line(a: tuple[float, float], b: tuple[float, float], width: float) -> None:
        cv2.line(tex, tuple(pts(a)[0]), tuple(pts(b)[0]), ink, int(width * s), cv2.LINE_AA, 4)

    if name == "hammer":  # Mjolnir: a broad head, a short handle, a pommel
        cv2.fillPoly(tex, [pts((24, 22), (76, 22), (80, 44), (20, 44))], ink, cv2.LINE_AA, 4)
        cv2.fillPoly(tex, [pts((44, 44), (56, 44), (55, 72), (45, 72))], ink, cv2.LINE_AA, 4)
        cv2.circle(tex, tuple(pts((50, 78))[0]), int(7 * s * 16), ink, -1, cv2.LINE_AA, 4)
    elif name == "snake":  # Jormungandr: an S-curve with a head
        t = np.linspace(0, 1, 40)
        xy = np.stack([50 + 22 * np.sin(t * 2 * np.pi), 24 + 52 * t], 1)
        cv2.polylines(tex, [(xy * s * 16).astype(np.int32)], False, ink, int(8 * s), cv2.LINE_AA, 4)
        cv2.ellipse(tex, tuple(pts((52, 22))[0]), (int(10 * s * 16), int(7 * s * 16)), 20, 0, 360,
                    ink, -1, cv2.LINE_AA, 4)
    elif name == "tree":  # Yggdrasil: a trunk, branches up and roots down
        line((50, 80), (50, 30), 8)
        for a, b in [((50, 50), (28, 30)), ((50, 50), (72, 30)), ((50, 38), (36, 20)),
                     ((50, 38), (64, 20)), ((50, 76), (32, 84)), ((50, 76), (68, 84))]:
            line(a, b, 6)
        cv2.circle(tex, tuple(pts((50, 22))[0]), int(6 * s * 16), ink, -1, cv2.LINE_AA, 4)
    else:
        raise ValueError(f"no symbol drawn for face {name!r}")


def face_texture(face: str, style: DieStyle) -> np.ndarray:
    """The face as printed, straight on (``_TEXTURE`` px square, BGRA with rounded corners)."""
    tex = np.zeros((_TEXTURE, _TEXTURE, 3), np.uint8)
    tex[:] = style.body
    if face in PIP_FACES:
        value = int(face)
        for x, y in pip_layout(value, style.pip_offset):
            radius = style.pip_radius * (1.6 if value == 1 and style.big_one else 1.0)
            centre = (int((0.5 + x) * _TEXTURE * 16), int((0.5 + y) * _TEXTURE * 16))
            cv2.circle(tex, centre, int(radius * _TEXTURE * 16), style.ink, -1, cv2.LINE_AA, 4)
    else:
        _draw_symbol(tex, face, style.ink)
    # Rounded edges: darker towards the border, and the corners cut away.
    yy, xx = np.mgrid[0:_TEXTURE, 0:_TEXTURE].astype(np.float32) / (_TEXTURE - 1)
    edge = np.minimum(np.minimum(xx, 1 - xx), np.minimum(yy, 1 - yy))
    bevel = 0.8 + 0.2 * np.clip(edge / 0.1, 0, 1)
    out = np.clip(tex * bevel[..., None], 0, 255).astype(np.uint8)
    alpha = np.zeros((_TEXTURE, _TEXTURE), np.uint8)
    r = int(0.12 * _TEXTURE)
    cv2.rectangle(alpha, (r, 0), (_TEXTURE - 1 - r, _TEXTURE - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (_TEXTURE - 1, _TEXTURE - 1 - r), 255, -1)
    for cx in (r, _TEXTURE - 1 - r):
        for cy in (r, _TEXTURE - 1 - r):
            cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    return np.dstack([out, alpha])


@dataclass(frozen=True)
class RenderedDie:
    """The truth about one rendered die: its top face, and where the top face is drawn."""

    face: str
    top: np.ndarray  # the top face's corners in the image, 4×2

    @property
    def box(self) -> tuple[int, int, int, int]:
        x0, y0 = self.top.min(0)
        x1, y1 = self.top.max(0)
        return int(round(x0)), int(round(y0)), int(round(x1 - x0)), int(round(y1 - y0))

    @property
    def centre(self) -> tuple[float, float]:
        cx, cy = self.top.mean(0)
        return float(cx), float(cy)


@dataclass
class Scene:
    image: np.ndarray
    dice: list[RenderedDie] = field(default_factory=list)
    # How it was drawn, for telling which conditions a reader fails in.
    conditions: dict[str, object] = field(default_factory=dict)

    def labels(self) -> list[dict[str, object]]:
        return [{"face": d.face, "box": list(d.box)} for d in self.dice]


# Cube faces: outward normal and the corners (unit cube, centred, z from 0 to 1) of each,
# in texture order top-left, top-right, bottom-right, bottom-left.
_CUBE_FACES = {
    "top": ((0, 0, 1), [(-1, 1, 1), (1, 1, 1), (1, -1, 1), (-1, -1, 1)]),
    "south": ((0, -1, 0), [(-1, -1, 1), (1, -1, 1), (1, -1, 0), (-1, -1, 0)]),
    "north": ((0, 1, 0), [(1, 1, 1), (-1, 1, 1), (-1, 1, 0), (1, 1, 0)]),
    "east": ((1, 0, 0), [(1, -1, 1), (1, 1, 1), (1, 1, 0), (1, -1, 0)]),
    "west": ((-1, 0, 0), [(-1, 1, 1), (-1, -1, 1), (-1, -1, 0), (-1, 1, 0)]),
}


def _contrast(body: tuple[int, int, int], tray: np.ndarray) -> float:
    """Colour distance (Lab) between a die body and a tray surface."""
    a = cv2.cvtColor(np.array([[body]], np.uint8), cv2.COLOR_BGR2LAB).astype(float)[0, 0]
    b = cv2.cvtColor(tray, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(float).mean(0)
    return float(np.linalg.norm((a - b) * [1 / 2.55, 1, 1]))


def _side_faces(top: str, kind: Literal["pips", "runes"], rng: np.random.Generator) -> list[str]:
    if kind == "pips":
        value = int(top)
        sides = [v for v in range(1, 7) if v not in (value, 7 - value)]
        order = [sides[0], sides[1], 7 - sides[0], 7 - sides[1]]  # around the die
        k = int(rng.integers(4))
        return [str(v) for v in order[k:] + order[:k]]
    return [RUNE_FACES[int(i)] for i in rng.integers(len(RUNE_FACES), size=4)]


def _paste(canvas: np.ndarray, tex: np.ndarray, quad: np.ndarray, shade: float,
           glare: tuple[float, float, float] | None) -> None:
    """Draw a BGRA texture into the quad of the canvas, shaded, with optional glare."""
    h, w = canvas.shape[:2]
    x0, y0 = np.floor(quad.min(0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
    if x1 <= x0 or y1 <= y0:
        return
    size = int(np.clip(2 * np.abs(np.diff(quad, axis=0)).max(), 8, _TEXTURE))
    small = cv2.resize(tex, (size, size), interpolation=cv2.INTER_AREA)
    colour = small[..., :3].astype(np.float32) * shade
    if glare is not None:
        gx, gy, strength = glare
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size
        colour += strength * np.exp(-((xx - gx) ** 2 + (yy - gy) ** 2) / 0.02)[..., None]
    src = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    dst = (quad - [x0, y0]).astype(np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(np.clip(colour, 0, 255), m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR)
    alpha = cv2.warpPerspective(small[..., 3].astype(np.float32) / 255, m, (x1 - x0, y1 - y0),
                                flags=cv2.INTER_LINEAR)[..., None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - alpha) + out * alpha


def render_scene(seed: int, *, count: int | None = None, kind: Literal["pips", "runes"] = "pips",
                 width: int = 1280, height: int = 720, die_px: float | None = None,
                 tilt: float | None = None, style: DieStyle | None = None,
                 surface: Surface | None = None, touching: float = 0.25,
                 faces: tuple[str, ...] | None = None, blur: float | None = None,
                 glare: float = 0.3) -> Scene:
    """A photo of ``count`` dice thrown on a tray, everything not given drawn from ``seed``."""
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 13)) if count is None else count
    faces = faces or (PIP_FACES if kind == "pips" else RUNE_FACES)
    style = style or DIE_STYLES[int(rng.integers(len(DIE_STYLES)))]
    for _ in range(100):
        # The reader assumes dice that stand out from the tray, as anyone would choose; white
        # dice on pale wood (the webcam photos) are about 20 apart.
        # (A surface's colour comes first from its own generator, whatever the size.)
        pick = surface or BACKGROUNDS[int(rng.integers(len(BACKGROUNDS)))]
        surface_seed = int(rng.integers(2**31))
        if surface or _contrast(style.body, background(
                pick, 64, 64, np.random.default_rng(surface_seed))) >= 20:
            break
    surface = pick
    tilt = float(rng.uniform(0, 30)) if tilt is None else tilt
    if die_px is None:
        # Dice 45-75 px a side at 1280 px wide; never below 30 px, where pips are 5 px across
        # and a person zooming in can still count them.
        die_px = float(rng.uniform(max(30.0, 45 * width / 1280), max(40.0, 75 * width / 1280)))
    side = 16.0
    focal = 0.95 * width
    cam = Camera(width, height, focal, focal * side / die_px, tilt, float(rng.uniform(-3, 3)))

    # Throw the dice: rejection sampling on the visible part of the tray, some in touching pairs.
    placed: list[tuple[float, float, float]] = []
    margin = 0.06 * min(width, height)
    corners = np.array([cam.ground(u, v) for u, v in
                        [(margin, margin), (width - margin, margin), (width - margin, height - margin),
                         (margin, height - margin)]])
    lo, hi = corners[:, :2].min(0), corners[:, :2].max(0)
    for _ in range(count * 400):
        if len(placed) == count:
            break
        if placed and rng.random() < touching:
            bx, by, yaw = placed[int(rng.integers(len(placed)))]
            step = side * rng.uniform(1.0, 1.06)
            a = yaw + rng.integers(4) * np.pi / 2 + rng.uniform(-0.05, 0.05)
            x, y = bx + step * np.cos(a), by + step * np.sin(a)
            yaw = yaw + rng.uniform(-0.08, 0.08)
            clearance = 0.98 * side
        else:
            x, y = rng.uniform(lo, hi)
            yaw = rng.uniform(0, np.pi / 2)
            clearance = 1.5 * side
        if any(np.hypot(x - px, y - py) < clearance for px, py, _ in placed):
            continue
        footprint = np.array([[x + dx, y + dy, 0] for dx in (-side, side) for dy in (-side, side)])
        uv = cam.project(footprint)
        if (uv < margin).any() or (uv[:, 0] > width - margin).any() or (uv[:, 1] > height - margin).any():
            continue
        if not (lo[1] <= y <= hi[1]):
            continue
        placed.append((x, y, yaw))

    image = background(surface, width, height,
                       np.random.default_rng(surface_seed)).astype(np.float32)
    light = np.array([rng.uniform(-0.5, 0.5), rng.uniform(-0.5, 0.5), 1.0])
    light /= np.linalg.norm(light)
    ambient = rng.uniform(0.55, 0.7)

    cubes = []
    for x, y, yaw in placed:
        c, s = np.cos(yaw), np.sin(yaw)
        rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
        scale = np.array([side / 2, side / 2, side])
        cubes.append((x, y, rot, scale))

    shadows = []
    for x, y, rot, scale in cubes:
        verts = np.array([(dx, dy, dz) for dx in (-1, 1) for dy in (-1, 1) for dz in (0, 1)], float)
        world = verts * scale @ rot.T + [x, y, 0]
        flat = world - np.outer(world[:, 2] / light[2], light)
        hull = cv2.convexHull(cam.project(flat).astype(np.float32)).reshape(-1, 2)
        shadows.append(hull)
    image = cast_shadows(image, shadows, strength=rng.uniform(0.2, 0.5),
                         softness=rng.uniform(1, 6)).astype(np.float32)

    dice: list[RenderedDie] = []
    order = sorted(range(len(cubes)), key=lambda i: -np.linalg.norm(
        cam.position - np.array([cubes[i][0], cubes[i][1], side / 2])))
    tops = [faces[int(rng.integers(len(faces)))] for _ in cubes]
    for i in order:
        x, y, rot, scale = cubes[i]
        top = tops[i]
        names = [top] + _side_faces(top, kind, rng) if top in PIP_FACES or kind == "runes" \
            else [top] + [faces[int(rng.integers(len(faces)))] for _ in range(4)]
        centre = np.array([x, y, side / 2])
        for (label, (normal, face_corners)), name in zip(_CUBE_FACES.items(), names):
            n = rot @ np.array(normal, float)
            world = np.array(face_corners, float) * scale @ rot.T + [x, y, 0]
            if np.dot(n, cam.position - (centre + n * side / 2)) <= 0:
                continue
            quad = cam.project(world)
            tex = face_texture(name, style)
            k = int(rng.integers(4))
            tex = np.ascontiguousarray(np.rot90(tex, k))
            shade = ambient + (1 - ambient) * max(0.0, float(np.dot(n, light)))
            spot = None
            if label == "top" and rng.random() < glare:
                spot = (float(rng.uniform(0.2, 0.8)), float(rng.uniform(0.2, 0.8)),
                        float(rng.uniform(40, 110)))
            _paste(image, tex, quad, shade, spot)
            if label == "top":
                dice.append(RenderedDie(top, quad))
    if blur is None:  # lens blur in proportion to the die: small dice are not smeared away
        blur = float(rng.choice([0.0, 0.6, 1.0, 1.6])) * min(1.0, die_px / 50)
    # Drawn in this order, as always: a seed names a picture.
    noise = float(rng.uniform(1.5, 5))
    vignette = float(rng.uniform(0.05, 0.3))
    jpeg = int(rng.integers(70, 96))
    exposure = float(rng.uniform(0.8, 1.15))
    tint_b, tint_g, tint_r = (float(t) for t in 1 + rng.uniform(-0.07, 0.07, 3))
    out = camera_effects(np.clip(image, 0, 255).astype(np.uint8), rng, blur=blur, noise=noise,
                         vignette=vignette, jpeg=jpeg, exposure=exposure,
                         tint=(tint_b, tint_g, tint_r))
    return Scene(out, dice, {"style": style.name,
                             "surface": surface, "tilt": round(tilt, 1), "die_px": round(die_px, 1),
                             "blur": round(blur, 2)})


def write_scene_set(folder: str | Path, seeds: range, **kwargs: object) -> list[Path]:
    """Write one JPEG per seed and a ``labels.json`` of the true faces and boxes."""
    import json

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    labels: dict[str, object] = {}
    paths = []
    for seed in seeds:
        scene = render_scene(seed, **kwargs)  # type: ignore[arg-type]
        path = folder / f"scene_{seed:05d}.jpg"
        cv2.imwrite(str(path), scene.image)
        labels[path.name] = scene.labels()
        paths.append(path)
    (folder / "labels.json").write_text(json.dumps(labels, indent=1))
    return paths


def write_face_folder(folder: str | Path, seed: int, *, faces: tuple[str, ...] = RUNE_FACES,
                      photos: int = 3, style: DieStyle | None = None) -> Path:
    """A face folder for teaching: ``folder/<face>/photo_N.jpg``, each photo showing a few
    dice that all show that face, seen from above at varied angles and rotations."""
    folder = Path(folder)
    rng = np.random.default_rng(seed)
    style = style or DIE_STYLES[0]
    for face in faces:
        (folder / face).mkdir(parents=True, exist_ok=True)
        for n in range(photos):
            # Close enough to see the symbol well, as anyone teaching would take them.
            scene = render_scene(int(rng.integers(2**31)), count=int(rng.integers(1, 4)),
                                 kind="runes", width=640, height=480, style=style, faces=(face,),
                                 tilt=float(rng.uniform(0, 12)), glare=0.0, blur=0.0,
                                 die_px=float(rng.uniform(70, 110)))
            cv2.imwrite(str(folder / face / f"photo_{n}.jpg"), scene.image)
    return folder
