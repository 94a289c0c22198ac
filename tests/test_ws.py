"""Websockets: two phones and a board play a whole duel; every frame is checked for secrets."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from engine.core import replay
from engine.registry import get_rules
from tests.hl_secrets import SecretOracle, leaked
from tests.live import order_log
from tests.play import Follower, auth, create_room, join, start_duel

Frame = dict[str, Any]


class Screen:
    """One websocket client that keeps every frame it was sent."""

    def __init__(
        self, socket: WebSocketTestSession, seat: int | None, frames: list[Frame] | None = None
    ) -> None:
        self.socket = socket
        self.seat = seat
        self.frames: list[Frame] = [] if frames is None else frames
        self.follower = Follower()

    def next(self) -> Frame:
        """The next view as the client holds it (the log's frames put back in as its
        ``history``, the very thing the secrecy checks then read), or an error frame."""
        while (frame := self.follower.take(self.socket.receive_json()))["type"] == "log":
            pass
        self.frames.append(frame)
        return frame

    def until_version(self, version: int) -> Frame:
        """Read frames until one shows the game at ``version`` once the board has played it
        out (older ones, and the steps of its show, may come first)."""
        while True:
            frame = self.next()
            settled = frame.get("show") is None
            if frame.get("type") == "view" and frame.get("version") == version and settled:
                return frame


def order_for(frame: Frame) -> Frame:
    prompt = frame["prompt"]
    if prompt["kind"] == "take":
        return {"type": "take", "slots": prompt["takeable"][-prompt["count"] :]}
    returns = dict(zip(prompt["open_slots"], prompt["hand"], strict=False))
    left = [c for c in prompt["hand"] if c not in returns.values()]
    targets = prompt["block_targets"]
    # Block now and then, so that blocking heroes and their owners are part of the check.
    if targets and len(left) > 1 and frame["version"] % 4 == 1:
        placement = {"to": "block", "card": left[-1], "slot": targets[0]}
    else:
        placement = {"to": "council", "card": left[0]}
    return {"type": "place", "returns": returns, "placement": placement}


def test_two_phones_and_a_board_play_a_duel_and_no_frame_leaks(client: TestClient) -> None:
    code, _host, tokens = start_duel(client)
    with (
        client.websocket_connect(f"/ws/rooms/{code.lower()}?token={tokens[0]}") as ws0,
        client.websocket_connect(f"/ws/rooms/{code}?token={tokens[1]}") as ws1,
        client.websocket_connect(f"/ws/rooms/{code}/board") as board_ws,
    ):
        phones = [Screen(ws0, 0), Screen(ws1, 1)]
        sockets: list[Any] = []
        board = Screen(board_ws, None)
        latest = [phone.until_version(0) for phone in phones]
        board_frame = board.until_version(0)
        assert "prompt" not in board_frame and "you" not in board_frame
        version = 0
        while board_frame["status"] == "playing":
            (active,) = board_frame["to_act"]
            phones[active].socket.send_json({"type": "order", "order": order_for(latest[active])})
            version += 1
            latest = [phone.until_version(version) for phone in phones]
            board_frame = board.until_version(version)
            if version == 9:  # the second phone drops off mid-game and comes back
                phones[1].socket.close()
                reconnected = client.websocket_connect(f"/ws/rooms/{code}?token={tokens[1]}")
                sockets.append(reconnected)
                phones[1] = Screen(reconnected.__enter__(), 1, phones[1].frames)
                latest[1] = phones[1].next()
                assert latest[1]["version"] == version, "a full view right on reconnect"
                assert latest[1]["view"]["me"]["hand"], "with the seat's own hand"
        assert board_frame["status"] == "finished"
        assert board_frame["outcome"]["result"] in ("A", "B", "REMATCH")
        assert latest[0]["outcome"] == latest[1]["outcome"] == board_frame["outcome"]
        assert version == 28
        for extra in sockets:
            extra.__exit__(None, None, None)

    match, orders = order_log(client, code)
    assert any(order.get("placement", {}).get("to") == "block" for _seat, order in orders)
    rules = get_rules("hidden_leaders")
    states = replay(rules, match.seats, match.seed, match.options, orders)
    assert rules.to_json(states[-1]) == match.state, "the log rebuilds the stored snapshot"
    oracle = SecretOracle()
    forbidden: dict[tuple[int, int | None], set[str]] = {}
    for number, state in enumerate(states):
        oracle.observe(state)
        for viewer in (0, 1, None):
            forbidden[number, viewer] = oracle.forbidden(state, viewer)
    checked = 0
    for screen in (*phones, board):
        for frame in screen.frames:
            assert leaked(frame, forbidden[frame["version"], screen.seat]) == [], (
                screen.seat,
                frame["version"],
            )
            checked += 1
    assert checked >= 3 * 29


def until_finished(screen: Screen) -> list[Frame]:
    """Every view a socket is sent until the match is over and shown (each as the client
    holds it); an error frame fails the test."""
    frames = []
    while True:
        frame = screen.next()
        assert frame["type"] == "view", frame
        frames.append(frame)
        if frame["status"] == "finished" and frame["show"] is None:
            return frames


@pytest.mark.parametrize("game", ["hidden_leaders", "legions"])
def test_a_phone_whose_seat_goes_to_a_bot_watches_to_the_result_and_sees_no_more(
    client: TestClient, game: str
) -> None:
    """The host hands a phone's seat to a bot mid-game. The phone was closed out (1008), sent
    to the join page, and never saw how the game ended unless it took the seat back. It stays
    in the room: each view it is sent from then on is the board's own (no hand, decision,
    sealed order or PIN of the seat), to the result; its page says a bot plays its seat and
    links the way back; its orders are refused. Both seats go to bots, which finish the
    game; the phone's PIN still brings it back, and then its watching token is spent."""
    code, host, tokens = start_duel(client, game)
    base = f"/ws/rooms/{code}"
    with (
        client.websocket_connect(f"{base}?token={tokens[0]}") as json_socket,
        client.websocket_connect(f"{base}?token={tokens[0]}&format=html") as page,
        client.websocket_connect(f"{base}/board") as board_socket,
    ):
        phone, board = Screen(json_socket, 0), Screen(board_socket, None)
        own = phone.next()
        assert own["you"]["pin"] and own["view"] != board.next()["view"], "its own secrets"
        assert 'data-testid="seat-pin"' in page.receive_text()
        for seat in (0, 1):
            handed = client.delete(f"/api/rooms/{code}/seats/{seat}", headers=auth(host))
            assert handed.is_success, handed.text
        watched, public = until_finished(phone), until_finished(board)
        boards = {(f["version"], str(f["show"])): f for f in public}
        same = 0
        for frame in watched:
            assert frame["you"] == {**own["you"], "player": None, "pin": "", "handed": True}
            assert frame["prompt"] is None and frame["my_commitment"] is None
            assert frame["time_ran_out"] is None and frame["sealed_by"] is None
            assert frame["timer_order"] is None and frame["prediction"] is None
            assert "me" not in (frame["view"] or {}), "the seat's own part of the view"
            twin = boards.get((frame["version"], str(frame["show"])))
            if twin is not None:
                assert frame["view"] == twin["view"], frame["version"]
                assert frame["history"] == twin["history"], frame["version"]
                same += 1
        assert same >= 3, "the board's views were met along the way"
        assert watched[-1]["outcome"] == public[-1]["outcome"] is not None
        json_socket.send_json({"type": "order", "order": {}})
        assert phone.socket.receive_json()["code"] == "bad_token"
        while 'data-status="finished"' not in (html := page.receive_text()):
            pass
        assert 'data-testid="handed"' in html and 'data-testid="come-back-link"' in html
        assert 'data-testid="seat-pin"' not in html and 'data-testid="ready"' not in html
    client.cookies.set(f"pecet_seat_{code}", tokens[0])
    result = client.get(f"/r/{code}", follow_redirects=False)
    assert result.status_code == 200 and 'data-testid="handed"' in result.text
    assert f'href="/j/{code}?back=1&amp;name=Ema"' in result.text
    back = client.post("/reclaim", data={"code": code, "name": "Ema", "pin": own["you"]["pin"]})
    assert back.url.path == f"/r/{code}" and 'data-testid="new-pin"' in back.text
    assert 'data-testid="handed"' not in back.text, "the seat is its own again"
    client.cookies.clear()
    client.cookies.set(f"pecet_seat_{code}", tokens[0])
    gone = client.get(f"/r/{code}", follow_redirects=False)
    assert gone.status_code == 303 and gone.headers["location"] == f"/j/{code}?back=1"
    client.cookies.clear()


