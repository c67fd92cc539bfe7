"""The desktop demo: every part of the table on one machine (``runes-demo``)."""
