"""The HTML pages: join and host forms, the board, the phone page and its websocket fragments."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from html import unescape
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from app import i18n, pages
from app.config import PROJECT_DIR
from app.games.heirs import building_name, part_name
from app.games.legions import location_name
from app.pages import translate_form
from engine.registry import available_games
from tests.live import bots_have_sealed, current_match, live_room, wait_for
from tests.play import auth, order_from_prompt, play_to_end, replay_position, start_duel

LOCALE = PROJECT_DIR / "locale"
HTMX_HEADERS = {"HX-Request": "true", "HX-Trigger": None, "HX-Current-URL": "http://x/r/ABCD"}


def host_room(client: TestClient) -> tuple[str, str]:
    """A Hidden Leaders room hosted through the page; returns the code and the host token."""
    response = client.post("/host", data={"game": "hidden_leaders"}, follow_redirects=False)
    assert response.status_code == 303
    code = response.headers["location"].rsplit("/", 1)[-1]
    return code, response.cookies[f"pecet_host_{code}"]


def join_api(client: TestClient, code: str, name: str) -> str:
    response = client.post(f"/api/rooms/{code}/seats", json={"name": name})
    assert response.status_code == 201, response.text
    token: str = response.json()["token"]
    return token


def started_room(client: TestClient) -> tuple[str, str, list[str]]:
    code, host_token = host_room(client)
    tokens = [join_api(client, code, "Alice"), join_api(client, code, "Bob")]
    response = client.post(
        f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {host_token}"}
    )
    assert response.status_code == 200
    return code, host_token, tokens


def my_view(client: TestClient, code: str, token: str) -> dict[str, Any]:
    response = client.get(f"/api/rooms/{code}/me", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    view: dict[str, Any] = response.json()
    return view


def hand_ids(client: TestClient, code: str, token: str) -> list[str]:
    return [card["card"] for card in my_view(client, code, token)["view"]["me"]["hand"]]


# ------------------------------------------------------------------ start page, join, host


def test_index_has_the_join_form_and_only_playable_games(client: TestClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert 'name="code"' in response.text
    assert 'name="name"' in response.text
    assert "Host a new game" in response.text
    offered = set(re.findall(r'name="game" value="([a-z_]+)"', response.text))
    assert offered == set(available_games())


def test_joining_by_form_sets_the_seat_cookie_and_opens_the_phone(client: TestClient) -> None:
    code, _host = host_room(client)
    response = client.post(
        "/join", data={"code": f" {code.lower()} ", "name": "Alice"}, follow_redirects=False
    )
    assert response.status_code == 303
    assert response.headers["location"] == f"/r/{code}"
    token = response.cookies[f"pecet_seat_{code}"]
    assert my_view(client, code, token)["you"]["name"] == "Alice"
    phone = client.get(f"/r/{code}")
    assert phone.status_code == 200
    assert 'id="phone-view"' in phone.text
    # The socket proves the seat by the page's cookie: no token in the URL (issue 13.3).
    assert f"/ws/rooms/{code}?" in phone.text and "format=html" in phone.text
    assert f"/ws/rooms/{code}?token=" not in phone.text and "&token=" not in phone.text


@pytest.mark.parametrize(
    ("name", "status", "message"),
    [
        ("", 422, "Please enter your name."),
        ("x" * 30, 422, "Names are at most 24 characters."),
        ("Alice", 409, "That name is taken in this room."),
    ],
)
def test_bad_names_keep_the_typed_values(
    client: TestClient, name: str, status: int, message: str
) -> None:
    code, _host = host_room(client)
    join_api(client, code, "Alice")
    response = client.post("/join", data={"code": code.lower(), "name": name})
    assert response.status_code == status
    assert message in response.text
    assert f'value="{code.lower()}"' in response.text
    assert f'value="{name}"' in response.text


def test_unknown_room_full_room_and_started_game_are_refused(client: TestClient) -> None:
    unknown = client.post("/join", data={"code": "zzzz", "name": "Eve"})
    assert unknown.status_code == 404
    assert "There is no room with that code" in unknown.text
    assert 'value="zzzz"' in unknown.text and 'value="Eve"' in unknown.text

    code, host_token = host_room(client)
    join_api(client, code, "Alice")
    join_api(client, code, "Bob")
    full = client.post("/join", data={"code": code, "name": "Eve"})
    assert full.status_code == 409
    assert "This room is full." in full.text

    client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {host_token}"})
    started = client.post("/join", data={"code": code, "name": "Eve"})
    assert started.status_code == 409
    assert "already started" in started.text


def test_empty_code_is_a_clear_4xx(client: TestClient) -> None:
    response = client.post("/join", data={"code": "  ", "name": "Eve"})
    assert response.status_code == 422
    assert "4-letter room code" in response.text


def test_join_link_prefills_the_code(client: TestClient) -> None:
    code, _host = host_room(client)
    response = client.get(f"/j/{code.lower()}")
    assert response.status_code == 200
    assert f'value="{code}"' in response.text
    assert client.get("/j/QQQQ").status_code == 404


def test_phone_page_without_a_seat_cookie_redirects_to_join(client: TestClient) -> None:
    code, _host = host_room(client)
    response = client.get(f"/r/{code}", follow_redirects=False)
    assert response.status_code == 303
    assert response.headers["location"] == f"/j/{code}"
    client.cookies.set(f"pecet_seat_{code}", "not-a-real-token")
    response = client.get(f"/r/{code}", follow_redirects=False)
    assert response.headers["location"] == f"/j/{code}"


def test_a_saved_token_restores_the_seat_cookie(client: TestClient) -> None:
    code, _host = host_room(client)
    token = join_api(client, code, "Alice")
    restored = client.post(f"/r/{code}/restore", data={"token": token}, follow_redirects=False)
    assert restored.status_code == 303
    assert restored.cookies[f"pecet_seat_{code}"] == token
    refused = client.post(f"/r/{code}/restore", data={"token": "stale"}, follow_redirects=False)
    assert refused.status_code == 401
    assert f'data-forget-seat="{code}"' in refused.text


# ------------------------------------------------------------------ board


def test_board_shows_the_code_the_join_url_and_a_qr_code(client: TestClient) -> None:
    code, _host = host_room(client)
    board = client.get(f"/b/{code}")
    assert board.status_code == 200
    assert code in board.text
    assert f"/j/{code}" in board.text
    assert f"/ws/rooms/{code}/board?" in board.text and "host=" not in board.text
    assert "Start the game" in board.text  # the host's browser gets the controls

    qr = client.get(f"/b/{code}/qr.svg")
    assert qr.status_code == 200
    assert qr.headers["content-type"].startswith("image/svg+xml")
    root = ET.fromstring(qr.content)
    assert root.tag.endswith("svg")


def test_board_without_the_host_cookie_has_no_controls(client: TestClient) -> None:
    code, _host = host_room(client)
    client.cookies.clear()
    board = client.get(f"/b/{code}")
    assert board.status_code == 200
    assert "Start the game" not in board.text
    assert "host=" not in board.text
    assert client.get("/b/QQQQ").status_code == 404


def test_host_controls_add_a_bot_move_and_start(client: TestClient) -> None:
    code, _host = host_room(client)
    join_api(client, code, "Alice")
    assert client.post(f"/b/{code}/bots", follow_redirects=False).status_code == 303
    moved = client.post(f"/b/{code}/seats/1/move", data={"to": "0"}, headers={"HX-Request": "true"})
    assert moved.status_code == 204
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert [s["name"] for s in seats] == ["Bot 1", "Alice"]
    assert client.post(f"/b/{code}/start", headers={"HX-Request": "true"}).status_code == 204
    again = client.post(f"/b/{code}/start", headers={"HX-Request": "true"})
    assert again.status_code == 409
    client.cookies.clear()
    assert client.post(f"/b/{code}/bots", headers={"HX-Request": "true"}).status_code == 401


# ------------------------------------------------------------------ languages


def test_czech_pages_speak_czech(client: TestClient) -> None:
    switched = client.get("/lang/cs?next=/", follow_redirects=False)
    assert switched.status_code == 303
    assert switched.cookies["pecet_lang"] == "cs"
    client.cookies.set("pecet_lang", "cs")
    page = client.get("/")
    assert "Připojit se ke hře" in page.text
    assert "Založit novou hru" in page.text
    assert '<html lang="cs">' in page.text


def test_accept_language_picks_czech(client: TestClient) -> None:
    page = client.get("/", headers={"Accept-Language": "cs-CZ,cs;q=0.9,en;q=0.8"})
    assert "Kód místnosti" in page.text


@pytest.mark.parametrize("lang", [lang for lang in i18n.LANGUAGES if lang != "en"])
def test_every_catalog_is_complete_and_not_fuzzy(lang: str) -> None:
    """Issue 16: a language that lacks a message shows that message in English."""
    with i18n.catalog_path(lang).open("rb") as source:
        translated = read_po(source, locale=lang)
    with i18n.catalog_path("en").open("rb") as source:
        english = read_po(source)
    messages = [m for m in translated if m.id]
    assert messages
    assert [m.id for m in messages if not m.string] == []
    assert [m.id for m in messages if isinstance(m.string, tuple) and not all(m.string)] == []
    assert [m.id for m in messages if m.fuzzy] == []
    assert not translated.fuzzy
    assert {m.id for m in messages} == {m.id for m in english if m.id}


@pytest.mark.parametrize(("lang", "forms"), [("cs", 3), ("ru", 3), ("hr", 3)])
def test_slavic_catalogs_count_in_three_forms(lang: str, forms: int) -> None:
    """Czech, Russian and Croatian each write one, a few and many differently; gettext picks
    the form by the catalog's own rule."""
    with i18n.use_language(lang):
        written = {i18n.ngettext("%(num)s game", "%(num)s games", n) for n in (1, 3, 5)}
    assert len(written) == forms
    with i18n.catalog_path(lang).open("rb") as source:
        assert read_po(source, locale=lang).num_plurals == forms


def test_czech_calls_a_bot_a_bot() -> None:
    """Issue 16: the Czech screens said "bot" and "robot" for the same seat ("Bot 1",
    "robot · Nájezdník", "Přidat robota"); the seats are named Bot, so the word is "bot"."""
    with (LOCALE / "cs" / "LC_MESSAGES" / "messages.po").open("rb") as source:
        czech = read_po(source)
    texts: list[str] = []
    for message in czech:
        if message.id:
            string = message.string
            texts.extend([string] if isinstance(string, str) else [t for t in string or () if t])
    assert [text for text in texts if "robot" in text.lower()] == []


def test_czech_heirs_terms_are_the_rules_glossary() -> None:
    """Issue 16: the Heirs glossary (rules, "Glossary") names the Market "Tržiště" and the
    tournament's Catch-up "Dohánění"; the screens said "Trh" and "Dotahování". Legions' own
    Market (a location, "Рынок" on its sheet) stays "Trh"."""
    with i18n.use_language("cs"):
        assert part_name("exchange") == "Tržiště"
        assert building_name("market") == "Tržiště"
        assert location_name("Y") == "Trh"
        assert i18n.gettext("Catch-up") == "Dohánění"
        assert "(dohánění)" in i18n.gettext("%(name)s starts (catch-up)")


def test_catalogs_cover_every_message_in_the_code(tmp_path: Path) -> None:
    """``pybabel extract`` finds nothing the catalogs lack (run it again after new text)."""
    pot = tmp_path / "messages.pot"
    subprocess.run(
        [
            str(Path(sys.executable).with_name("pybabel")),
            "extract",
            "-F",
            "babel.cfg",
            "-o",
            str(pot),
            "--ignore-dirs",
            ".venv .git test-artifacts data node_modules",
            ".",
        ],
        cwd=PROJECT_DIR,
        check=True,
        capture_output=True,
    )
    with pot.open("rb") as source:
        wanted = {m.id for m in read_po(source) if m.id}
    for lang in i18n.LANGUAGES:
        with i18n.catalog_path(lang).open("rb") as source:
            have = {m.id for m in read_po(source) if m.id}
        assert (lang, sorted(wanted - have)) == (lang, [])


# ------------------------------------------------------------------ websocket fragments


def form_frame(**fields: Any) -> str:
    return json.dumps({**fields, "HEADERS": HTMX_HEADERS})


def receive_until(ws: Any, wanted: Any, limit: int = 6) -> str:
    """The next frame that ``wanted(html)`` accepts; the room may redraw the page meanwhile
    (a seat's presence changes when its phone connects)."""
    for _ in range(limit):
        html: str = ws.receive_text()
        if wanted(html):
            return html
    raise AssertionError("the expected frame never came")


