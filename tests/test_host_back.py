"""The host's controls on another screen. They came only with the host's cookie: a TV
browser that lost its cookies (a restart, another screen) lost the host's menu for good,
and with it the seats' PINs. The host's PIN, shown on the host's board, now brings them
over, once: the old token and the PIN used stop working."""

from __future__ import annotations

import re
from html import unescape
from typing import Any

from fastapi.testclient import TestClient

from tests.play import auth


def opened(client: TestClient, names: tuple[str, ...] = ("Ann", "Ben")) -> tuple[str, str]:
    created = client.post("/api/rooms", json={"game": "heirs"})
    assert created.status_code == 201, created.text
    code, host = created.json()["code"], created.json()["host_token"]
    for name in names:
        assert client.post(f"/api/rooms/{code}/seats", json={"name": name}).status_code == 201
    return code, host


def host_pin(client: TestClient, code: str, host: str) -> str:
    board: dict[str, Any] = client.get(f"/api/rooms/{code}", headers=auth(host)).json()
    pin = board["host_pin"]
    assert re.fullmatch(r"\d{4}", pin), board
    return str(pin)


def test_the_host_s_pin_moves_the_host_s_controls_once(client: TestClient) -> None:
    code, host = opened(client)
    pin = host_pin(client, code, host)
    assert client.get(f"/api/rooms/{code}").json().get("host_pin") is None, "the host's only"
    ann = client.post(f"/api/rooms/{code}/seats", json={"name": "Cid"}).json()["token"]
    assert client.get(f"/api/rooms/{code}", headers=auth(ann)).json().get("host_pin") is None

    wrong = "0000" if pin != "0000" else "1111"
    refused = client.post(f"/api/rooms/{code}/host/reclaim", json={"pin": wrong})
    assert refused.status_code == 403 and refused.json()["code"] == "wrong_pin"

    moved = client.post(f"/api/rooms/{code}/host/reclaim", json={"pin": pin})
    assert moved.status_code == 200, moved.text
    token, new_pin = moved.json()["host_token"], moved.json()["host_pin"]
    assert new_pin != pin and host_pin(client, code, token) == new_pin
    # The old screen's token no longer hosts; the new one does.
    old = client.post(f"/api/rooms/{code}/pause", json={"paused": True}, headers=auth(host))
    assert old.status_code == 403, old.text
    assert client.post(f"/api/rooms/{code}/start", headers=auth(token)).status_code == 200
    # The PIN used brings the controls over once only.
    again = client.post(f"/api/rooms/{code}/host/reclaim", json={"pin": pin})
    assert again.status_code == 403


def test_wrong_host_pins_are_stopped_after_five(client: TestClient) -> None:
    code, host = opened(client)
    pin = host_pin(client, code, host)
    wrong = "0000" if pin != "0000" else "1111"
    answers = [
        client.post(f"/api/rooms/{code}/host/reclaim", json={"pin": wrong}).status_code
        for _ in range(5)
    ]
    assert answers == [403] * 5
    stopped = client.post(f"/api/rooms/{code}/host/reclaim", json={"pin": pin})
    assert stopped.status_code == 429 and int(stopped.headers["Retry-After"]) > 0
    assert client.get(f"/api/rooms/{code}", headers=auth(host)).json()["host_pin"] == pin


def test_a_board_without_the_host_s_cookie_takes_the_controls_with_the_pin(
    client: TestClient,
) -> None:
    code, host = opened(client)
    pin = host_pin(client, code, host)
    client.cookies.clear()
    board = unescape(client.get(f"/b/{code}").text)
    assert 'data-testid="host-back-link"' in board and 'data-testid="start"' not in board
    form = client.get(f"/b/{code}/host")
    assert form.status_code == 200 and 'name="pin"' in form.text

    client.cookies.set("pecet_lang", "cs")
    refused = client.post(f"/b/{code}/host", data={"pin": "12a4"})
    assert refused.status_code == 403
    assert "Tohle není PIN hostitele" in unescape(refused.text)
    # The browser's own refusal of letters names what the field wants, in the page's words.
    assert 'title="4 číslice"' in refused.text
    client.cookies.delete("pecet_lang")

    moved = client.post(f"/b/{code}/host", data={"pin": pin}, follow_redirects=False)
    assert moved.status_code == 303 and moved.headers["location"] == f"/b/{code}"
    assert moved.cookies.get(f"pecet_host_{code}")
    hosted = unescape(client.get(f"/b/{code}").text)
    assert 'data-testid="start"' in hosted and 'data-testid="host-back-link"' not in hosted
    # The host's board shows the new PIN, to be noted for the next time.
    shown = re.search(r'data-testid="host-pin">(\d{4})<', hosted)
    assert shown and shown.group(1) != pin


def test_the_old_host_screen_keeps_the_board_only(client: TestClient) -> None:
    """A board socket that proved the host's token loses the host's view (the PINs) once
    the controls move to another screen."""
    code, host = opened(client)
    pin = host_pin(client, code, host)
    client.cookies.set(f"pecet_host_{code}", host)
    with client.websocket_connect(f"/ws/rooms/{code}/board") as socket:
        first = socket.receive_json()
        assert first["type"] == "view" and first["pins"] and first["host_pin"] == pin
        client.cookies.clear()
        assert client.post(f"/api/rooms/{code}/host/reclaim", json={"pin": pin}).is_success
        while (frame := socket.receive_json())["type"] != "view":
            pass
        assert "pins" not in frame and "host_pin" not in frame, frame
        told = socket.receive_json()  # after the view, so that a page keeps its line
        assert told["type"] == "error" and told["code"] == "host_moved", told


def test_a_pin_of_any_characters_is_only_wrong(client: TestClient) -> None:
    """A PIN typed with letters from any script is refused as wrong (it made a 500: the
    constant-time comparison takes ASCII text only), for the host and for a seat."""
    code, _host = opened(client)
    odd = "\u0161\u010d\U0001f600"
    host_try = client.post(f"/api/rooms/{code}/host/reclaim", json={"pin": odd})
    assert host_try.status_code == 403 and host_try.json()["code"] == "wrong_pin"
    seat_try = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Ann", "pin": odd})
    assert seat_try.status_code == 403 and seat_try.json()["code"] == "wrong_pin"
