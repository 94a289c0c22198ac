"""The room lock in Redis (app/cluster.py): two room services on one database and one Redis,
as two processes would be, in one event loop so that the order of events can be watched."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from app import cluster
from app.cluster import RedisRooms
from app.db import make_engine, upgrade
from app.live import Change, LiveRoom
from app.rooms import RoomService
from tests.services import redis_server


@pytest.fixture
def redis_url(tmp_path: Path) -> Iterator[str]:
    (tmp_path / "redis").mkdir()
    with redis_server(tmp_path / "redis") as url:
        yield url


@asynccontextmanager
async def two_processes(
    database_url: str, redis_url: str, bot_delays: tuple[float, float] = (0.0, 0.0)
) -> AsyncIterator[list[RoomService]]:
    upgrade(database_url)
    services = []
    for bot_delay in bot_delays:
        service = RoomService(
            make_engine(database_url), bot_delay=bot_delay, cluster=RedisRooms(redis_url)
        )
        await service.cluster.start(service)
        services.append(service)
    try:
        yield services
    finally:
        for service in services:
            await service.close()
            await service.cluster.close()
            service.db.dispose()


def test_one_command_at_a_time_across_processes_even_past_the_locks_expiry(
    tmp_path: Path, redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A short expiry, so that a command outlasting it shows the lock is renewed meanwhile.
    monkeypatch.setattr(cluster, "LOCK_SECONDS", 0.3)

    async def run() -> list[str]:
        async with two_processes(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", redis_url) as (a, b):
            code, _host = await a.create_room("hidden_leaders")
            room_a, room_b = await a.room(code), await b.room(code)
            happened: list[str] = []
            inside = asyncio.Event()

            async def long_command() -> None:
                async with a.hold(room_a):
                    happened.append("a in")
                    inside.set()
                    await asyncio.sleep(1.0)  # three expiries of the lock
                    happened.append("a out")

            async def second_command() -> None:
                await inside.wait()
                async with b.hold(room_b):
                    happened.append("b in")

            await asyncio.gather(long_command(), second_command())
            return happened

    assert asyncio.run(run()) == ["a in", "a out", "b in"]


def test_a_change_made_in_one_process_is_in_the_other_before_its_next_command(
    tmp_path: Path, redis_url: str
) -> None:
    async def run() -> tuple[int, int, bool]:
        async with two_processes(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", redis_url) as (a, b):
            code, _host = await a.create_room("hidden_leaders")
            room_a, room_b = await a.room(code), await b.room(code)  # copies before the joins
            await a.join(code, "Ema")
            async with b.hold(room_b):
                seats_in_b = len(room_b.seats)
            # The news reaches a's copy without a command in a: its sockets are told.
            both_seated = asyncio.Event()

            def listener(live: LiveRoom, _change: Change) -> None:
                if live is room_a and len(live.seats) == 2:
                    both_seated.set()

            a.add_listener(listener)
            room_a.boards = 1  # a board of a watches the room: a keeps its copy up to date
            seated = await b.join(code, "Petr")
            await asyncio.wait_for(both_seated.wait(), 10)
            return seats_in_b, seated.seat, [s.name for s in room_a.seats] == ["Ema", "Petr"]

    assert asyncio.run(run()) == (1, 1, True)


def test_a_process_that_finds_the_room_without_a_driver_runs_its_bots(
    tmp_path: Path, redis_url: str
) -> None:
    """The driver goes (its lease let go, its tasks stopped) in the middle of a bots' game;
    the next command of another process on that room, even one that changes nothing, makes
    that process the driver, and the bots play on there to the end."""

    async def run() -> tuple[bool, bool, str]:
        database = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
        # a's bots would wait far longer than the test: only b's can finish the game.
        async with two_processes(database, redis_url, bot_delays=(3600.0, 0.0)) as (a, b):
            code, host = await a.create_room("hidden_leaders")
            for _ in range(2):
                await a.add_bot(code, host)
            await a.start(code, host)
            drove = a.cluster.drives(code)
            # a dies: its scheduler stops and its leases lapse (let go at once here).
            await a.scheduler.close(a.loaded_rooms())
            await a.cluster.close()
            room_b = await b.room(code)
            finished = asyncio.Event()

            def listener(live: LiveRoom, _change: Change) -> None:
                if live is room_b and live.status == "finished":
                    finished.set()

            b.add_listener(listener)
            async with b.hold(room_b):
                pass  # a command that changes nothing
            await asyncio.wait_for(finished.wait(), 30)
            return drove, b.cluster.drives(code), room_b.status

    assert asyncio.run(run()) == (True, True, "finished")


def test_news_that_could_not_leave_is_sent_when_redis_answers_again(
    tmp_path: Path, redis_url: str
) -> None:
    """A join commits, then Redis fails to take its news (a fault injected on the one call
    that lets go of the room: a Redis that blinks exactly then cannot be caused on demand).
    The join stands; the other process's copy hears of it with the next beat."""
    from redis.exceptions import ConnectionError as RedisConnectionError

    async def run() -> tuple[list[str], list[str]]:
        async with two_processes(f"sqlite:///{tmp_path / 'rooms.sqlite3'}", redis_url) as (a, b):
            code, _host = await a.create_room("hidden_leaders")
            room_b = await b.room(code)
            room_b.boards = 1  # a board of b watches the room: b keeps its copy up to date
            heard = asyncio.Event()

            def listener(live: LiveRoom, _change: Change) -> None:
                if live is room_b and live.seats:
                    heard.set()

            b.add_listener(listener)
            release = a.cluster._release  # type: ignore[attr-defined]

            async def lost(**_kwargs: object) -> None:
                a.cluster._release = release  # type: ignore[attr-defined]
                raise RedisConnectionError("Redis blinked")

            a.cluster._release = lost  # type: ignore[attr-defined]
            seated = await a.join(code, "Ema")  # acknowledged: committed before the fault
            before = [s.name for s in room_b.seats]
            await asyncio.wait_for(heard.wait(), 3 * cluster.BEAT_SECONDS + 2)
            assert seated.seat == 0
            return before, [s.name for s in room_b.seats]

    assert asyncio.run(run()) == ([], ["Ema"])
