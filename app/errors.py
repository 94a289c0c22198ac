"""What a room command refuses with: each error carries the HTTP status the API answers with
and a stable ``code`` a client translates the message by."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class RoomError(Exception):
    """A request the room refuses; ``status`` is the HTTP status the API answers with."""

    status = 400

    def __init__(
        self,
        detail: str,
        code: str = "error",
        retry_after: int | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code
        self.retry_after = retry_after
        """Seconds before trying again makes sense (``Retry-After``), for a 429."""
        self.params: dict[str, Any] = dict(params or {})
        """What fills in the message where a client translates it by ``code`` (an engine's
        refusal carries them)."""


class RoomNotFound(RoomError):
    status = 404


class Conflict(RoomError):
    status = 409


class Invalid(RoomError):
    status = 422


class Unauthorized(RoomError):
    status = 401


class TooManyTries(RoomError):
    status = 429


class Forbidden(RoomError):
    status = 403


class Unavailable(RoomError):
    status = 503
