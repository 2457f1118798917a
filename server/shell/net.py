"""This machine's network addresses (for the start-up lines and the LAN advertisement)."""

from __future__ import annotations

import socket

__all__ = ["lan_addresses"]


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, without sending any traffic.

    On Linux each interface is asked for its address (``SIOCGIFADDR``); elsewhere, or if
    that fails, the host name is resolved.
    """
    found: set[str] = set()
    try:
        import fcntl
        import struct

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for _, name in socket.if_nameindex():
                try:
                    req = struct.pack("256s", name.encode()[:15])
                    found.add(socket.inet_ntoa(fcntl.ioctl(s.fileno(), 0x8915, req)[20:24]))  # SIOCGIFADDR
                except OSError:
                    continue  # an interface without an IPv4 address
    except (ImportError, OSError, AttributeError):
        pass
    if not found:
        try:
            found.update(socket.gethostbyname_ex(socket.gethostname())[2])
        except OSError:
            pass
    return sorted(a for a in found if not a.startswith("127."))
