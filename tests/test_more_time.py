"""More time for one player (issue 16.5): the host lengthens the sealing timer per seat, or
lifts it for that seat, in the lobby or during a game; the room's timer can be turned off
mid-game too. H5.4 per seat: a seat runs out of time at the round's start plus the timer
times its factor, and only then gets its default order. The timers run on a clock the tests
move by hand."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, col, select

from app import i18n
from app.config import Settings
from app.games import legions as screens
from app.main import create_app
from app.models import OrderLog
from engine.core import Rng
from engine.registry import get_rules
from tests.clock import ManualClock
from tests.live import current_match, live_room, room_service
from tests.play import auth, order_from_prompt, start_duel

TIMER = 10
NAMES = ("Ema", "Petr", "Olga")


def board(client: TestClient, code: str) -> dict[str, Any]:
    view: dict[str, Any] = client.get(f"/api/rooms/{code}").json()
    return view


def me(client: TestClient, code: str, token: str) -> dict[str, Any]:
    view: dict[str, Any] = client.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
    return view


def wait_until(client: TestClient, code: str, test: Any, what: str) -> dict[str, Any]:
    """Poll the board until ``test(board)`` holds (the timer task seals on the app's loop)."""
    deadline = time.monotonic() + 10
    while True:
        view = board(client, code)
        if test(view):
            return view
        assert time.monotonic() < deadline, f"{what}: still {view['version']}, {view['to_act']}"
        time.sleep(0.02)


def heirs_room(client: TestClient, **options: Any) -> tuple[str, str, list[str]]:
    """A Heirs room of three human seats in the lobby: (code, host token, seat tokens)."""
    created = client.post("/api/rooms", json={"game": "heirs", "options": options}).json()
    code = created["code"]
    tokens = [
        client.post(f"/api/rooms/{code}/seats", json={"name": n}).json()["token"] for n in NAMES
    ]
    return code, created["host_token"], tokens


def start(client: TestClient, code: str, host: str) -> None:
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200


def to_round_one(client: TestClient, clock: ManualClock, code: str) -> dict[str, Any]:
    """Let the timer play the setup (each decision its default, one after the other) until
    every seat seals at once."""
    for _ in range(30):
        view = board(client, code)
        if len(view["to_act"]) == len(NAMES):
            return view
        clock.advance(TIMER)
        wait_until(client, code, lambda v, n=view["version"]: v["version"] > n, "the setup")
    raise AssertionError("the setup never reached a round every seat seals at once")


def more_time(client: TestClient, code: str, token: str | None, seat: int, factor: Any) -> int:
    headers = auth(token) if token else {}
    response = client.post(
        f"/api/rooms/{code}/seats/{seat}/time", json={"factor": factor}, headers=headers
    )
    status: int = response.status_code
    return status


def timer_sealed(client: TestClient, code: str, since: int) -> list[tuple[int, dict[str, Any]]]:
    """The default orders the timer sealed after order ``since``, each with its seat."""
    match = current_match(live_room(client, code))
    with Session(room_service(client).db) as session:
        rows = session.exec(
            select(OrderLog)
            .where(OrderLog.match_id == match.row_id, col(OrderLog.seq) > since)
            .order_by(col(OrderLog.seq))
        ).all()
    return [(row.seat, dict(row.order)) for row in rows if row.by_timer]


def timer_orders(client: TestClient, code: str, since: int) -> list[int]:
    """The seats the timer sealed for after order ``since`` (by their default order)."""
    return [seat for seat, _order in timer_sealed(client, code, since)]


def test_h5_4_the_seat_with_more_time_is_sealed_at_its_own_deadline_the_others_at_the_rooms(
    timed: TestClient, clock: ManualClock
) -> None:
    code, host, tokens = heirs_room(timed, timer=TIMER)
    assert more_time(timed, code, host, 1, 2) == 200, "in the lobby"
    start(timed, code, host)
    round_one = to_round_one(timed, clock, code)
    deadline = datetime.fromisoformat(round_one["deadline"])
    assert round_one["players"][1]["time_factor"] == 2
    assert me(timed, code, tokens[0])["deadline"] == round_one["deadline"]
    mine = datetime.fromisoformat(me(timed, code, tokens[1])["deadline"])
    assert mine == deadline + timedelta(seconds=TIMER), "its own countdown: twice the timer"

    version = round_one["version"]
    clock.advance((deadline - clock.now()).total_seconds())  # the room's time is up
    view = wait_until(timed, code, lambda v: v["to_act"] == [1], "the others to be sealed")
    assert sorted(timer_orders(timed, code, version)) == [0, 2]
    assert datetime.fromisoformat(view["deadline"]) == mine, "the board counts down to hers"
    # The phones sealed for by the timer say so while the round waits for the last one.
    assert [me(timed, code, token)["sealed_by"] for token in tokens] == ["timer", None, "timer"]
    timed.cookies.set(f"pecet_seat_{code}", tokens[0])
    sealed = timed.get(f"/r/{code}").text
    assert 'data-testid="sealed-by-timer"' in sealed
    assert "Time ran out: your default order was sealed for you." in sealed
    # Its own time is over and it has sealed: no countdown standing at a red 0:00 while the
    # seat with more time decides (the board counts hers down).
    assert 'data-testid="countdown"' not in sealed
    clock.advance(TIMER - 0.1)
    assert board(timed, code)["to_act"] == [1], "not yet: it has twice the time"
    clock.advance(0.1)
    view = wait_until(timed, code, lambda v: len(v["to_act"]) == 3, "the next round")
    assert sorted(timer_orders(timed, code, version)) == [0, 1, 2]
    # The timer chose every dynasty: each phone says so over its first order sheet.
    assert view["view"]["phase"] == "orders" and view["view"]["round"] == 1
    timed.cookies.set(f"pecet_seat_{code}", tokens[1])
    first_sheet = timed.get(f"/r/{code}").text
    assert 'data-testid="orders-form"' in first_sheet
    assert "Time ran out at the setup: you were given the colour and the character" in first_sheet
    again = datetime.fromisoformat(view["deadline"])
    assert again == clock.now() + timedelta(seconds=TIMER), "a new round, the whole timer"
    mine = datetime.fromisoformat(me(timed, code, tokens[1])["deadline"])
    assert mine == again + timedelta(seconds=TIMER), "the factor stays for the next rounds"


def test_the_hosts_change_mid_round_counts_for_the_round_under_way(
    timed: TestClient, clock: ManualClock
) -> None:
    code, host, tokens = heirs_room(timed, timer=TIMER)
    start(timed, code, host)
    round_one = to_round_one(timed, clock, code)
    version = round_one["version"]
    assert more_time(timed, code, host, 2, None) == 200, "no limit for Olga, mid-round"
    assert me(timed, code, tokens[2])["deadline"] is None, "no countdown on her phone"
    clock.advance(TIMER)
    wait_until(timed, code, lambda v: v["to_act"] == [2], "the others to be sealed")
    clock.advance(1000)
    live = live_room(timed, code)
    wait_until(timed, code, lambda v: live.timer_task is None, "the timer to wait for a change")
    waiting = board(timed, code)
    assert waiting["to_act"] == [2], "no limit: she is never sealed for"
    assert waiting["deadline"] is None, "the board counts down to nothing: no 0:00 standing"
    # The host puts her back on the room's timer: her time ran out long ago.
    assert more_time(timed, code, host, 2, 1) == 200
    wait_until(timed, code, lambda v: len(v["to_act"]) == 3, "her default order")
    assert sorted(timer_orders(timed, code, version)) == [0, 1, 2]


def test_a_change_while_the_timer_waits_is_not_late(timed: TestClient, clock: ManualClock) -> None:
    """The timer task sleeps until the earliest deadline; a shorter one set meanwhile wakes it."""
    code, host, _tokens = heirs_room(timed, timer=TIMER)
    for seat in range(3):
        assert more_time(timed, code, host, seat, 3) == 200
    start(timed, code, host)
    version = board(timed, code)["version"]
    clock.advance(TIMER)
    assert board(timed, code)["version"] == version, "everybody has three times the timer"
    for seat in range(3):
        assert more_time(timed, code, host, seat, 1) == 200
    wait_until(timed, code, lambda v: v["version"] > version, "the change to count at once")


def test_only_the_host_gives_more_time_and_only_the_choices_on_offer(
    timed: TestClient, clock: ManualClock
) -> None:
    code, host, tokens = heirs_room(timed, timer=TIMER)
    assert more_time(timed, code, None, 1, 2) == 401
    assert more_time(timed, code, tokens[1], 1, 2) == 403, "a player cannot give themself time"
    for bad in (4, 0, -1, 2.5, "x2", True, [2], {"f": 2}):
        assert more_time(timed, code, host, 1, bad) == 422, bad
    missing = timed.post(f"/api/rooms/{code}/seats/1/time", json={}, headers=auth(host))
    assert missing.status_code == 422
    extra = timed.post(
        f"/api/rooms/{code}/seats/1/time", json={"factor": 2, "also": 1}, headers=auth(host)
    )
    assert extra.status_code == 422
    assert more_time(timed, code, host, 9, 2) == 404
    bot = timed.post(f"/api/rooms/{code}/bots", headers=auth(host)).json()["seat"]
    refused = timed.post(
        f"/api/rooms/{code}/seats/{bot}/time", json={"factor": 2}, headers=auth(host)
    )
    assert refused.status_code == 409 and refused.json()["code"] == "bot_seat"
    assert [s["time_factor"] for s in board(timed, code)["seats"]] == [1, 1, 1, 1]
    assert more_time(timed, code, host, 1, 1.5) == 200
    assert board(timed, code)["seats"][1]["time_factor"] == 1.5
    schema = timed.get("/openapi.json").json()
    assert "/api/rooms/{code}/seats/{seat}/time" in schema["paths"]
    assert "/api/rooms/{code}/timer" in schema["paths"]


def test_the_host_turns_the_timer_off_and_on_during_the_game(
    timed: TestClient, clock: ManualClock
) -> None:
    code, host, tokens = heirs_room(timed, timer=TIMER)
    start(timed, code, host)
    round_one = to_round_one(timed, clock, code)
    version = round_one["version"]
    url = f"/api/rooms/{code}/timer"
    assert timed.post(url, json={"timer": None}).status_code == 401
    assert timed.post(url, json={"timer": None}, headers=auth(tokens[0])).status_code == 403
    for bad in ({"timer": 0}, {"timer": "soon"}, {"timer": True}, {"timer": 5000}, {}):
        assert timed.post(url, json=bad, headers=auth(host)).status_code == 422, bad
    assert timed.post(url, json={"timer": None}, headers=auth(host)).status_code == 200
    off = board(timed, code)
    assert off["deadline"] is None and "timer" not in off["options"]
    clock.advance(1000)
    assert board(timed, code)["version"] == version, "no timer: nobody is sealed for"
    assert timed.post(url, json={"timer": 20}, headers=auth(host)).status_code == 200
    on = board(timed, code)
    assert datetime.fromisoformat(on["deadline"]) == clock.now() + timedelta(seconds=20)
    clock.advance(5)
    # A longer timer mid-round moves the round's deadline on by the difference.
    assert timed.post(url, json={"timer": 30}, headers=auth(host)).status_code == 200
    longer = datetime.fromisoformat(board(timed, code)["deadline"])
    assert longer == clock.now() + timedelta(seconds=25)
    clock.advance(15)
    # A shorter timer leaves at most the new timer from now: 15 s into a 30 s round, a 10 s
    # timer leaves 10 s (counted from the round's start it had run out 5 s before); a 12 s
    # timer set 5 s later is a longer one again, and moves that on by 2 s.
    assert timed.post(url, json={"timer": 10}, headers=auth(host)).status_code == 200
    shorter = datetime.fromisoformat(board(timed, code)["deadline"])
    assert shorter == clock.now() + timedelta(seconds=10)
    assert board(timed, code)["version"] == version, "nobody's time ran out"
    clock.advance(5)
    assert timed.post(url, json={"timer": 12}, headers=auth(host)).status_code == 200
    kept = datetime.fromisoformat(board(timed, code)["deadline"])
    assert kept == clock.now() + timedelta(seconds=7), "a longer one moves it on by 2 s"
    clock.advance(7)
    wait_until(timed, code, lambda v: v["version"] >= version + 3, "the round's default orders")


def test_h5_4_a_seat_hears_that_its_time_ran_out_until_it_seals_again(
    settings: Settings, clock: ManualClock
) -> None:
    """The order log tells which orders the timer sealed: the seat's own view says so (the
    round whose resolution played its default order) until it seals again, after a restart
    too; a seat that sealed its own order hears nothing of the kind."""

    def ran_out(client: TestClient) -> list[int | None]:
        return [me(client, code, token)["time_ran_out"] for token in tokens]

    def timed_out_by_round(client: TestClient) -> dict[int, list[int]]:
        """The seats the log marks as timed out, by round (the marks open the resolution)."""
        history = board(client, code)["history"]
        marked = {
            entry["round"]: [e["data"]["seat"] for e in entry["events"] if e["kind"] == "timed_out"]
            for entry in history
        }
        return {number: seats for number, seats in marked.items() if seats}

    def next_round(client: TestClient, version: int) -> dict[str, Any]:
        return wait_until(
            client,
            code,
            lambda v: v["version"] > version and len(v["to_act"]) == len(NAMES),
            "the next round's sheets",
        )

    with TestClient(create_app(settings, clock=clock)) as client:
        code, host, tokens = heirs_room(client, timer=TIMER)
        start(client, code, host)
        setup = to_round_one(client, clock, code)
        assert ran_out(client) == [None, None, None], "nothing played yet"
        clock.advance(TIMER)  # nobody chose a dynasty: the timer chooses for all (round 0)
        round_one = next_round(client, setup["version"])
        assert ran_out(client) == [0, 0, 0]
        assert timed_out_by_round(client) == {0: [0, 1, 2]}, "the log tells the table too"
        sealed = client.post(f"/api/rooms/{code}/orders", json={}, headers=auth(tokens[0]))
        assert sealed.is_success, sealed.text
        assert ran_out(client) == [None, 0, 0], "Ema sealed again"
        clock.advance(TIMER)  # Petr's and Olga's time runs out
        round_two = next_round(client, round_one["version"])
        assert ran_out(client) == [None, 1, 1]
        assert timed_out_by_round(client) == {0: [0, 1, 2], 1: [1, 2]}
        schema = client.get("/openapi.json").json()["components"]["schemas"]["SeatView"]
        assert "time_ran_out" in schema["properties"]
        sealed = client.post(f"/api/rooms/{code}/orders", json={}, headers=auth(tokens[1]))
        assert sealed.is_success, sealed.text
        assert ran_out(client) == [None, None, 1]
        assert board(client, code)["version"] == round_two["version"] + 1
    clock = ManualClock(at=clock.now())
    with TestClient(create_app(settings, clock=clock)) as client:  # rebuilt from the database
        assert ran_out(client) == [None, None, 1]
        assert timed_out_by_round(client) == {0: [0, 1, 2], 1: [1, 2]}
        page = client.get(f"/b/{code}").text
        assert "Time ran out for Petr: the default move was played." in page
        client.cookies.set(f"pecet_seat_{code}", tokens[1])
        mine = client.get(f"/r/{code}").text
        assert "Time ran out for you: your default move was played." in mine
        assert "Time ran out for Olga: the default move was played." in mine


def test_more_time_survives_a_pause_and_a_restart(settings: Settings, clock: ManualClock) -> None:
    with TestClient(create_app(settings, clock=clock)) as client:
        code, host, tokens = heirs_room(client, timer=TIMER)
        assert more_time(client, code, host, 1, 2) == 200
        start(client, code, host)
        round_one = to_round_one(client, clock, code)
        deadline = datetime.fromisoformat(round_one["deadline"])
        clock.advance((deadline - clock.now()).total_seconds() + 3)  # 3 s into the extra time
        wait_until(client, code, lambda v: v["to_act"] == [1], "the others to be sealed")
        pause = f"/api/rooms/{code}/pause"
        assert client.post(pause, json={"paused": True}, headers=auth(host)).status_code == 200
        paused = board(client, code)
        assert paused["timer_left"] == TIMER - 3, "the board holds the time she has left"
        assert me(client, code, tokens[1])["timer_left"] == TIMER - 3, "hers is held"
        clock.advance(1000)
        assert board(client, code)["to_act"] == [1], "paused: nothing moves"
    # The process goes away; a new one rebuilds the room from the database. (Each process
    # has its own clock, set to the time the last one stopped at.)
    clock = ManualClock(at=clock.now())
    with TestClient(create_app(settings, clock=clock)) as client:
        assert board(client, code)["to_act"] == [1]
        assert board(client, code)["seats"][1]["time_factor"] == 2
        assert me(client, code, tokens[1])["timer_left"] == TIMER - 3
        assert client.post(pause, json={"paused": False}, headers=auth(host)).status_code == 200
        mine = datetime.fromisoformat(me(client, code, tokens[1])["deadline"])
        assert mine == clock.now() + timedelta(seconds=TIMER - 3), "the rest, from now"
        clock.advance(TIMER - 3.1)
        assert board(client, code)["to_act"] == [1]
    clock = ManualClock(at=clock.now())
    with TestClient(create_app(settings, clock=clock)) as client:  # a restart while running
        assert board(client, code)["to_act"] == [1]
        clock.advance(0.1)
        wait_until(client, code, lambda v: len(v["to_act"]) == 3, "her default order")


def test_the_hosts_board_offers_the_timer_and_more_time(
    timed: TestClient, clock: ManualClock
) -> None:
    code, host, tokens = heirs_room(timed, timer=TIMER)
    timed.cookies.set(f"pecet_host_{code}", host)
    lobby = timed.get(f"/b/{code}").text
    assert 'data-testid="time-1"' in lobby and 'data-testid="game-timer"' not in lobby
    posted = timed.post(f"/b/{code}/seats/1/time", data={"factor": "none"})
    assert posted.status_code in (200, 303)
    assert board(timed, code)["seats"][1]["time_factor"] is None
    # The lobby folds the players' times under one line that says who has more.
    name = board(timed, code)["seats"][1]["name"]
    folded = timed.get(f"/b/{code}").text
    assert 'data-testid="lobby-more-time"' in folded
    assert f"<summary>More time for a player · {name} no limit</summary>" in folded
    refused = timed.post(
        f"/b/{code}/seats/1/time", data={"factor": "7"}, headers={"HX-Request": "true"}
    )
    assert refused.status_code == 422
    assert refused.text == "More time is ×1.5, ×2 or ×3, or no limit."
    refused_in_czech = timed.post(
        f"/b/{code}/seats/1/time",
        data={"factor": "7"},
        headers={"HX-Request": "true", "Accept-Language": "cs"},
    )
    assert refused_in_czech.text == "Víc času je ×1,5, ×2 nebo ×3, nebo bez limitu.", (
        "a host's refusal in the board's language"
    )
    start(timed, code, host)
    playing = timed.get(f"/b/{code}").text
    assert 'data-testid="game-timer"' in playing and 'data-testid="time-1"' in playing
    assert 'data-testid="more-time-tag"' in playing, "the board marks Petr's unlimited time"
    assert 'data-testid="countdown"' not in me_page(timed, code, tokens[1])
    timed.post(f"/b/{code}/seats/1/time", data={"factor": "1.5"}, headers={"HX-Request": "true"})
    assert board(timed, code)["seats"][1]["time_factor"] == 1.5
    # A factor is written as the board's language writes numbers: "×1,5" on a Czech TV.
    in_czech = timed.get(f"/b/{code}", headers={"Accept-Language": "cs"}).text
    assert re.findall(r"×1[.,]5", in_czech), in_czech  # the tag and the choice are there
    assert "×1.5" not in in_czech, re.findall(r".{40}×1\.5.{10}", in_czech)
    timed.post(f"/b/{code}/timer", data={"timer": ""}, headers={"HX-Request": "true"})
    assert board(timed, code)["deadline"] is None


def me_page(client: TestClient, code: str, token: str) -> str:
    client.cookies.set(f"pecet_seat_{code}", token)
    try:
        page: str = client.get(f"/r/{code}").text
        return page
    finally:
        client.cookies.delete(f"pecet_seat_{code}")


@pytest.mark.parametrize("game", ["hidden_leaders", "legions"])
def test_a_phone_of_a_turn_game_hears_its_time_ran_out(
    timed: TestClient, clock: ManualClock, game: str
) -> None:
    """The sealing timer runs in the games of turns too: the phone of the seat deciding and
    the board count it down, and once it plays the seat's default move the phone says so (the
    seat's view has ``time_ran_out``) until the table moves on."""
    created = timed.post("/api/rooms", json={"game": game, "options": {"timer": TIMER}}).json()
    code, host = created["code"], created["host_token"]
    tokens = [
        timed.post(f"/api/rooms/{code}/seats", json={"name": n}).json()["token"] for n in NAMES[:2]
    ]
    start(timed, code, host)
    # The first decision with only one seat deciding (Legions opens with both sealing).
    for _ in range(10):
        now = board(timed, code)
        if len(now["to_act"]) == 1:
            break
        orders = [(t, me(timed, code, t)["prompt"]) for t in tokens]
        for token, prompt in orders:
            if prompt is not None:
                order = prompt["options"][0]["order"]
                sealed = timed.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
                assert sealed.is_success, sealed.text
        wait_until(timed, code, lambda v, n=now["version"]: v["version"] > n, "the orders")
    late, other = tokens[now["to_act"][0]], tokens[1 - now["to_act"][0]]
    # The seat deciding sees its time run down, and so does the room on the board.
    timed.cookies.set(f"pecet_seat_{code}", late)
    assert 'data-testid="countdown"' in timed.get(f"/r/{code}").text
    assert f'data-deadline="{me(timed, code, late)["deadline"]}"' in timed.get(f"/r/{code}").text
    assert 'data-testid="countdown"' in timed.get(f"/b/{code}").text
    clock.advance(TIMER)
    wait_until(timed, code, lambda v: v["version"] > now["version"], "the default move")
    assert me(timed, code, late)["time_ran_out"] is not None
    assert me(timed, code, other)["time_ran_out"] is None
    timed.cookies.set(f"pecet_seat_{code}", late)
    page = timed.get(f"/r/{code}").text
    assert 'data-testid="timer-lost"' in page
    if game == "hidden_leaders":  # Legions names the move (the test above)
        assert "Time ran out: your default move was played for you." in page
    late_name = NAMES[now["to_act"][0]]
    assert "Time ran out for you: your default move was played." in page
    timed.cookies.set(f"pecet_seat_{code}", other)
    page = timed.get(f"/r/{code}").text
    assert 'data-testid="timer-lost"' not in page
    # The opponent and the board read the move as the clock's, not as the player's choice.
    told = f"Time ran out for {late_name}: the default move was played."
    assert told in page
    tv = timed.get(f"/b/{code}").text
    assert told in tv
    if game == "hidden_leaders":  # and the board's summary of the last move says it too
        assert re.search(r'la-who">Last: \w+ <span[^>]*last-timed-out">\(time ran out', tv)
    # The other player moves on: the late one's phone still says so (it said so for one
    # move only, gone before its player looked), until it seals again itself.
    for _ in range(5):  # the late seat's turn may go on (Hidden Leaders: take, then place)
        if me(timed, code, other)["prompt"] is not None:
            break
        version = board(timed, code)["version"]
        clock.advance(TIMER)
        wait_until(timed, code, lambda v, n=version: v["version"] > n, "the next default move")
    moves = 0
    while (prompt := me(timed, code, other)["prompt"]) is not None and moves < 10:
        version = board(timed, code)["version"]
        order = prompt["options"][0]["order"] if "options" in prompt else order_from_prompt(prompt)
        assert timed.post(f"/api/rooms/{code}/orders", json=order, headers=auth(other)).is_success
        wait_until(timed, code, lambda v, n=version: v["version"] > n, "the other's move")
        moves += 1
        assert me(timed, code, late)["time_ran_out"] is not None, f"after {moves} moves"
    assert moves, "the other player had a move"
    prompt = me(timed, code, late)["prompt"]
    assert prompt is not None, "the late seat decides again"
    order = prompt["options"][0]["order"] if "options" in prompt else order_from_prompt(prompt)
    assert timed.post(f"/api/rooms/{code}/orders", json=order, headers=auth(late)).is_success
    assert me(timed, code, late)["time_ran_out"] is None


def test_a_legions_phone_hears_which_move_the_timer_played_and_no_other_seat_does(
    timed: TestClient, clock: ManualClock
) -> None:
    """H5.4 in Legions: the phone whose time ran out read only "your default move was played
    for you". It names the move: the legion sealed for it, the location its legion went to.
    The seat's own order, told to its phone alone: the other phone, deciding still while it
    is secret, learns nothing of it, then or later."""
    created = timed.post("/api/rooms", json={"game": "legions", "options": {"timer": TIMER}})
    code, host = created.json()["code"], created.json()["host_token"]
    tokens = [
        timed.post(f"/api/rooms/{code}/seats", json={"name": n}).json()["token"] for n in NAMES[:2]
    ]
    factors = [1, 2]
    assert more_time(timed, code, host, 1, factors[1]) == 200
    start(timed, code, host)
    version = board(timed, code)["version"]
    clock.advance(TIMER)  # Ema's time is up, Petr has twice as long
    wait_until(timed, code, lambda v: v["to_act"] == [1], "Ema's default seal")
    ((ema, sealed),) = timer_sealed(timed, code, version)
    assert ema == 0 and sealed["kind"] == "seal"
    with i18n.use_language("en"):
        ema_legion = screens.card_text(sealed["legion"])

    def phone(token: str) -> str:
        timed.cookies.set(f"pecet_seat_{code}", token)
        page: str = timed.get(f"/r/{code}").text
        timed.cookies.delete(f"pecet_seat_{code}")
        return page

    assert me(timed, code, tokens[1])["timer_order"] is None
    assert ema_legion not in phone(tokens[1]), "Petr still seals: Ema's legion is hers"
    petr = me(timed, code, tokens[1])["prompt"]["options"][0]["order"]
    assert timed.post(f"/api/rooms/{code}/orders", json=petr, headers=auth(tokens[1])).is_success
    after_seals = wait_until(timed, code, lambda v: len(v["to_act"]) == 1, "the first step")
    assert me(timed, code, tokens[0])["timer_order"] == sealed
    told = f"Time ran out: legion {ema_legion} was sealed for you."
    assert told in phone(tokens[0])
    assert me(timed, code, tokens[1])["timer_order"] is None
    assert 'data-testid="timer-lost"' not in phone(tokens[1]), "Petr sealed his own"

    # The leader's first step, played by the timer: the phone names where its legion went.
    (leader,) = after_seals["to_act"]
    clock.advance(TIMER * factors[leader])
    wait_until(timed, code, lambda v: v["version"] > after_seals["version"], "the default step")
    ((seat, placed),) = timer_sealed(timed, code, after_seals["version"])
    assert seat == leader and placed["kind"] == "place"
    with i18n.use_language("en"):
        where = screens.location_name(placed["location"])
    told = f"Time ran out: your legion was placed at the {where} for you."
    assert told in phone(tokens[leader])
    assert told not in phone(tokens[1 - leader])


@pytest.mark.parametrize("game", ["hidden_leaders", "legions"])
def test_the_lobby_of_a_turn_game_offers_the_timer(timed: TestClient, game: str) -> None:
    """Every game has a sealing timer; Heirs sets it among its options, the others in a
    folded line of their own that says where it stands."""
    created = timed.post("/api/rooms", json={"game": game}).json()
    code, host = created["code"], created["host_token"]
    timed.post(f"/api/rooms/{code}/seats", json={"name": "Ann"})
    timed.cookies.set(f"pecet_host_{code}", host)
    lobby = timed.get(f"/b/{code}").text
    assert 'data-testid="lobby-timer"' in lobby and 'data-testid="game-timer"' in lobby
    assert 'data-testid="time-0"' in lobby, "more time for Ann"
    assert '<option value="30">30 s</option>' in lobby, "a quick duel's 30 s a move"
    assert timed.post(f"/b/{code}/timer", data={"timer": "90"}).status_code in (200, 204, 303)
    assert board(timed, code)["options"]["timer"] == 90
    assert "Sealing timer: 90 s" in timed.get(f"/b/{code}").text
    timed.cookies.clear()
    assert 'data-testid="lobby-timer"' not in timed.get(f"/b/{code}").text, "the host's only"


def test_a_replay_tells_whose_time_ran_out_where_it_did(
    timed: TestClient, clock: ManualClock
) -> None:
    """Watch again: the replay's steps carry the log's mark of the timer's move, at the first
    step of the resolution it played, and the replay's log tells it."""
    created = timed.post(
        "/api/rooms", json={"game": "hidden_leaders", "options": {"timer": TIMER}}
    ).json()
    code, host = created["code"], created["host_token"]
    tokens = [
        timed.post(f"/api/rooms/{code}/seats", json={"name": n}).json()["token"] for n in NAMES[:2]
    ]
    start(timed, code, host)
    first = board(timed, code)
    late = first["to_act"][0]
    clock.advance(TIMER)  # the first seat to play runs out of time: its default is played
    wait_until(timed, code, lambda v: v["version"] > first["version"], "the default move")
    rules, rng = get_rules("hidden_leaders"), Rng(3)
    while (now := board(timed, code))["status"] != "finished":
        seat = now["to_act"][0]
        order = rules.random_order(current_match(live_room(timed, code)).state, seat, rng)
        sealed = timed.post(f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[seat]))
        assert sealed.is_success, sealed.text
        wait_until(timed, code, lambda v, n=now["version"]: v["version"] > n, "the move")
    replay = timed.get(f"/api/rooms/{code}/matches/1/replay").json()
    marks = [
        (index, event["data"]["seat"])
        for index, step in enumerate(replay["steps"])
        for event in step["events"]
        if event["kind"] == "timed_out"
    ]
    assert marks == [(1, late)], marks
    assert replay["steps"][1]["events"][0]["kind"] == "timed_out"
    page = timed.get(f"/b/{code}/replay/1?step=1").text
    told = f"Time ran out for {NAMES[late]}: the default move was played."
    assert told in page
    # Also in the step's own lines beside the board, not only in the log.
    steps = page[page.index('class="rp-step-lines"') :]
    assert told in steps[: steps.index("</ol>")]


