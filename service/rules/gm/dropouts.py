"""Dropouts (docs/game-master.md): missed deadlines, a side's dropout policy (the GM
plays it, a substitute, civil disorder) and civil disorder's default orders."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from service.rules import state as st
from service.rules.awaiting import awaiting
from service.rules.command import Command
from service.rules.errors import Refused
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.gm.common import RULE, reason_of, require_running, side_named, with_reason
from service.rules.options import dropout_policy
from service.rules.state import (
    Evolver,
    SideControl,
    State,
)
from service.rules.turn import apply_defaults

CIVIL_DISORDER = "civil_disorder"
GM_PLAYS = "gm"
SUBSTITUTE = "substitute"


def check_dropouts(f: Flow, sides: list[str], why: str) -> None:
    """A side that missed its policy's number of deadlines in a row drops out: its
    policy applies from now on (docs/game-master.md)."""
    for side in sides:
        control = f.state.dropouts.get(side, st.SideControl())
        _, limit = dropout_policy(f.state.setup.options, side)
        if control.mode is None and limit > 0 and control.missed >= limit:
            drop_out(f, side, f"{why} ({control.missed} in a row)", by="clock")


def drop_out(f: Flow, side: str, reason: str, by: str) -> None:
    policy, _ = dropout_policy(f.state.setup.options, side)
    what = {GM_PLAYS: "the GM plays it", SUBSTITUTE: "it awaits a substitute player",
            CIVIL_DISORDER: "it is in civil disorder: default orders until a substitute "
                            "joins"}[policy]
    f.emit("side.dropped_out", f"{side} has dropped out ({reason}): {what}.",
           {"side": side, "policy": policy, "reason": reason}, by=by)


def play_civil_disorder(f: Flow) -> None:
    """Sides in civil disorder answer with the default at once, every step, while some
    side is still played by people (if none is, the game waits for the GM). A pending
    rollback proposal cannot get their consent: it is refused."""
    for _ in range(10_000):
        s = f.state
        if s.status != "active":
            return
        gone = frozenset(side for side, c in s.dropouts.items() if c.mode == CIVIL_DISORDER)
        if not gone or gone >= set(s.setup.sides):
            return
        if s.proposal is not None:
            silent = [x for x in s.proposal.needs if x in gone and x not in s.proposal.consented]
            if not silent:
                return
            f.emit("rollback.refused", f"{silent[0]} is in civil disorder and cannot consent: "
                   f"rollback proposal {s.proposal.number} is refused.",
                   {"proposal": s.proposal.number, "side": silent[0]}, by=CIVIL_DISORDER)
            continue
        if not any(a["side"] in gone for a in awaiting(s)):
            return
        if apply_defaults(f, CIVIL_DISORDER, gone) == 0:
            return


def _control(state: State, side: str, **changes: Any) -> State:
    old = state.dropouts.get(side, SideControl())
    return replace(state, dropouts={**state.dropouts, side: replace(old, **changes)})


def _deadline_passed(state: State, e: Event) -> State:
    for side in e.data.get("sides", ()):
        state = _control(state, side, missed=state.dropouts.get(side, SideControl()).missed + 1)
    return state


def _dropped_out(state: State, e: Event) -> State:
    return _control(state, e.data["side"], mode=e.data["policy"])


def _side_returned(state: State, e: Event) -> State:
    return _control(state, e.data["side"], missed=0, mode=None)


def declare_dropout(f: Flow, c: Command) -> None:
    require_running(f.state, "a dropout")
    side = side_named(f.state, c.body.get("side"), "/side")
    dropped = c.body.get("dropped", True)
    control = f.state.dropouts.get(side, SideControl())
    reason = reason_of(c)
    if dropped:
        if control.mode is not None:
            raise Refused("admin/already_dropped", f"{side} has already dropped out "
                          f"({control.mode})", rule=RULE)
        drop_out(f, side, f"declared by the GM: {reason}" if reason else "declared by the GM",
                 by="gm")
        return
    if control.mode is None and not control.missed:
        raise Refused("admin/not_dropped", f"{side} is played by its players", rule=RULE)
    f.emit("side.restored", with_reason(f"The GM returns {side} to its players.", reason),
           {"side": side, "reason": reason}, by="gm")


EVOLVE: dict[EventKind, Evolver] = {
    "deadline.passed": _deadline_passed,
    "side.dropped_out": _dropped_out,
    "side.returned": _side_returned,
    "side.restored": _side_returned,
}
