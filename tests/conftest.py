"""Shared fixtures: one real PostgreSQL for the session (TEST_DATABASE_URL, else an
embedded throwaway cluster), migrated once with the real Alembic migrations; the app
with its lifespan; an httpx client over ASGI.

Tests commit for real; each creates its own games, and every query is scoped by game,
so tests never see each other's data.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci", derandomize=True, max_examples=40, deadline=None, database=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "dev", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("ci" if os.environ.get("CI") else os.environ.get("HYPOTHESIS_PROFILE", "dev"))


_EMBEDDED: dict[str, Any] = {}  # the session's embedded server, when there is one


# The pytest-xdist worker this process is ("gw0", "gw1"), or "" when the suite runs in
# one process. Each worker has a PostgreSQL database of its own: its own embedded
# server, or its own database on TEST_DATABASE_URL's server.
WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")


def with_database(url: str, name: str) -> str:
    """`url` naming the database `name` on the same server."""
    from urllib.parse import urlsplit, urlunsplit

    return urlunsplit(urlsplit(url)._replace(path=f"/{name}"))


async def _recreate_database(admin_url: str, name: str, create: bool = True) -> None:
    from sqlalchemy import text

    from service.store.database import make_engine

    admin = make_engine(admin_url, pool_size=1)
    try:
        async with admin.connect() as connection:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.execute(text(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            if create:
                await connection.execute(text(f"CREATE DATABASE {name}"))
    finally:
        await admin.dispose()


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    url = os.environ.get("TEST_DATABASE_URL")
    if url and WORKER:
        name = f"wif_test_{WORKER}"
        asyncio.run(_recreate_database(url, name))
        yield with_database(url, name)
        asyncio.run(_recreate_database(url, name, create=False))
        return
    if url:
        yield url
        return
    from service.store import embedded

    folder = Path(tempfile.mkdtemp(prefix="wif-test-pg-"))
    server, url = embedded.start(folder, throwaway=True)
    _EMBEDDED["server"] = server
    os.environ.setdefault("DATABASE_URL", url)
    yield url
    server.cleanup()


@pytest.fixture(scope="session")
def embedded_server(database_url: str) -> Any:
    """The session's embedded PostgreSQL server (None on TEST_DATABASE_URL)."""
    return _EMBEDDED.get("server")


@pytest.fixture(scope="session")
def migrated_url(database_url: str) -> str:
    from service.store.database import make_engine, migrate

    async def run() -> None:
        engine = make_engine(database_url, pool_size=1)
        try:
            await migrate(engine)
        finally:
            await engine.dispose()

    asyncio.run(run())
    return database_url


LOCAL_RECEIVERS = ["127.0.0.0/8"]
# The webhook and channel hosts the documents and the OpenAPI examples name, as a
# resolver answers them: a public address (this machine may have no DNS; the server
# checks the address, as it would any). Nothing is sent to them: the servers that use
# this resolver run no courier.
DOCUMENTED_HOSTS = {"example.org": "93.184.215.14", "discord.com": "162.159.135.232"}


async def documented_hosts(host: str, port: int) -> list[str]:
    assert host in DOCUMENTED_HOSTS, host
    return [DOCUMENTED_HOSTS[host]]


def local_settings(url: str, **changes: object) -> Any:
    """The settings of the test servers: their webhooks may go to receivers on this
    machine (notifications otherwise go to public addresses only)."""
    from service.settings import Settings

    # A refused client asking again early is answered at once, unless a test says
    # otherwise (tests/api/test_rate_limits.py): the suite's limit tests ask in loops.
    changes.setdefault("rate_limit_pause", 0)
    return Settings(database_url=url, webhook_allow_networks=LOCAL_RECEIVERS, **changes)


