"""Rail, sea, amphibious and air transport of land units (seed 004: OCS 5.5a, 5.5d,
5.6a, 5.6c, 5.7e, 5.8d, 5.10d; 11.18.6; docs/rules-options.md, "Transport").

Who: Move Mode units (Rail Repair units by rail in Combat Mode, 13.3g); amphibious
landings in Combat or Move Mode; in the movement (action) step only. A transport move
is the unit's whole movement in the step: it must not have moved yet, and it spends
all its MP.

- rail: along a railway (11.18.6's: rail hexes a friend controls, not entering an
  enemy ZOC a friendly unit does not negate), using one of the rail moves of the
  unit's major power for the impulse (railway reorganization uses them too). The
  referee traces the railway when no `path` is given (the path changes nothing).
- sea: from a friendly port to a friendly port, carried by a face-up TRS of the side
  in a sea area of the port of departure that has not sailed this impulse, through a
  chain of sea areas free of enemy naval units (or holding friendly ones too); the TRS
  sails to the last of them.
- amphibious: as sea, to any coastal hex free of enemy units and not neutral.
- air: carried by a face-up ATR of the side in the unit's hex, to a friendly hex free
  of enemy units within the ATR's range; the ATR flies and turns face down (11.18.1).

`carrier` names the TRS or ATR; without it the referee takes the only one there is.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from service.rules import state as st
from service.rules.board import FRIENDLY, NoPath, rail_network, rail_path, sea_chain
from service.rules.modes import vocabulary as m
from service.rules.modes.effective import transports_allowed
from service.rules.modes.movement import Mover, Route, end_checker, end_problem
from service.rules.scenario import ATR, TRS

__all__ = ["TRANSPORT_RULE", "Carriage", "carriers", "check_mode", "destinations",
           "transport_route"]
TRANSPORT_RULE: Final = "transport (docs/rules-options.md)"


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


def check_mode(mv: Mover, transport: str, path: str) -> None:
    """The step and the mode allow `transport` (OCS 5.5a-5.10d; RULES-NOTES 31), and the
    unit has not moved in this step."""
    unit, state = mv.unit, mv.state
    if state.step != st.ACTION:
        raise mv.refuse("report/transport_step", f"cannot use {transport} transport in the "
                        f"{state.step} step: transport belongs to the movement step",
                        "RULES-NOTES 31", path)
    if transport == m.AMPHIBIOUS:
        if unit.mode not in (m.COMBAT, m.MOVE):
            raise mv.refuse("report/amphibious", f"is in {unit.mode} mode: landing via the "
                            "Amphibious Landing Table needs Combat or Move Mode", "OCS 5.5d",
                            path)
    elif transport not in transports_allowed(mv.spec, unit):
        rule, why = _NO_TRANSPORT.get(str(unit.mode), ("OCS 5.6a", "cannot use that transport"))
        if unit.mode == m.COMBAT and mv.spec.ocs is not None and mv.spec.ocs.rail_repair:
            why = f"is in Combat Mode: a Rail Repair unit may use rail, not {transport} (13.3g)"
        raise mv.refuse("report/transport_mode", why, rule, path)
    if not mv.fresh:
        raise mv.refuse("report/transport_moved", f"has spent {mv.used:g} MP in this step: a "
                        f"{transport} move is a unit's whole movement", TRANSPORT_RULE, path)


@dataclass(frozen=True, slots=True)
class Carriage:
    """A carrier that may take the unit: its id, and (TRS) the sea area it is in."""

    unit: str
    at: str


def carriers(mv: Mover, transport: str) -> list[Carriage]:
    """Face-up TRSs of the side in a sea area of the unit's port that did not sail this
    impulse (sea, amphibious), or face-up ATRs of the side in the unit's hex (air)."""
    state, board = mv.state, mv.board
    sc = state.setup.scenario
    friends = board.stance(mv.unit.power).friends
    kind = ATR if transport == "air" else TRS

    def make() -> list[tuple[str, str, str]]:  # every usable carrier: (id, where, major)
        return [(uid, u.at, board.majors[u.power]) for uid, u in sorted(state.units.items())
                if sc.unit(uid).type == kind and u.face_up and not u.moved]

    places = {mv.unit.at} if kind == ATR else set(sc.map.hex(mv.unit.at).seas)
    return [Carriage(uid, at) for uid, at, major in board.cached(("carriers", kind), make)
            if at in places and major in friends]


