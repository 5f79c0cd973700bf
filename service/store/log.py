"""The hash-chained turn log (append-only: a trigger refuses UPDATE, DELETE, TRUNCATE)
and the state snapshots kept along it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, cast

from sqlalchemy import insert, select
from sqlalchemy.ext.asyncio import AsyncSession

from service.clock import rfc3339
from service.rules.events import EventKind, EventRecord
from service.store.models import EventRow, SnapshotRow, table

DICE_KINDS = ("dice.committed", "dice.revealed", "dice.rolled", "dice.recommitted")


def event_record(row: EventRow) -> EventRecord:
    """An event as it is hashed and shown (docs/api.md "The log")."""
    return {
        "seq": row.seq, "turn": row.turn, "impulse": row.impulse, "step": row.step,
        "kind": cast(EventKind, row.kind), "actor": row.actor, "text": row.text, "data": row.data,
        "at": rfc3339(row.at), "rules_version": row.rules_version, "hash": row.hash,
    }


_INSERT_EVENTS = insert(table(EventRow))  # built once: the order path
_INSERT_SNAPSHOTS = insert(table(SnapshotRow))


class EventLog:
    """A game's events in order, and its snapshots."""

    def __init__(self, session: AsyncSession) -> None:
        self.session = session

    async def append(self, game_id: str, records: Sequence[Mapping[str, Any]]) -> None:
        """Store chained records (with `hash`); `at` is RFC 3339 text."""
        if records:
            await self.session.execute(_INSERT_EVENTS, [
                {**r, "game_id": game_id, "at": datetime.fromisoformat(r["at"])}
                for r in records])

    async def since(self, game_id: str, after: int, limit: int | None = None,
                    upto: int | None = None) -> list[EventRecord]:
        query = select(EventRow).where(EventRow.game_id == game_id, EventRow.seq > after)
        if upto is not None:
            query = query.where(EventRow.seq <= upto)
        query = query.order_by(EventRow.seq)
        if limit is not None:
            query = query.limit(limit)
        return [event_record(row) for row in (await self.session.execute(query)).scalars()]

    async def of_kinds(self, game_id: str, kinds: Sequence[str], *,
                       turns: Sequence[int] | None = None, before: int | None = None
                       ) -> list[EventRecord]:
        """The game's events of `kinds` (of `turns` and `before` a seq, when given)."""
        query = select(EventRow).where(EventRow.game_id == game_id,
                                       EventRow.kind.in_(list(kinds)))
        if turns is not None:
            query = query.where(EventRow.turn.in_(list(turns)))
        if before is not None:
            query = query.where(EventRow.seq < before)
        rows = (await self.session.execute(query.order_by(EventRow.seq))).scalars()
        return [event_record(row) for row in rows]

    async def kinds_after(self, game_id: str, after: int) -> list[tuple[int, str]]:
        """(seq, kind) of every event after `after`."""
        rows = await self.session.execute(
            select(EventRow.seq, EventRow.kind).where(EventRow.game_id == game_id,
                                                      EventRow.seq > after))
        return [(seq, kind) for seq, kind in rows.all()]

    async def kind_at(self, game_id: str, seq: int) -> str | None:
        found: str | None = await self.session.scalar(
            select(EventRow.kind).where(EventRow.game_id == game_id, EventRow.seq == seq))
        return found

    async def impulse_began(self, game_id: str, turn: int, impulse: int) -> list[int]:
        """The seqs of the `impulse.began` events of impulse `impulse` of turn `turn`."""
        return list((await self.session.execute(
            select(EventRow.seq).where(
                EventRow.game_id == game_id, EventRow.kind == "impulse.began",
                EventRow.turn == turn, EventRow.data["impulse"].as_integer() == impulse)
        )).scalars().all())

    async def add_snapshots(self, rows: Sequence[dict[str, Any]]) -> None:
        if rows:
            await self.session.execute(_INSERT_SNAPSHOTS, list(rows))

    async def snapshots(self, game_id: str) -> dict[int, dict[str, Any]]:
        return {row.seq: row.state for row in (await self.session.execute(
            select(SnapshotRow).where(SnapshotRow.game_id == game_id))).scalars()}

    async def snapshot_at_or_before(self, game_id: str, seq: int
                                    ) -> tuple[int, dict[str, Any]] | None:
        found = (await self.session.execute(
            select(SnapshotRow.seq, SnapshotRow.state)
            .where(SnapshotRow.game_id == game_id, SnapshotRow.seq <= seq)
            .order_by(SnapshotRow.seq.desc()).limit(1))).first()
        return None if found is None else (int(found[0]), found[1])
