"""The store's group commit on a real SQLite file: the units waiting together are committed in
one transaction, the statements they share run as one execution of many rows, and one bad
unit fails alone."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, bindparam, event, select
from sqlalchemy.engine import Engine
from sqlmodel import Session

from app.db import make_engine
from app.store import Statements, Store

METADATA = MetaData()
PIECES = Table(
    "piece",
    METADATA,
    Column("id", Integer, primary_key=True),
    Column("room", String, nullable=False),
    Column("moves", Integer, nullable=False, default=0),
)
INSERT = PIECES.insert()
MOVE = PIECES.update().where(PIECES.c.id == bindparam("piece_id"))


@pytest.fixture
def engine(tmp_path: Path) -> Engine:
    engine = make_engine(f"sqlite:///{tmp_path / 'store.db'}")
    METADATA.create_all(engine)
    return engine


class Executions:
    """What reached the database driver: each execution with its number of rows, and the
    commits."""

    def __init__(self, engine: Engine) -> None:
        self.executions: list[tuple[str, int]] = []
        self.commits = 0
        event.listen(engine, "before_cursor_execute", self._execute)
        event.listen(engine, "commit", self._commit)

    def _execute(
        self, _conn: Any, _cursor: Any, sql: str, params: Any, _ctx: Any, many: bool
    ) -> None:
        self.executions.append((sql.split()[0], len(params) if many else 1))

    def _commit(self, _conn: Any) -> None:
        self.commits += 1


def rows(engine: Engine) -> list[tuple[Any, ...]]:
    with engine.connect() as connection:
        return [tuple(row) for row in connection.execute(select(PIECES).order_by(PIECES.c.id))]


def test_the_waiting_units_statements_run_once_per_statement_and_columns_in_one_commit(
    engine: Engine,
) -> None:
    store = Store(engine)
    seen = Executions(engine)

    async def play() -> None:
        await asyncio.gather(
            *(
                store.write(Statements([(INSERT, {"id": n, "room": f"R{n}", "moves": 0})]))
                for n in range(1, 6)
            )
        )
        await asyncio.gather(
            *(
                store.write(
                    Statements(
                        [
                            (INSERT, {"id": 10 + n, "room": f"R{n}", "moves": 0}),
                            (MOVE, {"moves": n, "piece_id": n}),
                        ]
                    )
                )
                for n in range(1, 5)
            ),
            # Other columns: a statement of its own.
            store.write(Statements([(MOVE, {"room": "R5b", "piece_id": 5})])),
        )

    asyncio.run(play())
    assert seen.executions == [("INSERT", 5), ("INSERT", 4), ("UPDATE", 4), ("UPDATE", 1)]
    assert seen.commits == 2
    assert rows(engine) == [
        (1, "R1", 1),
        (2, "R2", 2),
        (3, "R3", 3),
        (4, "R4", 4),
        (5, "R5b", 0),
        (11, "R1", 0),
        (12, "R2", 0),
        (13, "R3", 0),
        (14, "R4", 0),
    ]


def test_a_bad_unit_fails_alone_and_the_others_of_its_batch_are_committed(engine: Engine) -> None:
    store = Store(engine)
    with Session(engine) as session:
        session.execute(INSERT, {"id": 1, "room": "taken", "moves": 0})
        session.commit()

    def function_unit(session: Session) -> str:
        session.execute(INSERT, {"id": 7, "room": "by a function", "moves": 0})
        return "done"

    async def play() -> tuple[Any, ...]:
        return await asyncio.gather(
            store.write(Statements([(INSERT, {"id": 2, "room": "R2", "moves": 0})])),
            store.write(Statements([(INSERT, {"id": 1, "room": "again", "moves": 0})])),
            store.write(function_unit),
            store.write(Statements([(INSERT, {"id": 3, "room": "R3", "moves": 0})])),
            return_exceptions=True,
        )

    first, bad, function_result, last = asyncio.run(play())
    assert first is None and last is None
    assert function_result == "done"
    assert isinstance(bad, Exception) and "UNIQUE" in str(bad)
    assert rows(engine) == [(1, "taken", 0), (2, "R2", 0), (3, "R3", 0), (7, "by a function", 0)]
