"""Server settings: defaults, an optional TOML file, and command-line flags (flags win).

Every limit the server enforces lives here, with a safe default, so that it is documented in
one place (``docs/PROTOCOL.md`` lists them too and the server announces them in ``welcome``).
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

DEFAULT_PORT = 7433
"""'SHED' on a phone keypad; not listed for common software."""


def default_db_path() -> str:
    """``$XDG_DATA_HOME/shithead/server.sqlite3`` (``~/.local/share/...`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "shithead" / "server.sqlite3")


@dataclass
class Limits:
    """Limits per connection and for the whole server."""

    max_frame_in: int = 4096
    """Largest client-to-server frame after login, bytes (a play is about 40)."""
    max_frame_in_before_login: int = 1024
    """Largest client-to-server frame before login, bytes."""
    max_frame_out: int = 1 << 20
    """Largest server-to-client frame, bytes (a game record can be large)."""
    max_connections: int = 2000
    max_connections_per_address: int = 200
    """Per IP address: a tournament host may run many bots from one machine."""
    rate_per_second: float = 100.0
    """Sustained messages per second per connection. An applied ``act`` is free (the turn
    order paces it), so this only limits everything else, including refused actions."""
    rate_burst: int = 200
    """Messages allowed in a burst above the sustained rate."""
    max_output_buffer: int = 4 << 20
    """A connection whose unsent output passes this is too slow to keep up and is closed."""
    handshake_timeout: float = 10.0
    """Seconds to send hello and log in after connecting."""
    idle_timeout: float = 300.0
    """Seconds without any message (a ping counts) before the connection is closed."""
    max_tables: int = 1000
    max_spectators: int = 100
    """Per table."""
    scrypt_concurrency: int = 2
    """Password hashes computed at once."""
    # Quotas (:mod:`server.tables.quotas`), sized for a home server; 0: no limit.
    tables_per_player: int = 4
    """Tables one identity (an account, or one guest) owns at once (tournaments' not counted)."""
    tables_per_address: int = 16
    """Tables opened from one IP address that are still open."""
    tournaments_per_player: int = 1
    """Unfinished tournaments one identity organises."""
    tournaments_per_address: int = 2
    """Unfinished tournaments created from one IP address."""
    tournament_tables: int = 8
    """A tournament's ``concurrency`` at most (and never more than half of ``max_tables``)."""
    tournament_games: int = 100_000
    """A tournament's ``games`` at most."""
    tournament_bots: int = 8
    """Bundled bots (``create_tournament.bots``) in one tournament at most."""
    bot_tables: int = 8
    """Tournament tables with bundled bots playing at once, server-wide; further games wait."""
    ladder_tables: int = 2
    """Ladder games playing at once, server-wide (0: the ladder plays none); people's tables
    never wait for the ladder."""

    def without_quotas(self) -> None:
        """No quota and no tournament bound but the protocol's (``--no-quotas``: a private
        server, where the one organiser is the owner)."""
        for name in QUOTAS:
            setattr(self, name, 0)


QUOTAS = (
    "tables_per_player",
    "tables_per_address",
    "tournaments_per_player",
    "tournaments_per_address",
    "tournament_tables",
    "tournament_games",
    "tournament_bots",
    "bot_tables",
)
"""The limits of :mod:`server.tables.quotas` (0: none)."""


@dataclass
class ServerConfig:
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    db: str = field(default_factory=default_db_path)
    password: str | None = None
    """Server password asked at login, or None for an open server."""
    allow_guests: bool = True
    """Whether guests may log in; viewers (``login.viewer``: they only read) may either way."""
    log_level: str = "INFO"
    reconnect_grace: float = 120.0
    """Seconds a dropped player's seat is kept for a reconnect."""
    restart_grace: float = 30.0
    """Seconds added to every running clock when the server starts again with games in progress,
    for everyone to reconnect."""
    synchronous: str = "normal"
    """SQLite's ``synchronous``: ``normal`` (a crash of the server loses nothing acknowledged; a
    power cut can lose the last seconds) or ``full`` (every commit synced to the disk)."""
    action_seconds: float = 60.0
    """Default per-action clock of a new table (tables may set their own)."""
    bank_seconds: float = 0.0
    """Default time bank of a new table."""
    bot_delay: float = 1.0
    """Seconds the server's own bots (``add_bot``, stand-ins) wait before each play at a table
    where a person holds a seat, so that people can follow the play (0: no wait). Bot-only
    tables and tournaments play at full speed."""
    advertise: bool = True
    """Advertise the server on the LAN (DNS-SD/mDNS, :mod:`server.shell.advertise`)."""
    web: bool = True
    """Serve the web client and its WebSocket on the same port (:mod:`server.shell.web`)."""
    name: str = ""
    """The server's name as players see it when they look for servers ("" : the host name)."""
    web_hosts: list[str] = field(default_factory=list)
    """Host names the server answers to besides its addresses, ``localhost`` and this machine's
    names (``<hostname>`` and ``<hostname>.local``): a browser's page is let open a WebSocket only
    from those (a rebinding site's name is refused)."""
    operators: list[str] = field(default_factory=list)
    """Accounts of the server's owners: they may cancel any tournament and are held to no
    quota of one player or one address."""
    tournament_nice: int = 19
    """How much lower the CPU priority of the process that runs tournaments' bundled bots is
    (``nice``; 0: the same as the server's): those bots use the CPU nobody else needs."""
    ladder_baselines: list[str] | None = None
    """The bundled bots the ladder seats as baselines beside its members (None: every bundled
    bot; ``[]``: none, so members play only each other); names that are not bundled bots are
    ignored."""
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def load(cls, path: str | Path | None = None, **overrides: Any) -> ServerConfig:
        """Defaults, then the TOML file at ``path`` (top-level keys and a ``[limits]`` table),
        then ``overrides`` whose value is not None. Unknown keys raise ``ValueError``."""
        cfg = cls()
        if path is not None:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
            cfg._apply(data)
        cfg._apply({k: v for k, v in overrides.items() if v is not None})
        return cfg

    def _apply(self, data: dict[str, Any]) -> None:
        names = {f.name for f in fields(self)}
        limit_names = {f.name for f in fields(Limits)}
        for key, value in data.items():
            if key == "limits":
                if not isinstance(value, dict):
                    raise ValueError("[limits] must be a table")
                for lk, lv in value.items():
                    if lk not in limit_names:
                        raise ValueError(f"unknown limit {lk!r}; known: {', '.join(sorted(limit_names))}")
                    setattr(self.limits, lk, type(getattr(self.limits, lk))(lv))
            elif key in names:
                setattr(self, key, value)
            else:
                raise ValueError(f"unknown setting {key!r}; known: {', '.join(sorted(names))}")
