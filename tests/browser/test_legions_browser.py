"""Legions played by clicking: one board (TV) and two phones in Chromium.

Both phones seal, place, recruit and take by tapping the big option buttons to the end of
the game (every turn ends with an attack; a recruitment is required); should tapping run
out of time, the host hands both seats to bots, which finish it. Screenshots of the board and
both phones at sealing, mid-game and the end go to ``test-artifacts/``. Uses Debian's Chromium
(``/usr/bin/chromium``) only; it never downloads a browser.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import ElementHandle, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.ergonomics import phone_fit, small_text
from tests.browser.kit import (
    BOARD_SIZE,
    PHONE_SIZE,
    choose_phone_language,
    keep_screenshot,
    launch,
)
from tests.browser.test_hidden_leaders_browser import TIMEOUT_MS
from tests.conftest import ServerProcess

pytestmark = pytest.mark.browser


STACKING_PICK = """() => {
  const mine = {};
  document.querySelectorAll('.lg-mini-loc').forEach(el => {
    const guild = [...el.classList].find(c => c.startsWith('g-'));
    mine[guild] = parseInt(el.querySelector('.me').textContent, 10) || 0;
  });
  const cards = [...document.querySelectorAll('.lg-pick .lg-card')];
  const top = Math.max(...Object.values(mine));
  const score = card => {
    const guild = [...card.classList].find(c => c.startsWith('g-'));
    return guild === 'g-white' ? top + 0.5 : mine[guild];
  };
  let best = 0;
  cards.forEach((card, i) => { if (score(card) > score(cards[best])) best = i; });
  return best;
}"""
STACKING_PLACE = """() => {
  const mine = {};
  document.querySelectorAll('.lg-mini-loc').forEach(el => {
    const guild = [...el.classList].find(c => c.startsWith('g-'));
    mine[guild] = parseInt(el.querySelector('.me').textContent, 10) || 0;
  });
  const buttons = [...document.querySelectorAll('button.lg-option:not(.quiet):not(.stratagem)')];
  const score = b => {
    if (b.dataset.kind !== 'place') return 0;
    const guild = [...b.classList].find(c => c.startsWith('g-'));
    return mine[guild] || 0;
  };
  let best = 0;
  buttons.forEach((b, i) => { if (score(b) > score(buttons[best])) best = i; });
  return best;
}"""


def seal_first_legion(phone: Page, prompt: ElementHandle, timeout_ms: float = 8_000) -> bool:
    """Seal the first legion of the hand; False when the sheet went before the tap could
    land. A phone whose socket dropped shows, once it is back, what the room did meanwhile
    (a seal sent just before the drop may have been played already): the page read a
    moment ago may be gone."""
    try:
        phone.locator("[data-testid=seal-form] .lg-pick").first.click(timeout=timeout_ms)
        phone.locator("[data-testid=seal-form] [data-testid=seal]").click(timeout=timeout_ms)
    except PlaywrightTimeout:
        if prompt.is_hidden():
            return False
        raise
    return True


def pick_two(phone: Page) -> None:
    """G8.3 on the phone: tick two legions (from two locations when they come from several),
    then confirm."""
    places = phone.locator("[data-testid=under-form] .lg-under-loc")
    if places.count() > 1:  # the five-location route
        places.nth(0).locator("label.lg-pick").first.click()
        places.nth(1).locator("label.lg-pick").first.click()
    else:
        picks = places.locator("label.lg-pick")
        picks.nth(0).click()
        picks.nth(1).click()
    phone.locator("[data-testid=under-submit]").click()


def act(phone: Page) -> str | None:
    """Tap through this phone's prompt once; returns what was done (None: nothing to do)."""
    prompt = phone.locator("[data-testid=prompt]")
    if not prompt.count():
        return None
    kind = prompt.get_attribute("data-kind") or ""
    handle = prompt.element_handle()
    fit = phone_fit(phone, "legions", kind)
    assert fit.height <= fit.max_height, f"{kind}: {fit.height} px"
    # Forms keep their confirm in reach; a list of one-tap options starts on the first screen.
    at_top, at_bottom = fit.confirm_on_screen(fit.at_top), fit.confirm_on_screen(fit.at_bottom)
    assert at_top and (at_bottom or kind not in ("seal", "under")), kind
    if kind == "seal":
        # Pile legions where this side already has the most (to recruit soon); white goes anywhere.
        best = phone.evaluate(STACKING_PICK)
        phone.locator(".lg-pick").nth(best).click()
        phone.locator("[data-testid=seal]").click()
    elif kind == "under":
        pick_two(phone)
    elif phone.locator("[data-testid=nothing-to-decide]").count():
        kind = "nothing"  # the phone goes on by itself (G10.1 keeps step 2 open)
    else:
        recruit = phone.locator('button[data-kind="recruit"], button[data-kind="choose_hero"]')
        plain = phone.locator("button.lg-option:not(.quiet):not(.stratagem)")
        button = recruit.first if recruit.count() else plain.nth(phone.evaluate(STACKING_PLACE))
        if not plain.count() and not recruit.count():
            button = phone.locator("button.lg-option").first
        kind = button.get_attribute("data-kind") or kind
        button.click()
    handle.wait_for_element_state("hidden", timeout=TIMEOUT_MS)  # swapped out by the socket
    return kind


