"""Rollback to the start of an impulse (docs/game-master.md): at once when no revealed
die is abandoned, else proposed and completed by every other side's signed consent;
new dice commitments for turns whose seed was revealed; the import of a game."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from service.rules.awaiting import awaiting, position
from service.rules.codec import to_data
from service.rules.command import Command
from service.rules.errors import Malformed, Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.gm.common import (
    RULE,
    is_int,
    reason_of,
    require_running,
    side_named,
    with_reason,
)
from service.rules.state import (
    Evolver,
    Proposal,
    State,
    state_from_data,
)
from service.rules.turn import new_chain


def refuse_if_proposal(state: State, kind: str) -> None:
    if state.proposal is not None:
        p = state.proposal
        waiting = ", ".join(x for x in p.needs if x not in p.consented)
        raise Refused("rollback/pending", f"{kind} must wait: rollback proposal {p.number} "
                      f"awaits the consent of {waiting} (the GM may withdraw it)",
                      rule="docs/game-master.md",
                      extra={"current": position(state), "awaiting": awaiting(state)})


# Events that record who plays, the GM's clock settings and the dice record, not the
# game's position: a rollback keeps their effects, so they are never shown as rolled
# back.
KEPT_KINDS: Final = frozenset({
    "seat.reopened", "seat.substituted", "player.key_replaced", "deadlines.set",
    "game.paused", "game.resumed", "deadline.passed", "side.dropped_out", "side.returned",
    "side.restored", "dice.committed", "dice.revealed", "dice.recommitted",
    "rollback.proposed", "rollback.consented", "rollback.refused", "rollback.withdrawn",
    "game.imported",
})


def rolled_back_state(current: State, target: State, at: str) -> State:
    """The game position of `target` (the start of an impulse) with what a rollback
    keeps from `current`: the status and pause, the seats and who holds each power,
    the deadlines, the dice record (commitments, revealed seeds) and the dropouts. The
    step's clock starts again at `at`."""
    powers = {p: replace(ps, holder=current.powers[p].holder) for p, ps in target.powers.items()}
    dice = replace(current.dice, rolls_this_turn=target.dice.rolls_this_turn,
                   script_used=dict(target.dice.script_used))
    return replace(target, status=current.status, paused_at=current.paused_at,
                   pause_until=current.pause_until, seats=current.seats, powers=powers,
                   deadlines=current.deadlines, dice=dice, dropouts=current.dropouts,
                   proposal=None, proposals=current.proposals,
                   turn=replace(target.turn, step_started_at=at))


def _target(c: Command) -> Mapping[str, Any]:
    """What the referee found in the log for the rollback: `to_seq` (the event after
    which the impulse's declaration began), `abandons` (first, last), `kept`, `rolls`
    (revealed dice rolls abandoned) and `restore` (the state after `to_seq`)."""
    target = c.extra.get("rollback")
    if not isinstance(target, Mapping):
        raise Refused("rollback/unknown_impulse", "no such impulse start in the live log",
                      rule=RULE)
    return target


def rollback(f: Flow, c: Command) -> None:
    s = f.state
    require_running(s, "a rollback")
    if s.proposal is not None:
        raise Refused("rollback/pending", f"rollback proposal {s.proposal.number} is still "
                      "pending: withdraw it first", rule=RULE)
    requested_by = c.body.get("requested_by")
    if requested_by is not None:
        requested_by = side_named(s, requested_by, "/requested_by")
    turn, impulse = c.body.get("turn"), c.body.get("impulse")
    if not is_int(turn) or not is_int(impulse) or not turn or not impulse:
        raise Malformed("rollback/invalid", "name the impulse: turn and impulse, from 1",
                        errors=[("/turn", "expected an integer from 1"),
                                ("/impulse", "expected an integer from 1")])
    target = _target(c)
    reason = reason_of(c)
    abandons = (int(target["abandons"][0]), int(target["abandons"][1]))
    rolls = int(target["rolls"])
    if rolls == 0:
        _roll_back(f, turn=turn, impulse=impulse, to_seq=int(target["to_seq"]),
                   abandons=abandons, kept=tuple(target["kept"]), rolls=0, reason=reason,
                   proposal=None, consents=(), restore=target["restore"])
        return
    if s.status != "active":
        raise Refused("rollback/paused", "a rollback past revealed dice needs the other "
                      "sides' consent, so the game must be running: resume it first",
                      rule=RULE)
    needs = [x for x in s.setup.sides if x != requested_by]
    number = s.proposals + 1
    f.emit("rollback.proposed", with_reason(
        f"The GM proposes rollback {number} to the start of impulse {impulse} of turn {turn}: "
        f"events {abandons[0]}-{abandons[1]} would be abandoned, {rolls} revealed dice roll(s) "
        f"among them, so {', '.join(needs)} must consent (any may refuse).", reason),
        {"proposal": number, "to_seq": int(target["to_seq"]), "turn": turn,
         "impulse": impulse, "abandons": list(abandons), "kept": list(target["kept"]),
         "rolls": rolls, "needs": needs, "requested_by": requested_by, "reason": reason,
         "state": dict(target["restore"])}, by="gm")


