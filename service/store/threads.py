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
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")
THREADS = 8
SWITCH_INTERVAL = 0.001
_pool: ThreadPoolExecutor | None = None


def _executor() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = ThreadPoolExecutor(THREADS, thread_name_prefix="wif-off-loop")
    return _pool


async def in_thread(fn: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """`fn(*args, **kwargs)` on one of the threads, awaited on the loop."""
    call = functools.partial(contextvars.copy_context().run, fn, *args, **kwargs)
    return await asyncio.get_running_loop().run_in_executor(_executor(), call)
