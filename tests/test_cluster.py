"""Several ``pecet serve`` processes, one room: Redis carries the changes and the room's lock,
PostgreSQL keeps the orders (issue 15). Real processes, real Redis and PostgreSQL from
Debian's packages, real websockets; one of the processes is killed mid-game."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
import websockets
from sqlalchemy import create_engine, text

from tests.conftest import ServerProcess
from tests.play import Follower
from tests.services import PostgresDatabases, redis_server

JSON = dict[str, Any]
KILL_AT_VERSION = 20
"""The driving process is killed once the match has taken this many orders (of ~65)."""
GAME_SECONDS = 120.0


@dataclass
class Cluster:
    servers: list[ServerProcess]
    redis_url: str
    database_url: str
    dead: set[int] = field(default_factory=set)

    def alive(self) -> list[int]:
        return [i for i in range(len(self.servers)) if i not in self.dead]


@pytest.fixture
def cluster(tmp_path: Path, postgres: PostgresDatabases) -> Iterator[Cluster]:
    """Three server processes on one PostgreSQL database and one Redis of their own."""
    (tmp_path / "redis").mkdir()
    with (
        redis_server(tmp_path / "redis") as redis_url,
        postgres.database() as database_url,
    ):
        servers = [
            ServerProcess(
                database_url=database_url,
                bot_delay=0.05,
                step_seconds=0.02,
                log_path=tmp_path / f"server-{number}.log",
                env={"PECET_REDIS_URL": redis_url},
            )
            for number in range(3)
        ]
        try:
            servers[0].start()  # migrates the new database; the others find it done
            for server in servers[1:]:
                server.start()
            yield Cluster(servers, redis_url, database_url)
        finally:
            for server in servers:
                server.stop()


def order_for(prompt: JSON) -> JSON:
    """What a hurried player seals: the first colour and character at setup, else the
    prompt's default order (H5.1)."""
    if prompt.get("kind") == "setup":
        return {"colour": prompt["colours"][0], "character": prompt["characters"][0]}
    return dict(prompt.get("default") or {})


@dataclass
class Socket:
    """One websocket client (a phone, or the board when ``token`` is None) that follows its
    view through whichever process it is connected to, and moves to a living one when its
    process dies."""

    name: str
    token: str | None
    server: int
    follower: Follower = field(default_factory=Follower)
    reconnects: int = 0
    finished: bool = False
    saw_show: bool = False

    @property
    def view(self) -> JSON | None:
        return self.follower.view


async def follow(cluster: Cluster, code: str, socket: Socket, heard: asyncio.Event) -> None:
    while not socket.finished:
        server = cluster.servers[socket.server]
        path = f"/ws/rooms/{code}/board" if socket.token is None else f"/ws/rooms/{code}"
        query = "" if socket.token is None else f"?token={socket.token}"
        try:
            async with websockets.connect(f"{server.ws_url}{path}{query}") as connection:
                async for text_frame in connection:
                    view = socket.follower.take(json.loads(text_frame))
                    socket.saw_show = socket.saw_show or bool(view.get("show"))
                    if view.get("status") == "finished":
                        socket.finished = True
                    heard.set()
                    if socket.finished:
                        return
        except (OSError, websockets.ConnectionClosed):
            pass
        if socket.server in cluster.dead:  # its process is gone: another one serves it
            socket.server = cluster.alive()[0]
            socket.reconnects += 1
        else:
            await asyncio.sleep(0.05)  # a refused handshake under load: try again


async def kill_the_driver(cluster: Cluster, code: str) -> int:
    """kill -9 the process that drives the room (holds its lease in Redis)."""
    client = redis.Redis.from_url(cluster.redis_url, decode_responses=True)
    try:
        driver = client.get(f"pecet:room:{code}:driver")
    finally:
        client.close()
    assert isinstance(driver, str), "nobody drives the room"
    async with httpx.AsyncClient(timeout=10) as http:
        for number in cluster.alive():
            health = (await http.get(f"{cluster.servers[number].base_url}/healthz")).json()
            if health.get("process") == driver:
                cluster.servers[number].kill()
                cluster.dead.add(number)
                return number
    raise AssertionError(f"no living process is called {driver!r}")