def test_a_phone_reconnects_and_gets_its_full_view(client: TestClient) -> None:
    code, _host, tokens = start_duel(client)
    board = client.get(f"/api/rooms/{code}").json()
    (active,) = board["to_act"]
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[active]}") as socket:
        first = Screen(socket, active).until_version(0)
        socket.send_json({"type": "order", "order": order_for(first)})
        after_take = Screen(socket, active).until_version(1)
    assert after_take["prompt"]["kind"] == "place"
    # The phone slept; on waking it reconnects and is sent its whole view, prompt included.
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[active]}") as socket:
        again = Screen(socket, active).next()
    assert again["type"] == "view" and again["version"] == 1
    assert again["prompt"] == after_take["prompt"]
    assert again["view"]["me"]["hand"] == after_take["view"]["me"]["hand"]
    assert again["view"]["me"]["taken"], "the cards just taken are still shown to their taker"


def test_bad_token_and_unknown_room_close_with_1008(client: TestClient) -> None:
    code, _host, _tokens = start_duel(client)
    for url in (f"/ws/rooms/{code}?token=forged", f"/ws/rooms/{code}", "/ws/rooms/ZZZZ/board"):
        with client.websocket_connect(url) as socket, pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_json()
        assert closed.value.code == 1008, url


def test_a_socket_at_any_other_path_is_refused(client: TestClient) -> None:
    """Room sockets are served ahead of the HTTP stack (app/main.py); every other socket path
    still takes the usual way and is refused there, before any room code runs."""
    code, _host, tokens = start_duel(client)
    for url in (
        f"/ws/rooms/{code}/elsewhere?token={tokens[0]}",
        f"/ws/rooms/{code}/board/",
        "/ws/rooms/",
        f"/ws/room/{code}",
    ):
        with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(url):
            pass
        assert closed.value.code == 1000, url


