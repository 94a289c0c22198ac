"""Websocket frames that used to kill the socket get an error frame instead (issue 13.5).

Each bad frame is answered with ``{"type": "error", "code", "detail"}``; then the same socket
still answers a ping with a pong and still receives views.
"""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from tests.live import room_service
from tests.play import auth, create_room, join, order_from_prompt, start_duel

Frame = dict[str, Any]

DEEP_OBJECT = '{"type": "order", "order": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}"

BAD_TEXT_FRAMES: list[tuple[str, str, str]] = [
    ("a 30,000-deep array (a RecursionError in json.loads)", "[" * 30_000, "malformed"),
    ("an object nested 40 deep", DEEP_OBJECT, "malformed"),
    ("a 1 MiB text frame", "x" * (1 << 20), "too_large"),
    ("a 1 MiB JSON object", json.dumps({"type": "ping", "pad": "x" * (1 << 20)}), "too_large"),
    ("a JSON array", "[1, 2]", "malformed"),
    ("a JSON string", '"order"', "malformed"),
    ("a JSON number", "1e999", "malformed"),
    ("JSON null", "null", "malformed"),
    ("not JSON", "{order", "malformed"),
    ("an unknown type", '{"type": "dance"}', "unknown_type"),
    ("a type that is not text", '{"type": ["order"]}', "unknown_type"),
]
BAD_BINARY_FRAMES: list[tuple[str, bytes]] = [
    ("a binary frame", b'{"type": "ping"}'),
    ("an empty binary frame", b""),
    ("a 1 MiB binary frame", b"\x00" * (1 << 20)),
]


def next_frame(socket: WebSocketTestSession) -> Frame:
    """The next frame but the match's log (its frames come before a view)."""
    while (frame := socket.receive_json())["type"] == "log":
        pass
    result: Frame = frame
    return result


def first_view(socket: WebSocketTestSession) -> Frame:
    """The view sent on connect, once any show has settled."""
    while True:
        frame = next_frame(socket)
        if frame["type"] == "view" and frame.get("show") is None:
            return frame


def assert_error_then_alive(socket: WebSocketTestSession, code: str, what: str) -> None:
    error = next_frame(socket)
    assert error["type"] == "error", what
    assert error["code"] == code, (what, error)
    assert isinstance(error["detail"], str) and error["detail"], what
    socket.send_json({"type": "ping"})
    assert next_frame(socket) == {"type": "pong"}, what


def test_bad_frames_to_a_phone_get_error_frames_and_the_socket_plays_on(
    client: TestClient,
) -> None:
    """issue 13.5: binary, deep, huge, non-object and unknown frames each get an error frame;
    the same socket then answers a ping and receives the view of a legal order."""
    code, _host, tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[active]}") as socket:
        view = first_view(socket)
        for what, text, error_code in BAD_TEXT_FRAMES:
            socket.send_text(text)
            assert_error_then_alive(socket, error_code, what)
        for what, data in BAD_BINARY_FRAMES:
            socket.send_bytes(data)
            assert_error_then_alive(socket, "binary", what)
        socket.send_json({"type": "order", "order": order_from_prompt(view["prompt"])})
        after = first_view(socket)
        assert after["version"] == 1 and after["prompt"]["kind"] == "place"
    me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[active])).json()
    assert me["version"] == 1


def test_bad_frames_to_a_board_get_error_frames_and_it_keeps_watching(client: TestClient) -> None:
    """issue 13.5: a board's socket survives the same frames and still gets the next view."""
    code, _host, tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    with client.websocket_connect(f"/ws/rooms/{code}/board") as socket:
        assert first_view(socket)["version"] == 0
        for what, text, error_code in BAD_TEXT_FRAMES:
            if error_code == "unknown_type":
                error_code = "read_only"  # a well-formed frame: a board only watches
            socket.send_text(text)
            assert_error_then_alive(socket, error_code, what)
        for what, data in BAD_BINARY_FRAMES:
            socket.send_bytes(data)
            assert_error_then_alive(socket, "binary", what)
        me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[active])).json()
        posted = client.post(
            f"/api/rooms/{code}/orders",
            json=order_from_prompt(me["prompt"]),
            headers=auth(tokens[active]),
        )
        assert posted.status_code == 202, posted.text
        while (frame := first_view(socket))["version"] < 1:
            pass
        assert frame["version"] == 1


