"""A game row carries what a serving process needs of a big game without its state
(issue 33): the scenario's counts (`hexes`, `units`: whether the game is big), and the
summary of the state at a head (`summary`), written by whoever applies a change.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("games", sa.Column("hexes", sa.Integer(), server_default=sa.text("0"),
                                     nullable=False))
    op.add_column("games", sa.Column("units", sa.Integer(), server_default=sa.text("0"),
                                     nullable=False))
    op.add_column("games", sa.Column("summary", postgresql.JSON()))
    op.execute("UPDATE games SET"
               " hexes = coalesce(jsonb_array_length(scenario->'map'->'hexes'), 0),"
               " units = coalesce(jsonb_array_length(scenario->'units'), 0)")


def downgrade() -> None:
    op.drop_column("games", "summary")
    op.drop_column("games", "units")
    op.drop_column("games", "hexes")
