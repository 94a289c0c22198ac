"""Seats that survive a lost phone (PIN and reclaim), presence on the board, watchers who
predict, and mixed nights that seat the whole table."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from functools import partial
from html import unescape
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from app.config import Settings
from app.live import LiveMatch
from app.main import create_app
from engine.core import Rng
from engine.registry import get_rules
from tests.conftest import ServerProcess
from tests.live import current_match, live_room, wait_for
from tests.play import auth, order_from_prompt

HEIRS = get_rules("heirs")


@pytest.fixture
def quick_away(tmp_path: Path) -> Iterator[TestClient]:
    """A server that calls a seat away a quarter of a second after its phone left."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'seats.sqlite3'}",
        bot_delay=0.0,
        step_seconds=0.02,
        away_seconds=0.25,
    )
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def is_finished(match: LiveMatch) -> bool:
    return match.status == "finished"


def room_with(
    client: TestClient, game: str, names: list[str], bots: int = 0, **extra: Any
) -> tuple[str, str, list[dict[str, Any]]]:
    created = client.post("/api/rooms", json={"game": game, **extra})
    assert created.status_code == 201, created.text
    code, host = created.json()["code"], created.json()["host_token"]
    joined: list[dict[str, Any]] = []
    for name in names:
        response = client.post(f"/api/rooms/{code}/seats", json={"name": name})
        assert response.status_code == 201, response.text
        joined.append(response.json())
    for _ in range(bots):
        assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    return code, host, joined


def test_joining_returns_a_pin_that_the_host_sees_and_the_board_does_not(
    client: TestClient,
) -> None:
    code, host, joined = room_with(client, "heirs", ["Ann", "Ben"], bots=1)
    for seat in joined:
        assert len(seat["pin"]) == 4 and seat["pin"].isdigit()
    public = client.get(f"/api/rooms/{code}").json()
    assert public.get("pins") is None
    assert all(seat["pin"] not in str(public) or len(set(seat["pin"])) == 1 for seat in joined)
    hosted = client.get(f"/api/rooms/{code}", headers=auth(host)).json()
    assert hosted["pins"] == {"0": joined[0]["pin"], "1": joined[1]["pin"]}, "bots have none"
    other = client.get(f"/api/rooms/{code}", headers=auth(joined[0]["token"])).json()
    assert other.get("pins") is None, "a seat's token is not the host's"
    mine = client.get(f"/api/rooms/{code}/me", headers=auth(joined[0]["token"])).json()
    assert mine["you"]["pin"] == joined[0]["pin"], "a phone shows its own PIN"
    assert '"pins"' not in json.dumps(mine)


def test_reclaim_with_the_right_pin_mid_game_and_the_game_goes_on(client: TestClient) -> None:
    code, host, joined = room_with(client, "heirs", ["Ann", "Ben"])
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    ann = joined[0]
    with client.websocket_connect(f"/ws/rooms/{code}?token={ann['token']}") as old_phone:
        assert old_phone.receive_json()["type"] == "view"
        moved = client.post(f"/api/rooms/{code}/reclaim", json={"name": " ann ", "pin": ann["pin"]})
        assert moved.status_code == 200, moved.text
        assert moved.json()["seat"] == 0 and moved.json()["token"] != ann["token"]
        # The old phone's socket is told and closed; its token is dead.
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(20):
                frame = old_phone.receive_json()
                assert frame["type"] in ("view", "error")
        assert closed.value.code == 1008
    assert client.get(f"/api/rooms/{code}/me", headers=auth(ann["token"])).status_code == 401
    new = moved.json()["token"]
    me = client.get(f"/api/rooms/{code}/me", headers=auth(new)).json()
    assert me["you"]["seat"] == 0 and me["prompt"]["kind"] == "setup"
    # The PIN brought the seat back once: the seat has a new one, which the new phone and the
    # host see, and the old one is refused.
    new_pin = moved.json()["pin"]
    assert new_pin != ann["pin"] and len(new_pin) == 4 and new_pin.isdigit()
    assert me["you"]["pin"] == new_pin
    hosted = client.get(f"/api/rooms/{code}", headers=auth(host)).json()
    assert hosted["pins"]["0"] == new_pin
    again = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Ann", "pin": ann["pin"]})
    assert again.status_code == 403 and again.json()["code"] == "wrong_pin"
    assert client.get(f"/api/rooms/{code}/me", headers=auth(new)).status_code == 200
    # The game goes on with the new phone.
    rng = Rng(1)
    live = live_room(client, code)
    for seat, token in ((0, new), (1, joined[1]["token"])):
        order = HEIRS.random_order(current_match(live).state, seat, rng)
        assert client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token)).is_success
    assert current_match(live).state.phase == "orders"


