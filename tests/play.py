"""Helpers that play Hidden Leaders Duel through the public API, like a simple client would."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from typing import Any

import httpx
import jsonpatch
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

JSON = dict[str, Any]


def order_from_prompt(prompt: JSON) -> JSON:
    """A legal order read off a prompt alone: the first choices it offers.

    It places into the council, which L3.3(a) always allows.
    """
    if prompt["kind"] == "take":
        return {"type": "take", "slots": prompt["takeable"][: prompt["count"]]}
    open_slots = prompt["open_slots"]
    hand = prompt["hand"]
    returns = dict(zip(open_slots, hand, strict=False))
    left = [card for card in hand if card not in returns.values()]
    return {"type": "place", "returns": returns, "placement": {"to": "council", "card": left[0]}}


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create_room(http: httpx.Client, game: str = "hidden_leaders", **options: Any) -> JSON:
    response = http.post("/api/rooms", json={"game": game, "options": options})
    assert response.status_code == 201, response.text
    body: JSON = response.json()
    return body


def join(http: httpx.Client, code: str, name: str) -> JSON:
    response = http.post(f"/api/rooms/{code}/seats", json={"name": name})
    assert response.status_code == 201, response.text
    body: JSON = response.json()
    return body


def lobby_with_bots(
    http: httpx.Client, game: str, names: tuple[str, ...] = (), bots: int = 0
) -> tuple[str, str, list[str]]:
    """A lobby of ``game``, not started: seats for ``names``, then ``bots`` bots of the
    host's: (code, host token, the named seats' tokens)."""
    room = create_room(http, game)
    code, host = room["code"], room["host_token"]
    tokens = [join(http, code, name)["token"] for name in names]
    for _ in range(bots):
        response = http.post(f"/api/rooms/{code}/bots", headers=auth(host))
        assert response.status_code == 201, response.text
    return code, host, tokens


def start_duel(
    http: httpx.Client, game: str = "hidden_leaders", names: tuple[str, ...] = ("Ema", "Petr")
) -> tuple[str, str, list[str]]:
    """A started room of ``game`` with a human seat for each of ``names``: (code, host
    token, seat tokens)."""
    room = create_room(http, game)
    tokens = [join(http, room["code"], name)["token"] for name in names]
    response = http.post(f"/api/rooms/{room['code']}/start", headers=auth(room["host_token"]))
    assert response.status_code == 200, response.text
    return room["code"], room["host_token"], tokens


def play_to_end(http: httpx.Client, code: str, tokens: list[str], max_orders: int = 100) -> JSON:
    """Both seats play from their prompts until the game is over; returns the board's view."""
    for _ in range(max_orders):
        board: JSON = http.get(f"/api/rooms/{code}").json()
        if board["status"] != "playing":
            return board
        (seat,) = board["to_act"]
        me = http.get(f"/api/rooms/{code}/me", headers=auth(tokens[seat])).json()
        response = http.post(
            f"/api/rooms/{code}/orders",
            json=order_from_prompt(me["prompt"]),
            headers=auth(tokens[seat]),
        )
        assert response.status_code == 202, response.text
    raise AssertionError("the game did not end")


def replay_position(steps: list[JSON], index: int) -> tuple[int, int, int]:
    """Where step ``index`` of a replay's ``steps`` (the API's) stands, as its page says it:
    (its round, its place among that round's steps from 1, how many steps the round has)."""
    rounds = [step["round"] for step in steps]
    number = rounds[index]
    return number, rounds[:index].count(number) + 1, rounds.count(number)


@contextmanager
def board_and_phones(
    client: TestClient, code: str, tokens: Mapping[str, str]
) -> Iterator[dict[str, WebSocketTestSession]]:
    """The room's board (``"board"``) and a phone socket for each named seat token, open
    together for as long as the block lasts."""
    with ExitStack() as stack:
        sockets = {
            "board": stack.enter_context(client.websocket_connect(f"/ws/rooms/{code}/board"))
        }
        for name, token in tokens.items():
            url = f"/ws/rooms/{code}?token={token}"
            sockets[name] = stack.enter_context(client.websocket_connect(url))
        yield sockets


class Follower:
    """A JSON client's copy of its view, put together from the frames as the protocol says:
    a ``view`` (without the match's log), a ``sealed`` notice and a ``step`` of the board's
    show (each an RFC 6902 patch of the view) and a ``log`` frame (the rounds from ``from``
    on). :meth:`take` gives the view as it stands after a frame, with the log put back in as
    ``history``."""

    def __init__(self) -> None:
        self.view: JSON | None = None
        self.log: list[JSON] = []
        self.match: int | None = None

    def take(self, frame: JSON) -> JSON:
        kind = frame.get("type")
        if kind == "log":
            kept = self.log[: frame["from"]] if frame["match"] == self.match else []
            self.log, self.match = [*kept, *frame["rounds"]], frame["match"]
            if self.view is not None:
                self.view = {**self.view, "history": list(self.log)}
            return frame
        if kind in ("sealed", "step"):
            assert self.view is not None, f"a {kind} frame before any view"
            self.view = jsonpatch.apply_patch(self.view, frame["patch"])
            return self.view
        if kind == "view":
            self.view = {**frame, "history": list(self.log)}
            return self.view
        return frame
