"""Every choice a unit has now (issue 16): the modes it may take and why it may not take
the others (OCS 5.3-5.8), the hexes its moves may end in with what each costs and the
path, where transport may take it, and whether it may attack (and where), be released
(OCS 5.7b) or exploit (OCS 5.9). Clients offer these and nothing else.

Each choice listed is one the orders accept, because the same checks make the lists:
`check_change` (the `mode` order), `check_may_move`, `walk_route` and `transport_route`
(moves in a `report`), `check_attacker` (its combats), `check_release` (the `release`
order). Where a unit may not act, the answer says why, with the rule.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from service.rules import state as st
from service.rules.board import Board
from service.rules.errors import RulesError
from service.rules.modes import vocabulary as m
from service.rules.modes.change import check_change
from service.rules.modes.effective import effective, power_passed
from service.rules.modes.movement import Mover, ma_rule, mover, reachable
from service.rules.modes.release import check_release
from service.rules.modes.report import check_may_move
from service.rules.modes.results import BY_STEP, check_attacker
from service.rules.modes.transport import destinations
from service.rules.state import State

__all__ = ["side_options", "unit_options"]


# Every mode change a unit might ask for: (mode, orientation; None: its own).
CANDIDATES: Final = ((m.COMBAT, m.COMBAT), (m.MOVE, m.MOVE), (m.RESERVE, m.COMBAT),
                     (m.RESERVE, m.MOVE), (m.STRAT, m.MOVE), (m.EXPLOIT, None),
                     (m.DG, m.COMBAT), (m.DG, m.MOVE))


def _why(error: RulesError) -> dict[str, Any]:
    reason = error.errors[0][1] if error.errors else error.message
    return {"code": error.code, "rule": error.rule, "reason": reason}


def _problem(check: Callable[..., object], *args: object) -> dict[str, Any] | None:
    """The refusal `check(*args)` raises, as {code, rule, reason}; None if it passes."""
    try:
        check(*args)
    except RulesError as error:
        return _why(error)
    return None


def _acting(state: State, side: str, steps: tuple[str, ...], what: str, rule: str
            ) -> dict[str, Any] | None:
    """Why `side` gives no order of `what` now (the step, its turn in it), or None."""
    t = state.turn
    if t.step not in steps:
        return {"code": "order/wrong_step", "rule": rule,
                "reason": f"{what} belong to the {' or '.join(steps)} step; this is the "
                          f"{t.step} step"}
    if side not in t.step_sides or side in t.sides_done:
        done = side in t.sides_done
        return {"code": "order/not_your_turn", "rule": "DESIGN 5.3",
                "reason": f"{side} is {'done with' if done else 'not in'} the {t.step} step"}
    if t.step == st.REACTION:
        first = next(x for x in t.step_sides if x not in t.sides_done)
        if first != side:
            return {"code": "order/not_your_turn", "rule": "RULES-NOTES 31",
                    "reason": f"{first} reacts first"}
    return None


def _modes(state: State, board: Board, uid: str, side: str) -> dict[str, Any]:
    unit = state.units[uid]
    legal: list[dict[str, Any]] = []
    illegal: list[dict[str, Any]] = []
    step = _acting(state, side, (st.ACTION,), "mode changes", "OCS 5.4")
    for mode, orientation in CANDIDATES:
        given = orientation if orientation is not None else unit.orientation
        problem = step or _problem(check_change, state, board, uid, mode, given)
        entry = {"mode": mode, "orientation": given}
        if problem is None:
            legal.append(entry)
        else:
            illegal.append({**entry, **problem})
    return {"legal": legal, "illegal": illegal}


def _moves(state: State, mv: Mover, side: str) -> dict[str, Any]:
    unit = mv.unit
    mp = {"ma": mv.step_ma, "used": mv.used, "left": mv.allowance, "rule": ma_rule(unit),
          "move_class": mv.ground.move_class}
    problem = _acting(state, side, (st.ACTION, st.REACTION, st.EXPLOITATION), "moves",
                      "RULES-NOTES 31") or _problem(check_may_move, state, mv.uid, unit,
                                                    "/body/moves/0")
    if problem is None and mv.allowance <= 0:
        problem = {"code": "report/mp", "rule": ma_rule(unit),
                   "reason": f"has no MP left in this step ({mv.used:g} of {mv.step_ma:g} "
                             "used)"}
    if problem is not None:
        return {"mp": mp, "may": False, "why": problem, "hexes": [], "transport": {}}
    hexes = [{"to": to, "mp": r.cost, "spends": r.charge, "path": list(r.hexes),
              **({"notes": list(r.notes)} if r.notes else {})}
             for to, r in reachable(mv).items()]
    transport = {kind: [{"carrier": carrier or None, "to": ends, "spends": mv.allowance}
                        for carrier, ends in by_carrier.items()]
                 for kind, by_carrier in destinations(mv).items()}
    return {"mp": mp, "may": bool(hexes or transport), "why": None, "hexes": hexes,
            "transport": transport}


def _attack(state: State, board: Board, uid: str, side: str) -> dict[str, Any]:
    step = state.step
    problem = _acting(state, side, (st.ACTION, st.REACTION, st.COMBAT, st.EXPLOITATION),
                      "attacks", "RULES-NOTES 31")
    if problem is not None:
        return {"may": False, "why": problem, "by": {}}
    unit = state.units[uid]
    stance = board.stance(unit.power)
    sc = state.setup.scenario
    near = sorted(board.grid.ids[i] for i in board.grid.nbrs[board.at(unit.at)]
                  if i in stance.enemy_land)
    near = [h for h in near if any(sc.at_war(unit.power, state.units[u].power)
                                   for u in board.units_in(h) if u in board.unit_hex)]
    kinds: dict[str, Any] = {}
    for by in BY_STEP[step]:
        if by == "naval":
            continue
        why = _problem(check_attacker, state, uid, by, "/body/combats/0")
        if why is not None:
            kinds[by] = {"may": False, "why": why}
        elif by == "barrage":
            kinds[by] = {"may": True, "hexes": None}  # any hex holding enemy land units
        else:
            kinds[by] = {"may": bool(near), "hexes": near,
                         **({} if near else {"why": {"code": "report/not_adjacent",
                                                     "rule": "DESIGN 4.1",
                                                     "reason": "no enemy unit next to it"}})}
    return {"may": any(k["may"] for k in kinds.values()), "why": None, "by": kinds}


def _release(state: State, uid: str, side: str) -> dict[str, Any]:
    problem = _acting(state, side, (st.REACTION, st.EXPLOITATION), "releases", "OCS 5.7b") \
        or _problem(check_release, state, uid)
    return {"may": problem is None, "why": problem}


def _exploit(state: State, uid: str, side: str) -> dict[str, Any]:
    """Whether the unit moves and fights in this impulse's Exploitation step (OCS 5.9,
    OCS 5.7b A), and in the combat step whether it may earn Exploitation Mode (OCS 5.9a,
    5.9b, 5.10b C)."""
    unit = state.units[uid]
    eff = effective(state, uid)
    phasing = side == state.turn.phasing_side
    why: dict[str, Any] | None = None
    if not phasing or power_passed(state, unit.power) or not unit.face_up:
        why = {"code": "report/cannot_exploit", "rule": "OCS 5.9",
               "reason": "only the phasing side's face-up units of powers that did not pass "
                         "exploit"}
    elif unit.mode == m.RESERVE:
        why = {"code": "report/cannot_exploit", "rule": "OCS 5.7b",
               "reason": "in Reserve Mode: it exploits once released in the Exploitation "
                         "step"}
    elif unit.mode != m.EXPLOIT and unit.released != st.EXPLOITATION:
        why = {"code": "report/cannot_exploit", "rule": "OCS 5.9",
               "reason": f"is in {unit.mode} mode: only Exploitation Mode units and "
                         "released Reserves act in the Exploitation step"}
    out: dict[str, Any] = {"may": why is None, "why": why}
    if state.step == st.COMBAT and phasing and eff is not None:
        earn = unit.mode in (m.COMBAT, m.MOVE) and eff.action_rating >= 2 and eff.can_attack
        out["earn"] = earn
    return out


# long: one entry per kind of choice, in the order a client shows them.
def unit_options(state: State, uid: str, board: Board | None = None) -> dict[str, Any]:
    """The unit's choices now (see the module docstring)."""
    board = board or Board.from_state(state)
    unit = state.units[uid]
    sc = state.setup.scenario
    spec = sc.unit(uid)
    side = sc.side_of_power(unit.power)
    out: dict[str, Any] = {
        "unit": uid, "name": sc.unit_name(uid), "side": side, "power": unit.power,
        "at": unit.at, "class": spec.unit_class, "type": spec.type, "mode": unit.mode,
        "orientation": unit.orientation, "face_up": unit.face_up, "step": state.step,
    }
    on_map = sc.map.is_hex(unit.at)
    if spec.unit_class != "land" or spec.ocs is None or not m.uses_modes(spec) or not on_map:
        what = {"air": "air units fly missions (report them in missions)",
                "naval": "naval units move by sea; their moves and combats are the "
                         "table's (report them)"}.get(spec.unit_class,
                                                       "it uses no modes (OCS 5.1)")
        none = {"code": "options/none", "rule": "OCS 5.1", "reason": what}
        out.update(modes={"legal": [], "illegal": [], "why": none},
                   moves={"mp": None, "may": False, "why": none, "hexes": [],
                          "transport": {}},
                   attack={"may": False, "why": none, "by": {}},
                   release={"may": False, "why": none}, exploit={"may": False, "why": none})
        return out
    out["modes"] = _modes(state, board, uid, side)
    out["moves"] = _moves(state, mover(state, board, uid), side)
    out["attack"] = _attack(state, board, uid, side)
    out["release"] = _release(state, uid, side)
    out["exploit"] = _exploit(state, uid, side)
    return out


def side_options(state: State, side: str, board: Board | None = None
                 ) -> dict[str, dict[str, Any]]:
    """`unit_options` of every unit of `side`, in id order, on one board."""
    board = board or Board.from_state(state)
    sc = state.setup.scenario
    return {uid: unit_options(state, uid, board) for uid in sorted(state.units)
            if sc.side_of_power(state.units[uid].power) == side}
