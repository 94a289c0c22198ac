"""The host's panels on the Heirs TV (hand a seat to a bot, the timers, the PINs): opened,
one floats above the host's row instead of pushing the board's log out of the column; one
opened before the board plays a round out closes as the show begins (the whole room watches
it), one opened during the show stays open through its steps."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, expect

from tests.browser.kit import BOARD_SIZE
from tests.browser.test_heirs_browser import host_room
from tests.conftest import ServerProcess, paced_server
from tests.live import wait_for
from tests.play import auth

STEP_SECONDS = 1.0
"""Long enough a step to open a panel during the show and see it through several steps."""

pytestmark = pytest.mark.browser

server = paced_server(per_module=True)
"""Each test plays rooms of its own."""


def test_an_opened_host_panel_leaves_the_log_its_room(
    server: ServerProcess, browser: Browser
) -> None:
    board, code = host_room(browser, server.base_url)
    try:
        with httpx.Client(base_url=server.base_url) as http:
            for name in ("Ann", "Ben", "Cyril"):
                seat = http.post(f"/api/rooms/{code}/seats", json={"name": name})
                assert seat.status_code == 201, seat.text
        expect(board.locator("[data-testid=seat-line]")).to_have_count(3)
        board.locator("[data-testid=start]").click()
        log = board.locator("[data-testid=history]")
        expect(log).to_be_visible()
        before = log.bounding_box()
        assert before is not None and before["height"] > 100, before
        for panel in (".hx-more-time", ".hx-hand-over", "[data-testid=pins]"):
            details = board.locator(f".hx-host > details{panel}")
            details.locator("> summary").click()
            expect(details).to_have_attribute("open", "")
            box = details.bounding_box()
            assert box is not None
            assert box["y"] >= 0 and box["y"] + box["height"] <= BOARD_SIZE["height"], box
            now = log.bounding_box()
            assert now is not None and now["y"] == before["y"], f"{panel} opened: the log moved"
            assert now["height"] >= before["height"], f"{panel} opened: the log shrank"
            details.locator("> summary").click()
            expect(details).not_to_have_attribute("open", "")
        # A seat's PIN is read by its player standing at the TV, not by the host alone: it is
        # shown large, whatever the size of the panel's own words (about 16 px it was).
        board.locator(".hx-host > details[data-testid=pins] > summary").click()
        board.locator("[data-testid=pin-of-0] > summary").click()
        pin = board.locator("[data-testid=pin-0]")
        expect(pin).to_be_visible()
        assert pin.evaluate("e => parseFloat(getComputedStyle(e).fontSize)") >= 28
        board.locator(".hx-host > details[data-testid=pins] > summary").click()
        timer = board.locator(".hx-more-time select").first
        board.locator(".hx-more-time summary").click()
        expect(timer).to_be_visible()
        expect(timer).to_be_enabled()
        # The panels open in one place, one at a time: the PINs opened over the open timer
        # panel hid its controls.
        board.locator(".hx-host > details[data-testid=pins] > summary").click()
        expect(board.locator(".hx-host > details[data-testid=pins]")).to_have_attribute("open", "")
        expect(board.locator(".hx-host > details.hx-more-time")).not_to_have_attribute("open", "")
        board.locator(".hx-more-time summary").click()
        expect(timer).to_be_visible()
        expect(board.locator(".hx-host > details[data-testid=pins]")).not_to_have_attribute(
            "open", ""
        )
    finally:
        board.context.close()


slow_show_server = paced_server(STEP_SECONDS)


def test_a_panel_opened_before_the_show_closes_as_it_begins(
    slow_show_server: ServerProcess, browser: Browser
) -> None:
    base = slow_show_server.base_url
    board, code = host_room(browser, base)
    try:
        host = next(c["value"] for c in board.context.cookies() if c["name"].endswith(code))
        http = httpx.Client(base_url=base, timeout=10)
        ann = http.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).json()["token"]
        for _ in range(2):
            assert http.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
        board.locator("[data-testid=start]").click()

        def ann_decides(kind: str) -> dict[str, Any]:
            """Ann's prompt once it is of ``kind`` (the bots have sealed theirs by then)."""
            found: dict[str, Any] = {}

            def ready() -> bool:
                me = http.get(f"/api/rooms/{code}/me", headers=auth(ann)).json()
                found.update(me["prompt"] or {})
                return found.get("kind") == kind and me["to_act"] == [me["you"]["seat"]]

            wait_for(ready, f"Ann's {kind}", 20)
            return found

        setup = ann_decides("setup")
        timers = board.locator(".hx-host > details.hx-more-time")
        timers.locator("> summary").click()
        expect(timers).to_have_attribute("open", "")
        pick = {"colour": setup["colours"][0], "character": setup["characters"][0]}
        assert http.post(f"/api/rooms/{code}/orders", json=pick, headers=auth(ann)).is_success
        ann_decides("orders")
        pause = board.locator(".hx-host [data-testid=pause]")
        expect(pause).to_be_visible()
        pause_before_the_show = pause.bounding_box()
        timers.locator("> summary").click()
        expect(timers).to_have_attribute("open", "")
        # The host's keyboard is in it: the frames that redraw the board give the focus back
        # to the same control, but never open the panel the show closed.
        timers.locator("[data-testid=game-timer]").focus()
        assert http.post(f"/api/rooms/{code}/orders", json={}, headers=auth(ann)).is_success
        playing = board.locator("[data-testid=heirs-board][data-show-step]")
        expect(playing).to_have_count(1)
        expect(timers).not_to_have_attribute("open", "")  # the room watches the show
        # "Skip this round" comes with the show on the playback's own row: Pause stays put
        # (it dropped to the next line and came back after every show).
        expect(board.locator(".hx-host [data-testid=skip-show]")).to_be_visible()
        assert pause.bounding_box() == pause_before_the_show
        # Opened during the show, the PINs stay open from step to step.
        pins = board.locator(".hx-host > details[data-testid=pins]")
        pins.locator("> summary").click()
        step = int(playing.get_attribute("data-show-step") or 0)
        for later in (step + 1, step + 2):
            expect(
                board.locator(f"[data-testid=heirs-board][data-show-step='{later}']")
            ).to_have_count(1, timeout=int(STEP_SECONDS * 3000))
            expect(pins).to_have_attribute("open", "")
            expect(timers).not_to_have_attribute("open", "")
    finally:
        board.context.close()


