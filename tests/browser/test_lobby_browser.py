"""The TV's lobby while players sit down: each seat line pops in once, when its player
joins; the lines already there stay put while the next player joins."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Locator, expect

from tests.browser.kit import keep_screenshot
from tests.browser.test_heirs_browser import host_room, join
from tests.conftest import ServerProcess, paced_server

pytestmark = pytest.mark.browser

server = paced_server(per_module=True)
"""Each test plays rooms of its own."""


def animation(line: Locator) -> str:
    """The CSS animation the browser runs on a seat line (``none``: it just stands there)."""
    name: str = line.evaluate("el => getComputedStyle(el).animationName")
    return name


def test_only_the_new_seat_line_pops_in(server: ServerProcess, browser: Browser) -> None:
    board, code = host_room(browser, server.base_url)
    try:
        lines = board.locator("[data-testid=seat-line]")
        with httpx.Client(base_url=server.base_url) as http:
            for joined, name in enumerate(("Ann", "Ben", "Cyril"), start=1):
                seat = http.post(f"/api/rooms/{code}/seats", json={"name": name})
                assert seat.status_code == 201, seat.text
                expect(lines).to_have_count(joined)
                expect(lines.nth(joined - 1)).to_contain_text(name)
                assert animation(lines.nth(joined - 1)) == "pop", f"{name} sits down"
                for earlier in range(joined - 1):
                    assert animation(lines.nth(earlier)) == "none", (
                        f"line {earlier + 1} played its entrance again when {name} joined"
                    )
    finally:
        board.context.close()


def test_the_hosts_lobby_options_fit_the_tv_with_six_players(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """With a line of "more time" per player, "Make it a tournament" fell off the foot of a
    1920×1080 TV in a Heirs lobby of three, and further with six. The players' times fold
    under one line now: the tournament's line stays on screen."""
    board, code = host_room(browser, server.base_url)
    try:
        with httpx.Client(base_url=server.base_url) as http:
            for name in ("Maximilián Novotný-Hrubý", "Eva", "Ondřej", "Ann", "Ben", "Cyril"):
                seat = http.post(f"/api/rooms/{code}/seats", json={"name": name})
                assert seat.status_code == 201, seat.text
        expect(board.locator("[data-testid=seat-line]")).to_have_count(6)
        keep_screenshot(board, artifacts / "heirs-tv-lobby-six.png")
        screen = board.viewport_size
        assert screen is not None
        for testid in ("lobby-more-time", "tournament-form", "start"):
            box = board.locator(f"[data-testid={testid}]").bounding_box()
            assert box is not None, testid
            assert box["y"] + box["height"] <= screen["height"], (testid, box)
        # A long name is whole on its seat's line, on two lines beside the host's buttons.
        cut = board.evaluate(
            """() => [...document.querySelectorAll('[data-testid=seat-line] .seat-name')]
              .filter(name => name.scrollHeight > name.clientHeight + 1
                || name.scrollWidth > name.clientWidth + 1)
              .map(name => name.textContent.trim())"""
        )
        assert cut == [], cut
        board.locator("[data-testid=lobby-more-time] > summary").click()
        expect(board.locator("[data-testid=time-5]")).to_be_visible()
    finally:
        board.context.close()


def test_a_two_word_name_keeps_one_line_where_there_is_room(
    server: ServerProcess, browser: Browser
) -> None:
    """A Legions lobby of two at 1280×720: "Jiří Novák" broke onto two lines while the note
    beside it ("side drawn at the start") took the room. The note wraps first now."""
    board, code = host_room(browser, server.base_url, game="legions")
    try:
        board.set_viewport_size({"width": 1280, "height": 720})
        with httpx.Client(base_url=server.base_url) as http:
            for name in ("Marija", "Jiří Novák"):
                assert http.post(f"/api/rooms/{code}/seats", json={"name": name}).is_success
        names = board.locator("[data-testid=seat-line] .seat-name")
        expect(names).to_have_count(2)
        lines = names.evaluate_all(
            """names => names.map(n => {
                 const range = document.createRange(); range.selectNodeContents(n);
                 return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size;
               })"""
        )
        assert lines == [1, 1], lines
    finally:
        board.context.close()


SEAT_LINE_FAULTS_JS = """lines => lines.flatMap(line => {
  const parts = [...line.children].filter(part => part.getClientRects().length);
  const edge = line.getBoundingClientRect().right;
  return parts.flatMap((part, i) => {
    const box = part.getBoundingClientRect(), next = parts[i + 1];
    const faults = [];
    if (part.scrollWidth > part.clientWidth + 1) faults.push(`${part.className} overflows`);
    if (box.right > edge + 1) faults.push(`${part.className} past the line`);
    if (next && next.getBoundingClientRect().left < box.right - 1)
      faults.push(`${part.className} under ${next.className}`);
    return faults;
  });
})"""


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)])
def test_the_longest_name_beside_a_russian_note_leaves_every_word_whole(
    server: ServerProcess, browser: Browser, artifacts: Path, size: tuple[int, int]
) -> None:
    """A Legions lobby in Russian with a name of 24 letters: the note beside it ("сторона
    определяется жребием в начале") kept five letters' width and ran under the host's
    buttons."""
    board, code = host_room(browser, server.base_url, game="legions")
    try:
        board.set_viewport_size({"width": size[0], "height": size[1]})
        board.locator('.lang-links a[lang="ru"]').first.click()
        expect(board.locator("html")).to_have_attribute("lang", "ru")
        with httpx.Client(base_url=server.base_url) as http:
            for name in ("Marija Kovačević-Horvath", "Jiří"):
                assert http.post(f"/api/rooms/{code}/seats", json={"name": name}).is_success
        lines = board.locator("[data-testid=seat-line]")
        expect(lines).to_have_count(2)
        expect(lines.first.locator(".seat-where")).to_contain_text("жребием")
        keep_screenshot(board, artifacts / f"lobby-long-name-ru-{size[0]}.png")
        assert lines.evaluate_all(SEAT_LINE_FAULTS_JS) == []
    finally:
        board.context.close()


def test_a_phones_pin_opened_in_the_lobby_closes_when_the_game_begins(
    server: ServerProcess, browser: Browser
) -> None:
    """A player reads the seat PIN in the lobby and leaves it open; the host starts the game:
    the PIN panel stood over the first choice of the game (Heirs' colour and character)
    until its 30 s were up, where every new frame of the lobby had kept it open."""
    board, code = host_room(browser, server.base_url)
    phone = join(browser, server.base_url, code, "Anna")
    try:
        with httpx.Client(base_url=server.base_url) as http:
            assert http.post(f"/api/rooms/{code}/seats", json={"name": "Ben"}).is_success
        pin = phone.locator("[data-testid=my-seat]")
        pin.locator("summary").click()
        expect(pin).to_have_attribute("open", "")
        # A frame of the lobby (another player joins) keeps it open: it is being read.
        with httpx.Client(base_url=server.base_url) as http:
            assert http.post(f"/api/rooms/{code}/seats", json={"name": "Cid"}).is_success
        expect(phone.locator(".lobby-card")).to_contain_text("Cid")
        expect(pin).to_have_attribute("open", "")
        board.locator("[data-testid=start]").click()
        expect(phone.locator("[data-testid=setup-form]")).to_be_visible()
        expect(pin).not_to_have_attribute("open", "")
        phone.reload()  # and it does not open again from the tab's memory
        expect(phone.locator("[data-testid=setup-form]")).to_be_visible()
        expect(pin).not_to_have_attribute("open", "")
    finally:
        phone.context.close()
        board.context.close()