def _roll_back(f: Flow, *, turn: int, impulse: int, to_seq: int, abandons: tuple[int, int],
               kept: tuple[int, ...], rolls: int, reason: str, proposal: int | None,
               consents: tuple[str, ...], restore: Mapping[str, Any]) -> None:
    current = f.state
    target = state_from_data(restore, current.setup)
    restored = rolled_back_state(current, target, f.at)
    f.emit("game.rolled_back", with_reason(
        f"Rollback to the start of impulse {impulse} of turn {turn}: events {abandons[0]}-"
        f"{abandons[1]} are abandoned (they stay in the log, marked rolled back).", reason),
        {"proposal": proposal, "to_seq": to_seq, "turn": turn, "impulse": impulse,
         "abandons": list(abandons), "kept": list(kept), "rolls": rolls,
         "consents": list(consents), "reason": reason, "state": to_data(restored)}, by="gm")
    number = f.state.turn.number
    if any(x >= number for x in current.dice.revealed):
        # The chain is abandoned from `number` on: its newest seed goes out, so that every
        # roll made with it, rolled back or not, can be checked; a new chain follows.
        last = current.turn.number
        if last not in current.dice.revealed and last not in current.dice.elsewhere \
                and f.dice is not None:
            f.emit("dice.revealed", f"Dice seed of turn {last} revealed (its chain is "
                   "abandoned by the rollback).", {"turn": last, "seed": f.dice.reveal(last)},
                   by="gm")
        new_chain(f, number, f"the seed of turn {number} was revealed before the rollback")


def withdraw(f: Flow, c: Command) -> None:
    p = f.state.proposal
    if p is None:
        raise Refused("rollback/no_proposal", "no rollback proposal is pending", rule=RULE)
    reason = reason_of(c)
    f.emit("rollback.withdrawn", with_reason(f"The GM withdraws rollback proposal "
                                              f"{p.number}.", reason),
           {"proposal": p.number, "reason": reason}, by="gm")


def consent(f: Flow, c: Command) -> None:
    p = f.state.proposal
    side = c.actor.side
    if p is None:
        raise Refused("rollback/no_proposal", "no rollback proposal is pending", rule=RULE)
    number = c.body.get("proposal")
    agree = c.body.get("agree")
    if not isinstance(agree, bool) or not isinstance(number, int) or isinstance(number, bool):
        raise Malformed("order/invalid_body", "consent is {proposal: number, agree: bool}",
                        errors=[("/body", "expected {proposal: integer, agree: boolean}")])
    if number != p.number:
        raise Refused("rollback/stale_proposal", f"the pending proposal is {p.number}, not "
                      f"{number}", rule=RULE, errors=[("/body/proposal", "not pending")])
    if side not in p.needs:
        raise Refused("order/not_your_turn", f"proposal {p.number} does not need {side}'s "
                      "consent", rule=RULE)
    if side in p.consented:
        raise Refused("order/already_answered", f"{side} already consented", rule=RULE)
    if not agree:
        f.emit("rollback.refused", f"{side} refuses rollback proposal {p.number}: the game "
               "goes on.", {"proposal": p.number, "side": side}, by=c.actor.id)
        return
    f.emit("rollback.consented", f"{side} consents to rollback proposal {p.number}.",
           {"proposal": p.number, "side": side}, by=c.actor.id)
    after = f.state.proposal
    assert after is not None
    if all(x in after.consented for x in after.needs):
        restore = after.restore
        if restore is None:
            raise Refused("rollback/unavailable", "the state to restore is not available",
                          rule=RULE)
        _roll_back(f, turn=p.turn, impulse=p.impulse, to_seq=p.to_seq, abandons=p.abandons,
                   kept=p.kept, rolls=p.rolls, reason=p.reason, proposal=p.number,
                   consents=after.consented, restore=restore)


def _proposed(state: State, e: Event) -> State:
    d = e.data
    proposal = Proposal(number=int(d["proposal"]), to_seq=int(d["to_seq"]), turn=int(d["turn"]),
                        impulse=int(d["impulse"]), reason=d["reason"], needs=tuple(d["needs"]),
                        abandons=(int(d["abandons"][0]), int(d["abandons"][1])),
                        rolls=int(d["rolls"]), kept=tuple(d["kept"]),
                        requested_by=d.get("requested_by"), restore=d.get("state"))
    return replace(state, proposal=proposal, proposals=proposal.number)


def _consented(state: State, e: Event) -> State:
    p = state.proposal
    assert p is not None
    return replace(state, proposal=replace(p, consented=(*p.consented, e.data["side"])))


def _dropped(state: State, e: Event) -> State:
    return replace(state, proposal=None)


def _rolled_back(state: State, e: Event) -> State:
    return state_from_data(e.data["state"], state.setup)


def _game_imported(state: State, e: Event) -> State:
    elsewhere = tuple(int(t) for t in e.data.get("seeds_elsewhere", ()))
    return replace(state, dice=replace(state.dice, elsewhere=elsewhere))


def import_game(f: Flow, c: Command) -> None:
    """The game arrived from another server, whose seed chain stayed there: a new chain
    from the first turn not yet revealed; the seed of a turn begun there stays there."""
    source = c.body.get("source") or {}
    s = f.state
    t = s.turn.number
    elsewhere = [t] if t >= 1 and t not in s.dice.revealed else []
    f.emit("game.imported", "The game was imported from an export of another server "
           "(verified); play goes on from here.",
           {"source": dict(source), "seeds_elsewhere": elsewhere}, by="gm")
    if s.status in ("active", "paused", "open"):
        first = max(1, t if t not in s.dice.revealed else t + 1)
        new_chain(f, first, "imported: the old chain's root stayed on the old server")


EVOLVE: dict[EventKind, Evolver] = {
    "rollback.proposed": _proposed,
    "rollback.consented": _consented,
    "rollback.refused": _dropped,
    "rollback.withdrawn": _dropped,
    "game.rolled_back": _rolled_back,
    "game.imported": _game_imported,
}
