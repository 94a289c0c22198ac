"""A phone page still deciding is not drawn again when another seat seals (issue 14): the
seal moved nobody else on, so the page would differ only in the room's version, and its
sheet is taken at the version it was drawn at. A page that has sealed is drawn again (it
names who is still deciding)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from app.config import Settings
from app.live import Change, LiveRoom
from app.main import create_app
from app.pages import render_phone_view
from engine.core import Rng
from engine.registry import engine_games, get_rules
from tests.live import current_match, live_room, room_service, wait_for
from tests.play import auth, create_room, join

SIMULTANEOUS = [game for game in engine_games() if get_rules(game).info.simultaneous]
VERSION = re.compile(r'(data-version="|name="version" value=")\d*"')


def without_version(fragment: str) -> str:
    return VERSION.sub(r'\1"', fragment)


def page(client: TestClient, live: LiveRoom, position: int) -> str:
    seat = next(s for s in live.seats if s.position == position)
    return render_phone_view(live, room_service(client).payloads.seat_payload(live, seat), "en")


def deciding(live: LiveRoom) -> list[int]:
    """Room seats with a decision open now (none while the board plays a round out)."""
    match = current_match(live)
    if match.showing or match.status != "playing":
        return []
    rules = live.rules
    return [
        position
        for position in match.players
        if rules.prompt(match.state, match.players.index(position)) is not None
    ]


@pytest.mark.parametrize("game", SIMULTANEOUS)
def test_a_page_still_deciding_differs_only_in_its_version_after_a_quiet_seal(
    game: str, tmp_path: Path
) -> None:
    """Checked at every seal of a game's first rounds that moved nobody else on: each page
    still deciding, drawn before and after it, is the same but for the version."""
    settings = Settings(
        database_url=f"sqlite:///{tmp_path / 'pecet.sqlite3'}", bot_delay=0.0, step_seconds=0.0
    )
    rules = get_rules(game)
    checked = 0
    with TestClient(create_app(settings)) as client:
        heard: list[Change] = []

        def listen(_live: LiveRoom, change: Change) -> None:
            heard.append(change)

        room_service(client).add_listener(listen)
        room = create_room(client, game=game)
        code = room["code"]
        seats = max(rules.info.min_players, 3 if rules.info.max_players >= 3 else 2)
        tokens = [join(client, code, f"Player {n}")["token"] for n in range(seats)]
        assert client.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"])).is_success
        live = live_room(client, code)
        for number in range(40):
            if current_match(live).status != "playing":
                break
            open_seats = wait_for(lambda: deciding(live), "a decision to open")
            sealer, others = open_seats[0], open_seats[1:]
            before = {position: page(client, live, position) for position in others}
            match = current_match(live)
            engine_seat = match.players.index(sealer)
            order = rules.random_order(match.state, engine_seat, Rng(number))
            heard.clear()
            sealed = client.post(
                f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[sealer])
            )
            assert sealed.is_success, sealed.text
            if not heard or heard[-1].sealed != sealer:
                continue  # it resolved a round, or moved another seat on: every page changes
            for position, drawn in before.items():
                after = page(client, live, position)
                assert after != drawn, "the version shows the seal"
                if position in heard[-1].narrowed:
                    # Its options narrowed (a colour taken): its sheet is drawn again.
                    assert without_version(after) != without_version(drawn), (game, number)
                    continue
                assert without_version(after) == without_version(drawn), (game, number, position)
                checked += 1
    assert checked >= 3, f"only {checked} quiet seals with a page still deciding"


def next_fragment(socket: WebSocketTestSession) -> str:
    text = socket.receive_text()
    assert text.lstrip().startswith("<"), text
    return text


def pong_first(socket: WebSocketTestSession) -> None:
    """The socket was sent nothing since its last frame: a ping is answered with a pong
    (a socket behind the room would get its whole view instead)."""
    socket.send_json({"type": "ping"})
    assert socket.receive_json() == {"type": "pong"}


def test_pages_hear_a_quiet_seal_only_if_they_have_sealed(client: TestClient) -> None:
    room = create_room(client, game="heirs")
    code = room["code"]
    names = ("Ann", "Ben", "Cyril")
    tokens = [join(client, code, name)["token"] for name in names]
    assert client.post(f"/api/rooms/{code}/start", headers=auth(room["host_token"])).is_success
    live = live_room(client, code)
    heirs = get_rules("heirs")
    for seat in range(3):  # the setup, sealed through the API
        order = heirs.random_order(current_match(live).state, seat, Rng(seat))
        assert client.post(
            f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[seat])
        ).is_success
    wait_for(lambda: deciding(live) == [0, 1, 2], "the first round of orders")

    def phone(token: str) -> str:
        return f"/ws/rooms/{code}?token={token}&format=html"

    with (
        client.websocket_connect(phone(tokens[0])) as ann,
        client.websocket_connect(phone(tokens[1])) as ben,
        client.websocket_connect(phone(tokens[2])) as cyril,
    ):
        drawn = {
            name: next_fragment(socket)
            for name, socket in zip(names, (ann, ben, cyril), strict=True)
        }
        version = int(re.findall(r'name="version" value="(\d+)"', drawn["Ann"])[0])

        def order_of(seat: int) -> dict[str, object]:
            return heirs.random_order(current_match(live).state, seat, Rng(10 + seat))

        # Cyril seals: Ann and Ben, still deciding, are sent nothing.
        cyril.send_json({"type": "order", "order": order_of(2), "version": version, "match": 1})
        assert "Sealed" in next_fragment(cyril)
        pong_first(ann)
        pong_first(ben)

        # Ann seals from the sheet she was drawn before Cyril's seal: it is taken.
        ann.send_json({"type": "order", "order": order_of(0), "version": version, "match": 1})
        assert "Sealed" in next_fragment(ann)
        assert "waiting for 1 other" in next_fragment(cyril)  # a sealed page names who is left
        pong_first(ben)
