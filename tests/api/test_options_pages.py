"""A side's legal choices a page at a time (issue 33): pages of `limit` units after
`after`, in id order, each unit once; narrowed to some units or to an area; cut at
OPTIONS_PAGE_BYTES; and a version that changed nothing on the map (a standing order)
keeps every answer of the version before."""

from __future__ import annotations

from typing import Any

import httpx
from conftest import local_settings
from support import AXIS_FIRST, Game, Player, full_game, to_action

from service import answers
from service.app import create_app
from service.referee import choices
from service.rules.board import grid_of
from service.rules.scenario import load_builtin_scenario
from tests.api.test_answers import conforms


async def _axis_game(client: httpx.AsyncClient) -> tuple[Game, Player, list[str]]:
    game = await full_game(client, "dno-demo", dice=AXIS_FIRST)
    axis = await to_action(game)
    state = (await game.state())["units"]
    sc = load_builtin_scenario("dno-demo")
    mine = sorted(u for u, x in state.items() if sc.side_of_power(x["power"]) == "axis")
    return game, axis, mine


async def _pages(client: httpx.AsyncClient, game: Game, who: Player, **params: Any
                 ) -> list[dict[str, Any]]:
    pages: list[dict[str, Any]] = []
    after = None
    while True:
        query = {**params, **({"after": after} if after else {})}
        r = await client.get(f"/v1/games/{game.id}/options", params=query,
                             headers=who.headers)
        assert r.status_code == 200, r.text
        pages.append(r.json())
        conforms(pages[-1], answers.SideOptions)
        after = pages[-1]["next_after"]
        if after is None:
            return pages


async def test_pages_cover_a_sides_units_once_in_order(client: httpx.AsyncClient) -> None:
    game, axis, mine = await _axis_game(client)
    assert len(mine) > 7
    pages = await _pages(client, game, axis, limit=7)
    seen = [uid for page in pages for uid in page["units"]]
    assert seen == mine
    assert all(len(p["units"]) <= 7 for p in pages) and pages[0]["next_after"] == mine[6]
    assert {p["version"] for p in pages} == {pages[0]["version"]}
    whole = (await client.get(f"/v1/games/{game.id}/options", params={"limit": 200},
                              headers=axis.headers)).json()
    assert whole["next_after"] is None and whole["total"] == len(mine)
    assert [u for p in pages for u in p["units"].items()] == list(whole["units"].items())
    first = await client.get(f"/v1/games/{game.id}/options", headers=axis.headers)
    assert len(first.json()["units"]) == min(len(mine), choices.PAGE_UNITS)


async def test_narrowed_to_some_units_or_to_an_area(client: httpx.AsyncClient) -> None:
    game, axis, mine = await _axis_game(client)
    url = f"/v1/games/{game.id}/options"
    some = (await client.get(url, params={"units": f"{mine[3]},{mine[1]}"},
                             headers=axis.headers)).json()
    assert list(some["units"]) == [mine[1], mine[3]] and some["total"] == 2
    unknown = await client.get(url, params={"units": "nobody"}, headers=axis.headers)
    assert unknown.status_code == 404 and unknown.json()["code"] == "options/unknown_unit"
    many = await client.get(url, params={"units": ",".join(["x"] * 101)},
                            headers=axis.headers)
    assert many.status_code == 422
    units = (await game.state())["units"]
    grid = grid_of(load_builtin_scenario("dno-demo").map)
    centre = units[mine[0]]["at"]
    for within in (0, 2):
        near = [u for u in mine if units[u]["at"] in grid.index and grid.distance(
            grid.index[centre], grid.index[units[u]["at"]]) <= within]
        found = (await client.get(url, params={"near": centre, "within": within,
                                               "limit": 200}, headers=axis.headers)).json()
        assert list(found["units"]) == near and found["total"] == len(near)
    nowhere = await client.get(url, params={"near": "nowhere"}, headers=axis.headers)
    assert nowhere.status_code == 404 and nowhere.json()["code"] == "options/unknown_hex"


async def test_a_page_stops_at_its_size_cap(migrated_url: str) -> None:
    app = create_app(local_settings(migrated_url, rate_limit=0, sweep_interval=0,
                                    options_page_bytes=4096), database_url=migrated_url)
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)  # type: ignore[arg-type]
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as c:
            game, axis, mine = await _axis_game(c)
            sizes = []
            pages = []
            after = None
            while True:
                r = await c.get(f"/v1/games/{game.id}/options", headers=axis.headers,
                                params={"limit": 200, **({"after": after} if after else {})})
                pages.append(r.json())
                sizes.append(len(r.content))
                after = r.json()["next_after"]
                if after is None:
                    break
            assert [u for p in pages for u in p["units"]] == mine
            assert len(pages) > 1
            assert all(size <= 4096 or len(p["units"]) == 1 for size, p in zip(
                sizes, pages, strict=True))


async def test_a_standing_order_keeps_the_versions_answers(
        client: httpx.AsyncClient, app: Any) -> None:
    """`same_map`: the standing order bumps the version; the board and every unit's
    answer computed for the version before are the new version's too (here, in this
    process: the use case run directly)."""
    game, axis, mine = await _axis_game(client)
    async with app.state.transactions() as uow:
        await choices.side_choices(uow, game.id, axis.token, None)
    before = choices._GAMES[game.id]
    old = next(reversed(before.values()))
    assert old.units and old._board is not None
    allies = game.players["allies"]
    await allies.ok("standing", {"step": "final_reorganization"})
    async with app.state.transactions() as uow:
        body = await choices.side_choices(uow, game.id, axis.token, None)
    new = next(reversed(choices._GAMES[game.id].values()))
    assert new is not old and new.game.version == old.game.version + 1
    assert new.units is old.units and new._board is old._board
    assert b'"version":%d' % new.game.version in body
