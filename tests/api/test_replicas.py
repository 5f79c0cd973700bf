"""Reads from a real streaming replica (DATABASE_REPLICA_URL; docs/scaling.md, "Read
replicas"): writes go to the primary, state, log, dice, export and stream reads to the
replica, and a client that knows a newer version than the replica has (an order's
`version`, sent back as `X-Min-Version`, `?min_version=` or the state's ETag) is
served by the primary. The replica is made to lag by pausing its WAL replay."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import httpx
import pytest
from conftest import LiveServer, local_settings
from replica_kit import Standby, streaming_replica
from support import AXIS_FIRST, create_game, full_game, to_action

from service.app import create_app


@pytest.fixture(scope="module")
def standby(migrated_url: str, embedded_server: Any) -> Iterator[Standby]:
    if embedded_server is None:
        pytest.skip("a streaming replica is made of the embedded PostgreSQL only")
    with streaming_replica(migrated_url, embedded_server.system_user) as replica:
        yield replica


def _app(primary: str, replicas: list[str]) -> Any:
    return create_app(local_settings(primary, rate_limit=0, sweep_interval=0,
                                     database_replica_url=replicas), database_url=primary)


@pytest.fixture
async def replicated(migrated_url: str, standby: Standby
                     ) -> AsyncIterator[tuple[httpx.AsyncClient, Any]]:
    app = _app(migrated_url, [standby.url])
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://r") as c:
            yield c, app.state.reads.served


async def test_reads_come_from_the_replica_unless_the_client_knows_a_newer_version(
    replicated: tuple[httpx.AsyncClient, Any], standby: Standby,
) -> None:
    c, served = replicated
    game = await full_game(c, dice=AXIS_FIRST)
    axis = await to_action(game)
    state_url = f"/v1/games/{game.id}/state"
    await standby.caught_up()
    before = served["replica"]
    seen = await c.get(state_url, headers=axis.headers)
    assert seen.status_code == 200 and served["replica"] == before + 1
    old_version = seen.json()["game"]["version"]

    await standby.pause()
    try:
        rolled = await axis.ok("roll", {"dice": "2d6", "purpose": "while the replica lags"})
        version = rolled["version"]
        assert version > old_version
        # Without a version the replica answers, with what it has: the older state.
        stale = await c.get(state_url, headers=axis.headers)
        assert stale.json()["game"]["version"] == old_version
        # With the order's version (header, parameter or ETag) the primary answers.
        behind = served["behind"]
        fresh = await c.get(state_url, headers={**axis.headers, "X-Min-Version": str(version)})
        assert fresh.status_code == 200 and fresh.json()["game"]["version"] == version
        assert served["behind"] == behind + 1
        again = await c.get(state_url, headers={**axis.headers,
                                                "If-None-Match": fresh.headers["etag"]})
        assert again.status_code == 304 and served["behind"] == behind + 2
        log = (await c.get(f"/v1/games/{game.id}/log", headers=axis.headers,
                           params={"after": 0, "limit": 1000, "min_version": version})).json()
        assert log["events"][-1]["data"]["label"] == "while the replica lags"
        dice = (await c.get(f"/v1/games/{game.id}/dice", headers=axis.headers,
                            params={"min_version": version})).json()
        assert max(r["seq"] for t in dice["turns"] for r in t["rolls"]) == \
            log["events"][-1]["seq"], dice["turns"][-1]["rolls"][-1]
        export = (await c.get(f"/v1/games/{game.id}/export", headers=axis.headers,
                              params={"min_version": version})).json()
        assert export["game"]["version"] == version
        # A game made while the replica lags: its "no such game" is the primary's to say.
        other = await create_game(c)
        r = await c.get(f"/v1/games/{other.id}/state", headers=other.gm)
        assert r.status_code == 200 and served["refused"] >= 1
        assert (await c.get("/v1/games/nope/state", headers=other.gm)).status_code == 404
    finally:
        await standby.resume()
    await standby.caught_up()
    replica = served["replica"]
    caught = await c.get(state_url, headers={**axis.headers, "X-Min-Version": str(version)})
    assert caught.json()["game"]["version"] == version and served["replica"] == replica + 1


async def test_a_stream_is_not_held_back_by_a_lagging_replica(
    migrated_url: str, standby: Standby,
) -> None:
    """The stream is woken by the primary's NOTIFY hint (`game:seq`); a replica that has
    not replayed that seq yet does not answer the page: the primary does."""
    app = _app(migrated_url, [standby.url])
    with LiveServer(app) as url:
        async with httpx.AsyncClient(base_url=url) as c:
            game = await full_game(c, dice=AXIS_FIRST)
            axis = await to_action(game)
            await standby.caught_up()
            head = len(await game.log())
            await standby.pause()
            try:
                got: list[dict[str, Any]] = []

                async def follow() -> None:
                    async with c.stream("GET", f"/v1/games/{game.id}/stream", timeout=30,
                                        headers={**axis.headers, "Last-Event-ID": str(head)}
                                        ) as response:
                        async for line in response.aiter_lines():
                            if line.startswith("data:"):
                                got.append(json.loads(line.removeprefix("data:")))
                                return

                task = asyncio.create_task(follow())
                while not app.state.hub.subscribers.get(game.id):  # the stream listens
                    await asyncio.sleep(0.01)
                await axis.ok("roll", {"dice": "1d6", "purpose": "live while lagging"})
                await asyncio.wait_for(task, 4)  # before the 5-second re-read
            finally:
                await standby.resume()
            assert got[0]["data"]["label"] == "live while lagging"
            assert app.state.reads.served["behind"] >= 1


async def test_an_unreachable_replica_leaves_the_reads_to_the_primary(
    migrated_url: str,
) -> None:
    app = _app(migrated_url, ["postgresql+asyncpg://postgres@/postgres?host=/nonexistent"
                              "&port=5"])
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://r") as c:
            game = await full_game(c)
            for _ in range(3):
                r = await c.get(f"/v1/games/{game.id}/state", headers=game.gm)
                assert r.status_code == 200
            served = app.state.reads.served
            assert served["unreachable"] == 1 and served["primary"] >= 3  # then it rests
            assert served["replica"] == 0
