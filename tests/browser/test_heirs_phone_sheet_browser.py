"""The Heirs order sheet on a 390×844 phone, in Chromium: its running total is the engine's
own arithmetic (H6), its parts fold one at a time with the Seal always in reach, the sealed
card says what was sealed, and a draft the sealing timer overtook (H5.4) is reported."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect

from app.models import utcnow
from engine.core import JSON, Rng
from engine.heirs.content import MARKET
from engine.heirs.state import HeirsState, clone_state
from engine.registry import get_rules
from tests.browser.kit import PHONE_SIZE, keep_screenshot, open_rendered_phone
from tests.live import current_match, heirs_at_first_orders, live_room, room_service, wait_for
from tests.play import auth

pytestmark = pytest.mark.browser

HEIRS: Any = get_rules("heirs")
TOTAL = re.compile(r"(\d+) soldiers? · (\d+) (?:people|person) · (\d+) gold · (\d+) knowledge")
TWO_SCREENS = 2 * PHONE_SIZE["height"]


SQUEEZED_LINES_JS = """el => {
  let line = el.parentElement;
  while (getComputedStyle(line).display === 'inline') line = line.parentElement;
  const box = line.getBoundingClientRect();
  const chip = el.getBoundingClientRect();
  line.style.width = (chip.right - box.left - 3) + 'px';  // all but its last letter fits
  const lines = el.getClientRects().length;
  line.style.width = '';
  return lines;
}"""
"""How many lines an inline element takes once its line ends just before its last letter."""


def open_part(page: Page, part: str) -> None:
    details = page.locator(f'details[data-part="{part}"]')
    if details.get_attribute("open") is None:
        details.locator("summary").click()
    expect(details).to_have_attribute("open", "")


def fill_sheet(page: Page, order: JSON) -> None:
    """Compose ``order`` on the sheet by tapping, part by part (H6 order after the
    expedition, whose end the Shadow path's fields follow)."""
    expedition = order.get("expedition") or {"kind": "stay"}
    value = (
        "stay" if expedition["kind"] == "stay" else f"{expedition['kind']}:{expedition['field']}"
    )
    open_part(page, "expedition")
    page.locator(f'input[name="expedition"][value="{value}"]').check()
    page.locator('input[name="settle"]').set_checked(bool(order.get("settle", True)))
    page.locator('input[name="retreat"]').set_checked(bool(order.get("retreat", False)))
    exchanges = order.get("exchanges") or []
    if page.locator('details[data-part="market"]').count():
        open_part(page, "market")
        for n in range(2):
            line: JSON = (
                exchanges[n] if n < len(exchanges) else {"give": "", "get": "", "trades": 0}
            )
            page.select_option(f'select[name="give_{n}"]', str(line["give"]))
            page.select_option(f'select[name="get_{n}"]', str(line["get"]))
            page.fill(f'input[name="trades_{n}"]', str(line["trades"]))
    trick = order.get("trick") or {}
    open_part(page, "trick")
    page.locator(f'input[name="trick"][value="{trick.get("card", "")}"]').check()
    if "target" in trick:
        page.select_option(f'select[name="target_{trick["card"]}"]', str(trick["target"]))
    if "field" in trick:
        page.select_option(f'select[name="field_{trick["card"]}"]', trick["field"])
    open_part(page, "retinue")
    page.locator('input[name="recruit"]').fill(str(order.get("recruit", 0)))
    open_part(page, "city")
    page.locator(f'input[name="build"][value="{order.get("build") or ""}"]').check()
    open_part(page, "heir")
    page.locator(f'input[name="learn"][value="{order.get("learn") or ""}"]').check()


def engine_after(state: HeirsState, seat: int, order: JSON) -> tuple[int, ...]:
    """The seat's numbers right after its own step of the pass, as the engine plays it,
    everybody else sealing the default order (stay, settle: nothing that touches the seat)."""
    st = clone_state(state)
    st.memo.clear()
    for heir in st.heirs:
        heir.order = None
    for other in range(st.players):
        st = HEIRS.submit(st, other, order if other == seat else {})
    steps: list[tuple[int, ...]] = []

    def on_step(after: HeirsState, _first: int, _untold: object) -> None:
        heir = after.heirs[seat]
        steps.append((heir.soldiers, heir.people, heir.gold, heir.knowledge))

    HEIRS.resolve_round(st, until="pass", on_step=on_step)
    return steps[st.pedestals.index(seat)]


def test_the_purse_and_the_running_total_count_in_czech(
    client: TestClient, browser: Browser, artifacts: Path
) -> None:
    """Issue 16: every count takes the noun in the form its number asks for (Czech has three:
    1 voják, 3 vojáci, 22 vojáků), on the server's purse line and in the sheet's running total
    (the browser's plural rules pick among the forms the server sent)."""
    code, _host, token = heirs_at_first_orders(client, seed=5)
    state: HeirsState = current_match(live_room(client, code)).state
    heir = state.heirs[0]
    heir.soldiers, heir.people, heir.gold, heir.knowledge = 1, 3, 22, 0
    state.memo.clear()
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, token, lang="cs")
    expected = "1 voják · 3 lidé · 22 zlata · 0 vědění"
    expect(page.locator('[data-testid="purse"]')).to_have_text(expected)
    open_part(page, "expedition")
    page.locator('input[name="expedition"][value="stay"]').check()
    page.locator('input[name="settle"]').set_checked(False)
    expect(page.locator('[data-testid="after-order"]')).to_contain_text(expected)
    open_part(page, "retinue")
    page.locator('input[name="recruit"]').fill("1")
    page.locator('input[name="recruit"]').dispatch_event("input")
    # A recruit costs people (H10): two soldiers, and the people left.
    expect(page.locator('[data-testid="after-order"]')).to_contain_text("2 vojáci · ")
    keep_screenshot(page, artifacts / "heirs-phone-purse-cs.png")


