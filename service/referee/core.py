"""The referee's one way to change a game: lock it, decide, append the events to the
hash chain, store the state, all in the caller's transaction.

The current state is not rewritten per order (for a big game that write dominated an
order's cost): it is the newest snapshot plus the events since, kept by each process
in a cache validated by the game row's head (seq and chain hash). Since the state is
the fold of the hash-chained log, a cached state whose head matches the row is the
committed state, whichever transaction computed it. A stale cache is caught up from
the events it has not seen; a cold one is rebuilt from the newest snapshot. Snapshots
are written at the start of every impulse and turn and every `SNAPSHOT_EVERY` events,
which bounds a rebuild.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from weakref import WeakKeyDictionary

from sqlalchemy import Text, bindparam, exists, func, insert, inspect, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from service.crypto import chain
from service.referee.dice import ServerDice, load_dice
from service.rules import RULES_VERSION, Command, Event, Setup, State, decide, evolve
from service.rules.awaiting import next_due
from service.rules.codec import to_data
from service.rules.scenario import parse_scenario
from service.rules.state import state_from_data
from service.settings import get_settings
from service.store.models import (
    DiceSeedRow,
    EventRow,
    GameRow,
    OrderRow,
    SnapshotRow,
    WebhookRow,
    table,
)

SNAPSHOT_AFTER = ("game.created", "impulse.began", "turn.began")
SNAPSHOT_EVERY = 500
_CACHE_SIZE = 512
_SETUPS: OrderedDict[str, Setup] = OrderedDict()


@dataclass(frozen=True, slots=True, eq=False)
class _Known:
    """A game's state after event `head_seq` (whose hash is `head_hash`)."""

    head_seq: int
    head_hash: str
    snapshot_seq: int
    state: State

    def matches(self, game: GameRow) -> bool:
        return self.head_seq == game.head_seq and self.head_hash == game.head_hash


_KNOWN: OrderedDict[str, tuple[_Known, ...]] = OrderedDict()  # newest first
_KNOWN_PER_GAME = 3  # a read that lags an order by a version or two still hits
_PINNED: WeakKeyDictionary[GameRow, _Known] = WeakKeyDictionary()


class GameNotFound(Exception):
    pass


def utc_now() -> datetime:
    return datetime.now(UTC)


