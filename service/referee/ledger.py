"""The referee's one way to change a game: decide a command on a locked game, chain the
events it caused onto the log, keep snapshots, bump the version and write the
notifications they cause to the outbox, all in the unit of work's transaction.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from service.answers import Head, Outcome
from service.clock import utc_now
from service.crypto import chain
from service.referee.awaited import awaited
from service.referee.dice import ServerDice, load_dice
from service.referee.notifications import enqueue
from service.referee.summaries import state_summary
from service.rules import Command, Decision, State, clock_started, decide, next_due, position
from service.rules.codec import to_data
from service.rules.events import EventRecord
from service.store.games import Game, snapshot_due
from service.store.threads import measured, state_class
from service.store.uow import UnitOfWork


@dataclass
class Applied:
    """What a command did: the stored events, the state they lead to, the new version
    and the chain head after it (what the next order names as `prev`)."""

    events: list[EventRecord]
    state: State
    version: int
    head: Head

    def outcome(self) -> Outcome:
        """The answer to every command that changes a game (orders and GM acts alike)."""
        return {"version": self.version, "events": self.events, "head": self.head,
                "position": position(self.state), "awaiting": awaited(self.state)}


def record_of(command: Command, first_event: int,
              signed: Mapping[str, Any] | None) -> dict[str, Any]:
    """A command as the verifier replays it (docs/security.md). A rollback's state to
    restore is left out: the verifier folds it from the log itself."""
    extra = dict(command.extra)
    if isinstance(extra.get("rollback"), Mapping):
        extra["rollback"] = {k: v for k, v in extra["rollback"].items() if k != "restore"}
    actor = command.actor
    return {"first_event": first_event, "kind": command.kind,
            "actor": {"id": actor.id, "role": actor.role, "side": actor.side,
                      "powers": list(actor.powers)},
            "body": dict(command.body), "at": command.at,
            "position": list(command.position) if command.position else None,
            "trigger": command.trigger, "extra": extra,
            "signed": dict(signed) if signed is not None else None}


def moment(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


@dataclass(frozen=True, slots=True)
class Chained:
    """A decision's events numbered and chained after a head, the snapshots due among
    them (without their game id), and the new head."""

    records: list[EventRecord]
    snapshots: list[dict[str, Any]]
    seq: int
    digest: str
    snapshot_seq: int


def chained(decision: Decision, seq: int, digest: str, snapshot_seq: int) -> Chained:
    """Number and chain `decision`'s events after the head (`seq`, `digest`), taking a
    snapshot where one is due; the long way and the one call share it."""
    records: list[EventRecord] = []
    snapshots: list[dict[str, Any]] = []
    for event, state in zip(decision.events, decision.states, strict=True):
        seq += 1
        record = event.record(seq)
        digest = chain.event_hash(digest, record)
        record["hash"] = digest
        records.append(record)
        if snapshot_due(event.kind, seq, snapshot_seq):
            snapshot_seq = seq
            snapshots.append({"seq": seq, "turn": state.turn.number,
                              "impulse": state.turn.impulse, "state": to_data(state)})
    return Chained(records, snapshots, seq, digest, snapshot_seq)


async def append(uow: UnitOfWork, game: Game, decision: Decision,
                 dice: ServerDice | None = None) -> Applied:
    """Chain, store and apply what `decision` caused on the locked `game`."""
    before = game.state
    # A snapshot of a big state takes tens of milliseconds to turn into data: off the loop.
    done = await measured(("chain", state_class(before)), chained, decision, game.head_seq,
                          game.head_hash, game.snapshot_seq)
    records, seq, digest, snapshot_seq = done.records, done.seq, done.digest, done.snapshot_seq
    after = decision.state
    await uow.log.append(game.id, records)
    await uow.log.add_snapshots([{"game_id": game.id, **s} for s in done.snapshots])
    if dice is not None and dice.new_roots:
        await uow.dice.add(dice.seed_rows(game.id))
    version = await uow.games.advance(
        game, head_seq=seq, head_hash=digest, state=after, snapshot_seq=snapshot_seq,
        next_deadline=moment(next_due(after)), now=utc_now(),
        step_started_at=moment(clock_started(after)),
        summary=cast(dict[str, Any], state_summary(after, {"seq": seq, "hash": digest})))
    if game.has_webhooks is not False:  # the lock's read says whether the game has any
        await enqueue(uow, game.id, version, before, after, records)
    if records:
        uow.appended_to(game.id, seq)
    return Applied(records, after, version, {"seq": seq, "hash": digest})


async def apply(uow: UnitOfWork, game: Game, command: Command,
                signed: Mapping[str, Any] | None = None) -> Applied:
    """Decide `command` on the locked `game`, append what it causes, and keep the
    command (with `signed`, its signed envelope, if it has one) for the replay."""
    dice = await load_dice(uow, game)
    salted = with_standing_salts(command, game.state)
    # Off the loop: a report of many moves on a big map takes seconds to decide.
    decision = await measured(("decide", command.kind, state_class(game.state)), decide,
                              game.state, salted, dice)
    applied = await append(uow, game, decision, dice)
    if applied.events:
        kept = replace(salted, extra=used_salts(salted.extra, decision))
        await uow.commands.add(game.id, record_of(kept, applied.events[0]["seq"], signed))
    return applied


def with_standing_salts(command: Command, state: State) -> Command:
    """`command` with fresh random salts: `salt` for a sealed answer it gives (a reroll
    answer, a reroll standing order armed, the GM's answer for a side it plays), and
    one per side in `extra.standing_salts` for the answers standing orders give in it.
    A salt keeps the answer's hash from telling the answer (docs/security.md)."""
    sides = state.setup.sides
    drawn = secrets.token_hex(32 * (len(sides) + 1))  # one draw: 64 hex digits each
    salts = {side: drawn[64 * i:64 * (i + 1)] for i, side in enumerate(sides)}
    extra = {"salt": drawn[-64:], **command.extra, "standing_salts": salts}
    return replace(command, extra=extra)


def used_salts(extra: Mapping[str, Any], decision: Decision) -> dict[str, Any]:
    """`extra` keeping only the salts an event used: what the replay needs, byte for
    byte (an unused salt changes nothing the rules decide)."""
    used = {e.data.get("salt") for e in decision.events if "salt" in e.data}
    salts = extra.get("standing_salts") or {}
    kept = {side: salt for side, salt in salts.items() if salt in used}
    out = {k: v for k, v in extra.items()
           if k != "standing_salts" and (k != "salt" or v in used)}
    if kept:
        out["standing_salts"] = kept
    return out
