"""Signed orders (docs/api.md): each rejection has its status and problem type and
changes nothing; replays are idempotent; concurrent orders land exactly once. Most run
in the first impulse's action step, where the Axis (the phasing side) may roll."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
from typing import Any

import httpx
import pytest
from support import AXIS_FIRST, Game, Player, full_game, to_action

from service.crypto import signing

ROLL = {"dice": "2d10", "purpose": "attrition"}


async def _fingerprint(game: Game) -> tuple[int, int]:
    r = await game.client.get(f"/v1/games/{game.id}/state", headers=game.gm)
    log = await game.log()
    return r.json()["game"]["version"], len(log)


async def _rejected(game: Game, r: httpx.Response, status: int, code: str,
                    before: tuple[int, int]) -> dict[str, Any]:
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    body: dict[str, Any] = r.json()
    assert body["type"] == f"/problems/{code}"
    assert body["status"] == status and body["detail"]
    assert await _fingerprint(game) == before
    return body


@pytest.fixture
async def game(client: httpx.AsyncClient) -> Game:
    """The Axis's action step in the first impulse."""
    game = await full_game(client, dice=AXIS_FIRST)
    assert (await to_action(game)).side == "axis"
    return game


async def test_bad_signature_is_401_and_changes_nothing(game: Game) -> None:
    axis = game.players["axis"]
    before = await _fingerprint(game)
    envelope = axis.envelope("roll", ROLL, await axis.position())
    envelope["signature"] = envelope["signature"][:-4] + ("AAAA" if not
                                                          envelope["signature"].endswith("AAAA")
                                                          else "BBBB")
    r = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                               headers=axis.headers)
    await _rejected(game, r, 401, "order/bad_signature", before)


async def test_signature_by_another_players_key_is_401(game: Game) -> None:
    axis, allies = game.players["axis"], game.players["allies"]
    before = await _fingerprint(game)
    envelope = axis.envelope("roll", ROLL, await axis.position())
    envelope["signature"] = signing.sign(allies.key, signing.order_signing_bytes(envelope["order"]))
    r = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                               headers=axis.headers)
    await _rejected(game, r, 401, "order/bad_signature", before)


async def test_token_of_another_side_is_403(game: Game) -> None:
    axis, allies = game.players["axis"], game.players["allies"]
    before = await _fingerprint(game)
    envelope = axis.envelope("roll", ROLL, await axis.position())
    r = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                               headers=allies.headers)
    await _rejected(game, r, 403, "order/signer_mismatch", before)


async def test_order_for_a_power_not_held_is_403(client: httpx.AsyncClient) -> None:
    from support import create_game, join

    game = await create_game(client, dice={"mode": "scripted",
                                           "script": {"initiative": [1, 2, 10]}})
    await join(game, "axis")
    cw = await join(game, "allies", ["cw"])
    await join(game, "allies", ["usa", "france"])
    await join(game, "communists")
    for side in ("axis", "allies", "communists"):
        await game.players[side].ok("initiative.reroll", {"demand": False})
    await game.players["communists"].ok("initiative.choose", {"position": "last"})
    await game.players["allies"].ok("initiative.choose", {"position": "before"})
    assert (await game.state())["turn"]["phasing_side"] == "allies"
    before = await _fingerprint(game)
    r = await cw.order("declare", {"actions": {"usa": "pass"}})
    body = await _rejected(game, r, 403, "order/power_not_held", before)
    assert body["errors"][0]["path"] == "/order/body/actions/usa"


async def test_replayed_seq_returns_the_first_result(game: Game) -> None:
    axis = game.players["axis"]
    envelope = axis.envelope("roll", ROLL, await axis.position())
    url = f"/v1/games/{game.id}/orders"
    first = await game.client.post(url, json=envelope, headers=axis.headers)
    assert first.status_code == 201
    before = await _fingerprint(game)
    again = await game.client.post(url, json=envelope, headers=axis.headers)
    assert again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert await _fingerprint(game) == before


