"""Supply across the map: sources in supply and in communication, and which land
units are in supply and through what (11.18; RULES-NOTES 2, 5, 19, 25).

Readings where the seeds are silent (paths themselves: `service.rules.board`):

- Sources. A hex source (`supply`: primary, secondary, limited) serves a power when
  its `supply_power` (else the hex's controller) is a friend, the hex is controlled
  by a friend or by nobody, and no enemy land unit is in it. HQs are secondary
  sources (11.18.7), and so is a city holding a friendly supply unit (RULES-NOTES 5,
  option `reorg.supply_unit_city_source`).
- The supply network of a power: its usable primary sources; every rail hex a
  railway path reaches from a network hex standing on a friendly rail hex
  (11.18.6); every port, or coastal hex with a friendly HQ (RULES-NOTES 2), that an
  overseas path reaches from a port of the network (11.18.4); and so on to the end,
  since the legs combine ("railway ... in conjunction with overseas").
- A secondary or limited source is in supply when a basic path within the limit
  reaches it from the network: when a unit standing on it would be in supply from a
  primary source. A limited source in a port needs the port undamaged
  (RULES-NOTES 19). Secondary sources supply by basic path only.
- A land unit is in supply when a basic path within the limit reaches its hex from
  the network (the nearest network hex wins; ties go to the first found, primary
  sources first); failing that, from the nearest secondary source in supply; failing
  that, for a unit of a coastal type (RULES-NOTES 2) on a coastal hex, when a port
  of the network reaches one of its sea areas (its hex is the port: length 0).
  Limited sources add nothing here: a unit on one in supply is already in supply.
- An HQ, itself a secondary source, is in supply only from the network, as every
  secondary source is (RULES-NOTES 33): the supply view, HQ reorganization (RULES-NOTES
  25) and the HQ as a source (11.18.7) ask the same question, so HQs never chain
  supply through one another or through other secondary sources.
- In communication (11.18.5): a source traces a path of any length to another
  usable primary source of a friend, through open hexes overland (a railway path is
  one) and port-to-port overseas legs.

`supply_report` runs, per stance (in practice per side), one multi-source search
from the whole network outward and one from the secondary sources, never one search
per unit; the results are memoized on the board, so every query on one position
shares them.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from service.rules.board.grid import (
    FRIENDLY,
    NEUTRAL,
    OPEN,
    NoPath,
    Path,
    PathResult,
    coastal_ok,
    path_length,
)
from service.rules.board.layout import Board, Stance
from service.rules.board.paths import basic_path, overseas_path, rail_path, sea_chain, spread
from service.rules.scenario import HQ
from service.rules.state import State

__all__ = [
    "SupplyStatus",
    "hex_in_supply",
    "home_ports",
    "in_communication",
    "overseas_route",
    "source_in_supply",
    "state_supply",
    "supply_report",
    "unit_supply",
    "unit_supply_at",
]


@dataclass(frozen=True, slots=True)
class SupplyStatus:
    """Whether a land unit is in supply and through what.

    `method`: primary, secondary, rail or overseas (the last long leg; primary and
    secondary mean a basic path straight from the source). `source`: the source hex,
    or the HQ unit for an HQ. `via`: the rail hex or port where the basic path
    begins, when not at the source. `length`: the basic path's length. `route`: the
    long legs from the source, in order. Out of supply: `reason` and `rule`."""

    unit: str
    in_supply: bool
    method: str | None = None
    source: str | None = None
    via: str | None = None
    length: int | None = None
    route: tuple[str, ...] = ()
    reason: str | None = None
    rule: str | None = None


@dataclass(frozen=True, slots=True, eq=False)
class _Network:
    """The supply network of a stance: per hex the hex it was reached from (-1 at a
    primary source), its primary source, the long legs on the way, and whether it
    was reached overseas; `groups` maps each sea group shipped into to its port."""

    parent: dict[int, int]
    root: dict[int, int]
    route: dict[int, tuple[str, ...]]
    jumped: frozenset[int]
    order: tuple[int, ...]
    groups: dict[int, int]


@dataclass(frozen=True, slots=True, eq=False)
class _Reach:
    """A bounded multi-source search: cost (-1: not reached), parent and starting hex
    by grid position."""

    cost: list[int]
    parent: list[int]
    origin: list[int]


def _serves(board: Board, st: Stance, i: int, supplier: str) -> bool:
    return (
        board.majors.get(supplier) in st.friends
        and st.territory[i] in (FRIENDLY, OPEN)
        and i not in st.enemy_land
    )


def _primaries(board: Board, st: Stance) -> tuple[int, ...]:
    return tuple(
        i for i, (kind, supplier) in board.grid.source_at.items()
        if kind == "primary" and _serves(board, st, i, supplier)
    )


def _by_group(board: Board, st: Stance, hexes: frozenset[int]) -> dict[int, tuple[int, ...]]:
    """The hexes of `hexes` on the coasts of each passable sea group."""
    out: dict[int, set[int]] = {}
    coast = board.grid.coast
    for sea, k in st.sea_group.items():
        out.setdefault(k, set()).update(i for i in coast[sea] if i in hexes)
    return {k: tuple(sorted(v)) for k, v in out.items()}


def _network(board: Board, st: Stance) -> _Network:
    def make() -> _Network:
        g = board.grid
        landing = _by_group(board, st, st.receiving)
        roots = _primaries(board, st)
        parent = dict.fromkeys(roots, -1)
        root = {r: r for r in roots}
        route: dict[int, tuple[str, ...]] = dict.fromkeys(roots, ())
        jumped: set[int] = set()
        groups: dict[int, int] = {}
        order: list[int] = []
        todo = deque(roots)
        while todo:
            u = todo.popleft()
            order.append(u)
            if g.rail[u] and st.territory[u] == FRIENDLY:
                legs = route[u] if route[u][-1:] == ("rail",) else (*route[u], "rail")
                for v in g.nbrs[u]:
                    if st.rail_open[v] and v not in parent:
                        parent[v], root[v], route[v] = u, root[u], legs
                        todo.append(v)
            if u in st.ports:
                for sea in g.seas_of[u]:
                    k = st.sea_group.get(sea)
                    if k is None or k in groups:
                        continue
                    groups[k] = u
                    legs = (*route[u], "overseas")
                    for v in landing.get(k, ()):
                        if v not in parent:
                            parent[v], root[v], route[v] = u, root[u], legs
                            jumped.add(v)
                            todo.append(v)
        return _Network(parent, root, route, frozenset(jumped), tuple(order), groups)

    return board.cached(("network", st.key), make)


def _primary_reach(board: Board, st: Stance, limit: int) -> _Reach:
    """Basic paths within `limit` from the network (primary sources only)."""

    def make() -> _Reach:
        net = _network(board, st)
        return _Reach(*spread(board.grid.nbrs, board.step, st.closed, net.order, limit))

    return board.cached(("primary_reach", st.key, limit), make)


def _secondaries(board: Board, st: Stance) -> dict[int, str]:
    """Secondary sources by hex: hex sources, then HQs, then cities with supply units."""
    out: dict[int, str] = {}
    g = board.grid
    for i, (kind, supplier) in g.source_at.items():
        if kind == "secondary" and _serves(board, st, i, supplier):
            out.setdefault(i, g.ids[i])
    for f in sorted(st.friends):
        for i, uid in board.hqs_of.get(f, ()):
            if st.territory[i] != NEUTRAL:
                out.setdefault(i, uid)
    if board.supply_unit_cities:
        for f in sorted(st.friends):
            for i in sorted(board.supply_units_of.get(f, ())):
                if st.territory[i] != NEUTRAL:
                    out.setdefault(i, g.ids[i])
    return out


def _secondary_reach(board: Board, st: Stance, limit: int) -> tuple[_Reach, dict[int, str]]:
    """Basic paths within `limit` from the secondary sources in supply, and those
    sources by hex (each a start of its own paths)."""

    def make() -> tuple[_Reach, dict[int, str]]:
        first = _primary_reach(board, st, limit)
        heads = {i: sid for i, sid in _secondaries(board, st).items() if first.cost[i] >= 0}
        return _Reach(*spread(board.grid.nbrs, board.step, st.closed, heads, limit)), heads

    return board.cached(("secondary_reach", st.key, limit), make)


def _hexes(n: int) -> str:
    return f"{n} hex" if n == 1 else f"{n} hexes"


def _status(board: Board, uid: str, limit: int, at: int | None = None) -> SupplyStatus:
    st = board.stance(board.unit_power[uid])
    i = board.unit_hex[uid] if at is None else at
    g = board.grid
    reach = _primary_reach(board, st, limit)
    c = reach.cost[i]
    if c >= 0:
        net = _network(board, st)
        o = reach.origin[i]
        root, legs = net.root[o], net.route[o]
        return SupplyStatus(
            uid, True, legs[-1] if legs else "primary", g.ids[root],
            None if o == root else g.ids[o], c, legs,
        )
    spec = board.scenario.unit(uid)
    if spec.type == HQ:
        return SupplyStatus(
            uid, False,
            reason=f"no primary supply source traces a supply path of at most "
                   f"{_hexes(limit)} to hex {g.ids[i]}, and an HQ is in supply from the "
                   "primary network only (RULES-NOTES 33)",
            rule="RULES-NOTES 33",
        )
    second, heads = _secondary_reach(board, st, limit)
    c = second.cost[i]
    if c >= 0:
        return SupplyStatus(uid, True, "secondary", heads[second.origin[i]], None, c)
    if i in g.seas_of and st.territory[i] != NEUTRAL and coastal_ok(spec, board.coastal_types):
        net = _network(board, st)
        for sea in g.seas_of[i]:
            k = st.sea_group.get(sea)
            if k is not None and k in net.groups:
                port = net.groups[k]
                return SupplyStatus(
                    uid, True, "overseas", g.ids[net.root[port]], g.ids[i], 0,
                    (*net.route[port], "overseas"),
                )
    return SupplyStatus(
        uid, False,
        reason=f"no supply source traces a supply path of at most {_hexes(limit)} "
               f"to hex {g.ids[i]}",
        rule="11.18",
    )


def supply_report(
    board: Board, power_or_all: str | None, max_length: int
) -> dict[str, SupplyStatus]:
    """Every land unit on the map (of `power_or_all`, a power with its minors or a
    minor alone; None: everybody's), in supply or not and through what, with basic
    paths of at most `max_length` (never below 0)."""
    limit = max(0, max_length)
    majors = board.majors
    return {
        uid: _status(board, uid, limit)
        for uid, power in board.unit_power.items()
        if power_or_all is None or power == power_or_all or majors[power] == power_or_all
    }


def state_supply(state: State) -> dict[str, SupplyStatus]:
    """Every land unit's supply in `state`, with the current weather's basic path
    (RULES-NOTES 26) and the game's options: what a state view shows."""
    board = Board.from_state(state)
    return supply_report(board, None, path_length(state.setup.scenario, state.turn.weather))


def unit_supply(board: Board, unit: str, max_length: int) -> SupplyStatus:
    """Whether land unit `unit` is in supply (RULES-NOTES 25: an HQ reorganizing others
    must be); KeyError if it is not a land unit on the map."""
    if unit not in board.unit_hex:
        raise KeyError(f"{unit!r} is not a land unit on the map")
    return _status(board, unit, max(0, max_length))


def unit_supply_at(board: Board, unit: str, hex_id: str, max_length: int) -> SupplyStatus:
    """Whether land unit `unit` would be in supply standing in `hex_id` on this board
    (OCS 5.8b asks it of where a Strat move ends)."""
    if unit not in board.unit_hex:
        raise KeyError(f"{unit!r} is not a land unit on the map")
    return _status(board, unit, max(0, max_length), board.at(hex_id))


def _source_problem(board: Board, st: Stance, i: int, power: str) -> NoPath | None:
    g = board.grid
    hid = g.ids[i]
    found = g.source_at.get(i)
    if found is None:
        return NoPath(f"hex {hid} is not a supply source", "11.18", hid)
    if i in st.enemy_land:
        return NoPath(f"hex {hid} is occupied by enemy units", "11.18", hid)
    if st.territory[i] not in (FRIENDLY, OPEN):
        return NoPath(f"hex {hid} is not controlled by a friendly power", "11.18", hid)
    if board.majors.get(found[1]) not in st.friends:
        return NoPath(f"the supply source in hex {hid} belongs to {found[1]}, not a friend "
                      f"of {power}", "11.18", hid)
    return None


def _supply_unit_city(board: Board, st: Stance, i: int) -> bool:
    """RULES-NOTES 5: a city holding a friendly supply unit acts as a secondary source."""
    return (
        board.supply_unit_cities
        and st.territory[i] != NEUTRAL
        and any(i in board.supply_units_of.get(f, ()) for f in st.friends)
    )


def _route(board: Board, st: Stance, reach: _Reach, i: int) -> Path:
    """The whole route to hex `i`: network legs from the primary source, then the
    basic path."""
    g = board.grid
    net = _network(board, st)
    basic = [i]
    while reach.parent[basic[-1]] != -1:
        basic.append(reach.parent[basic[-1]])
    basic.reverse()
    head = basic[0]
    chain = [head]
    while net.parent[chain[-1]] != -1:
        chain.append(net.parent[chain[-1]])
    chain.reverse()
    seas: list[str] = []
    for a, b in zip(chain, chain[1:], strict=False):
        if b in net.jumped:
            seas.extend(sea_chain(board, st, g.seas_of[a], g.seas_of[b]) or ())
    legs = net.route[head]
    hexes = tuple(g.ids[v] for v in chain + basic[1:])
    return Path(legs[-1] if legs else "primary", hexes, tuple(seas), reach.cost[i])


def source_in_supply(
    board: Board, power: str, source: str, max_length: int | None = None
) -> PathResult:
    """Whether `source` (a source hex, an HQ unit, or a city with a friendly supply unit
    when `supply_unit_cities`: secondary sources, 11.18.7, RULES-NOTES 5) is in supply
    for `power`: a primary source always; a secondary or limited one when a
    basic path of at most `max_length` (None: the map's) reaches it from the primary
    network (11.18.3, 11.18.7, RULES-NOTES 19). The path runs from the primary source
    to the source."""
    st = board.stance(power)
    if source in board.unit_hex:
        i, kind = board.unit_hex[source], "secondary"
        if board.scenario.unit(source).type != HQ:
            return NoPath(f"unit {source} is not an HQ", "11.18.7", source)
        if board.majors[board.unit_power[source]] not in st.friends:
            return NoPath(f"HQ {source} is not a friend of {power}", "11.18.7", source)
        strat = board.hq_source_problem(source)
        if strat is not None:
            return strat
    else:
        i = board.at(source)
        if i not in board.grid.source_at and _supply_unit_city(board, st, i):
            kind = "secondary"
        else:
            problem = _source_problem(board, st, i, power)
            if problem is not None:
                return problem
            kind = board.grid.source_at[i][0]
        if kind == "primary":
            return Path("primary", (source,), (), 0)
        if kind == "limited" and board.port_damaged(source):
            return NoPath(f"the port in hex {source} is damaged", "RULES-NOTES 19", source)
    limit = board.scenario.map.supply_path_length if max_length is None else max_length
    limit = max(0, limit)
    reach = _primary_reach(board, st, limit)
    if reach.cost[i] >= 0:
        return _route(board, st, reach, i)
    where = f"hex {board.grid.ids[i]}"
    return NoPath(
        f"no primary supply source traces a supply path of at most {_hexes(limit)} "
        f"to {where}", "11.18.3" if kind == "limited" else "11.18.7", source,
    )


def in_communication(board: Board, power: str, source_hex: str) -> PathResult:
    """Whether the source in `source_hex` traces a path of any length, overland through
    open hexes or overseas port to port, to another usable primary source of a friend
    (11.18.5; out of communication it dispenses RPs once per turn). The path's
    `length` counts the hexes entered overland. Memoized on the board."""
    st = board.stance(power)
    return board.cached(("communication", st.key, power, source_hex),
                        lambda: _communication(board, st, power, source_hex))


def _communication(board: Board, st: Stance, power: str, source_hex: str) -> PathResult:
    g = board.grid
    i = board.at(source_hex)
    problem = _source_problem(board, st, i, power)
    if problem is not None:
        return problem
    targets = frozenset(_primaries(board, st)) - {i}
    ports = board.cached(("ports_by_group", st.key), lambda: _by_group(board, st, st.ports))
    parent = {i: -1}
    jumped: set[int] = set()
    done: set[int] = set()
    todo = deque([i])
    while todo:
        u = todo.popleft()
        if u in targets:
            chain = [u]
            while parent[chain[-1]] != -1:
                chain.append(parent[chain[-1]])
            chain.reverse()
            seas: list[str] = []
            for a, b in zip(chain, chain[1:], strict=False):
                if b in jumped:
                    seas.extend(sea_chain(board, st, g.seas_of[a], g.seas_of[b]) or ())
            overland = sum(1 for v in chain[1:] if v not in jumped)
            return Path("communication", tuple(g.ids[v] for v in chain), tuple(seas), overland)
        for v in g.nbrs[u]:
            if not st.closed[v] and v not in parent:
                parent[v] = u
                todo.append(v)
        if u in st.ports:
            for sea in g.seas_of[u]:
                k = st.sea_group.get(sea)
                if k is None or k in done:
                    continue
                done.add(k)
                for v in ports.get(k, ()):
                    if v not in parent:
                        parent[v] = u
                        jumped.add(v)
                        todo.append(v)
    return NoPath(
        f"the supply source in hex {source_hex} cannot trace a path of any length overland "
        "or overseas to another primary supply source", "11.18.5", source_hex,
    )


def hex_in_supply(board: Board, power: str, hex_id: str, max_length: int) -> PathResult:
    """Whether hex `hex_id` is in supply for `power` (a unit of `power` standing there
    would be, 11.18): a basic path of at most `max_length` from the primary network,
    else from a secondary source in supply. 11.18.10 asks it of a major port."""
    st = board.stance(power)
    limit = max(0, max_length)
    i = board.at(hex_id)
    reach = _primary_reach(board, st, limit)
    if reach.cost[i] >= 0:
        return _route(board, st, reach, i)
    second, heads = _secondary_reach(board, st, limit)
    if second.cost[i] >= 0:
        basic = [i]
        while second.parent[basic[-1]] != -1:
            basic.append(second.parent[basic[-1]])
        basic.reverse()
        g = board.grid
        return Path("secondary", tuple(g.ids[v] for v in basic), (), second.cost[i])
    return NoPath(f"no supply source traces a supply path of at most {_hexes(limit)} to "
                  f"hex {hex_id}", "11.18", hex_id)


def home_ports(board: Board, power: str, source_hex: str, max_length: int) -> tuple[Path, ...]:
    """The friendly, usable ports a supply source ships from (11.18.4, 11.18.6): the
    source itself when it is one, those on its railway, and those within a basic path
    of at most `max_length`; each as the path from the source to it, nearest first.
    Memoized on the board."""
    st = board.stance(power)
    limit = max(0, max_length)

    def make() -> tuple[Path, ...]:
        g = board.grid
        s = board.at(source_hex)
        if s in st.ports:
            return (Path("port", (source_hex,), (), 0),)
        found: dict[int, Path] = {}
        ports = [g.ids[i] for i in sorted(st.ports, key=lambda i: (g.distance(s, i), i))]
        if ports:
            by_rail = rail_path(board, power, source_hex, ports)
            if isinstance(by_rail, Path):
                found[board.at(by_rail.hexes[-1])] = by_rail
            near = [p for p in ports if g.distance(s, board.at(p)) <= limit]
            if near:
                by_road = basic_path(board, power, source_hex, near, limit)
                if isinstance(by_road, Path):
                    found.setdefault(board.at(by_road.hexes[-1]), by_road)
        return tuple(sorted(found.values(), key=lambda p: (len(p.hexes), p.hexes[-1])))

    return board.cached(("home_ports", st.key, source_hex, limit), make)


def overseas_route(
    board: Board,
    power: str,
    source_hex: str,
    landing: str,
    max_length: int,
    *,
    coastal: bool = False,
    allow_damaged: bool = False,
) -> PathResult:
    """The overseas leg from supply source `source_hex` to `landing` (11.18.4): from
    one of the source's home ports (`home_ports`) through adjacent sea areas to the
    landing port, or to a coastal hex when `coastal` (RULES-NOTES 2). `hexes` run from
    the source to the landing; `length` counts the sea areas. A damaged landing port
    only when `allow_damaged` (its own repair, RULES-NOTES 23)."""
    homes = home_ports(board, power, source_hex, max_length)
    if not homes:
        return NoPath(f"the supply source in hex {source_hex} reaches no friendly port by "
                      "railway or a basic path", "11.18.4", source_hex)
    first: NoPath | None = None
    for home in homes:
        if home.hexes[-1] == landing:
            continue
        leg = overseas_path(board, power, landing, home.hexes[-1], coastal,
                            allow_damaged=allow_damaged)
        if isinstance(leg, Path):
            hexes = home.hexes + ((landing,) if landing != home.hexes[-1] else ())
            return Path("overseas", hexes, leg.seas, leg.length)
        first = first or leg
    return first or NoPath(f"hex {landing} is the supply source's own port: no sea to cross",
                           "11.18.4", landing)
