"""The `report` order: what was played off-server in the action, reaction, combat and
exploitation steps, validated against the modes and the board, then logged as facts
(seed 004, OCS 5.0; RULES-NOTES 27, 31).

Body (every list optional, at least one item; applied in this order)::

    {"moves": [{"unit": "ger-arm-1", "to": "h31", "path": ["h41", "h31"]},
               {"unit": "ger-inf-2", "to": "h72", "transport": "rail"}],
     "works": [{"unit": "ger-eng-1", "work": "engineering", "hex": "h31"}],
     "combats": [{"by": "combat", "hex": "h21", "attackers": ["ger-arm-1"],
                  "results": [{"kind": "dg"},
                              {"kind": "retreat", "units": ["cw-inf-1"], "path": ["h11"]},
                              {"kind": "exploit", "units": ["ger-arm-1"], "rating": 3}]}],
     "face_down": ["ger-arm-1"]}

Moves are refereed on the map (`service.rules.modes.movement`, `service.rules.board.moves`):
`path` lists the hexes entered, ending at `to`; without it the referee fills in the one
cheapest legal path and says so in the event (`filled`), or refuses when several are
equally cheap. The referee counts what the path costs from the scenario's terrain
effects table, hexside features and the weather, against what the unit may still
spend in this step (`effective.step_ma`: Combat and Move Mode their side's MA, Reserve
1/4, Strat x2, DG and Exploit 1/2, released Reserves 1/2 in the Reaction step and full
in Exploitation; OCS 6.1c: a unit that has not moved may always move one hex), enemy
units and ZOC (option `movement.zoc`; Strat units never enter one, OCS 5.8a), neutral
territory, the stacking limit where the report's moves end, Reserve units not ending
with a hedgehog (OCS 5.7g) and Strat units ending where trace supply is possible, Strat
HQs throwing none (OCS 5.8b). `mp` is optional: the server's answer is in the event; a
reported `mp` that is not what the path costs is refused. A unit may report several
moves in a step while MP last. `transport`: null, "rail", "air", "sea" (Move Mode only:
OCS 5.5a, 5.6a, 5.7e, 5.8d, 5.10d; Rail Repair units by rail in Combat Mode, 13.3g) or
"amphibious" (Combat or Move Mode, OCS 5.5d, OCS 5.6c), in the action step only, as the
unit's whole movement (`service.rules.modes.transport`; `carrier` names the TRS or ATR);
a move by rail uses one of the rail moves of the unit's major power for the impulse,
which railway reorganization uses too (11.18.6). The side's Reserve markers are counted
after the moves, those of units that entered Reserve this step and have not moved yet
left for later (OCS 5.4a: placed after the 25% move; all are counted when the movement
step ends).
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
from service.rules.board import TERRAIN_RULE, Board
from service.rules.command import Command
from service.rules.events import Event, EventKind
from service.rules.flow import Flow
from service.rules.modes import vocabulary as m
from service.rules.modes.change import reserve_limit_problem
from service.rules.modes.effective import power_passed
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
from service.rules.modes.movement import (
    STACKING_RULE,
    Mover,
    Route,
    end_problem,
    fill_path,
    ma_rule,
    mover,
    stacking_problem,
    walk_route,
)
from service.rules.modes.resolve import resolve
from service.rules.modes.results import CONSISTENCY, report_combat
from service.rules.modes.transport import transport_route
from service.rules.state import Evolver, State, UnitState

__all__ = ["check_may_move", "file_report"]
WORKS: Final = ("engineering", "gauge", "rail_repair", "hedgehog")
_STEPS: Final = (st.ACTION, st.REACTION, st.COMBAT, st.EXPLOITATION)


def _list(body: Mapping[str, object], key: str) -> list[Any]:
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
    ends: list[tuple[int, str]] = []
    for i, item in enumerate(moves):
        end = _move(f, c, side, item, f"/body/moves/{i}")
        if end is not None:
            ends.append((i, end))
            if f.state.units[str(item["unit"])].mode == m.RESERVE:
                reserve_moves.append(i)
    _stacking(f, moves, ends)
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
        fought = report_combat(f, c, side, item, f"/body/combats/{i}")
        if fought is not None:
            resolve(f, c, side, fought, f"/body/combats/{i}")
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


def check_may_move(state: State, uid: str, unit: UnitState, path: str) -> None:
    """Who moves in which step (OCS 5.7b, OCS 5.9; RULES-NOTES 27, 31)."""
    step = state.step
    if not unit.face_up:
        raise refuse_unit("report/face_down", uid, "is face down and cannot move",
                          rule="RULES-NOTES 27", path=path)
    if step == st.ACTION:
        if power_passed(state, unit.power):
            raise refuse_unit("report/power_passed", uid, f"belongs to {unit.power}, which "
                              "passed this impulse", rule="seed 002 Effects of Passing", path=path)
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


def _claim(mv: Mover, item: Mapping[str, object], route: Route, path: str) -> None:
    """A reported `mp` is a claim the referee checks: it must be what the path costs
    (transport: what the move spends)."""
    if item.get("mp") is None:
        return
    claimed = number(item.get("mp"), f"{path}/mp")
    expected = route.charge if route.transport else route.cost
    if abs(claimed - float(expected)) > 1e-9:
        how = " -> ".join((mv.unit.at, *route.hexes))
        raise mv.refuse("report/mp_claim", f"reports {claimed:g} MP for {how}, which costs "
                        f"{expected:g} MP (leave mp out and the referee counts it)",
                        TERRAIN_RULE, f"{path}/mp", hex_id=route.to, mp=expected)


# long: a move's checks (shape, who moves, the route on the map, the claim) in rule order.
def _move(f: Flow, c: Command, side: str, item: object, path: str) -> str | None:
    """One move; the hex a land unit's move ends in (stacking is counted after all the
    report's moves), None for a naval move."""
    if not isinstance(item, Mapping):
        raise malformed("expected {unit, to, mp, transport, path, carrier}", path=path)
    unknown_keys(item, ("unit", "to", "mp", "transport", "path", "carrier"), path)
    spec, unit = held_unit(f.state, c, item.get("unit"), f"{path}/unit")
    uid = spec.id
    sc = f.state.setup.scenario
    if spec.unit_class == "naval":
        naval_move(f, c, spec, unit, item, path)
        return None
    if spec.unit_class != "land":
        raise malformed(f"{uid} is an air unit: air units fly missions (report them in "
                        "missions)", path=f"{path}/unit", unit=uid)
    to = item.get("to")
    if not isinstance(to, str) or not sc.map.is_hex(to):
        raise malformed(f"unknown hex {to!r}", path=f"{path}/to", code="order/unknown_hex")
    if to == unit.at:
        raise malformed(f"{uid} is already in {to}", path=f"{path}/to", unit=uid)
    if item.get("mp") is not None:
        number(item.get("mp"), f"{path}/mp")
    transport = item.get("transport")
    if transport not in (None, *m.TRANSPORTS, m.AMPHIBIOUS):
        raise malformed("transport is null, rail, air, sea or amphibious",
                        path=f"{path}/transport", unit=uid)
    carrier = item.get("carrier")
    if carrier is not None and (not isinstance(carrier, str) or transport in (None, "rail")):
        raise malformed("carrier names the TRS or ATR of a sea, amphibious or air move",
                        path=f"{path}/carrier", unit=uid)
    route_given = item.get("path")
    hexes = None if route_given is None else strings(route_given, f"{path}/path",
                                                     what="hex ids")
    for k, hex_id in enumerate(hexes or ()):
        if not sc.map.is_hex(hex_id):
            raise malformed(f"unknown hex {hex_id!r}", path=f"{path}/path/{k}",
                            code="order/unknown_hex")
    if hexes is not None and hexes[-1] != to:
        raise malformed(f"the path ends in {hexes[-1]}, not in {to}", path=f"{path}/path")
    check_may_move(f.state, uid, unit, path)
    if spec.ocs is not None and spec.ocs.kind == "hedgehog":
        raise refuse_unit("report/hedgehog", uid, "is a hedgehog and does not move",
                          rule="OCS 5.1", path=path)
    if spec.ocs is None or not m.uses_modes(spec):
        raise refuse_unit("report/no_modes", uid, "uses no modes and does not move by "
                          "itself (OCS 5.1)", rule="OCS 5.1", path=path)
    mv = mover(f.state, Board.from_state(f.state), uid)
    if mv.allowance <= 0:
        raise refuse_unit("report/mp", uid, f"has no MP left in this step ({mv.used:g} of "
                          f"{mv.step_ma:g} used)", rule=ma_rule(unit), path=f"{path}/to")
    if transport is not None:
        route = transport_route(mv, str(transport), to, hexes, item, path)
    else:
        route = walk_route(mv, hexes, path) if hexes is not None else fill_path(mv, to, path)
        problem = end_problem(mv, to, stacking=False)
        if problem is not None:
            raise mv.refuse(problem[0], problem[1], problem[2], f"{path}/to", hex_id=to)
    _claim(mv, item, route, path)
    _moved_event(f, c, mv, route)
    return to


