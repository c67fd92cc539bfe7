"""Fixtures for the vision tests: rendered scenes and a taught Runecast face folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.dice.faces import TaughtFaces
from vision.dice.render import DIE_STYLES, write_face_folder

RUNE_STYLE = DIE_STYLES[6]


@pytest.fixture(scope="session")
def rune_faces(tmp_path_factory: pytest.TempPathFactory) -> TaughtFaces:
    folder = write_face_folder(tmp_path_factory.mktemp("faces"), seed=7, style=RUNE_STYLE)
    return TaughtFaces.load(folder)
