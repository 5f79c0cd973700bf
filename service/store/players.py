"""Players (seats): who holds which powers, their Ed25519 keys and hashed tokens."""

from __future__ import annotations

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from service.store.models import PlayerRow

# Built once: constructing a statement per request costs more than running it.
_BY_TOKEN = select(PlayerRow).where(PlayerRow.game_id == bindparam("game"),
                                    PlayerRow.token_hash == bindparam("digest"))


class Players:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def by_token(self, game_id: str, digest: str) -> PlayerRow | None:
        found: PlayerRow | None = (await self.session.execute(
            _BY_TOKEN, {"game": game_id, "digest": digest})).scalar_one_or_none()
        return found

    async def game_of_token(self, digest: str) -> str | None:
        """The id of some game a player token with this hash belongs to."""
        found: str | None = await self.session.scalar(
            select(PlayerRow.game_id).where(PlayerRow.token_hash == digest).limit(1))
        return found

    async def get(self, game_id: str, player_id: str) -> PlayerRow | None:
        return await self.session.get(PlayerRow, (game_id, player_id))

    async def of_game(self, game_id: str) -> list[PlayerRow]:
        return list((await self.session.execute(
            select(PlayerRow).where(PlayerRow.game_id == game_id))).scalars().all())

    async def add(self, **values: object) -> None:
        await self.session.execute(insert(PlayerRow).values(**values))

    async def update(self, game_id: str, player_id: str, **values: object) -> None:
        await self.session.execute(update(PlayerRow).where(
            PlayerRow.game_id == game_id, PlayerRow.id == player_id).values(**values))
