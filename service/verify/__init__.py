"""Offline verification of an export (no database, no server): that the game is what
the rules make of its signed commands and its dice, so that nobody has to trust the
host (docs/security.md).

The checks, each reported: the hash chain; the events marked rolled back; what the
export seals; every player's keys, proven from the log; every command's signature
(players' orders with the key the log says the player had then, joins with the key
they register, GM acts with the GM's key) and every order's `prev`; the orders listed
against the commands; every roll's trigger against the signature of the command that
rolled it; the dice seeds against their chains; and the replay: every command decided
again by the rules, with dice recomputed from the revealed seeds and the signatures,
each resulting event equal to the exported one byte for byte. With `--receipts`, the
server's signed receipts are checked against the export.

No flag the exporter sets switches a check off. A complete export holds every
signature: an envelope or event marked sealed in it fails. A partial export (a side's,
while a reroll window is open) is checked as far as it can be, and its verdict lists
what was not checked (`Report.unchecked`, exit status 3): it is never `verified`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from service.answers import Export
from service.crypto import chain, identity, signing
from service.crypto.canonical import canonical_bytes, sha256_hex
from service.rules.scenario import parse_scenario
from service.rules.state import Setup, with_map_edits
from service.rules.view import COMBAT_KINDS, interception_flags, reported_flags
from service.verify import keys as proven_keys
from service.verify.record import (
    SEALABLE_COMMANDS,
    SEALABLE_EVENTS,
    WINDOW_CLOSED,
    Record,
    read,
    sealed_envelope,
    trigger_of,
)
from service.verify.replay import Seeds, replay, seeds_of
from service.verify.report import FAILED, PARTIAL, VERIFIED, Check, Report

FORMAT = "wif-referee-export/2"
_HASH = re.compile(r"[0-9a-f]{64}")
__all__ = ["FAILED", "FORMAT", "PARTIAL", "VERIFIED", "Check", "Report", "verify_export",
           "verify_file"]


# --------------------------------------------------------------------------- the chain


def _chain(export: Export, record: Record, report: Report, partial: bool) -> None:
    """Every event chains to the one before it. In a partial export a sealed event's
    data is withheld: its hash is taken as given (it commits to the salted answer, and
    the complete export opens it)."""
    previous = chain.genesis_hash(export["game"]["id"])
    problems: list[str] = []
    for index, event in enumerate(export["events"]):
        seq, stored = event.get("seq"), event.get("hash")
        if seq != index + 1 or isinstance(seq, bool) or not isinstance(stored, str):
            problems.append(f"event {index + 1} is missing or out of place")
            break
        if partial and seq in record.sealed_events:
            if not _HASH.fullmatch(stored):
                problems.append(f"event seq {seq}: a sealed event's hash is no hash")
                break
        elif chain.event_hash(previous, event) != stored:
            problems.append(f"event seq {seq} does not chain")
            break
        previous = stored
    report.problems("hash chain", problems, f"{len(export['events'])} events")
    if partial and record.sealed_events:
        report.unchecked.append(f"hash chain: the {len(record.sealed_events)} sealed events "
                                f"{sorted(record.sealed_events)[:8]} are taken by their "
                                "hashes, which the reveal opens")


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
        report.problems("rollback marks", problems,
                        f"{rollbacks} rollback(s), {len(abandoned)} events rolled back")


# --------------------------------------------------------------------------- sealed


def _sealed(export: Export, record: Record, report: Report, partial: bool) -> None:
    """What the export seals. A complete export seals nothing. A partial one seals only
    answers of a reroll window still open (after the newest window closed), never a
    command that rolled dice."""
    if not record.sealed:
        return
    problems: list[str] = []
    if not partial:
        problems.append("this export says it is complete, yet it withholds "
                        f"{len(record.sealed_commands)} signed command(s), "
                        f"{record.sealed_orders} order(s) and {len(record.sealed_events)} "
                        "event(s): a complete export holds every signature")
    closed = max((seq for seq, e in record.events.items() if e["kind"] in WINDOW_CLOSED),
                 default=0)
    for seq in sorted(record.sealed_events):
        if record.events[seq]["kind"] not in SEALABLE_EVENTS or seq < closed:
            problems.append(f"event {seq} ({record.events[seq]['kind']}) is sealed, yet no "
                            "open reroll window seals it")
    for first in sorted(record.sealed_commands):
        c = record.command_of(first) or {}
        if c.get("kind") not in SEALABLE_COMMANDS or first < closed:
            problems.append(f"command at {first} ({c.get('kind')}) is sealed, yet no open "
                            "reroll window seals it")
        if any(record.events.get(s, {}).get("kind") == "dice.rolled"
               for s in record.spans.get(first, ())):
            problems.append(f"command at {first} rolled dice, yet its signature is withheld")
    report.problems("sealed", problems, f"{len(record.sealed_commands)} command(s) and "
                    f"{len(record.sealed_events)} event(s) sealed while a reroll window is "
                    "open")
    if partial:
        report.unchecked.append(f"signatures: the {len(record.sealed_commands)} sealed "
                                "commands' signatures and bodies are withheld until the "
                                "window closes")


# --------------------------------------------------------------------------- signatures


# long: one pass over the commands, each kind of signature checked where it is met.
def _signatures(export: Export, record: Record, report: Report) -> None:
    """Every command's signature verifies with the key that was the signer's then (the
    key the log proves); players' orders and joins must be signed, and so must the GM's
    acts when the game has a GM key; a command's trigger is its signature's hash; every
    order's `prev` is an event before it."""
    gm_key = export["game"].get("gm_public_key")
    hashes = {e["hash"]: int(e["seq"]) for e in export["events"]}
    problems: list[str] = []
    keys = proven_keys.proven(export, record, problems)
    proven_keys.listed(export, keys, problems)
    signed = unsigned_gm = 0
    for c in record.commands:
        first, actor, envelope = int(c["first_event"]), c["actor"], c.get("signed")
        where = f"command at {first} ({c['kind']})"
        if sealed_envelope(c):
            continue  # the sealed check says whether this export may withhold it
        if c["trigger"] and c["trigger"] != trigger_of(c):
            problems.append(f"{where}: its trigger is not its signature's hash")
        if envelope is None:
            if actor["role"] == "player" or c["kind"].startswith("seat."):
                problems.append(f"{where}: a player's command without a signature")
            elif actor["role"] == "gm" and c["kind"] not in ("game.create", "game.import"):
                unsigned_gm += 1
                if gm_key:
                    problems.append(f"{where}: an unsigned GM act in a game with a GM key")
            continue
        signed += 1
        if not c["trigger"]:
            problems.append(f"{where}: signed, but no trigger")
        if "join" in envelope:
            problems += _join_problems(where, c, envelope)
            continue
        if "consent" in envelope:  # a player's own new key: its old key's consent, which
            body = c["body"]       # the key history checks against the key before
            if c["kind"] != "seat.new_key" or envelope["signature"] != body.get("consent") \
                    or envelope["consent"] != identity.consent_object(
                        export["game"]["id"], str(body.get("player_id")),
                        str(body.get("public_key"))):
                problems.append(f"{where}: a consent for no key of its own")
            continue
        order = envelope["order"]
        problems += _as_signed(where, c, order)
        if order["player"] == identity.GM:
            key = gm_key
        else:
            key = keys.signer(str(order["player"]), first, str(c["at"]), problems)
            if actor["id"] != order["player"]:
                problems.append(f"{where}: applied for another player than the signer")
        if key is None or not signing.verify(key, signing.order_signing_bytes(order),
                                             str(envelope.get("signature"))):
            problems.append(f"{where}: the signature of {order['player']}#{order['seq']} "
                            "does not verify with the key the log proves")
        if hashes.get(order.get("prev", ""), first) >= first:
            problems.append(f"{where}: its prev is no event before it (a forked history?)")
    words = []
    if unsigned_gm:
        words.append(f"{unsigned_gm} unsigned GM acts (this game has no GM key: they rest "
                     "on the host's word)")
    if keys.on_word:
        words.append(f"keys bound without consent by an unsigned GM act for "
                     f"{', '.join(sorted(set(keys.on_word)))} (the host's word)")
    report.problems("signatures", problems, f"{signed} signed commands, "
                    f"{sum(len(k) for k in keys.of.values())} keys proven from the log"
                    + "".join(f", {w}" for w in words))


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