# The final panel's background, and what inside it reaches past its border (its overflow is
# hidden: that much is cut off).
PANEL_CUT_JS = """() => {
  const panel = document.querySelector('[data-testid=final]');
  const box = panel.getBoundingClientRect();
  const border = parseFloat(getComputedStyle(panel).borderBottomWidth);
  const cut = [...panel.querySelectorAll('*')]
    .filter(el => el.checkVisibility())
    .filter(el => {
      const r = el.getBoundingClientRect();
      return r.bottom > box.bottom - border + 0.5 || r.right > box.right - border + 0.5;
    })
    .map(el => el.tagName.toLowerCase() + '.' + [...el.classList].join('.'));
  return {background: getComputedStyle(panel).backgroundColor, cut: cut};
}"""


def test_two_phones_play_legions_by_tapping(server: ServerProcess, artifacts: Path) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board = browser.new_context(viewport=BOARD_SIZE).new_page()
            board.set_default_timeout(TIMEOUT_MS)
            board.goto(server.base_url + "/")
            board.locator('button[name="game"][value="legions"]').click()
            board.wait_for_url("**/b/*")
            code = board.locator("[data-testid=room-code]").inner_text().strip()

            phones: list[Page] = []
            for name in ("Alice", "Bob"):
                context = browser.new_context(
                    viewport=PHONE_SIZE, is_mobile=True, has_touch=True, device_scale_factor=2
                )
                phone = context.new_page()
                phone.set_default_timeout(TIMEOUT_MS)
                phone.goto(server.base_url + "/")
                phone.fill('input[name="code"]', code)
                phone.fill('input[name="name"]', name)
                phone.locator("#join-form button[type=submit]").click()
                phone.wait_for_url(f"**/r/{code}")
                expect(board.locator("[data-testid=seats]")).to_contain_text(name)
                phones.append(phone)
            expect(board.locator(".seats-panel > p.hint")).to_contain_text("Necro-camp")
            choose_phone_language(phones[1], "cs")
            expect(phones[1].locator(".lobby-card h1")).to_have_text("Jsi ve hře!")

            board.locator("[data-testid=start]").click()
            expect(board.locator("[data-testid=legions-board]")).to_be_visible()
            for phone in phones:
                expect(phone.locator("[data-testid=seal-form]")).to_be_visible()

            # Sealing: one phone seals, the board shows "sealed" for it only. Its Seal is off
            # until a legion is chosen (a tap showed the browser's own note, in its language).
            seal = phones[0].locator("[data-testid=seal-form] [data-testid=seal]")
            expect(seal).to_be_disabled()
            phones[0].locator("[data-testid=seal-form] .lg-pick").first.click()
            expect(seal).to_be_enabled()
            act(phones[0])
            expect(board.locator(".lg-seal.sealed")).to_have_count(1)
            assert small_text(board, ".lg-board") == []  # read from the couch
            keep_screenshot(board, artifacts / "legions-board-sealing.png")
            keep_screenshot(phones[0], artifacts / "legions-phone-a-sealing.png")
            keep_screenshot(phones[1], artifacts / "legions-phone-b-sealing.png")
            expect(phones[0].locator(".lg-locked")).to_be_visible()

            done: list[str] = ["seal"]
            shot_mid = False

            def tapped_enough() -> bool:
                """Five turns sealed by both phones, a card taken and placed, a hero recruited."""
                recruited = "recruit" in done or "choose_hero" in done
                return (
                    shot_mid
                    and done.count("seal") >= 10
                    and recruited
                    and "take" in done
                    and "place" in done
                )

            # Tapping stops on what it must show, not on a clock; the deadline only guards a
            # stuck page (pytest-timeout would otherwise end the test without its screenshots).
            deadline = time.monotonic() + 200
            while not tapped_enough() and time.monotonic() < deadline:
                turn = int(board.locator("[data-testid=turn]").inner_text())
                if turn >= 3 and not shot_mid and phones[0].locator("[data-testid=prompt]").count():
                    # The board in Czech from here on, read from the couch in both languages.
                    assert small_text(board, ".lg-board") == []
                    board.locator('.lg-foot .lang-links a[lang="cs"]').click()
                    expect(board.locator("html")).to_have_attribute("lang", "cs")
                    expect(board.locator("[data-testid=turn]")).not_to_be_empty()
                    board_cs = small_text(board, ".lg-board")
                    assert board_cs == [], board_cs
                    # One word for the counter on the TV and the phone (Czech "Tah").
                    expect(board.locator(".lg-turn-no")).to_contain_text("Tah")
                    expect(phones[1].locator(".lg-status")).to_contain_text("Tah")
                    # The (Czech) phone's hero row carries the powers the board shows.
                    powers = board.locator(".lg-hero-row .hero-power").all_inner_texts()
                    expect(
                        phones[1].locator("[data-testid=phone-hero-row] .hero-power")
                    ).to_have_text(powers)
                    keep_screenshot(board, artifacts / "legions-board-mid-game.png")
                    for letter, phone in zip("ab", phones, strict=True):
                        keep_screenshot(
                            phone,
                            artifacts / f"legions-phone-{letter}-mid-game.png",
                            full_page=True,
                        )
                    shot_mid = True
                acted = [act(phone) for phone in phones]
                done += [a for a in acted if a]
                if not any(acted):
                    time.sleep(0.05)
                if "over" in (board.locator(".lg-board").get_attribute("class") or ""):
                    break
            assert shot_mid
            assert done.count("seal") >= 10, done
            assert "take" in done and "place" in done, done
            assert "recruit" in done or "choose_hero" in done, "a hero was recruited by tapping"
            expect(board.locator("[data-testid=events]")).not_to_be_empty()

            # The host hands both seats to bots, which finish the game.
            handed_over = not board.locator("[data-testid=final]").count()
            if handed_over:  # unless the game ended while tapping: the phones leave their seats
                for seat in (0, 1):  # the host menu's "hand the seat to a bot", as htmx posts it
                    response = board.request.post(
                        f"{server.base_url}/b/{code}/seats/{seat}/kick",
                        headers={"HX-Request": "true"},
                    )
                    assert response.status == 204, response.text()
                # The bots play the rest; the host fast-forwards the board to the end.
                response = board.request.post(
                    f"{server.base_url}/b/{code}/show/skip",
                    form={"all": "1"},
                    headers={"HX-Request": "true"},
                )
                assert response.status == 204, response.text()
            expect(board.locator("[data-testid=final]")).to_be_visible(timeout=30_000)
            expect(board.locator("[data-testid=end-reason]")).not_to_be_empty()
            board.wait_for_timeout(700)
            final_small = small_text(board, ".lg-board")
            assert final_small == [], final_small
            # The host's "Next game now" too, though a form is left out of the board's check.
            next_game_small = small_text(board, ".lg-board .ready-line form")
            assert next_game_small == [], next_game_small
            # The result stands on its own: an opaque panel, nothing cut off at its edge
            # ("Watch again" was, below the ready line).
            expect(board.locator("[data-testid=watch-again]")).to_be_visible()
            assert board.evaluate(PANEL_CUT_JS) == {"background": "rgb(16, 19, 26)", "cut": []}
            keep_screenshot(board, artifacts / "legions-board-final.png")
            for letter, phone in zip("ab", phones, strict=True):
                if handed_over:
                    # A seat handed to a bot: its phone stays and watches to the result, told
                    # a bot plays its seat, with the way back.
                    handed = phone.locator("[data-testid=handed]")
                    expect(handed).to_be_visible(timeout=TIMEOUT_MS)
                    winner = phone.locator("[data-testid=watching] h1")  # "Bob vyhrává" in Czech
                    expect(winner).to_contain_text(re.compile("Alice|Bob"))
                    expect(phone).to_have_url(re.compile(rf"/r/{code}$"))
                else:
                    expect(phone.locator("[data-testid=phone-result]")).to_be_visible()
                keep_screenshot(
                    phone, artifacts / f"legions-phone-{letter}-final.png", full_page=True
                )
        finally:
            browser.close()