def _carrier(mv: Mover, transport: str, given: object, path: str) -> Carriage:
    found = carriers(mv, transport)
    what = "ATR in its hex" if transport == "air" else \
        "TRS that has not sailed this impulse in a sea area of its port"
    if given is not None:
        chosen = next((c for c in found if c.unit == given), None)
        if chosen is None:
            raise mv.refuse("report/carrier", f"cannot be carried by {given}: it is no "
                            f"face-up {what} of its side", TRANSPORT_RULE, f"{path}/carrier")
        return chosen
    if not found:
        raise mv.refuse("report/carrier", f"has no carrier for {transport} transport: no "
                        f"face-up {what} of its side", TRANSPORT_RULE, f"{path}/transport")
    if len(found) > 1:
        raise mv.refuse("report/carrier_needed", f"may be carried by "
                        f"{', '.join(c.unit for c in found)}: name one in `carrier`",
                        TRANSPORT_RULE, f"{path}/carrier")
    return found[0]


def _rail(mv: Mover, to: str, given: list[str] | None, path: str) -> Route:
    state, board = mv.state, mv.board
    sc = state.setup.scenario
    major = sc.controller_of(mv.unit.power)
    if state.rail_left(major) < 1:
        raise mv.refuse("report/no_rail_move", f"cannot move by rail: {major} has no rail "
                        f"move left this impulse ({state.rail_used(major)} of "
                        f"{sc.power(major).rail_moves} used, by moves and railway "
                        "reorganization)", "11.18.6", f"{path}/transport")
    net = rail_network(board, mv.unit.power, mv.unit.at)
    if isinstance(net, NoPath):
        raise mv.refuse("report/rail", f"cannot move by rail from {mv.unit.at}: "
                        f"{net.reason}", net.rule, f"{path}/transport", hex_id=net.at)
    parent, reached = net
    target = board.at(to)
    if target not in reached:
        why = rail_path(board, mv.unit.power, mv.unit.at, to)
        reason = why.reason if isinstance(why, NoPath) else "no railway leads there"
        raise mv.refuse("report/rail", f"cannot reach {to} by rail: {reason}", "11.18.6",
                        f"{path}/to", hex_id=to)
    ids = board.grid.ids
    if given is None:
        chain = [target]
        while parent[chain[-1]] != -1:
            chain.append(parent[chain[-1]])
        hexes = [ids[i] for i in reversed(chain[:-1])]
    else:
        hexes = given
        previous = mv.start
        for k, hid in enumerate(hexes):
            i = board.at(hid)
            if i not in reached or i not in board.grid.nbrs[previous]:
                raise mv.refuse("report/rail", f"cannot go by rail from {ids[previous]} to "
                                f"{hid}: the railway path is not one (11.18.6's railway: rail "
                                "hexes a friend controls, free of enemy units and ZOC)",
                                "11.18.6", f"{path}/path/{k}", hex_id=hid)
            previous = i
    return Route(tuple(hexes), mv.allowance, mv.allowance, given is None,
                 (f"uses one of {major}'s rail moves (11.18.6)",), "rail")


def _sea(mv: Mover, transport: str, to: str, carrier: Carriage, path: str) -> Route:
    board = mv.board
    stance = board.stance(mv.unit.power)
    grid = board.grid
    if board.at(mv.unit.at) not in stance.ports:
        raise mv.refuse("report/port", f"embarks in a friendly, undamaged port free of enemy "
                        f"units, and {mv.unit.at} is none", TRANSPORT_RULE, f"{path}/transport",
                        hex_id=mv.unit.at)
    target = board.at(to)
    if transport == "sea" and target not in stance.ports:
        raise mv.refuse("report/port", f"lands by sea in a friendly, undamaged port free of "
                        f"enemy units, and {to} is none (an amphibious landing goes to any "
                        "coast)", TRANSPORT_RULE, f"{path}/to", hex_id=to)
    if target not in grid.seas_of:
        raise mv.refuse("report/coast", f"cannot land in {to}: it is not a coastal hex",
                        TRANSPORT_RULE, f"{path}/to", hex_id=to)
    why = mv.ground.why_closed(target)
    if why is not None:
        raise mv.refuse(why[0], why[1], why[2], f"{path}/to", hex_id=to)
    chain = sea_chain(board, stance, [carrier.at], grid.seas_of[target])
    if chain is None:
        raise mv.refuse("report/sea", f"cannot sail from {carrier.at} to {to}: no chain of sea "
                        "areas free of enemy naval units links them", TRANSPORT_RULE,
                        f"{path}/to", hex_id=to)
    return Route((to,), mv.allowance, mv.allowance, True,
                 (f"carried by {carrier.unit}, which sails to {chain[-1]}",), transport,
                 tuple(chain), carrier.unit)


