"""Who takes part in a step (docs/api.md): sides at war, sides with units in a
mode (sides with something to reorganize: `service.rules.reorg.could_reorganize`)."""

from __future__ import annotations

from service.rules.state import State


def at_war(state: State, side_a: str, side_b: str) -> bool:
    sc = state.setup.scenario
    for power_id in state.side_powers(side_a):
        enemies = set(sc.power(power_id).at_war_with)
        if any(p in enemies for p in state.side_powers(side_b)):
            return True
    return False


def has_mode(state: State, side: str, modes: tuple[str, ...]) -> bool:
    sc = state.setup.scenario
    return any(
        u.mode in modes and sc.side_of_power(u.power) == side for u in state.units.values()
    )
