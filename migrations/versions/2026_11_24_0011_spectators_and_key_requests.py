"""Spectators and key requests (issue 19): `spectators` holds the read-only tokens the
GM issues (hashed, as every token), `key_requests` the new keys players ask the GM to
approve.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "spectators",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(),
                  nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_spectators_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", "id", name="pk_spectators"),
    )
    op.create_index("ix_spectators_token_hash", "spectators", ["token_hash"])
    op.create_table(
        "key_requests",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("player_id", sa.Text(), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), server_default=sa.func.now(),
                  nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE",
                                name="fk_key_requests_game_id_games"),
        sa.PrimaryKeyConstraint("game_id", "id", name="pk_key_requests"),
    )


def downgrade() -> None:
    op.drop_table("key_requests")
    op.drop_index("ix_spectators_token_hash", table_name="spectators")
    op.drop_table("spectators")
