"""Alembic environment: the schema is SQLModel's metadata of ``app.models``."""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import app.models  # noqa: F401 - registers the tables on SQLModel.metadata
from app.db import make_engine

target_metadata = SQLModel.metadata


def run_migrations_offline() -> None:
    context.configure(
        url=context.config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = context.config.get_main_option("sqlalchemy.url")
    assert url is not None
    engine = make_engine(url)
    with engine.connect() as connection:
        context.configure(
            connection=connection, target_metadata=target_metadata, render_as_batch=True
        )
        with context.begin_transaction():
            context.run_migrations()
    engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
