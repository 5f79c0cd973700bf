"""Exactly who must act next: `awaiting(state, now)` -> [{side, powers, step, deadline}].

Empty only when the game is finished or paused (DESIGN.md 4.3). While a rollback
proposal is pending, only the sides whose consent it needs are awaited (step
`consent`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from service.rules import state as st
from service.rules.state import State


def current_step(state: State) -> str:
    """The step orders must name: `consent` while a rollback proposal is pending."""
    return CONSENT if state.proposal is not None else state.turn.step


def position(state: State) -> dict[str, Any]:
    return {"turn": state.turn.number, "impulse": state.turn.impulse,
            "step": current_step(state)}


CONSENT = "consent"


def deadline(state: State) -> str | None:
    """When the current step's clock runs out (RFC 3339 UTC), if the GM set one."""
    seconds = state.deadlines.get(state.turn.step)
    if seconds is None or state.turn.step_started_at is None or state.status != "active" \
            or state.proposal is not None:
        return None
    started = datetime.fromisoformat(state.turn.step_started_at)
    return (started + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def next_due(state: State) -> str | None:
    """When the clock next has something to do: the end of a pause, else the step's
    deadline."""
    if state.status == "paused":
        return state.pause_until
    return deadline(state)


def awaiting(state: State) -> list[dict[str, Any]]:
    if state.status in ("paused", "finished"):
        return []
    if state.proposal is not None:
        p = state.proposal
        return [{"side": side, "powers": list(state.side_powers(side)), "step": CONSENT,
                 "deadline": None} for side in p.needs if side not in p.consented]
    if state.status == "open":
        entries = []
        for side in state.setup.sides:
            free = [p for p in state.side_powers(side) if state.powers[p].holder is None]
            if free:
                entries.append({"side": side, "powers": free, "step": st.JOIN, "deadline": None})
        return entries
    t = state.turn
    due = deadline(state)
    if t.step == st.DECLARE:
        phasing = t.phasing_side
        assert phasing is not None
        pending = [p for p in state.side_powers(phasing) if state.powers[p].declared is None]
        return [{"side": phasing, "powers": pending, "step": t.step, "deadline": due}]
    if t.step == st.PRODUCTION:
        entries = []
        for side in t.step_sides:
            pending = [p for p in state.side_powers(side) if state.powers[p].production is None]
            if pending:
                entries.append({"side": side, "powers": pending, "step": t.step, "deadline": due})
        return entries
    if t.step == st.CHOOSE:
        chooser = state.initiative.chooser
        assert chooser is not None
        return [{"side": chooser, "powers": list(state.side_powers(chooser)), "step": t.step,
                 "deadline": due}]
    return [
        {"side": side, "powers": list(state.side_powers(side)), "step": t.step, "deadline": due}
        for side in t.step_sides if side not in t.sides_done
    ]
