"""The server's websocket protocol (app/socket_protocol.py): uvicorn's own with a lighter
receive queue and writable flag, which forgets the handshake once it is answered. The
primitives alone, then a real uvicorn server on a real port with a real client: frames both
ways, a client that falls behind and catches up (the transport pauses and resumes writing),
frames written at once until it pauses, and a client that goes away."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import json
import socket
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
import websockets
from starlette.websockets import WebSocket, WebSocketDisconnect
from websockets.http11 import Request

from app.socket_protocol import SEND_NOW, Flag, Inbox, SocketProtocol, WireFrames
from tests.services import free_port

BURST = 2000
"""Frames of about 4 KiB sent at once: 8 MiB, more than the connection's buffers."""


def test_an_inbox_hands_out_its_events_in_order_and_waits_for_the_next() -> None:
    async def run() -> list[Any]:
        inbox = Inbox()
        assert inbox.empty()
        inbox.put_nowait({"type": "websocket.connect"})
        inbox.put_nowait({"type": "websocket.receive", "text": "1"})
        got = [await inbox.get(), await inbox.get()]
        assert inbox.empty()
        waiting = asyncio.create_task(inbox.get())
        await asyncio.sleep(0)  # the reader waits now
        assert not waiting.done()
        inbox.put_nowait({"type": "websocket.receive", "text": "2"})
        got.append(await asyncio.wait_for(waiting, 1))
        return got

    assert asyncio.run(run()) == [
        {"type": "websocket.connect"},
        {"type": "websocket.receive", "text": "1"},
        {"type": "websocket.receive", "text": "2"},
    ]


def test_an_inbox_whose_reader_was_cancelled_serves_the_next_one() -> None:
    async def run() -> Any:
        inbox = Inbox()
        cancelled = asyncio.create_task(inbox.get())
        await asyncio.sleep(0)
        cancelled.cancel()
        with pytest.raises(asyncio.CancelledError):
            await cancelled
        reader = asyncio.create_task(inbox.get())
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="one reader"):
            await inbox.get()  # a second reader at once is a fault, not a silent hang
        inbox.put_nowait({"type": "websocket.disconnect", "code": 1000})
        return await asyncio.wait_for(reader, 1)

    assert asyncio.run(run()) == {"type": "websocket.disconnect", "code": 1000}


def test_a_flag_lets_through_while_set_and_wakes_every_waiter_when_set_again() -> None:
    async def run() -> None:
        flag = Flag()
        flag.set()
        assert flag.is_set() and await asyncio.wait_for(flag.wait(), 1)
        flag.clear()
        first, second = asyncio.create_task(flag.wait()), asyncio.create_task(flag.wait())
        gone = asyncio.create_task(flag.wait())
        await asyncio.sleep(0)
        assert not (first.done() or second.done() or gone.done())
        gone.cancel()
        with pytest.raises(asyncio.CancelledError):
            await gone
        flag.set()
        assert list(await asyncio.wait_for(asyncio.gather(first, second), 1)) == [True, True]

    asyncio.run(run())


async def echo(websocket: WebSocket) -> None:
    """Answers every text frame with the same; ``burst N`` with N numbered frames at once;
    ``now N`` with as many, written at once while the socket takes them (``SEND_NOW``),
    then how many were."""
    await websocket.accept()
    try:
        while True:
            text = await websocket.receive_text()
            if text.startswith("burst "):
                for number in range(int(text.split()[1])):
                    await websocket.send_text(json.dumps({"n": number, "pad": "x" * 4000}))
            elif text.startswith("now "):
                # As the hub writes: at once while the socket takes more, else waiting.
                send_now = websocket.scope["extensions"][SEND_NOW]
                at_once = 0
                for number in range(int(text.split()[1])):
                    frame = json.dumps({"n": number, "pad": "x" * 4000})
                    if send_now([frame]):
                        at_once += 1
                    else:
                        await websocket.send_text(frame)
                await websocket.send_text(json.dumps({"at_once": at_once}))
            elif text == "wire":
                # As the hub's flush writes a turn's frames: each text encoded once, a text
                # sent twice (as one notice to many sockets) framed once and written twice.
                wire = WireFrames()
                shared = "seal ✓ " * 20
                texts = [*("é" * size for size in WIRE_SIZES), shared, shared]
                send_now = websocket.scope["extensions"][SEND_NOW]
                assert send_now(texts, wire)
                assert wire.frame(shared) is wire.frame(shared)
            else:
                await websocket.send_text(text)
    except WebSocketDisconnect:
        pass


