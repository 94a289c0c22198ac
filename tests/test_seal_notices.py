"""A seal that moves nobody else on reaches the room as a small notice, not as every socket's
whole view (issue 14); the orders sealed between two resolutions live in the order log only,
and a kill -9 between them loses none of them."""

from __future__ import annotations

import json
from contextlib import ExitStack
from typing import Any

import httpx
import jsonpatch
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select
from starlette.testclient import WebSocketTestSession

from app.db import make_engine
from app.models import Match, Room
from engine.core import Rng
from engine.registry import get_rules
from tests.conftest import ServerProcess
from tests.live import bots_have_sealed, current_match, live_room, wait_for
from tests.play import auth, board_and_phones, create_room, join
from tests.test_persistence import assert_the_same_room
from tests.truth import rebuild, stored_match

Frame = dict[str, Any]
NOTICE_MAX_BYTES = 1024

heirs = get_rules("heirs")


def frame_of(socket: WebSocketTestSession) -> tuple[Frame, int]:
    """The next frame and its size in bytes."""
    text = socket.receive_text()
    frame: Frame = json.loads(text)
    return frame, len(text.encode())


def settled_view(socket: WebSocketTestSession) -> Frame:
    """The next whole view the board is not playing a resolution out in."""
    while True:
        frame, _size = frame_of(socket)
        if frame["type"] == "view" and frame.get("show") is None:
            return frame


def patched(view: Frame, notice: Frame) -> Frame:
    """A view brought up to date by a seal notice, as a client does it (RFC 6902)."""
    result: Frame = jsonpatch.apply_patch(view, notice["patch"])
    return result


def test_a_seal_reaches_the_others_as_a_notice_that_brings_their_views_up_to_date(
    client: TestClient,
) -> None:
    room = create_room(client, game="heirs")
    code = room["code"]
    tokens = [join(client, code, name)["token"] for name in ("Ann", "Ben", "Cyril")]
    assert client.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"])).is_success
    live = live_room(client, code)
    for seat in range(3):  # the setup, sealed through the API
        order = heirs.random_order(current_match(live).state, seat, Rng(seat))
        sealed = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[seat]))
        assert sealed.is_success, sealed.text

    phones = dict(zip(("ann", "ben", "cyril"), tokens, strict=True))
    with board_and_phones(client, code, phones) as sockets:
        board, ann, ben, cyril = (sockets[name] for name in ("board", "ann", "ben", "cyril"))
        views = {name: settled_view(socket) for name, socket in sockets.items()}
        assert views["ben"]["prompt"]["kind"] == "orders"
        version = views["ben"]["version"]

        order = heirs.random_order(current_match(live).state, 1, Rng(7))
        ben.send_json({"type": "order", "order": order, "version": version, "match": 1})
        # Ben's own answer is a notice too: its patch also seals his own sheet.
        notice, size = frame_of(ben)
        assert notice["type"] == "sealed" and notice["seat"] == 1, notice
        assert size <= NOTICE_MAX_BYTES, size
        ack = patched(views["ben"], notice)
        assert ack["version"] == version + 1
        assert ack["prompt"] is None and ack["my_commitment"], "Ben's own view: sealed"
        ben.send_json({"type": "sync"})
        assert settled_view(ben) == ack, "the notice misses a change of Ben's own view"

        for name in ("board", "ann", "cyril"):
            # The board may first hear of the phones connecting (who is away): same version.
            notice, size = frame_of(sockets[name])
            while notice["type"] in ("view", "log"):
                if notice["type"] == "view":
                    assert notice["version"] == version, (name, notice)
                    views[name] = notice
                notice, size = frame_of(sockets[name])
            assert notice["type"] == "sealed", (name, notice)
            assert size <= NOTICE_MAX_BYTES, (name, size)
            assert notice["seat"] == 1 and notice["commitment"] == ack["my_commitment"]
            assert notice["version"] == version + 1 and notice["to_act"] == [0, 2]
            sockets[name].send_json({"type": "sync"})
            fresh = settled_view(sockets[name])
            assert fresh == patched(views[name], notice), f"the notice misses a change: {name}"
            assert order != fresh.get("view", {}).get("orders"), "Ben's order stays sealed"

        # The last seal resolves the round: that changes everyone's view, so views it is.
        for seat, socket in ((0, ann), (2, cyril)):
            order = heirs.random_order(current_match(live).state, seat, Rng(seat + 20))
            socket.send_json({"type": "order", "order": order})
        # Ann's seal is a notice; Cyril's resolves the round, which the board plays out
        # step by step: the round joins the log when the show is over, and only it is sent.
        while (log := frame_of(board)[0])["type"] != "log":
            assert log["type"] in ("sealed", "view", "step"), log
        assert log["from"] == 1, "only the new round is sent"
        assert [entry["round"] for entry in log["rounds"]] == [1]
        last = settled_view(board)
        assert last["version"] == version + 3 and "history" not in last, "the log came apart"
        for socket in (ann, ben, cyril):
            while (frame := frame_of(socket)[0]).get("version", -1) < version + 3:
                pass
            assert frame["type"] == "view", frame


