"""Trust that does not rest on the operator (docs/security.md): `verify` replays the game
from its signed commands and refuses forged exports, even re-chained ones; the dice
depend on nothing the server chooses once the game exists; orders name the history
they saw; every order gets a signed receipt; a GM with a key signs every act."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest
from gm_support import pass_impulse, summary
from support import (
    AXIS_FIRST,
    SIDES,
    Game,
    answer_done_steps,
    create_game,
    full_game,
    join,
    start_impulses,
    to_action,
)

from service.crypto import chain, identity, signing
from service.referee.dice import ServerDice
from service.rules import Actor, Command, Setup, decide, initial_state
from service.rules.options import resolve_options
from service.rules.scenario import load_builtin_scenario
from service.verify import verify_export


async def _export(game: Game, headers: dict[str, str] | None = None) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}/export", headers=headers or game.gm)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _rechain(export: dict[str, Any]) -> dict[str, Any]:
    """What a forger who controls the server does after editing the log: number the
    events again and recompute every hash, so that the chain itself verifies."""
    previous = chain.genesis_hash(export["game"]["id"])
    for seq, event in enumerate(export["events"], start=1):
        event["seq"] = seq
        body = {k: v for k, v in event.items() if k not in ("hash", "rolled_back")}
        previous = event["hash"] = chain.event_hash(previous, body)
    return export


def _failed(export: dict[str, Any]) -> list[str]:
    return [c.name for c in verify_export(export).checks if not c.ok]


@pytest.fixture
async def finished(client: httpx.AsyncClient) -> dict[str, Any]:
    """A fair game played into the Axis's action step, with rolls, ended by the GM (so
    the turn's seed is revealed): its export, which verifies."""
    game = await full_game(client, dice={"mode": "fair"})
    await _reroll_no(game)
    s = await start_impulses(game)
    axis = game.players[s["phasing_side"]]
    await axis.ok("declare", {"actions": {p: "land" for p in s["awaiting"][0]["powers"]}})
    for i in range(2):
        await axis.ok("roll", {"dice": "2d10", "purpose": f"forgery base {i}"})
    assert (await game.admin("end", {"reason": "verify"})).status_code == 200
    export = await _export(game)
    assert verify_export(export).ok, verify_export(export).text()
    return export


async def _reroll_no(game: Game) -> None:
    for side in SIDES:
        s = await summary(game)
        if any(a["side"] == side and a["step"] == "initiative.reroll" for a in s["awaiting"]):
            await game.players[side].ok("initiative.reroll", {"demand": False})


def _forge_initiative(export: dict[str, Any]) -> None:
    """The lowest total made the highest (with fair dice the totals may tie: a swap of
    two equal totals would change nothing)."""
    rolled = next(e for e in export["events"] if e["kind"] == "initiative.rolled")
    totals = rolled["data"]["totals"]
    winner = max(totals, key=totals.get)
    loser = min(totals, key=totals.get)
    totals[loser] = totals[winner] + 1


def _forge_scripted(export: dict[str, Any]) -> None:
    roll = next(e for e in export["events"] if e["kind"] == "dice.rolled"
                and e["data"]["purpose"] == "roll")
    roll["data"]["source"] = "scripted"
    roll["data"]["scripted"] = len(roll["data"]["values"])
    roll["data"]["values"] = [1] * len(roll["data"]["values"])


def _forge_unsigned_answer(export: dict[str, Any]) -> None:
    """A reroll answer with no signed order behind it: its command and order removed."""
    command = next(c for c in export["commands"] if c["kind"] == "initiative.reroll")
    export["commands"].remove(command)
    order = command["signed"]["order"]
    export["orders"] = [o for o in export["orders"] if (o["order"]["player"], o["order"]["seq"])
                        != (order["player"], order["seq"])]


def _forge_dropped_order(export: dict[str, Any]) -> None:
    roll = next(o for o in export["orders"] if o["order"]["kind"] == "roll")
    export["orders"].remove(roll)


def _forge_roll_before_commitment(export: dict[str, Any]) -> None:
    events = export["events"]
    committed = next(i for i, e in enumerate(events) if e["kind"] == "dice.committed")
    roll = next(i for i, e in enumerate(events) if e["kind"] == "dice.rolled")
    events.insert(committed, events.pop(roll))


def _forge_no_reveal(export: dict[str, Any]) -> None:
    export["events"] = [e for e in export["events"] if e["kind"] != "dice.revealed"]
    export["revealed_seeds"] = {}


@pytest.mark.parametrize(("forge", "caught_by"), [
    (_forge_initiative, "replay"),
    (_forge_scripted, "replay"),
    (_forge_unsigned_answer, "replay"),
    (_forge_dropped_order, "orders"),
    (_forge_roll_before_commitment, "replay"),
    (_forge_no_reveal, "replay"),
], ids=["initiative contradicts its dice", "fair roll relabelled scripted",
        "answer with no signed order", "signed order dropped", "roll before its commitment",
        "finished turn with no reveal"])