@pytest.fixture(scope="session")
async def app(migrated_url: str) -> AsyncIterator[object]:
    from service.app import create_app

    # Rate limits off: the suite sends far more than one client would from its address
    # (tests/api/test_hostile.py checks the limits on an app of their own).
    application = create_app(local_settings(migrated_url, rate_limit=0),
                             database_url=migrated_url)
    async with application.router.lifespan_context(application):
        yield application
        await _every_game_replays_to_its_state(application)


async def _every_game_replays_to_its_state(application: object) -> None:
    """After the session: for every game the tests created, the stored state and every
    snapshot equal the replay of its log (docs/operating.md, "Layout")."""
    from service.referee.audit import replay_all

    async with application.state.transactions() as uow:  # type: ignore[attr-defined]
        divergences = await replay_all(uow)
        misshapen = await _events_off_their_shape(uow)
    assert divergences == [], divergences
    assert misshapen == [], misshapen


async def _events_off_their_shape(uow: Any) -> list[str]:
    """Every event the session's games logged has its kind's data (issue 32: the
    registry of service/rules/event_data.py, which the API publishes): one line per kind
    whose data does not, with an example."""
    import json

    from pydantic import TypeAdapter, ValidationError
    from sqlalchemy import text

    from service.rules import EVENT_DATA
    from tests.api.test_answers import undeclared

    rows = (await uow.session.execute(text("SELECT DISTINCT kind, data::text FROM events"))).all()
    shapes = {kind: TypeAdapter(shape) for kind, shape in EVENT_DATA.items()}
    wrong: dict[str, str] = {}
    for kind, raw in rows:
        data = json.loads(raw)
        if kind not in shapes:
            wrong.setdefault(kind, "no shape in EVENT_DATA")
            continue
        try:
            shapes[kind].validate_python(data)
        except ValidationError as error:
            wrong.setdefault(kind, f"{data}: {error.errors()[0]}")
            continue
        extra = undeclared(data, EVENT_DATA[kind])
        if extra:
            wrong.setdefault(kind, f"{data}: undeclared {extra}")
    return [f"{kind}: {why}" for kind, why in sorted(wrong.items())]


@pytest.fixture
async def client(app: object) -> AsyncIterator[httpx.AsyncClient]:
    transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as c:
        yield c


class LiveServer:
    """uvicorn serving the app in a background thread, on an ephemeral port."""

    def __init__(self, app: object) -> None:
        import threading

        import uvicorn

        self.config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning",
                                     lifespan="on", timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(self.config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> str:
        import time

        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}"

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=30)


@pytest.fixture(scope="session")
def live_url(migrated_url: str) -> Iterator[str]:
    """A real server (its own app and event loop) on the test database."""
    from service.app import create_app

    # Rate limits off: the suite sends far more than one client would from its address
    # (tests/api/test_hostile.py checks the limits on an app of their own).
    application = create_app(local_settings(migrated_url, rate_limit=0),
                             database_url=migrated_url)
    with LiveServer(application) as url:
        yield url


async def empty_rate_buckets(url: str) -> None:
    """Forget the shared rate buckets: they outlive apps (every process shares them), and
    the tests' clients all come from 127.0.0.1."""
    from sqlalchemy import text

    from service.store.database import make_engine

    engine = make_engine(url, pool_size=1)
    try:
        async with engine.begin() as connection:
            await connection.execute(text("DELETE FROM rate_buckets"))
    finally:
        await engine.dispose()


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@contextlib.asynccontextmanager
async def fresh_database(database_url: str, name: str) -> AsyncIterator[str]:
    """A new, migrated database on the test server, dropped afterwards: for a test whose
    background workers must not meet the other tests' servers' (each sweeps every game
    and every message in its database). Its name carries the xdist worker's."""
    from service.store.database import make_engine, migrate

    name = f"{name}_{WORKER}" if WORKER else name
    await _recreate_database(database_url, name)
    url = with_database(database_url, name)
    engine = make_engine(url, pool_size=1)
    await migrate(engine)
    await engine.dispose()
    try:
        yield url
    finally:
        await _recreate_database(database_url, name, create=False)
