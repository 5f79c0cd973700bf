"""The schema is ready to be distributed by game id (docs/scaling.md, "Distribution by
game id"): every game-scoped table has `game_id` first in its primary key (Citus's
distribution column must be in every unique constraint, and a game's rows then sit
together), every other table is named here with its role, and every statement that
joining, an order and the reads issue names exactly one game: each game-scoped table it
touches is constrained by that game's id (or joined to it on `game_id`), so a
distributed engine routes it to one shard."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine
from support import AXIS_FIRST, SIDES, create_game, join, to_action

from service.store.models import Base

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


@contextmanager
def statements(app: Any) -> Iterator[list[tuple[str, Any]]]:
    seen: list[tuple[str, Any]] = []

    def record(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any,
               executemany: bool) -> None:
        seen.append((statement, parameters))

    engine: Engine = app.state.engine.sync_engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
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
    with statements(app) as seen:
        r = await axis.order("roll", {"dice": "2d6", "purpose": "routed"}, position)
        assert r.status_code == 201, r.text
    assert check_routed(seen, game.id) >= 4, seen  # lock and read, events, head, order
    with statements(app) as seen:
        await game.state(axis)
        await client.get(f"/v1/games/{game.id}/log", headers=axis.headers)
        await client.get(f"/v1/games/{game.id}/dice", headers=axis.headers)
        await axis.order("roll", {"dice": "2d6", "purpose": "routed again"})
    assert check_routed(seen, game.id) >= 6


def test_the_check_catches_a_statement_that_spans_games() -> None:
    spans = [("SELECT events.seq FROM events WHERE events.kind = $1::VARCHAR", ("x",))]
    with pytest.raises(AssertionError):
        check_routed(spans, "g1")
    other = [("SELECT games.id FROM games WHERE games.id = $1::VARCHAR", ("g2",))]
    with pytest.raises(AssertionError):
        check_routed(other, "g1")
    assert check_routed([("INSERT INTO events (game_id, seq) VALUES ($1, $2)", ("g1", 3))],
                        "g1") == 1
