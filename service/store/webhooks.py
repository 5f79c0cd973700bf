"""Webhooks, the transactional outbox of notifications, and each delivery attempt."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import (
    DateTime,
    Integer,
    Text,
    delete,
    func,
    insert,
    literal,
    select,
    text,
    update,
)
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.sql.elements import ColumnElement

from service.store.models import (
    GM_OWNER,
    ChannelRow,
    DeliveryRow,
    OutboxRow,
    PlayerRow,
    WebhookRow,
)


class Webhooks:
    """Each player's webhook and the GM's (one per owner and game; the GM's owner id is
    `models.GM_OWNER`)."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def put(self, game_id: str, player_id: str, *, url: str, secret: str,
                  every_event: bool) -> None:
        """Register or replace; either way the webhook is active with a clean record."""
        fresh = {"url": url, "secret": secret, "every_event": every_event,
                 "failing_since": None, "disabled_at": None, "disabled_reason": None}
        await self.session.execute(
            pg_insert(WebhookRow).values(game_id=game_id, player_id=player_id, **fresh)
            .on_conflict_do_update(index_elements=["game_id", "player_id"], set_=fresh))

    async def get(self, game_id: str, player_id: str) -> WebhookRow | None:
        return await self.session.get(WebhookRow, (game_id, player_id))

    async def delete(self, game_id: str, player_id: str) -> None:
        await self.session.execute(delete(WebhookRow).where(
            WebhookRow.game_id == game_id, WebhookRow.player_id == player_id))

    async def with_powers(self, game_id: str) -> list[tuple[WebhookRow, list[str] | None]]:
        """The game's active webhooks, each with the powers its player holds (None: the
        GM's)."""
        rows = await self.session.execute(
            select(WebhookRow, PlayerRow.powers)
            .outerjoin(PlayerRow, (PlayerRow.game_id == WebhookRow.game_id)
                       & (PlayerRow.id == WebhookRow.player_id))
            .where(WebhookRow.game_id == game_id, WebhookRow.disabled_at.is_(None)))
        return [(hook, None if powers is None else list(powers))
                for hook, powers in rows.all()]

    async def delivered(self, game_id: str, player_id: str, url: str) -> None:
        """An attempt to `url` was delivered: the failing streak, if any, ends."""
        await self.session.execute(update(WebhookRow).where(
            WebhookRow.game_id == game_id, WebhookRow.player_id == player_id,
            WebhookRow.url == url, WebhookRow.failing_since.is_not(None))
            .values(failing_since=None))

    async def failing(self, game_id: str, player_id: str, url: str, now: datetime
                      ) -> datetime | None:
        """An attempt to `url` failed at `now`: when the webhook's failing streak began
        (now, if this attempt begins it). None if the webhook is gone, disabled, or was
        registered again with another URL meanwhile."""
        since: datetime | None = await self.session.scalar(
            update(WebhookRow).where(
                WebhookRow.game_id == game_id, WebhookRow.player_id == player_id,
                WebhookRow.url == url, WebhookRow.disabled_at.is_(None))
            .values(failing_since=func.coalesce(WebhookRow.failing_since, now))
            .returning(WebhookRow.failing_since))
        return since

    async def disable(self, game_id: str, player_id: str, *, at: datetime,
                      reason: str) -> None:
        """Disable the webhook; its pending messages fail (the owner may resend them)."""
        await self.session.execute(update(WebhookRow).where(
            WebhookRow.game_id == game_id, WebhookRow.player_id == player_id)
            .values(disabled_at=at, disabled_reason=reason))
        await self.session.execute(update(OutboxRow).where(
            OutboxRow.game_id == game_id, OutboxRow.player_id == player_id,
            OutboxRow.delivered_at.is_(None), OutboxRow.failed.is_(False))
            .values(failed=True))


