"""The websocket protocol the server runs: uvicorn's own (websockets' sans-I/O), made to
weigh less while a socket waits, which is nearly always (bench/load.py, memory per started
idle room: an idle room's seven sockets were most of its memory)."""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn._types import ASGIReceiveEvent, ASGISendEvent
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import Protocol, State
from websockets.streams import StreamReader

SEND_NOW = "pecet.send_text_now"
"""The ASGI scope's extension under which a socket served by :class:`SocketProtocol` offers
:meth:`SocketProtocol.send_text_now` (a test client's socket does not)."""


class Inbox:
    """A socket's received events, as uvicorn's protocol uses its queue (``put_nowait``,
    ``get``, ``empty``), for one reader: the app's task that serves the socket. An
    ``asyncio.Queue`` keeps three deques and an event's deque, about 3 KiB a socket, for
    a queue that is empty nearly all its life."""

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: list[ASGIReceiveEvent] = []
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: ASGIReceiveEvent) -> None:
        self._items.append(item)
        if self._waiter is not None and not self._waiter.done():
            self._waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    async def get(self) -> ASGIReceiveEvent:
        if self._waiter is not None:
            raise RuntimeError("a socket's events have one reader")
        while not self._items:
            self._waiter = asyncio.get_running_loop().create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._items.pop(0)


class Flag:
    """``asyncio.Event`` as uvicorn's protocol uses it for "the transport takes more"
    (``set``, ``clear``, ``wait``), keeping its waiters in a list made only when one
    waits, where the event keeps a deque for each socket."""

    __slots__ = ("_set", "_waiters")

    def __init__(self) -> None:
        self._set = False
        self._waiters: list[asyncio.Future[None]] | None = None

    def is_set(self) -> bool:
        return self._set

    def set(self) -> None:
        self._set = True
        waiters, self._waiters = self._waiters, None
        for waiter in waiters or ():
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._set = False

    async def wait(self) -> bool:
        while not self._set:
            waiter = asyncio.get_running_loop().create_future()
            if self._waiters is None:
                self._waiters = []
            self._waiters.append(waiter)
            try:
                await waiter
            finally:
                if self._waiters is not None and waiter in self._waiters:
                    self._waiters.remove(waiter)
        return True


class SocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's protocol with a lighter receive queue and writable flag (above), and
    without the handshake once it is answered: uvicorn kept its request and response,
    headers and all, for as long as the socket lived, and reads them only to answer the
    handshake (``handle_connect``, and ``send`` of the accept; what the app reads of the
    request stays in the ASGI scope). websockets' parser kept the request too (below)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.queue = Inbox()  # type: ignore[assignment]
        self.writable = Flag()  # type: ignore[assignment]
        self.writable.set()

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if self.response.status_code != 101:
            return  # a handshake refused (a bad key or version): no scope, no app
        self.scope["extensions"][SEND_NOW] = self.send_text_now  # type: ignore[assignment]

    async def send(self, message: ASGISendEvent) -> None:
        await super().send(message)
        if message["type"] == "websocket.accept" and self.handshake_complete:
            del self.request, self.response
            release_handshake(self.conn)

    def send_text_now(self, texts: list[str], wire: WireFrames | None = None) -> bool:
        """Hand text frames to the transport at once, in one write, as ``send`` of a
        ``websocket.send`` does for each, when the socket takes more now (open, its buffer
        below the high-water mark); ``False`` when it does not, and the frames must wait
        for :meth:`send`. Each write is a system call, on this server's hot path the
        dearest part of a frame: the frames a socket gets in one turn of the event loop
        (the seals of a room committed together) leave in one.

        ``wire``: the frames of this turn as they go on the wire, each encoded once for
        all the sockets that get it (a seal's notice reaches six). A socket that speaks an
        extension (permessage-deflate) frames its own."""
        if (
            not self.handshake_complete
            or self.initial_response is not None
            or self.close_sent
            or self.disconnected
            or not self.writable.is_set()
        ):
            return False
        if wire is not None and not self.conn.extensions and self.conn.state is State.OPEN:
            # What websockets' send_text writes for a text frame without extensions; it
            # keeps no count of the frames it sends, and uvicorn writes out whatever else
            # it frames at once (a pong), so nothing of its own waits to go before these.
            self.transport.write(b"".join(map(wire.frame, texts)))
            return True
        for text in texts:
            self.conn.send_text(text.encode())
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True


class WireFrames:
    """Unmasked text frames as a server sends them (RFC 6455, 5.2: FIN, opcode 1, the
    payload's length in 7, 16 or 64 bits), each built once per text object however many
    sockets it is written to. Kept for one turn of the event loop (``Hub._flush``): each
    entry holds its text, so an id stays that text's while the entry lives."""

    __slots__ = ("_frames",)

    def __init__(self) -> None:
        self._frames: dict[int, tuple[str, bytes]] = {}

    def frame(self, text: str) -> bytes:
        known = self._frames.get(id(text))
        if known is not None and known[0] is text:
            return known[1]
        payload = text.encode()
        length = len(payload)
        if length < 126:
            head = bytes((0x81, length))
        elif length < 1 << 16:
            head = b"\x81\x7e" + length.to_bytes(2, "big")
        else:
            head = b"\x81\x7f" + length.to_bytes(8, "big")
        frame = head + payload
        self._frames[id(text)] = (text, frame)
        return frame


def release_handshake(connection: Any) -> None:
    """Let go of the handshake request that websockets' server parser holds: it parses the
    request, then the frames in the same generator, whose frame keeps the request (its
    headers, about 3 KiB a socket) for the socket's whole life. Once the handshake is
    answered the parser is replaced by websockets' own frame parser, started afresh, but
    only while it waits between two frames: then that fresh parser is in the very state
    the old one was in (everything else it reads from lives on the connection). In any
    other state, or in a websockets whose parser is laid out otherwise, it is left as it
    is: the socket works either way, it only weighs more."""
    frames = getattr(connection.parser, "gi_yieldfrom", None)
    waiting = getattr(frames, "gi_yieldfrom", None)
    if (
        getattr(frames, "gi_code", None) is Protocol.parse.__code__
        and getattr(waiting, "gi_code", None) is StreamReader.at_eof.__code__
    ):
        parser = Protocol.parse(connection)
        next(parser)  # started, as websockets starts its own
        connection.parser = parser
