"""The HTTP side of who the caller is: the bearer token, and the unit of work a request
runs in. Who the token belongs to is the referee's business (`referee.members`)."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from typing import Any, TypeVar, cast

from fastapi import Request, Response

from service.api.problems import Problem
from service.referee import reads
from service.referee.offload import Case, Offload, caller_of, changed
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


async def heavy(request: Request, case: Case, *args: object, game: str = "",
                read: bool = True, min_version: int = 0, status: int = 200) -> Response:
    """A heavy use case (`case(uow, *args)`, answering JSON) in a worker process of this
    server (service.referee.offload): counted against the caller's token, else its
    address; `game` keeps a game's requests on one worker."""
    body = await heavy_call(request, case, *args, game=game, read=read,
                            min_version=min_version)
    return Response(body, status_code=status, media_type="application/json")


def _caller(request: Request) -> str:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    given = token.strip() if scheme.lower() == "bearer" else ""
    address = request.client.host if request.client else "?"
    return caller_of(given or None, address)


async def heavy_call(request: Request, case: Callable[..., Awaitable[T]], *args: object,
                     game: str = "", read: bool = True, min_version: int = 0) -> T:
    """`heavy`'s work, answering what the use case answers."""
    offload: Offload = request.app.state.offload
    return await offload.run(case, *args, caller=_caller(request), affinity=game, read=read,
                             min_version=min_version)


def admit_heavy(request: Request, game_id: str) -> None:
    """A request about a big game this process holds is refused (429) before it reads
    anything while its caller's previous heavy request is not done."""
    offload: Offload = request.app.state.offload
    if offload.workers and reads.known_big(game_id):
        offload.admit(_caller(request))


async def elsewhere(request: Request, game_id: str) -> bool:
    """Whether a game's changes and dry runs are decided by a worker process: a big
    game's (`reads.BIG`), when the server has workers. On a thread of this process such a
    decision (the final reorganization's default plans every face-down unit: a second
    and more on the largest map) would still take the interpreter from the loop in
    turns, many milliseconds at each of its wake-ups."""
    offload: Offload = request.app.state.offload
    if not offload.workers:
        return False
    known = reads.known_big(game_id)
    if known is None:
        known = await read(request, lambda uow: reads.is_big(uow, game_id))
    return known


async def heavy_change(request: Request, case: Callable[..., Awaitable[T]], *args: object,
                       game: str) -> T:
    """A change to `game` made whole by a worker (a unit of work on the primary), what it
    appended published to this process's streams as its own changes are."""
    done: tuple[Any, dict[str, int]] = await heavy_call(request, changed, case, *args,
                                                        game=game, read=False)
    found, appended = done
    transactions: Transactions = request.app.state.transactions
    if transactions.publish is not None:
        for game_id, seq in appended.items():
            transactions.publish(game_id, seq)
    return cast(T, found)


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def is_operator(request: Request) -> bool:
    """Whether the request carries the operator key (a server without one has no
    operator). Compared in constant time, on digests so that the guess's length does
    not show either."""
    key = request.app.state.settings.operator_key
    if not key:
        return False
    header = request.headers.get("authorization", "")
    scheme, _, given = header.partition(" ")
    matches = hmac.compare_digest(_digest(given.strip()), _digest(key))
    return scheme.lower() == "bearer" and matches


def require_operator(request: Request, what: str, *, always: bool = False) -> None:
    """When OPERATOR_KEY is set, creating and importing games needs it; an act that is
    `always` the operator's (an import) is refused by a server without one."""
    if not request.app.state.settings.operator_key:
        if always:
            raise Problem(403, "auth/no_operator_key", f"{what} is the operator's act, and "
                          "this server has no OPERATOR_KEY: set OPERATOR_KEY and send it as "
                          "the bearer token (docs/operating.md, Configuration)",
                          rule="docs/operating.md")
        return
    if not is_operator(request):
        raise Problem(401, "auth/operator_only", f"{what} needs the operator key",
                      headers={"WWW-Authenticate": "Bearer"})
