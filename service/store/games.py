"""Games: the row, the lock an order takes, and the current state behind a per-process
cache.

The current state is not rewritten per order (for a big game that write dominated an
order's cost): it is the newest snapshot plus the events since, kept by each process
in a cache validated by the game row's head (seq and chain hash). Since the state is
the fold of the hash-chained log, a cached state whose head matches the row is the
committed state, whichever transaction computed it. A stale cache is caught up from
the events it has not seen; a cold one is rebuilt from the newest snapshot.
"""

from __future__ import annotations

import json
import json.scanner
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
from sqlalchemy import Text, bindparam, cast, exists, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm.attributes import set_committed_value

from service.rules import Event, Setup, State, evolve
from service.rules.scenario import parse_scenario
from service.rules.state import state_from_data
from service.settings import get_settings
from service.store.log import event_record
from service.store.memory import BUDGET, estimate
from service.store.models import (
    EventRow,
    GameRow,
    OrderRow,
    PlayerRow,
    SnapshotRow,
    WebhookRow,
    table,
)
from service.store.threads import in_thread

SNAPSHOT_AFTER = ("game.created", "impulse.began", "turn.began")
SNAPSHOT_EVERY = 500
_CACHE_SIZE = 512
_FOLD_ON_LOOP = 8  # a catch-up of a few events costs less than a trip to a thread


class GameNotFound(Exception):
    """No game with that id."""


class Behind(Exception):
    """A replica's copy of the game is older than the version (or head seq) the caller
    knows: read it from the primary."""


@dataclass(frozen=True, slots=True, eq=False)
class _Known:
    """A game's state after event `head_seq` (whose hash is `head_hash`)."""

    head_seq: int
    head_hash: str
    snapshot_seq: int
    state: State


@dataclass(eq=False)
class Game:
    """A game row with its current state. `snapshot_seq` is the newest snapshot's
    event; `has_webhooks` is known when the game was locked (None: not asked)."""

    row: GameRow
    state: State
    snapshot_seq: int
    has_webhooks: bool | None = None

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def version(self) -> int:
        return self.row.version

    @property
    def head_seq(self) -> int:
        return self.row.head_seq

    @property
    def head_hash(self) -> str:
        return self.row.head_hash

    @property
    def setup(self) -> Setup:
        return self.state.setup


@dataclass(frozen=True, slots=True)
class StoredOrder:
    """An order already stored under a player's seq: its hash and its result."""

    order_hash: str
    result: dict[str, Any]


def snapshot_due(kind: str, seq: int, snapshot_seq: int) -> bool:
    """Snapshots are kept at the start of every impulse and turn and every
    `SNAPSHOT_EVERY` events, which bounds a rebuild."""
    return kind in SNAPSHOT_AFTER or seq - snapshot_seq >= SNAPSHOT_EVERY


class _Cache:
    """This process's newest states per game (newest first) and parsed setups, in the
    process's memory budget (service/store/memory.py)."""

    PER_GAME = 3  # a read that lags an order by a version or two still hits

    def __init__(self) -> None:
        self.known: OrderedDict[str, tuple[_Known, ...]] = OrderedDict()
        self.setups: OrderedDict[str, Setup] = OrderedDict()
        BUDGET.register("states", self.forget)

    def forget(self, game_id: str) -> None:
        self.known.pop(game_id, None)
        self.setups.pop(game_id, None)

    @staticmethod
    def _size(setup: Setup | None, states: int) -> int:
        if setup is None:
            return 0
        hexes, units = len(setup.scenario.map.hexes), len(setup.scenario.units)
        return estimate("setup", hexes, units) + states * estimate("state", hexes, units)

    def match(self, row: GameRow) -> _Known | None:
        return next((k for k in self.known.get(row.id, ())
                     if k.head_seq == row.head_seq and k.head_hash == row.head_hash), None)

    def older(self, row: GameRow) -> _Known | None:
        return next((k for k in self.known.get(row.id, ()) if 0 < k.head_seq < row.head_seq),
                    None)

    def remember(self, game_id: str, known: _Known) -> None:
        others = [k for k in self.known.get(game_id, ())
                  if (k.head_seq, k.head_hash) != (known.head_seq, known.head_hash)]
        newest = sorted([known, *others], key=lambda k: k.head_seq, reverse=True)
        self.known[game_id] = tuple(newest[:self.PER_GAME])
        self.known.move_to_end(game_id)
        if len(self.known) > _CACHE_SIZE:
            self.known.popitem(last=False)
        BUDGET.keep(game_id, "states", self._size(known.state.setup,
                                                   len(self.known.get(game_id, ()))))

    def setup(self, game_id: str) -> Setup | None:
        found = self.setups.get(game_id)
        if found is not None:
            self.setups.move_to_end(game_id)
        return found

    def keep_setup(self, game_id: str, setup: Setup) -> None:
        self.setups[game_id] = setup
        if len(self.setups) > _CACHE_SIZE:
            self.setups.popitem(last=False)
        BUDGET.keep(game_id, "states", self._size(setup, len(self.known.get(game_id, ()))))