def test_the_new_pin_of_a_seat_come_back_outlives_a_restart(settings: Settings) -> None:
    with TestClient(create_app(settings)) as client:
        code, host, joined = room_with(client, "legions", ["Ann", "Ben"])
        moved = client.post(
            f"/api/rooms/{code}/reclaim", json={"name": "Ben", "pin": joined[1]["pin"]}
        )
        assert moved.status_code == 200, moved.text
    with TestClient(create_app(settings)) as client:
        hosted = client.get(f"/api/rooms/{code}", headers=auth(host)).json()
        assert hosted["pins"] == {"0": joined[0]["pin"], "1": moved.json()["pin"]}
        old = client.post(
            f"/api/rooms/{code}/reclaim", json={"name": "Ben", "pin": joined[1]["pin"]}
        )
        assert old.status_code == 403
        new = client.post(
            f"/api/rooms/{code}/reclaim", json={"name": "Ben", "pin": moved.json()["pin"]}
        )
        assert new.status_code == 200 and new.json()["seat"] == 1


def test_what_a_bot_sealed_for_a_seat_taken_back_is_told_after_a_restart(
    settings: Settings,
) -> None:
    with TestClient(create_app(settings)) as client:
        code, host, joined = room_with(client, "heirs", ["Ann", "Ben"])
        assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
        assert client.delete(f"/api/rooms/{code}/seats/1", headers=auth(host)).status_code == 200
        live = live_room(client, code)
        wait_for(lambda: HEIRS.prompt(current_match(live).state, 1) is None, "the bot's seal")
        back = client.post(
            f"/api/rooms/{code}/reclaim", json={"name": "Ben", "pin": joined[1]["pin"]}
        )
        assert back.status_code == 200
    with TestClient(create_app(settings)) as client:  # rebuilt from the order log
        ben = client.get(f"/api/rooms/{code}/me", headers=auth(back.json()["token"])).json()
        assert ben["prompt"] is None and ben["sealed_by"] == "bot"


def test_a_name_typed_without_its_accents_finds_its_seat(client: TestClient) -> None:
    """A borrowed phone with an English keyboard: "tomas" finds Tomáš's seat. The exact name
    comes first ("Zoë" is Zoë's, not Zoé's); a name that matches two seats once its accents
    are gone ("Zoe") finds neither."""
    code, _host, joined = room_with(client, "heirs", ["Tomáš", "Zoë", "Zoé"])
    tomas, zoe_diaeresis, zoe_acute = joined
    back = client.post(f"/api/rooms/{code}/reclaim", json={"name": "tomas", "pin": tomas["pin"]})
    assert back.status_code == 200, back.text
    assert back.json()["seat"] == 0
    for name, seat in (("Zoë", zoe_diaeresis), ("Zoé", zoe_acute)):
        found = client.post(f"/api/rooms/{code}/reclaim", json={"name": name, "pin": seat["pin"]})
        assert found.status_code == 200, (name, found.text)
        assert found.json()["seat"] == joined.index(seat)
    either = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Zoe", "pin": "0000"})
    assert either.status_code == 404 and either.json()["code"] == "no_such_name"


def test_wrong_pins_are_403_then_429_with_retry_after(client: TestClient) -> None:
    code, _host, joined = room_with(client, "hidden_leaders", ["Ann", "Ben"])
    right = joined[0]["pin"]
    wrong = f"{(int(right) + 1) % 10_000:04d}"
    for _ in range(5):
        refused = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Ann", "pin": wrong})
        assert refused.status_code == 403 and refused.json()["code"] == "wrong_pin"
    blocked = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Ann", "pin": right})
    assert blocked.status_code == 429, "after 5 wrong tries even the right PIN waits"
    assert 0 < int(blocked.headers["Retry-After"]) <= 600
    # Another seat's tries are its own.
    ben = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Ben", "pin": joined[1]["pin"]})
    assert ben.status_code == 200
    nobody = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Zoe", "pin": "1234"})
    assert nobody.status_code == 404


