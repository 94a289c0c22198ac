"""a seat handed to a bot remembers its phone

When the host hands a seat to a bot mid-game, the seat gets a new token and its phone lost the
room: it was sent to the join page and saw no more of the match. The seat now keeps the hash of
the token it had, so that phone stays in the room as a watcher (the match's public view, the
result, the way back to the seat) and never again sees the seat's own. Emptied when the player
takes the seat back.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-06 03:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "handed_token_hash",
                sqlmodel.sql.sqltypes.AutoString(length=64),
                nullable=False,
                server_default="",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("handed_token_hash")
