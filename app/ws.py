"""Websockets: ``/ws/rooms/{code}`` for a phone, ``/ws/rooms/{code}/board`` for a board.

A phone proves its seat with the seat's token, a board its host with the host token: the pages
send them in their cookies (``pecet_seat_{code}``, ``pecet_host_{code}``), so no token is ever
in a URL that a log could print (issue 13.3); API clients may send ``Authorization: Bearer``
or, as before, ``?token=`` (a phone) and ``?host=`` (a board).

Frames from a phone are JSON objects:
``{"type": "order", "order": {...}}``, ``{"type": "ready"}``, ``{"type": "lang", "lang": "cs"}``
and ``{"type": "ping"}`` (answered by ``{"type": "pong"}``, or by the whole view when the room
changed since the last view this socket was sent: a page that has heard nothing for a while
pings, and so catches up with whatever did not reach it). An order may say which view its
sheet was drawn from, ``"version": N`` (the view's ``version``) and ``"match": M``: a sheet
for a decision the table has left behind is refused with ``stale`` and the fresh view
follows (issue 13.10; a decision whose options another seat narrowed is not left behind);
an order without them is judged as it comes. A page's htmx form sends
its fields instead (with ``HEADERS``); the pages module turns those into the same messages.
The server sends ``{"type": "view", ...}`` on every (re)connect and whenever the view
changes, except when a seat sealed an order and nothing else moved: then a small notice
``{"type": "sealed", "seat", "commitment", "match", "version", "to_act", "patch"}`` says so
(``patch``, an RFC 6902 JSON Patch, brings the view up to date: its ``version``, ``to_act``,
``commitments`` and the game's marks of a sealed seat; nothing else of another seat's view
changes on a seal, but for the ``prompt`` of a seat whose options the seal narrowed, which
its notice sets (Heirs' setup: a colour taken); the sealer's own notice also sets its
``my_commitment`` and ``prompt`` and what changed in its own view). While the board plays
a resolution out, every step after the first comes as
``{"type": "step", "match", "version", "step", "patch"}`` to a socket whose view stands at
an earlier step of it (``patch`` sets ``show``, adds the steps' events, to a phone's
``events`` and as a board's ``playback`` entries, and changes ``view``); any other socket
gets the whole view. A JSON view leaves out the match's log (``history`` over
HTTP): it comes just before the view in ``{"type": "log", "match", "from", "rounds"}``
frames, the whole log on a (re)connect and later only what is new (the rounds from index
``from`` on replace the client's; a new ``match`` starts over), so a view stays the size of
the position. The server also sends ``{"type": "error", "detail", "code"}`` (and ``params``
where an engine's refusal has them) when a frame is refused. With ``format=html`` the same
frames come as HTML fragments.

A phone whose seat the host hands to a bot mid-game keeps its socket, and from then on it
is sent what a seat sitting the match out sees (the board's public view, the result), with
``you.handed`` true and nothing of the seat's own; its orders are refused. A socket whose
seat was taken back on another phone, or removed in the lobby, gets an error frame
(``kicked``, ``removed``) and is closed with 1008.

No frame closes the socket (issue 13.5): a binary frame, one over 64 KiB, one that is not a
JSON object or nests deeper than 32 levels, one of an unknown type, or one the server fails
on gets an error frame, and the socket goes on serving.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import urlsplit

from fastapi import WebSocket, WebSocketDisconnect

from app import i18n
from app.errors import RoomError, RoomNotFound
from app.hub import POLICY_VIOLATION, Connection, Hub
from app.limits_http import MAX_JSON_DEPTH, json_depth_exceeds
from app.live import LiveRoom, hash_token
from app.pages import HOST_COOKIE, SEAT_COOKIE
from app.rooms import RoomService
from engine.core import JSON

log = logging.getLogger("pecet.ws")

MAX_FRAME = 64 * 1024
"""The longest text frame a socket takes; an order is a few hundred bytes. Its nesting is
bounded as a request body's is (``MAX_JSON_DEPTH``)."""
FormTranslator = Callable[[LiveRoom, JSON], JSON]


class FrameRefused(Exception):
    """A frame the socket answers with an error frame before any room code sees it."""

    def __init__(self, code: str, detail: str) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail


