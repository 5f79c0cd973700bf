"""Dropouts (issue 10, docs/game-master.md): per side, chosen at creation, the GM plays
the side, a substitute takes the seat by a new join code, or after N missed deadlines
in a row the side is in civil disorder: default orders at once, every step, until a
substitute joins. A game never stops because one side is gone."""

from __future__ import annotations

from typing import Any

import httpx
from gm_support import pass_impulse, start_impulses, summary, sweep
from support import SIDES, Game, Player, full_game, join_body


async def _reroll_deadline(client: httpx.AsyncClient, options: dict[str, Any]) -> Game:
    # Turn-end dice of 1 keep the turn going (seed 002: a last die of 1-3 never ends it),
    # so the impulses these tests walk through do not depend on luck.
    # Initiative 1, 10, 1: the Allies win it and choose first.
    dice = {"mode": "scripted", "script": {"turn_end": [1] * 200, "initiative": [1, 10, 1]}}
    game = await full_game(client, options=options, dice=dice)
    r = await game.admin("deadlines", {"deadlines": {"initiative.reroll": 3600},
                                       "reason": "one hour to answer"})
    assert r.status_code == 200, r.text
    return game


async def test_a_side_in_civil_disorder_plays_default_orders_until_a_substitute_joins(
    client: httpx.AsyncClient, app: object
) -> None:
    game = await _reroll_deadline(client, {"dropout": {"sides": {
        "communists": {"policy": "civil_disorder", "missed_deadlines": 1}}}})
    for side in ("axis", "allies"):
        await game.players[side].ok("initiative.reroll", {"demand": False})
    await sweep(app, 3601)  # the Communists miss the deadline: civil disorder at once
    log = await game.log(game.players["axis"])
    dropped = [e for e in log if e["kind"] == "side.dropped_out"]
    assert [(e["data"]["side"], e["data"]["policy"], e["actor"]) for e in dropped] \
        == [("communists", "civil_disorder", "clock")]
    state = await game.state()
    assert state["sides"]["communists"]["dropout"] == {
        "policy": "civil_disorder", "missed_deadlines": 1, "missed": 1, "dropped_out": True,
        "mode": "civil_disorder"}

    await start_impulses(game)
    seen_impulses = 0
    for _ in range(12):  # the game goes round: the Communists never hold it up
        s = await summary(game)
        assert all(a["side"] != "communists" for a in s["awaiting"]), s["awaiting"]
        if s["position"]["step"] != "declare":
            break
        await pass_impulse(game)
        seen_impulses += 1
    assert seen_impulses >= 3
    log = await game.log()
    played = [e for e in log if e["actor"] == "civil_disorder"]
    assert {e["data"].get("power") for e in played if e["kind"] == "power.declared"} \
        == {"ussr", "china"}
    assert all(e["data"]["action"] == "pass" for e in played if e["kind"] == "power.declared")

    communists = game.players["communists"]
    r = await game.admin(f"players/{communists.id}/reassign", {"reason": "gone for good"})
    assert r.status_code == 200, r.text
    substitute = Player(client, game.id, "communists")
    r = await client.post(f"/v1/games/{game.id}/seats/communists", json=join_body(
        game.id, "communists", r.json()["join_code"], substitute.key, "Sub", None))
    assert r.status_code == 201, r.text
    substitute.id, substitute.token = r.json()["player_id"], r.json()["token"]
    game.players["communists"] = substitute
    state = await game.state(substitute)
    assert state["sides"]["communists"]["dropout"]["dropped_out"] is False
    for _ in range(12):  # now the game waits for the substitute when it is their turn
        s = await summary(game)
        if any(a["side"] == "communists" for a in s["awaiting"]):
            break
        if s["position"]["step"] == "declare":
            await pass_impulse(game)
        else:
            assert (await game.admin("force", {"reason": "go on"})).status_code == 200
    assert any(a["side"] == "communists" for a in (await summary(game))["awaiting"])


