"""Offline verification of an export (no database, no server): that the game is what
the rules make of its signed commands and its dice, so that nobody has to trust the
host (docs/security.md).

The checks, each reported: the hash chain; the events marked rolled back; every
command's signature (players' orders with the key the player had then, joins with the
key they register, GM acts with the GM's key) and every order's `prev`; the orders
listed against the commands (none missing); the dice seeds against their chains; and
the replay: every command is decided again by the rules, with dice recomputed from the
revealed seeds, and each resulting event must equal the exported one byte for byte,
every exported event coming from some command. With `--receipts`, the server's signed
receipts are checked against the export: an accepted order that is missing or altered
is proven.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from service.answers import Export
from service.crypto import chain, identity, signing
from service.crypto import dice as crypto_dice
from service.crypto.canonical import canonical_bytes, sha256_hex
from service.rules import Actor, Command, RulesError, Setup, State, decide, initial_state
from service.rules.codec import to_data
from service.rules.dice import Roll
from service.rules.scenario import parse_scenario
from service.rules.state import Chain
from service.rules.view import Viewer, view

FORMAT = "wif-referee-export/2"


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


def _problems(name: str, problems: list[str], done: str, report: Report) -> None:
    report.add(name, not problems, done + (f"; {'; '.join(problems[:5])}" if problems else ""))


# --------------------------------------------------------------------------- the chain


def _chain(export: Export, report: Report) -> None:
    events = export["events"]
    broken = chain.verify_chain(export["game"]["id"], events)
    report.add("hash chain", broken is None,
               f"{len(events)} events" if broken is None
               else f"event seq {events[broken].get('seq')} does not chain")


def _rollback_marks(export: Export, report: Report) -> None:
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
        problems.append("events marked rolled back do not match the rollbacks: "
                        f"{sorted(marked ^ abandoned)[:5]}")
    if rollbacks or marked:
        _problems("rollback marks", problems,
                  f"{rollbacks} rollback(s), {len(abandoned)} events rolled back", report)


# --------------------------------------------------------------------------- signatures


def _key_for(player: Mapping[str, Any], first_event: int, at: str,
             problems: list[str]) -> str | None:
    """The key `player` signed with for a command whose first event is `first_event`,
    applied at `at`: the newest key bound before it, if it was in force."""
    keys = player.get("keys") or [{"public_key": player["public_key"], "from_seq": 0}]
    valid = [k for k in keys if int(k["from_seq"]) < first_event]
    if not valid:
        return None
    key = valid[-1]
    effective = key.get("effective_at")
    if isinstance(effective, str) and datetime.fromisoformat(effective) > \
            datetime.fromisoformat(at):
        problems.append(f"{player['id']} ordered at {at} with a key in force only from "
                        f"{effective}")
    return str(key["public_key"])


def _key_history(export: Export, problems: list[str]) -> None:
    """A player's id is its first key's; a key bound with consent was consented to by the
    key before it."""
    for p in export["players"]:
        keys = p.get("keys") or [{"public_key": p["public_key"], "from_seq": 0}]
        if identity.player_id_of(keys[0]["public_key"]) != p["id"]:
            problems.append(f"player {p['id']} is not the id of its first key")
        for before, after in zip(keys, keys[1:], strict=False):
            consent = after.get("consent")
            if consent and not signing.verify(
                    before["public_key"], identity.signing_bytes(identity.consent_object(
                        export["game"]["id"], p["id"], after["public_key"])), consent):
                problems.append(f"{p['id']}: the consent to key {after['public_key'][:12]}... "
                                "does not verify")


def _signatures(export: Export, report: Report) -> None:
    """Every command with a signature verifies with the key that was the signer's then;
    players' orders and joins must be signed, and so must the GM's acts when the game
    has a GM key; every order's `prev` is an event before it."""
    players = {p["id"]: p for p in export["players"]}
    gm_key = export["game"].get("gm_public_key")
    hashes = {e["hash"]: int(e["seq"]) for e in export["events"]}
    problems: list[str] = []
    _key_history(export, problems)
    signed = unsigned_gm = 0
    for c in export["commands"]:
        first, actor, envelope = int(c["first_event"]), c["actor"], c.get("signed")
        where = f"command at {first} ({c['kind']})"
        if c["kind"] in ("admin.replace_key", "seat.new_key") and c["body"].get("consented"):
            problems += _consent_problems(where, export, players, c)
        if envelope is None:
            if actor["role"] == "player" or c["kind"].startswith("seat."):
                problems.append(f"{where}: a player's command without a signature")
            elif actor["role"] == "gm" and c["kind"] != "game.create":
                unsigned_gm += 1
                if gm_key:
                    problems.append(f"{where}: an unsigned GM act in a game with a GM key")
            if c["trigger"]:
                problems.append(f"{where}: a trigger without a signature")
            continue
        if envelope.get("sealed"):
            continue
        signed += 1
        if c["trigger"] != crypto_dice.trigger_of(envelope["signature"]):
            problems.append(f"{where}: its trigger is not its signature's")
        if "join" in envelope:
            problems += _join_problems(where, c, envelope)
            continue
        if "consent" in envelope:  # a player's own new key: its old key's consent
            if c["kind"] != "seat.new_key" or envelope["signature"] != c["body"].get("consent"):
                problems.append(f"{where}: a consent for no key of its own")
            continue
        order = envelope["order"]
        problems += _as_signed(where, c, order)
        if order["player"] == identity.GM:
            key = gm_key
        else:
            player = players.get(order["player"])
            key = None if player is None else _key_for(player, first, c["at"], problems)
            if actor["id"] != order["player"]:
                problems.append(f"{where}: applied for another player than the signer")
        if key is None or not signing.verify(key, signing.order_signing_bytes(order),
                                             envelope["signature"]):
            problems.append(f"{where}: the signature of {order['player']}#{order['seq']} "
                            "does not verify")
        if hashes.get(order.get("prev", ""), first) >= first:
            problems.append(f"{where}: its prev is no event before it (a forked history?)")
    _problems("signatures", problems, f"{signed} signed commands" + (
        f", {unsigned_gm} unsigned GM acts (this game has no GM key: they rest on the "
        "host's word)" if unsigned_gm else ""), report)


