"""Rollback to the start of an impulse (issue 10, docs/game-master.md): a new event that
names the events it abandons; they stay in the log, readable and marked rolled back; the
state returns exactly to the impulse's snapshot; past revealed dice every other side
must consent (signed `consent` orders), and any may refuse."""

from __future__ import annotations

from typing import Any

import httpx
from gm_support import pass_impulse, start_impulses, summary
from support import SIDES, Game, full_game

from service.crypto.chain import verify_chain
from service.verify import verify_export

POSITION_KEYS = ("turn", "initiative", "powers", "units", "reorg", "eliminated", "map_edits")


def _position(state: dict[str, Any]) -> dict[str, Any]:
    """What a rollback restores: the game position (the step's clock starts again)."""
    out = {k: state[k] for k in POSITION_KEYS}
    out["turn"] = {k: v for k, v in state["turn"].items() if k != "step_started_at"}
    return out


async def _export(game: Game) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}/export", headers=game.gm)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def _consent(game: Game, side: str, agree: bool) -> httpx.Response:
    proposal = (await game.state())["rollback"]["proposal"]["number"]
    return await game.players[side].order("consent", {"proposal": proposal, "agree": agree})


async def test_rollback_without_dice_restores_the_impulse_and_keeps_the_branch_readable(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    start = await start_impulses(game)
    side = start["phasing_side"]
    before = await game.state()
    powers = start["awaiting"][0]["powers"]
    await game.players[side].ok("declare", {"actions": {powers[0]: "land", **{
        p: "pass" for p in powers[1:]}}})
    assert (await summary(game))["position"]["step"] == "action"
    head = (await game.log())[-1]["seq"]

    r = await game.admin("rollback", {"turn": 1, "impulse": 1, "reason": "wrong power"})
    assert r.status_code == 200, r.text
    event = r.json()["events"][0]
    assert event["kind"] == "game.rolled_back" and event["actor"] == "gm"
    first, last = event["data"]["abandons"]
    assert last == head and first == event["data"]["to_seq"] + 1
    after = await game.state()
    assert _position(after) == _position(before)
    assert after["awaiting"] == before["awaiting"]

    for viewer in (None, game.players["allies"]):  # the GM's log and a player's
        log = await game.log(viewer)
        assert verify_chain(game.id, log) is None
        marked = [e["seq"] for e in log if e.get("rolled_back")]
        assert marked == list(range(first, last + 1))
        declared = [e for e in log if e["kind"] == "power.declared"]
        assert declared[0]["rolled_back"] and declared[0]["data"]["action"] == "land"
    export = await _export(game)
    report = verify_export(export)
    assert report.ok, report.text()
    assert [e["seq"] for e in export["events"] if e.get("rolled_back")] \
        == list(range(first, last + 1))
    assert "rollback marks" in {c.name for c in report.checks}
    forged = {**export, "events": [dict(e, rolled_back=True) if e["seq"] == last + 1 else e
                                   for e in export["events"]]}
    assert [c.name for c in verify_export(forged).checks if not c.ok] == ["rollback marks"]

    # The game goes on from the restored impulse, and may be rolled back again.
    await pass_impulse(game)
    r = await game.admin("rollback", {"turn": 1, "impulse": 1, "reason": "again"})
    assert r.status_code == 200, r.text  # the turn-end roll passed: a proposal this time
    assert r.json()["events"][0]["kind"] == "rollback.proposed"
    r = await game.admin("rollback", {"turn": 1, "impulse": 1, "reason": "twice"})
    assert r.status_code == 409 and r.json()["code"] == "rollback/pending"
    assert (await game.admin("rollback/withdraw", {"reason": "never mind"})).status_code == 200
    assert (await summary(game))["awaiting"][0]["step"] == "declare"


async def test_rollback_past_dice_without_every_consent_is_refused(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    start = await start_impulses(game)
    first_side = start["phasing_side"]
    await pass_impulse(game)  # the turn-end roll: revealed dice
    moved_on = await game.state()
    r = await game.admin("rollback", {"turn": 1, "impulse": 1, "requested_by": first_side,
                                      "reason": "misclick"})
    assert r.status_code == 200, r.text
    proposed = r.json()["events"][0]
    assert proposed["kind"] == "rollback.proposed" and proposed["data"]["rolls"] >= 1
    others = [s for s in SIDES if s != first_side]
    s = await summary(game)
    assert s["position"]["step"] == "consent"
    assert [(a["side"], a["step"]) for a in s["awaiting"]] == [(x, "consent") for x in others]
    phasing = moved_on["turn"]["phasing_side"]
    r = await game.players[phasing].order("declare", {"actions": {"germany": "pass"}},
                                          {**s["position"], "step": "declare"})
    assert r.status_code == 409 and r.json()["code"] in ("rollback/pending", "order/stale")
    r = await _consent(game, first_side, True)
    assert r.status_code == 409  # the side that asked need not (and may not) consent
    assert (await _consent(game, others[0], True)).status_code == 201
    refused = await _consent(game, others[1], False)
    assert refused.status_code == 201, refused.text
    assert [e["kind"] for e in refused.json()["events"]] == ["rollback.refused"]
    after = await game.state()
    assert _position(after) == _position(moved_on)
    assert after["rollback"]["proposal"] is None
    assert after["awaiting"] == moved_on["awaiting"]
    assert not [e for e in await game.log() if e.get("rolled_back")]


async def test_rollback_errors_are_precise(client: httpx.AsyncClient) -> None:
    game = await full_game(client)
    await start_impulses(game)
    r = await game.admin("rollback", {"turn": 3, "impulse": 1})
    assert r.status_code == 409 and r.json()["code"] == "rollback/unknown_impulse"
    r = await game.admin("rollback", {"turn": 1, "impulse": 1})
    assert r.status_code == 409 and r.json()["code"] == "rollback/nothing_to_undo"
    r = await game.admin("rollback", {"turn": 0, "impulse": 1})
    assert r.status_code == 422
    r = await game.admin("rollback", {"turn": 1, "impulse": 1, "requested_by": "martians"})
    assert r.status_code in (409, 422)
    r = await client.post(f"/v1/games/{game.id}/admin/rollback", json={"turn": 1, "impulse": 1},
                          headers=game.players["axis"].headers)
    assert r.status_code == 403
    r = await game.players["axis"].order("consent", {"proposal": 1, "agree": True})
    assert r.status_code == 409


async def _play_to_turn_two(game: Game) -> list[dict[str, Any]]:
    """Pass impulses until the turn ends (threshold 1: each turn-end roll of 4+ ends
    it), then let the production step default; the rolls made on the way."""
    for _ in range(60):
        s = await summary(game)
        if s["turn"] == 2:
            break
        if s["position"]["step"] == "declare":
            await pass_impulse(game)
        else:
            r = await game.admin("force", {"reason": "production by default"})
            assert r.status_code == 200, r.text
    assert (await summary(game))["turn"] == 2
    return [e for e in await game.log() if e["kind"] == "dice.rolled"]


def player_powers(state: dict[str, object], player: object) -> list[str]:
    """The powers of the phasing side (the player declares for them all)."""
    awaiting = state["awaiting"]
    assert isinstance(awaiting, list)
    return list(awaiting[0]["powers"])


async def test_rollback_across_a_turn_end_with_every_consent_recommits_and_verifies(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client, options={"turn_end": {"threshold": 1}})
    await start_impulses(game)
    before = await game.state()
    rolls = await _play_to_turn_two(game)
    assert (await game.state())["dice"]["revealed"].get("1")
    r = await game.admin("rollback", {"turn": 1, "impulse": 1, "reason": "replay turn 1"})
    assert r.status_code == 200, r.text
    for side in SIDES[:-1]:
        assert (await _consent(game, side, True)).status_code == 201
    done = await _consent(game, SIDES[-1], True)
    assert done.status_code == 201, done.text
    kinds = [e["kind"] for e in done.json()["events"]]
    assert kinds[:4] == ["rollback.consented", "game.rolled_back", "dice.revealed",
                         "dice.recommitted"]  # the abandoned chain's newest seed goes out
    rolled_back = done.json()["events"][1]
    assert rolled_back["data"]["consents"] == list(SIDES)
    after = await game.state()
    assert _position(after) == _position(before)
    assert after["dice"]["commitments"]["1"] != before["dice"]["commitments"]["1"]
    assert "1" not in after["dice"]["revealed"]
    record = (await client.get(f"/v1/games/{game.id}/dice", headers=game.gm)).json()
    assert [(c["chain"], c["from_turn"]) for c in record["chains"]] == [(0, 1), (1, 1)]
    first_turn = record["turns"][0]
    marks = [(r["purpose"], r.get("rolled_back", False)) for r in first_turn["rolls"]]
    assert marks[0] == ("initiative", False)  # before the impulse: kept
    assert ("turn_end", True) in marks
    r = await game.admin("edit", {"powers": {"cw": {"chits": 1}}, "reason": "late"})
    assert r.status_code == 200  # no proposal pending any more

    # New rolls come from the new chain, triggered by new signatures.
    player = game.players[after["turn"]["phasing_side"]]
    await player.ok("declare", {"actions": {p: "land" for p in player_powers(after, player)}})
    roll = (await player.ok("roll", {"dice": "3d10", "purpose": "after the rollback"}))
    new = [e for e in roll["events"] if e["kind"] == "dice.rolled"][0]
    assert new["data"]["trigger"] not in {e["data"]["trigger"] for e in rolls}
    assert (await game.admin("end", {"reason": "verify everything"})).status_code == 200
    export = await _export(game)
    report = verify_export(export)
    assert report.ok, report.text()
    replay = next(c for c in report.checks if c.name == "replay")
    every_roll = sum(1 for e in export["events"] if e["kind"] == "dice.rolled")
    assert f"{every_roll} rolls recomputed from revealed seeds, 0 await" in replay.detail
    tampered = {**export, "events": [
        e if e["kind"] != "game.rolled_back" else {**e, "data": {**e["data"], "state": {
            **e["data"]["state"], "units": {}}}} for e in export["events"]]}
    assert "hash chain" in [c.name for c in verify_export(tampered).checks if not c.ok]