def test_a_colour_taken_at_setup_reaches_the_others_as_a_notice_with_their_new_prompt(
    client: TestClient,
) -> None:
    """H3.1: a colour is first come, first served, so a setup seal narrows every other heir's
    choice. Each of them hears a notice that also sets its own prompt, the colour gone from
    it; the board hears the plain notice. Every patched view is the view the server has."""
    room = create_room(client, game="heirs")
    code = room["code"]
    tokens = [join(client, code, name)["token"] for name in ("Ann", "Ben", "Cyril")]
    assert client.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"])).is_success
    phones = dict(zip(("ann", "ben", "cyril"), tokens, strict=True))
    with board_and_phones(client, code, phones) as sockets:
        views = {name: settled_view(socket) for name, socket in sockets.items()}
        assert views["ann"]["prompt"]["kind"] == "setup"
        version = views["ann"]["version"]
        colour = views["ann"]["prompt"]["colours"][0]
        character = views["ann"]["prompt"]["characters"][0]
        order = {"colour": colour, "character": character}
        sockets["ann"].send_json({"type": "order", "order": order, "version": version})

        notices = {}
        for name, socket in sockets.items():
            notice, size = frame_of(socket)
            while notice["type"] in ("view", "log"):  # the board: who is away, same version
                assert notice.get("version", version) == version, (name, notice)
                if notice["type"] == "view":
                    views[name] = notice
                notice, size = frame_of(socket)
            assert notice["type"] == "sealed" and notice["seat"] == 0, (name, notice)
            assert size <= NOTICE_MAX_BYTES, (name, size)
            notices[name] = notice
            socket.send_json({"type": "sync"})
            fresh = settled_view(socket)
            assert fresh == patched(views[name], notice), f"the notice misses a change: {name}"
            views[name] = fresh
        for name in ("ben", "cyril"):  # each its own prompt: the one its own view now has
            prompt_ops = [op for op in notices[name]["patch"] if op["path"] == "/prompt"]
            assert len(prompt_ops) == 1, notices[name]
            assert prompt_ops[0]["value"] == views[name]["prompt"], name
            assert views[name]["prompt"]["kind"] == "setup"
            assert colour not in views[name]["prompt"]["colours"], "the colour is taken"
        assert not [op for op in notices["board"]["patch"] if op["path"] == "/prompt"]
        assert views["ann"]["prompt"] is None and views["ann"]["my_commitment"]
        assert views["board"]["view"]["heirs"][0]["colour"] is None, "sealed, not yet shown"


def stored_version(database_url: str, code: str) -> int:
    engine = make_engine(database_url)
    with Session(engine) as session:
        version = session.exec(select(Match.version).join(Room).where(Room.code == code)).one()
    engine.dispose()
    return version


def heirs_state_now(server: ServerProcess, match_id: int) -> Any:
    """The true state of the match from the order log in the server's database."""
    engine = make_engine(server.database_url)
    match, orders = stored_match(engine, match_id)
    engine.dispose()
    return (
        rebuild(match, orders).states()[-1]
        if orders
        else heirs.setup(match.seats, match.seed, match.options)
    )


