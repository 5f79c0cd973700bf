"""How long the serving event loop was held, and by what (issue 33: no request holds it
past 50 ms; docs/operating.md "Memory").

- `LoopWatch`: a task wakes every `every` seconds and measures how late it woke.
  `/readyz` shows the longest hold since the last look and since the start, how many
  passed 50 ms, and of those the ones this process computed through (a thread or the
  loop itself held the interpreter) apart from the ones it mostly waited for a core (a
  busy machine: another process ran).
- `Collector`: each collection of Python's cyclic collector, timed (`gc.callbacks`). A
  collection holds the interpreter whichever thread started it, so a long one is a hold
  of the loop that no request's code shows; `/readyz` names the longest and its
  generation (2: a full collection, which walks every object the caches keep).
- With `LOOP_STACKS` on, a thread that takes the loop thread's stack in the middle of a
  hold (25 ms in) and logs it if the hold passes 50 ms, with the CPU the process spent
  meanwhile (little means it waited for a core): the way to name a hold of code. A
  collection or C code that keeps the interpreter cannot be sampled while it runs; the
  collector's figures name those.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import sys
import threading
import time
import traceback
from collections import Counter
from collections.abc import Callable
from typing import Any, NamedTuple

from typing_extensions import TypedDict

log = logging.getLogger("service.loop")

CEILING = 0.05  # the longest a request may hold the loop (issue 33)


class LoopComputing(TypedDict):
    longest_ms: float
    over_50ms: int


class CollectorFigures(TypedDict):
    """The cyclic collector's collections (/readyz `loop.collector`)."""

    collections: int  # since the process started
    longest_ms: float  # the longest collection
    longest_cpu_ms: float  # the CPU its thread spent in it (much less: it waited for a core)
    generation: int  # the longest one's generation (2: a full collection)
    over_50ms: int  # collections past 50 ms


class LoopFigures(TypedDict):
    """How long the serving event loop was held (/readyz `loop`)."""

    longest_ms: float  # since the process started
    recent_longest_ms: float  # since the previous /readyz
    over_50ms: int  # holds past 50 ms
    computing: LoopComputing  # of those, the holds the process computed through
    collector: CollectorFigures  # the collections, each a hold of its own


class Collection(NamedTuple):
    """One collection of the cyclic collector, as `Collector` timed it."""

    generation: int
    seconds: float  # how long it held the interpreter
    cpu: float  # the CPU its thread spent in it
    freed: int = 0  # the objects it found unreachable


