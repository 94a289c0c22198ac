"""Issue 16, "Accessible to everyone at the table": a board whose viewer asked the system to
reduce motion plays the reveal without motion, its steps still paced.

A Heirs room of bots plays on while two boards watch it, one in a browser that prefers reduced
motion. Each board records, at every step of the show it is handed, the longest animation and
transition any element of the page runs; the reduced one must never run one longer than a
frame, the ordinary one must (so the measure can fail), and both must still receive the show's
steps one by one, at the room's pace.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page, sync_playwright

from tests.browser.kit import BOARD_SIZE, launch
from tests.conftest import ServerProcess, running_server

pytestmark = pytest.mark.browser

STEP_SECONDS = 0.8
TIMEOUT_MS = 30_000
STEPS_TO_WATCH = 6

# At every change of the board's show step: the time, the step, and the longest animation or
# transition (its duration plus delay does not matter: only the movement itself) on the page.
RECORD_STEPS = """() => {
  window.__steps = [];
  const longest = () => {
    let most = 0;
    for (const element of document.querySelectorAll("*")) {
      for (const pseudo of [null, "::before", "::after"]) {
        const style = getComputedStyle(element, pseudo);
        if (style.animationName === "none" && style.transitionProperty === "none") continue;
        for (const value of [style.animationDuration, style.transitionDuration]) {
          for (const part of value.split(",")) {
            const text = part.trim();
            const ms = text.endsWith("ms") ? parseFloat(text) : parseFloat(text) * 1000;
            if (ms > most) most = ms;
          }
        }
      }
    }
    return most;
  };
  const note = () => {
    const shown = document.querySelector("[data-show-step]");
    if (!shown) return;
    const key = shown.dataset.showRound + ":" + shown.dataset.showStep;
    const last = window.__steps[window.__steps.length - 1];
    if (last && last.key === key) return;
    window.__steps.push({key, at: performance.now(), longest: longest()});
  };
  new MutationObserver(note).observe(
    document.body, {subtree: true, childList: true, attributes: true});
  note();
}"""


@pytest.fixture
def paced_server(tmp_path: Path) -> Iterator[ServerProcess]:
    with running_server(tmp_path, STEP_SECONDS) as process:
        yield process


def board(browser: Browser, base: str, code: str, motion: Any) -> Page:
    page = browser.new_context(viewport=BOARD_SIZE, reduced_motion=motion).new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(f"{base}/b/{code}")
    page.evaluate(RECORD_STEPS)
    return page


def steps_seen(page: Page) -> list[dict[str, Any]]:
    page.wait_for_function(f"() => window.__steps.length >= {STEPS_TO_WATCH}", timeout=60_000)
    steps: list[dict[str, Any]] = page.evaluate("window.__steps")
    return steps


def test_the_reveal_keeps_its_pace_without_motion(paced_server: ServerProcess) -> None:
    base = paced_server.base_url
    api = httpx.Client(base_url=base, timeout=10)
    created = api.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = created["code"], {"Authorization": f"Bearer {created['host_token']}"}
    for _ in range(4):
        assert api.post(f"/api/rooms/{code}/bots", headers=host).status_code == 201
    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            reduced = board(browser, base, code, "reduce")
            ordinary = board(browser, base, code, "no-preference")
            assert api.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
            calm, lively = steps_seen(reduced), steps_seen(ordinary)
        finally:
            browser.close()
    assert max(step["longest"] for step in calm) <= 0.01, calm
    assert max(step["longest"] for step in lively) >= 300, lively
    # Paced as the room plays them: one step after another, each about a step's time apart
    # (the first follows the page's load, so it is left out).
    for steps in (calm, lively):
        gaps = [later["at"] - earlier["at"] for earlier, later in pairwise(steps[1:])]
        assert len({step["key"] for step in steps}) == len(steps)
        assert sorted(gaps)[len(gaps) // 2] >= STEP_SECONDS * 1000 * 0.6, gaps
