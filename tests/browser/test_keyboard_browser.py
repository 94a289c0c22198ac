"""A player without a touch screen or a mouse plays every game (issue 16.5): at each game's
first decisions the phone is walked with the Tab key alone, and

- every control of the decision is reached (a group of radio buttons is one stop, as the
  browser makes it: the arrow keys move inside it),
- every stop has a name a screen reader reads out (Playwright's accessibility tree),
- every stop shows where the focus is: the control looks different focused than not,
- the decision is then made and sealed with the keyboard only (Tab, arrows, Space, Enter).

axe-core (``test_accessibility_browser.py``) checks names and roles statically; this module is
the person at the keyboard.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright._impl._api_structures import Clip
from playwright.sync_api import Browser, Page, expect

from tests.browser.kit import explained
from tests.browser.test_heirs_browser import host_room, join, setup_phone
from tests.conftest import ServerProcess, paced_server

pytestmark = pytest.mark.browser

server = paced_server(per_module=True)
"""Each test plays rooms of its own."""

TIMEOUT_MS = 20_000
MAX_STOPS = 160
FOCUS_MARGIN = 6
"""Pixels around a control where its focus ring may be drawn."""

CONTROLS_JS = """root => {
  const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, '
    + '[tabindex]:not([tabindex="-1"])';
  const found = [];
  root.querySelectorAll(selector).forEach((element, index) => {
    if (element.disabled || element.closest('[inert]')) return;
    if (!element.checkVisibility()) return;
    const key = element.type === 'radio' ? 'radio:' + element.name : 'kb' + index;
    element.dataset.kb = key;
    found.push({key: key, what: describe(element)});
  });
  return found;
  function describe(element) {
    return element.tagName.toLowerCase() + (element.type ? '[' + element.type + ']' : '')
      + (element.name ? ' ' + element.name : '') + (element.dataset.testid ? ' '
      + element.dataset.testid : '') + ' “' + (element.textContent || element.value || '')
      .trim().slice(0, 30) + '”';
  }
}"""
"""Marks every control a person can reach in ``root`` with its stop's key; returns them."""

FOCUSED_JS = """() => {
  const element = document.activeElement;
  if (!element || element === document.body) return null;
  const shown = element.closest('label') || element;
  const box = shown.getBoundingClientRect();
  const own = element.getBoundingClientRect();
  return {
    key: element.dataset.kb || null,
    what: element.tagName.toLowerCase() + ' ' + (element.className || '') + ' '
      + (element.name || ''),
    box: {
      left: Math.min(box.left, own.left), top: Math.min(box.top, own.top),
      right: Math.max(box.right, own.right), bottom: Math.max(box.bottom, own.bottom),
    },
  };
}"""


ACTIVE_JS = """() => {
  const e = document.activeElement;
  return [e.tagName.toLowerCase(), e.name, e.value, e.disabled ? 'disabled' : '']
    .filter(Boolean).join(' ');
}"""
"""The focused element in a few words, for a report of where Tab went."""


@dataclass
class Stop:
    """One press of Tab: where the focus went, its name and whether it can be seen."""

    key: str | None
    what: str
    role: str
    name: str
    seen: bool


def room_of(page: Page, code: str) -> dict[str, Any]:
    """The room as the API shows it to everyone."""
    room: dict[str, Any] = page.request.get(page.url.split("/r/")[0] + f"/api/rooms/{code}").json()
    return room


