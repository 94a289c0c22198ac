"""The address phones use to reach this machine: its LAN address, found without any traffic."""

from __future__ import annotations

import contextlib
import fcntl
import ipaddress
import socket
import struct

from app.config import Settings

_SIOCGIFADDR = 0x8915


def lan_addresses() -> list[str]:
    """IPv4 addresses of this machine's network interfaces, loopback excluded.

    Asks the kernel for each interface's address (Linux), which sends no packet; only where
    that finds nothing, the resolver for the host name, since on a network without a name
    server (a game night offline) the resolver can keep the start waiting for seconds.
    """
    found: list[str] = []
    try:
        interfaces = [name for _index, name in socket.if_nameindex()]
    except OSError:
        interfaces = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for name in interfaces:
            try:
                packed = struct.pack("256s", name.encode()[:15])
                raw = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, packed)[20:24]
            except OSError:
                continue
            found.append(socket.inet_ntoa(raw))
    usable = _usable(found)
    if not usable:
        with contextlib.suppress(OSError):
            usable = _usable(socket.gethostbyname_ex(socket.gethostname())[2])
    # Private (home Wi-Fi) addresses first: that is where the phones are.
    return sorted(usable, key=lambda a: not ipaddress.ip_address(a).is_private)


def _usable(addresses: list[str]) -> list[str]:
    """Each address once, loopback and link-local ones left out."""
    usable: list[str] = []
    for address in addresses:
        ip = ipaddress.ip_address(address)
        if not ip.is_loopback and not ip.is_link_local and address not in usable:
            usable.append(address)
    return usable


def join_base_url(settings: Settings) -> str:
    """``http://<LAN address>:<port>``, or ``PECET_PUBLIC_URL`` when it is set."""
    if settings.public_url:
        return settings.public_url.rstrip("/")
    if settings.host not in ("0.0.0.0", "::", ""):
        return f"http://{settings.host}:{settings.port}"
    addresses = lan_addresses()
    return f"http://{addresses[0] if addresses else '127.0.0.1'}:{settings.port}"
