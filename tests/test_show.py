"""The board's show (issue: the reveal is the show): every resolution is played out step by
step on the board while the phones wait for it; history, replays and sealed-order proofs."""

from __future__ import annotations

import copy
import json
import re
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import jsonpatch
import pytest
from fastapi.testclient import TestClient
from sqlmodel import Session, select
from starlette.testclient import WebSocketTestSession

from app.config import Settings
from app.live import LiveRoom
from app.main import create_app
from app.models import Match
from app.proofs import canonical_json, commitment
from engine.core import JSON, Rng, events_for
from engine.registry import get_rules
from tests.clock import ManualClock
from tests.conftest import ServerProcess
from tests.live import bots_have_sealed, current_match, live_room, room_service, wait_for
from tests.play import Follower, auth, board_and_phones, start_duel
from tests.truth import rebuild, stored_match

HEIRS = get_rules("heirs")
STEP = 0.25


@pytest.fixture
def show_client(database_url: str) -> Iterator[TestClient]:
    """A server whose board shows each step for a quarter of a second."""
    settings = Settings(database_url=database_url, bot_delay=0.0, step_seconds=STEP)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def match_finished(room: LiveRoom) -> bool:
    """The room's current match is over."""
    return current_match(room).status == "finished"


def shows_round(frame: dict[str, Any], number: int) -> bool:
    """The board shows a step of round ``number``."""
    return (frame["show"] or {}).get("round") == number


def shown_round(frame: dict[str, Any], number: int) -> bool:
    """Round ``number``'s show is over: the board has moved on to the next round."""
    return frame["show"] is None and frame["view"]["round"] == number + 1


def heirs_room(
    client: TestClient, humans: int, bots: int, **options: Any
) -> tuple[str, str, list[str]]:
    created = client.post("/api/rooms", json={"game": "heirs", "options": options}).json()
    code, host = created["code"], created["host_token"]
    names = ("Ann", "Ben", "Cyril", "Dana")
    tokens = [
        client.post(f"/api/rooms/{code}/seats", json={"name": n}).json()["token"]
        for n in names[:humans]
    ]
    for _ in range(bots):
        assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    return code, host, tokens


def seal_all(client: TestClient, code: str, tokens: list[str], rng: Rng) -> list[dict[str, Any]]:
    """Every human seat with a decision seals a random legal order; returns the orders."""
    live = live_room(client, code)
    bots_have_sealed(live)
    sealed = []
    for seat, token in enumerate(tokens):
        if HEIRS.prompt(current_match(live).state, seat) is None:
            continue
        order = HEIRS.random_order(current_match(live).state, seat, rng)
        response = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
        assert response.status_code == 202, response.text
        sealed.append(order)
    return sealed


class Frames:
    """Every JSON frame a socket received, read as they come."""

    def __init__(self, socket: WebSocketTestSession) -> None:
        self.socket = socket
        self.seen: list[dict[str, Any]] = []
        self.follower = Follower()

    def until(
        self, condition: Callable[[dict[str, Any]], bool], limit: int = 400
    ) -> dict[str, Any]:
        for _ in range(limit):
            frame: dict[str, Any] = self.follower.take(self.socket.receive_json())
            if frame.get("type") == "log":
                continue
            self.seen.append(frame)
            if frame.get("type") == "view" and condition(frame):
                return frame
        raise AssertionError("the condition never came")


