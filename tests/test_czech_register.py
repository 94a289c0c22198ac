"""Issue 16, "Grammar by the book": the Czech screens speak to a player informally (ty), the
same way everywhere. They mixed "Zapečeťte…", "Vaše jméno" and "Jste ve hře!" with "Minulé kolo
pro tebe". Only the TV may speak to the whole room in the plural ("Sledujte tabuli")."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po

from app.config import PROJECT_DIR

CZECH = PROJECT_DIR / "locale" / "cs" / "LC_MESSAGES" / "messages.po"

FORMAL_WORDS = re.compile(
    r"\b(váš|vaše|vašeho|vašemu|vaši|vaší|vašich|vašim|vašimi|vás|vám|vámi|jste)\b",
    re.IGNORECASE,
)
# The 2nd-person-plural imperatives the phone and page texts used before issue 16.
PLURAL_IMPERATIVES = re.compile(
    r"\b(zadejte|napište|zkuste|zkontrolujte|zvolte|vyberte|sledujte|zapečeťte|vraťte|"
    r"otevřete|klepněte|nechte|poznamenejte|tipněte|verbujte|získejte)\b",
    re.IGNORECASE,
)


def czech_catalog() -> Catalog:
    with CZECH.open("rb") as source:
        return read_po(source)


def texts(message: Message) -> list[str]:
    string = message.string
    return [string] if isinstance(string, str) else [text for text in string or () if text]


def on_the_board(message: Message) -> bool:
    """Shown by a board template: the TV, which may address the whole room at once."""
    return any("board" in PurePosixPath(path).name for path, _ in message.locations)


def test_czech_never_uses_the_formal_you() -> None:
    formal = [
        text
        for message in czech_catalog()
        if message.id
        for text in texts(message)
        if FORMAL_WORDS.search(text)
    ]
    assert formal == []


def test_czech_phone_and_page_texts_address_one_player() -> None:
    plural = [
        text
        for message in czech_catalog()
        if message.id and not on_the_board(message)
        for text in texts(message)
        if PLURAL_IMPERATIVES.search(text)
    ]
    assert plural == []
