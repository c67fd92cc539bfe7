"""The three games' rules engines; see :func:`companion.core.rules.rules_for`."""
