"""The C allocator told how a serving process uses memory (issue 33: memory flat after
warm-up).

glibc's malloc gives every thread that allocates an arena of its own (up to eight per
core), and raises its threshold for answering a large request from `mmap` each time such
a block is freed, so that later large blocks come from the arenas. A serving process
has eight threads doing rules work (service/store/threads.py) and renders answers of a
few hundred kilobytes to megabytes: blocks freed in one arena are not reused by
another, and the arenas kept growing. In an hour's soak (docs/performance.md, "Memory
under long play") the serving process gained about 30 MB an hour that no cache
accounted for while the objects Python tracked stayed flat; with two arenas and a fixed
threshold of 128 KiB it stayed flat from the sixth minute, 30 MB lower.

`tune` sets both, in this process (`mallopt`) and, through the environment, in every
process it starts afterwards (uvicorn's workers, the heavy workers): glibc reads
`MALLOC_ARENA_MAX` and `MALLOC_MMAP_THRESHOLD_` when a process starts. An operator who
set either keeps his value. Elsewhere than glibc (musl, macOS) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Callable, MutableMapping
from typing import Final

ARENA_MAX: Final = ("MALLOC_ARENA_MAX", 2)
MMAP_THRESHOLD: Final = ("MALLOC_MMAP_THRESHOLD_", 128 * 1024)
# mallopt's parameters (glibc's malloc.h)
_M_ARENA_MAX: Final = -8
_M_MMAP_THRESHOLD: Final = -3


def _mallopt() -> Callable[[int, int], int] | None:
    """glibc's `mallopt`, or None where there is none."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    if not hasattr(libc, "gnu_get_libc_version"):  # glibc alone has it
        return None
    fn = libc.mallopt
    fn.argtypes, fn.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return fn


def tune(environ: MutableMapping[str, str] | None = None) -> dict[str, int]:
    """Two arenas and a fixed mmap threshold (unless `environ` already says otherwise),
    set in this process and in `environ` for the processes it starts; what was set in
    this process (empty where the C library is not glibc)."""
    env = os.environ if environ is None else environ
    chosen: dict[str, int] = {}
    for name, default in (ARENA_MAX, MMAP_THRESHOLD):
        given = env.get(name, "")
        chosen[name] = int(given) if given.strip().isdigit() else default
        env[name] = str(chosen[name])
    mallopt = _mallopt()
    if mallopt is None:
        return {}
    done = {}
    for (name, _), param in ((ARENA_MAX, _M_ARENA_MAX), (MMAP_THRESHOLD, _M_MMAP_THRESHOLD)):
        if mallopt(param, chosen[name]) == 1:
            done[name] = chosen[name]
    return done


__all__ = ["ARENA_MAX", "MMAP_THRESHOLD", "tune"]
