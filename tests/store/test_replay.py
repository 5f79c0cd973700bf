"""The replay audit finds a stored snapshot that differs from its log (the current
state is the newest snapshot plus the events since, so a snapshot is what can drift)."""

from __future__ import annotations

import httpx
from sqlalchemy import select
from support import full_game

from service.referee.audit import replay_game
from service.store.models import SnapshotRow


async def test_replay_flags_a_snapshot_that_differs_from_the_log(
    client: httpx.AsyncClient, app: object
) -> None:
    game = await full_game(client)
    async with app.state.transactions() as uow:  # type: ignore[attr-defined]
        session = uow.session
        found = await uow.games.get(game.id)
        assert await replay_game(uow, found) is None
        snapshot = (await session.execute(
            select(SnapshotRow).where(SnapshotRow.game_id == game.id)
            .order_by(SnapshotRow.seq.desc()).limit(1))).scalar_one()
        original = snapshot.state
        snapshot.state = {**original, "turn": {**original["turn"], "turn_end_total": 99}}
        await session.flush()
        divergence = await replay_game(uow, found)
        assert divergence is not None and divergence.what.startswith("snapshot")
        snapshot.state = original
