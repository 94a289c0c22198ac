"""Websocket fuzz (issue 13, permanent guards; 13.5): whatever a phone's socket sends (binary,
huge, deeply nested, not JSON, unknown types, orders of any shape, another seat's number),
every answer is a view, an error frame or the pong, the same socket keeps answering, and the
server stays healthy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from app.config import Settings
from app.main import create_app
from tests.play import auth

ANSWERS = {"view", "error", "pong"}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**30), max_value=10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5)
    ),
    max_leaves=25,
)
"""Any JSON value of a modest size."""

order_keys = st.sampled_from(
    [
        "kind",
        "legions",
        "legion",
        "location",
        "hero",
        "route",
        "seat",
        "card",
        "slots",
        "cards",
        "expedition",
        "field",
        "colour",
        "character",
        "take",
        "place",
        "return",
        "order",
        "keep",
    ]
)
orders = st.dictionaries(order_keys, json_values, max_size=6)
"""Orders with the keys real orders use and values of any shape."""

frames = st.one_of(
    st.binary(max_size=64).map(lambda data: ("bytes", data)),
    st.text(max_size=80).map(lambda text: ("text", text)),
    json_values.map(lambda value: ("text", json.dumps(value))),
    st.integers(min_value=33, max_value=20_000).map(lambda n: ("text", "[" * n + "]" * n)),
    st.just(("text", "x" * 70_000)),
    st.just(("text", '{"type": "order", "order": ' + "[" * 40 + "]" * 40 + "}")),
    st.builds(
        lambda kind, extra: ("text", json.dumps({"type": kind, **extra})),
        st.sampled_from(["order", "ready", "lang", "ping", "sync", "predict", "", "ORDER"]),
        st.dictionaries(
            st.sampled_from(["order", "lang", "seat", "version", "match"]), json_values
        ),
    ),
    st.builds(
        lambda order, seat: ("text", json.dumps({"type": "order", "order": order, "seat": seat})),
        orders,
        st.integers(min_value=-2, max_value=5),
    ),
)


def is_ping(kind: str, data: Any) -> bool:
    """A fuzzed frame that happens to be a ping is answered by a pong of its own."""
    if kind != "text":
        return False
    try:
        message = json.loads(data)
    except (ValueError, RecursionError):
        return False
    return isinstance(message, dict) and message.get("type") == "ping"


def answered(socket: WebSocketTestSession, pongs: int) -> list[dict[str, Any]]:
    """Every frame until the pong that answers the ping sent after the fuzzed frame."""
    socket.send_text(json.dumps({"type": "ping"}))
    seen: list[dict[str, Any]] = []
    while True:
        frame: dict[str, Any] = socket.receive_json()
        seen.append(frame)
        assert frame.get("type") in ANSWERS, frame
        if frame["type"] == "error":
            assert isinstance(frame.get("code"), str) and isinstance(frame.get("detail"), str)
        if frame["type"] == "pong":
            pongs -= 1
            if pongs == 0:
                return seen


def fuzz(socket: WebSocketTestSession) -> None:
    """Hypothesis' frames, one after another, on the one socket."""

    @settings(
        max_examples=120,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(frame=frames)
    def one_frame(frame: tuple[str, Any]) -> None:
        kind, data = frame
        if kind == "bytes":
            socket.send_bytes(data)
        else:
            socket.send_text(data)
        answered(socket, pongs=2 if is_ping(kind, data) else 1)

    one_frame()


def test_no_frame_breaks_a_socket_or_the_server(tmp_path: Path) -> None:
    configured = Settings(database_url=f"sqlite:///{tmp_path / 'fuzz.sqlite3'}", bot_delay=0.0)
    with TestClient(create_app(configured)) as client:
        for game in ("legions", "heirs", "hidden_leaders"):
            created = client.post("/api/rooms", json={"game": game}).json()
            code, host = created["code"], created["host_token"]
            tokens = [
                client.post(f"/api/rooms/{code}/seats", json={"name": name}).json()["token"]
                for name in ("Ann", "Ben", "Cid")[: 3 if game == "heirs" else 2]
            ]
            assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
            with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[0]}") as socket:
                assert socket.receive_json()["type"] == "view"

                fuzz(socket)
                # The same socket still plays: its view is there, and another seat's is not.
                socket.send_text(json.dumps({"type": "sync"}))
                view = socket.receive_json()
                assert view["type"] == "view" and view["you"]["seat"] == 0, view
            assert client.get("/healthz").json() == {"status": "ok"}
