"""Standing orders and `steps` orders through the API (issue 20): they are signed orders,
so an export proves the player armed them and `verify` replays every answer they gave
byte for byte; a reroll answer a standing order gives is as sealed as a signed one
(salted by the referee, the salt recorded in the command that caused the answer,
withheld from other sides with the answer until the window closes), and so is the
arming of a reroll standing order."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
from gm_support import summary
from support import SIDES, Game, full_game, start_impulses

from service.crypto.canonical import canonical_bytes
from service.verify import verify_export


async def _export(game: Game, headers: dict[str, str]) -> dict[str, Any]:
    r = await game.client.get(f"/v1/games/{game.id}/export", headers=headers)
    assert r.status_code == 200, r.text
    body: dict[str, Any] = r.json()
    return body


def _kinds(export: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for e in export["events"] if e["kind"] == kind]


# long: two turns played mostly by standing orders and steps orders, then both exports.
async def test_an_export_with_standing_orders_and_steps_verifies_offline(
    client: httpx.AsyncClient, tmp_path: Path,
) -> None:
    """Every side arms standing orders (the reroll, its final reorganization) and plays
    its impulses with `steps` orders; the GM's export replays every command, each
    standing answer included, and a player's export verifies too once no window is
    open."""
    game = await create_short_game(client)
    players = game.players
    for side in SIDES:
        await players[side].ok("standing", {"step": "final_reorganization",
                                            "stops": [{"kind": "hq_out_of_supply"}]})
    await players["allies"].ok("standing", {"step": "initiative.reroll", "demand": False})
    await start_impulses(game)
    await players["communists"].ok("standing", {"step": "initiative.reroll",
                                                "stops": [{"kind": "initiative_close",
                                                           "within": 0}]})
    for _ in range(60):
        s = await summary(game)
        if s["turn"] > 2:
            break
        entry = s["awaiting"][0]
        player = players[entry["side"]]
        if entry["step"] == "declare":
            await player.ok("steps", {"orders": [{"kind": "declare", "body": {"actions": {
                p: "land" for p in entry["powers"]}}}], "through": "reorganization"})
        elif entry["step"] == "production":
            await player.ok("production", {"powers": {p: {"bp_spent": 10, "bp_on_rps": 0}
                                                      for p in entry["powers"]}})
        elif entry["step"] in ("initiative.reroll", "initiative.choose"):
            await start_impulses(game)
        else:
            await player.ok("done")
    assert (await game.admin("end", {"reason": "two turns"})).status_code == 200
    export = await _export(game, game.gm)
    report = verify_export(export)
    assert report.ok, report.text()
    saved = tmp_path / "export.json"
    saved.write_text(json.dumps(export))
    offline = subprocess.run([sys.executable, "-m", "service", "verify", str(saved)],
                             capture_output=True, text=True)
    assert offline.returncode == 0, offline.stdout + offline.stderr
    assert "0 await" in next(c for c in report.checks if c.name == "replay").detail
    answered = _kinds(export, "standing.answered")
    kinds = {(e["data"]["kind"], e["data"]["step"]) for e in answered}
    assert {("standing", "final_reorganization"), ("standing", "initiative.reroll"),
            ("steps", "reorganization")} <= kinds
    orders = {(o["order"]["player"], o["order"]["seq"]): o["order"] for o in export["orders"]}
    for event in answered:  # each answer names a signed order of its player
        order = orders[(event["data"]["player"], event["data"]["seq"])]
        assert order["kind"] in ("standing", "steps")
    salted = [c for c in export["commands"] if "standing_salts" in c["extra"]]
    assert salted and all(len(salt) == 64 for c in salted
                          for salt in c["extra"]["standing_salts"].values())
    mine = await _export(game, players["axis"].headers)
    assert mine["complete"] and verify_export(mine).ok, verify_export(mine).text()


async def create_short_game(client: httpx.AsyncClient,
                            script: dict[str, list[int]] | None = None) -> Game:
    """A game of the mini scenario whose turns end after an impulse or two: fair dice,
    or scripted (`script`) where a test needs the initiative boxes known (turn 1's dice
    8/4/2 and a turn-end die of 10 leave the Allies on a reroll box in turn 2; seed 002
    Initiative Track)."""
    dice = {"mode": "scripted", "script": script} if script else {"mode": "fair"}
    return await full_game(client, dice=dice, options={"turn_end": {"threshold": 1}})


# long: one window followed from every side's export, while open and once closed.
async def test_a_standing_reroll_answer_is_as_sealed_as_a_signed_one(
    client: httpx.AsyncClient,
) -> None:
    """The Allies arm a reroll standing order in turn 1 (after their window): the arming
    is withheld from the other sides; in turn 2 the order answers inside the command
    that opens the window, salted by the referee. While the window is open another
    side's export hides the arming, the answer and the salt (no guess reproduces the
    hash); once it closes everything is shown and that export verifies."""
    game = await create_short_game(client, {"initiative": [8, 4, 2, 3, 3, 9],
                                              "turn_end": [10] * 20})
    axis, allies = game.players["axis"], game.players["allies"]
    await start_impulses(game)
    await allies.ok("standing", {"step": "initiative.reroll", "demand": True})
    early = await _export(game, axis.headers)
    [armed] = _kinds(early, "standing.armed")
    assert armed["data"] == {"side": "allies", "sealed": True} and not early["complete"]
    [order] = [o for o in early["orders"] if o["order"]["kind"] == "standing"]
    assert order["order"]["body"] == {"sealed": True}
    for _ in range(40):
        s = await summary(game)
        if s["position"]["step"] == "initiative.reroll":
            break
        entry = s["awaiting"][0]
        player = game.players[entry["side"]]
        if entry["step"] == "declare":
            await player.ok("declare", {"actions": {p: "pass" for p in entry["powers"]}})
        elif entry["step"] == "production":
            await player.ok("production", {"powers": {p: {"bp_spent": 10, "bp_on_rps": 0}
                                                      for p in entry["powers"]}})
        else:
            await player.ok("done")
    assert s["turn"] == 2 and "allies" not in [a["side"] for a in s["awaiting"]]
    gm_view = await _export(game, game.gm)
    [answer] = [e for e in _kinds(gm_view, "initiative.reroll_answered") if e["turn"] == 2]
    opener = next(c for c in gm_view["commands"] if "standing_salts" in c["extra"])
    assert answer["data"]["salt"] == opener["extra"]["standing_salts"]["allies"]
    assert answer["data"]["demand"] is True

    during = await _export(game, axis.headers)
    assert not during["complete"]
    [hidden] = [e for e in _kinds(during, "initiative.reroll_answered") if e["turn"] == 2]
    assert hidden["data"] == {"side": "allies", "sealed": True}
    shown = next(c for c in during["commands"] if c["first_event"] == opener["first_event"])
    assert "standing_salts" not in shown["extra"]
    previous = next(e["hash"] for e in during["events"] if e["seq"] == hidden["seq"] - 1)
    for demand in (True, False):
        guess = {k: v for k, v in hidden.items() if k not in ("hash", "sealed")}
        guess["data"] = {"side": "allies", "demand": demand, "salt": ""}
        guess["text"] = "allies answered the reroll window (sealed)."
        digest = hashlib.sha256(previous.encode() + canonical_bytes(guess)).hexdigest()
        assert digest != hidden["hash"]

    for side in SIDES:
        if any(a["side"] == side for a in (await summary(game))["awaiting"]):
            await game.players[side].ok("initiative.reroll", {"demand": False})
    after = await _export(game, axis.headers)
    assert after["complete"], "the window closed"
    report = verify_export(after)
    assert report.ok, report.text()


async def test_a_dry_run_of_a_reroll_standing_order_shows_nothing(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    allies = game.players["allies"]
    envelope = allies.envelope("standing", {"step": "initiative.reroll", "demand": True},
                               await allies.position())
    r = await client.post(f"/v1/games/{game.id}/orders", params={"dry_run": "true"},
                          json=envelope, headers=allies.headers)
    assert r.status_code == 200, r.text
    assert r.json()["sealed"] is True and r.json()["events"] == []


async def test_the_state_view_shows_a_side_its_own_standing_orders_only(
    client: httpx.AsyncClient,
) -> None:
    game = await full_game(client)
    await start_impulses(game)
    allies, axis = game.players["allies"], game.players["axis"]
    await allies.ok("standing", {"step": "reaction", "stops": [{"kind": "unit_attacked"}]})
    mine = (await game.state(allies))["standing"]
    assert mine["orders"] == [{"side": "allies", "step": "reaction", "player": allies.id,
                               "seq": allies.seq, "stops": [{"kind": "unit_attacked"}]}]
    assert (await game.state(axis))["standing"] == {"orders": [], "held": []}
    assert len((await game.state())["standing"]["orders"]) == 1  # the GM sees every side's
