"""The map engine's ground: path results, the grid of hexes and seas indexed once per
map, and the unit questions paths ask (ZOC, coastal tracing, path length)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from functools import lru_cache, partial
from operator import is_not
from typing import Any, Final, TypeVar

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


# The six axial directions (docs/api.md), packed.
_PACKED_DIRECTIONS: Final = (_PACK, _PACK - 1, -1, -_PACK, 1 - _PACK, 1)
_IS_HEX: Final = partial(is_not, None)


# Territory of a hex as seen by a power.
FRIENDLY: Final = 0
OPEN: Final = 1  # controlled by nobody
ENEMY: Final = 2
NEUTRAL: Final = 3
Goal = str | Collection[str] | Callable[[str], bool]


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
    hexsides: Mapping[tuple[int, int], str]  # (lower, higher position) -> feature

    def distance(self, a: int, b: int) -> int:
        (qa, ra), (qb, rb) = self.qr[a], self.qr[b]
        return axial_distance(qa, ra, qb, rb)


_RECENT_GRIDS: dict[int, tuple[MapSpec, Grid]] = {}


def grid_of(spec: MapSpec) -> Grid:
    """The grid of map `spec`, memoized per map value (bounded; a map is immutable, so a
    board built for every state version of a game shares one grid). The map object
    itself is looked up first: hashing a 20,000-hex map value costs about 5 ms, which
    every board and every state view used to pay."""
    found = _RECENT_GRIDS.get(id(spec))
    if found is not None and found[0] is spec:
        return found[1]
    grid = _grid_of(spec)
    if len(_RECENT_GRIDS) >= 8:
        del _RECENT_GRIDS[next(iter(_RECENT_GRIDS))]
    _RECENT_GRIDS[id(spec)] = (spec, grid)  # the map is held, so its id stays its own
    return grid


@lru_cache(maxsize=8)
def _grid_of(spec: MapSpec) -> Grid:
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
        hexsides={(min(index[x.a], index[x.b]), max(index[x.a], index[x.b])): x.feature
                  for x in spec.hexsides},
    )


def exerts_zoc(spec: UnitSpec, mode: str | None, orientation: str | None = None) -> bool:
    """RULES-NOTES 28, OCS 5.5e, OCS 5.9c: land units in Combat Mode, or with no mode (no
    OCS data: Combat), or in Exploit Mode keeping the ZOC they had: an Exploit unit
    keeps its orientation and only Combat or Move units earn the marker, so it had a
    ZOC when oriented to Combat (None: unknown, counted as Combat). Supply units,
    hedgehogs, transport points and replacements are never in Combat Mode (OCS 5.1,
    OCS 5.5c)."""
    if spec.unit_class != "land" or spec.type in _NO_ZOC_TYPES:
        return False
    if spec.ocs is not None and spec.ocs.kind != "combat":
        return False
    if mode == "exploit":
        return orientation != "move"
    return mode is None or mode in ZOC_MODES


def throws_supply(spec: UnitSpec, mode: str | None) -> bool:
    """Whether `spec` is an HQ that is a supply source in `mode`: OCS 5.8b, "An HQ in
    Strat Mode cannot throw supplies", so a Strat HQ is no secondary source (11.18.7),
    no primary source with a supply unit (11.18.8), gives no RPs as an HQ (11.18.2) and
    is no coastal port (RULES-NOTES 2), for supply and reorganization alike."""
    return spec.unit_class == "land" and spec.type == HQ and mode != "strat"


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
