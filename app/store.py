"""The store: every write of the hot path, committed by one writer thread in batches.

A sealed order must be on disk before the phone hears "sealed" (a kill -9 loses nothing that
was acknowledged). With full sync, the disk's flush is the slow part of a commit, so the writer
takes whatever units of work are waiting, from any rooms, and commits them together in one
transaction (group commit): under load, one flush acknowledges many orders. Each caller awaits
its own unit's commit; the event loop never waits on the disk meanwhile.

A unit is a function of a :class:`~sqlmodel.Session` that only writes (it is run again on its
own if a batch it shared fails, so that one bad unit never fails the others).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy.engine import Engine
from sqlmodel import Session

log = logging.getLogger("pecet.store")

T = TypeVar("T")

Unit = Callable[[Session], T]
"""Writes of one command; what it returns is handed back to the command."""

BATCH_MAX = 256
"""Units committed together at most (a bound on how long one transaction holds the lock)."""


@dataclass(eq=False)
class _Pending(Generic[T]):
    unit: Unit[T]
    future: asyncio.Future[T]
    loop: asyncio.AbstractEventLoop


class StoreClosed(RuntimeError):
    """A write after :meth:`Store.close`."""


class Store:
    """One writer thread per database; :meth:`write` from the event loop."""

    def __init__(self, db: Engine) -> None:
        self.db = db
        self._queue: queue.SimpleQueue[_Pending[Any] | None] = queue.SimpleQueue()
        self._closed = False
        self.batches = 0
        """Transactions committed so far (the benchmark reads units per batch from these)."""
        self.units = 0
        self._thread = threading.Thread(target=self._run, name="pecet-store", daemon=True)
        self._thread.start()

    async def write(self, unit: Unit[T]) -> T:
        """Run ``unit`` in a transaction; return once it is committed (or raise its error)."""
        if self._closed:
            raise StoreClosed("The store is closed.")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put(_Pending(unit, future, loop))
        # Shielded: a command cancelled while it waits still gets its unit committed, and the
        # caller's state must then follow the database (only a shutdown cancels these).
        return await asyncio.shield(future)

    def close(self) -> None:
        """Commit what is queued, then stop the writer."""
        if self._closed:
            return
        self._closed = True
        self._queue.put(None)
        self._thread.join()

    # ------------------------------------------------------------------ the writer thread

    def _run(self) -> None:
        while True:
            first = self._queue.get()
            if first is None:
                return
            batch: list[_Pending[Any]] = [first]
            stop = False
            while len(batch) < BATCH_MAX:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    stop = True
                    break
                batch.append(more)
            self._commit(batch)
            if stop:
                return

    def _commit(self, batch: list[_Pending[Any]]) -> None:
        try:
            with Session(self.db) as session:
                results = [pending.unit(session) for pending in batch]
                session.commit()
        except Exception as failure:
            if len(batch) == 1:
                _deliver(batch[0], None, failure)
                return
            # Someone's unit broke the batch: each alone, so only that one fails.
            for pending in batch:
                self._commit([pending])
            return
        self.batches += 1
        self.units += len(batch)
        for pending, result in zip(batch, results, strict=True):
            _deliver(pending, result, None)


def _deliver(pending: _Pending[Any], result: Any, error: BaseException | None) -> None:
    def settle() -> None:
        if pending.future.done():
            return
        if error is not None:
            pending.future.set_exception(error)
        else:
            pending.future.set_result(result)

    with contextlib.suppress(RuntimeError):  # the loop is gone: nobody waits any more
        pending.loop.call_soon_threadsafe(settle)
    if error is not None and pending.loop.is_closed():
        log.error("a write failed after its loop closed", exc_info=error)
