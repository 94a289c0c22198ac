"""the board's show, match history and sealed-order proofs

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01 23:55:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'resolution',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('match_id', sa.Integer(), nullable=False),
        sa.Column('number', sa.Integer(), nullable=False),
        sa.Column('round', sa.Integer(), nullable=False),
        sa.Column('first_seq', sa.Integer(), nullable=False),
        sa.Column('last_seq', sa.Integer(), nullable=False),
        sa.Column('events', sa.JSON(), nullable=False),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['match_id'], ['match.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('match_id', 'number', name='uq_resolution_match_number'),
    )
    with op.batch_alter_table('resolution', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_resolution_match_id'), ['match_id'], unique=False)

    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.add_column(sa.Column('show_started_at', sa.DateTime(), nullable=True))
        batch_op.add_column(sa.Column('show_elapsed', sa.Float(), nullable=True))
        batch_op.add_column(
            sa.Column('fast_forward', sa.Boolean(), nullable=False, server_default=sa.false())
        )

    with op.batch_alter_table('orderlog', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                'salt', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False, server_default=''
            )
        )
        batch_op.add_column(
            sa.Column(
                'commitment',
                sqlmodel.sql.sqltypes.AutoString(length=64),
                nullable=False,
                server_default='',
            )
        )


def downgrade() -> None:
    with op.batch_alter_table('orderlog', schema=None) as batch_op:
        batch_op.drop_column('commitment')
        batch_op.drop_column('salt')

    with op.batch_alter_table('match', schema=None) as batch_op:
        batch_op.drop_column('fast_forward')
        batch_op.drop_column('show_elapsed')
        batch_op.drop_column('show_started_at')

    with op.batch_alter_table('resolution', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_resolution_match_id'))

    op.drop_table('resolution')