def rfc3339(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def event_record(row: EventRow) -> dict[str, Any]:
    return {
        "seq": row.seq, "turn": row.turn, "impulse": row.impulse, "step": row.step,
        "kind": row.kind, "actor": row.actor, "text": row.text, "data": row.data,
        "at": rfc3339(row.at), "rules_version": row.rules_version, "hash": row.hash,
    }


class StateNotLoaded(RuntimeError):
    """`state_of` on a row whose state was not loaded with `load_state`."""


def state_of(game: GameRow) -> State:
    """The current state of a game row loaded by `get_game`, `lock_game` or `load_state`."""
    known = _PINNED.get(game)
    if known is None or not known.matches(game):
        known = _match(game)
        if known is None:
            raise StateNotLoaded(f"the state of game {game.id} at seq {game.head_seq} was "
                                 "not loaded (await load_state first)")
    return known.state


def _match(game: GameRow) -> _Known | None:
    return next((k for k in _KNOWN.get(game.id, ()) if k.matches(game)), None)


def setup_of(game: GameRow) -> Setup:
    """The game's fixed setup (scenario, options, dice mode)."""
    return state_of(game).setup


def _remember(game: GameRow, known: _Known) -> None:
    others = [k for k in _KNOWN.get(game.id, ())
              if (k.head_seq, k.head_hash) != (known.head_seq, known.head_hash)]
    newest = sorted([known, *others], key=lambda k: k.head_seq, reverse=True)
    _KNOWN[game.id] = tuple(newest[:_KNOWN_PER_GAME])
    _KNOWN.move_to_end(game.id)
    if len(_KNOWN) > _CACHE_SIZE:
        _KNOWN.popitem(last=False)
    _PINNED[game] = known


async def load_state(session: AsyncSession, game: GameRow) -> State:
    """Make the game's current state available to `state_of` and return it: this
    process's cached state when it is at the row's head; else that state caught up
    with the events since; else the newest snapshot plus the events since."""
    known = _PINNED.get(game)
    if known is not None and known.matches(game):
        return known.state
    known = _match(game) or await _catch_up(session, game)
    _remember(game, known)
    return known.state


async def _setup(session: AsyncSession, game: GameRow) -> Setup:
    """Parsed once per process: a scenario never changes (the column is not even
    loaded with the row, see GameRow.scenario)."""
    cached = _SETUPS.get(game.id)
    if cached is not None:
        _SETUPS.move_to_end(game.id)
        return cached
    scenario: dict[str, Any]
    if "scenario" in inspect(game).unloaded:
        query = select(GameRow.scenario).where(GameRow.id == game.id)
        scenario = await session.scalar(query) or {}
    else:
        scenario = game.scenario
    setup = Setup(game_id=game.id, scenario=parse_scenario(scenario), options=game.options,
                  dice_mode=game.dice["mode"])
    _SETUPS[game.id] = setup
    if len(_SETUPS) > _CACHE_SIZE:
        _SETUPS.popitem(last=False)
    return setup


async def _catch_up(session: AsyncSession, game: GameRow) -> _Known:
    """The state at the row's head from this process's newest older state (one query:
    the events from that state's head on, the first of which must carry its hash, else
    that state never committed), or else from the newest snapshot."""
    base = next((k for k in _KNOWN.get(game.id, ()) if 0 < k.head_seq < game.head_seq), None)
    if base is not None:
        rows = list((await session.execute(_events_between(game, base.head_seq - 1))).scalars())
        if rows and rows[0].seq == base.head_seq and rows[0].hash == base.head_hash:
            return _fold(game, base.state, base.snapshot_seq, rows[1:])
    setup = await _setup(session, game)
    newest = (await session.execute(
        select(SnapshotRow.seq, SnapshotRow.state)
        .where(SnapshotRow.game_id == game.id, SnapshotRow.seq <= game.head_seq)
        .order_by(SnapshotRow.seq.desc()).limit(1))).first()
    if newest is None:
        raise RuntimeError(f"game {game.id} has no snapshot")
    rows = list((await session.execute(_events_between(game, newest.seq))).scalars())
    return _fold(game, state_from_data(newest.state, setup), newest.seq, rows)


def _events_between(game: GameRow, after: int) -> Any:
    return (select(EventRow).where(EventRow.game_id == game.id, EventRow.seq > after,
                                   EventRow.seq <= game.head_seq).order_by(EventRow.seq))


def _fold(game: GameRow, state: State, snapshot_seq: int, rows: list[EventRow]) -> _Known:
    for row in rows:
        state = evolve(state, Event.from_record(event_record(row)))
        if _snapshot_due(row.kind, row.seq, snapshot_seq):
            snapshot_seq = row.seq
    last = rows[-1].hash if rows else None
    if rows and last != game.head_hash:
        raise RuntimeError(f"game {game.id}: the log does not end at the row's head")
    return _Known(game.head_seq, game.head_hash, snapshot_seq, state)


def _snapshot_due(kind: str, seq: int, snapshot_seq: int) -> bool:
    return kind in SNAPSHOT_AFTER or seq - snapshot_seq >= SNAPSHOT_EVERY


def game_lock_key(game_id: Any) -> Any:
    """The advisory lock key of a game id (or of a bind parameter) (GAME_LOCK=advisory)."""
    return func.hashtextextended(game_id, 0)


async def lock_game(session: AsyncSession, game_id: str) -> GameRow:
    """The game row, locked until the end of the transaction, with its state loaded.

    By default (GAME_LOCK=advisory) `pg_advisory_xact_lock` on the game id, then a plain
    read of the row (a new snapshot, so it sees the previous holder's commit): waiters
    queue in order. GAME_LOCK=row uses `SELECT ... FOR UPDATE` (one statement), whose
    waiters are woken unfairly: on one game with 32 clients its p99 was several times
    the advisory lock's (bench/hot_game.py). The deadline sweeper takes the same lock."""
    return (await _lock(session, game_id, None))[0]


async def lock_for_order(session: AsyncSession, game_id: str, player_id: str, seq: int
                         ) -> tuple[GameRow, tuple[str, dict[str, Any]] | None]:
    """`lock_game`, plus the hash and result of the order the player already stored
    under `seq` (None if none), read after the lock is held."""
    return await _lock(session, game_id, (player_id, seq))


# The order path's statements, built once: building a statement and its cache key on
# every call cost more CPU than executing it (bench/README.md).
_ADVISORY_LOCK = select(func.pg_advisory_xact_lock(game_lock_key(bindparam("game", type_=Text))))
_READ_LOCKED = (
    select(GameRow, exists().where(WebhookRow.game_id == GameRow.id))
    .where(GameRow.id == bindparam("game")).execution_options(populate_existing=True)
)
_READ_LOCKED_FOR_ORDER = _READ_LOCKED.add_columns(OrderRow.order_hash, OrderRow.result).outerjoin(
    OrderRow, (OrderRow.game_id == GameRow.id) & (OrderRow.player_id == bindparam("player"))
    & (OrderRow.seq == bindparam("seq")))


async def _lock(session: AsyncSession, game_id: str, order: tuple[str, int] | None
                ) -> tuple[GameRow, tuple[str, dict[str, Any]] | None]:
    previous: tuple[str, dict[str, Any]] | None = None
    if get_settings().game_lock == "advisory":
        await session.execute(_ADVISORY_LOCK, {"game": game_id})
        # The read after the lock is a fresh snapshot, so it may also answer whether the
        # game has webhooks (the outbox skips its query when not) and whether the order
        # was already stored: one round trip instead of three.
        if order is None:
            found: Any = (await session.execute(_READ_LOCKED, {"game": game_id})).first()
        else:
            found = (await session.execute(_READ_LOCKED_FOR_ORDER, {
                "game": game_id, "player": order[0], "seq": order[1]})).first()
        if found is None:
            raise GameNotFound(game_id)
        row: GameRow | None = found[0]
        session.info.setdefault("webhooks", {})[game_id] = bool(found[1])
        if order is not None and found[2] is not None:
            previous = (found[2], found[3])
    else:
        row = (await session.execute(
            select(GameRow).where(GameRow.id == game_id).with_for_update()
            .execution_options(populate_existing=True)
        )).scalar_one_or_none()
        if row is None:
            raise GameNotFound(game_id)
        if order is not None:
            stored = (await session.execute(
                select(OrderRow.order_hash, OrderRow.result).where(
                    OrderRow.game_id == game_id, OrderRow.player_id == order[0],
                    OrderRow.seq == order[1])
            )).first()
            previous = (stored[0], stored[1]) if stored is not None else None
    assert row is not None
    await load_state(session, row)
    return row, previous


async def get_game(session: AsyncSession, game_id: str) -> GameRow:
    """The game row (not locked) with its state loaded."""
    row = await session.get(GameRow, game_id)
    if row is None:
        raise GameNotFound(game_id)
    await load_state(session, row)
    return row


@dataclass
class Applied:
    events: list[dict[str, Any]]
    state: State
    version: int


async def server_dice(session: AsyncSession, game: GameRow, turn: int) -> ServerDice:
    """The game's dice at `turn` (each turn's seed at the epoch its state records)."""
    return await load_dice(session, game, turn, state_of(game).dice.epochs)


def _deadline_of(state: State) -> datetime | None:
    due = next_due(state)  # a step's deadline, or the end of a pause
    return datetime.fromisoformat(due) if due else None


_INSERT_EVENTS = insert(table(EventRow))
_INSERT_SNAPSHOTS = insert(table(SnapshotRow))
_UPDATE_HEAD = update(table(GameRow)).where(table(GameRow).c.id == bindparam("game"))


async def append(
    session: AsyncSession, game: GameRow, state: State, events: list[Event],
    dice: ServerDice | None = None,
) -> Applied:
    """Chain, store and apply `events` to a locked game; bump its version; write the
    notifications they cause to the outbox in the same transaction."""
    before = state
    seq, digest = game.head_seq, game.head_hash
    known = _PINNED.get(game)
    snapshot_seq = known.snapshot_seq if known is not None and known.matches(game) else 0
    records: list[dict[str, Any]] = []
    snapshots: list[dict[str, Any]] = []
    for event in events:
        seq += 1
        record = event.record(seq)
        digest = chain.event_hash(digest, record)
        record["hash"] = digest
        records.append(record)
        state = evolve(state, event)
        if _snapshot_due(event.kind, seq, snapshot_seq):
            snapshot_seq = seq
            snapshots.append({"game_id": game.id, "seq": seq, "turn": state.turn.number,
                              "impulse": state.turn.impulse, "state": to_data(state)})
    if records:
        await session.execute(
            _INSERT_EVENTS,
            [{**r, "game_id": game.id, "at": datetime.fromisoformat(r["at"])} for r in records],
        )
    if snapshots:
        await session.execute(_INSERT_SNAPSHOTS, snapshots)
    if dice is not None and dice.new_seeds:
        await session.execute(insert(DiceSeedRow), dice.seed_rows(game.id))
    version = game.version + 1
    await session.execute(_UPDATE_HEAD, {
        "game": game.id, "version": version, "head_seq": seq, "head_hash": digest,
        "status": state.status, "next_deadline": _deadline_of(state), "updated_at": utc_now(),
        "step_started_at": (datetime.fromisoformat(state.turn.step_started_at)
                            if state.turn.step_started_at else None),
    })
    from service.referee.notifications import enqueue

    await enqueue(session, game.id, version, before, state, records)
    for name, value in (("version", version), ("head_seq", seq), ("head_hash", digest),
                        ("status", state.status)):
        set_committed_value(game, name, value)  # as written above: nothing left to flush
    _remember(game, _Known(seq, digest, snapshot_seq, state))
    session.info.setdefault("appended", {})[game.id] = seq
    return Applied(records, state, version)


async def apply(session: AsyncSession, game: GameRow, command: Command) -> Applied:
    """Decide `command` on a locked game and append what it causes."""
    state = await load_state(session, game)
    dice = await server_dice(session, game, state.turn.number)
    events = decide(state, command, dice).events
    return await append(session, game, state, events, dice)


__all__ = ["RULES_VERSION", "Applied", "GameNotFound", "apply", "append", "get_game",
           "load_state", "lock_for_order", "lock_game", "state_of"]
