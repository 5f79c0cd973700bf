"""Face down and shattered from play (11.18; RULES-NOTES 18; docs/rules-options.md).

11.18 reorganization turns face-down units face up "to move and attack again in later
impulses": what moves and attacks turns face down. The seeds do not say when, nor
how a unit is shattered; the readings (option `reorg.face_down`, default "clean_up"):

- At the phasing side's clean up (the end of its impulse, before its reorganization
  step) every face-up unit that moved or attacked this impulse turns face down, of
  any side and any class: land moves, overruns, attacks and barrages, naval moves and
  naval combat; and the phasing side's naval and air units in a sea area (at sea).
  Land units move and then attack in one impulse, so they turn at the end of it.
- An air unit turns face down as it returns from a mission, at once (as 11.18.1 step 8
  says of an ATR's mission: "return all remaining aircraft to base and turn them face
  down"), whatever the option.
- A combat result may shatter units (result "shattered", a naval combat's or an air
  mission's too): face down and shattered, they need two reorganizations (11.18).

With option `reorg.face_down` "report" nothing turns face down at clean up: the
`report` order's `face_down` list says which units did.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from service.rules.events import Event, EventKind
from service.rules.state import Evolver, State

__all__ = ["CLEAN_UP", "EVOLVE", "face_down_at_clean_up"]
CLEAN_UP: Final = "clean_up"


def face_down_at_clean_up(state: State) -> list[str]:
    """The units that turn face down at the phasing side's clean up (option
    `reorg.face_down` "clean_up"): those that moved or attacked this impulse, and the
    phasing side's naval and air units at sea; face-up ones, in id order."""
    if state.setup.options["reorg"]["face_down"] != CLEAN_UP:
        return []
    sc = state.setup.scenario
    side = state.turn.phasing_side
    turned = []
    for uid, u in sorted(state.units.items()):
        if not u.face_up:
            continue
        at_sea = sc.map.is_sea(u.at) and sc.unit(uid).unit_class in ("naval", "air") \
            and sc.side_of_power(u.power) == side
        if u.moved or u.attacked or at_sea:
            turned.append(uid)
    return turned


def _face_down(state: State, e: Event) -> State:
    units = dict(state.units)
    for uid in e.data["units"]:
        units[uid] = replace(units[uid], face_up=False)
    return replace(state, units=units)


def _shattered(state: State, e: Event) -> State:
    units = dict(state.units)
    for uid in e.data["units"]:
        units[uid] = replace(units[uid], face_up=False, shattered=True)
    return replace(state, units=units)


def _flew(state: State, e: Event) -> State:
    uid = e.data["unit"]
    unit = state.units[uid]
    back = replace(unit, at=e.data["base"], face_up=False,
                   shattered=unit.shattered or e.data["result"] == "shattered")
    return replace(state, units={**state.units, uid: back})


EVOLVE: dict[EventKind, Evolver] = {
    "units.turned_face_down": _face_down,
    "units.shattered": _shattered,
    "unit.flew_mission": _flew,
}
