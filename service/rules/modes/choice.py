"""Whether a side has anything to decide in a step (issue 20, "skip what nobody can
use"): a side with no legal choice in the reaction, combat or exploitation step is not
asked, and the log says why. A choice here is one the options endpoints list as legal
(`legal.py`, built on the same checks as the orders): a Reserve unit that may be released
(OCS 5.7b), a unit that may attack (by combat next to an enemy, or by barrage), an
Exploitation Mode unit that may act (OCS 5.9), an air unit that may fly a mission, a
naval unit sharing a sea area with an enemy's, or a combat rolled and waiting for its
results.

`no_choice` judges the step as it would be once begun, so it may be asked just before
the step's `step.began`.
"""

from __future__ import annotations

from dataclasses import replace

from service.rules import state as st
from service.rules.board import grid_of
from service.rules.errors import RulesError
from service.rules.modes import vocabulary as m
from service.rules.modes.effective import power_passed
from service.rules.modes.release import check_release
from service.rules.modes.results import check_attacker
from service.rules.state import State

__all__ = ["no_choice"]


def _passes(check: object, *args: object) -> bool:
    try:
        check(*args)  # type: ignore[operator]
    except RulesError:
        return False
    return True


def _as_begun(state: State, side: str, step: st.Step) -> State:
    return replace(state, turn=replace(state.turn, step=step, step_sides=(side,),
                                       sides_done=()))


def _releasable(state: State, side: str) -> bool:
    sc = state.setup.scenario
    return any(u.mode == m.RESERVE and sc.side_of_power(u.power) == side
               and _passes(check_release, state, uid)
               for uid, u in sorted(state.units.items()))


def _attack_possible(state: State, side: str) -> bool:
    """A unit of `side` that may attack in the combat step: by combat next to an enemy
    land unit, or by barrage (any hex holding enemy land units: the referee does not
    count barrage ranges)."""
    sc = state.setup.scenario
    grid = grid_of(sc.map)
    enemy_at: dict[str, set[str]] = {}
    for uid, u in state.units.items():
        if sc.unit(uid).unit_class == "land" and sc.map.is_hex(u.at):
            enemy_at.setdefault(u.at, set()).add(u.power)
    for uid, u in sorted(state.units.items()):
        if sc.side_of_power(u.power) != side or not sc.map.is_hex(u.at):
            continue
        spec = sc.unit(uid)
        if spec.unit_class != "land" or spec.ocs is None:
            continue
        if _passes(check_attacker, state, uid, "barrage", "/") and any(
                any(sc.at_war(u.power, p) for p in powers) for powers in enemy_at.values()):
            return True
        if _passes(check_attacker, state, uid, "combat", "/"):
            near = (grid.ids[i] for i in grid.nbrs[grid.index[u.at]])
            if any(sc.at_war(u.power, p) for h in near for p in enemy_at.get(h, ())):
                return True
    return False


def _flies_or_sails(state: State, side: str) -> bool:
    """An air unit that may fly a mission, or a naval unit in a sea area holding an
    enemy's naval unit (a naval combat)."""
    sc = state.setup.scenario
    navies: dict[str, set[str]] = {}
    for uid, u in state.units.items():
        if sc.unit(uid).unit_class == "naval" and not sc.map.is_hex(u.at):
            navies.setdefault(u.at, set()).add(u.power)
    for uid, u in sorted(state.units.items()):
        if sc.side_of_power(u.power) != side or not u.face_up or power_passed(state, u.power):
            continue
        kind = sc.unit(uid).unit_class
        if kind == "air":
            return True
        if kind == "naval" and any(sc.at_war(u.power, p) for p in navies.get(u.at, ())):
            return True
    return False


def _exploits(state: State, side: str) -> bool:
    sc = state.setup.scenario
    return any(u.mode == m.EXPLOIT and u.face_up and sc.side_of_power(u.power) == side
               and not power_passed(state, u.power) for u in state.units.values())


def no_choice(state: State, side: str, step: st.Step) -> str | None:
    """Why `side` would have nothing to decide in `step` (reaction, combat or
    exploitation), or None when it has a choice."""
    s = _as_begun(state, side, step)
    if step == st.REACTION:
        if _releasable(s, side):
            return None
        return (f"no Reserve unit of {side} may be released against "
                f"{state.turn.phasing_side} (OCS 5.7b, RULES-NOTES 31)")
    if step == st.EXPLOITATION:
        if _exploits(s, side) or _releasable(s, side):
            return None
        return (f"no unit of {side} in Exploitation Mode may act and no Reserve unit of it "
                "may be released (OCS 5.9, OCS 5.7b)")
    if step == st.COMBAT:
        if any(c.side == side for c in s.modes.combats.values()) or _attack_possible(s, side) \
                or _flies_or_sails(s, side):
            return None
        return (f"no unit of {side} may attack, barrage, fly a mission or fight at sea, and "
                "no combat of it waits for its results")
    return None