class Channels:
    """Each player's notification channels (issue 20): one per kind and player."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def put(self, game_id: str, player_id: str, kind: str, **values: object) -> None:
        """Set or replace; either way the channel is active with a clean record."""
        fresh = {**values, "failing_since": None, "disabled_at": None,
                 "disabled_reason": None}
        await self.session.execute(
            pg_insert(ChannelRow).values(game_id=game_id, player_id=player_id, kind=kind,
                                         **fresh)
            .on_conflict_do_update(index_elements=["game_id", "player_id", "kind"],
                                   set_=fresh))

    def _this(self, game_id: str, player_id: str, kind: str, target: str
              ) -> tuple[ColumnElement[bool], ...]:
        return (ChannelRow.game_id == game_id, ChannelRow.player_id == player_id,
                ChannelRow.kind == kind, ChannelRow.target == target)

    async def delivered(self, game_id: str, player_id: str, kind: str, target: str) -> None:
        """A message to `target` went: the failing streak, if any, ends."""
        await self.session.execute(update(ChannelRow).where(
            *self._this(game_id, player_id, kind, target),
            ChannelRow.failing_since.is_not(None)).values(failing_since=None))

    async def failing(self, game_id: str, player_id: str, kind: str, target: str,
                      now: datetime) -> datetime | None:
        """A message to `target` failed at `now`: when the channel's failing streak
        began. None if the channel is gone, disabled, or set again to another target."""
        since: datetime | None = await self.session.scalar(
            update(ChannelRow).where(*self._this(game_id, player_id, kind, target),
                                     ChannelRow.disabled_at.is_(None))
            .values(failing_since=func.coalesce(ChannelRow.failing_since, now))
            .returning(ChannelRow.failing_since))
        return since

    async def disable(self, game_id: str, player_id: str, kind: str, *, at: datetime,
                      reason: str) -> None:
        """Disable the channel; its pending messages fail."""
        await self.session.execute(update(ChannelRow).where(
            ChannelRow.game_id == game_id, ChannelRow.player_id == player_id,
            ChannelRow.kind == kind).values(disabled_at=at, disabled_reason=reason))
        await self.session.execute(update(OutboxRow).where(
            OutboxRow.game_id == game_id, OutboxRow.player_id == player_id,
            OutboxRow.channel == kind, OutboxRow.delivered_at.is_(None),
            OutboxRow.failed.is_(False)).values(failed=True))

    async def of_player(self, game_id: str, player_id: str) -> list[ChannelRow]:
        return list((await self.session.execute(
            select(ChannelRow).where(ChannelRow.game_id == game_id,
                                     ChannelRow.player_id == player_id)
            .order_by(ChannelRow.kind))).scalars().all())

    async def of_game(self, game_id: str) -> list[ChannelRow]:
        """The game's channels that are not disabled."""
        return list((await self.session.execute(
            select(ChannelRow).where(ChannelRow.game_id == game_id,
                                     ChannelRow.disabled_at.is_(None)))).scalars().all())

    async def delete(self, game_id: str, player_id: str, kind: str) -> bool:
        gone = await self.session.execute(delete(ChannelRow).where(
            ChannelRow.game_id == game_id, ChannelRow.player_id == player_id,
            ChannelRow.kind == kind).returning(ChannelRow.kind))
        return gone.first() is not None