async def test_reused_seq_with_other_content_is_409(game: Game) -> None:
    axis = game.players["axis"]
    position = await axis.position()
    first = axis.envelope("roll", ROLL, position, seq=7)
    r = await game.client.post(f"/v1/games/{game.id}/orders", json=first, headers=axis.headers)
    assert r.status_code == 201
    before = await _fingerprint(game)
    other = axis.envelope("roll", {"dice": "1d6", "purpose": "other"}, position, seq=7)
    r = await game.client.post(f"/v1/games/{game.id}/orders", json=other, headers=axis.headers)
    await _rejected(game, r, 409, "order/seq_reused", before)


async def test_seqs_may_arrive_out_of_order(game: Game) -> None:
    axis = game.players["axis"]
    position = await axis.position()
    for seq in (15, 12, 19):
        envelope = axis.envelope("roll", ROLL, position, seq=seq)
        r = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                                   headers=axis.headers)
        assert r.status_code == 201, r.text


async def test_stale_impulse_is_409_with_the_current_position(game: Game) -> None:
    axis = game.players["axis"]
    position = await axis.position()
    stale = {**position, "impulse": position["impulse"] + 3}
    before = await _fingerprint(game)
    r = await axis.order("roll", ROLL, position=stale)
    body = await _rejected(game, r, 409, "order/stale", before)
    assert body["current"] == position


async def test_malformed_body_is_422_with_the_path(game: Game) -> None:
    axis = game.players["axis"]
    before = await _fingerprint(game)
    r = await axis.order("roll", {"dice": "0d1", "purpose": ""})
    body = await _rejected(game, r, 422, "request/malformed_body", before)
    assert {e["path"] for e in body["errors"]} == {"/order/body/dice", "/order/body/purpose"}


async def test_wrong_step_is_409_and_names_who_is_awaited(game: Game) -> None:
    axis = game.players["axis"]
    before = await _fingerprint(game)
    r = await axis.order("declare", {"actions": {"germany": "pass"}})
    body = await _rejected(game, r, 409, "order/wrong_step", before)
    assert body["awaiting"]


async def test_fifty_concurrent_rolls_land_exactly_once(game: Game) -> None:
    """Separate connections, one game: every order lands once, seq contiguous, chain valid."""
    from service.crypto.chain import verify_chain

    axis = game.players["axis"]
    position = await axis.position()
    before = len(await game.log())
    envelopes: list[tuple[Player, dict[str, Any]]] = []
    for i in range(50):
        envelopes.append((axis, axis.envelope("roll", {"dice": "1d10", "purpose": f"r{i}"},
                                              position)))
    results = await asyncio.gather(*[
        game.client.post(f"/v1/games/{game.id}/orders", json=e, headers=p.headers)
        for p, e in envelopes
    ])
    assert [r.status_code for r in results] == [201] * 50
    log = await game.log()
    assert [e["seq"] for e in log] == list(range(1, len(log) + 1))
    rolls = [e for e in log[before:] if e["kind"] == "dice.rolled"]
    assert sorted(e["data"]["label"] for e in rolls) == sorted(f"r{i}" for i in range(50))
    assert verify_chain(game.id, log) is None


