"""Translations: gettext catalogs read from ``locale/<lang>/LC_MESSAGES/messages.po`` at start.

No compiled ``.mo`` file is kept in the repository: each ``.po`` catalog is read with Babel
and compiled in memory once. Templates use Jinja2's i18n extension (``{% trans %}`` and
``_()``); the language of one render is held in a context variable, so two connections in
different languages can be rendered one after the other without sharing state.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from functools import cache
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

from app.config import PROJECT_DIR

LOCALE_DIR = PROJECT_DIR / "locale"
LANGUAGES: tuple[str, ...] = ("en", "cs")
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES: Mapping[str, str] = {"en": "English", "cs": "Čeština"}

_current: ContextVar[NullTranslations | None] = ContextVar("pecet_translations", default=None)


def normalize_language(value: str | None) -> str | None:
    """``"cs"``, ``"cs-CZ"`` or ``"CS"`` → ``"cs"``; anything unknown → ``None``."""
    if not value:
        return None
    short = value.strip().lower().replace("_", "-").split("-")[0]
    return short if short in LANGUAGES else None


def language_from_header(accept_language: str | None) -> str | None:
    """The first supported language of an ``Accept-Language`` header."""
    if not accept_language:
        return None
    for part in accept_language.split(","):
        found = normalize_language(part.split(";")[0])
        if found:
            return found
    return None


def catalog_path(lang: str, locale_dir: Path = LOCALE_DIR) -> Path:
    return locale_dir / lang / "LC_MESSAGES" / "messages.po"


def load_translations(lang: str, locale_dir: Path = LOCALE_DIR) -> NullTranslations:
    """The catalog of ``lang`` compiled in memory; an empty one if the file is missing."""
    path = catalog_path(lang, locale_dir)
    if not path.exists():
        return NullTranslations()
    with path.open("rb") as source:
        catalog = read_po(source, locale=lang)
    compiled = BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    compiled.seek(0)
    return Translations(fp=compiled)


@cache
def translations(lang: str) -> NullTranslations:
    """Cached per language; unknown languages fall back to English."""
    return load_translations(normalize_language(lang) or DEFAULT_LANGUAGE)


def load_all() -> None:
    """Read every catalog now (at start), so a broken catalog fails early."""
    for lang in LANGUAGES:
        translations(lang)


@contextlib.contextmanager
def use_language(lang: str) -> Iterator[None]:
    """Make ``gettext`` in templates and code translate into ``lang`` for this block."""
    token = _current.set(translations(lang))
    try:
        yield
    finally:
        _current.reset(token)


def _active() -> NullTranslations:
    return _current.get() or translations(DEFAULT_LANGUAGE)


def gettext(message: str) -> str:
    return _active().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _active().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    # Babel's stubs type pgettext loosely; with a str message it returns a str.
    return str(_active().pgettext(context, message))


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return _active().npgettext(context, singular, plural, n)
