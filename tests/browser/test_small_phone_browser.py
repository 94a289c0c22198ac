"""A small Android (360×640): the phone's screens are laid out for 390 px, and Hidden Leaders'
rows of seven heroes reached 369 px on it, the seventh card cut off at the edge."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, ViewportSize

from tests.browser.kit import keep_screenshot
from tests.conftest import ServerProcess
from tests.play import auth

pytestmark = pytest.mark.browser

SMALL_PHONE: ViewportSize = {"width": 360, "height": 640}

# The screen's width, not the page's: a mobile browser widens its layout to what overflows.
BEYOND_JS = """() => [...document.querySelectorAll('#phone-view *')]
  .filter(el => el.checkVisibility() && el.getBoundingClientRect().right > screen.width + 0.5)
  .slice(0, 5)
  .map(el => `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} to `
             + Math.round(el.getBoundingClientRect().right))"""


# The names of the picked slots that something else is drawn over, at the name's middle.
COVERED_NAMES_JS = """() => [...document.querySelectorAll('.pick:has(input:checked) .slot-name')]
  .filter(name => {
    const box = name.getBoundingClientRect();
    const top = document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2);
    return top !== name && !name.contains(top);
  })
  .map(name => name.textContent)"""


def test_hidden_leaders_rows_fit_a_small_phone(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    base = server.base_url
    http = httpx.Client(base_url=base, timeout=10)
    created = http.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    code, host = created["code"], created["host_token"]
    tokens = [
        http.post(f"/api/rooms/{code}/seats", json={"name": name}).json()["token"]
        for name in ("Ann", "Ben")
    ]
    assert http.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    picked = 0
    for token in tokens:
        context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
        context.add_cookies([{"name": f"pecet_seat_{code}", "value": token, "url": base}])
        page = context.new_page()
        page.goto(f"{base}/r/{code}")
        page.locator(".ph-row").first.wait_for()
        assert page.locator(".ph-row").first.locator(".slot").count() == 7
        beyond: list[str] = page.evaluate(BEYOND_JS)
        assert beyond == [], beyond
        if page.locator(".pick").count():  # the seat to take: a raised pick keeps its name
            page.locator(".pick").nth(1).click()
            page.locator(".pick").nth(2).click()
            covered: list[str] = page.evaluate(COVERED_NAMES_JS)
            assert covered == [], f"the raised cards cover their slots' names: {covered}"
            picked += 1
        seat = http.get(f"/api/rooms/{code}/me", headers=auth(token)).json()["you"]["seat"]
        keep_screenshot(page, artifacts / f"hidden-leaders-phone-360-{seat}.png", full_page=True)
        context.close()
    assert picked == 1, "the seat to play picked two heroes"


# Whether the name is drawn whole: neither cut by its box (a second line clamped away, an
# ellipsis) nor broken inside a word.
NAME_JS = """() => {
  const el = document.querySelector('.ph-name');
  const range = document.createRange();
  range.selectNodeContents(el);
  const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
  return {
    cut: el.scrollHeight > el.clientHeight + 1 || el.scrollWidth > el.clientWidth + 1,
    lines: lines.size,
    words: el.textContent.trim().split(/\\s+/).length,
  };
}"""


@pytest.mark.parametrize(
    ("names", "long_line"),
    [(("Maximiliánová-Nová", "Константиновна"), True), (("Ann Marie", "Ben"), False)],
)
def test_a_long_name_is_drawn_whole_in_the_phone_header(
    server: ServerProcess,
    browser: Browser,
    artifacts: Path,
    names: tuple[str, str],
    long_line: bool,
) -> None:
    """A name with a long word took the header's name slot of about 8 letters and lost its
    middle ("Maximil-iánov…"): it now gets the header's first line to itself; a short name
    keeps the one-line header."""
    base = server.base_url
    http = httpx.Client(base_url=base, timeout=10)
    created = http.post("/api/rooms", json={"game": "heirs"}).json()
    code = created["code"]
    for name in names:
        joined = http.post(f"/api/rooms/{code}/seats", json={"name": name})
        assert joined.status_code == 201, joined.text
        context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
        token = joined.json()["token"]
        context.add_cookies([{"name": f"pecet_seat_{code}", "value": token, "url": base}])
        page = context.new_page()
        page.goto(f"{base}/r/{code}")
        page.locator(".ph-name").wait_for()
        drawn = page.evaluate(NAME_JS)
        assert not drawn["cut"], (name, drawn)
        assert drawn["lines"] <= drawn["words"], f"{name} broken inside a word: {drawn}"
        room_top = page.locator(".ph-room").bounding_box()
        name_box = page.locator(".ph-name").bounding_box()
        assert room_top is not None and name_box is not None
        assert (room_top["y"] >= name_box["y"] + name_box["height"] - 1) is long_line, name
        assert page.evaluate(BEYOND_JS) == []
        if long_line:
            keep_screenshot(page, artifacts / f"phone-header-{len(name)}.png")
        context.close()