_CACHE = _Cache()


def known_size(game_id: str) -> tuple[int, int] | None:
    """A game's hexes and units (in its newest state this process holds), when this
    process holds the game; else None."""
    known = _CACHE.known.get(game_id)
    if not known:
        return None
    state = known[0].state
    return len(state.setup.scenario.map.hexes), len(state.units)


def remember_state(game_id: str, head_seq: int, head_hash: str, snapshot_seq: int,
                   state: State) -> None:
    """A state committed at this head by a write that did not go through `advance` (the
    order's one call, service/store/order_call.py)."""
    _CACHE.remember(game_id, _Known(head_seq, head_hash, snapshot_seq, state))


def game_lock_key(game_id: object) -> Any:
    """The advisory lock key of a game id (or of a bind parameter) (GAME_LOCK=advisory)."""
    return func.hashtextextended(game_id, 0)


# The order path's statements, built once: building a statement and its cache key on
# every call cost more CPU than executing it (bench/README.md).
_ADVISORY_LOCK = select(func.pg_advisory_xact_lock(game_lock_key(bindparam("game", type_=Text))))
_READ_LOCKED = (
    select(GameRow, exists().where(WebhookRow.game_id == GameRow.id))
    .where(GameRow.id == bindparam("game")).execution_options(populate_existing=True)
)
_READ_LOCKED_FOR_ORDER = _READ_LOCKED.add_columns(
    OrderRow.order_hash, OrderRow.result, PlayerRow.public_key, PlayerRow.active,
    PlayerRow.keys, exists().where(EventRow.game_id == GameRow.id,
                                   EventRow.hash == bindparam("prev")),
).outerjoin(
    OrderRow, (OrderRow.game_id == GameRow.id) & (OrderRow.player_id == bindparam("player"))
    & (OrderRow.seq == bindparam("seq"))
).outerjoin(
    PlayerRow, (PlayerRow.game_id == GameRow.id) & (PlayerRow.id == bindparam("player")))
_UPDATE_HEAD = update(table(GameRow)).where(table(GameRow).c.id == bindparam("game"))


@dataclass(frozen=True, slots=True)
class Signer:
    """The order's player as the locked read sees it: the key that must have signed,
    whether the seat is still theirs, its key history, and whether the order's `prev`
    names an event of the game's chain."""

    public_key: str | None
    active: bool
    keys: tuple[dict[str, Any], ...] = ()
    prev_known: bool = False


