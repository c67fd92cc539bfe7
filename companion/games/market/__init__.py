"""The Rune Market: collect red and blue runes, shelter them, and rob each other, 2-5 players."""

from .engine import RULES, MarketRules

__all__ = ["MarketRules", "RULES"]
