"""A whole German impulse of OCS modes through the HTTP API (seed 004; RULES-NOTES 31):
mode changes in the action step, a reaction release, a reported combat with DG and
exploitation, the exploitation step, and clean up, checking the state after each order.
The map is tests/scenarios/modes.json."""

from __future__ import annotations

from typing import Any

import httpx
from support import SIDES, Game, answer_done_steps, full_game

SCRIPT = {"initiative": [9, 5, 1], "weather": [7], "turn_end": [5, 5]}


async def _units(game: Game) -> dict[str, Any]:
    units: dict[str, Any] = (await game.state())["units"]
    return units


async def _step(game: Game) -> tuple[str, list[str]]:
    state = await game.state()
    return state["turn"]["step"], [a["side"] for a in state["awaiting"]]


async def test_a_german_impulse_with_modes_reaction_combat_exploitation_and_clean_up(
    client: httpx.AsyncClient,
) -> None:
    """OCS 5.0 over HTTP: every mode step of one impulse, in order (RULES-NOTES 31)."""
    game = await full_game(client, "modes", dice={"mode": "scripted", "script": SCRIPT})
    axis, allies, communists = (game.players[s] for s in SIDES)
    for side in SIDES:
        await game.players[side].ok("initiative.reroll", {"demand": False})
    await axis.ok("initiative.choose", {"position": "first"})
    await allies.ok("initiative.choose", {"position": "before"})
    await axis.ok("declare", {"actions": {"germany": "land"}})
    assert await _step(game) == ("action", ["axis"])

    # Action step (OCS Movement Phase): mode changes, then moves.
    await axis.ok("mode", {"changes": [
        {"unit": "ger-arm-1", "mode": "move"},
        {"unit": "ger-inf-2", "mode": "reserve", "orientation": "combat"}]})
    units = await _units(game)
    assert (units["ger-arm-1"]["mode"], units["ger-arm-1"]["orientation"]) == ("move", "move")
    assert units["ger-arm-1"]["effective"]["ma"] == 8
    assert units["ger-inf-2"]["mode"] == "reserve"
    assert (units["ger-inf-2"]["effective"]["ma"], units["ger-inf-2"]["effective"]["defence"]) \
        == (1, 2)

    refused = await axis.order("mode", {"changes": [{"unit": "ger-inf-1", "mode": "reserve"}]})
    assert refused.status_code == 409
    problem = refused.json()
    assert (problem["rule"], problem["unit"], problem["code"]) == ("OCS 5.7c", "ger-inf-1",
                                                                   "mode/enemy_zoc")
    assert problem["errors"][0]["path"] == "/order/body/changes/0/mode"
    assert "ger-inf-1 (germany INF corps) is in an enemy ZOC" in problem["detail"]
    assert problem["errors"][0]["unit"] == {"id": "ger-inf-1", "name": "germany INF corps"}

    await axis.ok("report", {"moves": [
        {"unit": "ger-arm-1", "to": "h31", "transport": None},
        {"unit": "ger-inf-2", "to": "h31", "mp": 1, "transport": None}]})
    units = await _units(game)
    assert units["ger-arm-1"]["at"] == units["ger-inf-2"]["at"] == "h31"
    # h31 is in cw-inf-1's ZOC: entering it ends the move (option movement.zoc "stop")
    assert units["ger-arm-1"]["effective"]["mp_left"] == 0
    assert units["ger-arm-1"]["this_impulse"]["moved"] is True

    # Reaction: the Allies, then the Communists (turn order), may release Reserves.
    await axis.ok("done")
    assert await _step(game) == ("reaction", ["allies", "communists"])
    early = await communists.order("release", {"units": ["sov-inf-2"]})
    assert early.status_code == 409 and early.json()["rule"] == "RULES-NOTES 31"
    await allies.ok("release", {"units": ["cw-arm-1"]})
    units = await _units(game)
    assert (units["cw-arm-1"]["mode"], units["cw-arm-1"]["this_impulse"]["released"]) == (
        "move", "reaction")
    assert units["cw-arm-1"]["effective"]["ma"] == 5  # half of 10 (OCS 5.7b B)
    await allies.ok("report", {"moves": [{"unit": "cw-arm-1", "to": "h20", "mp": 1,
                                          "transport": None}]})
    assert (await _units(game))["cw-arm-1"]["at"] == "h20"
    await allies.ok("done")
    await communists.ok("done")
    assert await _step(game) == ("combat", ["axis"])

    # Combat: DG, a retreat, exploitation earned, an advance.
    await axis.ok("report", {"combats": [{
        "by": "combat", "hex": "h21", "attackers": ["ger-arm-1", "ger-inf-1"],
        "results": [{"kind": "dg"},
                    {"kind": "dg", "hex": "h30"},
                    {"kind": "retreat", "units": ["cw-inf-1"], "path": ["h11"]},
                    {"kind": "exploit", "units": ["ger-arm-1"], "rating": 3},
                    {"kind": "advance", "units": ["ger-arm-1"]}]}]})
    units = await _units(game)
    assert (units["cw-inf-1"]["mode"], units["cw-inf-1"]["at"]) == ("dg", "h11")
    assert units["ger-inf-1"]["mode"] == "dg"
    assert (units["ger-arm-1"]["mode"], units["ger-arm-1"]["orientation"],
            units["ger-arm-1"]["at"]) == ("exploit", "move", "h21")
    assert units["ger-arm-1"]["effective"]["zoc"] is False  # had none in Move Mode (OCS 5.9c)

    # Exploitation: the Exploit unit at half MA, a released Reserve at full values.
    await axis.ok("done")
    assert await _step(game) == ("exploitation", ["axis"])
    assert (await _units(game))["ger-arm-1"]["effective"]["ma"] == 4
    await axis.ok("release", {"units": ["ger-inf-2"]})
    units = await _units(game)
    assert (units["ger-inf-2"]["mode"], units["ger-inf-2"]["effective"]["ma"]) == ("combat", 4)
    await axis.ok("report", {
        "moves": [{"unit": "ger-inf-2", "to": "h21", "mp": 1, "transport": None}],
        "combats": [{"by": "combat", "hex": "h11", "attackers": ["ger-arm-1", "ger-inf-2"],
                     "results": [{"kind": "loss", "unit": "cw-inf-1"},
                                 {"kind": "retreat", "units": ["cw-inf-1"],
                                  "path": ["h01"]}]}],
        "face_down": ["ger-arm-1", "ger-inf-2"]})
    units = await _units(game)
    assert (units["cw-inf-1"]["at"], units["cw-inf-1"]["steps_lost"]) == ("h01", 1)
    assert units["ger-arm-1"]["face_up"] is False and units["ger-inf-2"]["face_up"] is False

    # Clean up: the phasing side's DG and Exploit markers go, logged; the Allies' stay.
    await axis.ok("done")
    log = await game.log()
    cleaned = [e for e in log if e["kind"] == "impulse.cleaned_up"][-1]
    assert cleaned["data"] == {"side": "axis", "units": ["ger-arm-1", "ger-inf-1"]}
    units = await _units(game)
    assert (units["ger-arm-1"]["mode"], units["ger-inf-1"]["mode"]) == ("move", "combat")
    assert units["cw-inf-1"]["mode"] == "dg"
    assert not any(units["ger-arm-1"]["this_impulse"].values())
    summary = await answer_done_steps(game)
    assert summary["awaiting"][0] == {"side": "allies", "powers": ["cw"], "step": "declare",
                                      "deadline": None, "orders": ["declare", "steps"],
                                      "choices": {"actions.*": ["pass", "land", "air", "naval",
                                                              "combined"]}}
    kinds = [e["kind"] for e in log]
    for kind in ("unit.mode_changed", "unit.moved", "reserves.released", "combat.reported",
                 "hex.disorganized", "units.retreated", "units.exploit_awarded",
                 "units.advanced", "unit.step_lost", "units.turned_face_down"):
        assert kind in kinds, kind
