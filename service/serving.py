"""Worker processes that share the connections evenly (issue 21, docs/scaling.md).

uvicorn's supervisor hands every worker the one listening socket, and the worker that
wakes first accepts every connection waiting: a burst of keep-alive clients can land on
one worker while the others idle (measured: 32 clients, 2 workers, all 32 on one). On
Linux each worker here listens on a socket of its own, bound to the same address with
SO_REUSEPORT, and the kernel spreads new connections across them by their addresses. A
worker that dies is replaced on the same socket (the supervisor keeps it open, so the
connections the kernel gave it wait in its backlog). Elsewhere, uvicorn's supervisor.

Before binding, the address is taken once without SO_REUSEPORT, so that a server
already listening there (another instance of this one too) still makes the start fail.
"""

from __future__ import annotations

import logging
import socket
import sys

import uvicorn
from uvicorn.config import STARTUP_FAILURE, Config
from uvicorn.supervisors.multiprocess import Multiprocess, Process

log = logging.getLogger("uvicorn.error")


def run(app: str, *, host: str, port: int, workers: int, loop: str, http: str,
        log_level: str) -> None:
    """Serve the app factory `app` with `workers` processes."""
    if workers <= 1 or not hasattr(socket, "SO_REUSEPORT"):
        uvicorn.run(app, factory=True, host=host, port=port, workers=workers, loop=loop,
                    http=http, log_level=log_level)
        return
    config = Config(app, factory=True, host=host, port=port, workers=workers, loop=loop,
                    http=http, log_level=log_level)
    Spread(config, listening(host, port, workers)).run()


def listening(host: str, port: int, count: int) -> list[socket.socket]:
    """`count` sockets bound to (`host`, `port`) with SO_REUSEPORT (port 0: a free port,
    the same for all), or exit as uvicorn does when the address is in use."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family) as probe:  # fails if anything listens there already
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
            port = probe.getsockname()[1]
        sockets = []
        for _ in range(count):
            sock = socket.socket(family)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            sock.bind((host, port))
            sock.set_inheritable(True)
            sockets.append(sock)
    except OSError as error:
        log.error(error)
        sys.exit(STARTUP_FAILURE)
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    log.info("Uvicorn running on http://%s:%d (Press CTRL+C to quit), one socket per "
             "worker", shown, port)
    return sockets


class Spread(Multiprocess):
    """uvicorn's supervisor, worker `i` on `sockets[i]` alone: at the start, when a
    worker dies, and on a restart (SIGHUP)."""

    def __init__(self, config: Config, sockets: list[socket.socket]) -> None:
        super().__init__(config, sockets)
        self.own = sockets

    def _process(self, index: int) -> Process:
        process = Process(self.config, [self.own[index]])
        process.start()
        return process

    def init_processes(self) -> None:
        self.processes = [self._process(i) for i in range(self.processes_num)]

    def restart_all(self) -> None:
        for index, old in enumerate(self.processes):
            if self.should_exit.is_set():
                return
            new = self._process(index)
            if not new.wait_until_ready(self.config.timeout_worker_healthcheck,
                                        self.should_exit):
                new.kill()
                new.join()
                return
            old.terminate()
            old.join()
            self.processes[index] = new

    def keep_subprocess_alive(self) -> None:
        if self.should_exit.is_set():
            return
        for index, process in enumerate(self.processes):
            if process.is_alive(timeout=self.config.timeout_worker_healthcheck):
                continue
            process.kill()
            process.join()
            if process.exitcode == STARTUP_FAILURE:
                log.error("Child process [%s] failed to start, stopping the parent "
                          "process.", process.pid)
                self.should_exit.set()
                return
            if self.should_exit.is_set():
                return
            log.info("Child process [%s] died", process.pid)
            self.processes[index] = self._process(index)