def is_error(html: str) -> bool:
    return html.lstrip().startswith('<div id="phone-error"')


def test_phone_fragments_hold_only_the_seats_own_secrets(client: TestClient) -> None:
    code, _host, tokens = started_room(client)
    hands = [hand_ids(client, code, t) for t in tokens]
    for seat, token in enumerate(tokens):
        with client.websocket_connect(f"/ws/rooms/{code}?token={token}&format=html") as ws:
            html = ws.receive_text()
        assert 'id="phone-view"' in html
        assert 'id="phone-error"' in html
        for card in hands[1 - seat]:
            assert card not in html, f"seat {seat} sees {card} of the other hand"


def test_board_fragment_never_holds_a_hand_card(client: TestClient) -> None:
    code, _host, tokens = started_room(client)
    secret = [c for t in tokens for c in hand_ids(client, code, t)]
    with client.websocket_connect(f"/ws/rooms/{code}/board?format=html") as ws:
        html = ws.receive_text()
    assert 'id="board-view"' in html
    assert 'data-testid="turn"' in html
    for card in secret:
        assert card not in html


def test_a_whole_turn_through_form_frames(client: TestClient) -> None:
    code, _host, tokens = started_room(client)
    first = next(
        seat for seat, t in enumerate(tokens) if my_view(client, code, t)["prompt"] is not None
    )
    token, other = tokens[first], tokens[1 - first]
    other_hand = hand_ids(client, code, other)
    with client.websocket_connect(f"/ws/rooms/{code}?token={token}&format=html") as ws:
        assert "take-form" in ws.receive_text()

        # An illegal TAKE (one slot): the engine's message, and the page stays as it is.
        ws.send_text(form_frame(action="take", slot="A1"))
        error = receive_until(ws, is_error)
        assert "phone-view" not in error
        assert "2" in error

        ws.send_text(form_frame(action="take", slot=["A1", "B7"]))
        html = receive_until(ws, lambda h: "place-form" in h)
        for card in other_hand:
            assert card not in html
        prompt = my_view(client, code, token)["prompt"]
        assert prompt["kind"] == "place" and prompt["open_slots"] == ["A1", "B7"]
        hand = prompt["hand"]
        for card in hand:
            assert f'value="{card}"' in html  # the seat's own hand is selectable

        ws.send_text(
            form_frame(
                action="place",
                return_A1=hand[0],
                return_B7=hand[1],
                place_card=hand[2],
                place_target="B3",
            )
        )
        html = receive_until(ws, lambda h: "place-form" not in h)
        assert "take-form" not in html
        assert "Waiting for" in html
    view = my_view(client, code, token)["view"]
    assert [b["slot"] for b in view["me"]["blocks"]] == ["B3"]


def test_ready_and_language_frames(client: TestClient) -> None:
    code, _host, tokens = started_room(client)
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[0]}&format=html") as ws:
        ws.receive_text()
        ws.send_text(form_frame(action="lang", lang="cs"))
        receive_until(ws, lambda h: "Čeká se na:" in h or "Jsi na tahu" in h)
        ws.send_text(form_frame(action="ready"))
        error = receive_until(ws, is_error)
        assert "Hra ještě neskončila." in error  # the refusal in the phone's language
    assert my_view(client, code, tokens[0])["you"]["lang"] == "cs"


def test_translate_form_builds_protocol_messages() -> None:
    live: Any = SimpleNamespace(game="hidden_leaders")
    assert translate_form(live, {"action": "take", "slot": ["A1", "B3"]}) == {
        "type": "order",
        "order": {"type": "take", "slots": ["A1", "B3"]},
    }
    assert translate_form(live, {"action": "take", "slot": "A1"})["order"]["slots"] == ["A1"]
    council = translate_form(
        live,
        {
            "action": "place",
            "return_A1": "WF1",
            "return_B3": "UD2a",
            "place_card": "IA3a",
            "place_target": "council",
        },
    )
    assert council == {
        "type": "order",
        "order": {
            "type": "place",
            "returns": {"A1": "WF1", "B3": "UD2a"},
            "placement": {"to": "council", "card": "IA3a"},
        },
    }
    block = translate_form(live, {"action": "place", "place_card": "HT4", "place_target": "B2"})
    assert block["order"]["placement"] == {"to": "block", "card": "HT4", "slot": "B2"}
    assert translate_form(live, {"action": "ready"}) == {"type": "ready"}
    assert translate_form(live, {"action": "lang", "lang": "cs"}) == {"type": "lang", "lang": "cs"}
    assert translate_form(live, {}) == {"type": "sync"}


# ------------------------------------------------------------------ scoring (L10.4)


def e1_final_state() -> Any:
    """L8 E1: B wins 29 to 11; A has no presence in UD."""
    from engine.hidden_leaders import final_state

    return final_state(
        ["LIA4", "LHT3"],
        [
            ["IA5", "IA2a", "WF4", "WF1", "HT2a", "HT1"],
            ["HT5", "HT4", "WF3a", "WF2a", "UD3a", "IA1"],
        ],
        "A1 IA4 · A2 HT3a · A3 UD5+IA3a · A4 WF2b · A5 HT3b · A6 UD1+UD2b · A7 UD2a",
        "B1 IA3b · B2 WF5 · B3 HT2b · B4 UD4 · B5 IA2b · B6 WF3b · B7 UD3b",
        block_owners={"A3": 1, "A6": 0},
    )


def e3_final_state() -> Any:
    """L8 E3: armies tied at 20, A wins on hero count, 8 to 7."""
    from engine.hidden_leaders import final_state

    return final_state(
        ["LWF3", "LIA3"],
        [
            ["UD5", "UD2b", "IA5", "IA1", "HT5", "WF1"],
            ["UD4", "UD3a", "IA4", "HT3b", "HT2b", "WF2b", "WF3b"],
        ],
        "A1 IA3a · A2 HT4+UD1 · A3 WF5 · A4 UD2a · A5 IA2a · A6 HT1 · A7 WF2a",
        "B1 WF4 · B2 IA3b · B3 HT3a · B4 UD3b · B5 WF3a · B6 HT2a · B7 IA2b",
        block_owners={"A2": 0},
    )


def e4_final_state() -> Any:
    """L8 E4: armies tied at 19 with 7 heroes each, a rematch."""
    from engine.hidden_leaders import final_state

    return final_state(
        ["LHT3", "LIA4"],
        [
            ["IA5", "HT2b", "WF1", "UD5", "UD1", "IA1", "WF3b"],
            ["IA4", "HT5", "HT3b", "WF2b", "UD3a", "UD3b", "UD4"],
        ],
        "IA3a · HT4 · WF5 · UD2a · IA2a · HT1 · WF2a",
        "WF4 · IA3b · HT3a · UD2b · WF3a · HT2a · IA2b",
    )


def finished_payload(seat: int | None, state: Any = None) -> dict[str, Any]:
    """A finished game as the room service's payload (default: the L8 E1 position)."""
    from engine.hidden_leaders import RULES

    state = state if state is not None else e1_final_state()
    payload: dict[str, Any] = {
        "code": "ABCD",
        "game": "hidden_leaders",
        "status": "finished",
        "seats": [
            {"seat": 0, "name": "Alice", "bot": False},
            {"seat": 1, "name": "Bob", "bot": False},
        ],
        "min_players": 2,
        "max_players": 2,
        "match": 1,
        "outcome": RULES.outcome(state),
        "ready": [1],
        "view": RULES.view(state, seat),
    }
    if seat is not None:
        payload["you"] = {"seat": seat, "name": ["Alice", "Bob"][seat], "lang": "en"}
        payload["prompt"] = None
    return payload


def test_board_plays_out_the_scoring_faction_by_faction() -> None:
    from types import SimpleNamespace

    from app.pages import render_board_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    html = render_board_view(live, finished_payload(None), "en", host=False, join_url="x")
    steps = re.findall(r'data-faction="(\w\w)"', html)
    assert steps == ["IA", "HT", "WF", "UD"]  # L6.2 order
    assert "Count tie → nearest rows" in html  # IA
    assert "Bob has more influence → takes Row A (more heroes)" in html  # HT, UD
    assert "Influence tie → nearest rows" in html  # WF
    assert "no presence: Alice" in html  # UD
    assert 'data-testid="strength-a">11<' in html and 'data-testid="strength-b">29<' in html
    assert "Bob is the new Emperor" in html
    assert "Alice 7 + leader 4" in html  # IA influence 11 = council 7 + leader 4

    czech = render_board_view(live, finished_payload(None), "cs", host=False, join_url="x")
    assert "Shodný počet → každý svou nejbližší řadu" in czech
    assert "Bob je nový císař" in czech


def test_phone_shows_its_army_and_the_ready_button() -> None:
    from types import SimpleNamespace

    from app.pages import render_phone_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    alice = render_phone_view(live, finished_payload(0), "en")
    assert 'data-testid="my-strength">11<' in alice
    assert "Bob is the new Emperor" in alice
    assert 'data-testid="ready"' in alice and "Bob is ready." in alice
    assert "Bob has more influence → takes Row A (more heroes)" in alice
    bob = render_phone_view(live, finished_payload(1), "cs")
    assert "Jsi nový císař!" in bob
    # Bob's own phone says "you", in his language, not his name.
    assert "Máš větší vliv → bereš řadu A (víc hrdinů)" in bob and "Bob má větší vliv" not in bob
    english = render_phone_view(live, finished_payload(1), "en")
    assert "You have more influence → you take Row A (more heroes)" in english
    assert "Připraveno! Čeká se na: Alice" in bob


def test_a_full_tie_is_a_rematch_on_board_and_phone() -> None:
    from types import SimpleNamespace

    from app.pages import render_board_view, render_phone_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    board = render_board_view(
        live, finished_payload(None, e4_final_state()), "en", host=True, join_url="x"
    )
    assert "Rematch!" in board and "Emperor" not in board
    assert "/b/ABCD/again" in board  # the host may start the next game at once
    phone = render_phone_view(live, finished_payload(0, e4_final_state()), "cs")
    assert "Odveta!" in phone and "Jdu do odvety" in phone


def test_l6_9_a_win_on_equal_strength_says_the_heroes_decided() -> None:
    """L8 E3: 20 against 20, A wins on 8 heroes to 7. The banner and both phones said only
    who won beside two equal strengths; they say the army with more heroes wins. A win on
    strength (E1) says nothing of heroes."""
    from app.pages import render_board_view, render_phone_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    tied = finished_payload(None, e3_final_state())
    board = render_board_view(live, tied, "en", host=False, join_url="x")
    reason = re.search(r'data-testid="banner-reason">([^<]*)<', board)
    assert reason is not None
    assert reason.group(1) == "Equal in strength: the army with more heroes wins."
    for seat in (0, 1):
        phone = render_phone_view(live, finished_payload(seat, e3_final_state()), "cs")
        found = re.search(r'data-testid="result-reason">([^<]*)<', phone)
        assert found is not None
        assert found.group(1) == "Armády jsou stejně silné: vítězí ta s více hrdiny."
    assert "banner-reason" not in render_board_view(
        live, finished_payload(None), "en", host=False, join_url="x"
    )
    assert "result-reason" not in render_phone_view(live, finished_payload(0), "en")
    rematch = render_board_view(
        live, finished_payload(None, e4_final_state()), "en", host=False, join_url="x"
    )
    assert "banner-reason" not in rematch  # a full tie says so in its own words


# ------------------------------------------------------------------ the show (issue 9)

HEIRS_NAMES = ["Anna", "Boris", "Cyril", "Dana"]


def heirs_round_with_a_later_battle() -> tuple[Any, list[Any], int]:
    """A 4-heir Heirs game played by warlord bots up to a round whose battle (with a Sign or
    a conquest) comes at a later step than the first; returns the state before the round,
    its steps and the index of that battle's step."""
    from engine.heirs import RULES

    for seed in range(1, 200):
        state = RULES.setup(4, seed, {"rounds": 8})
        while RULES.outcome(state) is None:
            for seat in range(4):
                if RULES.prompt(state, seat) is not None:
                    state = RULES.submit(state, seat, RULES.bot_order(state, seat, "warlord"))
            steps = RULES.resolve_steps(state)
            for index, step in enumerate(steps):
                kinds = {e.kind for e in step.events}
                if index >= 1 and "battle" in kinds and kinds & {"sign", "conquer"}:
                    return state, steps, index
            state = steps[-1].state
    raise AssertionError("no round with a later battle")


