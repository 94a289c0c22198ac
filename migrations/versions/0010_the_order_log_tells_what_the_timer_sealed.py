"""the order log tells what the sealing timer sealed

An order the sealing timer sealed for a seat whose time ran out (H5.4) was stored as a bot's
(``by_bot``), like the orders of a bot's seat. The phone tells its player that the default
order was played for them: it reads that from the log, not from its own drafts, which another
phone or a client of the API sealing for the seat would leave behind unsealed.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05 10:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("orderlog", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("by_timer", sa.Boolean(), nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("orderlog", schema=None) as batch_op:
        batch_op.drop_column("by_timer")
