"""Websockets: ``/ws/rooms/{code}?token=...`` for a phone, ``/ws/rooms/{code}/board`` for a board.

Frames from a phone are JSON objects:
``{"type": "order", "order": {...}}``, ``{"type": "ready"}``, ``{"type": "lang", "lang": "cs"}``
and ``{"type": "ping"}``. A page's htmx form sends its fields instead (with ``HEADERS``); the
pages module turns those into the same messages. The server sends ``{"type": "view", ...}`` on
every (re)connect and whenever the view changes, and ``{"type": "error", "detail", "code"}``
when a frame is refused. With ``format=html`` the same frames come as HTML fragments.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from app.hub import POLICY_VIOLATION, Connection, Hub
from app.rooms import LiveRoom, RoomError, RoomNotFound, RoomService
from engine.core import JSON

router = APIRouter()

MAX_FRAME = 64 * 1024
FormTranslator = Callable[[LiveRoom, JSON], JSON]


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


@router.websocket("/ws/rooms/{code}")
async def phone_socket(
    websocket: WebSocket, code: str, token: str = "", format: str = "json", lang: str = "en"
) -> None:
    live = await _open_room(websocket, code)
    if live is None:
        return
    if live.seat_by_token(token) is None:
        await _refuse(websocket, "bad token")
        return
    await websocket.accept()
    connection = Connection(websocket, live.code, token=token, format=_format(format), lang=lang)
    await _serve(websocket, _rooms(websocket), live, connection)


@router.websocket("/ws/rooms/{code}/board")
async def board_socket(
    websocket: WebSocket, code: str, format: str = "json", lang: str = "en", host: str = ""
) -> None:
    live = await _open_room(websocket, code)
    if live is None:
        return
    await websocket.accept()
    connection = Connection(
        websocket, live.code, format=_format(format), lang=lang, host=live.is_host(host)
    )
    await _serve(websocket, _rooms(websocket), live, connection)


def _format(requested: str) -> str:
    return "html" if requested == "html" else "json"


async def _serve(
    websocket: WebSocket, rooms: RoomService, live: LiveRoom, connection: Connection
) -> None:
    hub = _hub(websocket)
    hub.connect(live, connection)
    try:
        await hub.send_view(live, connection)
        while True:
            text = await websocket.receive_text()
            await _handle(websocket, rooms, hub, live, connection, text)
    except WebSocketDisconnect:
        pass
    finally:
        hub.disconnect(connection)


async def _handle(
    websocket: WebSocket,
    rooms: RoomService,
    hub: Hub,
    live: LiveRoom,
    connection: Connection,
    text: str,
) -> None:
    message = _parse(text)
    if message is None:
        await hub.send_error(live, connection, "malformed", "Frames must be JSON objects.")
        return
    if "HEADERS" in message:
        translate: FormTranslator | None = getattr(websocket.app.state, "translate_form", None)
        message = translate(live, message) if translate else {}
    kind = message.get("type")
    if kind == "ping":
        await hub.send_message(connection, {"type": "pong"})
        return
    if connection.is_board:
        if kind == "sync":
            await hub.send_view(live, connection)
            return
        await hub.send_error(live, connection, "read_only", "A board only watches.")
        return
    try:
        if kind == "order":
            await rooms.submit(live.code, connection.token, message.get("order"))
        elif kind == "ready":
            await rooms.play_again(live.code, connection.token)
        elif kind == "lang":
            await rooms.set_language(live.code, connection.token, str(message.get("lang")))
            connection.lang = str(message.get("lang"))
            await hub.send_view(live, connection)
        elif kind == "sync":
            await hub.send_view(live, connection)
        else:
            await hub.send_error(
                live, connection, "unknown_type", "Unknown frame type; use order, ready or ping."
            )
    except RoomError as refusal:
        await hub.send_error(live, connection, refusal.code, refusal.detail)


def _parse(text: str) -> dict[str, Any] | None:
    if len(text) > MAX_FRAME:
        return None
    try:
        message = json.loads(text)
    except ValueError:
        return None
    return message if isinstance(message, dict) else None
