"""Heirs of the Axis played by clicking: one board (TV) and three phones (390×844).

Three phones and three bots. Three rounds by hand, steered by what each phone shows so that
a settlement (round 1) and a battle (round 3) happen; then the host hands every seat to a bot
and the bots finish. Drives Debian's Chromium through Playwright against a real server; never
downloads a browser.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.browser.kit import (
    BOARD_SIZE,
    HEIRS_END_CUT_JS,
    HEIRS_END_WHO_CUT_JS,
    PHONE_SIZE,
    keep_screenshot,
    launch,
    watch_frames,
)
from tests.conftest import ServerProcess

TIMEOUT_MS = 15_000
NAMES = ("Anna", "Boris", "Cyril")
DIRECTIONS = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))

pytestmark = pytest.mark.browser


def axial(field: str) -> tuple[int, int]:
    """H2.2: a field id → axial (q, r)."""
    ring, index = (int(n) for n in field[1:].split("-"))
    q, r = 0, -ring
    for step in range(index):
        dq, dr = DIRECTIONS[step // ring]
        q, r = q + dq, r + dr
    return q, r


def distance(a: str, b: str) -> int:
    (q1, r1), (q2, r2) = axial(a), axial(b)
    return max(abs(q1 - q2), abs(r1 - r2), abs(q1 - q2 + r1 - r2))


def host_room(
    browser: Browser, base: str, game: str = "heirs", *, watch: bool = False
) -> tuple[Page, str]:
    """A TV-sized board that hosted a new room of ``game`` from the start page, and its code;
    ``watch``: the page keeps its socket events for a failure to explain (kit.explained)."""
    board = browser.new_context(viewport=BOARD_SIZE).new_page()
    board.set_default_timeout(TIMEOUT_MS)
    if watch:
        watch_frames(board)
    board.goto(base + "/")
    board.locator(f'button[name="game"][value="{game}"]').click()
    board.wait_for_url("**/b/*")
    code = board.locator("[data-testid=room-code]").inner_text().strip()
    return board, code


def join(browser: Browser, base: str, code: str, name: str, *, watch: bool = False) -> Page:
    context = browser.new_context(
        viewport=PHONE_SIZE, is_mobile=True, has_touch=True, device_scale_factor=2
    )
    phone = context.new_page()
    phone.set_default_timeout(TIMEOUT_MS)
    if watch:
        watch_frames(phone)
    phone.goto(base + "/")
    phone.fill('input[name="code"]', code)
    phone.fill('input[name="name"]', name)
    phone.locator("#join-form button[type=submit]").click()
    phone.wait_for_url(f"**/r/{code}")
    return phone


def setup_of_two(browser: Browser, base: str) -> tuple[Page, str, Page, Page]:
    """A Heirs room hosted on a TV with Ema and Ota seated and started: both phones choose
    their dynasty now (H3.1). Answers the board, the room's code, Ema's and Ota's phones."""
    board, code = host_room(browser, base)
    ema, ota = (join(browser, base, code, name) for name in ("Ema", "Ota"))
    expect(board.locator("[data-testid=seats]")).to_contain_text("Ota")
    board.locator("[data-testid=start]").click()
    for phone in (ema, ota):
        expect(phone.locator("[data-testid=setup-form]")).to_be_visible()
    return board, code, ema, ota


def set_option(board: Page, testid: str, value: str) -> None:
    with board.expect_response(re.compile(r"/options$")):
        board.locator(f"[data-testid={testid}]").select_option(value)


def setup_phone(phone: Page, artifacts: Path, shot: str | None, choose: bool = True) -> None:
    """Pick the first free colour and the second character (unless the phone has chosen
    already); colours are first come, first served (H3.1), so a phone whose list was stale
    tries again with the fresh list."""
    form = phone.locator("[data-testid=setup-form]")
    for attempt in range(4):
        form.wait_for()
        if choose or attempt:
            form.locator(".hx-colour").first.click()
            form.locator(".hx-char").nth(1).click()
        if shot and attempt == 0:
            keep_screenshot(phone, artifacts / shot, full_page=True)
        form.locator("[data-testid=seal-setup]").click()
        try:
            form.wait_for(state="detached", timeout=10_000)
            return
        except PlaywrightTimeout:
            # Refused ("taken"), or the tap landed while a new frame (a bot's seal) replaced
            # the form: tap again, as a person would.
            continue
    raise AssertionError("no free colour could be sealed")


