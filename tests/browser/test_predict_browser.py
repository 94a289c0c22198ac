"""A watcher's prediction on a 390 px phone, in Chromium: the players' choices, each a line
when their names are long, are one width. A walk through a night found "Bartholomew
Wolfgangsen" and "Hieronymus Přemyslovna" as two buttons of two widths, each as wide as its
name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import Browser

from app.pages import render_phone_view
from tests.browser.kit import PHONE_SIZE, keep_screenshot, show_fragment
from tests.conftest import ServerProcess, running_server
from tests.test_pages import watcher_payload

pytestmark = pytest.mark.browser

CHOICES_JS = """() => [...document.querySelectorAll('[data-testid=predict] .predict-choice')]
  .map(choice => { const box = choice.querySelector('span').getBoundingClientRect();
                   return {name: choice.textContent.trim(), top: Math.round(box.top),
                           left: Math.round(box.left), width: Math.round(box.width)}; })"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Serves the stylesheets the phone is drawn with."""
    with running_server(tmp_path_factory.mktemp("predict")) as process:
        yield process


def choices(browser: Browser, server: ServerProcess, names: dict[int, str], shot: Path) -> Any:
    payload = watcher_payload()
    for seat in payload["seats"]:
        seat["name"] = names.get(seat["seat"], seat["name"])
    for player in payload["players"]:
        player["name"] = names.get(player["seat"], player["name"])
    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD", seats=[])
    page = browser.new_context(viewport=PHONE_SIZE).new_page()
    try:
        fragment = f'<main class="phone">{render_phone_view(live, payload, "en")}</main>'
        show_fragment(page, server.base_url, fragment, "page-phone")
        keep_screenshot(page, shot)
        return page.evaluate(CHOICES_JS)
    finally:
        page.context.close()


def test_the_players_to_predict_are_choices_of_one_width(
    browser: Browser, server: ServerProcess, artifacts: Path
) -> None:
    long = {1: "Bartholomew Wolfgangsen", 2: "Hieronymus Přemyslovna"}
    found = choices(browser, server, long, artifacts / "predict-long-names-390.png")
    players = [c for c in found if any(name in c["name"] for name in long.values())]
    assert len(players) == 2, found
    assert players[0]["top"] < players[1]["top"], f"a line each: {players}"
    assert players[0]["width"] == players[1]["width"], players
    assert players[0]["left"] == players[1]["left"], players
    # Short names still share a line.
    short = choices(browser, server, {}, artifacts / "predict-short-names-390.png")
    ben, cid = (c for c in short if c["name"].endswith(("Ben", "Cid")))
    assert ben["top"] == cid["top"], short
