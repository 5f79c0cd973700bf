"""The schema is ready to be distributed by game id (docs/scaling.md, "Distribution by
game id"): every game-scoped table has `game_id` first in its primary key (Citus's
distribution column must be in every unique constraint, and a game's rows then sit
together), every other table is named here with its role, and every statement that
joining, an order and the reads issue names exactly one game: each game-scoped table it
touches is constrained by that game's id (or joined to it on `game_id`), so a
distributed engine routes it to one shard."""

from __future__ import annotations

import importlib
import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from support import AXIS_FIRST, SIDES, create_game, join, to_action

from service.store.models import Base
from service.store.order_call import _SINCE, Write

# wif_take_order as the newest migration that writes it leaves it (0013: channels that
# are not disabled).
FUNCTION = importlib.import_module(
    "migrations.versions.2026_11_24_0013_channel_failures").function()

TABLES = Base.metadata.tables
GAME_SCOPED = {name for name, t in TABLES.items() if "game_id" in t.c} | {"games"}
# Not distributed by game: reference tables (small, copied to every node) and the
# coordinator's own.
REFERENCE = {"server_keys": "the server's receipt keys: a reference table"}
LOCAL = {"rate_buckets": "rate-limit buckets by token or address: the coordinator's"}


def test_every_game_scoped_table_has_game_id_first_in_its_primary_key() -> None:
    assert set(TABLES) == GAME_SCOPED | set(REFERENCE) | set(LOCAL), \
        "a new table: is it game-scoped (game_id first in its key) or a reference table?"
    for name in sorted(GAME_SCOPED - {"games"}):
        key = [c.name for c in TABLES[name].primary_key.columns]
        assert key[0] == "game_id", (name, key)
    assert [c.name for c in TABLES["games"].primary_key.columns] == ["id"]
    for name in GAME_SCOPED:
        for fk in TABLES[name].foreign_keys:  # colocated: references go by game id
            assert (fk.parent.name, fk.column.table.name, fk.column.name) == \
                ("game_id", "games", "id"), (name, fk)


_RECORDING: ContextVar[bool] = ContextVar("recording", default=False)


@contextmanager
def statements(app: Any) -> Iterator[list[tuple[str, Any]]]:
    """The statements the requests made inside the block run: those of the app's
    background tasks (the deadline sweeper's claim across games, the courier), started
    with the app and so outside the block's context, are not the requests' and are left
    out (on a loaded machine a sweep fell inside the block)."""
    seen: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        if _RECORDING.get():
            seen.append((statement, parameters))

    engine: Engine = app.state.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    token = _RECORDING.set(True)
    try:
        yield seen
    finally:
        _RECORDING.reset(token)
        event.remove(engine, "before_cursor_execute", record)


def _values(parameters: Any) -> Iterator[Any]:
    if isinstance(parameters, dict):
        yield from parameters.values()
    elif isinstance(parameters, (list, tuple)):
        for p in parameters:
            yield from _values(p) if isinstance(p, (list, tuple, dict)) else (p,)


def _routed(statement: str, table: str) -> bool:
    """Whether `table` is constrained to one game in `statement`: an insert naming its
    game_id, or a predicate on its game id (a parameter, or a join on game_id)."""
    key = "id" if table == "games" else "game_id"
    inserted = re.search(rf"INSERT INTO {table} \(([^)]*)\)", statement)
    if inserted:
        return key in [c.strip() for c in inserted.group(1).split(",")]
    return bool(re.search(rf"\b{table}\.{key} = ", statement)
                or re.search(rf"= {table}\.{key}\b", statement))


def check_routed(seen: list[tuple[str, Any]], game_id: str) -> int:
    checked = 0
    for statement, parameters in seen:
        named = {t for t in TABLES if re.search(rf"\b{t}\b", statement)}
        scoped = named & GAME_SCOPED
        assert named <= GAME_SCOPED | set(REFERENCE), statement
        if not scoped:
            continue
        for table in scoped:
            assert _routed(statement, table), (table, statement)
        assert game_id in set(_values(parameters)), (statement, parameters)
        checked += 1
    return checked


