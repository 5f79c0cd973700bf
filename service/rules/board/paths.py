"""The map engine: hexes, zones of control and the paths supply traces (11.18).

`Board.build` indexes a scenario's map and the units' positions and modes once; the
path functions then take a board and a power and return a `Path` (the hexes and sea
areas traced) or a `NoPath` that says in a sentence which hex stops it and under
which rule. Network-wide supply (sources in supply, in communication, every unit's
status) is in `service.rules.supply`.

Readings where the seeds are silent:

- Friends and enemies. A minor counts as its controller. A power's enemies are the
  powers it is at war with (`at_war_with`, mutual). Its friends are the powers of its
  side; a neutral power's only friend, for territory, ports and sources, is itself.
- Territory. A path may enter hexes controlled by nobody, by a friend, or by an
  enemy. Any other hex (a neutral power's, or another side's not at war with the
  tracing power) is neutral territory and closed.
- Zones of control (RULES-NOTES 28; OCS 5.5e, OCS 5.9c). Land units in Combat Mode, in
  Exploit Mode oriented to Combat (the ZOC they had before the marker), or without a
  mode (no OCS data: Combat), exert a ZOC into their hex
  and its six neighbours; units in Move, Strat, Reserve or DG Mode do not, nor do
  supply units, hedgehogs, transport points and replacements (they are never in
  Combat Mode, OCS 5.1, OCS 5.5c), nor air or naval units. Face-down units do (face down
  is not DG, RULES-NOTES 18). For supply a friendly (same-side) land unit in the hex
  negates enemy ZOC there.
- Entering. Every path begins in a hex it does not enter: the start costs nothing
  and only its own nature is checked (a rail hex for rail, a port for overseas).
  Each hex entered must be open: not occupied by enemy land units, not neutral
  territory, not in enemy ZOC unless negated. The goal is entered like any other.
- Length (RULES-NOTES 26). A basic path counts hexes entered; each costs 1 plus its
  terrain's extra cost (`supply.terrain_cost`: one more for mountain, swamp, jungle,
  forest). The limit is the weather row's `supply_path`, else the map's
  `supply_path_length`, never below 0; 0 reaches only the start hex. "Unlimited
  movement points" (11.18.5) is any open path of any length.
- Railway (11.18.6): rail hexes controlled by a friend, open, any length.
- Overseas (11.18.4; RULES-NOTES 2, 19): between two ports through a chain of
  adjacent sea areas, each holding no enemy naval unit unless a friendly naval unit
  is there too. Ports must be controlled by a friend, undamaged and free of enemy
  land units. The receiving end may instead be any coastal hex for the unit types of
  RULES-NOTES 2, or a coastal hex holding a friendly HQ (a minor port); a damaged
  receiving port only for its own repair (`allow_damaged`).

Speed. What depends on the map alone (neighbour tables, terrain, rail, ports,
coasts) is computed once per map value by `grid_of`, a bounded `functools.lru_cache`
keyed by the immutable, hashable `MapSpec`: hashing a 20,000-hex map takes about
5 ms against about 130 ms to rebuild the grid, equal maps parsed twice share one
grid, and at most 8 maps are held; the same map object is found by identity first,
without hashing it. Everything that depends on the units (per-power views, supply
networks) is memoized on the board itself, which is built per position: there is no
other state outside a board. `supply_since` updates one position's supply report to
the next from the searches of the first board (`service.rules.board.supply`).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from service.rules.board.grid import (
    _FLIP,
    _UNLIMITED,
    FRIENDLY,
    NEUTRAL,
    Goal,
    Grid,
    NoPath,
    Path,
    PathResult,
    _hexes,
)
from service.rules.board.layout import Board, Stance, _why_closed, _why_not_rail


def search(
    nbrs: tuple[tuple[int, ...], ...],
    step: bytes,
    closed: bytes,
    starts: Iterable[int],
    limit: int,
    cost: dict[int, int],
    parent: dict[int, int],
    goal: Callable[[int], bool] | None = None,
    origin: dict[int, int] | None = None,
) -> int:
    """Shortest paths from every start (cost 0) into hexes that are not `closed`,
    entering hex v for `step[v]`, up to `limit` (a bucketed Dijkstra).

    Fills `cost` and `parent` (and `origin`, the start each hex is reached from);
    returns the first goal settled, or -1. Hexes already in `cost` are only improved,
    so a second call seeds more starts into an earlier search."""
    buckets: list[list[int]] = [[]]
    for s in starts:
        cost[s] = 0
        parent[s] = -1
        if origin is not None:
            origin[s] = s
        buckets[0].append(s)
    c = 0
    while c < len(buckets):
        for u in buckets[c]:
            if cost[u] != c:
                continue
            if goal is not None and goal(u):
                return u
            for v in nbrs[u]:
                if closed[v]:
                    continue
                nc = c + step[v]
                if nc > limit:
                    continue
                old = cost.get(v)
                if old is None or nc < old:
                    cost[v] = nc
                    parent[v] = u
                    if origin is not None:
                        origin[v] = origin[u]
                    while len(buckets) <= nc:
                        buckets.append([])
                    buckets[nc].append(v)
        buckets[c] = []
        c += 1
    return -1


def spread(
    nbrs: tuple[tuple[int, ...], ...],
    step: bytes,
    closed: bytes,
    starts: Iterable[int],
    limit: int,
) -> tuple[list[int], list[int], list[int]]:
    """`search` from many starts over the whole grid, in flat lists (faster when the
    paths cover much of the map): cost (-1: not reached), parent (-1 at a start) and
    the start each hex is reached from, by grid position."""
    n = len(nbrs)
    cost, parent, origin = [-1] * n, [-1] * n, [-1] * n
    buckets: list[list[int]] = [[] for _ in range(limit + 1)]
    first = buckets[0]
    for s in starts:
        if cost[s] < 0:
            cost[s] = 0
            origin[s] = s
            first.append(s)
    for c, bucket in enumerate(buckets):
        for u in bucket:
            if cost[u] != c:
                continue
            o = origin[u]
            for v in nbrs[u]:
                if closed[v]:
                    continue
                nc = c + step[v]
                if nc > limit:
                    continue
                old = cost[v]
                if old < 0 or nc < old:
                    cost[v] = nc
                    parent[v] = u
                    origin[v] = o
                    buckets[nc].append(v)
    return cost, parent, origin


def _walk(parent: Mapping[int, int], end: int) -> list[int]:
    out = [end]
    while parent[out[-1]] != -1:
        out.append(parent[out[-1]])
    out.reverse()
    return out


def _goal_test(board: Board, goal: Goal) -> tuple[Callable[[int], bool], frozenset[int] | None]:
    if isinstance(goal, str):
        g = board.at(goal)
        return (lambda i: i == g), frozenset({g})
    if callable(goal):
        ids = board.grid.ids
        pred = goal
        return (lambda i: pred(ids[i])), None
    targets = frozenset(board.at(h) for h in goal)
    return targets.__contains__, targets


def _blocker(
    board: Board,
    reached: Iterable[int],
    blocked: Callable[[int], bool],
    targets: frozenset[int] | None,
    start: int,
) -> int | None:
    """The blocked hex next to the reached area nearest the goal (or the start)."""
    g = board.grid
    seen: set[int] = set()
    for u in reached:
        seen.update(v for v in g.nbrs[u] if blocked(v))
    if not seen:
        return None
    aims = tuple(targets) if targets else (start,)
    return min(seen, key=lambda v: (min(g.distance(v, t) for t in aims), v))


def basic_path(
    board: Board,
    power: str,
    start: str,
    goal: Goal,
    max_length: int,
    *,
    unlimited: bool = False,
) -> PathResult:
    """A shortest basic supply path (11.18, RULES-NOTES 26) of `power` from `start`
    to the goal: a hex id, a collection of hex ids, or a predicate on hex ids.

    The start costs 0; each hex entered costs 1 plus its terrain extra; the total is
    at most `max_length` (never below 0), or any length when `unlimited` (11.18.5,
    out-of-supply reorganization). Hexes entered, the goal included, must be open:
    no enemy land units, no neutral territory, no enemy ZOC unless negated."""
    st = board.stance(power)
    g = board.grid
    s = board.at(start)
    is_goal, targets = _goal_test(board, goal)
    limit = _UNLIMITED if unlimited else max(0, max_length)
    if is_goal(s):
        return Path("basic", (start,), (), 0)
    if targets is not None:
        open_targets = [t for t in targets if not st.closed[t]]
        if not open_targets:
            why = _why_closed(board, st, _nearest(g, s, targets))
            assert why is not None
            return why
        nearest = _nearest(g, s, open_targets)
        if not unlimited and g.distance(s, nearest) > limit:
            return NoPath(
                f"the path needs at least {_hexes(g.distance(s, nearest))} but the weather "
                f"allows {limit}", "RULES-NOTES 26", g.ids[nearest],
            )
    cost: dict[int, int] = {}
    parent: dict[int, int] = {}
    end = search(g.nbrs, board.step, st.closed, (s,), limit, cost, parent, is_goal)
    if end >= 0:
        hexes = tuple(g.ids[i] for i in _walk(parent, end))
        return Path("basic", hexes, (), cost[end])
    if not unlimited:
        far: dict[int, int] = {}
        far_parent: dict[int, int] = {}
        end = search(g.nbrs, board.step, st.closed, (s,), _UNLIMITED, far, far_parent, is_goal)
        if end >= 0:
            return NoPath(
                f"the path needs {_hexes(far[end])} but the weather allows {limit}",
                "RULES-NOTES 26", g.ids[end],
            )
        cost = far
    blocker = _blocker(board, cost, lambda v: bool(st.closed[v]), targets, s)
    if blocker is not None:
        why = _why_closed(board, st, blocker)
        assert why is not None
        return why
    return NoPath(f"no hexes link hex {start} to {_goal_words(board, goal)}", "11.18", None)


def _nearest(g: Grid, s: int, targets: Iterable[int]) -> int:
    return min(targets, key=lambda t: (g.distance(s, t), t))


def _goal_words(board: Board, goal: Goal) -> str:
    if isinstance(goal, str):
        return f"hex {goal}"
    return "any goal hex"


def rail_path(board: Board, power: str, start: str, goal: Goal) -> PathResult:
    """A railway supply path (11.18.6) of `power`: from rail hex `start` along rail
    hexes a friend controls, never into enemy ZOC unless negated, any length.
    `length` counts the rail hexes entered."""
    st = board.stance(power)
    g = board.grid
    s = board.at(start)
    if not g.rail[s]:
        return NoPath(f"hex {start} has no railway", "11.18.6", start)
    if st.territory[s] != FRIENDLY:
        return NoPath(f"hex {start} is not controlled by a friendly power", "11.18.6", start)
    if s in st.enemy_land:
        return NoPath(f"hex {start} is occupied by enemy units", "11.18.6", start)
    is_goal, targets = _goal_test(board, goal)
    if is_goal(s):
        return Path("rail", (start,), (), 0)
    if targets is not None and not any(st.rail_open[t] for t in targets):
        why = _why_not_rail(board, st, _nearest(g, s, targets))
        assert why is not None
        return why
    closed = st.rail_open.translate(_FLIP)
    ones = b"\x01" * len(g.ids)
    cost: dict[int, int] = {}
    parent: dict[int, int] = {}
    end = search(g.nbrs, ones, closed, (s,), _UNLIMITED, cost, parent, is_goal)
    if end >= 0:
        return Path("rail", tuple(g.ids[i] for i in _walk(parent, end)), (), cost[end])
    blocker = _blocker(
        board, cost, lambda v: bool(g.rail[v]) and not st.rail_open[v], targets, s
    )
    if blocker is not None:
        why = _why_not_rail(board, st, blocker)
        assert why is not None
        return why
    return NoPath(f"no railway links hex {start} to {_goal_words(board, goal)}", "11.18.6")


def _port_problem(board: Board, st: Stance, i: int, allow_damaged: bool) -> NoPath | None:
    g = board.grid
    hid = g.ids[i]
    kind, damaged = g.ports[i]
    if st.territory[i] != FRIENDLY:
        return NoPath(f"the port in hex {hid} is not controlled by a friendly power",
                      "11.18.4", hid)
    if i in st.enemy_land:
        return NoPath(f"hex {hid} is occupied by enemy units", "11.18.4", hid)
    if damaged and i not in board.repaired and not allow_damaged:
        return NoPath(f"the port in hex {hid} is damaged", "11.18.4", hid)
    return None


def sea_chain(board: Board, st: Stance, a: Iterable[str], b: Collection[str]) -> list[str] | None:
    """A shortest chain of passable sea areas from one of `a` to one of `b`."""
    adjacent = board.grid.sea_adjacent
    parent: dict[str, str | None] = {}
    todo: deque[str] = deque()
    for s in sorted(a):
        if s in st.passable and s not in parent:
            parent[s] = None
            todo.append(s)
    while todo:
        s = todo.popleft()
        if s in b:
            chain = [s]
            while (p := parent[chain[-1]]) is not None:
                chain.append(p)
            chain.reverse()
            return chain
        for t in adjacent[s]:
            if t in st.passable and t not in parent:
                parent[t] = s
                todo.append(t)
    return None


def _sea_blocker(board: Board, st: Stance, a: Iterable[str], b: Collection[str]) -> str | None:
    """The impassable sea area nearest the far end among those the chain reaches."""
    adjacent = board.grid.sea_adjacent
    reached: set[str] = set()
    todo = [s for s in a if s in st.passable]
    reached.update(todo)
    blocked = {s for s in a if s not in st.passable}
    while todo:
        s = todo.pop()
        for t in adjacent[s]:
            if t in st.passable:
                if t not in reached:
                    reached.add(t)
                    todo.append(t)
            else:
                blocked.add(t)
    if not blocked:
        return None
    preferred = sorted(blocked & set(b)) or sorted(blocked)
    return preferred[0]


def overseas_path(
    board: Board,
    power: str,
    from_hex: str,
    to_hex: str,
    coastal_ok: bool = False,
    *,
    allow_damaged: bool = False,
) -> PathResult:
    """An overseas path (11.18.4) between `from_hex`, the receiving end, and the port
    `to_hex`, through a chain of adjacent sea areas none of which holds an enemy naval
    unit without a friendly one. `from_hex` is a port; with `coastal_ok` any coastal
    hex (RULES-NOTES 2); a coastal hex with a friendly HQ counts as a minor port. A
    damaged port is refused, except as the receiving end when `allow_damaged` (its
    own repair, 11.18.4, RULES-NOTES 23). `length` counts the sea areas.

    The coast rule wins over the port's own state: a coastal-type unit or an HQ in a
    damaged or enemy-controlled port still traces from its coast."""
    st = board.stance(power)
    g = board.grid
    f, t = board.at(from_hex), board.at(to_hex)
    if f not in g.seas_of:
        return NoPath(f"hex {from_hex} is not coastal", "11.18.4", from_hex)
    problem = _port_problem(board, st, f, allow_damaged) if f in g.ports else None
    if f not in g.ports or problem is not None:
        if coastal_ok or f in st.hq_coast:
            problem = _why_closed(board, st, f) \
                if f in st.enemy_land or st.territory[f] == NEUTRAL else None
        elif problem is None:
            problem = NoPath(
                f"hex {from_hex} has no port (only INF-class divisions, MAR and flying boats "
                "trace overseas from a coastal hex)", "RULES-NOTES 2", from_hex,
            )
        if problem is not None:
            return problem
    if t not in g.ports:
        return NoPath(f"hex {to_hex} has no port", "11.18.4", to_hex)
    problem = _port_problem(board, st, t, False)
    if problem is not None:
        return problem
    a, b = g.seas_of[f], g.seas_of.get(t, ())
    if not b:
        return NoPath(f"hex {to_hex} is not coastal", "11.18.4", to_hex)
    if f == t:
        return Path("overseas", (from_hex,), (), 0)
    chain = sea_chain(board, st, a, b)
    if chain is not None:
        return Path("overseas", (from_hex, to_hex), tuple(chain), len(chain))
    sea = _sea_blocker(board, st, a, b)
    if sea is not None:
        return NoPath(f"sea area {sea} holds enemy naval units and no friendly ones",
                      "11.18.4", sea)
    return NoPath(f"no chain of sea areas links hex {from_hex} to hex {to_hex}",
                  "11.18.4", None)


@dataclass(frozen=True, slots=True, eq=False)
class Reach:
    """Basic paths within a limit from many starts at once (`spread`): per grid
    position the cost (-1: not reached), the position it was entered from (-1 at a
    start) and the start it was reached from."""

    cost: list[int]
    parent: list[int]
    origin: list[int]

    def walk(self, i: int) -> list[int]:
        """Grid positions from the start to `i` (which must be reached)."""
        out = [i]
        while self.parent[out[-1]] != -1:
            out.append(self.parent[out[-1]])
        out.reverse()
        return out


def basic_path_from(
    board: Board, power: str, starts: Collection[str], goal: str, max_length: int
) -> PathResult:
    """A shortest basic supply path (as `basic_path`) to `goal` from whichever of
    `starts` is nearest; the reason of a failure is the nearest start's."""
    if not starts:
        return NoPath(f"nothing to trace a supply path from to hex {goal}", "11.18", goal)
    g = board.grid
    if len(starts) == 1:
        return basic_path(board, power, next(iter(starts)), goal, max_length)
    st = board.stance(power)
    limit = max(0, max_length)
    t = board.at(goal)
    cost: dict[int, int] = {}
    parent: dict[int, int] = {}
    end = search(g.nbrs, board.step, st.closed, sorted(board.at(s) for s in starts), limit,
                 cost, parent, t.__eq__)
    if end >= 0:
        return Path("basic", tuple(g.ids[i] for i in _walk(parent, end)), (), cost[end])
    nearest = g.ids[_nearest(g, t, (board.at(s) for s in starts))]
    return basic_path(board, power, nearest, goal, limit)