def test_the_running_total_is_what_the_engine_leaves(
    client: TestClient, browser: Browser, artifacts: Path
) -> None:
    code, _host, token = heirs_at_first_orders(client, seed=5)
    match = current_match(live_room(client, code))
    state: HeirsState = match.state
    heir = state.heirs[0]
    # A Market, tricks that bring soldiers and people (H11.4), a purse with choices; no finds
    # or shards, whose contents only the pass reveals (the sheet names them instead).
    heir.buildings[MARKET] = 1
    heir.people, heir.gold, heir.knowledge = 11, 14, 6
    heir.hand = ["quick_recruitment", "mercenaries", "shadow_path"]
    state.finds[:] = [""] * len(state.finds)
    state.shards[:] = [""] * len(state.shards)
    state.memo.clear()
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, token)
    after = page.locator('[data-testid="after-order"]')
    checked: list[JSON] = []
    for seed in range(40):
        order = HEIRS.random_order(state, 0, Rng(seed))
        if (order.get("expedition") or {}).get("kind") == "attack":
            continue  # the battle decides what is left: the sheet says "before the battle"
        fill_sheet(page, order)
        shown = TOTAL.search(after.inner_text())
        assert shown, after.inner_text()
        expected = engine_after(state, 0, order)
        assert tuple(int(n) for n in shown.groups()) == expected, (order, after.inner_text())
        checked.append(order)
        if len(checked) == 8:
            break
    keep_screenshot(page, artifacts / "heirs-phone-sheet-total.png")
    # The orders covered the parts that change the purse: trades, a paid trick, recruits,
    # a building or an ability, and a settling move.
    assert any(o.get("exchanges") for o in checked)
    assert any(o.get("trick") for o in checked)
    assert any(o.get("recruit") for o in checked)
    assert any(o.get("build") or o.get("learn") for o in checked)
    assert any(
        (o.get("expedition") or {}).get("kind") == "move" and o.get("settle") for o in checked
    )


