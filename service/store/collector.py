"""The cyclic collector held off while a big game is parsed (issue 33: no hold of the
serving loop past 50 ms).

Parsing the largest map the server accepts takes a thread of this process about a
second and makes some 100,000 objects that live until it ends: the decoded JSON, each
item's parse with its problems, the specs. A collection in that second walks all of
them, and a full one, which also walks every game the caches keep, held the loop 95-104
ms (of the collector's own CPU: `bench/soak.py --stacks`, docs/performance.md). None of
those objects is in a cycle (tests/test_collector.py), so reference counting frees the
parse's leftovers the moment it ends, and what is kept (the setup, the state) meets the
collector afterwards as any new object does.

`paused()` turns the collector off for the parse and back on when the last paused
parse ends, unless it was off already (someone else's choice, left alone). Only a big
parse pauses it (`BIG_TEXT`); a pause lasts one parse, and this process parses a game
only when the game enters its caches."""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

BIG_TEXT = 256 * 1024  # characters of JSON from which a parse pauses the collector

_lock = threading.Lock()
_holders = 0
_resume = False
pauses = 0  # how many parses have held it off in this process


@contextmanager
def paused(size: int) -> Iterator[None]:
    """The collector off while the block runs, when `size` (the JSON's length) is at
    least `BIG_TEXT`; back on when the last such block ends."""
    global _holders, _resume, pauses
    if size < BIG_TEXT:
        yield
        return
    with _lock:
        if _holders == 0:
            _resume = gc.isenabled()
            gc.disable()
        _holders += 1
        pauses += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            if _holders == 0 and _resume:
                gc.enable()
