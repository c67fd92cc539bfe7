"""Every word the app shows that is not an event sentence, in one place.

Event sentences ("Ann takes 3 damage: 12 → 9") come from the engines'
templates in :data:`companion.core.events.MESSAGES`; everything else the
screens say is here, keyed by a dotted name. A translation is a TOML file of
``key = "text"`` lines loaded over these (``[app] strings`` in the settings
file), exactly as ``MESSAGES.load`` does for event sentences.
"""

from __future__ import annotations

from typing import Any

from companion.core.events import Catalogue

__all__ = ["UI", "t"]

UI = Catalogue()

UI.register({
    # The three games, as players know them.
    "game.zun": "Runes of Zun",
    "game.runecast": "Runecast",
    "game.market": "The Rune Market",
    # Home
    "home.title": "Rune Table",
    "home.new": "New game",
    "home.resume_last": "Resume last game",
    "home.saved": "Saved games",
    "home.none_saved": "No saved games yet: start one on the left.",
    "home.resume": "Resume",
    "home.archive": "Archive",
    "home.settings": "Settings",
    "home.game_line": "#{id} {game} · {status} · {actions} actions · {when}",
    "home.not_available": "{game} is not installed in this version of the companion.",
    "status.active": "playing",
    "status.finished": "finished",
    "status.archived": "archived",
    # Setup
    "setup.title": "New game: {game}",
    "setup.players": "Players, in turn order",
    "setup.add_player": "Add player",
    "setup.player_hint": "Name",
    "setup.team_none": "No team",
    "setup.team": "{name}",
    "setup.options": "Options",
    "setup.start": "Start game",
    "setup.cancel": "Back",
    "setup.trackers": "LED trackers",
    "setup.no_trackers": "No LED tracker is connected: the game works without them.",
    "setup.blink": "Blink",
    "setup.seat_none": "No seat",
    "setup.seat": "Seat {seat}",
    "setup.first_default": "Seat 1",
    "setup.default": "Default",
    "setup.name_taken": "{name!r} is already at the table: give the second player another name.",
    "setup.max_players": "{game} is for at most {maximum} players.",
    "setup.min_players": "{game} needs at least {minimum} players.",
    "setup.yes": "Yes",
    "setup.no": "No",
    "option.hp": "Starting HP",
    "option.locations": "Locations",
    "option.deck": "Location deck",
    "option.first": "First player",
    "option.teams": "Teams",
    "option.locations.none": "None",
    "option.locations.normal": "Normal",
    "option.locations.simplified": "Simplified",
    "option.locations.tourist": "Tourist",
    # Table
    "table.round": "Round {round}",
    "table.turn": "{player}'s turn",
    "table.next": "Next phase",
    "table.end_turn": "End turn",
    "table.mulligan": "Mulligan",
    "table.location": "Location",
    "table.no_location": "No Location",
    "table.tourist_left": "{rounds} rounds left here",
    "table.tourist_last": "Last round here",
    "table.challenge": "Challenge {challenge}",
    "table.reminders": "Now",
    "table.apply": "OK",
    "table.cancel": "Cancel",
    "table.defeated": "DEFEATED",
    "table.winner": "WINNER",
    "table.over": "Game over: {result}",
    "table.team": "Team {team}",
    "table.tier": "Tier {tier}",
    "table.tier_down": "Down",
    "table.effects": "Effects: {names}",
    "table.stale": "The table changed before your tap landed: check the screen and tap again.",
    "table.one_finger": "One finger at a time, please.",
    "phase.start": "Start",
    "phase.action": "Action",
    "phase.recovery": "Recovery",
    "phase.end": "End",
    # Player sheet
    "sheet.title": "{player}: {hp} HP",
    "sheet.damage": "Damage",
    "sheet.heal": "Heal",
    "sheet.set": "Set HP",
    "sheet.overdraw": "Overdraw",
    "sheet.underdraw": "Underdraw",
    "sheet.defeat": "Defeat",
    "sheet.revive": "Revive",
    "sheet.immune": "Immune",
    "sheet.uptier": "Up-tier",
    "sheet.amount": "Amount",
    "sheet.effects": "Ongoing effects",
    "sheet.effect_name": "Card name",
    "sheet.add_effect": "Add",
    "sheet.discard": "Discard",
    "sheet.when_start": "At start",
    "sheet.when_end": "At end",
    "sheet.prevents": "Prevents HP loss",
    "sheet.close": "Close",
    "sheet.preview": "{before} → {after}",
    "sheet.preview_none": "No change",
    # Location actions
    "loc.title": "Change the Location",
    "loc.travel": "Travel",
    "loc.purge": "Purge",
    "loc.scramble": "Scramble",
    "loc.swap": "Swap",
    "loc.scry": "Scry",
    "loc.drawn": "Card drawn (leave on Top of deck if unknown)",
    "loc.top": "Top of deck",
    # Navigation
    "nav.undo": "Undo",
    "nav.redo": "Redo",
    "nav.history": "History",
    "nav.plots": "Plots",
    "nav.camera": "Camera",
    "nav.home": "Home",
    "nav.back": "Back",
    "nav.table": "Table",
    "nav.locations": "Location",
    # History
    "history.title": "History",
    "history.start": "Start of the game",
    "history.go": "Go back here",
    "history.undone": "(undone)",
    "history.empty": "Nothing has happened yet.",
    # Plots
    "plots.title": "Plots",
    "plots.hp": "HP over the game",
    "plots.dice": "Dice rolled",
    "plots.no_dice": "No dice have been rolled in this game.",
    "plots.not_enough": "{rolls} of {set} rolled so far: a fair verdict needs at least {needed}.",
    "plots.fair": "{set}: looks fair ({rolls} faces, chi-square {chi2:.1f}, p = {p:.2f}).",
    "plots.unfair": "{set}: suspicious! Faces this uneven come up by chance only {percent} of the "
                    "time ({rolls} faces, chi-square {chi2:.1f}, p = {p:.3f}).",
    "plots.action": "action",
    # Camera
    "camera.title": "Check the reading",
    "camera.confirm": "Confirm",
    "camera.discard": "Discard",
    "camera.none": "No reading from the camera yet.",
    "camera.dice_summary": "{counts}",
    "camera.card_summary": "Card: {names}",
    "camera.tap_to_fix": "Tap a die to correct it; Confirm enters the roll.",
    "camera.tap_card": "Confirm plays the card; tap a card to pick another.",
    "camera.as": "Enter as",
    "camera.low_confidence": "unsure",
    # Settings
    "settings.title": "Settings",
    "settings.broker": "Broker",
    "settings.host": "Host",
    "settings.port": "Port",
    "settings.table_id": "Table id",
    "settings.save": "Save",
    "settings.saved": "Saved to {path}. Restart the companion to reconnect.",
    "settings.camera": "Camera and tray",
    "settings.calibrate": "Calibrate tray",
    "settings.calibrated": "Tray found: {corners}",
    "settings.pins": "Button pins",
    "settings.pin_line": "{name}: GPIO {pin}",
    "settings.pressed": "pressed",
    "settings.released": "up",
    "settings.trackers": "LED trackers",
    "settings.brightness": "Brightness {percent}%",
    "settings.language": "Strings file",
    # Status corner
    "status.broker": "Broker",
    "status.camera": "Camera",
    "status.tracker": "T{id}",
    "status.online": "online",
    "status.offline": "offline",
    # Errors
    "error.no_game": "No game is being played: start or resume one.",
})


def t(key: str, **params: Any) -> str:
    """The text for ``key`` with ``params`` filled in (the key itself if unknown)."""
    return UI.render(key, params)
