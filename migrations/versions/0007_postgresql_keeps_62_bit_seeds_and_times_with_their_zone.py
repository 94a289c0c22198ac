"""PostgreSQL keeps 62-bit seeds and times with their zone

A match's seed is 62 random bits, more than PostgreSQL's ``integer`` holds. The times added in
0004 and 0005 were columns without a zone: PostgreSQL stored them in the server's own zone and
handed them back as if they were UTC. SQLite needs neither change: its integers have 64 bits and
it keeps times as the text it was given.

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-03 11:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMES = (
    ('resolution', 'created_at', False),
    ('match', 'show_started_at', True),
    ('prediction', 'created_at', False),
)
"""Table, column and whether it may be empty."""


def upgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        return
    op.alter_column(
        'match', 'seed', type_=sa.BigInteger(), existing_type=sa.Integer(), existing_nullable=False
    )
    # A time without a zone is read in the session's zone, the one it was written in.
    for table, column, nullable in TIMES:
        op.alter_column(
            table,
            column,
            type_=sa.DateTime(timezone=True),
            existing_type=sa.DateTime(),
            existing_nullable=nullable,
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == 'sqlite':
        return
    # The seed stays a bigint: seeds drawn since do not fit an integer, and an older server
    # reads a bigint all the same.
    for table, column, nullable in TIMES:
        op.alter_column(
            table,
            column,
            type_=sa.DateTime(),
            existing_type=sa.DateTime(timezone=True),
            existing_nullable=nullable,
        )
