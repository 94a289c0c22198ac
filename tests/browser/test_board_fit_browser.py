"""The board is drawn for a 1920×1080 TV; a smaller screen (a 720p TV, a laptop) sees the same
board zoomed out to fit (``static/board-fit.js``). Before, a 1280×720 board cut off the Hidden
Leaders host menu, the room code and the log, and Legions' columns and scores ran into each
other, with no way to scroll to what was cut."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

from engine.registry import available_games, game_info
from tests.browser.kit import BOARD_SIZE, keep_screenshot
from tests.conftest import ServerProcess
from tests.live import wait_for

pytestmark = pytest.mark.browser

SMALL_SCREENS: tuple[ViewportSize, ...] = (
    {"width": 1280, "height": 720},
    {"width": 1366, "height": 768},
    {"width": 1280, "height": 1024},
)

OUT_OF_SIGHT_JS = """(rootId) => {
  // What the board (or the replay) draws beyond the screen. What a box that clips or
  // scrolls holds (a log) is that box's own business: the box itself is measured.
  const view = document.getElementById(rootId);
  const out = [];
  for (const el of view.querySelectorAll('*')) {
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    const r = el.getBoundingClientRect();
    if (r.width < 1 || r.height < 1) continue;
    let clipped = false;
    for (let a = el.parentElement; a && a !== view; a = a.parentElement) {
      const style = getComputedStyle(a);
      if (style.overflowX !== 'visible' || style.overflowY !== 'visible') { clipped = true; break; }
    }
    if (clipped) continue;
    if (r.right > innerWidth + 1 || r.bottom > innerHeight + 1 || r.left < -1 || r.top < -1) {
      const [left, top, right, bottom] = [r.left, r.top, r.right, r.bottom].map(Math.round);
      const name = `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}`;
      out.push(`${name} at ${left},${top}..${right},${bottom}`);
    }
  }
  return out.slice(0, 5);
}"""


def open_board(browser: Browser, base: str, code: str, host: str, size: ViewportSize) -> Page:
    context = browser.new_context(viewport=size)
    context.add_cookies([{"name": f"pecet_host_{code}", "value": host, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/b/{code}")
    page.locator("#board-view").wait_for()
    return page


def faults(page: Page, what: str, root: str = "board-view") -> list[str]:
    size = page.viewport_size
    assert size is not None
    found: list[str] = page.evaluate(OUT_OF_SIGHT_JS, root)
    return [f"{what} at {size['width']}×{size['height']}: {fault}" for fault in found]


@pytest.mark.parametrize("game", available_games())
def test_the_board_fits_a_smaller_screen_in_the_lobby_and_the_game(
    server: ServerProcess, browser: Browser, artifacts: Path, game: str
) -> None:
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    created = api.post("/api/rooms", json={"game": game}).json()
    code, host = created["code"], created["host_token"]
    bearer = {"Authorization": f"Bearer {host}"}
    for _ in range(game_info(game).min_players):
        assert api.post(f"/api/rooms/{code}/bots", headers=bearer).status_code == 201
    found: list[str] = []
    zooms: list[float] = []
    for size in SMALL_SCREENS:
        page = open_board(browser, base, code, host, size)
        assert page.locator("[data-testid=start]").count() == 1, "the host's board"
        found += faults(page, f"{game} lobby")
        page.context.close()
    assert api.post(f"/api/rooms/{code}/start", headers=bearer).status_code == 200
    # Paused at once: the bots stop where they are, mid-game.
    paused = api.post(f"/api/rooms/{code}/pause", json={"paused": True}, headers=bearer)
    assert paused.status_code == 200, paused.text
    for size in SMALL_SCREENS:
        page = open_board(browser, base, code, host, size)
        page.locator("#board-view[data-status=playing]").wait_for()
        found += faults(page, f"{game} game")
        zooms.append(page.evaluate("() => Number(getComputedStyle(document.body).zoom)"))
        name = f"board-fit-{game}-{size['width']}x{size['height']}.png"
        keep_screenshot(page, artifacts / name)
        page.context.close()
    page = open_board(browser, base, code, host, BOARD_SIZE)
    found += faults(page, f"{game} game")
    zooms.append(page.evaluate("() => Number(getComputedStyle(document.body).zoom)"))
    page.context.close()
    assert not found, "\n".join(found)
    # The same board as on a 1920×1080 TV, zoomed out: by the width or the height, whichever
    # is shorter of it.
    wanted = [min(1, s["width"] / 1920, s["height"] / 1080) for s in (*SMALL_SCREENS, BOARD_SIZE)]
    assert zooms == pytest.approx(wanted, abs=1e-3)


def test_the_replay_fits_a_smaller_screen_as_the_board_does(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """The TV's replay is the 1920×1080 replay zoomed out, as the board is: before, its
    controls kept their TV size on a 1366×768 screen and the board took 63 % of the width
    where it takes 74 % on the TV."""
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    created = api.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    code, host = created["code"], created["host_token"]
    bearer = {"Authorization": f"Bearer {host}"}
    for _ in range(2):
        assert api.post(f"/api/rooms/{code}/bots", headers=bearer).status_code == 201
    assert api.post(f"/api/rooms/{code}/start", headers=bearer).status_code == 200
    wait_for(lambda: api.get(f"/api/rooms/{code}").json()["status"] == "finished", "the bots' game")
    found: list[str] = []
    shares: list[float] = []
    for size in (*SMALL_SCREENS, BOARD_SIZE):
        page = browser.new_page(viewport=size)
        page.goto(f"{base}/b/{code}/replay/1")
        page.locator(".rp-stage").wait_for()
        found += faults(page, "replay", root="replay")
        shares.append(
            page.evaluate(
                "() => document.querySelector('.rp-stage').getBoundingClientRect().width"
                " / innerWidth"
            )
        )
        name = f"replay-fit-{size['width']}x{size['height']}.png"
        keep_screenshot(page, artifacts / name)
        page.close()
    assert not found, "\n".join(found)
    tv = shares[-1]
    assert tv > 0.7, "the board is most of the TV's replay"
    assert shares == pytest.approx([tv] * len(shares), rel=0.02), "the same share on every screen"


def test_the_lobby_column_shows_when_more_of_it_lies_below(
    server: ServerProcess, browser: Browser
) -> None:
    """Three people and two bots in an Heirs lobby on a 720p TV: the host's column runs past
    the screen's foot (the seat PINs), and it scrolls without a bar in sight; a mark at its
    foot says so until the column is scrolled to its end."""
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    created = api.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = created["code"], created["host_token"]
    for name in ("Mia", "Noah", "Ema"):
        assert api.post(f"/api/rooms/{code}/seats", json={"name": name}).status_code == 201
    bearer = {"Authorization": f"Bearer {host}"}
    for _ in range(2):
        assert api.post(f"/api/rooms/{code}/bots", headers=bearer).status_code == 201
    page = open_board(browser, base, code, host, {"width": 1280, "height": 720})
    column = page.locator(".seats-panel")
    expect(column.locator("[data-testid=pins]")).to_have_count(1)
    page.locator("[data-testid=tournament-form] > summary").click()  # longer still
    overflow = "el => el.scrollHeight - el.scrollTop - el.clientHeight"
    assert column.evaluate(overflow) > 2, "the column runs past the screen"
    expect(column).to_have_class(re.compile(r"\bmore-below\b"))
    column.evaluate("el => el.scrollTo(0, el.scrollHeight)")
    expect(column).not_to_have_class(re.compile(r"\bmore-below\b"))
    # A phone joins: the board is drawn anew, and the column stays where the host had it
    # (it jumped back to its top, the open form below the edge again).
    assert api.post(f"/api/rooms/{code}/seats", json={"name": "Ivo"}).status_code == 201
    expect(page.locator("[data-testid=seats]")).to_contain_text("Ivo")
    assert page.locator(".seats-panel").evaluate("el => el.scrollTop") > 0
    page.context.close()