async def echo_app(scope: Any, receive: Any, send: Any) -> None:
    if scope["type"] == "websocket":
        await echo(WebSocket(scope, receive, send))


WIRE_SIZES = (0, 1, 62, 63, 64, 32_767, 32_768, 40_000)
"""Texts of é (two bytes each) around a frame's length limits: 125 bytes in 7 bits, 126 to
65,535 in 16, more in 64."""


@contextlib.asynccontextmanager
async def echo_server(
    compression: bool = False,
) -> AsyncIterator[tuple[uvicorn.Server, int]]:
    """A real uvicorn server of :func:`echo_app` with the protocol, on a free port."""
    port = free_port()
    config = uvicorn.Config(
        echo_app,
        host="127.0.0.1",
        port=port,
        ws=SocketProtocol,
        log_level="warning",
        ws_per_message_deflate=compression,
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    try:
        yield server, port
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)


def test_a_real_server_with_the_protocol_talks_keeps_no_handshake_and_lets_go() -> None:
    async def run() -> None:
        async with echo_server() as (server, port):
            # max_queue=1 and a small receive buffer: the client stops reading the
            # connection while a frame waits, so a burst fills the server's buffers and
            # its transport pauses writing.
            url = f"ws://127.0.0.1:{port}/"
            sock = socket.socket()
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.connect(("127.0.0.1", port))
            # No compression: the burst's frames would shrink to nearly nothing.
            async with websockets.connect(url, sock=sock, max_queue=1, compression=None) as client:
                await client.send("hello")
                assert await asyncio.wait_for(client.recv(), 5) == "hello"
                (protocol,) = server.server_state.connections
                assert isinstance(protocol, SocketProtocol)
                queue, writable = vars(protocol)["queue"], vars(protocol)["writable"]
                assert isinstance(queue, Inbox) and isinstance(writable, Flag)
                assert not hasattr(protocol, "request") and not hasattr(protocol, "response")

                await client.send(f"burst {BURST}")  # far more than the buffers hold
                for _ in range(500):  # the server writes until its transport pauses
                    if not writable.is_set():
                        break
                    await asyncio.sleep(0.01)
                assert not writable.is_set(), "the transport never paused"
                numbers = [json.loads(await asyncio.wait_for(client.recv(), 5))["n"]]
                while numbers[-1] < BURST - 1:
                    numbers.append(json.loads(await asyncio.wait_for(client.recv(), 5))["n"])
                assert numbers == list(range(BURST))
                assert writable.is_set()  # resumed once the client read
                await client.send("after")
                assert await asyncio.wait_for(client.recv(), 5) == "after"

                await client.send(f"now {BURST}")
                numbers = []
                while len(numbers) < BURST:
                    numbers.append(json.loads(await asyncio.wait_for(client.recv(), 5))["n"])
                assert numbers == list(range(BURST)), "in order, at once or after a wait"
                at_once = json.loads(await asyncio.wait_for(client.recv(), 5))["at_once"]
                assert 0 < at_once < BURST, "written at once until the transport paused"
            # The client went away: the server lets the connection go.
            for _ in range(200):
                if not server.server_state.connections:
                    break
                await asyncio.sleep(0.01)
            assert not server.server_state.connections

    asyncio.run(run())


