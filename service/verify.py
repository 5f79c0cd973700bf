"""Offline verification of an export (no database, no server): every order signature,
the hash chain, every revealed roll against its commitment and inputs, and the replay
of the events from the scenario to the exported state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.crypto import chain, signing
from service.crypto import dice as crypto_dice
from service.rules import Event, Setup, fold, initial_state
from service.rules.scenario import parse_scenario
from service.rules.view import Viewer, view


@dataclass
class Check:
    name: str
    ok: bool
    detail: str


@dataclass
class Report:
    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def add(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append(Check(name, ok, detail))

    def text(self) -> str:
        lines = [f"{'ok  ' if c.ok else 'FAIL'} {c.name}: {c.detail}" for c in self.checks]
        lines.append("verified" if self.ok else "verification FAILED")
        return "\n".join(lines)


def _signatures(export: dict[str, Any], report: Report) -> None:
    keys = {p["id"]: p["public_key"] for p in export["players"]}
    bad = []
    for envelope in export["orders"]:
        order = envelope["order"]
        key = keys.get(order["player"])
        if key is None or not signing.verify(key, signing.order_signing_bytes(order),
                                             envelope["signature"]):
            bad.append(f"{order['player']}#{order['seq']}")
    report.add("signatures", not bad,
               f"{len(export['orders'])} orders" + (f"; bad: {', '.join(bad[:5])}" if bad else ""))


def _chain(export: dict[str, Any], report: Report) -> None:
    events = export["events"]
    broken = chain.verify_chain(export["game"]["id"], events)
    report.add("hash chain", broken is None,
               f"{len(events)} events" if broken is None
               else f"event seq {events[broken].get('seq')} does not chain")


def _dice(export: dict[str, Any], report: Report) -> None:
    events = export["events"]
    game_id = export["game"]["id"]
    seeds = {int(t): bytes.fromhex(s) for t, s in export.get("revealed_seeds", {}).items()}
    problems: list[str] = []
    checked = 0
    commitments = {int(e["data"]["turn"]): e["data"]["commitment"] for e in events
                   if e["kind"] == "dice.committed"}
    for turn, seed in seeds.items():
        if crypto_dice.commitment(seed) != commitments.get(turn):
            problems.append(f"turn {turn}: revealed seed does not match its commitment")
    master = export.get("dice", {}).get("master_seed")
    if master:
        for turn, seed in seeds.items():
            if crypto_dice.seeded_turn_seed(bytes.fromhex(master), turn) != seed:
                problems.append(f"turn {turn}: seed is not derived from the master seed")
    for index, event in enumerate(events):
        if event["kind"] != "dice.rolled":
            continue
        d = event["data"]
        previous = events[index - 1]["hash"] if index else chain.genesis_hash(game_id)
        if d["chain_hash"] != previous:
            problems.append(f"roll at seq {event['seq']}: chain hash is not the previous event's")
        if d["source"] == "scripted":
            continue
        turn_seed = seeds.get(int(d["turn"]))
        if turn_seed is None:
            continue
        values = crypto_dice.roll_dice(turn_seed, game_id=game_id, turn=d["turn"],
                                       roll_index=d["index"], purpose=d["purpose"],
                                       chain_hash=d["chain_hash"], count=len(d["values"]),
                                       faces=d["faces"])
        checked += 1
        if list(values) != list(d["values"]):
            problems.append(f"roll at seq {event['seq']}: values {d['values']} but the seed "
                            f"gives {values}")
    report.add("dice", not problems,
               f"{checked} revealed rolls recomputed, {len(seeds)} seeds match commitments"
               + (f"; {'; '.join(problems[:5])}" if problems else ""))


def _replay(export: dict[str, Any], report: Report) -> None:
    if not export.get("complete", True):
        report.add("replay", True, "skipped: sealed decisions are withheld from this export")
        return
    try:
        scenario = parse_scenario(export["scenario"])
        setup = Setup(game_id=export["game"]["id"], scenario=scenario,
                      options=export["options"], dice_mode=export["dice"]["mode"])
        state = fold(initial_state(setup), (Event.from_record(e) for e in export["events"]))
        replayed = json.loads(json.dumps(view(state, Viewer(role="gm"))))
    except Exception as error:  # noqa: BLE001 - a broken export is a failed check
        report.add("replay", False, f"replay failed: {type(error).__name__}: {error}")
        return
    same = replayed == export["state"]
    report.add("replay", same, "the events replay to the exported state" if same
               else "the replayed state differs from the exported state")


def verify_export(export: dict[str, Any]) -> Report:
    report = Report()
    for check in (_signatures, _chain, _dice, _replay):
        try:
            check(export, report)
        except (KeyError, TypeError, ValueError) as error:
            report.add(check.__name__.strip("_"), False, f"malformed export: {error!r}")
    if export.get("dice", {}).get("mode") == "scripted":
        report.add("dice mode", True, "SCRIPTED game: dice came from the GM's script")
    return report


def verify_file(path: str) -> Report:
    try:
        export = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        report = Report()
        report.add("read", False, str(error))
        return report
    return verify_export(export)