OPENED_UNTIL_JS = """([key, seconds]) => {
  const until = Date.now() + seconds * 1000;
  sessionStorage.setItem('pecet_open_until_' + key, String(until));
  return until;
}"""
"""A timed panel's closing time moved to ``seconds`` from now, as if opened long ago."""


def test_a_host_panel_in_use_stays_open_and_one_left_alone_closes(
    server: ServerProcess, browser: Browser
) -> None:
    """A panel closes by itself a while after it was opened (data-open-for), unless the host
    is using it: each choice made in it gives it its time again. It closed under the host's
    finger a minute after opening, however busy the host was in it."""
    board, code = host_room(browser, server.base_url)
    try:
        with httpx.Client(base_url=server.base_url) as http:
            for name in ("Ann", "Ben"):
                seat = http.post(f"/api/rooms/{code}/seats", json={"name": name})
                assert seat.status_code == 201, seat.text
        expect(board.locator("[data-testid=seat-line]")).to_have_count(2)
        board.locator("[data-testid=start]").click()
        panel = board.locator(".hx-host > details.hx-more-time")
        panel.locator("> summary").click()
        expect(panel).to_have_attribute("open", "")

        # In use: 1 s before it would close, the host gives Ann more time.
        until = board.evaluate(OPENED_UNTIL_JS, [f"time-{code}", 1])
        with board.expect_response(lambda response: response.url.endswith("/seats/0/time")):
            panel.locator("[data-testid=time-0]").select_option("2")
        board.wait_for_function("until => Date.now() > until + 1500", arg=until)
        expect(panel).to_have_attribute("open", "")
        expect(panel.locator("[data-testid=time-0]")).to_have_value("2")

        # Left alone: it closes at its time.
        until = board.evaluate(OPENED_UNTIL_JS, [f"time-{code}", 1])
        board.wait_for_function("until => Date.now() > until + 1500", arg=until)
        expect(panel).not_to_have_attribute("open", "")

        # Escape closes it, from inside it, and the focus goes back to its title.
        panel.locator("> summary").click()
        expect(panel).to_have_attribute("open", "")
        panel.locator("[data-testid=time-1]").focus()
        board.keyboard.press("Escape")
        expect(panel).not_to_have_attribute("open", "")
        expect(panel.locator("> summary")).to_be_focused()
    finally:
        board.context.close()
