"""a seat may have more time than the room's sealing timer

The host lengthens the sealing timer for one seat (a player who needs more time), or lifts it
for that seat: the seat's deadline is the round's start plus the timer times its factor. The
factor is the seat's, kept across a pause and a restart like the room's own deadline.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-04 10:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("time_factor", sa.Float(), nullable=True, server_default="1"))


def downgrade() -> None:
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("time_factor")
