"""The HTTP side of who the caller is: the bearer token, and the unit of work a request
runs in. Who the token belongs to is the referee's business (`referee.members`)."""

from __future__ import annotations

import hashlib
import hmac
from contextlib import AbstractAsyncContextManager

from fastapi import Request

from service.api.problems import Problem
from service.referee.work import Transactions, UnitOfWork


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


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def require_operator(request: Request, what: str) -> None:
    """When OPERATOR_KEY is set, creating and importing games needs it. Compared in
    constant time, on digests so that the guess's length does not show either."""
    key = request.app.state.settings.operator_key
    if not key:
        return
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    matches = hmac.compare_digest(_digest(given.strip()), _digest(key))
    if scheme.lower() != "bearer" or not matches:
        raise Problem(401, "auth/operator_only", f"{what} needs the operator key",
                      headers={"WWW-Authenticate": "Bearer"})
