"""Rune Table Companion: score keeper, journal and hub for a rune-games table."""

__version__ = "0.1.0"
