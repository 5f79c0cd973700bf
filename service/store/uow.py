"""The unit of work: one transaction, the repositories that work in it, and what it
appended to which game's log, published once after it commits.

`Transactions` is built once (the app's lifespan, a command line tool) from a session
maker and a publisher; `async with transactions() as uow:` begins, commits on a clean
exit, rolls back on an exception and translates the database's failures: a lost or
refused connection is `Unavailable`, data PostgreSQL cannot take (a NUL in text) is
`BadData`, anything else goes on as it is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

import asyncpg
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, InterfaceError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from service.store.commands import Commands
from service.store.dice import DiceSeeds
from service.store.failures import UNREACHABLE, BadData, Unavailable
from service.store.games import Behind, Games
from service.store.log import EventLog
from service.store.orders import Orders
from service.store.players import Players
from service.store.server_keys import ServerKeys
from service.store.tickets import StreamTickets
from service.store.watchers import KeyRequests, Spectators
from service.store.webhooks import Channels, Outbox, Webhooks

if TYPE_CHECKING:
    from service.store.order_call import OrderCall

Publish = Callable[[str, int], None]
__all__ = ["BadData", "Behind", "Publish", "Transactions", "Unavailable", "UnitOfWork"]


class UnitOfWork:
    """The repositories of one transaction. Use cases flush, never commit. On a replica,
    `at_least` is the (version, head seq) the caller knows of a game: reading an older
    copy of it raises `Behind` (store.games)."""

    def __init__(self, session: AsyncSession,
                 at_least: tuple[int, int] | None = None) -> None:
        self.session = session
        self.games = Games(session, at_least)
        self.log = EventLog(session)
        self.orders = Orders(session)
        self.commands = Commands(session)
        self.server_keys = ServerKeys(session)
        self.players = Players(session)
        self.dice = DiceSeeds(session)
        self.webhooks = Webhooks(session)
        self.outbox = Outbox(session)
        self.channels = Channels(session)
        self.tickets = StreamTickets(session)
        self.spectators = Spectators(session)
        self.key_requests = KeyRequests(session)
        self.appended: dict[str, int] = {}  # game id -> newest seq, published after commit

    def appended_to(self, game_id: str, seq: int) -> None:
        self.appended[game_id] = seq

    async def ping(self) -> None:
        await self.session.execute(text("SELECT 1"))

    async def database_clock(self) -> datetime:
        """The database's clock now (not the transaction's start): the game's clock."""
        found: datetime = (await self.session.execute(text("SELECT clock_timestamp()"))
                           ).scalar_one()
        return found


_CONNECTION_ERRORS = UNREACHABLE


def _from_driver(error: BaseException) -> bool:
    """Whether `error` was raised inside the database driver or SQLAlchemy (an OSError
    from anywhere else is a bug to log, not an outage)."""
    tb = error.__traceback__
    while tb is not None:
        module = tb.tb_frame.f_globals.get("__name__", "")
        if module.startswith(("asyncpg", "sqlalchemy")):
            return True
        tb = tb.tb_next
    return False


def unavailable(error: BaseException) -> bool:
    """Whether `error` (or what it wraps) means the database could not be reached."""
    if isinstance(error, InterfaceError):
        return True
    if isinstance(error, DBAPIError):
        if error.connection_invalidated:
            return True
        cause = error.orig.__cause__ if error.orig is not None else None
        return isinstance(cause, _CONNECTION_ERRORS) or isinstance(error.orig,
                                                                   _CONNECTION_ERRORS)
    return isinstance(error, _CONNECTION_ERRORS) and _from_driver(error)


def bad_data(error: BaseException) -> bool:
    """A value PostgreSQL cannot take (SQLSTATE class 22, data exception)."""
    if isinstance(error, DBAPIError) and error.orig is not None:
        cause = error.orig.__cause__
        return isinstance(cause, asyncpg.DataError)
    return isinstance(error, asyncpg.DataError)


class Transactions:
    """Opens units of work; after each commit, publishes what it appended. A replica's
    (`replica`: a read-only standby) take the version and head seq the caller knows of
    the game it reads (`min_version`, `min_seq`): an older copy raises `Behind`."""

    def __init__(self, sessionmaker: async_sessionmaker[Any],
                 publish: Publish | None = None, order_call: OrderCall | None = None,
                 *, replica: bool = False) -> None:
        self.sessionmaker = sessionmaker
        self.publish = publish
        self.order_call = order_call
        self.replica = replica

    @asynccontextmanager
    async def __call__(self, *, min_version: int = 0, min_seq: int = 0
                       ) -> AsyncIterator[UnitOfWork]:
        try:
            async with self.sessionmaker() as session:
                uow = UnitOfWork(session, (min_version, min_seq) if self.replica else None)
                async with session.begin():
                    yield uow
        except Exception as error:
            if unavailable(error):
                raise Unavailable(str(error)) from error
            if bad_data(error):
                raise BadData(str(error)) from error
            raise
        if self.publish is not None:
            for game_id, seq in uow.appended.items():
                self.publish(game_id, seq)
