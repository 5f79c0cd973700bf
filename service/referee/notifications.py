"""Notifications through a transactional outbox: rows written in the order's own
transaction, delivered after commit by the `Courier`, which is safe with several
processes (each message claimed with FOR UPDATE SKIP LOCKED and leased), with retries
over more than a day (exponential backoff with jitter, `RETRY_DELAYS`), and a delivery
log the owner can read. A webhook whose attempts have all failed for `DISABLE_AFTER`
is disabled until it is registered again. Deadline reminders at 50% and 90% of a step.
The GM's webhook gets every event and deadline notices. Where a message may go, and how
long an attempt may take: `egress`. Time and randomness are injectable (`Clock`,
`Random`) so that the schedule can be tested without waiting."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, cast

import httpx

from service.answers import TestSent
from service.clock import rfc3339, utc_now
from service.crypto import webhooks
from service.referee import channels, egress, members, summaries
from service.referee.errors import Conflict, NotFound
from service.referee.summaries import must_act
from service.referee.webhooks import owner_of as webhooks_owner
from service.rules import State, position
from service.rules.awaiting import AwaitingEntry
from service.rules.awaiting import deadline as step_deadline
from service.store.uow import Transactions, UnitOfWork

log = logging.getLogger("service.notifications")

Clock = Callable[[], datetime]
TestKind = Literal["email", "discord", "slack", "webhook"]
Random = Callable[[], float]  # uniform in [0, 1)

# The wait after the nth failed attempt (of a message, since it was queued or resent):
# the Standard Webhooks schedule, with one more 10-hour wait. With the jitter at its
# least the retries still span 30 hours; at its most, 45.
RETRY_DELAYS: tuple[timedelta, ...] = (
    timedelta(seconds=5), timedelta(minutes=5), timedelta(minutes=30), timedelta(hours=2),
    timedelta(hours=5), timedelta(hours=10), timedelta(hours=10), timedelta(hours=10))
JITTER = 0.2  # each wait is its delay times a uniform factor in [0.8, 1.2)
MAX_ATTEMPTS = len(RETRY_DELAYS) + 1
# A webhook is disabled when an attempt fails and every attempt for this long has failed.
DISABLE_AFTER = timedelta(days=5)
REMINDER_FRACTIONS = (0.5, 0.9)

_system_random: Random = random.SystemRandom().random


def next_attempt(attempts: int, now: datetime, rand: Random = _system_random
                 ) -> datetime | None:
    """When to try again after the `attempts`-th failed attempt at `now` (None: the
    message has failed for good). `rand()` gives the jitter, uniform in [0, 1)."""
    if not 1 <= attempts <= len(RETRY_DELAYS):
        return None
    factor = 1 - JITTER + 2 * JITTER * min(max(rand(), 0.0), 1.0)
    return now + RETRY_DELAYS[attempts - 1] * factor


def _awaits(entries: list[AwaitingEntry], powers: tuple[str, ...]
            ) -> Mapping[str, object] | None:
    for entry in entries:
        if not set(entry["powers"]).isdisjoint(powers):
            return entry
    return None


@dataclass(frozen=True, slots=True)
class Candidates:
    """What a change of a game may notify, before anyone's webhook is looked at: "your
    move" for each seated player newly awaited (or awaited at a new step), by player id,
    and the events message for owners who get every event (None: no events)."""

    moves: dict[str, dict[str, Any]]
    events: dict[str, Any] | None


def candidates(game_id: str, before: State, after: State,
               events: Sequence[Mapping[str, object]], now: datetime) -> Candidates:
    """`Candidates` of a change from `before` to `after` (pure: the order's one call
    and the long way both use it)."""
    moved = position(before) != position(after)
    moves: dict[str, dict[str, Any]] = {}
    now_acting, acting_before = must_act(after), must_act(before)
    for player_id, seat in after.seats.items():
        entry = _awaits(now_acting, tuple(seat.powers))
        if entry is not None and (_awaits(acting_before, tuple(seat.powers)) is None
                                  or moved):
            moves[player_id] = {"type": "game.your_move", "timestamp": rfc3339(now),
                                "data": {"game": game_id, "awaiting": entry,
                                         "position": position(after),
                                         "deadline": step_deadline(after)}}
    message = None
    if events:
        message = {"type": "game.events", "timestamp": rfc3339(now),
                   "data": {"game": game_id, "first_seq": events[0]["seq"],
                            "last_seq": events[-1]["seq"],
                            "kinds": [e["kind"] for e in events]}}
    return Candidates(moves, message)


async def enqueue(uow: UnitOfWork, game_id: str, version: int, before: State,
                  after: State, events: Sequence[Mapping[str, object]]) -> None:
    """In the order's transaction: "your move" for every player with a webhook who is
    newly awaited (or awaited at a new step), and every event for those who asked (the
    GM's webhook: every event, nobody's move); "your move" for each of their
    notification channels too (`channels`), due after the channel's digest wait."""
    hooks = await uow.webhooks.with_powers(game_id)
    found_channels = await uow.channels.of_game(game_id)
    if not hooks and not found_channels:
        return
    now = utc_now()
    found = candidates(game_id, before, after, events, now)
    rows: list[dict[str, Any]] = []
    for channel in found_channels:
        move = found.moves.get(channel.player_id)
        if move is not None:
            rows.append({
                "game_id": game_id, "player_id": channel.player_id, "kind": "your_move",
                "id": f"msg_move_{channel.kind}_{channel.player_id}_{version}",
                "payload": move, "attempts": 0, "failed": False, "channel": channel.kind,
                "next_attempt_at": now + timedelta(minutes=channel.digest_minutes)})
    for hook, powers in hooks:
        move = found.moves.get(hook.player_id) if powers is not None else None
        if move is not None:
            rows.append({"game_id": game_id, "id": f"msg_move_{hook.player_id}_{version}",
                         "player_id": hook.player_id, "kind": "your_move", "payload": move,
                         "attempts": 0, "next_attempt_at": now, "failed": False,
                         "channel": None})
        if found.events is not None and (powers is None or hook.every_event):
            rows.append({"game_id": game_id, "id": f"msg_events_{hook.player_id}_{version}",
                         "player_id": hook.player_id, "kind": "events",
                         "payload": found.events, "attempts": 0, "next_attempt_at": now,
                         "failed": False, "channel": None})
    await uow.outbox.add(rows)