def _air(mv: Mover, to: str, carrier: Carriage, path: str) -> Route:
    board = mv.board
    sc = mv.state.setup.scenario
    spec = sc.unit(carrier.unit)
    assert spec.atr is not None
    stance = board.stance(mv.unit.power)
    target = board.at(to)
    if stance.territory[target] != FRIENDLY or target in stance.enemy_land:
        raise mv.refuse("report/air_landing", f"cannot be flown to {to}: air transport lands "
                        "in a friendly hex free of enemy units", TRANSPORT_RULE, f"{path}/to",
                        hex_id=to)
    distance = sc.map.distance(mv.unit.at, to)
    if distance > spec.atr.range:
        raise mv.refuse("report/air_range", f"cannot be flown to {to}: it is {distance} hexes "
                        f"away and {carrier.unit}'s range is {spec.atr.range}", TRANSPORT_RULE,
                        f"{path}/to", hex_id=to)
    return Route((to,), mv.allowance, mv.allowance, True,
                 (f"flown by {carrier.unit}, which turns face down (11.18.1)",), "air",
                 carrier=carrier.unit)


def transport_route(mv: Mover, transport: str, to: str, given: list[str] | None,
                    item: Mapping[str, object], path: str) -> Route:
    """A transport move of `mv` to `to` checked: the step, the mode, the carrier, the
    way; refused naming the rule and the hex."""
    check_mode(mv, transport, f"{path}/transport")
    if transport != "rail" and given not in (None, [to]):
        raise mv.refuse("report/transport_path", f"a {transport} move names its destination "
                        "only: the referee finds the sea areas or the flight", "OCS 5.6a",
                        f"{path}/path")
    if transport == "rail":
        if item.get("carrier") is not None:
            raise mv.refuse("report/carrier", "a rail move has no carrier", "OCS 5.6a",
                            f"{path}/carrier")
        route = _rail(mv, to, given, path)
    else:
        carrier = _carrier(mv, transport, item.get("carrier"), path)
        route = _air(mv, to, carrier, path) if transport == "air" else \
            _sea(mv, transport, to, carrier, path)
    problem = end_problem(mv, to)
    if problem is not None:
        raise mv.refuse(problem[0], problem[1], problem[2], f"{path}/to", hex_id=to)
    return route


def _within(mv: Mover, radius: int) -> list[int]:
    """Grid positions within `radius` hexes of the unit."""
    nbrs = mv.board.grid.nbrs
    seen = {mv.start}
    frontier = [mv.start]
    for _ in range(radius):
        ring = []
        for u in frontier:
            for v in nbrs[u]:
                if v not in seen:
                    seen.add(v)
                    ring.append(v)
        frontier = ring
    return sorted(seen)


# long: one list per kind of transport, each built as transport_route checks it.
def destinations(mv: Mover) -> dict[str, dict[str, list[str]]]:
    """Where transport may take `mv` now: per kind, per carrier ("" for rail), the hexes
    (each accepted by `transport_route`)."""
    out: dict[str, dict[str, list[str]]] = {}
    if mv.state.step != st.ACTION or not mv.fresh:
        return out
    kinds: list[str] = [t for t in m.TRANSPORTS if t in transports_allowed(mv.spec, mv.unit)]
    if mv.unit.mode in (m.COMBAT, m.MOVE):
        kinds.append(m.AMPHIBIOUS)
    board = mv.board
    grid = board.grid
    stance = board.stance(mv.unit.power)
    sc = mv.state.setup.scenario

    problem = end_checker(mv)

    def ends(positions: list[int]) -> list[str]:
        return [grid.ids[i] for i in positions
                if i != mv.start and problem(grid.ids[i]) is None]

    for kind in kinds:
        if kind == "rail":
            if mv.state.rail_left(sc.controller_of(mv.unit.power)) < 1:
                continue
            net = rail_network(board, mv.unit.power, mv.unit.at)
            if not isinstance(net, NoPath):
                found = ends(sorted(net[1]))
                if found:
                    out["rail"] = {"": found}
            continue
        if kind == "air":
            for c in carriers(mv, kind):
                spec = sc.unit(c.unit)
                assert spec.atr is not None
                near = [i for i in _within(mv, spec.atr.range)
                        if stance.territory[i] == FRIENDLY and i not in stance.enemy_land]
                found = ends(near)
                if found:
                    out.setdefault("air", {})[c.unit] = found
            continue
        if mv.start not in stance.ports:
            continue
        for c in carriers(mv, kind):
            group = stance.sea_group.get(c.at)
            if group is None:
                continue
            if kind == "sea":
                candidates = sorted(stance.ports)
            else:
                candidates = [i for i in sorted(grid.seas_of) if not mv.ground.closed[i]]
            near = [i for i in candidates
                    if any(stance.sea_group.get(s) == group for s in grid.seas_of.get(i, ()))]
            found = ends(near)
            if found:
                out.setdefault(kind, {})[c.unit] = found
    return out
