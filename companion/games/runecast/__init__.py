"""Runecast: a co-operative dice game for 2-6 players against Loki's battle boards."""

from .engine import RULES, RunecastRules

__all__ = ["RULES", "RunecastRules"]