def test_phones_wait_for_the_board_and_the_timer_starts_after_the_show(
    show_client: TestClient,
) -> None:
    client = show_client
    code, host, tokens = heirs_room(client, humans=2, bots=1, timer=120)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    rng = Rng(5)
    with client.websocket_connect(f"/ws/rooms/{code}/board") as socket:
        board = Frames(socket)
        board.until(lambda f: f["status"] == "playing")
        seal_all(client, code, tokens, rng)  # setup (H3)
        board.until(lambda f: f["show"] is None and f["view"]["phase"] == "orders")
        board.seen.clear()
        orders = seal_all(client, code, tokens, rng)  # round 1
        assert orders
        first = board.until(lambda f: f["show"] is not None)
        steps = first["show"]["steps"]
        # 3 heirs: a step per pedestal, Dusk and the next Dawn (H6, H23).
        assert steps == 5 and first["show"]["round"] == 1
        # The frame holds nothing past the step on show: the first step, and its position.
        assert first["show"]["step"] == 0 and len(first["playback"]) == 1
        assert first["view"]["round"] == 1, "the step's position, not round 2's"
        assert first["to_act"] == [] and first["deadline"] is None

        # While the board plays the round out, the phones watch: no decision, no timer.
        me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[0])).json()
        assert me["show"] is not None and me["prompt"] is None and me["deadline"] is None
        assert me["view"]["round"] == 1, "the phone's own view is the step's, not round 2's"
        refused = client.post(
            f"/api/rooms/{code}/orders",
            json=HEIRS.random_order(current_match(live_room(client, code)).state, 0, rng),
            headers=auth(tokens[0]),
        )
        assert refused.status_code == 409 and refused.json()["code"] == "show"

        last = board.until(lambda f: f["show"] is None)
        shown_steps = [f["show"]["step"] for f in board.seen if f.get("show")]
        assert shown_steps == sorted(shown_steps) and set(shown_steps) == set(range(steps))
        resolution = current_match(live_room(client, code)).steps
        public = [events_for(step.events, None) for step in resolution]
        for frame in board.seen:
            # The playback is the board's one copy of the events (no second list), and it
            # never runs ahead of the step.
            assert "events" not in frame
            if frame.get("show"):
                step = frame["show"]["step"]
                assert len(frame["playback"]) == step + 1, "no step ahead of the board"
                assert [s["events"] for s in frame["playback"]] == public[: step + 1]
        ended_at = time.time()
        assert {0, 1} <= set(last["to_act"])
        deadline = last["deadline"]
        assert deadline is not None
        from datetime import datetime

        left = datetime.fromisoformat(deadline).timestamp() - ended_at
        assert 110 < left <= 121, "the sealing timer starts when the show ends"
        me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[0])).json()
        assert me["prompt"]["kind"] == "orders" and me["view"]["round"] == 2


def test_a_stalled_server_still_shows_every_step(show_client: TestClient) -> None:
    """A server that stalls for longer than a step (a slow disk, a busy machine) holds the
    show's clock back instead of skipping the steps it missed."""
    client = show_client
    code, host, tokens = heirs_room(client, humans=2, bots=1)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    rng = Rng(11)
    with client.websocket_connect(f"/ws/rooms/{code}/board") as socket:
        board = Frames(socket)
        board.until(lambda f: f["status"] == "playing")
        seal_all(client, code, tokens, rng)  # setup (H3)
        board.until(lambda f: f["show"] is None and f["view"]["phase"] == "orders")
        board.seen.clear()
        seal_all(client, code, tokens, rng)
        first = board.until(lambda f: f["show"] is not None)
        assert first["show"]["step"] == 0
        portal = client.portal
        assert portal is not None
        portal.call(time.sleep, 3 * STEP)  # the event loop is blocked for three steps
        board.until(lambda f: f["show"] is None)
        shown = [f["show"]["step"] for f in board.seen if f.get("show")]
        assert shown == sorted(shown) and set(shown) == set(range(first["show"]["steps"]))


