"""Kill -9 a real server in the middle of games, start it again on the same database."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from sqlalchemy import text
from sqlmodel import Session, col, select

from app.db import make_engine
from app.models import Match, OrderLog, Room
from tests.conftest import ServerProcess
from tests.play import auth, create_room, join, order_from_prompt, play_to_end, start_duel

pytestmark = pytest.mark.server


def play_orders(http: httpx.Client, code: str, tokens: list[str], count: int) -> None:
    for _ in range(count):
        (seat,) = http.get(f"/api/rooms/{code}").json()["to_act"]
        me = http.get(f"/api/rooms/{code}/me", headers=auth(tokens[seat])).json()
        response = http.post(
            f"/api/rooms/{code}/orders",
            json=order_from_prompt(me["prompt"]),
            headers=auth(tokens[seat]),
        )
        assert response.status_code == 202


def assert_the_same_room(
    http: httpx.Client,
    code: str,
    tokens: list[str],
    board: dict[str, Any],
    private: list[dict[str, Any]],
) -> None:
    """After a restart the board and every seat see exactly what they saw before it."""
    after = http.get(f"/api/rooms/{code}").json()
    assert lasting(after) == lasting(board), "the board sees exactly the same game"
    for token, mine in zip(tokens, private, strict=True):
        again = http.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
        assert lasting(again) == lasting(mine)


async def next_view(socket: websockets.ClientConnection) -> dict[str, Any]:
    while (frame := json.loads(await socket.recv()))["type"] != "view":
        pass
    view: dict[str, Any] = frame
    return view


def lasting(payload: dict[str, Any]) -> dict[str, Any]:
    """A payload without who is connected right now (a restart drops every socket)."""
    fleeting = ("connected", "away_since")
    out = dict(payload)
    for key in ("seats", "players"):
        if out.get(key) is not None:
            out[key] = [{k: v for k, v in s.items() if k not in fleeting} for s in out[key]]
    return out


def test_kill_9_mid_game_loses_nothing_and_the_game_goes_on(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        code, host, tokens = start_duel(http)
        play_orders(http, code, tokens, 7)
        before = http.get(f"/api/rooms/{code}").json()
        private_before = [http.get(f"/api/rooms/{code}/me", headers=auth(t)).json() for t in tokens]
        lobby = create_room(http)
        waiting = join(http, lobby["code"], "Jana")

    server.kill()  # no shutdown handler runs; only what was committed survives
    server.start()

    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        assert_the_same_room(http, code, tokens, before, private_before)
        lobby_after = http.get(f"/api/rooms/{lobby['code']}").json()
        (jana,) = lobby_after["seats"]
        assert (jana["seat"], jana["name"], jana["bot"]) == (0, "Jana", False)
        me = http.get(f"/api/rooms/{lobby['code']}/me", headers=auth(waiting["token"]))
        assert me.status_code == 200
        assert (
            http.post(
                f"/api/rooms/{lobby['code']}/bots", headers=auth(lobby["host_token"])
            ).status_code
            == 201
        )
        assert http.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 409
        finished = play_to_end(http, code, tokens)
        assert finished["status"] == "finished"
        assert finished["version"] == 28


def test_every_acknowledged_order_is_stored_at_once(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        code, _host, tokens = start_duel(http)
        play_orders(http, code, tokens, 3)
    server.kill()
    if server.database_url.startswith("sqlite:"):
        # Asked before the engine below opens the file (it turns WAL on as it connects).
        with sqlite3.connect(server.database_url.removeprefix("sqlite:///")) as db:
            (mode,) = db.execute("PRAGMA journal_mode").fetchone()
        assert mode == "wal"
    engine = make_engine(server.database_url)
    with Session(engine) as session:
        match = session.exec(
            select(Match).join(Room).where(Room.code == code, Match.number == 1)
        ).one()
        orders = session.exec(
            select(OrderLog).where(OrderLog.match_id == match.id).order_by(col(OrderLog.seq))
        ).all()
    engine.dispose()
    assert [order.seq for order in orders] == [1, 2, 3]
    assert orders[0].order["type"] == "take"
    assert match.version == 3


def test_bots_resume_their_game_after_a_crash(tmp_path: Path, database_url: str) -> None:
    slow = ServerProcess(
        database_url=database_url,
        bot_delay=0.4,  # slow enough that the kill lands mid-game on a busy machine
        log_path=tmp_path / "server.log",
    )
    slow.start()
    try:
        with httpx.Client(base_url=slow.base_url, timeout=10) as http:
            room = create_room(http)
            for _ in range(2):
                http.post(f"/api/rooms/{room['code']}/bots", headers=auth(room["host_token"]))
            http.post(f"/api/rooms/{room['code']}/start", headers=auth(room["host_token"]))
            deadline = time.monotonic() + 10
            while http.get(f"/api/rooms/{room['code']}").json()["version"] < 5:
                assert time.monotonic() < deadline
                time.sleep(0.05)
        slow.kill()
        slow.start()
        with httpx.Client(base_url=slow.base_url, timeout=10) as http:
            resumed = http.get(f"/api/rooms/{room['code']}").json()
            assert resumed["status"] == "playing" and resumed["version"] >= 5
            deadline = time.monotonic() + 30
            while http.get(f"/api/rooms/{room['code']}").json()["status"] == "playing":
                assert time.monotonic() < deadline, "the bots did not finish after the restart"
                time.sleep(0.1)
            assert http.get(f"/api/rooms/{room['code']}").json()["version"] == 28
    finally:
        slow.stop()


def test_real_websockets_against_the_server_process(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.base_url, timeout=10) as http:
        code, _host, tokens = start_duel(http)
        (active,) = http.get(f"/api/rooms/{code}").json()["to_act"]

    async def session() -> tuple[dict[str, object], dict[str, object], int | None]:
        url = f"{server.ws_url}/ws/rooms/{code}?token={tokens[active]}"
        async with (
            websockets.connect(url) as phone,
            websockets.connect(f"{server.ws_url}/ws/rooms/{code}/board") as board,
        ):
            view = json.loads(await phone.recv())
            await board.recv()
            await phone.send(
                json.dumps({"type": "order", "order": order_from_prompt(view["prompt"])})
            )
            after = await next_view(phone)  # the log of the played turn comes first
            board_after = await next_view(board)
        async with websockets.connect(f"{server.ws_url}/ws/rooms/{code}?token=forged") as bad:
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await bad.recv()
            assert closed.value.rcvd is not None
            return after, board_after, closed.value.rcvd.code

    after, board_after, close_code = asyncio.run(session())
    assert after["version"] == 1 and board_after["version"] == 1
    assert close_code == 1008


def test_heirs_games_stored_before_the_variants_keep_their_elf(empty_database_url: str) -> None:
    """H13.1: a Heirs match stored when the Elf counted per 5 soldiers goes on, after the
    upgrade, with the named variant that keeps it so (its snapshot and its replay)."""
    from alembic import command

    from app.db import alembic_config, upgrade
    from engine.registry import get_rules

    url = empty_database_url
    command.upgrade(alembic_config(url), "0005")
    rules = get_rules("heirs")
    state = rules.to_json(rules.setup(3, 11, {}))
    del state["options"]["variants"]  # as stored before variants existed
    engine = make_engine(url)
    with engine.begin() as db:
        db.execute(
            text(
                "INSERT INTO room (code, game, options, status, host_token_hash, paused, "
                "created_at, updated_at) VALUES ('ABCD', 'heirs', '{}', 'playing', 'x', false, "
                "'2026-11-30', '2026-11-30')"
            )
        )
        db.execute(
            text(
                "INSERT INTO match (room_id, number, game, players, seed, options, seats, "
                "status, version, state, recent_events, ready_seats, created_at, updated_at, "
                "fast_forward) VALUES ((SELECT id FROM room), 1, 'heirs', '[0, 1, 2]', 11, "
                "'{\"timer\": 90}', 3, 'playing', 0, :state, '[]', '[]', '2026-11-30', "
                "'2026-11-30', false)"
            ),
            {"state": json.dumps(state)},
        )
    upgrade(url)
    with Session(engine) as session:
        match = session.exec(select(Match)).one()
    engine.dispose()
    assert match.options == {"timer": 90, "variants": ["elf_per_5"]}
    restored = rules.from_json(match.state)
    assert restored.options["variants"] == ["elf_per_5"]
