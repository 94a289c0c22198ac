"""The Heirs order sheet in Chromium: it composes against what the Market trades bring
(H6: the Market runs first) and warns before sealing a settling that cannot happen (H5.2a):
the Retinue says how many soldiers still leave the people a settling needs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect

from engine.heirs.content import MARKET
from engine.registry import get_rules
from tests.browser.kit import PHONE_SIZE, keep_screenshot, open_rendered_phone
from tests.browser.test_heirs_phone_sheet_browser import open_part
from tests.live import current_match, heirs_at_first_orders, live_room
from tests.play import auth

pytestmark = pytest.mark.browser

HEIRS = get_rules("heirs")


@pytest.fixture
def sheet(client: TestClient) -> Iterator[tuple[TestClient, str, str]]:
    """An Heirs room at its first round of orders: Ann and a bot."""
    code, _host, token = heirs_at_first_orders(client, seed=5)
    yield client, code, token


def test_the_sheet_composes_after_the_market_and_warns_of_a_skipped_settling(
    sheet: tuple[TestClient, str, str], browser: Browser, artifacts: Path
) -> None:
    client, code, token = sheet
    live = live_room(client, code)
    heir: Any = current_match(live).state.heirs[0]
    heir.buildings[MARKET] = 1  # Market I: 3 gold for 1 knowledge
    heir.gold, heir.knowledge, heir.people = 40, 0, 3
    current_match(live).state.memo.clear()
    prompt = HEIRS.prompt(current_match(live).state, 0)
    assert prompt is not None
    ability = next(a for a in prompt["abilities"] if a["cost"] is not None)
    needed = int(ability["cost"])
    move = next(
        (f for f in prompt["expedition"]["move"] if prompt["settle"]["costs"].get(f, 0) >= 2),
        None,
    )
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, token)
    learn = page.locator(f'input[name="learn"][value="{ability["id"]}"]')
    assert learn.is_disabled(), "no knowledge before the Market trades"
    open_part(page, "market")
    page.select_option('select[name="give_0"]', "gold")
    page.select_option('select[name="get_0"]', "knowledge")
    page.fill('input[name="trades_0"]', str(needed))
    page.locator('input[name="trades_0"]').dispatch_event("input")
    assert learn.is_enabled(), "the trades pay for the ability: H6 runs the Market first"
    open_part(page, "heir")
    learn.check()
    after = page.locator('[data-testid="after-order"]').inner_text()
    assert f"{40 - 3 * needed} gold" in after and "0 knowledge" in after
    assert move is not None, "the first round offers a field that costs people"
    open_part(page, "expedition")
    page.locator(f'input[name="expedition"][value="move:{move}"]').check()
    warning = page.locator('[data-testid="settle-warning"]')
    assert warning.is_hidden(), "3 people settle it"
    skipped = "the settling is skipped"
    assert skipped not in page.locator('[data-testid="after-order"]').inner_text()
    open_part(page, "retinue")
    page.locator('input[name="recruit"]').fill("1")
    hint = page.locator('[data-testid="recruit-hint"]').inner_text()
    assert f"settling {move} as well leaves room for 0" in hint, hint
    open_part(page, "expedition")
    assert warning.is_visible(), "2 of the 3 people go to the retinue first (H6)"
    assert move in warning.inner_text() and "skipped" in warning.inner_text()
    # Said in the bar in sight too, the expedition's part folded.
    open_part(page, "retinue")
    assert warning.is_hidden()
    assert skipped in page.locator('[data-testid="after-order"]').inner_text()
    keep_screenshot(page, artifacts / "heirs-sheet-market-first.png", full_page=True)
    # The sheet composed a legal order: the engine takes it.
    order = {
        "expedition": {"kind": "stay", "field": None},
        "exchanges": [{"give": "gold", "get": "knowledge", "trades": needed}],
        "learn": ability["id"],
    }
    assert client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token)).is_success


def test_the_folded_expedition_says_settle_only_where_the_heir_settles(
    sheet: tuple[TestClient, str, str],
    browser: Browser,
) -> None:
    """H8.2: the heir settles where its step ends, on a field nobody owns, when it keeps the
    people to pay. The settle box is a standing instruction, ticked by default, so the
    expedition's summary says "settle" only where that happens: never when it stays on its
    own capital, never when the people run short."""
    client, code, token = sheet
    live = live_room(client, code)
    heir: Any = current_match(live).state.heirs[0]
    heir.people = 3
    current_match(live).state.memo.clear()
    prompt = HEIRS.prompt(current_match(live).state, 0)
    assert prompt is not None
    costs = prompt["settle"]["costs"]
    assert prompt["settle"]["default"] is True
    move = next(f for f in prompt["expedition"]["move"] if costs.get(f, 0) == 2)
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, token)
    summary = page.locator('details[data-part="expedition"] [data-choice]')
    settle = page.locator('input[name="settle"]')
    open_part(page, "expedition")
    assert settle.is_checked(), "the standing instruction"
    stay = page.locator('input[name="expedition"][value^="stay"]')
    stay.check()
    expect(summary).not_to_contain_text("settle")  # its own capital
    page.locator(f'input[name="expedition"][value="move:{move}"]').check()
    expect(summary).to_contain_text(f"{move} · settle")
    settle.set_checked(False)
    expect(summary).not_to_contain_text("settle")
    settle.set_checked(True)
    open_part(page, "retinue")
    page.locator('input[name="recruit"]').fill("1")  # 2 of the 3 people go first
    expect(summary).not_to_contain_text("settle")
    page.locator('input[name="recruit"]').fill("0")
    expect(summary).to_contain_text(f"{move} · settle")


def test_a_market_line_trades_two_resources_and_a_field_out_of_bounds_is_shown(
    sheet: tuple[TestClient, str, str],
    browser: Browser,
) -> None:
    """A Market line offers to get only what it does not give (the rules refuse the same
    resource on both sides, and the sheet offered it). A number of trades below 0 in a
    folded Market stopped the seal without a word: the browser could not point at a field
    out of sight. The Market now opens with the field in view."""
    client, code, token = sheet
    live = live_room(client, code)
    current_match(live).state.heirs[0].buildings[MARKET] = 1
    current_match(live).state.memo.clear()
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, token)
    open_part(page, "market")
    page.select_option('select[name="give_0"]', "gold")
    get_gold = page.locator('select[name="get_0"] option[value="gold"]')
    assert get_gold.is_disabled(), "gold given is not offered to get"
    page.select_option('select[name="get_0"]', "knowledge")
    assert page.locator('select[name="give_0"] option[value="knowledge"]').is_disabled()
    page.select_option('select[name="give_0"]', "people")
    assert get_gold.is_enabled() and page.input_value('select[name="get_0"]') == "knowledge"
    # Giving what the line gets: the line's get starts again, empty.
    page.locator('select[name="give_0"] option[value="knowledge"]').evaluate(
        "option => { option.disabled = false; }"
    )
    page.select_option('select[name="give_0"]', "knowledge")
    assert page.input_value('select[name="get_0"]') == ""

    page.fill('input[name="trades_0"]', "-2")
    open_part(page, "expedition")  # the Market folds (one part open at a time)
    market = page.locator('details[data-part="market"]')
    expect(market).not_to_have_attribute("open", "")
    page.locator("[data-testid=seal]").click()
    expect(market).to_have_attribute("open", "")
    trades = page.locator('input[name="trades_0"]')
    expect(trades).to_be_in_viewport()
    assert trades.evaluate("input => input.validity.rangeUnderflow")


def test_a_phone_held_sideways_keeps_most_of_its_screen_for_the_sheet(
    sheet: tuple[TestClient, str, str], browser: Browser, artifacts: Path
) -> None:
    """On a phone held sideways (844×390) the seal bar, which stays at the bottom of the
    screen, took a third of it (132 px): its total and its button now sit side by side."""
    client, code, token = sheet
    page = browser.new_page(viewport={"width": 844, "height": 390})
    open_rendered_phone(page, client, code, token)
    bar = page.locator(".hx-seal-bar").bounding_box()
    seal = page.locator("[data-testid=seal]").bounding_box()
    assert bar is not None and seal is not None
    assert bar["height"] <= 390 / 4, bar
    assert seal["height"] >= 44 and seal["y"] + seal["height"] <= 390, seal
    total = page.locator("[data-testid=after-order]")
    expect(total).to_contain_text("After this order")
    keep_screenshot(page, artifacts / "heirs-sheet-sideways.png")


def test_the_sheet_says_when_the_market_trades_fewer_than_asked(
    sheet: tuple[TestClient, str, str],
    browser: Browser,
) -> None:
    """H21: the Market cuts the trades to what the heir can pay. The sheet's total counted
    only those, without a word: 9 trades asked of 8 gold at 3 a trade gave 2, silently."""
    client, code, token = sheet
    live = live_room(client, code)
    heir: Any = current_match(live).state.heirs[0]
    heir.buildings[MARKET] = 1  # Market I: 3 gold for 1 knowledge
    heir.gold, heir.knowledge = 8, 0
    current_match(live).state.memo.clear()
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, token)
    open_part(page, "market")
    page.select_option('select[name="give_0"]', "gold")
    page.select_option('select[name="get_0"]', "knowledge")
    cut = page.locator("[data-testid=trades-cut-0]")
    page.fill('input[name="trades_0"]', "2")
    expect(cut).to_be_hidden()
    page.fill('input[name="trades_0"]', "9")
    expect(cut).to_have_text("Only 2 of 9 trades: no more gold.")
    expect(page.locator("[data-testid=after-order]")).to_contain_text("2 knowledge")
    # The number as the field reads it: "1e1" is 10 (it was read as 1), 2.5 is 2.
    choice = page.locator('details[data-part="market"] [data-choice]')
    page.fill('input[name="trades_0"]', "1e1")
    expect(cut).to_have_text("Only 2 of 10 trades: no more gold.")
    expect(choice).to_have_text("10× gold → knowledge")
    page.fill('input[name="trades_0"]', "2.5")
    expect(choice).to_have_text("2× gold → knowledge")
    page.select_option('select[name="give_0"]', "")
    expect(cut).to_be_hidden()


@pytest.mark.parametrize("lang", ["en", "cs", "ru", "hr"])
def test_no_choice_on_the_sheet_runs_out_of_its_box_on_a_small_phone(
    sheet: tuple[TestClient, str, str], browser: Browser, lang: str
) -> None:
    """A choice's name is one word too long for its half of a 360 px phone in some
    languages (Croatian "Bez sposobnosti"): it ran over the box's border. It wraps now."""
    client, code, token = sheet
    for width in (360, 390):
        page = browser.new_page(viewport={"width": width, "height": 740})
        open_rendered_phone(page, client, code, token, lang=lang)
        assert not overflowing_choices(page), (lang, width)