def test_a_seat_handed_to_a_bot_is_taken_back_with_the_pin(client: TestClient) -> None:
    code, host, joined = room_with(client, "heirs", ["Ann", "Ben"])
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    assert client.delete(f"/api/rooms/{code}/seats/1", headers=auth(host)).status_code == 200
    live = live_room(client, code)
    assert live.seats[1].is_bot
    wait_for(
        lambda: HEIRS.prompt(current_match(live).state, 1) is None, "the bot to seal Ben's setup"
    )
    back = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Ben", "pin": joined[1]["pin"]})
    assert back.status_code == 200
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert seats[1]["bot"] is False and seats[1]["name"] == "Ben"
    # Ben's phone finds the setup the bot sealed for him, and says whose it was.
    ben = back.json()["token"]
    me = client.get(f"/api/rooms/{code}/me", headers=auth(ben)).json()
    assert me["prompt"] is None and me["sealed_by"] == "bot"
    ann = client.get(f"/api/rooms/{code}/me", headers=auth(joined[0]["token"])).json()
    assert ann["sealed_by"] is None, "Ann sealed nothing yet"
    client.cookies.set(f"pecet_seat_{code}", ben)
    page = client.get(f"/r/{code}").text
    assert 'data-testid="sealed-by-bot"' in page
    assert 'data-testid="sealed-order"' in page and "<dt>Character</dt>" in page, "what it sealed"
    order = HEIRS.random_order(current_match(live).state, 0, Rng(2))
    ann = joined[0]["token"]
    assert client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(ann)).is_success
    # The next decision is Ben's own again: the bot does not seal it.
    me = client.get(f"/api/rooms/{code}/me", headers=auth(ben)).json()
    assert me["prompt"]["kind"] == "orders" and me["sealed_by"] is None
    assert 'data-testid="sealed-by-bot"' not in client.get(f"/r/{code}").text
    time.sleep(0)  # the bots had their turn on the loop; Ben's order is still open
    assert HEIRS.prompt(current_match(live).state, 1) is not None


def test_the_board_shows_who_is_away(quick_away: TestClient) -> None:
    client = quick_away
    code, _host, joined = room_with(client, "heirs", ["Ann", "Ben"], bots=1)

    def seats() -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = client.get(f"/api/rooms/{code}").json()["seats"]
        return listed

    with client.websocket_connect(f"/ws/rooms/{code}?token={joined[0]['token']}") as phone:
        phone.receive_json()
        wait_for(lambda: not seats()[1]["connected"], "Ben, who never connected, to be away")
        now = seats()
        assert now[0]["connected"] and now[0]["away_since"] is None
        assert now[2]["connected"] and now[2]["bot"], "a bot is always there"
        assert now[1]["away_since"] is not None
    # Ann's phone closed: a moment later she is away too, and the board is told.
    with client.websocket_connect(f"/ws/rooms/{code}/board") as board:
        board.receive_json()
        frame = wait_for(
            lambda: (f := board.receive_json()) and not f["seats"][0]["connected"] and f,
            "the board to learn that Ann is away",
        )
        assert frame["seats"][0]["away_since"] is not None


