"""Replaying stored games: the current state and every snapshot must equal the fold of
the log from the scenario's initial state (DESIGN.md 2)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from service.referee.core import event_record, load_state
from service.rules import Event, evolve, initial_state
from service.rules.codec import to_data
from service.store.models import EventRow, GameRow, SnapshotRow


@dataclass
class Divergence:
    game_id: str
    seq: int
    what: str


async def replay_game(session: AsyncSession, game: GameRow) -> Divergence | None:
    """The first place where the stored game (every snapshot, and the current state as
    this process loads it) and the replay of its log disagree."""
    current = await load_state(session, game)
    state = initial_state(current.setup)
    snapshots = {
        row.seq: row.state for row in (
            await session.execute(select(SnapshotRow).where(SnapshotRow.game_id == game.id))
        ).scalars()
    }
    rows = (
        await session.execute(
            select(EventRow).where(EventRow.game_id == game.id).order_by(EventRow.seq)
        )
    ).scalars()
    last = 0
    for row in rows:
        state = evolve(state, Event.from_record(event_record(row)))
        last = row.seq
        stored = snapshots.get(row.seq)
        if stored is not None and stored != to_data(state):
            return Divergence(game.id, row.seq, "snapshot differs from the replay")
    if to_data(state) != to_data(current):
        return Divergence(game.id, last, "current state differs from the replay")
    return None


async def replay_all(session: AsyncSession) -> list[Divergence]:
    found = []
    for game in (await session.execute(select(GameRow))).scalars():
        divergence = await replay_game(session, game)
        if divergence is not None:
            found.append(divergence)
    return found
