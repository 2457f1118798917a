"""Seat tokens kept on this machine, so that a player who quits the client gets the seat back.

A guest's seat can only be taken back with its token (PROTOCOL.md, Reconnecting), and the token
is shown once, in ``joined``. The terminal client writes every token it gets to a small JSON
file, by server address and player name, and reads it when it starts again:

    {"192.168.1.20:7433": {"alice": {"3": "q8N3v0cX1kTz"}}}

The file is the one given with ``shithead --seats-file``, else ``$SHITHEAD_SEATS_FILE`` if set,
else ``$XDG_STATE_HOME/shithead/seats.json`` (``~/.local/state/shithead/seats.json``); it is
private to the user (mode 0600) and replaced atomically. It holds seat tokens only: never a
password, nor the login token of ``logged_in`` (the client keeps that in memory, for its
reconnects). Names are compared as the server compares them (:func:`protocol.names.name_key`:
"Zoë", "ZOË" and a decomposed "Zoë" are one name; an ASCII name's key is its lower case, as in
files written before). A token is kept when a seat is taken (join, resume, reconnect) and
forgotten when the player leaves, when a resume is refused with ``BAD_TOKEN`` or
``UNKNOWN_TABLE``, and, at start, for tables where the name holds no seat any more. A guest
started again gives its kept tokens at login (``login.token``): the server then knows it is the
guest who holds those seats, and gives it its name back. A file that cannot be read counts as
empty; one that cannot be written is logged and the game goes on (the seat then needs an
account's password to come back).
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
from pathlib import Path

from protocol.names import name_key

log = logging.getLogger(__name__)


def default_path() -> Path:
    given = os.environ.get("SHITHEAD_SEATS_FILE")
    if given:
        return Path(given).expanduser()
    base = Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state")
    return base / "shithead" / "seats.json"


class SeatTokens:
    """The seat tokens of one player (``name``) on one server (``server``: ``host:port``)."""

    def __init__(self, server: str, name: str, path: Path | None = None) -> None:
        self.server, self.name = server, name_key(name)
        self.path = path or default_path()

    def _load(self) -> dict[str, dict[str, dict[str, str]]]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def all(self) -> dict[int, str]:
        """Table id -> token, for this player on this server."""
        mine = self._load().get(self.server, {}).get(self.name, {})
        return {int(t): tok for t, tok in mine.items() if str(t).isdigit() and isinstance(tok, str)}

    def get(self, table: int) -> str | None:
        return self.all().get(table)

    def put(self, table: int, token: str) -> None:
        if self.get(table) != token:
            self._change(lambda mine: mine.__setitem__(str(table), token))

    def drop(self, table: int) -> None:
        if self.get(table) is not None:
            self._change(lambda mine: mine.pop(str(table), None))

    def _change(self, edit: object) -> None:
        data = self._load()
        mine = data.setdefault(self.server, {}).setdefault(self.name, {})
        edit(mine)  # type: ignore[operator]
        if not mine:
            del data[self.server][self.name]
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".seats-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:  # mkstemp makes it 0600
                json.dump(data, f)
            os.replace(tmp, self.path)
        except OSError as exc:
            log.warning("cannot keep the seat token in %s: %s", self.path, exc)
