"""Rooms end (issue 13.8): idle and finished rooms close on a schedule, their codes return to
the pool, old rows are deleted, creating a room reads no table, and a full pool says so."""

from __future__ import annotations

from datetime import timedelta

import sqlalchemy as core
from fastapi.testclient import TestClient
from sqlalchemy import (
    JSON,
    ColumnElement,
    DateTime,
    FromClause,
    Insert,
    insert,
    literal,
    true,
    union_all,
)
from sqlmodel import Session, col, func, select

from app.models import Match, OrderLog, Room, Seat, utcnow
from app.rooms import CODE_ALPHABET, CODE_LENGTH, ROOM_TOUCH_EVERY, ROOMS, Housekeeping
from tests.clock import ManualClock
from tests.live import room_service
from tests.play import auth, order_from_prompt


def started_room(client: TestClient) -> tuple[str, list[str]]:
    """A Hidden Leaders room with two seats, started: its code and the seats' tokens."""
    created = client.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    code, host = str(created["code"]), str(created["host_token"])
    tokens = [
        client.post(f"/api/rooms/{code}/seats", json={"name": name}).json()["token"]
        for name in ("Ann", "Ben")
    ]
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    return code, tokens


def seal_next(client: TestClient, code: str, tokens: list[str]) -> None:
    """The order of the seat whose turn it is, read off its prompt."""
    for token in tokens:
        prompt = client.get(f"/api/rooms/{code}/me", headers=auth(token)).json()["prompt"]
        if prompt:
            order = order_from_prompt(prompt)
            response = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
            assert response.status_code == 202, response.text
            return
    raise AssertionError("nobody to act")


def played_room(client: TestClient) -> str:
    """A Hidden Leaders room with two seats and a few orders in its log."""
    code, tokens = started_room(client)
    for _ in range(6):
        seal_next(client, code, tokens)
    return code


def count(session: Session, table: type[Room] | type[Seat] | type[Match] | type[OrderLog]) -> int:
    return int(session.exec(select(func.count()).select_from(table)).one())


def test_an_idle_room_closes_and_is_deleted_after_the_keeping_time(client: TestClient) -> None:
    service = room_service(client)
    idle = played_room(client)
    fresh = client.post("/api/rooms", json={"game": "legions"}).json()["code"]
    now = utcnow()

    # Nothing is old yet: a pass changes nothing.
    assert service.housekeep(now) == Housekeeping(closed=0, deleted=0)
    assert client.get(f"/api/rooms/{idle}").status_code == 200

    later = now + service.idle_after + timedelta(minutes=1)
    with Session(service.db) as session:  # the fresh room was touched just now
        room = session.exec(select(Room).where(Room.code == fresh)).one()
        room.updated_at = later
        session.add(room)
        session.commit()
    report = service.housekeep(later)
    assert report.closed == 1 and report.deleted == 0
    assert client.get(f"/api/rooms/{idle}").status_code == 404, "closed, gone from memory too"
    assert client.get(f"/api/rooms/{fresh}").status_code == 200
    with Session(service.db) as session:
        assert count(session, OrderLog) > 0, "a closed room keeps its rows for a while"

    gone = later + service.keep_for + timedelta(minutes=1)
    with Session(service.db) as session:
        room = session.exec(select(Room).where(Room.code == fresh)).one()
        room.updated_at = gone
        session.add(room)
        session.commit()
    report = service.housekeep(gone)
    assert report.deleted == 1
    with Session(service.db) as session:
        assert count(session, Room) == 1  # the fresh room
        assert count(session, Seat) == 0 and count(session, Match) == 0
        assert count(session, OrderLog) == 0


def every_code_but(free: str) -> Insert:
    """An open room for every code but ``free``, made by the database itself: every code is
    the letters crossed with themselves, one statement instead of a third of a million rows
    sent one by one (half a minute a run)."""
    letters = union_all(*(core.select(literal(letter).label("letter")) for letter in CODE_ALPHABET))
    alphabet = letters.cte("alphabet")
    places = [alphabet.alias(f"place{index}") for index in range(CODE_LENGTH)]
    code: ColumnElement[str] = places[0].c.letter
    crossed: FromClause = places[0]
    for place in places[1:]:
        code = code + place.c.letter
        crossed = crossed.join(place, true())  # every letter with every letter
    now = utcnow()
    rows = (
        core.select(
            code,
            literal("legions"),
            literal({}, JSON),
            literal("x"),
            literal("lobby"),
            literal(now, DateTime),
            literal(now, DateTime),
        )
        .select_from(crossed)
        .where(code != free)
    )
    columns = ["code", "game", "options", "host_token_hash", "status", "created_at", "updated_at"]
    return insert(ROOMS).from_select(columns, rows)


def test_a_closed_rooms_code_can_be_given_out_again(client: TestClient) -> None:
    service = room_service(client)
    free = CODE_ALPHABET[0] * CODE_LENGTH
    with Session(service.db) as session:
        session.add(Room(code=free, game="legions", host_token_hash="x", status="closed"))
        session.execute(every_code_but(free))
        session.commit()
    # Every code but one is taken by an open room: the one a closed room had is given out.
    created = client.post("/api/rooms", json={"game": "legions"})
    assert created.status_code == 201, created.text
    assert created.json()["code"] == free

    # Now none is left: a clear 503, not a loop for ever.
    full = client.post("/api/rooms", json={"game": "legions"})
    assert full.status_code == 503
    assert full.json()["code"] == "no_codes" and "Try again" in full.json()["detail"]
    with Session(service.db) as session:
        opened = session.exec(
            select(func.count()).select_from(Room).where(col(Room.status) != "closed")
        ).one()
    assert opened == len(CODE_ALPHABET) ** CODE_LENGTH


def test_seals_touch_the_room_once_a_minute_and_every_order_is_stored(
    timed: TestClient, clock: ManualClock
) -> None:
    """Only housekeeping reads a room's ``updated_at`` (idle for hours): a seal writes it once
    ``ROOM_TOUCH_EVERY`` has passed since the last, not at every seal (one statement fewer
    per seal); every order is still stored before it is acknowledged."""
    code, tokens = started_room(timed)
    service = room_service(timed)

    def stored() -> tuple[object, int]:
        with Session(service.db) as session:
            room = session.exec(select(Room).where(Room.code == code)).one()
            return room.updated_at.replace(tzinfo=None), count(session, OrderLog)

    assert timedelta(minutes=1) == ROOM_TOUCH_EVERY, "the waits below are set for a minute"
    touched = []
    for wait in (0, 30, 29, 2):  # each wait also ends the board's show of the order before
        clock.advance(wait)
        seal_next(timed, code, tokens)
        touched.append(clock.now().replace(tzinfo=None))
        assert stored()[1] == len(touched)
        if wait == 29:
            assert stored()[0] == touched[0], "59 s after the first touch: not written"
    assert stored()[0] == touched[-1], "61 s after: written"
