"""Signed orders, kept whole (envelope and signature) with their results."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from service.store.models import OrderRow, table

_INSERT = insert(table(OrderRow))  # built once: the order path


class Orders:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, *, game_id: str, player_id: str, seq: int, order_hash: str,
                  envelope: Mapping[str, object], result: Mapping[str, object],
                  first_event: int | None) -> None:
        await self.session.execute(_INSERT, {
            "game_id": game_id, "player_id": player_id, "seq": seq, "order_hash": order_hash,
            "envelope": envelope, "result": result, "first_event": first_event})

    async def add_many(self, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            await self.session.execute(_INSERT, list(rows))

    async def of_game(self, game_id: str) -> list[OrderRow]:
        return list((await self.session.execute(
            select(OrderRow).where(OrderRow.game_id == game_id)
            .order_by(OrderRow.created_at, OrderRow.player_id, OrderRow.seq))).scalars().all())