def reach_index(
    board: Board, power: str, starts: Iterable[tuple[str, str]], max_length: int
) -> dict[str, list[tuple[str, int]]]:
    """For every hex, each (label, start hex) of `starts` whose basic supply path of at
    most `max_length` reaches it, as (label, length): one bounded search per start,
    finding what `basic_path` would. Planning uses it to list candidates at once."""
    st = board.stance(power)
    g = board.grid
    limit = max(0, max_length)
    out: dict[str, list[tuple[str, int]]] = {}
    for label, start in starts:
        cost: dict[int, int] = {}
        parent: dict[int, int] = {}
        search(g.nbrs, board.step, st.closed, (board.at(start),), limit, cost, parent)
        for i, c in cost.items():
            out.setdefault(g.ids[i], []).append((label, c))
    return out


def open_component(board: Board, power: str) -> list[int]:
    """Per grid position, the number of its connected area of hexes a supply path of
    `power` may enter (-1 for a closed hex); memoized per stance."""
    st = board.stance(power)

    def make() -> list[int]:
        g = board.grid
        label = [-1] * len(g.ids)
        closed = st.closed
        k = 0
        for i in range(len(g.ids)):
            if closed[i] or label[i] >= 0:
                continue
            label[i] = k
            todo = [i]
            while todo:
                u = todo.pop()
                for v in g.nbrs[u]:
                    if not closed[v] and label[v] < 0:
                        label[v] = k
                        todo.append(v)
            k += 1
        return label

    return board.cached(("open_component", st.key), make)


