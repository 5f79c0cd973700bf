"""Notifications through a transactional outbox: rows written in the order's own
transaction, delivered after commit by a worker that is safe with several processes
(each message claimed with FOR UPDATE SKIP LOCKED), with retries and backoff and a
delivery log the player can read. Deadline reminders at 50% and 90% of a step."""

from __future__ import annotations

import json
import time
from datetime import datetime, timedelta
from typing import Any

import httpx
from sqlalchemy import insert, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.ext.asyncio import AsyncSession

from service.crypto import webhooks
from service.referee.core import rfc3339, utc_now
from service.rules import State
from service.rules.awaiting import awaiting, position
from service.store.models import DeliveryRow, OutboxRow, PlayerRow, WebhookRow

MAX_ATTEMPTS = 8
REMINDER_FRACTIONS = (0.5, 0.9)


def backoff(attempts: int) -> timedelta:
    """1 s, 2 s, 4 s ... capped at 10 minutes."""
    return timedelta(seconds=min(600, 2 ** max(0, attempts - 1)))


def _awaits(state: State, powers: list[str]) -> dict[str, Any] | None:
    for entry in awaiting(state):
        if set(entry["powers"]) & set(powers):
            return entry
    return None


async def enqueue(session: AsyncSession, game_id: str, version: int, before: State,
                  after: State, events: list[dict[str, Any]]) -> None:
    """In the order's transaction: "your move" for every player with a webhook who is
    newly awaited (or awaited at a new step), and every event for those who asked."""
    if session.info.get("webhooks", {}).get(game_id) is False:
        return  # the game's lock read found none (referee.core._lock)
    hooks = (
        await session.execute(
            select(WebhookRow, PlayerRow.powers)
            .join(PlayerRow, (PlayerRow.game_id == WebhookRow.game_id)
                  & (PlayerRow.id == WebhookRow.player_id))
            .where(WebhookRow.game_id == game_id)
        )
    ).all()
    if not hooks:
        return
    now = utc_now()
    rows: list[dict[str, Any]] = []
    for hook, powers in hooks:
        entry = _awaits(after, powers)
        earlier = _awaits(before, powers)
        moved = position(before) != position(after)
        if entry is not None and (earlier is None or moved):
            rows.append({
                "game_id": game_id, "id": f"msg_move_{hook.player_id}_{version}",
                "player_id": hook.player_id, "kind": "your_move",
                "payload": {"type": "game.your_move", "timestamp": rfc3339(now),
                            "data": {"game": game_id, "awaiting": entry,
                                     "position": position(after)}},
                "attempts": 0, "next_attempt_at": now, "failed": False,
            })
        if hook.every_event and events:
            rows.append({
                "game_id": game_id, "id": f"msg_events_{hook.player_id}_{version}",
                "player_id": hook.player_id, "kind": "events",
                "payload": {"type": "game.events", "timestamp": rfc3339(now),
                            "data": {"game": game_id, "first_seq": events[0]["seq"],
                                     "last_seq": events[-1]["seq"],
                                     "kinds": [e["kind"] for e in events]}},
                "attempts": 0, "next_attempt_at": now, "failed": False,
            })
    if rows:
        await session.execute(pg_insert(OutboxRow).values(rows).on_conflict_do_nothing())


async def enqueue_reminders(session: AsyncSession, now: datetime | None = None) -> int:
    """Reminders at 50% and 90% of a step's deadline, once each (ids deduplicate)."""
    now = now or utc_now()
    due = (
        await session.execute(text(
            "SELECT g.id, g.step_started_at, g.next_deadline, w.player_id, p.powers"
            " FROM games g JOIN webhooks w ON w.game_id = g.id"
            " JOIN players p ON p.game_id = w.game_id AND p.id = w.player_id"
            " WHERE g.status = 'active' AND g.next_deadline IS NOT NULL"
            " AND g.step_started_at IS NOT NULL AND g.next_deadline > :now"
            " AND :now >= g.step_started_at + (g.next_deadline - g.step_started_at) * 0.5"
        ), {"now": now})
    ).all()
    rows = []
    for game_id, started, deadline, player_id, powers in due:
        from service.referee.core import get_game, state_of

        game = await get_game(session, game_id)
        entry = _awaits(state_of(game), powers)
        if entry is None:
            continue
        for fraction in REMINDER_FRACTIONS:
            if now >= started + (deadline - started) * fraction:
                rows.append({
                    "game_id": game_id,
                    "id": f"msg_remind_{player_id}_{int(started.timestamp())}_{int(fraction*100)}",
                    "player_id": player_id, "kind": "reminder",
                    "payload": {"type": "game.deadline_reminder", "timestamp": rfc3339(now),
                                "data": {"game": game_id, "awaiting": entry,
                                         "deadline": rfc3339(deadline),
                                         "elapsed": f"{int(fraction * 100)}%"}},
                    "attempts": 0, "next_attempt_at": now, "failed": False,
                })
    if rows:
        await session.execute(pg_insert(OutboxRow).values(rows).on_conflict_do_nothing())
    return len(rows)


async def deliver_due(session: AsyncSession, client: httpx.AsyncClient,
                      now: datetime | None = None, limit: int = 20) -> int:
    """Send due messages; each is claimed with SKIP LOCKED so one process sends it."""
    now = now or utc_now()
    claimed = (
        await session.execute(
            select(OutboxRow, WebhookRow)
            .join(WebhookRow, (WebhookRow.game_id == OutboxRow.game_id)
                  & (WebhookRow.player_id == OutboxRow.player_id))
            .where(OutboxRow.delivered_at.is_(None), OutboxRow.failed.is_(False),
                   OutboxRow.next_attempt_at <= now)
            .order_by(OutboxRow.next_attempt_at)
            .limit(limit)
            .with_for_update(of=OutboxRow, skip_locked=True)
        )
    ).all()
    for message, hook in claimed:
        body = json.dumps(message.payload, separators=(",", ":")).encode()
        stamp = int(time.time())
        status: int | None = None
        error: str | None = None
        try:
            response = await client.post(hook.url, content=body, timeout=5.0,
                                         headers=webhooks.headers(hook.secret, message.id,
                                                                  stamp, body))
            status = response.status_code
            if not 200 <= status < 300:
                error = f"HTTP {status}"
        except httpx.HTTPError as failure:
            error = f"{type(failure).__name__}: {failure}"[:500]
        attempts = message.attempts + 1
        await session.execute(insert(DeliveryRow).values(
            game_id=message.game_id, outbox_id=message.id, attempt=attempts,
            player_id=message.player_id, at=utc_now(), status_code=status, error=error))
        values: dict[str, Any] = {"attempts": attempts}
        if error is None:
            values["delivered_at"] = utc_now()
        elif attempts >= MAX_ATTEMPTS:
            values["failed"] = True
        else:
            values["next_attempt_at"] = utc_now() + backoff(attempts)
        await session.execute(update(OutboxRow).where(
            OutboxRow.game_id == message.game_id, OutboxRow.id == message.id).values(**values))
    return len(claimed)