def test_a_show_that_fails_ends_and_the_room_goes_on(show_client: TestClient) -> None:
    """A fault in the middle of a show (here one the test injects: asking whether a board
    watches raises once) ends the show instead of leaving the phones refused forever."""
    client = show_client
    code, host, tokens = heirs_room(client, humans=2, bots=1)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    rng = Rng(12)
    service = client.app.state.rooms  # type: ignore[attr-defined]
    with client.websocket_connect(f"/ws/rooms/{code}/board") as socket:
        board = Frames(socket)
        board.until(lambda f: f["status"] == "playing")
        seal_all(client, code, tokens, rng)  # setup (H3)
        board.until(lambda f: f["show"] is None and f["view"]["phase"] == "orders")
        watching = service.board_watching
        faults = [RuntimeError("injected")]

        def failing_once(room_code: str) -> bool:
            if faults:
                raise faults.pop()
            return bool(watching(room_code))

        seal_all(client, code, tokens, rng)
        first = board.until(lambda f: f["show"] is not None)
        assert first["show"]["steps"] > 2
        service.board_watching = failing_once
        last = board.until(lambda f: f["show"] is None)
        assert not faults, "the fault was met"
        assert last["view"]["round"] == 2 and {0, 1} <= set(last["to_act"])
        me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[0])).json()
        assert me["prompt"]["kind"] == "orders"


def test_without_a_board_the_phones_move_on_at_once(show_client: TestClient) -> None:
    client = show_client
    code, host, tokens = heirs_room(client, humans=2, bots=0)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    rng = Rng(9)
    seal_all(client, code, tokens, rng)
    seal_all(client, code, tokens, rng)
    me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[0])).json()
    assert me["show"] is None and me["prompt"]["kind"] == "orders"
    assert me["view"]["round"] == 2
    board = client.get(f"/api/rooms/{code}").json()
    assert len(board["playback"]) == 4 and board["view"]["round"] == 2, "shown at once"


def test_bots_only_rounds_play_out_and_the_host_fast_forwards(show_client: TestClient) -> None:
    """Every round plays out while a board watches, bots-only rounds included; the host can
    skip one round, or all of them."""
    client = show_client
    code, host, _tokens = heirs_room(client, humans=0, bots=3, rounds=8)
    with client.websocket_connect(f"/ws/rooms/{code}/board") as socket:
        board = Frames(socket)
        board.until(lambda f: f["status"] == "lobby")
        assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
        for expected in (1, 2):
            first = board.until(partial(shows_round, number=expected))
            # Its first frame holds every step reached, from the first: step 0 on a quiet
            # machine; a later one when the server stalled past a step (0.25 s) before the
            # frame was built, which CI met once; the board then reads what it missed.
            reached = first["show"]["step"]
            assert [entry["round"] for entry in first["playback"]] == [expected] * (reached + 1)
            board.until(partial(shown_round, number=expected))
            framed = {f["show"]["step"] for f in board.seen if shows_round(f, expected)}
            assert set(range(reached, 5)) <= framed, "each later step reached the board"

        # Skip one round: the show of round 3 ends at once, round 4's still plays.
        board.until(lambda f: (f["show"] or {}).get("round") == 3)
        skipped = client.post(f"/api/rooms/{code}/show/skip", json={}, headers=auth(host))
        assert skipped.status_code == 200
        after = board.until(lambda f: f["show"] is None)
        assert after["view"]["round"] == 4
        board.until(lambda f: (f["show"] or {}).get("round") == 4)

        # Fast-forward: the rest of the match is played at once.
        assert (
            client.post(f"/api/rooms/{code}/show/skip", json={"all": True}, headers=auth(host))
        ).status_code == 200
        end = board.until(lambda f: f["status"] == "finished", limit=2000)
        assert end["fast_forward"] is True and end["show"] is None
        later = [f for f in board.seen[board.seen.index(after) :] if f.get("show")]
        assert all(f["show"]["round"] <= 4 for f in later)
        # The whole match stays on the board, round by round.
        rounds = [entry["round"] for entry in end["history"]]
        assert rounds == sorted(set(rounds)) and rounds[0] == 0 and rounds[-1] >= 5