def _orders(export: Export, record: Record, report: Report) -> None:
    """The orders listed are exactly the signed orders among the commands."""
    listed = {(o["order"]["player"], o["order"]["seq"]): o for o in export["orders"]}
    applied = {(c["signed"]["order"]["player"], c["signed"]["order"]["seq"]): c
               for c in record.commands if c.get("signed") and "order" in c["signed"]}
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
        if (o["order"], o.get("signature")) != (c["signed"]["order"],
                                                c["signed"].get("signature")):
            problems.append(f"order {key[0]}#{key[1]}: listed otherwise than it was applied")
    report.problems("orders", problems, f"{len(listed)} orders, each applied once")


# --------------------------------------------------------------------------- dice


def _triggers(record: Record, report: Report) -> None:
    """Every roll's trigger is the hash of the signature of the command that rolled it;
    a command with no signature rolls with a trigger some signed command before it gave
    (the replay pins which). A roll whose trigger cannot be checked fails."""
    problems: list[str] = []
    given: set[str] = set()
    rolls = 0
    for c in record.commands:
        first = int(c["first_event"])
        own = "" if first in record.sealed_commands else trigger_of(c)
        for seq in record.spans[first]:
            event = record.events.get(seq)
            if event is None or event["kind"] != "dice.rolled":
                continue
            rolls += 1
            trigger = event["data"].get("trigger")
            if first in record.sealed_commands:
                problems.append(f"roll at {seq}: its command's signature is withheld")
            elif own and trigger != own:
                problems.append(f"roll at {seq}: its trigger is not the hash of the "
                                f"signature of the command that rolled it ({c['kind']} at "
                                f"{first})")
            elif not own and trigger not in given:
                problems.append(f"roll at {seq}: rolled by an unsigned {c['kind']} with a "
                                "trigger no signed command gave")
        if own:
            given.add(own)
    report.problems("roll triggers", problems, f"{rolls} rolls, each keyed by a signature")