def test_malformed_and_illegal_frames_get_error_frames_and_the_socket_lives_on(
    client: TestClient,
) -> None:
    code, _host, tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[active]}") as socket:
        screen = Screen(socket, active)
        view = screen.until_version(0)
        for bad in ("not json", "[1, 2]", '"text"', "{}", '{"type": "dance"}', "x" * 70_000):
            socket.send_text(bad)
            error = screen.next()
            assert error["type"] == "error" and error["detail"], bad
        socket.send_json({"type": "order", "order": "take everything"})
        assert screen.next()["code"] == "malformed"
        socket.send_json({"type": "order", "order": {"type": "take", "slots": ["A1", "Q9"]}})
        illegal = screen.next()
        assert illegal["type"] == "error" and "Q9" in illegal["detail"]
        socket.send_json({"type": "ready"})
        assert screen.next()["code"] == "not_finished"
        socket.send_json({"type": "ping"})
        assert screen.next() == {"type": "pong"}
        socket.send_json({"type": "order", "order": order_for(view)})
        assert screen.until_version(1)["prompt"]["kind"] == "place"
    me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[active])).json()
    assert me["version"] == 1


def test_the_waiting_phone_is_told_it_is_not_its_turn(client: TestClient) -> None:
    code, _host, tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[1 - active]}") as socket:
        screen = Screen(socket, 1 - active)
        assert screen.until_version(0)["prompt"] is None
        socket.send_json({"type": "order", "order": {"type": "take", "slots": ["A1", "A2"]}})
        refusal = screen.next()
        assert refusal["type"] == "error" and refusal["code"] == "not_your_turn"


def test_a_board_only_watches(client: TestClient) -> None:
    code, _host, _tokens = start_duel(client)
    with client.websocket_connect(f"/ws/rooms/{code}/board") as socket:
        screen = Screen(socket, None)
        screen.until_version(0)
        socket.send_json({"type": "order", "order": {"type": "take", "slots": ["A1", "A2"]}})
        assert screen.next()["code"] == "read_only"
    assert client.get(f"/api/rooms/{code}").json()["version"] == 0


def test_a_ping_brings_a_socket_the_view_it_missed_and_else_a_pong(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pages ping after 10 s without a frame; a broadcast lost on its way (a fault that
    cannot be caused from outside: it is dropped here) is made good by the answer."""
    room = create_room(client)
    code = room["code"]
    hub = client.app.state.hub  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/rooms/{code}/board") as socket:
        screen = Screen(socket, None)
        assert screen.next()["seats"] == []
        socket.send_json({"type": "ping"})
        assert socket.receive_json() == {"type": "pong"}  # nothing missed

        # The hub hears of changes as the room service's listener: this change goes unheard.
        monkeypatch.setattr(hub.service, "_listeners", [])
        join(client, code, "Ema")
        socket.send_json({"type": "ping"})
        view = screen.next()
        assert view["type"] == "view" and [s["name"] for s in view["seats"]] == ["Ema"]
        socket.send_json({"type": "ping"})
        assert socket.receive_json() == {"type": "pong"}