def test_a_round_robin_names_the_seat_whose_time_ran_out(
    timed: TestClient, clock: ManualClock
) -> None:
    """In a night's round robin a match seats two of three: the game's own seats are not the
    room's. The note names the room seat the timer played for, and its phone reads "you"."""
    created = timed.post(
        "/api/rooms",
        json={"game": "hidden_leaders", "options": {"timer": TIMER}, "tournament": {"count": 1}},
    ).json()
    code, host = created["code"], created["host_token"]
    tokens = [
        timed.post(f"/api/rooms/{code}/seats", json={"name": n}).json()["token"] for n in NAMES
    ]
    start(timed, code, host)
    first = board(timed, code)
    players = [p["seat"] for p in first["players"]]
    assert players != [0, 1], "the first pairing is not the room's first two seats"
    late = first["to_act"][0]
    clock.advance(TIMER)
    wait_until(timed, code, lambda v: v["version"] > first["version"], "the default move")
    told = f"Time ran out for {NAMES[late]}: the default move was played."
    assert told in timed.get(f"/b/{code}").text
    timed.cookies.set(f"pecet_seat_{code}", tokens[late])
    assert "Time ran out for you: your default move was played." in timed.get(f"/r/{code}").text
    other = next(seat for seat in players if seat != late)
    timed.cookies.set(f"pecet_seat_{code}", tokens[other])
    assert told in timed.get(f"/r/{code}").text


