"""Streaming replicas for reads (`DATABASE_REPLICA_URL`): one read-only engine each,
taken in turn. A replica that could not be reached is left out for a few seconds (its
reads go to the primary meanwhile), so a dead replica costs one failed connection
every few seconds, not one per read."""

from __future__ import annotations

import time
from collections.abc import Sequence

from service.store.database import make_engine, make_sessionmaker
from service.store.uow import Transactions

REST_SECONDS = 5.0


class Replicas:
    def __init__(self, urls: Sequence[str], *, pool_size: int = 10,
                 rest: float = REST_SECONDS) -> None:
        self.engines = [make_engine(url, pool_size=pool_size, read_only=True) for url in urls]
        self.transactions = [Transactions(make_sessionmaker(engine), replica=True)
                             for engine in self.engines]
        self.rest = rest
        self._turn = 0
        self._resting: dict[int, float] = {}

    def pick(self) -> Transactions | None:
        """The next replica not resting after a failure, or None."""
        now = time.monotonic()
        for _ in range(len(self.transactions)):
            k = self._turn % len(self.transactions)
            self._turn += 1
            if self._resting.get(k, 0.0) <= now:
                return self.transactions[k]
        return None

    def failed(self, replica: Transactions) -> None:
        """`replica` could not be reached: leave it out for `rest` seconds."""
        self._resting[self.transactions.index(replica)] = time.monotonic() + self.rest

    async def dispose(self) -> None:
        for engine in self.engines:
            await engine.dispose()
