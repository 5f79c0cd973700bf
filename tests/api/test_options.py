"""Moves refereed on the map and the legal-choices endpoints over HTTP (issue 16):
the forest move of the issue refused with its cost, `GET .../units/{unit}/options` and
`GET .../options?side=`, who may see what, and a listed move accepted by `report`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
from support import AXIS_FIRST, Game, Player, full_game, to_action

import service
from service import answers
from tests.api.test_answers import conforms

DNO = Path(service.__file__).parent / "rules" / "scenario" / "scenarios" / "dno-demo.json"
COMMUNISTS_FIRST = {"mode": "scripted", "script": {"initiative": [1, 1, 10], "weather": [7]}}


def _dno(**units: dict[str, Any]) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DNO.read_text())
    data["units"] = [{**u, **units.get(u["id"], {})} for u in data["units"]]
    return data


async def _options(game: Game, who: Player | None, unit: str) -> httpx.Response:
    headers = who.headers if who else game.gm
    return await game.client.get(f"/v1/games/{game.id}/units/{unit}/options", headers=headers)


async def test_the_forest_move_of_issue_16_is_refused_with_its_cost(
        client: httpx.AsyncClient) -> None:
    """ussr-inf-1 1204 -> 1402 through three forest hexes, reported as 1 MP: 409, the rule
    (OCS 5.5: its Combat side's MA, 3), the hex where its MP run out and the cost, 6 MP;
    nothing changes."""
    game = await full_game(client, _dno(**{"ussr-inf-1": {"at": "1204", "face_up": True}}),
                           dice=COMMUNISTS_FIRST)
    ussr = await to_action(game)
    assert ussr.side == "communists"
    before = (await game.state())["game"]["version"]
    r = await ussr.order("report", {"moves": [{"unit": "ussr-inf-1", "to": "1402", "mp": 1,
                                               "path": ["1303", "1302", "1402"]}]})
    assert r.status_code == 409, r.text
    problem = r.json()
    assert (problem["code"], problem["rule"], problem["hex"], problem["mp"]) == (
        "report/mp", "OCS 5.5", "1302", 6)
    assert "it costs 6 MP (forest 2, forest 2, forest 2)" in problem["detail"]
    assert problem["errors"][0]["path"] == "/order/body/moves/0/path/1"
    assert problem["errors"][0]["unit"] == {"id": "ussr-inf-1", "name": "USSR INF corps"}
    assert (await game.state())["game"]["version"] == before
    options = (await _options(game, ussr, "ussr-inf-1")).json()
    reach = {h["to"]: h["mp"] for h in options["moves"]["hexes"]}
    assert "1402" not in reach and reach["1303"] == 2


async def test_unit_options_list_what_a_unit_may_do_and_a_listed_move_is_accepted(
        client: httpx.AsyncClient) -> None:
    game = await full_game(client, "modes", dice=AXIS_FIRST)
    axis = await to_action(game)
    r = await _options(game, axis, "ger-arm-1")
    assert r.status_code == 200, r.text
    body = r.json()
    conforms(body, answers.UnitOptions)
    assert body["position"]["step"] == "action"
    assert body["name"] == "germany ARM corps"  # modes.json names no power: its id
    legal = {(x["mode"], x["orientation"]) for x in body["modes"]["legal"]}
    assert ("move", "move") in legal and ("strat", "move") in legal
    assert all(x["reason"] and x["rule"] for x in body["modes"]["illegal"])
    listed = {h["to"]: h for h in body["moves"]["hexes"]}
    choice = listed["h42"]
    await axis.ok("report", {"moves": [{"unit": "ger-arm-1", "to": "h42",
                                        "path": choice["path"]}]})
    state = await game.state(axis)
    assert state["units"]["ger-arm-1"]["at"] == "h42"
    assert state["units"]["ger-arm-1"]["effective"]["mp_left"] == 4 - choice["spends"]
    again = (await _options(game, axis, "ger-arm-1")).json()
    assert again["version"] > body["version"]


async def test_side_options_cover_every_unit_of_the_callers_side(
        client: httpx.AsyncClient) -> None:
    game = await full_game(client, "modes", dice=AXIS_FIRST)
    axis = await to_action(game)
    r = await client.get(f"/v1/games/{game.id}/options", headers=axis.headers)
    assert r.status_code == 200, r.text
    body = r.json()
    conforms(body, answers.SideOptions)
    assert body["side"] == "axis"
    assert set(body["units"]) == {u for u, x in (await game.state())["units"].items()
                                  if x["power"] == "germany"}
    assert body["units"]["ger-arm-1"] == {
        k: v for k, v in (await _options(game, axis, "ger-arm-1")).json().items()
        if k not in ("position", "version")}
    gm = await client.get(f"/v1/games/{game.id}/options", params={"side": "allies"},
                          headers=game.gm)
    assert gm.status_code == 200 and "cw-inf-1" in gm.json()["units"]


async def test_options_are_a_sides_own_and_name_unknown_units(
        client: httpx.AsyncClient) -> None:
    game = await full_game(client, "modes", dice=AXIS_FIRST)
    axis = await to_action(game)
    other = await _options(game, axis, "cw-inf-1")
    assert other.status_code == 403 and other.json()["code"] == "options/not_your_unit"
    side = await client.get(f"/v1/games/{game.id}/options", params={"side": "allies"},
                            headers=axis.headers)
    assert side.status_code == 403
    unknown = await _options(game, axis, "nobody")
    assert unknown.status_code == 404 and unknown.json()["code"] == "options/unknown_unit"
    r = await client.get(f"/v1/games/{game.id}/options", params={"side": "nobody"},
                         headers=game.gm)
    assert r.status_code == 404 and r.json()["code"] == "options/unknown_side"
    # The GM without ?side= sees the side whose move it is.
    gm = await client.get(f"/v1/games/{game.id}/options", headers=game.gm)
    assert gm.status_code == 200 and gm.json()["side"] == axis.side
    assert (await _options(game, None, "cw-inf-1")).status_code == 200


async def _until(game: Game, step: str) -> None:
    for _ in range(10):
        summary = (await game.client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        if summary["position"]["step"] == step:
            return
        await game.players[summary["awaiting"][0]["side"]].ok("done")
    raise AssertionError(f"never reached {step}")


async def test_a_combats_dice_are_the_referees_and_a_dry_run_never_rolls(
        client: httpx.AsyncClient) -> None:
    """Item 2: the referee rolls a combat's dice (purpose `combat`), in the log and in the
    dice record; a dry run of the same report says it would roll and rolls nothing."""
    game = await full_game(client, "modes", dice=AXIS_FIRST)
    axis = await to_action(game)
    await _until(game, "combat")
    combat = {"combats": [{"by": "combat", "hex": "h21", "attackers": ["ger-inf-1"],
                           "dice": "2d6"}]}
    position = await axis.position()
    preview = await client.post(f"/v1/games/{game.id}/orders", params={"dry_run": "true"},
                                json=axis.envelope("report", combat, position),
                                headers=axis.headers)
    assert preview.status_code == 200, preview.text
    assert (preview.json()["rolls_dice"], preview.json()["events"]) == (True, [])
    result = await axis.ok("report", combat)
    kinds = [e["kind"] for e in result["events"]]
    assert kinds == ["report.filed", "combat.reported", "dice.rolled", "combat.rolled"]
    values = result["events"][2]["data"]["values"]
    assert len(values) == 2 and all(1 <= v <= 6 for v in values)
    dice = (await client.get(f"/v1/games/{game.id}/dice", headers=axis.headers)).json()
    rolls = [r for t in dice["turns"] for r in t["rolls"] if r["purpose"] == "combat"]
    assert [r["values"] for r in rolls] == [values]
    waiting = await axis.order("done")
    assert waiting.status_code == 409 and waiting.json()["code"] == "report/combat_waiting"
    await axis.ok("report", {"combats": [{"by": "combat", "hex": "h21",
                                          "results": [{"kind": "dg"}]}]})
    await axis.ok("done")
