"""The server restarted mid-round (a crash, SIGKILL), with a TV and two phones open in Chromium.

Before, the pages knocked again after htmx's own waits, which grow to 64 s: a TV stayed on
"Reconnecting…" for 19 s after the server was back. And a phone that sealed meanwhile seemed
to do nothing at all (its order waited for the connection, unsaid), under a banner that hid
the phone's name, while the TV went on showing green dots. Now every page is back
within a few seconds of the server, a seal tapped meanwhile says it waits, leaves once the
connection is back and resolves the round, and the order sealed before the crash stands.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.browser.kit import (
    BOARD_SIZE,
    PHONE_SIZE,
    choose_phone_language,
    keep_screenshot,
    launch,
)
from tests.conftest import running_server
from tests.live import wait_for
from tests.play import start_duel

pytestmark = pytest.mark.browser

TIMEOUT_MS = 15_000
BACK_WITHIN_S = 6.0
"""The longest a page may take to come back once the server answers again: the pages try
again at most every 4 s (static/pecet.js), plus time to connect and draw."""


def open_page(
    browser: Browser, url: str, cookies: dict[str, str], phone: bool, before_page: str = ""
) -> Page:
    """The page at ``url`` with ``cookies``; ``before_page``, a script run before the page's
    own."""
    if phone:
        context = browser.new_context(viewport=PHONE_SIZE, is_mobile=True, has_touch=True)
    else:
        context = browser.new_context(viewport=BOARD_SIZE)
    if before_page:
        context.add_init_script(before_page)
    origin = "/".join(url.split("/", 3)[:3])
    context.add_cookies([{"name": n, "value": v, "url": origin} for n, v in cookies.items()])
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    return page


def test_the_pages_come_back_soon_after_a_restart_and_a_seal_meanwhile_waits(
    tmp_path: Path, artifacts: Path
) -> None:
    with running_server(tmp_path) as server, sync_playwright() as playwright:
        base = server.base_url
        api = httpx.Client(base_url=base, timeout=10)
        code, host, tokens = start_duel(api, "legions", ("Alice", "Bob"))
        browser = launch(playwright)
        try:
            board = open_page(browser, f"{base}/b/{code}", {f"pecet_host_{code}": host}, False)
            alice, bob = (
                open_page(browser, f"{base}/r/{code}", {f"pecet_seat_{code}": token}, True)
                for token in tokens
            )
            for phone in (alice, bob):
                expect(phone.locator("[data-testid=seal-form]")).to_be_visible()
            # Alice reads Czech, chosen on the page after it loaded in English.
            choose_phone_language(alice, "cs")
            alice.locator("[data-testid=seal-form] .lg-pick").first.click()
            alice.locator("[data-testid=seal-form] [data-testid=seal]").click()
            expect(board.locator(".lg-seal.sealed")).to_have_count(1)
            before = api.get(f"/api/rooms/{code}").json()
            assert list(before["commitments"]) == ["0"] and before["history"] == []

            drawn_before = str(before["version"])
            expect(alice.locator("#phone-view")).to_have_attribute("data-version", drawn_before)
            server.kill()
            for page in (board, alice, bob):
                expect(page.locator("#connection")).to_be_visible()
                expect(page.locator("body")).to_have_class(re.compile(r"\boffline\b"))
            # In the language chosen on the page, not the one it loaded in.
            expect(alice.locator("#connection")).to_contain_text("Znovu se připojuji")
            # The phone's banner takes its own room: the name under it stays in sight.
            banner, name = (bob.locator(s).bounding_box() for s in ("#connection", ".ph-name"))
            assert banner and name and name["y"] >= banner["y"] + banner["height"] - 1
            # Bob seals while the server is down: his page says it waits for the connection.
            bob.locator("[data-testid=seal-form] .lg-pick").first.click()
            bob.locator("[data-testid=seal-form] [data-testid=seal]").click()
            expect(bob.locator("#connection .connection-queued")).to_be_visible()
            keep_screenshot(bob, artifacts / "restart-phone-seal-waits.png")
            # Long enough down for htmx's own waits to have grown past 8 s.
            bob.wait_for_timeout(9_000)

            server.start()
            back = time.monotonic()
            for page in (board, alice, bob):
                expect(page.locator("#connection")).to_be_hidden(timeout=BACK_WITHIN_S * 1000)
            took = time.monotonic() - back
            assert took < BACK_WITHIN_S, f"the pages came back {took:.1f} s after the server"
            for page in (board, alice, bob):
                expect(page.locator("body")).not_to_have_class(re.compile(r"\boffline\b"))
            expect(bob.locator("#connection .connection-queued")).to_be_hidden()

            # Alice's order stood through the crash, Bob's left once the socket was back: both
            # seals resolve, and the board's log tells the round.
            wait_for(
                lambda: api.get(f"/api/rooms/{code}").json()["history"] != [],
                "the round sealed across the restart resolved",
            )
            expect(board.locator(".lg-seal.sealed")).to_have_count(0)
            # The language chosen on the page held across the new socket: the view of the
            # round's outcome, drawn by the server after the restart, is Czech, not the
            # English the page loaded in.
            expect(alice.locator("#phone-view")).not_to_have_attribute(
                "data-version", drawn_before, timeout=TIMEOUT_MS
            )
            expect(alice.locator(".ph-room")).to_contain_text("Místnost")
            keep_screenshot(board, artifacts / "restart-board-after.png")
        finally:
            browser.close()


UNNOTICED = """
  for (const kind of ['offline', 'online']) {
    window.addEventListener(kind, event => event.stopImmediatePropagation(), true);
  }
