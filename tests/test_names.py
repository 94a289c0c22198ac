"""Player names (issue 13.9): normalised, nothing hidden, look-alikes are one name, "Bot N" is
the bots' — in the rules (app/names.py) and through the API and the join page."""

from __future__ import annotations

from html import unescape

import pytest
from fastapi.testclient import TestClient

from app import names
from tests.play import auth

HIDDEN = [
    pytest.param("Ema\x07", id="BEL"),
    pytest.param("Ema\x1b[31m", id="ESC"),
    pytest.param("Ema\x00", id="NUL"),
    pytest.param("Ema\x85", id="C1 NEL"),
    pytest.param("Ema\u200b", id="zero-width space"),
    pytest.param("E\u200dma", id="zero-width joiner between letters"),
    pytest.param("Ema\ufe0f", id="variation selector after a letter"),
    pytest.param("\u202eamE", id="right-to-left override"),
    pytest.param("Ema\u2066", id="bidi isolate"),
    pytest.param("\u200b", id="only a zero-width space"),
    pytest.param("\u2800", id="only a braille blank"),
    pytest.param("\u2800\u2800 \u200b", id="only blanks and spaces"),
    pytest.param("\u3164", id="hangul filler"),
    pytest.param("Ema\U000e0041", id="tag character"),
    pytest.param("Ema\ue000", id="private use"),
]


def join(client: TestClient, code: str, name: str) -> tuple[int, dict[str, str]]:
    response = client.post(f"/api/rooms/{code}/seats", json={"name": name})
    body: dict[str, str] = response.json()
    return response.status_code, body


def new_room(client: TestClient, game: str = "heirs") -> tuple[str, str]:
    created = client.post("/api/rooms", json={"game": game})
    assert created.status_code == 201, created.text
    return created.json()["code"], created.json()["host_token"]


@pytest.mark.parametrize("name", HIDDEN)
def test_hidden_and_control_characters_are_refused(name: str) -> None:
    """issue 13.9: control characters, invisible ones and bidi overrides are refused, and so is
    a name made only of invisible characters."""
    with pytest.raises(names.NameRefused) as refused:
        names.check(name)
    assert refused.value.code == "name_hidden_characters"


@pytest.mark.parametrize(
    ("typed", "kept"),
    [
        ("  Ema   Nová \t", "Ema Nová"),
        ("Rene\u0301", "René"),
        ("\uff25\uff4d\uff41", "Ema"),  # fullwidth letters
        ("Ema\u00a0Nová", "Ema Nová"),  # no-break space
        ("Ema\nNová", "Ema Nová"),
        ("❤️ Ema", "❤️ Ema"),
        ("👩\u200d👧 Ema", "👩\u200d👧 Ema"),
        ("Bot", "Bot"),
        ("Bottle", "Bottle"),
        ("Zoë", "Zoë"),
        ("יעל", "יעל"),
    ],
)
def test_names_are_normalised_and_ordinary_ones_pass(typed: str, kept: str) -> None:
    """issue 13.9: NFKC, trimmed, inner whitespace folded; accents, emoji and right-to-left
    scripts are ordinary names."""
    assert names.check(typed) == kept


@pytest.mark.parametrize("name", ["Bot 1", "bot7", "BOT 12", "Bot3", "Bоt 1", "Bot ١", "Bot 0"])
def test_bot_names_are_reserved(name: str) -> None:
    """issue 13.9: "Bot N" in any case, with any N (and any look-alike of it) is the bots'."""
    with pytest.raises(names.NameRefused) as refused:
        names.check(name)
    assert refused.value.code == "name_reserved"


def test_a_tower_of_accents_is_refused() -> None:
    """issue 13.9 (a name that draws over its neighbours on the board)."""
    with pytest.raises(names.NameRefused) as refused:
        names.check("E" + "\u0300\u0301\u0302\u0303\u0304\u0306\u0307\u0308" + "ma")
    assert refused.value.code == "name_too_many_marks"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Ema", "Еma"),  # Cyrillic Е
        ("René", "Rene\u0301"),  # two Unicode forms
        ("Ema", "EMA"),
        ("Ema", " ema "),
        ("Paul", "PauI"),  # capital I for l
    ],
)
def test_look_alikes_share_one_key(first: str, second: str) -> None:
    """issue 13.9: duplicates are judged on a confusable skeleton."""
    assert names.name_key(first) == names.name_key(second)
    assert names.look_alike(second, ["Ann", first]) == first


def test_different_names_keep_different_keys() -> None:
    """issue 13.9: the skeleton does not merge names that read differently."""
    keys = {names.name_key(n) for n in ["Ema", "Emil", "Rene", "René", "Ana", "Anna", "Bot"]}
    assert len(keys) == 7


def test_the_stored_key_fits_the_column_however_long_the_skeleton() -> None:
    """issue 13.9: "m" has the skeleton "rn", so a skeleton can outgrow the 24-character name."""
    longest = "m" * names.NAME_MAX
    assert len(names.name_key(longest)) > names.NAME_MAX
    assert len(names.stored_key(longest)) == 24
    assert names.stored_key("Ema") == names.stored_key("Еma")
    assert names.stored_key("Ema") != names.stored_key("Emil")


