"""Advertise the server on the LAN by DNS-SD/mDNS (``python-zeroconf``), so that ``shithead``
finds it without being told an address.

Only on the interfaces the server listens on: ``--host 127.0.0.1`` advertises on loopback only
(nothing leaves the machine), a specific address on that address's interface, ``0.0.0.0`` on
every interface with every IPv4 address of the machine. The record is withdrawn (goodbye
packets) when the server stops; after a crash, browsers drop it when its time to live runs out.
Advertising is a comfort: if it fails (no multicast on this network), the server logs a warning
and serves as usual.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any

from protocol.discovery import SERVICE_TYPE, instance_label, txt

log = logging.getLogger(__name__)

_ALL = ("0.0.0.0", "", "::")


class Advertiser:
    """Advertises one server: ``name`` (a label for people) listening on ``host``:``port``."""

    def __init__(self, name: str, host: str, port: int, version: int) -> None:
        self.name, self.host, self.port, self.version = name, host, port, version
        self._zc: Any = None
        self._info: Any = None

    @property
    def registered_name(self) -> str | None:
        """The instance name in use (``name``, or ``name (2)`` if another server had it)."""
        return None if self._info is None else instance_label(str(self._info.name))

    async def start(self) -> None:
        """Register the service (about three seconds: asking whether the name is taken, then the
        library's probing for a unique name; the server serves meanwhile). Never raises."""
        try:
            from zeroconf import DNSQuestionType, InterfaceChoice, IPVersion, ServiceInfo
            from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

            interfaces, addresses = self._where()
            self._zc = AsyncZeroconf(interfaces=interfaces or InterfaceChoice.All, ip_version=IPVersion.V4Only)
            # Asked first, with a question answered by multicast (QM), then probed by the library
            # as well: the library's probe asks for a unicast answer, and two servers on one
            # machine share its mDNS port (SO_REUSEPORT), where the kernel may hand that answer to
            # the asking server's neighbour (seen here: both kept the same name). A multicast
            # answer reaches every socket. The question is repeated for 2.5 s: a server that has
            # just multicast its record does not multicast it again within a second (RFC 6762).
            name, n = self.name, 1
            while await AsyncServiceInfo(SERVICE_TYPE, f"{name}.{SERVICE_TYPE}").async_request(
                self._zc.zeroconf, 2500, question_type=DNSQuestionType.QM
            ):
                n += 1
                name = f"{self.name}-{n}"
            self._info = ServiceInfo(
                SERVICE_TYPE,
                f"{name}.{SERVICE_TYPE}",
                port=self.port,
                properties=txt(self.version),
                addresses=[socket.inet_aton(a) for a in addresses],
                server=f"{socket.gethostname().split('.')[0] or 'shithead'}.local.",
            )
            await self._zc.async_register_service(self._info, allow_name_change=True)
            log.info("advertised as %r on %s", self.registered_name, ", ".join(addresses))
        except Exception as exc:  # a comfort, never a reason not to serve
            log.warning("could not advertise the server on the LAN (%s): players need its address", exc)
            await self.stop()

    async def stop(self) -> None:
        """Withdraw the record and close. Never raises."""
        zc, info, self._zc, self._info = self._zc, self._info, None, None
        if zc is None:
            return
        try:
            if info is not None:
                await zc.async_unregister_service(info)
        except Exception as exc:
            log.warning("could not withdraw the LAN advertisement: %s", exc)
        finally:
            await zc.async_close()

    def _where(self) -> tuple[list[str] | None, list[str]]:
        """(interfaces to use, None for all; addresses to announce)."""
        if self.host in _ALL:
            from server.shell.net import lan_addresses

            return None, lan_addresses() or ["127.0.0.1"]
        ip = ipaddress.ip_address(socket.gethostbyname(self.host))
        return [str(ip)], [str(ip)]
