"""Refresh the translation catalogs: extract every message, merge it into every language's
catalog, and report the messages each language still lacks.

    .venv/bin/python tools/update_catalogs.py [--lang ru] [--fill FILE.json]

``--fill`` takes a JSON object of msgid -> translation and writes those translations into
the catalog of ``--lang`` (a plural message takes a list, one text per plural form of the
language; a message with a context is keyed ``context\\x04msgid``, as gettext keys it). Run it
after changing any user-visible text; the catalog tests fail until it has run and every
message of every language is translated. A language's catalog is created the first time.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from babel.messages.catalog import Message
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from app.i18n import DEFAULT_LANGUAGE, LANGUAGES, catalog_path  # noqa: E402

PYBABEL = str(Path(sys.executable).with_name("pybabel"))
TEMPLATE = ROOT / "locale" / "messages.pot"


def message_key(message: Message) -> str:
    """How ``--fill`` names a message: its singular, after its context if it has one."""
    key = str(message.id[0] if isinstance(message.id, (tuple, list)) else message.id)
    return f"{message.context}\x04{key}" if message.context else key


def untranslated(message: Message) -> bool:
    return not message.string or (isinstance(message.string, tuple) and not all(message.string))


def fill(lang: str, fills: dict[str, str | list[str]]) -> list[str]:
    """Write ``fills`` into the catalog of ``lang``; the keys still untranslated after it."""
    path = catalog_path(lang)
    with path.open("rb") as handle:
        catalog = read_po(handle, locale=lang)
    missing = []
    for message in catalog:
        if not message.id:
            continue
        key = message_key(message)
        if key in fills:
            text = fills[key]
            message.string = tuple(text) if isinstance(message.id, tuple) else text
            message.flags.discard("fuzzy")
        if untranslated(message):
            missing.append(key)
    with path.open("wb") as handle:
        write_po(handle, catalog)
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lang", choices=LANGUAGES, help="report (and fill) this language only")
    parser.add_argument("--fill", type=Path, help="JSON of msgid -> translation, for --lang")
    args = parser.parse_args()
    if args.fill and not args.lang:
        parser.error("--fill needs --lang")
    subprocess.run(
        [PYBABEL, "-q", "extract", "-F", "babel.cfg", "-o", str(TEMPLATE), "."],
        cwd=ROOT,
        check=True,
    )
    for lang in LANGUAGES:
        command = "update" if catalog_path(lang).exists() else "init"
        options = ["--no-fuzzy-matching"] if command == "update" else []
        subprocess.run(
            [PYBABEL, "-q", command, "-i", str(TEMPLATE), "-d", "locale", "-l", lang, *options],
            cwd=ROOT,
            check=True,
        )
    fills = json.loads(args.fill.read_text(encoding="utf-8")) if args.fill else {}
    for lang in [args.lang] if args.lang else LANGUAGES:
        if lang == DEFAULT_LANGUAGE:
            continue  # English is the messages themselves
        for key in fill(lang, fills if lang == args.lang else {}):
            print(f"untranslated {lang}: {key!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
