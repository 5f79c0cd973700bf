"""The C allocator told how a serving process uses memory (service/store/allocator.py;
issue 33: memory flat after warm-up): two arenas and a fixed mmap threshold, unless the
operator set his own. That the processes `serve` starts get them:
tests/faults/test_serve_stops.py."""

from __future__ import annotations

import json
import platform
import subprocess
import sys

import pytest

from service.store import allocator

glibc = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's mallopt")


@glibc
def test_tune_sets_both_here_and_for_the_processes_started_after() -> None:
    env: dict[str, str] = {}
    assert allocator.tune(env) == {"MALLOC_ARENA_MAX": 2, "MALLOC_MMAP_THRESHOLD_": 131072}
    assert env == {"MALLOC_ARENA_MAX": "2", "MALLOC_MMAP_THRESHOLD_": "131072"}


@glibc
def test_an_operators_values_are_kept() -> None:
    env = {"MALLOC_ARENA_MAX": "4", "MALLOC_MMAP_THRESHOLD_": " nonsense"}
    assert allocator.tune(env) == {"MALLOC_ARENA_MAX": 4, "MALLOC_MMAP_THRESHOLD_": 131072}
    assert env == {"MALLOC_ARENA_MAX": "4", "MALLOC_MMAP_THRESHOLD_": "131072"}


def test_the_process_figures_see_python_objects_and_the_c_heap_grow() -> None:
    """/readyz `process`: Python's blocks and the C heap told apart, so that a process
    that grows shows where (issue 33, docs/operating.md "Memory"). Measured in a process
    of its own: in the suite's, other threads (a live server's, the xdist worker's) free
    memory meanwhile."""
    done = subprocess.run([sys.executable, "-c", GROWS], capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    before, after = json.loads(done.stdout)
    assert after["python_blocks"] - before["python_blocks"] >= 100_000
    assert after["rss_bytes"] > 0
    if platform.libc_ver()[0] == "glibc":
        assert after["heap_in_use_bytes"] - before["heap_in_use_bytes"] >= 16 * 2**20
        assert after["heap_free_bytes"] >= 0
    else:
        assert after["heap_in_use_bytes"] == after["heap_free_bytes"] == 0


GROWS = """
import json
from service.store import allocator
before = allocator.figures()
kept = [[i] for i in range(100_000)]  # 100,000 small Python objects
big = bytearray(16 * 2**20)  # one large block: the C allocator's, from mmap
print(json.dumps([before, allocator.figures()]))
"""