@pytest.mark.parametrize("game", ["legions", "heirs"])
def test_fast_forwarded_bots_play_the_rest_without_their_moment(
    database_url: str, game: str
) -> None:
    """A bot waits ``bot_delay`` before each move, so the room sees it come. Fast-forwarded,
    the board said "the rest of the game plays at once", and a game of bots still took a
    second a decision (a Legions turn about 8 s). The clock here stands still once the bots'
    first wait is over: the match ends without it."""
    clock = ManualClock()
    settings = Settings(database_url=database_url, bot_delay=1.0, step_seconds=STEP)
    with TestClient(create_app(settings, clock=clock)) as client:
        room = client.post("/api/rooms", json={"game": game}).json()
        code, host = room["code"], room["host_token"]
        for _ in range(2):
            assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
        assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
        fast = client.post(f"/api/rooms/{code}/show/skip", json={"all": True}, headers=auth(host))
        assert fast.status_code == 200
        clock.advance(1.0)  # the bots' wait begun before the host fast-forwarded
        live = live_room(client, code)
        wait_for(lambda: match_finished(live), "the match played to its end", 60)
        assert client.get(f"/api/rooms/{code}").json()["status"] == "finished"


def test_history_keeps_each_phones_own_reports(client: TestClient) -> None:
    code, host, tokens = heirs_room(client, humans=2, bots=1)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    rng = Rng(21)
    for _ in range(4):
        seal_all(client, code, tokens, rng)
    board = client.get(f"/api/rooms/{code}").json()
    mine = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[0])).json()
    assert [r["round"] for r in board["history"]] == [0, 1, 2, 3]
    assert [r["round"] for r in mine["history"]] == [0, 1, 2, 3]
    board_kinds = {e["kind"] for r in board["history"] for e in r["events"]}
    my_events = [e for r in mine["history"] for e in r["events"]]
    # H23: income and the dealt hand are the phone's own; the board never sees them.
    assert {"income", "hand"} <= {e["kind"] for e in my_events}
    assert not {"income", "hand"} & board_kinds
    assert all(e["data"].get("seat", 0) == 0 for e in my_events if e["kind"] in ("income", "hand"))


def test_sealed_orders_are_committed_then_revealed_and_verify(client: TestClient) -> None:
    code, host, tokens = heirs_room(client, humans=2, bots=0, rounds=6)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    rng = Rng(4)
    seal_all(client, code, tokens, rng)
    order = HEIRS.random_order(current_match(live_room(client, code)).state, 0, rng)
    assert client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[0])).is_success
    board = client.get(f"/api/rooms/{code}").json()
    mine = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[0])).json()
    other = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[1])).json()
    hexes = board["commitments"]
    assert set(hexes) == {"0"} and len(hexes["0"]) == 64 and int(hexes["0"], 16) >= 0
    assert mine["my_commitment"] == hexes["0"] and other["my_commitment"] is None
    # Sealed, the order is nowhere but in its owner's own hands: no salt, no order out.
    assert board["reveals"] == {} and other["reveals"] == {}
    assert canonical_json(order) not in str(board) and "salt" not in str(board["commitments"])
    # Heirs orders name secrets (strength, tricks): revealed when the match is over.
    while current_match(live_room(client, code)).status == "playing":
        seal_all(client, code, tokens, rng)
    end = client.get(f"/api/rooms/{code}").json()
    assert end["status"] == "finished" and set(end["reveals"]) == {"0", "1"}
    for reveal in end["reveals"].values():
        assert commitment(reveal["order"], reveal["salt"]) == reveal["commitment"]
    replay = client.get(f"/api/rooms/{code}/matches/1/replay").json()
    proofs = [p for step in replay["steps"] for p in step["proofs"]]
    assert proofs and proofs[2]["commitment"] == hexes["0"]
    assert proofs[2]["order"] == order
    for proof in proofs:
        assert commitment(proof["order"], proof["salt"]) == proof["commitment"]
        assert len(proof["salt"]) == 32


