"""Reaching past the API into a TestClient's app: its room service, live rooms and order log.

``TestClient.app`` is typed as a bare ASGI app and ``TestClient.portal`` exists only inside
``with TestClient(...)``; these helpers check both once, so the tests get typed objects.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, TypeVar

from fastapi import FastAPI
from fastapi.testclient import TestClient
from sqlmodel import Session, col, select

from app.live import LiveMatch, LiveRoom
from app.models import Match, OrderLog
from app.rooms import RoomService

T = TypeVar("T")


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


def wait_for(condition: Callable[[], T | None], what: str, seconds: float = 20) -> T:
    """Poll until ``condition()`` gives something truthy and return it; fail with ``what``
    after ``seconds`` (a condition, never a fixed sleep)."""
    deadline = time.monotonic() + seconds
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def bots_have_sealed(live: LiveRoom, seconds: float = 20) -> None:
    """Wait until no bot seat has a decision open: bots seal on their own, each order
    committed apart, so a sheet drawn while they are at it may pick what a bot is taking."""
    bots = {seat.position for seat in live.seats if seat.is_bot}
    wait_for(lambda: not bots & set(live.to_act()), "the bots to seal", seconds)


def heirs_at_first_orders(client: TestClient, seed: int = 3) -> tuple[str, str, str]:
    """An Heirs room of Ann and a bot, setup sealed, at its first round of orders (the bot's
    sealed already):
    (code, host token, Ann's token)."""
    from engine.core import Rng
    from engine.registry import get_rules

    rules = get_rules("heirs")
    created = client.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = created["code"], created["host_token"]
    token = client.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).json()["token"]
    bearer = {"Authorization": f"Bearer {host}"}
    assert client.post(f"/api/rooms/{code}/bots", headers=bearer).status_code == 201
    assert client.post(f"/api/rooms/{code}/start", headers=bearer).status_code == 200
    live = live_room(client, code)
    bots_have_sealed(live)
    setup = rules.random_order(current_match(live).state, 0, Rng(seed))
    sealed = client.post(
        f"/api/rooms/{code}/orders", json=setup, headers={"Authorization": f"Bearer {token}"}
    )
    assert sealed.is_success, sealed.text
    wait_for(
        lambda: (rules.prompt(current_match(live).state, 0) or {}).get("kind") == "orders",
        "the first round of orders",
        10,
    )
    bots_have_sealed(live)  # the state a test reads (or changes) stays the room's own
    return code, host, token
