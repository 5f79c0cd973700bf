"""Seed 000's 1944 worked example (11.18) through the HTTP API on
tests/scenarios/reorg-1944.json: the CW spends exactly 33 RPs on the listed units by the
listed methods, and each limit the example names is refused with its reason. Also the
planning route, GET /v1/games/{id}/reorg/options."""

from __future__ import annotations

import httpx
from reorg_1944 import EXAMPLE, LIMITS, ROUEN
from support import SIDES, Game, full_game


async def _allies_reorganize(client: httpx.AsyncClient) -> Game:
    game = await full_game(client, "reorg-1944", dice={
        "mode": "scripted", "script": {"initiative": [3, 9, 1], "weather": [7]}})
    for side in SIDES:  # every side stands on a reroll box; nobody demands
        await game.players[side].ok("initiative.reroll", {"demand": False})
    await game.players["allies"].ok("initiative.choose", {"position": "first"})
    await game.players["axis"].ok("initiative.choose", {"position": "before"})
    await game.players["allies"].ok("declare", {"actions": {"cw": "pass", "usa": "pass"}})
    state = await game.state()
    assert state["turn"]["step"] == "reorganization"
    assert state["awaiting"][0]["side"] == "allies"
    assert state["powers"]["cw"]["rps"] == 36
    return game


async def test_seed_000_1944_example_through_the_api_11_18(client: httpx.AsyncClient) -> None:
    game = await _allies_reorganize(client)
    allies = game.players["allies"]
    result = await allies.ok("reorg", {"power": "cw", "items": [i for i, _ in EXAMPLE]})
    done = [e for e in result["events"] if e["kind"] == "unit.reorganized"]
    assert [(e["data"]["unit"], e["data"]["method"], e["data"]["cost"]) for e in done] == [
        (item["unit"], item["method"], cost) for item, cost in EXAMPLE]
    assert sum(e["data"]["cost"] for e in done) == 33
    assert done[0]["text"] == ("cw reorganizes cw-inf-50 overseas from Newcastle via Rouen "
                               "(3 RPs): face up. cw has 33 RPs left.")
    assert "the mission meets nobody (11.18.1 steps 1-6)" in done[2]["text"]
    state = await game.state(allies)
    assert state["powers"]["cw"]["rps"] == 3
    assert all(state["units"][item["unit"]]["face_up"] for item, _ in EXAMPLE)
    rouen = next(p for p in state["reorg"]["ports"] if p["hex"] == ROUEN)
    assert rouen["used"] == {"units": 2} and rouen["left"] == {"units": 0}
    monty = state["reorg"]["providers"]["cw-hq-montgomery"]
    assert monty["left"]["units"] == 0 and monty["face_up"] is False

    for item, rule, why in LIMITS:
        r = await allies.order("reorg", {"power": "cw", "items": [item]})
        assert r.status_code == 409, r.text
        problem = r.json()
        assert r.headers["content-type"].startswith("application/problem+json")
        assert problem["code"] == "reorg/limit_reached"
        assert problem["rule"] == rule
        field = next(k for k in ("port", "source", "hq") if k in item)
        unit = problem["errors"][0]["unit"]
        assert unit["id"] == item["unit"] and unit["name"]  # issue 16: the unit, named
        assert problem["errors"] == [{"path": f"/order/body/items/0/{field}", "message": why,
                                      "unit": unit}]
        named = f"{item['unit']} ({unit['name']})"
        assert problem["detail"] == f"item 0 ({item['method']}, {rule}): {named}: {why}"
        assert problem["item"] == 0 and problem["method"] == item["method"]
    assert (await game.state(allies))["powers"]["cw"]["rps"] == 3  # refusals change nothing


