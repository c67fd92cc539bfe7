"""The broker's users, rights and certificates: the ``runes-broker`` setup command.

Mosquitto reads three things that this command writes into one directory
(``/etc/mosquitto/runes`` by default, the paths ``systemd/mosquitto/runes.conf``
names):

* ``passwd``, made with ``mosquitto_passwd`` (passwords are hashed by Mosquitto's
  own tool and handed to it on stdin, never on a command line);
* ``acl``, written from ``users.json``, the list of users and their roles; the
  ACL is always regenerated whole, so it cannot drift from that list;
* ``certs/``: a small certificate authority for the LAN and the broker's
  certificate signed by it, made with the ``openssl`` command.

Roles (``docs/broker.md`` has the exact rights): ``companion`` (owns one
table's topics), ``tracker`` (reads its table's seats, writes only its own
status), ``controller`` (may send commands), ``vision`` (may publish vision
readings and its preview, and read the companion's requests to it), ``homeassistant``
and ``wled`` (one WLED device).
"""

from __future__ import annotations

import argparse
import grp
import ipaddress
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from companion.core.errors import CompanionError
from companion.mqtt.topics import check_id

__all__ = ["BrokerDir", "BrokerSetupError", "User", "acl_text", "main"]

DEFAULT_DIR = Path("/etc/mosquitto/runes")
DISCOVERY_PREFIX = "homeassistant"
USER_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")
ROLES = ("companion", "tracker", "controller", "vision", "homeassistant", "wled")


class BrokerSetupError(CompanionError, RuntimeError):
    """A broker file could not be made, or a request names an unknown user or role."""


@dataclass(frozen=True)
class User:
    """One broker user: a role, the table it serves, and the device id for trackers and WLED."""

    name: str
    role: str
    table: str | None = None
    id: str | None = None

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise BrokerSetupError(f"unknown role {self.role!r}; the roles are {', '.join(ROLES)}")
        if self.role != "homeassistant" and self.table is None:
            raise BrokerSetupError(f"a {self.role} user needs --table")
        if self.role in ("tracker", "wled") and self.id is None:
            raise BrokerSetupError(f"a {self.role} user needs --id (the device's id)")
        try:
            if self.table is not None:
                check_id(self.table, "a table id")
            if self.id is not None:
                check_id(self.id, "a device id")
        except ValueError as e:
            raise BrokerSetupError(str(e)) from None
        if not USER_NAME.fullmatch(self.name):
            raise BrokerSetupError(f"a user name is 1 to 100 letters, digits, '.', '-' or '_', "
                                   f"got {self.name!r}")

    @classmethod
    def default_name(cls, role: str, table: str | None, device: str | None) -> str:
        return "-".join(part for part in (role, table, device) if part)

    def rights(self, users: Iterable[User]) -> list[str]:
        """The ACL lines for this user (``topic <access> <filter>``)."""
        t = f"runes/{self.table}"
        if self.role == "companion":
            lines = [f"readwrite {t}/#",
                     f"readwrite {DISCOVERY_PREFIX}/+/runes_{self.table}/#",
                     f"read {DISCOVERY_PREFIX}/status"]
            for device in users:
                if device.role == "wled" and device.table == self.table:
                    lines += [f"write wled/{device.id}/api", f"read wled/{device.id}/status"]
        elif self.role == "tracker":
            lines = [f"read {t}/seat/#", f"read {t}/status",
                     f"read {t}/tracker/{self.id}/#", f"write {t}/tracker/{self.id}/status"]
        elif self.role == "controller":
            lines = [f"write {t}/cmd", f"read {t}/cmd/result/#", f"read {t}/state",
                     f"read {t}/seat/#", f"read {t}/event", f"read {t}/status"]
        elif self.role == "vision":
            # Its readings, presence, preview and answers; the companion's requests.
            lines = [*(f"write {t}/vision/{topic}"
                       for topic in ("dice", "card", "status", "preview", "cmd/result")),
                     f"read {t}/vision/cmd", f"read {t}/status"]
        elif self.role == "homeassistant":
            lines = [f"readwrite {DISCOVERY_PREFIX}/#", "read runes/+/seat/#",
                     "read runes/+/state", "read runes/+/status"]
        else:  # wled: its own device topic, nothing of the tables
            lines = [f"readwrite wled/{self.id}/#"]
        return [f"topic {line}" for line in lines]


