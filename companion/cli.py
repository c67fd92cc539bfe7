"""``runes``: the command line, for scripting, fixes over SSH, and tests.

Every command works on the journal (``--db``, else ``$RUNES_DB``, else the
settings file, else the state directory) and on the current game: the one
given with ``--game``, else the last unfinished one (for ``undo``, ``redo`` and
``goto``: the last one played, so the move that ended a game can be taken back).
Actions are the same text or JSON as everywhere else; quotes keep a name with a
space together (``runes do heal "Ann Marie" 2``)::

    runes new zun players=Ann,Bob,Cid,Dee teams=Red:Ann+Cid,Blue:Bob+Dee
    runes do damage Ann 3
    runes do '{"action": "heal", "player": "Ann", "amount": 2}'
    runes undo
    runes state --json
    runes replay game.txt

Exit status: 0 done, 1 refused (the message says which rule), 2 bad usage.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from companion.backup import backup, export_csv, export_game, import_game
from companion.config import ConfigError, journal_path
from companion.core.errors import CompanionError
from companion.core.journal import Journal
from companion.core.replay import replay_lines
from companion.core.rules import GAMES, rules_for
from companion.core.session import SESSION_ACTIONS, Session

__all__ = ["main"]


def _print_events(events: Sequence[object], out: TextIO) -> None:
    for e in events:
        print(e, file=out)


def _summary(state: dict[str, Any]) -> str:
    """A few readable lines for a person at a terminal (``--json`` gives everything)."""
    lines = [f"{state['game']} game {state.get('game_id') or '(unsaved)'}, "
             f"revision {state['revision']}"]
    where = [f"{k} {state[k]}" for k in ("round", "turn", "phase") if state.get(k) is not None]
    if where:
        lines.append(", ".join(where))
    for p in state.get("players", []):
        marks = [f"HP {p['hp']}/{p.get('max_hp', p.get('max', '?'))}" if p.get("hp") is not None
                 else f"runes {p.get('score', '')}".strip()]
        if p.get("team"):
            marks.append(f"team {p['team']}")
        if p.get("defeated") or p.get("alive") is False:
            marks.append("DOWN")
        if p.get("active"):
            marks.append("<- turn")
        lines.append(f"  {p.get('seat', '')}. {p['name']}: " + ", ".join(marks))
    for r in state.get("reminders", []):
        lines.append(f"  ! {r}")
    if state.get("winner") or state.get("outcome") or state.get("result"):
        lines.append(f"Result: {state.get('result') or state.get('outcome') or state['winner']}")
    return "\n".join(lines)


def _show(session: Session[Any], as_json: bool, out: TextIO) -> None:
    state = session.to_json()
    print(json.dumps(state, indent=2, ensure_ascii=False) if as_json else _summary(state), file=out)


class _Cli:
    def __init__(self, args: argparse.Namespace, out: TextIO) -> None:
        self.args = args
        self.out = out

    def journal(self) -> Journal:
        return Journal(self.args.db or journal_path())

    def current(self, journal: Journal, *, finished: bool = False) -> Session[Any]:
        """The game to work on; ``finished``: the last one played may have ended."""
        game = self.args.game
        if game is None and finished:
            game = next((info.id for info in journal.games()), None)
        # Only looking, or playing (which journals itself): either way not a "resume".
        return Session.resume(journal, game, current=False)

    def new(self) -> None:
        words = self.args.setup
        setup = words[0] if len(words) == 1 and words[0].lstrip().startswith("{") \
            else shlex.join(words)
        with self.journal() as journal:
            session = Session.new(self.args.rules, setup, journal=journal, title=self.args.title)
            print(f"Started game {session.game_id}: {session.rules.title}", file=self.out)
            _show(session, self.args.json, self.out)

    def do(self) -> None:
        # One word is the whole action already ('damage Ann 3', or JSON); several are
        # quoted again where the shell took the quotes away (heal "Ann Marie" 2).
        words = self.args.action
        command = words[0] if len(words) == 1 else shlex.join(words)
        with self.journal() as journal:
            session = self.current(journal)
            _print_events(session.play(command), self.out)
            if self.args.json:
                _show(session, True, self.out)

    def undo(self) -> None:
        self._session_command("undo")

    def redo(self) -> None:
        self._session_command("redo")

    def goto(self) -> None:
        self._session_command(f"goto {self.args.position}")

    def _session_command(self, command: str) -> None:
        with self.journal() as journal:
            session = self.current(journal, finished=True)
            _print_events(session.play(command), self.out)

    def state(self) -> None:
        with self.journal() as journal:
            _show(self.current(journal), self.args.json, self.out)

    def log(self) -> None:
        with self.journal() as journal:
            session = self.current(journal)
            entries = session.history()
            if self.args.json:
                print(json.dumps([{"seq": e.seq, "action": e.action.to_json(), "text": str(e.action),
                                   "events": [ev.to_json() for ev in e.events], "at": e.at,
                                   "undone": e.undone} for e in entries],
                                 indent=2, ensure_ascii=False), file=self.out)
                return
            for e in entries:
                mark = " (undone)" if e.undone else ""
                print(f"{e.seq:4}. {e.action}{mark}", file=self.out)
                for ev in e.events:
                    print(f"        {ev}", file=self.out)

    def games(self) -> None:
        with self.journal() as journal:
            infos = journal.games(include_archived=self.args.all)
        if self.args.json:
            print(json.dumps([{"id": i.id, "game": i.rules, "title": i.title, "status": i.status,
                               "actions": i.cursor, "created": i.created, "updated": i.updated}
                              for i in infos], indent=2), file=self.out)
            return
        if not infos:
            print("No saved games.", file=self.out)
        for i in infos:
            title = f" {i.title!r}" if i.title else ""
            print(f"{i.id:4}  {i.rules:9} {i.status:9} {i.cursor:5} actions{title}", file=self.out)

    def resume(self) -> None:
        with self.journal() as journal:
            session = Session.resume(journal, self.args.id)
            print(f"Resumed game {session.game_id}: {session.rules.title}", file=self.out)
            _show(session, self.args.json, self.out)

    def archive(self) -> None:
        with self.journal() as journal:
            journal.mark(self.args.id, "archived")
            print(f"Archived game {self.args.id}", file=self.out)

    def replay(self) -> None:
        path = Path(self.args.file)
        try:
            text = sys.stdin.read() if self.args.file == "-" else path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise _UsageError(f"cannot read {self.args.file}: {e}") from None
        session = replay_lines(text.splitlines(), source=self.args.file)
        print(json.dumps(session.to_json(), indent=2, ensure_ascii=False), file=self.out)

    def export(self) -> None:
        with self.journal() as journal:
            game_id = self.args.id if self.args.id is not None else self.current(journal).game_id
            assert game_id is not None
            if self.args.csv:
                export_csv(journal, game_id, self.out)
            else:
                print(json.dumps(export_game(journal, game_id), indent=2, ensure_ascii=False),
                      file=self.out)

    def import_(self) -> None:
        try:
            text = sys.stdin.read() if self.args.file == "-" else Path(self.args.file).read_text(
                encoding="utf-8")
            document = json.loads(text)
        except (OSError, UnicodeDecodeError, ValueError) as e:
            raise _UsageError(f"cannot read {self.args.file}: {e}") from None
        with self.journal() as journal:
            game_id = import_game(journal, document)
        print(f"Imported as game {game_id}", file=self.out)

    def backup(self) -> None:
        with self.journal() as journal:
            path = backup(journal, self.args.folder, self.args.keep)
        print(f"Backed up to {path}", file=self.out)

    def actions(self) -> None:
        names = [self.args.rules] if self.args.rules else list(GAMES)
        for name in names:
            rules = rules_for(name)
            print(f"{rules.title} ({rules.name}):", file=self.out)
            print(f"  setup: {rules.setup_type.usage()}", file=self.out)
            for cls in list(rules.actions) + list(SESSION_ACTIONS):
                print(f"  {cls.usage()}", file=self.out)


class _UsageError(Exception):
    pass


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="runes", description="Rune Table Companion: "
                                     "keep score for Runes of Zun, Runecast and The Rune Market.")
    parser.add_argument("--db", type=Path, help="the journal file (default: $RUNES_DB or the "
                        "state directory)")
    parser.add_argument("--game", type=int, help="the saved game to use (default: the last "
                        "unfinished one)")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def add(name: str, help: str, json_flag: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help)
        if json_flag:
            p.add_argument("--json", action="store_true", help="print the state as JSON")
        return p

    p = add("new", "start a game, e.g. 'new zun players=Ann,Bob'", json_flag=True)
    p.add_argument("rules", metavar="GAME", choices=list(GAMES), help=", ".join(GAMES))
    p.add_argument("setup", nargs="*", help="setup options, e.g. players=Ann,Bob hp=12")
    p.add_argument("--title", default="", help="a name for the saved game")
    p = add("do", "apply an action, e.g. 'do damage Ann 3'", json_flag=True)
    p.add_argument("action", nargs="+", help="the action, as text or JSON")
    add("undo", "take back the last action")
    add("redo", "bring back the last undone action")
    p = add("goto", "jump to the game after action N (0: the start)")
    p.add_argument("position", type=int)
    add("state", "show the current game", json_flag=True)
    p = add("log", "show the game's history in sentences")
    p.add_argument("--json", action="store_true")
    p = add("games", "list saved games")
    p.add_argument("--all", action="store_true", help="include archived games")
    p.add_argument("--json", action="store_true")
    p = add("resume", "make a saved game the current one and show it", json_flag=True)
    p.add_argument("id", type=int)
    p = add("archive", "put a saved game away (it is kept)")
    p.add_argument("id", type=int)
    p = add("replay", "play a file of actions (a setup line, then one action per line, text "
            "or JSON) and print the final state as JSON; nothing is saved")
    p.add_argument("file", help="the file, or - for standard input")
    p = add("export", "print a saved game as JSON (to import elsewhere) or its log as CSV")
    p.add_argument("id", type=int, nargs="?", help="default: the current game")
    p.add_argument("--csv", action="store_true", help="the log as CSV instead")
    p = add("import", "save an exported game (JSON) as a new game")
    p.add_argument("file", help="the file, or - for standard input")
    p = add("backup", "copy the whole journal safely while it is in use, keeping the newest N")
    p.add_argument("folder", type=Path)
    p.add_argument("--keep", type=int, default=14, help="how many copies to keep (default 14)")
    p = add("actions", "list every action of a game, with its text form")
    p.add_argument("rules", metavar="GAME", nargs="?", choices=list(GAMES))
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout,
         err: TextIO = sys.stderr) -> int:
    args = _parser().parse_args(argv)
    cli = _Cli(args, out)
    try:
        getattr(cli, args.command.replace("import", "import_"))()
    except (_UsageError, ConfigError) as e:
        print(f"runes: {e}", file=err)
        return 2
    except CompanionError as e:
        print(f"runes: {e}", file=err)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
