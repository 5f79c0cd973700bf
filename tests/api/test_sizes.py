"""The largest game a server accepts (issue 33): `MAX_MAP_HEXES` and `MAX_UNITS`, counted
before the scenario is parsed; past either a 413 problem naming the setting, for a
created game (inline or a whole scenario, parsed by a worker); the operator key lifts
them (an import is always the operator's), and a server without one takes no larger
game."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
from conftest import local_settings
from support import full_game, scenario

from service.app import create_app
from service.rules.scenario import generate_scenario, scenario_to_json

KEY = "operator-key-of-the-size-tests"


@contextlib.asynccontextmanager
async def _server(url: str, **settings: Any) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(local_settings(url, rate_limit=0, sweep_interval=0, **settings),
                     database_url=url)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            yield c


def _too_large(r: httpx.Response, setting: str, path: str) -> None:
    assert r.status_code == 413, r.text
    body = r.json()
    assert r.headers["content-type"].startswith("application/problem+json")
    assert body["code"] == "scenario/too_large" and setting in body["detail"]
    assert body["setting"] == setting
    assert [e["path"] for e in body["errors"]] == [path]


async def test_a_map_over_the_limits_is_refused_naming_the_setting(
        migrated_url: str) -> None:
    big = scenario_to_json(generate_scenario(600, 60))  # 130 kB: parsed by a worker
    async with _server(migrated_url, max_map_hexes=500, max_units=1000) as c:
        _too_large(await c.post("/v1/games", json={"name": "big", "scenario": big}),
                   "MAX_MAP_HEXES", "/scenario/map/hexes")
    async with _server(migrated_url, max_map_hexes=1000, max_units=50) as c:
        _too_large(await c.post("/v1/games", json={"name": "big", "scenario": big}),
                   "MAX_UNITS", "/scenario/units")
        r = await c.post("/v1/games", json={"name": "big", "scenario": big},
                         headers={"Authorization": "Bearer whatever"})
        assert r.status_code == 413  # no operator key on this server: nobody exceeds
    mini = scenario("mini")
    async with _server(migrated_url, max_map_hexes=len(mini["map"]["hexes"]) - 1) as c:
        _too_large(await c.post("/v1/games", json={"name": "mini", "scenario": mini}),
                   "MAX_MAP_HEXES", "/scenario/map/hexes")
        assert (await c.post("/v1/games", json={"name": "built-in",
                                                "scenario": "dno-demo"})).status_code == 201


async def test_the_operator_key_lifts_the_limits(migrated_url: str) -> None:
    big = scenario_to_json(generate_scenario(600, 60))
    async with _server(migrated_url, max_map_hexes=500, operator_key=KEY) as c:
        operator = {"Authorization": f"Bearer {KEY}"}
        r = await c.post("/v1/games", json={"name": "big", "scenario": big}, headers=operator)
        assert r.status_code == 201, r.text
        created = r.json()
        gm = {"Authorization": f"Bearer {created['gm_token']}"}
        summary = await c.get(f"/v1/games/{created['id']}", headers=gm)
        assert summary.status_code == 200 and summary.json()["status"] == "open"
        state = await c.get(f"/v1/games/{created['id']}/state", headers=gm)
        assert len(state.json()["units"]) == 60


async def test_only_creating_and_importing_take_big_bodies(client: httpx.AsyncClient) -> None:
    """A body is parsed on the serving loop by every route but these two (whose big
    bodies a worker parses): over MAX_OTHER_BODY_BYTES (1 MiB) elsewhere is a 413, and
    a big body's depth and NUL checks are done by the worker, with the same answers."""
    game = await full_game(client)
    big = b'{"order": {"x": "' + b"x" * (2 * 1024 * 1024) + b'"}}'
    r = await client.post(f"/v1/games/{game.id}/orders", content=big,
                          headers={**game.gm, "content-type": "application/json"})
    assert r.status_code == 413 and r.json()["code"] == "request/too_large"
    deep = "[" * 40_000 + "]" * 40_000  # 80 kB: past the scan on the loop
    r = await client.post("/v1/games", content=(
        '{"name": "x", "scenario": "dno-demo", "options": {"a": ' + deep + "}}").encode(),
        headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["code"] == "request/too_deep", r.text
    padded = ('{"name": "x\\u0000", "scenario": "dno-demo", "options": {"pad": "'
              + "p" * 70_000 + '"}}').encode()
    r = await client.post("/v1/games", content=padded,
                          headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "/name", r.text