class Collector:
    """Times each collection (`gc.callbacks` calls it at its start and its stop)."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter,
                 cpu: Callable[[], float] = time.thread_time) -> None:
        self.clock = clock
        self.cpu = cpu
        self.started = (0.0, 0.0)
        self.collections = 0
        self.longest = Collection(0, 0.0, 0.0)
        self.over = 0
        self.long: Collection | None = None  # the last collection past the ceiling

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = (self.clock(), self.cpu())
            return
        took = Collection(int(info.get("generation", 0)), self.clock() - self.started[0],
                          self.cpu() - self.started[1], int(info.get("collected", 0)))
        self.collections += 1
        if took.seconds > CEILING:
            self.over += 1
            self.long = took
        if took.seconds > self.longest.seconds:
            self.longest = took

    def install(self) -> None:
        if self not in gc.callbacks:
            gc.callbacks.append(self)

    def remove(self) -> None:
        with contextlib.suppress(ValueError):
            gc.callbacks.remove(self)

    def figures(self) -> CollectorFigures:
        return {"collections": self.collections,
                "longest_ms": round(self.longest.seconds * 1000, 1),
                "longest_cpu_ms": round(self.longest.cpu * 1000, 1),
                "generation": self.longest.generation, "over_50ms": self.over}


def census(top: int = 12) -> tuple[int, list[tuple[str, int]]]:
    """The objects a full collection walks (all it tracks but what starting froze), and
    the most common of their types."""
    walked = gc.get_objects()
    kinds = Counter(f"{type(o).__module__}.{type(o).__qualname__}" for o in walked)
    return len(walked), kinds.most_common(top)


class Stacks(threading.Thread):
    """With `LOOP_STACKS`: once the loop is late by half the ceiling, the loop thread's
    stack is taken (mid-hold: the code that holds it); if the hold then passes the
    ceiling, it is logged with the hold's length. It wakes every 5 ms: a look at a clock,
    nothing more, until a hold. After a collection past the ceiling it logs what the
    collector walks (`census`: itself a hold of tens of milliseconds, taken only when the
    operator asked for stacks)."""

    def __init__(self, watch: LoopWatch, loop_thread: int) -> None:
        super().__init__(name="loop-stacks", daemon=True)
        self.watch = watch
        self.loop_thread = loop_thread
        self.stopping = threading.Event()

    def run(self) -> None:
        taken: tuple[float, float, float, str] | None = None  # beat, late, CPU, stack
        while not self.stopping.wait(0.005):
            self._census()
            watch = self.watch
            beat = watch.beat
            if taken is not None and taken[0] != beat:  # the hold is over: how long?
                if watch.last_late > CEILING:
                    log.warning("the loop was held %.0f ms; %.0f ms in, the process's "
                                "threads having used %.0f ms of CPU (on all cores; little: "
                                "it waited for a core), the loop's thread was in:\n%s",
                                watch.last_late * 1000, taken[1] * 1000, taken[2] * 1000,
                                taken[3])
                taken = None
            late = time.monotonic() - beat - watch.every
            if taken is None and late > CEILING / 2:
                frame = sys._current_frames().get(self.loop_thread)
                if frame is not None:
                    taken = (beat, late, time.process_time() - watch.beat_cpu,
                             "".join(traceback.format_stack(frame)[-12:]))

    def _census(self) -> None:
        collector = self.watch.collector
        long = collector.long
        if long is not None:
            collector.long = None
            walked, kinds = census()
            log.warning("a collection of generation %d took %.0f ms (its thread computing "
                        "%.0f ms of them) and freed %d objects; the collector tracks %d "
                        "objects, most of them %s", long.generation, long.seconds * 1000,
                        long.cpu * 1000, long.freed, walked,
                        ", ".join(f"{k} {n}" for k, n in kinds))


class LoopWatch:
    """The loop's holds, the collector's collections and, with `stacks`, what held it."""

    def __init__(self, every: float = 0.02, *, stacks: bool = False) -> None:
        self.every = every
        self.stacks = stacks
        self.longest = 0.0
        self.recent = 0.0
        self.over = 0
        self.computing_longest = 0.0
        self.computing_over = 0
        self.beat = time.monotonic()
        self.beat_cpu = time.process_time()
        self.last_late = 0.0  # how late the watch woke last
        self.collector = Collector()
        self.task: asyncio.Task[None] | None = None
        self.sampler: Stacks | None = None

    async def _watch(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            started, cpu = loop.time(), time.process_time()
            self.beat, self.beat_cpu = time.monotonic(), cpu
            await asyncio.sleep(self.every)
            late = loop.time() - started - self.every
            self.last_late = late
            self.recent = max(self.recent, late)
            self.longest = max(self.longest, late)
            if late > CEILING:
                self.over += 1
                if time.process_time() - cpu >= (late + self.every) / 2:
                    self.computing_over += 1
                    self.computing_longest = max(self.computing_longest, late)

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._watch())
        self.collector.install()
        if self.stacks:
            self.sampler = Stacks(self, threading.get_ident())
            self.sampler.start()

    async def stop(self) -> None:
        self.collector.remove()
        if self.sampler is not None:
            self.sampler.stopping.set()
            await asyncio.to_thread(self.sampler.join)
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.task

    def figures(self) -> LoopFigures:
        recent, self.recent = self.recent, 0.0
        return {"longest_ms": round(self.longest * 1000, 1),
                "recent_longest_ms": round(recent * 1000, 1), "over_50ms": self.over,
                "computing": {"longest_ms": round(self.computing_longest * 1000, 1),
                              "over_50ms": self.computing_over},
                "collector": self.collector.figures()}


__all__ = ["CEILING", "Collection", "Collector", "CollectorFigures", "LoopComputing", "LoopFigures",
           "LoopWatch", "Stacks"]
