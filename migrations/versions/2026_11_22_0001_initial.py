"""Initial schema: games, players, orders, the append-only event log, snapshots, dice seeds.

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _created() -> sa.Column[object]:
    return sa.Column(
        "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
    )


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("scenario", JSONB(), nullable=False),
        sa.Column("options", JSONB(), nullable=False),
        sa.Column("dice", JSONB(), nullable=False),
        sa.Column("gm_token_hash", sa.Text(), nullable=False),
        sa.Column("join_codes", JSONB(), nullable=False),
        sa.Column("state", JSONB(), nullable=False),
        sa.Column("head_seq", sa.BigInteger(), nullable=False),
        sa.Column("head_hash", sa.Text(), nullable=False),
        sa.Column("rules_version", sa.Text(), nullable=False),
        sa.Column("next_deadline", sa.DateTime(timezone=True), nullable=True),
        _created(),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
    )
    op.create_index(op.f("ix_games_gm_token_hash"), "games", ["gm_token_hash"])
    op.create_index(op.f("ix_games_next_deadline"), "games", ["next_deadline"])
    op.create_table(
        "players",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("id", sa.Text(), nullable=False),
        sa.Column("side", sa.Text(), nullable=False),
        sa.Column("name", sa.Text(), nullable=False),
        sa.Column("powers", JSONB(), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("token_hash", sa.Text(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        _created(),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_players_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("game_id", "id", name=op.f("pk_players")),
    )
    op.create_index(op.f("ix_players_token_hash"), "players", ["token_hash"])
    op.create_table(
        "orders",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("player_id", sa.Text(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("order_hash", sa.Text(), nullable=False),
        sa.Column("envelope", JSONB(), nullable=False),
        sa.Column("result", JSONB(), nullable=False),
        sa.Column("first_event", sa.BigInteger(), nullable=True),
        _created(),
        sa.PrimaryKeyConstraint("game_id", "player_id", "seq", name=op.f("pk_orders")),
    )
    op.create_table(
        "events",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("impulse", sa.Integer(), nullable=False),
        sa.Column("step", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("actor", sa.Text(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("data", JSONB(), nullable=False),
        sa.Column("rules_version", sa.Text(), nullable=False),
        sa.Column("hash", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_events")),
    )
    op.create_index("ix_events_game_kind", "events", ["game_id", "kind"])
    op.execute(
        """
        CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'the event log is append-only (% refused)', TG_OP
                USING ERRCODE = 'insufficient_privilege';
        END $$;
        """
    )
    op.execute(
        "CREATE TRIGGER events_no_update_delete BEFORE UPDATE OR DELETE ON events"
        " FOR EACH ROW EXECUTE FUNCTION events_append_only()"
    )
    op.execute(
        "CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events"
        " FOR EACH STATEMENT EXECUTE FUNCTION events_append_only()"
    )
    op.create_table(
        "snapshots",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("impulse", sa.Integer(), nullable=False),
        sa.Column("state", JSONB(), nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("game_id", "seq", name=op.f("pk_snapshots")),
    )
    op.create_table(
        "dice_seeds",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("seed", sa.LargeBinary(), nullable=False),
        sa.Column("commitment", sa.Text(), nullable=False),
        _created(),
        sa.PrimaryKeyConstraint("game_id", "turn", name=op.f("pk_dice_seeds")),
    )


def downgrade() -> None:
    op.drop_table("dice_seeds")
    op.drop_table("snapshots")
    op.execute("DROP TRIGGER events_no_truncate ON events")
    op.execute("DROP TRIGGER events_no_update_delete ON events")
    op.drop_index("ix_events_game_kind", table_name="events")
    op.drop_table("events")
    op.execute("DROP FUNCTION events_append_only()")
    op.drop_table("orders")
    op.drop_index(op.f("ix_players_token_hash"), table_name="players")
    op.drop_table("players")
    op.drop_index(op.f("ix_games_next_deadline"), table_name="games")
    op.drop_index(op.f("ix_games_gm_token_hash"), table_name="games")
    op.drop_table("games")
