"""The schema: migrations round trip and match the models; the log is append-only."""

from __future__ import annotations

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from service.store.database import downgrade, make_engine, migrate
from service.store.models import Base


async def test_migrations_upgrade_downgrade_upgrade_and_match_the_models(
    database_url: str,
) -> None:
    engine = make_engine(database_url.replace("/postgres?", "/migrations_check?"), pool_size=1)
    admin = make_engine(database_url, pool_size=1)
    async with admin.connect() as connection:
        await connection.execution_options(isolation_level="AUTOCOMMIT")
        await connection.execute(text("DROP DATABASE IF EXISTS migrations_check"))
        await connection.execute(text("CREATE DATABASE migrations_check"))
    try:
        await migrate(engine)
        await downgrade(engine, "base")
        async with engine.connect() as connection:
            tables = (await connection.execute(text(
                "SELECT count(*) FROM information_schema.tables WHERE table_schema='public' "
                "AND table_name <> 'alembic_version'"))).scalar()
        assert tables == 0
        await migrate(engine)
        async with engine.connect() as connection:
            diff = await connection.run_sync(
                lambda sync: compare_metadata(MigrationContext.configure(sync), Base.metadata)
            )
        assert diff == []
    finally:
        await engine.dispose()
        async with admin.connect() as connection:
            await connection.execution_options(isolation_level="AUTOCOMMIT")
            await connection.execute(text("DROP DATABASE IF EXISTS migrations_check"))
        await admin.dispose()


@pytest.mark.parametrize("statement", [
    "UPDATE events SET text = 'x'",
    "DELETE FROM events",
    "TRUNCATE events",
])
async def test_the_event_log_is_append_only(migrated_url: str, statement: str) -> None:
    engine = make_engine(migrated_url, pool_size=1)
    try:
        async with engine.begin() as connection:
            await connection.execute(text(
                "INSERT INTO events (game_id, seq, turn, impulse, step, kind, actor, text, data,"
                " rules_version, hash, at) VALUES ('append-only-check', 1, 0, 0, 'join',"
                " 'game.started', 'gm', 't', '{}', '1', 'h', now()) ON CONFLICT DO NOTHING"))
        with pytest.raises(DBAPIError, match="append-only"):
            async with engine.begin() as connection:
                await connection.execute(text(statement))
    finally:
        await engine.dispose()