class Outbox:
    """Notifications written in an order's transaction and delivered after commit."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def add(self, rows: Sequence[dict[str, Any]]) -> None:
        """New messages; a message whose id exists already is not written again."""
        if rows:
            await self.session.execute(
                pg_insert(OutboxRow).values(list(rows)).on_conflict_do_nothing())

    async def reminder_candidates(
        self, now: datetime
    ) -> list[tuple[str, datetime, datetime, str, list[str] | None, str | None]]:
        """(game, clock started, deadline, owner, powers, channel) for every active
        webhook (channel None) and every player's notification channel of an active game
        past half of its deadline, counted from when its clock started: the step's
        start or a combat question's asking (powers None: the GM's webhook)."""
        rows = await self.session.execute(text(
            "SELECT g.id, g.step_started_at, g.next_deadline, w.player_id, p.powers,"
            " NULL AS channel"
            " FROM games g JOIN webhooks w ON w.game_id = g.id"
            " LEFT JOIN players p ON p.game_id = w.game_id AND p.id = w.player_id"
            " WHERE g.status = 'active' AND g.next_deadline IS NOT NULL"
            " AND w.disabled_at IS NULL"
            " AND (p.id IS NOT NULL OR w.player_id = :gm)"
            " AND g.step_started_at IS NOT NULL AND g.next_deadline > :now"
            " AND :now >= g.step_started_at + (g.next_deadline - g.step_started_at) * 0.5"
            " UNION ALL"
            " SELECT g.id, g.step_started_at, g.next_deadline, c.player_id, p.powers, c.kind"
            " FROM games g JOIN channels c ON c.game_id = g.id"
            " JOIN players p ON p.game_id = c.game_id AND p.id = c.player_id"
            " WHERE g.status = 'active' AND g.next_deadline IS NOT NULL"
            " AND c.disabled_at IS NULL"
            " AND g.step_started_at IS NOT NULL AND g.next_deadline > :now"
            " AND :now >= g.step_started_at + (g.next_deadline - g.step_started_at) * 0.5"
        ), {"now": now, "gm": GM_OWNER})
        return [(g, started, deadline, owner, None if powers is None else list(powers),
                 channel)
                for g, started, deadline, owner, powers, channel in rows.all()]

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
                   OutboxRow.channel.is_(None),
                   OutboxRow.next_attempt_at <= now, WebhookRow.disabled_at.is_(None))
            .order_by(OutboxRow.next_attempt_at).limit(limit)
            .with_for_update(of=OutboxRow, skip_locked=True))).all()
        for message, _ in rows:
            await self.session.execute(update(OutboxRow).where(
                OutboxRow.game_id == message.game_id, OutboxRow.id == message.id)
                .values(next_attempt_at=lease_until))
        return [(message, hook) for message, hook in rows]

    async def claim_channels(self, now: datetime, limit: int
                             ) -> list[tuple[OutboxRow, ChannelRow]]:
        """Due messages of notification channels with their channel, locked (SKIP
        LOCKED); the caller leases them or holds them through quiet hours."""
        rows = (await self.session.execute(
            select(OutboxRow, ChannelRow)
            .join(ChannelRow, (ChannelRow.game_id == OutboxRow.game_id)
                  & (ChannelRow.player_id == OutboxRow.player_id)
                  & (ChannelRow.kind == OutboxRow.channel))
            .where(OutboxRow.delivered_at.is_(None), OutboxRow.failed.is_(False),
                   OutboxRow.channel.is_not(None), OutboxRow.next_attempt_at <= now,
                   ChannelRow.disabled_at.is_(None))
            .order_by(OutboxRow.next_attempt_at).limit(limit)
            .with_for_update(of=OutboxRow, skip_locked=True))).all()
        return [(message, channel) for message, channel in rows]

    async def pending_of_channel(self, game_id: str, player_id: str, channel: str,
                                 but: Sequence[str]) -> list[OutboxRow]:
        """The channel's other messages not yet sent (a digest takes them along),
        locked (SKIP LOCKED)."""
        return list((await self.session.execute(
            select(OutboxRow).where(
                OutboxRow.game_id == game_id, OutboxRow.player_id == player_id,
                OutboxRow.channel == channel, OutboxRow.delivered_at.is_(None),
                OutboxRow.failed.is_(False), OutboxRow.id.not_in(list(but)))
            .order_by(OutboxRow.created_at, OutboxRow.id)
            .with_for_update(skip_locked=True))).scalars().all())

    async def hold(self, game_id: str, outbox_id: str, until: datetime) -> None:
        """Not due before `until` (a lease, or the end of quiet hours)."""
        await self.session.execute(update(OutboxRow).where(
            OutboxRow.game_id == game_id, OutboxRow.id == outbox_id)
            .values(next_attempt_at=until))

    async def lock(self, game_id: str, outbox_id: str) -> OutboxRow | None:
        """The message, locked until the end of the transaction (its attempts are
        recorded one at a time, even when a resend raced with an attempt in flight)."""
        found: OutboxRow | None = (await self.session.execute(
            select(OutboxRow).where(OutboxRow.game_id == game_id, OutboxRow.id == outbox_id)
            .with_for_update().execution_options(populate_existing=True))).scalar_one_or_none()
        return found

    async def attempted(self, game_id: str, outbox_id: str, player_id: str, *,
                        at: datetime, status_code: int | None, error: str | None,
                        changes: Mapping[str, object]) -> None:
        """Log one delivery attempt (numbered after every earlier one of the message,
        across resends) and update the (locked) message with `changes`."""
        number = (select(func.coalesce(func.max(DeliveryRow.attempt), 0) + 1)
                  .where(DeliveryRow.game_id == game_id, DeliveryRow.outbox_id == outbox_id)
                  .scalar_subquery())
        await self.session.execute(insert(DeliveryRow).from_select(
            ["game_id", "outbox_id", "attempt", "player_id", "at", "status_code", "error"],
            select(literal(game_id), literal(outbox_id), number, literal(player_id),
                   literal(at, DateTime(timezone=True)), literal(status_code, Integer),
                   literal(error, Text))))
        await self.session.execute(update(OutboxRow).where(
            OutboxRow.game_id == game_id, OutboxRow.id == outbox_id).values(**changes))

    async def of_owner(self, game_id: str, player_id: str, outbox_id: str
                       ) -> OutboxRow | None:
        """One message of this owner (None: no such message, or another's)."""
        found: OutboxRow | None = (await self.session.execute(
            select(OutboxRow).where(OutboxRow.game_id == game_id, OutboxRow.id == outbox_id,
                                    OutboxRow.player_id == player_id)
            .with_for_update().execution_options(populate_existing=True))).scalar_one_or_none()
        return found

    async def requeue(self, game_id: str, outbox_id: str, now: datetime) -> None:
        """Send the message again from `now`, its retry schedule started anew."""
        await self.session.execute(update(OutboxRow).where(
            OutboxRow.game_id == game_id, OutboxRow.id == outbox_id)
            .values(delivered_at=None, failed=False, attempts=0, next_attempt_at=now))

    async def attempts_of(self, game_id: str, outbox_id: str) -> list[DeliveryRow]:
        return list((await self.session.execute(
            select(DeliveryRow).where(DeliveryRow.game_id == game_id,
                                      DeliveryRow.outbox_id == outbox_id)
            .order_by(DeliveryRow.attempt))).scalars().all())

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
            .order_by(DeliveryRow.outbox_id, DeliveryRow.attempt))).scalars().all()
        return list(messages), list(attempts)
