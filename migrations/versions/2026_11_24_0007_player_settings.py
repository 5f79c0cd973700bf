"""A player's settings, kept with its seat: `{"confirm_lapse": true}` asks that the `done`
of a reorganization step leaving RPs unspent carry `"confirm_lapse": true` (issue 16).

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("players", sa.Column("settings", JSONB(), nullable=False,
                                       server_default=sa.text("'{}'::jsonb")))


def downgrade() -> None:
    op.drop_column("players", "settings")