def test_a_re_chained_forgery_is_refused(finished: dict[str, Any], forge: Any,
                                        caught_by: str) -> None:
    """Each forgery is re-chained the way the server chains events, so the hash chain
    verifies: the replay (or the orders check) catches it."""
    forged = copy.deepcopy(finished)
    forge(forged)
    _rechain(forged)
    failed = _failed(forged)
    assert "hash chain" not in failed
    assert caught_by in failed, verify_export(forged).text()


def test_a_re_drawn_seed_is_detected(finished: dict[str, Any]) -> None:
    """A seed other than the chain's (say, re-drawn for better dice, with the rolls made
    again from it) does not hash to the anchor committed when the game was made."""
    forged = copy.deepcopy(finished)
    reveal = next(e for e in forged["events"] if e["kind"] == "dice.revealed")
    reveal["data"]["seed"] = "ab" * 32
    forged["revealed_seeds"] = {str(reveal["data"]["turn"]): "ab" * 32}
    _rechain(forged)
    assert "dice seeds" in _failed(forged)


def test_no_server_chosen_input_changes_a_die() -> None:
    """The same commands with other `at` stamps and other player ids (what the server
    could choose) give the same dice: a die depends on the seed chain, fixed at creation,
    and on the trigger, the hash of the signature of the command that rolls."""
    setup = Setup(game_id="g-steer", scenario=load_builtin_scenario("dno-demo"),
                  options=resolve_options({}, 3, SIDES), dice_mode="seeded")

    def play(at: str, ids: dict[str, str]) -> list[tuple[int, ...]]:
        dice = ServerDice(game_id=setup.game_id, mode="seeded", config={"seed": "42" * 32},
                          roots={}, chains=())
        state = initial_state(setup)
        gm = Actor("gm", "gm")
        state = decide(state, Command("game.create", {"name": "x", "scenario": "dno-demo",
                                                      "dice_mode": "seeded"}, gm, at),
                       dice).state
        values = []
        for n, side in enumerate(SIDES):
            actor = Actor(ids[side], "player", side)
            body = {"side": side, "powers": None, "name": side, "player_id": ids[side]}
            decision = decide(state, Command("seat.take", body, actor, at,
                                             trigger=f"{n:064x}"), dice)
            state = decision.state
            values += [tuple(e.data["values"]) for e in decision.events
                       if e.kind == "dice.rolled"]
        return values

    first = play("2026-01-01T00:00:00+00:00", {s: f"id-{s}" for s in SIDES})
    other = play("2031-07-09T13:14:15.123456+00:00", {s: f"other-{s}" for s in SIDES})
    assert first and first == other  # turn 1's initiative roll


async def test_an_order_over_an_unknown_history_is_refused(client: httpx.AsyncClient) -> None:
    """`prev` must name an event of the game's chain: an order signed over a history the
    server did not show (a fork) is refused with the current head; an older head that
    is in the chain is fine."""
    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    position = await axis.position()
    seen = axis.head
    forked = axis.envelope("roll", {"dice": "1d6", "purpose": "fork"},
                           {**position, "prev": "ab" * 32})
    r = await client.post(f"/v1/games/{game.id}/orders", json=forked, headers=axis.headers)
    assert r.status_code == 409 and r.json()["code"] == "order/unknown_prev"
    assert r.json()["head"]["hash"] == seen
    await axis.ok("roll", {"dice": "1d6", "purpose": "moves the head on"})
    older = axis.envelope("roll", {"dice": "1d6", "purpose": "older head"},
                          {**position, "prev": seen})
    r = await client.post(f"/v1/games/{game.id}/orders", json=older, headers=axis.headers)
    assert r.status_code == 201, r.text


async def test_every_order_gets_a_receipt_signed_by_the_servers_key(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client, dice=AXIS_FIRST)
    axis = await to_action(game)
    keys = (await client.get("/v1/server-key")).json()
    current = keys["current"]
    assert current in keys["keys"] and current["retired_at"] is None
    accepted = await axis.ok("roll", {"dice": "1d6", "purpose": "receipt"})
    r = await axis.order("declare", {"actions": {"germany": "pass"}})
    assert r.status_code == 409
    refused = r.json()["receipt"]
    for signed, result in ((accepted["receipt"], "accepted"), (refused, "refused")):
        receipt = signed["receipt"]
        assert receipt["result"] == result and receipt["key"] == current["id"]
        assert receipt["game"] == game.id and receipt["player"] == axis.id
        assert signing.verify(current["public_key"], identity.signing_bytes(receipt),
                              signed["signature"])
    assert accepted["receipt"]["receipt"]["head"] == accepted["head"]
    assert refused["receipt"]["code"] == "order/wrong_step"
    export = await _export(game)
    receipts = [accepted["receipt"], refused]
    assert verify_export(export, receipts).ok
    altered = copy.deepcopy(export)
    order = next(o for o in altered["orders"] if o["order"]["seq"] == accepted["seq"]
                 and o["order"]["player"] == axis.id)
    order["order"]["body"]["purpose"] = "another"
    assert "receipts" in [c.name for c in verify_export(altered, receipts).checks if not c.ok]
    forged = copy.deepcopy(receipts)
    forged[0]["receipt"]["seq"] = 999
    assert "receipts" in [c.name for c in verify_export(export, forged).checks if not c.ok]


