"""Webhooks, the transactional outbox of notifications, and each delivery attempt."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import delete, insert, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from service.store.models import DeliveryRow, OutboxRow, PlayerRow, WebhookRow


class Webhooks:
    """Each player's webhook (one per player and game)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def put(self, game_id: str, player_id: str, *, url: str, secret: str,
                  every_event: bool) -> None:
        await self.session.execute(
            pg_insert(WebhookRow).values(game_id=game_id, player_id=player_id, url=url,
                                         secret=secret, every_event=every_event)
            .on_conflict_do_update(index_elements=["game_id", "player_id"],
                                   set_={"url": url, "secret": secret,
                                         "every_event": every_event}))

    async def get(self, game_id: str, player_id: str) -> WebhookRow | None:
        return await self.session.get(WebhookRow, (game_id, player_id))

    async def delete(self, game_id: str, player_id: str) -> None:
        await self.session.execute(delete(WebhookRow).where(
            WebhookRow.game_id == game_id, WebhookRow.player_id == player_id))

    async def with_powers(self, game_id: str) -> list[tuple[WebhookRow, list[str]]]:
        """The game's webhooks, each with the powers its player holds."""
        rows = await self.session.execute(
            select(WebhookRow, PlayerRow.powers)
            .join(PlayerRow, (PlayerRow.game_id == WebhookRow.game_id)
                  & (PlayerRow.id == WebhookRow.player_id))
            .where(WebhookRow.game_id == game_id))
        return [(hook, list(powers)) for hook, powers in rows.all()]


class Outbox:
    """Notifications written in an order's transaction and delivered after commit."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, rows: Sequence[dict[str, Any]]) -> None:
        """New messages; a message whose id exists already is not written again."""
        if rows:
            await self.session.execute(
                pg_insert(OutboxRow).values(list(rows)).on_conflict_do_nothing())

    async def reminder_candidates(self, now: datetime
                                  ) -> list[tuple[str, datetime, datetime, str, list[str]]]:
        """(game, step started, deadline, player, powers) for every webhook of an active
        game past half of its step's deadline."""
        rows = await self.session.execute(text(
            "SELECT g.id, g.step_started_at, g.next_deadline, w.player_id, p.powers"
            " FROM games g JOIN webhooks w ON w.game_id = g.id"
            " JOIN players p ON p.game_id = w.game_id AND p.id = w.player_id"
            " WHERE g.status = 'active' AND g.next_deadline IS NOT NULL"
            " AND g.step_started_at IS NOT NULL AND g.next_deadline > :now"
            " AND :now >= g.step_started_at + (g.next_deadline - g.step_started_at) * 0.5"
        ), {"now": now})
        return [(g, started, deadline, player, list(powers))
                for g, started, deadline, player, powers in rows.all()]

    async def claim_due(self, now: datetime, limit: int, lease_until: datetime
                        ) -> list[tuple[OutboxRow, WebhookRow]]:
        """Due messages with their webhook, each claimed with SKIP LOCKED and leased
        (not due again before `lease_until`) so that one process sends it, outside this
        transaction; a process that dies while sending leaves it to be retried."""
        rows = (await self.session.execute(
            select(OutboxRow, WebhookRow)
            .join(WebhookRow, (WebhookRow.game_id == OutboxRow.game_id)
                  & (WebhookRow.player_id == OutboxRow.player_id))
            .where(OutboxRow.delivered_at.is_(None), OutboxRow.failed.is_(False),
                   OutboxRow.next_attempt_at <= now)
            .order_by(OutboxRow.next_attempt_at).limit(limit)
            .with_for_update(of=OutboxRow, skip_locked=True))).all()
        for message, _ in rows:
            await self.session.execute(update(OutboxRow).where(
                OutboxRow.game_id == message.game_id, OutboxRow.id == message.id)
                .values(next_attempt_at=lease_until))
        return [(message, hook) for message, hook in rows]

    async def attempted(self, game_id: str, outbox_id: str, player_id: str, *, attempt: int,
                        at: datetime, status_code: int | None, error: str | None,
                        changes: dict[str, Any]) -> None:
        """Log one delivery attempt and update the message (`changes`)."""
        await self.session.execute(insert(DeliveryRow).values(
            game_id=game_id, outbox_id=outbox_id, attempt=attempt,
            player_id=player_id, at=at, status_code=status_code, error=error))
        await self.session.execute(update(OutboxRow).where(
            OutboxRow.game_id == game_id, OutboxRow.id == outbox_id).values(**changes))

    async def of_player(self, game_id: str, player_id: str, limit: int
                        ) -> tuple[list[OutboxRow], list[DeliveryRow]]:
        """A player's newest messages and every attempt made for them."""
        messages = (await self.session.execute(
            select(OutboxRow).where(OutboxRow.game_id == game_id,
                                    OutboxRow.player_id == player_id)
            .order_by(OutboxRow.created_at.desc(), OutboxRow.id).limit(limit))).scalars().all()
        attempts = (await self.session.execute(
            select(DeliveryRow).where(DeliveryRow.game_id == game_id,
                                      DeliveryRow.player_id == player_id)
            .order_by(DeliveryRow.at))).scalars().all()
        return list(messages), list(attempts)