"""
"""Hides the network's going and coming from a page: listening on the window before the
page's own scripts do, it stops their listeners from hearing of it."""


@pytest.mark.parametrize("noticed", [False, True], ids=["unnoticed", "offline-event"])
def test_a_phone_that_loses_its_network_says_so_and_its_seal_arrives_once_it_is_back(
    tmp_path: Path, artifacts: Path, noticed: bool
) -> None:
    """Unnoticed: a phone's Wi-Fi drops and nothing closes its socket, nor tells the browser.
    Before, the page never showed "Reconnecting…", a seal tapped then seemed to do nothing,
    and the TV went on showing the seat there. The page's ping gets no answer, so it says so
    and opens a new socket, and the seal it sent into the dead one goes out again on the new
    one once the phone is back.

    Noticed: a walk took a phone offline mid-turn and tapped its order, and for 12 s nothing
    said the phone had no network (the ping's wait), though the browser knew at once. The
    page now says so when the browser does, and back online connects again at once."""
    with running_server(tmp_path) as server, sync_playwright() as playwright:
        base = server.base_url
        api = httpx.Client(base_url=base, timeout=10)
        code, _host, tokens = start_duel(api, "legions", ("Alice", "Bob"))
        browser = launch(playwright)
        try:
            alice, bob = (
                open_page(
                    browser,
                    f"{base}/r/{code}",
                    {f"pecet_seat_{code}": token},
                    True,
                    before_page="" if noticed or seat == 0 else UNNOTICED,
                )
                for seat, token in enumerate(tokens)
            )
            for phone in (alice, bob):
                expect(phone.locator("[data-testid=seal-form]")).to_be_visible()
            went = time.monotonic()
            bob.context.set_offline(True)
            if noticed:
                # Well inside the ping's 10 + 12 s: only the browser's word says it so soon.
                expect(bob.locator("#connection")).to_be_visible(timeout=3_000)
            bob.locator("[data-testid=seal-form] .lg-pick").first.click()
            bob.locator("[data-testid=seal-form] [data-testid=seal]").click()
            # Unnoticed, the page pings a quiet socket every 10 s and waits 12 s for the answer.
            expect(bob.locator("#connection")).to_be_visible(timeout=40_000)
            expect(bob.locator("#connection .connection-queued")).to_be_visible()
            if not noticed:  # its ping said it: the page never heard of the network going
                assert time.monotonic() - went > 12, "told sooner than a ping's answer is due"
            assert api.get(f"/api/rooms/{code}").json()["commitments"] == {}
            shot = "offline-phone.png" if noticed else "dead-connection-phone.png"
            keep_screenshot(bob, artifacts / shot)

            bob.context.set_offline(False)
            expect(bob.locator("#connection")).to_be_hidden(timeout=BACK_WITHIN_S * 1000)
            wait_for(
                lambda: list(api.get(f"/api/rooms/{code}").json()["commitments"]) == ["1"],
                "the seal tapped without a network arrived once the phone was back",
            )
            expect(alice.locator("[data-testid=seal-form]")).to_be_visible()
        finally:
            browser.close()