async def test_a_gm_with_a_key_signs_every_act(client: httpx.AsyncClient) -> None:
    gm_key = signing.new_private_key()
    game = await create_game(client, gm_key=gm_key)
    for side in SIDES:
        await join(game, side)
    r = await client.post(f"/v1/games/{game.id}/admin/pause", json={"reason": "x"},
                          headers=game.gm)
    assert r.status_code == 409 and r.json()["code"] == "admin/sign_your_acts"
    r = await game.admin("pause", {"reason": "signed"})  # a signed order of "gm"
    assert r.status_code == 201, r.text
    assert r.json()["events"][0]["kind"] == "game.paused"
    assert (await game.admin("resume", {"reason": "signed"})).status_code == 201
    stolen = signing.new_private_key()
    game.gm_key = stolen
    r = await game.admin("pause", {"reason": "not the GM's key"})
    assert r.status_code == 401 and r.json()["code"] == "order/bad_signature"
    game.gm_key = gm_key
    export = await _export(game)
    report = verify_export(export)
    assert report.ok, report.text()
    assert "unsigned GM acts" not in report.text()
    forged = copy.deepcopy(export)
    act = next(c for c in forged["commands"] if c["kind"] == "admin.pause")
    act["signed"] = None
    assert "signatures" in _failed(forged)


async def test_an_honest_ten_turn_game_with_gm_acts_rollback_and_key_replacement_verifies(
    client: httpx.AsyncClient,
) -> None:
    """Ten turns of passes and rolls, a signed GM pausing, setting deadlines, rolling an
    impulse back and binding a player's new key with its consent: the export verifies,
    every roll recomputed from the revealed seeds."""
    gm_key = signing.new_private_key()
    game = await create_game(client, options={"turn_end": {"threshold": 1}}, gm_key=gm_key)
    for side in SIDES:
        await join(game, side)
    replaced = rolled_back = False
    for _ in range(400):
        s = await summary(game)
        turn, step = s["turn"], s["position"]["step"]
        if turn > 10:
            break
        if step in ("initiative.reroll", "initiative.choose"):
            await start_impulses(game)
        elif step == "declare":
            if turn == 2 and not rolled_back:
                side, powers = s["phasing_side"], s["awaiting"][0]["powers"]
                await game.players[side].ok("declare", {"actions": {powers[0]: "land"}})
                r = await game.admin("rollback", {"turn": 2, "impulse": s["impulse"],
                                                  "reason": "wrong power"})
                assert r.status_code == 201, r.text
                rolled_back = True
                continue
            if turn == 3 and not replaced:
                allies = game.players["allies"]
                new_key = signing.new_private_key()
                new_public = signing.public_key_text(new_key)
                consent = signing.sign(allies.key, identity.signing_bytes(
                    identity.consent_object(game.id, allies.id, new_public)))
                r = await game.admin(f"players/{allies.id}/key", {
                    "public_key": new_public, "consent": consent, "reason": "new laptop"})
                assert r.status_code == 201, r.text
                allies.key, replaced = new_key, True
            if s["impulse"] % 2:
                side, powers = s["phasing_side"], s["awaiting"][0]["powers"]
                await game.players[side].ok("declare", {"actions": {p: "land" for p in powers}})
                await game.players[side].ok("roll", {"dice": "2d6", "purpose": f"t{turn}"})
                await answer_done_steps(game)
            else:
                await pass_impulse(game)
        elif step == "production":
            r = await game.admin("force", {"reason": "last turn's production"})
            assert r.status_code == 201, r.text
            if turn == 4:
                r = await game.admin("deadlines", {"deadlines": {"declare": 86400}})
                assert r.status_code == 201, r.text
        else:
            await answer_done_steps(game)
    assert (await summary(game))["turn"] == 11 and replaced and rolled_back
    assert (await game.admin("end", {"reason": "ten turns"})).status_code == 201
    export = await _export(game)
    report = verify_export(export)
    assert report.ok, report.text()
    replay = next(c for c in report.checks if c.name == "replay")
    rolls = sum(1 for e in export["events"] if e["kind"] == "dice.rolled")
    assert f"{rolls} rolls recomputed from revealed seeds, 0 await" in replay.detail
    assert "unsigned GM acts" not in report.text()
    assert sum(1 for e in export["events"] if e["kind"] == "dice.revealed") >= 10
    forged = copy.deepcopy(export)  # a consent the player never gave
    bound = next(c for c in forged["commands"] if c["kind"] == "admin.replace_key")
    bound["body"]["consent"] = bound["signed"]["order"]["body"]["consent"] = "A" * 86
    assert "signatures" in _failed(forged)
