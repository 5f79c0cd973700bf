"""Ground movement on the map: what entering a hex costs a unit (the scenario's terrain
effects table, hexside features, the weather), where it may not go (enemy units,
neutral territory, terrain it cannot enter, an enemy ZOC for a Strat unit), how an
enemy ZOC stops it, and every hex it reaches within an allowance with the cheapest
path. The modes (`service.rules.modes.movement`) say how far a unit may move in a step
and where a move may end.

Readings (docs/rules-options.md, "Movement"):

- A hex entered costs the table's MP for its terrain and the unit's class (leg or
  motorized), plus the extra MP of a hexside feature crossed (a river) and of the
  weather, per hex entered. Terrain a class may not enter (null in the table) is closed.
- Enemy ZOC (option `movement.zoc`): "stop" (the default), a unit that enters a hex in
  an enemy ZOC ends its movement there; "free", it moves on. Leaving a hex in an
  enemy ZOC costs `movement.zoc_exit_cost` more MP (default 0). Friendly units do not
  negate an enemy ZOC for movement (as for OCS 5.7c and OCS 5.8a); a Strat unit never
  enters one (OCS 5.8a).
- Hexes holding enemy land units are closed (overrun them first), and so is neutral
  territory (the map engine's territory: a neutral power's, or a side's not at war).
- OCS 6.1c (the Play Note of OCS 5.7): a unit that has not moved yet in a step may
  always move one hex, whatever it costs, spending all its MP.

Costs are whole MP; an allowance may be a fraction (Reserve units move 1/4 MA).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from service.rules.board.grid import NEUTRAL, Grid
from service.rules.board.layout import Board, Stance
from service.rules.scenario import MovementSpec

__all__ = ["NEUTRAL_RULE", "ONE_HEX_RULE", "TERRAIN_RULE", "ZOC_RULE", "Ground", "MoveReach",
           "Step", "ground", "move_reach", "walk_path"]
TERRAIN_RULE: Final = "terrain effects table (docs/rules-options.md)"
ZOC_RULE: Final = "enemy ZOC (docs/rules-options.md)"
NEUTRAL_RULE: Final = "neutral territory (docs/rules-options.md)"
ONE_HEX_RULE: Final = "OCS 6.1c"
_CLOSED: Final = 255
_EPSILON: Final = 1e-9


@dataclass(frozen=True, slots=True, eq=False)
class Ground:
    """The map as one kind of mover sees it: a power's units of one class, in one
    weather and mode. `enter[i]` is what entering position i costs before hexsides and
    weather (255: may not enter); `closed[i]` is 1 where it may not go at all.

    It keeps the board's grid and the power's stance, not the board that memoizes it:
    a reference back would make every board a cycle, left to the cyclic collector
    (tens of milliseconds a collection on a busy server) instead of freed when the
    last reference goes."""

    grid: Grid
    stance: Stance
    power: str
    move_class: str
    weather: str | None
    enter: bytes
    closed: bytes
    extra: int
    side_cost: Mapping[tuple[int, int], int]
    zoc: frozenset[int]
    stop_in_zoc: bool
    exit_cost: int
    strat: bool

    def cost(self, u: int, v: int) -> int:
        """MP to move from position u into the adjacent position v."""
        key = (u, v) if u < v else (v, u)
        out = self.enter[v] + self.extra + self.side_cost.get(key, 0)
        return out + self.exit_cost if u in self.zoc else out

    def why_closed(self, v: int) -> tuple[str, str, str] | None:
        """(code, reason, rule) when the mover may not enter position v at all."""
        grid, stance = self.grid, self.stance
        hid = grid.ids[v]
        if v in stance.enemy_land:
            return ("report/enemy_hex", f"cannot enter {hid}: enemy units hold it (overrun "
                    "them first)", "RULES-NOTES 31")
        if stance.territory[v] == NEUTRAL:
            return ("report/neutral", f"cannot enter {hid}: it is neutral territory",
                    NEUTRAL_RULE)
        if self.enter[v] == _CLOSED:
            terrain = grid.terrains[grid.terrain_code[v]]
            return ("report/terrain", f"cannot enter {hid}: {self.move_class} units may not "
                    f"enter {terrain}", TERRAIN_RULE)
        if self.strat and v in self.zoc:
            return ("report/strat_zoc", f"is in Strat Mode and cannot move into the enemy ZOC "
                    f"in {hid}", "OCS 5.8a")
        return None

    def breakdown(self, u: int, v: int) -> str:
        """What moving u -> v costs, in words: "forest 2 + river 1"."""
        g = self.grid
        parts = [f"{g.terrains[g.terrain_code[v]]} {self.enter[v]}"]
        key = (u, v) if u < v else (v, u)
        if self.side_cost.get(key):
            parts.append(f"{g.hexsides[key].replace('_', ' ')} {self.side_cost[key]}")
        if self.extra:
            parts.append(f"{self.weather} {self.extra}")
        if u in self.zoc and self.exit_cost:
            parts.append(f"leaving an enemy ZOC {self.exit_cost}")
        return " + ".join(parts)


def ground(board: Board, power: str, movement: MovementSpec, move_class: str,
           weather: str | None, *, strat: bool, stop_in_zoc: bool, exit_cost: int) -> Ground:
    """The `Ground` of `power`'s units of `move_class`, memoized on the board."""
    key = ("ground", board.stance(power).key, movement, move_class, weather, strat,
           stop_in_zoc, exit_cost)

    def make() -> Ground:
        g = board.grid
        stance = board.stance(power)
        table = bytes(
            _CLOSED if (c := movement.terrain_cost(t, move_class)) is None else min(c, 254)
            for t in g.terrains)
        enter = g.terrain_code.translate(table.ljust(256, b"\x01"))
        closed = bytearray(enter.translate(bytes([0] * _CLOSED + [1])))
        for i in stance.enemy_land:
            closed[i] = 1
        for i, t in enumerate(stance.territory):
            if t == NEUTRAL:
                closed[i] = 1
        zoc = frozenset(stance.zoc)
        if strat:
            for i in zoc:
                closed[i] = 1
        sides = {k: movement.hexside_cost(f, move_class) for k, f in g.hexsides.items()}
        return Ground(g, stance, power, move_class, weather, enter, bytes(closed),
                      movement.weather_cost(weather, move_class),
                      {k: c for k, c in sides.items() if c}, zoc, stop_in_zoc, exit_cost,
                      strat)

    return board.cached(key, make)


