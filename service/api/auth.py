"""The HTTP side of who the caller is: the bearer token, and the unit of work a request
runs in. Who the token belongs to is the referee's business (`referee.members`)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import TypeVar

from fastapi import Request

from service.api.problems import Problem
from service.referee.work import Reads, Transactions, UnitOfWork

T = TypeVar("T")


def bearer(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Problem(401, "auth/missing_token", "send Authorization: Bearer <token>",
                      headers={"WWW-Authenticate": "Bearer"})
    return token.strip()


def work(request: Request) -> AbstractAsyncContextManager[UnitOfWork]:
    """The request's unit of work: one transaction, committed when the route returns."""
    transactions: Transactions = request.app.state.transactions
    return transactions()


async def read(request: Request, case: Callable[[UnitOfWork], Awaitable[T]], *,
               min_version: int = 0, min_seq: int = 0) -> T:
    """A read use case, on a replica when one is configured and has at least the version
    the client knows (`min_version`) of the game, else on the primary (docs/scaling.md)."""
    reads: Reads = request.app.state.reads
    return await reads(case, min_version=min_version, min_seq=min_seq)


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def require_operator(request: Request, what: str, *, always: bool = False) -> None:
    """When OPERATOR_KEY is set, creating and importing games needs it; an act that is
    `always` the operator's (an import) is refused by a server without one. Compared in
    constant time, on digests so that the guess's length does not show either."""
    key = request.app.state.settings.operator_key
    if not key:
        if always:
            raise Problem(403, "auth/no_operator_key", f"{what} is the operator's act, and "
                          "this server has no OPERATOR_KEY: set OPERATOR_KEY and send it as "
                          "the bearer token (docs/operating.md, Configuration)",
                          rule="docs/operating.md")
        return
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    matches = hmac.compare_digest(_digest(given.strip()), _digest(key))
    if scheme.lower() != "bearer" or not matches:
        raise Problem(401, "auth/operator_only", f"{what} needs the operator key",
                      headers={"WWW-Authenticate": "Bearer"})
