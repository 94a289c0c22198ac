"""Websocket connections of every room: phones by seat, boards; each gets only its own view."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import orjson
from starlette.websockets import WebSocket, WebSocketState

from app.live import Change, LiveRoom, hash_token
from app.payloads import DiffMemo, Payloads
from app.rooms import RoomService
from app.socket_protocol import SEND_NOW, WireFrames
from engine.core import JSON

log = logging.getLogger("pecet.hub")

POLICY_VIOLATION = 1008
TRY_AGAIN_LATER = 1013
"""A close code the pages' websocket extension reconnects after (1001 it would not)."""
SEND_TIMEOUT = 10.0
"""Seconds a frame may take to leave; a socket slower than that is dropped at the room's
next change (it reconnects). One that never reads again without a change to tell it is
cut by the server's keepalive (a ping unanswered)."""
PONG = '{"type": "pong"}'
CLOSE_TIMEOUT = 1.0
"""Seconds a dropped socket's close frame may take to leave before the connection is cut."""

ERROR_TEXTS = {
    "kicked": "This seat is played elsewhere now: by a bot, or by your own other phone. "
    "Come back with your name and seat PIN.",
    "removed": "The host removed you from this room. You may join it again.",
}

HtmlRenderer = Callable[[LiveRoom, JSON, "Connection"], str]
"""Renders a payload (already a view) as the HTML fragment a page swaps in."""


class Close(NamedTuple):
    """A close frame queued behind a socket's frames (a seat taken over)."""

    code: int
    reason: str


Outgoing = str | Close


HOST_MOVED = "The host's controls moved to another screen, with the host's PIN."
"""What a board that held the host's controls is told when another screen takes them."""


@dataclass(eq=False)
class Connection:
    websocket: WebSocket
    code: str
    token: str | None = None
    """The seat's token; ``None`` for a board."""
    token_hash: str | None = field(init=False, default=None)
    """``hash_token(token)``, as seats are found by it (once, not at every change)."""
    format: str = "json"
    lang: str = "en"
    host_token_hash: str = ""
    """A board's: the hash of the host token it proved when it connected ("" if none). It
    shows the host's view while that is the room's host token: a host who took the controls
    to another screen (``RoomService.reclaim_host``) takes them from this one."""
    seat: int | None = None
    """The room seat of a phone when it connected."""
    seat_row: int | None = None
    """The database row of that seat: what its presence is counted on (the board shows who
    is away). A seat keeps its row when the host moves it in the lobby, not its number."""
    room: LiveRoom | None = None
    seen: int = -1
    """The room's change (``LiveRoom.changes``) whose view this socket has been sent (or
    has queued: frames leave in the order they are queued)."""
    log: Log | None = None
    """The match's log as this (JSON) socket holds it: views leave it out, ``log`` frames
    bring only what is new."""
    shown: tuple[int, int, int] | None = None
    """(match, round, step) of the board's show that this socket's view stands at; a
    ``step`` frame moves it on from there."""
    serving: asyncio.Task[Any] | None = None
    """The task that reads the socket's frames (app/ws.py); ending it cuts the connection."""
    receiving: bool = False
    """Whether that task waits for the next frame (not in the middle of a command)."""
    dropped: bool = False
    """The socket stalled: no more frames for it, and its connection is cut."""
    outbox: list[Outgoing] | None = None
    """Frames queued and not yet handed to the socket, oldest first (``None``: none)."""
    writer: asyncio.Task[None] | None = None
    """The task handing the outbox's frames to the socket, while there are any."""
    sending_since: float | None = None
    """When the frame the writer is handing over was handed (monotonic seconds)."""
    send_now: Callable[[list[str], WireFrames], bool] | None = field(init=False, default=None)
    """Writes text frames at once if the socket takes them now (``SocketProtocol``'s
    ``send_text_now``; ``None`` for a socket that does not offer it, as a test client's)."""
    unsent: list[str] | None = None
    """Frames of this turn of the event loop, written together at its end (``Hub._flush``)."""
    view_due: bool = False
    """A phone's whole view waits to be built after the boards' frames (``Hub._defer_view``)."""

    def hosts(self, live: LiveRoom) -> bool:
        """Whether this board holds the room's host token now."""
        return bool(self.host_token_hash) and secrets.compare_digest(
            self.host_token_hash, live.host_token_hash
        )

    def was_dropped(self) -> bool:
        """Whether :meth:`drop` was called (read after a wait, when it may have been)."""
        return self.dropped

    def drop(self) -> None:
        """Cut the connection: the task reading it ends (at once if it only waits for a
        frame, else after its command), and the server closes the TCP connection. A close
        frame cannot be relied on: it waits behind the frames that stalled."""
        self.dropped = True
        if self.receiving and self.serving is not None:
            self.serving.cancel()

    def __post_init__(self) -> None:
        self.token_hash = None if self.token is None else hash_token(self.token)
        self.send_now = self.websocket.scope.get("extensions", {}).get(SEND_NOW)

    @property
    def is_board(self) -> bool:
        return self.token is None


