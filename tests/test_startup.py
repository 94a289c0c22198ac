"""What a start costs: a database at the newest migration is checked without Alembic, and
translation catalogs are compiled once and read back on later starts."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, MetaData, inspect, text
from sqlmodel import Session, SQLModel, select

from app import i18n
from app.config import PROJECT_DIR
from app.db import alembic_config, make_engine, script_heads, stored_revisions, upgrade
from app.models import Match, Prediction, Resolution, Room
from engine.core import JSON
from tests.services import PostgresDatabases

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


def test_upgrade_migrates_a_new_database_then_leaves_it_alone(empty_database_url: str) -> None:
    url = empty_database_url
    engine = make_engine(url)
    assert stored_revisions(engine) == frozenset()
    assert upgrade(url, engine) is True
    assert stored_revisions(engine) == script_heads()
    with engine.connect() as connection:  # the schema is really there
        assert connection.execute(text("SELECT count(*) FROM room")).scalar() == 0
    assert upgrade(url, engine) is False
    engine.dispose()


def test_an_older_database_is_still_migrated(empty_database_url: str) -> None:
    from alembic import command

    url = empty_database_url
    command.upgrade(alembic_config(url), "0005")
    assert upgrade(url) is True
    engine = make_engine(url)
    assert stored_revisions(engine) == script_heads()
    engine.dispose()


def test_processes_starting_at_once_on_a_new_postgresql_database_migrate_it_once(
    postgres: PostgresDatabases,
) -> None:
    """Several processes of one service start together (compose.yaml): the advisory lock
    lets one migrate while the others wait and then find the schema done."""
    with postgres.database() as url:
        # A process each: one server's pool and session, as `pecet serve` would have.
        command = [sys.executable, "-m", "app.cli", "migrate"]
        environment = {**os.environ, "DATABASE_URL": url}
        starts = [
            subprocess.Popen(command, cwd=PROJECT_DIR, env=environment, stdout=subprocess.PIPE)
            for _ in range(3)
        ]
        said = [start.communicate(timeout=120)[0].decode() for start in starts]
        assert [start.returncode for start in starts] == [0, 0, 0], said
        assert sorted(said) == sorted(
            ["Migrated to the newest schema.\n", *["The schema is up to date.\n"] * 2]
        )
        engine = make_engine(url)
        try:
            assert stored_revisions(engine) == script_heads()
        finally:
            engine.dispose()


def test_the_migrations_build_the_schema_of_the_models(empty_database_url: str) -> None:
    """Alembic builds what the models describe, column types included where the database
    keeps them (SQLite keeps an affinity only: its INTEGER holds 64 bits)."""
    from alembic import command

    command.upgrade(alembic_config(empty_database_url), "head")
    engine = make_engine(empty_database_url)
    with engine.connect() as connection:
        compare_type = engine.dialect.name != "sqlite"
        context = MigrationContext.configure(connection, opts={"compare_type": compare_type})
        assert compare_metadata(context, SQLModel.metadata) == []
    engine.dispose()


def schema(engine: Engine) -> JSON:
    """Everything the database says of its tables: columns with their types (on SQLite
    their affinity, all it keeps: a BIGINT and an INTEGER column hold the same), nullability
    and server defaults, keys, foreign keys, indexes and unique constraints. Columns in name
    order: a migration adds its columns after the others."""

    def kept(column_type: str) -> str:
        if engine.dialect.name == "sqlite" and "INT" in column_type:
            return "INTEGER"
        return column_type

    with engine.connect() as connection:
        seen = inspect(connection)
        return {
            table: {
                "columns": sorted(
                    (c["name"], kept(str(c["type"])), c["nullable"], c.get("default"))
                    for c in seen.get_columns(table)
                ),
                "primary_key": seen.get_pk_constraint(table),
                "foreign_keys": sorted(map(repr, seen.get_foreign_keys(table))),
                "indexes": sorted(map(repr, seen.get_indexes(table))),
                "unique": sorted(map(repr, seen.get_unique_constraints(table))),
            }
            for table in sorted(seen.get_table_names())
        }


def test_a_new_database_is_built_as_the_migrations_build_it(empty_database_url: str) -> None:
    """A new database is built from the models and stamped at the newest revision, without
    Alembic: the same tables, to the last default and index, as all the migrations build,
    and Alembic reads it as being at its head."""
    from alembic import command
    from alembic.runtime.migration import MigrationContext as Runtime

    engine = make_engine(empty_database_url)
    try:
        assert upgrade(empty_database_url, engine) is True
        built = schema(engine)
        with engine.connect() as connection:
            assert frozenset(Runtime.configure(connection).get_current_heads()) == script_heads()
        tables = MetaData()
        with engine.begin() as connection:
            tables.reflect(connection)
            tables.drop_all(connection)
        assert schema(engine) == {}
        command.upgrade(alembic_config(empty_database_url), "head")
        migrated = schema(engine)
    finally:
        engine.dispose()
    assert set(built) == set(migrated)
    for table in migrated:
        assert built[table] == migrated[table], table


def test_a_database_holding_any_table_is_migrated_not_built(empty_database_url: str) -> None:
    """A database with a table of its own but no version is left to Alembic, which fails
    on it rather than stamping a schema it does not hold."""
    engine = make_engine(empty_database_url)
    try:
        with engine.begin() as connection:
            connection.execute(text("CREATE TABLE room (id INTEGER PRIMARY KEY)"))
        with pytest.raises(Exception, match="room"):
            upgrade(empty_database_url, engine)
        assert stored_revisions(engine) == frozenset()
    finally:
        engine.dispose()


def test_a_stored_match_keeps_its_seed_and_its_times(database_url: str) -> None:
    """A seed of 62 random bits, and times given in any zone, come back as they were stored
    (the test's PostgreSQL server is not in UTC)."""
    engine = make_engine(database_url)
    upgrade(database_url, engine)
    seed = 2**62 - 1
    moment = datetime(2026, 12, 3, 20, 15, 30, 123456, tzinfo=timezone(timedelta(hours=-5)))
    with Session(engine) as session:
        room = Room(code="ABCD", game="heirs", host_token_hash="x", created_at=moment)
        session.add(room)
        session.flush()
        assert room.id is not None
        match = Match(room_id=room.id, number=1, seed=seed, seats=3, show_started_at=moment)
        session.add(match)
        session.flush()
        assert match.id is not None
        session.add(
            Resolution(
                match_id=match.id, number=1, round=0, first_seq=1, last_seq=3, created_at=moment
            )
        )
        session.add(
            Prediction(room_id=room.id, match_number=1, seat=0, winner=1, created_at=moment)
        )
        session.commit()
    with Session(engine) as session:
        stored = session.exec(select(Match)).one()
        assert stored.seed == seed
        times = [
            session.exec(select(Room.created_at)).one(),
            stored.show_started_at,
            session.exec(select(Resolution.created_at)).one(),
            session.exec(select(Prediction.created_at)).one(),
        ]
    engine.dispose()
    assert times == [moment] * 4, "the same instants"
    assert all(time is not None and time.utcoffset() == timedelta(0) for time in times)


def test_a_start_on_a_database_at_head_does_not_import_alembic(empty_database_url: str) -> None:
    url = empty_database_url
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
