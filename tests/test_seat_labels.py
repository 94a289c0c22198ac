"""One seat label everywhere: the 1-based seat number and the player's name, with a bot tag
(and the bot's style) on every seat a bot plays, whether added as a bot or handed to one."""

from __future__ import annotations

import re
from types import SimpleNamespace
from typing import Any

from fastapi.testclient import TestClient

from app.pages import render_board_view, render_phone_view
from tests.test_pages import lobby_payload, night_payload

LABEL = re.compile(
    r'data-testid="seat-label" data-seat="(\d+)">'
    r'<span class="seat-badge seat-no" data-testid="seat-number"[^>]*>(\d+)</span> '
    r'<span class="seat-name">([^<]*)</span>(?: <span class="tag bot-tag"[^>]*>([^<]*)</span>)?'
)


def labels(html: str) -> list[tuple[int, int, str, str]]:
    """(room seat, number shown, name, bot tag) of every seat label in the page."""
    return [(int(s), int(n), name, tag) for s, n, name, tag in LABEL.findall(html)]


def styled_lobby(game: str, max_players: int) -> dict[str, Any]:
    payload = lobby_payload(game=game, max_players=max_players)
    payload["seats"][2]["bot_style"] = "raider"
    return payload


def test_the_lobby_numbers_seats_from_one_and_tags_bots_with_their_style() -> None:
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    html = render_board_view(live, styled_lobby("heirs", 6), "en", host=True, join_url="x")
    assert labels(html) == [
        (0, 1, "Alice", ""),
        (1, 2, "Bob", ""),
        (2, 3, "Bot 1", "bot · Raider"),
    ]
    czech = render_board_view(live, styled_lobby("heirs", 6), "cs", host=True, join_url="x")
    assert labels(czech)[2] == (2, 3, "Bot 1", "bot · Nájezdník")


def test_a_duel_lobby_numbers_its_seats_too_never_a_and_b() -> None:
    live: Any = SimpleNamespace(game="legions", code="ABCD")
    payload = lobby_payload(game="legions", max_players=2)
    payload["seats"] = payload["seats"][:1]
    html = render_board_view(live, payload, "en", host=True, join_url="x")
    assert labels(html) == [(0, 1, "Alice", "")]
    empty = re.findall(r'<li class="seat-line empty"><span class="seat-badge">([^<]*)</span>', html)
    assert empty == ["2"]
    assert not re.search(r'class="seat-badge[^"]*">[AB]<', html)


def test_the_phone_lobby_labels_seats_as_the_board_does() -> None:
    live: Any = SimpleNamespace(game="heirs", code="ABCD")
    payload = styled_lobby("heirs", 6)
    payload["you"] = {"seat": 1, "name": "Bob", "player": None}
    board = render_board_view(live, styled_lobby("heirs", 6), "en", host=False, join_url="x")
    phone = render_phone_view(live, payload, "en")
    assert labels(phone) == labels(board)
    assert 'title="Seat 2"' in phone


def test_the_standings_and_the_podium_use_the_lobby_s_label() -> None:
    live: Any = SimpleNamespace(game="hidden_leaders", code="ABCD")
    payload = night_payload(standings_mode="shown")
    html = render_board_view(live, payload, "en", host=False, join_url="x")
    table = html[html.index('class="standings-table"') :]
    assert labels(table)[:3] == [(2, 3, "Cid", ""), (1, 2, "Ben", ""), (0, 1, "Ann", "")]
    final = night_payload(standings_mode="shown", over=True, next=None)
    podium = render_board_view(live, final, "en", host=False, join_url="x")
    steps = podium[
        podium.index('class="podium"') : podium.index("</ol>", podium.index('class="podium"'))
    ]
    assert labels(steps) == [(2, 3, "Cid", ""), (1, 2, "Ben", ""), (0, 1, "Ann", "")]