def test_watchers_predict_and_score_oracle_points(client: TestClient) -> None:
    """A round robin of three: the entrant who sits a pairing out predicts its winner before
    its first round; predictions lock then, show at the end, and score oracle points."""
    code, host, joined = room_with(
        client, "hidden_leaders", ["Eva"], bots=2, tournament={"count": 1}
    )
    eva = auth(joined[0]["token"])
    # Paused, the bots wait: the first pairing's first round is not played before Eva looks.
    pause = {"paused": True}
    assert client.post(f"/api/rooms/{code}/pause", json=pause, headers=auth(host)).is_success
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    live = live_room(client, code)
    if 0 not in current_match(live).players:
        offer = client.get(f"/api/rooms/{code}/me", headers=eva).json()["prediction"]
        assert offer is not None and offer["match"] == 1
        assert (
            client.post(
                f"/api/rooms/{code}/predictions", json={"winner": 7}, headers=eva
            ).status_code
            == 422
        ), "a winner must play the match"
        pick = {"winner": offer["players"][0]}
        assert client.post(f"/api/rooms/{code}/predictions", json=pick, headers=eva).is_success
        during = client.get(f"/api/rooms/{code}").json()["predictions"]
        assert during == [{"seat": 0}], "who predicted shows; what, only at the end"
    pause = {"paused": False}
    assert client.post(f"/api/rooms/{code}/pause", json=pause, headers=auth(host)).is_success
    scored = 0
    for _ in range(8):
        match = current_match(live)
        if match.status == "playing" and 0 not in match.players:
            offer = client.get(f"/api/rooms/{code}/me", headers=eva).json()["prediction"]
            if offer is None:  # the bots were faster than us: the first round is played
                assert match.history
            else:
                assert offer["players"] == match.players and offer["endings"] == []
                winner = match.players[0]
                response = client.post(
                    f"/api/rooms/{code}/predictions", json={"winner": winner}, headers=eva
                )
                assert response.status_code in (200, 409), response.text
        while 0 in match.players and match.status == "playing":  # Eva plays her own
            me = client.get(f"/api/rooms/{code}/me", headers=eva).json()
            if me["prompt"] is not None:
                order = order_from_prompt(me["prompt"])
                client.post(f"/api/rooms/{code}/orders", json=order, headers=eva)
            else:
                time.sleep(0.005)
        wait_for(partial(is_finished, match), "the pairing to end", 60)
        board = client.get(f"/api/rooms/{code}").json()
        for guess in board["predictions"]:
            assert {"winner", "right_winner", "points"} <= set(guess)
            scored += 1
        if board["tournament"]["over"]:
            break
        offer = client.get(f"/api/rooms/{code}/me", headers=eva).json()["prediction"]
        if offer is not None:  # Eva watches the next pairing: she predicts it now
            pick = offer["players"][1]
            assert client.post(
                f"/api/rooms/{code}/predictions", json={"winner": pick}, headers=eva
            ).is_success
            again = client.get(f"/api/rooms/{code}/me", headers=eva).json()["prediction"]
            assert again["winner"] == pick
        assert client.post(f"/api/rooms/{code}/ready", headers=auth(host)).status_code == 200
    assert scored >= 1, "Eva watched a pairing of the three"
    tournament = client.get(f"/api/rooms/{code}").json()["tournament"]
    oracle = {row["seat"]: row["points"] for row in tournament["oracle"]}
    assert set(oracle) == {0}
    finished = [r for r in live.results]
    expected = 0
    for result in finished:
        made = live.predictions.get(result["number"], {}).get(0)
        if made is not None:
            winners = [result["players"][w] for w in result["outcome"].get("winners") or []]
            winners = winners or (
                [result["players"][result["outcome"]["winner"]]]
                if result["outcome"].get("winner") is not None
                else []
            )
            expected += int(made[0] in winners)
    assert oracle[0] == expected
    # A player may not predict its own match.
    refused = client.post(f"/api/rooms/{code}/predictions", json={"winner": 1}, headers=eva)
    assert refused.status_code == 409


def test_a_mixed_night_seats_everyone_and_bots_play_every_game(client: TestClient) -> None:
    """Hosted as Heirs with styled bots, a night of Hidden Leaders then Heirs: the room seats
    six, the third phone joins, a bot's Heirs style falls back to each game's own."""
    code, host, joined = room_with(client, "heirs", ["Ann", "Ben", "Cyril"])
    plan = {"tournament": {"games": ["hidden_leaders", "heirs"], "final_double": True}}
    made = client.post(f"/api/rooms/{code}/tournament", json=plan, headers=auth(host))
    assert made.status_code == 200, made.text
    board = client.get(f"/api/rooms/{code}").json()
    assert board["max_players"] == 6
    stages = board["tournament"]["stages"]
    assert stages == [
        {"game": "hidden_leaders", "matches": 3, "round_robin": True},
        {"game": "heirs", "matches": 1, "round_robin": False},
    ]
    assert (
        client.post(f"/api/rooms/{code}/bots", json={"style": "expander"}, headers=auth(host))
    ).status_code == 201
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    for seat in joined:  # the people leave their seats to bots: a night of bots
        client.delete(f"/api/rooms/{code}/seats/{seat['seat']}", headers=auth(host))
    live = live_room(client, code)
    for _ in range(12):
        wait_for(lambda: current_match(live).status == "finished", "the match to end", 90)
        tournament = client.get(f"/api/rooms/{code}").json()["tournament"]
        if tournament["over"]:
            break
        assert client.post(f"/api/rooms/{code}/ready", headers=auth(host)).status_code == 200
    assert tournament["over"]
    games = tournament["games_played"]
    assert games.count("heirs") == 1 and games[-1] == "heirs"
    assert games.count("hidden_leaders") >= 6, "a round robin of four: six pairings"
    heirs = live.results[-1]
    assert sorted(heirs["players"]) == [0, 1, 2, 3], "Heirs seats everyone"
    doubled = {row["seat"]: row["per_game"][-1] for row in tournament["standings"]}
    points = heirs["outcome"]["game_points"]
    for engine_seat, seat in enumerate(heirs["players"]):
        assert doubled[seat] == 2 * points[str(engine_seat)], "Final ×2: the last stage"


