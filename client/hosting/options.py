"""What hosting a bot is told: where and as whom it logs in (:class:`LoginOptions`), where it
sits (:class:`Seating`, with :class:`NewTable` for a table it creates), how long it plays
(:class:`PlayOptions`), and what the server asks of its own bots (:class:`HouseSeat`,
:class:`HouseEntry`: the arguments of the server's ``BotHost.seat`` and ``enter``, as one object
that :mod:`client.hosting.house` and :mod:`client.hosting.house_process` pass along).

Frozen dataclasses, plain data: nothing here connects or decides.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "HouseEntry",
    "HouseSeat",
    "LoginOptions",
    "NewTable",
    "PlayOptions",
    "Seating",
]

DEFAULT_PORT = 7433
DEFAULT_HOST = "127.0.0.1"


@dataclass(frozen=True, kw_only=True)
class LoginOptions:
    """Where a bot connects and as whom it logs in (always as a bot).

    Attributes:
        name: the player name.
        host, port: the server.
        password: the account's password (the first login registers the name); None for a guest.
        guest: log in as a guest; None means "when no password is given".
        server_password: the server's own password, if it has one.
        mode: ``"msgpack"`` (frames) or ``"json"`` (JSON lines).
        reconnect: let the SDK reconnect and take the seats back after a lost connection (a
            one-time login, as the server gives its own bots, cannot reconnect).
        client_name: the name the client gives in ``hello`` (it appears in the server's log).
        states: ``"turns"`` (the default): the seat gets only the states it must act on, plus
            its games' first and last, each with every event since the one before (PROTOCOL.md
            §6), which is all :class:`~client.hosting.bot_runner.BotRunner` and the bots need, at a
            quarter of the reading in a 4-seat game; ``"all"``: a state after every change.
        client_options: further keyword arguments of :meth:`client.sdk.Client.connect`.
    """

    name: str
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    password: str | None = None
    guest: bool | None = None
    server_password: str | None = None
    mode: str = "msgpack"
    reconnect: bool = True
    client_name: str = "shithead-bot"
    states: str = "turns"
    # (Mappings are left out of the hash, so that the frozen options stay hashable.)
    client_options: Mapping[str, Any] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, kw_only=True)
class NewTable:
    """A table the bot creates (the bot then sits there and starts its games).

    ``name`` None means "<player>'s table"; the table's password is :attr:`Seating.password`.
    """

    preset: str = "classic"
    seats: int = 2
    options: Mapping[str, Any] | None = field(default=None, hash=False)
    name: str | None = None
    action_seconds: float | None = None
    seed: int | None = None


@dataclass(frozen=True, kw_only=True)
class Seating:
    """Where a bot sits; the first that applies:

    * ``create``: a new table (see :class:`NewTable`);
    * ``token`` (with ``table``): the seat this token holds at ``table`` (a resume);
    * ``table``: that table, at ``seat`` (None: the first free one);
    * otherwise the first waiting table with a free seat (``seat`` if given), looking again every
      ``poll_seconds`` until one appears.

    ``password`` is the table's password (to join it, or set on a created table).
    """

    table: int | None = None
    seat: int | None = None
    password: str | None = None
    token: str | None = None
    create: NewTable | None = None
    poll_seconds: float = 2.0

    def __post_init__(self) -> None:
        if self.token is not None and self.table is None:
            raise ValueError("a seat token needs its table")


@dataclass(frozen=True, kw_only=True)
class PlayOptions:
    """Everything :func:`client.hosting.host.play` needs besides the bot.

    Attributes:
        login: where and as whom.
        seating: where to sit (default: the first free seat anywhere).
        games: stop after this many games have ended at the table (None: play on).
        think_in_thread: call ``bot.choose`` in a worker thread (see
            :class:`~client.hosting.bot_runner.BotRunner`).
        pace: seconds to wait from a state that asks for a play to the play, while a person
            (a seat that is not a bot) sits at the table, so that people can follow; 0: none
            (see :class:`~client.hosting.bot_runner.BotRunner`; the server's own bots get its
            ``bot_delay``).
    """

    login: LoginOptions
    seating: Seating = field(default_factory=Seating)
    games: int | None = None
    think_in_thread: bool = False
    pace: float = 0.0


@dataclass(frozen=True, kw_only=True)
class HouseSeat:
    """The server asks for one of its own bots at a table (``add_bot``, a stand-in, a seat taken
    back after a restart): the arguments of ``BotHost.seat`` (``server.tables.hosted``).

    Attributes:
        kind: which bundled bot (a name of the catalogue, :mod:`client.bots`).
        host, port: the server the bot belongs to.
        table, seat: where it sits (``seat`` None: the first free one).
        name, password: the one-time login the server made for it.
        token: resume the seat this token holds (after a restart of the server, or a seat it
            stands in for) instead of joining.
        delay: the server's ``bot_delay``, :attr:`PlayOptions.pace`.
    """

    kind: str
    host: str
    port: int
    table: int
    seat: int | None
    name: str
    password: str
    token: str | None = None
    delay: float = 0.0


@dataclass(frozen=True, kw_only=True)
class HouseEntry:
    """The server enters one of its own bots in a tournament: the arguments of
    ``BotHost.enter`` (``kind``, ``host``, ``port``, ``name``, ``password`` as in
    :class:`HouseSeat`)."""

    kind: str
    host: str
    port: int
    tournament: int
    name: str
    password: str
