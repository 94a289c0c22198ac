"""No English on a Czech, Russian or Croatian screen (issue 16, "Completeness guard").

Every game is played from its first decision to its end in each language, one seat by a
player whose phone speaks it (the others bots); at every decision the player's phone and the
host's board are fetched as the server renders them. No message of the catalog may show there
in English: each English message (its words between placeholders) that the language
translates differently is
looked for in the pages' text and in the attributes a player reads or hears (title,
aria-label, placeholder, alt); so is every English title, label and text an engine wrote into
the player's prompts, which the app must show in its own translation.

Not covered: the other seats' phones, screens between two of the player's decisions (the
board's show), and English phrases shorter than three words."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from babel.messages.pofile import read_po
from fastapi.testclient import TestClient

from app import i18n, names
from engine.core import Rng
from engine.registry import available_games, get_rules
from tests.live import current_match, live_room, wait_for
from tests.play import auth

pytestmark = pytest.mark.sqlite_only  # about the screens: one database is enough

TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT_LANGUAGE]
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%[sd]")
SPOKEN_ATTRIBUTES = ("title", "aria-label", "placeholder", "alt")
MAX_DECISIONS = 400
"""A game's decisions for one seat stay far below this (Heirs: 12 rounds, Legions: about 60)."""


class ReadableText(HTMLParser):
    """What a player reads or hears of a page: its text and spoken attributes, not scripts,
    styles or the data attributes scripts read."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skipping += 1
        for name, value in attrs:
            if name in SPOKEN_ATTRIBUTES and value:
                self.parts.append(value)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self.skipping:
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.skipping:
            self.parts.append(data)


def readable(html: str) -> str:
    parser = ReadableText()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def english_phrases(lang: str) -> dict[str, str]:
    """Each English phrase of the catalog worth looking for (a run of at least three words
    between placeholders), with its message: phrases ``lang`` keeps as they are (names,
    codes) are left out."""
    with i18n.catalog_path(lang).open("rb") as source:
        catalog = read_po(source, locale=lang)
    phrases: dict[str, str] = {}
    for message in catalog:
        if not message.id:
            continue
        ids = [message.id] if isinstance(message.id, str) else list(message.id)
        strings = [message.string] if isinstance(message.string, str) else message.string or []
        translated = " ".join(text for text in strings if text)
        for english in ids:
            for chunk in PLACEHOLDER.split(english):
                phrase = " ".join(chunk.split()).strip(" .,:;·—–-()")
                if len(phrase.split()) >= 3 and phrase not in translated:
                    phrases[phrase] = english
    return phrases


def engine_texts(value: object) -> set[str]:
    """The English an engine wrote into a prompt (titles, labels, texts of at least three
    words): the app must show its own translation instead."""
    found: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("title", "label", "text") and isinstance(item, str):
                if len(item.split()) >= 3:
                    found.add(item)
            else:
                found |= engine_texts(item)
    elif isinstance(value, list):
        for item in value:
            found |= engine_texts(item)
    return found


def play_in(client: TestClient, game: str, lang: str) -> tuple[str, list[str], set[str]]:
    """The room's code, the phone's and the board's pages in ``lang`` at every decision of
    one whole game, and the English texts of the player's prompts."""
    rules = get_rules(game)
    created = client.post("/api/rooms", json={"game": game}).json()
    code, host = created["code"], created["host_token"]
    joined = client.post(f"/api/rooms/{code}/seats", json={"name": "Ann", "lang": lang}).json()
    token = joined["token"]
    for _ in range(rules.info.min_players - 1):
        assert client.post(f"/api/rooms/{code}/bots", headers=auth(host)).status_code == 201
    assert client.post(f"/api/rooms/{code}/start", headers=auth(host)).status_code == 200
    client.cookies.set("pecet_lang", lang)
    client.cookies.set(f"pecet_seat_{code}", token)
    client.cookies.set(f"pecet_host_{code}", host)
    live = live_room(client, code)
    rng = Rng(16)
    pages: list[str] = []
    prompts: set[str] = set()

    def my_turn_or_over() -> bool:
        over = rules.outcome(current_match(live).state) is not None
        return over or joined["seat"] in live.to_act()

    for _ in range(MAX_DECISIONS):
        wait_for(my_turn_or_over, "Ann's turn or the game's end")
        pages.append(client.get(f"/r/{code}").text)
        pages.append(client.get(f"/b/{code}").text)
        state = current_match(live).state
        if rules.outcome(state) is not None:
            return code, pages, prompts
        prompts |= engine_texts(rules.prompt(state, joined["seat"]))
        order = rules.random_order(state, joined["seat"], rng)
        sealed = client.post(f"/api/rooms/{code}/orders", json=order, headers=auth(token))
        assert sealed.is_success, sealed.text
    raise AssertionError(f"{game} did not end within {MAX_DECISIONS} decisions")


@pytest.mark.parametrize("lang", TRANSLATED)
@pytest.mark.parametrize("game", available_games())
def test_a_translated_game_shows_no_english_message(
    client: TestClient, game: str, lang: str
) -> None:
    phrases = english_phrases(lang)
    assert len(phrases) > 500, "the catalog's English phrases were not read"
    code, pages, prompts = play_in(client, game, lang)
    phrases.update({text: f"(the engine's prompt) {text}" for text in prompts})
    seen: dict[str, str] = {}
    with i18n.use_language(lang):
        bot = names.shown("Bot 1", bot=True)  # the bots' seats are Bot 1, Bot 2, …
    for page in pages:
        assert f'<html lang="{lang}">' in page
        text = readable(page)
        if bot != "Bot 1":
            assert "Bot 1" not in text, f"a bot named in English on a {lang} screen"
        for phrase, message in phrases.items():
            if phrase in text:
                seen.setdefault(message, phrase)
    assert seen == {}, f"English on a {lang} screen of {game}: {seen}"
    # The same look finds the English of the same screens: the check above can fail.
    client.cookies.set("pecet_lang", "en")
    english = readable(client.get(f"/r/{code}").text) + readable(client.get(f"/b/{code}").text)
    assert sum(phrase in english for phrase in phrases) >= 3
