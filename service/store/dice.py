"""Dice seeds: each turn's secret seed (per epoch), revealed in the log at turn end."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from service.store.models import DiceSeedRow


class DiceSeeds:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def of_game(self, game_id: str) -> dict[tuple[int, int], bytes]:
        """Every stored seed of the game, by (turn, epoch)."""
        rows = await self.session.execute(
            select(DiceSeedRow.turn, DiceSeedRow.epoch, DiceSeedRow.seed)
            .where(DiceSeedRow.game_id == game_id))
        return {(t, e): seed for t, e, seed in rows.all()}

    async def add(self, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            await self.session.execute(insert(DiceSeedRow), list(rows))