@pytest.mark.parametrize("game", ["hidden_leaders", "legions"])
def test_the_host_pauses_a_turn_game_from_the_board(timed: TestClient, game: str) -> None:
    """Pause and Resume sit in a duel board's host menu too (only Heirs had them on the TV;
    with a sealing timer running the host had no way to stop the clock), and the board says
    it is paused beside the stopped clock."""
    code, host, _tokens = start_duel(timed, game)
    timed.cookies.set(f"pecet_host_{code}", host)
    page = timed.get(f"/b/{code}").text
    menu = page[page.index('class="host-menu"') :]
    assert 'data-testid="pause"' in menu and ">Pause<" in menu
    assert 'data-testid="board-paused"' not in page
    assert timed.post(f"/b/{code}/pause", data={"paused": "1"}).status_code in (200, 204, 303)
    assert board(timed, code)["paused"] is True
    page = timed.get(f"/b/{code}").text
    assert 'data-testid="board-paused"' in page and "Paused by the host" in page
    assert ">Resume<" in page[page.index('class="host-menu"') :]
    assert timed.post(f"/b/{code}/pause", data={"paused": "0"}).status_code in (200, 204, 303)
    assert 'data-testid="board-paused"' not in timed.get(f"/b/{code}").text
    timed.cookies.clear()
    assert 'data-testid="pause"' not in timed.get(f"/b/{code}").text, "the host's only"