def targets(phone: Page) -> list[str]:
    values = phone.locator(".hx-target input").evaluate_all("els => els.map(e => e.value)")
    return [str(value) for value in values]


def pick(phone: Page, value: str) -> None:
    phone.locator(f'.hx-target:has(input[value="{value}"])').click()


def open_part(phone: Page, part: str) -> None:
    """Unfold one part of the order sheet (they fold, one open at a time)."""
    closed = phone.locator(f'details[data-part="{part}"]:not([open]) > summary')
    if closed.count():
        closed.click()


def seal(phone: Page) -> None:
    """Seal; the round's form goes (the next round's may come at once, with its own key)."""
    key = phone.locator("[data-testid=orders-form]").get_attribute("data-draft-key")
    phone.locator("[data-testid=seal]").click()
    phone.locator(f'[data-draft-key="{key}"]').wait_for(state="detached")


def sealed_or_next(phone: Page) -> Locator:
    """After sealing: the sealed card, the board's show to watch, or the next sheet."""
    return (
        phone.locator("[data-testid=sealed]")
        .or_(phone.locator("[data-testid=watch]"))
        .or_(phone.locator("[data-testid=orders-form]"))
    )


def wait_round(board: Page, number: int) -> None:
    expect(board.locator("[data-testid=round]")).to_contain_text(f"{number}", timeout=TIMEOUT_MS)


