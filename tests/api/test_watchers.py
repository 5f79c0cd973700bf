"""Spectators and key requests (issue 19): a spectator's token, issued by the GM, reads
the public view (no side's sealed reroll answer, no side's reorganization counters) and
does nothing else; a player who lost its key asks for a new one, the GM sees the
request and approves it by replacing the key, and the player signs with the new key."""

from __future__ import annotations

import httpx
from support import AXIS_FIRST, full_game, start_impulses

from service.crypto import signing


async def _spectator(client: httpx.AsyncClient, game_id: str, gm: dict[str, str]) -> str:
    r = await client.post(f"/v1/games/{game_id}/admin/spectators", json={"name": "club"},
                          headers=gm)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["role"] == "spectator" and body["name"] == "club"
    token: str = body["token"]
    return token


async def test_a_spectator_reads_the_public_view_and_nothing_sealed(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client, dice={"mode": "scripted",
                                         "script": {"initiative": [5, 8, 5]}})
    token = await _spectator(client, game.id, game.gm)
    watch = {"Authorization": f"Bearer {token}"}
    # The Axis answers the sealed reroll window: the spectator does not see its answer.
    await game.players["axis"].ok("initiative.reroll", {"demand": True})
    r = await client.get(f"/v1/games/{game.id}/state", headers=watch)
    assert r.status_code == 200, r.text
    state = r.json()
    assert state["me"] == {"role": "spectator", "player_id": None, "side": None, "powers": []}
    assert state["initiative"]["reroll_answers"] == {}
    assert state["reorg"]["sources"] == [] and state["reorg"]["providers"] == {}
    assert state["webhook"] is None
    log = (await client.get(f"/v1/games/{game.id}/log", headers=watch)).json()["events"]
    answered = [e for e in log if e["kind"] == "initiative.reroll_answered"]
    assert answered and all(e.get("sealed") for e in answered)
    summary = (await client.get(f"/v1/games/{game.id}", headers=watch)).json()
    assert "divergence" not in summary
    for path in ("/dice", "/export"):
        assert (await client.get(f"/v1/games/{game.id}{path}", headers=watch)).status_code == 200
    ticket = await client.post(f"/v1/games/{game.id}/stream/tickets", headers=watch)
    assert ticket.status_code == 201, ticket.text
    listed = (await client.get(f"/v1/games/{game.id}/admin/spectators", headers=game.gm)).json()
    assert [s["name"] for s in listed["spectators"]] == ["club"]


async def test_a_spectators_token_does_nothing_but_read(client: httpx.AsyncClient) -> None:
    game = await full_game(client, dice=AXIS_FIRST)
    await start_impulses(game)
    token = await _spectator(client, game.id, game.gm)
    watch = {"Authorization": f"Bearer {token}"}
    refused = [
        await client.get(f"/v1/games/{game.id}/options", headers=watch),
        await client.get(f"/v1/games/{game.id}/units/ger-hq-1/options", headers=watch),
        await client.get(f"/v1/games/{game.id}/reorg/options?unit=ger-arm-1", headers=watch),
        await client.post(f"/v1/games/{game.id}/admin/pause", json={}, headers=watch),
        await client.post(f"/v1/games/{game.id}/admin/spectators", json={}, headers=watch),
        await client.get(f"/v1/games/{game.id}/webhook", headers=watch),
        await client.get(f"/v1/games/{game.id}/players/me/settings", headers=watch),
    ]
    assert [r.status_code for r in refused] == [403] * len(refused)
    assert {r.json()["code"] for r in refused} == {"auth/spectator"}
    other = await full_game(client)
    r = await client.get(f"/v1/games/{other.id}/state", headers=watch)
    assert r.status_code == 403 and r.json()["code"] == "auth/not_a_member"
    r = await client.post(f"/v1/games/{game.id}/admin/spectators",
                          headers=game.players["axis"].headers)
    assert r.status_code == 403 and r.json()["code"] == "auth/gm_only"


async def test_a_player_asks_for_a_new_key_and_the_gm_approves_it(
    client: httpx.AsyncClient,
) -> None:
    # No waiting period for a key bound without the old key's consent (a lost key).
    game = await full_game(client, dice=AXIS_FIRST, options={"game": {"key_wait_hours": 0}})
    axis = game.players["axis"]
    new_key = signing.new_private_key()
    public = signing.public_key_text(new_key)
    r = await client.post(f"/v1/games/{game.id}/players/me/key-request",
                          json={"public_key": public}, headers=axis.headers)
    assert r.status_code == 201, r.text
    assert r.json()["approved"] is False and r.json()["player_id"] == axis.id
    again = await client.post(f"/v1/games/{game.id}/players/me/key-request",
                              json={"public_key": signing.public_key_text(axis.key)},
                              headers=axis.headers)
    assert again.status_code == 409 and again.json()["code"] == "key/already_yours"
    gm_only = await client.get(f"/v1/games/{game.id}/admin/key-requests", headers=axis.headers)
    assert gm_only.status_code == 403
    listed = (await client.get(f"/v1/games/{game.id}/admin/key-requests",
                               headers=game.gm)).json()["requests"]
    assert [(x["player_id"], x["public_key"], x["approved"]) for x in listed] == [
        (axis.id, public, False)]
    r = await game.admin(f"players/{axis.id}/key", {"public_key": public,
                                                     "reason": "lost laptop"})
    assert r.status_code == 200, r.text
    listed = (await client.get(f"/v1/games/{game.id}/admin/key-requests",
                               headers=game.gm)).json()["requests"]
    assert listed[0]["approved"] is True
    axis.key = new_key
    await axis.ok("initiative.reroll", {"demand": False})
