"""Notifications through a transactional outbox: rows written in the order's own
transaction, delivered after commit by the `Courier`, which is safe with several
processes (each message claimed with FOR UPDATE SKIP LOCKED and leased), with retries
and backoff and a delivery log the player can read. Deadline reminders at 50% and 90%
of a step. Where a message may go, and how long an attempt may take: `egress`."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import httpx

from service.clock import rfc3339, utc_now
from service.crypto import webhooks
from service.referee import egress
from service.rules import State, awaiting, position
from service.store.uow import Transactions, UnitOfWork

log = logging.getLogger("service.notifications")

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


@dataclass(frozen=True, slots=True)
class Due:
    """A message claimed for sending, with where it goes."""

    game_id: str
    id: str
    player_id: str
    attempts: int
    payload: dict[str, Any]
    url: str
    secret: str


async def claim(uow: UnitOfWork, limit: int, lease: timedelta) -> list[Due]:
    """Up to `limit` due messages, leased to this process (SKIP LOCKED)."""
    now = utc_now()
    return [Due(m.game_id, m.id, m.player_id, m.attempts, m.payload, hook.url, hook.secret)
            for m, hook in await uow.outbox.claim_due(now, limit, now + lease)]


async def record(uow: UnitOfWork, due: Due, status: int | None, error: str | None) -> None:
    """Log an attempt; the message is delivered, failed for good, or due again later."""
    attempts = due.attempts + 1
    values: dict[str, Any] = {"attempts": attempts}
    if error is None:
        values["delivered_at"] = utc_now()
    elif attempts >= MAX_ATTEMPTS:
        values["failed"] = True
    else:
        values["next_attempt_at"] = utc_now() + backoff(attempts)
    await uow.outbox.attempted(due.game_id, due.id, due.player_id, attempt=attempts,
                               at=utc_now(), status_code=status, error=error, changes=values)


async def send(http: httpx.AsyncClient, due: Due, policy: egress.Policy
               ) -> tuple[int | None, str | None]:
    """One attempt: the receiver's status code, and the error to log (None: delivered)."""
    body = json.dumps(due.payload, separators=(",", ":")).encode()
    headers = webhooks.headers(due.secret, due.id, int(time.time()), body)
    try:
        status = await egress.post(http, due.url, body, headers, policy)
    except egress.Failed as failure:
        return None, str(failure)
    return status, None if 200 <= status < 300 else f"HTTP {status}"


class Courier:
    """Sends due notifications, apart from the deadline sweeper: at most `concurrency`
    at a time per process, each attempt within the policy's time limit in all, and
    none holding a database connection while a receiver answers (a message is leased
    in one short transaction, its attempt recorded in another). Deadline reminders
    are queued here too. Safe with several processes."""

    def __init__(self, transactions: Transactions, policy: egress.Policy, *,
                 concurrency: int, interval: float) -> None:
        self.transactions = transactions
        self.policy = policy
        self.concurrency = max(1, concurrency)
        self.interval = interval
        self.lease = timedelta(seconds=policy.timeout + 60)
        self.running: set[asyncio.Task[None]] = set()

    async def run(self) -> None:
        """Until cancelled; deliveries in flight are cancelled with it (their messages
        are sent again once the lease ends)."""
        async with egress.client() as http:
            try:
                while True:
                    await self._tick(http)
            finally:
                for task in self.running:
                    task.cancel()
                await asyncio.gather(*self.running, return_exceptions=True)

    async def _tick(self, http: httpx.AsyncClient) -> None:
        free = self.concurrency - len(self.running)
        claimed: list[Due] = []
        try:
            async with self.transactions() as uow:
                await enqueue_reminders(uow)
            if free:
                async with self.transactions() as uow:
                    claimed = await claim(uow, free, self.lease)
        except Exception:  # noqa: BLE001 - the database may be away: next tick
            log.exception("notifications: claiming due messages failed")
        for due in claimed:
            task = asyncio.create_task(self._deliver(http, due))
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        if self.running and len(claimed) == free:  # every slot busy: go on when one frees
            await asyncio.wait(set(self.running), timeout=self.interval,
                               return_when=asyncio.FIRST_COMPLETED)
        else:
            await asyncio.sleep(self.interval)

    async def _deliver(self, http: httpx.AsyncClient, due: Due) -> None:
        try:
            status, error = await send(http, due, self.policy)
        except Exception:  # noqa: BLE001 - a bug here must not stop the courier
            log.exception("notifications: sending %s failed", due.id)
            status, error = None, egress.NO_ANSWER
        try:
            async with self.transactions() as uow:
                await record(uow, due, status, error)
        except Exception:  # noqa: BLE001 - sent again when the lease ends
            log.exception("notifications: recording the attempt of %s failed", due.id)
