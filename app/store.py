"""The store: every write of the hot path, committed in batches, the flush off the event loop.

A sealed order must be on disk before the phone hears "sealed" (a kill -9 loses nothing that
was acknowledged). With full sync, the disk's flush is the slow part of a commit, so the store
commits whatever units of work are waiting, from any rooms, in one transaction (group commit):
under load, one flush acknowledges many orders. Each caller awaits its own unit's commit.

The units' statements run on the event loop (they only touch SQLite's pages in memory); the
commit, with its flush, runs in a worker thread with the interpreter's lock released. A thread
that ran the statements too would have to win that lock back from the busy event loop for
every statement, and would wait for it far longer than the statements take.

A unit is a function of a :class:`~sqlmodel.Session` that only writes (it is run again on its
own if a batch it shared fails, so that one bad unit never fails the others).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy.engine import Engine
from sqlmodel import Session

log = logging.getLogger("pecet.store")

T = TypeVar("T")

Unit = Callable[[Session], T]
"""Writes of one command; what it returns is handed back to the command."""


@dataclass(eq=False)
class _Pending(Generic[T]):
    unit: Unit[T]
    future: asyncio.Future[T]


class StoreClosed(RuntimeError):
    """A write after :meth:`Store.close`."""


class Store:
    """Batches of writes for one database, committed one batch at a time."""

    def __init__(self, db: Engine) -> None:
        self.db = db
        self._waiting: list[_Pending[Any]] = []
        self._committing: asyncio.Task[None] | None = None
        self._closed = False

    async def write(self, unit: Unit[T]) -> T:
        """Run ``unit`` in a transaction; return once it is committed (or raise its error)."""
        if self._closed:
            raise StoreClosed("The store is closed.")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._waiting.append(_Pending(unit, future))
        if self._committing is None:
            self._committing = loop.create_task(self._commit_waiting())
        # Shielded: a command cancelled while it waits still gets its unit committed, and the
        # caller's state must then follow the database (only a shutdown cancels these).
        return await asyncio.shield(future)

    async def close(self) -> None:
        """Commit what is waiting; later writes are refused."""
        self._closed = True
        if self._committing is not None:
            await asyncio.shield(self._committing)

    async def _commit_waiting(self) -> None:
        """One batch after the other, while units come in (those that arrive during a
        commit make the next batch)."""
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                await self._commit(batch)
        finally:
            self._committing = None

    async def _commit(self, batch: list[_Pending[Any]]) -> None:
        session = Session(self.db)
        try:
            results = [pending.unit(session) for pending in batch]
            await asyncio.to_thread(session.commit)
        except Exception as failure:
            session.rollback()
            session.close()
            if len(batch) == 1:
                _settle(batch[0], None, failure)
                return
            # Someone's unit broke the batch: each alone, so only that one fails.
            for pending in batch:
                await self._commit([pending])
            return
        session.close()
        for pending, result in zip(batch, results, strict=True):
            _settle(pending, result, None)


def _settle(pending: _Pending[Any], result: Any, error: BaseException | None) -> None:
    if pending.future.done():
        return
    if error is not None:
        pending.future.set_exception(error)
    else:
        pending.future.set_result(result)