def heirs_payload(steps: list[Any], show_step: int | None) -> dict[str, Any]:
    """The board's payload of a room whose newest resolution is ``steps``."""
    from engine.core import events_for
    from engine.heirs import RULES

    playback = [
        {"round": s.round, "events": events_for(s.events, None), "view": RULES.view(s.state, None)}
        for s in steps
    ]
    seats = [{"seat": n, "name": name, "bot": False} for n, name in enumerate(HEIRS_NAMES)]
    return {
        "code": "ABCD",
        "game": "heirs",
        "status": "playing",
        "seats": seats,
        "players": seats,
        "min_players": 2,
        "max_players": 6,
        "match": 1,
        "version": 9,
        "to_act": [],
        "outcome": None,
        "ready": [],
        "options": {"rounds": 8},
        "paused": False,
        "deadline": None,
        "timer_left": None,
        "tournament": None,
        "view": playback[-1]["view"],
        "events": [e for s in playback for e in s["events"]],
        "playback": playback,
        "history": [{"round": 0, "events": []}],
        "show": None
        if show_step is None
        else {"round": steps[0].round, "step": show_step, "steps": len(steps), "step_ms": 2500},
        "commitments": {},
        "reveals": {},
        "fast_forward": False,
    }


def heir_row(html: str, seat: int) -> str:
    found = re.search(rf'<li class="hx-heir[^"]*" data-seat="{seat}">(.*?)</li>', html, re.S)
    assert found, f"no row for heir {seat}"
    return found.group(1)


def field_fill(html: str, field: str) -> str:
    found = re.search(
        rf'data-field="{re.escape(field)}">\s*<polygon points="[^"]*" ?(?:style="fill: ([^"]*)")?',
        html,
    )
    assert found, f"no field {field}"
    return found.group(1) or ""


def test_the_board_draws_the_step_being_shown_and_nothing_later() -> None:
    """Issue 9: at step 0 of a round whose battle comes later, the board shows neither that
    battle, nor its Sign, nor the conquered field's new owner, nor the next round."""
    from app.games import COLOUR_HEX
    from app.games.heirs import NO_COLOUR
    from app.pages import render_board_view

    _before, steps, battle_at = heirs_round_with_a_later_battle()
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    payload = heirs_payload(steps, 0)
    first = render_board_view(live, payload, "en", host=True, join_url="x")
    final = render_board_view(live, heirs_payload(steps, None), "en", host=True, join_url="x")
    round_now = steps[0].round
    first_view, last_view = payload["playback"][0]["view"], payload["playback"][-1]["view"]

    assert f"Round {round_now} of 8" in first and f"Round {round_now + 1} of 8" not in first
    assert f"Round {round_now + 1} of 8" in final or last_view["outcome"]
    assert f"Round {round_now} plays out" in first and "plays out" not in final
    assert 'data-testid="skip-show"' in first and 'data-testid="fast-forward"' in first
    battle = next(e for e in steps[battle_at].events if e.kind == "battle")
    # Read as text: a field's name is kept whole in a span of its own (keep_whole).
    assert f"Battle on {battle.data['field']}" not in re.sub(r"<[^>]+>", "", first)
    assert f"Battle on {battle.data['field']}" in re.sub(r"<[^>]+>", "", final)
    # A narrow log broke it after its hyphen ("R4-" / "19").
    assert f'Battle on <span class="nowrap">{battle.data["field"]}' in final
    for event in steps[battle_at].events:
        if event.kind == "sign":
            seat = event.data["seat"]
            had = len(first_view["heirs"][seat]["signs"])
            assert heir_row(first, seat).count('class="hx-sign"') == had
            assert heir_row(final, seat).count('class="hx-sign"') > had
        if event.kind == "conquer":
            index = [f["id"] for f in first_view["map"]["fields"]].index(event.data["field"])
            owner = first_view["owners"][index]
            colour = next((h["colour"] for h in first_view["heirs"] if h["seat"] == owner), None)
            expected = COLOUR_HEX.get(colour or "", NO_COLOUR) if owner is not None else ""
            assert field_fill(first, event.data["field"]) == expected
            winner = next(
                h["colour"] for h in last_view["heirs"] if h["seat"] == event.data["seat"]
            )
            assert field_fill(final, event.data["field"]) == COLOUR_HEX[winner]
    if last_view["omen"] != first_view["omen"]:
        from app.games.heirs import omen_name

        assert omen_name(last_view["omen"]) not in first
    # The template never saw the later steps: their views are not even in the page's data.
    assert first.count('data-testid="heir-token"') == sum(
        1 for h in first_view["heirs"] if not h["fallen"]
    )


def test_the_final_scoring_skips_to_the_result_and_a_round_does_not_tell_it_ends() -> None:
    """Hidden Leaders' final scoring has nothing after it: the host skips to the result, and
    no fast-forward is offered. A Heirs round that ends the match early offers the usual
    buttons: other ones would tell the room the end before its step."""
    from app.pages import render_board_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    show = {"round": 14, "step": 0, "steps": 4, "step_ms": 1000}
    scoring = render_board_view(
        live, {**finished_payload(None), "show": show}, "en", host=True, join_url="x"
    )
    assert re.search(r'data-testid="skip-show">\s*Skip to the result', scoring)
    assert 'data-testid="fast-forward"' not in scoring and "Skip this round" not in scoring
    _before, steps, _battle_at = heirs_round_with_a_later_battle()
    heirs: Any = SimpleNamespace(game="heirs", code="ABCD")
    last = {**heirs_payload(steps, 0), "status": "finished"}
    html = render_board_view(heirs, last, "en", host=True, join_url="x")
    assert "Skip this round" in html and 'data-testid="fast-forward"' in html
    assert "Skip to the result" not in html


def test_the_board_lights_the_battle_when_its_step_comes() -> None:
    from app.pages import render_board_view

    _before, steps, battle_at = heirs_round_with_a_later_battle()
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    html = render_board_view(live, heirs_payload(steps, battle_at), "en", host=False, join_url="x")
    battle = next(e for e in steps[battle_at].events if e.kind == "battle")
    assert re.search(rf'class="hx-field[^"]* battle" data-field="{battle.data["field"]}"', html)
    assert re.search(r'<li class="k-battle current">Battle on', html)
    assert 'data-testid="skip-show"' not in html  # not the host
    assert f"step {battle_at + 1} of {len(steps)}" in html


def test_a_phone_watches_the_show_without_an_order_sheet() -> None:
    from app.pages import render_phone_view
    from engine.core import events_for
    from engine.heirs import RULES

    _before, steps, battle_at = heirs_round_with_a_later_battle()
    payload = heirs_payload(steps, battle_at)
    seat = next(e for e in steps[battle_at].events if e.kind == "battle").data["attacker"]
    payload.pop("playback")
    payload["view"] = RULES.view(steps[battle_at].state, seat)
    payload["events"] = [e for s in steps[: battle_at + 1] for e in events_for(s.events, seat)]
    payload["you"] = {"seat": seat, "name": HEIRS_NAMES[seat], "lang": "en", "player": seat}
    payload["prompt"] = None
    payload["my_commitment"] = None
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    html = render_phone_view(live, payload, "en")
    assert f"Watch the board — round {steps[0].round} plays out" in html
    # It promises nothing of what comes next: the round may be the game's last (the phones
    # said "Your next orders come…" over the last turn), and a phone must not tell before
    # the board whether it is.
    assert "next orders" not in html and "This phone goes on when the board has finished." in html
    assert 'data-testid="orders-form"' not in html and 'data-testid="sealed"' not in html
    assert "So far, for you" in html and "Your battle on" in html
    czech = render_phone_view(live, payload, "cs")
    assert f"Sleduj tabuli — vyhodnocuje se {steps[0].round}. kolo" in czech


def test_sealed_seats_show_their_commitment_and_revealed_orders_their_proof() -> None:
    import hashlib

    from app.pages import render_board_view
    from app.proofs import canonical_json
    from engine.heirs import RULES

    state = RULES.setup(3, 5, {"rounds": 8})
    for seat in range(3):
        state = RULES.submit(state, seat, RULES.bot_order(state, seat, "expander"))
    steps = RULES.resolve_steps(state)
    payload = heirs_payload(steps, None)
    payload["seats"] = payload["players"] = payload["seats"][:3]
    payload["commitments"] = {"1": "3fa9c1" + "0" * 58}
    order = {"expedition": {"kind": "move", "field": "3-4"}, "note": "Žluťoučký kůň"}
    salt = "ab" * 16
    good = hashlib.sha256((canonical_json(order) + salt).encode()).hexdigest()
    payload["reveals"] = {"0": {"order": order, "salt": salt, "commitment": good}}
    view = payload["view"]
    view["heirs"][1]["sealed"] = True
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    html = render_board_view(live, payload, "en", host=False, join_url="x")
    assert "sealed</span>" not in html or "3fa9c1" in html
    assert re.search(r"✔ sealed · <code[^>]*>3fa9c1</code>", heir_row(html, 1))
    assert f'data-commitment="{good}"' in html and f'data-salt="{salt}"' in html
    assert (
        canonical_json(order)
        == '{"expedition":{"field":"3-4","kind":"move"},"note":"Žluťoučký kůň"}'
    )


def test_a_played_orders_proof_stays_in_the_live_log_once_its_show_has_ended(
    client: TestClient,
) -> None:
    """A Hidden Leaders TAKE is public once played (its proof is revealed): once the board
    has shown it to the end, the resolution is the last round of the log, and its proof
    stands there on the board and on both phones, until the next order is played. It was
    on none of them: only the replay page showed the proofs."""
    import time

    code, host, tokens = started_room(client)
    board = client.get(f"/api/rooms/{code}").json()
    (seat,) = board["to_act"]
    prompt = my_view(client, code, tokens[seat])["prompt"]
    assert prompt["kind"] == "take"
    from tests.play import order_from_prompt

    sealed = client.post(
        f"/api/rooms/{code}/orders", json=order_from_prompt(prompt), headers=auth(tokens[seat])
    )
    assert sealed.is_success, sealed.text
    deadline = time.monotonic() + 10
    while (room := client.get(f"/api/rooms/{code}").json())["show"] or not room["reveals"]:
        assert time.monotonic() < deadline, "the TAKE was not played and shown"
        time.sleep(0.02)
    (commitment,) = [reveal["commitment"] for reveal in room["reveals"].values()]
    client.cookies.set(f"pecet_host_{code}", host)
    pages_of = {"board": client.get(f"/b/{code}").text}
    client.cookies.clear()
    for number, token in enumerate(tokens):
        client.cookies.set(f"pecet_seat_{code}", token)
        pages_of[f"phone {number}"] = client.get(f"/r/{code}").text
        client.cookies.clear()
    for page, html in pages_of.items():
        assert f'data-testid="proof" data-commitment="{commitment}"' in html, page


def test_a_legions_turns_proofs_each_name_the_decision_they_were() -> None:
    """A Legions turn proves 8 to 10 orders, several of each player: each proof names its
    decision (in the reader's language), so that a player finds the fingerprint their phone
    showed; where a player seals one order a round, the proof is the name alone."""
    legions = {"game": "legions", "seats": [{"seat": 0, "name": "Ana"}, {"seat": 1, "name": "Bo"}]}
    orders = [
        {"kind": "seal", "legion": "L12"},
        {"kind": "place", "location": "Y"},
        {"kind": "peek", "location": "R"},
        {"kind": "skip"},
    ]
    proofs: list[Mapping[str, Any]] = [
        {"seat": n % 2, "order": o, "salt": "ab", "commitment": "c" * 64}
        for n, o in enumerate(orders)
    ]
    with i18n.use_language("en"):
        labels = [row["label"] for row in pages.proof_rows(legions, proofs)]
    assert labels == [
        "the sealed legion",
        "placing a legion",
        "a look at the hero deck",
        "a step skipped",
    ]
    with i18n.use_language("cs"):
        czech = [row["label"] for row in pages.proof_rows(legions, proofs)]
    assert czech[0] == "zapečetěná legie" and all(czech)
    # Every order kind the Legions engine takes has its label.
    from engine.legions.rules import _PUBLIC_ORDER_KINDS, _SECRET_ORDER_KINDS

    with i18n.use_language("en"):
        kinds = sorted(_PUBLIC_ORDER_KINDS | _SECRET_ORDER_KINDS | {"power"})
        unlabelled = [
            kind
            for kind in kinds
            if not pages.proof_rows(legions, [{"seat": 0, "order": {"kind": kind}}])[0]["label"]
        ]
    assert unlabelled == []
    for game in ("heirs", "hidden_leaders"):
        with i18n.use_language("en"):
            (row,) = pages.proof_rows(
                {**legions, "game": game}, [{"seat": 0, "order": {"kind": "x"}}]
            )
        assert row["label"] == ""


