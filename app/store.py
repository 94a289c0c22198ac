"""The store: every write of the hot path, committed in batches, the flush off the event loop.

A sealed order must be on disk before the phone hears "sealed" (a kill -9 loses nothing that
was acknowledged). With full sync, the disk's flush is the slow part of a commit, so the store
commits whatever units of work are waiting, from any rooms, in one transaction (group commit):
under load, one flush acknowledges many orders. Each caller awaits its own unit's commit.

The units' statements run on the event loop (they only touch SQLite's pages in memory); the
commit, with its flush, runs in a worker thread with the interpreter's lock released. A thread
that ran the statements too would have to win that lock back from the busy event loop for
every statement, and would wait for it far longer than the statements take.

A unit is a function of a :class:`~sqlmodel.Session` that only writes, or the plain table
statements of one command (:class:`Statements`, what the hot path writes: an order, a
resolution, the match's new snapshot). A batch's statements that share their SQL and their
columns run as one ``executemany``: a batch holds a unit from each of many rooms, and one
execution of many rows costs a quarter of what as many executions of one row cost (an order's
row: 14 µs in an execution of 40, 57 µs alone through the session). Each unit is run again
on its own if a batch it shared fails, so that one bad unit never fails the others.

Running a batch's statements grouped, not unit after unit, changes nothing of what it writes:
the units of one batch come from different rooms (a room's command holds the room's lock until
its unit is committed), so no two of them touch one row.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from sqlalchemy.engine import Engine
from sqlalchemy.sql.expression import Executable
from sqlmodel import Session

log = logging.getLogger("pecet.store")

T = TypeVar("T")

Unit = Callable[[Session], T]
"""Writes of one command; what it returns is handed back to the command."""


@dataclass(frozen=True, slots=True)
class Statements:
    """Writes of one command as plain table statements, each with the values of its one
    row; the command gets ``None`` back."""

    items: Sequence[tuple[Executable, Mapping[str, Any]]]


@dataclass(eq=False)
class _Pending(Generic[T]):
    unit: Unit[T] | Statements
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

    async def write(self, unit: Unit[T] | Statements) -> T:
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
            results = [_run(pending.unit, session) for pending in batch]
            grouped: dict[tuple[Executable, tuple[str, ...]], list[Mapping[str, Any]]] = {}
            for pending in batch:
                if isinstance(pending.unit, Statements):
                    for statement, row in pending.unit.items:
                        grouped.setdefault((statement, tuple(row)), []).append(row)
            if grouped:
                connection = session.connection()
                for (statement, _columns), rows in grouped.items():
                    connection.execute(statement, rows if len(rows) > 1 else rows[0])
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


def _run(unit: Unit[T] | Statements, session: Session) -> T | None:
    """A function unit's writes, at once; a unit of statements is run with its batch's."""
    return None if isinstance(unit, Statements) else unit(session)


def _settle(pending: _Pending[Any], result: Any, error: BaseException | None) -> None:
    if pending.future.done():
        return
    if error is not None:
        pending.future.set_exception(error)
    else:
        pending.future.set_result(result)
