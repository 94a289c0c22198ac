"""seat PINs and watchers' predictions

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-02 00:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                'pin', sqlmodel.sql.sqltypes.AutoString(length=8), nullable=False, server_default=''
            )
        )
    op.create_table(
        'prediction',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('room_id', sa.Integer(), nullable=False),
        sa.Column('match_number', sa.Integer(), nullable=False),
        sa.Column('seat', sa.Integer(), nullable=False),
        sa.Column('winner', sa.Integer(), nullable=False),
        sa.Column('ending', sqlmodel.sql.sqltypes.AutoString(length=32), nullable=True),
        sa.Column('created_at', sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(['room_id'], ['room.id']),
        sa.PrimaryKeyConstraint('id'),
        sa.UniqueConstraint('room_id', 'match_number', 'seat', name='uq_prediction_seat'),
    )
    with op.batch_alter_table('prediction', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_prediction_room_id'), ['room_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('prediction', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_prediction_room_id'))
    op.drop_table('prediction')
    with op.batch_alter_table('seat', schema=None) as batch_op:
        batch_op.drop_column('pin')
