"""A server process for tests: `python -m service serve` on an ephemeral port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import time

import httpx
from conftest import free_port


class Server:
    """`python -m service serve` as a child process on an ephemeral port."""

    def __init__(self, database_url: str, *, workers: int = 1, sweep: float = 0,
                 env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "DATABASE_URL": database_url, "SWEEP_INTERVAL": str(sweep),
               "LOG_LEVEL": "warning", "RATE_LIMIT": "0", "RATE_LIMIT_PAUSE": "0",
               **(env or {})}
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "service", "serve", "--port", str(self.port),
             "--workers", str(workers)],
            env=env, stdout=self.log, stderr=self.log, start_new_session=True)
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                self.log.seek(0)
                raise RuntimeError(f"server did not start: {self.log.read()[-2000:]!r}")
            time.sleep(0.05)

    def kill(self) -> None:
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()