async def play(cluster: Cluster) -> tuple[str, list[Socket], list[tuple[int, JSON]], int]:
    urls = [server.base_url for server in cluster.servers]
    async with httpx.AsyncClient(timeout=20) as http:
        room = (
            await http.post(f"{urls[0]}/api/rooms", json={"game": "heirs", "options": {}})
        ).json()
        code, host = room["code"], {"Authorization": f"Bearer {room['host_token']}"}
        phones = []
        for name, server in (("Ema", 1), ("Petr", 1), ("Jana", 2)):
            seated = await http.post(f"{urls[server]}/api/rooms/{code}/seats", json={"name": name})
            assert seated.status_code == 201, seated.text
            phones.append(Socket(name, seated.json()["token"], server))
        for _ in range(2):
            assert (
                await http.post(f"{urls[0]}/api/rooms/{code}/bots", headers=host)
            ).status_code == 201
        board = Socket("board", None, 0)
        heard = asyncio.Event()
        sockets = [board, *phones]
        followers = [asyncio.create_task(follow(cluster, code, s, heard)) for s in sockets]
        while any(s.view is None for s in sockets):
            heard.clear()
            await asyncio.wait_for(heard.wait(), 20)
        started = await http.post(f"{urls[0]}/api/rooms/{code}/start", headers=host)
        assert started.status_code == 200, started.text

        acknowledged: list[tuple[int, JSON]] = []
        tried: set[tuple[str, int, int]] = set()
        killed = -1
        async with asyncio.timeout(GAME_SECONDS):
            while not board.finished or not all(p.finished for p in phones):
                heard.clear()
                version = max((s.view or {}).get("version") or 0 for s in sockets)
                if killed < 0 and version >= KILL_AT_VERSION:
                    killed = await kill_the_driver(cluster, code)
                for phone in phones:
                    view = phone.view or {}
                    prompt = view.get("prompt")
                    key = (phone.name, view.get("match") or 0, view.get("version") or 0)
                    if not prompt or view.get("my_commitment") or key in tried:
                        continue
                    tried.add(key)
                    if phone.server in cluster.dead:
                        continue  # its socket moves on first, and brings a fresh view
                    order = order_for(prompt)
                    try:
                        answer = await http.post(
                            f"{urls[phone.server]}/api/rooms/{code}/orders",
                            json=order,
                            headers={"Authorization": f"Bearer {phone.token}"},
                        )
                    except httpx.TransportError:
                        continue  # killed while it answered: not acknowledged
                    if answer.status_code == 202:
                        acknowledged.append((view["you"]["seat"], order))
                    else:  # drawn from a view older than the room's (a colour taken
                        # meanwhile, a round already resolved): the newer one is on its way
                        assert answer.status_code in (409, 422, 503), answer.text
                await asyncio.wait_for(heard.wait(), 10)
        for task in followers:
            task.cancel()
        await asyncio.gather(*followers, return_exceptions=True)
        return code, sockets, acknowledged, killed


@dataclass
class StoredMatch:
    """A room's match as the database holds it."""

    version: int
    players: list[int]
    """The room seat of each engine seat."""
    orders: list[Any]
    """The order log, in order: rows of (seq, seat, by_bot, created_at, order), ``seat`` the
    engine's."""
    ranges: list[Any]
    """(first_seq, last_seq) of each resolution."""


def stored_match(database_url: str, code: str) -> StoredMatch:
    engine = create_engine(database_url)
    try:
        with engine.connect() as db:
            found: Any = db.execute(
                text(
                    "SELECT m.id, m.version, m.players FROM match m JOIN room r"
                    " ON m.room_id = r.id WHERE r.code = :code"
                ),
                {"code": code},
            ).one()
            match_id, version, players = found
            orders: Sequence[Any] = db.execute(
                text(
                    'SELECT seq, seat, by_bot, created_at, "order" FROM orderlog'
                    " WHERE match_id = :m ORDER BY seq"
                ),
                {"m": match_id},
            ).all()
            ranges = db.execute(
                text("SELECT first_seq, last_seq FROM resolution WHERE match_id = :m"),
                {"m": match_id},
            ).all()
    finally:
        engine.dispose()
    return StoredMatch(int(version), list(players), list(orders), list(ranges))


def test_three_processes_one_room_and_the_driver_killed_mid_game(cluster: Cluster) -> None:
    code, sockets, acknowledged, killed = asyncio.run(play(cluster))

    board, *phones = sockets
    assert killed >= 0, "the game ended before the kill"
    # The reveal is played where a board watches: the processes of the phones (no board of
    # their own) knew of the board on another process.
    assert board.saw_show and all(phone.saw_show for phone in phones)
    # Every socket saw the game end, wherever it was connected; those of the killed
    # process came back through another one.
    assert all(s.finished for s in sockets)
    moved = [s for s in sockets if s.reconnects]
    assert moved and all(s.server != killed for s in sockets)

    stored_game = stored_match(cluster.database_url, code)
    seqs = [row.seq for row in stored_game.orders]
    log = [
        {"seat": stored_game.players[row.seat], "order": row.order} for row in stored_game.orders
    ]
    ranges, version = stored_game.ranges, stored_game.version
    assert seqs == list(range(1, version + 1)), "the order log has a gap or a repeat"
    # No acknowledged order is lost: each is in the log, for its seat, in the order sent.
    for seat in {seat for seat, _order in acknowledged}:
        sent = [order for s, order in acknowledged if s == seat]
        stored = iter(entry["order"] for entry in log if entry["seat"] == seat)
        assert all(any(order == kept for kept in stored) for order in sent), seat
    # None applied twice: within one resolution's orders, every seat sealed once.
    for first, last in ranges:
        sealers = [log[seq - 1]["seat"] for seq in range(first, last + 1)]
        assert len(sealers) == len(set(sealers)), (first, last, sealers)
    assert len(acknowledged) >= 3 * 5, "the phones sealed too little for a whole game"
    # Nothing failed on the way: a reload, a show, a bot's move or a Redis call that failed
    # in a living process would be in its log.
    for number in cluster.alive():
        log_path = cluster.servers[number].log_path
        assert log_path is not None
        logged = log_path.read_text(errors="replace")
        assert "Traceback" not in logged and "ERROR" not in logged, logged[-3000:]
