"""Redis goes away under two ``pecet serve`` processes that share their rooms through it, and
comes back empty (issue 15): commands are refused as unavailable, never failed, nothing is
stalled; once Redis answers again the processes serve and hear each other as before. Real
processes, a real Redis from Debian's package stopped and started again on its port."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets

from tests.conftest import ServerProcess
from tests.live import wait_for
from tests.play import Follower
from tests.services import RedisProcess

JSON = dict[str, Any]
REFUSED_WITHIN = 8.0
"""Seconds a request may take to be refused while Redis is away (its calls time out in 2)."""
BACK_WITHIN = 20.0


@pytest.fixture
def redis_process(tmp_path: Path) -> Iterator[RedisProcess]:
    (tmp_path / "redis").mkdir()
    server = RedisProcess(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def servers(tmp_path: Path, redis_process: RedisProcess) -> Iterator[list[ServerProcess]]:
    """Two processes on one SQLite file, sharing their rooms through the Redis above."""
    database_url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    started = []
    try:
        for number in range(2):
            server = ServerProcess(
                database_url=database_url,
                log_path=tmp_path / f"server-{number}.log",
                env={"PECET_REDIS_URL": redis_process.url},
            )
            server.start()  # the first migrates the new file
            started.append(server)
        yield started
    finally:
        for server in started:
            server.stop()


async def board_names(url: str, code: str, names: list[list[str]], stop: asyncio.Event) -> None:
    """Follow the room's board socket on one process, noting the seats of every view."""
    follower = Follower()
    async with websockets.connect(f"{url}/ws/rooms/{code}/board") as connection:
        while not stop.is_set():
            try:
                frame = await asyncio.wait_for(connection.recv(), 0.2)
            except TimeoutError:
                continue
            view = follower.take(json.loads(frame))
            names.append([seat["name"] for seat in view["seats"]])


def test_redis_away_refuses_commands_clearly_and_back_empty_everything_goes_on(
    servers: list[ServerProcess], redis_process: RedisProcess
) -> None:
    a, b = servers
    with httpx.Client(timeout=30) as http:
        room = http.post(f"{a.base_url}/api/rooms", json={"game": "hidden_leaders"}).json()
        code = room["code"]
        ann = http.post(f"{a.base_url}/api/rooms/{code}/seats", json={"name": "Ann"})
        assert ann.status_code == 201, ann.text

        async def scenario() -> list[list[str]]:
            seen: list[list[str]] = []
            stop = asyncio.Event()
            board = asyncio.create_task(board_names(a.ws_url, code, seen, stop))
            # Ann's phone is connected to the first process all along.
            phone_url = f"{a.ws_url}/ws/rooms/{code}?token={ann.json()['token']}"
            async with websockets.connect(phone_url):
                await asyncio.to_thread(away_and_back, http, servers, redis_process, code)
                stop.set()
                await board
            return seen

        seen = asyncio.run(scenario())
        # The board on the first process heard of Ben, who joined through the second.
        assert ["Ann", "Ben"] in seen
        # Ann's phone never left: after Redis came back empty, the second process counts it
        # again (each process tells its sockets again when its channel is back).
        wait_for(
            lambda: http.get(f"{b.base_url}/api/rooms/{code}").json()["seats"][0]["connected"],
            "the second process sees Ann's phone",
            BACK_WITHIN,
        )

    for server in servers:
        assert server.log_path is not None
        logged = server.log_path.read_text(errors="replace")
        # Said once, plainly, and not a traceback per request or per beat.
        assert logged.count("Redis is out of reach") == 1, logged[-3000:]
        assert logged.count("Redis answers again") == 1, logged[-3000:]
        assert "Traceback" not in logged and "ERROR" not in logged, logged[-3000:]


def away_and_back(
    http: httpx.Client, servers: list[ServerProcess], redis_process: RedisProcess, code: str
) -> None:
    a, b = servers
    redis_process.stop()

    # A command is refused within seconds, with a status, a code and a time to come back.
    began = time.monotonic()
    refused = http.post(f"{b.base_url}/api/rooms/{code}/seats", json={"name": "Ben"})
    assert time.monotonic() - began < REFUSED_WITHIN
    assert refused.status_code == 503, refused.text
    assert refused.json()["code"] == "unavailable"
    assert refused.headers["Retry-After"] == "2"
    # The join page says it in the phone's language.
    page = http.post(
        f"{b.base_url}/join",
        data={"code": code, "name": "Ben"},
        headers={"Accept-Language": "cs"},
    )
    assert page.status_code == 503
    assert "Herní server je chvilku nedostupný." in page.text
    assert page.headers["Retry-After"] == "2"
    # A proxy or an orchestrator can tell; reading the room needs no Redis.
    for server in servers:
        health = http.get(f"{server.base_url}/healthz")
        assert health.status_code == 503 and health.json()["status"] == "unavailable"
    assert [s["name"] for s in http.get(f"{a.base_url}/api/rooms/{code}").json()["seats"]] == [
        "Ann"
    ]

    redis_process.start()  # the same port, nothing in it
    wait_for(
        lambda: all(http.get(f"{s.base_url}/healthz").status_code == 200 for s in servers),
        "both processes healthy again",
        BACK_WITHIN,
    )
    ben = http.post(f"{b.base_url}/api/rooms/{code}/seats", json={"name": "Ben"})
    assert ben.status_code == 201, ben.text
    # The first process's copy hears of it (news, or the beat's catch-up).
    wait_for(
        lambda: (
            [s["name"] for s in http.get(f"{a.base_url}/api/rooms/{code}").json()["seats"]]
            == ["Ann", "Ben"]
        ),
        "the first process sees Ben",
        BACK_WITHIN,
    )
