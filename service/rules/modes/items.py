"""What the orders naming units (`mode`, `release`, `report`) check alike: the step
and the side acting in it, the body's shape, the units named and who holds them.

Every refusal names the unit (`extra["unit"]`), the rule and the item's path, and
says why in a sentence: "cw-inf-3 is in an enemy ZOC: no Reserve (OCS 5.7c)".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.rules import state as st
from service.rules.awaiting import awaiting, position
from service.rules.command import Command
from service.rules.errors import Forbidden, Malformed, Refused
from service.rules.flow import Flow
from service.rules.scenario import UnitSpec
from service.rules.state import State, UnitState

__all__ = [
    "acting_side", "held_unit", "malformed", "number", "refuse",
    "refuse_unit", "strings", "unknown_keys",
]


def refuse_unit(code: str, unit: str, reason: str, *, rule: str, path: str) -> Refused:
    """A 409 naming the unit, the rule and the item: "<unit> <reason> (<rule>)"."""
    return Refused(code, f"{unit} {reason} ({rule})", rule=rule, errors=[(path, reason)],
                   extra={"unit": unit})


def refuse(code: str, message: str, *, rule: str, path: str,
           unit: str | None = None) -> Refused:
    extra = {"unit": unit} if unit else {}
    return Refused(code, f"{message} ({rule})", rule=rule, errors=[(path, message)],
                   extra=extra)


def malformed(message: str, *, path: str, rule: str | None = None,
              unit: str | None = None, code: str = "order/invalid_body") -> Malformed:
    """A 422; without a rule of its own, the body's shape is at fault (the order kinds
    and their bodies), which its path names."""
    extra = {"unit": unit} if unit else {}
    shown = f"{message} ({rule})" if rule else message
    if unit and unit not in message:
        shown = f"{unit}: {shown}"
    return Malformed(code, f"{path}: {shown}", rule=rule, errors=[(path, message)],
                     extra=extra)


def _wrong_step(state: State, kind: str, why: str, rule: str) -> Refused:
    return Refused("order/wrong_step", f"{kind} is not allowed now: {why} ({rule})",
                   rule=rule, extra={"current": position(state), "awaiting": awaiting(state)})


def acting_side(f: Flow, c: Command, steps: Sequence[str], rule: str) -> str:
    """The side giving `c` in one of `steps`, where it takes part and is not done.
    In the Reaction step the sides react one after the other, in turn order
    (RULES-NOTES 31): only the first side not yet done may act."""
    s = f.state
    if s.step not in steps:
        raise _wrong_step(s, c.kind, f"the step is {s.step}, and {c.kind} orders belong to "
                          f"the {' or '.join(steps)} step", rule)
    side = c.actor.side
    if side not in s.turn.step_sides:
        raise Refused("order/not_your_turn", f"{side} takes no part in the {s.step} step",
                      rule=st.step_rule(s.step), extra={"awaiting": awaiting(s)})
    if side in s.turn.sides_done:
        raise Refused("order/already_done", f"{side} is already done with {s.step}",
                      rule=st.step_rule(s.step))
    if s.step == st.REACTION:
        first = next(x for x in s.turn.step_sides if x not in s.turn.sides_done)
        if side != first:
            raise Refused("order/not_your_turn", f"{first} reacts first; {side} reacts when "
                          f"{first} is done (RULES-NOTES 31)", rule="RULES-NOTES 31",
                          extra={"awaiting": awaiting(s)})
    assert side is not None
    return side


def unknown_keys(item: Mapping[str, object], allowed: Sequence[str], path: str) -> None:
    for key in item:
        if key not in allowed:
            raise malformed(f"unknown field {key!r}; expected {', '.join(allowed)}",
                            path=f"{path}/{key}")


def strings(value: object, path: str, *, what: str = "unit ids",
            empty: bool = False, distinct: bool = True) -> list[str]:
    """A list of strings (non-empty unless `empty`; each once unless not `distinct`)."""
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise malformed(f"expected a list of {what}", path=path)
    if not value and not empty:
        raise malformed(f"expected at least one of the {what}", path=path)
    seen: set[str] = set()
    for i, v in enumerate(value):
        if v in seen and distinct:
            raise malformed(f"{v} is named twice", path=f"{path}/{i}")
        seen.add(v)
    return list(value)


def number(value: object, path: str, *, lo: float = 0, hi: float = 1000) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not lo <= value <= hi:
        raise malformed(f"expected a number {lo}-{hi}", path=path)
    return float(value)


def held_unit(state: State, c: Command, uid: object, path: str) -> tuple[UnitSpec, UnitState]:
    """The unit `uid`, on the map and commanded by one of the actor's powers."""
    if not isinstance(uid, str):
        raise malformed("expected a unit id", path=path)
    unit = state.units.get(uid)
    if unit is None:
        gone = uid in state.modes.eliminated
        raise malformed(f"{uid} was eliminated" if gone else f"unknown unit {uid}",
                        path=path, unit=uid, code="order/unknown_unit")
    sc = state.setup.scenario
    if sc.controller_of(unit.power) not in c.actor.powers:
        raise Forbidden("order/power_not_held",
                        f"{c.actor.id} does not hold {sc.controller_of(unit.power)}, which "
                        f"commands {uid}", errors=[(path, "power not held")],
                        extra={"unit": uid})
    return sc.unit(uid), unit
