"""Creating, joining and reading games (docs/api.md, 4.3): the pinned shapes and
every failure path as problem+json."""

from __future__ import annotations

import copy

import httpx
from support import SIDES, create_game, full_game, join, join_body, scenario

from service.crypto import signing


def _problem(r: httpx.Response, status: int, code: str) -> dict[str, object]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, object] = r.json()
    assert body["type"] == f"/problems/{code}"
    return body


async def test_create_from_the_builtin_dno_demo(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/games", json={"name": "Drang", "scenario": "dno-demo"})
    assert r.status_code == 201, r.text
    body = r.json()
    assert set(body["join_codes"]) == set(SIDES)
    state = (await client.get(f"/v1/games/{body['id']}/state",
                              headers={"Authorization": f"Bearer {body['gm_token']}"})).json()
    assert state["game"]["status"] == "open"
    assert len(state["units"]) >= 80
    assert {a["step"] for a in state["awaiting"]} == {"join"}
    assert {a["side"] for a in state["awaiting"]} == set(SIDES)
    assert state["turn"]["threshold"] == 83
    assert state["minors"]["hungary"] == "germany"


async def test_create_from_an_inline_scenario_with_options(client: httpx.AsyncClient) -> None:
    game = await create_game(client, "mini", options={"turn_end": {"threshold": 60},
                                                      "reorg": {"minor_port_limit": 1}})
    state = await game.state()
    assert state["turn"]["threshold"] == 60
    assert state["game"]["options"]["reorg"]["minor_port_limit"] == 1
    assert state["game"]["options"]["reorg"]["impulse_step"] == "phasing"


async def test_an_invalid_scenario_lists_every_problem(client: httpx.AsyncClient) -> None:
    broken = copy.deepcopy(scenario("mini"))
    broken["powers"][0]["side"] = "nowhere"
    broken["units"][0]["at"] = "no-such-hex"
    broken["units"][1]["power"] = "atlantis"
    broken["map"]["hexes"][1]["id"] = broken["map"]["hexes"][0]["id"]
    r = await client.post("/v1/games", json={"name": "x", "scenario": broken})
    body = _problem(r, 422, "scenario/invalid")
    paths = {e["path"] for e in body["errors"]}  # type: ignore[union-attr]
    assert {"/scenario/powers/0/side", "/scenario/units/0/at",
            "/scenario/units/1/power"} <= paths
    assert any("hexes/1" in p for p in paths)


async def test_unknown_builtin_scenario_and_bad_options_are_422(
    client: httpx.AsyncClient,
) -> None:
    r = await client.post("/v1/games", json={"name": "x", "scenario": "no-such"})
    body = _problem(r, 422, "request/malformed_body")  # the built-in ids are an enum
    assert body["errors"] == [{"path": "/scenario", "message": (  # type: ignore[union-attr]
        "Input should be 'dno-demo'; or Input should be a valid dictionary")}]
    r = await client.post("/v1/games", json={"name": "x", "scenario": "dno-demo",
                                             "options": {"reorg": {"impulse_step": "never"}}})
    body = _problem(r, 422, "game/invalid_options")
    assert body["errors"] == [{"path": "/options/reorg/impulse_step",
                               "message": "expected one of phasing, all"}]


async def test_scripted_values_outside_the_die_are_refused(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/games", json={"name": "x", "scenario": "dno-demo", "dice": {
        "mode": "scripted", "script": {"initiative": [5, 11], "weather": [0]}}})
    body = _problem(r, 422, "request/malformed_body")
    assert {e["path"] for e in body["errors"]} == {  # type: ignore[union-attr]
        "/dice/script/initiative/1", "/dice/script/weather/0"}


