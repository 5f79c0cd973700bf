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
- Zones of control (RULES-NOTES 28; OCS 5.5e, 5.9c). Land units in Combat Mode, in
  Exploit Mode oriented to Combat (the ZOC they had before the marker), or without a
  mode (no OCS data: Combat), exert a ZOC into their hex
  and its six neighbours; units in Move, Strat, Reserve or DG Mode do not, nor do
  supply units, hedgehogs, transport points and replacements (they are never in
  Combat Mode, OCS 5.1, 5.5c), nor air or naval units. Face-down units do (face down
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
grid, and at most 8 maps are held. Everything that depends on the units (per-power
views, supply networks) is memoized on the board itself, which is built per
position: there is no other state outside a board.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Collection, Hashable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache, partial
from operator import is_not
from typing import Any, Final, TypeVar, cast

from service.rules.scenario import (
    HEDGEHOG,
    HQ,
    MAR,
    REPL,
    ROUGH_TERRAINS,
    SUPPLY,
    TRANSPORT,
    MapSpec,
    Scenario,
    UnitSpec,
    axial_distance,
)
from service.rules.state import State, UnitState

__all__ = [
    "DEFAULT_COASTAL_TYPES", "DEFAULT_TERRAIN_COST", "ENEMY", "FRIENDLY", "NEUTRAL", "OPEN",
    "ZOC_MODES", "Board", "Goal", "Grid", "NoPath", "Path", "PathResult", "Reach", "Stance",
    "basic_path", "basic_path_from", "coastal_ok", "exerts_zoc", "grid_of", "open_component",
    "overseas_path", "path_length", "rail_path", "rail_supply_path", "reach_index",
    "reaches_unlimited", "sea_chain", "search", "spread",
]

# RULES-NOTES 26: one extra hex for each rough terrain.
DEFAULT_TERRAIN_COST: Final[Mapping[str, int]] = {t: 1 for t in sorted(ROUGH_TERRAINS)}
# RULES-NOTES 2 (`reorg.coastal_types`): INF-class divisions, MAR, flying boats.
DEFAULT_COASTAL_TYPES: Final = frozenset({"INF", "MTN", "MAR", "PARA", "GAR", "FB"})

_T = TypeVar("_T")
ZOC_MODES: Final = frozenset({"combat", "exploit"})
_NO_ZOC_TYPES: Final = frozenset({SUPPLY, HEDGEHOG, TRANSPORT, REPL})
_UNLIMITED: Final = 1 << 62
_FLIP: Final = bytes((1, 0)).ljust(256, b"\0")  # translate table: 0 <-> 1
_PACK: Final = 1 << 32  # q * _PACK + r is unique for |r| < 2**31
# The six axial directions (DESIGN section 6), packed.
_PACKED_DIRECTIONS: Final = (_PACK, _PACK - 1, -1, -_PACK, 1 - _PACK, 1)
_IS_HEX: Final = partial(is_not, None)

# Territory of a hex as seen by a power.
FRIENDLY: Final = 0
OPEN: Final = 1  # controlled by nobody
ENEMY: Final = 2
NEUTRAL: Final = 3

Goal = str | Collection[str] | Callable[[str], bool]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True)
class Path:
    """A path traced: `hexes` in order from the start (consecutive hexes are
    adjacent, except across an overseas leg, whose sea areas are in `seas`).
    `length` is what the limit counts: hexes entered with terrain for a basic path,
    hexes entered for a railway, sea areas crossed for an overseas path."""

    kind: str
    hexes: tuple[str, ...]
    seas: tuple[str, ...] = ()
    length: int = 0


@dataclass(frozen=True, slots=True)
class NoPath:
    """Why there is no path: a sentence naming the hex, the rule, and the hex (or sea
    area) that stops it, if one does."""

    reason: str
    rule: str
    at: str | None = None


PathResult = Path | NoPath


def _hexes(n: int) -> str:
    return f"{n} hex" if n == 1 else f"{n} hexes"


# --------------------------------------------------------------------------- the grid


@dataclass(frozen=True, slots=True, eq=False)
class Grid:
    """A map's fixed structure, indexed by position (0..n-1) for fast searches."""

    ids: tuple[str, ...]
    index: Mapping[str, int]
    qr: tuple[tuple[int, int], ...]
    nbrs: tuple[tuple[int, ...], ...]
    terrains: tuple[str, ...]
    terrain_code: bytes
    rail: bytes
    controllers: tuple[str | None, ...]
    controller_code: tuple[int, ...]
    ports: Mapping[int, tuple[str, bool]]
    source_at: Mapping[int, tuple[str, str]]
    cities: frozenset[int]
    seas_of: Mapping[int, tuple[str, ...]]
    coast: Mapping[str, tuple[int, ...]]
    sea_adjacent: Mapping[str, tuple[str, ...]]

    def distance(self, a: int, b: int) -> int:
        (qa, ra), (qb, rb) = self.qr[a], self.qr[b]
        return axial_distance(qa, ra, qb, rb)