def wait_for(test: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + TIMEOUT_MS / 1000
    while not test():
        assert time.monotonic() < deadline, f"never: {what}"
        time.sleep(0.1)


def quiet(page: Page, code: str, seat: int) -> None:
    """Wait until only ``seat`` decides in the room (the bots have acted), so that no frame
    redraws the phone while it is walked."""
    wait_for(
        lambda: (room := room_of(page, code))["to_act"] == [seat] and not room["show"],
        f"the room waits for seat {seat} only",
    )


def focused_stop(page: Page) -> Stop | None:
    """The focused element as a stop: its accessible name and whether its focus shows."""
    found = page.evaluate(FOCUSED_JS)
    if found is None:
        return None
    snapshot = page.locator("*:focus").aria_snapshot()
    for _retry in range(3):
        # A frame that redrew the page between the two reads (seen once in CI) leaves the
        # snapshot empty: read both again, from the element focused now.
        if snapshot.strip():
            break
        found = page.evaluate(FOCUSED_JS)
        if found is None:
            return None
        snapshot = page.locator("*:focus").aria_snapshot()
    match = re.match(r'- (\w+)(?: "((?:[^"\\]|\\.)*)")?', snapshot.strip())
    role, name = (match.group(1), match.group(2) or "") if match else ("", "")
    if not name:  # a name given as text after the role ("- button: Seal") or a link's text
        first = (snapshot.strip().splitlines() or [""])[0]
        plain = re.match(r"- \w+(?: \[[^\]]*\])*: (.+)", first)
        name = plain.group(1) if plain else ""
    return Stop(found["key"], found["what"], role, name.strip(), focus_shows(page, found["box"]))


def focus_shows(page: Page, box: dict[str, float]) -> bool:
    """Whether the control looks different focused than not: a picture of it with the
    focus, then without, compared (the focus then goes back where it was)."""
    viewport = page.viewport_size or {"width": 390, "height": 844}
    left = max(0.0, box["left"] - FOCUS_MARGIN)
    top = max(0.0, box["top"] - FOCUS_MARGIN)
    right = min(float(viewport["width"]), box["right"] + FOCUS_MARGIN)
    bottom = min(float(viewport["height"]), box["bottom"] + FOCUS_MARGIN)
    if right - left < 1 or bottom - top < 1:
        return False
    clip: Clip = {"x": left, "y": top, "width": right - left, "height": bottom - top}
    focused = page.screenshot(clip=clip, animations="disabled", caret="initial")
    handle = page.evaluate_handle("document.activeElement")
    page.evaluate("element => element.blur()", handle)
    unfocused = page.screenshot(clip=clip, animations="disabled", caret="initial")
    page.evaluate("element => element.focus({preventScroll: true})", handle)
    return focused != unfocused


def focus_top(page: Page) -> None:
    """Put the keyboard at the top of the page: the next Tab goes to its first control."""
    page.evaluate(
        """() => {
          document.activeElement?.blur();
          window.scrollTo(0, 0);
          document.body.tabIndex = -1;
          document.body.focus({preventScroll: true});
          document.body.removeAttribute('tabindex');
        }"""
    )


def walk(page: Page, root: str) -> tuple[list[Stop], list[dict[str, str]]]:
    """Tab from the top of the page through every stop once; the stops, and the controls of
    ``root`` a person can reach."""
    controls: list[dict[str, str]] = page.locator(root).evaluate(CONTROLS_JS)
    focus_top(page)
    stops: list[Stop] = []
    for _press in range(MAX_STOPS):
        page.keyboard.press("Tab")
        stop = focused_stop(page)
        if stop is None or (stops and stop == stops[0]):
            break  # past the last control, or round to the first again
        stops.append(stop)
    return stops, controls


def assert_keyboard_ready(page: Page, root: str, decision: str) -> None:
    """Every control of ``root`` reached by Tab, every stop named and its focus visible."""
    stops, controls = walk(page, root)
    reached = {stop.key for stop in stops}
    missed = [c["what"] for c in controls if c["key"] not in reached]
    assert not missed, f"{decision}: Tab never reaches {missed}"
    unnamed = [stop.what for stop in stops if not stop.name]
    assert not unnamed, f"{decision}: no name for a screen reader: {unnamed}"
    unseen = [f"{stop.what} “{stop.name}”" for stop in stops if not stop.seen]
    assert not unseen, f"{decision}: focus not visible on {unseen}"


def tab_to(page: Page, selector: str) -> None:
    """Press Tab until the focus is on an element matching ``selector``."""
    seen: list[str] = []
    for _press in range(MAX_STOPS):
        if page.evaluate("s => !!document.activeElement?.matches(s)", selector):
            return
        page.keyboard.press("Tab")
        seen.append(page.evaluate(ACTIVE_JS))
    raise AssertionError(f"Tab never reached {selector}: {seen[:12]}")


def arrow_to(page: Page, selector: str) -> None:
    """Inside a group of radio buttons: ArrowDown until the checked one matches."""
    for _press in range(20):
        if page.evaluate("s => !!document.activeElement?.matches(s)", selector):
            return
        page.keyboard.press("ArrowDown")
    raise AssertionError(f"the arrows never reached {selector}")


def start_against_bots(browser: Browser, base: str, game: str, bots: int) -> tuple[Page, Page, str]:
    """A board for ``game``, one phone joined (Alice, seat 0) and ``bots`` bots; started.
    Both pages keep their socket events for a failure to explain (``explained``)."""
    board, code = host_room(browser, base, game, watch=True)
    phone = join(browser, base, code, "Alice", watch=True)
    for _bot in range(bots):
        board.locator("[data-testid=bot-form] button").click()
    expect(board.locator("[data-testid=seats] li:not(.empty)")).to_have_count(1 + bots)
    board.locator("[data-testid=start]").click()
    return board, phone, code


def skip_show(board: Page, base: str, code: str, *, to_the_end: bool = False) -> None:
    """The host skips the board's show of this round, if one is on (the setup is played
    out before the first sheet); ``to_the_end`` fast-forwards the rest of the game too."""
    skipped = board.request.post(
        f"{base}/b/{code}/show/skip",
        form={"all": "1"} if to_the_end else {},
        headers={"HX-Request": "true"},
    )
    assert skipped.status == 204, skipped.text()


def test_heirs_setup_and_orders_by_keyboard(browser: Browser, server: ServerProcess) -> None:
    board, phone, code = start_against_bots(browser, server.base_url, "heirs", 2)
    try:
        # It failed once under load, its cause not kept: a failure now tells the pages' side.
        with explained(server.log_path, board=board, phone=phone):
            heirs_by_keyboard(board, phone, code, server.base_url)
    finally:
        board.context.close()
        phone.context.close()


def heirs_by_keyboard(board: Page, phone: Page, code: str, base: str) -> None:
    form = phone.locator("[data-testid=setup-form]")
    expect(form).to_be_visible(timeout=TIMEOUT_MS)
    quiet(phone, code, 0)
    assert_keyboard_ready(phone, "[data-testid=setup-form]", "Heirs setup")
    focus_top(phone)
    tab_to(phone, "input[name=colour]")
    phone.keyboard.press("ArrowDown")  # the second colour
    tab_to(phone, "input[name=character]")
    phone.keyboard.press("ArrowDown")  # the second character
    chosen = form.locator("input[name=character]:checked").get_attribute("value")
    assert chosen == form.locator("input[name=character]").nth(1).get_attribute("value")
    tab_to(phone, "[data-testid=seal-setup]")
    phone.keyboard.press("Enter")
    expect(form).to_have_count(0, timeout=TIMEOUT_MS)

    sheet = phone.locator("[data-testid=orders-form]")
    skip_show(board, base, code)
    expect(sheet).to_be_visible(timeout=TIMEOUT_MS)
    quiet(phone, code, 0)
    # A folded part of the sheet opens with Enter on its title; its controls then count.
    for part in phone.locator("details[data-part] > summary").all():
        part.focus()
        phone.keyboard.press("Enter")
        assert_keyboard_ready(phone, "[data-testid=orders-form]", "Heirs orders")
    before = room_of(phone, code)["version"]
    tab_to(phone, "[data-testid=seal]")
    phone.keyboard.press("Enter")
    wait_for(lambda: room_of(phone, code)["version"] > before, "the round sealed by Enter")


def test_hidden_leaders_turn_by_keyboard(browser: Browser, server: ServerProcess) -> None:
    board, phone, code = start_against_bots(browser, server.base_url, "hidden_leaders", 1)
    try:
        take = phone.locator("form.take-form")
        expect(take).to_be_visible(timeout=TIMEOUT_MS * 2)  # the bot may begin
        quiet(phone, code, 0)
        assert_keyboard_ready(phone, "form.take-form", "Hidden Leaders TAKE")
        count = int(take.get_attribute("data-take-count") or "2")
        focus_top(phone)
        for _pick in range(count):
            tab_to(phone, "form.take-form input[name=slot]:not(:checked)")
            phone.keyboard.press("Space")
        expect(take.locator("input[name=slot]:checked")).to_have_count(count)
        tab_to(phone, "[data-testid=take-submit]")
        phone.keyboard.press("Enter")

        place = phone.locator("form.place-form")
        expect(place).to_be_visible(timeout=TIMEOUT_MS)
        assert_keyboard_ready(phone, "form.place-form", "Hidden Leaders RETURN and PLACE")
        focus_top(phone)
        for group in place.locator("[data-card-group]").all():
            name = group.locator("input[type=radio]").first.get_attribute("name")
            tab_to(phone, f"form.place-form input[name={name}]")
            # A card chosen for another place is dimmed: the arrows move past it.
            free = group.locator("label.pick-card").evaluate_all(
                "labels => labels.findIndex(label => !label.classList.contains('elsewhere'))"
            )
            if free == 0:
                phone.keyboard.press("Space")
            for _step in range(free):
                phone.keyboard.press("ArrowRight")
            expect(group.locator("label.pick-card:not(.elsewhere) input:checked")).to_have_count(1)
        expect(place.locator("[data-card-conflict]")).to_be_hidden()
        before = room_of(phone, code)["version"]
        tab_to(phone, "[data-testid=place-submit]")
        phone.keyboard.press("Enter")
        wait_for(lambda: room_of(phone, code)["version"] > before, "the turn confirmed by Enter")
        expect(place).to_have_count(0, timeout=TIMEOUT_MS)
    finally:
        board.context.close()
        phone.context.close()


def test_legions_seal_and_turn_by_keyboard(browser: Browser, server: ServerProcess) -> None:
    board, phone, code = start_against_bots(browser, server.base_url, "legions", 1)
    try:
        form = phone.locator("[data-testid=seal-form]")
        expect(form).to_be_visible(timeout=TIMEOUT_MS)
        quiet(phone, code, 0)
        assert_keyboard_ready(phone, "[data-testid=seal-form]", "Legions seal")
        focus_top(phone)
        tab_to(phone, "input[name=order]")
        phone.keyboard.press("Space")
        phone.keyboard.press("ArrowRight")  # the next legion in the hand
        expect(form.locator("input[name=order]:checked")).to_have_count(1)
        tab_to(phone, "[data-testid=seal]")
        phone.keyboard.press("Enter")
        expect(
            phone.locator(".lg-locked").or_(phone.locator("[data-testid=prompt]:not(.kind-seal)"))
        ).to_be_visible(timeout=TIMEOUT_MS)
        # The turn that follows: options are buttons, each a stop with a name.
        prompt = phone.locator("[data-testid=prompt]:not(.kind-seal)")
        expect(prompt).to_be_visible(timeout=TIMEOUT_MS * 3)
        quiet(phone, code, 0)
        kind = prompt.get_attribute("data-kind")
        assert_keyboard_ready(phone, "[data-testid=prompt]", f"Legions {kind}")
        handle = prompt.element_handle()
        focus_top(phone)
        if kind == "under":
            for _pick in range(2):
                tab_to(phone, "input[name=slot]:not(:checked):not(:disabled)")
                phone.keyboard.press("Space")
            tab_to(phone, "[data-testid=prompt] button[type=submit]")
        else:
            tab_to(phone, "[data-testid=prompt] [data-testid=option]")
        phone.keyboard.press("Enter")
        handle.wait_for_element_state("hidden", timeout=TIMEOUT_MS)
    finally:
        board.context.close()
        phone.context.close()


def test_a_redraw_keeps_the_keyboards_place_in_the_sheet(
    browser: Browser, server: ServerProcess, tmp_path: Path
) -> None:
    """A frame that redraws the phone while its player is deciding (here: the host
    fast-forwards the bots' rounds) gives the focus back to the same control, inside the
    same unfolded part: Tab was back at the top of the page, a screen reader's place lost."""
    board, phone, code = start_against_bots(browser, server.base_url, "heirs", 2)
    try:
        quiet(phone, code, 0)
        setup_phone(phone, tmp_path, None)
        skip_show(board, server.base_url, code)
        expect(phone.locator("[data-testid=orders-form]")).to_be_visible(timeout=TIMEOUT_MS)
        quiet(phone, code, 0)
        phone.locator('details[data-part="trick"] > summary').focus()
        phone.keyboard.press("Enter")
        tab_to(phone, "input[name=trick]")
        focused = phone.evaluate("document.activeElement.value")
        phone.evaluate("document.getElementById('phone-view').dataset.drawnBefore = '1'")

        skip_show(board, server.base_url, code, to_the_end=True)

        expect(phone.locator("#phone-view[data-drawn-before]")).to_have_count(0)
        trick = phone.locator('details[data-part="trick"]')
        expect(trick.locator(f'input[name=trick][value="{focused}"]')).to_be_focused()
        expect(trick).to_have_attribute("open", "")
    finally:
        board.context.close()
        phone.context.close()
