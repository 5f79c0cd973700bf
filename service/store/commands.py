"""The commands the referee applied, in log order, for the verifier's replay."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from service.clock import rfc3339
from service.store.models import CommandRow, table

_INSERT = insert(table(CommandRow))  # built once: the order path


class Commands:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, game_id: str, record: dict[str, Any]) -> None:
        """Store a command `record` (as `record_of` gives it; `at` is RFC 3339 text)."""
        await self.session.execute(_INSERT, {
            **record, "game_id": game_id, "at": datetime.fromisoformat(record["at"])})

    async def add_many(self, game_id: str, records: list[dict[str, Any]]) -> None:
        for record in records:
            await self.add(game_id, record)

    async def of_game(self, game_id: str) -> list[dict[str, Any]]:
        rows = (await self.session.execute(
            select(CommandRow).where(CommandRow.game_id == game_id)
            .order_by(CommandRow.first_event))).scalars()
        return [{"first_event": r.first_event, "kind": r.kind, "actor": r.actor,
                 "body": r.body, "at": rfc3339(r.at), "position": r.position,
                 "trigger": r.trigger, "extra": r.extra, "signed": r.signed} for r in rows]
