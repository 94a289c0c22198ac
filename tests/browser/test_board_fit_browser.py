"""The board is drawn for a 1920×1080 TV; a smaller screen (a 720p TV, a laptop) sees the same
board zoomed out to fit (``static/board-fit.js``). Before, a 1280×720 board cut off the Hidden
Leaders host menu, the room code and the log, and Legions' columns and scores ran into each
other, with no way to scroll to what was cut."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import APIResponse, Browser, Page, Route, ViewportSize, expect

from app.i18n import LANGUAGES
from engine.registry import available_games, game_info
from tests.browser.kit import BOARD_SIZE, keep_screenshot
from tests.conftest import ServerProcess, paced_server
from tests.live import wait_for
from tests.play import auth, join, lobby_with_bots, play_to_end, start_duel

pytestmark = pytest.mark.browser

server = paced_server(per_module=True)
"""Each test plays rooms of its own."""

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
    code, _host = finished_by_bots(api, "hidden_leaders", bots=2)
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
    # The form is brought into sight with its button above the mark at the foot (the
    # mark's fade stood over half of it).
    wait_for(
        lambda: page.locator("[data-testid=make-tournament]").evaluate(
            """button => {
                 const column = button.closest('.seats-panel');
                 const box = column.getBoundingClientRect();
                 const scale = box.height / column.offsetHeight;  // the board fit to 720p
                 return button.getBoundingClientRect().bottom <= box.bottom - 48 * scale;
               }"""
        ),
        "the tournament's button above the column's foot mark",
    )
    column.evaluate("el => el.scrollTo(0, el.scrollHeight)")
    expect(column).not_to_have_class(re.compile(r"\bmore-below\b"))
    # A phone joins: the board is drawn anew, and the column stays where the host had it
    # (it jumped back to its top, the open form below the edge again).
    assert api.post(f"/api/rooms/{code}/seats", json={"name": "Ivo"}).status_code == 201
    expect(page.locator("[data-testid=seats]")).to_contain_text("Ivo")
    assert page.locator(".seats-panel").evaluate("el => el.scrollTop") > 0
    # The tournament set, its form closes and the column is back at its top: the room's
    # heading and the night's plan in sight (it stayed scrolled down, the heading above the
    # screen's edge). The room's frame that the change sends can redraw the board before the
    # answer to the form comes (a busy machine): the answer is held back here until then, and
    # the box drawn anew closes all the same (it stayed open, kept open as it was).
    held: list[tuple[Route, APIResponse]] = []

    def hold_the_answer(route: Route) -> None:
        held.append((route, route.fetch()))

    page.route(f"{base}/b/{code}/tournament", hold_the_answer)
    page.locator("[data-testid=make-tournament]").click()
    summary = page.locator("[data-testid=tournament-form] > summary")
    expect(summary).to_contain_text("Tournament")  # the frame's board, drawn anew
    wait_for(lambda: bool(held), "the tournament's answer, held back")
    expect(page.locator("[data-testid=tournament-form] form")).to_be_visible()
    route, answer = held.pop()
    route.fulfill(response=answer)
    expect(page.locator("[data-testid=tournament-form] form")).to_be_hidden()
    assert page.locator(".seats-panel").evaluate("el => el.scrollTop") == 0
    expect(page.locator("[data-testid=plan]")).to_be_in_viewport()
    # And in the usual order, the answer before the frame: changed, it closes again.
    page.unroute(f"{base}/b/{code}/tournament")
    summary.click()
    page.locator("[data-testid=night-rounds]").fill("2")
    page.locator("[data-testid=make-tournament]").click()
    expect(page.locator("[data-testid=tournament-form] form")).to_be_hidden()
    # The keyboard's place is the box's title: left on the button in the closed box, the
    # frame that follows the answer gave the focus back to the button and opened the box.
    expect(summary).to_be_focused()
    # Once the change's frame has drawn the board anew (the night now has 2 games), the box
    # is still closed and its title still has the focus.
    expect(summary).to_contain_text("2 games")
    expect(page.locator("[data-testid=tournament-form] form")).to_be_hidden()
    expect(summary).to_be_focused()
    expect(page.locator("[data-testid=plan]")).to_be_in_viewport()
    page.reload()  # and it is not kept open for the next visit
    expect(page.locator("[data-testid=tournament-form] form")).to_be_hidden()
    page.context.close()


def finished_by_bots(api: httpx.Client, game: str, bots: int) -> tuple[str, str]:
    """A room of ``game`` its bots played to the end (no board watched: no show), with its
    code and host token."""
    code, host, _seats = lobby_with_bots(api, game, bots=bots)
    assert api.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    wait_for(lambda: api.get(f"/api/rooms/{code}").json()["status"] == "finished", "the bots' game")
    return code, host


def ended_board(browser: Browser, base: str, code: str, host: str, lang: str) -> Page:
    context = browser.new_context(viewport={"width": 1280, "height": 720}, locale=lang)
    context.add_cookies([{"name": f"pecet_host_{code}", "value": host, "url": base}])
    page = context.new_page()
    page.goto(f"{base}/b/{code}")
    page.locator("#board-view[data-status=finished]").wait_for()
    assert page.locator("html").get_attribute("lang") == lang
    return page


# Each Hidden Leaders faction's heroes all given to one player, the most one row can hold (a
# faction has seven, L1): in each panel the first row with a hero takes all seven and the
# others none. Then where each row's chips and sum stand.
FULL_ROWS_JS = """() => {
  for (const panel of document.querySelectorAll('.step')) {
    const rows = [...panel.querySelectorAll('.goes')];
    const full = rows.find(row => row.querySelector('.chip'));
    if (!full) continue;
    const chip = full.querySelector('.chip');
    for (const row of rows) {
      if (row !== full) row.querySelectorAll('.chip').forEach(other => other.remove());
    }
    while (full.querySelectorAll('.chip').length < 7) {
      full.insertBefore(chip.cloneNode(true), full.querySelector('.sum'));
    }
  }
  const rows = [...document.querySelectorAll('.step .goes')];
  return rows.map(row => {
    const panel = row.closest('.step').getBoundingClientRect();
    const count = row.querySelectorAll('.chip').length;
    const chips = [...row.querySelectorAll('.chip')].map(chip => chip.getBoundingClientRect());
    // One line: the chips side by side, and the row's sum beside them.
    const middles = [...row.querySelectorAll('.chip, .sum')].map(child => {
      const box = child.getBoundingClientRect();
      return Math.round((box.top + box.bottom) / 2);
    });
    const right = Math.max(...[...row.children].map(c => c.getBoundingClientRect().right));
    const level = chips.length ? (chips[0].top + chips[0].bottom) / 2 : middles[0];
    return {
      chips: count,
      lines: new Set(chips.map(chip => Math.round(chip.top))).size || 1,
      beside: middles.every(middle => Math.abs(middle - level) < 20),
      inside: right <= panel.right + 0.5,
    };
  });
}"""


def test_the_hidden_leaders_scoring_fits_a_720p_tv_with_full_rows(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """A faction's heroes given to one player filled a second line of its panel, which pushed
    the result below the screen's foot ("Watch again" cut in half, the armies under the
    language links)."""
    base = server.base_url
    code, host = finished_by_bots(httpx.Client(base_url=base, timeout=10), "hidden_leaders", 2)
    found: list[str] = []
    for lang in LANGUAGES:
        page = ended_board(browser, base, code, host, lang)
        page.locator(".final").wait_for()
        rows = page.evaluate(FULL_ROWS_JS)
        assert any(row["chips"] == 7 for row in rows), (lang, rows)  # filled: measured
        whole = {"lines": 1, "beside": True, "inside": True}
        assert all({k: row[k] for k in whole} == whole for row in rows), (lang, rows)
        found += faults(page, f"hidden_leaders result ({lang})")
        keep_screenshot(page, artifacts / f"board-fit-hidden_leaders-result-{lang}.png")
        page.context.close()
    assert not found, "\n".join(found)


# Where a name of the Hidden Leaders result runs past its own box: the name beside a row's
# heroes and the one beside each player's revealed row.
NAMES_PAST_THEIR_BOX_JS = """() => [...document.querySelectorAll('.goes .to, .reveal-who b')]
  .filter(name => name.scrollWidth > name.clientWidth + 1
    && getComputedStyle(name).textOverflow !== 'ellipsis')
  .map(name => name.textContent)
  .concat([...document.querySelectorAll('.reveal-who')]
    .filter(who => who.scrollWidth > who.clientWidth + 1).map(who => who.textContent))"""


def test_a_long_name_keeps_the_hidden_leaders_result_on_a_720p_tv(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """A 22-letter name broke mid-word into four lines beside each faction's heroes
    ("Maximiliá / n / Bartholo / mew"), ran from its revealed row into the first hero, and
    took the winner's line to two lines: "Watch again" went below the screen's foot."""
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    code, host, tokens = start_duel(api, names=("Maximilián Bartholomew", "Anna"))
    play_to_end(api, code, tokens, max_orders=400)
    page = ended_board(browser, base, code, host, "en")
    page.locator(".final").wait_for()
    keep_screenshot(page, artifacts / "board-fit-hidden_leaders-long-name.png")
    assert page.evaluate(NAMES_PAST_THEIR_BOX_JS) == []
    found = faults(page, "hidden_leaders result with a long name")
    page.context.close()
    assert not found, "\n".join(found)


# The rows of the Hidden Leaders result whose name is cut though the row has room for it:
# at most two heroes beside it.
NAMES_CUT_BESIDE_FEW_HEROES_JS = """() => [...document.querySelectorAll('.step .goes')]
  .filter(row => row.querySelectorAll('.chip').length <= 2)
  .map(row => row.querySelector('.to'))
  .filter(name => name.scrollWidth > name.clientWidth + 1)
  .map(name => name.textContent)"""


def test_a_ten_letter_name_beside_few_heroes_is_not_cut(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """Each faction's row named its player in a box of 130 px whatever the row held: on a
    laptop board "→ Svjatoslav" read "→ Svjat…" beside two heroes, in the moment the room
    reads whose heroes are whose."""
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    code, host, tokens = start_duel(api, names=("Svjatoslav", "Krešimirko"))
    play_to_end(api, code, tokens, max_orders=400)
    page = ended_board(browser, base, code, host, "en")
    page.set_viewport_size({"width": 1366, "height": 768})
    page.locator(".final").wait_for()
    keep_screenshot(page, artifacts / "board-fit-hidden_leaders-ten-letters.png")
    rows = page.locator(".step .goes:not(.discard)")
    assert rows.count() >= 4
    assert page.evaluate(NAMES_CUT_BESIDE_FEW_HEROES_JS) == []
    page.context.close()


NIGHT_NAMES = (
    "Alexandrina Konstantinov",
    "Hieronymus Přemyslovna",
    "Bartholomew Wolfgangsen",
    "Ludmila Svjatoslavovna",
)
"""Four entrants of a night of duels, each name nearly as long as a name may be."""

TALLEST_FACTION_PANEL_PX = 540
"""The tallest faction panel of Hidden Leaders' scoring seen at 1080p, in a night of names
of 22–24 letters."""

BANNER_REASON_JS = """() => {
  if (document.querySelector('.final .banner-reason')) return;
  const line = document.createElement('span');
  line.className = 'banner-reason';
  line.textContent = 'Equal in strength: the army with more heroes wins.';
  document.querySelector('.final .banner-title').after(line);
}"""

# Where the result's banner and the army beside the board's corner (How to play and the
# languages, bottom left) stand.
BANNER_AND_CORNER_JS = """() => {
  const banner = document.querySelector('.final .banner').getBoundingClientRect();
  const army = document.querySelector('.final .army.seat-A').getBoundingClientRect();
  const corner = [...document.querySelectorAll('.board-corner, .corner-links, .lang-links')]
    .map(el => el.getBoundingClientRect()).filter(r => r.width > 0);
  const under = corner.some(r => r.top < army.bottom && r.bottom > army.top
    && r.left < army.right && r.right > army.left);
  return {bannerBottom: banner.bottom, height: innerHeight, armyUnderCorner: under,
          corners: corner.length};
}"""


@pytest.mark.parametrize("kind", ["night", "night-over", "duel"])
@pytest.mark.parametrize(
    "size", [BOARD_SIZE, {"width": 1280, "height": 720}], ids=["1080p", "720p"]
)
def test_a_night_s_ready_line_keeps_the_hidden_leaders_result_on_screen(
    server: ServerProcess, browser: Browser, artifacts: Path, size: ViewportSize, kind: str
) -> None:
    """After a duel of a night, the banner asks who is ready for the next game, a chip for
    every entrant: four long names took a line each between the armies and pushed the
    banner's foot and "Show standings" 130 px past a 1080p TV's edge, the left army under
    the corner's buttons. The armies now stand in a column at the left, above the corner,
    and the banner's chips and buttons flow across the rest of the width. Without a ready
    line (the night's last game: here of two entrants, one game), an army with a long name
    over two lines ran under the corner too: its heroes now stand beside its strength. A duel
    of its own, with its two chips, stands so too."""
    night = kind == "night"
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    tournament = {} if kind == "duel" else {"tournament": {"count": 1}}
    room = api.post("/api/rooms", json={"game": "hidden_leaders", **tournament}).json()
    code, host = room["code"], room["host_token"]
    names = NIGHT_NAMES if night else NIGHT_NAMES[:2]
    tokens = [join(api, code, name)["token"] for name in names]
    assert api.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    play_to_end(api, code, tokens, max_orders=400)
    page = ended_board(browser, base, code, host, "en")
    page.set_viewport_size(size)
    page.locator(".final .banner").wait_for()
    has_ready_line = kind != "night-over"
    expect(page.locator(".final [data-testid=ready-line]")).to_have_count(int(has_ready_line))
    page.evaluate(
        "() => document.querySelectorAll('.scoring').forEach(s => s.classList.add('instant'))"
    )
    # The factions' panels as tall as the tallest a night has drawn (long names, sums and a
    # verdict over three lines each, a row lost for no presence), whatever this deal drew: a
    # deal decides no more than that.
    page.evaluate(
        f"() => document.querySelectorAll('.scoring .step').forEach(s => {{"
        f" s.style.height = '{TALLEST_FACTION_PANEL_PX}px'; s.style.overflow = 'hidden'; }})"
    )
    # And the banner as tall as it gets: with the line of a win on equal strength (L6.9).
    page.evaluate(BANNER_REASON_JS)
    shot = f"board-fit-hidden_leaders-{kind}-{size['height']}p.png"
    keep_screenshot(page, artifacts / shot)
    where = page.evaluate(BANNER_AND_CORNER_JS)
    assert where["bannerBottom"] <= where["height"], where
    assert where["corners"] and not where["armyUnderCorner"], where
    found = faults(page, "hidden_leaders result of a night")
    if kind == "night-over":
        # The night is over: its podium's card stands in the middle of the screen (the
        # result's row's grid, of the same class, stretched it to the screen's top edge).
        page.locator("[data-testid=show-standings]").click()
        card = page.locator("[data-testid=standings] .standings-card")
        expect(card).to_be_visible()
        above, below = card.evaluate(
            """card => { const box = card.getBoundingClientRect();
                        return [box.top, innerHeight - box.bottom]; }"""
        )
        assert above > 8 and abs(above - below) <= 2, (above, below)
    if night:
        # The night's standings, with the same chips and "Next game now" under the table:
        # three long names' chips and the button overran the card, the button squeezed to a
        # red block over its right edge.
        page.locator("[data-testid=show-standings]").click()
        expect(page.locator("[data-testid=standings] .standings-ready")).to_be_visible()
        keep_screenshot(page, artifacts / f"board-fit-night-standings-{size['height']}p.png")
        overrun = page.evaluate(READY_ROW_OVERRUN_JS)
        assert not overrun, overrun
    page.context.close()
    assert not found, "\n".join(found)


# The chips and buttons of the standings' ready row that stand out of the card, or that
# wrapped inside themselves (a button's words on several lines).
READY_ROW_OVERRUN_JS = """() => {
  const card = document.querySelector('[data-testid=standings] .standings-card')
    .getBoundingClientRect();
  return [...document.querySelectorAll('[data-testid=standings] .standings-ready > *')]
    .map(el => [el, el.getBoundingClientRect()])
    .filter(([el, r]) => r.left < card.left || r.right > card.right
      || (el.matches('form') && r.height > 80))
    .map(([el, r]) => `${el.textContent.trim()}: ${Math.round(r.left)}–${Math.round(r.right)}`
      + ` of ${Math.round(card.left)}–${Math.round(card.right)}, ${Math.round(r.height)} high`);
}"""


def test_the_heirs_results_fit_their_panel_in_every_language(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """Six heirs' Council points with their characters and artifacts: in Croatian the
    table ran past its panel, the totals out of sight (a TV is not scrolled sideways)."""
    base = server.base_url
    code, host = finished_by_bots(httpx.Client(base_url=base, timeout=10), "heirs", 6)
    for lang in LANGUAGES:
        page = ended_board(browser, base, code, host, lang)
        ending = page.locator("[data-testid=ending]")
        ending.wait_for()
        width = ending.evaluate("el => [el.scrollWidth, el.clientWidth]")
        assert width[0] <= width[1], (lang, width)
        total = page.locator('.hx-council th[data-column="total"]').bounding_box()
        panel = ending.bounding_box()
        assert total is not None and panel is not None
        assert total["x"] + total["width"] <= panel["x"] + panel["width"], lang
        keep_screenshot(page, artifacts / f"board-fit-heirs-result-{lang}.png")
        page.context.close()


# What opening the host's menu does to the column beside it: the log's height and top, and
# the menu's own box and text size (CSS px, before the board's zoom).
HOST_MENU_JS = """() => {
  const log = document.querySelector('[data-testid=history]').getBoundingClientRect();
  const menu = document.querySelector('.host-menu');
  const box = menu.getBoundingClientRect();
  const button = menu.querySelector('form .button');
  return {
    log: [Math.round(log.top), Math.round(log.height)],
    menu: [box.left, box.top, box.right, box.bottom].map(Math.round),
    text: button ? parseFloat(getComputedStyle(button).fontSize) : 0,
  };
}"""


@pytest.mark.parametrize("game", ["hidden_leaders", "legions"])
def test_the_host_menu_floats_over_a_duel_board_readable(
    server: ServerProcess, browser: Browser, artifacts: Path, game: str
) -> None:
    """Opened on a 720p TV, Hidden Leaders' host menu grew inside the side column: the log
    shrank to a strip, the column's top went out of sight, and its buttons read at 9 px."""
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    code, host, _seats = lobby_with_bots(api, game, ("Ann", "Ben"))
    assert api.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    page = open_board(browser, base, code, host, {"width": 1280, "height": 720})
    page.locator("#board-view[data-status=playing]").wait_for()
    closed = page.evaluate(HOST_MENU_JS)
    page.locator(".host-menu > summary").click()
    page.locator(".host-menu form .button").first.wait_for()
    opened = page.evaluate(HOST_MENU_JS)
    keep_screenshot(page, artifacts / f"board-fit-{game}-host-menu.png")
    # The log keeps its place and at least its height (the folded menu's line is freed).
    assert opened["log"][0] == closed["log"][0], (closed, opened)
    assert opened["log"][1] >= closed["log"][1], (closed, opened)
    left, top, right, bottom = opened["menu"]
    assert left >= 0 and top >= 0 and right <= 1280 and bottom <= 720, opened
    assert opened["text"] >= 18, opened
    assert not faults(page, f"{game} host menu")
    page.context.close()


PROOF_LINES_JS = """() => {
  // Each proof's height in lines of its name, folded and then opened (in one go: the show's
  // next frame may draw the log again).
  const proofs = [...document.querySelectorAll('#board-view [data-testid=proof]')];
  if (!proofs.length) return null;  // the show has not reached a round's proofs yet
  const lines = proof => proof.getBoundingClientRect().height
    / proof.querySelector('.proof-name').getBoundingClientRect().height;
  return proofs.map(proof => {
    const folded = lines(proof);
    proof.querySelector('details').open = true;
    const opened = lines(proof);
    proof.querySelector('details').open = false;
    return {folded, opened, text: proof.innerText};
  });
}"""

shown_server = paced_server(0.4)


def test_each_sealed_order_proof_is_one_line_of_the_boards_log(
    shown_server: ServerProcess, browser: Browser
) -> None:
    """A round's proofs sit in the board's log below its events (Legions shows a turn's
    public orders proven as it plays): at two lines each, the folded "order and salt" on a
    line of its own, the log at 720p kept two lines of events in sight. Folded, a proof is
    one line: mark, name, fingerprint, "order and salt"; opened, the rest goes below."""
    base = shown_server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    code, host, _seats = lobby_with_bots(api, "legions", bots=2)
    page = open_board(browser, base, code, host, {"width": 1280, "height": 720})
    assert api.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    try:
        proofs = page.wait_for_function(PROOF_LINES_JS).json_value()
        assert [p for p in proofs if p["folded"] > 1.5] == [], proofs
        assert [p for p in proofs if p["opened"] < 2.5] == [], proofs
    finally:
        page.context.close()


IN_FLOW_AND_ON_TOP_JS = """(selector) => {
  // Whether the element is laid out in the flow of its group (up to ``group``, not fixed or
  // placed over the board), and what is drawn on top of it at its corners and centre.
  const button = document.querySelector(selector);
  const placed = [];
  const group = button.closest('.watch-again');
  if (!group) return {placed: ['not beside "Watch again"'], over: []};
  for (let el = button; el && el !== group.parentElement; el = el.parentElement) {
    const position = getComputedStyle(el).position;
    if (position === 'fixed' || position === 'absolute') placed.push(el.className || el.tagName);
  }
  const r = button.getBoundingClientRect();
  const points = [[r.left + 3, r.top + 3], [r.right - 3, r.top + 3], [r.left + 3, r.bottom - 3],
                  [r.right - 3, r.bottom - 3], [(r.left + r.right) / 2, (r.top + r.bottom) / 2]];
  const over = points.map(([x, y]) => document.elementFromPoint(x, y))
    .filter(top => top && !button.contains(top) && !top.contains(button))
    .map(top => top.className || top.tagName);
  return {placed, over};
}"""


@pytest.mark.parametrize("game", available_games())
def test_the_hosts_show_standings_button_covers_nothing_of_the_result(
    server: ServerProcess, browser: Browser, game: str
) -> None:
    """Between the games of a night the host's "Show standings" stood fixed at the screen's
    corner, over the language links and the host menu (Legions) or an army's total (Hidden
    Leaders) at 720p. It is a button of the result's own, beside "Watch again"."""
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    created = api.post("/api/rooms", json={"game": game, "tournament": {"count": 2}}).json()
    code, host = created["code"], created["host_token"]
    for _ in range(game_info(game).min_players):
        assert api.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    page = open_board(browser, base, code, host, {"width": 1280, "height": 720})
    assert api.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    try:
        button = page.locator("[data-testid=show-standings]")
        expect(button).to_be_visible(timeout=60_000)
        layout = page.evaluate(IN_FLOW_AND_ON_TOP_JS, "[data-testid=show-standings]")
        assert layout == {"placed": [], "over": []}, layout
        assert faults(page, game) == []
        button.click()
        expect(page.locator("[data-testid=standings]")).to_be_visible()
    finally:
        page.context.close()


# The focused element, and whether it is the topmost thing at its own middle (not under a
# panel), with whether the host's menu is open.
FOCUS_IN_SIGHT_JS = """() => {
  const focused = document.activeElement;
  if (!focused || focused === document.body) return null;
  const box = focused.getBoundingClientRect();
  const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
  return {
    what: focused.outerHTML.slice(0, 80),
    inSight: !!top && (top === focused || focused.contains(top) || top.contains(focused)),
    menuOpen: !!document.querySelector('.host-menu[open]'),
  };
}"""


def test_the_keyboard_never_goes_under_the_open_host_menu(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    """A walk reloaded a duel's board with the host's menu open (it stays open across a
    reload for its minute) and pressed Tab: the first six stops, the log and the corner's
    links, lay under the open menu, their focus out of sight. The focus going under it now
    closes the menu."""
    base = server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    code, host, _seats = lobby_with_bots(api, "hidden_leaders", ("Ann", "Ben"))
    assert api.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    page = open_board(browser, base, code, host, {"width": 1280, "height": 720})
    page.locator("#board-view[data-status=playing]").wait_for()
    page.locator(".host-menu > summary").click()
    page.locator(".host-menu form .button").first.wait_for()
    page.reload()
    expect(page.locator(".host-menu[open]")).to_have_count(1)
    page.evaluate("() => { document.activeElement?.blur(); }")
    stops = []
    for _press in range(12):
        page.keyboard.press("Tab")
        stop = page.evaluate(FOCUS_IN_SIGHT_JS)
        if stop is None:
            continue
        stops.append(stop)
        assert stop["inSight"], stops
    keep_screenshot(page, artifacts / "board-fit-focus-under-menu.png")
    assert stops, "Tab reached nothing"
    assert any(not stop["menuOpen"] for stop in stops), "the focus went under the menu: closed"
    page.context.close()