def _dice(export: Export, seeds: Seeds, report: Report) -> None:
    revealed = sum(1 for e in export["events"] if e["kind"] == "dice.revealed")
    report.problems("dice seeds", seeds.problems, f"{len(seeds.chains)} chain(s), "
                    f"{revealed} seed(s) revealed, each hashing to its chain's anchor")
    for turn, seed_hex in export.get("revealed_seeds", {}).items():
        found = [e for e in export["events"] if e["kind"] == "dice.revealed"
                 and int(e["data"]["turn"]) == int(turn)]
        if not found or found[-1]["data"]["seed"] != seed_hex:
            report.add("dice seeds", False, f"turn {turn}: the exported seed is not the one "
                       "revealed in the log")


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
        elif order.get("sealed"):
            report.unchecked.append(f"receipts: order {r['player']}#{r['seq']} is sealed")
        elif sha256_hex(canonical_bytes(order["order"])) != r["order_hash"]:
            problems.append(f"order {r['player']}#{r['seq']}: the export alters it")
        head = r.get("head") or {}
        if head and hashes.get(int(head["seq"])) != head["hash"]:
            problems.append(f"order {r['player']}#{r['seq']}: the chain at event "
                            f"{head['seq']} is not the one the receipt signed")
    report.problems("receipts", problems, f"{count} receipts")