async def test_joining_each_side_starts_turn_one(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    for side in SIDES:
        summary = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
        assert summary["status"] == "open"
        assert side in {a["side"] for a in summary["awaiting"]}
        await join(game, side)
    summary = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
    assert summary["status"] == "active"
    assert summary["turn"] == 1
    assert summary["step"] == "initiative.reroll"
    assert summary["awaiting"] and all(a["step"] == "initiative.reroll"
                                       for a in summary["awaiting"])


async def test_joining_with_some_powers_leaves_the_rest_open(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    await join(game, "allies", ["cw"])
    summary = (await client.get(f"/v1/games/{game.id}", headers=game.gm)).json()
    allies = [a for a in summary["awaiting"] if a["side"] == "allies"][0]
    assert allies["powers"] == ["usa", "france"]


async def test_wrong_join_code_is_401(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    r = await client.post(f"/v1/games/{game.id}/seats/axis", json=join_body(
        game.id, "axis", game.join_codes["allies"], signing.new_private_key(), "Eve", None))
    _problem(r, 401, "seat/bad_join_code")


async def test_a_taken_seat_is_409(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    await join(game, "axis")
    r = await client.post(f"/v1/games/{game.id}/seats/axis", json=join_body(
        game.id, "axis", game.join_codes["axis"], signing.new_private_key(), "Late", None))
    _problem(r, 409, "seat/taken")


async def test_a_bad_key_is_422(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    for key in ("not base64!", "AAAA", signing.b64url_encode(b"x" * 31)):
        r = await client.post(f"/v1/games/{game.id}/seats/axis", json={
            "join_code": game.join_codes["axis"], "name": "Bad", "public_key": key,
            "signature": "AAAA"})
        body = _problem(r, 422, "request/malformed_body")  # not 32 bytes of base64url
        assert [e["path"] for e in body["errors"]] == ["/public_key"]  # type: ignore[union-attr]


SMALL_ORDER_KEYS = [
    "0100000000000000000000000000000000000000000000000000000000000000",  # the identity
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",  # order 8
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",  # y = p + 1
]


async def test_small_order_and_non_canonical_keys_are_refused_at_join_and_replacement(
    client: httpx.AsyncClient,
) -> None:
    """Issue 14, item 4: with the identity as its key, one constant signature would
    verify every order of the seat, so nobody could say who wrote them."""
    game = await create_game(client)
    for key_hex in SMALL_ORDER_KEYS:
        key = signing.b64url_encode(bytes.fromhex(key_hex))
        r = await client.post(f"/v1/games/{game.id}/seats/axis", json={
            "join_code": game.join_codes["axis"], "name": "Mallory", "public_key": key,
            "signature": "A" * 86})
        body = _problem(r, 422, "seat/bad_public_key")
        assert [e["path"] for e in body["errors"]] == ["/public_key"]  # type: ignore[attr-defined]
    axis = await join(game, "axis")
    for key_hex in SMALL_ORDER_KEYS:
        key = signing.b64url_encode(bytes.fromhex(key_hex))
        r = await client.post(f"/v1/games/{game.id}/admin/players/{axis.id}/key",
                              json={"public_key": key, "reason": "lost laptop"},
                              headers=game.gm)
        body = _problem(r, 422, "seat/bad_public_key")
        assert [e["path"] for e in body["errors"]] == ["/public_key"]  # type: ignore[attr-defined]


async def test_missing_unknown_and_foreign_tokens(client: httpx.AsyncClient) -> None:
    game = await create_game(client)
    other = await create_game(client)
    url = f"/v1/games/{game.id}/state"
    _problem(await client.get(url), 401, "auth/missing_token")
    _problem(await client.get(url, headers={"Authorization": "Bearer nope"}), 401,
             "auth/bad_token")
    _problem(await client.get(url, headers=other.gm), 403, "auth/not_a_member")
    _problem(await client.get("/v1/games/unknown/state", headers=game.gm), 404,
             "game/not_found")


async def test_state_as_a_player_and_as_the_gm(client: httpx.AsyncClient) -> None:
    game = await full_game(client)
    axis = game.players["axis"]
    mine = await game.state(axis)
    assert mine["me"] == {"role": "player", "player_id": axis.id, "side": "axis",
                          "powers": ["germany", "italy"]}
    gm = await game.state()
    assert gm["me"]["role"] == "gm"
    for view in (mine, gm):
        assert set(view) >= {"game", "turn", "initiative", "awaiting", "powers", "units", "me"}
        assert view["game"]["dice_mode"] == "fair"


async def test_state_etag_gives_304(client: httpx.AsyncClient) -> None:
    game = await full_game(client)
    r = await client.get(f"/v1/games/{game.id}/state", headers=game.gm)
    etag = r.headers["etag"]
    again = await client.get(f"/v1/games/{game.id}/state",
                             headers={**game.gm, "If-None-Match": etag})
    assert again.status_code == 304


async def test_list_my_games_is_paginated(client: httpx.AsyncClient) -> None:
    game = await full_game(client)
    r = await client.get("/v1/games", headers=game.players["axis"].headers)
    assert [g["id"] for g in r.json()["games"]] == [game.id]
    _problem(await client.get("/v1/games", headers={"Authorization": "Bearer nope"}), 401,
             "auth/bad_token")


async def test_log_is_paginated_and_chained(client: httpx.AsyncClient) -> None:
    game = await full_game(client)
    page = (await client.get(f"/v1/games/{game.id}/log", params={"limit": 2},
                             headers=game.gm)).json()
    assert [e["seq"] for e in page["events"]] == [1, 2]
    assert page["next_after"] == 2
    rest = (await client.get(f"/v1/games/{game.id}/log", params={"after": 2},
                             headers=game.gm)).json()
    assert rest["events"][0]["seq"] == 3
    assert all(e["at"].endswith("Z") for e in rest["events"])


async def test_health_and_readiness(client: httpx.AsyncClient) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    ready = (await client.get("/readyz")).json()
    assert ready["status"] == "ready" and ready["clock"]["ok"] is True  # same machine
    assert set(ready) == {"status", "clock", "memory", "heavy", "loop", "process"}
    assert (await client.get("/openapi.json")).status_code == 200
    _problem(await client.get("/v1/nothing-here"), 404, "not_found")


async def test_state_shows_each_land_units_supply(client: httpx.AsyncClient) -> None:
    """Issue 5: per unit, whether it is in supply and through what (map engine)."""
    r = await client.post("/v1/games", json={"name": "supply", "scenario": "dno-demo"})
    gm = {"Authorization": f"Bearer {r.json()['gm_token']}"}
    state = (await client.get(f"/v1/games/{r.json()['id']}/state", headers=gm)).json()
    land = [uid for uid, u in state["units"].items() if u["class"] == "land"]
    assert set(state["supply"]) <= set(state["units"])
    assert len(state["supply"]) >= len(land) // 2
    statuses = list(state["supply"].values())
    assert any(s["in_supply"] for s in statuses)
    assert all(s["method"] for s in statuses if s["in_supply"])
    assert all(s["reason"] for s in statuses if not s["in_supply"])