@lru_cache(maxsize=8)
def grid_of(spec: MapSpec) -> Grid:
    """The grid of map `spec`, memoized per map value (bounded; a map is immutable, so a
    board built for every state version of a game shares one grid)."""
    hexes = spec.hexes
    index = {h.id: i for i, h in enumerate(hexes)}
    # (q, r) packed into one int: six C-level passes instead of 6n tuple lookups.
    keys = [h.q * _PACK + h.r for h in hexes]
    at = dict(zip(keys, range(len(keys)), strict=True)).get
    steps = [list(map(at, [k + d for k in keys])) for d in _PACKED_DIRECTIONS]
    nbrs = tuple(tuple(filter(_IS_HEX, row)) for row in zip(*steps, strict=True))
    terrains = tuple(sorted({h.terrain for h in hexes}))
    tcode = {t: k for k, t in enumerate(terrains)}
    controllers = tuple(sorted({h.controller for h in hexes if h.controller is not None}))
    ccode: dict[str | None, int] = {c: k + 1 for k, c in enumerate(controllers)}
    coast: dict[str, list[int]] = {s.id: [] for s in spec.seas}
    for i, h in enumerate(hexes):
        for s in h.seas:
            coast[s].append(i)
    return Grid(
        ids=tuple([h.id for h in hexes]),
        index=index,
        qr=tuple([(h.q, h.r) for h in hexes]),
        nbrs=nbrs,
        terrains=terrains,
        terrain_code=bytes([tcode[h.terrain] for h in hexes]),
        rail=bytes([h.rail for h in hexes]),
        controllers=(None, *controllers),
        controller_code=tuple([ccode.get(h.controller, 0) for h in hexes]),
        ports={i: (h.port, h.port_damaged) for i, h in enumerate(hexes) if h.port is not None},
        source_at={
            i: (h.supply, h.supply_power or h.controller or "")
            for i, h in enumerate(hexes)
            if h.supply is not None
        },
        cities=frozenset(i for i, h in enumerate(hexes) if h.city is not None),
        seas_of={i: h.seas for i, h in enumerate(hexes) if h.seas},
        coast={s: tuple(v) for s, v in coast.items()},
        sea_adjacent={s.id: s.adjacent for s in spec.seas},
    )


# --------------------------------------------------------------------------- units


def exerts_zoc(spec: UnitSpec, mode: str | None, orientation: str | None = None) -> bool:
    """RULES-NOTES 28, OCS 5.5e, 5.9c: land units in Combat Mode, or with no mode (no
    OCS data: Combat), or in Exploit Mode keeping the ZOC they had: an Exploit unit
    keeps its orientation and only Combat or Move units earn the marker, so it had a
    ZOC when oriented to Combat (None: unknown, counted as Combat). Supply units,
    hedgehogs, transport points and replacements are never in Combat Mode (OCS 5.1,
    5.5c)."""
    if spec.unit_class != "land" or spec.type in _NO_ZOC_TYPES:
        return False
    if spec.ocs is not None and spec.ocs.kind != "combat":
        return False
    if mode == "exploit":
        return orientation != "move"
    return mode is None or mode in ZOC_MODES


def coastal_ok(spec: UnitSpec, coastal_types: Collection[str] = DEFAULT_COASTAL_TYPES) -> bool:
    """RULES-NOTES 2, 11.18.4: INF-class divisions, MAR units and flying boats may be
    traced to overseas from a coastal hex (`coastal_types` lists the types; land units
    other than MAR must be divisions)."""
    if spec.type not in coastal_types:
        return False
    return spec.unit_class != "land" or spec.type == MAR or spec.size == "division"


def path_length(scenario: Scenario, weather: Mapping[str, Any] | None) -> int:
    """The basic supply path: the weather row's `supply_path`, else the map's
    `supply_path_length`; never below 0 (RULES-NOTES 26)."""
    value = None if weather is None else weather.get("supply_path")
    length = scenario.map.supply_path_length if value is None else int(value)
    return max(0, length)


# --------------------------------------------------------------------------- the board


