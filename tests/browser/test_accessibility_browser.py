"""Every page of every game, in every language, passes axe-core (issue 16): no serious or
critical violation. This module walks the pages outside a game: the start page, the join
page (a room's and an unknown code's) and How to play. The pages of a game (the lobbies, the
board and the phone at each kind of decision, an ended game's board and phone, a replay,
the tournament standings, a seat handed to a bot and the way back to it) are audited as the
ergonomics module plays each game in each language (``test_ergonomics_browser``): one game
played serves both.

axe-core is vendored (``tests/browser/vendor/axe-core``) and injected by Playwright; nothing is
fetched at test time. Each language walks its pages once, against one server and one
browser; each page is then its own test, so a report names the page, the rule, its impact and
the first elements that break it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from app import i18n
from tests.browser.ergonomics import accessibility_violations
from tests.browser.kit import PHONE_SIZE, AxeViolation, launch
from tests.conftest import ServerProcess, running_server

pytestmark = pytest.mark.browser

TIMEOUT_MS = 15_000
UNKNOWN_ROOM = "OOOO"
"""No room has this code: O is left out of room codes."""
GAMES = ("heirs", "hidden_leaders", "legions")
SCREENS = ("start", "join", "join-unknown-room", *(f"howto-{game}" for game in GAMES))


@dataclass
class Walk:
    """What axe-core found on each page of one language's walk, and how the walk ended."""

    lang: str
    found: dict[str, list[AxeViolation]] = field(default_factory=dict)
    broken: BaseException | None = None


class Walks:
    """Walks the pages once per language, on demand, and keeps what axe-core found."""

    def __init__(self, browser: Browser, server: ServerProcess) -> None:
        self.browser = browser
        self.base = server.base_url
        self.walks: dict[str, Walk] = {}

    def get(self, lang: str) -> Walk:
        if lang not in self.walks:
            walk = Walk(lang)
            context = self.browser.new_context(
                viewport=PHONE_SIZE, is_mobile=True, has_touch=True, device_scale_factor=2
            )
            try:
                page = context.new_page()
                page.set_default_timeout(TIMEOUT_MS)
                self.walk(walk, page)
            except Exception as failed:  # the pages audited so far still report
                walk.broken = failed
            finally:
                context.close()
            self.walks[lang] = walk
        return self.walks[lang]

    def audit(self, walk: Walk, page: Page, screen: str) -> None:
        assert screen in SCREENS, screen
        expect(page.locator("html")).to_have_attribute("lang", walk.lang)
        walk.found[screen] = accessibility_violations(page, phone=True)

    def walk(self, walk: Walk, page: Page) -> None:
        """The phone's way in, in the walk's language (chosen once, kept by its cookie)."""
        page.goto(f"{self.base}/lang/{walk.lang}?next=/")
        self.audit(walk, page, "start")
        for game in GAMES:
            page.goto(f"{self.base}/howto/{game}")
            self.audit(walk, page, f"howto-{game}")
        code = httpx.post(f"{self.base}/api/rooms", json={"game": "heirs"}).json()["code"]
        page.goto(f"{self.base}/j/{code}")
        expect(page.locator("#join-form")).to_be_visible()
        self.audit(walk, page, "join")
        page.goto(f"{self.base}/j/{UNKNOWN_ROOM}")
        expect(page.locator("#join-form")).to_be_visible()
        self.audit(walk, page, "join-unknown-room")


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
