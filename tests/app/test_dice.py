"""Dice counts from the log and the chi-square verdict."""

from __future__ import annotations

from companion.app.dice import DieSet, die_sets, fairness

D6 = DieSet("Runecast dice", "runecast", {"hammer": 2, "snake": 2, "tree": 2},
            {"roll": {"hammers": "hammer", "snakes": "snake", "trees": "tree"}})


def test_counts_come_from_the_actions_named_in_the_data_file() -> None:
    log = [{"action": "roll", "hammers": 3, "snakes": 1}, {"action": "damage", "amount": 4},
           {"action": "roll", "trees": 2}]
    assert D6.count(log) == {"hammer": 3, "snake": 1, "tree": 2}


def test_no_verdict_before_every_face_is_expected_five_times() -> None:
    verdict = fairness(D6, {"hammer": 5, "snake": 5, "tree": 4})
    assert verdict.verdict == "not enough" and D6.needed == 15
    assert "needs at least 15" in verdict.sentence()


def test_even_faces_look_fair_and_lopsided_faces_are_suspicious() -> None:
    fair = fairness(D6, {"hammer": 20, "snake": 19, "tree": 21})
    assert fair.verdict == "fair" and fair.p is not None and fair.p > 0.5
    assert "looks fair" in fair.sentence()
    loaded = fairness(D6, {"hammer": 45, "snake": 8, "tree": 7})
    assert loaded.verdict == "suspicious" and loaded.p is not None and loaded.p < 0.001
    assert "suspicious" in loaded.sentence() and "1 in 1000" in loaded.sentence()


def test_uneven_dice_use_their_sides_as_the_expectation() -> None:
    weighted = DieSet("w", "g", {"a": 4, "b": 2}, {})
    assert fairness(weighted, {"a": 40, "b": 20}).verdict == "fair"
    assert fairness(weighted, {"a": 20, "b": 40}).verdict == "suspicious"


def test_the_data_file_knows_runecast_and_zun_has_no_dice() -> None:
    assert [s.name for s in die_sets("runecast")] == ["Runecast dice"]
    assert die_sets("zun") == []
