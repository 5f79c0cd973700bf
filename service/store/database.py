"""Engines, sessions and migrations."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import orjson
from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from service.settings import get_settings

MIGRATION_LOCK = 7_230_001
PROJECT_ROOT = Path(__file__).resolve().parents[2]
_embedded: list[Any] = []  # the embedded server this process uses (service.store.embedded)


def resolve_database_url() -> str:
    """DATABASE_URL, else an embedded PostgreSQL under the data folder (started once)."""
    settings = get_settings()
    if settings.database_url:
        return settings.database_url
    if _embedded:
        return str(_embedded[0].url)
    from service.store import embedded

    found = embedded.start_owned(settings.data_dir)
    _embedded.append(found)
    os.environ["DATABASE_URL"] = found.url
    return found.url


def stop_embedded() -> str | None:
    """Stop the embedded PostgreSQL this process started (one it found running is left
    alone); what was done, to tell whoever ran the server, or None without one."""
    from service.store import embedded

    if not _embedded:
        return None
    found = _embedded.pop()
    where = found.server.pgdata
    if embedded.stop(found):
        return f"stopped the embedded PostgreSQL this server started ({where})"
    return f"left the PostgreSQL in {where} running: this server did not start it, or " \
           "another process still uses it"


def make_engine(url: str, *, pool_size: int = 10, read_only: bool = False) -> AsyncEngine:
    """An engine with the service's pool; `read_only` for a replica's (its transactions
    are read-only even if the URL names a primary by mistake)."""
    server_settings = {"application_name": "wif-referee"}
    if read_only:
        server_settings["default_transaction_read_only"] = "on"
    return create_async_engine(
        url,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        connect_args={"server_settings": server_settings},
        json_serializer=json_text,
    )


def json_text(value: object) -> str:
    """JSON for the JSON columns, by orjson: a big state's snapshot in well under a
    millisecond (the standard library's took tens, on the loop, at each snapshot); what
    orjson does not take (an integer past 64 bits) by the standard library."""
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:
        return json.dumps(value)


def make_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[Any]:
    return async_sessionmaker(engine, expire_on_commit=False)


def alembic_config(url: str | None = None) -> Config:
    config = Config(str(PROJECT_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(PROJECT_ROOT / "migrations"))
    if url:
        config.attributes["url"] = url
    return config


def _upgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, revision)


def _downgrade(connection: Connection, revision: str) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.downgrade(config, revision)


async def migrate(engine: AsyncEngine, revision: str = "head") -> None:
    """Upgrade under an advisory lock, so concurrent starters migrate once."""
    async with engine.connect() as connection:
        await connection.execute(text("SELECT pg_advisory_lock(:k)"), {"k": MIGRATION_LOCK})
        try:
            await connection.run_sync(_upgrade, revision)
            await connection.commit()
        finally:
            await connection.execute(text("SELECT pg_advisory_unlock(:k)"), {"k": MIGRATION_LOCK})
            await connection.commit()


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    async with engine.connect() as connection:
        await connection.run_sync(_downgrade, revision)
        await connection.commit()
