"""A notification channel whose every delivery fails for five days is disabled, as a
webhook is (`failing_since`, `disabled_at`, `disabled_reason`); `wif_take_order` writes
"your move" only to channels that are not disabled.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-24
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _previous() -> Any:
    """Migration 0012 (its `function()` writes wif_take_order as 0012 left it)."""
    path = Path(__file__).with_name("2026_11_24_0012_channels.py")
    spec = importlib.util.spec_from_file_location("wif_migration_0012", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_OLD_JOIN = "        JOIN channels c ON c.game_id = p_game AND c.player_id = m.player_id\n"
_NEW_JOIN = ("        JOIN channels c ON c.game_id = p_game AND c.player_id = m.player_id\n"
             "            AND c.disabled_at IS NULL\n")


def function() -> str:
    old: str = _previous().function()
    assert old.count(_OLD_JOIN) == 1
    return old.replace(_OLD_JOIN, _NEW_JOIN)


def upgrade() -> None:
    op.add_column("channels", sa.Column("failing_since", sa.DateTime(timezone=True)))
    op.add_column("channels", sa.Column("disabled_at", sa.DateTime(timezone=True)))
    op.add_column("channels", sa.Column("disabled_reason", sa.Text()))
    op.execute(function())


def downgrade() -> None:
    op.execute(_previous().function())
    op.drop_column("channels", "disabled_reason")
    op.drop_column("channels", "disabled_at")
    op.drop_column("channels", "failing_since")
