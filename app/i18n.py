"""Translations: gettext catalogs read from ``locale/<lang>/LC_MESSAGES/messages.po`` at start.

No compiled ``.mo`` file is kept in the repository: each ``.po`` catalog is compiled with
Babel the first time the server meets it, and the result is kept beside it, named after the
catalog's content (``messages.<hash>.mo``, ignored by git), so later starts read it with the
standard library's ``gettext`` instead of parsing the ``.po`` again. Templates use Jinja2's
i18n extension (``{% trans %}`` and ``_()``); the language of one render is held in a context
variable, so two connections in different languages can be rendered one after the other
without sharing state.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from functools import cache
from gettext import GNUTranslations, NullTranslations
from io import BytesIO
from pathlib import Path
from typing import Literal, get_args

from app.config import PROJECT_DIR

LOCALE_DIR = PROJECT_DIR / "locale"
# The languages of the rules sheets (Czech, Croatian, Russian) and English; each named in
# itself, as a switch shows it to someone who reads only that language.
Language = Literal["en", "cs", "ru", "hr"]
LANGUAGES: tuple[str, ...] = get_args(Language)
DEFAULT_LANGUAGE = "en"
LANGUAGE_NAMES: Mapping[str, str] = {
    "en": "English",
    "cs": "Čeština",
    "ru": "Русский",
    "hr": "Hrvatski",
}

_current: ContextVar[NullTranslations | None] = ContextVar("pecet_translations", default=None)
_current_language: ContextVar[str | None] = ContextVar("pecet_language", default=None)


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


def compiled_path(catalog: Path, source: bytes) -> Path:
    """Where the compiled form of this exact ``.po`` content is kept."""
    return catalog.with_name(f"messages.{hashlib.sha256(source).hexdigest()[:16]}.mo")


def load_translations(lang: str, locale_dir: Path = LOCALE_DIR) -> NullTranslations:
    """The catalog of ``lang``; an empty one if the file is missing."""
    path = catalog_path(lang, locale_dir)
    if not path.exists():
        return NullTranslations()
    source = path.read_bytes()
    kept = compiled_path(path, source)
    try:
        compiled = kept.read_bytes()
    except OSError:
        compiled = compile_catalog(source, lang)
        _keep(kept, compiled)
    return GNUTranslations(BytesIO(compiled))


def compile_catalog(source: bytes, lang: str) -> bytes:
    """A ``.po`` catalog compiled to ``.mo`` bytes (fuzzy entries left out)."""
    # Babel is needed only when a catalog changed since it was last compiled.
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    catalog = read_po(BytesIO(source), locale=lang)
    compiled = BytesIO()
    write_mo(compiled, catalog, use_fuzzy=False)
    return compiled.getvalue()


def _keep(kept: Path, compiled: bytes) -> None:
    """Store a compiled catalog for the next start and drop the forms of older contents.
    A read-only checkout only loses the shortcut: the catalog is compiled at every start."""
    with contextlib.suppress(OSError):
        handle, scratch = tempfile.mkstemp(dir=kept.parent, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(compiled)
            os.replace(scratch, kept)  # whole or absent, even with two servers starting
        except OSError:
            Path(scratch).unlink(missing_ok=True)
            raise
        for older in kept.parent.glob("messages.*.mo"):
            if older != kept:
                older.unlink(missing_ok=True)


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
    language = _current_language.set(normalize_language(lang) or DEFAULT_LANGUAGE)
    try:
        yield
    finally:
        _current_language.reset(language)
        _current.reset(token)


def current_language() -> str:
    """The language ``gettext`` translates into here (:func:`use_language`)."""
    return _current_language.get() or DEFAULT_LANGUAGE


@cache
def plural_examples(lang: str) -> dict[str, int]:
    """A whole number of each plural category the language has (CLDR's, as the browser's
    ``Intl.PluralRules`` names them): Czech ``{"one": 1, "few": 2, "other": 0}``. A sentence
    rendered with each, its number left as ``%(num)s``, lets a page's script write any count
    in the form its category takes. (Czech's "many" is for fractions: no whole number.)"""
    # Imported here: a server starts without Babel (catalogs are compiled ahead of time,
    # tests/test_startup.py), and a page asks for this only once a game is under way.
    from babel import Locale

    rule = Locale.parse(lang).plural_form
    examples: dict[str, int] = {}
    for number in range(1000):
        examples.setdefault(rule(number), number)
    return examples


def _active() -> NullTranslations:
    return _current.get() or translations(DEFAULT_LANGUAGE)


def gettext(message: str) -> str:
    return _active().gettext(message)


def ngettext(singular: str, plural: str, n: int) -> str:
    return _active().ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    return _active().pgettext(context, message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    return _active().npgettext(context, singular, plural, n)
