"""What every browser test shares: Debian's Chromium, the two screen sizes, screenshots."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Locator, Page, Playwright, Route, ViewportSize, expect
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from app.config import PROJECT_DIR

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-gpu",
]
BOARD_SIZE: ViewportSize = {"width": 1920, "height": 1080}
PHONE_SIZE: ViewportSize = {"width": 390, "height": 844}
SCREENSHOT_TIMEOUT_MS = 60_000
"""Screenshots are artifacts for people, not checks; on two busy cores with four renderers a
full-page capture can wait far longer than a click should, so it gets its own generous limit."""
SCREENSHOT_ATTEMPTS = 3
"""Chromium refuses a capture ("Unable to capture screenshot") while a page is between two
documents; the next attempt, once the new document has loaded, succeeds."""


FRAME_LOG = """
window.__pecetFrames = [];
["htmx:wsOpen", "htmx:wsClose", "htmx:wsAfterMessage", "htmx:wsError"].forEach(function (name) {
  document.addEventListener(name, function (evt) {
    var message = evt.detail && evt.detail.message, closed = evt.detail && evt.detail.event;
    var note = message ? String(message).length + " chars: " + String(message).slice(0, 60)
      : closed && closed.code ? "code " + closed.code : "";
    window.__pecetFrames.push([Date.now(), name.slice(7), note]);
    if (window.__pecetFrames.length > 200) window.__pecetFrames.shift();
  }, true);
});
window.addEventListener("error", function (evt) {
  window.__pecetFrames.push([Date.now(), "error", String(evt.message)]);
});
"""
"""Kept by a watched page: the last 200 socket events, as the page itself saw them (the
sync Playwright API hands events to a test late, only when it next calls Playwright)."""


def watch_frames(page: Page) -> None:
    page.add_init_script(FRAME_LOG)


@contextmanager
def explained(log_path: Path | None, **pages: Page) -> Iterator[None]:
    """A failed expectation or a wait that timed out comes with the server's log, and for
    each watched page the last socket events and the start of what it shows: what a rare
    failure in CI needs to be understood."""
    try:
        yield
    except (AssertionError, PlaywrightTimeout) as error:
        told = [str(error)[-4000:], "", "---- server log (tail)"]
        if log_path is not None and log_path.exists():
            told.append(log_path.read_text(errors="replace")[-3000:])
        told.append(f"---- now {datetime.now(UTC).isoformat(timespec='milliseconds')}")
        for name, page in pages.items():
            told.append(f"---- {name}: last socket events")
            try:
                events = page.evaluate("window.__pecetFrames || []")
            except PlaywrightError as unreadable:
                events = [[0, "unreadable", str(unreadable)]]
            for at, kind, note in events[-25:]:
                when = datetime.fromtimestamp(at / 1000, UTC).isoformat(timespec="milliseconds")
                told.append(f"{when} {kind} {note}")
            try:
                shows = " ".join(page.inner_text("body", timeout=5_000).split())[:600]
            except PlaywrightError as unreadable:
                shows = f"unreadable: {unreadable}"
            told.append(f"---- {name} shows: {shows}")
        raise AssertionError("\n".join(told)) from None


def choose_phone_language(phone: Page, lang: str) -> None:
    """Open the phone header's language menu and pick ``lang`` (sent over the socket); the
    page then speaks ``lang``. The menu stays open across the frames that redraw the phone
    while it is open (someone joins, a bot is added)."""
    phone.locator("[data-testid=phone-languages] > summary").click()
    phone.locator(f'form[data-set-lang="{lang}"] button').click()
    expect(phone.locator("html")).to_have_attribute("lang", lang)
    expect(phone.locator("[data-testid=phone-languages]")).not_to_have_attribute("open", "")


def tap_until_gone(button: Locator, timeout_ms: float = 10_000) -> None:
    """Tap ``button`` and see it go (the page took the tap). A tap that lands while a new
    frame swaps the card is lost, as on a real phone (seen in CI): the player taps again."""
    button.click()
    try:
        expect(button).to_be_hidden(timeout=timeout_ms)
    except AssertionError:
        if button.is_visible():
            button.click()
        expect(button).to_be_hidden(timeout=timeout_ms)


def launch(playwright: Playwright) -> Browser:
    if not CHROMIUM.exists():
        pytest.fail(
            f"{CHROMIUM} is missing: install Debian's chromium (`make` installs it); "
            "the browser tests never download a browser."
        )
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def keep_screenshot(page: Page, path: Path, *, full_page: bool = False) -> None:
    for attempt in range(1, SCREENSHOT_ATTEMPTS + 1):
        page.wait_for_load_state("load")
        try:
            page.screenshot(path=str(path), full_page=full_page, timeout=SCREENSHOT_TIMEOUT_MS)
            return
        except PlaywrightError as refused:
            if isinstance(refused, PlaywrightTimeout) or attempt == SCREENSHOT_ATTEMPTS:
                raise
            page.wait_for_timeout(500)


RENDERED_ORIGIN = "http://pecet.test"
"""Where a page rendered by a TestClient is shown, with no server and no socket behind it."""


def open_rendered_phone(
    page: Page, client: TestClient, code: str, token: str, lang: str = "en"
) -> None:
    """The seat's page as the server renders it now, static files from disk (no socket)."""
    client.cookies.set(f"pecet_seat_{code}", token)
    client.cookies.set("pecet_lang", lang)
    html = client.get(f"/r/{code}").text

    def serve(route: Route) -> None:
        path = route.request.url.removeprefix(RENDERED_ORIGIN).split("?")[0]
        if path == f"/r/{code}":
            route.fulfill(body=html, content_type="text/html; charset=utf-8")
        elif path.startswith("/static/"):
            route.fulfill(path=str(PROJECT_DIR / path.lstrip("/")))
        else:
            route.abort()

    page.unroute(f"{RENDERED_ORIGIN}/**")
    page.route(f"{RENDERED_ORIGIN}/**", serve)
    page.goto(f"{RENDERED_ORIGIN}/r/{code}")