@pytest.mark.server
def test_a_night_of_all_three_games_for_four_bots_through_a_real_server(
    server: ServerProcess,
) -> None:
    """Four seats, a night of Hidden Leaders → Legions → Heirs with Final ×2: the duel games
    are round robins (six pairings each, L7.3 rematches after draws), Heirs seats all four;
    after every game the standings add exactly what its outcome scored."""
    with httpx.Client(base_url=server.base_url, timeout=30) as http:
        night = {"games": ["hidden_leaders", "legions", "heirs"], "final_double": True}
        created = http.post("/api/rooms", json={"game": "heirs", "tournament": night})
        assert created.status_code == 201, created.text
        code, host = created.json()["code"], auth(created.json()["host_token"])
        for style in ("warlord", "expander", "raider", "novice"):
            added = http.post(f"/api/rooms/{code}/bots", json={"style": style}, headers=host)
            assert added.status_code == 201
        assert http.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
        expected: dict[int, list[Any]] = {seat: [] for seat in range(4)}
        games: list[str] = []
        for number in range(1, 30):

            def ended(n: int = number) -> dict[str, Any] | None:
                room: dict[str, Any] = http.get(f"/api/rooms/{code}").json()
                return room if room["match"] == n and room["status"] == "finished" else None

            board = wait_for(ended, f"game {number} to end", 120)
            games.append(board["game"])
            seats = [p["seat"] for p in board["players"]]
            outcome = board["outcome"]
            final = board["game"] == "heirs"  # the last stage of the plan: doubled (H20.3)
            for seat in range(4):
                if seat not in seats:
                    expected[seat].append(None)
                    continue
                engine_seat = seats.index(seat)
                if board["game"] == "heirs":
                    points: Any = outcome["game_points"][str(engine_seat)]
                else:
                    winners = outcome.get("winners")
                    if winners is None:
                        winners = [] if outcome.get("winner") is None else [outcome["winner"]]
                    points = 0.5 if not winners else int(engine_seat in winners)
                expected[seat].append(points * (2 if final else 1))
            tournament = board["tournament"]
            for row in tournament["standings"]:
                assert row["per_game"] == expected[row["seat"]], (number, row)
                assert row["points"] == sum(p for p in expected[row["seat"]] if p is not None)
            if tournament["over"]:
                break
            assert http.post(f"/api/rooms/{code}/ready", headers=host).status_code == 200
        assert tournament["over"]
        assert games[-1] == "heirs" and games.count("heirs") == 1
        assert games.count("legions") == 6, "a round robin of four: six pairings"
        assert games.count("hidden_leaders") >= 6
        places = [row["place"] for row in tournament["standings"]]
        assert places == sorted(places) and places[0] == 1
        # The TV's table numbers its game columns and marks a game sat out "–": said under it.
        page = http.get(f"/b/{code}").text
        legend = page.split('data-testid="standings-legend">', 1)[1].split("</p>", 1)[0]
        assert legend == "1, 2, …: the games in the order played · –: sat that game out"


