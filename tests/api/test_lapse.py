"""RPs never lapse silently, over HTTP (issue 16, item 4; 11.18): the state view shows
what lapses at done, `done` logs `rps.lapsed`, and a player's own setting
(`PUT .../players/me/settings`) asks for `"confirm_lapse": true`; the game still
verifies offline (the setting rides in the command the replay decides again)."""

from __future__ import annotations

from typing import Any

import httpx
from support import AXIS_FIRST, Game, full_game, scenario, to_action

from service import answers
from service.verify import verify_export
from tests.api.test_answers import conforms


def _modes_with_a_face_down_unit() -> dict[str, Any]:
    data = scenario("modes")
    data["units"] = [{**u, "face_up": False} if u["id"] == "ger-inf-3" else u
                     for u in data["units"]]
    return data


async def _to_reorganization(game: Game) -> None:
    for _ in range(10):
        summary = (await game.client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        if summary["position"]["step"] == "reorganization":
            return
        await game.players[summary["awaiting"][0]["side"]].ok("done")
    raise AssertionError("no reorganization step")


async def test_a_player_who_asked_confirms_the_lapse_of_unspent_rps_11_18(
        client: httpx.AsyncClient) -> None:
    game = await full_game(client, _modes_with_a_face_down_unit(), dice=AXIS_FIRST)
    axis = await to_action(game)
    url = f"/v1/games/{game.id}/players/me/settings"
    r = await client.get(url, headers=axis.headers)
    assert r.json() == {"player_id": axis.id, "settings": {"confirm_lapse": False}}
    r = await client.put(url, json={"confirm_lapse": True}, headers=axis.headers)
    assert r.status_code == 200 and r.json()["settings"] == {"confirm_lapse": True}
    conforms(r.json(), answers.PlayerSettings)
    assert (await client.put(url, json={"confirm_lapse": "yes"},
                             headers=axis.headers)).status_code == 422
    assert (await client.put(url, json={"confirm_lapse": True},
                             headers=game.gm)).status_code == 403
    await _to_reorganization(game)
    state = await game.state(axis)
    assert state["reorg"]["rps_lapse_on_done"] == {"germany": 35}
    refused = await axis.order("done")
    assert refused.status_code == 409, refused.text
    problem = refused.json()
    assert (problem["code"], problem["rule"], problem["lapse"]) == (
        "reorg/confirm_lapse", "11.18", {"germany": 35})
    result = await axis.ok("done", {"confirm_lapse": True})
    lapsed = [e for e in result["events"] if e["kind"] == "rps.lapsed"]
    assert [e["data"]["amount"] for e in lapsed] == [35]
    assert (await game.admin("end", {"reason": "verify"})).status_code == 200
    export = (await client.get(f"/v1/games/{game.id}/export", headers=game.gm)).json()
    assert verify_export(export).ok, verify_export(export).text()


async def test_without_the_setting_done_is_accepted_and_logs_the_lapse_11_18(
        client: httpx.AsyncClient) -> None:
    game = await full_game(client, _modes_with_a_face_down_unit(), dice=AXIS_FIRST)
    axis = await to_action(game)
    await _to_reorganization(game)
    result = await axis.ok("done")
    assert [e["data"] for e in result["events"] if e["kind"] == "rps.lapsed"] == [
        {"power": "germany", "amount": 35, "side": "axis", "step": "reorganization"}]
