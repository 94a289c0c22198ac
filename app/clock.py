"""The time a room's timed tasks run on: the wall clock, or one a test moves by hand."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Protocol

from app.models import utcnow


class Clock(Protocol):
    def now(self) -> datetime:
        """The time now, aware, in UTC."""

    async def sleep(self, seconds: float) -> None:
        """Return once ``seconds`` have passed on this clock."""


class SystemClock:
    """The wall clock and the event loop's own timers."""

    def now(self) -> datetime:
        return utcnow()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)
