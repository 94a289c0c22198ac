"""The sealing timer across processes (issue 15): the process that drives a room runs its
timer, once; when it is killed mid-game another process takes the room over and its timer
goes on. Real ``pecet serve`` processes, a real Redis, one SQLite file; nobody seals by hand,
so every order of the game is the timer's (H5.4: a seat out of time gets its default order)."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import httpx
import pytest

from tests.conftest import ServerProcess
from tests.services import redis_server
from tests.test_cluster import Cluster, kill_the_driver, stored_match

TIMER_SECONDS = 1
ROUNDS = 6
"""The shortest game the sheet allows (seeds/heirs/setup.json)."""
KILL_AT_VERSION = 9
"""The driver is killed once the timer has sealed this many orders (the setup and two rounds)."""
GAME_SECONDS = 90.0


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[Cluster]:
    (tmp_path / "redis").mkdir()
    database_url = f"sqlite:///{tmp_path / 'rooms.sqlite3'}"
    with redis_server(tmp_path / "redis") as redis_url:
        servers = [
            ServerProcess(
                database_url=database_url,
                log_path=tmp_path / f"server-{number}.log",
                env={"PECET_REDIS_URL": redis_url},
            )
            for number in range(2)
        ]
        try:
            for server in servers:
                server.start()
            yield Cluster(servers, redis_url, database_url)
        finally:
            for server in servers:
                server.stop()


def test_the_timer_runs_once_in_the_driving_process_and_goes_on_after_it_is_killed(
    two_servers: Cluster,
) -> None:
    cluster = two_servers
    urls = [server.base_url for server in cluster.servers]
    with httpx.Client(timeout=20) as http:
        room = http.post(
            f"{urls[0]}/api/rooms",
            json={"game": "heirs", "options": {"timer": TIMER_SECONDS, "rounds": ROUNDS}},
        ).json()
        code, host = room["code"], {"Authorization": f"Bearer {room['host_token']}"}
        for name, server in (("Ema", 0), ("Petr", 1), ("Jana", 1)):
            seated = http.post(f"{urls[server]}/api/rooms/{code}/seats", json={"name": name})
            assert seated.status_code == 201, seated.text
        assert http.post(f"{urls[0]}/api/rooms/{code}/start", headers=host).status_code == 200

        deadline = time.monotonic() + GAME_SECONDS
        killed = -1
        while True:
            alive = cluster.alive()[0]
            now = http.get(f"{urls[alive]}/api/rooms/{code}").json()
            if now["status"] == "finished":
                break
            assert time.monotonic() < deadline, f"the game stood still at version {now['version']}"
            if killed < 0 and (now["version"] or 0) >= KILL_AT_VERSION:
                killed = asyncio.run(kill_the_driver(cluster, code))
            time.sleep(0.1)  # the timer plays the game; the test only watches

    assert killed >= 0, "the game ended before the kill"
    stored = stored_match(cluster.database_url, code)
    rows, ranges = stored.orders, stored.ranges
    assert [row.seq for row in rows] == list(range(1, stored.version + 1)), "a gap or a repeat"
    # Nobody sealed by hand: every order was the timer's.
    assert all(row.by_bot for row in rows)
    # Once per seat and round, though two processes were there to run the timer.
    for first, last in ranges:
        sealers = [rows[seq - 1].seat for seq in range(first, last + 1)]
        assert sorted(sealers) == [0, 1, 2], (first, last, sealers)
    assert len(ranges) == 1 + ROUNDS, "the setup and every round"
    # Each round waited its whole timer after the round before (a timer started anew by
    # the process that took the room over, not one cut short).
    starts = [datetime.fromisoformat(str(rows[first - 1].created_at)) for first, _ in ranges]
    gaps = [(b - a).total_seconds() for a, b in itertools.pairwise(starts)]
    assert min(gaps) >= TIMER_SECONDS * 0.9, gaps
    log_path = cluster.servers[cluster.alive()[0]].log_path
    assert log_path is not None
    logged = log_path.read_text(errors="replace")
    assert "Traceback" not in logged and "ERROR" not in logged, logged[-3000:]
