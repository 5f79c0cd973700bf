"""The `release` order: Reserve Mode units released in the Reaction step (every side
at war with the phasing side, in turn order) or the Exploitation step (the phasing
side) (seed 004, OCS 5.7b; RULES-NOTES 31).

Body: ``{"units": ["cw-arm-1"]}``. The Reserve marker comes off and the unit is in
Combat or Move Mode by its orientation (OCS 5.7a). Released in the Reaction step it moves
with half its MA, may overrun with full values and barrage, but not attack in regular
combat (OCS 5.7b B); in the Exploitation step it has its full values (OCS 5.7b A).

One release at a time (OCS 5.7b): the units of a release move and overrun before the
player decides on other Reserves, so a new release ends the movement of the one
before (`ModeState.release`).
"""

from __future__ import annotations

from dataclasses import replace

from service.rules import state as st
from service.rules.command import Command
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.modes import vocabulary as m
from service.rules.modes.effective import power_passed
from service.rules.modes.items import acting_side, held_unit, refuse_unit, strings, unknown_keys
from service.rules.state import Evolver, Release, State

__all__ = ["check_release", "release_reserves"]


def _at_war_with_phasing(state: State, power: str) -> bool:
    sc = state.setup.scenario
    phasing = state.turn.phasing_side
    return any(sc.at_war(power, p) for p in state.side_powers(str(phasing)))


def check_release(state: State, uid: str, path: str = "/body/units/0") -> None:
    """The RulesError releasing `uid` in this Reaction or Exploitation step meets, if any
    (OCS 5.7b; the step and the side aside): the `release` order and the options."""
    unit = state.units[uid]
    step = state.step
    if unit.mode != m.RESERVE:
        raise refuse_unit("release/not_in_reserve", uid, f"is in {unit.mode} mode, not "
                          "Reserve: only Reserve units are released", rule="OCS 5.7b",
                          path=path)
    if step == st.EXPLOITATION and power_passed(state, unit.power):
        raise refuse_unit("release/power_passed", uid, f"belongs to {unit.power}, which "
                          "passed this impulse", rule="seed 002 Effects of Passing", path=path)
    if step == st.REACTION and not _at_war_with_phasing(state, unit.power):
        raise refuse_unit("release/not_at_war", uid, f"belongs to {unit.power}, which is "
                          f"not at war with {state.turn.phasing_side}: it does not react",
                          rule="RULES-NOTES 31", path=path)


def release_reserves(f: Flow, c: Command) -> None:
    """The `release` order (OCS 5.7b)."""
    side = acting_side(f, c, (st.REACTION, st.EXPLOITATION), "OCS 5.7b")
    unknown_keys(c.body, ("units",), "/body")
    names = strings(c.body.get("units"), "/body/units")
    step = f.state.step
    orientations: dict[str, str] = {}
    for i, name in enumerate(names):
        path = f"/body/units/{i}"
        _spec, unit = held_unit(f.state, c, name, path)
        check_release(f.state, name, path)
        assert unit.orientation is not None
        orientations[name] = unit.orientation
    how = "half MA, overrun, barrage; no regular combat (OCS 5.7b B)" if step == st.REACTION \
        else "full movement, barrage and combat (OCS 5.7b A)"
    shown = ", ".join(f"{u} ({o})" for u, o in orientations.items())
    f.emit("reserves.released", f"{side} releases {shown}: {how}.",
           {"side": side, "step": step, "units": names, "orientations": orientations},
           by=c.actor.id)


def _released(state: State, e: Event) -> State:
    step = e.data["step"]
    units = dict(state.units)
    for uid in e.data["units"]:
        unit = units[uid]
        units[uid] = replace(unit, mode=unit.orientation, released=step)
    release = Release(side=e.data["side"], step=step, units=tuple(e.data["units"]))
    return replace(state, units=units, modes=replace(state.modes, release=release))


EVOLVE: dict[EventKind, Evolver] = {
    "reserves.released": _released,
}