def test_a_finished_match_replays_from_its_log(client: TestClient) -> None:
    code, host, tokens = heirs_room(client, humans=1, bots=2, rounds=6, timer=300)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    early = client.get(f"/api/rooms/{code}/matches/1/replay")
    assert early.status_code == 409, "no replay of a match still being played"
    assert client.get(f"/api/rooms/{code}/matches/7/replay").status_code == 404
    rng = Rng(3)
    live = live_room(client, code)
    while current_match(live).status == "playing":
        seal_all(client, code, tokens, rng)
        wait_for(
            lambda: (
                current_match(live).status != "playing"
                or HEIRS.prompt(current_match(live).state, 0)
            ),
            "the bots to seal",
        )
    public = client.get(f"/api/rooms/{code}/matches/1/replay").json()
    board = client.get(f"/api/rooms/{code}").json()
    assert public["game"] == "heirs" and public["match"] == 1
    assert [p["name"] for p in public["players"]] == ["Ann", "Bot 1", "Bot 2"]
    assert public["steps"][-1]["view"] == board["view"]
    assert all("me" not in step["view"] for step in public["steps"])
    rounds = [step["round"] for step in public["steps"]]
    assert rounds == sorted(rounds) and set(rounds) == set(range(rounds[-1] + 1))
    mine = client.get(f"/api/rooms/{code}/matches/1/replay", headers=auth(tokens[0])).json()
    assert len(mine["steps"]) == len(public["steps"])
    assert all(step["view"]["me"]["seat"] == 0 for step in mine["steps"])
    bad = client.get(f"/api/rooms/{code}/matches/1/replay", headers=auth("nope"))
    assert bad.status_code == 401


def test_every_stored_match_replays_to_its_snapshot(client: TestClient) -> None:
    """Each game, started with room options the engine never sees (the sealing timer), and
    a tournament night: the order log of every stored match rebuilds its snapshot."""
    host_of: dict[str, str] = {}
    for game, options in (
        ("heirs", {"timer": 600, "rounds": 6}),
        ("legions", {"timer": 600}),
        ("hidden_leaders", {"timer": 600}),
    ):
        created = client.post("/api/rooms", json={"game": game, "options": options}).json()
        code, host = created["code"], created["host_token"]
        host_of[code] = host
        for _ in range(2):
            assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
        assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    for code in host_of:
        live = live_room(client, code)
        wait_for(partial(match_finished, live), f"{code} to end", 120)
    rooms = room_service(client)
    with Session(rooms.db) as session:
        matches = session.exec(select(Match)).all()
    assert {m.game for m in matches} == {"heirs", "legions", "hidden_leaders"}
    for match in matches:
        assert match.id is not None and match.options.get("timer") == 600
        stored, orders = stored_match(rooms.db, match.id)
        truth = rebuild(stored, orders)
        assert truth.rules.to_json(truth.states()[-1]) == stored.state, match.game


@pytest.mark.server
def test_a_show_survives_a_restart_and_a_board_that_reconnects(
    tmp_path: Path, database_url: str
) -> None:
    server = ServerProcess(
        database_url=database_url,
        step_seconds=2.0,
        log_path=tmp_path / "server.log",
    )
    server.start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=10) as http:
            created = http.post("/api/rooms", json={"game": "heirs"}).json()
            code, host = created["code"], created["host_token"]
            token = http.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).json()["token"]
            for _ in range(3):
                http.post(f"/api/rooms/{code}/bots", headers=auth(host))
            assert http.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
            shown = _watch_until_shown(server, http, code, token)
        server.kill()
        server.start()
        with httpx.Client(base_url=server.base_url, timeout=10) as http:
            after = _board_frame(server, code)
            assert after["show"] is not None, "the show goes on after a restart"
            assert after["show"]["round"] == shown["round"]
            assert after["show"]["step"] >= shown["step"]
            me = http.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
            assert me["prompt"] is None
            _wait_board(server, code, lambda f: f["show"] is None)
            me = http.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
            assert me["prompt"] is not None
    finally:
        server.stop()