class Games:
    """The games table and the current state of each game."""

    def __init__(self, session: AsyncSession, at_least: tuple[int, int] | None = None) -> None:
        self.session = session
        self.at_least = at_least

    async def row(self, game_id: str) -> GameRow:
        """The game's row (not locked), without its state. On a replica, `Behind` when
        its copy is older than the version and head seq the caller knows."""
        row = await self.session.get(GameRow, game_id)
        if row is None:
            raise GameNotFound(game_id)
        if self.at_least is not None and (row.version < self.at_least[0]
                                          or row.head_seq < self.at_least[1]):
            raise Behind(f"game {game_id}: version {row.version} at seq {row.head_seq}")
        return row

    async def get(self, game_id: str) -> Game:
        """The game (not locked) with its current state (`row`, then `with_state`)."""
        return await self.with_state(await self.row(game_id))

    async def lock(self, game_id: str) -> Game:
        """The game, locked until the end of the transaction, with its state.

        By default (GAME_LOCK=advisory) `pg_advisory_xact_lock` on the game id, then a
        plain read of the row (a new snapshot, so it sees the previous holder's commit):
        waiters queue in order. GAME_LOCK=row uses `SELECT ... FOR UPDATE`, whose waiters
        are woken unfairly: on one game with 32 clients its p99 was several times the
        advisory lock's (bench/hot_game.py). The deadline sweeper takes the same lock."""
        game, _, _ = await self._lock(game_id, None)
        return game

    async def lock_for_order(self, game_id: str, player_id: str, seq: int, prev: str
                             ) -> tuple[Game, StoredOrder | None, Signer]:
        """`lock`, plus what the player already stored under `seq` (None if nothing),
        the player's key as of the lock and whether `prev` is an event of the game, in
        the same round trip."""
        game, stored, signer = await self._lock(game_id, (player_id, seq, prev))
        assert signer is not None
        return game, stored, signer

    async def _lock(self, game_id: str, order: tuple[str, int, str] | None
                    ) -> tuple[Game, StoredOrder | None, Signer | None]:
        if get_settings().game_lock == "row":
            return await self._lock_row(game_id, order)
        await self.session.execute(_ADVISORY_LOCK, {"game": game_id})
        # The read after the lock is a fresh snapshot, so it may also answer whether the
        # game has webhooks (the outbox skips its query when not), whether the order
        # was already stored and which key the player has: one round trip.
        if order is None:
            found: Any = (await self.session.execute(_READ_LOCKED, {"game": game_id})).first()
        else:
            found = (await self.session.execute(_READ_LOCKED_FOR_ORDER, {
                "game": game_id, "player": order[0], "seq": order[1], "prev": order[2]})).first()
        if found is None:
            raise GameNotFound(game_id)
        game = await self.with_state(found[0])
        game.has_webhooks = bool(found[1])
        if order is None:
            return game, None, None
        stored = StoredOrder(found[2], found[3]) if found[2] is not None else None
        return game, stored, Signer(found[4], bool(found[5]), tuple(found[6] or ()),
                                    bool(found[7]))

    async def _lock_row(self, game_id: str, order: tuple[str, int, str] | None
                        ) -> tuple[Game, StoredOrder | None, Signer | None]:
        row = (await self.session.execute(
            select(GameRow).where(GameRow.id == game_id).with_for_update()
            .execution_options(populate_existing=True))).scalar_one_or_none()
        if row is None:
            raise GameNotFound(game_id)
        game = await self.with_state(row)
        if order is None:
            return game, None, None
        found = (await self.session.execute(
            select(OrderRow.order_hash, OrderRow.result).where(
                OrderRow.game_id == game_id, OrderRow.player_id == order[0],
                OrderRow.seq == order[1]))).first()
        player = await self.session.get(PlayerRow, (game_id, order[0]))
        stored = StoredOrder(found[0], found[1]) if found is not None else None
        prev_known = bool(await self.session.scalar(select(exists().where(
            EventRow.game_id == game_id, EventRow.hash == order[2]))))
        signer = Signer(player.public_key if player else None, bool(player and player.active),
                        tuple(player.keys or ()) if player else (), prev_known)
        return game, stored, signer

    async def with_state(self, row: GameRow) -> Game:
        """This process's cached state when it is at the row's head; else that state
        caught up with the events since; else the newest snapshot plus the events since."""
        known = _CACHE.match(row) or await self._catch_up(row)
        _CACHE.remember(row.id, known)
        return Game(row, known.state, known.snapshot_seq)

    async def setup(self, row: GameRow) -> Setup:
        """Parsed once per process: a scenario never changes (the column is deferred). Read
        as text and decoded and parsed off the loop (a big map takes a second)."""
        cached = _CACHE.setup(row.id)
        if cached is not None:
            return cached
        text: str | None = await self.session.scalar(
            select(cast(GameRow.scenario, Text)).where(GameRow.id == row.id))
        setup = await in_thread(_parsed_setup, row.id, text or "{}", row.options,
                                row.dice["mode"])
        _CACHE.keep_setup(row.id, setup)
        return setup

    async def size(self, game_id: str) -> tuple[int, int]:
        """A game's hexes and units as its scenario gives them (counted once, when the
        game was created: nothing is parsed here)."""
        found = (await self.session.execute(
            select(GameRow.hexes, GameRow.units).where(GameRow.id == game_id))).first()
        if found is None:
            raise GameNotFound(game_id)
        return int(found[0]), int(found[1])

    async def scenario(self, game_id: str) -> dict[str, Any]:
        found: dict[str, Any] | None = await self.session.scalar(
            select(GameRow.scenario).where(GameRow.id == game_id))
        return found or {}

    async def _catch_up(self, row: GameRow) -> _Known:
        """The state at the row's head from this process's newest older state (one
        query: the events from that state's head on, the first of which must carry its
        hash, else that state never committed), or else from the newest snapshot."""
        base = _CACHE.older(row)
        if base is not None:
            rows = await self._events(row, base.head_seq - 1)
            if rows and rows[0].seq == base.head_seq and rows[0].hash == base.head_hash:
                if len(rows) <= _FOLD_ON_LOOP:
                    return _fold(row, base.state, base.snapshot_seq, rows[1:])
                return await in_thread(_fold, row, base.state, base.snapshot_seq, rows[1:])
        setup = await self.setup(row)
        newest = (await self.session.execute(
            select(SnapshotRow.seq, cast(SnapshotRow.state, Text))
            .where(SnapshotRow.game_id == row.id, SnapshotRow.seq <= row.head_seq)
            .order_by(SnapshotRow.seq.desc()).limit(1))).first()
        if newest is None:
            raise RuntimeError(f"game {row.id} has no snapshot")
        rows = await self._events(row, newest.seq)
        return await in_thread(_rebuilt, row, setup, newest[0], newest[1], rows)

    async def _events(self, row: GameRow, after: int) -> list[EventRow]:
        return list((await self.session.execute(
            select(EventRow).where(EventRow.game_id == row.id, EventRow.seq > after,
                                   EventRow.seq <= row.head_seq).order_by(EventRow.seq)
        )).scalars())

    def add(self, row: GameRow) -> None:
        self.session.add(row)

    async def flush(self) -> None:
        await self.session.flush()

    async def exists(self, game_id: str) -> bool:
        return await self.session.get(GameRow, game_id) is not None

    async def advance(self, game: Game, *, head_seq: int, head_hash: str, state: State,
                      snapshot_seq: int, next_deadline: datetime | None,
                      step_started_at: datetime | None, now: datetime,
                      summary: dict[str, Any] | None = None) -> int:
        """Bump the game's version to its new head (the events are stored by the log),
        with the summary of the state at it, and remember the state it leads to. Returns
        the new version."""
        version = game.version + 1
        await self.session.execute(_UPDATE_HEAD, {
            "game": game.id, "version": version, "head_seq": head_seq,
            "head_hash": head_hash, "status": state.status, "next_deadline": next_deadline,
            "updated_at": now, "step_started_at": step_started_at, "summary": summary,
        })
        row = game.row
        # As written above: the ORM has nothing left to flush.
        for name, value in (("version", version), ("head_seq", head_seq),
                            ("head_hash", head_hash), ("status", state.status),
                            ("summary", summary)):
            set_committed_value(row, name, value)
        game.state, game.snapshot_seq = state, snapshot_seq
        _CACHE.remember(game.id, _Known(head_seq, head_hash, snapshot_seq, state))
        return version

    async def update(self, game_id: str, **values: object) -> None:
        await self.session.execute(update(GameRow).where(GameRow.id == game_id).values(**values))

    async def of_token(self, digest: str, *, after: str | None, limit: int
                       ) -> list[GameRow]:
        """The rows of the games a token belongs to (as a player's or the GM's), by id."""
        ids = select(PlayerRow.game_id).where(PlayerRow.token_hash == digest).union(
            select(GameRow.id).where(GameRow.gm_token_hash == digest)).subquery()
        query = select(GameRow).where(GameRow.id.in_(select(ids.c[0])))
        if after:
            query = query.where(GameRow.id > after)
        return list((await self.session.execute(
            query.order_by(GameRow.id).limit(limit))).scalars())

    async def gm_of(self, digest: str) -> str | None:
        """The id of a game whose GM token has this hash, if any."""
        found: str | None = await self.session.scalar(
            select(GameRow.id).where(GameRow.gm_token_hash == digest).limit(1))
        return found

    async def claim_due(self, now: datetime, limit: int, game_id: str | None = None
                        ) -> list[GameRow]:
        """The rows of the games whose deadline (or maximum pause) has passed (of them
        only `game_id`'s if given), locked for this sweeper: FOR UPDATE SKIP LOCKED, and
        with GAME_LOCK=advisory the game's advisory lock too, skipping a game an order
        holds (the next sweep sees it again)."""
        due = select(GameRow).where(GameRow.status.in_(("active", "paused")),
                                    GameRow.next_deadline <= now)
        if game_id is not None:
            due = due.where(GameRow.id == game_id)
        rows = (await self.session.execute(
            due.order_by(GameRow.next_deadline).limit(limit).with_for_update(skip_locked=True)
        )).scalars().all()
        claimed = []
        advisory = get_settings().game_lock == "advisory"
        for row in rows:
            if advisory and not await self.session.scalar(
                    select(func.pg_try_advisory_xact_lock(game_lock_key(row.id)))):
                continue
            claimed.append(row)
        return claimed

    async def in_play(self, statuses: Sequence[str] | None, ids: Sequence[str] | None
                      ) -> list[Game]:
        query = select(GameRow).order_by(GameRow.id)
        if statuses is not None:
            query = query.where(GameRow.status.in_(list(statuses)))
        if ids is not None:
            query = query.where(GameRow.id.in_(list(ids)))
        return [await self.with_state(row)
                for row in (await self.session.execute(query)).scalars().all()]


