"""Sealed means sealed everywhere (issue 28, item 7; docs/security.md "Sealed reroll
answers"): while the initiative reroll window is open, no read another side or a
spectator can make (summary, state, log, export, dice, the live stream) holds a
signature, trigger, salt or other material from which an answer, signed or armed ahead
in a standing order, can be recovered; only the events' hashes, salted commitments
that the reveal opens. A side's export is then partially verified, never verified.
When the window closes the stream sends the answers again, whole (issue 32, item 8),
their hashes are the ones shown before, and the export verifies in full."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from support import Game, full_game

from service.crypto import chain, signing
from service.crypto.dice import trigger_of
from service.verify import PARTIAL, VERIFIED, verify_export

SIGNATURE = re.compile(r"[A-Za-z0-9_-]{86}")


@pytest.fixture
async def live(live_url: str) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=live_url) as c:
        yield c


async def _stream(client: httpx.AsyncClient, game: str, headers: dict[str, str], *,
                  until: str, after: int = 0, head: int = 0,
                  reached: asyncio.Event | None = None) -> list[dict[str, Any]]:
    """SSE messages (event name, data) until one of kind `until` and what follows it in
    the same burst, bounded in time; `reached` is set once event `head` has come."""
    got: list[dict[str, Any]] = []
    seen_until = False
    fields: dict[str, str] = {}
    async with client.stream("GET", f"/v1/games/{game}/stream", params={"after": after},
                             headers=headers, timeout=20) as response:
        assert response.status_code == 200
        lines = response.aiter_lines()
        while True:
            try:
                line = await asyncio.wait_for(anext(lines), 2 if seen_until else 20)
            except TimeoutError:
                return got
            if line == "":
                if "data" in fields:
                    got.append({"event": fields["event"], "id": fields.get("id"),
                                "data": json.loads(fields["data"])})
                    if reached is not None and int(fields.get("id") or 0) >= head:
                        reached.set()
                    seen_until = seen_until or fields["event"] == until
                fields = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                fields[key] = value.removeprefix(" ")


async def _reads(game: Game, headers: dict[str, str]) -> dict[str, Any]:
    """Every read a member can make of the game (the stream apart)."""
    out: dict[str, Any] = {}
    for name, path in (("summary", ""), ("state", "/state"), ("log", "/log"),
                       ("dice", "/dice"), ("export", "/export")):
        r = await game.client.get(f"/v1/games/{game.id}{path}", headers=headers)
        assert r.status_code == 200, (name, r.text)
        out[name] = r.json()
    return out


def _recoverable(text: str, sealed_orders: list[dict[str, Any]],
                 keys: dict[str, str]) -> list[str]:
    """The attack of issue 28, item 7: every signature-shaped string of the reads
    checked against every body a sealed order could have, with its signer's key."""
    found = []
    for order in sealed_orders:
        bodies = ([{"demand": d} for d in (True, False)] if order["kind"] == "initiative.reroll"
                  else [{"step": "initiative.reroll", "demand": d} for d in (True, False)])
        for body in bodies:
            message = signing.order_signing_bytes({**order, "body": body})
            found += [f"{order['player']}: {body}" for candidate in set(SIGNATURE.findall(text))
                      if signing.verify(keys[order["player"]], message, candidate)]
    return found


