"""Where the pips of a standard die sit, in face units.

The face is the square ``[-0.5, 0.5]²``; pips lie on a 3×3 grid ``offset`` from the
centre (about a quarter of the face on most dice). Shared by the reader, which matches
what it sees against these patterns, and by the renderer, which draws them.
"""

from __future__ import annotations

import numpy as np

__all__ = ["GRID", "PIP_FACES", "pip_layout"]

PIP_FACES: tuple[str, ...] = ("1", "2", "3", "4", "5", "6")

_GRID = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}

# The nine places a pip can be, row by row.
GRID: np.ndarray = np.array([(x, y) for y in (-1, 0, 1) for x in (-1, 0, 1)], float)


def pip_layout(value: int, offset: float = 1.0) -> np.ndarray:
    """The pip centres (N×2) of face ``value``, on a grid ``offset`` apart."""
    return np.array(_GRID[value], float) * offset