# JSON longer than this is decoded a value at a time (strings in C, the rest in Python)
# rather than in one call: the one call holds the interpreter from its first byte to its
# last, a tenth of a second or more for a big map's scenario, and the loop waits for it
# even though the work runs on a thread. About five times slower, and only on a thread.
_ONE_CALL_JSON = 256 * 1024
_DECODER = json.JSONDecoder()
_DECODER.scan_once = json.scanner.py_make_scanner(_DECODER)  # type: ignore[attr-defined]


def _loads(text: str) -> Any:
    """`text` decoded, giving the interpreter to other threads as it goes when long."""
    return orjson.loads(text) if len(text) <= _ONE_CALL_JSON else _DECODER.decode(text)


def _parsed_setup(game_id: str, text: str, options: dict[str, Any], dice_mode: Any) -> Setup:
    return Setup(game_id=game_id, scenario=parse_scenario(_loads(text)),
                 options=options, dice_mode=dice_mode)


def _rebuilt(row: GameRow, setup: Setup, seq: int, text: str, rows: list[EventRow]) -> _Known:
    """The state at the row's head from a snapshot (its JSON text) and the events since."""
    return _fold(row, state_from_data(_loads(text), setup), seq, rows)


def _fold(row: GameRow, state: State, snapshot_seq: int, rows: list[EventRow]) -> _Known:
    for event_row in rows:
        state = evolve(state, Event.from_record(event_record(event_row)))
        if snapshot_due(event_row.kind, event_row.seq, snapshot_seq):
            snapshot_seq = event_row.seq
    if rows and rows[-1].hash != row.head_hash:
        raise RuntimeError(f"game {row.id}: the log does not end at the row's head")
    return _Known(row.head_seq, row.head_hash, snapshot_seq, state)