def acl_text(users: Sequence[User]) -> str:
    """The whole ACL file for ``users``."""
    out = ["# Written by runes-broker from users.json: change users with `runes-broker add/remove`,",
           "# not here. No block, no rights: a user missing below can connect but do nothing.", ""]
    for user in sorted(users, key=lambda u: u.name):
        out.append(f"# {user.role}" + (f" of table {user.table}" if user.table else ""))
        out.append(f"user {user.name}")
        out.extend(user.rights(users))
        out.append("")
    return "\n".join(out)


class BrokerDir:
    """The directory of broker files; see the module docstring."""

    def __init__(self, path: Path = DEFAULT_DIR) -> None:
        self.path = path
        self.passwd = path / "passwd"
        self.acl = path / "acl"
        self.roster = path / "users.json"
        self.certs = path / "certs"

    # -- users -----------------------------------------------------------------------

    def users(self) -> list[User]:
        if not self.roster.exists():
            return []
        try:
            document = json.loads(self.roster.read_text())
            return [User(name, **fields) for name, fields in document["users"].items()]
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise BrokerSetupError(f"{self.roster} is damaged: {e}") from e

    def init(self) -> None:
        """Make the directory with an empty user list, password file and ACL (kept if present)."""
        self.path.mkdir(parents=True, exist_ok=True)
        self._protect(self.path, 0o750)
        if not self.passwd.exists():
            self.passwd.touch()
        if not self.roster.exists():
            self._write_users([])
        self._protect(self.passwd, 0o640)
        self._write_acl(self.users())

    def add(self, user: User, password: str | None = None) -> str:
        """Create or update ``user``; returns its password (a new random one unless given)."""
        password = password or secrets.token_urlsafe(18)
        users = [u for u in self.users() if u.name != user.name] + [user]
        tool = shutil.which("mosquitto_passwd")
        if tool is None:
            raise BrokerSetupError("mosquitto_passwd is missing: install the mosquitto package")
        if not self.passwd.exists():
            self.init()
        # On stdin (twice: it asks to confirm), so the password never shows in `ps`.
        run = subprocess.run([tool, str(self.passwd), user.name], input=f"{password}\n{password}\n",
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise BrokerSetupError(f"mosquitto_passwd failed: {run.stderr.strip() or run.stdout}")
        self._protect(self.passwd, 0o640)
        self._write_users(users)
        self._write_acl(users)
        return password

    def remove(self, name: str) -> None:
        users = self.users()
        if name not in {u.name for u in users}:
            raise BrokerSetupError(f"no user {name!r} in {self.roster}")
        tool = shutil.which("mosquitto_passwd") or "mosquitto_passwd"
        run = subprocess.run([tool, "-D", str(self.passwd), name], capture_output=True, text=True)
        if run.returncode != 0:
            raise BrokerSetupError(f"mosquitto_passwd failed: {run.stderr.strip() or run.stdout}")
        self._protect(self.passwd, 0o640)
        users = [u for u in users if u.name != name]
        self._write_users(users)
        self._write_acl(users)

    def _write_users(self, users: Sequence[User]) -> None:
        document = {"schema": 1, "users": {
            u.name: {k: v for k, v in (("role", u.role), ("table", u.table), ("id", u.id)) if v}
            for u in sorted(users, key=lambda u: u.name)}}
        self._write(self.roster, json.dumps(document, indent=2) + "\n", 0o640)

    def _write_acl(self, users: Sequence[User]) -> None:
        self._write(self.acl, acl_text(users), 0o640)

    # -- certificates ---------------------------------------------------------------------

    def make_certificates(self, hosts: Sequence[str], *, days: int = 825,
                          renew: bool = False) -> None:
        """A CA (kept unless ``renew``) and a broker certificate for ``hosts``, with openssl."""
        self.certs.mkdir(parents=True, exist_ok=True)
        self._protect(self.certs, 0o750)
        ca_key, ca_crt = self.certs / "ca.key", self.certs / "ca.crt"
        if renew or not ca_crt.exists():
            _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                     "-nodes", "-keyout", ca_key, "-out", ca_crt, "-days", "3650",
                     "-subj", "/CN=Rune Table Companion LAN CA",
                     "-addext", "basicConstraints=critical,CA:TRUE",
                     "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                     "-addext", "subjectKeyIdentifier=hash")
            os.chmod(ca_key, 0o600)  # only root signs; the broker never needs it
            self._protect(ca_crt, 0o644)
        key, crt = self.certs / "server.key", self.certs / "server.crt"
        with tempfile.TemporaryDirectory() as scratch:
            csr, extensions = Path(scratch) / "server.csr", Path(scratch) / "server.ext"
            extensions.write_text(
                "basicConstraints=critical,CA:FALSE\n"
                "keyUsage=critical,digitalSignature,keyEncipherment\n"
                "extendedKeyUsage=serverAuth\n"
                "subjectKeyIdentifier=hash\n"
                "authorityKeyIdentifier=keyid,issuer\n"
                f"subjectAltName={_alt_names(hosts)}\n")
            _openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                     "-nodes", "-keyout", key, "-out", csr, "-subj", f"/CN={hosts[0]}")
            _openssl("x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key,
                     "-set_serial", str(secrets.randbits(63)), "-days", str(days),
                     "-out", crt, "-extfile", extensions)
        self._protect(key, 0o640)
        self._protect(crt, 0o644)

    # -- files ------------------------------------------------------------------------------

    def _write(self, path: Path, text: str, mode: int) -> None:
        temporary = path.with_name(f".{path.name}.new")
        temporary.write_text(text)
        self._protect(temporary, mode)
        temporary.replace(path)

    @staticmethod
    def _protect(path: Path, mode: int) -> None:
        """``mode``, and group ``mosquitto`` when we are root: the broker drops to that user."""
        os.chmod(path, mode)
        if os.geteuid() == 0:
            try:
                os.chown(path, 0, grp.getgrnam("mosquitto").gr_gid)
            except KeyError:
                pass  # no mosquitto group: a broker run by hand, as this user