def test_the_heirs_lobby_offers_the_same_timer_and_keeps_one_set_through_the_api(
    timed: TestClient,
) -> None:
    created = timed.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = created["code"], created["host_token"]
    timed.cookies.set(f"pecet_host_{code}", host)
    timer = re.compile(r'<select name="timer" data-testid="opt-timer">(.*?)</select>', re.S)
    offered = re.findall(r'<option value="(\d*)"', timer.findall(timed.get(f"/b/{code}").text)[0])
    assert offered == ["", "30", "60", "90", "120", "180", "300"]
    made = timed.post(f"/api/rooms/{code}/options", json={"timer": 45}, headers=auth(host))
    assert made.is_success, made.text
    chosen = timer.findall(timed.get(f"/b/{code}").text)[0]
    assert '<option value="45" selected>45 s</option>' in chosen, "not turned off by the form"


@pytest.mark.parametrize("game", ["hidden_leaders", "legions"])
def test_a_phone_hears_that_the_host_gave_it_more_time(timed: TestClient, game: str) -> None:
    """Only its countdown changed before: the phone now says the host gave it more time (or
    no limit), while the room's timer runs; the other phone says nothing of the kind."""
    code, host, tokens = start_duel(timed, game)
    set_timer = timed.post(f"/api/rooms/{code}/timer", json={"timer": 60}, headers=auth(host))
    assert set_timer.is_success, set_timer.text
    assert more_time(timed, code, host, 0, 2) == 200
    page = me_page(timed, code, tokens[0])
    assert 'data-testid="my-more-time"' in page
    assert "The host gave you more time: ×2." in page
    assert 'data-testid="my-more-time"' not in me_page(timed, code, tokens[1])
    assert more_time(timed, code, host, 0, None) == 200
    assert "The host gave you no time limit." in me_page(timed, code, tokens[0])
    no_timer = timed.post(f"/api/rooms/{code}/timer", json={"timer": None}, headers=auth(host))
    assert no_timer.is_success, no_timer.text
    assert 'data-testid="my-more-time"' not in me_page(timed, code, tokens[0]), "no timer"