@pytest.mark.parametrize("compression", [False, True], ids=["plain", "deflate"])
def test_frames_encoded_once_arrive_whole_at_every_length(compression: bool) -> None:
    """The hub's flush frames each text once for all its sockets (``WireFrames``): a real
    client reads every one whole and in order, across the lengths where a frame's header
    grows, in UTF-8, a text written twice as well. A socket that speaks permessage-deflate
    frames its own, and reads the same."""

    async def run() -> None:
        async with echo_server(compression) as (_server, port):
            offer = "deflate" if compression else None
            async with websockets.connect(
                f"ws://127.0.0.1:{port}/", compression=offer, max_size=None
            ) as client:
                assert bool(client.protocol.extensions) == compression
                await client.send("wire")
                got = [await asyncio.wait_for(client.recv(), 5) for _ in range(len(WIRE_SIZES) + 2)]
                assert got == [*("é" * size for size in WIRE_SIZES), *["seal ✓ " * 20] * 2]
                await client.send("after")
                assert await asyncio.wait_for(client.recv(), 5) == "after"

    asyncio.run(run())


def test_a_socket_keeps_nothing_of_its_handshake_request_and_still_reads_frames() -> None:
    """websockets' server parser held the handshake request for the socket's life (the
    request parsed, then the frames, in one generator): once the handshake is answered no
    request of this client is alive on the server, and frames of every size (one split over
    several TCP writes too) still arrive whole."""

    async def run() -> None:
        marker = uuid.uuid4().hex
        async with echo_server() as (_server, port):
            async with websockets.connect(
                f"ws://127.0.0.1:{port}/", additional_headers={"X-Marker": marker}
            ) as client:
                await client.send("hello")
                assert await asyncio.wait_for(client.recv(), 5) == "hello"
                gc.collect()
                held = [
                    o
                    for o in gc.get_objects()
                    if isinstance(o, Request) and o.headers.get("X-Marker") == marker
                ]
                assert held == [client.request], "the server still holds the request"
                for size in (1, 125, 126, 70_000):
                    await client.send("x" * size)
                    assert await asyncio.wait_for(client.recv(), 5) == "x" * size
            # A frame whose bytes come in pieces, as a slow phone's do.
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(
                b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                b"Sec-WebSocket-Version: 13\r\n\r\n"
            )
            answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert answer.startswith(b"HTTP/1.1 101"), answer
            mask = b"\x01\x02\x03\x04"
            payload = bytes(b ^ mask[i % 4] for i, b in enumerate(b"pieces"))
            frame = b"\x81" + bytes([0x80 | 6]) + mask + payload
            for piece in (frame[:1], frame[1:4], frame[4:]):
                writer.write(piece)
                await writer.drain()
                await asyncio.sleep(0.01)  # each piece in its own read
            echoed = await asyncio.wait_for(reader.readexactly(2 + 6), 5)
            assert echoed == b"\x81\x06pieces"
            writer.close()

    asyncio.run(run())


def test_a_refused_handshake_is_answered_and_breaks_nothing() -> None:
    """A request the websocket handshake refuses (here an unknown protocol version, as a
    scanner or a broken client sends) gets its 400, and the protocol, which then has no
    ASGI scope to offer ``SEND_NOW`` in, fails nothing on the event loop."""

    async def run() -> tuple[bytes, list[dict[str, Any]]]:
        faults: list[dict[str, Any]] = []
        asyncio.get_running_loop().set_exception_handler(lambda _loop, fault: faults.append(fault))
        async with echo_server() as (_server, port):
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.write(
                b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                b"Sec-WebSocket-Version: 8\r\n\r\n"
            )
            await writer.drain()
            # The server closes the connection after its answer, in the same call that
            # would have reported a fault of the protocol: read to the end, it was reported.
            answer = await asyncio.wait_for(reader.read(), 5)
            writer.close()
        return answer, faults

    answer, faults = asyncio.run(run())
    assert answer.startswith(b"HTTP/1.1 400"), answer[:100]
    assert faults == []
