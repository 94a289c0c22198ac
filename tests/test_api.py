"""The room API contract (JSON over HTTP), exercised with the in-process app."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient

from app.rooms import CODE_ALPHABET
from engine.registry import KNOWN_GAMES, available_games
from tests.hl_secrets import SecretOracle, leaked
from tests.live import current_match, live_room
from tests.play import auth, create_room, join, order_from_prompt, play_to_end, start_duel


def test_create_room_gives_a_four_letter_code_without_look_alikes(client: TestClient) -> None:
    codes = {create_room(client)["code"] for _ in range(30)}
    assert len(codes) == 30, "codes are unique among open rooms"
    for code in codes:
        assert len(code) == 4
        assert set(code) <= set(CODE_ALPHABET)
        assert not set(code) & set("IO01")


def test_create_room_refuses_unknown_and_unbuilt_games(client: TestClient) -> None:
    assert client.post("/api/rooms", json={"game": "chess"}).status_code == 422
    assert client.post("/api/rooms", json={}).status_code == 422
    assert client.post("/api/rooms", content=b"not json").status_code == 422
    for game in set(KNOWN_GAMES) - set(available_games()):
        response = client.post("/api/rooms", json={"game": game})
        assert response.status_code == 422
        assert "not playable" in response.json()["detail"]


def test_create_room_refuses_bad_options(client: TestClient) -> None:
    response = client.post(
        "/api/rooms", json={"game": "hidden_leaders", "options": {"first_player": 7}}
    )
    assert response.status_code == 422


def test_code_is_accepted_in_any_case(client: TestClient) -> None:
    code = create_room(client)["code"]
    assert client.get(f"/api/rooms/{code.lower()}").json()["code"] == code
    seat = client.post(f"/api/rooms/{code.lower()}/seats", json={"name": "Ema"})
    assert seat.status_code == 201
    (only,) = client.get(f"/api/rooms/{code}").json()["seats"]
    assert (only["seat"], only["name"], only["bot"]) == (0, "Ema", False)


def test_unknown_room_is_404(client: TestClient) -> None:
    assert client.get("/api/rooms/ZZZZ").status_code == 404
    assert client.get("/api/rooms/toolong").status_code == 404
    assert client.post("/api/rooms/ZZZZ/seats", json={"name": "Ema"}).status_code == 404


def test_join_names_are_trimmed_unique_and_bounded(client: TestClient) -> None:
    code = create_room(client)["code"]
    assert join(client, code, "  Ema  ")["seat"] == 0
    assert client.get(f"/api/rooms/{code}").json()["seats"][0]["name"] == "Ema"
    taken = client.post(f"/api/rooms/{code}/seats", json={"name": "ema"})
    assert taken.status_code == 409
    assert "taken" in taken.json()["detail"]
    for bad in ("", "   ", "x" * 25):
        assert client.post(f"/api/rooms/{code}/seats", json={"name": bad}).status_code == 422
    assert client.post(f"/api/rooms/{code}/seats", json={"nom": "Ema"}).status_code == 422
    assert client.post(f"/api/rooms/{code}/seats", json=["Ema"]).status_code == 422
    assert join(client, code, " " + "y" * 24 + " ")["seat"] == 1


def test_room_full_and_started_are_409(client: TestClient) -> None:
    room = create_room(client)
    code = room["code"]
    join(client, code, "Ema")
    join(client, code, "Petr")
    full = client.post(f"/api/rooms/{code}/seats", json={"name": "Jana"})
    assert full.status_code == 409
    assert "full" in full.json()["detail"]
    assert (
        client.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"])).status_code == 200
    )
    client.delete(f"/api/rooms/{code}/seats/1", headers=auth(room["host_token"]))
    started = client.post(f"/api/rooms/{code}/seats", json={"name": "Jana"})
    assert started.status_code == 409


def test_host_actions_need_the_host_token(client: TestClient) -> None:
    room = create_room(client)
    code = room["code"]
    seat_token = join(client, code, "Ema")["token"]
    for method, path in (
        ("post", f"/api/rooms/{code}/bots"),
        ("post", f"/api/rooms/{code}/start"),
        ("delete", f"/api/rooms/{code}/seats/0"),
    ):
        assert client.request(method, path).status_code == 401
        assert client.request(method, path, headers=auth("wrong")).status_code == 403
        assert client.request(method, path, headers=auth(seat_token)).status_code == 403
    too_few = client.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"]))
    assert too_few.status_code == 409
    assert "at least 2" in too_few.json()["detail"]


def test_host_kicks_and_moves_seats_in_the_lobby(client: TestClient) -> None:
    room = create_room(client)
    code, host = room["code"], auth(room["host_token"])
    ema = join(client, code, "Ema")
    join(client, code, "Petr")
    moved = client.post(f"/api/rooms/{code}/seats/1/move", json={"to": 0}, headers=host)
    assert moved.status_code == 200
    names = [s["name"] for s in client.get(f"/api/rooms/{code}").json()["seats"]]
    assert names == ["Petr", "Ema"]
    assert (
        client.get(f"/api/rooms/{code}/me", headers=auth(ema["token"])).json()["you"]["seat"] == 1
    )
    bad_move = client.post(f"/api/rooms/{code}/seats/1/move", json={"to": 5}, headers=host)
    assert bad_move.status_code == 422
    assert client.delete(f"/api/rooms/{code}/seats/0", headers=host).status_code == 200
    assert [s["name"] for s in client.get(f"/api/rooms/{code}").json()["seats"]] == ["Ema"]
    assert client.delete(f"/api/rooms/{code}/seats/4", headers=host).status_code == 404
    # Petr's token no longer opens a seat; Ema kept hers and moved up to seat 0.
    assert (
        client.get(f"/api/rooms/{code}/me", headers=auth(ema["token"])).json()["you"]["seat"] == 0
    )


def test_me_needs_a_seat_token_and_shows_the_prompt(client: TestClient) -> None:
    code, _host, tokens = start_duel(client)
    assert client.get(f"/api/rooms/{code}/me").status_code == 401
    assert client.get(f"/api/rooms/{code}/me", headers=auth("nope")).status_code == 401
    board = client.get(f"/api/rooms/{code}").json()
    assert board["status"] == "playing"
    (active,) = board["to_act"]
    mine = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[active])).json()
    theirs = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[1 - active])).json()
    assert mine["prompt"]["kind"] == "take"
    assert theirs["prompt"] is None
    assert mine["you"]["seat"] == active


def test_orders_not_your_turn_illegal_and_malformed(client: TestClient) -> None:
    code, _host, tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    waiting = client.post(
        f"/api/rooms/{code}/orders",
        json={"type": "take", "slots": ["A1", "A2"]},
        headers=auth(tokens[1 - active]),
    )
    assert waiting.status_code == 409
    illegal = client.post(
        f"/api/rooms/{code}/orders",
        json={"type": "take", "slots": ["A1", "A1"]},
        headers=auth(tokens[active]),
    )
    assert illegal.status_code == 422
    assert isinstance(illegal.json()["detail"], str) and illegal.json()["detail"]
    for body in ([1, 2], "take", None, {"type": 5}, {"type": "take", "slots": "A1"}):
        response = client.post(f"/api/rooms/{code}/orders", json=body, headers=auth(tokens[active]))
        assert response.status_code == 422, (body, response.text)
    garbage = client.post(f"/api/rooms/{code}/orders", content=b"{", headers=auth(tokens[active]))
    assert garbage.status_code == 422
    assert client.post(f"/api/rooms/{code}/orders", json={}).status_code == 401
    # Nothing was lost: the game still waits for the same seat, at version 0.
    board = client.get(f"/api/rooms/{code}").json()
    assert board["to_act"] == [active] and board["version"] == 0


def test_a_whole_duel_through_the_api(client: TestClient) -> None:
    code, _host, tokens = start_duel(client)
    board = play_to_end(client, code, tokens)
    assert board["status"] == "finished"
    assert board["version"] == 28, "14 turns of two orders each (L3.5, L5.1)"
    outcome = board["outcome"]
    assert outcome["result"] in ("A", "B", "REMATCH")
    assert sum(outcome["heroes"]) <= 28


def test_rematch_starts_when_both_phones_are_ready_and_swaps_the_first_player(
    client: TestClient,
) -> None:
    code, _host, tokens = start_duel(client)
    first = play_to_end(client, code, tokens)["outcome"]["first_player"]
    too_early = client.post(f"/api/rooms/{code}/ready", headers=auth("nope"))
    assert too_early.status_code == 401
    assert client.post(f"/api/rooms/{code}/ready", headers=auth(tokens[0])).status_code == 200
    board = client.get(f"/api/rooms/{code}").json()
    assert board["status"] == "finished" and board["ready"] == [0]
    assert client.post(f"/api/rooms/{code}/ready", headers=auth(tokens[1])).status_code == 200
    board = client.get(f"/api/rooms/{code}").json()
    assert board["status"] == "playing" and board["match"] == 2
    assert board["to_act"] == [1 - first], "L2.4: the second player of the last game starts"


def test_a_room_of_bots_plays_to_the_end(client: TestClient) -> None:
    room = create_room(client)
    code, host = room["code"], auth(room["host_token"])
    assert client.post(f"/api/rooms/{code}/bots", headers=host).json()["seat"] == 0
    assert (
        client.post(f"/api/rooms/{code}/bots", headers=host, json={"style": "default"}).status_code
        == 201
    )
    assert client.post(f"/api/rooms/{code}/bots", headers=host).status_code == 409
    assert client.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
    deadline = time.monotonic() + 20
    board = client.get(f"/api/rooms/{code}").json()
    while board["status"] == "playing" and time.monotonic() < deadline:
        time.sleep(0.05)
        board = client.get(f"/api/rooms/{code}").json()
    assert board["status"] == "finished"
    assert board["outcome"]["result"] in ("A", "B", "REMATCH")
    assert board["ready"] == [0, 1], "a bot is ready for the next game as soon as one ends"


def test_a_kicked_seat_is_played_by_a_bot(client: TestClient) -> None:
    code, host, tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    assert client.delete(f"/api/rooms/{code}/seats/{active}", headers=auth(host)).status_code == 200
    # Its phone stays in the room as a watcher (test_a_handed_phone_reads_the_watchers_view).
    gone = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[active]))
    assert gone.status_code == 200 and gone.json()["you"]["handed"] is True
    deadline = time.monotonic() + 10
    while client.get(f"/api/rooms/{code}").json()["to_act"] != [1 - active]:
        assert time.monotonic() < deadline, "the bot did not take the kicked seat's turn"
        time.sleep(0.05)
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert seats[active]["bot"] is True


def test_a_handed_phone_reads_the_watchers_view(client: TestClient) -> None:
    """The host hands a phone's seat to a bot mid-game: its page and socket go on showing it
    the match as a watcher, and `/me` answers its token alike: 200, `you.handed` true, and
    what the board sees, with nothing of the seat's own (PIN, decision, sealed order, timer
    default, prediction, the seat's part of the view). A token never issued is still 401, and
    so is the watching token once the seat's PIN brought the seat back."""
    code, host, tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    idle = 1 - active  # its bot has nothing to decide: the game stands still while we look
    own = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[idle])).json()
    assert own["you"]["pin"] and "me" in own["view"], "the seat's own view, before"
    assert client.delete(f"/api/rooms/{code}/seats/{idle}", headers=auth(host)).status_code == 200
    answer = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[idle]))
    assert answer.status_code == 200, answer.text
    watched, board = answer.json(), client.get(f"/api/rooms/{code}").json()
    assert watched["you"] == {**own["you"], "player": None, "pin": "", "handed": True}
    assert watched["prompt"] is None and watched["my_commitment"] is None
    assert watched["time_ran_out"] is None and watched["timer_order"] is None
    assert watched["sealed_by"] is None and watched["prediction"] is None
    assert watched["version"] == board["version"]
    assert watched["view"] == board["view"] and "me" not in watched["view"]
    assert watched["history"] == board["history"] and watched["events"] == []
    oracle = SecretOracle()
    state = current_match(live_room(client, code)).state
    oracle.observe(state)
    assert leaked(own, oracle.forbidden(state, None)), "the seat's secrets, before"
    assert leaked(watched, oracle.forbidden(state, None)) == []
    assert client.get(f"/api/rooms/{code}/me", headers=auth("nope")).status_code == 401
    back = client.post(
        f"/api/rooms/{code}/reclaim", json={"name": own["you"]["name"], "pin": own["you"]["pin"]}
    )
    assert back.status_code == 200, back.text
    spent = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[idle]))
    assert spent.status_code == 401 and spent.json()["code"] == "bad_token"
    mine = client.get(f"/api/rooms/{code}/me", headers=auth(back.json()["token"])).json()
    assert mine["you"]["handed"] is False and mine["view"] == own["view"]


