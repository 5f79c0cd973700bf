"""How far and where a unit moves now (seed 004, OCS 5.5-5.10; docs/rules-options.md,
"Movement"): its allowance in the step and the rule that sets it, how it pays for the
map (`service.rules.board.moves`), where a move may end (the stacking limit, OCS 5.7g,
OCS 5.8b), a reported path checked hex by hex, the path filled in when exactly one
cheapest legal path leads to `to`, and every hex it can reach (its options).

The MP a move costs is the server's answer: the sum of what each hex entered costs.
What the move spends (`charge`) is that cost, or all the MP the unit has left when it
moves one hex beyond its allowance (OCS 6.1c) or enters an enemy ZOC (option
`movement.zoc` "stop": its movement ends there).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from service.rules import state as st
from service.rules.board import (
    ONE_HEX_RULE,
    Board,
    Ground,
    MoveReach,
    ground,
    move_reach,
    path_length,
    unit_supply_at,
    walk_path,
)
from service.rules.errors import Refused
from service.rules.modes import vocabulary as m
from service.rules.modes.change import hedgehogs
from service.rules.modes.effective import step_ma
from service.rules.modes.items import refuse_unit
from service.rules.scenario import UnitSpec
from service.rules.state import State, UnitState

__all__ = ["STACKING_RULE", "Mover", "Route", "end_checker", "end_problem", "fill_path",
           "ma_rule", "mover", "reachable", "stack_points", "stacking_problem", "walk_route"]
STACKING_RULE: Final = "stacking limit (docs/rules-options.md)"
_EPSILON: Final = 1e-9


# The rule that sets a unit's allowance in its mode.
_MA_RULE: Final = {m.COMBAT: "OCS 5.5", m.MOVE: "OCS 5.6", m.RESERVE: "OCS 5.7",
                   m.STRAT: "OCS 5.8", m.DG: "OCS 5.10b", m.EXPLOIT: "OCS 5.9"}
_MODE_NAMES: Final = {m.COMBAT: "Combat", m.MOVE: "Move", m.RESERVE: "Reserve", m.STRAT: "Strat",
                      m.DG: "DG", m.EXPLOIT: "Exploitation"}


def ma_rule(unit: UnitState) -> str:
    """The rule that gives the unit its allowance now: its mode's (OCS 5.5-5.10b), or
    OCS 5.7b for a released Reserve."""
    if unit.released in (st.REACTION, st.EXPLOITATION):
        return "OCS 5.7b"
    return _MA_RULE.get(str(unit.mode), "OCS 5.2")


def _mode_words(unit: UnitState) -> str:
    if unit.released in (st.REACTION, st.EXPLOITATION):
        return f"released in the {unit.released} step"
    return f"{_MODE_NAMES.get(str(unit.mode), str(unit.mode))} Mode"


@dataclass(frozen=True, slots=True, eq=False)
class Mover:
    """A land unit about to move in the current step: what it may still spend
    (`allowance`: its step MA less the MP used), whether it has not moved in this step
    yet (`fresh`: OCS 6.1c's one hex), and the map as it pays for it."""

    state: State
    board: Board
    uid: str
    spec: UnitSpec
    unit: UnitState
    side: str
    step_ma: float
    used: float
    ground: Ground

    @property
    def allowance(self) -> float:
        return max(0.0, self.step_ma - self.used)

    @property
    def fresh(self) -> bool:
        return self.used <= _EPSILON and self.step_ma > 0

    @property
    def start(self) -> int:
        return self.board.at(self.unit.at)

    def refuse(self, code: str, reason: str, rule: str, path: str, *,
               hex_id: str | None = None, **extra: object) -> Refused:
        error = refuse_unit(code, self.uid, reason, rule=rule, path=path)
        if hex_id is not None:
            error.extra["hex"] = hex_id
        error.extra.update(extra)
        return error


def mover(state: State, board: Board, uid: str) -> Mover:
    """`uid` (a land unit using modes, on a hex) as it moves now."""
    unit = state.units[uid]
    spec = state.setup.scenario.unit(uid)
    movement = state.setup.scenario.movement
    options = state.setup.options.get("movement", {})
    weather = None if state.turn.weather is None else state.turn.weather.get("weather")
    gr = ground(board, unit.power, movement, movement.move_class(spec), weather,
                strat=unit.mode == m.STRAT, stop_in_zoc=options.get("zoc", "stop") == "stop",
                exit_cost=int(options.get("zoc_exit_cost", 0)))
    used = unit.mp_used if unit.mp_step == state.step else 0.0
    return Mover(state, board, uid, spec, unit, m.side_of_unit(state, uid),
                 float(step_ma(state, uid)), used, gr)


@dataclass(frozen=True, slots=True)
class Route:
    """A legal move: the hexes entered (ending at `to`), what they cost, what the move
    spends, whether the referee filled the path in, and why it spends more than it
    costs (`notes`). Transport moves carry the sea areas crossed and the carrier."""

    hexes: tuple[str, ...]
    cost: float
    charge: float
    filled: bool = False
    notes: tuple[str, ...] = ()
    transport: str | None = None
    seas: tuple[str, ...] = ()
    carrier: str | None = None

    @property
    def to(self) -> str:
        return self.hexes[-1]


def stack_points(board: Board) -> dict[str, int]:
    """Stacking points of the land units in each hex (the scenario's `stacking`),
    memoized on the board."""

    def make() -> dict[str, int]:
        sc = board.scenario
        stacking = sc.movement.stacking
        out: dict[str, int] = {}
        for place, ids in board.units_at.items():
            points = sum(stacking.points(sc.unit(u)) for u in ids)
            if points:
                out[place] = points
        return out

    return board.cached(("stack_points",), make)


def stacking_problem(state: State, hex_id: str, points: int) -> str | None:
    """Why `points` of land units in `hex_id` break the scenario's stacking limit."""
    stacking = state.setup.scenario.movement.stacking
    if points <= stacking.limit:
        return None
    return (f"{hex_id} would hold {points} stacking points of land units; the limit is "
            f"{stacking.limit} (a corps counts {stacking.corps}, a division "
            f"{stacking.division})")


Problem = tuple[str, str, str]  # code, reason, rule


def end_checker(mv: Mover, *, stacking: bool = True) -> Callable[[str], Problem | None]:
    """A function giving (code, reason, rule) when a move of `mv` may not end in a hex:
    a Reserve unit with a hedgehog (OCS 5.7g), a Strat unit where no trace supply is
    possible (OCS 5.8b), or (with `stacking`) a hex it would overstack alone."""
    state = mv.state
    hedges = hedgehogs(mv.board, mv.side) if mv.unit.mode == m.RESERVE else {}
    strat = mv.unit.mode == m.STRAT
    mine = state.setup.scenario.movement.stacking.points(mv.spec) if stacking else 0
    points = stack_points(mv.board)
    limit = state.setup.scenario.movement.stacking.limit

    def problem(to: str) -> Problem | None:
        hedgehog = hedges.get(to)
        if hedgehog is not None:
            return ("report/hedgehog", f"is in Reserve Mode and cannot end its move with "
                    f"hedgehog {hedgehog} in {to}", "OCS 5.7g")
        if strat:
            status = strat_end_supply(mv, to)
            if not status[0]:
                return ("report/strat_supply", f"is in Strat Mode and must end its move where "
                        f"trace supply is possible; in {to}: {status[1]}", "OCS 5.8b")
        if mine and points.get(to, 0) + mine > limit:
            why = stacking_problem(state, to, points.get(to, 0) + mine)
            return "report/stacking", f"cannot end its move in {to}: {why}", STACKING_RULE
        return None

    return problem


def end_problem(mv: Mover, to: str, *, stacking: bool = True) -> Problem | None:
    """`end_checker`'s answer for one hex."""
    return end_checker(mv, stacking=stacking)(to)


def strat_end_supply(mv: Mover, to: str) -> tuple[bool, str]:
    """Whether trace supply is possible for the unit standing in `to` (OCS 5.8b), on the
    board after the move. Leaving its hex changes the board only where the unit alone
    negated an enemy ZOC for supply; then the board is built again."""
    board = mv.board
    stance = board.stance(mv.unit.power)
    others = [u for u in board.units_in(mv.unit.at) if u != mv.uid
              and u in board.unit_hex and board.majors[board.unit_power[u]] in
              stance.side_powers]
    if mv.start in stance.zoc and not others:
        # Any hex outside an enemy ZOC (where a Strat move ends, OCS 5.8a) gives the same
        # board: one is built per unit.
        def departed() -> Board:
            moved = replace(mv.state, units={**mv.state.units,
                                             mv.uid: replace(mv.unit, at=to)})
            return Board.from_state(moved)

        board = board.cached(("departed", mv.uid), departed)
    limit = path_length(mv.state.setup.scenario, mv.state.turn.weather)
    status = unit_supply_at(board, mv.uid, to, limit)
    return status.in_supply, status.reason or ""


def _ends_notes(mv: Mover, path: list[int], cost: float) -> tuple[float, tuple[str, ...]]:
    """What a legal path spends and why more than it costs."""
    gr = mv.ground
    notes: list[str] = []
    charge = cost
    last = path[-1]
    if cost > mv.allowance + _EPSILON:
        notes.append(f"moves one hex beyond its MP, spending all it has ({ONE_HEX_RULE})")
        charge = mv.allowance
    if gr.stop_in_zoc and last in gr.zoc:
        notes.append(f"enters the enemy ZOC in {gr.grid.ids[last]}: its movement "
                     "ends there")
        charge = mv.allowance
    return _num(charge), tuple(notes)


def _num(x: float) -> float:
    return int(x) if float(x).is_integer() else x


# long: a reported path's checks in order, each naming the hex where the move fails.
def walk_route(mv: Mover, hexes: list[str], path: str, *, filled: bool = False) -> Route:
    """Check `hexes` (entered in order) for `mv`; refused naming the rule and the hex
    where the move stops being legal."""
    board = mv.board
    positions = [board.at(h) for h in hexes]
    gr = mv.ground
    step = walk_path(gr, mv.start, positions, mv.allowance, one_hex=mv.fresh)

    def where(k: int) -> str:
        return f"{path}/to" if filled else f"{path}/path/{k}"

    if not step.ok and not step.mp:
        hid = hexes[step.index]
        raise mv.refuse(step.code, step.reason, step.rule, where(step.index), hex_id=hid)
    if not step.ok:
        pairs = list(zip([mv.start, *positions], positions, strict=False))
        total = sum(gr.cost(u, v) for u, v in pairs)
        hid = hexes[step.index]
        route = " -> ".join([mv.unit.at, *hexes])
        parts = ", ".join(gr.breakdown(u, v) for u, v in pairs)
        raise mv.refuse(
            "report/mp", f"cannot move {route}: it costs {_num(total)} MP ({parts}) "
            f"and it has {_num(mv.allowance)} of {_num(mv.step_ma)} MP left in this step "
            f"({_mode_words(mv.unit)}); its MP run out entering {hid}", ma_rule(mv.unit),
            where(step.index), hex_id=hid, mp=_num(total), mp_left=_num(mv.allowance))
    cost = step.costs[-1]
    charge, notes = _ends_notes(mv, positions, cost)
    return Route(tuple(hexes), _num(cost), charge, filled, notes)


def fill_path(mv: Mover, to: str, path: str) -> Route:
    """The one cheapest legal path to `to`; refused when none leads there or when
    several do (the report must name one)."""
    reach = move_reach(mv.ground, mv.start, mv.allowance, one_hex=mv.fresh)
    target = mv.board.at(to)
    why = mv.ground.why_closed(target)
    if why is not None:
        raise mv.refuse(why[0], why[1], why[2], f"{path}/to", hex_id=to)
    if target not in reach.cost:
        far = move_reach(mv.ground, mv.start, float(10_000), one_hex=False)
        if target in far.cost:
            hexes = [mv.board.grid.ids[i] for i in far.path(target)]
            walk_route(mv, hexes, path, filled=True)  # names where the MP run out
        raise mv.refuse("report/unreachable", f"cannot reach {to} from {mv.unit.at} by any "
                        "legal path (enemy units, an enemy ZOC, neutral territory or "
                        "terrain it may not enter close the way)", "RULES-NOTES 31",
                        f"{path}/to", hex_id=to)
    hexes = [mv.board.grid.ids[i] for i in reach.path(target)]
    if reach.ways[target] > 1:
        raise mv.refuse("report/path_needed", f"has several cheapest paths of "
                        f"{reach.cost[target]} MP to {to} (one is {' -> '.join(hexes)}): "
                        "name the one played in `path`", "RULES-NOTES 31", f"{path}/path",
                        hex_id=to)
    return walk_route(mv, hexes, path, filled=True)


def reachable(mv: Mover, reach: MoveReach | None = None) -> dict[str, Route]:
    """Every hex where a move of `mv` may end now, with its cheapest path (the options):
    each such path `walk_route` accepts. Hexes the unit could pass through but not stop
    in (stacking, OCS 5.7g, OCS 5.8b) are left out."""
    if mv.allowance <= _EPSILON:
        return {}
    reach = reach or move_reach(mv.ground, mv.start, mv.allowance, one_hex=mv.fresh)
    ids = mv.board.grid.ids
    out: dict[str, Route] = {}
    ends = end_checker(mv)
    for i in sorted(reach.cost, key=lambda i: (reach.cost[i], ids[i])):
        if i == mv.start:
            continue
        to = ids[i]
        if ends(to) is not None:
            continue
        positions = reach.path(i)
        cost = reach.cost[i]
        charge, notes = _ends_notes(mv, positions, cost)
        out[to] = Route(tuple(ids[p] for p in positions), cost, charge, False, notes)
    return out