def _watch_until_shown(
    server: ServerProcess, http: httpx.Client, code: str, token: str
) -> dict[str, Any]:
    """Seal Ann's setup and first round with a board watching; the show of that round."""
    import asyncio
    import json

    import websockets

    async def run() -> dict[str, Any]:
        async with websockets.connect(f"{server.ws_url}/ws/rooms/{code}/board") as socket:
            follower = Follower()  # the steps after the first come as patches of the view
            while True:
                frame = follower.take(json.loads(await socket.recv()))
                if frame.get("type") != "view" or frame["status"] != "playing":
                    continue
                show = frame["show"]
                if show is not None and show["round"] == 1 and show["step"] >= 1:
                    return dict(show)
                if show is None and 0 in frame["to_act"]:
                    me = http.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
                    if me["prompt"] is not None:  # an older frame may still list the seat
                        order = _order_from(me["prompt"])
                        http.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))

    return asyncio.run(asyncio.wait_for(run(), 60))


def _order_from(prompt: dict[str, Any]) -> dict[str, Any]:
    if prompt["kind"] == "setup":
        return {"colour": prompt["colours"][0], "character": prompt["characters"][0]}
    return {"expedition": {"kind": "stay", "field": None}}


def _board_frame(server: ServerProcess, code: str) -> dict[str, Any]:
    return _wait_board(server, code, lambda f: True)


def _wait_board(
    server: ServerProcess, code: str, condition: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    import asyncio
    import json

    import websockets

    async def run() -> dict[str, Any]:
        async with websockets.connect(f"{server.ws_url}/ws/rooms/{code}/board") as socket:
            while True:
                frame = json.loads(await socket.recv())
                if frame.get("type") == "view" and condition(frame):
                    return dict(frame)

    return asyncio.run(asyncio.wait_for(run(), 60))


STEP_MAX_BYTES = 4096
"""A step frame carries a step's events and the few values of a view it changes."""


def test_each_step_of_the_show_reaches_a_json_socket_as_a_small_patch_of_its_view(
    tmp_path: Path,
) -> None:
    """The board and every phone get each step after the first as a ``step`` frame: patched
    in, it gives exactly the view the server would send whole (issue 14: a step no longer
    re-sends every socket's whole view)."""
    clock = ManualClock()
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'steps.sqlite3'}", bot_delay=0.0, step_seconds=1.0
    )
    with TestClient(create_app(settings, clock=clock)) as client:
        code, host, tokens = heirs_room(client, humans=3, bots=0)
        assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
        phones = dict(zip(("ann", "ben", "cyril"), tokens, strict=True))
        with board_and_phones(client, code, phones) as sockets:
            board = sockets["board"]
            followers = {name: Follower() for name in sockets}
            seal_all(client, code, tokens, Rng(3))  # the setup (H3)
            for name, socket in sockets.items():
                frame_until(socket, followers[name], lambda v: shows_round(v, 0))
            clock.advance(1.01)  # the setup's show is over: the first round's orders
            for name, socket in sockets.items():
                frame_until(socket, followers[name], lambda v: shown_round(v, 0))
            seal_all(client, code, tokens, Rng(4))  # round 1
            at_first_step = {}
            for name, socket in sockets.items():
                first = frame_until(socket, followers[name], lambda v: shows_round(v, 1))
                assert first["show"]["step"] == 0
                at_first_step[name] = copy.deepcopy(first)
            steps = first["show"]["steps"]
            assert steps == 5, "3 heirs: a step per pedestal, Dusk and the next Dawn (H6, H23)"
            live, payloads = live_room(client, code), room_service(client).payloads
            viewers = {"board": None} | {n: s for s, n in enumerate(("ann", "ben", "cyril"))}
            for step in range(1, steps):
                if step == 1:
                    # The board asks for its view past the step's time, before the show tells
                    # the room: it stands at step 1 already, and gets no frame for it.
                    clock.advance(1.002)
                    board.send_json({"type": "sync"})
                    early = frame_until(board, followers["board"], lambda v: True)
                    assert early["show"]["step"] == 1
                    clock.advance(0.008)
                else:
                    clock.advance(1.01)
                for name, socket in sockets.items():
                    if name == "board" and step == 1:
                        continue  # its next frame is step 2's (checked next time round)
                    text = socket.receive_text()
                    frame = json.loads(text)
                    assert frame["type"] == "step" and frame["step"] == step, (name, frame)
                    assert len(text.encode()) <= STEP_MAX_BYTES, (name, len(text))
                    patched = followers[name].take(frame)
                    assert patched["show"]["step"] == step
                    socket.send_json({"type": "sync"})
                    whole = frame_until(socket, followers[name], lambda v: True)
                    assert whole == patched, f"the step frame misses a change: {name}, {step}"
                # Each step's view is built once for all its frames, while the show runs.
                assert {(step, v) for v in viewers.values()} <= set(current_match(live).step_views)
                # A view that stands several steps back is brought on in one frame too.
                for name, viewer in viewers.items():
                    jump = payloads.step_frame(live, viewer, board=name == "board", since=0)
                    assert jump is not None and jump["step"] == step
                    brought = jsonpatch.apply_patch(at_first_step[name], jump["patch"])
                    assert brought == followers[name].view, (name, step)
            clock.advance(1.01)  # the show is over: whole views, with the next decision
            for name, socket in sockets.items():
                after = frame_until(socket, followers[name], lambda v: shown_round(v, 1))
                assert name == "board" or after["prompt"] is not None
            assert current_match(live).step_views == {}, "an idle room keeps no view of the show"