def bots_taking(seconds: float) -> Any:
    """A fixture of a client whose bots take ``seconds`` a move on ``clock`` (the timers run
    on it too)."""

    @pytest.fixture
    def fixture(settings: Settings, clock: ManualClock) -> Iterator[TestClient]:
        paced = dataclasses.replace(settings, bot_delay=seconds)
        with TestClient(create_app(paced, clock=clock)) as test_client:
            yield test_client

    return fixture


slow_bots = bots_taking(5.0)
slower_bots = bots_taking(25.0)  # slower than the room's timer


def test_the_board_counts_down_for_players_never_for_a_bot(
    slow_bots: TestClient, clock: ManualClock
) -> None:
    """A bot needs no clock (it plays within its delay): while only a bot decides, the board
    shows no countdown; it showed the room's timer running down on every bot's turn."""
    client = slow_bots
    created = client.post("/api/rooms", json={"game": "legions", "options": {"timer": TIMER}})
    code, host = created.json()["code"], created.json()["host_token"]
    token = client.post(f"/api/rooms/{code}/seats", json={"name": "Ema"}).json()["token"]
    assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    start(client, code, host)
    both = board(client, code)
    assert sorted(both["to_act"]) == [0, 1] and both["deadline"] is not None, "Ema decides"
    prompt = me(client, code, token)["prompt"]
    sealed = client.post(
        f"/api/rooms/{code}/orders", json=prompt["options"][0]["order"], headers=auth(token)
    )
    assert sealed.status_code == 202, sealed.text
    bot_alone = board(client, code)
    assert bot_alone["to_act"] == [1], "the bot waits out its delay on the test's clock"
    assert bot_alone["deadline"] is None
    clock.advance(5)
    version = bot_alone["version"]
    after = wait_until(client, code, lambda v: v["version"] > version, "the bot's seal")
    # The lower legion leads (G4.3): Ema's step is timed, the bot's is not.
    assert after["to_act"] in ([0], [1])
    assert (after["deadline"] is None) == (after["to_act"] == [1]), after["to_act"]


