"""Refresh the translation catalogs: extract every message, merge it into en and cs, and
report the Czech messages still to translate.

    .venv/bin/python tools/update_catalogs.py [--fill FILE.json]

``--fill`` takes a JSON object of msgid -> Czech text and writes those translations (plural
messages take a list). Run it after changing any user-visible text; the catalog tests fail
until it has run and every Czech message is translated.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "locale"
PYBABEL = str(Path(sys.executable).with_name("pybabel"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fill", type=Path, help="JSON of msgid -> Czech translation")
    args = parser.parse_args()
    subprocess.run(
        [PYBABEL, "-q", "extract", "-F", "babel.cfg", "-o", "locale/messages.pot", "."],
        cwd=ROOT,
        check=True,
    )
    subprocess.run(
        [
            PYBABEL,
            "-q",
            "update",
            "-i",
            "locale/messages.pot",
            "-d",
            "locale",
            "--no-fuzzy-matching",
        ],
        cwd=ROOT,
        check=True,
    )
    czech = LOCALE / "cs" / "LC_MESSAGES" / "messages.po"
    fills = json.loads(args.fill.read_text(encoding="utf-8")) if args.fill else {}
    with czech.open("rb") as handle:
        cs_catalog = read_po(handle, locale="cs")
    missing = []
    for message in cs_catalog:
        if not message.id:
            continue
        key = message.id[0] if isinstance(message.id, tuple) else message.id
        if key in fills:
            filled = fills[key]
            message.string = tuple(filled) if isinstance(message.id, tuple) else filled
            message.flags.discard("fuzzy")
        empty = not message.string or (
            isinstance(message.string, tuple) and not all(message.string)
        )
        if empty:
            missing.append(key)
    with czech.open("wb") as handle:
        write_po(handle, cs_catalog)
    for key in missing:
        print(f"untranslated: {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
