"""Rate limits (issue 13.7): how often one key may do something, counted with the ``limits``
library (a moving window in this process's memory).

One :class:`Throttle` counts wrong seat PINs per seat (the room service); :class:`AddressLimits`
holds one per kind of request a stranger could sweep room codes or PINs with, counted per
client address: room lookups, joins and come-back attempts. The numbers are generous for a
real table behind one NAT address (ten phones opening the join link, joining and retrying a
name) and stop a sweep of room codes (a probe did 176 lookups a second): at 60 lookups a
minute, one address needs about four days to try every code.

:func:`install` puts the limits on the app: a middleware answers the API's requests over the
limit with 429 and ``Retry-After``; the join and come-back pages check their own requests, so
that they answer with the page, its form and a sentence in the player's language.

Settings, read from the environment when the app is created:

``PECET_RATE_LIMITS=off``
    no per-address limits at all (the test suite, where every request comes from one address);
``PECET_LOOKUP_LIMIT``, ``PECET_JOIN_LIMIT``, ``PECET_RECLAIM_LIMIT``
    one kind's limits in the ``limits`` notation, ``;`` between several
    (``"20/second;60/minute"``); ``off`` lifts that kind's limit.
"""

from __future__ import annotations

import ipaddress
import math
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from app import i18n

Kind = Literal["lookup", "join", "reclaim"]

DEFAULT_LIMITS: Mapping[Kind, str] = {
    "lookup": "20/second;60/minute",
    "join": "10/second;30/minute",
    "reclaim": "10/minute",
}
"""Per client address. Lookups: GET /api/rooms/{code} and the join link /j/{code}; joins: the
join form and POST /api/rooms/{code}/seats; reclaims: the come-back form and its API."""
ENVIRONMENT: Mapping[Kind, str] = {
    "lookup": "PECET_LOOKUP_LIMIT",
    "join": "PECET_JOIN_LIMIT",
    "reclaim": "PECET_RECLAIM_LIMIT",
}
SWITCH = "PECET_RATE_LIMITS"
OFF = "off"
IPV6_PREFIX = 64
"""An IPv6 client owns at least a /64 and can pick any address in it: count the network."""


class Throttle:
    """Hits per key against one or more limits; a refused hit is not counted, so a client that
    waits as told is let in again."""

    def __init__(self, limits: str) -> None:
        self.items: list[RateLimitItem] = parse_many(limits)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def wait(self, *key: str) -> int | None:
        """Whole seconds until one more hit is allowed; ``None`` when it is allowed now."""
        full = [item for item in self.items if not self._limiter.test(item, *key)]
        if not full:
            return None
        now = time.time()
        resets = (self._limiter.get_window_stats(item, *key).reset_time for item in full)
        return max(1, math.ceil(max(resets) - now))

    def hit(self, *key: str) -> int | None:
        """Count one hit, or say how many seconds to wait when the limit is reached."""
        wait = self.wait(*key)
        if wait is None:
            for item in self.items:
                self._limiter.hit(item, *key)
        return wait


def client_key(connection: HTTPConnection) -> str:
    """The address a request is counted under (behind a reverse proxy, uvicorn's
    ``--forwarded-allow-ips`` makes this the real client's)."""
    host = connection.client.host if connection.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host or "unknown"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{address}/{IPV6_PREFIX}", strict=False))
    return str(address)


@dataclass(frozen=True, slots=True)
class AddressLimits:
    """One throttle per kind of request; a kind without one is not limited."""

    throttles: Mapping[Kind, Throttle]

    @classmethod
    def of(cls, limits: Mapping[Kind, str | None]) -> AddressLimits:
        return cls({kind: Throttle(text) for kind, text in limits.items() if text and text != OFF})

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> AddressLimits:
        environ = os.environ if environ is None else environ
        if environ.get(SWITCH, "").strip().lower() == OFF:
            return cls({})
        return cls.of(
            {
                kind: environ.get(ENVIRONMENT[kind], default).strip().lower() or default
                for kind, default in DEFAULT_LIMITS.items()
            }
        )

    def hit(self, kind: Kind, connection: HTTPConnection) -> int | None:
        """Count this request; seconds to wait instead when its address is over the limit."""
        throttle = self.throttles.get(kind)
        return None if throttle is None else throttle.hit(client_key(connection))


def limits_of(connection: HTTPConnection) -> AddressLimits | None:
    """The app's limits (``app.state.address_limits``, set by :func:`install`)."""
    found: AddressLimits | None = getattr(connection.app.state, "address_limits", None)
    return found


def wait_for(kind: Kind, connection: HTTPConnection) -> int | None:
    """Count a request of this kind; seconds to wait instead when its address is over."""
    limits = limits_of(connection)
    return None if limits is None else limits.hit(kind, connection)


API_ROUTES: tuple[tuple[str, re.Pattern[str], Kind], ...] = (
    ("GET", re.compile(r"(?:.*/)?api/rooms/[^/]+/?"), "lookup"),
    ("POST", re.compile(r"(?:.*/)?api/rooms/[^/]+/seats/?"), "join"),
    ("POST", re.compile(r"(?:.*/)?api/rooms/[^/]+/reclaim/?"), "reclaim"),
    ("POST", re.compile(r"(?:.*/)?api/rooms/[^/]+/host/reclaim/?"), "reclaim"),
)
"""The API requests a stranger could sweep codes or PINs with (the pages check their own, so
that they answer with the page and its form)."""


def api_kind(method: str, path: str) -> Kind | None:
    return next(
        (kind for verb, route, kind in API_ROUTES if verb == method and route.fullmatch(path)),
        None,
    )


class ApiAddressLimits:
    """ASGI middleware: an API lookup, join or reclaim over its address's limit is answered
    429 with ``Retry-After`` and the API's error body, before any route runs."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            kind = api_kind(scope["method"], scope["path"])
            wait = None if kind is None else wait_for(kind, HTTPConnection(scope))
            if wait is not None:
                refusal = JSONResponse(
                    {
                        "detail": f"Too many requests from your address. "
                        f"Try again in {wait} seconds.",
                        "code": "too_many_requests",
                    },
                    status_code=429,
                    headers=retry_headers(wait),
                )
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


def install(app: FastAPI, limits: AddressLimits) -> None:
    """Limit the app's lookups, joins and reclaims per client address (the pages read the
    same ``app.state.address_limits``). Installing again replaces the limits: the
    middleware is added once, so no request is counted twice."""
    app.state.address_limits = limits
    if not getattr(app.state, "address_limits_middleware", False):
        app.add_middleware(ApiAddressLimits)
        app.state.address_limits_middleware = True


def refusal_text(wait: int, lang: str) -> str:
    """The page's sentence for a request over the limit, in the player's language."""
    with i18n.use_language(lang):
        text = i18n.ngettext(
            "Too many tries from your network. Try again in %(num)s second.",
            "Too many tries from your network. Try again in %(num)s seconds.",
            wait,
        )
    return text % {"num": wait}


def retry_headers(wait: int) -> dict[str, str]:
    return {"Retry-After": str(wait)}