@dataclass(slots=True)
class MoveReach:
    """Hexes reached from `start` within an allowance: the cheapest cost of each (by
    grid position; more than the allowance for OCS 6.1c's one hex), the position it was
    entered from, and how many cheapest paths lead there (2 meaning "more than one")."""

    start: int
    cost: dict[int, int] = field(default_factory=dict)
    parent: dict[int, int] = field(default_factory=dict)
    ways: dict[int, int] = field(default_factory=dict)

    def path(self, i: int) -> list[int]:
        """Positions from the start (excluded) to `i`."""
        out = [i]
        while self.parent[out[-1]] != self.start:
            out.append(self.parent[out[-1]])
        out.reverse()
        return out


def move_reach(gr: Ground, start: int, allowance: float, *, one_hex: bool) -> MoveReach:
    """Every hex the mover reaches from `start` with at most `allowance` MP (a bucketed
    Dijkstra), counting the cheapest paths; with `one_hex` (OCS 6.1c) also each open
    neighbour of the start, whatever it costs."""
    nbrs = gr.grid.nbrs
    closed, enter, extra, sides = gr.closed, gr.enter, gr.extra, gr.side_cost
    zoc, stop, exit_cost = gr.zoc, gr.stop_in_zoc, gr.exit_cost
    limit = int(allowance + _EPSILON)
    out = MoveReach(start, {start: 0}, {start: -1}, {start: 1})
    cost, parent, ways = out.cost, out.parent, out.ways
    buckets: list[list[int]] = [[] for _ in range(limit + 1)]
    buckets[0].append(start)
    settled: set[int] = set()
    for c, bucket in enumerate(buckets):
        for u in bucket:
            if u in settled or cost[u] != c:
                continue
            settled.add(u)
            inside = u in zoc
            if inside and stop and u != start:
                continue  # entering an enemy ZOC ends the move
            base = c + extra + (exit_cost if inside else 0)
            for v in nbrs[u]:
                if closed[v]:
                    continue
                nc = base + enter[v] + sides.get((u, v) if u < v else (v, u), 0)
                if nc > limit:
                    continue
                old = cost.get(v)
                if old is None or nc < old:
                    cost[v], parent[v], ways[v] = nc, u, ways[u]
                    buckets[nc].append(v)
                elif nc == old and v not in settled:
                    ways[v] = min(2, ways[v] + ways[u])
    if one_hex:
        for v in nbrs[start]:
            if not closed[v] and v not in cost:
                cost[v], parent[v], ways[v] = gr.cost(start, v), start, 1
    return out


@dataclass(frozen=True, slots=True)
class Step:
    """A path walked: the cumulative MP at each hex entered, or where it stops being
    legal (`index` into the path; `code`, `reason`, `rule`; `mp` when it is the MP that
    run out)."""

    costs: tuple[int, ...]
    index: int = -1
    code: str = ""
    reason: str = ""
    rule: str = ""
    mp: bool = False

    @property
    def ok(self) -> bool:
        return self.index < 0


def walk_path(gr: Ground, start: int, path: list[int], allowance: float, *,
         one_hex: bool) -> Step:
    """Walk `path` (positions entered, in order) from `start`: each hex next to the one
    before, open, not after a hex in an enemy ZOC the mover entered (option "stop"),
    and affordable (OCS 6.1c: one hex always is, for a unit that has not moved)."""
    grid = gr.grid
    costs: list[int] = []
    total = 0
    u = start
    for k, v in enumerate(path):
        if v not in grid.nbrs[u]:
            return Step(tuple(costs), k, "report/path", f"moves from {grid.ids[u]} to "
                        f"{grid.ids[v]}, which are not next to each other", "RULES-NOTES 31")
        if u != start and gr.stop_in_zoc and u in gr.zoc:
            return Step(tuple(costs), k, "report/zoc_stop", f"entered the enemy ZOC in "
                        f"{grid.ids[u]}: its movement ends there", ZOC_RULE)
        why = gr.why_closed(v)
        if why is not None:
            return Step(tuple(costs), k, *why)
        total += gr.cost(u, v)
        costs.append(total)
        if total > allowance + _EPSILON and not (one_hex and k == 0 and len(path) == 1):
            return Step(tuple(costs), k, "report/mp", "", "", mp=True)
        u = v
    return Step(tuple(costs))
