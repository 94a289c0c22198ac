"""The night's podium on the TV with the longest names a seat may take (24 letters). A walk
through a whole night found "Alexandrina Konstantinov" broken inside its words ("Alexandri /
na / Konstanti / nov") on the third step, which it overran upwards: its place number and
badge stood on the line of "Final standings"."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from playwright.sync_api import Browser, ViewportSize

from app.names import NAME_MAX
from app.pages import render_board_view
from tests.browser.kit import BOARD_SIZE, keep_screenshot, show_fragment
from tests.conftest import ServerProcess, running_server
from tests.test_pages import night_payload

pytestmark = pytest.mark.browser

NAMES = {
    # seat: name (night_payload's standings: seat 2 first, 1 second, 0 third)
    0: "Alexandrina Konstantinov",
    1: "Bo",
    2: "Hieronymus Přemyslovna",
}
ONE_WORD = "Maximiliánkonstantinovič"
"""A name of one word as long as a name may be: it has to break somewhere."""

# Per name on the podium: the lines it takes, whether a line breaks between two letters of
# one word, and where the step, its name and the title stand.
PODIUM_JS = """() => {
  const title = document.querySelector('.standings-title').getBoundingClientRect();
  return [...document.querySelectorAll('.podium-step')].map(step => {
    const name = step.querySelector('.seat-name');
    const text = name.firstChild;
    const tops = [];
    for (let i = 0; i < text.length; i++) {
      const range = document.createRange();
      range.setStart(text, i);
      range.setEnd(text, i + 1);
      const box = range.getBoundingClientRect();
      tops.push(text.data[i] === ' ' ? null : Math.round(box.top));
    }
    let insideWord = false;
    for (let i = 1; i < tops.length; i++) {
      if (tops[i] !== null && tops[i - 1] !== null && tops[i] !== tops[i - 1]) insideWord = true;
    }
    const box = step.getBoundingClientRect();
    const content = [...step.querySelectorAll('*')].map(el => el.getBoundingClientRect());
    return {
      name: text.data,
      lines: new Set(tops.filter(top => top !== null)).size,
      insideWord,
      contentTop: Math.min(...content.map(r => r.top)),
      contentLeft: Math.min(...content.map(r => r.left)),
      contentRight: Math.max(...content.map(r => r.right)),
      top: box.top, bottom: box.bottom, left: box.left, right: box.right,
      titleBottom: title.bottom,
    };
  });
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """Serves the stylesheets the podium is drawn with."""
    with running_server(tmp_path_factory.mktemp("podium")) as process:
        yield process


def final_standings(names: dict[int, str]) -> str:
    """The board's fragment of a night that is over, its seats named ``names``."""
    payload: dict[str, Any] = night_payload(standings_mode="shown", over=True, next=None)
    for seat in payload["seats"]:
        seat["name"] = names[seat["seat"]]
    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    return render_board_view(live, payload, "en", host=False, join_url="x")


def podium(
    browser: Browser, server: ServerProcess, size: ViewportSize, names: dict[int, str], shot: Path
) -> list[dict[str, Any]]:
    page = browser.new_context(viewport=size).new_page()
    try:
        fragment = f'<main id="board-socket" class="board">{final_standings(names)}</main>'
        show_fragment(page, server.base_url, fragment, "page-board", ("board-fit.js",))
        keep_screenshot(page, shot)
        steps: list[dict[str, Any]] = page.evaluate(PODIUM_JS)
        return steps
    finally:
        page.context.close()


@pytest.mark.parametrize(
    "size", [BOARD_SIZE, {"width": 1280, "height": 720}], ids=["1080p", "720p"]
)
def test_the_podium_breaks_a_long_name_between_its_words_inside_its_step(
    server: ServerProcess, browser: Browser, artifacts: Path, size: ViewportSize
) -> None:
    assert max(len(name) for name in NAMES.values()) == NAME_MAX
    steps = podium(browser, server, size, NAMES, artifacts / f"podium-{size['height']}p.png")
    assert [step["name"] for step in steps] == [NAMES[2], NAMES[1], NAMES[0]]
    for step in steps:
        assert not step["insideWord"], step
        assert step["lines"] <= 2, step
        # Inside its own step, and below the title: the step grows, never over the title.
        assert step["contentTop"] >= step["top"] - 0.5, step
        assert step["left"] - 0.5 <= step["contentLeft"], step
        assert step["contentRight"] <= step["right"] + 0.5, step
        assert step["top"] > step["titleBottom"], step
    assert len({round(step["bottom"]) for step in steps}) == 1, "the steps' feet on one line"
    second, first, third = steps[1], steps[0], steps[2]
    assert first["top"] < second["top"] < third["top"], "a podium: first, second, third"


def test_a_name_of_one_long_word_stays_inside_its_step(
    server: ServerProcess, browser: Browser, artifacts: Path
) -> None:
    assert len(ONE_WORD) == NAME_MAX
    steps = podium(
        browser, server, BOARD_SIZE, {**NAMES, 0: ONE_WORD}, artifacts / "podium-one-word.png"
    )
    third = steps[2]
    assert third["name"] == ONE_WORD
    assert third["lines"] <= 2, third
    assert third["contentLeft"] >= third["left"] - 0.5, third
    assert third["contentRight"] <= third["right"] + 0.5, third
    assert third["top"] > third["titleBottom"], third


def larger_night(players: int, over: bool) -> dict[str, Any]:
    """A night of ``players`` after six games (over, or with a seventh to come), every seat
    with two words of a name, a tie-break beside two rows and the watchers' predictions
    scored: the tallest a standings card gets."""
    coming = (
        None if over else {"game": "hidden_leaders", "number": 7, "stage": 0, "players": [0, 1]}
    )
    payload: dict[str, Any] = night_payload(standings_mode="shown", over=over, next=coming)
    names = ["Alexandrina Konstantinov", "Bo Li", "Hieronymus Přemyslovna", "Dora Dee"]
    names += ["Ema Novak", "Filip Horvat"]
    payload["seats"] = [
        {"seat": s, "name": names[s], "bot": False, "connected": True, "away_since": None}
        for s in range(players)
    ]
    tiebreaks = ["army_strength", None, "council"] + [None] * players
    payload["tournament"]["standings"] = [
        {
            "seat": s,
            "points": players - s,
            "per_game": [
                1 if (s + g) % 3 == 0 else (None if (s + g) % 3 == 1 else 0) for g in range(6)
            ],
            "place": s + 1,
            "tiebreak": tiebreaks[s],
        }
        for s in range(players)
    ]
    payload["tournament"]["games_played"] = ["hidden_leaders"] * 6
    payload["tournament"]["played"] = 6
    payload["tournament"]["total"] = 6 if over else 15
    payload["tournament"]["oracle"] = [{"seat": s, "points": s % 3} for s in range(players)]
    payload["predictions"] = [
        {
            "seat": s,
            "winner": 0,
            "ending": None,
            "right_winner": s % 2 == 0,
            "right_ending": False,
            "points": 1 if s % 2 == 0 else 0,
        }
        for s in range(2, players)
    ]
    return payload


CARD_FIT_JS = """() => {
  const card = document.querySelector('.standings-overlay .standings-card');
  const back = card.querySelector('[data-testid="hide-standings"]').getBoundingClientRect();
  const box = card.getBoundingClientRect();
  return {overflow: card.scrollHeight - card.clientHeight, backBottom: back.bottom,
          cardBottom: box.bottom, viewport: window.innerHeight};
}"""


@pytest.mark.parametrize("over", [True, False], ids=["final", "between-games"])
@pytest.mark.parametrize("players", [3, 4, 6])
@pytest.mark.parametrize(
    "size", [BOARD_SIZE, {"width": 1280, "height": 720}], ids=["1080p", "720p"]
)
def test_the_standings_fit_the_tv_with_the_button_back_to_the_result(
    server: ServerProcess,
    browser: Browser,
    artifacts: Path,
    size: ViewportSize,
    players: int,
    over: bool,
) -> None:
    """A walk through a night of four (six games, the watchers' predictions beside the
    table) found the final card 44 px taller than a TV holds: "Back to the result" was cut by
    the card's edge, and a TV is not scrolled from the sofa."""
    page = browser.new_context(viewport=size).new_page()
    try:
        live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
        night = larger_night(players, over)
        board = render_board_view(live, night, "en", host=True, join_url="x")
        fragment = f'<main id="board-socket" class="board">{board}</main>'
        show_fragment(page, server.base_url, fragment, "page-board", ("board-fit.js",))
        kind = "final" if over else "between"
        keep_screenshot(page, artifacts / f"standings-{kind}-{players}-{size['height']}p.png")
        fit: dict[str, float] = page.evaluate(CARD_FIT_JS)
    finally:
        page.context.close()
    assert fit["overflow"] <= 1, fit
    assert fit["backBottom"] <= fit["cardBottom"] <= fit["viewport"], fit
