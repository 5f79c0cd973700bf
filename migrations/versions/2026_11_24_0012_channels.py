"""Notification channels (issue 20): a player's e-mail, Discord and Slack channels, each
with quiet hours and a digest; outbox messages name the channel they go to (NULL: the
owner's Standard Webhook). `wif_take_order` writes "your move" for the channels too, in
the order's own statement, as it does for webhooks.

Revision ID: 0012
Revises: 0010 (the newest on main when merged; chain it after main's newest)
Create Date: 2026-11-24
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _previous() -> Any:
    """The function as 0009 wrote it (for the replacement and the downgrade)."""
    path = Path(__file__).with_name("2026_11_24_0009_order_in_one_call.py")
    spec = importlib.util.spec_from_file_location("wif_migration_0009", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.FUNCTION


_OLD_INSERT = """    INSERT INTO outbox (game_id, id, player_id, kind, payload, attempts, next_attempt_at,
                        failed)
        SELECT p_game, 'msg_move_' || w.player_id || '_' || (p_version + 1), w.player_id,
               'your_move', m.payload::jsonb, 0, p_now, false
        FROM json_to_recordset(p_moves) AS m(player_id text, payload json)
        JOIN webhooks w ON w.game_id = p_game AND w.player_id = m.player_id
        WHERE w.disabled_at IS NULL
        UNION ALL"""

_NEW_INSERT = """    INSERT INTO outbox (game_id, id, player_id, kind, payload, attempts, next_attempt_at,
                        failed, channel)
        SELECT p_game, 'msg_move_' || w.player_id || '_' || (p_version + 1), w.player_id,
               'your_move', m.payload::jsonb, 0, p_now, false, NULL
        FROM json_to_recordset(p_moves) AS m(player_id text, payload json)
        JOIN webhooks w ON w.game_id = p_game AND w.player_id = m.player_id
        WHERE w.disabled_at IS NULL
        UNION ALL
        SELECT p_game, 'msg_move_' || c.kind || '_' || c.player_id || '_' || (p_version + 1),
               c.player_id, 'your_move', m.payload::jsonb, 0,
               p_now + make_interval(mins => c.digest_minutes), false, c.kind
        FROM json_to_recordset(p_moves) AS m(player_id text, payload json)
        JOIN channels c ON c.game_id = p_game AND c.player_id = m.player_id
        UNION ALL"""

_OLD_EVENTS = """               'events', p_events_message, 0, p_now, false
        FROM webhooks w"""
_NEW_EVENTS = """               'events', p_events_message, 0, p_now, false, NULL
        FROM webhooks w"""


def function() -> str:
    old = _previous()
    assert _OLD_INSERT in old and _OLD_EVENTS in old
    new: str = old.replace(_OLD_INSERT, _NEW_INSERT).replace(_OLD_EVENTS, _NEW_EVENTS)
    return new.replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1)


def upgrade() -> None:
    op.create_table(
        "channels",
        sa.Column("game_id", sa.Text(), nullable=False),
        sa.Column("player_id", sa.Text(), nullable=False),
        sa.Column("kind", sa.Text(), nullable=False),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("quiet_from", sa.Integer(), nullable=True),
        sa.Column("quiet_to", sa.Integer(), nullable=True),
        sa.Column("timezone", sa.Text(), nullable=False, server_default="UTC"),
        sa.Column("digest_minutes", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False,
                  server_default=sa.func.now()),
        sa.PrimaryKeyConstraint("game_id", "player_id", "kind", name=op.f("pk_channels")),
    )
    op.add_column("outbox", sa.Column("channel", sa.Text(), nullable=True))
    op.execute(function())


def downgrade() -> None:
    op.execute(_previous().replace("CREATE FUNCTION", "CREATE OR REPLACE FUNCTION", 1))
    op.drop_column("outbox", "channel")
    op.drop_table("channels")