def _moved_event(f: Flow, c: Command, mv: Mover, route: Route) -> None:
    """The move, and what its carrier does: a TRS sails with it, an ATR flies and turns
    face down (11.18.1)."""
    sc = f.state.setup.scenario
    how = f" by {route.transport}" if route.transport else ""
    shown = " -> ".join((mv.unit.at, *route.hexes))
    filled = ", path filled by the referee" if route.filled and not route.transport else ""
    notes = "".join(f"; {n}" for n in route.notes)
    rail_power = sc.controller_of(mv.unit.power) if route.transport == "rail" else None
    data: dict[str, Any] = {
        "unit": mv.uid, "from": mv.unit.at, "to": route.to, "mp": route.charge,
        "cost": route.cost, "transport": route.transport, "path": list(route.hexes),
        "filled": route.filled, "step": f.state.step}
    if route.notes:
        data["notes"] = list(route.notes)
    if route.seas:
        data["seas"] = list(route.seas)
    if route.carrier:
        data["carrier"] = route.carrier
    if rail_power:
        data["rail_power"] = rail_power
    f.emit("unit.moved", f"{mv.uid} moves {shown}{how} ({route.charge:g} MP{filled}{notes}).",
           data, by=c.actor.id)
    carrier = route.carrier
    if carrier is None:
        return
    at = f.state.units[carrier].at
    if route.transport == "air":
        f.emit("unit.flew_mission", f"{carrier} flies {mv.uid} to {route.to} and returns to "
               f"{at}: face down (11.18.1 step 8).",
               {"unit": carrier, "to": route.to, "base": at,
                "mission": f"air transport of {mv.uid}", "result": None,
                "step": f.state.step}, by=c.actor.id)
        return
    f.emit("unit.moved", f"{carrier} sails {' -> '.join(route.seas)} carrying {mv.uid}.",
           {"unit": carrier, "from": at, "to": route.seas[-1], "mp": 0, "cost": 0,
            "transport": None, "path": list(route.seas), "filled": True,
            "step": f.state.step, "carrying": mv.uid}, by=c.actor.id)


def _stacking(f: Flow, moves: list[Any], ends: list[tuple[int, str]]) -> None:
    """The stacking limit where the report's land moves ended, once they are all made
    (units may pass through a full hex, and leave one in the same report)."""
    state = f.state
    sc = state.setup.scenario
    stacking = sc.movement.stacking
    last: dict[str, int] = {}
    for i, hex_id in ends:
        last[hex_id] = i
    for hex_id, i in sorted(last.items(), key=lambda x: x[1]):
        here = sorted(uid for uid, u in state.units.items() if u.at == hex_id)
        points = sum(stacking.points(sc.unit(uid)) for uid in here)
        problem = stacking_problem(state, hex_id, points)
        if problem is not None:
            uid = str(moves[i]["unit"])
            error = refuse_unit("report/stacking", uid, f"ends its move in {hex_id}: "
                                f"{problem} ({', '.join(here)})", rule=STACKING_RULE,
                                path=f"/body/moves/{i}/to")
            error.extra["hex"] = hex_id
            raise error


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
                          "this impulse", rule="seed 002 Effects of Passing", path=path)
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