def _hub(websocket: WebSocket) -> Hub:
    hub: Hub = websocket.app.state.hub
    return hub


def _rooms(websocket: WebSocket) -> RoomService:
    rooms: RoomService = websocket.app.state.rooms
    return rooms


async def _refuse(websocket: WebSocket, reason: str) -> None:
    # Accept first so that every client, browser or library, sees the 1008 close code.
    await websocket.accept()
    await websocket.close(POLICY_VIOLATION, reason)


async def _open_room(websocket: WebSocket, code: str) -> LiveRoom | None:
    """The room this socket asks for; a socket for an unknown room is closed with 1008."""
    try:
        return await _rooms(websocket).room(code)
    except RoomNotFound:
        await _refuse(websocket, "no such room")
        return None


async def phone_socket(websocket: WebSocket, code: str) -> None:
    live = await _open_room(websocket, code)
    if live is None:
        return
    query = websocket.query_params
    token = _credential(websocket, query.get("token", ""), SEAT_COOKIE.format(code=live.code))
    if live.phone_seat(token) is None:
        await _refuse(websocket, "bad token")
        return
    await websocket.accept()
    connection = Connection(
        websocket,
        live.code,
        token=token,
        format=_format(query.get("format", "json")),
        lang=query.get("lang", "en"),
    )
    await _serve(websocket, _rooms(websocket), live, connection)


async def board_socket(websocket: WebSocket, code: str) -> None:
    live = await _open_room(websocket, code)
    if live is None:
        return
    query = websocket.query_params
    host = _credential(websocket, query.get("host", ""), HOST_COOKIE.format(code=live.code))
    await websocket.accept()
    connection = Connection(
        websocket,
        live.code,
        format=_format(query.get("format", "json")),
        lang=query.get("lang", "en"),
        host_token_hash=hash_token(host) if live.is_host(host) else "",
    )
    await _serve(websocket, _rooms(websocket), live, connection)


SocketHandler = Callable[[WebSocket, str], Awaitable[None]]
ROOM_SOCKET = re.compile(r"/ws/rooms/(?P<code>[^/]+)(?P<board>/board)?")


def room_socket(path: str) -> tuple[SocketHandler, str] | None:
    """The handler of a room's socket at ``path`` and the room code in it; ``None`` for any
    other path.

    The app calls it before its HTTP stack (app/main.py, ``PecetApp``): a socket lives as
    long as its phone stays at the table, and every layer it passed on its way in
    (middlewares, routing, dependency solving) kept a coroutine and its state alive for as
    long, about 12 KiB a socket (bench/load.py, memory per idle room)."""
    matched = ROOM_SOCKET.fullmatch(path)
    if matched is None:
        return None
    handler = board_socket if matched["board"] else phone_socket
    return handler, matched["code"]


def _credential(websocket: WebSocket, from_query: str, cookie: str) -> str:
    """The token a socket presents: the URL's (API clients, as documented before), else an
    ``Authorization: Bearer`` header, else the page's cookie."""
    if from_query:
        return from_query
    scheme, _, bearer = websocket.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and bearer.strip():
        return bearer.strip()
    if not _same_origin(websocket):
        # A page of another site may open a socket here, and the browser would send this
        # site's cookies with it: a cookie proves a seat only to this site's own pages.
        return ""
    return websocket.cookies.get(cookie, "")


def _same_origin(websocket: WebSocket) -> bool:
    """Whether the page that opened the socket came from this server (browsers always send
    ``Origin`` on a websocket handshake; clients that are not browsers may send none)."""
    origin = websocket.headers.get("origin")
    return origin is None or urlsplit(origin).netloc == websocket.headers.get("host", "")


def _format(requested: str) -> str:
    return "html" if requested == "html" else "json"


def _language(connection: Connection) -> str:
    # Normalised first: the catalogs are cached by name, and ?lang= is whatever a client sent.
    return i18n.normalize_language(connection.lang) or i18n.DEFAULT_LANGUAGE