@dataclass(frozen=True, slots=True, eq=False)
class Stance:
    """The map as one power sees it (shared by the powers of a side with the same
    enemies and neutrality). Hex sets hold grid positions.

    `territory` is FRIENDLY, OPEN, ENEMY or NEUTRAL per hex; `closed` is 1 where a
    path may not enter; `rail_open` is 1 on open rail hexes a friend controls;
    `sea_group` numbers the connected groups of passable sea areas."""

    key: tuple[str, frozenset[str], str | None]
    side: str
    neutral: bool
    enemies: frozenset[str]
    friends: frozenset[str]
    side_powers: frozenset[str]
    zoc: frozenset[int]
    friendly_land: frozenset[int]
    enemy_land: frozenset[int]
    territory: bytes
    closed: bytes
    rail_open: bytes
    passable: frozenset[str]
    sea_group: Mapping[str, int]
    ports: frozenset[int]
    hq_coast: frozenset[int]
    receiving: frozenset[int]


@dataclass(frozen=True, slots=True, eq=False, repr=False)
class Board:
    """A scenario's map with the units on it, indexed for path queries.

    Built once per position (`build`, `from_state`); the per-power views and supply
    networks it computes on demand are memoized inside it and never change."""

    scenario: Scenario
    grid: Grid
    step: bytes
    units_at: Mapping[str, tuple[str, ...]]
    neutral: frozenset[str]
    coastal_types: frozenset[str]
    supply_unit_cities: bool
    majors: Mapping[str, str]
    land_of: Mapping[str, frozenset[int]]
    zoc_of: Mapping[str, frozenset[int]]
    navy_of: Mapping[str, frozenset[str]]
    hqs_of: Mapping[str, tuple[tuple[int, str], ...]]
    supply_units_of: Mapping[str, frozenset[int]]
    unit_hex: Mapping[str, int]
    unit_power: Mapping[str, str]
    repaired: frozenset[int] = frozenset()
    _stances: dict[tuple[str, frozenset[str], str | None], Stance] = field(
        default_factory=dict, repr=False
    )
    _keys: dict[str, tuple[str, frozenset[str], str | None]] = field(
        default_factory=dict, repr=False
    )
    _memo: dict[Any, Any] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:
        return (f"Board({self.scenario.id!r}: {len(self.grid.ids)} hexes, "
                f"{len(self.unit_hex)} land units on the map)")

    @classmethod
    def build(
        cls,
        scenario: Scenario,
        units: Mapping[str, UnitState],
        terrain_cost: Mapping[str, int] | None = None,
        *,
        neutral: Iterable[str] | None = None,
        coastal_types: Iterable[str] | None = None,
        supply_unit_cities: bool = True,
        repaired_ports: Iterable[str] = (),
    ) -> Board:
        """Index `scenario`'s map with `units` (every id a scenario unit) in place.

        `terrain_cost` is the extra cost per terrain (None: RULES-NOTES 26's default);
        `neutral` the neutral powers (None: the scenario's); `coastal_types` the
        types that trace overseas from a coast (RULES-NOTES 2); `supply_unit_cities`
        whether a supply unit in a city makes it a secondary source (RULES-NOTES 5);
        `repaired_ports` the damaged ports repaired with RPs since (RULES-NOTES 23)."""
        grid = grid_of(scenario.map)
        costs = DEFAULT_TERRAIN_COST if terrain_cost is None else terrain_cost
        table = bytes(min(255, 1 + max(0, int(costs.get(t, 0)))) for t in grid.terrains)
        step = grid.terrain_code.translate(table.ljust(256, b"\x01"))
        majors = {p.id: p.id for p in scenario.powers}
        majors.update((m.id, m.controller) for m in scenario.minors)
        index = grid.index
        at: dict[str, list[str]] = {}
        land: dict[str, set[int]] = {}
        zoc: dict[str, set[int]] = {}
        navy: dict[str, set[str]] = {}
        hqs: dict[str, list[tuple[int, str]]] = {}
        sups: dict[str, set[int]] = {}
        unit_hex: dict[str, int] = {}
        unit_power: dict[str, str] = {}
        is_sea = scenario.map.is_sea
        for uid, u in units.items():
            spec = scenario.unit(uid)
            major = majors[u.power]
            i = index.get(u.at)
            if i is None:
                if is_sea(u.at):
                    at.setdefault(u.at, []).append(uid)
                    if spec.unit_class == "naval":
                        navy.setdefault(major, set()).add(u.at)
                continue
            at.setdefault(u.at, []).append(uid)
            if spec.unit_class != "land":
                continue
            unit_hex[uid] = i
            unit_power[uid] = u.power
            land.setdefault(major, set()).add(i)
            if exerts_zoc(spec, u.mode, u.orientation):
                zoc.setdefault(major, set()).add(i)
            if spec.type == HQ and u.mode != "strat":  # a Strat HQ throws no supply (5.8b)
                hqs.setdefault(major, []).append((i, uid))
            elif spec.type == SUPPLY and i in grid.cities:
                sups.setdefault(major, set()).add(i)
        if neutral is None:
            neutral = (p.id for p in scenario.powers if p.neutral)
        return cls(
            scenario=scenario,
            grid=grid,
            step=step,
            units_at={k: tuple(v) for k, v in at.items()},
            neutral=frozenset(neutral),
            coastal_types=frozenset(
                DEFAULT_COASTAL_TYPES if coastal_types is None else coastal_types
            ),
            supply_unit_cities=supply_unit_cities,
            majors=majors,
            land_of={k: frozenset(v) for k, v in land.items()},
            zoc_of={k: frozenset(v) for k, v in zoc.items()},
            navy_of={k: frozenset(v) for k, v in navy.items()},
            hqs_of={k: tuple(v) for k, v in hqs.items()},
            supply_units_of={k: frozenset(v) for k, v in sups.items()},
            unit_hex=unit_hex,
            unit_power=unit_power,
            repaired=frozenset(index[h] for h in repaired_ports if h in index),
        )

    @classmethod
    def from_state(cls, state: State) -> Board:
        """The board of a game state, with its options (RULES-NOTES 2, 5, 26) and the
        ports repaired with RPs (RULES-NOTES 23)."""
        options = state.setup.options
        supply = options.get("supply", {})
        reorg = options.get("reorg", {})
        return cls.build(
            state.setup.scenario,
            state.units,
            supply.get("terrain_cost"),
            neutral=[p for p, ps in state.powers.items() if ps.neutral],
            coastal_types=reorg.get("coastal_types"),
            supply_unit_cities=bool(reorg.get("supply_unit_city_source", True)),
            repaired_ports=state.reorg.repaired_ports,
        )

    # ----------------------------------------------------------------- lookups

    def at(self, hex_id: str) -> int:
        """Grid position of hex `hex_id` (KeyError if it is not on the map)."""
        try:
            return self.grid.index[hex_id]
        except KeyError:
            raise KeyError(f"hex {hex_id!r} is not on the map") from None

    def neighbours(self, hex_id: str) -> tuple[str, ...]:
        """The axial neighbours of `hex_id` that are on the map."""
        ids = self.grid.ids
        return tuple(ids[j] for j in self.grid.nbrs[self.at(hex_id)])

    def units_in(self, place: str) -> tuple[str, ...]:
        """Ids of the units in hex or sea area `place`."""
        return self.units_at.get(place, ())

    def major(self, power: str) -> str:
        """The major power commanding `power` (a minor's controller)."""
        return self.majors[power]

    def enemies_of(self, power: str) -> frozenset[str]:
        """The major powers at war with `power`."""
        return self.stance(power).enemies

    def enemy_zoc(self, hex_id: str, power: str) -> bool:
        """Whether `hex_id` is in the ZOC of a land unit at war with `power` (OCS 5.7c,
        5.8a use this; negation does not apply there)."""
        return self.at(hex_id) in self.stance(power).zoc

    def zoc_negated(self, hex_id: str, power: str) -> bool:
        """A friendly (same-side) land unit in `hex_id` negates enemy ZOC for supply
        (RULES-NOTES 28)."""
        return self.at(hex_id) in self.stance(power).friendly_land

    def port_damaged(self, hex_id: str) -> bool:
        """Whether the port in `hex_id` is damaged and not repaired since (RULES-NOTES 23);
        False for a hex without a port."""
        i = self.at(hex_id)
        port = self.grid.ports.get(i)
        return port is not None and port[1] and i not in self.repaired

    def enemy_occupied(self, hex_id: str, power: str) -> bool:
        return self.at(hex_id) in self.stance(power).enemy_land

    def is_open(self, hex_id: str, power: str) -> bool:
        """Whether a supply path of `power` may enter `hex_id`."""
        return not self.stance(power).closed[self.at(hex_id)]

    def why_closed(self, hex_id: str, power: str) -> NoPath | None:
        """Why a supply path of `power` may not enter `hex_id` (None if it may)."""
        return _why_closed(self, self.stance(power), self.at(hex_id))

    def cached(self, key: Hashable, make: Callable[[], _T]) -> _T:
        """`make()`, computed once per board for `key`: views derived from this
        position (supply networks) are memoized with it."""
        if key not in self._memo:
            self._memo[key] = make()
        return cast(_T, self._memo[key])

    # ----------------------------------------------------------------- stances

    def stance(self, power: str) -> Stance:
        """The map as `power` (or a minor's controller) sees it; memoized."""
        major = self.majors[power]
        key = self._keys.get(major)
        if key is None:
            p = self.scenario.power(major)
            key = (p.side, frozenset(p.at_war_with), major if major in self.neutral else None)
            self._keys[major] = key
        found = self._stances.get(key)
        if found is None:
            found = self._stances[key] = _make_stance(self, key, major)
        return found


