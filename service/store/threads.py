"""CPU work on this process's own objects, off the event loop (issue 33): parsing a
game's scenario when the process first meets the game, folding its state, deciding an
order on a big map, rendering a view. A thread holds the interpreter while it computes,
but gives it up every few milliseconds, so the loop goes on answering other requests
meanwhile instead of waiting for the whole computation.

Eight threads: the work is CPU and takes turns on the interpreter anyway, but a short
job (an order on a small game) then runs beside a long one (a view of the largest map)
instead of waiting in line behind it. The serving process hands the interpreter over
every millisecond (`SWITCH_INTERVAL`, Python's default is 5 ms): the loop waits for it
once per wake-up, and a request wakes it several times. What runs here is pure (rules
functions, parsing, rendering); the caches it feeds are read and written on the loop.

A hop to a thread and back costs the loop more than a small job itself (an order on a
small map decides in a fifth of a millisecond; the hop made orders 20% dearer,
docs/performance.md "Orders after issues 28-34"). So the jobs that name their kind
(`measured`) run on a thread until their kind has proven light, and from then on on the
loop: `PROVEN` runs, none of them over `LIGHT` of CPU. A kind that once took longer
goes back to the threads for good (the longest is never forgotten), and the kinds are
told apart by what the job is and how large its game is (`size_class`).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
import time
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import ParamSpec, TypeVar, cast

from service.rules.state import State

P = ParamSpec("P")
T = TypeVar("T")
THREADS = 8
SWITCH_INTERVAL = 0.001
PROVEN = 200
LIGHT = 0.002
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="wif-off-loop")
    return _pool


def start() -> None:
    """Start every thread now, when the process starts: the pool starts a thread at a
    submission that finds none idle, and the loop then waits until the new thread runs
    (59 ms once under the soak, on a busy machine). Each job waits for the others, so
    that no thread is idle before all are started."""
    pool = _executor()
    everyone = threading.Barrier(THREADS, timeout=30)
    for started in [pool.submit(everyone.wait) for _ in range(THREADS)]:
        started.result()


async def in_thread(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)` on one of the threads, awaited on the loop."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_executor(), call)


@dataclass(slots=True)
class Cost:
    """What the jobs of one kind took: how many ran, and the longest (CPU seconds)."""

    runs: int = 0
    longest: float = 0.0

    @property
    def light(self) -> bool:
        return self.runs >= PROVEN and self.longest <= LIGHT

    def note(self, seconds: float) -> None:
        self.runs += 1
        self.longest = max(self.longest, seconds)


COSTS: dict[Hashable, Cost] = {}


def size_class(hexes: int, units: int) -> int:
    """Games whose maps and units are within a factor of two of each other's."""
    return (hexes + units).bit_length()


def state_class(state: State) -> int:
    """The `size_class` of a game in this state."""
    return size_class(len(state.setup.scenario.map.hexes), len(state.units))


def _timed(job: Callable[[], T]) -> tuple[T | None, BaseException | None, float]:
    started = time.thread_time()
    try:
        return job(), None, time.thread_time() - started
    except Exception as error:  # raised again on the loop, once its time is noted
        return None, error, time.thread_time() - started


async def measured(kind: Hashable, fn: Callable[P, T], *args: P.args,
                   **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)` on the loop when jobs of `kind` have proven light, else on
    a thread; its CPU time noted to `kind` either way, also when it raises (on the loop,
    so no note is lost to a race)."""
    cost = COSTS.get(kind)
    if cost is None:
        cost = COSTS[kind] = Cost()
    job = functools.partial(fn, *args, **kwargs)
    if cost.light:
        out, error, seconds = _timed(job)
    else:
        out, error, seconds = await in_thread(_timed, job)
    cost.note(seconds)
    if error is not None:
        raise error
    return cast(T, out)
