"""The Heirs order sheet as the server renders it: the map excerpt draws every heir the
seat's view places on it (positions are public, H23), and an Invasion/Attack names whom it
meets there."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from engine.core import Rng
from engine.registry import get_rules
from tests.live import (
    bots_have_sealed,
    current_match,
    heirs_at_first_orders,
    live_room,
    wait_for,
)

HEIRS: Any = get_rules("heirs")


def tokens(html: str) -> list[str]:
    return re.findall(r'class="hx-mini-heir[^"]*" data-seat="(\d+)"', html)


def test_the_excerpt_draws_the_heirs_in_sight_and_the_attack_names_them(
    client: TestClient,
) -> None:
    code, _host, token = heirs_at_first_orders(client, seed=5)
    client.cookies.set(f"pecet_seat_{code}", token)
    live = live_room(client, code)
    state = current_match(live).state
    assert tokens(client.get(f"/r/{code}").text) == ["0"], "the sibling stands out of sight"
    # The sibling's heir steps next to Ann's (on a free field): in sight, and attackable.
    field = HEIRS.prompt(state, 0)["expedition"]["move"][0]
    state.heirs[1].position = HEIRS.field_index(field)
    state.memo.clear()
    html = client.get(f"/r/{code}").text
    assert sorted(tokens(html)) == ["0", "1"]
    sibling = next(s.name for s in live.seats if s.position == 1)
    whole = re.sub(r'<span class="nowrap">([^<]*)</span>', r"\1", html)  # a field kept whole
    label = re.search(
        rf'value="attack:{field}"><span><span data-summary>([^<]*)</span>([^<]*)</span>', whole
    )
    assert label is not None, "a sibling's heir on a free field can be attacked (H7.3)"
    assert label.group(1) == f"Invade / attack {field}"
    assert label.group(2) == f" · free field · heir there: {sibling}"


def test_the_first_orders_tell_what_the_setup_did_not_a_last_round(client: TestClient) -> None:
    code, _host, token = heirs_at_first_orders(client, seed=5)
    client.cookies.set(f"pecet_seat_{code}", token)
    html = client.get(f"/r/{code}").text
    log = re.search(r'data-testid="my-log">\s*<h2>([^<]*)</h2>\s*<ul>(.*?)</ul>', html, re.S)
    assert log is not None, "the setup's events for the seat are listed"
    assert log.group(1) == "The setup, for you"
    assert "<li" in log.group(2)


def test_every_heir_sees_its_map_excerpt_at_the_same_scale(client: TestClient) -> None:
    """The excerpt is centred across on the heir: one at the map's left edge (R4-18) got a
    box fitted to its fields alone, a narrow strip the phone drew a third as wide as a
    central heir's. Down, it fits its fields: one on the outer ring, where every heir
    starts, had an empty band as high as two fields above or below it."""
    code, _host, token = heirs_at_first_orders(client, seed=5)
    client.cookies.set(f"pecet_seat_{code}", token)
    state = current_match(live_room(client, code)).state
    drawn = {}
    for field in ("R4-18", "R4-0", "R4-12", "R2-3", "R1-0"):
        state.heirs[0].position = HEIRS.field_index(field)
        state.memo.clear()
        found = re.search(
            r'class="hx-excerpt" viewBox="([^"]+)" width="(\d+)" height="(\d+)"',
            client.get(f"/r/{code}").text,
        )
        assert found is not None
        box = [float(n) for n in found.group(1).split()]
        drawn[field] = (box, int(found.group(2)), int(found.group(3)))
    scales = {round(width / box[2], 3) for box, width, _height in drawn.values()}
    assert len(scales) == 1, drawn  # px per map unit, across and down alike
    assert all(
        round(height / box[3], 2) == round(width / box[2], 2)
        for box, width, height in drawn.values()
    )
    central, top_edge, bottom_edge = drawn["R1-0"], drawn["R4-0"], drawn["R4-12"]
    assert central[2] == 240
    # Two rings of fields below R4-0 and above R4-12, none beyond the map: a shorter box.
    assert top_edge[2] < 0.8 * central[2] and bottom_edge[2] < 0.8 * central[2], drawn


def test_h18_a_fallen_dynasty_s_phone_says_so_and_shows_no_broken_numbers(
    client: TestClient,
) -> None:
    """It read "Sealed — sealed — waiting for 2 others", "Signs 0 of  needed for the Axis"
    and empty attack and defence boxes: a fallen heir has none of those any more."""
    code, _host, token = heirs_at_first_orders(client, seed=5)
    client.cookies.set(f"pecet_seat_{code}", token)
    state = current_match(live_room(client, code)).state
    state.heirs[0].fallen = True
    state.memo.clear()
    html = client.get(f"/r/{code}").text
    assert 'data-testid="fallen"' in html and "Your dynasty has fallen" in html
    assert 'data-testid="sealed"' not in html
    assert "needed for the Axis" not in html and "attack here" not in html


def test_the_sealed_card_says_what_its_digits_are(client: TestClient) -> None:
    """ "Sealed 1a0a5b": the digits were explained only in a title, which a phone shows on no
    tap, and a newcomer took them for a PIN or an error."""
    created = client.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = created["code"], created["host_token"]
    tokens_ = [
        client.post(f"/api/rooms/{code}/seats", json={"name": name}).json()["token"]
        for name in ("Ann", "Ben")
    ]
    bearer = {"Authorization": f"Bearer {host}"}
    assert client.post(f"/api/rooms/{code}/start", headers=bearer).status_code == 200
    live = live_room(client, code)
    for seat, token in enumerate(tokens_):
        for attempt in range(6):  # a colour the other took meanwhile is chosen again (H3.1)
            setup = HEIRS.random_order(current_match(live).state, seat, Rng(attempt))
            sealed = client.post(
                f"/api/rooms/{code}/orders",
                json=setup,
                headers={"Authorization": f"Bearer {token}"},
            )
            if sealed.is_success:
                break
    wait_for(
        lambda: (HEIRS.prompt(current_match(live).state, 0) or {}).get("kind") == "orders",
        "the first round of orders",
        10,
    )
    order = HEIRS.prompt(current_match(live).state, 0)["default"]
    sealed = client.post(
        f"/api/rooms/{code}/orders", json=order, headers={"Authorization": f"Bearer {tokens_[0]}"}
    )
    assert sealed.is_success, sealed.text
    client.cookies.set(f"pecet_seat_{code}", tokens_[0])
    html = client.get(f"/r/{code}").text
    card = html[html.index('data-testid="sealed"') :]
    card = card[: card.index("</section>")]
    assert 'data-testid="my-commitment"' in card
    assert html.count('data-testid="my-commitment"') == 1, "on its card, not twice"
    shown = re.sub(r"<[^>]+>", "", card)  # the text in sight, not the tags' titles
    assert "the board shows the same, and the replay proves" in shown


def test_a_targets_settling_cost_is_counted_in_each_language_plural() -> None:
    """The sheet's move targets say what settling there costs. Czech counts people in three
    forms: "za 1 člověka", "za 3 lidi", "za 5 lidí" (it read "za 3 lidí" for every count)."""
    from app import i18n

    with i18n.use_language("cs"):
        said = [
            i18n.ngettext("settle for %(n)s person", "settle for %(n)s people", n) % {"n": n}
            for n in (1, 3, 5)
        ]
    assert said == ["osídlení za 1 člověka", "osídlení za 3 lidi", "osídlení za 5 lidí"]


def test_h20_1_a_nights_kept_colour_is_said_to_be_kept(client: TestClient) -> None:
    """A night's later Heirs game offered each phone a single colour with no word why: it
    read as the last one left, not as the player's own for the night."""
    created = client.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = created["code"], created["host_token"]
    token = client.post(f"/api/rooms/{code}/seats", json={"name": "Ann"}).json()["token"]
    for _ in range(2):
        client.post(f"/api/rooms/{code}/bots", headers={"Authorization": f"Bearer {host}"})
    bearer = {"Authorization": f"Bearer {host}"}
    assert client.post(f"/api/rooms/{code}/start", headers=bearer).status_code == 200
    client.cookies.set(f"pecet_seat_{code}", token)
    assert 'data-testid="colour-kept"' not in client.get(f"/r/{code}").text, "a game of its own"
    live = live_room(client, code)
    # The bots' setup seals are written first: one still on its way would set the match's
    # state after the one put in below.
    bots_have_sealed(live)
    # What a night's later Heirs game is given (engine/heirs/api.py, H20.1).
    current_match(live).state = HEIRS.setup(3, 7, {"colours": ["green", "red", "blue"]})
    html = client.get(f"/r/{code}").text
    assert 'data-testid="colour-kept"' in html
    assert "Your colour stays the same all tournament long." in html
