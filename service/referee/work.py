"""Units of work for the entry points (the API, the command line, the background
clock): `Transactions` opens one per request; use cases take the `UnitOfWork`.

`Reads` runs a read use case on a replica when one is configured and its copy of the
game is at least what the caller knows (docs/scaling.md, "Read replicas"), else on
the primary: a replica behind the caller's version, unreachable, or answering "no such
game" or "unknown token" (which may only be lag: a game or a seat created a moment
ago) hands the read to the primary, so a client never reads older than it wrote."""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Awaitable, Callable
from typing import TypeVar

from service import clock
from service.referee.errors import Denied, NotFound, Unauthorized
from service.store.replicas import Replicas
from service.store.uow import Behind, Transactions, Unavailable, UnitOfWork

__all__ = ["Reads", "Replicas", "Transactions", "UnitOfWork", "read_clock"]
T = TypeVar("T")


class Reads:
    """Where reads run. `served` counts them by where they were answered ("replica",
    "primary") and why a replica's was not taken ("behind", "unreachable", "refused")."""

    def __init__(self, primary: Transactions, replicas: Replicas | None = None) -> None:
        self.primary = primary
        self.replicas = replicas
        self.served: Counter[str] = Counter()

    async def __call__(self, case: Callable[[UnitOfWork], Awaitable[T]], *,
                       min_version: int = 0, min_seq: int = 0) -> T:
        """`case` on a replica at least at `min_version` (and head seq `min_seq`) of the
        game it reads, else on the primary."""
        replica = self.replicas.pick() if self.replicas is not None else None
        if replica is not None:
            try:
                async with replica(min_version=min_version, min_seq=min_seq) as uow:
                    found = await case(uow)
                self.served["replica"] += 1
                return found
            except Behind:
                self.served["behind"] += 1
            except Unavailable:
                assert self.replicas is not None
                self.replicas.failed(replica)
                self.served["unreachable"] += 1
            except (NotFound, Unauthorized, Denied):
                self.served["refused"] += 1
        async with self.primary() as uow:
            found = await case(uow)
        self.served["primary"] += 1
        return found


async def read_clock(uow: UnitOfWork) -> clock.Sample:
    """Sample the database's clock, the game's (`service.clock`)."""
    before = time.monotonic()
    database = await uow.database_clock()
    after = time.monotonic()
    return clock.observe(database, before, after, clock.wall_now())