def test_the_views_of_a_change_share_their_room_part(tmp_path: Path) -> None:
    """The hub builds what every view of the room holds alike once per change (issue 14),
    and each view sets its own keys on a copy of it: each view equals the one built alone,
    and the shared part comes out untouched, in the lobby, while a round is decided and
    while the board plays a round out."""
    clock = ManualClock()
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'shared.sqlite3'}", bot_delay=0.0, step_seconds=1.0
    )
    with TestClient(create_app(settings, clock=clock)) as client:
        code, host, tokens = heirs_room(client, humans=3, bots=0)
        payloads = room_service(client).payloads

        def each_view_as_if_alone() -> None:
            live = live_room(client, code)
            room = payloads.room_payload(live)
            untouched = copy.deepcopy(room)
            for host_board in (False, True):
                shared = payloads.board_payload(live, host=host_board, room=room)
                assert shared == payloads.board_payload(live, host=host_board)
            for seat in live.seats:
                assert payloads.seat_payload(live, seat, room=room) == payloads.seat_payload(
                    live, seat
                )
            assert room == untouched

        each_view_as_if_alone()  # the lobby
        assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
        with client.websocket_connect(f"/ws/rooms/{code}/board") as board:
            follower = Follower()
            each_view_as_if_alone()  # the setup's choices
            seal_all(client, code, tokens[:2], Rng(8))
            each_view_as_if_alone()  # two seats have sealed, one decides
            seal_all(client, code, tokens, Rng(8))
            frame_until(board, follower, lambda v: shows_round(v, 0))
            each_view_as_if_alone()  # the board plays the setup out
            clock.advance(1.01)
            frame_until(board, follower, lambda v: shown_round(v, 0))
            each_view_as_if_alone()  # the first round's orders


def frame_until(
    socket: WebSocketTestSession, follower: Follower, condition: Callable[[JSON], bool]
) -> JSON:
    """The socket's view as its frames build it, once a whole view or a patch of it
    satisfies ``condition``."""
    for _ in range(100):
        frame = socket.receive_json()
        view = follower.take(frame)
        if frame["type"] in ("view", "sealed", "step") and condition(view):
            return view
    raise AssertionError("the condition never came")


