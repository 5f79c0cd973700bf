"""The server's own Ed25519 keys, which sign receipts. The newest unretired key is
current; retired keys stay listed, so old receipts still verify."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select, text, update
from sqlalchemy.ext.asyncio import AsyncSession

from service.store.models import ServerKeyRow

KEYS_LOCK = 7_230_002  # an advisory lock: processes starting together make one key


class ServerKeys:
    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def all(self) -> list[ServerKeyRow]:
        return list((await self.session.execute(
            select(ServerKeyRow).order_by(ServerKeyRow.created_at))).scalars().all())

    async def current(self) -> ServerKeyRow | None:
        found: ServerKeyRow | None = (await self.session.execute(
            select(ServerKeyRow).where(ServerKeyRow.retired_at.is_(None))
            .order_by(ServerKeyRow.created_at.desc()).limit(1))).scalar_one_or_none()
        return found

    async def lock(self) -> None:
        await self.session.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": KEYS_LOCK})

    def add(self, row: ServerKeyRow) -> None:
        self.session.add(row)

    async def retire_all(self, at: datetime) -> None:
        await self.session.execute(update(ServerKeyRow).where(
            ServerKeyRow.retired_at.is_(None)).values(retired_at=at))
