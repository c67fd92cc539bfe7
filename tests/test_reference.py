"""docs/actions.md is generated from the action declarations and must be up to date."""

from __future__ import annotations

from companion.reference import DOC, render


def test_the_committed_action_reference_matches_the_code() -> None:
    assert DOC.read_text() == render(), "run: python -m companion.reference"


def test_every_action_has_a_description() -> None:
    text = render()
    for section in text.split("\n### `")[1:]:
        verb, _, body = section.partition("`")
        lines = [line for line in body.splitlines() if line.strip()]
        assert len(lines) >= 2 and not lines[1].startswith("|"), f"{verb} has no description"