def reaches_unlimited(board: Board, power: str, start: str, goal: str) -> bool:
    """Whether `basic_path(..., unlimited=True)` from `start` finds `goal`: the goal is
    open and in the area of the start or of one of its open neighbours (11.18.5)."""
    if start == goal:
        return True
    label = open_component(board, power)
    t = label[board.at(goal)]
    if t < 0:
        return False
    s = board.at(start)
    return label[s] == t or any(label[v] == t for v in board.grid.nbrs[s])


def _rail_tree(board: Board, st: Stance, s: int) -> tuple[list[int], frozenset[int]]:
    """Railway paths from rail hex `s` (as `rail_path` traces them, breadth first): the
    position each hex is entered from (-1 at `s`, -2 where not reached), and the hexes
    reached."""
    nbrs = board.grid.nbrs
    rail_open = st.rail_open
    parent = [-2] * len(nbrs)
    parent[s] = -1
    order = [s]
    for u in order:
        for v in nbrs[u]:
            if rail_open[v] and parent[v] == -2:
                parent[v] = u
                order.append(v)
    return parent, frozenset(order)


def rail_network(board: Board, power: str, start: str) -> tuple[list[int], frozenset[int]] | NoPath:
    """Every railway path (11.18.6) of `power` from rail hex `start`, as `rail_path`
    traces them: the position each hex is entered from (-1 at the start) and the hexes
    reached; memoized on the board. A NoPath when `start` is no usable rail hex."""
    head = rail_path(board, power, start, start)
    if isinstance(head, NoPath):
        return head
    st = board.stance(power)
    s = board.at(start)
    return board.cached(("rail_tree", st.key, s), lambda: _rail_tree(board, st, s))


