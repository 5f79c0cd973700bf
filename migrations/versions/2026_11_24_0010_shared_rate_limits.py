"""Rate limits shared by every server process (issue 21): `rate_buckets`, one token
bucket per key (a known token's digest, or a client address), UNLOGGED (not written
to the WAL: cheap to update, not replicated, emptied by a crash, which only refills
the buckets). Stream tickets get `game_id` first in their primary key, like every
other game-scoped table (docs/scaling.md: ready to distribute by game id).

Revision ID: 0010
Revises: 0007
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rate_buckets",
        sa.Column("key", sa.Text(), nullable=False),
        sa.Column("tokens", sa.Float(), nullable=False),
        sa.Column("stamp", sa.Float(), nullable=False),
        sa.Column("granted", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("key", name="pk_rate_buckets"),
        prefixes=["UNLOGGED"],
    )
    op.drop_constraint("pk_stream_tickets", "stream_tickets", type_="primary")
    op.create_primary_key("pk_stream_tickets", "stream_tickets", ["game_id", "ticket_hash"])
    op.create_index("ix_stream_tickets_ticket_hash", "stream_tickets", ["ticket_hash"])


def downgrade() -> None:
    op.drop_index("ix_stream_tickets_ticket_hash", table_name="stream_tickets")
    op.drop_constraint("pk_stream_tickets", "stream_tickets", type_="primary")
    op.create_primary_key("pk_stream_tickets", "stream_tickets", ["ticket_hash"])
    op.drop_table("rate_buckets")
