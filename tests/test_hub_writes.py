"""How the hub hands frames to a socket (app/hub.py): the frames a socket gets in one turn of
the event loop leave in one write at the turn's end; a socket whose transport takes no more
gets them from its writer task, in order, and a frame never overtakes an earlier one, a
close frame included. The socket here is a stand-in that records what reaches it: a real
server's socket offers the same ``send_text_now`` (tests/test_socket_protocol.py)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient
from starlette.websockets import WebSocketState

from app.hub import Close, Connection, Hub
from app.socket_protocol import SEND_NOW, WireFrames
from tests.live import room_service
from tests.play import create_room, join


class Socket:
    """A socket that takes frames at once while ``takes`` says so (``send_text_now``), and
    otherwise by the awaited ``send_text``/``close`` a writer task uses."""

    def __init__(self) -> None:
        self.application_state = WebSocketState.CONNECTED
        self.takes = True
        self.fails = False
        self.writes: list[list[str]] = []
        """What left at once, one list per write."""
        self.sent: list[str | Close] = []
        """What left by the writer task, frame by frame."""
        self.scope: dict[str, Any] = {"extensions": {SEND_NOW: self.send_text_now}}
        self.open = asyncio.Event()
        self.open.set()

    def send_text_now(self, texts: list[str], wire: WireFrames | None = None) -> bool:
        if self.fails:
            raise ConnectionResetError("gone")
        if not self.takes:
            return False
        self.writes.append(list(texts))
        return True

    async def send_text(self, text: str) -> None:
        await self.open.wait()
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        await self.open.wait()
        self.sent.append(Close(code, reason or ""))


class Service:
    """What the hub asks of the room service when it is made."""

    def __init__(self) -> None:
        self.listeners: list[Callable[..., None]] = []
        self.board_watching: Callable[[str], bool] = lambda _code: False

    def add_listener(self, listener: Callable[..., None]) -> None:
        self.listeners.append(listener)


def hub_and_socket() -> tuple[Hub, Socket, Connection]:
    socket = Socket()
    hub = Hub(Service())  # type: ignore[arg-type]
    return hub, socket, Connection(socket, "ROOM")  # type: ignore[arg-type]


def writing(connection: Connection) -> bool:
    """Whether the socket's writer task runs (its frames wait for the transport)."""
    return connection.writer is not None


async def turns(count: int = 3) -> None:
    """Let the event loop run ``count`` turns (the flush runs at the next)."""
    for _ in range(count):
        await asyncio.sleep(0)


def test_a_sockets_frames_of_one_turn_leave_in_one_write_in_order() -> None:
    async def run() -> None:
        hub, socket, connection = hub_and_socket()
        for frame in ("a", "b", "c"):
            hub._post(connection, frame)
        assert socket.writes == [], "nothing leaves before the turn ends"
        await turns()
        hub._post(connection, "d")
        await turns()
        assert socket.writes == [["a", "b", "c"], ["d"]]
        assert socket.sent == [] and not writing(connection)

    asyncio.run(run())


def test_a_socket_that_takes_no_more_gets_its_frames_from_its_writer_in_order() -> None:
    async def run() -> None:
        hub, socket, connection = hub_and_socket()
        socket.takes = False
        socket.open.clear()  # its buffer is full: the writer waits
        hub._post(connection, "a")
        hub._post(connection, "b")
        await turns()
        assert writing(connection) and socket.writes == []
        hub._post(connection, "c")  # behind the waiting ones, not written at once
        hub._post(connection, Close(1008, "seat taken over"))
        socket.takes = True
        hub._post(connection, "d")
        socket.open.set()
        await turns(10)
        assert socket.sent == ["a", "b", "c", Close(1008, "seat taken over"), "d"]
        assert socket.writes == [] and not writing(connection)
        hub._post(connection, "e")  # nothing waits any more: at once again
        await turns()
        assert socket.writes == [["e"]]

    asyncio.run(run())


def test_a_close_frame_leaves_after_the_frames_of_its_turn() -> None:
    async def run() -> None:
        hub, socket, connection = hub_and_socket()
        hub._post(connection, "a")
        hub._post(connection, "b")
        hub._post(connection, Close(1008, "seat taken over"))
        await turns(10)
        assert socket.writes == []
        assert socket.sent == ["a", "b", Close(1008, "seat taken over")]

    asyncio.run(run())


def test_a_socket_gone_mid_write_is_cut_and_the_others_still_get_theirs() -> None:
    async def run() -> None:
        hub = Hub(Service())  # type: ignore[arg-type]
        gone, other = Socket(), Socket()
        gone.fails = True
        cut = Connection(gone, "ROOM")  # type: ignore[arg-type]
        kept = Connection(other, "ROOM")  # type: ignore[arg-type]
        hub._post(cut, "a")
        hub._post(kept, "a")
        await turns()
        assert cut.dropped and cut.unsent is None
        assert other.writes == [["a"]]
        hub._post(cut, "b")  # a cut socket is sent nothing more
        await turns()
        assert gone.writes == [] and other.writes == [["a"]]

    asyncio.run(run())


class LoggedSocket(Socket):
    """A socket that also writes what reaches it, with its name, to a log that several
    sockets share: the order in which they were written to."""

    def __init__(self, log: list[tuple[str, str]], name: str) -> None:
        super().__init__()
        self.log, self.name = log, name

    def send_text_now(self, texts: list[str], wire: WireFrames | None = None) -> bool:
        taken = super().send_text_now(texts)
        self.log.extend((self.name, text) for text in texts)
        return taken


def test_a_change_in_many_rooms_at_once_reaches_every_board_before_any_phone(
    client: TestClient,
) -> None:
    """One commit acknowledges the last seals of many rooms together: the boards, what the
    whole room watches, must not wait while every phone's whole view is built first."""
    hub: Hub = client.app.state.hub  # type: ignore[attr-defined]
    service = room_service(client)
    rooms: dict[str, list[str | None]] = {}
    for _ in range(3):
        code = create_room(client)["code"]
        rooms[code] = [None, *(join(client, code, name)["token"] for name in ("Ann", "Ben"))]
    written: list[tuple[str, str]] = []

    async def run() -> None:
        lives = [await service.room(code) for code in rooms]
        connections = []
        for live in lives:
            for token in rooms[live.code]:
                name = "board" if token is None else "phone"
                socket = LoggedSocket(written, name)
                connection = Connection(socket, live.code, token=token)  # type: ignore[arg-type]
                hub.connect(live, connection)
                connections.append(connection)
        await turns(10)
        written.clear()
        for live in lives:  # in one turn of the event loop, as one commit's rooms go on
            service.tell(live)
        await turns(10)
        for connection in connections:
            hub.disconnect(connection)

    assert client.portal is not None
    client.portal.call(run)
    order = [name for name, _text in written]
    assert order.count("board") == 3 and order.count("phone") == 6, order
    assert order.index("phone") > max(i for i, name in enumerate(order) if name == "board"), order
    views = [json.loads(text) for _name, text in written]
    assert all(view["type"] == "view" for view in views), views
