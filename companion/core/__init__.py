"""The game core shared by every game: actions, events, rules engines, sessions, the journal."""
