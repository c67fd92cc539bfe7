"""Golden scenario files: whole games as replay files, with the final state they must reach.

Each ``scenarios/<game>/<name>.txt`` is a replay file (a setup line, then one action per
line); ``<name>.json`` beside it holds the expected final state. Only the keys written in
the expected file are compared, recursively; lists must have the same length.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from companion.core.replay import replay_lines

SCENARIOS = sorted((Path(__file__).parent / "scenarios").glob("*/*.txt"))


def assert_subset(expected: Any, actual: Any, path: str = "state") -> None:
    if isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: expected an object, got {actual!r}"
        for key, value in expected.items():
            assert key in actual, f"{path}: missing key {key!r}"
            assert_subset(value, actual[key], f"{path}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{path}: expected a list, got {actual!r}"
        assert len(actual) == len(expected), f"{path}: {len(actual)} items, expected {len(expected)}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_subset(e, a, f"{path}[{i}]")
    else:
        assert actual == expected, f"{path}: {actual!r} != expected {expected!r}"


def test_there_are_scenarios_for_every_game_that_has_an_engine() -> None:
    games = {p.parent.name for p in SCENARIOS}
    assert "zun" in games


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_reaches_its_expected_state(path: Path) -> None:
    expected = json.loads(path.with_suffix(".json").read_text())
    session = replay_lines(path.read_text().splitlines(), source=str(path))
    assert_subset(expected, session.to_json())