def _make_stance(
    board: Board, key: tuple[str, frozenset[str], str | None], major: str
) -> Stance:
    sc, g = board.scenario, board.grid
    side, enemies, own = key
    side_powers = frozenset(sc.powers_of_side(side))
    friends = frozenset({major}) if own is not None else side_powers - board.neutral
    code_territory = [OPEN]
    for c in g.controllers[1:]:
        assert c is not None
        m = board.majors[c]
        code_territory.append(
            FRIENDLY if m in friends else ENEMY if m in enemies else NEUTRAL
        )
    territory = bytes(map(code_territory.__getitem__, g.controller_code))
    closed = bytearray(territory.translate(bytes((0, 0, 0, 1)).ljust(256, b"\x00")))
    enemy_land = frozenset().union(*(board.land_of.get(e, ()) for e in enemies))
    friendly_land = frozenset().union(*(board.land_of.get(f, ()) for f in side_powers))
    zoc: set[int] = set()
    nbrs = g.nbrs
    for e in enemies:
        for i in board.zoc_of.get(e, ()):
            zoc.add(i)
            zoc.update(nbrs[i])
    for i in enemy_land:
        closed[i] = 1
    for i in zoc:
        if i not in friendly_land:
            closed[i] = 1
    friendly = territory.translate(bytes((1, 0, 0, 0)).ljust(256, b"\x00"))
    rail_open = _and(_and(g.rail, friendly), bytes(closed.translate(_FLIP)))
    enemy_navy = frozenset().union(*(board.navy_of.get(e, ()) for e in enemies))
    own_navy = frozenset().union(*(board.navy_of.get(f, ()) for f in side_powers))
    passable = frozenset(s for s in g.sea_adjacent if s not in enemy_navy or s in own_navy)
    group: dict[str, int] = {}
    for s in sorted(passable):
        if s in group:
            continue
        k = len(group)
        group[s] = k
        todo = [s]
        while todo:
            for t in g.sea_adjacent[todo.pop()]:
                if t in passable and t not in group:
                    group[t] = k
                    todo.append(t)
    ports = frozenset(
        i for i, (_, damaged) in g.ports.items()
        if (not damaged or i in board.repaired) and territory[i] == FRIENDLY
        and i not in enemy_land
    )
    hq_coast = frozenset(
        i for f in friends for i, _ in board.hqs_of.get(f, ())
        if i in g.seas_of and territory[i] != NEUTRAL
    )
    return Stance(
        key=key, side=side, neutral=own is not None, enemies=enemies, friends=friends,
        side_powers=side_powers, zoc=frozenset(zoc), friendly_land=friendly_land,
        enemy_land=enemy_land, territory=territory, closed=bytes(closed),
        rail_open=rail_open, passable=passable, sea_group=group, ports=ports,
        hq_coast=hq_coast, receiving=ports | hq_coast,
    )


