"""Webhooks that ride out a redeploy, and stream tickets (issue 23, items 3 and 4): a
webhook's failing streak and its disabling (`failing_since`, `disabled_at`,
`disabled_reason`), and the single-use tickets that open a live stream from a browser's
EventSource, kept hashed.

Revision ID: 0006
Revises: 0004
Create Date: 2026-11-25
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("webhooks", sa.Column("failing_since", sa.DateTime(timezone=True)))
    op.add_column("webhooks", sa.Column("disabled_at", sa.DateTime(timezone=True)))
    op.add_column("webhooks", sa.Column("disabled_reason", sa.Text()))
    op.create_table(
        "stream_tickets",
        sa.Column("ticket_hash", sa.Text(), nullable=False),
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("player_id", sa.Text(), nullable=True),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(),
                  nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"],
                                name="fk_stream_tickets_game_id_games", ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("ticket_hash", name="pk_stream_tickets"),
    )
    op.create_index("ix_stream_tickets_expires_at", "stream_tickets", ["expires_at"])


def downgrade() -> None:
    op.drop_index("ix_stream_tickets_expires_at", table_name="stream_tickets")
    op.drop_table("stream_tickets")
    op.drop_column("webhooks", "disabled_reason")
    op.drop_column("webhooks", "disabled_at")
    op.drop_column("webhooks", "failing_since")
