"""Every page of every game, in every language, passes axe-core (issue 16): no serious or
critical violation on the start and join pages, the lobbies, the board and the phone at each
game's first decisions, an ended game's board and phone, the tournament standings, a replay
and How to play.

axe-core is vendored (``tests/browser/vendor/axe-core``) and injected by Playwright; nothing is
fetched at test time. Each language walks every page once, against one server and one
browser; each page is then its own test, so a report names the page, the rule, its impact and
the first elements that break it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect, sync_playwright

from app import i18n
from tests.browser.ergonomics import SETTLE_JS
from tests.browser.kit import (
    PHONE_SIZE,
    AxeViolation,
    axe_violations,
    choose_phone_language,
    launch,
)
from tests.browser.test_heirs_browser import host_room, join, seal, set_option, setup_phone
from tests.browser.test_legions_browser import pick_two, seal_first_legion
from tests.browser.test_tournament_browser import show_standings
from tests.conftest import ServerProcess, running_server

pytestmark = pytest.mark.browser

TIMEOUT_MS = 15_000
UNKNOWN_ROOM = "OOOO"
"""No room has this code: O is left out of room codes."""
LEGIONS_TAPS = 6
END_TIMEOUT_MS = 60_000
GAMES = ("heirs", "hidden_leaders", "legions")
HEIRS_SHORTEST_ROUNDS = 6
SCREENS = (
    "start",
    "join",
    "join-unknown-room",
    *(f"howto-{game}" for game in GAMES),
    *(f"{game}-lobby-{size}" for game in GAMES for size in ("tv", "phone")),
    "heirs-setup-tv",
    "heirs-setup-phone",
    "heirs-orders-tv",
    "heirs-orders-phone",
    "heirs-end-tv",
    "heirs-end-phone",
    "heirs-replay-tv",
    "heirs-replay-phone",
    "hidden_leaders-take-tv",
    "hidden_leaders-take-phone",
    "hidden_leaders-place-phone",
    "legions-seal-tv",
    "legions-seal-phone",
    "legions-turn-phone",
    "legions-end-tv",
    "legions-standings-tv",
    "legions-handed-phone",
    "legions-come-back-phone",
)


REFLOW_JS = """() => {
  const screen = document.documentElement.clientWidth;
  const wide = [];
  for (const element of document.body.querySelectorAll("*")) {
    const box = element.getBoundingClientRect();
    if (box.width > 0 && box.right > screen + 1 && getComputedStyle(element).position !== "fixed") {
      const name = element.tagName.toLowerCase() + (element.id ? "#" + element.id : "")
        + [...element.classList].map((c) => "." + c).join("");
      if (!wide.includes(name)) wide.push(name);
    }
  }
  return {extra: document.documentElement.scrollWidth - screen, wide: wide.slice(0, 5)};
}"""
"""How far the page reaches past the right edge of its screen, and the first elements that do."""


def reflow_violations(page: Page) -> list[AxeViolation]:
    """WCAG 1.4.10 (Reflow), which axe-core leaves to people: the page fits the width of its
    screen, nothing to scroll sideways (four language buttons once pushed every phone page
    wider than the phone)."""
    measured = page.evaluate(REFLOW_JS)
    if measured["extra"] <= 0:
        return []
    return [
        AxeViolation(
            rule="reflow",
            impact="serious",
            help=f"the page is {measured['extra']} px wider than the screen",
            targets=list(measured["wide"]),
            summary="WCAG 1.4.10: content must fit the viewport's width",
        )
    ]


TAP_HEIGHT = 44
"""CSS px a control a thumb taps on a phone is high at least (WCAG 2.5.5's target size)."""

TARGETS_JS = """least => [...document.querySelectorAll(
    'summary, button, a.button, select, label:has(> input[type=radio]),'
    + ' label:has(> input[type=checkbox])')]
  .filter(el => el.offsetParent && el.offsetHeight < least)
  .map(el => `${el.tagName.toLowerCase()} "${el.textContent.trim().slice(0, 40)}"`
    + ` ${el.offsetHeight} px`)"""
"""Layout heights: a control popping in (scaled by its animation) is measured at its size."""


def target_size_violations(page: Page) -> list[AxeViolation]:
    """WCAG 2.5.5 (Target Size) on a phone's page, which axe-core leaves to people: every
    control a thumb taps is a thumb's height (the fold of the Heirs "Your heir" was 25 px)."""
    small: list[str] = page.evaluate(TARGETS_JS, TAP_HEIGHT)
    if not small:
        return []
    return [
        AxeViolation(
            rule="target-size",
            impact="serious",
            help=f"controls under {TAP_HEIGHT} px high",
            targets=small,
            summary="WCAG 2.5.5: a control a thumb taps is at least 44 px high",
        )
    ]


@dataclass
class Walk:
    """What axe-core found on each page of one language's walk, and how the walk ended."""

    lang: str
    found: dict[str, list[AxeViolation]] = field(default_factory=dict)
    broken: BaseException | None = None


class Walks:
    """Walks every page once per language, on demand, and keeps what axe-core found."""

    def __init__(self, browser: Browser, server: ServerProcess) -> None:
        self.browser = browser
        self.base = server.base_url
        self.walks: dict[str, Walk] = {}

    def get(self, lang: str) -> Walk:
        if lang not in self.walks:
            walk = Walk(lang)
            contexts: list[BrowserContext] = []
            try:
                self.walk(walk, contexts)
            except Exception as failed:  # the pages audited so far still report
                walk.broken = failed
            finally:
                for context in contexts:
                    context.close()
            self.walks[lang] = walk
        return self.walks[lang]

    # ------------------------------------------------------------ pages

    def audit(self, walk: Walk, page: Page, screen: str) -> None:
        assert screen in SCREENS, screen
        expect(page.locator("html")).to_have_attribute("lang", walk.lang)
        page.evaluate(SETTLE_JS)  # a fading element is measured at its full colour
        walk.found[screen] = axe_violations(page) + reflow_violations(page)
        if screen.endswith("-phone"):
            walk.found[screen] += target_size_violations(page)

    def phone_page(self, contexts: list[BrowserContext]) -> Page:
        context = self.browser.new_context(
            viewport=PHONE_SIZE, is_mobile=True, has_touch=True, device_scale_factor=2
        )
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        return page

    def host(self, walk: Walk, contexts: list[BrowserContext], game: str) -> tuple[Page, str]:
        """A board that hosted ``game``, switched to the walk's language by its own links."""
        board, code = host_room(self.browser, self.base, game)
        contexts.append(board.context)
        if walk.lang != i18n.DEFAULT_LANGUAGE:
            board.locator(f'.lang-links:visible a[lang="{walk.lang}"]').click()
            expect(board.locator("html")).to_have_attribute("lang", walk.lang)
        return board, code

    def seat(self, walk: Walk, contexts: list[BrowserContext], code: str, board: Page) -> Page:
        """A phone that joined ``code`` and switched to the walk's language in the lobby."""
        phone = join(self.browser, self.base, code, "Alice")
        contexts.append(phone.context)
        expect(board.locator("[data-testid=seats]")).to_contain_text("Alice")
        if walk.lang != i18n.DEFAULT_LANGUAGE:
            choose_phone_language(phone, walk.lang)
            expect(phone.locator("html")).to_have_attribute("lang", walk.lang)
        return phone

    def add_bot(self, board: Page) -> None:
        board.locator("[data-testid=bot-form] button").click()
        expect(board.locator("[data-testid=seats] li:not(.empty)")).to_have_count(2)

    def walk(self, walk: Walk, contexts: list[BrowserContext]) -> None:
        page = self.phone_page(contexts)
        page.goto(f"{self.base}/lang/{walk.lang}?next=/")
        self.audit(walk, page, "start")
        for game in GAMES:
            page.goto(f"{self.base}/howto/{game}?lang={walk.lang}")
            self.audit(walk, page, f"howto-{game}")
        self.heirs(walk, contexts, page)
        self.hidden_leaders(walk, contexts)
        self.legions(walk, contexts)

    def lobby(self, walk: Walk, game: str, board: Page, phone: Page) -> None:
        self.audit(walk, board, f"{game}-lobby-tv")
        self.audit(walk, phone, f"{game}-lobby-phone")

    def heirs(self, walk: Walk, contexts: list[BrowserContext], joiner: Page) -> None:
        """Setup and an order sheet, then the phone seals every round of the shortest game
        the host may set (H13: six rounds) against a bot; the ended board and phone, then
        each one's replay."""
        board, code = self.host(walk, contexts, "heirs")
        set_option(board, "opt-rounds", str(HEIRS_SHORTEST_ROUNDS))
        joiner.goto(f"{self.base}/j/{code}")
        self.audit(walk, joiner, "join")
        joiner.goto(f"{self.base}/j/{UNKNOWN_ROOM}")
        expect(joiner.locator("#join-form")).to_be_visible()
        self.audit(walk, joiner, "join-unknown-room")
        phone = self.seat(walk, contexts, code, board)
        self.add_bot(board)
        self.lobby(walk, "heirs", board, phone)
        board.locator("[data-testid=start]").click()
        phone.locator("[data-testid=setup-form]").wait_for()
        self.audit(walk, phone, "heirs-setup-phone")
        self.audit(walk, board, "heirs-setup-tv")
        setup_phone(phone, Path(), None)
        phone.locator("[data-testid=orders-form]").wait_for()
        self.audit(walk, phone, "heirs-orders-phone")
        self.audit(walk, board, "heirs-orders-tv")
        ending = phone.locator("[data-testid=phone-ending]")
        sheet = phone.locator("[data-testid=orders-form]")
        while True:
            expect(sheet.or_(ending)).to_be_visible(timeout=TIMEOUT_MS)
            if ending.is_visible():
                break
            seal(phone)
        expect(board.locator("[data-testid=ending]")).to_be_visible(timeout=END_TIMEOUT_MS)
        self.audit(walk, board, "heirs-end-tv")
        self.audit(walk, phone, "heirs-end-phone")
        board.locator("[data-testid=watch-again]").click()
        board.wait_for_url(re.compile(rf"/b/{code}/replay/1"))
        self.audit(walk, board, "heirs-replay-tv")
        phone.locator("[data-testid=watch-again]").click()
        phone.wait_for_url(re.compile(rf"/r/{code}/replay/1"))
        self.audit(walk, phone, "heirs-replay-phone")

    def hidden_leaders(self, walk: Walk, contexts: list[BrowserContext]) -> None:
        """The phone's TAKE (whoever starts, the bot takes at once) and its RETURN and PLACE."""
        board, code = self.host(walk, contexts, "hidden_leaders")
        phone = self.seat(walk, contexts, code, board)
        self.add_bot(board)
        self.lobby(walk, "hidden_leaders", board, phone)
        board.locator("[data-testid=start]").click()
        take = phone.locator("form.take-form")
        take.wait_for()
        self.audit(walk, phone, "hidden_leaders-take-phone")
        self.audit(walk, board, "hidden_leaders-take-tv")
        count = int(take.get_attribute("data-take-count") or "2")
        for index in range(count):
            take.locator("label.pick").nth(index).click()
        take.locator('button[type="submit"]').click()
        phone.locator("form.place-form").wait_for()
        self.audit(walk, phone, "hidden_leaders-place-phone")

    def legions(self, walk: Walk, contexts: list[BrowserContext]) -> None:
        """A one-game tournament: the phone's seal, then the host hands its seat to a bot and
        fast-forwards; the final, the standings, the phone watching, and its way back."""
        board, code = self.host(walk, contexts, "legions")
        tournament = board.locator("[data-testid=tournament-form]")
        tournament.locator("summary").click()
        tournament.locator("[data-testid=make-tournament]").click()
        expect(board.locator("[data-testid=plan]")).to_be_visible()
        phone = self.seat(walk, contexts, code, board)
        self.add_bot(board)
        self.lobby(walk, "legions", board, phone)
        board.locator("[data-testid=start]").click()
        expect(phone.locator("[data-testid=seal-form]")).to_be_visible()
        expect(board.locator("[data-testid=legions-board]")).to_be_visible()
        self.audit(walk, phone, "legions-seal-phone")
        self.audit(walk, board, "legions-seal-tv")
        self.legions_turns(walk, phone)
        for path, form in ((f"/b/{code}/seats/0/kick", None), (f"/b/{code}/show/skip", "1")):
            response = board.request.post(
                self.base + path,
                form={"all": form} if form else None,
                headers={"HX-Request": "true"},
            )
            assert response.status == 204, response.text()
        expect(board.locator("[data-testid=final]")).to_be_visible(timeout=END_TIMEOUT_MS)
        self.audit(walk, board, "legions-end-tv")
        show_standings(board)
        self.audit(walk, board, "legions-standings-tv")
        expect(phone.locator("[data-testid=handed]")).to_be_visible()
        self.audit(walk, phone, "legions-handed-phone")
        phone.locator("[data-testid=come-back-link]").click()
        expect(phone).to_have_url(re.compile(rf"/j/{code}\?back=1"))
        expect(phone.locator("[data-testid=come-back-note]")).to_be_visible()
        self.audit(walk, phone, "legions-come-back-phone")

    def legions_turns(self, walk: Walk, phone: Page) -> None:
        """The phone taps through its first prompts (seal, the legions under a location, a
        turn's options); each kind met is audited once, all of them as one screen."""
        prompt = phone.locator("[data-testid=prompt]")
        met: dict[str, list[AxeViolation]] = {}
        for _tap in range(LEGIONS_TAPS):
            expect(prompt).to_be_visible(timeout=TIMEOUT_MS)
            kind = prompt.get_attribute("data-kind") or ""
            if kind not in met:
                self.audit(walk, phone, "legions-turn-phone")
                met[kind] = walk.found.pop("legions-turn-phone")
            handle = prompt.element_handle()
            if kind == "seal":
                seal_first_legion(phone, handle)
            elif kind == "under":
                pick_two(phone)
            else:
                plain = phone.locator("button.lg-option:not(.quiet):not(.stratagem)")
                (plain if plain.count() else phone.locator("button.lg-option")).first.click()
            handle.wait_for_element_state("hidden")  # swapped out by the socket
        assert len(met) > 1, f"only {list(met)} met in {LEGIONS_TAPS} taps"
        walk.found["legions-turn-phone"] = [
            replace(violation, help=f"({kind}) {violation.help}")
            for kind, violations in met.items()
            for violation in violations
        ]


@pytest.fixture(scope="module")
def walks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Walks]:
    with (
        running_server(tmp_path_factory.mktemp("accessibility")) as server,
        sync_playwright() as playwright,
    ):
        browser = launch(playwright)
        try:
            yield Walks(browser, server)
        finally:
            browser.close()


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("lang", i18n.LANGUAGES)
def test_no_serious_or_critical_violation(walks: Walks, lang: str, screen: str) -> None:
    walk = walks.get(lang)
    if screen not in walk.found:
        raise AssertionError(f"{screen} in {lang} was not reached: {walk.broken!r}")
    violations = walk.found[screen]
    assert not violations, f"{screen} in {lang}:\n" + "\n".join(map(str, violations))
