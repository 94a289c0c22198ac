"""the board's standings choice and the time of the last result are stored

Between the games of a night the board shows the result, then the standings (by itself after a
while, or as the host chose). Both lived in one process's memory: a restart forgot them, and
with several processes a command racing the news could carry an older choice.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-03 15:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('room', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                'standings_mode',
                sqlmodel.sql.sqltypes.AutoString(length=8),
                nullable=False,
                server_default='auto',
            )
        )
        batch_op.add_column(
            sa.Column('result_at', sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True)
        )


def downgrade() -> None:
    with op.batch_alter_table('room', schema=None) as batch_op:
        batch_op.drop_column('result_at')
        batch_op.drop_column('standings_mode')
