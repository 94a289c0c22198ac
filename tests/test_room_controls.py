"""Host controls beyond the lobby: options, the sealing timer (H5.4) and pause."""

from __future__ import annotations

import time
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select

from app.models import OrderLog
from tests.clock import ManualClock
from tests.live import current_match, live_room, room_service
from tests.live import wait_for as wait_for_condition
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
    timed: TestClient, clock: ManualClock
) -> None:
    code, _host, tokens = started_room(timed, timer=3)
    board = timed.get(f"/api/rooms/{code}").json()
    assert board["version"] == 0
    assert datetime.fromisoformat(board["deadline"]) == clock.now() + timedelta(seconds=3)
    (late,) = board["to_act"]
    clock.advance(2.9)
    assert timed.get(f"/api/rooms/{code}").json()["version"] == 0, "not yet"
    clock.advance(0.1)  # the time is up
    board = wait_for(timed, code, 1, seconds=8)
    assert board["version"] == 1, "one default order; the next decision has its own timer"
    assert datetime.fromisoformat(board["deadline"]) == clock.now() + timedelta(seconds=3)
    match = current_match(live_room(timed, code))
    with Session(room_service(timed).db) as session:
        (take,) = session.exec(select(OrderLog).where(OrderLog.match_id == match.row_id)).all()
    assert take.seat == late and take.by_bot and take.order["type"] == "take"
    assert board["to_act"] == [late], "the default TAKE was played; the same seat now places"
    me = timed.get(f"/api/rooms/{code}/me", headers=auth(tokens[late])).json()
    assert me["prompt"]["kind"] == "place"


def test_pause_stops_the_timer_and_resume_restarts_it(
    timed: TestClient, clock: ManualClock
) -> None:
    code, host, _tokens = started_room(timed, timer=2)
    assert timed.post(f"/api/rooms/{code}/pause", json={"paused": True}).status_code == 401
    pausing = timed.post(f"/api/rooms/{code}/pause", json={"paused": True}, headers=auth(host))
    assert pausing.status_code == 200
    paused = timed.get(f"/api/rooms/{code}").json()
    assert paused["paused"] is True and paused["deadline"] is None
    assert paused["timer_left"] == 2.0, "the clock stood still: all of it is left"
    clock.advance(60)  # far past the time that was left: only the pause holds
    live = live_room(timed, code)
    wait_for_condition(lambda: live.timer_task is None, "the paused timer to stop")
    held = timed.get(f"/api/rooms/{code}").json()
    assert held["version"] == paused["version"], "nothing moves while paused"
    timed.post(f"/api/rooms/{code}/pause", json={"paused": False}, headers=auth(host))
    resumed = timed.get(f"/api/rooms/{code}").json()
    assert datetime.fromisoformat(resumed["deadline"]) == clock.now() + timedelta(seconds=2)
    clock.advance(2)
    resumed = wait_for(timed, code, paused["version"] + 1, seconds=6)
    assert resumed["paused"] is False


def test_pause_holds_the_bots(client: TestClient) -> None:
    room = create_room(client)
    code, host = room["code"], auth(room["host_token"])
    client.post(f"/api/rooms/{code}/bots", headers=host)
    client.post(f"/api/rooms/{code}/bots", headers=host)
    client.post(f"/api/rooms/{code}/pause", json={"paused": True}, headers=host)
    client.post(f"/api/rooms/{code}/start", headers=host)
    live = live_room(client, code)
    assert live.bot_task is None, "paused: no bot is even woken"
    assert client.get(f"/api/rooms/{code}").json()["version"] == 0
    client.post(f"/api/rooms/{code}/pause", json={"paused": False}, headers=host)
    wait_for(client, code, 28, seconds=20)


@pytest.mark.parametrize("game", ["hidden_leaders", "heirs", "legions"])
def test_a_paused_room_says_so_on_every_phone(client: TestClient, game: str) -> None:
    """The host stops the clock: each phone says who paused the game, in its own language,
    and stops saying it once the host resumes."""
    room = create_room(client, game=game)
    code, host = room["code"], auth(room["host_token"])
    tokens = [join(client, code, name)["token"] for name in ("Ema", "Petr")]
    assert client.post(f"/api/rooms/{code}/start", headers=host).is_success

    def phone(token: str, lang: str = "en") -> str:
        client.cookies.set(f"pecet_seat_{code}", token)
        client.cookies.set("pecet_lang", lang)
        page: str = client.get(f"/r/{code}").text
        return page

    assert 'data-testid="paused"' not in phone(tokens[0])
    assert client.post(f"/api/rooms/{code}/pause", json={"paused": True}, headers=host).is_success
    assert "Paused by the host" in phone(tokens[0])
    # A pause stops the clock and the bots, not the players: the phone says a move may
    # still be made (a player took a paused game for a frozen one, and was surprised).
    assert "The clock stands still; you can still make your move." in phone(tokens[0])
    assert "Hostitel hru pozastavil" in phone(tokens[1], "cs")
    assert "svůj tah můžeš udělat i teď" in phone(tokens[1], "cs")
    assert client.post(f"/api/rooms/{code}/pause", json={"paused": False}, headers=host).is_success
    assert 'data-testid="paused"' not in phone(tokens[0])