def _as_signed(where: str, c: Mapping[str, Any], order: Mapping[str, Any]) -> list[str]:
    """The command is what its signed order says: kind, body (a GM act's command may add
    what the referee derived, a consent checked), position, and the seq its answers
    name (issue 20)."""
    body = order.get("body") or {}
    same = body == c["body"] if order["player"] != identity.GM else all(
        c["body"].get(k) == v for k, v in body.items())
    out = []
    if order.get("kind") != c["kind"] or not same or (
            [order.get("turn"), order.get("impulse"), order.get("step")] != c["position"]):
        out.append(f"{where}: not what its signed order says")
    named = (c.get("extra") or {}).get("seq")
    if named is not None and named != order.get("seq"):
        out.append(f"{where}: its answers name seq {named}, its order is {order.get('seq')}")
    return out


def _consent_problems(where: str, export: Mapping[str, Any],
                      players: Mapping[str, Any], c: Mapping[str, Any]) -> list[str]:
    """A key bound "with the player's consent" has a consent its old key signed."""
    body = c["body"]
    player = players.get(body.get("player_id"))
    if player is None:
        return [f"{where}: no such player"]
    old = _key_for(player, int(c["first_event"]), c["at"], [])
    consent = body.get("consent")
    ok = isinstance(consent, str) and old is not None and signing.verify(
        old, identity.signing_bytes(identity.consent_object(
            export["game"]["id"], player["id"], body.get("public_key", ""))), consent)
    return [] if ok else [f"{where}: a key bound \"with consent\" that the old key never gave"]


def _join_problems(where: str, c: Mapping[str, Any], envelope: Mapping[str, Any]) -> list[str]:
    join = envelope["join"]
    body = c["body"]
    out = []
    if not signing.verify(join["public_key"], identity.signing_bytes(join),
                          envelope["signature"]):
        out.append(f"{where}: the join's signature does not verify")
    if identity.player_id_of(join["public_key"]) != body.get("player_id") or \
            join.get("side") != body.get("side") or join.get("name") != body.get("name"):
        out.append(f"{where}: not the join it says (id, side or name)")
    return out


