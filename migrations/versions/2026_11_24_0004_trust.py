"""Trust that does not rest on the operator: every command the referee applied (with
its signature, when it had one), the server's receipt-signing keys, a GM key per game,
and an index to find an event by its hash (an order's `prev`). Events' data, snapshots
and commands are kept as JSON text, not JSONB: JSONB reorders an object's keys, and the
replay of a game must see them in the order the rules wrote them.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSON, JSONB

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "commands",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("first_event", sa.BigInteger(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("actor", JSON(), nullable=False),
        sa.Column("body", JSON(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("position", JSON(), nullable=True),
        sa.Column("trigger", sa.Text(), nullable=False),
        sa.Column("extra", JSON(), nullable=False),
        sa.Column("signed", JSON(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name="fk_commands_game_id_games",
                                ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("game_id", "first_event", name="pk_commands"),
    )
    op.create_table(
        "server_keys",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("private_key", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(),
                  nullable=False),
        sa.Column("retired_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_server_keys"),
    )
    op.add_column("games", sa.Column("gm_public_key", sa.Text(), nullable=True))
    op.create_index("ix_events_game_hash", "events", ["game_id", "hash"])
    op.alter_column("events", "data", type_=JSON(), postgresql_using="data::json")
    op.alter_column("snapshots", "state", type_=JSON(), postgresql_using="state::json")


def downgrade() -> None:
    op.alter_column("snapshots", "state", type_=JSONB(), postgresql_using="state::jsonb")
    op.alter_column("events", "data", type_=JSONB(), postgresql_using="data::jsonb")
    op.drop_index("ix_events_game_hash", table_name="events")
    op.drop_column("games", "gm_public_key")
    op.drop_table("server_keys")
    op.drop_table("commands")
