"""Game master and long games: players' key history, join codes for substitutes, the
replay-check flag, and new dice commitments for a turn (epochs).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("players", sa.Column("keys", JSONB(), nullable=False,
                                       server_default=sa.text("'[]'::jsonb")))
    op.execute("UPDATE players SET keys = jsonb_build_array("
               "jsonb_build_object('public_key', public_key, 'from_seq', 0))")
    op.add_column("games", sa.Column("substitute_codes", JSONB(), nullable=False,
                                     server_default=sa.text("'{}'::jsonb")))
    op.add_column("games", sa.Column("divergence", JSONB(), nullable=True))
    op.add_column("dice_seeds", sa.Column("epoch", sa.Integer(), nullable=False,
                                          server_default=sa.text("0")))
    op.drop_constraint("pk_dice_seeds", "dice_seeds", type_="primary")
    op.create_primary_key("pk_dice_seeds", "dice_seeds", ["game_id", "turn", "epoch"])


def downgrade() -> None:
    op.execute("DELETE FROM dice_seeds WHERE epoch > 0")
    op.drop_constraint("pk_dice_seeds", "dice_seeds", type_="primary")
    op.create_primary_key("pk_dice_seeds", "dice_seeds", ["game_id", "turn"])
    op.drop_column("dice_seeds", "epoch")
    op.drop_column("games", "divergence")
    op.drop_column("games", "substitute_codes")
    op.drop_column("players", "keys")