@pytest.mark.parametrize(
    ("seated", "typed"),
    [("Ema", "Еma"), ("René", "Rene\u0301"), ("Ema", "EMA")],
)
def test_the_api_refuses_a_look_alike_in_one_room(
    client: TestClient, seated: str, typed: str
) -> None:
    """issue 13.9: Ema / Еma with a Cyrillic Е, two forms of René: one name in a room."""
    code, _host = new_room(client)
    assert join(client, code, seated)[0] == 201
    status, body = join(client, code, typed)
    assert (status, body["code"]) == (409, "name_taken")


@pytest.mark.parametrize("name", HIDDEN)
def test_the_api_refuses_hidden_characters(client: TestClient, name: str) -> None:
    """issue 13.9: control and invisible characters are a 422 with a code saying why."""
    code, _host = new_room(client)
    status, body = join(client, code, name)
    assert (status, body["code"]) == (422, "name_hidden_characters")
    assert "hidden or control character" in body["detail"]


def test_the_api_keeps_bot_names_for_bots(client: TestClient) -> None:
    """issue 13.9: a human cannot take "Bot 1"; the host's bots still get their names."""
    code, host = new_room(client)
    assert join(client, code, "bot 1") == (
        422,
        {
            "detail": "Names like “Bot 1” are kept for the bots. Pick another name.",
            "code": "name_reserved",
        },
    )
    assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert [s["name"] for s in seats] == ["Bot 1", "Bot 2"]


def test_the_api_stores_the_normalised_name(client: TestClient) -> None:
    """issue 13.9: the board shows the name normalised (NFKC, trimmed, spaces folded)."""
    code, _host = new_room(client)
    assert join(client, code, "  Rene\u0301   Ｋ ")[0] == 201
    seats = client.get(f"/api/rooms/{code}").json()["seats"]
    assert [s["name"] for s in seats] == ["René K"]


@pytest.mark.parametrize("typed", ["Rene\u0301", " RENÉ ", "Ren\u0435\u0301"])  # Cyrillic е
def test_reclaim_finds_the_seat_by_a_normalised_name(client: TestClient, typed: str) -> None:
    """issue 13.9: coming back, the name is judged as at the join, so another form finds it."""
    code, _host = new_room(client)
    status, body = join(client, code, "René")
    assert status == 201
    back = client.post(f"/api/rooms/{code}/reclaim", json={"name": typed, "pin": body["pin"]})
    assert back.status_code == 200, back.text
    assert back.json()["seat"] == 0


def test_the_join_page_says_which_name_a_look_alike_resembles_in_czech(
    client: TestClient,
) -> None:
    """issue 13.9: the refusal is clear and translated: it names the seated look-alike."""
    code, _host = new_room(client)
    assert join(client, code, "Ema")[0] == 201
    client.cookies.set("pecet_lang", "cs")
    page = client.post("/join", data={"code": code, "name": "Еma"})
    assert page.status_code == 409
    assert "Еma vypadá skoro stejně jako Ema, kdo už v této místnosti sedí." in unescape(page.text)


@pytest.mark.parametrize(
    ("name", "english", "czech"),
    [
        (
            "Ema\x1b",
            "Your name has a hidden or control character in it",
            "Tvoje jméno obsahuje skrytý nebo řídicí znak",
        ),
        ("Bot 4", "are kept for the bots", "patří botům"),
    ],
)
def test_the_join_page_explains_a_refused_name(
    client: TestClient, name: str, english: str, czech: str
) -> None:
    """issue 13.9: a refusal a player understands, in English and in Czech."""
    code, _host = new_room(client)
    page = client.post("/join", data={"code": code, "name": name})
    assert page.status_code == 422
    assert english in unescape(page.text)
    client.cookies.set("pecet_lang", "cs")
    page = client.post("/join", data={"code": code, "name": name})
    assert czech in unescape(page.text)


@pytest.mark.parametrize(
    ("lang", "bot"), [("en", "Bot 1"), ("cs", "Bot 1"), ("ru", "Бот 1"), ("hr", "Bot 1")]
)
@pytest.mark.parametrize("game", ["heirs", "legions", "hidden_leaders"])
def test_a_bot_is_named_in_the_readers_language(
    client: TestClient, game: str, lang: str, bot: str
) -> None:
    """Issue 16: a Russian board and phone said "Bot 1"; the room still stores the one name,
    and a human whose seat went to a bot keeps the name they chose."""
    code, host = new_room(client, game)
    status, joined = join(client, code, "Ema")
    assert status == 201
    assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    assert client.get(f"/api/rooms/{code}").json()["seats"][1]["name"] == "Bot 1"
    client.cookies.set("pecet_lang", lang)
    client.cookies.set(f"pecet_seat_{code}", joined["token"])
    client.cookies.set(f"pecet_host_{code}", host)
    for page in (client.get(f"/b/{code}").text, client.get(f"/r/{code}").text):
        text = unescape(page)
        assert bot in text and "Ema" in text
        if bot != "Bot 1":
            assert "Bot 1" not in text
