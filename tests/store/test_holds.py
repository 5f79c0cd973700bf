"""The loop's holds named (issue 33: no request holds the serving loop past 50 ms;
service/referee/holds.py): a hold spent waiting told from one spent computing, each
collection of the cyclic collector timed with its generation, and with `LOOP_STACKS` the
code that held the loop logged."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import time
from collections.abc import AsyncIterator

import pytest

from service.referee.holds import Collection, Collector, LoopWatch


@contextlib.asynccontextmanager
async def watching(every: float, *, stacks: bool = False) -> AsyncIterator[LoopWatch]:
    """A started `LoopWatch`, stopped at the end of the block."""
    watch = LoopWatch(every=every, stacks=stacks)
    watch.start()
    try:
        yield watch
    finally:
        await watch.stop()


async def test_the_loop_watch_tells_a_hold_spent_waiting_from_one_spent_computing() -> None:
    """A loop blocked without computing (here a sleep; on a busy machine, waiting for a
    core) passes 50 ms but is not counted as this process computing."""

    async with watching(every=0.005) as watch:
        await asyncio.sleep(0.05)
        time.sleep(0.2)  # the loop held, the process idle
        await asyncio.sleep(0.05)
    found = watch.figures()
    assert found["over_50ms"] >= 1 and found["longest_ms"] >= 150
    assert found["computing"] == {"longest_ms": 0.0, "over_50ms": 0}
    assert watch.figures()["recent_longest_ms"] < 150  # reset at each look


class Ticks:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_the_collector_keeps_the_longest_collection_its_generation_and_those_past_50ms() -> None:
    ticks, cpu = Ticks(), Ticks()
    collector = Collector(ticks, cpu)
    for generation, took, computed in ((0, 0.002, 0.002), (2, 0.070, 0.030),
                                       (1, 0.040, 0.040), (1, 0.055, 0.050)):
        collector("start", {"generation": generation})
        ticks.now += took
        cpu.now += computed
        collector("stop", {"generation": generation, "collected": 7, "uncollectable": 0})
    assert collector.figures() == {"collections": 4, "longest_ms": 70.0,
                                   "longest_cpu_ms": 30.0, "generation": 2, "over_50ms": 2}
    assert collector.long is not None and collector.long[0] == 1  # the last past 50 ms
    assert collector.long[1:3] == (pytest.approx(0.055), pytest.approx(0.050))
    assert collector.long[3] == 7  # the objects it freed


async def test_a_started_watch_times_the_collections_and_a_stopped_one_no_longer() -> None:
    async with watching(every=0.005) as watch:
        gc.collect()
        counted = watch.figures()["collector"]
        assert counted["collections"] >= 1 and counted["generation"] == 2
    assert watch.collector not in gc.callbacks
    gc.collect()
    assert watch.figures()["collector"]["collections"] == counted["collections"]


def hold_the_loop_computing(seconds: float) -> int:
    """Pure Python, so the interpreter passes to other threads at each switch interval."""
    end, n = time.perf_counter() + seconds, 0
    while time.perf_counter() < end:
        n += 1
    return n


async def test_with_stacks_on_a_hold_past_50ms_logs_the_code_that_held_the_loop_once(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="service.loop")
    async with watching(every=0.005, stacks=True) as watch:
        await asyncio.sleep(0.05)
        hold_the_loop_computing(0.3)
        await asyncio.sleep(0.05)
    told = [r.getMessage() for r in caplog.records if r.name == "service.loop"]
    held = [m for m in told if "hold_the_loop_computing" in m]  # a busy machine may add
    assert len(held) == 1, told  # holds of its own; this one is told once
    assert "the loop was held" in held[0] and "ms of CPU" in held[0]
    assert not watch.sampler or not watch.sampler.is_alive()


async def test_without_stacks_a_hold_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="service.loop")
    async with watching(every=0.005) as watch:
        await asyncio.sleep(0.02)
        hold_the_loop_computing(0.15)
        await asyncio.sleep(0.02)
    assert watch.figures()["over_50ms"] >= 1
    assert not [r for r in caplog.records if r.name == "service.loop"]


class Knot:
    """An object in a cycle with itself: only the cyclic collector frees it."""

    def __init__(self) -> None:
        self.me = self


async def test_with_stacks_a_collection_past_50ms_logs_what_the_collector_walks(
        caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING, logger="service.loop")
    async with watching(every=0.005, stacks=True) as watch:
        kept = [Knot() for _ in range(50_000)]
        watch.collector.long = Collection(2, 0.064, 0.061, 12)  # as noted past 50 ms
        for _ in range(200):
            if any("a collection of generation 2" in r.getMessage() for r in caplog.records):
                break
            await asyncio.sleep(0.01)
    told = [r.getMessage() for r in caplog.records if "a collection of" in r.getMessage()]
    assert len(told) == 1, told
    assert "took 64 ms (its thread computing 61 ms of them) and freed 12 objects" in told[0]
    assert f"{__name__}.Knot " in told[0]
    assert watch.collector.long is None
    del kept