@pytest.mark.server
def test_kill_9_between_two_resolutions_loses_no_sealed_order(server: ServerProcess) -> None:
    """The state is stored at resolutions; the orders sealed since are in the log, sealed
    again when the room is loaded after a crash: the same round goes on."""
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        room = create_room(http, game="heirs")
        code = room["code"]
        tokens = [join(http, code, name)["token"] for name in ("Ann", "Ben", "Cyril")]
        assert http.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"])).is_success
        match_id = 1

        def seal(seat: int, salt: int) -> None:
            state = heirs_state_now(server, match_id)
            order = heirs.random_order(state, seat, Rng(salt))
            sealed = http.post(f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[seat]))
            assert sealed.status_code == 202, sealed.text

        for seat in range(3):
            seal(seat, seat)  # the setup resolves with the third seal
        resolved_at = http.get(f"/api/rooms/{code}").json()["version"]
        seal(0, 10)
        seal(1, 11)
        before = http.get(f"/api/rooms/{code}").json()
        mine_before = [http.get(f"/api/rooms/{code}/me", headers=auth(t)).json() for t in tokens]
        assert before["version"] == resolved_at + 2 and before["to_act"] == [2]
        assert stored_version(server.database_url, code) == resolved_at, "no state per seal"

    server.kill()  # between two resolutions: the two seals are in the log only
    server.start()

    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        assert_the_same_room(http, code, tokens, before, mine_before)  # the same two seals
        seal(2, 12)
        resolved = http.get(f"/api/rooms/{code}").json()
        assert resolved["version"] == resolved_at + 3 and resolved["history"]
    engine = make_engine(server.database_url)
    match, orders = stored_match(engine, match_id)
    engine.dispose()
    assert match.version == resolved_at + 3 == len(orders)
    assert heirs.to_json(rebuild(match, orders).states()[-1]) == match.state


VIEW_MAX_BYTES = 14 * 1024


def test_every_frame_of_a_whole_six_heir_game_stays_small(client: TestClient) -> None:
    """Issue 14: a full view for one recipient stays under 14 KiB in a 6-heir game, at every
    change of a whole game and at its end, when the room's result, the last round's events
    and every order's reveal are all in it; the notice of a seal to the rest of the room stays
    under 1 KiB. Two phones and the host's board (with the seats' PINs) count the bytes that
    reach them."""
    room = create_room(client, game="heirs")
    code, host = room["code"], room["host_token"]
    tokens = {seat: join(client, code, name)["token"] for seat, name in enumerate(("Ann", "Ben"))}
    for _ in range(4):
        assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).is_success
    live = live_room(client, code)

    def humans_turn_or_end() -> bool:
        match = current_match(live)
        if match.status != "playing":
            return True
        deciding = any(heirs.prompt(match.state, seat) is not None for seat in tokens)
        return deciding and not match.showing

    urls = [f"/ws/rooms/{code}/board?host={host}"]
    urls += [f"/ws/rooms/{code}?token={token}" for token in tokens.values()]
    with ExitStack() as stack:
        sockets = [stack.enter_context(client.websocket_connect(url)) for url in urls]
        while current_match(live).status == "playing":
            bots_have_sealed(live)
            match = current_match(live)
            for seat, token in tokens.items():
                if match.status == "playing" and heirs.prompt(match.state, seat) is not None:
                    order = heirs.bot_order(match.state, seat)
                    sealed = client.post(
                        f"/api/rooms/{code}/orders", json=order, headers=auth(token)
                    )
                    assert sealed.status_code in (202, 409), sealed.text  # 409: on show
            wait_for(humans_turn_or_end, "a human's next decision or the end")
        largest: dict[str, int] = {}
        holders: list[int | None] = [None, *tokens]
        for socket, holder in zip(sockets, holders, strict=True):
            viewer = "board" if holder is None else "phone"
            while True:
                frame, size = frame_of(socket)
                kind = f"{viewer} {frame['type']}"
                if frame["type"] == "sealed" and frame["seat"] == holder:
                    # The sealer's own notice brings its view on by the order it sealed,
                    # which is as long as the order: a view's part, not the room's news.
                    kind = "phone own sealed"
                largest[kind] = max(largest.get(kind, 0), size)
                if frame["type"] == "view" and frame["status"] == "finished":
                    break
            assert frame["outcome"] is not None and frame["reveals"], "the end, all told"
            if viewer == "board":
                assert frame["pins"], "the host's board, with the seats' PINs"
    assert largest["board view"] <= VIEW_MAX_BYTES, largest
    assert largest["phone view"] <= VIEW_MAX_BYTES, largest
    assert largest["phone sealed"] <= NOTICE_MAX_BYTES, largest
    assert largest["board sealed"] <= NOTICE_MAX_BYTES, largest
    assert largest["phone own sealed"] <= VIEW_MAX_BYTES, largest
