"""Issue 16, "Grammar by the book": every language speaks to a player informally, the same way
everywhere. The Czech screens mixed "Zapečeťte…", "Vaše jméno" and "Jste ve hře!" with "Minulé
kolo pro tebe". Only the TV may speak to the whole room in the plural ("Sledujte tabuli")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

import pytest
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from app.i18n import catalog_path


@dataclass(frozen=True)
class Register:
    lang: str
    formal: re.Pattern[str]
    """The polite "you" (and in Russian and Croatian the plural one too)."""
    plural_imperative: re.Pattern[str]
    """Telling several people (or one politely) what to do."""
    formal_on_board: bool
    """Whether the formal words are wrong on the TV too: Czech's ("váš", "jste") are only ever
    polite, while Russian "вы" and Croatian "vi" are also how the TV speaks to the room."""


REGISTERS = [
    Register(
        "cs",
        re.compile(
            r"\b(váš|vaše|vašeho|vašemu|vaši|vaší|vašich|vašim|vašimi|vás|vám|vámi|jste)\b",
            re.IGNORECASE,
        ),
        # The 2nd-person-plural imperatives the phone and page texts used before issue 16.
        re.compile(
            r"\b(zadejte|napište|zkuste|zkontrolujte|zvolte|vyberte|sledujte|zapečeťte|vraťte|"
            r"otevřete|klepněte|nechte|poznamenejte|tipněte|verbujte|získejte|seřaďte|posuňte)\b",
            re.IGNORECASE,
        ),
        formal_on_board=True,
    ),
    Register(
        "ru",
        re.compile(r"\b(вы|вас|вам|вами|ваш\w*)\b", re.IGNORECASE),
        # Every "-йте" form, and the "-ите" ones a screen would use ("защите" is a noun).
        re.compile(
            r"\b\w+йте(сь)?\b|\b(выберите|введите|нажмите|посмотрите|подождите|вернитесь|"
            r"смотрите|следите|укажите|войдите|зайдите|возьмите|положите|пришлите)\b",
            re.IGNORECASE,
        ),
        formal_on_board=False,
    ),
    Register(
        "hr",
        re.compile(r"\b(vi|vas|vama|vaš\w*|ste)\b", re.IGNORECASE),
        # Every "-ajte/-ujte/-ijte" form, and the "-ite" ones a screen would use ("različite"
        # is an adjective).
        re.compile(
            r"\b\w+(ajte|ijte|ujte)\b|\b(odaberite|izaberite|unesite|upišite|napišite|"
            r"dodirnite|pritisnite|kliknite|zapečatite|otvorite|vratite|provjerite|pogledajte)\b",
            re.IGNORECASE,
        ),
        formal_on_board=False,
    ),
]


def catalog(lang: str) -> Catalog:
    with catalog_path(lang).open("rb") as source:
        return read_po(source, locale=lang)


def texts(message: Message) -> list[str]:
    string = message.string
    return [string] if isinstance(string, str) else [text for text in string or () if text]


def on_the_board(message: Message) -> bool:
    """Shown by a board template: the TV, which may address the whole room at once."""
    return any("board" in PurePosixPath(path).name for path, _ in message.locations)


@pytest.mark.parametrize("register", REGISTERS, ids=lambda register: register.lang)
def test_a_player_is_never_addressed_formally(register: Register) -> None:
    formal = [
        text
        for message in catalog(register.lang)
        if message.id and (register.formal_on_board or not on_the_board(message))
        for text in texts(message)
        if register.formal.search(text)
    ]
    assert formal == []


@pytest.mark.parametrize("register", REGISTERS, ids=lambda register: register.lang)
def test_phone_and_page_texts_address_one_player(register: Register) -> None:
    plural = [
        text
        for message in catalog(register.lang)
        if message.id and not on_the_board(message)
        for text in texts(message)
        if register.plural_imperative.search(text)
    ]
    assert plural == []


GENDER_BOTH_WAYS = re.compile(r"\w\((a|la|а|ла)\)")
"""A word written for both genders at once: Czech "vyhrál(a)", Russian "выиграл(а)"."""


@pytest.mark.parametrize("lang", ["cs", "hr", "ru"])
def test_no_text_guesses_at_a_players_gender(lang: str) -> None:
    """A name tells no gender, so no text may need one: a past tense of the reader or of a
    player ("Vyhrál(a) jsi!", "připojen(a)", "Připraven(a) na odvetu") is worded another way,
    a noun ("Vítězství!"), the present ("Bereš si…"), or a word without gender ("tady")."""
    both = [
        text
        for message in catalog(lang)
        if message.id
        for text in texts(message)
        if GENDER_BOTH_WAYS.search(text)
    ]
    assert both == []