async def test_seeded_rolls_match_an_independent_computation_from_the_spec(
    client: httpx.AsyncClient,
) -> None:
    """docs/dice.md, recomputed here from the formula (not with the service's code): the
    chain's anchor, turn 1's seed, and every die from its trigger, the hash of the
    signature of the order (or join) that made it."""
    master = "11" * 32
    game = await full_game(client, dice={"mode": "seeded", "seed": master})
    axis = await to_action(game)
    signatures = []
    for i in range(3):
        envelope = axis.envelope("roll", {"dice": "3d6", "purpose": f"check {i}"},
                                 await axis.position())
        r = await client.post(f"/v1/games/{game.id}/orders", json=envelope,
                              headers=axis.headers)
        assert r.status_code == 201, r.text
        signatures.append(envelope["signature"])
    r = await game.admin("end", {"reason": "verify the dice"})
    assert r.status_code == 200, r.text
    log = await game.log()

    def hashed(data: bytes, times: int) -> bytes:
        for _ in range(times):
            data = hashlib.sha256(data).digest()
        return data

    root = hmac.new(bytes.fromhex(master), b"chain|0", hashlib.sha256).digest()
    [committed] = [e["data"] for e in log if e["kind"] == "dice.committed"]
    assert committed["anchor"] == hashed(root, 1000).hex() and committed["from_turn"] == 1
    seed = bytes.fromhex([e for e in log if e["kind"] == "dice.revealed"][0]["data"]["seed"])
    assert seed == hashed(root, 999) and hashlib.sha256(seed).hexdigest() == committed["anchor"]

    def die(message: str, faces: int) -> int:
        digest = hmac.new(seed, message.encode(), hashlib.sha256).digest()
        while True:
            for b in digest:
                if b < 256 - 256 % faces:
                    return b % faces + 1
            digest = hmac.new(seed, digest, hashlib.sha256).digest()

    def trigger(signature: str) -> str:
        return hashlib.sha256(base64.urlsafe_b64decode(signature + "==")).hexdigest()

    rolls = [e["data"] for e in log if e["kind"] == "dice.rolled"]
    ours = [d for d in rolls if d["purpose"] == "roll"]
    assert [d["trigger"] for d in ours] == [trigger(s) for s in signatures]
    assert len(rolls) >= 4  # the initiative roll, the weather, and our three
    for d in rolls:
        expected = [die(f"{game.id}|{d['turn']}|{d['index']}|{j}|{d['purpose']}|"
                        f"{d['trigger']}", d["faces"]) for j in range(len(d["values"]))]
        assert d["values"] == expected


async def test_paused_game_refuses_orders(game: Game) -> None:
    assert (await game.admin("pause", {"reason": "holiday"})).status_code == 200
    axis = game.players["axis"]
    before = await _fingerprint(game)
    r = await axis.order("roll", ROLL)
    await _rejected(game, r, 409, "game/paused", before)
    assert (await game.state())["awaiting"] == []
    assert (await game.admin("resume", {"reason": "back"})).status_code == 200
    assert (await axis.order("roll", ROLL)).status_code == 201


async def test_dry_run_validates_and_previews_without_changing_anything(game: Game) -> None:
    axis = game.players["axis"]
    before = await _fingerprint(game)
    envelope = axis.envelope("done", {}, await axis.position())
    r = await game.client.post(f"/v1/games/{game.id}/orders", params={"dry_run": "true"},
                               json=envelope, headers=axis.headers)
    assert r.status_code == 200, r.text
    assert r.json()["valid"] is True
    assert [e["kind"] for e in r.json()["events"]][0] == "side.done"
    assert await _fingerprint(game) == before
    bad = axis.envelope("roll", {"dice": "maybe"}, await axis.position())
    r = await game.client.post(f"/v1/games/{game.id}/orders", params={"dry_run": "true"},
                               json=bad, headers=axis.headers)
    assert r.status_code == 422
    # The real order afterwards may use the seq the dry run carried: nothing was stored.
    real = await game.client.post(f"/v1/games/{game.id}/orders", json=envelope,
                                  headers=axis.headers)
    assert real.status_code == 201


async def test_dry_run_never_shows_a_die(game: Game) -> None:
    axis = game.players["axis"]
    envelope = axis.envelope("roll", ROLL, await axis.position())
    r = await game.client.post(f"/v1/games/{game.id}/orders", params={"dry_run": "true"},
                               json=envelope, headers=axis.headers)
    assert r.status_code == 200
    assert r.json()["rolls_dice"] is True and r.json()["events"] == []
