"""What a hostile operator does to an honest export (docs/security.md, issue 28): it
holds every seed, so after editing the commands it decides them all again with the
rules, dice rolled from the seeds and the triggers it claims, and chains the new log
the way the server chains events. The forgeries of tests/api/test_forgeries.py are
made with these."""

from __future__ import annotations

import base64
import copy
import json
import os
from typing import Any, cast

from service.answers import Export
from service.crypto import chain, signing
from service.crypto import dice as crypto_dice
from service.rules import Actor, Command, Setup, decide, initial_state
from service.rules.scenario import parse_scenario
from service.rules.view import Viewer, view
from service.verify.replay import VerifierDice, seeds_of


def rechain(export: dict[str, Any]) -> dict[str, Any]:
    """Number the events again and recompute every hash, so that the chain verifies."""
    previous = chain.genesis_hash(export["game"]["id"])
    for seq, event in enumerate(export["events"], start=1):
        event["seq"] = seq
        body = {k: v for k, v in event.items() if k not in ("hash", "rolled_back")}
        previous = event["hash"] = chain.event_hash(previous, body)
    return export


def rebuild(export: dict[str, Any]) -> dict[str, Any]:
    """Decide every command of `export` again, in order, with the triggers it claims and
    the dice its revealed seeds give, and put the log that comes out in its place
    (re-chained, the orders' and commands' first events moved, the state folded again).
    Rebuilding an honest export gives it back unchanged."""
    setup = Setup(game_id=export["game"]["id"], scenario=parse_scenario(export["scenario"]),
                  options=export["options"], dice_mode=export["dice"]["mode"])
    dice = VerifierDice(cast(Export, export), seeds_of(cast(Export, export)))
    state = initial_state(setup)
    events: list[dict[str, Any]] = []
    moved: dict[int, int] = {}
    for c in sorted(export["commands"], key=lambda c: int(c["first_event"])):
        actor = c["actor"]
        command = Command(kind=c["kind"], body=c["body"], at=c["at"],
                          extra=dict(c.get("extra") or {}),
                          actor=Actor(id=actor["id"], role=actor["role"],
                                      side=actor.get("side"),
                                      powers=tuple(actor.get("powers") or ())),
                          position=tuple(c["position"]) if c["position"] else None,
                          trigger=c["trigger"] or "")
        decision = decide(state, command, dice)
        moved[int(c["first_event"])] = len(events) + 1
        c["first_event"] = len(events) + 1
        events += [e.record(len(events) + i + 1) for i, e in enumerate(decision.events)]
        state = decision.state
    for o in export["orders"]:
        if o.get("first_event") in moved:
            o["first_event"] = moved[o["first_event"]]
    export["events"] = events
    export["state"] = json.loads(json.dumps(view(state, Viewer(role="gm"))))
    export["revealed_seeds"] = {str(k): v for k, v in state.dice.revealed.items()}
    return rechain(export)


def random_signature() -> str:
    """64 random bytes, base64url: what a forger puts where a signature was."""
    return base64.urlsafe_b64encode(os.urandom(64)).rstrip(b"=").decode()


def signed_order(key: Any, order: dict[str, Any]) -> dict[str, Any]:
    return {"order": order, "signature": signing.sign(key, signing.order_signing_bytes(order))}


def ground_trigger(export: dict[str, Any], roll: dict[str, Any], tries: int = 5000) -> str:
    """A trigger that makes `roll` (a `dice.rolled` event's data) come out all sixes or
    tens: the operator holds the seed and tries triggers until the dice suit it."""
    seed = bytes.fromhex(export["revealed_seeds"][str(roll["turn"])])
    for n in range(tries):
        trigger = f"{n:064x}"
        values = crypto_dice.roll_dice(seed, game_id=export["game"]["id"], turn=roll["turn"],
                                       roll_index=roll["index"], purpose=roll["purpose"],
                                       trigger=trigger, count=len(roll["values"]),
                                       faces=roll["faces"])
        if all(v == roll["faces"] for v in values):
            return trigger
    raise AssertionError("no trigger found")


def copy_of(export: dict[str, Any]) -> dict[str, Any]:
    return copy.deepcopy(export)