async def test_no_read_of_another_side_or_a_spectator_recovers_a_sealed_answer(
    live: httpx.AsyncClient,
) -> None:
    game = await full_game(live)
    axis, allies, communists = (game.players[s] for s in ("axis", "allies", "communists"))
    r = await live.post(f"/v1/games/{game.id}/admin/spectators", json={"name": "club"},
                        headers=game.gm)
    spectator = {"Authorization": f"Bearer {r.json()['token']}"}
    summary = (await live.get(f"/v1/games/{game.id}", headers=game.gm)).json()
    assert summary["position"]["step"] == "initiative.reroll"

    # The Axis answers (signed); the Communists arm a reroll standing order, which
    # answers at once. The Allies have not answered: the window stays open.
    axis_envelope = axis.envelope("initiative.reroll", {"demand": True}, await axis.position())
    r = await live.post(f"/v1/games/{game.id}/orders", json=axis_envelope, headers=axis.headers)
    assert r.status_code == 201, r.text
    arming = communists.envelope("standing", {"step": "initiative.reroll", "demand": True},
                                 await communists.position())
    r = await live.post(f"/v1/games/{game.id}/orders", json=arming, headers=communists.headers)
    assert r.status_code == 201, r.text
    secrets = [axis_envelope["signature"], arming["signature"],
               trigger_of(axis_envelope["signature"]), trigger_of(arming["signature"])]
    truth = {e["seq"]: e for e in await game.log()}  # the GM sees them whole
    sealed_kinds = ("initiative.reroll_answered", "standing.armed", "standing.answered")
    sealed_truth = [e for e in truth.values() if e["kind"] in sealed_kinds]
    secrets += [e["data"]["salt"] for e in sealed_truth if "salt" in e["data"]]
    assert len(secrets) == 7  # two signatures, their triggers, three salts (answers, arming)
    keys = {p.id: signing.public_key_text(p.key) for p in (axis, communists)}

    for who, headers in (("allies", allies.headers), ("spectator", spectator)):
        reads = await _reads(game, headers)
        stream = await _stream(live, game.id, headers, until="standing.answered")
        reads["stream"] = stream
        text = json.dumps(reads)
        assert not [s for s in secrets if s in text], who
        sealed_orders = [o["order"] for o in reads["export"]["orders"] if o.get("sealed")]
        assert len(sealed_orders) == 2, who
        assert _recoverable(text, sealed_orders, keys) == [], who
        assert reads["state"]["initiative"]["reroll_answers"] == {}
        assert all(not o.get("demand") for o in reads["state"]["standing"]["orders"])
        for event in reads["log"]["events"]:
            if event["seq"] in {e["seq"] for e in sealed_truth}:
                assert event["data"] == {"side": event["data"]["side"], "sealed": True}
                # the hash commits to the answer and its salt: without the salt, no
                # answer gives it; with it (what the reveal gives), the true one does
                whole = truth[event["seq"]]
                before = truth[event["seq"] - 1]["hash"] if event["seq"] > 1 else \
                    chain.genesis_hash(game.id)
                assert chain.event_hash(before, whole) == event["hash"]
                for demand in (True, False):
                    guess = {**whole, "data": {**whole["data"], "salt": ""}}
                    if "demand" in whole["data"]:
                        guess["data"]["demand"] = demand
                    assert chain.event_hash(before, guess) != event["hash"]

        export = reads["export"]
        report = verify_export(export)
        assert report.status == PARTIAL, report.text()
        assert report.text().splitlines()[-1].startswith("PARTIALLY verified")
        assert report.unchecked[-1].endswith("(the export withholds them)")
        assert not report.failed

    # The Allies answer: the window closes. A stream open since the first event (it
    # got the answers sealed) sends them again, whole, with their salts; their hashes
    # are the ones shown before.
    seen = {e["seq"]: e["hash"] for e in (await game.log(allies))}
    reached = asyncio.Event()
    follow = asyncio.create_task(_stream(live, game.id, allies.headers, head=max(seen),
                                         until="initiative.reroll_closed", reached=reached))
    await asyncio.wait_for(reached.wait(), 20)
    await allies.ok("initiative.reroll", {"demand": False})
    messages = await asyncio.wait_for(follow, 30)
    assert {m["id"] for m in messages if m["data"].get("sealed")} >= {
        str(e["seq"]) for e in sealed_truth}
    opened = [m["data"] for m in messages if m["event"] == "sealed.opened"]
    assert {(e["kind"], e["data"]["side"]) for e in opened} >= {
        ("initiative.reroll_answered", "axis"), ("initiative.reroll_answered", "communists"),
        ("standing.armed", "communists")}
    assert all(m["id"] is None for m in messages if m["event"] == "sealed.opened")
    log = {e["seq"]: e for e in await game.log(allies)}
    for event in opened:
        assert event == log[event["seq"]]
        previous = log[event["seq"] - 1]["hash"]
        assert chain.event_hash(previous, event) == seen[event["seq"]]  # the commitment
    answered = next(e for e in opened if e["kind"] == "initiative.reroll_answered"
                    and e["data"]["side"] == "axis")
    assert answered["data"]["demand"] is True

    export = (await live.get(f"/v1/games/{game.id}/export", headers=allies.headers)).json()
    report = verify_export(export)
    assert report.status == VERIFIED, report.text()
    assert all(export["events"][seq - 1]["hash"] == digest for seq, digest in seen.items())


