"""Worker processes share the connections (issue 21, service/serving.py): each worker
listens on a socket of its own (SO_REUSEPORT), so keep-alive clients opened at once land
on every worker, not all on the first to wake; a worker killed is replaced on its
socket; an address already in use still makes the start fail."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from processes import Server
from uvicorn.config import STARTUP_FAILURE

from service import serving

pytestmark = pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"),
                                reason="SO_REUSEPORT is Linux's (elsewhere: uvicorn's own)")


@pytest.fixture
def two_workers(migrated_url: str) -> Iterator[Server]:
    server = Server(migrated_url, workers=2)
    yield server
    server.stop()


def _workers(server: Server) -> list[int]:
    """The supervisor's worker processes (spawned: `spawn_main`), not its resource
    tracker."""
    out = subprocess.run(["pgrep", "-P", str(server.proc.pid)], capture_output=True,
                         text=True, check=False).stdout.split()
    return [int(p) for p in out if "spawn_main" in _cmdline(int(p))]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ")
    except OSError:
        return ""


def _socket_inodes(pid: int) -> set[int]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            found.add(int(target[8:-1]))
    return found


def _sockets_on(port: int, state: str) -> set[int]:
    """The inodes of the TCP sockets on local `port` in `state` (/proc/net/tcp: 01
    established, 0A listening)."""
    out = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if fields[3] == state and int(fields[1].split(":")[1], 16) == port:
            out.add(int(fields[9]))
    return out


def _connections_per_worker(server: Server) -> dict[int, int]:
    accepted = _sockets_on(server.port, "01")
    return {pid: len(_socket_inodes(pid) & accepted) for pid in _workers(server)}


def _until_both_listen(server: Server) -> None:
    """Until each worker listens on its own socket (a worker's app is ready by then;
    /readyz answered by the first says nothing of the second)."""
    deadline = time.monotonic() + 30
    while len(_sockets_on(server.port, "0A")) < 2:
        assert time.monotonic() < deadline, "the workers do not listen on sockets of their own"
        time.sleep(0.05)


async def _open_at_once(port: int, count: int) -> list[asyncio.StreamWriter]:
    """`count` keep-alive connections opened all at once (a burst, as a pool of
    clients opens them), each then answered once."""
    pairs = await asyncio.gather(*(asyncio.open_connection("127.0.0.1", port)
                                   for _ in range(count)))
    for _reader, writer in pairs:
        writer.write(b"GET /readyz HTTP/1.1\r\nHost: test\r\n\r\n")
    for reader, _writer in pairs:
        assert (await reader.readline()).startswith(b"HTTP/1.1 200")
    return [writer for _reader, writer in pairs]


async def test_keep_alive_clients_opened_at_once_land_on_every_worker(
        two_workers: Server) -> None:
    """uvicorn's own supervisor gave all 32 to one worker here (measured)."""
    _until_both_listen(two_workers)
    writers = await _open_at_once(two_workers.port, 32)
    try:
        spread = _connections_per_worker(two_workers)
        assert len(spread) == 2, spread
        assert sum(spread.values()) == 32, spread
        # By the kernel's hash of each connection's address: both get some (all 32 on
        # one worker has odds of 2 in 2**32).
        assert all(n > 0 for n in spread.values()), spread
    finally:
        for writer in writers:
            writer.close()


def test_a_worker_killed_is_replaced_on_its_own_socket(two_workers: Server) -> None:
    before = _workers(two_workers)
    os.kill(before[0], signal.SIGKILL)
    deadline = time.monotonic() + 30
    while True:  # the supervisor looks every half second
        now = _workers(two_workers)
        if len(now) == 2 and before[0] not in now:
            break
        assert time.monotonic() < deadline, now
        time.sleep(0.05)
    deadline = time.monotonic() + 30
    while True:  # until the new worker is ready, its socket's connections wait
        clients = [httpx.Client(base_url=two_workers.url, timeout=30) for _ in range(32)]
        try:
            assert all(c.get("/readyz").status_code == 200 for c in clients)
            spread = _connections_per_worker(two_workers)
        finally:
            for client in clients:
                client.close()
        if all(n > 0 for n in spread.values()) and len(spread) == 2:
            break
        assert time.monotonic() < deadline, spread
        time.sleep(0.05)


def test_an_address_in_use_still_fails_the_start() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as exited:
            serving.listening("127.0.0.1", port, 2)
        assert exited.value.code == STARTUP_FAILURE


def test_port_zero_gives_every_worker_the_same_free_port() -> None:
    sockets = serving.listening("127.0.0.1", 0, 3)
    try:
        ports = {s.getsockname()[1] for s in sockets}
        assert len(ports) == 1 and ports != {0}
    finally:
        for sock in sockets:
            sock.close()
