"""The referee's one way to change a game: lock it, decide, append the events to the
hash chain, store the state, all in the caller's transaction.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from service.crypto import chain
from service.referee.dice import ServerDice
from service.rules import RULES_VERSION, Command, Event, Setup, State, decide, evolve
from service.rules.awaiting import deadline
from service.rules.codec import from_data, to_data
from service.rules.scenario import parse_scenario
from service.store.models import DiceSeedRow, EventRow, GameRow, SnapshotRow

SNAPSHOT_AFTER = ("game.created", "impulse.began", "turn.began")
_SETUPS: OrderedDict[str, Setup] = OrderedDict()
_SETUP_CACHE_SIZE = 512


class GameNotFound(Exception):
    pass


def utc_now() -> datetime:
    return datetime.now(UTC)


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def setup_of(game: GameRow) -> Setup:
    """The game's fixed setup, parsed once per process (a scenario never changes)."""
    cached = _SETUPS.get(game.id)
    if cached is not None:
        _SETUPS.move_to_end(game.id)
        return cached
    setup = Setup(
        game_id=game.id,
        scenario=parse_scenario(game.scenario),
        options=game.options,
        dice_mode=game.dice["mode"],
    )
    _SETUPS[game.id] = setup
    if len(_SETUPS) > _SETUP_CACHE_SIZE:
        _SETUPS.popitem(last=False)
    return setup


def state_of(game: GameRow) -> State:
    return from_data(State, game.state, setup=setup_of(game))


async def lock_game(session: AsyncSession, game_id: str) -> GameRow:
    row = (
        await session.execute(
            select(GameRow).where(GameRow.id == game_id).with_for_update()
            .execution_options(populate_existing=True)
        )
    ).scalar_one_or_none()
    if row is None:
        raise GameNotFound(game_id)
    return row


async def get_game(session: AsyncSession, game_id: str) -> GameRow:
    row = await session.get(GameRow, game_id)
    if row is None:
        raise GameNotFound(game_id)
    return row


@dataclass
class Applied:
    events: list[dict[str, Any]]
    state: State
    version: int


async def server_dice(session: AsyncSession, game: GameRow) -> ServerDice:
    rows = (
        await session.execute(
            select(DiceSeedRow.turn, DiceSeedRow.seed).where(DiceSeedRow.game_id == game.id)
        )
    ).all()
    return ServerDice(
        game_id=game.id,
        mode=game.dice["mode"],
        config=game.dice,
        seeds={turn: seed for turn, seed in rows},
        head_seq=game.head_seq,
        head_hash=game.head_hash,
    )


def _deadline_of(state: State) -> datetime | None:
    due = deadline(state)
    return datetime.fromisoformat(due) if due else None


async def append(
    session: AsyncSession, game: GameRow, state: State, events: list[Event],
    dice: ServerDice | None = None,
) -> Applied:
    """Chain, store and apply `events` to a locked game; bump its version; write the
    notifications they cause to the outbox in the same transaction."""
    before = state
    seq, digest = game.head_seq, game.head_hash
    records: list[dict[str, Any]] = []
    snapshots: list[dict[str, Any]] = []
    for event in events:
        seq += 1
        record = event.record(seq)
        digest = chain.event_hash(digest, record)
        record["hash"] = digest
        records.append(record)
        state = evolve(state, event)
        if event.kind in SNAPSHOT_AFTER:
            snapshots.append({"game_id": game.id, "seq": seq, "turn": state.turn.number,
                              "impulse": state.turn.impulse, "state": to_data(state)})
    if records:
        await session.execute(
            insert(EventRow),
            [{**r, "game_id": game.id, "at": datetime.fromisoformat(r["at"])} for r in records],
        )
    if snapshots:
        await session.execute(insert(SnapshotRow), snapshots)
    if dice is not None and dice.new_seeds:
        from service.crypto.dice import commitment

        await session.execute(
            insert(DiceSeedRow),
            [{"game_id": game.id, "turn": t, "seed": s, "commitment": commitment(s)}
             for t, s in dice.new_seeds.items()],
        )
    version = game.version + 1
    await session.execute(
        update(GameRow)
        .where(GameRow.id == game.id)
        .values(
            state=to_data(state), version=version, head_seq=seq, head_hash=digest,
            status=state.status, next_deadline=_deadline_of(state), updated_at=utc_now(),
            step_started_at=(datetime.fromisoformat(state.turn.step_started_at)
                             if state.turn.step_started_at else None),
        )
    )
    from service.referee.notifications import enqueue

    await enqueue(session, game.id, version, before, state, records)
    game.version, game.head_seq, game.head_hash, game.status = version, seq, digest, state.status
    session.info.setdefault("appended", {})[game.id] = seq
    return Applied(records, state, version)


async def apply(session: AsyncSession, game: GameRow, command: Command) -> Applied:
    """Decide `command` on a locked game and append what it causes."""
    state = state_of(game)
    dice = await server_dice(session, game)
    events = decide(state, command, dice)
    return await append(session, game, state, events, dice)


__all__ = ["RULES_VERSION", "Applied", "GameNotFound", "apply", "append", "lock_game"]
