"""the host has a PIN

The host's controls came only with the host's cookie: a TV browser that lost its cookies (a
restart, a private window, another screen) lost the host's menu for good, and with it the
seats' PINs. The room now keeps a host PIN, shown on the host's board beside the seats' PINs,
which brings the host's controls to another screen. Rooms made before it have none.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-06 21:30:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("room", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "host_pin",
                sqlmodel.sql.sqltypes.AutoString(length=8),
                nullable=False,
                server_default="",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("room", schema=None) as batch_op:
        batch_op.drop_column("host_pin")