async def test_planning_lists_every_legal_method_and_why_not_the_others_11_18(
    client: httpx.AsyncClient,
) -> None:
    game = await _allies_reorganize(client)
    allies = game.players["allies"]
    url = f"/v1/games/{game.id}/reorg/options"
    r = await client.get(url, params={"unit": "cw-inf-50"}, headers=allies.headers)
    assert r.status_code == 200, r.text
    plan = r.json()
    assert plan["step_open"] is True and plan["power"] == "cw" and plan["rps"] == 36
    newcastle = [o for o in plan["options"] if o["item"] == EXAMPLE[0][0]]
    assert newcastle and newcastle[0]["cost"] == 3 and newcastle[0]["affordable"] is True
    assert newcastle[0]["path"]["hexes"] == ["1227", "1333"]
    assert {"key": "port:1333", "amount": 1, "used": 0, "limit": 2, "left_after": 1} in \
        newcastle[0]["capacity"]
    illegal = {o["method"]: o for o in plan["illegal"]}
    assert illegal["trs"]["reason"] == "no TRS of a cooperating power is at sea next to Rouen"
    assert illegal["at_sea"]["reason"] == "cw-inf-50 is on a hex, not in a sea area"
    assert all(o["legal"] for o in plan["options"])
    assert not any(o["legal"] for o in plan["illegal"])
    await allies.ok("reorg", {"power": "cw", "items": [i for i, _ in EXAMPLE]})
    r = await client.get(url, params={"unit": "cw-inf-53"}, headers=allies.headers)
    illegal = {o["method"]: o for o in r.json()["illegal"]}
    assert illegal["hq"]["reason"] == LIMITS[3][2] and illegal["hq"]["rule"] == "11.18.2"
    r = await client.get(url, params={"unit": "cw-inf-50"}, headers=game.gm)
    assert r.json()["reason"] == "cw-inf-50 is face up: there is nothing to reorganize"

    r = await client.get(url, params={"unit": "cw-inf-53"}, headers=game.players["axis"].headers)
    assert r.status_code == 403 and r.json()["code"] == "reorg/not_your_unit"
    r = await client.get(url, params={"unit": "nobody"}, headers=allies.headers)
    assert r.status_code == 404 and r.json()["code"] == "reorg/unknown_unit"
    r = await client.get(url, params={"unit": "cw-inf-53"})
    assert r.status_code == 401


async def test_the_damaged_ports_and_the_ways_to_repair_them_are_listed_11_18_4(
    client: httpx.AsyncClient,
) -> None:
    """11.18.4 ("Damaged ports can receive RPs in order to repair the port only"): GET
    /reorg/repairs lists the side's damaged ports with the ways to repair each; the
    listed way is accepted as a `reorg` order; another side sees none, the GM all, a
    spectator nothing."""
    game = await _allies_reorganize(client)
    allies = game.players["allies"]
    r = await game.admin("edit", {"hexes": {ROUEN: {"port_damaged": True}},
                                  "reason": "bombed"})
    assert r.status_code == 200, r.text
    url = f"/v1/games/{game.id}/reorg/repairs"
    r = await client.get(url, headers=allies.headers)
    assert r.status_code == 200, r.text
    listed = r.json()
    assert listed["position"]["step"] == "reorganization"
    [rouen] = listed["ports"]
    assert (rouen["port"], rouen["name"], rouen["power"], rouen["step_open"]) == (
        ROUEN, "Rouen", "cw", True)
    assert rouen["options"] and all(o["legal"] and o["item"]["method"] == "port_repair"
                                    and o["item"]["port"] == ROUEN for o in rouen["options"])
    assert rouen["options"][0]["cost"] == 2  # a minor port (RULES-NOTES 23)
    axis = await client.get(url, headers=game.players["axis"].headers)
    assert axis.status_code == 200 and axis.json()["ports"] == []
    assert [p["port"] for p in (await client.get(url, headers=game.gm)).json()["ports"]] == [
        ROUEN]
    made = await client.post(f"/v1/games/{game.id}/admin/spectators", json={"name": "club"},
                             headers=game.gm)
    watcher = {"Authorization": f"Bearer {made.json()['token']}"}
    assert (await client.get(url, headers=watcher)).status_code == 403
    result = await allies.ok("reorg", {"power": "cw", "items": [rouen["options"][0]["item"]]})
    assert [e["kind"] for e in result["events"]] == ["port.repaired"]
    assert (await client.get(url, headers=allies.headers)).json()["ports"] == []