async def test_joining_ordering_and_reading_touch_one_game_per_statement(
    app: Any, client: httpx.AsyncClient,
) -> None:
    game = await create_game(client, dice=AXIS_FIRST)
    with statements(app) as seen:
        for side in SIDES:
            await join(game, side)
    assert check_routed(seen, game.id) >= 3
    axis = await to_action(game)
    position = await axis.position()
    calls: list[Write] = []
    order_call = app.state.transactions.order_call
    take = order_call.take

    async def recorded(write: Write) -> Any:
        calls.append(write)
        return await take(write)

    order_call.take = recorded
    try:
        with statements(app) as seen:
            r = await axis.order("roll", {"dice": "2d6", "purpose": "routed"}, position)
            assert r.status_code == 201, r.text
    finally:
        del order_call.take
    # The order is taken in one call of wif_take_order, distributed by its first
    # argument (the game id: Citus's create_distributed_function(..., '$1')); its own
    # statements are checked below. The long way is checked statement by statement.
    assert [w.game for w in calls] == [game.id]
    assert check_routed(seen, game.id) == 0, seen
    # The dice record is a heavy request: its worker (statements of its own engine) is
    # started first, so that the window below stays short.
    await client.get(f"/v1/games/{game.id}/dice", headers=axis.headers)
    with statements(app) as seen:
        await game.state(axis)
        await client.get(f"/v1/games/{game.id}/log", headers=axis.headers)
        await client.get(f"/v1/games/{game.id}/dice", headers=axis.headers)
        await axis.order("roll", {"dice": "2d6", "purpose": "routed again"})
    assert check_routed(seen, game.id) >= 6


def _function_statements() -> list[str]:
    body = FUNCTION.split("BEGIN", 1)[1].rsplit("END;", 1)[0]
    return [" ".join(s.split()) for s in body.split(";") if s.strip()]


def _tables_by_game(statement: str, game: str) -> int:
    """How many game-scoped tables `statement` touches, each only through the game
    parameter `game` (a row it inserts carries it, a row it reads or changes is
    constrained by it, or joined to a table that is); asserts there are no others."""
    touched = 0
    for table in re.findall(r"\bINSERT INTO (\w+)", statement):
        key = "id" if table == "games" else "game_id"
        assert table in GAME_SCOPED, statement
        assert re.search(rf"INSERT INTO {table} \({key}\b", statement) and (
            f"SELECT {game}" in statement or f"VALUES ({game}" in statement), statement
        touched += 1
    for found in re.finditer(r"\b(?:FROM|JOIN|UPDATE) (\w+)( \w+)?", statement):
        table, alias = found.group(1), (found.group(2) or "").strip()
        if table not in TABLES:
            continue  # json_to_recordset(...), a record
        assert table in GAME_SCOPED, statement
        key = "id" if table == "games" else "game_id"
        clause = re.split(r"\b(?:FROM|JOIN|SELECT|UNION)\b",
                          statement[found.end():], maxsplit=1)[0]
        owner = rf"{alias}\." if alias not in ("", "WHERE", "SET", "ON") else ""
        assert re.search(rf"(?<![.\w]){owner}{key} = {re.escape(game)}(?!\w)", clause), \
            (table, statement)
        touched += 1
    return touched


def test_the_order_function_names_one_game_in_every_statement() -> None:
    """wif_take_order (migrations 0009, 0012 and 0013) touches game-scoped tables only through its
    game argument `p_game`: a row it inserts carries it, a row it reads or changes is
    constrained by it (or joined to a table that is)."""
    touched = sum(_tables_by_game(statement, "p_game") for statement in _function_statements())
    assert touched >= 8  # games (read, update), events, snapshots, commands, orders, ...


def test_the_catch_up_before_an_order_names_one_game() -> None:
    """What a process reads when it heard another moved the game on (the events since
    its head, service/store/order_call.py): every table through the game id, $1."""
    assert _tables_by_game(" ".join(_SINCE.split()), "$1") == 3  # games, events twice


def test_the_check_catches_a_statement_that_spans_games() -> None:
    spans = [("SELECT events.seq FROM events WHERE events.kind = $1::VARCHAR", ("x",))]
    with pytest.raises(AssertionError):
        check_routed(spans, "g1")
    other = [("SELECT games.id FROM games WHERE games.id = $1::VARCHAR", ("g2",))]
    with pytest.raises(AssertionError):
        check_routed(other, "g1")
    assert check_routed([("INSERT INTO events (game_id, seq) VALUES ($1, $2)", ("g1", 3))],
                        "g1") == 1