def test_the_host_has_one_bot_control_with_the_game_s_styles() -> None:
    heirs: Any = SimpleNamespace(game="heirs", code="ABCD")
    html = render_board_view(heirs, styled_lobby("heirs", 6), "en", host=True, join_url="x")
    assert len(re.findall(r'<form[^>]*action="/b/ABCD/bots"', html)) == 1
    assert len(re.findall(r"<button[^>]*>Add (?:a|this) bot</button>", html)) == 1
    styles = re.findall(r'<option value="(\w+)">', html[html.index('data-testid="bot-style"') :])
    assert styles[:4] == ["expander", "raider", "warlord", "novice"]
    legions: Any = SimpleNamespace(game="legions", code="ABCD")
    duel = lobby_payload(game="legions", max_players=2)
    duel["seats"] = duel["seats"][:1]
    plain = render_board_view(legions, duel, "en", host=True, join_url="x")
    assert len(re.findall(r'<form[^>]*action="/b/ABCD/bots"', plain)) == 1
    assert 'data-testid="bot-style"' not in plain and 'data-testid="add-bot"' in plain


def test_a_seat_handed_to_a_bot_is_a_bot_with_a_style(client: TestClient) -> None:
    created = client.post("/api/rooms", json={"game": "heirs"}).json()
    code, host = created["code"], {"Authorization": f"Bearer {created['host_token']}"}
    client.post(f"/api/rooms/{code}/seats", json={"name": "Ann"})
    client.post(f"/api/rooms/{code}/seats", json={"name": "Ben"})
    assert client.post(f"/api/rooms/{code}/start", headers=host).status_code == 200
    assert client.delete(f"/api/rooms/{code}/seats/1", headers=host).is_success
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert seats[0]["bot"] is False and seats[0]["bot_style"] is None
    assert seats[1]["name"] == "Ben" and seats[1]["bot"] is True
    assert seats[1]["bot_style"] == "expander"
    # The game's own board tags the seat too, beside the heir's name, with the style.
    board = client.get(f"/b/{code}").text
    heir_rows = re.findall(
        r'<span class="hx-heir-name">(.*?)</span>\s*<span class="hx-signs"', board, re.S
    )
    tagged = [row for row in heir_rows if 'data-testid="bot-tag"' in row]
    assert len(heir_rows) == 2 and len(tagged) == 1
    assert "Ben" in tagged[0] and "Expander" in tagged[0]


def test_a_night_that_opens_with_a_duel_offers_the_styles_of_its_later_games(
    client: TestClient,
) -> None:
    """A night of Hidden Leaders then Heirs is hosted from the Hidden Leaders lobby, whose game
    has one bot style: the picker offers Heirs' styles under Heirs' name, and a bot keeps the
    style for Heirs' match (it plays the duel's default before that)."""
    created = client.post("/api/rooms", json={"game": "hidden_leaders"}).json()
    code, token = created["code"], created["host_token"]
    host = {"Authorization": f"Bearer {token}"}
    night = {"tournament": {"games": ["hidden_leaders", "heirs"]}}
    assert client.post(f"/api/rooms/{code}/tournament", json=night, headers=host).is_success
    client.cookies.set(f"pecet_host_{code}", token)
    lobby = client.get(f"/b/{code}").text
    picker = lobby[lobby.index('data-testid="bot-style"') : lobby.index("</select>")]
    assert re.findall(r'<optgroup label="([^"]+)">', picker) == ["Heirs of the Axis"]
    assert re.findall(r'<option value="(\w+)">', picker) == [
        "expander",
        "raider",
        "warlord",
        "novice",
    ]
    raider = client.post(f"/api/rooms/{code}/bots", json={"style": "raider"}, headers=host)
    assert raider.is_success, raider.text
    plain = client.post(f"/api/rooms/{code}/bots", headers=host)
    assert plain.is_success, plain.text
    unknown = client.post(f"/api/rooms/{code}/bots", json={"style": "pirate"}, headers=host)
    assert unknown.status_code == 422 and "raider" in unknown.text
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert [s["bot_style"] for s in seats] == ["raider", "default"]
    # In the lobby the tag names the Heirs style the bot will play.
    assert [tag for *_seat, tag in labels(client.get(f"/b/{code}").text)] == [
        "bot · Raider",
        "bot",
    ]


def test_a_single_game_s_picker_names_no_game() -> None:
    heirs: Any = SimpleNamespace(game="heirs", code="ABCD")
    html = render_board_view(heirs, styled_lobby("heirs", 6), "en", host=True, join_url="x")
    assert '<option value="raider">' in html and "<optgroup" not in html