async def _serve(
    websocket: WebSocket, rooms: RoomService, live: LiveRoom, connection: Connection
) -> None:
    hub = _hub(websocket)
    connection.serving = asyncio.current_task()
    hub.connect(live, connection)
    failures = 0
    try:
        hub.send_view(live, connection)
        while not connection.dropped:
            connection.receiving = True
            try:
                frame = await websocket.receive()
            except asyncio.CancelledError:
                if not connection.was_dropped():
                    raise  # the server is stopping
                # Dropped by the hub (a stalled socket): returning lets the server cut it.
                if (task := asyncio.current_task()) is not None:
                    task.uncancel()
                return
            finally:
                connection.receiving = False
            if frame["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(frame.get("code", 1000), frame.get("reason"))
            try:
                message = _parse(frame.get("text"), _language(connection))
                await _handle(websocket, rooms, hub, live, connection, message)
            except FrameRefused as refused:
                hub.send_error(live, connection, refused.code, refused.detail)
            except WebSocketDisconnect:
                raise
            except Exception:
                # A bug met by a strange frame must cost this frame only, not the socket;
                # one traceback per socket is enough to find it, a flood must not fill the log.
                failures += 1
                if failures == 1:
                    log.exception("a frame failed on a socket of room %s", live.code)
                with i18n.use_language(_language(connection)):
                    detail = i18n.gettext("The server could not handle that message.")
                hub.send_error(live, connection, "invalid", detail)
    except WebSocketDisconnect:
        pass
    finally:
        if failures > 1:
            log.warning("%s more frames failed on that socket of room %s", failures - 1, live.code)
        hub.disconnect(connection)


async def _handle(
    websocket: WebSocket,
    rooms: RoomService,
    hub: Hub,
    live: LiveRoom,
    connection: Connection,
    message: dict[str, Any],
) -> None:
    if "HEADERS" in message:
        translate: FormTranslator | None = getattr(websocket.app.state, "translate_form", None)
        message = translate(live, message) if translate else {}
    kind = message.get("type")
    if kind == "ping":
        hub.answer_ping(live, connection)
        return
    if connection.is_board:
        if kind == "sync":
            hub.send_view(live, connection)
            return
        hub.send_error(live, connection, "read_only", "A board only watches.")
        return
    try:
        if kind == "order":
            # Which view the sheet was drawn from, when the frame says (issue 13.10).
            drawn_at = {
                keyword: message[field]
                for field, keyword in (("version", "version"), ("match", "match_number"))
                if message.get(field) is not None
            }
            if not await rooms.submit(
                live.code, connection.token, message.get("order"), **drawn_at
            ):
                hub.send_view(live, connection)  # sealed already: its view says so
        elif kind == "ready":
            await rooms.play_again(live.code, connection.token)
        elif kind == "lang":
            # A phone whose seat a bot plays now switches only its own page: the seat is
            # not its own to set.
            held = live.phone_seat_by_hash(connection.token_hash)
            if held is None or not held[1]:
                await rooms.set_language(live.code, connection.token, str(message.get("lang")))
            connection.lang = str(message.get("lang"))
            hub.send_view(live, connection)
        elif kind == "sync":
            hub.send_view(live, connection)
        else:
            hub.send_error(
                live, connection, "unknown_type", "Unknown frame type; use order, ready or ping."
            )
    except RoomError as refusal:
        hub.send_error(live, connection, refusal.code, refusal.detail, refusal.params)
        if refusal.code == "stale":  # the sheet the phone should have had
            hub.send_view(live, connection)


def _parse(text: str | None, lang: str) -> dict[str, Any]:
    """The JSON object a text frame carries; raises :class:`FrameRefused` for anything else,
    told in ``lang`` (entered only then: every phone's order passes here)."""
    if text is None:
        with i18n.use_language(lang):
            raise FrameRefused("binary", i18n.gettext("Frames must be text: JSON objects."))
    if len(text) > MAX_FRAME:
        with i18n.use_language(lang):
            detail = i18n.gettext("Frames are at most %(size)s KiB.") % {"size": MAX_FRAME // 1024}
            raise FrameRefused("too_large", detail)
    try:
        # json.loads recurses: 30,000 "[" in 64 KiB exhaust its stack.
        message = json.loads(text)
    except (ValueError, RecursionError):
        message = None
    if not isinstance(message, dict) or json_depth_exceeds(message, MAX_JSON_DEPTH, text):
        with i18n.use_language(lang):
            raise FrameRefused("malformed", i18n.gettext("Frames must be JSON objects."))
    return message
