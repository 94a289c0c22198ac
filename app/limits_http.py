"""What one HTTP request may carry (issue 13.4): the size of its body and the JSON inside it.

The body limit itself is FastAPI's ``max_body_size`` (413 before the body is read whole).
JSON is parsed here instead of by ``json.loads``' defaults, which accept ``NaN`` and
``Infinity`` (browsers' ``JSON.parse`` refuses them when the value is sent back) and nest as
deep as the interpreter's stack allows. Every refusal is a ``json.JSONDecodeError`` so that
FastAPI answers it as the 422 it gives any body that is not JSON, with the reason attached.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Coroutine
from typing import Any, NoReturn

from fastapi import Request, Response
from fastapi.routing import APIRoute

MAX_BODY_BYTES = 64 * 1024
"""Larger request bodies get 413; nothing the API takes needs more than a few KiB."""
MAX_JSON_DEPTH = 32
"""Orders and options nest a handful of levels; deeper JSON is refused before it reaches a
game or is stored and sent back in every view."""


class NotStrictJSON(json.JSONDecodeError):
    """A body that ``json.loads`` would accept but the API refuses; the message says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason, "", 0)


def _refuse_constant(name: str) -> NoReturn:
    raise NotStrictJSON(f"{name} is not a JSON number; send a finite number")


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):  # "1e999" overflows to infinity without saying so
        raise NotStrictJSON(f"{text} is too large for a number")
    return number


def json_depth_exceeds(value: Any, limit: int, text: str | bytes | None = None) -> bool:
    """Whether arrays and objects nest more than ``limit`` levels (iterative: a deep value
    must not exhaust the stack being measured). Given the ``text`` it was parsed from, a
    text that opens ``limit`` arrays and objects or fewer is not walked: it cannot nest
    deeper (an order opens about a dozen, and every phone's order is checked)."""
    if text is not None:
        opened = (
            text.count("{") + text.count("[")
            if isinstance(text, str)
            else (text.count(b"{") + text.count(b"["))
        )
        if opened <= limit:
            return False
    pending: list[tuple[Any, int]] = [(value, 0)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        pending.extend((child, depth + 1) for child in children)
    return False


def parse_strict_json(body: bytes) -> Any:
    """The body's JSON value; raises ``json.JSONDecodeError`` for anything that is not plain
    JSON of reasonable depth."""
    try:
        value = json.loads(body, parse_constant=_refuse_constant, parse_float=_finite_float)
    except json.JSONDecodeError:
        raise
    except RecursionError as error:
        raise NotStrictJSON(f"JSON nested deeper than {MAX_JSON_DEPTH} levels") from error
    except UnicodeDecodeError as error:
        raise NotStrictJSON("the body is not UTF-8 text") from error
    except ValueError as error:  # an integer longer than Python converts (4300 digits)
        raise NotStrictJSON("a number in the body has too many digits") from error
    if json_depth_exceeds(value, MAX_JSON_DEPTH, body):
        raise NotStrictJSON(f"JSON nested deeper than {MAX_JSON_DEPTH} levels")
    return value


class StrictJSONRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = parse_strict_json(await self.body())
        return self._json


class StrictJSONRoute(APIRoute):
    """A route whose JSON body is parsed by :func:`parse_strict_json`."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handle = super().get_route_handler()

        async def handle_strictly(request: Request) -> Response:
            return await handle(StrictJSONRequest(request.scope, request.receive))

        return handle_strictly
