"""OCS unit modes (seed 004, OCS 5.0): the vocabulary, the side-wide bookkeeping and the
questions every mode rule asks (which units use modes, Reserve markers in use).

A unit's mode (`UnitState.mode`) and orientation (`UnitState.orientation`, the side
of the counter showing) are kept apart from WiF's face up / face down
(RULES-NOTES 18). Units that use no modes (OCS 5.1) keep `mode` as the scenario gave it
and no order changes it.

What a unit did this impulse (`moved`, `attacked`, `mode_changed`, `released`,
`mp_used`) is cleared at the phasing side's clean up (`impulse_marks_cleared`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from service.rules.scenario import UnitSpec
from service.rules.scenario import uses_modes as uses_modes  # OCS 5.1, with the vocabulary
from service.rules.state import State, UnitState

COMBAT: Final = "combat"
MOVE: Final = "move"
RESERVE: Final = "reserve"
STRAT: Final = "strat"
EXPLOIT: Final = "exploit"
DG: Final = "dg"
MODES: Final = (COMBAT, MOVE, RESERVE, STRAT, EXPLOIT, DG)
ORIENTATIONS: Final = (COMBAT, MOVE)
VOLUNTARY: Final = (COMBAT, MOVE, RESERVE, STRAT)  # OCS 5.3
INVOLUNTARY: Final = (EXPLOIT, DG)  # OCS 5.3


# Rail, air and shipping transport (OCS 5.5a, 5.6a); amphibious landings are OCS 5.5d / 5.6c.
TRANSPORTS: Final = ("rail", "air", "sea")
AMPHIBIOUS: Final = "amphibious"


# Transport Points and Organic Trucks (OCS 5.5c, 5.7f, 5.8c, 5.10c); Repl units with them
# have no Combat side (OCS 5.6b).
TRANSPORT_KINDS: Final = ("transport", "organic_truck")
MOVE_ONLY_KINDS: Final = ("transport", "organic_truck", "repl")


def side_of_unit(state: State, uid: str) -> str:
    return state.setup.scenario.side_of_power(state.units[uid].power)


def marker_placed(unit: UnitState) -> bool:
    """OCS 5.4a: "the marker need not be placed until after units have finished moving
    their 25%": a unit that changed into Reserve in this movement step and has not moved
    (nor overrun) yet has no marker placed."""
    return unit.mode != RESERVE or not unit.mode_changed or unit.moved or unit.attacked


def reserve_stacks(state: State, side: str, *, placed_only: bool = False) -> frozenset[str]:
    """Hexes where `side` has units in Reserve Mode: one Reserve marker each (OCS 5.4a);
    with `placed_only`, leaving out units whose marker is not placed yet."""
    sc = state.setup.scenario
    return frozenset(
        u.at for u in state.units.values()
        if u.mode == RESERVE and sc.side_of_power(u.power) == side
        and (not placed_only or marker_placed(u))
    )


def is_transport(spec: UnitSpec) -> bool:
    """Transport Points or an Organic Truck (OCS 5.5c, OCS 5.7f, OCS 5.8c, OCS 5.10c)."""
    return spec.ocs is not None and spec.ocs.kind in TRANSPORT_KINDS


def impulse_marks_cleared(state: State) -> State:
    """Clean up (RULES-NOTES 31): what units did this impulse is forgotten, the release
    in progress ends, and combats still waiting for their results are dropped."""
    units = {
        uid: (replace(u, moved=False, attacked=False, mode_changed=False, released=None,
                      mp_used=0.0, mp_step=None)
              if u.moved or u.attacked or u.mode_changed or u.released or u.mp_step else u)
        for uid, u in state.units.items()
    }
    return replace(state, units=units, modes=replace(state.modes, release=None, combats={}))
