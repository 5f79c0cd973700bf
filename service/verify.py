"""Offline verification of an export (no database, no server): every order signature
(with the key the player had when the order was applied), the hash chain, the events
marked rolled back, every revealed roll against its commitment and inputs, and the
replay of the events from the scenario to the exported state (each rollback restoring
the state at the start of its impulse).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from service.crypto import chain, signing
from service.crypto import dice as crypto_dice
from service.rules import Event, Setup, State, evolve, initial_state
from service.rules.codec import to_data
from service.rules.gm import rolled_back_state
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


def _keys_of(player: dict[str, Any]) -> list[tuple[int, str]]:
    keys = player.get("keys") or [{"public_key": player["public_key"], "from_seq": 0}]
    return sorted((int(k["from_seq"]), str(k["public_key"])) for k in keys)


def _signatures(export: dict[str, Any], report: Report) -> None:
    """Each order against the key its player had when it was applied: the newest key
    bound before the order's first event (the GM may replace a player's key)."""
    keys = {p["id"]: _keys_of(p) for p in export["players"]}
    bad = []
    for envelope in export["orders"]:
        order = envelope["order"]
        first = envelope.get("first_event")
        history = keys.get(order["player"], [])
        if isinstance(first, int):
            valid = [key for since, key in history if since < first]
            candidates = valid[-1:]
        else:
            candidates = [key for _, key in history]
        signed = signing.order_signing_bytes(order)
        if not any(signing.verify(key, signed, envelope["signature"]) for key in candidates):
            bad.append(f"{order['player']}#{order['seq']}")
    replaced = sum(len(k) - 1 for k in keys.values())
    report.add("signatures", not bad,
               f"{len(export['orders'])} orders"
               + (f", {replaced} replaced key(s)" if replaced else "")
               + (f"; bad: {', '.join(bad[:5])}" if bad else ""))


def _chain(export: dict[str, Any], report: Report) -> None:
    events = export["events"]
    broken = chain.verify_chain(export["game"]["id"], events)
    report.add("hash chain", broken is None,
               f"{len(events)} events" if broken is None
               else f"event seq {events[broken].get('seq')} does not chain")


def _rollback_marks(export: dict[str, Any], report: Report) -> None:
    """Every rollback names the events it abandons; exactly those are marked
    `rolled_back` (the mark is not hashed, so it is checked here)."""
    events = export["events"]
    abandoned: set[int] = set()
    problems: list[str] = []
    rollbacks = 0
    for event in events:
        if event["kind"] != "game.rolled_back":
            continue
        rollbacks += 1
        d = event["data"]
        first, last = int(d["abandons"][0]), int(d["abandons"][1])
        kept = {int(k) for k in d.get("kept", ())}
        if first != int(d["to_seq"]) + 1 or not first <= last < int(event["seq"]):
            problems.append(f"rollback at seq {event['seq']}: bad range {first}-{last}")
        abandoned.update(seq for seq in range(first, last + 1) if seq not in kept)
    marked = {int(e["seq"]) for e in events if e.get("rolled_back")}
    if marked != abandoned:
        wrong = sorted(marked ^ abandoned)
        problems.append(f"events marked rolled back do not match the rollbacks: {wrong[:5]}")
    if rollbacks or marked:
        report.add("rollback marks", not problems,
                   f"{rollbacks} rollback(s), {len(abandoned)} events rolled back"
                   + (f"; {'; '.join(problems[:5])}" if problems else ""))


# long: every dice check of the export (commitments, reveals, each roll) in log order.
def _dice(export: dict[str, Any], report: Report) -> None:
    """Each roll against the seed of the commitment its turn had when it was rolled.
    A turn may have several commitments: after a rollback past its reveal, or an import,
    the rest of the turn is rolled with a new seed (`dice.recommitted`)."""
    events = export["events"]
    game_id = export["game"]["id"]
    master_hex = export.get("dice", {}).get("master_seed")
    master = bytes.fromhex(master_hex) if master_hex else None
    problems: list[str] = []
    current: dict[int, tuple[int, str]] = {}  # turn -> (epoch, commitment)
    seeds: dict[str, bytes] = {}  # commitment -> revealed seed
    revealed_last: dict[int, str] = {}
    rolls: list[tuple[dict[str, Any], str | None]] = []
    for index, event in enumerate(events):
        kind, d = event["kind"], event["data"]
        if kind == "dice.committed":
            turn = int(d["turn"])
            current[turn] = (current.get(turn, (0, ""))[0], str(d["commitment"]))
        elif kind == "dice.recommitted":
            current[int(d["turn"])] = (int(d["epoch"]), str(d["commitment"]))
        elif kind == "dice.revealed":
            turn = int(d["turn"])
            seed = bytes.fromhex(d["seed"])
            epoch, committed = current.get(turn, (0, ""))
            revealed_last[turn] = d["seed"]
            if crypto_dice.commitment(seed) != committed:
                problems.append(f"turn {turn}: revealed seed does not match its commitment")
                continue
            seeds[committed] = seed
            if master is not None:
                expected = crypto_dice.seeded_turn_seed(master, turn) if epoch == 0 \
                    else crypto_dice.seeded_recommit_seed(master, turn, epoch)
                if expected != seed:
                    problems.append(f"turn {turn}: seed is not derived from the master seed")
        elif kind == "dice.rolled":
            previous = events[index - 1]["hash"] if index else chain.genesis_hash(game_id)
            if d["chain_hash"] != previous:
                problems.append(f"roll at seq {event['seq']}: chain hash is not the previous "
                                "event's")
            if d["source"] != "scripted":
                entry = current.get(int(d["turn"]))
                rolls.append((event, entry[1] if entry else None))
    for turn, seed_hex in export.get("revealed_seeds", {}).items():
        if revealed_last.get(int(turn)) != seed_hex:
            problems.append(f"turn {turn}: the exported seed is not the one revealed in the log")
    checked = 0
    for event, rolled_under in rolls:
        d = event["data"]
        turn_seed = seeds.get(rolled_under) if rolled_under else None
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
    """Fold the events from the scenario to the exported state; each rollback must
    restore exactly the state at the start of its impulse (with what it keeps)."""
    if not export.get("complete", True):
        report.add("replay", True, "skipped: sealed decisions are withheld from this export")
        return
    bad_rollbacks: list[str] = []
    rollbacks = 0
    try:
        scenario = parse_scenario(export["scenario"])
        setup = Setup(game_id=export["game"]["id"], scenario=scenario,
                      options=export["options"], dice_mode=export["dice"]["mode"])
        records = export["events"]
        targets = {int(e["data"]["to_seq"]) for e in records if e["kind"] == "game.rolled_back"}
        at_target: dict[int, State] = {}
        state = initial_state(setup)
        for record in records:
            event = Event.from_record(record)
            if event.kind == "game.rolled_back":
                rollbacks += 1
                target = at_target.get(int(event.data["to_seq"]))
                expected = None if target is None else to_data(
                    rolled_back_state(state, target, event.at))
                if expected != event.data["state"]:
                    bad_rollbacks.append(str(record["seq"]))
            state = evolve(state, event)
            if record["seq"] in targets:
                at_target[int(record["seq"])] = state
        replayed = json.loads(json.dumps(view(state, Viewer(role="gm"))))
    except Exception as error:  # noqa: BLE001 - a broken export is a failed check
        report.add("replay", False, f"replay failed: {type(error).__name__}: {error}")
        return
    same = replayed == export["state"]
    report.add("replay", same, "the events replay to the exported state" if same
               else "the replayed state differs from the exported state")
    if rollbacks:
        report.add("rollbacks", not bad_rollbacks,
                   f"{rollbacks} rollback(s) restore the state at the start of their impulse"
                   if not bad_rollbacks else
                   f"rollback(s) at seq {', '.join(bad_rollbacks[:5])} do not restore the "
                   "state at the start of their impulse")


def verify_export(export: dict[str, Any]) -> Report:
    report = Report()
    for check in (_signatures, _chain, _rollback_marks, _dice, _replay):
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
