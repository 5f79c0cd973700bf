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
import resource
import sys
from collections.abc import Callable, MutableMapping
from functools import cache
from typing import Final

from typing_extensions import TypedDict

ARENA_MAX: Final = ("MALLOC_ARENA_MAX", 2)
MMAP_THRESHOLD: Final = ("MALLOC_MMAP_THRESHOLD_", 128 * 1024)
# mallopt's parameters (glibc's malloc.h)
_M_ARENA_MAX: Final = -8
_M_MMAP_THRESHOLD: Final = -3


@cache
def _glibc() -> ctypes.CDLL | None:
    """The C library if it is glibc, else None."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "gnu_get_libc_version") else None  # glibc alone has it


class _Mallinfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (  # noqa: RUF012 - ctypes' own form
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


class ProcessFigures(TypedDict):
    """Where a process's memory is (/readyz `process`): what the caches' estimate cannot
    tell apart, Python's objects from the C allocator's free space."""

    rss_bytes: int  # resident now (Linux), else the peak
    python_blocks: int  # blocks Python's own allocator has handed out
    heap_in_use_bytes: int  # glibc: allocated from the arenas and by mmap (0 elsewhere)
    heap_free_bytes: int  # glibc: free in the arenas, kept by the process (0 elsewhere)


def _resident() -> int:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@cache
def _mallinfo2() -> Callable[[], _Mallinfo2] | None:
    """glibc's `mallinfo2` (2.33 and later), or None where there is none."""
    libc = _glibc()
    if libc is None or not hasattr(libc, "mallinfo2"):
        return None
    fn = libc.mallinfo2
    fn.argtypes, fn.restype = (), _Mallinfo2
    return fn


def figures() -> ProcessFigures:
    """This process's memory as the kernel, Python and the C allocator see it."""
    mallinfo2, in_use, free = _mallinfo2(), 0, 0
    if mallinfo2 is not None:
        info = mallinfo2()
        in_use, free = info.uordblks + info.hblkhd, info.fordblks
    return {"rss_bytes": _resident(), "python_blocks": sys.getallocatedblocks(),
            "heap_in_use_bytes": in_use, "heap_free_bytes": free}


def _mallopt() -> Callable[[int, int], int] | None:
    """glibc's `mallopt`, or None where there is none."""
    libc = _glibc()
    if libc is None:
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


__all__ = ["ARENA_MAX", "MMAP_THRESHOLD", "ProcessFigures", "figures", "tune"]