def finished_heirs_room(client: TestClient) -> tuple[str, str, str]:
    """A 3-heir match (one person, two bots) played to its end through the API; returns the
    room code, the host token and the person's seat token."""
    import time

    created = client.post("/api/rooms", json={"game": "heirs", "options": {"rounds": 6}})
    code, host = created.json()["code"], created.json()["host_token"]
    token = join_api(client, code, "Anna")
    auth = {"Authorization": f"Bearer {host}"}
    for style in ("raider", "expander"):
        assert client.post(f"/api/rooms/{code}/bots", json={"style": style}, headers=auth)
    assert client.post(f"/api/rooms/{code}/start", headers=auth).status_code == 200
    early = client.get(f"/b/{code}/replay/1")
    assert early.status_code == 409 and "once it has ended" in early.text
    deadline = time.monotonic() + 60
    while client.get(f"/api/rooms/{code}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        prompt = my_view(client, code, token)["prompt"]
        if prompt is None:
            time.sleep(0.01)
            continue
        if prompt["kind"] == "setup":  # the bots choose first: a colour may go meanwhile
            bots_have_sealed(live_room(client, code))
            prompt = my_view(client, code, token)["prompt"]
        order = (
            {"colour": prompt["colours"][0], "character": prompt["characters"][0]}
            if prompt["kind"] == "setup"
            else prompt["default"]
        )
        client.post(
            f"/api/rooms/{code}/orders", json=order, headers={"Authorization": f"Bearer {token}"}
        )
    return code, host, token


def test_a_finished_match_replays_step_by_step_on_the_tv_and_a_phone(
    client: TestClient,
) -> None:
    code, _host, token = finished_heirs_room(client)
    replay = client.get(f"/api/rooms/{code}/matches/1/replay").json()
    steps = replay["steps"]
    board = client.get(f"/b/{code}/replay/1")
    assert board.status_code == 200
    assert 'data-testid="replay-step"' in board.text and 'data-testid="heirs-board"' in board.text
    # Where the replay stands, said once: the round and the step of that round.
    setup, _first, count = replay_position(steps, 0)
    assert setup == 0 and f'replay-where">Setup<small>step 1 of {count}</small>' in board.text
    assert "/static/vendor/js-sha256-1.0.0.min.js" in board.text
    # Play and a step forward are told apart at a glance (both read "▶").
    play = re.search(
        r'data-testid="replay-play"[^>]*><span class="when-paused">([^<]*)<', board.text
    )
    forward = re.search(r'data-testid="replay-forward"[^>]*>\s*([^<\s]+)\s*<', board.text)
    assert play is not None and forward is not None and play.group(1) != forward.group(1)
    # Each round is a button; round 2 starts at its first step.
    first_of_round_2 = next(i for i, s in enumerate(steps) if s["round"] == 2)
    assert f'hx-get="/b/{code}/replay/1/step/{first_of_round_2}"' in board.text
    fragment = client.get(f"/b/{code}/replay/1/step/{first_of_round_2}")
    assert fragment.status_code == 200
    assert fragment.text.lstrip().startswith('<div id="replay-step"')
    assert "Round 2 of 6" in fragment.text
    # The sealed orders of round 2, with the data the browser checks the proofs with.
    proofs = [p for s in steps if s["round"] == 2 for p in s["proofs"]]
    assert len(proofs) == 3
    for proof in proofs:
        assert f'data-commitment="{proof["commitment"]}"' in fragment.text
        assert f'data-salt="{proof["salt"]}"' in fragment.text
    # No step shows what comes after it: step 1 of round 2 has no line of a later step.
    later = [e for s in steps[first_of_round_2 + 1 :] for e in s["events"]]
    if any(e["kind"] == "battle" for e in later) and not any(
        e["kind"] == "battle" for s in steps[: first_of_round_2 + 1] for e in s["events"]
    ):
        assert "Battle on" not in fragment.text
    last = client.get(f"/b/{code}/replay/1/step/{len(steps) + 5}")  # clamped to the last
    number, k, m = replay_position(steps, len(steps) - 1)
    assert k == m and f'replay-where">Round {number}<small>step {k} of {m}</small>' in last.text
    assert 'data-testid="ending"' in last.text
    # The phone: its own secrets (the heir's numbers), only with its seat cookie.
    client.cookies.set(f"pecet_seat_{code}", token)
    phone = client.get(f"/r/{code}/replay/1?step={first_of_round_2}")
    assert phone.status_code == 200
    assert 'data-testid="my-heir"' in phone.text and 'data-testid="heirs-phone"' in phone.text
    assert f"/r/{code}/replay/1/step/" in phone.text
    client.cookies.clear()
    anonymous = client.get(f"/r/{code}/replay/1", follow_redirects=False)
    assert anonymous.status_code == 303
    assert anonymous.headers["location"] == f"/b/{code}/replay/1"
    assert client.get(f"/b/{code}/replay/9").status_code == 404
    czech = client.get(f"/b/{code}/replay/1", headers={"Accept-Language": "cs"})
    assert "Záznam partie" in czech.text


def test_the_board_end_screen_offers_the_replay(client: TestClient) -> None:
    code, _host, _token = finished_heirs_room(client)
    board = client.get(f"/b/{code}")
    assert 'data-testid="ending"' in board.text
    assert f'href="/b/{code}/replay/1"' in board.text
    assert 'data-testid="history"' in board.text and "Round 1" in board.text


@pytest.mark.parametrize("game", ["legions", "hidden_leaders"])
def test_every_step_of_a_card_game_replays_on_the_tv(client: TestClient, game: str) -> None:
    """Two bots play a whole match; the replay draws every step with the game's own board."""
    import time

    created = client.post("/api/rooms", json={"game": game})
    code, host = created.json()["code"], created.json()["host_token"]
    auth = {"Authorization": f"Bearer {host}"}
    for _ in range(2):
        assert client.post(f"/api/rooms/{code}/bots", json={}, headers=auth).status_code == 201
    assert client.post(f"/api/rooms/{code}/start", headers=auth).status_code == 200
    deadline = time.monotonic() + 60
    while client.get(f"/api/rooms/{code}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.02)
    steps = client.get(f"/api/rooms/{code}/matches/1/replay").json()["steps"]
    page = client.get(f"/b/{code}/replay/1")
    assert page.status_code == 200 and "Turn 1" in page.text
    # One language switch, the page's, which comes back to the replay (the board's own
    # went back to the live room), and the room named once, in the title.
    assert page.text.count('class="lang-links') == 1
    assert f"next=/b/{code}/replay/1" in page.text and f"next=/b/{code}&" not in page.text
    assert page.text.count(f"<b>{code}</b>") == 0
    for index in range(len(steps)):
        fragment = client.get(f"/b/{code}/replay/1/step/{index}")
        assert fragment.status_code == 200, index
        assert "render_failed" not in fragment.text
    # The first step is the game as set out: said so, not "nothing happens in this step".
    first = client.get(f"/b/{code}/replay/1/step/0").text
    assert "The game as it was set out, before the first order." in first
    assert "Nothing the room sees happens" not in first
    last = client.get(f"/b/{code}/replay/1/step/{len(steps) - 1}").text
    assert ('data-testid="final"' in last) or ('data-testid="banner"' in last)
    # The proofs of the last round come with what the browser needs to check them; the
    # server never marks them itself.
    checks = re.findall(r'data-testid="proof-check"[^>]*>([^<]*)<', last)
    assert checks and set(checks) == {"…"}


def test_the_host_skips_the_show_from_the_board(client: TestClient) -> None:
    code, _host = host_room(client)
    lobby = client.post(f"/b/{code}/show/skip", data={"all": "0"}, headers={"HX-Request": "true"})
    assert lobby.status_code == 409  # no game yet
    join_api(client, code, "Alice")
    join_api(client, code, "Bob")
    assert client.post(f"/b/{code}/start", headers={"HX-Request": "true"}).status_code == 204
    skipped = client.post(f"/b/{code}/show/skip", data={"all": "1"}, headers={"HX-Request": "true"})
    assert skipped.status_code == 204
    assert client.get(f"/api/rooms/{code}").json()["fast_forward"] is True
    client.cookies.clear()
    refused = client.post(f"/b/{code}/show/skip", data={"all": "0"}, headers={"HX-Request": "true"})
    assert refused.status_code == 401


# ------------------------------------------------------------------ seats that survive (issue 10)


HX = {"HX-Request": "true"}
"""What htmx sends with a form it posts."""


def joined_seat(client: TestClient, code: str, name: str) -> dict[str, Any]:
    response = client.post(f"/api/rooms/{code}/seats", json={"name": name})
    assert response.status_code == 201, response.text
    seat: dict[str, Any] = response.json()
    return seat


def test_the_come_back_form_gives_the_seat_to_this_phone(client: TestClient) -> None:
    code, host_token, tokens = started_room(client)
    bob_pin = client.get(
        f"/api/rooms/{code}", headers={"Authorization": f"Bearer {host_token}"}
    ).json()["pins"]["1"]
    client.cookies.clear()
    start = client.get("/")
    assert 'id="reclaim-form"' in start.text and "Come back to my seat" in start.text
    back = client.post(
        "/reclaim",
        data={"code": code.lower(), "name": " bob ", "pin": bob_pin},
        follow_redirects=False,
    )
    assert back.status_code == 303 and back.headers["location"] == f"/r/{code}"
    token = back.cookies[f"pecet_seat_{code}"]
    assert token and token != tokens[1]
    phone = client.get(f"/r/{code}")
    assert phone.status_code == 200
    assert f'data-seat-token="{token}"' in phone.text  # kept in local storage too
    new_pin = client.get(
        f"/api/rooms/{code}", headers={"Authorization": f"Bearer {host_token}"}
    ).json()["pins"]["1"]
    assert new_pin != bob_pin, "the PIN used is spent"
    assert f'data-testid="seat-pin">{new_pin}<' in phone.text
    old = client.get(f"/api/rooms/{code}/me", headers={"Authorization": f"Bearer {tokens[1]}"})
    assert old.status_code == 401


@pytest.mark.parametrize(
    ("lang", "wrong", "nobody", "locked"),
    [
        (
            "en",
            "That PIN does not match Bob's seat.",
            "Nobody called Zoe sits in this room.",
            "Too many wrong PINs for this seat. Try again in 10 minutes.",
        ),
        (
            "cs",
            "Tenhle PIN k místu hráče Bob nepatří.",
            "Nikdo jménem Zoe v této místnosti nesedí.",
            "Příliš mnoho špatných PINů pro toto místo. Zkus to znovu za 10 minut.",
        ),
    ],
)
def test_the_come_back_form_explains_each_refusal(
    client: TestClient, lang: str, wrong: str, nobody: str, locked: str
) -> None:
    code, _host = host_room(client)
    pin = joined_seat(client, code, "Bob")["pin"]
    client.cookies.set("pecet_lang", lang)
    bad = "0000" if pin != "0000" else "1111"
    refused = client.post("/reclaim", data={"code": code, "name": "bob", "pin": bad})
    assert refused.status_code == 403
    assert wrong in unescape(refused.text)
    assert 'data-testid="reclaim-error"' in refused.text
    assert f'value="{code}"' in refused.text and 'value="bob"' in refused.text
    assert re.search(r'id="come-back"[^>]* open', refused.text), "the form stays open"
    unknown = client.post("/reclaim", data={"code": code, "name": "Zoe", "pin": pin})
    assert unknown.status_code == 404 and nobody in unknown.text
    for _ in range(4):
        client.post("/reclaim", data={"code": code, "name": "Bob", "pin": bad})
    blocked = client.post("/reclaim", data={"code": code, "name": "Bob", "pin": pin})
    assert blocked.status_code == 429
    assert locked in blocked.text
    assert 0 < int(blocked.headers["Retry-After"]) <= 600
    no_room = client.post("/reclaim", data={"code": "QQQQ", "name": "Bob", "pin": pin})
    assert no_room.status_code == 404


def test_the_wait_after_wrong_pins_is_said_in_seconds_or_minutes() -> None:
    from app.errors import TooManyTries
    from app.pages import translate_reclaim_error

    def refusal(seconds: int) -> TooManyTries:
        return TooManyTries("locked", code="too_many_tries", retry_after=seconds)

    assert "Try again in 45 seconds." in translate_reclaim_error(refusal(45), "en", "Bob")
    assert "Try again in 1 minute." in translate_reclaim_error(refusal(60), "en", "Bob")
    assert "Try again in 3 minutes." in translate_reclaim_error(refusal(121), "en", "Bob")
    assert "za 3 minuty." in translate_reclaim_error(refusal(150), "cs", "Bob")
    assert "za 45 sekund." in translate_reclaim_error(refusal(45), "cs", "Bob")


def test_a_started_game_offers_the_come_back_form(client: TestClient) -> None:
    code, _host, _tokens = started_room(client)
    client.cookies.clear()
    refused = client.post("/join", data={"code": code, "name": "Bob"})
    assert refused.status_code == 409
    assert "This game has already started." in refused.text
    assert 'data-testid="come-back-hint"' in refused.text
    assert re.search(r'id="come-back"[^>]* open', refused.text)
    form = refused.text[refused.text.index('id="reclaim-form"') :]
    assert f'value="{code}"' in form and 'value="Bob"' in form and 'name="pin"' in form
    client.cookies.set("pecet_lang", "cs")
    czech = client.post("/join", data={"code": code, "name": "Bob"})
    assert "Tato hra už začala." in czech.text and "Vrátit se na své místo" in czech.text


def test_a_phone_signed_out_of_its_seat_is_told_how_to_come_back(client: TestClient) -> None:
    code, host_token, tokens = started_room(client)
    bob_pin = client.get(
        f"/api/rooms/{code}", headers={"Authorization": f"Bearer {host_token}"}
    ).json()["pins"]["1"]
    with client.websocket_connect(f"/ws/rooms/{code}?token={tokens[1]}&format=html") as ws:
        assert f'data-testid="seat-pin">{bob_pin}<' in ws.receive_text()
        taken = client.post(f"/api/rooms/{code}/reclaim", json={"name": "Bob", "pin": bob_pin})
        assert taken.status_code == 200
        told = receive_until(ws, lambda h: 'data-error-code="kicked"' in h)
    assert "played elsewhere now" in told
    assert f'href="/j/{code}?back=1"' in told and "Come back with your name and seat PIN" in told
    page = client.get(f"/j/{code}?back=1&name=Bob")
    assert 'data-testid="come-back-note"' in page.text
    assert re.search(r'id="come-back"[^>]* open', page.text)
    assert 'id="back-name" name="name" value="Bob"' in page.text
    assert "data-restore-code" not in page.text  # the dead token is not tried again
    client.cookies.set(f"pecet_seat_{code}", tokens[0])
    phone_page = client.get(f"/r/{code}")
    assert 'data-seat-name="Alice"' in phone_page.text  # the name the join page gets back


def test_the_phone_shows_its_pin_in_the_lobby_in_game_and_between_games(
    client: TestClient,
) -> None:
    from app.pages import render_phone_view

    code, _host = host_room(client)
    seat = joined_seat(client, code, "Alice")
    client.cookies.set(f"pecet_seat_{code}", seat["token"])
    lobby = client.get(f"/r/{code}")
    assert f'data-testid="seat-pin">{seat["pin"]}<' in lobby.text
    assert "Use it to come back from another phone" in lobby.text
    assert re.search(r'<details class="my-seat" data-testid="my-seat"', lobby.text), "a tap"
    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD", seats=[])
    payload = finished_payload(1)
    payload["you"]["pin"] = "0007"  # the seat's own payload carries its PIN, no other
    between = render_phone_view(live, payload, "cs")
    assert 'data-testid="seat-pin">0007<' in between


def test_a_phone_come_back_with_its_pin_is_told_the_seat_s_new_pin_once(
    client: TestClient,
) -> None:
    code, _host = host_room(client)
    pin = joined_seat(client, code, "Bob")["pin"]
    client.cookies.clear()
    client.cookies.set("pecet_lang", "cs")
    back = client.post("/reclaim", data={"code": code, "name": "bob", "pin": pin})
    assert back.status_code == 200 and back.url.path == f"/r/{code}"
    shown = re.search(r'data-testid="new-pin-digits">(\d{4})<', back.text)
    assert shown is not None and shown.group(1) != pin
    assert f'data-testid="seat-pin">{shown.group(1)}<' in back.text
    # The name stands in the nominative where Czech can keep it: in brackets, not addressed
    # ("Vítej zpátky, Kateřina" wants the vocative, which a name typed at the table may not
    # decline by rule).
    assert "Vítej zpátky! Tvoje místo (Bob) má nový PIN:" in unescape(back.text)
    assert re.search(r'data-testid="new-pin" data-hide-after="30"', back.text), "for 30 s only"
    again = client.get(f"/r/{code}")
    assert again.status_code == 200 and 'data-testid="seat-pin"' in again.text
    assert 'data-testid="new-pin"' not in again.text, "the greeting is said once"
    spent = client.post("/reclaim", data={"code": code, "name": "Bob", "pin": pin})
    assert spent.status_code == 403


def test_the_host_board_lists_the_pins_and_a_guest_board_does_not(client: TestClient) -> None:
    code, host_token = host_room(client)
    pins = [joined_seat(client, code, name)["pin"] for name in ("Alice", "Bob")]
    board = client.get(f"/b/{code}")
    assert 'data-testid="pins"' in board.text
    for seat, pin in enumerate(pins):
        assert f'data-testid="pin-{seat}">{pin}<' in board.text
    client.post(f"/b/{code}/start", headers=HX)
    in_game = client.get(f"/b/{code}")
    assert f'data-testid="pin-1">{pins[1]}<' in in_game.text  # in the host menu
    with client.websocket_connect(f"/ws/rooms/{code}/board?format=html&host={host_token}") as ws:
        assert f'data-testid="pin-0">{pins[0]}<' in ws.receive_text()
    client.cookies.clear()
    guest = client.get(f"/b/{code}")
    assert 'data-testid="pins"' not in guest.text and 'data-testid="pin-' not in guest.text
    with client.websocket_connect(f"/ws/rooms/{code}/board?format=html") as ws:
        assert 'data-testid="pins"' not in ws.receive_text()


def lobby_payload(**room: Any) -> dict[str, Any]:
    """A lobby of three as the board's payload; Bob's phone left 2½ minutes ago."""
    from datetime import UTC, datetime, timedelta

    left = (datetime.now(UTC) - timedelta(seconds=150)).isoformat()
    payload: dict[str, Any] = {
        "code": "ABCD",
        "game": "heirs",
        "status": "lobby",
        "seats": [
            {"seat": 0, "name": "Alice", "bot": False, "connected": True, "away_since": None},
            {"seat": 1, "name": "Bob", "bot": False, "connected": False, "away_since": left},
            {"seat": 2, "name": "Bot 1", "bot": True, "connected": True, "away_since": None},
        ],
        "min_players": 2,
        "max_players": 6,
        "match": None,
        "outcome": None,
        "ready": [],
        "options": {},
        "view": None,
        "tournament": None,
    }
    payload.update(room)
    return payload


def test_the_board_shows_each_seat_connected_or_away() -> None:
    from app.pages import render_board_view

    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    html = render_board_view(live, lobby_payload(), "en", host=False, join_url="x")
    away = re.search(r'<span class="presence away[^"]*"[^>]*data-seat="1"[^>]*>', html)
    assert away is not None
    seconds = int(re.search(r'data-away-for="(\d+)"', away.group(0)).group(1))  # type: ignore[union-attr]
    assert 149 <= seconds <= 160
    assert "away 2 min" in html
    assert 'data-presence="on" data-seat="0"' in html
    assert re.findall(r'data-testid="presence"[^>]*data-seat="(\d)"', html) == ["0", "1"]
    assert 'id="away-words"' in html and 'data-min="away %(n)s min"' in html
    czech = render_board_view(live, lobby_payload(), "cs", host=False, join_url="x")
    assert "pryč 2 min" in czech


def night_payload(**tournament: Any) -> dict[str, Any]:
    """Three players after the first pairing of a round robin: Cid won, Ben lost with more
    army strength than Ann, who watched and predicted Cid."""
    from datetime import UTC, datetime, timedelta

    later = (datetime.now(UTC) + timedelta(seconds=15)).isoformat()
    plan: dict[str, Any] = {
        "games": ["hidden_leaders", "heirs"],
        "rounds": 1,
        "final_double": False,
        "catch_up": False,
        "played": 1,
        "total": 4,
        "stages": [
            {"game": "hidden_leaders", "matches": 3, "round_robin": True},
            {"game": "heirs", "matches": 1, "round_robin": False},
        ],
        "standings": [
            {"seat": 2, "points": 1, "per_game": [1], "place": 1, "tiebreak": None},
            {"seat": 1, "points": 0, "per_game": [0], "place": 2, "tiebreak": "army_strength"},
            {
                "seat": 0,
                "points": 0,
                "per_game": [None],
                "place": 3,
                "tiebreak": None,
                "behind": "army_strength",
            },
        ],
        "oracle": [{"seat": 0, "points": 1}],
        "next": {"game": "hidden_leaders", "number": 2, "stage": 0, "players": [2, 0]},
        "over": False,
        "games_played": ["hidden_leaders"],
        "standings_mode": "auto",
        "standings_at": later,
    }
    plan.update(tournament)
    return lobby_payload(
        game="hidden_leaders",
        status="finished",
        max_players=6,
        seats=[
            {"seat": 0, "name": "Ann", "bot": False, "connected": True, "away_since": None},
            {"seat": 1, "name": "Ben", "bot": False, "connected": True, "away_since": None},
            {"seat": 2, "name": "Cid", "bot": False, "connected": True, "away_since": None},
        ],
        tournament=plan,
        predictions=[
            {
                "seat": 0,
                "winner": 2,
                "ending": None,
                "right_winner": True,
                "right_ending": False,
                "points": 1,
            }
        ],
    )


@pytest.mark.parametrize(
    ("key", "english", "czech"),
    [
        ("games_won", "ahead on won games", "výš díky vyhraným hrám"),
        ("council", "ahead on Council points", "výš díky bodům Rady"),
        ("army_strength", "ahead on army strength", "výš díky síle armády"),
        ("victory_points", "ahead on victory points", "výš díky vítězným bodům"),
        (
            "head_to_head",
            "ahead on their games against each other",
            "výš díky vzájemným zápasům",
        ),
        ("shared", "shared place", "dělené místo"),
    ],
)
def test_the_standings_name_the_tie_break_beside_the_row(
    key: str, english: str, czech: str
) -> None:
    from app.pages import render_board_view

    payload = night_payload(standings_mode="shown")
    payload["tournament"]["standings"][1]["tiebreak"] = key
    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    html = render_board_view(live, payload, "en", host=False, join_url="x")
    found = re.search(r'<tr[^>]*data-seat="1">(.*?)</tr>', html, re.S)
    assert found is not None
    row = found.group(1)
    assert f'data-tiebreak="{key}">{english}<' in row
    assert czech in render_board_view(live, payload, "cs", host=False, join_url="x")


def test_the_result_stays_then_the_standings_with_predictions_and_oracle_points() -> None:
    from app.pages import render_board_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    waiting = render_board_view(live, night_payload(), "en", host=True, join_url="x")
    overlay = re.search(r'<section class="standings-overlay[^>]*>', waiting)
    assert overlay is not None and " hidden" in overlay.group(0)
    left = float(re.search(r'data-standings-in="([\d.]+)"', overlay.group(0)).group(1))  # type: ignore[union-attr]
    assert 10 < left <= 15, "the board's timer shows them when the 20 s are up"
    # "Show standings" is the result's own button, beside "Watch again" (its browser test in
    # test_board_fit_browser); the table's own "Back to the result" is here.
    assert 'action="/b/ABCD/standings"' in waiting and "Back to the result" in waiting
    assert "Standings after game 1 of 4" in waiting and "game 0" not in waiting.lower()

    shown = render_board_view(
        live, night_payload(standings_mode="shown"), "en", host=False, join_url="x"
    )
    overlay = re.search(r'<section class="standings-overlay[^>]*>', shown)
    assert overlay is not None and "hidden" not in overlay.group(0)
    assert "Show standings" not in shown and "Back to the result" not in shown  # not the host
    oracle = shown[shown.index('data-testid="oracle"') :]
    assert "Predictions" in oracle and "<b>Ann</b> → Cid" in oracle and "+1" in oracle
    table = oracle[oracle.index('data-testid="oracle-table"') :].split("</table>")[0]
    assert "Ann" in table and '<td class="n">1</td>' in table
    dismissed = render_board_view(
        live, night_payload(standings_mode="hidden"), "en", host=True, join_url="x"
    )
    assert re.search(r'<section class="standings-overlay[^>]*hidden', dismissed)
    assert "data-standings-in" not in dismissed, "dismissed: no timer brings them back"


def test_the_host_finds_the_seat_pins_between_the_games_of_a_night() -> None:
    """A player whose phone died in game 1 is helped back before game 2: the standings the
    host's board shows between games hold the seat PINs (behind a tap, as everywhere)."""
    from app.pages import render_board_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    payload = night_payload(standings_mode="shown")
    payload["pins"] = {"0": "1234", "1": "5678", "2": "9012"}
    host = render_board_view(live, payload, "en", host=True, join_url="x")
    standings = host[host.index('data-testid="standings"') :].split("</section>")[0]
    assert 'data-testid="pins"' in standings
    assert 'data-testid="pin-1">5678<' in standings
    guest = render_board_view(live, payload, "en", host=False, join_url="x")
    assert 'data-testid="pin-' not in guest


def test_the_host_shows_and_dismisses_the_standings(client: TestClient) -> None:
    code, _host = host_room(client)
    for value, mode in (("1", "shown"), ("0", "hidden")):
        response = client.post(f"/b/{code}/standings", data={"shown": value}, headers=HX)
        assert response.status_code == 204
        live = live_room(client, code)
        assert live.standings_mode == mode
        # Stored, not only in memory: a copy that forgot it (after a restart, or another
        # process's) loads the host's choice.
        live.standings_mode = "auto"
        client.app.state.rooms.reload(live)  # type: ignore[attr-defined]
        assert live.standings_mode == mode
    client.cookies.clear()
    refused = client.post(f"/b/{code}/standings", data={"shown": "1"}, headers=HX)
    assert refused.status_code == 401


def test_the_lobby_form_sets_rounds_of_a_list_and_shows_the_plan(client: TestClient) -> None:
    code, _host = host_room(client)
    response = client.post(
        f"/b/{code}/tournament",
        data={"games": ["hidden_leaders", "heirs", ""], "rounds": "2", "final_double": "1"},
        headers=HX,
    )
    assert response.status_code == 204
    for name in ("Ann", "Ben", "Cid"):
        joined_seat(client, code, name)
    plan = client.get(f"/api/rooms/{code}").json()["tournament"]
    assert plan["games"] == ["hidden_leaders", "heirs"] and plan["rounds"] == 2
    assert plan["final_double"] is True
    board = client.get(f"/b/{code}").text
    expected = (
        "3 players · 2 rounds of: Hidden Leaders Duel round robin (3 games) → Heirs of the Axis"
        " · 8 games · Final ×2"
    )
    assert expected in board
    assert "First game: Hidden Leaders Duel" in board
    assert 'name="rounds"' in board and "Times the list is played" in board
    assert "Game 0" not in board and "game 0" not in board
    client.cookies.set(f"pecet_seat_{code}", join_api(client, code, "Dan"))
    phone = client.get(f"/r/{code}")
    assert "4 players · 2 rounds of" in phone.text and "game 0 of" not in phone.text
    assert "First game: Hidden Leaders Duel" in phone.text
    client.cookies.set("pecet_lang", "cs")
    czech = client.get(f"/b/{code}").text
    assert "4 hráči · 2 kola seznamu:" in czech


def test_a_night_of_one_round_robin_counts_its_games_once(client: TestClient) -> None:
    """A night of one duel game with three players read "3 players · Hidden Leaders Duel
    round robin (3 games) · 3 games": the count once is enough. A night of one Heirs game
    still says how many games it has."""
    code = night_lobby(client, {"games": ["hidden_leaders"]})
    board = client.get(f"/b/{code}").text
    assert "3 players · Hidden Leaders Duel round robin (3 games)<" in board
    assert "(3 games) · 3 games" not in board
    heirs = night_lobby(client, {"games": ["heirs"], "rounds": "2"})
    assert "· 2 games" in client.get(f"/b/{heirs}").text


def night_lobby(client: TestClient, form: dict[str, Any]) -> str:
    """A lobby its host set for a night by the tournament form's ``form``, with Ann, Ben and
    Cid seated: its code."""
    code, _host = host_room(client)
    assert client.post(f"/b/{code}/tournament", data=form, headers=HX).status_code == 204
    for name in ("Ann", "Ben", "Cid"):
        joined_seat(client, code, name)
    return code


def test_a_nights_plan_counts_its_games_once_players_have_joined(client: TestClient) -> None:
    """Set up before anyone joined, a night read "0 players · Hidden Leaders Duel → Legions ·
    2 games" and jumped to 6 games with three players: a round robin's pairings come with
    the players. Until two have joined the plan names the games and says so."""
    code, _host = host_room(client)
    response = client.post(
        f"/b/{code}/tournament", data={"games": ["hidden_leaders", "legions"]}, headers=HX
    )
    assert response.status_code == 204
    board = client.get(f"/b/{code}").text
    plan = board.split('data-testid="plan"', 1)[1].split("</p>", 1)[0]
    assert "the number of games follows the players who join" in plan
    assert re.search(r"\d+ (players?|games?)", plan) is None, plan
    assert re.search(r"Tournament · \d+ games?", board) is None
    for name in ("Ann", "Ben", "Cid"):
        joined_seat(client, code, name)
    board = client.get(f"/b/{code}").text
    plan = board.split('data-testid="plan"', 1)[1].split("</p>", 1)[0]
    assert "3 players" in plan and "6 games" in plan, plan
    # Who plays the first duel, and so who watches it, is known before the start: the lobby
    # says so (Ann, seated first, found herself watching without a word), and the start
    # seats exactly them.
    first = re.search(r'data-testid="plan-first">([^<]*)<', board)
    assert first is not None
    assert first.group(1) == "First game: Hidden Leaders Duel · Cid – Ben", first.group(1)
    assert client.post(f"/b/{code}/start", headers=HX).status_code == 204
    room = client.get(f"/api/rooms/{code}").json()
    assert [p["name"] for p in room["players"]] == ["Cid", "Ben"]


def test_a_lobby_set_for_a_night_of_other_games_is_headed_by_the_night(
    client: TestClient,
) -> None:
    """A Hidden Leaders room set up for a night of Legions only was headed "Hidden Leaders
    Duel" above "First game: Legions". A night's lobby is headed by the night."""
    code = night_lobby(client, {"games": ["legions"]})
    board = client.get(f"/b/{code}").text
    title = re.search(r'<h1 class="game-title">([^<]*)</h1>', board)
    assert title is not None and title.group(1) == "Tournament"
    assert "First game: Legions" in board
    assert "Hidden Leaders" not in board.split('data-testid="plan"', 1)[0].split("<body", 1)[-1]
    client.cookies.set(f"pecet_seat_{code}", join_api(client, code, "Dan"))
    phone = client.get(f"/r/{code}").text
    assert "Hidden Leaders" not in phone and "First game: Legions" in phone
    client.cookies.delete(f"pecet_seat_{code}")
    # Back to one game: the lobby is headed by it again.
    single = client.post(f"/b/{code}/tournament", data={"mode": "single"}, headers=HX)
    assert single.status_code == 204
    title = re.search(r'<h1 class="game-title">([^<]*)</h1>', client.get(f"/b/{code}").text)
    assert title is not None and title.group(1) == "Hidden Leaders Duel"


def watcher_payload(**extra: Any) -> dict[str, Any]:
    """Ann watches a match of Ben and Cid and may predict it as if it were Heirs (who wins,
    and by which ending)."""
    payload = night_payload()
    payload.update(
        status="playing",
        match=2,
        outcome=None,
        players=[
            {"seat": 1, "name": "Ben", "bot": False},
            {"seat": 2, "name": "Cid", "bot": False},
        ],
        predictions=[],
        view={"turn": 1},
        you={"seat": 0, "name": "Ann", "lang": "en", "player": None},
        prompt=None,
        prediction={
            "match": 2,
            "game": "heirs",
            "players": [1, 2],
            "endings": ["throne", "last_survivor", "council"],
            "winner": None,
            "ending": None,
        },
    )
    payload.update(extra)
    return payload


def test_a_watcher_predicts_the_winner_and_the_ending_on_the_phone() -> None:
    from app.pages import render_phone_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD", seats=[])
    html = render_phone_view(live, watcher_payload(), "en")
    card = html[html.index('data-testid="predict"') :].split("</section>")[0]
    assert 'hx-post="/r/ABCD/predict"' in card
    assert re.findall(r'name="winner" value="(\d)"', card) == ["1", "2"]
    assert ">Ben<" in card and ">Cid<" in card
    assert ">Throne<" in card and ">Last survivor<" in card and ">Council<" in card
    assert "Pick the winner and how it ends" in card
    offer = dict(watcher_payload()["prediction"], winner=2, ending="council")
    picked = render_phone_view(live, watcher_payload(prediction=offer), "en")
    assert re.search(r'value="2" checked', picked) and re.search(r'value="council" checked', picked)
    assert "Your prediction: Cid · Council." in picked
    czech = render_phone_view(live, watcher_payload(prediction=offer), "cs")
    assert "Kdo vyhraje?" in czech and "Rada" in czech


def test_after_the_match_the_watcher_sees_whether_it_was_right() -> None:
    from app.pages import render_phone_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD", seats=[])
    payload = night_payload()
    payload.update(
        players=[
            {"seat": 2, "name": "Cid", "bot": False},
            {"seat": 1, "name": "Ben", "bot": False},
        ],
        match=1,
        outcome={"result": "WIN", "winner": 0},
        view={"over": True},
        you={"seat": 0, "name": "Ann", "lang": "en", "player": None},
        prompt=None,
        prediction=None,
    )
    html = render_phone_view(live, payload, "en")
    result = html[html.index('data-testid="prediction-result"') :].split("</section>")[0]
    assert "Right! +1 oracle point" in result and "You predicted Cid." in result
    assert "predict-marks" not in result, "one part predicted: no part-by-part marks"
    both = dict(payload, predictions=[dict(payload["predictions"][0], ending="throne")])
    marked = render_phone_view(live, both, "en")
    marks = marked[marked.index('class="predict-marks"') :].split("</p>")[0]
    assert "✔ winner" in marks and "✘ ending" in marks
    assert "Cid wins" in html  # the watcher's own line about the match
    # Watchers are seated too: they say they are ready for the next game.
    assert 'data-testid="ready"' in html and "Next game" in html and "Play again" not in html
    assert "Oracle: 1 point" in html
    ready = render_phone_view(live, dict(payload, ready=[0, 2]), "en")
    assert "Ready! Waiting for Ben…" in ready


def test_the_ready_button_says_next_game_only_in_a_tournament() -> None:
    from app.pages import render_phone_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD", seats=[])
    single = render_phone_view(live, finished_payload(0), "en")
    assert re.search(r'data-testid="ready">Play again<', single)
    night = dict(finished_payload(0), tournament=night_payload()["tournament"])
    assert re.search(r'data-testid="ready">Next game<', render_phone_view(live, night, "en"))
    assert re.search(r'data-testid="ready">Další hra<', render_phone_view(live, night, "cs"))
    over = dict(night, tournament=dict(night["tournament"], over=True, next=None))
    assert 'data-testid="ready"' not in render_phone_view(live, over, "en")


def test_a_phone_level_on_points_reads_why_it_stands_ahead_or_behind() -> None:
    """Level on points after the night's first game, Ben stands ahead of Ann on army
    strength: Ben's phone says so, and Ann's says why she is behind (it said nothing), each
    naming the other."""
    from app.pages import render_phone_view

    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD", seats=[])
    night_room = night_payload()
    tournament = night_room["tournament"]

    def reasons(seat: int, lang: str, standings: Any = tournament["standings"]) -> list[str]:
        night = dict(tournament, standings=standings)
        payload = dict(finished_payload(seat), tournament=night, seats=night_room["seats"])
        page = render_phone_view(live, payload, lang)
        return [unescape(text) for text in re.findall(r'data-testid="my-tiebreak">([^<]*)<', page)]

    assert reasons(1, "en") == ["Level on points with Ann: ahead on army strength"]
    assert reasons(0, "en") == ["Level on points with Ben: behind on army strength"]
    assert reasons(0, "cs") == ["Stejně bodů jako Ben: níž kvůli síle armády"]
    assert reasons(0, "ru") == ["Поровну очков с игроком Ben: ниже по силе армии"]
    assert reasons(0, "hr") == ["Isti broj bodova kao Ben: iza po snazi vojske"]
    # Three level: the one between is behind the first and ahead of the last, each named.
    three = [
        dict(tournament["standings"][0], tiebreak="army_strength", points=0),
        dict(tournament["standings"][1], behind="army_strength"),
        tournament["standings"][2],
    ]
    assert reasons(1, "en", three) == [
        "Level on points with Cid: behind on army strength",
        "Level on points with Ann: ahead on army strength",
    ]
    shared = [dict(row, tiebreak="shared", behind=None) for row in tournament["standings"]]
    shared = [dict(row, place=1) for row in shared]
    assert reasons(0, "en", shared) == ["shared place"]
    # Cid and Ben share first place, and Ben is ahead of Ann: the tie-break of Ben's row is
    # the one with Ann, and Ben's phone still says the place is shared.
    first_shared = [
        dict(tournament["standings"][0], tiebreak="shared", points=0),
        dict(tournament["standings"][1], place=1, tiebreak="army_strength"),
        tournament["standings"][2],
    ]
    assert reasons(1, "en", first_shared) == [
        "shared place",
        "Level on points with Ann: ahead on army strength",
    ]
    # The night over, a Czech phone reads its final place and the table's caption apart
    # (both read "Konečné pořadí").
    over = dict(tournament, over=True, next=None)
    payload = dict(finished_payload(0), tournament=over, seats=night_room["seats"])
    czech = unescape(render_phone_view(live, payload, "cs"))
    assert "Konečné umístění: 3. z 3" in czech and czech.count("Konečné pořadí") == 1


def test_a_watcher_posts_its_prediction_from_the_phone(client: TestClient) -> None:
    created = client.post(
        "/api/rooms", json={"game": "hidden_leaders", "tournament": {"count": 1}}
    ).json()
    code, host = created["code"], created["host_token"]
    seats = [joined_seat(client, code, name) for name in ("Ann", "Ben", "Cid")]
    auth = {"Authorization": f"Bearer {host}"}
    assert client.post(f"/api/rooms/{code}/start", headers=auth).status_code == 200
    board = client.get(f"/api/rooms/{code}").json()
    playing = {p["seat"] for p in board["players"]}
    (watcher,) = [s for s in seats if s["seat"] not in playing]
    player = next(s for s in seats if s["seat"] in playing)
    client.cookies.set(f"pecet_seat_{code}", watcher["token"])
    winner = str(board["players"][0]["seat"])
    half = client.post(f"/r/{code}/predict", data={"ending": ""}, headers=HX)
    assert half.status_code == 204
    made = client.post(f"/r/{code}/predict", data={"winner": winner}, headers=HX)
    assert made.status_code == 204
    me = client.get(
        f"/api/rooms/{code}/me", headers={"Authorization": f"Bearer {watcher['token']}"}
    ).json()
    assert me["prediction"]["winner"] == int(winner)
    assert "Your prediction:" in client.get(f"/r/{code}").text
    client.cookies.set(f"pecet_seat_{code}", player["token"])
    refused = client.post(f"/r/{code}/predict", data={"winner": winner}, headers=HX)
    assert refused.status_code == 409 and "first move" in refused.text


def test_a_watcher_who_had_not_predicted_is_told_predictions_closed_with_the_first_move(
    client: TestClient,
) -> None:
    """A walk's watcher had its offer vanish without a word when the first move was played:
    its phone said only "You are watching". It now says the predictions closed; a watcher who
    predicted keeps its sealed card."""
    created = client.post(
        "/api/rooms", json={"game": "hidden_leaders", "tournament": {"count": 1}}
    ).json()
    code, host = created["code"], created["host_token"]
    seats = [joined_seat(client, code, name) for name in ("Ann", "Ben", "Cid", "Dan")]
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    board = client.get(f"/api/rooms/{code}").json()
    playing = [p["seat"] for p in board["players"]]
    silent, predicting = [s for s in seats if s["seat"] not in playing]
    client.cookies.set(f"pecet_seat_{code}", predicting["token"])
    made = client.post(f"/r/{code}/predict", data={"winner": str(playing[0])}, headers=HX)
    assert made.status_code == 204
    client.cookies.set(f"pecet_seat_{code}", silent["token"])
    before = client.get(f"/r/{code}").text
    assert 'data-testid="predict"' in before and "prediction-closed" not in before

    first = board["to_act"][0]
    token = next(s["token"] for s in seats if s["seat"] == first)
    while client.get(f"/api/rooms/{code}").json()["to_act"] == [first]:
        me = client.get(f"/api/rooms/{code}/me", headers=auth(token)).json()
        order = order_from_prompt(me["prompt"])
        sealed = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
        assert sealed.status_code == 202, sealed.text

    after = client.get(f"/r/{code}").text
    assert 'data-testid="predict"' not in after
    assert "Predictions for this match closed with its first move." in after
    client.cookies.set(f"pecet_seat_{code}", predicting["token"])
    sealed_card = client.get(f"/r/{code}").text
    assert 'data-testid="prediction-sealed"' in sealed_card
    assert "prediction-closed" not in sealed_card
    client.cookies.set(f"pecet_seat_{code}", token)
    assert "prediction-closed" not in client.get(f"/r/{code}").text, "a player is no watcher"


def test_after_a_game_the_phone_offers_the_next_one_right_under_its_result(
    client: TestClient,
) -> None:
    """'Play again' comes right after the result card, once: not below the game's whole table
    and log, a long scroll down a phone."""
    code, _host, tokens = start_duel(client)
    assert play_to_end(client, code, tokens)["status"] == "finished"
    client.cookies.set(f"pecet_seat_{code}", tokens[0])
    html = client.get(f"/r/{code}").text
    assert html.count('data-testid="ready-card"') == 1
    result, ready = html.index('id="phone-result"'), html.index('data-testid="ready-card"')
    between = html[result : html.rindex("<section", 0, ready)]
    assert "<section" not in between, "no other section between the result and the card"
    assert ready < html.index("ph-history"), "before the whole game's log"


def test_a_hidden_leaders_phone_names_its_own_last_move_and_keeps_the_others_on_its_turn(
    client: TestClient,
) -> None:
    """The summary of the last move said "Last: Ema" on Ema's own phone (its log says "you"),
    and vanished from the other phone just when its turn began, the moment it has to answer
    that move."""
    code, _host, tokens = start_duel(client)
    first = client.get(f"/api/rooms/{code}").json()["to_act"][0]
    name = ("Ema", "Petr")[first]
    while client.get(f"/api/rooms/{code}").json()["to_act"] == [first]:
        me = client.get(f"/api/rooms/{code}/me", headers=auth(tokens[first])).json()
        order = order_from_prompt(me["prompt"])
        sealed = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(tokens[first]))
        assert sealed.status_code == 202, sealed.text
    client.cookies.set(f"pecet_seat_{code}", tokens[first])
    own = client.get(f"/r/{code}").text
    assert f"Last: {name} (you)" in own
    client.cookies.set(f"pecet_seat_{code}", tokens[1 - first])
    answering = client.get(f"/r/{code}").text
    assert 'id="take-form"' in answering, "the other player's turn has begun"
    card = answering[answering.index('data-testid="last-action"') :]
    assert f"Last: {name}</span>" in card[: card.index("</section>")]
    assert f"Last: {name} (you)" not in answering
    assert f"Last: {name}</span>" in client.get(f"/b/{code}").text


def test_a_full_duel_lobby_names_whom_it_turned_away_and_how_to_seat_them(
    client: TestClient,
) -> None:
    """A duel's third player heard only "This room is full." while the host, unaware, could
    still make the room a night (its round robin seats more); making it one, nobody told the
    turned-away player to try again."""
    room = client.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    code, host = room["code"], room["host_token"]
    for name in ("Ana", "Sergej"):
        client.post(f"/api/rooms/{code}/seats", json={"name": name})
    refused = client.post("/join", data={"code": code, "name": "Bohumil"})
    assert refused.status_code == 409
    assert "This room is full." in refused.text
    assert "as a night of several games the room seats more" in refused.text
    client.cookies.set(f"pecet_host_{code}", host)
    board = client.get(f"/b/{code}").text
    assert 'data-testid="turned-away"' in board
    assert "Turned away, the room being full: Bohumil." in board
    assert "“Make it a tournament” below" in board
    made = client.post(
        f"/api/rooms/{code}/tournament", json={"tournament": {"count": 1}}, headers=auth(host)
    )
    assert made.status_code == 200, made.text
    board = client.get(f"/b/{code}").text
    assert "Turned away, the room being full: Bohumil." in board
    assert "“Make it a tournament” below" not in board, "it is one now"
    joined = client.post(f"/api/rooms/{code}/seats", json={"name": "Bohumil"})
    assert joined.status_code == 201, joined.text
    started = client.post(f"/api/rooms/{code}/start", headers=auth(host))
    assert started.status_code == 200, started.text
    assert 'data-testid="turned-away"' not in client.get(f"/b/{code}").text
    client.cookies.clear()


def test_the_tournament_form_says_where_predictions_come_from(client: TestClient) -> None:
    """Predictions have no switch, and a host looked for one on an all-Heirs night: the form
    says they come with a duel game's round robin, naming the duel games in its language."""
    room = client.post("/api/rooms", json={"game": "heirs"}).json()
    client.cookies.set(f"pecet_host_{room['code']}", room["host_token"])
    form = client.get(f"/b/{room['code']}").text
    note = form[form.index('data-testid="predictions-note"') :]
    note = note[: note.index("</p>")]
    assert "predict its winner" in note
    assert "(Hidden Leaders Duel, Legions)" in note
    client.cookies.set("pecet_lang", "cs")
    assert "(Skrytí vůdci: Duel, Legie)" in client.get(f"/b/{room['code']}").text
    client.cookies.clear()


def test_a_phone_whose_seat_went_to_a_bot_watches_and_is_told_how_to_come_back(
    client: TestClient,
) -> None:
    """Opened again after the host handed its seat to a bot, a phone watches the game (it
    landed on the join page and saw no more of it), says a bot plays its seat and links the
    join page with "Come back to my seat" open, the name filled in, and the reason; a phone
    that lost its cookie is restored to watching by its saved token. In the lobby a removed
    seat just joins again."""
    code, host, tokens = start_duel(client)
    handed = client.delete(
        f"/api/rooms/{code}/seats/0", headers={"Authorization": f"Bearer {host}"}
    )
    assert handed.status_code == 200, handed.text
    client.cookies.set(f"pecet_seat_{code}", tokens[0])
    watching = client.get(f"/r/{code}", follow_redirects=False)
    assert watching.status_code == 200 and "A bot plays your seat now" in watching.text
    assert f'href="/j/{code}?back=1&amp;name=Ema" data-testid="come-back-link"' in watching.text
    page = client.get(f"/j/{code}?back=1&name=Ema").text
    assert 'data-testid="come-back-note"' in page and "<details" in page
    assert 'id="back-name" name="name" value="Ema"' in page
    client.cookies.clear()
    restored = client.post(f"/r/{code}/restore", data={"token": tokens[0]}, follow_redirects=False)
    assert restored.status_code == 303 and restored.headers["location"] == f"/r/{code}"

    lobby = client.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    seat = client.post(f"/api/rooms/{lobby['code']}/seats", json={"name": "Ema"}).json()
    removed = client.delete(
        f"/api/rooms/{lobby['code']}/seats/0",
        headers={"Authorization": f"Bearer {lobby['host_token']}"},
    )
    assert removed.status_code == 200, removed.text
    client.cookies.set(f"pecet_seat_{lobby['code']}", seat["token"])
    plain = client.get(f"/r/{lobby['code']}", follow_redirects=False)
    assert plain.headers["location"] == f"/j/{lobby['code']}"


def test_a_field_in_a_sealed_order_stays_on_one_line() -> None:
    """A narrow column broke "R3-0" after its hyphen on a Russian phone; the words around it
    still wrap, and the text is escaped."""
    kept = str(pages.keep_whole("Перейти на поле R3-0 · <b>заселение</b>"))
    assert kept == (
        'Перейти на поле <span class="nowrap">R3-0</span> · &lt;b&gt;заселение&lt;/b&gt;'
    )


def test_the_heirs_results_offer_the_host_the_next_game(client: TestClient) -> None:
    """Like the other games' ends, the Heirs Council table shows who is ready for the next
    game and gives the host "Next game now"; a guest board shows who is ready only."""
    created = client.post("/host", data={"game": "heirs"}, follow_redirects=False)
    code = created.headers["location"].rsplit("/", 1)[-1]
    host = {"Authorization": f"Bearer {created.cookies[f'pecet_host_{code}']}"}
    assert client.post(f"/api/rooms/{code}/options", json={"rounds": 6}, headers=host).is_success
    for _ in range(3):
        assert client.post(f"/api/rooms/{code}/bots", headers=host).status_code == 201
    assert client.post(f"/b/{code}/start", headers=HX).is_success
    live = live_room(client, code)
    wait_for(
        lambda: current_match(live).status == "finished" and not current_match(live).showing,
        "the bots to finish the game and the board its show",
    )
    board = client.get(f"/b/{code}").text
    assert 'data-testid="ending"' in board
    ending = board[board.index('data-testid="ending"') :]
    assert 'data-testid="ready-line"' in ending and "✓ ready" in ending  # bots are ready
    assert 'data-testid="next-game-now"' in ending
    client.cookies.clear()
    guest = client.get(f"/b/{code}").text
    assert 'data-testid="ready-line"' in guest and 'data-testid="next-game-now"' not in guest
    client.cookies.set(f"pecet_host_{code}", created.cookies[f"pecet_host_{code}"])
    assert client.post(f"/b/{code}/again", headers=HX).is_success
    wait_for(lambda: current_match(live).number == 2, "the next game")


def test_a_refused_join_or_come_back_switches_language_to_a_page_that_exists(
    client: TestClient,
) -> None:
    """A refused join (a started game) and a refused come-back (a wrong PIN) answer the
    form's POST: their language links led to GET /join and GET /reclaim, a bare 405. They
    lead back to the room's join link, the come-back form open, the name kept."""
    code, host_token = host_room(client)
    for name in ("Alice", "Bob"):
        joined_seat(client, code, name)
    client.post(f"/api/rooms/{code}/start", headers={"Authorization": f"Bearer {host_token}"})
    client.cookies.clear()
    refused = [
        client.post("/join", data={"code": code.lower(), "name": "Bob"}),
        client.post("/reclaim", data={"code": code, "name": "Bob", "pin": "0000"}),
    ]
    for page in refused:
        assert page.status_code >= 400, page.text
        links = re.findall(r'href="(/lang/cs\?next=[^"]+)"', page.text)
        assert links, "the page offers Czech"
        switched = client.get(unescape(links[0]))
        assert switched.status_code == 200, (links[0], switched.text[:200])
        assert '<html lang="cs">' in switched.text
        assert re.search(r'data-testid="come-back" open', switched.text), "come back, open"
        assert 'value="Bob"' in switched.text and f'value="{code}"' in switched.text
        client.cookies.clear()


@pytest.mark.parametrize(
    ("lang", "one", "three", "two"),
    [
        ("en", "Winner: Anna", "Winners: Anna, Boris, Cyril", "Winners: Anna, Boris"),
        ("cs", "Vítěz: Anna", "Vítězové:", "Vítězové: Anna, Boris"),
    ],
)
def test_the_heirs_end_names_one_winner_or_several(
    lang: str, one: str, three: str, two: str
) -> None:
    """H19: a tie shares the win; the Council's heading then speaks of winners, on the board
    and on the phones."""
    from app.pages import render_board_view, render_phone_view
    from app.simulate import play_game
    from engine.heirs import RULES

    state = play_game(RULES, 3, 5, ["expander"] * 3).final
    view = RULES.view(state, None)
    seats = [{"seat": n, "name": name, "bot": False} for n, name in enumerate(HEIRS_NAMES[:3])]
    payload: dict[str, Any] = {
        "code": "ABCD",
        "game": "heirs",
        "status": "finished",
        "seats": seats,
        "players": seats,
        "min_players": 2,
        "max_players": 6,
        "match": 1,
        "to_act": [],
        "outcome": RULES.outcome(state),
        "ready": [],
        "options": {},
        "paused": False,
        "tournament": None,
        "view": view,
        "playback": [],
        "history": [],
        "show": None,
        "commitments": {},
        "reveals": {},
    }
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    payload["view"] = {**view, "outcome": {**view["outcome"], "winners": [0]}}
    assert one in render_board_view(live, payload, lang, host=False, join_url="x")
    payload["view"] = {**view, "outcome": {**view["outcome"], "winners": [0, 1, 2]}}
    assert three in render_board_view(live, payload, lang, host=False, join_url="x")
    # The phone of a seat that did not share the win: it read "Anna, Boris wins", as if one
    # player had won.
    mine = RULES.view(state, 2)
    phone: dict[str, Any] = {
        **payload,
        "you": {"seat": 2, "name": HEIRS_NAMES[2], "player": 2},
        "prompt": None,
        "events": [],
        "view": {**mine, "outcome": {**mine["outcome"], "winners": [0, 1]}},
    }
    ending = render_phone_view(live, phone, lang)
    heading = re.search(r'data-testid="phone-ending">\s*<h1>([^<]*)</h1>', ending)
    assert heading is not None, ending
    assert heading.group(1) == two


def test_a_night_s_replays_on_a_phone_name_their_game_and_the_seat_s_own_turns(
    client: TestClient,
) -> None:
    """A round robin of Hidden Leaders before Heirs, Ann and two bots. Once the night has
    moved on to Heirs: each duel's replay is titled with its own game; on Ann's phone a
    duel she watched is the room's public replay (it was a server error), and in one she
    played each step says whose turn it is (it said "Waiting for" the bot at her own)."""
    from tests.play import order_from_prompt

    created = client.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    code, host = created["code"], {"Authorization": f"Bearer {created['host_token']}"}
    night = {"tournament": {"games": ["hidden_leaders", "heirs"]}}
    assert client.post(f"/api/rooms/{code}/tournament", json=night, headers=host).is_success
    token = join_api(client, code, "Ann")
    ann = {"Authorization": f"Bearer {token}"}
    for _ in range(2):
        assert client.post(f"/api/rooms/{code}/bots", headers=host).status_code == 201
    assert client.post(f"/api/rooms/{code}/start", headers=host).status_code == 200

    def step_on() -> bool:
        """Ann plays her turns, the host starts each next game; True once Heirs is on."""
        board = client.get(f"/api/rooms/{code}").json()
        if board["game"] == "heirs":
            return True
        if board["status"] == "finished" and board["outcome"]:
            client.post(f"/api/rooms/{code}/ready", headers=host)
        elif board["status"] == "playing":
            prompt = client.get(f"/api/rooms/{code}/me", headers=ann).json()["prompt"]
            if prompt is not None:
                client.post(
                    f"/api/rooms/{code}/orders", json=order_from_prompt(prompt), headers=ann
                )
        return False

    wait_for(step_on, "the round robin's three duels", seconds=120)
    client.cookies.set(f"pecet_seat_{code}", token)
    played: list[int] = []
    for number in (1, 2, 3):
        replay = client.get(f"/api/rooms/{code}/matches/{number}/replay", headers=ann).json()
        seats = [p["seat"] for p in replay["players"]]
        phone = client.get(f"/r/{code}/replay/{number}")
        assert phone.status_code == 200, phone.text[-800:]
        assert "Replay · Hidden Leaders Duel" in phone.text
        assert "Heirs of the Axis" not in phone.text
        if 0 not in seats:
            assert 'data-testid="replay-watched"' in phone.text
            assert 'data-testid="replay-lines"' in phone.text, "the room's moves, step by step"
            continue
        played.append(number)
        me = seats.index(0)
        for index, step in enumerate(replay["steps"]):
            html = client.get(f"/r/{code}/replay/{number}/step/{index}").text
            active = step["view"].get("active")
            if active is None:  # the scoring: no turn
                continue
            banner = html[html.index('data-testid="turn-banner"') : html.index('class="stepper"')]
            assert "spinner" not in banner, index
            if active == me:
                assert "Your turn" in banner, index
            else:
                assert "to play" in banner and "Waiting for" not in banner, index
    assert played and len(played) < 3, "Ann played some duels and watched another"
    tv = client.get(f"/b/{code}/replay/1")
    assert "Replay · Hidden Leaders Duel" in tv.text


def test_a_legions_phone_says_what_its_sealed_digits_are(client: TestClient) -> None:
    """ "Your sealed order: 192c1a" was explained only in a title, which a phone shows on no
    tap: a newcomer took the digits for a PIN or an error. (A Legions legion sealed waits
    for the other's: its digits stand; Hidden Leaders' decisions play at once.)"""
    from engine.registry import get_rules

    rules = get_rules("legions")
    code, _host, tokens = start_duel(client, "legions")
    state = current_match(live_room(client, code)).state
    order = rules.bot_order(state, 0)
    sealed = client.post(
        f"/api/rooms/{code}/orders", json=order, headers={"Authorization": f"Bearer {tokens[0]}"}
    )
    assert sealed.status_code == 202, sealed.text
    client.cookies.set(f"pecet_seat_{code}", tokens[0])
    page = client.get(f"/r/{code}").text
    assert 'data-testid="my-commitment"' in page
    shown = unescape(re.sub(r"<[^>]+>", " ", page))
    assert "the board shows the same, and the replay proves" in shown


@pytest.mark.parametrize("game", ["hidden_leaders", "legions", "heirs"])
def test_the_host_fast_forwards_between_shows_and_sees_it_is_on(
    client: TestClient, game: str
) -> None:
    """Fast-forward was offered only while a round played out: asked then, and answered after
    the show had ended, the answer found no question any more and nothing happened; once on,
    the board's buttons looked the same. It is offered the whole match long, and says once on."""
    room = client.post("/api/rooms", json={"game": game}).json()
    code, host = room["code"], room["host_token"]
    for name in ("Ann", "Ben"):
        join_api(client, code, name)
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    client.cookies.set(f"pecet_host_{code}", host)
    board = client.get(f"/b/{code}").text
    assert client.get(f"/api/rooms/{code}").json()["show"] is None
    assert 'data-testid="fast-forward"' in board and 'data-testid="fast-forwarding"' not in board
    answer = client.post(f"/b/{code}/show/skip", data={"all": "1"}, headers=HX)
    assert answer.status_code in (200, 204)
    assert client.get(f"/api/rooms/{code}").json()["fast_forward"] is True
    board = client.get(f"/b/{code}").text
    assert 'data-testid="fast-forward"' not in board
    # The duels' host menu says it is on; Heirs' map has a banner of it for the room.
    said = ("Fast-forward is on: the rest of the game plays at once", "Fast-forward: every round")
    assert any(text in board for text in said)
    client.cookies.clear()
    assert "Fast-forward" not in client.get(f"/b/{code}").text.replace(
        "Fast-forward: every round plays at once", ""
    ), "the host's only"


def test_a_hidden_leaders_replay_names_the_turn_of_the_step_shown(client: TestClient) -> None:
    """At the step that ends a turn the board in the replay read the next turn, its player
    "to play" (the position already stands there); it names the turn shown, which ends."""
    code, _host, tokens = start_duel(client)
    play_to_end(client, code, tokens)
    steps = client.get(f"/api/rooms/{code}/matches/1/replay").json()["steps"]
    endings = 0
    for index, step in enumerate(steps):
        fragment = client.get(f"/b/{code}/replay/1/step/{index}").text
        number, _k, _m = replay_position(steps, index)
        box = re.search(r'<div class="turn-box">(.*?)</div>\s*</div>', fragment, re.S)
        if step["view"].get("scoring") is not None:
            continue  # the final scoring has the board to itself
        assert box is not None, index
        assert f'data-testid="turn">{number}<' in box.group(1), index
        if step["view"]["turn"] != number:
            endings += 1
            assert "The turn ends" in box.group(1) and "to play" not in box.group(1), index
    assert endings > 0


def test_next_game_now_asks_first_while_a_player_is_not_ready() -> None:
    """The host's "Next game now" started the next game at once while players had not
    tapped Ready: the board asks first, naming them; with everyone ready it does not ask."""
    from app.pages import render

    seats = [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Ben"}, {"seat": 2, "name": "Bot 1"}]
    room = {"seats": seats, "tournament": None, "ready": [2]}
    line = unescape(render("fragments/_ready_line.html", "en", room=room, ready=[2], host=True))
    assert 'hx-confirm="Start the next game now? Not ready yet: Ann, Ben."' in line
    everyone = render("fragments/_ready_line.html", "en", room=room, ready=[0, 1, 2], host=True)
    assert "hx-confirm" not in everyone and 'data-testid="next-game-now"' in everyone
