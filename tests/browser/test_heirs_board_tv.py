"""The Heirs of the Axis TV from a couch 3 m away, measured in Chromium at 1920×1080.

A real server plays a 6-round game: Anna on a phone (sealing through the API to keep it short)
and four bots. The host's board is in English, a second board watches in Czech. In the lobby
the Start button and the room code are on screen without scrolling (both languages); while the
rounds play out, every sample shows a battle mark on exactly the fields of the battles shown so
far this round (never a later one; the replay checks every step of the match the same way), and
every eighth sample of both boards has no readable text under 24 px, nothing drawn over a field
of the map, no heir token over a capital and the newest log line in view; so does the end, where
each end table (both boards and the phone) has point columns that add up to the total the
engine computed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.browser.ergonomics import SETTLE_JS, heirs_map, in_view, small_text
from tests.browser.kit import (
    BOARD_SIZE,
    HEIRS_END_CUT_JS,
    HEIRS_END_WHO_CUT_JS,
    keep_screenshot,
    launch,
)
from tests.browser.test_heirs_browser import host_room, join, set_option
from tests.browser.test_reveal_browser import api_seal, auth, board_json, seat_token
from tests.conftest import ServerProcess, running_server
from tests.live import wait_for

pytestmark = pytest.mark.browser

TIMEOUT_MS = 20_000
STEP_SECONDS = 0.5
"""Slow enough that a sample sees most steps, fast enough for 6 rounds in well under a minute."""

# Bot tags ("bot · Pljačkaš") that reach past their name's column, under the Signs beside it.
BOT_TAG_WIDER_JS = """() => [...document.querySelectorAll('.hx-heir-name .bot-tag')]
  .filter(tag => tag.getBoundingClientRect().right >
                 tag.closest('.hx-heir-name').getBoundingClientRect().right + 0.5)
  .map(tag => tag.textContent.trim())"""

NEWEST_LINE_JS = """() => {
  const box = document.querySelector('[data-testid=history] .log-scroll');
  const lines = box ? box.querySelectorAll('li') : [];
  if (!lines.length) return null;
  const last = lines[lines.length - 1].getBoundingClientRect(), b = box.getBoundingClientRect();
  return {text: lines[lines.length - 1].textContent.trim(),
          seen: last.top >= b.top - 1 && last.bottom <= b.bottom + 1 && last.bottom <= innerHeight};
}"""

STEP_EDGES_JS = """() => Object.fromEntries(
  [...document.querySelectorAll('.log-round li:is(.k-step, .k-dawn, .k-dusk)')].map(li =>
    [li.className.split(' ')[0], Math.round(li.getBoundingClientRect().left +
      parseFloat(getComputedStyle(li).paddingLeft))]))"""

SHOWN_JS = """() => {
  const b = document.querySelector('[data-testid=heirs-board]');
  return {round: b && b.dataset.showRound ? Number(b.dataset.showRound) : null,
          step: b && b.dataset.showStep ? Number(b.dataset.showStep) : null,
          marked: [...document.querySelectorAll('[data-testid=battle-mark]')]
            .map(m => m.dataset.field).sort()};
}"""

TABLE_JS = """(selector) => [...document.querySelectorAll(selector + ' tr[data-seat]')].map(tr => ({
  seat: Number(tr.dataset.seat),
  parts: [...tr.querySelectorAll('td.num[data-column]:not([data-column=total])')]
    .map(td => Number((td.querySelector('.hx-points') || td).textContent.trim())),
  total: Number(tr.querySelector('td[data-column=total]').textContent.trim())}))"""


@pytest.fixture
def tv_server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server(tmp_path, STEP_SECONDS) as process:
        yield process


def in_language(page: Page, base: str, lang: str) -> None:
    page.context.add_cookies([{"name": "pecet_lang", "value": lang, "url": base}])
    page.reload()


def lobby_faults(board: Page, lang: str) -> list[str]:
    faults = []
    for selector in ("[data-testid=start]", "[data-testid=room-code]"):
        where = in_view(board, selector)
        if not where or not where["inside"]:
            faults.append(f"{lang} lobby: {selector} is not on screen: {where}")
    return faults


def screen_faults(board: Page, label: str) -> list[str]:
    """The couch rules on one frame of a board, once its tokens have finished moving."""
    board.evaluate(SETTLE_JS)
    # The "How to play" link is the help pages' own (their test measures it), not the board's.
    texts = [t for t in small_text(board) if "howto-link" not in t["where"]]
    faults = [f"{label}: {t['px']} px {t['text']!r} ({t['where']})" for t in texts]
    drawn = heirs_map(board)
    faults += [
        f"{label}: {o['overlay']} {o['text']!r} over {o['field']}" for o in drawn["overlaps"]
    ]
    faults += [
        f"{label}: heir {c['seat']} covers the capital on {c['field']}" for c in drawn["covered"]
    ]
    faults += [
        f"{label}: heir {b['seat']}'s pedestal on {b['on']} covers the name of {b['field']} "
        f"by {b['w']}×{b['h']} px"
        for b in drawn["badges"]
    ]
    # A step's own line (a pedestal, dawn, dusk) starts at the log's edge; the lines of what
    # happened in it are indented under it (dusk read as a line of the last pedestal).
    edges = board.evaluate(STEP_EDGES_JS)
    if len(set(edges.values())) > 1:
        faults.append(f"{label}: steps' lines start at different edges: {edges}")
    newest = board.evaluate(NEWEST_LINE_JS)
    if newest and not newest["seen"]:
        faults.append(f"{label}: the newest log line {newest['text']!r} is out of view")
    return faults


def battles_so_far(payload: dict[str, Any], step: int) -> list[str]:
    """The fields of the battles in the steps of this round up to ``step`` (the engine's word)."""
    fields = {
        e["data"]["field"]
        for s in (payload.get("playback") or [])[: step + 1]
        for e in s["events"]
        if e["kind"] == "battle" and e["data"].get("field")
    }
    return sorted(fields)


def replay_mark_faults(api: httpx.Client, code: str) -> list[str]:
    """Every step of the finished match on the board's replay: battle marks on exactly the
    fields of the battles of its round up to that step."""
    steps = api.get(f"/api/rooms/{code}/matches/1/replay").json()["steps"]
    faults, first = [], 0
    for index, step in enumerate(steps):
        if index and step["round"] != steps[index - 1]["round"]:
            first = index
        expected = battles_so_far({"playback": steps[first:]}, index - first)
        html = api.get(f"/b/{code}/replay/1/step/{index}").text
        marked = sorted(re.findall(r'data-testid="battle-mark" data-field="([^"]+)"', html))
        if marked != expected:
            faults.append(f"replay step {index}: battle marks on {marked}, battles on {expected}")
    return faults


def table_faults(page: Page, selector: str, council: dict[str, Any], label: str) -> list[str]:
    rows = page.evaluate(TABLE_JS, selector)
    if len(rows) != len(council):
        return [f"{label}: {len(rows)} rows for {len(council)} heirs"]
    faults = []
    for row in rows:
        total = council[str(row["seat"])]["points"]
        if len(row["parts"]) != 5 or sum(row["parts"]) != row["total"] or row["total"] != total:
            faults.append(f"{label}: seat {row['seat']} shows {row} for {total} points")
    return faults


def watcher(browser: Browser, base: str, code: str, lang: str) -> Page:
    page = browser.new_context(viewport=BOARD_SIZE).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.context.add_cookies([{"name": "pecet_lang", "value": lang, "url": base}])
    page.goto(f"{base}/b/{code}")
    return page


def test_the_tv_reads_from_the_couch_and_the_end_tables_add_up(
    tv_server: ServerProcess, artifacts: Path
) -> None:
    base = tv_server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    shots = artifacts / "heirs-board-tv"
    shots.mkdir(exist_ok=True)
    faults: list[str] = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            board, code = host_room(browser, base)
            set_option(board, "opt-rounds", "6")
            anna = join(browser, base, code, "Anna")
            # Warlords and raiders fight early and often: the show has battles to mark.
            for count, style in enumerate(("warlord", "raider", "warlord", "raider"), start=2):
                board.locator("[data-testid=bot-style]").select_option(style)
                board.locator("[data-testid=add-styled-bot]").click()
                expect(board.locator("[data-testid=seats] li:not(.empty)")).to_have_count(count)
            for lang in ("cs", "en"):
                in_language(board, base, lang)
                expect(board.locator("[data-testid=start]")).to_be_visible()
                faults += lobby_faults(board, lang)
            czech = watcher(browser, base, code, "cs")
            board.locator("[data-testid=start]").click()
            expect(board.locator("[data-testid=heirs-board]")).to_be_visible()
            token = seat_token(anna, code)

            def setup_prompt() -> dict[str, Any] | None:
                """Anna's setup choices once the four bots have made theirs (each bot's order
                is committed apart: a colour read while they choose may be taken next)."""
                seat = api.get(f"/api/rooms/{code}/me", headers=auth(token)).json()["you"]["seat"]
                if api.get(f"/api/rooms/{code}").json()["to_act"] != [seat]:
                    return None
                # Read after the bots are done: every colour it offers is still free.
                me = api.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
                prompt: dict[str, Any] = me.get("prompt") or {}
                return prompt if prompt.get("kind") == "setup" else None

            prompt = wait_for(setup_prompt, "Anna's choice of colour and character")
            setup = {"colour": prompt["colours"][0], "character": prompt["characters"][0]}
            response = api.post(f"/api/rooms/{code}/orders", json=setup, headers=auth(token))
            assert response.status_code == 202, response.text

            samples = 0
            battle_shot = False
            deadline = time.monotonic() + 150
            while (payload := board_json(api, code))["status"] != "finished":
                assert time.monotonic() < deadline, "the game did not end"
                if not payload.get("show"):
                    api_seal(api, code, token)
                    continue
                shown = board.evaluate(SHOWN_JS)
                if shown["step"] is None:
                    continue
                payload = board_json(api, code)
                show = payload.get("show")
                if show and show["round"] == shown["round"]:
                    expected = battles_so_far(payload, shown["step"])
                    if shown["marked"] != expected:
                        faults.append(
                            f"round {shown['round']} step {shown['step']}: battle marks on "
                            f"{shown['marked']}, battles so far on {expected}"
                        )
                samples += 1
                if samples % 8 == 1:
                    for page, lang in ((board, "en"), (czech, "cs")):
                        faults += screen_faults(page, f"{lang} round {shown['round']}")
                        wide = page.evaluate(BOT_TAG_WIDER_JS)
                        if wide:
                            faults.append(f"{lang}: bot tags past their names' column: {wide}")
                if shown["marked"] and not battle_shot:
                    battle_shot = True
                    keep_screenshot(board, shots / "battle-en.png")
                    keep_screenshot(czech, shots / "battle-cs.png")
            assert samples >= 5, "the show was never sampled"
            # The samples catch what they catch; the replay draws every step with the same
            # template, so each step of the match is checked there (the bots' game is drawn at
            # random: a game without a battle still must show no mark).
            faults += replay_mark_faults(api, code)

            council = board_json(api, code)["view"]["outcome"]["council"]
            for page, lang in ((board, "en"), (czech, "cs")):
                expect(page.locator("[data-testid=ending]")).to_be_visible(timeout=60_000)
                keep_screenshot(page, shots / f"end-{lang}.png")
                expect(page.locator("[data-testid=history] ol > li").last).to_be_in_viewport()
                faults += screen_faults(page, f"{lang} end")
                faults += table_faults(page, "[data-testid=ending]", council, f"{lang} TV table")
                # The end panel holds its table, the ready line and "Watch again" without
                # scrolling: a TV is not scrolled from the couch.
                cut = page.evaluate(HEIRS_END_CUT_JS)
                if cut:
                    faults.append(f"{lang} end: scrolled out of the end panel: {cut}")
                # H19.4: the secret characters and artifacts, what the room waited to see,
                # are cut only where the panel has no more room for them.
                who_cut = page.evaluate(HEIRS_END_WHO_CUT_JS)
                if who_cut:
                    faults.append(f"{lang} end: characters and artifacts cut: {who_cut}")
            last_line = board.locator("[data-testid=history] ol > li").last
            expect(last_line).to_contain_text("The game ends")
            expect(anna.locator("[data-testid=phone-ending]")).to_be_visible(timeout=TIMEOUT_MS)
            keep_screenshot(anna, shots / "end-phone-en.png", full_page=True)
            faults += table_faults(anna, "[data-testid=phone-ending]", council, "phone table")
            overflow = anna.evaluate(
                "() => { const t = document.querySelector('[data-testid=phone-ending] table');"
                " return t.getBoundingClientRect().right - innerWidth; }"
            )
            if overflow > 0:
                faults.append(f"phone table: {overflow:.0f} px wider than the phone")
        finally:
            browser.close()
    assert not faults, "\n".join(dict.fromkeys(faults))