@pytest.mark.parametrize(
    "order",
    [
        {"kind": "seal", "legions": [1, "a"]},
        {"kind": "peek", "location": [None]},
        {"kind": "seal", "legions": [[[]]]},
        {"kind": ["seal"]},
    ],
    ids=["mixed-types", "unhashable-location", "nested-lists", "kind-a-list"],
)
def test_malformed_legions_orders_get_an_error_frame_and_the_socket_lives(
    client: TestClient, order: Frame
) -> None:
    """issue 13.2 and 13.5: order values that made Legions raise (``sorted()`` of mixed
    types, an unhashable location) get an error frame, whatever the engine raises, and the
    socket still answers."""
    room = create_room(client, game="legions")
    tokens = [join(client, room["code"], name)["token"] for name in ("Ema", "Petr")]
    started = client.post(f"/api/rooms/{room['code']}/start", headers=auth(room["host_token"]))
    assert started.status_code == 200, started.text
    with client.websocket_connect(f"/ws/rooms/{room['code']}?token={tokens[0]}") as socket:
        first_view(socket)
        socket.send_json({"type": "order", "order": order})
        error = next_frame(socket)
        assert error["type"] == "error" and error["code"] and error["detail"], error
        socket.send_json({"type": "ping"})
        assert next_frame(socket) == {"type": "pong"}


def test_an_unexpected_failure_is_logged_once_and_answered_invalid(
    client: TestClient, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """issue 13.5: an exception no refusal foresaw, raised while an order is handled, gets an
    error frame with code ``invalid``; its traceback is logged once, not once a frame, and the
    socket goes on serving views. The fault is injected: once the engines refuse every bad
    order (issue 13.2) no frame can cause one."""
    code, _host, tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    rooms = room_service(client)
    real_submit = rooms.submit

    async def submit_failing_on_a_marked_order(code: str, token: str | None, order: Any) -> None:
        if isinstance(order, dict) and order.get("boom"):
            raise TypeError("'<' not supported between instances of 'str' and 'int'")
        await real_submit(code, token, order)

    monkeypatch.setattr(rooms, "submit", submit_failing_on_a_marked_order)
    caplog.set_level(logging.WARNING, logger="pecet.ws")
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[active]}") as socket:
        view = first_view(socket)
        for _attempt in range(3):
            socket.send_json({"type": "order", "order": {"boom": True}})
            assert_error_then_alive(socket, "invalid", "an order that fails inside submit")
        socket.send_json({"type": "order", "order": order_from_prompt(view["prompt"])})
        assert first_view(socket)["version"] == 1
    with_traceback = [r for r in caplog.records if r.name == "pecet.ws" and r.exc_info]
    assert len(with_traceback) == 1
    assert with_traceback[0].exc_info is not None
    assert with_traceback[0].exc_info[0] is TypeError
    assert code in with_traceback[0].getMessage()
    summaries = [r.getMessage() for r in caplog.records if r.name == "pecet.ws" and not r.exc_info]
    assert summaries == [f"2 more frames failed on that socket of room {code}"]
    assert tokens[active] not in caplog.text
    assert client.get("/healthz").json() == {"status": "ok"}


def test_a_seat_token_opens_no_other_room_and_no_other_seat(client: TestClient) -> None:
    """issue 13.5 (foreign seats): a seat's token, in the URL or in its cookie, opens no
    socket of another room; a frame naming another seat still acts for the socket's own seat
    (the waiting seat is told it is not its turn and the game does not move)."""
    code, _host, tokens = start_duel(client)
    other_code, _other_host, other_tokens = start_duel(client)
    (active,) = client.get(f"/api/rooms/{code}").json()["to_act"]
    client.cookies.set(f"pecet_seat_{other_code}", other_tokens[0])
    for url in (f"/ws/rooms/{code}?token={other_tokens[0]}", f"/ws/rooms/{code}"):
        with (
            client.websocket_connect(url) as socket,
            pytest.raises(WebSocketDisconnect) as closed,
        ):
            socket.receive_json()
        assert closed.value.code == 1008, url
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[1 - active]}") as socket:
        view = first_view(socket)
        me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[active])).json()
        order = order_from_prompt(me["prompt"])
        for frame in (
            {"type": "order", "seat": active, "order": order},
            {"type": "order", "order": {**order, "seat": active}},
            {"type": "order", "token": tokens[active], "order": order},
        ):
            socket.send_json(frame)
            assert next_frame(socket)["code"] == "not_your_turn", frame
        assert view["prompt"] is None
    assert client.get(f"/api/rooms/{code}").json()["version"] == 0
