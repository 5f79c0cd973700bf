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

from service.clock import rfc3339, utc_now
from service.crypto import webhooks
from service.rules import State, awaiting, position
from service.store.uow import UnitOfWork

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


async def enqueue(uow: UnitOfWork, game_id: str, version: int, before: State,
                  after: State, events: list[dict[str, Any]]) -> None:
    """In the order's transaction: "your move" for every player with a webhook who is
    newly awaited (or awaited at a new step), and every event for those who asked."""
    hooks = await uow.webhooks.with_powers(game_id)
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
    await uow.outbox.add(rows)


async def enqueue_reminders(uow: UnitOfWork, now: datetime | None = None) -> int:
    """Reminders at 50% and 90% of a step's deadline, once each (ids deduplicate)."""
    now = now or utc_now()
    rows = []
    for game_id, started, deadline, player_id, powers in \
            await uow.outbox.reminder_candidates(now):
        game = await uow.games.get(game_id)
        entry = _awaits(game.state, powers)
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
    await uow.outbox.add(rows)
    return len(rows)


async def deliver_due(uow: UnitOfWork, client: httpx.AsyncClient,
                      now: datetime | None = None, limit: int = 20) -> int:
    """Send due messages; each is claimed with SKIP LOCKED so one process sends it."""
    now = now or utc_now()
    claimed = await uow.outbox.claim_due(now, limit)
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
        values: dict[str, Any] = {"attempts": attempts}
        if error is None:
            values["delivered_at"] = utc_now()
        elif attempts >= MAX_ATTEMPTS:
            values["failed"] = True
        else:
            values["next_attempt_at"] = utc_now() + backoff(attempts)
        await uow.outbox.attempted(message, attempt=attempts, at=utc_now(),
                                   status_code=status, error=error, changes=values)
    return len(claimed)