# --------------------------------------------------------------------------- entry

_MALFORMED = (KeyError, TypeError, ValueError, AttributeError)


def verify_export(export: Export,
                  receipts: Iterable[Mapping[str, Any]] | None = None) -> Report:
    report = Report()
    if export.get("format") != FORMAT:
        report.add("format", False, f"expected {FORMAT}, got {export.get('format')!r}")
        return report
    try:
        record = read(export)
    except _MALFORMED as error:
        report.add("read", False, f"malformed export: {error!r}")
        return report
    partial = record.sealed and export.get("complete") is False
    seeds = Seeds()
    try:
        seeds = seeds_of(export)
    except _MALFORMED as error:
        report.add("dice seeds", False, f"malformed export: {error!r}")
    checks: tuple[tuple[str, Callable[[], None]], ...] = (
        ("hash chain", lambda: _chain(export, record, report, partial)),
        ("rollback marks", lambda: _rollback_marks(export, report)),
        ("sealed", lambda: _sealed(export, record, report, partial)),
        ("signatures", lambda: _signatures(export, record, report)),
        ("orders", lambda: _orders(export, record, report)),
        ("roll triggers", lambda: _triggers(record, report)),
        ("dice seeds", lambda: _dice(export, seeds, report)),
        ("replay", lambda: replay(export, record, seeds, report, partial)),
    )
    for name, check in checks:
        try:
            check()
        except _MALFORMED as error:
            report.add(name, False, f"malformed export: {error!r}")
    if receipts is not None:
        try:
            _receipts(export, receipts, report)
        except _MALFORMED as error:
            report.add("receipts", False, f"malformed receipts: {error!r}")
    if export.get("dice", {}).get("mode") == "scripted":
        report.add("dice mode", True, "SCRIPTED game: dice came from the GM's script")
    _combat_results(export, report)
    return report


def _combat_results(export: Mapping[str, Any], report: Report) -> None:
    """What the referee decided by the scenario's tables (replayed with every roll) and
    what players reported, said as the views say it."""
    try:
        rules = parse_scenario(export["scenario"]).combat
        set_at = [e["seq"] for e in export["events"] if e["kind"] == "state.edited"
                  and "combat" in e["data"] and not e.get("rolled_back")]
        if set_at:  # the GM set the combat section (docs/game-master.md "Rules versions")
            setup = Setup("verify", parse_scenario(export["scenario"]), {}, "fair")
            edited = [e for e in export["events"] if e["seq"] == set_at[-1]][0]
            rules = with_map_edits(setup, {}, edited["data"]["combat"]).scenario.combat
    except (KeyError, TypeError, ValueError):
        return  # the replay already said why the scenario does not read
    decided = [by for by in COMBAT_KINDS if rules.how(by) == "table"]
    whose = f"the GM's combat section (set at event {set_at[-1]})" if set_at else \
        "the scenario's tables"
    replayed = "not decided again (see below)" if any(
        u.startswith("replay:") for u in report.unchecked) else "replayed above"
    report.add("combat results", True,
               (f"decided by {whose} ({', '.join(decided)}), {replayed}"
                if decided else "no combat tables") + "; "
               + "; ".join(flag.upper() if "reported" in flag else flag
                           for flag in reported_flags(rules)))
    options = export.get("options")
    if isinstance(options, Mapping) and isinstance(options.get("reorg"), Mapping):
        flags = interception_flags(dict(options), rules)
        report.add("ATR missions", True, "; ".join(flags).upper() if flags else (
            "flown as 11.18.1 says: air-to-air and AA fire decided by the scenario's tables, "
            "replayed above"))


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
    if report.failed:
        return report
    if isinstance(receipts, Mapping):
        receipts = receipts.get("receipts", [])
    return verify_export(export, receipts)
