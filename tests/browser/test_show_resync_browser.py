"""A board that loses frames in the middle of a show does not stay there.

Chromium's board page talks to a real server through Playwright's websocket route, which
passes every frame on, except that once the show of round 1 has reached the board, the
server's frames are dropped until the server has played the round out (as a TV on a weak
Wi-Fi, or a socket that stalls, would lose them). Nothing else will come: the room waits for
the next round's orders. The board notices the silence in the middle of a show, asks for
the present and leaves the show; the step it was stuck on is not what it shows at the end.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Page, WebSocketRoute, expect, sync_playwright

from tests.browser.kit import BOARD_SIZE, launch
from tests.conftest import running_server
from tests.play import auth

pytestmark = pytest.mark.browser

STEP_SECONDS = 0.4
RESYNC_TIMEOUT_MS = 20_000
"""The board asks after two steps and four seconds of silence; the rest is a busy machine."""


def play_everyone(api: httpx.Client, code: str, tokens: list[str]) -> int:
    """Every seat with a prompt plays it (setup: a free colour and the first character;
    orders: the empty order, which stays and settles, H5.4). Answers how many moved."""
    moved = 0
    for seat, token in enumerate(tokens):
        prompt = api.get(f"/api/rooms/{code}/me", headers=auth(token)).json().get("prompt")
        if not prompt:
            continue
        order: dict[str, Any] = {}
        if prompt["kind"] == "setup":
            order = {"colour": prompt["colours"][seat], "character": prompt["characters"][0]}
        response = api.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
        moved += response.status_code == 202
    return moved


def wait_until(page: Page, check: Any, what: str, seconds: float = 30) -> Any:
    """Polls the server's state; between polls Playwright runs the page and its socket
    route (a plain sleep would hold the route's frames back until the next call)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        page.wait_for_timeout(50)
    raise AssertionError(f"never: {what}")


def test_a_board_that_lost_the_end_of_a_show_catches_up(tmp_path: Path) -> None:
    with (
        running_server(tmp_path, STEP_SECONDS) as server,
        httpx.Client(base_url=server.base_url, timeout=10) as api,
        sync_playwright() as playwright,
    ):
        created = api.post("/api/rooms", json={"game": "heirs"}).json()
        code, host = created["code"], created["host_token"]
        tokens = [
            api.post(f"/api/rooms/{code}/seats", json={"name": name}).json()["token"]
            for name in ("Anna", "Boris", "Cyril")
        ]

        dropping = {"on": False, "dropped": 0}

        def route(socket: WebSocketRoute) -> None:
            server_side = socket.connect_to_server()

            def from_server(message: str | bytes) -> None:
                if dropping["on"]:
                    dropping["dropped"] += 1
                    return
                socket.send(message)

            server_side.on_message(from_server)
            socket.on_message(lambda message: server_side.send(message))

        browser = launch(playwright)
        try:
            board = browser.new_context(viewport=BOARD_SIZE).new_page()
            board.route_web_socket("**/board*", route)
            board.goto(f"{server.base_url}/b/{code}")
            expect(board.locator("[data-testid=room-code]")).to_have_text(code)
            assert api.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200

            # Setup, then round 1 sealed by all: the board starts playing round 1 out.
            wait_until(board, lambda: play_everyone(api, code, tokens) == 3, "everyone set up")
            wait_until(board, lambda: play_everyone(api, code, tokens) == 3, "round 1 sealed")
            showing = board.locator("[data-show-ms]")
            expect(showing).to_have_count(1, timeout=RESYNC_TIMEOUT_MS)
            stuck_on = board.locator("[data-testid=heirs-board]").get_attribute("data-show-step")

            # From here the server's frames are lost until the server has ended the show.
            dropping["on"] = True
            wait_until(
                board, lambda: api.get(f"/api/rooms/{code}").json()["show"] is None, "show over"
            )
            assert dropping["dropped"] > 0, "the server told the board of later steps"
            dropping["on"] = False

            expect(showing).to_have_count(0, timeout=RESYNC_TIMEOUT_MS)
            heirs_board = board.locator("[data-testid=heirs-board]")
            expect(heirs_board).not_to_have_attribute("data-show-step", stuck_on or "")
            expect(heirs_board).to_have_attribute("data-phase", "orders")
        finally:
            browser.close()