AXE_CORE = Path(__file__).parent / "vendor" / "axe-core" / "axe.min.js"
AXE_PATH = "/__axe-core/axe.min.js"
"""Where an audited page loads axe-core from: its own origin, routed to the vendored file, so
the page's Content-Security-Policy (``script-src 'self'``) lets it run as served."""
SERIOUS_IMPACTS = ("serious", "critical")
AXE_RUN_JS = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({
    rule: v.id, impact: v.impact || '', help: v.help,
    targets: v.nodes.map(n => n.target.join(' ')),
    summary: (v.nodes[0] && v.nodes[0].failureSummary) || '',
  }));
}"""


@dataclass(frozen=True)
class AxeViolation:
    """One axe-core rule a page breaks, with the elements that break it."""

    rule: str
    impact: str
    help: str
    targets: list[str]
    summary: str

    def __str__(self) -> str:
        first = ", ".join(self.targets[:3])
        more = f" (+{len(self.targets) - 3} more)" if len(self.targets) > 3 else ""
        return f"{self.rule} [{self.impact}] {self.help}: {first}{more}\n    {self.summary}"


def axe_violations(page: Page, impacts: tuple[str, ...] = SERIOUS_IMPACTS) -> list[AxeViolation]:
    """axe-core's violations of the page as it stands now, those of the given impacts."""
    parts = urlsplit(page.url)
    script_url = f"{parts.scheme}://{parts.netloc}{AXE_PATH}"
    page.unroute(script_url)
    page.route(
        script_url,
        lambda route: route.fulfill(path=str(AXE_CORE), content_type="text/javascript"),
    )
    page.wait_for_load_state("load")
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(url=script_url)
    found: list[dict[str, Any]] = page.evaluate(AXE_RUN_JS)
    return [AxeViolation(**item) for item in found if item["impact"] in impacts]


# The lines under the names of the Heirs end table that are cut although the number columns
# could give them room: the lines cut, and the room those columns hold beyond the least they
# need (measured on a copy of the table at its narrowest). ``null`` when none is.
HEIRS_END_WHO_CUT_JS = """() => {
  const table = document.querySelector('[data-testid=ending] table');
  const cut = [...table.querySelectorAll('.hx-who')]
    .filter(line => line.scrollWidth > line.clientWidth + 1)
    .map(line => line.textContent);
  if (!cut.length) return null;
  const narrowest = table.cloneNode(true);
  Object.assign(narrowest.style, {width: 'min-content', position: 'absolute'});
  narrowest.style.visibility = 'hidden';
  table.parentElement.appendChild(narrowest);
  const widths = t => [...t.querySelectorAll('thead th')].slice(2)
    .map(th => th.getBoundingClientRect().width);
  const now = widths(table), least = widths(narrowest);
  narrowest.remove();
  const room = now.reduce((sum, width, i) => sum + Math.max(0, width - least[i]), 0);
  return room > 2 ? {cut, room} : null;
}"""

# What of the Heirs end panel lies below its visible box (it scrolls; a TV is not scrolled from
# the couch): its table's rows, the ready chips, the host's buttons, "Watch again".
HEIRS_END_CUT_JS = """() => {
  const end = document.querySelector('[data-testid=ending]');
  const box = end.getBoundingClientRect();
  return [...end.querySelectorAll('tr, .ready-chip, .button, [data-testid=watch-again]')]
    .filter(el => el.getBoundingClientRect().bottom > box.bottom + 0.5)
    .map(el => el.textContent.trim().slice(0, 30));
}"""


def show_fragment(
    page: Page, base_url: str, fragment: str, body_class: str, scripts: tuple[str, ...] = ()
) -> None:
    """Draws a page's rendered ``fragment`` with the site's stylesheets (and ``scripts``,
    static paths) on the server's origin: a screen built from a payload, not from a game
    played to it."""
    page.goto(base_url + "/static/pecet.css")  # the server's origin
    script_tags = "".join(f'<script src="/static/{path}"></script>' for path in scripts)
    page.set_content(
        f"""<!doctype html><html lang="en"><head>
        <link rel="stylesheet" href="/static/pecet.css">
        <link rel="stylesheet" href="/static/tournament.css">
        <link rel="stylesheet" href="/static/seats.css">{script_tags}</head>
        <body class="{body_class}">{fragment}</body></html>""",
        wait_until="load",
    )
