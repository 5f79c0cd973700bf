"""Spectators (read-only tokens the GM issues) and players' requests for new keys
(issue 19)."""

from __future__ import annotations

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from service.store.models import KeyRequestRow, SpectatorRow


class Spectators:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def by_token(self, game_id: str, digest: str) -> SpectatorRow | None:
        found: SpectatorRow | None = await self.session.scalar(select(SpectatorRow).where(
            SpectatorRow.game_id == game_id, SpectatorRow.token_hash == digest))
        return found

    async def game_of_token(self, digest: str) -> str | None:
        found: str | None = await self.session.scalar(
            select(SpectatorRow.game_id).where(SpectatorRow.token_hash == digest).limit(1))
        return found

    async def add(self, game_id: str, spectator_id: str, name: str, token_hash: str) -> None:
        await self.session.execute(insert(SpectatorRow).values(
            game_id=game_id, id=spectator_id, name=name, token_hash=token_hash))

    async def of_game(self, game_id: str) -> list[SpectatorRow]:
        return list((await self.session.execute(select(SpectatorRow).where(
            SpectatorRow.game_id == game_id).order_by(SpectatorRow.created_at))).scalars())


class KeyRequests:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, game_id: str, request_id: str, player_id: str, public_key: str
                  ) -> KeyRequestRow:
        row = KeyRequestRow(game_id=game_id, id=request_id, player_id=player_id,
                            public_key=public_key)
        self.session.add(row)
        await self.session.flush()
        await self.session.refresh(row)
        return row

    async def of_game(self, game_id: str) -> list[KeyRequestRow]:
        return list((await self.session.execute(select(KeyRequestRow).where(
            KeyRequestRow.game_id == game_id).order_by(KeyRequestRow.created_at))).scalars())