async def enqueue_reminders(uow: UnitOfWork, now: datetime | None = None) -> int:
    """Reminders at 50% and 90% of a deadline, counted from when its clock started (the
    step's start, or a combat question's asking: `rules.clock_started`), once each (ids
    deduplicate), to webhooks and to the players' notification channels (`channel`)."""
    now = now or utc_now()
    rows = []
    for game_id, started, deadline, owner, powers, channel in \
            await uow.outbox.reminder_candidates(now):
        # From the row's summary when current: a big game's state is not loaded here.
        kept = await summaries.state_summary_of(uow, await uow.games.row(game_id))
        if powers is None:  # the GM's webhook: a notice of every side still awaited
            waiting: object = kept["awaiting"]
            kind = "game.deadline_notice"
        else:
            waiting = _awaits(summaries.acting(kept), tuple(powers))
            kind = "game.deadline_reminder"
        if not waiting:
            continue
        for fraction in REMINDER_FRACTIONS:
            if now >= started + (deadline - started) * fraction:
                rows.append({
                    "game_id": game_id,
                    "id": f"msg_remind_{channel + '_' if channel else ''}{owner}_"
                          f"{int(started.timestamp())}_{int(fraction*100)}",
                    "player_id": owner, "kind": "reminder", "channel": channel,
                    "payload": {"type": kind, "timestamp": rfc3339(now),
                                "data": {"game": game_id, "awaiting": waiting,
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
    channel: str | None = None  # None: the owner's Standard Webhook; else `url` is the
    # channel's target (an address, a Discord or Slack URL)
    bundle: tuple[tuple[str, dict[str, Any]], ...] = ()  # a digest: the others sent along


async def claim(uow: UnitOfWork, limit: int, lease: timedelta, now: datetime | None = None
                ) -> list[Due]:
    """Up to `limit` messages due at `now`, leased to this process (SKIP LOCKED)."""
    now = now or utc_now()
    due = [Due(m.game_id, m.id, m.player_id, m.attempts, m.payload, hook.url, hook.secret)
           for m, hook in await uow.outbox.claim_due(now, limit, now + lease)]
    if len(due) >= limit:
        return due
    return due + await _claim_channels(uow, limit - len(due), lease, now)


async def _claim_channels(uow: UnitOfWork, limit: int, lease: timedelta, now: datetime
                          ) -> list[Due]:
    """Due channel messages: held to the end of the channel's quiet hours if it is quiet
    now; a digest channel's message takes along every other one of the channel not yet
    sent (one message then, each logged)."""
    out: list[Due] = []
    taken: set[tuple[str, str]] = set()
    for message, channel in await uow.outbox.claim_channels(now, limit):
        if (message.game_id, message.id) in taken:
            continue
        until = channels.quiet_until(channel, now)
        if until is not None:
            await uow.outbox.hold(message.game_id, message.id, until)
            continue
        bundle: tuple[tuple[str, dict[str, Any]], ...] = ()
        if channel.digest_minutes > 0:
            others = await uow.outbox.pending_of_channel(
                message.game_id, message.player_id, channel.kind, [message.id])
            bundle = tuple((o.id, o.payload) for o in others)
        for outbox_id in [message.id, *(i for i, _ in bundle)]:
            taken.add((message.game_id, outbox_id))
            await uow.outbox.hold(message.game_id, outbox_id, now + lease)
        out.append(Due(message.game_id, message.id, message.player_id, message.attempts,
                       message.payload, channel.target, "", channel.kind, bundle))
    return out


async def record(uow: UnitOfWork, due: Due, status: int | None, error: str | None, *,
                 now: datetime | None = None, rand: Random = _system_random) -> None:
    """Log an attempt made at `now`; the message is delivered, failed for good (after
    `MAX_ATTEMPTS` since it was queued or resent), or due again after a jittered wait.
    A failure may disable the webhook or the channel (`DISABLE_AFTER`)."""
    now = now or utc_now()
    for other, _ in due.bundle:  # a digest's other messages went (or failed) with it
        await _record_one(uow, due.game_id, other, due.player_id, status, error, now, rand)
    recorded = await _record_one(uow, due.game_id, due.id, due.player_id, status, error,
                                 now, rand)
    if not recorded:
        return
    if due.channel is not None:
        await _keep_channel(uow, due, error, now)
        return
    if error is None:
        await uow.webhooks.delivered(due.game_id, due.player_id, due.url)
        return
    since = await uow.webhooks.failing(due.game_id, due.player_id, due.url, now)
    if since is not None and now - since >= DISABLE_AFTER:
        await uow.webhooks.disable(
            due.game_id, due.player_id, at=now,
            reason=f"every delivery attempt since {rfc3339(since)} failed (the last: "
                   f"{error}); register the webhook again (PUT) to enable it")
        log.info("notifications: webhook of %s in %s disabled", due.player_id, due.game_id)


async def _keep_channel(uow: UnitOfWork, due: Due, error: str | None, now: datetime) -> None:
    """A channel's streak of failures, as a webhook's: a delivery ends it, and a channel
    whose every attempt failed for `DISABLE_AFTER` is disabled until it is set again."""
    assert due.channel is not None
    if error is None:
        await uow.channels.delivered(due.game_id, due.player_id, due.channel, due.url)
        return
    since = await uow.channels.failing(due.game_id, due.player_id, due.channel, due.url, now)
    if since is not None and now - since >= DISABLE_AFTER:
        await uow.channels.disable(
            due.game_id, due.player_id, due.channel, at=now,
            reason=f"every delivery attempt since {rfc3339(since)} failed (the last: "
                   f"{error}); set the channel again (PUT) to enable it")
        log.info("notifications: %s channel of %s in %s disabled", due.channel,
                 due.player_id, due.game_id)


async def _record_one(uow: UnitOfWork, game_id: str, outbox_id: str, player_id: str,
                      status: int | None, error: str | None, now: datetime,
                      rand: Random) -> bool:
    """Log an attempt of one outbox message: delivered, failed for good, or due again
    after a jittered wait. False: the message is gone."""
    message = await uow.outbox.lock(game_id, outbox_id)
    if message is None:
        return False
    attempts = message.attempts + 1
    values: dict[str, Any] = {"attempts": attempts}
    if error is None:
        values["delivered_at"] = now
    else:
        retry = next_attempt(attempts, now, rand)
        if retry is None:
            values["failed"] = True
        else:
            values["next_attempt_at"] = retry
    await uow.outbox.attempted(game_id, outbox_id, player_id, at=now, status_code=status,
                               error=error, changes=values)
    return True


async def send(http: httpx.AsyncClient, due: Due, policy: egress.Policy,
               setup: channels.Setup | None = None) -> tuple[int | None, str | None]:
    """One attempt: the receiver's status code, and the error to log (None: delivered)."""
    if due.channel is not None:
        payloads = [due.payload, *(p for _, p in due.bundle)]
        return await channels.send(http, due.channel, due.url, payloads,
                                   setup or channels.Setup(), policy)
    body = json.dumps(due.payload, separators=(",", ":")).encode()
    headers = webhooks.headers(due.secret, due.id, int(utc_now().timestamp()), body)
    try:
        status = await egress.post(http, due.url, body, headers, policy)
    except egress.Failed as failure:
        return None, str(failure)
    return status, None if 200 <= status < 300 else f"HTTP {status}"


async def test_message(uow: UnitOfWork, game_id: str, token: str, kind: str) -> Due:
    """A test message for the caller's channel of `kind`, or its webhook ("webhook"):
    sent at once by `try_test`, never queued (404 when there is no such channel or
    webhook; 409 while it is disabled)."""
    member = await members.member(uow, game_id, token)
    owner = webhooks_owner(member)
    side = member.player.side if member.player is not None else "game master"
    payload = {"type": channels.TEST_TYPE, "timestamp": rfc3339(utc_now()),
               "data": {"game": game_id, "awaiting": {"side": side, "step": "test"},
                        "deadline": None}}
    message_id = f"msg_test_{owner}_{int(utc_now().timestamp())}"
    if kind == "webhook":
        hook = await uow.webhooks.get(game_id, owner)
        if hook is None:
            raise NotFound("webhook/not_found", "no webhook registered")
        if hook.disabled_at is not None:
            raise Conflict("webhook/disabled", "the webhook is disabled: register it again "
                           "(PUT /webhook) to enable it")
        return Due(game_id, message_id, owner, 0, payload, hook.url, hook.secret)
    found = [c for c in await uow.channels.of_player(game_id, owner) if c.kind == kind]
    if not found:
        raise NotFound("channel/not_found", f"you have no {kind} channel")
    if found[0].disabled_at is not None:
        raise Conflict("channel/disabled", f"the {kind} channel is disabled: set it again "
                       f"(PUT /channels/{kind}) to enable it")
    return Due(game_id, message_id, owner, 0, payload, found[0].target, "", kind)


async def try_test(due: Due, policy: egress.Policy, setup: channels.Setup) -> TestSent:
    """One attempt to send a test message, outside any transaction: what the receiver
    answered (quiet hours and digests do not hold a test)."""
    async with egress.client() as http:
        status, error = await send(http, due, policy, setup)
    kind = cast(TestKind, due.channel or "webhook")
    return {"kind": kind, "target": due.url, "delivered": error is None,
            "status_code": status, "error": error}


class Courier:
    """Sends due notifications, apart from the deadline sweeper: at most `concurrency`
    at a time per process, each attempt within the policy's time limit in all, and
    none holding a database connection while a receiver answers (a message is leased
    in one short transaction, its attempt recorded in another). Deadline reminders
    are queued here too. Safe with several processes. `clock` and `rand` (the retry
    jitter) are the real ones unless a test gives its own."""

    def __init__(self, transactions: Transactions, policy: egress.Policy, *,
                 concurrency: int, interval: float, clock: Clock = utc_now,
                 rand: Random = _system_random,
                 channel_setup: channels.Setup | None = None) -> None:
        self.transactions = transactions
        self.channel_setup = channel_setup or channels.Setup()
        self.policy = policy
        self.concurrency = max(1, concurrency)
        self.interval = interval
        self.clock = clock
        self.rand = rand
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

    async def _claim(self, free: int) -> list[Due]:
        claimed: list[Due] = []
        try:
            async with self.transactions() as uow:
                await enqueue_reminders(uow, self.clock())
            if free:
                async with self.transactions() as uow:
                    claimed = await claim(uow, free, self.lease, self.clock())
        except Exception:  # noqa: BLE001 - the database may be away: next tick
            log.exception("notifications: claiming due messages failed")
        return claimed

    async def _tick(self, http: httpx.AsyncClient) -> None:
        free = self.concurrency - len(self.running)
        claimed = await self._claim(free)
        for due in claimed:
            task = asyncio.create_task(self._deliver(http, due))
            self.running.add(task)
            task.add_done_callback(self.running.discard)
        if self.running and len(claimed) == free:  # every slot busy: go on when one frees
            await asyncio.wait(set(self.running), timeout=self.interval,
                               return_when=asyncio.FIRST_COMPLETED)
        else:
            await asyncio.sleep(self.interval)

    async def deliver_due(self, http: httpx.AsyncClient) -> int:
        """One round, waited for: queue the reminders due by the clock, then send every
        message due by it (`concurrency` at a time) and record each attempt. How many
        were sent. For tests and tools that drive the clock themselves."""
        sent = 0
        while claimed := await self._claim(self.concurrency):
            await asyncio.gather(*(self._deliver(http, due) for due in claimed))
            sent += len(claimed)
        return sent

    async def _deliver(self, http: httpx.AsyncClient, due: Due) -> None:
        try:
            status, error = await send(http, due, self.policy, self.channel_setup)
        except Exception:  # noqa: BLE001 - a bug here must not stop the courier
            log.exception("notifications: sending %s failed", due.id)
            status, error = None, egress.NO_ANSWER
        try:
            async with self.transactions() as uow:
                await record(uow, due, status, error, now=self.clock(), rand=self.rand)
        except Exception:  # noqa: BLE001 - sent again when the lease ends
            log.exception("notifications: recording the attempt of %s failed", due.id)