def _orders(export: Export, report: Report) -> None:
    """The orders listed are exactly the signed orders among the commands."""
    listed = {(o["order"]["player"], o["order"]["seq"]): o for o in export["orders"]}
    applied = {(c["signed"]["order"]["player"], c["signed"]["order"]["seq"]): c
               for c in export["commands"] if c.get("signed") and "order" in c["signed"]}
    problems = [f"order {p}#{s} was applied but is missing from the orders"
                for (p, s) in applied if (p, s) not in listed]
    problems += [f"order {p}#{s} is listed but no command applied it"
                 for (p, s) in listed if (p, s) not in applied]
    for key, c in applied.items():
        o = listed.get(key)
        if o is None:
            continue
        if o.get("first_event") != c["first_event"]:
            problems.append(f"order {key[0]}#{key[1]}: its first event is not the command's")
        if {"order": o["order"], "signature": o["signature"]} != {
                "order": c["signed"]["order"], "signature": c["signed"]["signature"]}:
            problems.append(f"order {key[0]}#{key[1]}: listed otherwise than it was applied")
    _problems("orders", problems, f"{len(listed)} orders, each applied once", report)


# --------------------------------------------------------------------------- dice


@dataclass
class _Seeds:
    """What the export proves of the dice: the chains and every seed known (revealed,
    or hashed down from a later seed of the same chain)."""

    chains: dict[int, Chain] = field(default_factory=dict)
    known: dict[tuple[int, int], bytes] = field(default_factory=dict)  # (chain, turn)
    problems: list[str] = field(default_factory=list)


def _seeds(export: Export) -> _Seeds:
    out = _Seeds()
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


class _VerifierDice:
    """The rules' dice for the replay: seeds from the export's reveals; rolls whose seed
    is not yet revealed (the current turn) take the logged values, and are counted."""

    def __init__(self, export: Export, seeds: _Seeds) -> None:
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


def _dice(export: Export, seeds: _Seeds, report: Report) -> None:
    revealed = sum(1 for e in export["events"] if e["kind"] == "dice.revealed")
    _problems("dice seeds", seeds.problems, f"{len(seeds.chains)} chain(s), {revealed} "
              f"seed(s) revealed, each hashing to its chain's anchor", report)
    for turn, seed_hex in export.get("revealed_seeds", {}).items():
        found = [e for e in export["events"] if e["kind"] == "dice.revealed"
                 and int(e["data"]["turn"]) == int(turn)]
        if not found or found[-1]["data"]["seed"] != seed_hex:
            report.add("dice seeds", False, f"turn {turn}: the exported seed is not the one "
                       "revealed in the log")


# --------------------------------------------------------------------------- replay


def _command(c: Mapping[str, Any], extra: Mapping[str, Any]) -> Command:
    actor = c["actor"]
    return Command(kind=c["kind"], body=c["body"], at=c["at"], extra=extra,
                   actor=Actor(id=actor["id"], role=actor["role"], side=actor.get("side"),
                               powers=tuple(actor.get("powers") or ())),
                   position=tuple(c["position"]) if c["position"] else None,
                   trigger=c["trigger"])


def _plain(record: Mapping[str, Any]) -> bytes:
    return canonical_bytes({k: v for k, v in record.items() if k not in ("hash",
                                                                          "rolled_back")})