@pytest.mark.parametrize("lang", ["en", "cs"])
def test_the_sheet_folds_with_the_seal_in_reach(
    client: TestClient, browser: Browser, artifacts: Path, lang: str
) -> None:
    code, _host, token = heirs_at_first_orders(client, seed=5)
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, token, lang)
    seal = page.locator("[data-confirm]")
    expect(seal).to_have_count(1)
    # The heir's pedestal is read whole: its number never wraps away from its word, even
    # where the line ends just before the number (a later round's longer line did that).
    chip = page.locator("[data-testid=my-pedestal]")
    expect(chip).to_have_count(1)
    assert chip.evaluate(SQUEEZED_LINES_JS) == 1
    parts = page.locator("details.hx-part")
    names = parts.evaluate_all("els => els.map(e => e.dataset.part)")
    assert names[0] == "expedition" and {"trick", "retinue", "city", "heir"} <= set(names)
    # The cards below the sheet stand a card's gap apart (an empty band of 44 px stood under
    # "Your heir": the sheet's own bottom padding, left from when nothing came after it).
    gap = page.evaluate(
        "() => document.querySelector('.ph-history').getBoundingClientRect().top"
        " - document.querySelector('[data-testid=my-heir]').getBoundingClientRect().bottom"
    )
    assert 0 <= gap <= 12, f"{gap} px between 'Your heir' and the log"

    def in_view() -> bool:
        box = seal.bounding_box()
        assert box is not None
        return box["y"] >= 0 and box["y"] + box["height"] <= PHONE_SIZE["height"]

    for part in names:
        open_part(page, part)
        opened = page.locator("details.hx-part[open]").evaluate_all(
            "els => els.map(e => e.dataset.part)"
        )
        assert opened == [part], "one part open at a time"
        height = page.evaluate("document.documentElement.scrollHeight")
        assert height <= TWO_SCREENS, f"{part} open: the page is {height} px"
        for where in ("0", "document.documentElement.scrollHeight / 2", "1e6"):
            page.evaluate(f"window.scrollTo(0, {where})")
            assert in_view(), f"{part} open, scrolled to {where}: Seal off screen"
        page.evaluate("window.scrollTo(0, 0)")
        keep_screenshot(page, artifacts / f"heirs-phone-sheet-{part}-{lang}.png")
    # A folded part still tells what is drafted in it.
    open_part(page, "city")
    build = page.locator('input[name="build"]:not([value=""]):not(:disabled)').first
    build.check()
    name = build.locator("xpath=..").locator("b").inner_text()
    open_part(page, "heir")
    expect(page.locator('details[data-part="city"] [data-choice]')).to_have_text(name)
    open_part(page, "retinue")
    page.locator('input[name="recruit"]').fill("1")
    open_part(page, "expedition")
    expect(page.locator('details[data-part="retinue"] [data-choice]')).to_contain_text("1")
    # A new frame (another seat seals, a reload) keeps the draft and the part being composed.
    open_part(page, "city")
    open_rendered_phone(page, client, code, token, lang)
    expect(page.locator("details.hx-part[open]")).to_have_attribute("data-part", "city")
    expect(page.locator('input[name="recruit"]')).to_have_value("1")


def two_humans_at_first_orders(
    client: TestClient, timer: int | None = None
) -> tuple[str, list[str]]:
    """An Heirs room of Ann and Ben at the first round of orders: (code, [Ann's, Ben's token])."""
    created = client.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = created["code"], created["host_token"]
    bearer = auth(host)
    if timer:
        options = client.post(f"/api/rooms/{code}/options", json={"timer": timer}, headers=bearer)
        assert options.is_success, options.text
    tokens = [
        client.post(f"/api/rooms/{code}/seats", json={"name": name}).json()["token"]
        for name in ("Ann", "Ben")
    ]
    assert client.post(f"/api/rooms/{code}/start", headers=bearer).is_success
    live = live_room(client, code)
    for seat, token in enumerate(tokens):
        setup = HEIRS.random_order(current_match(live).state, seat, Rng(seat + 1))
        assert client.post(f"/api/rooms/{code}/orders", json=setup, headers=auth(token)).is_success
    wait_for(
        lambda: (HEIRS.prompt(current_match(live).state, 0) or {}).get("kind") == "orders",
        "the first round of orders",
        10,
    )
    return code, tokens


