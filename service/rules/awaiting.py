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
from service.rules.airspace import atr_base, atr_targets, atrs, reach, window_hexes
from service.rules.shapes import OrderKind
from service.rules.state import Action, AirMission, PositionStep, State

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
    # air.choose (air.choice): the aircraft lost and those aborted (11.18.1 step 5)
    "lost.*": NotRequired[list[str]],
    "aborted.*": NotRequired[list[str]],
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


class SortieShown(TypedDict):
    """An aircraft in the air: where it flew, why (`patrol`, `atr`, `escort`,
    `intercept`, `counter`), whose, and what became of it ("", `lost`, `aborted`)."""

    unit: str
    hex: str
    role: str
    side: str
    fate: str


class AtrChoice(TypedDict):
    """An ATR the flight may take (11.18.1): its base and range, the hexes it reaches
    with the face-down units there, and whether it is large (Option 36: 2 units within
    half its range)."""

    base: str | None
    range: int
    large: bool
    hexes: dict[str, list[str]]


class AirQuestionShown(TypedDict):
    """What an air-to-air result asks a side: how many of `units` are lost and how many
    aborted, and the default answer (the lost first)."""

    hex: str
    against: str
    lost: int
    aborted: int
    units: list[str]
    default: list[str]
    text: str


class PlacementShown(TypedDict):
    unit: str
    hex: str


class FlightShown(TypedDict):
    atr: str
    hex: str
    units: list[str]


class AirDefault(TypedDict):
    """The body the default answers a window with: no patrol, no flight, no
    interception, the default losses."""

    patrols: NotRequired[list[PlacementShown]]
    flights: NotRequired[list[FlightShown]]
    escorts: NotRequired[list[PlacementShown]]
    interceptors: NotRequired[list[PlacementShown]]
    hex: NotRequired[str]
    lost: NotRequired[list[str]]
    aborted: NotRequired[list[str]]


class AirWindowShown(TypedDict):
    """A window of an air reorganization mission (docs/api.md "ATR missions"): which
    (`window`, its `rule`), whose mission (`side`), where its fighters may fly
    (`hexes`), the awaited side's fighters that may fly and the hexes each reaches, the
    ATRs the flight may take (`air.flight`), the aircraft in the air so far, the answer
    given by default, and the question of an air-to-air result (`air.choice`)."""

    window: str
    rule: str
    side: str
    hexes: list[str]
    fighters: dict[str, list[str]]
    atrs: dict[str, AtrChoice]
    sorties: list[SortieShown]
    default: AirDefault
    question: NotRequired[AirQuestionShown]


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
    # In a window of an air reorganization mission: what it asks and may be answered.
    air: NotRequired[AirWindowShown]


def current_step(state: State) -> PositionStep:
    """The step orders must name: `consent` while a rollback proposal is pending,
    `combat.choice` while a combat's result waits for a side's answer."""
    if state.proposal is not None:
        return CONSENT
    if state.modes.resolution is not None and state.modes.resolution.question is not None:
        return CHOICE
    if state.air is not None and state.air.window:
        return state.air.window  # type: ignore[return-value]
    return state.turn.step


def position(state: State) -> Position:
    return {"turn": state.turn.number, "impulse": state.turn.impulse,
            "step": current_step(state)}


def clock_started(state: State) -> str | None:
    """When the clock of what the game waits for now started: a combat's question's
    when it was asked (docs/api.md "Combat choices"), an ATR mission's window when it
    opened (11.18.1, docs/api.md "ATR missions"), else the step's start. Deadlines and
    their reminders count from it."""
    res = state.modes.resolution
    if res is not None and res.question is not None:
        return res.question.asked_at
    if state.air is not None and state.air.window:
        return state.air.opened_at
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
    st.REORGANIZATION: ("reorg", "air.begin", "done", "steps"),
    st.FINAL_REORGANIZATION: ("reorg", "air.begin", "done", "steps"),
    st.PRODUCTION: ("production",), CHOICE: ("combat.choose", "standing"),
    "air.patrol": ("air.patrol", "standing"), "air.flight": ("air.fly",),
    "air.intercept": ("air.intercept",), "air.counter": ("air.intercept",),
    "air.choice": ("air.choose",),
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
    if step == "air.choice" and state.air is not None and state.air.question is not None:
        units = list(state.air.question.units)
        return {"lost.*": units, "aborted.*": units}
    return {}


def _entry(state: State, side: str, powers: list[str], step: PositionStep, due: str | None
           ) -> AwaitingEntry:
    orders = list(_ORDERS.get(step, ()))
    if "air.begin" in orders and not state.setup.options["reorg"].get("atr_interception"):
        orders.remove("air.begin")  # ATR missions simply arrive (RULES-NOTES 29)
    entry: AwaitingEntry = {"side": side, "powers": powers, "step": step, "deadline": due,
                            "orders": orders}
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
    if state.air is not None and state.air.window:
        m = state.air
        out = []
        for side in m.sides:
            if side not in m.answered:
                entry = _entry(state, side, list(state.side_powers(side)),
                               m.window, due)  # type: ignore[arg-type]
                entry["air"] = air_window(state, m, side)
                out.append(entry)
        return out
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


_RULES: Final = {"air.patrol": "11.18.1 step 1", "air.flight": "11.18.1 step 2",
                 "air.intercept": "11.18.1 step 3", "air.counter": "11.18.1 step 4",
                 "air.choice": "11.18.1 step 5"}
_DEFAULTS: Final[dict[str, AirDefault]] = {
    "air.patrol": {"patrols": []}, "air.flight": {"flights": [], "escorts": []},
    "air.intercept": {"interceptors": []}, "air.counter": {"interceptors": []},
}


def air_window(state: State, m: AirMission, side: str) -> AirWindowShown:
    """What window `m.window` asks `side` (the orders check the same)."""
    hexes = window_hexes(m, m.window)
    shown: AirWindowShown = {
        "window": m.window, "rule": _RULES[m.window], "side": m.side, "hexes": hexes,
        "fighters": reach(state, side, hexes) if m.window != "air.choice" else {},
        "atrs": {}, "sorties": [{"unit": s.unit, "hex": s.hex, "role": s.role,
                                 "side": s.side, "fate": s.fate} for s in m.sorties],
        "default": {**_DEFAULTS.get(m.window, {})},
    }
    if m.window == "air.flight":
        sc = state.setup.scenario
        for aid in atrs(state, side):
            spec = sc.unit(aid).atr
            assert spec is not None
            shown["atrs"][aid] = {"base": atr_base(state, aid), "range": spec.range,
                                  "large": spec.large, "hexes": atr_targets(state, aid)}
    q = m.question
    if m.window == "air.choice" and q is not None:
        shown["question"] = {"hex": q.hex, "against": q.against, "lost": q.lost,
                             "aborted": q.aborted, "units": list(q.units),
                             "default": list(q.default), "text": q.text}
        shown["default"] = {"hex": q.hex, "lost": list(q.default[:q.lost]),
                            "aborted": list(q.default[q.lost:])}
    return shown
