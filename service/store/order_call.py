"""The order's write path in one round trip: one call of `wif_take_order` (migration
0009) through asyncpg's prepared statement, on a pool of its own (no pre-ping: a broken
connection is retried once, then the database is `Unavailable`).

The referee decides an order on the state this process has cached for the game's head
and hands over everything it wrote: the function takes the game's lock, checks that the
head, the signer's seat and the seq are as the referee assumed and that `prev` is an
event of the chain, and writes it all, or says why not (the referee then takes the
order the long way, under the lock).
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal, cast

import asyncpg
import orjson

from service.clock import rfc3339
from service.rules.events import EventRecord
from service.store.failures import UNREACHABLE, Unavailable
from service.store.models import GM_OWNER
from service.store.notify import asyncpg_dsn

_CALL = ("SELECT wif_take_order($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9, $10, $11,"
         " $12::json, $13::json, $14::json, $15::jsonb, $16::jsonb, $17, $18, $19, $20,"
         " $21::json, $22::jsonb, $23)")
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

Status = Literal["taken", "stored", "moved", "seat_changed", "unknown_prev", "no_game"]


def _json(value: object) -> str:
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


@dataclass(frozen=True, slots=True)
class Write:
    """What one order writes, decided on the head (`head_seq`, `head_hash`, `version`)
    the referee's cached state is at."""

    game: str
    head_seq: int
    head_hash: str
    version: int
    player: str
    token_hash: str
    public_key: str
    settings: Mapping[str, object]
    seq: int
    order_hash: str
    prev: str
    events: Sequence[Mapping[str, object]]
    snapshots: Sequence[Mapping[str, object]]
    command: Mapping[str, object]
    envelope: Mapping[str, object]
    result: Mapping[str, object]
    status: str
    next_deadline: datetime | None
    step_started_at: datetime | None
    now: datetime
    moves: Sequence[Mapping[str, object]]
    events_message: Mapping[str, object] | None


@dataclass(frozen=True, slots=True)
class Answer:
    """What the call says: `taken` (the new `version`), `stored` (that seq was stored
    before: its hash and result), `moved` (with the events since the head the order was
    decided on, when there are few: the referee catches up and calls again), or why the
    referee must take the long way."""

    status: Status
    version: int | None = None
    order_hash: str | None = None
    result: dict[str, Any] | None = None
    events: list[EventRecord] | None = None


@dataclass(frozen=True, slots=True)
class Since:
    """The events appended after a head, and the game's version with them."""

    version: int
    events: list[EventRecord]


# The events after head ($2, $3) of game $1, as `wif_take_order` answers them when the
# head moved (`data` stays JSON text, its keys in the order written); no row when the
# head is not in the chain, the log is not past it, or more than 64 came since.
_SINCE = """SELECT json_build_object('version', g.version, 'events', (
    SELECT json_agg(json_build_object(
        'seq', e.seq, 'turn', e.turn, 'impulse', e.impulse, 'step', e.step,
        'kind', e.kind, 'actor', e.actor, 'text', e.text, 'data', e.data,
        'at_us', (extract(epoch FROM e.at) * 1000000)::bigint,
        'rules_version', e.rules_version, 'hash', e.hash) ORDER BY e.seq)
    FROM events e WHERE e.game_id = $1 AND e.seq > $2))
FROM games g
WHERE g.id = $1 AND g.head_seq > $2 AND g.head_seq - $2 <= 64
  AND EXISTS (SELECT 1 FROM events WHERE game_id = $1 AND seq = $2 AND hash = $3)"""


async def _nothing_to_reset(connection: asyncpg.Connection) -> None:
    """The call is one statement, its lock a transaction's: a connection comes back to
    the pool as it went out, with no query to reset it."""


class OrderCall:
    """A pool of connections for `wif_take_order` only."""

    def __init__(self, url: str, size: int = 10) -> None:
        self.dsn = asyncpg_dsn(url)
        self.size = size
        self.pool: asyncpg.Pool | None = None

    async def start(self) -> None:
        self.pool = await asyncpg.create_pool(
            self.dsn, min_size=1, max_size=self.size, reset=_nothing_to_reset,
            server_settings={"application_name": "wif-referee orders"})

    async def stop(self) -> None:
        if self.pool is not None:
            await self.pool.close()

    async def since(self, game: str, head_seq: int, head_hash: str) -> Since | None:
        """What was appended after the head (`head_seq`, `head_hash`), read before an
        order is decided on it; None: catching up is not worth it, take the long way."""
        found = await self._fetchval(_SINCE, game, head_seq, head_hash)
        if found is None:
            return None
        answer: dict[str, Any] = orjson.loads(found)
        return Since(answer["version"], [_record(e) for e in answer["events"]])

    async def _fetchval(self, query: str, *args: object) -> str | None:
        """One statement on a pooled connection; a connection that broke is replaced and
        the statement run once more (it changed nothing: one statement, one
        transaction)."""
        pool = self.pool
        if pool is None:
            raise Unavailable("the order pool is not started")

        async def once() -> str | None:  # the statements here answer json (text)
            async with pool.acquire() as connection:
                found: str | None = await connection.fetchval(query, *args)
                return found

        with contextlib.suppress(*UNREACHABLE):
            return await once()
        try:
            return await once()
        except UNREACHABLE as error:
            raise Unavailable(f"the database is not reachable: {error}") from None

    async def take(self, write: Write) -> Answer:
        """Call the function; a connection that broke is replaced and the call made once
        more (nothing was written: the call is one statement, one transaction)."""
        args = (write.game, write.head_seq, write.head_hash, write.version, write.player,
                write.token_hash, write.public_key, _json(write.settings), write.seq,
                write.order_hash, write.prev,
                _json(write.events), _json(write.snapshots), _json(write.command),
                _json(write.envelope), _json(write.result), write.status,
                write.next_deadline, write.step_started_at, write.now, _json(write.moves),
                None if write.events_message is None else _json(write.events_message),
                GM_OWNER)
        found = await self._fetchval(_CALL, *args)
        assert found is not None  # the function always answers
        answer: dict[str, Any] = orjson.loads(found)  # keeps the events' keys in order
        events = answer.get("events")
        return Answer(cast(Status, answer["status"]), answer.get("version"),
                      answer.get("order_hash"), answer.get("result"),
                      None if events is None else [_record(e) for e in events])


def _record(row: dict[str, Any]) -> EventRecord:
    """An event of the call's answer as the log shows it (`at` from microseconds)."""
    at = _EPOCH + timedelta(microseconds=int(row.pop("at_us")))
    return cast(EventRecord, {**row, "at": rfc3339(at)})