def test_the_sealed_card_says_what_was_sealed(
    client: TestClient, browser: Browser, artifacts: Path
) -> None:
    code, (ann, _ben) = two_humans_at_first_orders(client)
    state = current_match(live_room(client, code)).state
    prompt = HEIRS.prompt(state, 0)
    field = prompt["expedition"]["move"][0]
    build = next(b for b in prompt["buildings"] if b["affordable"])
    order = {"expedition": {"kind": "move", "field": field}, "build": build["id"], "recruit": 1}
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, ann)
    fill_sheet(page, order)
    keep_screenshot(page, artifacts / "heirs-phone-sheet-before-seal.png", full_page=True)
    sealed = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(ann))
    assert sealed.is_success, sealed.text
    open_rendered_phone(page, client, code, ann)
    summary = page.locator('[data-testid="sealed-order"]')
    expect(summary).to_contain_text(f"Move to {field}")
    expect(summary).to_contain_text("recruit 1")
    expect(summary).to_contain_text(f"{build['id'].capitalize()} I")
    # Part by part in the sheet's order: the expedition first, as on the sheet.
    parts = summary.locator("dt").all_inner_texts()
    assert parts == ["Expedition", "Retinue", "City"], parts
    expect(page.locator('[data-testid="timer-lost"]')).to_have_count(0)
    keep_screenshot(page, artifacts / "heirs-phone-sealed-summary.png", full_page=True)


def test_a_draft_the_timer_overtook_is_reported(
    client: TestClient, browser: Browser, artifacts: Path
) -> None:
    code, (ann, ben) = two_humans_at_first_orders(client, timer=60)
    live = live_room(client, code)
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, ann)
    lost = page.locator('[data-testid="timer-lost"]')
    expect(lost).to_have_count(0)
    open_part(page, "retinue")
    page.locator('input[name="recruit"]').fill("1")  # a draft, never sealed
    # Ben seals; Ann's time runs out and the server seals her default order (H5.4).
    assert client.post(f"/api/rooms/{code}/orders", json={}, headers=auth(ben)).is_success
    match = current_match(live)
    match.deadline_at = utcnow() - timedelta(seconds=1)
    assert client.portal is not None
    client.portal.call(_expire, client, code)
    wait_for(lambda: current_match(live).state.round == 2, "round 2", 10)
    open_rendered_phone(page, client, code, ann)
    expect(lost).to_be_visible()
    expect(lost).to_contain_text("round 1")
    keep_screenshot(page, artifacts / "heirs-phone-timer-lost.png", full_page=True)
    # Once she seals round 2 there is nothing left to report.
    assert client.post(f"/api/rooms/{code}/orders", json={}, headers=auth(ann)).is_success
    open_rendered_phone(page, client, code, ann)
    expect(page.locator('[data-testid="sealed"]')).to_be_visible()
    expect(lost).to_have_count(0)


def test_a_draft_sealed_from_elsewhere_is_not_reported_as_overtaken(
    client: TestClient, browser: Browser
) -> None:
    """The note comes from the order log, not from the phone's own drafts: a draft left on
    this phone while the seat's order was sealed elsewhere (another phone, the API) was not
    overtaken by the timer, though the room has one and it ran out for the other seat."""
    code, (ann, ben) = two_humans_at_first_orders(client, timer=60)
    live = live_room(client, code)
    page = browser.new_page(viewport=PHONE_SIZE)
    open_rendered_phone(page, client, code, ann)
    open_part(page, "retinue")
    page.locator('input[name="recruit"]').fill("1")  # a draft on this phone, never sealed here
    assert client.post(f"/api/rooms/{code}/orders", json={}, headers=auth(ann)).is_success
    match = current_match(live)
    match.deadline_at = utcnow() - timedelta(seconds=1)  # Ben's time runs out
    assert client.portal is not None
    client.portal.call(_expire, client, code)
    wait_for(lambda: current_match(live).state.round == 2, "round 2", 10)
    open_rendered_phone(page, client, code, ann)
    expect(page.locator('[data-testid="orders-form"]')).to_be_visible()
    expect(page.locator('[data-testid="timer-lost"]')).to_have_count(0)
    open_rendered_phone(page, client, code, ben)
    expect(page.locator('[data-testid="timer-lost"]')).to_contain_text("round 1")


async def _expire(client: TestClient, code: str) -> None:
    service = room_service(client)
    live = await service.room(code)
    async with live.lock:
        await service.scheduler.expire(live)