async def test_the_gm_plays_a_side_that_dropped_out_and_it_is_logged_as_such(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client, options={"dropout": {"policy": "gm"}})
    s = await start_impulses(game)
    side = s["phasing_side"]
    powers = s["awaiting"][0]["powers"]
    order = {"side": side, "kind": "declare",
             "body": {"actions": {p: "pass" for p in powers}}, "reason": "their turn"}
    r = await game.admin("act", order)
    assert r.status_code == 409 and r.json()["code"] == "admin/side_not_dropped"
    r = await game.admin("dropout", {"side": side, "reason": "no news for weeks"})
    assert r.status_code == 200, r.text
    assert r.json()["events"][0]["data"]["policy"] == "gm"
    r = await game.admin("act", order)
    assert r.status_code == 200, r.text
    events = r.json()["events"]
    assert events[0]["kind"] == "gm.played" and events[0]["data"]["reason"] == "their turn"
    declared = [e for e in events if e["kind"] == "power.declared"]
    assert {e["actor"] for e in declared} == {"gm"}
    r = await game.admin("act", {**order, "kind": "no-such-order"})
    assert r.status_code == 422
    r = await game.admin("dropout", {"side": side, "reason": "again"})
    assert r.status_code == 409 and r.json()["code"] == "admin/already_dropped"
    r = await game.admin("dropout", {"side": side, "dropped": False, "reason": "back"})
    assert r.status_code == 200
    r = await game.admin("dropout", {"side": "martians", "reason": "?"})
    assert r.status_code == 422 and r.json()["errors"][0]["path"] == "/side"


async def test_missed_deadlines_count_in_a_row_and_reset_when_the_side_plays(
    client: httpx.AsyncClient, app: object
) -> None:
    game = await _reroll_deadline(client, {"dropout": {"policy": "substitute",
                                                       "missed_deadlines": 2}})
    await game.players["axis"].ok("initiative.reroll", {"demand": False})
    await sweep(app, 3601)
    state = await game.state()
    assert state["sides"]["allies"]["dropout"]["missed"] == 1
    assert state["sides"]["axis"]["dropout"]["missed"] == 0
    assert state["sides"]["allies"]["dropout"]["dropped_out"] is False
    allies = game.players["allies"]
    assert (await game.state())["awaiting"][0]["side"] == "allies"
    await allies.ok("initiative.choose", {"position": "first"})  # allies won, they are here
    state = await game.state()
    assert state["sides"]["allies"]["dropout"]["missed"] == 0
    assert "side.returned" in [e["kind"] for e in await game.log()]


async def test_a_rollback_needing_a_side_in_civil_disorder_is_refused(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client, options={"dropout": {"missed_deadlines": 0}})
    start = await start_impulses(game)
    await pass_impulse(game)
    gone = next(s for s in SIDES if s != start["phasing_side"])
    r = await game.admin("dropout", {"side": gone, "reason": "gone"})
    assert r.status_code == 200, r.text
    r = await game.admin("rollback", {"turn": 1, "impulse": 1, "reason": "undo"})
    assert r.status_code == 200, r.text
    kinds = [(e["kind"], e["actor"]) for e in r.json()["events"]]
    assert kinds[:2] == [("rollback.proposed", "gm"), ("rollback.refused", "civil_disorder")]
    assert (await game.state())["rollback"]["proposal"] is None


async def test_dropout_options_are_checked_at_creation(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/games", json={
        "name": "bad", "scenario": "dno-demo",
        "options": {"dropout": {"policy": "abandon", "sides": {
            "martians": {"policy": "gm"}, "axis": {"missed_deadlines": -1, "why": 1}}}}})
    assert r.status_code == 422
    paths = {e["path"] for e in r.json()["errors"]}
    assert paths == {"/options/dropout/policy", "/options/dropout/sides/martians",
                     "/options/dropout/sides/axis/missed_deadlines",
                     "/options/dropout/sides/axis/why"}
