"""Host controls beyond the lobby: options, the sealing timer (H5.4) and pause."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from fastapi.testclient import TestClient
from sqlmodel import Session, col, select

from app.models import OrderLog
from tests.live import current_match, live_room, room_service
from tests.play import auth, create_room, join


def started_room(client: TestClient, **options: Any) -> tuple[str, str, list[str]]:
    room = create_room(client, **options)
    tokens = [join(client, room["code"], name)["token"] for name in ("Ema", "Petr")]
    assert (
        client.post(
            f"/api/rooms/{room['code']}/start", headers=auth(room["host_token"])
        ).status_code
        == 200
    )
    return room["code"], room["host_token"], tokens


def wait_for(client: TestClient, code: str, version: int, seconds: float) -> dict[str, Any]:
    deadline = time.monotonic() + seconds
    while True:
        board: dict[str, Any] = client.get(f"/api/rooms/{code}").json()
        if board["version"] >= version:
            return board
        assert time.monotonic() < deadline, f"still at version {board['version']}"
        time.sleep(0.05)


def test_options_change_in_the_lobby_only_and_are_checked(client: TestClient) -> None:
    room = create_room(client)
    code, host = room["code"], auth(room["host_token"])
    changed = client.post(f"/api/rooms/{code}/options", json={"timer": 45}, headers=host)
    assert changed.status_code == 200 and changed.json()["options"] == {"timer": 45}
    assert client.get(f"/api/rooms/{code}").json()["options"] == {"timer": 45}
    for bad in ({"timer": 0}, {"timer": "soon"}, {"timer": True}, {"first_player": 9}):
        assert client.post(f"/api/rooms/{code}/options", json=bad, headers=host).status_code == 422
    assert client.post(f"/api/rooms/{code}/options", json={"timer": 30}).status_code == 401
    cleared = client.post(f"/api/rooms/{code}/options", json={"timer": None}, headers=host)
    assert cleared.json()["options"] == {}
    join(client, code, "Ema")
    join(client, code, "Petr")
    client.post(f"/api/rooms/{code}/start", headers=host)
    late = client.post(f"/api/rooms/{code}/options", json={"timer": 30}, headers=host)
    assert late.status_code == 409


def test_h5_4_when_the_timer_runs_out_the_late_seat_gets_its_default_order(
    client: TestClient,
) -> None:
    code, host, tokens = started_room(client, timer=3)
    board = client.get(f"/api/rooms/{code}").json()
    assert board["version"] == 0 and board["deadline"] is not None
    deadline = datetime.fromisoformat(board["deadline"])
    assert 0 < (deadline - datetime.now(UTC)).total_seconds() <= 3.0
    (late,) = board["to_act"]
    wait_for(client, code, 1, seconds=8)
    # Hold the room still: the place that follows has its own timer.
    client.post(f"/api/rooms/{code}/pause", json={"paused": True}, headers=auth(host))
    match = current_match(live_room(client, code))
    with Session(room_service(client).db) as session:
        entries = session.exec(
            select(OrderLog).where(OrderLog.match_id == match.row_id).order_by(col(OrderLog.seq))
        ).all()
    take, *later = entries
    assert take.seat == late and take.by_bot and take.order["type"] == "take"
    if later:  # a slow machine let the place's own timer run out before the pause
        place = later[0]
        assert place.seat == late and place.by_bot and place.order["type"] == "place"
    else:
        board = client.get(f"/api/rooms/{code}").json()
        assert board["to_act"] == [late], "the default TAKE was played; the same seat now places"
        me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[late])).json()
        assert me["prompt"]["kind"] == "place"


def test_pause_stops_the_timer_and_resume_restarts_it(client: TestClient) -> None:
    code, host, _tokens = started_room(client, timer=2)
    assert client.post(f"/api/rooms/{code}/pause", json={"paused": True}).status_code == 401
    assert (
        client.post(
            f"/api/rooms/{code}/pause", json={"paused": True}, headers=auth(host)
        ).status_code
        == 200
    )
    paused = client.get(f"/api/rooms/{code}").json()
    assert paused["paused"] is True and paused["deadline"] is None
    assert 0 < paused["timer_left"] <= 2.0
    time.sleep(paused["timer_left"] + 0.5)  # past the time that was left: only the pause holds
    held = client.get(f"/api/rooms/{code}").json()
    assert held["version"] == paused["version"], "nothing moves while paused"
    client.post(f"/api/rooms/{code}/pause", json={"paused": False}, headers=auth(host))
    resumed = wait_for(client, code, paused["version"] + 1, seconds=6)
    assert resumed["paused"] is False


def test_pause_holds_the_bots(client: TestClient) -> None:
    room = create_room(client)
    code, host = room["code"], auth(room["host_token"])
    client.post(f"/api/rooms/{code}/bots", headers=host)
    client.post(f"/api/rooms/{code}/bots", headers=host)
    client.post(f"/api/rooms/{code}/pause", json={"paused": True}, headers=host)
    client.post(f"/api/rooms/{code}/start", headers=host)
    time.sleep(0.5)
    assert client.get(f"/api/rooms/{code}").json()["version"] == 0
    client.post(f"/api/rooms/{code}/pause", json={"paused": False}, headers=host)
    wait_for(client, code, 28, seconds=20)
