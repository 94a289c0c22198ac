"""Issue 16.3 and 16.4: the names and texts of game content have one source, the seeds; the
extractor puts them into every catalog, and one lookup shows them in the reader's language."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from babel.messages.pofile import read_po

from app import i18n
from app.config import PROJECT_DIR
from app.content import content_name, content_text, entries, extract_seeds, kinds, seed_messages
from app.games.heirs import building_name, character_text
from app.games.hidden_leaders import faction_name
from app.games.legions import guild_name, hero_name, side_name
from engine.seeds import SEEDS_DIR

SHEETS = PROJECT_DIR.parent / "shared" / "seeds-original"
TRANSLATED = [lang for lang in i18n.LANGUAGES if lang != i18n.DEFAULT_LANGUAGE]


def catalog(lang: str) -> dict[tuple[str | None, Any], Any]:
    with i18n.catalog_path(lang).open("rb") as source:
        messages = read_po(source, locale=lang)
    return {
        (m.context, m.id if isinstance(m.id, str) else tuple(m.id)): m
        for m in messages
        if m.id and "fuzzy" not in m.flags
    }


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_name_and_text_of_the_seeds_is_translated_in_every_catalog(lang: str) -> None:
    """16.4: a content name a catalog lacks, or leaves untranslated, fails here."""
    have = catalog(lang)
    missing = []
    for kind, item_id, what, message in seed_messages():
        key = message[0] if len(message) == 1 else message
        found = have.get((kind.context, key))
        strings = [] if found is None else found.string
        strings = [strings] if isinstance(strings, str) else list(strings)
        if not strings or not all(strings):
            missing.append(f"{kind.context} {item_id} {what}: {message[0]!r}")
    assert missing == []


def test_every_item_of_every_kind_has_a_name_and_the_messages_cover_them() -> None:
    messages = {(kind.context, item_id, what) for kind, item_id, what, _ in seed_messages()}
    for kind in kinds():
        items = entries(kind.game, kind.kind)
        assert items, kind
        for item_id, entry in items.items():
            assert entry.name.strip(), (kind.context, item_id)
            assert (kind.context, item_id, "name") in messages
            if entry.text:
                assert (kind.context, item_id, "text") in messages


def test_the_seeds_keep_only_english() -> None:
    """The translations live in the catalogs; a seed holds the English (the msgid) only."""
    foreign = re.compile(r'"(cs|ru|hr|name_ru|guild_name_ru|names|sheet_cs)"\s*:')
    for path in sorted(SEEDS_DIR.rglob("*.json")):
        assert not foreign.search(path.read_text(encoding="utf-8")), path


def test_the_extractor_gives_each_message_its_context_and_the_items_id(tmp_path: Path) -> None:
    with (SEEDS_DIR / "legions" / "heroes.json").open("rb") as fileobj:
        found = list(extract_seeds(fileobj, {}, [], {}))
    oracle = [f for f in found if f[2] == ("legions hero", "Oracle")]
    assert len(oracle) == 1
    lineno, function, _, comments = oracle[0]
    assert function == "pgettext" and comments == ["name of legions hero H15"]
    assert '"H15"' in (SEEDS_DIR / "legions" / "heroes.json").read_text().splitlines()[lineno - 1]
    with (SEEDS_DIR / "heirs" / "characters.json").open("rb") as fileobj:
        plural = [f for f in extract_seeds(fileobj, {}, [], {}) if f[1] == "npgettext"]
    assert {f[2][0] for f in plural} == {"heirs character"} and len(plural) == 2
    elsewhere = tmp_path / "x.json"
    elsewhere.write_text("{}")
    with elsewhere.open("rb") as fileobj:
        assert list(extract_seeds(fileobj, {}, [], {})) == []


def test_one_english_word_in_two_games_is_translated_apart() -> None:
    """Market is an Heirs building (the glossary's Tržiště) and a Legions location (Trh)."""
    with i18n.use_language("cs"):
        assert building_name("market") == "Tržiště"
        assert content_name("legions", "location", "Y") == "Trh"
    with i18n.use_language("en"):
        assert content_name("legions", "hero", "H15") == "Oracle"
        assert content_name("legions", "hero", "H99") == "H99"
        assert content_text("legions", "hero", "H01") == ""


def test_a_variant_gives_the_text_its_own_number() -> None:
    """H13.1: the Elf's soldiers per point come from the game's variants, in each language."""
    with i18n.use_language("en"):
        assert "every 3 soldiers" in character_text("elf")
        assert "every 5 soldiers" in character_text("elf", ["elf_per_5"])
    with i18n.use_language("cs"):
        assert "každé 3 vojáky" in character_text("elf")
        assert "každých 5 vojáků" in character_text("elf", ["elf_per_5"])


def test_a_percentage_keeps_its_sign_on_the_line_in_every_language() -> None:
    """ "+10 %" is one value: on a 360 px phone the line broke between "+10" and "%"."""
    for lang in i18n.LANGUAGES:
        with i18n.use_language(lang):
            text = content_text("heirs", "artifact", "quiver_of_the_wind")
        assert "10\u00a0%" in text and "10 %" not in text, (lang, text)


def sheet(name: str) -> str | None:
    """An original rules sheet (``../shared/seeds-original``), where the checkout has it."""
    path = SHEETS / name
    return path.read_text(encoding="utf-8") if path.exists() else None


def test_legions_names_in_russian_are_the_sheets() -> None:
    """16.1: the Russian sheet of Legions names the sides ("играть Некрокампа, а кто —
    Короля"), the white Ambassador ("Посла (белого)") and the banner ("знамя"); the screens
    use those names. The sheet names no single hero: the Oracle is the catalog's."""
    text = sheet("legions.ru.txt")
    if text is not None:
        assert all(word in text for word in ("Некрокампа", "Короля", "Посла (белого)", "знамя"))
    with i18n.use_language("ru"):
        assert side_name("necro") == "Некрокамп"
        assert side_name("king") == "Король"
        assert guild_name("white") == "Послы"
        assert content_name("legions", "effect", "B") == "Знамя"
        assert hero_name("H15") == "Оракул"


def test_hidden_leaders_factions_in_croatian_are_the_sheets() -> None:
    """16.1: the Croatian sheet lists the four factions with their colours (L1.1)."""
    names = ["Carska vojska", "Brdska plemena", "Vodeni narod", "Nemrtvi"]
    text = sheet("hidden-leaders-duel.hr.txt")
    if text is not None:
        listed = re.search(r"\(Carska vojska[^)]*\)", text)
        assert listed is not None
        parts = listed.group(0).strip("()").split(",")
        assert [part.split(" - ")[0].strip() for part in parts] == names
    with i18n.use_language("hr"):
        assert [faction_name(f) for f in ("IA", "HT", "WF", "UD")] == names


def test_babel_cfg_registers_the_seed_extractor() -> None:
    config = (PROJECT_DIR / "babel.cfg").read_text(encoding="utf-8")
    assert "app.content:extract_seeds" in config and "seeds/**.json" in config
    raw = json.loads((SEEDS_DIR / "hidden_leaders" / "cards.json").read_text(encoding="utf-8"))
    assert [f["name"] for f in raw["factions"]] == [
        entries("hidden_leaders", "faction")[f["id"]].name for f in raw["factions"]
    ]
