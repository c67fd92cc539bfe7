"""Runes of Zun: a card duel for 2-8 players, free-for-all or in teams."""

from .engine import RULES, ZunRules

__all__ = ["RULES", "ZunRules"]