def test_three_phones_play_three_rounds_then_bots_finish(
    server: ServerProcess, artifacts: Path
) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, code = host_room(browser, server.base_url)
            set_option(board, "opt-rounds", "6")
            phones = [join(browser, server.base_url, code, name) for name in NAMES]
            expect(board.locator("[data-testid=seats]")).to_contain_text("Cyril")
            # Six seats put Anna's and Boris's capitals 4 fields apart (H2.5): a battle by
            # round 3. The bots are expanders, who stay near home.
            board.locator("[data-testid=bot-style]").select_option("expander")
            for number in (1, 2, 3):
                board.locator("[data-testid=add-styled-bot]").click()
                expect(board.locator("[data-testid=seats]")).to_contain_text(f"Bot {number}")
            keep_screenshot(board, artifacts / "heirs-board-lobby.png")
            board.locator("[data-testid=start]").click()
            expect(board.locator("[data-testid=heirs-board]")).to_be_visible()

            # Anna chooses her dynasty but does not seal yet. The others' seals redraw her
            # form; what she chose stays chosen (each new frame used to check the first
            # colour and character again, and a quick "Keep" sealed those).
            form = phones[0].locator("[data-testid=setup-form]")
            form.wait_for()
            character = form.locator(".hx-char input").nth(1).get_attribute("value")
            # Her taps are taken before the others seal (a tap that lands while a bot's seal
            # redraws the form is lost, as on a real phone: she taps again). The last colour
            # is read at each try: a bot's seal may have taken the one read before.
            colour = ""
            for _tap in range(3):
                colour = form.locator(".hx-colour input").last.get_attribute("value") or ""
                form.locator(".hx-colour").last.click()
                form.locator(".hx-char").nth(1).click()
                chosen = form.locator(f'input[name=character][value="{character}"]')
                if chosen.is_checked() and form.locator(f'input[value="{colour}"]').is_checked():
                    break
            expect(form.locator(f'input[name=character][value="{character}"]')).to_be_checked()
            expect(form.locator(f'input[name=colour][value="{colour}"]')).to_be_checked()
            before = form.element_handle()
            for index, phone in enumerate(phones[1:], start=1):
                setup_phone(phone, artifacts, f"heirs-phone-{index}-setup.png")
            before.wait_for_element_state("hidden")  # replaced by a newer frame
            expect(form.locator(f'input[name=character][value="{character}"]')).to_be_checked()
            kept = form.locator(f'input[name=colour][value="{colour}"]')
            still_free = kept.count() > 0
            if still_free:
                expect(kept).to_be_checked()
                expect(form.locator("[data-testid=colour-taken]")).to_be_hidden()
            else:  # another seat took it first: she is told, and no colour is chosen for her
                expect(form.locator("[data-testid=colour-taken]")).to_be_visible()
                expect(form.locator("input[name=colour]:checked")).to_have_count(0)
            setup_phone(phones[0], artifacts, "heirs-phone-0-setup.png", choose=not still_free)
            keep_screenshot(board, artifacts / "heirs-board-setup.png")
            wait_round(board, 1)

            anna, boris, cyril = phones
            boris_target: str | None = None
            battle_seen = settled = False
            for round_number in (1, 2, 3):
                for phone in phones:
                    phone.locator("[data-testid=orders-form]").wait_for()
                # Boris: settle the field next to his capital nearest Anna's, then hold it.
                b_moves = [t for t in targets(boris) if t.startswith("move:")]
                anna_here = targets(anna)[0]  # "stay" first; its field is Anna's position
                anna_field = anna.locator(".hx-target").first.get_attribute("data-field") or ""
                if round_number == 1:
                    boris_target = min(b_moves, key=lambda t: distance(t[5:], anna_field))
                    pick(boris, boris_target)
                # Anna: attack if she can, otherwise march towards Boris's new field.
                a_targets = targets(anna)
                attacks = [t for t in a_targets if t.startswith("attack:")]
                if attacks and round_number > 1:
                    pick(anna, attacks[0])
                    battle_seen = True
                elif boris_target:
                    moves = [t for t in a_targets if t.startswith("move:")]
                    pick(anna, min(moves, key=lambda t: distance(t[5:], boris_target[5:])))
                assert anna_here == "stay"
                # Cyril settles an edge field in round 1 and recruits every round.
                if round_number == 1:
                    c_moves = [t for t in targets(cyril) if t.startswith("move:")]
                    pick(cyril, c_moves[0])
                    settled = True
                open_part(cyril, "retinue")
                cyril.locator("[data-testid=recruit]").fill("1")
                if round_number == 1:
                    keep_screenshot(board, artifacts / "heirs-board-sealing.png")
                    # Each heir's line keeps its whole label, the bots' sealed marks beside
                    # them: a bot's tag goes under its name rather than being cut.
                    expect(board.locator(".hx-heir.sealed .bot-tag")).to_have_count(3)
                    clipped = board.evaluate(
                        """() => [...document.querySelectorAll('.hx-heir-name, .hx-heir .tag')]
                          .filter(e => e.scrollWidth > e.clientWidth + 1)
                          .map(e => e.textContent.trim())"""
                    )
                    assert clipped == [], clipped
                    for index, phone in enumerate(phones):
                        keep_screenshot(
                            phone, artifacts / f"heirs-phone-{index}-sealing.png", full_page=True
                        )
                # Anna seals from the sheet's foot: her phone then shows its top, where the
                # sealed card says whom the round waits for (it stayed at the foot, on her
                # heir's figures).
                anna.evaluate("() => window.scrollTo(0, document.body.scrollHeight)")
                assert anna.evaluate("() => scrollY") > 0
                seal(anna)
                anna.wait_for_function("() => scrollY === 0")
                expect(anna.locator("[data-testid=sealed]")).to_be_in_viewport()
                for phone in phones[1:]:
                    seal(phone)
                expect(sealed_or_next(anna)).to_be_visible()
                # The board plays the round out (quickly here: the test server paces each
                # step at 0.02 s; tests/browser/test_reveal_browser.py watches it slowly).
                wait_round(board, round_number + 1)
                expect(board.locator(".hx-board.playing")).to_have_count(0)
                keep_screenshot(board, artifacts / f"heirs-board-resolution-{round_number}.png")
                for index, phone in enumerate(phones):
                    keep_screenshot(
                        phone, artifacts / f"heirs-phone-{index}-resolution-{round_number}.png"
                    )
                log = board.locator("[data-testid=history]")
                if round_number == 1:
                    expect(log).to_contain_text("settles")
                if round_number == 3 and battle_seen:
                    expect(log).to_contain_text("Battle")
                    expect(anna.locator("[data-testid=my-log]")).to_contain_text("battle")
            assert settled and battle_seen

            # The host hands every seat to a bot; the bots finish the game.
            for seat in range(3):
                # The menu stays open a minute across re-renders once the host opened it.
                if not board.locator(".hx-hand-over").evaluate("menu => menu.open"):
                    board.locator(".hx-hand-over summary").click()
                board.locator(f"[data-testid=kick-{seat}]").click()
                board.locator("[data-testid=confirm-yes]").click()  # the page's own question
                expect(board.locator(f"[data-testid=kick-{seat}]")).to_have_count(0)
                # The new bot seals at once: wait for it before the next seat.
                if seat < 2:
                    heir = board.locator(f'.hx-heir[data-seat="{seat}"]')
                    expect(heir).to_have_class(re.compile(r"\b(sealed|fallen)\b"))
            ending = board.locator("[data-testid=ending]")
            expect(ending).to_be_visible(timeout=60_000)
            expect(ending.locator("[data-testid=watch-again]")).to_be_visible()
            keep_screenshot(board, artifacts / "heirs-board-end.png")
            assert board.evaluate(HEIRS_END_CUT_JS) == [], "six heirs' end runs past its panel"
            assert board.evaluate(HEIRS_END_WHO_CUT_JS) is None, "H19.4 cut with room to spare"
            # A phone whose seat went to a bot stays in the room and watches to the result,
            # told a bot plays its seat; its link opens this room's join page with "Come back
            # to my seat" open and the name filled in.
            for index, phone in enumerate(phones):
                expect(phone.locator("[data-testid=handed]")).to_be_visible()
                expect(phone.locator("[data-testid=watching] h1")).to_contain_text(" wins")
                keep_screenshot(phone, artifacts / f"heirs-phone-{index}-handed.png")
                phone.locator("[data-testid=come-back-link]").click()
                expect(phone).to_have_url(re.compile(rf"/j/{code}\?back=1&name={NAMES[index]}$"))
                expect(phone.locator('#join-form input[name="code"]')).to_have_value(code)
                expect(phone.locator("[data-testid=come-back-note]")).to_be_visible()
                expect(phone.locator('#reclaim-form input[name="name"]')).to_have_value(
                    NAMES[index]
                )
        finally:
            browser.close()


