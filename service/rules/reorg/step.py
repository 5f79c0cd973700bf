"""Whether a side takes part in a reorganization step (docs/api.md, RULES-NOTES 6, 7):
it has a face-down unit and RPs to spend, or a free means of reorganizing; and the
rail moves a power has left in the impulse (11.18.6)."""

from __future__ import annotations

from service.rules.scenario import SUPPLY
from service.rules.state import State


def rail_moves_left(state: State, power: str) -> int:
    """11.18.6: the power's rail moves for the impulse (the scenario's `rail_moves`) less
    those its moves by rail and its railway reorganization used (`State.rail_left`)."""
    return state.rail_left(power)


def could_reorganize(state: State, side: str) -> bool:
    """A face-down (or shattered) unit of `side`, and RPs coming (RULES-NOTES 8), a
    unit costing none, a face-up supply unit to expend (short form, option
    `reorg.supply_unit_expend`) or a naval / reorganize-HQs chit played (11.18.11)."""
    sc = state.setup.scenario
    down = [(uid, u) for uid, u in state.units.items()
            if (not u.face_up or u.shattered) and sc.side_of_power(u.power) == side]
    if not down:
        return False
    powers = state.side_powers(side)
    if any(state.powers[p].bp_spent_last_turn + state.powers[p].bp_on_rps > 0 for p in powers):
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
