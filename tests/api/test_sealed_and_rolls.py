"""Hostile probes 1 and 2 (docs/security.md): sealed reroll answers leak through no view,
export, hash or dry run while the window is open; no roll uses a revealed seed, and rolls
are taken only in the steps where the rules need dice."""

from __future__ import annotations

import hashlib
from typing import Any

import httpx
from gm_support import summary
from support import SIDES, Game, full_game, start_impulses

from service.crypto.canonical import canonical_bytes


async def _export(game: Game, headers: dict[str, str]) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}/export", headers=headers)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


async def test_a_sealed_answer_leaks_through_no_export_hash_or_dry_run(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    axis, allies, communists = (game.players[s] for s in SIDES)
    assert (await summary(game))["position"]["step"] == "initiative.reroll"
    await axis.ok("initiative.reroll", {"demand": True})

    export = await _export(game, allies.headers)
    assert export["complete"] is False
    [sealed] = [o for o in export["orders"] if o["order"]["kind"] == "initiative.reroll"]
    assert sealed["order"]["body"] == {"sealed": True}
    [command] = [c for c in export["commands"] if c["kind"] == "initiative.reroll"]
    assert command["body"] == {"sealed": True} and command["extra"] == {}
    assert export["state"]["me"]["side"] == "allies"  # the viewer's view, not the GM's
    assert export["state"]["initiative"]["reroll_answers"] == {}
    [event] = [e for e in export["events"] if e["kind"] == "initiative.reroll_answered"]
    assert event["data"] == {"side": "axis", "sealed": True}

    # The hash every side sees: with the salt unknown, neither answer reproduces it.
    previous = next(e["hash"] for e in export["events"] if e["seq"] == event["seq"] - 1)
    for demand in (True, False):
        guess = {k: v for k, v in event.items() if k not in ("hash", "sealed")}
        guess["data"] = {"side": "axis", "demand": demand, "salt": ""}
        guess["text"] = "axis answered the reroll window (sealed)."
        digest = hashlib.sha256(previous.encode() + canonical_bytes(guess)).hexdigest()
        assert digest != event["hash"]

    # The last side's dry run says the answer would be taken, nothing of what follows.
    await allies.ok("initiative.reroll", {"demand": False})
    envelope = communists.envelope("initiative.reroll", {"demand": False},
                                   await communists.position())
    r = await client.post(f"/v1/games/{game.id}/orders", params={"dry_run": "true"},
                          json=envelope, headers=communists.headers)
    assert r.status_code == 200, r.text
    assert r.json() == {"valid": True, "dry_run": True, "sealed": True, "rolls_dice": False,
                        "events": [], "note": r.json()["note"]}

    # Once the window closes, the answers, the salt and the bodies are everyone's.
    await communists.ok("initiative.reroll", {"demand": False})
    export = await _export(game, allies.headers)
    [event] = [e for e in export["events"] if e["kind"] == "initiative.reroll_answered"
               and e["data"]["side"] == "axis"]
    assert event["data"]["demand"] is True and len(event["data"]["salt"]) == 64
    assert all(o["order"]["body"] != {"sealed": True} for o in export["orders"])


async def test_rolls_only_in_steps_that_need_dice(client: httpx.AsyncClient) -> None:
    """Generic rolls belong to the action, reaction, combat and exploitation steps: not
    to the initiative, a declaration, reorganization or production (whose turn's seed is
    out), and only by a side acting in the step."""
    game = await full_game(client, dice={"mode": "scripted",
                                         "script": {"initiative": [10, 1, 1],
                                                    "turn_end": [10] * 10}},
                           options={"turn_end": {"threshold": 1}})
    axis, allies = game.players["axis"], game.players["allies"]
    roll = {"dice": "1d6", "purpose": "probe"}
    r = await axis.order("roll", roll)
    assert r.status_code == 409 and r.json()["code"] == "order/wrong_step"
    s = await start_impulses(game)
    assert s["phasing_side"] == "axis"
    assert (await axis.order("roll", roll)).status_code == 409  # the declaration
    await axis.ok("declare", {"actions": {"germany": "land", "italy": "land"}})
    r = await allies.order("roll", roll)
    assert r.status_code == 409 and r.json()["code"] == "order/not_your_turn"
    await axis.ok("roll", roll)
    for _ in range(20):  # to production: the turn ends at the first turn-end roll
        s = await summary(game)
        if s["position"]["step"] == "production":
            break
        waiting = s["awaiting"][0]
        await game.players[waiting["side"]].ok("done")
    state = await game.state()
    assert state["dice"]["revealed"].get("1")  # turn 1's seed is out
    r = await axis.order("roll", roll)
    assert r.status_code == 409 and r.json()["code"] == "order/wrong_step"
