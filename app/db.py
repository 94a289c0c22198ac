"""The database: one SQLAlchemy engine, SQLite in WAL mode by default, Alembic migrations."""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import (
    Column,
    MetaData,
    PrimaryKeyConstraint,
    String,
    Table,
    event,
    inspect,
    text,
)
from sqlalchemy.engine import Engine, make_url
from sqlmodel import create_engine

from app.config import PROJECT_DIR

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS_DIR = PROJECT_DIR / "migrations"
VERSION_TABLE = "alembic_version"


def _json_text(value: Any) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


JSON_CODEC: dict[str, Any] = {"json_serializer": _json_text, "json_deserializer": orjson.loads}
"""How the JSON columns (states, orders, events) are written and read: orjson's, the same
text as the standard library's without the spaces, several times faster."""


def make_engine(database_url: str) -> Engine:
    url = make_url(database_url)
    if url.get_backend_name() != "sqlite":
        return create_engine(database_url, pool_pre_ping=True, **JSON_CODEC)
    if url.database and url.database != ":memory:":
        Path(url.database).parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(database_url, connect_args={"check_same_thread": False}, **JSON_CODEC)

    @event.listens_for(engine, "connect")
    def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        # WAL lets the board's reads run beside a phone's write; FULL sync makes every
        # acknowledged order survive a crash of the process or of the machine.
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.close()

    return engine


def alembic_config(database_url: str) -> Config:
    from alembic.config import Config

    config = Config(str(PROJECT_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    config.set_main_option("sqlalchemy.url", database_url.replace("%", "%%"))
    return config


def upgrade(database_url: str, engine: Engine | None = None) -> bool:
    """Bring the schema to the newest migration (the server does this on every start).

    A database already at the newest revision, the usual case, is left alone without
    loading Alembic: its runtime and every migration script cost more to import than the
    whole check. On PostgreSQL the migrations run under an advisory lock, so that several
    processes starting at once on a new database migrate it once (the others wait, then find
    it done). Answers whether migrations ran."""
    checked = engine or make_engine(database_url)
    try:
        if _at_newest(checked):
            return False
        with _migrating(checked):
            if _at_newest(checked):
                return False
            if _build_newest(checked):
                return True
            from alembic import command

            command.upgrade(alembic_config(database_url), "head")
            return True
    finally:
        if engine is None:
            checked.dispose()


MIGRATION_LOCK = 0x5065C3A5
"""The PostgreSQL advisory lock the migrations run under (any number no other code takes)."""


def _at_newest(engine: Engine) -> bool:
    heads = script_heads()
    return heads is not None and heads == stored_revisions(engine)


@contextmanager
def _migrating(engine: Engine) -> Iterator[None]:
    if engine.dialect.name != "postgresql":
        yield  # SQLite: start one process first when several share a file (bench/load.py)
        return
    with engine.connect() as connection:
        connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
        try:
            yield
        finally:
            connection.execute(text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK})
            connection.commit()


def _build_newest(engine: Engine) -> bool:
    """Build an empty database straight at the newest schema: the models' tables, stamped
    with the newest revisions, as Alembic's cookbook builds one from scratch ("create_all,
    then stamp") but without loading Alembic, whose runtime and nine migration scripts cost
    most of a first start (about 180 of 200 ms). A test keeps this schema equal to the one
    the migrations build. Answers ``False``, touching nothing, when the database already
    holds a table or the scripts' heads must be read by Alembic."""
    heads = script_heads()
    if heads is None:
        return False
    from sqlmodel import SQLModel

    import app.models  # noqa: F401  (the tables the metadata describes)

    with engine.begin() as connection:
        if inspect(connection).get_table_names():
            return False
        SQLModel.metadata.create_all(connection)
        versions = MetaData()
        version_table = Table(
            VERSION_TABLE,
            versions,
            # Alembic's own version table, as its `stamp` creates it.
            Column("version_num", String(32), nullable=False),
            PrimaryKeyConstraint("version_num", name=f"{VERSION_TABLE}_pkc"),
        )
        versions.create_all(connection)
        connection.execute(version_table.insert(), [{"version_num": head} for head in heads])
    return True


def stored_revisions(engine: Engine) -> frozenset[str]:
    """The revisions the database says it is at (none for a new database)."""
    with engine.connect() as connection:
        if not inspect(connection).has_table(VERSION_TABLE):
            return frozenset()
        query = text(f"SELECT version_num FROM {VERSION_TABLE}")
        revisions: Sequence[object] = connection.execute(query).scalars().all()
        return frozenset(str(revision) for revision in revisions)


def script_heads(versions_dir: Path = MIGRATIONS_DIR / "versions") -> frozenset[str] | None:
    """The newest revisions of the migration scripts: those no other script revises.

    Read from each script's literal ``revision`` and ``down_revision`` without running it;
    ``None`` when a script does not state them as literals, and then Alembic decides."""
    revisions: set[str] = set()
    revised: set[str] = set()
    for script in sorted(versions_dir.glob("*.py")):
        stated = _stated_revisions(script)
        if stated is None:
            return None
        revision, down_revisions = stated
        revisions.add(revision)
        revised.update(down_revisions)
    return frozenset(revisions - revised) if revisions else None


def _stated_revisions(script: Path) -> tuple[str, tuple[str, ...]] | None:
    """``revision`` and ``down_revision`` (one, several when merging, or none) of a script."""
    values: dict[str, Any] = {}
    for statement in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id in ("revision", "down_revision"):
            try:
                values[target.id] = ast.literal_eval(value)
            except ValueError:
                return None
    revision, down = values.get("revision"), values.get("down_revision")
    if not isinstance(revision, str):
        return None
    if down is None:
        return revision, ()
    if isinstance(down, str):
        return revision, (down,)
    if isinstance(down, tuple | list) and all(isinstance(d, str) for d in down):
        return revision, tuple(down)
    return None
