"""Effective values of a unit in its mode and the current step (seed 004, OCS 5.2-5.10):
what it attacks and defends with, how far it may move now, its Action Rating and
barrage, whether it exerts a ZOC, and what it may do now.

Base values are those of the side of the counter showing (OCS 5.2). Modifiers:

- Reserve (OCS 5.7): defends at half strength; cannot attack, overrun or barrage until
  released (attack and barrage count 0); moves 1/4 MA in its movement step, 1/2 when
  released in the Reaction step (OCS 5.7b B), full when released in Exploitation (OCS 5.7b A).
- Strat (OCS 5.8): combat strength and Action Rating 0, no attack, overrun or barrage;
  moves twice its MA.
- Exploit (OCS 5.9): moves half its MA; combat and barrage normal.
- DG (OCS 5.10b): combat, barrage and MA halved; Action Rating -1 (the printed one is
  kept for the Attrition Table); no overrun and no Exploitation.

Fractions are kept (multiples of 1/4). A face-down unit cannot move, overrun or
attack (RULES-NOTES 27: it cannot move; WiF's disorganized units do not attack).
"""

from __future__ import annotations

from typing_extensions import TypedDict

from service.rules import state as st
from service.rules.board import exerts_zoc
from service.rules.modes import vocabulary as m
from service.rules.scenario import OcsValues, UnitSpec
from service.rules.state import State, UnitState

__all__ = [
    "EffectiveView", "base_values", "effective", "mode_view", "movement_ma", "power_passed",
    "step_ma", "transports_allowed",
]


def _num(x: float) -> float:
    """Whole numbers as ints, so views and events read 4 rather than 4.0."""
    return int(x) if float(x).is_integer() else x


def base_values(spec: UnitSpec, orientation: str | None) -> OcsValues:
    """The values printed on the side showing (OCS 5.2): the Combat Mode side (OCS 5.5)
    or the Move Mode side (OCS 5.6; OCS 5.6b: no Combat side for Repl and Transport
    Points)."""
    assert spec.ocs is not None
    return spec.ocs.combat if orientation == m.COMBAT else spec.ocs.move


def movement_ma(spec: UnitSpec, unit: UnitState) -> float:
    """MA in its side's movement step: Reserve 1/4 (OCS 5.7), Strat x2 (OCS 5.8), Exploit 1/2
    (OCS 5.9), DG 1/2 (OCS 5.10b A)."""
    ma = base_values(spec, unit.orientation).ma
    factor = {m.RESERVE: 0.25, m.STRAT: 2.0, m.EXPLOIT: 0.5, m.DG: 0.5}.get(unit.mode or "", 1.0)
    return _num(ma * factor)


def power_passed(state: State, power: str) -> bool:
    """Whether the phasing side's power commanding `power` passed this impulse
    (docs/api.md: a power that passes takes no action)."""
    major = state.setup.scenario.controller_of(power)
    ps = state.powers[major]
    return ps.side == state.turn.phasing_side and ps.declared == "pass"


def step_ma(state: State, uid: str) -> float:
    """How far the unit may move in the current step (0 when it may not move now)."""
    unit = state.units[uid]
    spec = state.setup.scenario.unit(uid)
    if spec.ocs is None or not m.uses_modes(spec) or not unit.face_up:
        return 0
    side = m.side_of_unit(state, uid)
    phasing = side == state.turn.phasing_side
    step = state.turn.step
    base = base_values(spec, unit.orientation).ma
    if step == st.ACTION and phasing and not power_passed(state, unit.power):
        return movement_ma(spec, unit)
    if step == st.REACTION and unit.released == st.REACTION:
        return _num(base * 0.5)  # OCS 5.7b B
    if step == st.EXPLOITATION and phasing:
        if unit.mode == m.EXPLOIT:
            return _num(base * 0.5)  # OCS 5.9
        if unit.released == st.EXPLOITATION:
            return base  # OCS 5.7b A
    return 0


def transports_allowed(spec: UnitSpec, unit: UnitState) -> tuple[str, ...]:
    """Rail, air and shipping transport need Move Mode (OCS 5.6a), so never Combat (OCS 5.5a;
    Rail Repair units may still go by rail, 13.3g), Reserve (OCS 5.7e), Strat (OCS 5.8d),
    DG (OCS 5.10d) or Exploit (OCS 5.2: the marker's mode, not the orientation, counts)."""
    if unit.mode == m.MOVE:
        return m.TRANSPORTS
    if unit.mode == m.COMBAT and spec.ocs is not None and spec.ocs.rail_repair:
        return ("rail",)
    return ()


