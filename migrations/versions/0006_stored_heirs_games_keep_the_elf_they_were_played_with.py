"""stored Heirs games keep the Elf they were played with

Heirs games stored before the sheet's numbers became the default were played with the Elf
counting per 5 soldiers; H13.1 now names that the variant "elf_per_5". Recording it in their
options and snapshots keeps them playing, and replaying, exactly as they were.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-02 01:45:00
"""

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

VARIANT = "elf_per_5"


def _loaded(value):
    return json.loads(value) if isinstance(value, str) else dict(value or {})


def upgrade() -> None:
    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT match.id, match.options, match.state FROM match JOIN room "
            "ON room.id = match.room_id WHERE match.game = 'heirs' "
            "OR (match.game = '' AND room.game = 'heirs')"
        )
    ).fetchall()
    for match_id, options, state in rows:
        options, state = _loaded(options), _loaded(state)
        if "variants" in options or not state:
            continue
        options["variants"] = [VARIANT]
        state_options = dict(state.get("options") or {})
        state_options["variants"] = [VARIANT]
        state["options"] = state_options
        bind.execute(
            sa.text("UPDATE match SET options = :options, state = :state WHERE id = :id"),
            {"options": json.dumps(options), "state": json.dumps(state), "id": match_id},
        )


def downgrade() -> None:
    pass  # the variant then reads as an unknown option of an older server: nothing to undo
