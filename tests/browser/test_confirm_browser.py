"""The host's "are you sure?" is the page's own dialog, not the browser's confirm(), which
stopped the whole page while it was open: the board's show stood still for the room, and no
frame of the room came in until the host answered."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import parse_qsl

import httpx
import pytest
from playwright.sync_api import Browser, Dialog, ViewportSize, expect

from tests.browser.kit import keep_screenshot
from tests.conftest import ServerProcess, paced_server
from tests.live import wait_for
from tests.play import auth, lobby_with_bots

pytestmark = pytest.mark.browser

BOARD_SIZE: ViewportSize = {"width": 1280, "height": 720}
STEP_SECONDS = 0.4


show_server = paced_server(STEP_SECONDS)


def test_the_host_is_asked_in_the_page_while_the_show_goes_on(
    show_server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    base = show_server.base_url
    http = httpx.Client(base_url=base, timeout=10)
    code, host, _seats = lobby_with_bots(http, "heirs", bots=3)
    context = browser.new_context(viewport=BOARD_SIZE)
    context.add_cookies([{"name": f"pecet_host_{code}", "value": host, "url": base}])
    board = context.new_page()
    native: list[Dialog] = []

    def refuse(dialog: Dialog) -> None:
        native.append(dialog)
        dialog.dismiss()

    board.on("dialog", refuse)
    skips: list[dict[str, str]] = []
    board.on(
        "request",
        lambda request: (
            skips.append(dict(parse_qsl(request.post_data or "")))
            if request.url.endswith("/show/skip")
            else None
        ),
    )
    board.goto(f"{base}/b/{code}")
    board.locator("#board-view").wait_for()  # a board that watches: the rounds play out on it
    assert http.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200

    # During a show, the host asks to fast-forward: a question in the page.
    fast_forward = board.locator("[data-testid=fast-forward]")
    fast_forward.wait_for()
    fast_forward.click()
    dialog = board.locator("[data-testid=confirm]")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Skip the board's show for the rest of this game")
    keep_screenshot(board, artifacts / "confirm-fast-forward.png")
    # Cancel: nothing is sent.
    board.locator("[data-testid=confirm-no]").click()
    expect(dialog).to_be_hidden()
    assert http.get(f"/api/rooms/{code}").json()["fast_forward"] is False

    # Asked again, and left open while the board plays on underneath: its show moves on, and
    # the form asked from is drawn anew with the frames.
    fast_forward.wait_for()
    fast_forward.click()
    expect(dialog).to_be_visible()
    board.evaluate("() => { document.getElementById('board-view').dataset.asked = '1'; }")
    board.wait_for_function("() => !document.querySelector('#board-view[data-asked]')")
    expect(dialog).to_be_visible()
    # The answer goes while the board still asks it (a show on, its Fast-forward there).
    fast_forward.wait_for()
    with board.expect_request(lambda request: request.url.endswith("/show/skip")):
        board.locator("[data-testid=confirm-yes]").click()
    expect(dialog).to_be_hidden()
    # The answer is the form's own request, "every later round" with it.
    wait_for(lambda: http.get(f"/api/rooms/{code}").json()["fast_forward"], "the fast-forward")
    # One request in all: the question cancelled sent none. (Playwright hands the page's
    # events to the listener only while it is called: one more call, and every request the
    # page made before it has been counted.)
    board.evaluate("() => 0")
    assert skips == [{"all": "1"}], skips
    assert native == [], "the browser's own confirm() was used"
    context.close()


def test_a_question_the_page_no_longer_asks_goes_away(
    show_server: ServerProcess, browser: Browser
) -> None:
    """The host's "skip the show of every later round?" left open while the game ends (here
    fast-forwarded from another of the host's screens): the board no longer offers it, and
    the question goes with it rather than staying over the final scores."""
    base = show_server.base_url
    http = httpx.Client(base_url=base, timeout=10)
    code, host, _seats = lobby_with_bots(http, "heirs", bots=3)
    context = browser.new_context(viewport=BOARD_SIZE)
    context.add_cookies([{"name": f"pecet_host_{code}", "value": host, "url": base}])
    board = context.new_page()
    board.goto(f"{base}/b/{code}")
    board.locator("#board-view").wait_for()
    assert http.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    board.locator("[data-testid=fast-forward]").click()
    dialog = board.locator("[data-testid=confirm]")
    expect(dialog).to_be_visible()
    skipped = http.post(f"/api/rooms/{code}/show/skip", json={"all": True}, headers=auth(host))
    assert skipped.status_code == 200, skipped.text
    wait_for(lambda: http.get(f"/api/rooms/{code}").json()["status"] == "finished", "the end")
    expect(board.locator("[data-testid=fast-forward]")).to_have_count(0)
    expect(dialog).to_be_hidden()
    context.close()
