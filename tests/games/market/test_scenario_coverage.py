"""The golden scenarios of The Rune Market cover what the issue asks of them.

The scenarios themselves are checked by tests/test_scenarios.py; this only makes sure
that, together, they keep showing every situation they are there for.
"""

from __future__ import annotations

from pathlib import Path

from companion.core.replay import replay_lines

FOLDER = Path(__file__).resolve().parents[2] / "scenarios" / "market"


def test_the_scenarios_cover_the_required_situations() -> None:
    kinds: set[str] = set()
    verbs: set[str] = set()
    counts: set[int] = set()
    tie_breaks: set[str | None] = set()
    ended_by: set[str] = set()
    for path in sorted(FOLDER.glob("*.txt")):
        session = replay_lines(path.read_text().splitlines(), source=str(path))
        counts.add(len(session.state.players))
        for entry in session.history():
            kinds.update(e.kind for e in entry.events)
            paid = "cards" if getattr(entry.action, "cards", ()) else "no cards"
            verbs.add(f"{entry.action.verb} {paid}")
            if any(e.kind == "market.game_over" for e in entry.events):
                ended_by.add(entry.action.verb)
        assert session.state.outcome is not None, f"{path.name} does not end"
        tie_breaks.add(session.state.outcome.tie_break)
    assert {2, 3, 5} <= counts
    assert {"market.loot", "market.abandoned", "market.ransom", "market.neutralised",
            "market.outpost_destroyed"} <= kinds
    # I: a ransom in cards; II: in runes; III: an outpost bought (here with cards), and owned.
    assert {"ransom cards", "ransom no cards", "neutralise cards", "neutralise no cards"} <= verbs
    assert ended_by == {"buy_rune"}  # a purchase in the middle of a turn, never end_turn
    assert {None, "I", "II", "III", "IV"} <= tie_breaks