class Hub:
    def __init__(
        self,
        service: RoomService,
        render_html: HtmlRenderer | None = None,
        send_timeout: float = SEND_TIMEOUT,
    ) -> None:
        self.service = service
        self.render_html = render_html
        self.send_timeout = send_timeout
        self._rooms: dict[str, set[Connection]] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._unsent: list[Connection] = []
        """The sockets with frames for :meth:`_flush` (``Connection.unsent``)."""
        self._flushing: asyncio.Handle | None = None
        self._due_views: dict[Connection, tuple[LiveRoom, Frames]] = {}
        """Phones whose whole view :meth:`_send_due_views` builds (``Connection.view_due``)."""
        self._sending_due: asyncio.Handle | None = None
        service.add_listener(self.broadcast)
        service.board_watching = self.has_board

    def connect(self, live: LiveRoom, connection: Connection) -> None:
        self._rooms.setdefault(connection.code, set()).add(connection)
        connection.room = live
        if connection.is_board:
            self.service.board_socket(live, opened=True)
        seat = None if connection.is_board else live.seat_by_hash(connection.token_hash)
        if seat is not None:
            connection.seat, connection.seat_row = seat.position, seat.row_id
            self.service.phone_socket(live, seat.row_id, opened=True)

    def disconnect(self, connection: Connection) -> None:
        connections = self._rooms.get(connection.code)
        if connections is None or connection not in connections:
            return
        connections.discard(connection)
        if not connections:
            del self._rooms[connection.code]
        if connection.room is None:
            return
        if connection.is_board:
            self.service.board_socket(connection.room, opened=False)
        elif connection.seat_row is not None:
            self.service.phone_socket(connection.room, connection.seat_row, opened=False)

    def count(self, code: str) -> int:
        return len(self._rooms.get(code, ()))

    def has_board(self, code: str) -> bool:
        return any(c.is_board for c in self._rooms.get(code, ()))

    def payload_for(
        self, live: LiveRoom, connection: Connection, frames: Frames | None = None
    ) -> JSON | None:
        """The view this connection may see, or ``None`` if its seat is gone; built on
        the room's part of the views of ``frames``' change, once for all its sockets."""
        payloads = self.service.payloads
        room = None
        if frames is not None and frames.number == live.changes:
            if frames.room is None:
                frames.room = payloads.room_payload(live)
            room = frames.room
        if connection.is_board:
            return payloads.board_payload(live, host=connection.hosts(live), room=room)
        held = live.phone_seat_by_hash(connection.token_hash)
        if held is None:
            return None
        seat, handed = held
        return payloads.seat_payload(live, seat, room=room, handed=handed)

    def send_view(self, live: LiveRoom, connection: Connection) -> None:
        """The connection's whole view as the room stands now."""
        self._send_view(live, connection, None)

    def _send_view(self, live: LiveRoom, connection: Connection, frames: Frames | None) -> None:
        number = live.changes
        built = self._view_frame(live, connection, frames)
        if built is None:
            gone = "removed" if connection.token_hash in live.removed else "kicked"
            self._post(connection, self._error_text(live, connection, gone))
            self._post(connection, Close(POLICY_VIOLATION, "seat taken over"))
            self.disconnect(connection)
            return
        text, log, shown = built
        if log is not None:  # first: with the view, the client's copy is whole
            news = log.news_since(connection.log)
            if news is not None:
                self._post(connection, dumps(news))
            connection.log = log
        self._post(connection, text)
        connection.seen = number
        connection.shown = shown

    def _view_frame(
        self, live: LiveRoom, connection: Connection, frames: Frames | None
    ) -> tuple[str, Log | None, tuple[int, int, int] | None] | None:
        """The frame of this connection's view, built once per change for all the sockets
        that get the same one (the boards; a seat's several phones), and for a JSON socket
        the match's log apart and the show's step the view stands at; ``None`` when the
        connection's seat is gone."""
        viewer = self._viewer(live, connection)
        if viewer is None:
            return None
        key = viewer[0]
        html = connection.format == "html" and self.render_html is not None
        if html:
            key = (*key, "html", connection.lang)
        if frames is not None and frames.number == live.changes and key in frames.texts:
            return frames.texts[key]
        payload = self.payload_for(live, connection, frames)
        if payload is None:
            return None
        built: tuple[str, Log | None, tuple[int, int, int] | None]
        if html:
            assert self.render_html is not None
            built = self.render_html(live, payload, connection), None, None
        else:
            # The log grows all match long: sent on its own, and only what is new, so that
            # a view stays the size of the position, not of the evening.
            log = Log(payload["match"], payload.pop("history"))
            show = payload["show"]
            shown = None if show is None else (payload["match"], show["round"], show["step"])
            built = dumps({"type": "view", **payload}), log, shown
        if frames is not None and frames.number == live.changes:
            frames.texts[key] = built
        return built

    @staticmethod
    def _viewer(
        live: LiveRoom, connection: Connection
    ) -> tuple[tuple[object, ...], int | None] | None:
        """Which view the connection gets, as a key shared by the sockets that get the same
        (a board's: the host's shows the PINs; or its seat's), with the room seat whose token
        it holds (``None`` for a board, and for a phone whose seat the host handed to a bot:
        it watches); ``None`` when its seat is gone."""
        if connection.is_board:
            return ("board", connection.hosts(live)), None
        held = live.phone_seat_by_hash(connection.token_hash)
        if held is None:
            return None
        seat, handed = held
        if handed:
            return ("handed", seat.position), None
        return ("seat", seat.position), seat.position

    def answer_ping(self, live: LiveRoom, connection: Connection) -> None:
        """A pong; or the whole view, if the room changed since the last view this socket
        was sent (a change the hub was not told of)."""
        if connection.seen < live.changes:
            self._send_view(live, connection, None)
        else:
            self._post(connection, PONG)

    def send_error(
        self,
        live: LiveRoom,
        connection: Connection,
        code: str,
        detail: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> None:
        """An error frame; ``params`` fill in the message where a client translates it by
        ``code`` (a page does: the phone reads the refusal in its own language)."""
        self._post(connection, self._error_text(live, connection, code, detail, params))

    def _error_text(
        self,
        live: LiveRoom,
        connection: Connection,
        code: str,
        detail: str | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> str:
        detail = detail or ERROR_TEXTS.get(code, code)
        error: JSON = {"type": "error", "code": code, "detail": detail}
        if params:
            error["params"] = dict(params)
        if connection.format == "html" and self.render_html is not None:
            return self.render_html(live, error, connection)
        # default=str: an engine's params are meant as JSON, but a frame must never fail on one.
        return json.dumps(error, default=str)

    def _post(self, connection: Connection, frame: Outgoing) -> None:
        """Send a frame to the socket, or queue it: frames leave in the order they are
        queued, each socket at its own pace, so a socket that stalls holds up only itself.
        Nothing waits here: every frame of a change is built at once, from the room as the
        change left it. A socket with nothing queued gets its frames of this turn of the
        event loop in one write at the turn's end, if it takes more then (nearly always);
        otherwise one task per socket hands its frames over while it has any."""
        if connection.dropped:
            return
        if connection.websocket.application_state != WebSocketState.CONNECTED:
            return
        since = connection.sending_since
        if since is not None and time.monotonic() - since > self.send_timeout:
            self._give_up(connection)
            return
        if (
            connection.outbox is None
            and connection.writer is None
            and connection.send_now is not None
            and isinstance(frame, str)
        ):
            # Nothing waits before it: written at the end of this turn of the event loop,
            # with the socket's other frames of the turn.
            if connection.unsent is None:
                connection.unsent = [frame]
                self._unsent.append(connection)
                if self._flushing is None:
                    self._flushing = asyncio.get_running_loop().call_soon(self._flush)
            else:
                connection.unsent.append(frame)
            return
        if connection.unsent:  # they leave first, by the writer
            connection.outbox, connection.unsent = (
                [*connection.unsent, *(connection.outbox or [])],
                None,
            )
        if connection.outbox is None:
            connection.outbox = [frame]
        else:
            connection.outbox.append(frame)
        if connection.writer is None:
            connection.writer = asyncio.get_running_loop().create_task(self._write(connection))

    def _flush(self) -> None:
        """Write each socket's frames of this turn of the event loop, in one write a socket;
        a socket that takes no more now gets them by its writer."""
        self._flushing = None
        connections, self._unsent = self._unsent, []
        wire = WireFrames()  # a frame shared by many sockets is encoded once
        for connection in connections:
            frames, connection.unsent = connection.unsent, None
            try:
                self._write_now(connection, frames, wire)
            except Exception:  # one socket's fault must not keep the others' frames
                log.exception("the frames of a socket of room %s were not written", connection.code)

    def _write_now(
        self, connection: Connection, frames: list[str] | None, wire: WireFrames
    ) -> None:
        if not frames or connection.dropped or connection.send_now is None:
            return
        try:
            if connection.send_now(frames, wire):
                return
        except Exception:  # a phone gone mid-write: as in _write
            self._cut(connection)
            return
        connection.outbox = [*frames, *(connection.outbox or [])]
        if connection.writer is None:
            connection.writer = asyncio.get_running_loop().create_task(self._write(connection))

    async def _write(self, connection: Connection) -> None:
        """Hand the socket its queued frames, oldest first, until none is left."""
        try:
            while (batch := connection.outbox) is not None:
                connection.outbox = None
                for frame in batch:
                    connection.sending_since = time.monotonic()
                    if isinstance(frame, Close):
                        await connection.websocket.close(frame.code, frame.reason)
                    else:
                        await connection.websocket.send_text(frame)
                    connection.sending_since = None
        except asyncio.CancelledError:
            if not connection.dropped:
                raise  # the server is stopping
        except Exception:  # a phone that went to sleep mid-send: gone, it reconnects
            connection.sending_since = None
            self._cut(connection)
        finally:
            connection.writer = None

    def _give_up(self, connection: Connection) -> None:
        """A frame of this socket has waited longer than ``send_timeout`` to leave: worth
        an operator's look, and the socket is cut."""
        log.warning(
            "dropping a %s socket of room %s: a frame did not leave in %s s",
            "board" if connection.is_board else "phone",
            connection.code,
            self.send_timeout,
        )
        writer = connection.writer
        self._cut(connection)
        if writer is not None:
            writer.cancel()  # it waits for room in the socket's buffer that never comes

    def _cut(self, connection: Connection) -> None:
        """Cut, not just forget: the page sees its connection end, reconnects and is sent
        the present, where a socket left open would wait for frames that never come."""
        self.disconnect(connection)
        connection.dropped = True
        connection.outbox = connection.unsent = None
        closing = asyncio.get_running_loop().create_task(self._close(connection))
        # The loop keeps only weak references to tasks: held until done.
        self._closing.add(closing)
        closing.add_done_callback(self._closing.discard)

    @staticmethod
    async def _close(connection: Connection) -> None:
        # A close frame may never leave (it queues behind the stalled ones): then the
        # connection is cut without it.
        with contextlib.suppress(Exception):
            await asyncio.wait_for(connection.websocket.close(TRY_AGAIN_LATER), CLOSE_TIMEOUT)
        connection.drop()

    def broadcast(self, live: LiveRoom, change: Change) -> None:
        """Tell every socket of the room of ``change``: a new view each, built once per
        distinct view; only a small notice where a seat's sealing is all that changed."""
        connections = list(self._rooms.get(live.code, ()))
        if change.boards_only:
            for connection in connections:
                if not connection.is_board and connection.seen == change.number - 1:
                    connection.seen = change.number  # a phone's view did not change
            connections = [c for c in connections if c.is_board]
        frames = Frames(change.number)
        # Boards first: their frames leave first (the sockets' writers run in the order
        # they were started), and the board is what the whole room watches.
        connections.sort(key=lambda connection: not connection.is_board)
        for connection in connections:
            self._tell(live, connection, change, frames)

    def _tell(self, live: LiveRoom, connection: Connection, change: Change, frames: Frames) -> None:
        if connection.host_token_hash and not connection.hosts(live):
            # The host took the controls to another screen: this one gets the board without
            # them, then is told why they went, once (a host whose PIN another used would
            # not know). The view first: a page's view brings an empty error line.
            connection.host_token_hash = ""
            self._send_view(live, connection, frames)
            self.send_error(live, connection, "host_moved", HOST_MOVED)
            return
        if connection.seen >= live.changes:
            return  # it already has the newest view (sent on its own, or by a later change)
        if self._notice_will_do(live, connection, change):
            assert change.sealed is not None
            payloads = self.service.payloads
            if connection.seat in change.narrowed:
                viewer = self._viewer(live, connection)
                if viewer is None or viewer[1] != connection.seat:
                    self._send_view(live, connection, frames)  # it watches: no prompt of its own
                    return
                notice = frames.narrowed.get(connection.seat)
                if notice is None:
                    own_prompt = payloads.seal_notice(
                        live, change.sealed, prompt_of=connection.seat
                    )
                    notice = frames.narrowed[connection.seat] = dumps(own_prompt)
            elif connection.seat != change.sealed:
                if frames.notice is None:
                    frames.notice = dumps(payloads.seal_notice(live, change.sealed))
                notice = frames.notice
            else:
                viewer = self._viewer(live, connection)
                if viewer is None or viewer[1] != change.sealed:
                    # The seat is played elsewhere now: its own news is not for this
                    # socket, which the whole view turns away.
                    self._send_view(live, connection, frames)
                    return
                if frames.own_notice is None:
                    own = payloads.seal_notice(live, change.sealed, before=change.before)
                    frames.own_notice = dumps(own)
                notice = frames.own_notice
            self._post(connection, notice)
            connection.seen = change.number
            return
        if self._page_unchanged(live, connection, change):
            connection.seen = change.number
            return
        if self._step_will_do(live, connection, change):
            step = self._step_frame(live, connection, frames)
            if step is not None:
                text, connection.shown = step
                if text is not None:
                    self._post(connection, text)
                connection.seen = change.number
                return
        if connection.is_board:
            self._send_view(live, connection, frames)
        else:
            self._defer_view(live, connection, frames)

    def _defer_view(self, live: LiveRoom, connection: Connection, frames: Frames) -> None:
        """A phone's whole view, built once the changes at hand have reached the boards:
        a round resolved in many rooms at once (one commit acknowledges the last seals of
        them all) reaches every board before any phone's view of it is built, six of a
        room's seven, so a board waits for the other rooms' boards only. The phones wait
        for the board's show anyway. Built from the room as it then stands, it also covers
        any change made meanwhile."""
        if connection.view_due:
            return
        connection.view_due = True
        self._due_views[connection] = live, frames
        if self._sending_due is None:
            self._sending_due = asyncio.get_running_loop().call_soon(self._send_due_views)

    def _send_due_views(self) -> None:
        self._sending_due = None
        due, self._due_views = self._due_views, {}
        fresh: dict[str, Frames] = {}
        for connection, (live, frames) in due.items():
            connection.view_due = False
            if connection.seen >= live.changes or connection not in self._rooms.get(
                connection.code, ()
            ):
                continue  # a view sent meanwhile (a ping's), or the socket is gone
            if frames.number != live.changes:  # the room changed since: its views of now
                frames = fresh.get(live.code) or Frames(live.changes)
                fresh[live.code] = frames
            try:
                self._send_view(live, connection, frames)
            except Exception:  # one socket's fault must not keep the others' views
                log.exception("the view of a phone of room %s was not sent", connection.code)

    @staticmethod
    def _notice_will_do(live: LiveRoom, connection: Connection, change: Change) -> bool:
        """Whether a seal notice brings this socket's view up to date: the change is a
        seal and the newest, the socket had every view before it and it reads JSON (a page
        redraws its fragment whole); the sealer's own socket needs the state before the
        seal to be told what changed for it."""
        return (
            change.sealed is not None
            and _next_for(live, connection, change)
            and connection.format == "json"
            and (connection.seat != change.sealed or change.before is not None)
        )

    @staticmethod
    def _page_unchanged(live: LiveRoom, connection: Connection, change: Change) -> bool:
        """Whether a phone page still deciding stays as it is when another seat seals: the
        seal moved nobody else on (``change.sealed``), so the page's decision is the one it
        shows, and a fragment drawn again would differ only in the room's version, which
        its sheet needs not (a sheet of the same decision is taken, ``sheet_is_stale``).
        Drawing it again was most of what a seal cost: every phone's whole fragment. A page
        that has sealed is drawn again (it names who is still deciding)."""
        match = live.match
        if (
            change.sealed is None
            or not _next_for(live, connection, change)
            or connection.format != "html"
            or connection.seat is None
            or connection.seat == change.sealed
            or connection.seat in change.narrowed
            or match is None
            or match.showing
        ):
            return False
        seat = live.seat_by_hash(connection.token_hash)
        if seat is None or seat.position != connection.seat:
            return False  # the seat is played elsewhere now: the whole view turns it away
        engine_seat = match.engine_seat(seat.position)
        return engine_seat is not None and live.rules.prompt(match.state, engine_seat) is not None

    @staticmethod
    def _step_will_do(live: LiveRoom, connection: Connection, change: Change) -> bool:
        """Whether a ``step`` frame can bring this socket's view up to date: the change is
        the show going on and the newest, the socket had every view before it and reads
        JSON (a page redraws its fragment whole)."""
        return (
            change.show_step and _next_for(live, connection, change) and connection.format == "json"
        )

    def _step_frame(
        self, live: LiveRoom, connection: Connection, frames: Frames
    ) -> tuple[str | None, tuple[int, int, int]] | None:
        """The ``step`` frame that brings this socket's view from the step of the show it
        stands at to the step on the board now (one per view and starting step, shared),
        with the step it then stands at: no frame when it stands there already (a view sent
        just before came out at that step); ``None`` when it needs a whole view (its view
        is of another round, or its seat is gone)."""
        match, show = live.match, frames.show(self.service.payloads, live)
        held = connection.shown
        if match is None or show is None or held is None:
            return None
        shown = (match.number, show["round"], show["step"])
        if held[:2] != shown[:2] or held[2] > shown[2]:
            return None
        if held == shown:
            return None, shown
        viewer = self._viewer(live, connection)
        if viewer is None:
            return None
        (kind, *_), position = viewer
        # A step shows a board nothing of the host's own (the PINs): one frame for all boards.
        key = (kind, position, held[2])
        if key not in frames.steps:
            seat = None if position is None else match.engine_seat(position)
            payloads = self.service.payloads
            frame = payloads.step_frame(
                live, seat, board=connection.is_board, since=held[2], memo=frames.diffs, show=show
            )
            frames.steps[key] = None if frame is None else dumps(frame)
        text = frames.steps[key]
        return None if text is None else (text, shown)


def _next_for(live: LiveRoom, connection: Connection, change: Change) -> bool:
    """Whether ``change`` is the room's newest and the socket had every view before it:
    then what the change alone says may bring the socket up to date."""
    return change.number == live.changes and connection.seen == change.number - 1


@dataclass(eq=False)
class Frames:
    """The frames of one change, shared by every socket that gets the same one."""

    number: int
    texts: dict[tuple[object, ...], tuple[str, Log | None, tuple[int, int, int] | None]] = field(
        default_factory=dict
    )
    notice: str | None = None
    own_notice: str | None = None
    """The sealer's own notice (its patch brings its own view on)."""
    narrowed: dict[int, str] = field(default_factory=dict)
    """By room seat: the notice to a seat whose decision the seal narrowed (with its prompt)."""
    room: JSON | None = None
    """What the change's views hold alike (``Payloads.room_payload``), once built."""
    shown: tuple[JSON | None] | None = None
    """The show's step as :meth:`show` read it, once read (``None`` inside: no show)."""
    steps: dict[tuple[object, ...], str | None] = field(default_factory=dict)
    diffs: DiffMemo = field(default_factory=DiffMemo)
    """The step's views compared part by part, shared by its viewers."""

    def show(self, payloads: Payloads, live: LiveRoom) -> JSON | None:
        """Where the board's show stands at this change (``Payloads.show_json``): the
        clock read once for all the change's sockets."""
        if self.shown is None:
            self.shown = (payloads.show_json(live.match),)
        return self.shown[0]


@dataclass(frozen=True, eq=False)
class Log:
    """A match's log as one viewer may read it: its rounds, each ``{"round", "events"}``."""

    match: int | None
    rounds: list[JSON]

    def news_since(self, held: Log | None) -> JSON | None:
        """The ``log`` frame that brings ``held`` up to this log: the rounds from the first
        one that differs (``from``), or ``None`` when nothing is new. A new match starts
        the log again from 0."""
        if held is None and not self.rounds:
            return None  # a new socket holds no log: an empty one says nothing
        if held is None or held.match != self.match:
            start = 0
        else:
            start = 0
            # Within a match only the newest round grows; earlier ones never change.
            for old, new in zip(held.rounds, self.rounds, strict=False):
                if old["round"] != new["round"] or len(old["events"]) != len(new["events"]):
                    break
                start += 1
            if start == len(self.rounds) == len(held.rounds):
                return None
        return {"type": "log", "match": self.match, "from": start, "rounds": self.rounds[start:]}


def dumps(frame: JSON) -> str:
    """A frame's text (orjson: the views are the bulk of what the server does per seal).
    Keys that are not strings are allowed only when a frame has them (none did in the
    benchmark or the socket tests): orjson takes twice as long with them allowed."""
    try:
        return orjson.dumps(frame).decode()
    except TypeError:
        return orjson.dumps(frame, option=orjson.OPT_NON_STR_KEYS).decode()
