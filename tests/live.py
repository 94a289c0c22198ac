"""Reaching past the API into a TestClient's app: its room service, live rooms and order log.

``TestClient.app`` is typed as a bare ASGI app and ``TestClient.portal`` exists only inside
``with TestClient(...)``; these helpers check both once, so the tests get typed objects.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, col, select

from app.models import Match, OrderLog
from app.rooms import LiveMatch, LiveRoom, RoomService


def room_service(client: TestClient) -> RoomService:
    """The app's room service."""
    app = client.app
    assert isinstance(app, FastAPI)
    rooms: RoomService = app.state.rooms
    return rooms


def live_room(client: TestClient, code: str) -> LiveRoom:
    """The live room behind ``code``, fetched on the app's event loop."""
    portal = client.portal
    assert portal is not None, "use the TestClient inside a with block"
    return portal.call(room_service(client).room, code)


def current_match(live: LiveRoom) -> LiveMatch:
    """The room's match now (a tournament replaces it between games)."""
    assert live.match is not None, f"room {live.code} has no match"
    return live.match


def order_log(client: TestClient, code: str) -> tuple[Match, list[tuple[int, dict[str, Any]]]]:
    """The stored row of the room's current match and its orders, in the order given."""
    live = current_match(live_room(client, code))
    with Session(room_service(client).db) as session:
        match = session.get(Match, live.row_id)
        assert match is not None
        rows = session.exec(
            select(OrderLog).where(OrderLog.match_id == match.id).order_by(col(OrderLog.seq))
        ).all()
        return match, [(row.seat, row.order) for row in rows]