def _can_fight_now(state: State, uid: str) -> tuple[bool, bool, bool]:
    """(attack, overrun, barrage) allowed in the current step by mode and step."""
    unit = state.units[uid]
    spec = state.setup.scenario.unit(uid)
    if not unit.face_up or spec.ocs is None or m.is_transport(spec):
        return False, False, False
    if unit.mode in (m.RESERVE, m.STRAT):  # OCS 5.7, OCS 5.8
        return False, False, False
    side = m.side_of_unit(state, uid)
    phasing = side == state.turn.phasing_side
    step = state.turn.step
    dg = unit.mode == m.DG
    if step == st.ACTION:
        acts = phasing and not power_passed(state, unit.power)
        return False, acts and not dg, False
    if step == st.REACTION:  # OCS 5.7b B: overrun and barrage, no regular combat
        released = unit.released == st.REACTION
        return False, released and not dg, released
    if step == st.COMBAT:
        acts = phasing and not power_passed(state, unit.power)
        return acts, False, acts
    if step == st.EXPLOITATION and phasing:  # OCS 5.7b A, OCS 5.9
        acts = unit.mode == m.EXPLOIT or unit.released == st.EXPLOITATION
        return acts, acts and not dg, acts
    return False, False, False


def effective(state: State, uid: str) -> EffectiveView | None:
    """The unit's effective values now, as a unit's view shows them: `ma` is its
    allowance in the current step and `movement_ma` what its mode gives it in its
    side's movement (action) step; None for units that use no modes (OCS 5.1)."""
    unit = state.units[uid]
    spec = state.setup.scenario.unit(uid)
    if spec.ocs is None or not m.uses_modes(spec):
        return None
    base = base_values(spec, unit.orientation)
    mode = unit.mode
    half = {m.DG: 0.5}.get(mode or "", 1.0)
    attack = 0.0 if mode in (m.RESERVE, m.STRAT) else base.strength * half
    defence = {m.RESERVE: 0.5, m.STRAT: 0.0, m.DG: 0.5}.get(mode or "", 1.0) * base.strength
    barrage = 0.0 if mode in (m.RESERVE, m.STRAT) else spec.ocs.barrage * half
    printed = spec.ocs.action_rating
    rating = 0 if mode == m.STRAT else max(0, printed - 1) if mode == m.DG else printed
    ma = step_ma(state, uid)
    used = unit.mp_used if unit.mp_step == state.turn.step else 0.0
    can_attack, can_overrun, can_barrage = _can_fight_now(state, uid)
    transport = (
        state.turn.step == st.ACTION and ma > 0 and bool(transports_allowed(spec, unit))
    )
    return {
        "attack": _num(attack),
        "defence": _num(defence),
        "ma": ma,
        "mp_left": _num(max(0.0, ma - used)),
        "movement_ma": movement_ma(spec, unit),
        "action_rating": rating,
        "attrition_action_rating": printed,
        "barrage": _num(barrage),
        "zoc": exerts_zoc(spec, mode, unit.orientation),
        "can_attack": can_attack and attack > 0,
        "can_overrun": can_overrun and attack > 0 and ma > used,
        "can_barrage": can_barrage and barrage > 0,
        "can_use_transport": transport,
    }


class ThisImpulse(TypedDict):
    """What the unit did in this impulse (OCS 5.3, 5.7): `released` names the step in
    which it left Reserve."""

    mode_changed: bool
    moved: bool
    attacked: bool
    released: str | None


class EffectiveView(TypedDict):
    """A unit's values in its current mode (OCS 5.5-5.10)."""

    attack: float
    defence: float
    ma: float
    mp_left: float
    movement_ma: float
    action_rating: int
    attrition_action_rating: int
    barrage: float
    zoc: bool
    can_attack: bool
    can_overrun: bool
    can_barrage: bool
    can_use_transport: bool


class ModeView(TypedDict):
    """The mode fields of a unit's view: steps lost, what it did this impulse, and its
    effective values (null for units that use no modes)."""

    steps_lost: int
    this_impulse: ThisImpulse
    effective: EffectiveView | None


def mode_view(state: State, uid: str) -> ModeView:
    """The mode fields of a unit's view: steps lost, what it did this impulse, and its
    effective values (None for units that use no modes)."""
    unit = state.units[uid]
    return {
        "steps_lost": unit.steps_lost,
        "this_impulse": {
            "mode_changed": unit.mode_changed,
            "moved": unit.moved,
            "attacked": unit.attacked,
            "released": unit.released,
        },
        "effective": effective(state, uid),
    }