def _and(a: bytes, b: bytes) -> bytes:
    """Bytewise AND of two equal-length 0/1 byte strings."""
    return (int.from_bytes(a, "big") & int.from_bytes(b, "big")).to_bytes(len(a), "big")


def _why_closed(board: Board, st: Stance, i: int) -> NoPath | None:
    hid = board.grid.ids[i]
    if i in st.enemy_land:
        return NoPath(f"hex {hid} is occupied by enemy units", "11.18", hid)
    if st.territory[i] == NEUTRAL:
        return NoPath(f"hex {hid} is neutral territory", "11.18", hid)
    if i in st.zoc and i not in st.friendly_land:
        return NoPath(f"hex {hid} is in enemy ZOC", "RULES-NOTES 28", hid)
    return None


def _why_not_rail(board: Board, st: Stance, i: int) -> NoPath | None:
    hid = board.grid.ids[i]
    if not board.grid.rail[i]:
        return NoPath(f"hex {hid} has no railway", "11.18.6", hid)
    if st.territory[i] != FRIENDLY:
        return NoPath(f"hex {hid} is not controlled by a friendly power", "11.18.6", hid)
    return _why_closed(board, st, i)


# --------------------------------------------------------------------------- searching


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


# --------------------------------------------------------------------------- paths


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


# --------------------------------------------------------------------------- many paths


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