def test_the_timer_plays_for_a_late_player_never_for_a_bot_still_waiting(
    slower_bots: TestClient, clock: ManualClock
) -> None:
    """Both seal a legion at once (G4.1): Ema lets her time run out while the bot, slower
    than the timer, still waits. The timer seals Ema's default only; the bot's legion is its
    own, not "time ran out for Bot 1". Later, after the bot's steps, Ema's time still runs."""
    client = slower_bots
    created = client.post("/api/rooms", json={"game": "legions", "options": {"timer": TIMER}})
    code, host = created.json()["code"], created.json()["host_token"]
    client.post(f"/api/rooms/{code}/seats", json={"name": "Ema"})
    assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    start(client, code, host)
    version = board(client, code)["version"]
    clock.advance(TIMER)
    wait_until(client, code, lambda v: v["version"] > version, "Ema's default")
    assert timer_orders(client, code, 0) == [0]
    assert board(client, code)["to_act"] == [1], "the bot still waits its 25 s"
    ema_timed_out = 1
    for _ in range(40):  # the game goes on: the bot plays its steps, Ema's time runs out
        now = board(client, code)
        if now["status"] != "playing":
            break
        clock.advance(TIMER if 0 in now["to_act"] else 25)
        wait_until(client, code, lambda v, n=now["version"]: v["version"] > n, "a move")
        if 0 in now["to_act"]:
            ema_timed_out += 1
    sealed = timer_orders(client, code, 0)
    assert set(sealed) == {0}, "the timer never sealed for the bot"
    assert len(sealed) == ema_timed_out > 3


def test_a_bot_whose_choice_fails_plays_a_legal_order(
    timed: TestClient, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bot has no clock to play for it when its own choice fails (an engine's fault in its
    bot, which no test can cause otherwise; the game's default order is the bot's move too):
    its seat plays a legal order drawn from its prompt, and the room goes on rather than
    waiting for a bot that never moves."""
    rules = get_rules("hidden_leaders")

    def broken(*_args: Any, **_kwargs: Any) -> Any:
        raise RuntimeError("the bot's choice failed")

    monkeypatch.setattr(rules, "bot_order", broken)
    created = timed.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    code, host = created["code"], created["host_token"]
    for _ in range(2):
        assert timed.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    start(timed, code, host)
    done = wait_until(timed, code, lambda v: v["status"] == "finished", "the bots' game")
    assert done["outcome"] is not None
