"""The dice the export proves (seed chains, revealed seeds) and the replay: every command
decided again by the rules, each die recomputed from its turn's seed and the trigger
the command's signature gives, every event compared byte for byte."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from service.answers import Export
from service.crypto import dice as crypto_dice
from service.crypto.canonical import canonical_bytes
from service.rules import (
    RULES_VERSION,
    Actor,
    Command,
    RulesError,
    Setup,
    State,
    decide,
    initial_state,
)
from service.rules.codec import to_data
from service.rules.dice import Roll
from service.rules.scenario import parse_scenario
from service.rules.state import Chain
from service.rules.view import Viewer, view
from service.verify.record import Record, trigger_of
from service.verify.report import Report


@dataclass
class Seeds:
    """What the export proves of the dice: the chains and every seed known (revealed,
    or hashed down from a later seed of the same chain)."""

    chains: dict[int, Chain] = field(default_factory=dict)
    known: dict[tuple[int, int], bytes] = field(default_factory=dict)  # (chain, turn)
    problems: list[str] = field(default_factory=list)


def seeds_of(export: Export) -> Seeds:
    out = Seeds()
    master = export.get("dice", {}).get("master_seed")
    current: Chain | None = None
    for e in export["events"]:
        d = e["data"]
        if e["kind"] in ("dice.committed", "dice.recommitted"):
            current = Chain(int(d["chain"]), int(d["from_turn"]), str(d["anchor"]),
                            int(d["length"]))
            out.chains[current.number] = current
            if master is not None and crypto_dice.anchor(crypto_dice.seeded_root(
                    bytes.fromhex(master), current.number), current.length) != current.anchor:
                out.problems.append(f"chain {current.number} is not the master seed's")
        elif e["kind"] == "dice.revealed" and current is not None:
            turn, seed = int(d["turn"]), bytes.fromhex(d["seed"])
            owner = next((c for c in reversed(list(out.chains.values())) if c.covers(turn)),
                         None)
            if owner is None:
                out.problems.append(f"turn {turn}: a seed revealed outside every chain")
                continue
            for t in range(turn, owner.from_turn - 1, -1):  # down the chain to its anchor
                out.known.setdefault((owner.number, t), seed)
                seed = hashlib.sha256(seed).digest()
            if seed.hex() != owner.anchor:
                out.problems.append(f"turn {turn}: the revealed seed does not hash to chain "
                                    f"{owner.number}'s anchor")
    return out


class VerifierDice:
    """The rules' dice for the replay: seeds from the export's reveals; rolls whose seed
    is not yet revealed (the current turn) take the logged values, and are counted."""

    def __init__(self, export: Export, seeds: Seeds) -> None:
        self.game_id = export["game"]["id"]
        self.mode = export["dice"]["mode"]
        self.script = export["dice"].get("script")
        self.seeds = seeds
        self.chains: list[Chain] = []
        self.logged: dict[tuple[int, int, str, str], list[tuple[list[int], str]]] = {}
        for e in export["events"]:
            if e["kind"] == "dice.rolled":
                d = e["data"]
                key = (int(d["turn"]), int(d["index"]), str(d["purpose"]), str(d["trigger"]))
                self.logged.setdefault(key, []).append((list(d["values"]), str(d["source"])))
        self.recomputed = self.trusted = 0

    def commit(self, chain: int, from_turn: int) -> tuple[str, int]:
        found = self.seeds.chains.get(chain)
        made = found or Chain(chain, from_turn, "0" * 64, crypto_dice.CHAIN_LENGTH)
        self.chains.append(made)
        return made.anchor, made.length

    def _chain(self, turn: int) -> Chain | None:
        return next((c for c in reversed(self.chains) if c.covers(turn)), None)

    def reveal(self, turn: int) -> str:
        chain = self._chain(turn)
        seed = None if chain is None else self.seeds.known.get((chain.number, turn))
        return "" if seed is None else seed.hex()

    def roll(self, *, turn: int, index: int, purpose: str, count: int, faces: int,
             script_position: int, trigger: str) -> Roll:
        logged = self.logged.get((turn, index, purpose, trigger)) or [([], "")]
        values, logged_source = logged.pop(0) if len(logged) > 1 else logged[0]
        if self.mode == "scripted" and logged_source == "scripted":
            script = list((self.script or {}).get(purpose, []))
            scripted = script[script_position:script_position + count]
            if len(scripted) != count:  # the script is shown when the game is over
                self.trusted += 1
                scripted = values
            return Roll(turn, index, purpose, faces, tuple(scripted), "scripted", trigger,
                        scripted=count)
        chain = self._chain(turn)
        seed = None if chain is None else self.seeds.known.get((chain.number, turn))
        source = "seeded" if self.mode == "seeded" else "fair"
        if seed is None:
            self.trusted += 1
            return Roll(turn, index, purpose, faces, tuple(values), source, trigger)
        self.recomputed += 1
        computed = crypto_dice.roll_dice(seed, game_id=self.game_id, turn=turn, roll_index=index,
                                         purpose=purpose, trigger=trigger, count=count,
                                         faces=faces)
        return Roll(turn, index, purpose, faces, tuple(computed), source, trigger)


def command_of(c: Mapping[str, Any], extra: Mapping[str, Any]) -> Command:
    """The command as the rules take it, its trigger the hash of its signature."""
    actor = c["actor"]
    return Command(kind=c["kind"], body=c["body"], at=c["at"], extra=extra,
                   actor=Actor(id=actor["id"], role=actor["role"], side=actor.get("side"),
                               powers=tuple(actor.get("powers") or ())),
                   position=tuple(c["position"]) if c["position"] else None,
                   trigger=trigger_of(c))


def _plain(record: Mapping[str, Any]) -> bytes:
    return canonical_bytes({k: v for k, v in record.items() if k not in ("hash",
                                                                          "rolled_back")})


def _first_difference(a: object, b: object, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}/{key}")
    return f"{path or '/'}: {json.dumps(b)[:80]} exported, {json.dumps(a)[:80]} by the rules"


def _sealed_from(record: Record) -> int | None:
    """The first command the replay cannot decide: one withheld, or one whose events
    include a withheld one (its salts are withheld with it)."""
    for c in record.commands:
        first = int(c["first_event"])
        if first in record.sealed_commands or any(
                seq in record.sealed_events for seq in record.spans[first]):
            return first
    return None


def other_rules(export: Export, report: Report) -> bool:
    """Whether events of another rules version than this verifier's keep the replay from
    running: the rules of one version cannot decide again what another decided (docs/
    game-master.md "Rules versions"). Versions only move on along a log: an event of an
    older version after a newer one fails."""
    versions = [str(e.get("rules_version")) for e in export["events"]]
    others = sorted({v for v in versions if v != RULES_VERSION})
    if not others:
        return False
    order = [int(v) if v.isdigit() else -1 for v in versions]
    back = next((i for i in range(1, len(order)) if order[i] < order[i - 1]), None)
    if back is not None or -1 in order:
        at = back if back is not None else order.index(-1)
        report.add("rules versions", False, f"event {at + 1} is logged under rules version "
                   f"{versions[at]!r} after events of version {versions[at - 1]!r}: no "
                   "server logs that")
        return True
    count = sum(1 for v in versions if v != RULES_VERSION)
    report.unchecked.append(
        f"replay: {count} events were decided under rules version {', '.join(others)}, and "
        f"this verifier decides under version {RULES_VERSION} only: no command is decided "
        "again (verify the export with the release whose rules decided them)")
    return True


# long: the replay walks every command in order, deciding it again and comparing each event.
def replay(export: Export, record: Record, seeds: Seeds, report: Report,
           partial: bool) -> None:
    """Decide every command again and compare what the rules make of it with the log;
    in a partial export, up to the first command it withholds (in a complete one a
    command marked sealed is decided as it stands, without the signature it lacks); not
    at all when events of another rules version are in the log (`other_rules`)."""
    if other_rules(export, report):
        return
    scenario = parse_scenario(export["scenario"])
    setup = Setup(game_id=export["game"]["id"], scenario=scenario, options=export["options"],
                  dice_mode=export["dice"]["mode"])
    commands = record.commands
    stop = _sealed_from(record) if partial else None
    targets = {int(c["extra"]["rollback"]["to_seq"]) for c in commands
               if isinstance(c.get("extra", {}).get("rollback"), Mapping)}
    dice = VerifierDice(export, seeds)
    state: State = initial_state(setup)
    at_seq: dict[int, State] = {}
    seq = 0
    decided = 0
    problems: list[str] = []
    for c in commands:
        first = int(c["first_event"])
        if first == stop:
            break
        if first != seq + 1:
            problems.append(f"events {seq + 1}-{first - 1} were made by no command")
            break
        extra = dict(c.get("extra") or {})
        if isinstance(extra.get("rollback"), Mapping):
            target = at_seq.get(int(extra["rollback"]["to_seq"]))
            extra["rollback"] = {**extra["rollback"],
                                 "restore": None if target is None else to_data(target)}
        try:
            decision = decide(state, command_of(c, extra), dice)
        except RulesError as refusal:
            problems.append(f"command at {first} ({c['kind']}): the rules refuse it: "
                            f"{refusal.message}")
            break
        for event, after in zip(decision.events, decision.states, strict=True):
            seq += 1
            exported = record.events.get(seq)
            made = event.record(seq)
            if exported is None or _plain(made) != _plain(exported):
                problems.append(f"event {seq} ({c['kind']} at {first}): " + (
                    "missing from the export" if exported is None else
                    _first_difference(json.loads(_plain(made)), json.loads(_plain(exported)))))
                break
            if seq in targets:
                at_seq[seq] = after
        if problems:
            break
        decided += 1
        state = decision.state
    if stop is not None and not problems:
        report.unchecked.append(f"replay: the {len(commands) - decided} commands from event "
                                f"{stop} on, which give or salt sealed answers, are not "
                                "decided again (the export withholds them)")
    elif not problems and seq != len(record.events):
        problems.append(f"events {seq + 1}-{len(record.events)} were made by no command")
    if not problems and stop is None and export.get("state") is not None:
        me = export["state"].get("me", {})
        viewer = Viewer(role=me.get("role", "gm"), player_id=me.get("player_id"),
                        side=me.get("side"), powers=tuple(me.get("powers") or ()))
        if json.loads(json.dumps(view(state, viewer))) != export["state"]:
            problems.append("the replayed state differs from the exported state")
    report.problems("replay", problems, f"{decided} commands decided again give their "
                    f"{seq} events exactly; {dice.recomputed} rolls recomputed from revealed "
                    f"seeds, {dice.trusted} await their seed's reveal")