def overflowing_choices(page: Page) -> list[tuple[str, list[str]]]:
    """The choices whose name runs out of its box, by part of the sheet."""
    found = []
    for part in ("expedition", "trick", "retinue", "city", "heir"):
        if page.locator(f'details[data-part="{part}"]').count():
            open_part(page, part)
            overflowing = page.evaluate(
                """part => [...document.querySelectorAll(
                     `details[data-part="${part}"] .hx-choice b`)]
                   .filter(b => b.offsetParent && b.scrollWidth > b.clientWidth + 1)
                   .map(b => b.textContent)""",
                part,
            )
            if overflowing:
                found.append((part, overflowing))
    return found


def test_a_shadow_path_field_lost_with_the_expedition_is_told(
    sheet: tuple[TestClient, str, str],
    browser: Browser,
) -> None:
    """H7.7: the Shadow path's step starts where the expedition ends, so its fields follow
    the expedition. A field the player chose, gone with a new expedition, was swapped for
    another without a word; the sheet now says to choose it again."""
    client, code, token = sheet
    live = live_room(client, code)
    heir: Any = current_match(live).state.heirs[0]
    heir.hand = ["shadow_path", "mercenaries", "quick_recruitment"]
    heir.gold, heir.knowledge, heir.people = 20, 20, 20
    current_match(live).state.memo.clear()
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, token)
    open_part(page, "trick")
    page.locator('input[name="trick"][value="shadow_path"]').check()
    field = page.locator('select[name="field_shadow_path"]')
    after = json.loads(field.get_attribute("data-after") or "{}")
    stay = after["stay"]
    assert stay, "the Shadow path goes on from where the heir stays"
    field.select_option(stay[-1])
    moved = page.locator("[data-testid=field-moved]")
    expect(moved).to_be_hidden()
    elsewhere = next(
        target for target, fields in (after.get("move") or {}).items() if stay[-1] not in fields
    )
    open_part(page, "expedition")
    page.locator(f'input[name="expedition"][value="move:{elsewhere}"]').check()
    open_part(page, "trick")
    expect(moved).to_be_visible()
    options = field.locator("option").all_inner_texts()
    field.select_option(options[0])
    expect(moved).to_be_hidden()
