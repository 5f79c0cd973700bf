"""Heavy requests, done by worker processes of this server instead of on its event loop
(issue 33): a game's legal choices, reorganization plans, exports and dice records, the
creation or import of a game from a big body, and a big game's (`reads.BIG`) state
views, orders, dry runs, GM acts and combat odds. Each is a use case run whole in a
worker, in a unit of work of its own (reads on a replica when one is configured), and
answered as JSON bytes; the serving process only forwards them, so while a worker
computes for seconds on the largest map the server accepts, the loop goes on answering
everyone else. What a worker computes it keeps (states, boards, answers, planners: per
game, bounded like this process's caches), so a second request of the same version is
answered from its cache.

Bounds, so that one caller cannot take the workers from everyone (docs/security.md):

- one heavy request in flight per caller (its token, else its address; `HEAVY_PER_CALLER`):
  the next is a 429 `request/heavy_in_flight` until it is done, even if its caller
  stopped waiting;
- at most `HEAVY_QUEUE` requests waiting or running per serving process: past it a 503
  `server/busy`;
- each request waits at most `HEAVY_BUDGET` seconds: then a 503 `server/too_slow`
  (the work goes on and its result is kept for the retry).

Both answers carry `Retry-After`. Workers (`HEAVY_WORKERS`, spawned at the first heavy
request) each take one request at a time; a game's requests go to the same worker, so
its caches serve them. With `HEAVY_WORKERS=0` the use cases run on the serving loop, as
before issue 33 (for measuring only).

`service.store.threads.in_thread` is the other way off the loop: for CPU work on this
process's own objects (a state to fold, an order to decide, a view to render).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import multiprocessing
import os
import signal
import threading
import time
import zlib
from collections import Counter, deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from typing import Any, TypeVar, cast

from typing_extensions import TypedDict

from service.referee.errors import RefereeError
from service.referee.work import Reads
from service.store import allocator
from service.store.allocator import ProcessFigures
from service.store.memory import BUDGET, MB, MemoryFigures
from service.store.uow import Transactions, UnitOfWork

log = logging.getLogger("service.offload")

Case = Callable[..., Awaitable[bytes]]  # (uow, *args) -> the answer's JSON
T = TypeVar("T")
STARTING = 30.0  # seconds a worker may take to start, beside the budget of its first job


class Overloaded(RefereeError):
    """The workers cannot take or finish the request in time (503, Retry-After)."""

    status = 503


class Throttled(RefereeError):
    """The caller already has a heavy request in flight (429, Retry-After)."""

    status = 429


@dataclass(frozen=True, slots=True)
class Limits:
    """`HEAVY_WORKERS`, `HEAVY_BUDGET`, `HEAVY_QUEUE`, `HEAVY_PER_CALLER`."""

    workers: int = 1
    budget: float = 10.0
    queue: int = 16
    per_caller: int = 1


@dataclass(frozen=True, slots=True)
class Where:
    """What a worker opens: the primary, the replicas reads may use; the memory budget
    of its caches (`CACHE_MB`, `CACHE_IDLE_SECONDS`); its priority (`HEAVY_NICE`)."""

    url: str
    replicas: tuple[str, ...] = ()
    cache_bytes: int = 256 * MB
    cache_idle: float = 1800.0
    nice: int = 0  # HEAVY_NICE: how much it yields the cores to the serving process


@dataclass(frozen=True, slots=True)
class _Task:
    """What a worker runs: `case(uow, *args)` as a read (a replica at `min_version` of
    the game, else the primary) or in a unit of work on the primary."""

    case: Callable[..., Awaitable[Any]]
    args: tuple[Any, ...]
    read: bool
    min_version: int


@dataclass(eq=False)
class _Job:
    task: _Task
    caller: str
    future: asyncio.Future[Any]
    number: int = 0


@dataclass(eq=False)
class _Worker:
    """A worker process, its pipe, and the jobs it has to do."""

    index: int
    process: Any = None
    connection: Connection | None = None
    current: _Job | None = None
    pending: deque[_Job] = field(default_factory=deque)
    memory: MemoryFigures | None = None  # its caches, as last told
    ready: bool = False  # it answered once


def _portable(error: BaseException) -> tuple[str, str, tuple[Any, ...], dict[str, Any]]:
    """An exception as plain data: its class's place, its args and attributes (the
    referee's and the rules' errors take keyword arguments, so `pickle` could not
    rebuild them from their args alone)."""
    cls = type(error)
    return cls.__module__, cls.__qualname__, error.args, dict(vars(error))


def _rebuilt(module: str, name: str, args: tuple[Any, ...], attributes: dict[str, Any]
             ) -> BaseException:
    try:
        cls: Any = importlib.import_module(module)
        for part in name.split("."):
            cls = getattr(cls, part)
        error: BaseException = cls.__new__(cls)
        error.args = args
        vars(error).update(attributes)
        return error
    except Exception:  # noqa: BLE001 - whatever the worker raised, the caller gets an error
        return RuntimeError(f"{module}.{name}: {args}")


async def _perform(task: _Task, transactions: Transactions, reads: Reads) -> Any:
    if task.read:
        return await reads(lambda uow: task.case(uow, *task.args),
                           min_version=task.min_version)
    async with transactions() as uow:
        return await task.case(uow, *task.args)


async def changed(uow: UnitOfWork, case: Callable[..., Awaitable[T]], *args: Any
                  ) -> tuple[T, dict[str, int]]:
    """`case(uow, *args)`, a change to a game made by a worker, with what it appended
    (game id -> newest seq): the serving process publishes it to its streams."""
    return await case(uow, *args), dict(uow.appended)


def _serve(connection: Connection, where: Where) -> None:
    """A worker's life: take a task, run it, answer, until the pipe closes (the serving
    process handles Ctrl+C and closes it)."""
    from service.store.database import make_engine, make_sessionmaker
    from service.store.replicas import Replicas

    # Ctrl+C (the terminal's whole process group) and SIGTERM (a supervisor's) are the
    # serving process's to handle: it closes the pipe, and a worker ends at its end.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    # Heavy work waits for a core while the serving process (and PostgreSQL) need one:
    # what it delays is the attacker's answer, not everyone's.
    with contextlib.suppress(OSError):
        os.nice(where.nice)
    BUDGET.configure(where.cache_bytes, where.cache_idle)

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    engine = make_engine(where.url, pool_size=2)
    transactions = Transactions(make_sessionmaker(engine))
    replicas = Replicas(where.replicas, pool_size=2) if where.replicas else None
    reads = Reads(transactions, replicas)
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            break
        if message is None:  # the serving process stops
            break
        number, task = message
        try:
            reply: tuple[Any, ...] = (number, True, loop.run_until_complete(
                _perform(task, transactions, reads)), BUDGET.figures())
        except Exception as error:  # noqa: BLE001 - handed to the caller to answer
            reply = (number, False, _portable(error), BUDGET.figures())
        try:
            connection.send(reply)
        except (OSError, ValueError):
            break
    loop.run_until_complete(engine.dispose())


class HeavyFigures(TypedDict):
    """The heavy workers (/readyz `heavy`, docs/operating.md "Heavy requests")."""

    workers: int  # worker processes running
    waiting: int  # heavy requests queued
    callers: int  # callers with a heavy request in flight
    served: dict[str, int]  # requests by how they ended: done, busy, too_slow, throttled...
    memory: list[MemoryFigures]  # each worker's caches, as it last told


class Offload:
    """This process's workers and the heavy requests waiting for them."""

    def __init__(self, where: Where, limits: Limits, reads: Reads) -> None:
        self.where = where
        self.limits = limits
        self.reads = reads  # the serving process's own, for HEAVY_WORKERS=0
        self.workers = [_Worker(i) for i in range(limits.workers)]
        self.in_flight: Counter[str] = Counter()
        self.served: Counter[str] = Counter()  # done, busy, too_slow, throttled, crashed
        self._numbers = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping = False

    def _waiting(self) -> int:
        return sum(len(w.pending) + (w.current is not None) for w in self.workers)

    async def run(self, case: Callable[..., Awaitable[T]], *args: Any, caller: str,
                  affinity: str = "", read: bool = True, min_version: int = 0) -> T:
        """`case(uow, *args)` in a worker (on this loop with no workers), within the
        bounds above; `affinity` (a game id) picks the worker."""
        task = _Task(case, tuple(args), read, min_version)
        self.admit(caller)
        if self._waiting() >= self.limits.queue:
            self.served["busy"] += 1
            raise Overloaded("server/busy", "the server is busy with heavy requests "
                             "(HEAVY_QUEUE); retry shortly", headers={"Retry-After": "2"})
        if not self.workers:
            return cast(T, await self._inline(task, caller))
        self._loop = asyncio.get_running_loop()
        self._numbers += 1
        job = _Job(task, caller, self._loop.create_future(), self._numbers)
        self.in_flight[caller] += 1
        job.future.add_done_callback(lambda done: self._finished(caller, done))
        worker = self.workers[zlib.crc32(affinity.encode()) % len(self.workers)]
        worker.pending.append(job)
        self._next(worker)
        # A worker starting (a new Python, its imports: a second or more) is not slow.
        budget = self.limits.budget + (0.0 if worker.ready else STARTING)
        try:
            return cast(T, await asyncio.wait_for(asyncio.shield(job.future), budget))
        except TimeoutError:
            if job in worker.pending:  # never started: nobody needs it any more
                worker.pending.remove(job)
                job.future.cancel()
            self.served["too_slow"] += 1
            raise Overloaded("server/too_slow", f"the answer takes longer than "
                             f"{self.limits.budget:g} s (HEAVY_BUDGET); it is being "
                             "computed: retry shortly", headers={"Retry-After": "5"}) from None

    def admit(self, caller: str) -> None:
        """Refuse the caller (429) while its previous heavy request is not done: before
        a request reads anything it may then leave to a worker."""
        if self.in_flight[caller] >= self.limits.per_caller:
            self.served["throttled"] += 1
            raise Throttled("request/heavy_in_flight", "this caller's previous heavy request "
                            "(legal choices, plans, exports, big games) is not done yet: one "
                            "at a time (HEAVY_PER_CALLER)", headers={"Retry-After": "1"})

    def _release(self, caller: str) -> None:
        self.in_flight[caller] -= 1
        if self.in_flight[caller] <= 0:
            del self.in_flight[caller]

    def _finished(self, caller: str, done: asyncio.Future[Any]) -> None:
        """The job's end, whether its caller still waits or not."""
        self._release(caller)
        if not done.cancelled():
            done.exception()  # retrieved: a caller who gave up leaves no warning behind

    async def _inline(self, task: _Task, caller: str) -> Any:
        self.in_flight[caller] += 1
        try:
            return await _perform(task, self.reads.primary, self.reads)
        finally:
            self._release(caller)

    def _next(self, worker: _Worker) -> None:
        """Hand the worker its next job if it is free."""
        while worker.current is None and worker.pending and not self._stopping:
            job = worker.pending.popleft()
            if job.future.done():
                continue
            if worker.connection is None:
                self._start(worker)
            worker.current = job
            asyncio.get_running_loop().create_task(self._send(worker, job))

    async def _send(self, worker: _Worker, job: _Job) -> None:
        """The task down the pipe, from a thread: a big body fills the pipe faster than
        a worker that is still starting reads it."""
        connection = worker.connection
        assert connection is not None
        try:
            await asyncio.to_thread(connection.send, (job.number, job.task))
        except (OSError, ValueError):
            if worker.connection is connection:
                self._crashed(worker)

    def _start(self, worker: _Worker) -> None:
        context = multiprocessing.get_context("spawn")
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs, self.where), daemon=True,
                                  name=f"wif-heavy-{worker.index}")
        process.start()
        theirs.close()
        worker.process, worker.connection = process, ours
        threading.Thread(target=self._listen, args=(worker, ours), daemon=True,
                         name=f"wif-heavy-reader-{worker.index}").start()
        log.info("heavy worker %d started (pid %s)", worker.index, process.pid)

    def _listen(self, worker: _Worker, connection: Connection) -> None:
        """The worker's answers, read off the loop (a big answer arrives in pieces)."""
        loop = self._loop
        assert loop is not None
        while True:
            try:
                reply = connection.recv()
            except (EOFError, OSError, TypeError):  # TypeError: closed under the read
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                    loop.call_soon_threadsafe(self._gone, worker, connection)
                return
            try:
                loop.call_soon_threadsafe(self._answered, worker, reply)
            except RuntimeError:
                return

    def _answered(self, worker: _Worker, reply: tuple[Any, ...]) -> None:
        number, ok, value, worker.memory = reply
        worker.ready = True
        job = worker.current
        if job is None or job.number != number:
            return
        worker.current = None
        if not job.future.done():
            if ok:
                job.future.set_result(value)
                self.served["done"] += 1
            else:
                job.future.set_exception(_rebuilt(*value))
        self._next(worker)

    def _gone(self, worker: _Worker, connection: Connection) -> None:
        if worker.connection is connection:
            self._crashed(worker)

    def _crashed(self, worker: _Worker) -> None:
        """The worker died (or its pipe broke): its job fails, the next starts anew."""
        log.warning("heavy worker %d stopped; starting another", worker.index)
        self.served["crashed"] += 1
        job, worker.current = worker.current, None
        if worker.connection is not None:
            worker.connection.close()
        worker.process, worker.connection, worker.ready = None, None, False
        if job is not None and not job.future.done():
            job.future.set_exception(Overloaded(
                "server/busy", "a worker stopped while computing the answer; retry",
                headers={"Retry-After": "2"}))
        self._next(worker)

    def pids(self) -> Sequence[int]:
        return [w.process.pid for w in self.workers if w.process is not None]

    def figures(self) -> HeavyFigures:
        """For /readyz: workers running, requests waiting, how requests ended, and each
        worker's caches as it last told."""
        return {"workers": len(self.pids()), "waiting": self._waiting(),
                "callers": len(self.in_flight), "served": dict(self.served),
                "memory": [w.memory for w in self.workers
                           if w.process is not None and w.memory is not None]}

    async def stop(self) -> None:
        self._stopping = True
        for worker in self.workers:
            for job in [*worker.pending, *([worker.current] if worker.current else [])]:
                if not job.future.done():
                    job.future.cancel()
            worker.pending.clear()
            worker.current = None
            connection, process = worker.connection, worker.process
            worker.process, worker.connection, worker.ready = None, None, False
            if connection is not None:
                with contextlib.suppress(OSError, ValueError):
                    await asyncio.to_thread(connection.send, None)  # it ends its loop
            if process is not None:
                deadline = time.monotonic() + 5
                while process.is_alive() and time.monotonic() < deadline:
                    await asyncio.sleep(0.05)
                if process.is_alive():
                    process.kill()
                await asyncio.to_thread(process.join, 5)
            if connection is not None:
                connection.close()


def caller_of(token: str | None, address: str) -> str:
    """Whose heavy requests count together: a token's, else an address's."""
    from service.crypto.tokens import hash_token

    return f"t:{hash_token(token)}" if token else f"a:{address}"


memory = BUDGET  # this process's per-game caches, for /readyz
process_figures = allocator.figures  # its memory as the kernel, Python and glibc see it
__all__ = ["Case", "HeavyFigures", "Limits", "MemoryFigures", "Offload", "Overloaded",
           "ProcessFigures", "Throttled", "UnitOfWork", "Where", "caller_of", "changed",
           "memory", "process_figures"]