def test_a_legions_phone_stands_at_the_board_s_step_through_a_turn_s_show(
    show_client: TestClient,
) -> None:
    """Legions' turns are shown in steps too (G15: the reveal, the attack, the majorities):
    while the board plays one out, each phone holds the step's position, no further, and has
    no decision until the show ends."""
    client = show_client
    legions = get_rules("legions")
    code, _host, tokens = start_duel(client, "legions")
    shows_seen = boards_read = 0
    with client.websocket_connect(f"/ws/rooms/{code}/board"):
        for _decision in range(200):
            live = live_room(client, code)
            match = current_match(live)
            if legions.outcome(match.state) is not None or shows_seen >= 2:
                break
            mine = [
                (seat, token)
                for seat, token in enumerate(tokens)
                if legions.prompt(match.state, seat) is not None
            ]
            assert mine, "a Legions decision is always a seat's"
            for seat, token in mine:
                order = legions.bot_order(match.state, seat)
                sealed = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
                assert sealed.status_code == 202, sealed.text
            phones = [
                client.get(f"/api/rooms/{code}/me", headers=auth(token)).json() for token in tokens
            ]
            steps = current_match(live).steps
            midway = False
            for seat, phone in enumerate(phones):
                if phone["show"] is None:  # no show, or it ended between the two reads
                    continue
                step = phone["show"]["step"]
                assert phone["show"]["steps"] == len(steps)
                expected = json.loads(json.dumps(legions.view(steps[step].state, seat)))
                assert phone["view"] == expected, "the phone stands at the board's step"
                assert phone["prompt"] is None and phone["deadline"] is None
                midway = midway or step < len(steps) - 1
            # The board says the turn plays out, not whose decision comes after the step on
            # show (it read "Both seal a legion", both players "choosing…", during the
            # attack's show): nobody acts before the show ends.
            board = client.get(f"/b/{code}").text
            if "data-showing" in board[: board.index(">", board.index('id="board-view"'))]:
                status = re.search(r'data-testid="step">([^<]*)<', board)
                assert status is not None and "plays out" in status.group(1), status
                assert "choosing…" not in board and " acting" not in board
                boards_read += 1
            # A show read before its last step tells a phone at the step from one ahead.
            shows_seen += midway
            wait_for(
                lambda: client.get(f"/api/rooms/{code}").json()["show"] is None,
                "the show's end",
            )
    assert shows_seen >= 2, "two turns' shows were read before their last step"
    assert boards_read >= 1, "the board's page was read during a show"


def test_a_heirs_phone_tells_the_result_only_once_the_board_has_played_the_end_out(
    show_client: TestClient,
) -> None:
    """The last round's last step holds the outcome in the view; the board tells the winner
    once the show is over, and a phone told it a step before, under its own "watch the
    board" banner. Now no phone page shows the result while the show plays."""
    client = show_client
    code, host, tokens = heirs_room(client, humans=2, bots=1, rounds=6)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    rng = Rng(11)
    live = live_room(client, code)
    with (
        client.websocket_connect(f"/ws/rooms/{code}/board"),
        client.websocket_connect(f"/ws/rooms/{code}?token={tokens[0]}&format=html") as phone,
    ):
        while current_match(live).status != "finished":
            wait_for(lambda: not current_match(live).showing, "the round's show to end")
            if current_match(live).status != "finished":
                seal_all(client, code, tokens, rng)
        watched_the_end = False
        for _ in range(400):
            fragment = phone.receive_text()
            watching = 'data-testid="watch"' in fragment
            ending = 'data-testid="phone-ending"' in fragment
            assert not (watching and ending), "the result under the show's banner"
            watched_the_end = watched_the_end or watching
            if ending:
                break
        else:
            raise AssertionError("the phone never told the result")
    assert watched_the_end
    # The result first, in sight on a small phone; the last round's lines for the seat after.
    assert 'data-testid="my-log"' in fragment
    assert fragment.index('data-testid="phone-ending"') < fragment.index('data-testid="my-log"')
