"""Whether a side takes part in a reorganization step (docs/api.md, RULES-NOTES 6, 7):
it has a face-down unit and RPs to spend, a free means of reorganizing, or a damaged
port of its own and the RPs to repair it (11.18.4); and the rail moves a power has left
in the impulse (11.18.6)."""

from __future__ import annotations

from service.rules.scenario import SUPPLY
from service.rules.state import State


def rail_moves_left(state: State, power: str) -> int:
    """11.18.6: the power's rail moves for the impulse (the scenario's `rail_moves`) less
    those its moves by rail and its railway reorganization used (`State.rail_left`)."""
    return state.rail_left(power)


def rps_coming(state: State, power: str) -> int:
    """The RPs `power` gets in a reorganization step (RULES-NOTES 8)."""
    ps = state.powers[power]
    return ps.bp_spent_last_turn + ps.bp_on_rps


def port_to_repair(state: State, side: str) -> str | None:
    """11.18.4, RULES-NOTES 23: a damaged port a power of `side` controls, free of enemy
    land units, whose repair one of the side's powers has the RPs for; None if none."""
    sc = state.setup.scenario
    powers = state.side_powers(side)
    best = max((rps_coming(state, p) for p in powers), default=0)
    costs = state.setup.options["reorg"]["port_repair_cost"]
    for h in sc.map.hexes:
        holder = h.controller
        if (h.port is None or not h.port_damaged or h.id in state.reorg.repaired_ports
                or holder is None or int(costs[h.port]) > best
                or sc.side_of_power(holder) != side):
            continue
        if not any(u.at == h.id and sc.unit(uid).unit_class == "land"
                   and sc.at_war(u.power, holder) for uid, u in state.units.items()):
            return h.id
    return None


def could_reorganize(state: State, side: str) -> bool:
    """A face-down (or shattered) unit of `side`, and RPs coming (RULES-NOTES 8), a
    unit costing none, a face-up supply unit to expend (short form, option
    `reorg.supply_unit_expend`) or a naval / reorganize-HQs chit played (11.18.11); or
    a damaged port to repair (11.18.4: "Damaged ports can receive RPs in order to
    repair the port only"), face-down units or not."""
    sc = state.setup.scenario
    if port_to_repair(state, side) is not None:
        return True
    down = [(uid, u) for uid, u in state.units.items()
            if (not u.face_up or u.shattered) and sc.side_of_power(u.power) == side]
    if not down:
        return False
    powers = state.side_powers(side)
    if any(rps_coming(state, p) > 0 for p in powers):
        return True
    if any(sc.unit(uid).cost == 0 for uid, _ in down):
        return True
    if state.setup.options["reorg"]["supply_unit_expend"] and any(
        u.face_up and sc.unit(uid).type == SUPPLY and sc.side_of_power(u.power) == side
        for uid, u in state.units.items()
    ):
        return True
    return state.turn.phasing_side == side and any(
        (state.powers[p].chit or {}).get("kind") in ("naval", "reorganize_hqs") for p in powers
    )
