"""How a server is found on the LAN: DNS-SD over multicast DNS (RFC 6762/6763).

A server advertises one service of type :data:`SERVICE_TYPE` whose instance name is the server's
name (a person's label such as "Kitchen table", made unique on the network: a second "Kitchen
table" becomes "Kitchen table-2"), whose SRV record gives its port and whose TXT record holds
:data:`TXT_VERSION`, the protocol version it speaks. Pure data: the server advertises it
(:mod:`server.shell.advertise`), clients browse for it (:mod:`client.discovery`), a bot in another
language can do the same with any DNS-SD library (``avahi-browse -r _shithead._tcp``).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["SERVICE_TYPE", "TXT_VERSION", "instance_label", "read_version", "txt"]

SERVICE_TYPE = "_shithead._tcp.local."
TXT_VERSION = "version"


def txt(version: int) -> dict[str, str]:
    """The TXT properties of a server speaking protocol ``version``."""
    return {TXT_VERSION: str(version)}


def read_version(props: Mapping[bytes, bytes | None]) -> int | None:
    """The protocol version in received TXT properties (None: missing or unreadable)."""
    raw = props.get(TXT_VERSION.encode())
    return int(raw) if raw and raw.isdigit() else None


def instance_label(full_name: str) -> str:
    """The server's name from its service instance name (``Kitchen._shithead._tcp.local.``)."""
    suffix = "." + SERVICE_TYPE
    return full_name[: -len(suffix)] if full_name.endswith(suffix) else full_name
