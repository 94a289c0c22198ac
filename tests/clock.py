"""A clock the tests move by hand: a room's timer runs out when the test says so, not after
a sleep on the wall clock."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from app.models import utcnow


@dataclass(eq=False)
class _Sleeper:
    wakes_at: datetime
    future: asyncio.Future[None]
    loop: asyncio.AbstractEventLoop


@dataclass(eq=False)
class ManualClock:
    """Stands still until :meth:`advance`; safe to move from the test's thread while the
    app's loop runs in another (the TestClient's portal)."""

    at: datetime = field(default_factory=utcnow)
    _sleepers: list[_Sleeper] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def now(self) -> datetime:
        return self.at

    async def sleep(self, seconds: float) -> None:
        loop = asyncio.get_running_loop()
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = loop.create_future()
        with self._lock:
            self._sleepers.append(_Sleeper(self.at + timedelta(seconds=seconds), future, loop))
        await future

    def advance(self, seconds: float) -> None:
        """Move the time on and wake every sleeper whose time has come."""
        with self._lock:
            self.at += timedelta(seconds=seconds)
            due = [s for s in self._sleepers if s.wakes_at <= self.at]
            self._sleepers = [s for s in self._sleepers if s.wakes_at > self.at]
        for sleeper in due:
            sleeper.loop.call_soon_threadsafe(_wake, sleeper.future)


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)