def _first_difference(a: object, b: object, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return _first_difference(a.get(key), b.get(key), f"{path}/{key}")
    return f"{path or '/'}: {json.dumps(b)[:80]} exported, {json.dumps(a)[:80]} by the rules"


# long: the replay walks every command in order, deciding it again and comparing each event.
def _replay(export: Export, seeds: _Seeds, report: Report) -> None:
    """Decide every command again and compare what the rules make of it with the log."""
    if not export.get("complete", True):
        report.add("replay", True, "skipped: sealed decisions are withheld from this export")
        return
    scenario = parse_scenario(export["scenario"])
    setup = Setup(game_id=export["game"]["id"], scenario=scenario, options=export["options"],
                  dice_mode=export["dice"]["mode"])
    events = {int(e["seq"]): e for e in export["events"]}
    commands = sorted(export["commands"], key=lambda c: int(c["first_event"]))
    targets = {int(c["extra"]["rollback"]["to_seq"]) for c in commands
               if isinstance(c.get("extra", {}).get("rollback"), Mapping)}
    dice = _VerifierDice(export, seeds)
    state: State = initial_state(setup)
    at_seq: dict[int, State] = {}
    seq = 0
    problems: list[str] = []
    for c in commands:
        first = int(c["first_event"])
        if first != seq + 1:
            problems.append(f"events {seq + 1}-{first - 1} were made by no command")
            break
        extra = dict(c.get("extra") or {})
        if isinstance(extra.get("rollback"), Mapping):
            target = at_seq.get(int(extra["rollback"]["to_seq"]))
            extra["rollback"] = {**extra["rollback"],
                                 "restore": None if target is None else to_data(target)}
        try:
            decision = decide(state, _command(c, extra), dice)
        except RulesError as refusal:
            problems.append(f"command at {first} ({c['kind']}): the rules refuse it: "
                            f"{refusal.message}")
            break
        for event, after in zip(decision.events, decision.states, strict=True):
            seq += 1
            exported = events.get(seq)
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
        state = decision.state
    if not problems and seq != len(events):
        problems.append(f"events {seq + 1}-{len(events)} were made by no command")
    if not problems and export.get("state") is not None:
        me = export["state"].get("me", {})
        viewer = Viewer(role=me.get("role", "gm"), player_id=me.get("player_id"),
                        side=me.get("side"), powers=tuple(me.get("powers") or ()))
        if json.loads(json.dumps(view(state, viewer))) != export["state"]:
            problems.append("the replayed state differs from the exported state")
    _problems("replay", problems, f"{len(commands)} commands decided again give the "
              f"{len(events)} events exactly; {dice.recomputed} rolls recomputed from "
              f"revealed seeds, {dice.trusted} await their seed's reveal", report)


# --------------------------------------------------------------------------- receipts


def _receipts(export: Export, receipts: Iterable[Mapping[str, Any]],
              report: Report) -> None:
    """Each receipt is the server's; each order it says the server accepted is in the
    export, unaltered, where the receipt put it in the chain."""
    keys = {k["id"]: k["public_key"] for k in export.get("server_keys", ())}
    orders = {(o["order"]["player"], o["order"]["seq"]): o for o in export["orders"]}
    hashes = {int(e["seq"]): e["hash"] for e in export["events"]}
    problems: list[str] = []
    count = 0
    for signed in receipts:
        count += 1
        r = signed["receipt"]
        key = keys.get(r.get("key"))
        if key is None or not signing.verify(key, identity.signing_bytes(r),
                                             signed["signature"]):
            problems.append(f"receipt {r.get('player')}#{r.get('seq')}: not signed by a key "
                            "of this server")
            continue
        if r.get("game") != export["game"]["id"] or r.get("result") != "accepted":
            continue
        order = orders.get((r["player"], r["seq"]))
        if order is None:
            problems.append(f"order {r['player']}#{r['seq']}: the server accepted it (signed "
                            "receipt) but the export drops it")
        elif sha256_hex(canonical_bytes(order["order"])) != r["order_hash"]:
            problems.append(f"order {r['player']}#{r['seq']}: the export alters it")
        head = r.get("head") or {}
        if head and hashes.get(int(head["seq"])) != head["hash"]:
            problems.append(f"order {r['player']}#{r['seq']}: the chain at event "
                            f"{head['seq']} is not the one the receipt signed")
    _problems("receipts", problems, f"{count} receipts", report)


# --------------------------------------------------------------------------- entry


def verify_export(export: Export,
                  receipts: Iterable[Mapping[str, Any]] | None = None) -> Report:
    report = Report()
    if export.get("format") != FORMAT:
        report.add("format", False, f"expected {FORMAT}, got {export.get('format')!r}")
        return report
    seeds = _Seeds()
    try:
        seeds = _seeds(export)
    except (KeyError, TypeError, ValueError) as error:
        report.add("dice seeds", False, f"malformed export: {error!r}")
    for check in (_chain, _rollback_marks, _signatures, _orders):
        try:
            check(export, report)
        except (KeyError, TypeError, ValueError) as error:
            report.add(check.__name__.strip("_"), False, f"malformed export: {error!r}")
    for seeded_check in (_dice, _replay):
        try:
            seeded_check(export, seeds, report)
        except (KeyError, TypeError, ValueError, AttributeError) as error:
            report.add(seeded_check.__name__.strip("_"), False,
                       f"malformed export: {error!r}")
    if receipts is not None:
        try:
            _receipts(export, receipts, report)
        except (KeyError, TypeError, ValueError) as error:
            report.add("receipts", False, f"malformed receipts: {error!r}")
    if export.get("dice", {}).get("mode") == "scripted":
        report.add("dice mode", True, "SCRIPTED game: dice came from the GM's script")
    return report


def _read(path: str, report: Report) -> Any:
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        report.add("read", False, f"{path}: {error}")
        return None


def verify_file(path: str, receipts_path: str | None = None) -> Report:
    report = Report()
    export = _read(path, report)
    receipts = _read(receipts_path, report) if receipts_path else None
    if not report.ok:
        return report
    if isinstance(receipts, Mapping):
        receipts = receipts.get("receipts", [])
    return verify_export(export, receipts)
