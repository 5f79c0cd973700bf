"""Stream tickets: short-lived, single-use, kept as SHA-256 digests only."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from service.store.models import StreamTicketRow

FORGET_AFTER = timedelta(hours=1)  # expired tickets are deleted this long after expiry


@dataclass(frozen=True, slots=True)
class Redeemed:
    """What a ticket opened: the digest of the token that asked for it."""

    token_hash: str


class StreamTickets:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, *, ticket_hash: str, game_id: str, token_hash: str,
                  player_id: str | None, expires_at: datetime, now: datetime) -> None:
        """Store a new ticket, and forget tickets long expired."""
        await self.session.execute(delete(StreamTicketRow).where(
            StreamTicketRow.expires_at < now - FORGET_AFTER))
        await self.session.execute(insert(StreamTicketRow).values(
            ticket_hash=ticket_hash, game_id=game_id, token_hash=token_hash,
            player_id=player_id, expires_at=expires_at))

    async def redeem(self, ticket_hash: str, game_id: str, now: datetime
                     ) -> Redeemed | str:
        """Use the ticket once: what it opens, or why it opens nothing ("unknown",
        "used", "expired", "other_game"). Atomic: of two requests with one ticket, one
        wins."""
        won = (await self.session.execute(
            update(StreamTicketRow).where(
                StreamTicketRow.ticket_hash == ticket_hash,
                StreamTicketRow.game_id == game_id, StreamTicketRow.used_at.is_(None),
                StreamTicketRow.expires_at > now)
            .values(used_at=now).returning(StreamTicketRow.token_hash))).first()
        if won is not None:
            return Redeemed(str(won[0]))
        row = (await self.session.execute(select(StreamTicketRow).where(
            StreamTicketRow.ticket_hash == ticket_hash).limit(1))).scalars().first()
        if row is None:
            return "unknown"
        if row.game_id != game_id:
            return "other_game"
        if row.used_at is not None:
            return "used"
        return "expired"