def _alt_names(hosts: Sequence[str]) -> str:
    names = []
    for host in hosts:
        try:
            names.append(f"IP:{ipaddress.ip_address(host)}")
        except ValueError:
            names.append(f"DNS:{host}")
    return ",".join(dict.fromkeys(names))


def _openssl(*args: object) -> None:
    tool = shutil.which("openssl")
    if tool is None:
        raise BrokerSetupError("the openssl command is missing: install the openssl package")
    run = subprocess.run([tool, *map(str, args)], capture_output=True, text=True)
    if run.returncode != 0:
        raise BrokerSetupError(f"openssl {args[0]} failed: {run.stderr.strip()}")


def default_hosts() -> list[str]:
    """The names a LAN client may use for this machine."""
    name = socket.gethostname()
    return ["localhost", "127.0.0.1", "::1", name, f"{name}.local"]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="runes-broker",
        description="Make the Mosquitto broker's users, rights and TLS certificates.")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR,
                        help=f"broker files directory (default {DEFAULT_DIR})")
    sub = parser.add_subparsers(dest="command", required=True)
    init = sub.add_parser("init", help="make the directory, an empty ACL and the certificates")
    init.add_argument("--host", action="append", default=[],
                      help="a name or address clients use for the broker (repeatable); "
                           "default: localhost and this machine's names")
    init.add_argument("--days", type=int, default=825, help="validity of the broker certificate")
    init.add_argument("--renew", action="store_true", help="also make a new CA")
    add = sub.add_parser("add", help="add a user (or give it a new password)")
    add.add_argument("role", choices=ROLES)
    add.add_argument("--table", help="the table id the user serves")
    add.add_argument("--id", help="tracker id, or WLED device name (its topic is wled/<id>)")
    add.add_argument("--user", help="user name (default: role-table-id)")
    add.add_argument("--password-file", type=Path,
                     help="write the password there (mode 600) instead of printing it")
    remove = sub.add_parser("remove", help="remove a user")
    remove.add_argument("user")
    sub.add_parser("list", help="list the users and their roles")
    args = parser.parse_args(argv)

    broker = BrokerDir(args.dir)
    try:
        if args.command == "init":
            broker.init()
            broker.make_certificates(args.host or default_hosts(), days=args.days,
                                     renew=args.renew)
            print(f"Broker files in {broker.path}. Next: install systemd/mosquitto/runes.conf "
                  "in /etc/mosquitto/conf.d/, add users, restart mosquitto.")
        elif args.command == "add":
            user = User(args.user or User.default_name(args.role, args.table, args.id),
                        args.role, args.table, args.id)
            password = broker.add(user)
            if args.password_file is not None:
                fd = os.open(args.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "w") as f:
                    f.write(password + "\n")
                print(f"{user.name}: password written to {args.password_file}")
            else:
                print(f"{user.name} {password}")
            print("Reload the broker to apply: sudo systemctl reload mosquitto", file=sys.stderr)
        elif args.command == "remove":
            broker.remove(args.user)
            print("Reload the broker to apply: sudo systemctl reload mosquitto", file=sys.stderr)
        else:
            for user in broker.users():
                extra = " ".join(f"{k}={v}" for k, v in (("table", user.table), ("id", user.id))
                                 if v)
                print(f"{user.name}\t{user.role}\t{extra}")
    except (BrokerSetupError, OSError) as e:
        print(f"runes-broker: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
