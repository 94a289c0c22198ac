"""A socket whose reader stalls (a TV browser that hangs, a phone whose radio sleeps with the
connection up) is given up once a frame has waited ``PECET_SEND_TIMEOUT`` seconds to leave:
the server sends a close frame (1013, which the pages reconnect after) and cuts the
connection, so that the page, once it reads again, finds its connection ended, reconnects
and is sent the present. Without both the socket stayed open with no frame ever again.
(Here the close frame gets through within its second; the cut, for a close frame that
cannot leave at all, is not singled out.) Real server process, a real TCP connection whose
client stops reading; another board of the room, which reads, is told of every change
meanwhile.

A connection that goes quiet without closing (a phone whose Wi-Fi is gone) answers no ping:
the server's keepalive cuts it, and the board shows the seat away."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import websockets

from tests.conftest import ServerProcess

SEND_TIMEOUT = 1.0
CHANGES_AT_MOST = 2000
"""Changes made to fill the connection's buffers (each sends the board a view)."""
DRAINED_WITHIN = 8.0
"""Seconds the woken client may take to find its connection ended (far less than the
20 s after which the server's keepalive would give up on a client that answers no ping)."""


def small_socket(url: str) -> socket.socket:
    """A connected TCP socket with a small receive buffer, so that a client that stops
    reading stops the server's writes soon."""
    parts = urlsplit(url)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.connect((parts.hostname, parts.port))
    return sock


def test_a_board_that_stops_reading_is_cut_and_comes_back_to_the_present(tmp_path: Path) -> None:
    server = ServerProcess(
        database_url=f"sqlite:///{tmp_path / 'pecet.sqlite3'}",
        log_path=tmp_path / "server.log",
        env={"PECET_SEND_TIMEOUT": str(SEND_TIMEOUT)},
    )
    server.start()
    try:
        asyncio.run(stall_and_come_back(server))
    finally:
        server.stop()
    logged = (tmp_path / "server.log").read_text(errors="replace")
    assert "Traceback" not in logged, logged[-3000:]


async def stall_and_come_back(server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=20) as http:
        # A game under way: the TV's frames are the whole board, map and all (about 20 KiB).
        room = (await http.post("/api/rooms", json={"game": "heirs"})).json()
        code, host = room["code"], {"Authorization": f"Bearer {room['host_token']}"}
        for name in ("Ann", "Ben", "Cid"):
            assert (await http.post(f"/api/rooms/{code}/seats", json={"name": name})).is_success
        assert (await http.post(f"/api/rooms/{code}/start", headers=host)).is_success
        url = f"{server.ws_url}/ws/rooms/{code}/board"
        # The TV page's socket (HTML fragments). max_queue=1: the client library stops
        # reading the connection as soon as one frame waits unread, as a hung browser would.
        stalled = await websockets.connect(
            f"{url}?format=html", sock=small_socket(url), max_queue=1
        )
        # A TV that reads as it should, in the same room: the stall must not hold it up.
        healthy = await websockets.connect(url)
        heard: list[bool] = []
        latest = asyncio.Event()

        async def read_healthy() -> None:
            async for message in healthy:
                frame = json.loads(message)
                if frame.get("type") == "view":
                    heard.append(frame["paused"])
                    latest.set()

        reading = asyncio.create_task(read_healthy())
        log_path = server.log_path
        assert log_path is not None
        paused = False
        for changes in range(1, CHANGES_AT_MOST + 1):
            # The host stops and restarts the clock: each a change the board is sent.
            paused = not paused
            answer = await http.post(
                f"/api/rooms/{code}/pause", json={"paused": paused}, headers=host
            )
            assert answer.status_code == 200, answer.text
            if changes % 20 == 0 and "dropping a board socket" in log_path.read_text():
                break
        else:
            raise AssertionError("the server never found the board's socket stalled")

        # The healthy board was told of every change, up to the last, and kept its socket.
        async def told_of_the_last() -> None:
            while len(heard) < changes + 1 or heard[-1] != paused:
                latest.clear()
                await latest.wait()

        await asyncio.wait_for(told_of_the_last(), 10)
        assert log_path.read_text().count("dropping a board socket") == 1
        reading.cancel()
        await healthy.close()

        # The browser wakes up and reads what reached it: the connection ends (the page
        # reconnects on that), rather than staying open with nothing more to come.
        began = time.monotonic()
        ended = False
        while time.monotonic() - began < DRAINED_WITHIN:
            try:
                await asyncio.wait_for(stalled.recv(), DRAINED_WITHIN)
            except websockets.ConnectionClosed:
                ended = True
                break
            except TimeoutError:
                break
        assert ended, "the stalled socket stayed open"

        # Reconnected, the board is sent the room as it stands now.
        async with websockets.connect(url) as fresh:
            view = json.loads(await asyncio.wait_for(fresh.recv(), 10))
            while view.get("type") != "view":
                view = json.loads(await asyncio.wait_for(fresh.recv(), 10))
        assert view["paused"] == paused


KEEPALIVE = 0.5
AWAY = 0.5
AWAY_WITHIN = 8.0
"""Seconds the board may take to show the quiet phone away: twice the keepalive and the
away time, and room to spare; the keepalive of before (20 s and 20 s) took 40."""


def test_a_phone_that_answers_no_ping_is_cut_and_shown_away(tmp_path: Path) -> None:
    server = ServerProcess(
        database_url=f"sqlite:///{tmp_path / 'pecet.sqlite3'}",
        log_path=tmp_path / "server.log",
        env={"PECET_KEEPALIVE_SECONDS": str(KEEPALIVE), "PECET_AWAY_SECONDS": str(AWAY)},
    )
    server.start()
    try:
        asyncio.run(go_quiet(server))
    finally:
        server.stop()
    logged = (tmp_path / "server.log").read_text(errors="replace")
    assert "Traceback" not in logged, logged[-3000:]


async def go_quiet(server: ServerProcess) -> None:
    async with httpx.AsyncClient(base_url=server.base_url, timeout=20) as http:
        room = (await http.post("/api/rooms", json={"game": "heirs"})).json()
        code = room["code"]
        seats = [
            (await http.post(f"/api/rooms/{code}/seats", json={"name": name})).json()
            for name in ("Ann", "Ben")
        ]
        # Ann's phone: the websocket handshake, then silence. The connection stays up (the
        # kernel still acknowledges what comes), but nothing answers the server's pings.
        parts = urlsplit(server.ws_url)
        quiet = socket.create_connection((parts.hostname, parts.port))
        quiet.sendall(
            (
                f"GET /ws/rooms/{code}?token={seats[0]['token']} HTTP/1.1\r\n"
                f"Host: {parts.hostname}:{parts.port}\r\n"
                "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        assert quiet.recv(12) == b"HTTP/1.1 101"
        try:
            async with websockets.connect(f"{server.ws_url}/ws/rooms/{code}/board") as board:

                async def ann_connected() -> list[bool]:
                    shown = []
                    while True:
                        frame = json.loads(await board.recv())
                        if frame.get("type") == "view":
                            (ann,) = [s for s in frame["seats"] if s["name"] == "Ann"]
                            shown.append(ann["connected"])
                            if not ann["connected"]:
                                return shown

                shown = await asyncio.wait_for(ann_connected(), AWAY_WITHIN)
            assert shown[0] is True, shown  # at first the silent phone was there
        finally:
            quiet.close()
