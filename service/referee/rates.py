"""Request budgets: token buckets per key (a known token, or a client address), either
kept by this process alone (`LocalBudget`: N processes allow N times the rate) or
shared by every process through PostgreSQL (`SharedBudget`, the default).

A shared budget leases tokens: it takes up to `lease` tokens at a time from the shared
bucket in one statement (service.store.rates) and spends them here, so a client costs
one statement per lease, not one per request. A leased token not spent within
`LEASE_SECONDS` is dropped, so no process hoards a burst. A refused lease blocks the key
here until the bucket will have a lease's worth of tokens again (at most a second's
worth): a flood of refused requests costs one statement per lease, as granted ones do
(in the attack benchmark the statements of refusals had taken a sixth of the serving
process's time). The shared limit is never exceeded (every request spends a token the
shared bucket granted); a client can at most lose the unspent rest of a lease. When
PostgreSQL cannot be reached, the key falls back to this process's own bucket."""

from __future__ import annotations

import asyncio
import logging
import math
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Protocol

from service.store.rates import Grant, RateBuckets

log = logging.getLogger("service.rates")
LEASE_SECONDS = 1.0
LEASE_MAX = 10
DOWN_SECONDS = 5.0


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether a request may go on, and what the RateLimit headers say: the tokens
    left (for a shared budget, as this process last learnt), the seconds until the
    bucket is full again, and, when refused, the seconds until one token is there."""

    allowed: bool
    remaining: int
    reset: int
    retry_after: int = 0


class Budget(Protocol):
    rate: float
    burst: int

    async def take(self, key: str, now: float) -> Verdict: ...


def _verdict(rate: float, burst: int, tokens: float, wait: float = 0.0) -> Verdict:
    remaining = max(0, math.floor(tokens))
    reset = math.ceil(max(0.0, burst - tokens) / rate)
    if wait > 0:
        return Verdict(False, remaining, reset, max(1, math.ceil(wait)))
    return Verdict(True, remaining, reset)


class LocalBudget:
    """Token buckets of this process (monotonic clock)."""

    def __init__(self, rate: float, burst: int, max_keys: int = 100_000) -> None:
        self.rate = rate
        self.burst = burst
        self.max_keys = max_keys
        self.buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def spend(self, key: str, now: float) -> Verdict:
        tokens, stamp = self.buckets.get(key, (float(self.burst), now))
        tokens = min(float(self.burst), tokens + (now - stamp) * self.rate)
        if tokens >= 1:
            self.buckets[key] = (tokens - 1, now)
            self.buckets.move_to_end(key)
            if len(self.buckets) > self.max_keys:
                self.buckets.popitem(last=False)
            return _verdict(self.rate, self.burst, tokens - 1)
        self.buckets[key] = (tokens, now)
        return _verdict(self.rate, self.burst, tokens, (1 - tokens) / self.rate)

    async def take(self, key: str, now: float) -> Verdict:
        return self.spend(key, now)


@dataclass
class _Lease:
    left: int = 0
    until: float = 0.0
    blocked_until: float = 0.0
    shared_left: float = 0.0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class SharedBudget:
    """Buckets shared by every process, leased `lease` tokens at a time."""

    def __init__(self, buckets: RateBuckets, rate: float, burst: int,
                 max_keys: int = 100_000) -> None:
        self.shared = buckets
        self.rate = rate
        self.burst = burst
        self.lease = max(1, min(LEASE_MAX, burst // 20))
        self.max_keys = max_keys
        self.leases: OrderedDict[str, _Lease] = OrderedDict()
        self.fallback = LocalBudget(rate, burst, max_keys)
        self.statements = 0
        self._down_until = 0.0  # after a failure, this process's buckets for a while

    def _lease_of(self, key: str) -> _Lease:
        found = self.leases.get(key)
        if found is None:
            found = self.leases[key] = _Lease()
            if len(self.leases) > self.max_keys:
                self.leases.popitem(last=False)
        self.leases.move_to_end(key)
        return found

    def _spend(self, lease: _Lease, now: float) -> Verdict | None:
        if lease.blocked_until > now:
            return _verdict(self.rate, self.burst, 0.0, lease.blocked_until - now)
        if lease.left > 0 and lease.until > now:
            lease.left -= 1
            return _verdict(self.rate, self.burst, lease.left + lease.shared_left)
        return None

    async def take(self, key: str, now: float) -> Verdict:
        if self._down_until > now:
            return self.fallback.spend(key, now)
        lease = self._lease_of(key)
        found = self._spend(lease, now)
        if found is not None:
            return found
        async with lease.lock:  # one lease at a time per key in this process
            found = self._spend(lease, now)
            if found is not None:
                return found
            try:
                self.statements += 1
                grant: Grant = await self.shared.take(key, self.lease, rate=self.rate,
                                                      burst=self.burst)
            except Exception as error:  # noqa: BLE001 - the database is away
                log.warning("shared rate limits unavailable for %.0f s; limiting per "
                            "process: %s", DOWN_SECONDS, type(error).__name__)
                self._down_until = now + DOWN_SECONDS
                return self.fallback.spend(key, now)
        if grant.granted == 0:
            # Blocked until a whole lease is due (or a second's worth of tokens, when
            # that is fewer: Retry-After counts whole seconds), not one token: a client
            # that keeps asking after its 429 then costs one statement per lease here
            # too, and still gets the rate, a lease at a time.
            due = min(float(self.lease), max(1.0, self.rate))
            lease.left = 0
            lease.blocked_until = now + (due - grant.left) / self.rate
            return _verdict(self.rate, self.burst, grant.left, lease.blocked_until - now)
        lease.left, lease.until, lease.shared_left = grant.granted - 1, now + LEASE_SECONDS, \
            grant.left
        return _verdict(self.rate, self.burst, lease.left + grant.left)