def rail_supply_path(
    board: Board, power: str, source: str, goal: str, max_length: int
) -> PathResult:
    """A railway supply path (11.18.6) of `power` from `source` to `goal`: a railway path
    from rail hex `source` to a rail hex, then a basic path of at most `max_length` to
    the goal. `length` is the basic path's; `hexes` run from the source to the goal."""
    head = rail_path(board, power, source, source)
    if isinstance(head, NoPath):
        return head
    st = board.stance(power)
    g = board.grid
    limit = max(0, max_length)
    s = board.at(source)
    parent, net = board.cached(("rail_tree", st.key, s), lambda: _rail_tree(board, st, s))
    reach = board.cached(
        ("rail_reach", st.key, net, limit),
        lambda: Reach(*spread(g.nbrs, board.step, st.closed, sorted(net), limit)),
    )
    t = board.at(goal)
    if reach.cost[t] < 0:
        return NoPath(
            f"hex {goal} is not within a basic path of {_hexes(limit)} of the railway "
            f"from hex {source}", "11.18.6", goal,
        )
    basic = reach.walk(t)
    rail = [basic[0]]
    while parent[rail[-1]] >= 0:
        rail.append(parent[rail[-1]])
    rail.reverse()
    hexes = tuple(g.ids[i] for i in rail + basic[1:])
    return Path("rail", hexes, (), reach.cost[t])
