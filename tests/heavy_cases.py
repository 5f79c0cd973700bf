"""Use cases for the heavy-request tests (tests/api/test_heavy.py): module-level, so a
worker process imports them by name."""

from __future__ import annotations

import asyncio
import os

from service.referee.errors import NotFound
from service.referee.work import UnitOfWork


async def slow(uow: UnitOfWork, seconds: float, tag: str) -> bytes:
    """Answers `tag` after `seconds`, having asked the database (a worker's own)."""
    await uow.ping()
    await asyncio.sleep(seconds)
    return f'{{"tag": "{tag}", "pid": {os.getpid()}}}'.encode()


async def refuse(uow: UnitOfWork, what: str) -> bytes:
    raise NotFound("test/nothing", f"no {what}", errors=[("/what", "unknown")],
                   extra={"what": what})


async def crash(uow: UnitOfWork) -> bytes:
    os._exit(3)


async def niceness(uow: UnitOfWork) -> bytes:
    """The worker's nice value."""
    return str(os.nice(0)).encode()