def test_a_reloaded_phone_keeps_its_seat_and_draft(server: ServerProcess, artifacts: Path) -> None:
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, code = host_room(browser, server.base_url)
            phone = join(browser, server.base_url, code, "Dana")
            board.locator("[data-testid=add-styled-bot]").click()
            expect(board.locator("[data-testid=seats]")).to_contain_text("Bot 1")
            board.locator("[data-testid=start]").click()
            setup_phone(phone, artifacts, None)
            form = phone.locator("[data-testid=orders-form]")
            form.wait_for()
            move = next(t for t in targets(phone) if t.startswith("move:"))
            pick(phone, move)
            open_part(phone, "retinue")
            phone.locator("[data-testid=recruit]").fill("2")
            open_part(phone, "city")
            phone.locator(
                '.hx-choice:has(input[name="build"]:not([value=""]):not(:disabled))'
            ).first.click()
            chosen_build = phone.locator('input[name="build"]:checked').get_attribute("value")
            phone.reload()
            expect(phone.locator(".ph-name")).to_have_text("Dana")
            expect(phone.locator(f'.hx-target input[value="{move}"]')).to_be_checked()
            expect(phone.locator("[data-testid=recruit]")).to_have_value("2")
            expect(phone.locator(f'input[name="build"][value="{chosen_build}"]')).to_be_checked()
            keep_screenshot(phone, artifacts / "heirs-phone-reloaded-draft.png", full_page=True)
            seal(phone)
            expect(sealed_or_next(phone)).to_be_visible()
        finally:
            browser.close()
