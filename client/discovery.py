"""Find servers on the LAN: browse DNS-SD/mDNS for :data:`protocol.discovery.SERVICE_TYPE`.

    servers = await find_servers(timeout=2.0)              # every interface
    servers = await find_servers(interfaces=["127.0.0.1"])  # this machine only (the tests)

Servers that stop withdraw their record; one that crashed may still be listed until its
record's time to live runs out (connecting then fails like any unreachable address).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from protocol.discovery import SERVICE_TYPE, instance_label, read_version

__all__ = ["FoundServer", "find_servers"]

log = logging.getLogger(__name__)


@dataclass(frozen=True, order=True)
class FoundServer:
    """A server that answered: its name, the address to connect to and its protocol version."""

    name: str
    host: str
    port: int
    version: int | None = None

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"


async def find_servers(
    timeout: float = 2.0,  # noqa: ASYNC109 (how long to listen, not a deadline)
    *,
    interfaces: list[str] | None = None,
    enough: Collection[str] = (),
) -> list[FoundServer]:
    """The servers found within ``timeout`` seconds, by name. ``interfaces``: the addresses of
    the interfaces to browse on (None: all). ``enough``: names after which to stop early (all
    of them found). Returns [] when browsing is impossible here (logged)."""
    try:
        from zeroconf import InterfaceChoice, IPVersion, ServiceStateChange
        from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf
    except ImportError as exc:  # pragma: no cover - zeroconf is a dependency
        log.warning("cannot look for servers: %s", exc)
        return []
    try:
        azc = AsyncZeroconf(interfaces=interfaces or InterfaceChoice.All, ip_version=IPVersion.V4Only)
    except OSError as exc:
        log.warning("cannot look for servers on this network: %s", exc)
        return []
    found: dict[str, FoundServer] = {}
    lookups: set[asyncio.Task[None]] = set()
    changed = asyncio.Event()

    async def resolve(name: str) -> None:
        info = AsyncServiceInfo(SERVICE_TYPE, name)
        if not await info.async_request(azc.zeroconf, 1500):
            return
        addresses = info.parsed_addresses(IPVersion.V4Only)
        if not addresses or info.port is None:
            return
        found[name] = FoundServer(
            instance_label(name), _pick(addresses, interfaces), info.port, read_version(info.properties)
        )
        changed.set()

    def on_change(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        if state_change is ServiceStateChange.Removed:
            found.pop(name, None)
        elif state_change is ServiceStateChange.Added:
            task = asyncio.get_running_loop().create_task(resolve(name))
            lookups.add(task)
            task.add_done_callback(lookups.discard)

    browser = AsyncServiceBrowser(azc.zeroconf, [SERVICE_TYPE], handlers=[on_change])
    try:
        async with asyncio.timeout(timeout):
            while not (enough and set(enough) <= {s.name for s in found.values()}):
                await changed.wait()
                changed.clear()
    except TimeoutError:
        pass
    finally:
        for task in list(lookups):
            task.cancel()
        await browser.async_cancel()
        await azc.async_close()
    return sorted(found.values())


def _pick(addresses: list[str], interfaces: list[str] | None) -> str:
    """The address to connect to: one of the browsed interfaces' if given, else a LAN one
    before loopback (a server on all interfaces announces them all)."""
    if interfaces:
        for a in addresses:
            if a in interfaces:
                return a
    lan = [a for a in addresses if not a.startswith("127.")]
    return (lan or addresses)[0]
