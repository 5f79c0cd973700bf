"""The replay audit finds a stored snapshot that differs from its log (the current
state is the newest snapshot plus the events since, so a snapshot is what can drift)."""

from __future__ import annotations

import httpx
from sqlalchemy import select
from support import full_game

from service.referee.audit import replay_game
from service.store.models import GameRow, SnapshotRow


async def test_replay_flags_a_snapshot_that_differs_from_the_log(
    client: httpx.AsyncClient, app: object
) -> None:
    game = await full_game(client)
    maker = app.state.sessionmaker  # type: ignore[attr-defined]
    async with maker() as session, session.begin():
        row = (await session.execute(select(GameRow).where(GameRow.id == game.id))).scalar_one()
        assert await replay_game(session, row) is None
        snapshot = (await session.execute(
            select(SnapshotRow).where(SnapshotRow.game_id == game.id)
            .order_by(SnapshotRow.seq.desc()).limit(1))).scalar_one()
        original = snapshot.state
        snapshot.state = {**original, "turn": {**original["turn"], "turn_end_total": 99}}
        await session.flush()
        divergence = await replay_game(session, row)
        assert divergence is not None and divergence.what.startswith("snapshot")
        snapshot.state = original