def test_presence_follows_a_seat_the_host_moved(quick_away: TestClient) -> None:
    """Pavel and Quido's phones are open; the host moves Quido up to the first seat, then
    Pavel's phone closes: Pavel is away, not Quido (the socket counted on the seat's old
    number, which was Quido's after the move)."""
    client = quick_away
    code, host, joined = room_with(client, "heirs", ["Pavel", "Quido"])
    pavel, quido = (seat["token"] for seat in joined)

    def seats() -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = client.get(f"/api/rooms/{code}").json()["seats"]
        return listed

    with client.websocket_connect(f"/ws/rooms/{code}?token={quido}") as quido_phone:
        quido_phone.receive_json()
        with client.websocket_connect(f"/ws/rooms/{code}?token={pavel}") as pavel_phone:
            pavel_phone.receive_json()
            moved = client.post(
                f"/api/rooms/{code}/seats/1/move", json={"to": 0}, headers=auth(host)
            )
            assert moved.status_code == 200, moved.text
            assert [s["name"] for s in seats()] == ["Quido", "Pavel"]

        def pavel_away() -> list[dict[str, Any]] | None:
            listed = seats()
            return None if listed[1]["connected"] else listed

        now = wait_for(pavel_away, "Pavel, whose phone closed, to be away")
        assert now[0]["name"] == "Quido" and now[0]["connected"], now
        assert now[0]["away_since"] is None


def test_a_phone_the_host_removes_in_the_lobby_is_told_so(client: TestClient) -> None:
    """Removed in the lobby, Dan's phone heard "This seat is played elsewhere … come back with
    your seat PIN", and the come-back then found nobody called Dan: it is told that the host
    removed it, and may join again. A seat handed to a bot in a game watches on instead."""
    code, host, joined = room_with(client, "heirs", ["Ann", "Dan"])
    with client.websocket_connect(f"/ws/rooms/{code}?token={joined[1]['token']}") as dan:
        assert dan.receive_json()["type"] == "view"
        assert client.delete(f"/api/rooms/{code}/seats/1", headers=auth(host)).status_code == 200
        with pytest.raises(WebSocketDisconnect) as closed:
            while (frame := dan.receive_json())["type"] == "view":
                pass
            assert frame["type"] == "error" and frame["code"] == "removed", frame
            assert frame["detail"] == "The host removed you from this room. You may join it again."
            dan.receive_json()
        assert closed.value.code == 1008
    again = client.post(f"/api/rooms/{code}/seats", json={"name": "Dan"})
    assert again.status_code == 201, "Dan may join again"
    with client.websocket_connect(f"/ws/rooms/{code}?token={again.json()['token']}") as dan:
        dan.receive_json()
        assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
        assert client.delete(f"/api/rooms/{code}/seats/1", headers=auth(host)).status_code == 200
        # In a game the seat goes to a bot, and the phone stays on as a watcher of it
        # (test_ws: a phone whose seat goes to a bot watches to the result).
        for _ in range(50):
            frame = dan.receive_json()
            assert frame["type"] in ("view", "log", "sealed", "step"), frame
            if frame["type"] == "view" and frame["you"].get("handed"):
                break
        else:
            raise AssertionError("the phone never heard its seat went to a bot")
        assert frame["prompt"] is None and frame["you"]["player"] is None


def test_a_removed_phone_s_page_offers_to_join_again_not_to_come_back() -> None:
    from types import SimpleNamespace

    from app.pages import render_error

    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    error = {"type": "error", "code": "removed", "detail": "The host removed you from this room."}
    for lang, words in (("en", "Join again"), ("cs", "Připojit se znovu")):
        html = render_error(live, error, lang, board=False)
        assert 'data-testid="removed"' in html and f'<a href="/j/ABCD">{words}</a>' in html
        assert "back=1" not in html


def test_a_night_called_off_with_too_many_players_says_so(client: TestClient) -> None:
    """Three sat down for a night of Hidden Leaders; the host chose "just one game": the
    lobby said "Players 3/2" with Start on, and Start answered "Those settings do not fit this
    game". Start is off, the lobby says what to do, and a start is refused in those words."""
    code, host, _joined = room_with(
        client, "hidden_leaders", ["Ann"], bots=2, tournament={"count": 1}
    )
    one = client.post(
        f"/api/rooms/{code}/tournament", json={"tournament": None}, headers=auth(host)
    )
    assert one.status_code == 200, one.text
    refused = client.post(f"/api/rooms/{code}/start", headers=auth(host))
    assert refused.status_code == 409 and refused.json()["code"] == "too_many_players"
    assert "seats at most 2 players; 3 joined" in refused.json()["detail"]
    client.cookies.set(f"pecet_host_{code}", host)
    lobby = client.get(f"/b/{code}").text
    assert re.search(r'data-testid="start" disabled', lobby)
    assert "One player too many for Hidden Leaders Duel: remove one" in unescape(lobby)
