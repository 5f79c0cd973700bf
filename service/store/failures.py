"""The database's failures as the referee sees them, and which of the driver's errors
mean "not reachable now" (every path answers those with 503 and Retry-After)."""

from __future__ import annotations

import asyncpg


class Unavailable(Exception):
    """The database cannot be reached (retry shortly)."""


class BadData(Exception):
    """PostgreSQL refused a value it cannot store (say, a NUL character in text)."""


# asyncpg's errors that say the server cannot be reached now: the connection's own
# (SQLSTATE class 08, a socket refused, reset or closed), the server starting up or
# shutting down (57P03, "the database system is starting up"), an administrator's or a
# crash's shutdown (57P01, 57P02), too many connections for now (53300), and a connect
# that timed out.
UNREACHABLE: tuple[type[BaseException], ...] = (
    OSError, ConnectionError, TimeoutError, asyncpg.InterfaceError,
    asyncpg.PostgresConnectionError, asyncpg.CannotConnectNowError,
    asyncpg.AdminShutdownError, asyncpg.CrashShutdownError,
    asyncpg.TooManyConnectionsError,
)