def test_views_never_carry_another_seats_secrets(client: TestClient) -> None:
    """L10.3 over HTTP: at every step of a whole game, the board and each phone receive no
    card id that only another seat (or nobody) may know."""
    code, _host, tokens = start_duel(client)
    oracle = SecretOracle()
    for _step in range(40):
        state = current_match(live_room(client, code)).state
        oracle.observe(state)
        board = client.get(f"/api/rooms/{code}").json()
        assert leaked(board, oracle.forbidden(state, None)) == []
        mine = [client.get(f"/api/rooms/{code}/me", headers=auth(t)).json() for t in tokens]
        if board["version"] == 0:  # the oracle itself can see a leak: a phone's own hand
            assert leaked(mine[0], oracle.forbidden(state, 1))
        for seat in (0, 1):
            assert leaked(mine[seat], oracle.forbidden(state, seat)) == [], seat
        if board["status"] != "playing":
            break
        (active,) = board["to_act"]
        client.post(
            f"/api/rooms/{code}/orders",
            json=order_from_prompt(mine[active]["prompt"]),
            headers=auth(tokens[active]),
        )
    assert board["status"] == "finished"


def test_openapi_documents_the_room_api(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path in (
        "/api/rooms",
        "/api/rooms/{code}",
        "/api/rooms/{code}/seats",
        "/api/rooms/{code}/me",
        "/api/rooms/{code}/orders",
        "/api/rooms/{code}/bots",
        "/api/rooms/{code}/start",
    ):
        assert path in spec["paths"], path
    assert client.get("/docs").status_code == 200


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("post", "/api/rooms", {"game": None}),
        ("post", "/api/rooms", {"game": "hidden_leaders", "options": []}),
        ("post", "/api/rooms/ABCD/seats/x/move", {"to": "y"}),
        ("delete", "/api/rooms/ABCD/seats/x", None),
        ("get", "/api/rooms/%00%00", None),
    ],
)
def test_malformed_requests_are_4xx_never_500(
    client: TestClient, method: str, path: str, body: object
) -> None:
    response = client.request(method, path, json=body)
    assert 400 <= response.status_code < 500, response.text
