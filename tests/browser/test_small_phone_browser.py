"""A small Android (360×640): the phone's screens are laid out for 390 px, and Hidden Leaders'
rows of seven heroes reached 369 px on it, the seventh card cut off at the edge."""

from __future__ import annotations

import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, ViewportSize, expect

from engine.core import JSON
from tests.browser.kit import keep_screenshot
from tests.conftest import ServerProcess, paced_server
from tests.play import auth, lobby_with_bots, start_duel

pytestmark = pytest.mark.browser

server = paced_server(per_module=True)
"""Each test plays rooms of its own."""

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
    code, _host, tokens = start_duel(http, names=("Ann", "Ben"))
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
        # Both read in one go: the socket's first frame may draw the header anew between two
        # reads (the room's box was gone for one of them in a loaded CI run).
        room_top, name_bottom = page.evaluate(
            """() => [document.querySelector('.ph-room').getBoundingClientRect().top,
                      document.querySelector('.ph-name').getBoundingClientRect().bottom]"""
        )
        assert (room_top >= name_bottom - 1) is long_line, name
        assert page.evaluate(BEYOND_JS) == []
        if long_line:
            keep_screenshot(page, artifacts / f"phone-header-{len(name)}.png")
        context.close()


# The hyphenated words (a field such as R3-0) of the Heirs phone's sheet and log that are
# drawn broken over two lines ("R3-" / "0"), with the text they stand in.
BROKEN_FIELDS_JS = """() => {
  const broken = [];
  const boxes = document.querySelectorAll('.hx-target, [data-testid=my-log] li');
  for (const box of boxes) {
    const walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.textContent.matchAll(/\\S*\\w-\\w\\S*/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
        if (lines.size > 1) broken.push(word[0] + ' in ' + box.textContent.trim());
      }
    }
  }
  return broken;
}"""


def wait_for_prompt(http: httpx.Client, code: str, token: str, kind: str, round_: int) -> JSON:
    """The seat's view once it is asked for ``kind`` in round ``round_`` (polled: bots and
    the board's show come in between)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        me: JSON = http.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
        prompt = me.get("prompt") or {}
        if prompt.get("kind") == kind and (me.get("view") or {}).get("round") == round_:
            return me
        time.sleep(0.05)
    raise AssertionError(f"no {kind} prompt in round {round_}")


def test_heirs_field_names_stay_whole_on_a_small_phone(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """A field's name is one word to the player: the 360 px sheet broke "Scout R4-0" after
    its hyphen, and so could the phone's own log lines."""
    base = server.base_url
    http = httpx.Client(base_url=base, timeout=10)
    code, host, (token,) = lobby_with_bots(http, "heirs", ("Ann",), bots=4)
    assert http.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    for _attempt in range(6):  # the bots choose their colours meanwhile (H3.1)
        setup = wait_for_prompt(http, code, token, "setup", 0)["prompt"]
        choice = {"colour": setup["colours"][0], "character": setup["characters"][0]}
        sealed = http.post(f"/api/rooms/{code}/orders", json=choice, headers=auth(token))
        if sealed.status_code == 202:
            break
        assert sealed.json()["code"] == "COLOUR_TAKEN", sealed.text
    prompt = wait_for_prompt(http, code, token, "orders", 1)["prompt"]
    order = {
        **prompt["default"],
        "expedition": {"kind": "move", "field": prompt["expedition"]["move"][0]},
    }
    sealed = http.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
    assert sealed.status_code == 202, sealed.text
    wait_for_prompt(http, code, token, "orders", 2)
    context = browser.new_context(viewport=SMALL_PHONE, is_mobile=True, has_touch=True)
    context.add_cookies([{"name": f"pecet_seat_{code}", "value": token, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/r/{code}")
    page.locator("[data-testid=orders-form]").wait_for()
    # The last round's own lines name the field the heir moved to; the sheet, its neighbours.
    expect(page.locator("[data-testid=my-log]")).to_contain_text("You move")
    assert page.locator(".hx-target").count() > 3
    broken: list[str] = page.evaluate(BROKEN_FIELDS_JS)
    assert broken == [], broken
    keep_screenshot(page, artifacts / "heirs-sheet-360.png", full_page=True)
    context.close()
