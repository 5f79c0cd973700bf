"""The `report` order: what was played off-server in the action, reaction, combat and
exploitation steps, validated against the modes and the board, then logged as facts
(seed 004, OCS 5.0; RULES-NOTES 27, 31).

Body (every list optional, at least one item; applied in this order)::

    {"moves": [{"unit": "ger-arm-1", "to": "h31", "mp": 4, "transport": null,
                "path": ["h41", "h31"]}],
     "works": [{"unit": "ger-eng-1", "work": "engineering", "hex": "h31"}],
     "combats": [{"by": "combat", "hex": "h21", "attackers": ["ger-arm-1"],
                  "results": [{"kind": "dg"},
                              {"kind": "retreat", "units": ["cw-inf-1"], "path": ["h11"]},
                              {"kind": "exploit", "units": ["ger-arm-1"], "rating": 3}]}],
     "face_down": ["ger-arm-1"]}

Moves. `mp` is what the unit spent of its allowance in this step (`effective.step_ma`:
Reserve 1/4, Strat x2, DG and Exploit 1/2, released Reserves 1/2 in the Reaction step
and full in Exploitation); a unit may report several moves in a step while MP last.
`path` (optional) lists the hexes entered, ending at `to`. `transport`: null, "rail",
"air", "sea" (Move Mode only: OCS 5.5a, 5.6a, 5.7e, 5.8d, 5.10d; Rail Repair units by
rail in Combat Mode, 13.3g) or "amphibious" (Combat or Move Mode, OCS 5.5d, OCS 5.6c), in the
action step only; a move by rail uses one of the rail moves of the unit's major power
for the impulse, which railway reorganization uses too (11.18.6). Strat units never
enter an enemy ZOC (OCS 5.8a) and end where trace supply is possible, Strat HQs
throwing none (OCS 5.8b); Reserve units do not end with a hedgehog (OCS 5.7g); the
side's Reserve markers are counted after the moves, those of units that entered
Reserve this step and have not moved yet left for later (OCS 5.4a: placed after the
25% move; all are counted when the movement step ends).
Who moves: the phasing side in the action step (not a power that passed, not face
down, RULES-NOTES 27); released Reserves of the release in progress in the Reaction
step (OCS 5.7b); Exploitation Mode units and the release in progress in Exploitation.

Works (action step): "engineering" (Engineer-Capable units, 13.8a), "gauge" and
"rail_repair" (Rail Repair units, 13.3f, 13.3g) need Combat Mode (OCS 5.5b), or DG Mode
oriented to Combat (OCS 5.10e); "hedgehog" building by an engineer likewise, by any other
unit Combat Mode only (OCS 5.10e).

Missions (air units) and naval moves: see `service.rules.modes.missions`.

Combats: see `service.rules.results`. Face down: units of the side that moved or
attacked this impulse turn face down now (with option `reorg.face_down` "report" the
only way they do; by default they turn at clean up anyway, `face_down`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Final

from service.rules import state as st
from service.rules.board import Board, SupplyStatus, path_length, unit_supply
from service.rules.command import Command
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.modes import vocabulary as m
from service.rules.modes.change import hedgehog_in, reserve_limit_problem
from service.rules.modes.effective import power_passed, step_ma, transports_allowed
from service.rules.modes.items import (
    acting_side,
    held_unit,
    malformed,
    number,
    refuse,
    refuse_unit,
    strings,
    unknown_keys,
)
from service.rules.modes.missions import naval_move, report_mission
from service.rules.modes.results import CONSISTENCY, report_combat
from service.rules.scenario import UnitSpec
from service.rules.state import Evolver, State, UnitState

__all__ = ["file_report", "strat_supply"]
WORKS: Final = ("engineering", "gauge", "rail_repair", "hedgehog")
_STEPS: Final = (st.ACTION, st.REACTION, st.COMBAT, st.EXPLOITATION)


# The rule that sets a unit's allowance in its mode.
_MA_RULE: Final = {m.RESERVE: "OCS 5.7", m.STRAT: "OCS 5.8", m.DG: "OCS 5.10b",
                   m.EXPLOIT: "OCS 5.9"}


# Why a mode bars rail, air and shipping transport.
_NO_TRANSPORT: Final = {
    m.COMBAT: ("OCS 5.5a", "is in Combat Mode: rail, air and shipping transport need Move Mode "
                       "(Rail Repair units may use rail, 13.3g)"),
    m.RESERVE: ("OCS 5.7e", "is in Reserve Mode: no rail, air or shipping transport"),
    m.STRAT: ("OCS 5.8d", "is in Strat Mode: no rail, air or shipping transport"),
    m.DG: ("OCS 5.10d", "is in DG Mode: no rail, air or shipping transport"),
    m.EXPLOIT: ("OCS 5.6a", "is in Exploitation Mode, not Move Mode: no rail, air or shipping "
                        "transport"),
}


def _list(body: Mapping[str, Any], key: str) -> list[Any]:
    value = body.get(key, [])
    if not isinstance(value, list):
        raise malformed("expected a list", path=f"/body/{key}")
    return value


def file_report(f: Flow, c: Command) -> None:
    """The `report` order: moves, works, combats, face-down flips, in that order."""
    side = acting_side(f, c, _STEPS, CONSISTENCY)
    unknown_keys(c.body, ("moves", "works", "missions", "combats", "face_down"), "/body")
    moves, works, combats = _list(c.body, "moves"), _list(c.body, "works"), _list(
        c.body, "combats")
    missions = _list(c.body, "missions")
    face_down = strings(c.body.get("face_down", []), "/body/face_down", empty=True)
    if not (moves or works or missions or combats or face_down):
        raise malformed("a report names at least one move, work, mission, combat or "
                        "face-down unit", path="/body")
    f.emit("report.filed", f"{side} reports {len(moves)} move(s), {len(works)} work(s), "
           f"{len(missions)} mission(s), {len(combats)} combat(s), {len(face_down)} unit(s) "
           "turning face down.",
           {"side": side, "step": f.state.step, "moves": len(moves), "works": len(works),
            "missions": len(missions), "combats": len(combats),
            "face_down": len(face_down)}, by=c.actor.id)
    reserve_moves: list[int] = []
    for i, item in enumerate(moves):
        if _move(f, c, side, item, f"/body/moves/{i}"):
            reserve_moves.append(i)
    problem = reserve_limit_problem(f.state, side, placed_only=True) if reserve_moves else None
    if problem is not None:
        last = reserve_moves[-1]
        uid = str(moves[last]["unit"])
        raise refuse("report/reserve_markers", f"{uid}: {problem} after these moves; a "
                     "stack's Reserve units share one marker", rule="OCS 5.4a",
                     path=f"/body/moves/{last}", unit=uid)
    for i, item in enumerate(works):
        _work(f, c, item, f"/body/works/{i}")
    for i, item in enumerate(missions):
        report_mission(f, c, item, f"/body/missions/{i}")
    for i, item in enumerate(combats):
        report_combat(f, c, side, item, f"/body/combats/{i}")
    turned: list[str] = []
    for i, name in enumerate(face_down):
        path = f"/body/face_down/{i}"
        spec, unit = held_unit(f.state, c, name, path)
        if not unit.face_up:
            raise refuse_unit("report/already_face_down", name, "is already face down",
                              rule="RULES-NOTES 18", path=path)
        if not (unit.moved or unit.attacked):
            raise refuse_unit("report/did_nothing", name, "neither moved nor attacked this "
                              "impulse: only those units turn face down", rule=CONSISTENCY,
                              path=path)
        turned.append(name)
    if turned:
        f.emit("units.turned_face_down", f"{', '.join(turned)} turn face down.",
               {"units": turned}, by=c.actor.id)


def _may_move_now(state: State, uid: str, unit: UnitState, path: str) -> None:
    """Who moves in which step (OCS 5.7b, OCS 5.9; RULES-NOTES 27, 31)."""
    step = state.step
    if not unit.face_up:
        raise refuse_unit("report/face_down", uid, "is face down and cannot move",
                          rule="RULES-NOTES 27", path=path)
    if step == st.ACTION:
        if power_passed(state, unit.power):
            raise refuse_unit("report/power_passed", uid, f"belongs to {unit.power}, which "
                              "passed this impulse", rule="DESIGN 5.3", path=path)
        return
    if step == st.COMBAT:
        raise refuse_unit("report/no_movement", uid, "cannot move in the combat step: "
                          "retreats and advances are combat results", rule="RULES-NOTES 31",
                          path=path)
    release = state.modes.release
    current = release is not None and release.step == step and uid in release.units
    if step == st.REACTION and unit.released != st.REACTION:
        raise refuse_unit("report/not_released", uid, "was not released in this Reaction "
                          "step: only released Reserves move in it", rule="OCS 5.7b", path=path)
    if step == st.EXPLOITATION and unit.mode == m.EXPLOIT:
        return
    if step == st.EXPLOITATION and unit.released != st.EXPLOITATION:
        raise refuse_unit("report/cannot_exploit", uid, "is neither in Exploitation Mode nor "
                          "released in this step: it does not move in the Exploitation step",
                          rule="OCS 5.9", path=path)
    if not current:
        raise refuse_unit("report/release_over", uid, "was released before the release in "
                          "progress: its movement is over (one release at a time)",
                          rule="OCS 5.7b", path=path)


def _check_transport(state: State, spec: UnitSpec, unit: UnitState, transport: str,
                     path: str) -> None:
    uid = spec.id
    if state.step != st.ACTION:
        raise refuse_unit("report/transport_step", uid, f"cannot use {transport} transport in "
                          f"the {state.step} step: transport belongs to the movement step",
                          rule="RULES-NOTES 31", path=path)
    if transport == m.AMPHIBIOUS:
        if unit.mode not in (m.COMBAT, m.MOVE):
            raise refuse_unit("report/amphibious", uid, f"is in {unit.mode} mode: landing via "
                              "the Amphibious Landing Table needs Combat or Move Mode",
                              rule="OCS 5.5d", path=path)
        return
    if transport not in transports_allowed(spec, unit):
        rule, why = _NO_TRANSPORT.get(str(unit.mode), ("OCS 5.6a", "cannot use that transport"))
        if unit.mode == m.COMBAT and spec.ocs is not None and spec.ocs.rail_repair:
            why = f"is in Combat Mode: a Rail Repair unit may use rail, not {transport} (13.3g)"
        raise refuse_unit("report/transport_mode", uid, why, rule=rule, path=path)


def strat_supply(state: State, uid: str, to: str) -> SupplyStatus:
    """Whether trace supply is possible for `uid` standing in `to`; the board leaves out
    Strat HQs, which throw no supply (OCS 5.8b)."""
    moved = replace(state, units={**state.units, uid: replace(state.units[uid], at=to)})
    board = Board.from_state(moved)
    return unit_supply(board, uid, path_length(state.setup.scenario, state.turn.weather))


# long: a move's checks (unit, mode, transport, path, MP, supply) in rule order.
def _move(f: Flow, c: Command, side: str, item: object, path: str) -> bool:
    """One move; True when the unit moving is in Reserve Mode (for OCS 5.4a)."""
    if not isinstance(item, Mapping):
        raise malformed("expected {unit, to, mp, transport, path}", path=path)
    unknown_keys(item, ("unit", "to", "mp", "transport", "path"), path)
    spec, unit = held_unit(f.state, c, item.get("unit"), f"{path}/unit")
    uid = spec.id
    sc = f.state.setup.scenario
    if spec.unit_class == "naval":
        naval_move(f, c, spec, unit, item, path)
        return False
    if spec.unit_class != "land":
        raise malformed(f"{uid} is an air unit: air units fly missions (report them in "
                        "missions)", path=f"{path}/unit", unit=uid)
    to = item.get("to")
    if not isinstance(to, str) or not sc.map.is_hex(to):
        raise malformed(f"unknown hex {to!r}", path=f"{path}/to", code="order/unknown_hex")
    if to == unit.at:
        raise malformed(f"{uid} is already in {to}", path=f"{path}/to", unit=uid)
    mp = number(item.get("mp"), f"{path}/mp")
    transport = item.get("transport")
    if transport not in (None, *m.TRANSPORTS, m.AMPHIBIOUS):
        raise malformed("transport is null, rail, air, sea or amphibious",
                        path=f"{path}/transport", unit=uid)
    route = item.get("path")
    hexes = [to] if route is None else strings(route, f"{path}/path", what="hex ids")
    for k, hex_id in enumerate(hexes):
        if not sc.map.is_hex(hex_id):
            raise malformed(f"unknown hex {hex_id!r}", path=f"{path}/path/{k}",
                            code="order/unknown_hex")
    if hexes[-1] != to:
        raise malformed(f"the path ends in {hexes[-1]}, not in {to}", path=f"{path}/path")
    _may_move_now(f.state, uid, unit, path)
    uses = spec.ocs is not None and m.uses_modes(spec)
    if spec.ocs is not None and spec.ocs.kind == "hedgehog":
        raise refuse_unit("report/hedgehog", uid, "is a hedgehog and does not move",
                          rule="OCS 5.1", path=path)
    if transport is not None:
        _check_transport(f.state, spec, unit, str(transport), f"{path}/transport")
    rail_power = sc.controller_of(unit.power) if transport == "rail" else None
    if rail_power is not None and f.state.rail_left(rail_power) < 1:
        moves = sc.power(rail_power).rail_moves
        raise refuse_unit("report/no_rail_move", uid, f"cannot move by rail: {rail_power} has "
                          f"no rail move left this impulse ({f.state.rail_used(rail_power)} "
                          f"of {moves} used, by moves and railway reorganization)",
                          rule="11.18.6", path=f"{path}/transport")
    step = f.state.step
    if uses:
        allowance = step_ma(f.state, uid)
        used = unit.mp_used if unit.mp_step == step else 0.0
        if used + mp > allowance + 1e-9:
            rule = ("OCS 5.7b" if unit.released in (st.REACTION, st.EXPLOITATION)
                    else _MA_RULE.get(str(unit.mode), "OCS 5.2"))
            raise refuse_unit("report/mp", uid, f"may move {allowance:g} MP in this step "
                              f"({unit.mode} mode) and has used {used:g}: {mp:g} more is "
                              "too many", rule=rule, path=f"{path}/mp")
    board = Board.from_state(f.state)
    previous = unit.at
    for k, hex_id in enumerate(hexes):
        hpath = f"{path}/path/{k}" if route is not None else f"{path}/to"
        if route is not None and transport is None and hex_id not in sc.map.neighbours(previous):
            raise refuse_unit("report/path", uid, f"moves from {previous} to {hex_id}, which "
                              "are not next to each other", rule=CONSISTENCY, path=hpath)
        if board.enemy_occupied(hex_id, unit.power):
            raise refuse_unit("report/enemy_hex", uid, f"cannot enter {hex_id}: enemy units "
                              "hold it (overrun them first)", rule=CONSISTENCY, path=hpath)
        if unit.mode == m.STRAT and board.enemy_zoc(hex_id, unit.power):
            raise refuse_unit("report/strat_zoc", uid, f"is in Strat Mode and cannot move "
                              f"into the enemy ZOC in {hex_id}", rule="OCS 5.8a", path=hpath)
        previous = hex_id
    if unit.mode == m.RESERVE:
        hedgehog = hedgehog_in(f.state, to, side)
        if hedgehog is not None:
            raise refuse_unit("report/hedgehog", uid, f"is in Reserve Mode and cannot end its "
                              f"move with hedgehog {hedgehog} in {to}", rule="OCS 5.7g",
                              path=f"{path}/to")
    if unit.mode == m.STRAT:
        status = strat_supply(f.state, uid, to)
        if not status.in_supply:
            raise refuse_unit("report/strat_supply", uid, f"is in Strat Mode and must end its "
                              f"move where trace supply is possible; in {to}: {status.reason}",
                              rule="OCS 5.8b", path=f"{path}/to")
    how = f" by {transport}" if transport else ""
    f.emit("unit.moved", f"{uid} moves {unit.at} -> {to}{how} ({mp:g} MP).",
           {"unit": uid, "from": unit.at, "to": to, "mp": item.get("mp"),
            "transport": transport, "path": hexes, "step": step,
            **({"rail_power": rail_power} if rail_power else {})}, by=c.actor.id)
    return unit.mode == m.RESERVE


def _work(f: Flow, c: Command, item: object, path: str) -> None:
    """Engineering, gauge conversion, rail repair, hedgehog building (OCS 5.5b, OCS 5.10e)."""
    if not isinstance(item, Mapping):
        raise malformed("expected {unit, work, hex}", path=path)
    unknown_keys(item, ("unit", "work", "hex"), path)
    spec, unit = held_unit(f.state, c, item.get("unit"), f"{path}/unit")
    uid = spec.id
    work = item.get("work")
    if work not in WORKS:
        raise malformed(f"work must be one of {', '.join(WORKS)}", path=f"{path}/work")
    hex_id = item.get("hex", unit.at)
    if not isinstance(hex_id, str) or not f.state.setup.scenario.map.is_hex(hex_id):
        raise malformed(f"unknown hex {hex_id!r}", path=f"{path}/hex", code="order/unknown_hex")
    if spec.ocs is None or not m.uses_modes(spec):
        raise malformed(f"{uid} uses no modes and does no engineering", path=f"{path}/unit",
                        rule="OCS 5.1", unit=uid)
    if f.state.step != st.ACTION:
        raise refuse_unit("report/work_step", uid, f"cannot do {work} work in the "
                          f"{f.state.step} step: it belongs to the movement step",
                          rule="RULES-NOTES 31", path=path)
    if not unit.face_up:
        raise refuse_unit("report/face_down", uid, "is face down and does no work",
                          rule="RULES-NOTES 27", path=path)
    if power_passed(f.state, unit.power):
        raise refuse_unit("report/power_passed", uid, f"belongs to {unit.power}, which passed "
                          "this impulse", rule="DESIGN 5.3", path=path)
    engineer = spec.ocs.engineer
    if work == "engineering" and not engineer:
        raise refuse_unit("report/not_engineer", uid, "is not Engineer-Capable (13.8a)",
                          rule="OCS 5.5b", path=f"{path}/work")
    if work in ("gauge", "rail_repair") and not spec.ocs.rail_repair:
        raise refuse_unit("report/not_rail_repair", uid, "is not a Rail Repair unit (13.3g)",
                          rule="OCS 5.5b", path=f"{path}/work")
    specialist = work != "hedgehog" or engineer
    if unit.mode == m.DG:
        if not specialist:
            raise refuse_unit("report/work_dg", uid, "is in DG Mode: units that are not "
                              "engineers build no hedgehogs while DG", rule="OCS 5.10e",
                              path=f"{path}/work")
        if unit.orientation != m.COMBAT:
            raise refuse_unit("report/work_mode", uid, "is DG and oriented to Move: engineers "
                              "and rail repair units work while DG only oriented toward "
                              "Combat Mode", rule="OCS 5.10e", path=f"{path}/work")
    elif unit.mode != m.COMBAT:
        raise refuse_unit("report/work_mode", uid, f"is in {unit.mode} mode: {work} work "
                          "needs Combat Mode", rule="OCS 5.5b", path=f"{path}/work")
    f.emit("unit.worked", f"{uid} does {work} work in {hex_id}.",
           {"unit": uid, "work": work, "hex": hex_id}, by=c.actor.id)


def _moved(state: State, e: Event) -> State:
    uid = e.data["unit"]
    unit = state.units[uid]
    step = e.data["step"]
    used = (unit.mp_used if unit.mp_step == step else 0.0) + float(e.data["mp"])
    moved = replace(unit, at=e.data["to"], moved=True, mp_used=used, mp_step=step)
    state = replace(state, units={**state.units, uid: moved})
    rail_power = e.data.get("rail_power")
    return state if rail_power is None else state.with_rail_move(rail_power)


EVOLVE: dict[EventKind, Evolver] = {
    "unit.moved": _moved,
}