async def test_a_reroll_standing_order_the_gm_arms_for_a_side_it_plays_is_sealed_too(
    live: httpx.AsyncClient,
) -> None:
    """The GM arms a reroll standing order for a side that dropped out (`admin.act` of
    kind `standing`, 11.18 answered ahead, RULES-NOTES 16): its `gm.played` event, which
    names the order's body, is sealed from the other sides and spectators as the
    `standing.armed` it makes is, salted so that its hash tells nothing, and opened
    whole when the window closes (once docs/security.md's residual risk 11)."""
    game = await full_game(live, options={"dropout": {"policy": "gm"}})
    allies, axis = game.players["allies"], game.players["axis"]
    r = await live.post(f"/v1/games/{game.id}/admin/spectators", json={"name": "club"},
                        headers=game.gm)
    spectator = {"Authorization": f"Bearer {r.json()['token']}"}
    r = await game.admin("dropout", {"side": "communists", "reason": "no news for weeks"})
    assert r.status_code == 200, r.text
    r = await game.admin("act", {"side": "communists", "kind": "standing", "reason": "asked",
                                 "body": {"step": "initiative.reroll", "demand": True}})
    assert r.status_code == 200, r.text
    played = next(e for e in r.json()["events"] if e["kind"] == "gm.played")
    assert played["data"]["body"] == {"step": "initiative.reroll", "demand": True}
    assert played["data"]["first_window"] == 1 and len(played["data"]["salt"]) == 64
    truth = {e["seq"]: e for e in await game.log()}
    assert truth[played["seq"]] == played

    for who, headers in (("allies", allies.headers), ("spectator", spectator)):
        reads = await _reads(game, headers)
        text = json.dumps(reads)
        assert played["data"]["salt"] not in text, who
        shown = next(e for e in reads["log"]["events"] if e["seq"] == played["seq"])
        assert shown["data"] == {"side": "communists", "sealed": True}, who
        assert shown["text"] == ("The GM armed a standing order for communists (sealed "
                                 "until its reroll window closes)."), who
        before = truth[played["seq"] - 1]["hash"]
        for demand in (True, False):  # without the salt no guessed body gives the hash
            guess = {**played, "data": {**played["data"], "salt": "",
                                        "body": {"step": "initiative.reroll",
                                                 "demand": demand}}}
            assert chain.event_hash(before, guess) != shown["hash"], who
        act = next(c for c in reads["export"]["commands"] if c["kind"] == "admin.act")
        assert "demand" not in json.dumps(act), who
        report = verify_export(reads["export"])
        assert report.status == PARTIAL and not report.failed, (who, report.text())

    seen = {e["seq"]: e["hash"] for e in (await game.log(allies))}
    reached = asyncio.Event()
    follow = asyncio.create_task(_stream(live, game.id, allies.headers, head=max(seen),
                                         until="initiative.reroll_closed", reached=reached))
    await asyncio.wait_for(reached.wait(), 20)
    await axis.ok("initiative.reroll", {"demand": False})
    await allies.ok("initiative.reroll", {"demand": False})
    messages = await asyncio.wait_for(follow, 30)
    opened = [m["data"] for m in messages if m["event"] == "sealed.opened"]
    assert played in opened
    log = {e["seq"]: e for e in await game.log(allies)}
    assert log[played["seq"]] == played
    export = (await live.get(f"/v1/games/{game.id}/export", headers=allies.headers)).json()
    report = verify_export(export)
    assert report.status == VERIFIED, report.text()
    assert export["events"][played["seq"] - 1]["hash"] == seen[played["seq"]]
