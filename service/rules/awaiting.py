"""Exactly who must act next: `awaiting(state, now)` -> [{side, powers, step, deadline}].

Empty only when the game is finished or paused (docs/api.md). While a rollback
proposal is pending, only the sides whose consent it needs are awaited (step
`consent`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Final, Literal, NotRequired, get_args

from typing_extensions import TypedDict

from service.rules import state as st
from service.rules.shapes import OrderKind
from service.rules.state import Action, PositionStep, State

CONSENT: Final = "consent"
CHOICE: Final = "combat.choice"


class Position(TypedDict):
    """What an order must name: the turn, the impulse (0 during initiative) and the step
    (`consent` while a rollback proposal waits for the sides)."""

    turn: int
    impulse: int
    step: PositionStep


Place = Literal["first", "last", "before", "after"]

# The values a step's decision may take where they are a fixed set, by body field.
Choices = TypedDict("Choices", {
    "demand": NotRequired[list[bool]],  # initiative.reroll
    "position": NotRequired[list[Place]],  # initiative.choose
    "actions.*": NotRequired[list[Action]],  # declare: every power's action
    "agree": NotRequired[list[bool]],  # consent
    # combat.choose (combat.choice): the units to take the losses, those to advance, or
    # the retreat's paths
    "losses.*": NotRequired[list[str]],
    "advance.*": NotRequired[list[str]],
    "retreat": NotRequired[list[list[str]]],
})


class ChoiceShown(TypedDict):
    """The question a combat's result asks (docs/api.md "Combat choices"): of which
    combat, what kind (`losses`, `retreat`, `advance`), about whose units (`of`:
    attacker or defender), how many step losses or hexes the result demands, the units
    concerned, the answer given by default, the question in words, and the hexes of the
    retreat paths in an enemy ZOC (OCS 5.10a C, 5.8a)."""

    hex: str
    by: str
    code: str
    kind: str
    of: str
    count: int
    units: list[str]
    default: list[str]
    asked_at: str
    text: str
    zoc: list[str]


class AwaitingEntry(TypedDict):
    """A side that must act: the powers it answers for, the step and its deadline, the
    order kinds that answer it and, where the step's decision is a fixed set, its
    `choices` by body field (`actions.*`: every power's action)."""

    side: str
    powers: list[str]
    step: PositionStep
    deadline: str | None
    orders: list[OrderKind]
    choices: NotRequired[Choices]
    # Added by the server where the choices depend on the map: the endpoint listing them.
    options: NotRequired[str]
    # At `combat.choice`: the question asked.
    combat: NotRequired[ChoiceShown]


def current_step(state: State) -> PositionStep:
    """The step orders must name: `consent` while a rollback proposal is pending,
    `combat.choice` while a combat's result waits for a side's answer."""
    if state.proposal is not None:
        return CONSENT
    if state.modes.resolution is not None and state.modes.resolution.question is not None:
        return CHOICE
    return state.turn.step


def position(state: State) -> Position:
    return {"turn": state.turn.number, "impulse": state.turn.impulse,
            "step": current_step(state)}


def clock_started(state: State) -> str | None:
    """When the clock of what the game waits for now started: a combat's question's
    when it was asked (docs/api.md "Combat choices"), else the step's start. Deadlines
    and their reminders count from it."""
    res = state.modes.resolution
    if res is not None and res.question is not None:
        return res.question.asked_at
    return state.turn.step_started_at


def deadline(state: State) -> str | None:
    """When the current step's clock runs out (RFC 3339 UTC), if the GM set one; a
    combat's question has the step's time from when it was asked."""
    seconds = state.deadlines.get(state.turn.step)
    started_at = clock_started(state)
    if seconds is None or started_at is None or state.status != "active" \
            or state.proposal is not None:
        return None
    started = datetime.fromisoformat(started_at)
    return (started + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def next_due(state: State) -> str | None:
    """When the clock next has something to do: the end of a pause, else the step's
    deadline."""
    if state.status == "paused":
        return state.pause_until
    return deadline(state)


# The orders that answer each step, and the fixed choices of the step's decision where
# it has some (a step whose choices depend on the map has none here: the options
# endpoints list them).
_ORDERS: dict[PositionStep, tuple[OrderKind, ...]] = {
    st.JOIN: (), CONSENT: (CONSENT,), st.REROLL: ("initiative.reroll",),
    st.CHOOSE: ("initiative.choose",), st.DECLARE: ("declare", "steps"),
    st.ACTION: ("mode", "report", "roll", "done", "steps"),
    st.REACTION: ("release", "report", "roll", "done", "steps"),
    st.COMBAT: ("report", "roll", "done", "steps"),
    st.EXPLOITATION: ("release", "report", "roll", "done", "steps"),
    st.REORGANIZATION: ("reorg", "done", "steps"),
    st.FINAL_REORGANIZATION: ("reorg", "done", "steps"),
    st.PRODUCTION: ("production",), CHOICE: ("combat.choose", "standing"),
}


def steps_of(kind: str) -> tuple[PositionStep, ...]:
    """The steps an order of `kind` answers: those that list it, and every step for a
    standing order (armed ahead) and for the GM's acts (taken at any position)."""
    steps = tuple(step for step, kinds in _ORDERS.items() if kind in kinds)
    return steps or get_args(PositionStep)


def choices(state: State, step: str) -> Choices:
    """The values the step's decision may take, by body field, where they are a fixed
    set: a value outside them is malformed (422), one of them refused by the state of
    the game is a conflict (409)."""
    if step == CONSENT:
        return {"agree": [True, False]}
    if step == st.REROLL:
        return {"demand": [True, False]}
    if step == st.CHOOSE:
        first = all(x is None for x in state.initiative.slots)
        places: list[Place] = ["first", "last"] if first else ["before", "after"]
        return {"position": places}
    if step == st.DECLARE:
        return {"actions.*": list(st.ACTIONS)}
    res = state.modes.resolution
    if step == CHOICE and res is not None and res.question is not None:
        q = res.question
        if q.kind == "retreat":
            return {"retreat": [list(p) for p in q.paths]}
        if q.kind == "advance":
            return {"advance.*": list(q.units)}
        return {"losses.*": list(q.units)}
    return {}


def _entry(state: State, side: str, powers: list[str], step: PositionStep, due: str | None
           ) -> AwaitingEntry:
    entry: AwaitingEntry = {"side": side, "powers": powers, "step": step, "deadline": due,
                            "orders": list(_ORDERS.get(step, ()))}
    fixed = choices(state, step)
    if fixed:
        entry["choices"] = fixed
    return entry


def awaiting(state: State) -> list[AwaitingEntry]:
    """Who must act now (docs/api.md): each side with the powers it answers for, the
    step, its deadline, the `orders` that answer it and, where the decision is a fixed
    set, its `choices`."""
    if state.status in ("paused", "finished"):
        return []
    if state.proposal is not None:
        p = state.proposal
        return [_entry(state, side, list(state.side_powers(side)), CONSENT, None)
                for side in p.needs if side not in p.consented]
    if state.status == "open":
        entries: list[AwaitingEntry] = []
        for side in state.setup.sides:
            free = [p for p in state.side_powers(side) if state.powers[p].holder is None]
            if free:
                entries.append(_entry(state, side, free, st.JOIN, None))
        return entries
    t = state.turn
    due = deadline(state)
    res = state.modes.resolution
    if res is not None and res.question is not None:
        q = res.question
        entry = _entry(state, q.side, list(state.side_powers(q.side)), CHOICE, due)
        entry["combat"] = {"hex": res.hex, "by": res.by, "code": res.code, "kind": q.kind,
                           "of": q.of, "count": q.count, "units": list(q.units),
                           "default": list(q.default), "asked_at": q.asked_at,
                           "text": q.text, "zoc": list(q.zoc)}
        return [entry]
    if t.step == st.DECLARE:
        phasing = t.phasing_side
        assert phasing is not None
        pending = [p for p in state.side_powers(phasing) if state.powers[p].declared is None]
        return [_entry(state, phasing, pending, t.step, due)]
    if t.step == st.PRODUCTION:
        entries = []
        for side in t.step_sides:
            pending = [p for p in state.side_powers(side) if state.powers[p].production is None]
            if pending:
                entries.append(_entry(state, side, pending, t.step, due))
        return entries
    if t.step == st.CHOOSE:
        chooser = state.initiative.chooser
        assert chooser is not None
        return [_entry(state, chooser, list(state.side_powers(chooser)), t.step, due)]
    return [_entry(state, side, list(state.side_powers(side)), t.step, due)
            for side in t.step_sides if side not in t.sides_done]
