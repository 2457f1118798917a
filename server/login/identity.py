"""Who a logged-in session is: an identity, never a display name.

Every permission (a table's owner, a seat, a resume, a stand-in, a tournament's organiser)
compares identities. An identity is a short string of one of four kinds:

* ``account:<key>``: a registered account (its name's key, :func:`protocol.names.name_key`;
  account names are unique by key, and only the password or a login token proves one);
* ``guest:<random>``: a guest, made at its first login; a guest proves it is the same guest
  later with its login token or a seat token it holds (:mod:`server.login.accounts`);
* ``house:<key>``: one of this server's own bots (started with a one-time login);
* ``viewer:<random>``: a viewer (``login.viewer``), one per login: it owns nothing and holds no
  name, so no permission is ever granted to it (a reload is a new viewer).

A name is held by the identity of a connected session, a seat, a table's owner or a running
tournament's organiser of that name (by key), and by a registered account: nobody else may
log in under it while it is (:func:`suggest_name` offers a free one).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

from protocol.names import MAX_NAME, name_key

__all__ = ["account_identity", "guest_identity", "house_identity", "is_guest", "suggest_name", "viewer_identity"]

ACCOUNT = "account:"
GUEST = "guest:"
HOUSE = "house:"
VIEWER = "viewer:"


def account_identity(name: str) -> str:
    return ACCOUNT + name_key(name)


def guest_identity() -> str:
    """A new guest's identity (random: two guests are never the same by accident)."""
    return GUEST + secrets.token_hex(8)


def house_identity(name: str) -> str:
    return HOUSE + name_key(name)


def viewer_identity() -> str:
    """A new viewer's identity (random, like a guest's: it matches no owner, seat or organiser)."""
    return VIEWER + secrets.token_hex(8)


def is_guest(identity: str) -> bool:
    return identity.startswith(GUEST)


def suggest_name(name: str, taken: Callable[[str], bool]) -> str:
    """``name`` with the lowest suffix `` 2``, `` 3``... that ``taken`` (given a key) says is
    free, shortened to fit :data:`MAX_NAME`."""
    n = 2
    while True:
        suffix = f" {n}"
        candidate = name[: MAX_NAME - len(suffix)].rstrip() + suffix
        if not taken(name_key(candidate)):
            return candidate
        n += 1
