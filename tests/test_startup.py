"""What a start costs: a database at the newest migration is checked without Alembic, and
translation catalogs are compiled once and read back on later starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from alembic.script import ScriptDirectory
from sqlalchemy import text

from app import i18n
from app.config import PROJECT_DIR
from app.db import alembic_config, make_engine, script_heads, stored_revisions, upgrade

CS_CATALOG = PROJECT_DIR / "locale" / "cs" / "LC_MESSAGES" / "messages.po"


def test_script_heads_read_without_alembic_are_alembics_heads(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pecet.sqlite3'}"
    alembics = ScriptDirectory.from_config(alembic_config(url)).get_heads()
    assert script_heads() == frozenset(alembics)


def test_script_heads_of_a_merge_and_of_scripts_alembic_must_read(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text('revision = "a"\ndown_revision = None\n')
    (tmp_path / "b.py").write_text('revision: str = "b"\ndown_revision = "a"\n')
    (tmp_path / "c.py").write_text('revision = "c"\ndown_revision = "a"\n')
    (tmp_path / "d.py").write_text('revision = "d"\ndown_revision = ("b", "c")\n')
    assert script_heads(tmp_path) == frozenset({"d"})
    (tmp_path / "e.py").write_text('revision = make_id()\ndown_revision = "d"\n')
    assert script_heads(tmp_path) is None  # not a literal: Alembic decides


def test_upgrade_migrates_a_new_database_then_leaves_it_alone(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pecet.sqlite3'}"
    engine = make_engine(url)
    assert stored_revisions(engine) == frozenset()
    assert upgrade(url, engine) is True
    assert stored_revisions(engine) == script_heads()
    with engine.connect() as connection:  # the schema is really there
        assert connection.execute(text("SELECT count(*) FROM room")).scalar() == 0
    assert upgrade(url, engine) is False
    engine.dispose()


def test_an_older_database_is_still_migrated(tmp_path: Path) -> None:
    from alembic import command

    url = f"sqlite:///{tmp_path / 'pecet.sqlite3'}"
    command.upgrade(alembic_config(url), "0005")
    assert upgrade(url) is True
    engine = make_engine(url)
    assert stored_revisions(engine) == script_heads()
    engine.dispose()


def test_a_start_on_a_database_at_head_does_not_import_alembic(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'pecet.sqlite3'}"
    upgrade(url)
    check = (
        "import sys\nfrom app.db import upgrade\n"
        f"assert upgrade({url!r}) is False\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('alembic', 'babel')))\n"
        "import app.main\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('alembic', 'babel')))\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", check],
        cwd=PROJECT_DIR,
        env={**os.environ, "PYTHONPATH": str(PROJECT_DIR)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stdout.splitlines() == ["[]", "[]"]


def test_a_catalog_is_compiled_once_and_read_back(tmp_path: Path) -> None:
    catalog = i18n.catalog_path("cs", tmp_path)
    catalog.parent.mkdir(parents=True)
    catalog.write_bytes(CS_CATALOG.read_bytes())
    first = i18n.load_translations("cs", tmp_path)
    kept = list(catalog.parent.glob("messages.*.mo"))
    assert kept == [i18n.compiled_path(catalog, catalog.read_bytes())]
    again = i18n.load_translations("cs", tmp_path)
    assert again.gettext("Join a game") == first.gettext("Join a game") == "Připojit se ke hře"

    # An edited catalog is compiled again, and the form of the old text goes away.
    edited_text = catalog.read_text(encoding="utf-8").replace("Připojit se", "Přidat se")
    catalog.write_text(edited_text, encoding="utf-8")
    edited = i18n.load_translations("cs", tmp_path)
    assert edited.gettext("Join a game") == "Přidat se ke hře"
    assert list(catalog.parent.glob("messages.*.mo")) == [
        i18n.compiled_path(catalog, catalog.read_bytes())
    ]


def test_a_catalog_that_cannot_be_kept_is_still_translated(tmp_path: Path) -> None:
    catalog = i18n.catalog_path("cs", tmp_path)
    catalog.parent.mkdir(parents=True)
    catalog.write_bytes(CS_CATALOG.read_bytes())
    # Something else stands where the compiled form would go (as in a read-only checkout,
    # which a test running as root cannot make): the catalog is compiled in memory.
    i18n.compiled_path(catalog, catalog.read_bytes()).mkdir()
    translations = i18n.load_translations("cs", tmp_path)
    assert translations.gettext("Join a game") == "Připojit se ke hře"
    assert not list(catalog.parent.glob("*.tmp"))
