"""The benchmark runner runs every area the same way: ``main(argv)`` with its own options.

Figures are not checked here (these machines are noisy; people read them), only that each
area runs from the runner's call and prints its figures.
"""

from __future__ import annotations

import importlib

import pytest

from benchmarks.run import AREAS

SMALL = {"core": ["--length", "200"], "firmware": ["--samples", "3"],
         "mqtt": ["--actions", "50"], "vision_dice": ["--quick"],
         "vision_cards": ["--frames", "2"], "app": ["--runs", "1", "--seconds", "1"]}


def test_every_area_has_a_small_run_here() -> None:
    assert sorted(SMALL) == sorted(AREAS)


@pytest.mark.parametrize("area", sorted(SMALL))
def test_an_area_runs_from_the_runner_s_call(area: str, capsys: pytest.CaptureFixture[str]) -> None:
    importlib.import_module(f"benchmarks.{area}").main(SMALL[area])
    assert "median" in capsys.readouterr().out
